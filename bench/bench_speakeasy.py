"""Speed and size benchmark of docsmcp on the speakeasy-sdks corpus (21.7 MB of markdown).

Prints build time, bundle/corpus size ratio, cold start, warm search_docs latency and the
runtime's peak RSS against their targets. Figures only: nothing here is a unit test.

    /work/venv/bin/python bench/bench_speakeasy.py [--bundle IDX] [--json out.json]

See bench/README.md for what each figure means.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import buildbench

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DOCS = REPO.parent / "shared" / "corpora" / "speakeasy-sdks"
PROTOCOL_VERSION = "2025-11-25"
STATIC = ("--embedding-provider", "static")
MARKDOWN_SUFFIXES = (".md", ".mdx")
# A wedged server must not hang the benchmark: any single response slower than this aborts.
RESPONSE_TIMEOUT_S = 30.0

TARGETS = {
    # issue 14: full-text build on both cores, and a rebuild after editing one file
    "build_s": 5.0,
    "rebuild_s": 2.0,
    "rebuild_static_s": 3.0,
    "size_ratio": 1.0,
    # The runtime budgets of ../shared/DECISIONS.md (full-text bundle, stdio).
    "cold_start_p50_s": 0.3,
    "search_p50_ms": 3.0,
    "peak_rss_mb": 160.0,
}

# Fixed query mix: exact identifiers from the SDK references, task-style questions, and
# both with and without taxonomy filters (language: go php python ruby typescript;
# product: dub mistral). Order and content are part of the benchmark; do not shuffle.
QUERIES: list[dict[str, Any]] = [
    # identifiers, unfiltered
    {"query": "links.createMany"},
    {"query": "RateLimitExceeded"},
    {"query": "create_many"},
    {"query": "chat.complete"},
    {"query": "embeddings.create"},
    {"query": "getSignedUrl"},
    {"query": "HTTPValidationError"},
    {"query": "UnprocessableEntity"},
    {"query": "qrCodes.get"},
    {"query": "track.lead"},
    {"query": "fim.complete"},
    {"query": "ocr.process"},
    # identifiers, filtered
    {"query": "links.upsert", "language": "python"},
    {"query": "RateLimitExceeded", "language": "go"},
    {"query": "customers.list", "product": "dub", "language": "typescript"},
    {"query": "files.upload", "product": "mistral"},
    {"query": "agents.complete", "language": "typescript", "product": "mistral"},
    {"query": "domains.create", "language": "ruby"},
    {"query": "tags.update", "language": "php"},
    {"query": "conversations.start", "language": "python"},
    {"query": "NotFound", "product": "dub"},
    {"query": "commissions.list", "language": "go"},
    # natural language, unfiltered
    {"query": "how to paginate results"},
    {"query": "retry with exponential backoff"},
    {"query": "use a custom HTTP client"},
    {"query": "authenticate with an API key"},
    {"query": "stream chat completion tokens"},
    {"query": "handle errors from the API"},
    {"query": "install the SDK"},
    {"query": "create a short link with a custom domain"},
    {"query": "track a sale conversion"},
    {"query": "override the server URL"},
    # natural language, filtered
    {"query": "how to paginate results", "language": "python"},
    {"query": "retry with exponential backoff", "language": "go", "product": "dub"},
    {"query": "upload a file for fine-tuning", "product": "mistral"},
    {"query": "bulk delete links", "language": "ruby"},
    {"query": "set a request timeout", "language": "typescript"},
    {"query": "enable debug logging", "language": "php"},
    {"query": "transcribe audio to text", "product": "mistral", "language": "python"},
    {"query": "list analytics by country", "product": "dub"},
]


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile: an observed value, so p50 of 10 runs is a real run."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def tool(name: str) -> str:
    """The console script installed next to the interpreter running this benchmark."""
    local = Path(sys.executable).parent / name
    if local.exists():
        return str(local)
    found = shutil.which(name)
    if found is None:
        sys.exit(f"bench: cannot find the {name!r} command (is docsmcp installed?)")
    return found


def tree_bytes(root: Path, suffixes: tuple[str, ...] | None = None) -> int:
    """Sum of file sizes under root; with suffixes, skip hidden dirs/files like the builder."""
    total = 0
    for folder, dirs, files in os.walk(root):
        if suffixes is not None:
            dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if suffixes is not None and (
                name.startswith(".") or not name.lower().endswith(suffixes)
            ):
                continue
            total += (Path(folder) / name).stat().st_size
    return total


def vm_hwm_mb(pid: int) -> float:
    """Peak resident set size (VmHWM) of a live process, in MB (10^6 bytes)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024 / 1e6
    raise RuntimeError(f"no VmHWM in /proc/{pid}/status")


# ---------------------------------------------------------------------------
# raw-pipe JSON-RPC client
# ---------------------------------------------------------------------------


class ServerError(RuntimeError):
    pass


@dataclass
class Server:
    """One `docsmcp-runtime --bundle IDX` process spoken to over raw pipes.

    No MCP SDK: requests are pre-encoded bytes and responses are read with readline, so
    what we time is almost entirely the server.
    """

    proc: subprocess.Popen[bytes]
    stderr: IO[bytes]
    next_id: int = 1

    @classmethod
    def spawn(cls, runtime: str, bundle: Path, stderr: IO[bytes]) -> Server:
        proc = subprocess.Popen(
            [runtime, "--bundle", str(bundle)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
        return cls(proc, stderr)

    def encode(self, method: str, params: dict | None = None, notify: bool = False) -> bytes:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if not notify:
            msg["id"] = self.next_id
            self.next_id += 1
        return json.dumps(msg, separators=(",", ":")).encode() + b"\n"

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read_line(self) -> bytes:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise ServerError(f"server exited (status {self.proc.poll()}): {self.stderr_tail()}")
        return line

    def stderr_tail(self) -> str:
        try:
            self.stderr.flush()
            self.stderr.seek(0)
            return self.stderr.read()[-2000:].decode(errors="replace").strip() or "(no stderr)"
        except (OSError, ValueError):
            return "(stderr unavailable)"

    def initialize(self) -> None:
        self.send(
            self.encode(
                "initialize",
                {
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "bench_speakeasy", "version": "1"},
                },
            )
        )
        check_response(self.read_line(), want_tool_result=False)
        self.send(self.encode("notifications/initialized", notify=True))

    def search_request(self, arguments: dict) -> bytes:
        return self.encode("tools/call", {"name": "search_docs", "arguments": {**arguments}})

    def close(self) -> None:
        """EOF on stdin is the server's shutdown signal; kill only if it ignores it."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def check_response(line: bytes, want_tool_result: bool) -> dict:
    msg = json.loads(line)
    if "error" in msg:
        raise ServerError(f"JSON-RPC error: {msg['error']}")
    result = msg["result"]
    if want_tool_result and result.get("isError"):
        raise ServerError(f"search_docs error: {result['content'][0]['text']}")
    return result


def with_timeout(server: Server, fn: Any) -> Any:
    """Run fn() but kill the server if it takes too long (readline has no timeout)."""
    timer = threading.Timer(RESPONSE_TIMEOUT_S, server.proc.kill)
    timer.start()
    try:
        return fn()
    finally:
        timer.cancel()


# ---------------------------------------------------------------------------
# measurements
# ---------------------------------------------------------------------------


def measure_builds(docs: Path, out: Path, runs: int) -> list[float]:
    """Wall seconds of clean builds (`--no-cache`: a rebuild from the parse cache is faster)."""
    return [r.wall_s for r in buildbench.measure_clean_builds(tool("docsmcp"), docs, out, runs)]


def measure_cold(bundle: Path, runs: int, tmp: Path) -> tuple[list[float], list[float], float]:
    """Spawn → first search_docs result, interleaved with a `python -c pass` baseline.

    Returns (server times, baseline times, max VmHWM MB of the server after its first result).
    Interleaving puts both under the same machine noise.
    """
    runtime = tool("docsmcp-runtime")
    query = {"query": "links.createMany", "limit": 10}
    server_times: list[float] = []
    baseline_times: list[float] = []
    rss = 0.0
    for i in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        baseline_times.append(time.perf_counter() - t0)

        with (tmp / f"cold-{i}.stderr").open("w+b") as err:
            t0 = time.perf_counter()
            server = Server.spawn(runtime, bundle, err)
            try:

                def first_result(server: Server = server) -> None:
                    server.initialize()
                    server.send(server.search_request(query))
                    check_response(server.read_line(), want_tool_result=True)

                with_timeout(server, first_result)
                server_times.append(time.perf_counter() - t0)
                rss = max(rss, vm_hwm_mb(server.proc.pid))
            finally:
                server.close()
    return server_times, baseline_times, rss


def measure_latency(
    bundle: Path, repeat: int, warmup: int, tmp: Path
) -> tuple[list[float], float, int]:
    """Warm search_docs round trips in one process.

    Returns (ms per call, VmHWM MB, queries with 0 hits).
    """
    with (tmp / "latency.stderr").open("w+b") as err:
        server = Server.spawn(tool("docsmcp-runtime"), bundle, err)
        try:

            def run() -> tuple[list[float], int]:
                server.initialize()
                zero_hits = 0
                for _ in range(warmup):
                    for q in QUERIES:
                        server.send(server.search_request({**q, "limit": 10}))
                        res = check_response(server.read_line(), want_tool_result=True)
                        zero_hits += not res["structuredContent"]["hits"]
                # Pre-encode so JSON encoding in the client is outside the timed region.
                requests = [
                    server.search_request({**q, "limit": 10})
                    for _ in range(repeat)
                    for q in QUERIES
                ]
                send, read = server.send, server.read_line
                lines: list[bytes] = []
                times: list[float] = []
                for data in requests:
                    t0 = time.perf_counter()
                    send(data)
                    line = read()
                    times.append((time.perf_counter() - t0) * 1000)
                    lines.append(line)
                for line in lines:  # validate after timing, so parsing isn't counted
                    check_response(line, want_tool_result=True)
                return times, zero_hits // max(warmup, 1)

            times, zero_hits = with_timeout(server, run)
            rss = vm_hwm_mb(server.proc.pid)
        finally:
            server.close()
    return times, rss, zero_hits


# ---------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------


def spread_ms(seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return f"{pct(ms, 50):.0f} ms (min {min(ms):.0f}, max {max(ms):.0f})"


def print_table(
    rows: list[tuple[str, ...]],
    headers: tuple[str, ...] = ("figure", "value", "target", "result"),
) -> None:
    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(headers))]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    print(line)
    print("-" * len(line))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--docs-dir", type=Path, default=DEFAULT_DOCS, help="corpus to build")
    p.add_argument("--bundle", type=Path, help="reuse this bundle and skip the build")
    p.add_argument("--builds", type=int, default=1, help="build runs (default 1)")
    p.add_argument("--cold", type=int, default=10, help="cold-start runs (default 10)")
    p.add_argument(
        "--repeat", type=int, default=10, help="timed passes over the query list (default 10)"
    )
    p.add_argument("--warmup", type=int, default=2, help="untimed passes first (default 2)")
    p.add_argument(
        "--rebuilds",
        type=int,
        default=3,
        help="rebuilds after a one-file edit (default 3; 0: none)",
    )
    p.add_argument("--json", type=Path, metavar="PATH", help="also write the figures here")
    args = p.parse_args(argv)
    if min(args.builds, args.cold, args.repeat) < 1 or args.warmup < 0:
        p.error("--builds, --cold and --repeat must be >= 1; --warmup >= 0")
    docs: Path = args.docs_dir.resolve()
    if not docs.is_dir():
        p.error(f"corpus not found: {docs} (pass --docs-dir)")

    figures: dict[str, Any] = {"docs_dir": str(docs), "queries": len(QUERIES)}
    rows: list[tuple[str, str, str, str]] = []
    results: dict[str, bool] = {}

    def judged(key: str, label: str, value: float, shown: str, target_shown: str) -> None:
        ok = value <= TARGETS[key]
        results[key] = ok
        rows.append((label, shown, target_shown, "PASS" if ok else "FAIL"))

    def info(label: str, shown: str) -> None:
        rows.append((label, shown, "", ""))

    print(buildbench.ensure_bytecode(), flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-speakeasy-") as tmp_name:
        tmp = Path(tmp_name)
        corpus_bytes = tree_bytes(docs, MARKDOWN_SUFFIXES)
        if args.bundle is not None:
            bundle = args.bundle.resolve()
            if not (bundle / "metadata.json").is_file():
                p.error(f"not a bundle: {bundle}")
            print(f"reusing bundle {bundle} (build skipped)", flush=True)
        else:
            bundle = tmp / "bundle"
            print(f"building {docs} x{args.builds} ...", flush=True)
            docsmcp = tool("docsmcp")
            runs = buildbench.measure_clean_builds(docsmcp, docs, bundle, args.builds)
            builds = [r.wall_s for r in runs]
            figures["build_s"] = {"min": min(builds), "median": statistics.median(builds)}
            figures["build_s"]["runs"] = builds
            mid = buildbench.median_run(runs)
            figures["build_cpu_s"], figures["build_peak_rss_mb"] = mid.cpu_s, mid.peak_rss_mb
            judged(
                "build_s",
                f"build time, median of {len(builds)}",
                statistics.median(builds),
                f"{statistics.median(builds):.2f} s",
                f"<= {TARGETS['build_s']:.0f} s",
            )
            info("build time, min", f"{min(builds):.2f} s")
            info("  its CPU (user+sys) / peak RSS", f"{mid.cpu_s:.2f} s / {mid.peak_rss_mb:.0f} MB")
            floor = buildbench.startup_floor(docsmcp)
            read = buildbench.read_floor(docs)
            figures["floor_startup_s"], figures["floor_read_s"] = floor.wall_s, read
            info("  floor: `docsmcp --version`", f"{floor.wall_s:.2f} s")
            info("  floor: read every file", f"{read:.2f} s")
            for key, label, extra in (
                ("rebuild_s", "rebuild after a one-file edit", ()),
                ("rebuild_static_s", "  same, static embeddings", STATIC),
            ):
                if not args.rebuilds:
                    break
                print(f"{label.strip()} x{args.rebuilds} ...", flush=True)
                reruns = buildbench.measure_rebuilds(docsmcp, docs, tmp, args.rebuilds, extra)
                mid = buildbench.median_run(reruns)
                figures[key] = {"median": mid.wall_s, "cpu_s": mid.cpu_s, "runs": len(reruns)}
                judged(
                    key,
                    f"{label}, median of {len(reruns)}",
                    mid.wall_s,
                    f"{mid.wall_s:.2f} s ({mid.cpu_s:.2f} s CPU)",
                    f"<= {TARGETS[key]:.0f} s",
                )

        bundle_bytes = tree_bytes(bundle)
        ratio = bundle_bytes / corpus_bytes
        figures.update(bundle_bytes=bundle_bytes, corpus_bytes=corpus_bytes, size_ratio=ratio)
        judged(
            "size_ratio",
            "bundle / corpus bytes",
            ratio,
            f"{ratio:.3f} ({bundle_bytes / 1e6:.1f} / {corpus_bytes / 1e6:.1f} MB)",
            f"<= {TARGETS['size_ratio']:.1f}",
        )

        print(f"cold start x{args.cold} ...", flush=True)
        cold, base, cold_rss = measure_cold(bundle, args.cold, tmp)
        figures["cold_start_s"] = {"p50": pct(cold, 50), "min": min(cold), "max": max(cold)}
        figures["python_pass_s"] = {"p50": pct(base, 50), "min": min(base), "max": max(base)}
        figures["peak_rss_cold_mb"] = cold_rss
        judged(
            "cold_start_p50_s",
            "cold start to 1st result, p50",
            pct(cold, 50),
            spread_ms(cold),
            f"<= {TARGETS['cold_start_p50_s'] * 1000:.0f} ms",
        )
        info(
            "  baseline `python -c pass`, p50",
            spread_ms(base),
        )

        n_calls = args.repeat * len(QUERIES)
        print(f"search latency: {args.warmup}+{args.repeat} passes x {len(QUERIES)} queries ...")
        lat, lat_rss, zero_hits = measure_latency(bundle, args.repeat, args.warmup, tmp)
        figures["search_ms"] = {
            "p50": pct(lat, 50),
            "p95": pct(lat, 95),
            "max": max(lat),
            "calls": n_calls,
            "zero_hit_queries": zero_hits,
        }
        figures["peak_rss_mb"] = lat_rss
        judged(
            "search_p50_ms",
            f"search_docs round trip, p50 ({n_calls} calls)",
            pct(lat, 50),
            f"{pct(lat, 50):.2f} ms",
            f"<= {TARGETS['search_p50_ms']:.0f} ms",
        )
        info("  search_docs p95 / max", f"{pct(lat, 95):.2f} / {max(lat):.2f} ms")
        # Calls were issued pass by pass in QUERIES order, so call i is query i % len(QUERIES).
        per_query = [statistics.median(lat[i :: len(QUERIES)]) for i in range(len(QUERIES))]
        slow = max(range(len(QUERIES)), key=per_query.__getitem__)
        figures["search_ms"]["slowest_query"] = {**QUERIES[slow], "median_ms": per_query[slow]}
        filters = " ".join(f"{k}={v}" for k, v in QUERIES[slow].items() if k != "query")
        info(
            "  slowest query (its median)",
            f"{per_query[slow]:.2f} ms {QUERIES[slow]['query']!r} {filters}".rstrip(),
        )
        if zero_hits:
            info("  queries with 0 hits", str(zero_hits))
        judged(
            "peak_rss_mb",
            "runtime peak RSS after latency run",
            lat_rss,
            f"{lat_rss:.1f} MB ({lat_rss * 1e6 / 2**20:.1f} MiB)",
            f"<= {TARGETS['peak_rss_mb']:.0f} MB",
        )
        info("  runtime peak RSS after cold start", f"{cold_rss:.1f} MB")

    figures["targets"] = TARGETS
    figures["pass"] = results
    print()
    print_table(rows)
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
        print(f"\nwrote {args.json}")
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
