"""Cold start of the runtime by where the bundle comes from (issue 15, item 4), speakeasy-sdks.

Each figure is a fresh process → its first search_docs answer, interleaved with a floor
(`python -c pass`) measured in the same loop, so machine noise hits both:

  (a) local directory        `--bundle ./idx` over stdio                       target ≤ 0.4 s
  (b) cached archive         `--bundle idx.tar.gz`, already unpacked in the cache  ≤ 0.5 s
      https, pinned, cached  `--bundle http://127.0.0.1/idx.tar.gz#sha256=...`: no request
      https, sidecar, cached the same URL without a pin: one request for URL.sha256
      https, first download  an empty cache each run: download from 127.0.0.1, verify, unpack
  Lambda init + first invoke: a fresh interpreter imports docsmcp_runtime.lambda_handler
      (AWS_LAMBDA_FUNCTION_NAME set, so the app is built at import as in Lambda's init phase)
      and answers one Function URL event calling search_docs                       ≤ 0.8 s
      (bundle directory in the package; and, for information, an archive in the package
      unpacked into an empty /tmp as every cold Lambda instance would)

Figures only, not a test. Skips cleanly without ../shared (or pass --bundle IDX).

    .venv/bin/python bench/bench_coldstart.py [--bundle IDX] [--runs 7] [--json out.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from asset_server import AssetServer  # noqa: E402 - a real HTTP server on 127.0.0.1
from bench_speakeasy import (  # noqa: E402 - the shared raw-pipe client and helpers
    DEFAULT_DOCS,
    Server,
    check_response,
    pct,
    print_table,
    tool,
    with_timeout,
)

TARGETS = {"local_dir": 0.4, "cached_archive": 0.5, "lambda": 0.8}
QUERY = {"query": "links.createMany", "limit": 10}
EVENT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "lambda-events"

LAMBDA_INVOKE = """
import json, sys
from docsmcp_runtime.lambda_handler import handler
out = handler(json.loads(sys.argv[1]), None)
body = json.loads(out["body"])
assert out["statusCode"] == 200 and body["result"]["structuredContent"]["hits"], out
"""


def child_cpu() -> float:
    """CPU seconds (user + system) of every child reaped so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(measure: Callable[[], float]) -> tuple[float, float]:
    """(wall seconds to the first answer, CPU seconds of the child from start to exit).

    CPU time barely moves with the load of other processes, wall time does: on a shared
    machine, compare designs by the CPU column."""
    cpu = child_cpu()
    wall = measure()
    return wall, child_cpu() - cpu


def stdio_first_answer(spec: str, env: dict[str, str], tmp: Path) -> float:
    """Seconds from spawning `docsmcp-runtime --bundle SPEC` to its first search_docs result."""
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        with (tmp / "server.stderr").open("w+b") as err:
            t0 = time.perf_counter()
            server = Server.spawn(tool("docsmcp-runtime"), spec, err)  # type: ignore[arg-type]
            try:

                def first() -> None:
                    server.initialize()
                    server.send(server.search_request(QUERY))
                    check_response(server.read_line(), want_tool_result=True)

                with_timeout(server, first)
                return time.perf_counter() - t0
            finally:
                server.close()
    finally:
        os.environ.clear()
        os.environ.update(saved)


def function_url_event() -> str:
    event = json.loads((EVENT / "function-url.json").read_text())
    event["headers"].update(
        {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    )
    call = {"name": "search_docs", "arguments": QUERY}
    event["body"] = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})
    return json.dumps(event)


def lambda_first_answer(env: dict[str, str], cwd: Path) -> float:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("DOCSMCP_")}
    environ.update({"AWS_LAMBDA_FUNCTION_NAME": "bench", "LAMBDA_TASK_ROOT": str(cwd), **env})
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", LAMBDA_INVOKE, function_url_event()],
        capture_output=True,
        text=True,
        env=environ,
        cwd=cwd,
        timeout=60,
    )
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"bench: the Lambda handler failed:\n{done.stderr[-2000:]}")
    return elapsed


def floor() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--docs-dir", type=Path, default=DEFAULT_DOCS, help="corpus to build")
    p.add_argument("--bundle", type=Path, help="reuse this bundle and skip the build")
    p.add_argument("--runs", type=int, default=7, help="runs per figure (default 7)")
    p.add_argument("--json", type=Path, metavar="PATH", help="also write the figures here")
    args = p.parse_args(argv)
    if args.bundle is None and not args.docs_dir.is_dir():
        print(f"bench_coldstart: skipped: corpus not found: {args.docs_dir} (pass --bundle)")
        return 0
    import buildbench

    print(buildbench.ensure_bytecode(), flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-coldstart-") as tmp_name:
        tmp = Path(tmp_name)
        if args.bundle is not None:
            bundle = args.bundle.resolve()
        else:
            bundle = tmp / "task" / "idx"
            print(f"building {args.docs_dir} ...", flush=True)
            subprocess.run(
                [tool("docsmcp"), "build", "--docs-dir", str(args.docs_dir), "--out", str(bundle)]
                + ["-q"],
                check=True,
            )
        task = tmp / "task"
        task.mkdir(exist_ok=True)
        if bundle.parent != task:
            shutil.copytree(bundle, task / "idx")
        assets = tmp / "assets"
        assets.mkdir()
        archive = assets / "idx.tar.gz"
        subprocess.run([tool("docsmcp"), "pack", str(task / "idx"), "-o", str(archive)], check=True)
        shutil.copy(archive, task / "idx.tar.gz")
        digest = hashlib.sha256(archive.read_bytes()).hexdigest()
        server = AssetServer(assets)
        try:
            figures = run_cases(args.runs, tmp, task, archive, digest, server)
        finally:
            server.stop()
    report(figures, archive_bytes=figures.pop("_archive_bytes"))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


def run_cases(
    runs: int, tmp: Path, task: Path, archive: Path, digest: str, server: AssetServer
) -> dict[str, Any]:
    warm = tmp / "warm-cache"
    url = server.url("idx.tar.gz")
    fresh_counter = iter(range(10**6))

    def fresh_cache() -> dict[str, str]:
        return {"DOCSMCP_CACHE_DIR": str(tmp / f"fresh-{next(fresh_counter)}")}

    cached = {"DOCSMCP_CACHE_DIR": str(warm)}
    # Prime the warm cache: unpack the archive once (both the file and the URL share it).
    stdio_first_answer(str(archive), cached, tmp)
    stdio_first_answer(url, cached, tmp)
    cases: list[tuple[str, str, Callable[[], float]]] = [
        (
            "local_dir",
            "(a) local directory",
            lambda: stdio_first_answer(str(task / "idx"), {}, tmp),
        ),
        (
            "cached_archive",
            "(b) cached archive",
            lambda: stdio_first_answer(str(archive), cached, tmp),
        ),
        (
            "https_pinned_cached",
            "https, pinned, cached",
            lambda: stdio_first_answer(f"{url}#sha256={digest}", cached, tmp),
        ),
        (
            "https_sidecar_cached",
            "https, sidecar, cached",
            lambda: stdio_first_answer(url, cached, tmp),
        ),
        (
            "https_first_download",
            "https, first download",
            lambda: stdio_first_answer(url, fresh_cache(), tmp),
        ),
        (
            "lambda",
            "Lambda init + first invoke",
            lambda: lambda_first_answer({"DOCSMCP_BUNDLE": "idx"}, task),
        ),
        (
            "lambda_archive",
            "Lambda, archive unpacked to /tmp",
            lambda: lambda_first_answer({"DOCSMCP_BUNDLE": "idx.tar.gz", **fresh_cache()}, task),
        ),
    ]
    times: dict[str, list[float]] = {key: [] for key, _, _ in cases}
    cpu: dict[str, list[float]] = {f"{key}_cpu": [] for key, _, _ in cases}
    floors: list[float] = []
    floors_cpu: list[float] = []
    for i in range(runs):
        wall, used = timed(floor)
        floors.append(wall)
        floors_cpu.append(used)
        for key, _, measure in cases:
            wall, used = timed(measure)
            times[key].append(wall)
            cpu[f"{key}_cpu"].append(used)
        print(f"  run {i + 1}/{runs} done", flush=True)
    figures: dict[str, Any] = {
        "floor_python_c_pass": floors,
        "floor_python_c_pass_cpu": floors_cpu,
        "_archive_bytes": archive.stat().st_size,
        "labels": {key: label for key, label, _ in cases},
    }
    figures.update(times)
    figures.update(cpu)
    return figures


def report(figures: dict[str, Any], archive_bytes: int) -> None:
    floor_p50 = pct(figures["floor_python_c_pass"], 50)
    floor_cpu = pct(figures["floor_python_c_pass_cpu"], 50)
    rows = []
    for key, label in figures["labels"].items():
        values = figures[key]
        p50 = pct(values, 50)
        target = TARGETS.get(key)
        verdict = "" if target is None else ("PASS" if p50 <= target else "FAIL")
        rows.append(
            (
                label,
                f"{p50 * 1000:.0f} ms (min {min(values) * 1000:.0f})",
                f"{p50 / floor_p50:.1f}x",
                f"{pct(figures[key + '_cpu'], 50) * 1000:.0f} ms",
                "info" if target is None else f"<= {target * 1000:.0f} ms",
                verdict,
            )
        )
    print(
        f"\narchive {archive_bytes / 1e6:.1f} MB; floor (python -c pass) p50 "
        f"{floor_p50 * 1000:.0f} ms wall, {floor_cpu * 1000:.0f} ms CPU; "
        f"{len(figures['floor_python_c_pass'])} runs; load average {os.getloadavg()[0]:.1f}"
    )
    header = ("figure (p50 of runs)", "wall", "vs floor", "CPU", "target (wall)", "result")
    print_table(rows, header)


if __name__ == "__main__":
    sys.exit(main())
