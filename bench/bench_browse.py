"""Latency of every tool on the speakeasy-sdks corpus through stdio, against `ping` in the same
process (the floor: the round trip with no work) and search_docs (the tool the budgets name).

Builds the bundle (or takes --bundle), starts one `docsmcp-runtime` process, calls each tool
with a handful of realistic argument sets (first calls, which load a table, are warm-up and are
reported separately), and prints p50/p95 per tool with the target (p50 <= 5 ms) and the ratio
to the ping floor.

    python bench/bench_browse.py [--bundle IDX] [--repeat 30]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_speakeasy import (  # noqa: E402 - the shared client and table helpers
    DEFAULT_DOCS,
    Server,
    check_response,
    pct,
    print_table,
    tool,
    with_timeout,
)

TARGET_P50_MS = 5.0

CALLS: dict[str, list[dict]] = {
    "search_docs": [
        {"query": "create a link", "limit": 10},
        {"query": "RateLimitExceeded", "limit": 10},
        {"query": "retry configuration", "limit": 10, "language": "python"},
    ],
    "list_sections": [
        {},
        {"category": "links"},
        {"path": "dub-ts/docs/models/", "depth": 1},
        {"category": "python", "depth": 3},
    ],
    "get_page": [
        {"path": "dub-ts/docs/sdks/links/README.md"},
        {"path": "dub-python/README"},
        {"path": "sdks/links"},
    ],
    "get_api_reference": [
        {"method": "links.create"},
        {"method": "create", "language": "go"},
        {"limit": 50},
    ],
    "get_code_examples": [
        {"query": "create a link", "language": "ts"},
        {"query": "pagination", "language": "python"},
        {"query": "retries"},
    ],
    "get_doc": [
        {"chunk_id": "dub-ts/docs/sdks/links/README.md#links/create"},
        {"chunk_id": "dub-python/README.md#summary", "context": 1},
    ],
}


def measure(bundle: Path, repeat: int, tmp: Path) -> dict[str, tuple[list[float], float]]:
    """Per tool: (warm ms per call, the first call's ms)."""
    out: dict[str, tuple[list[float], float]] = {}
    with (tmp / "browse.stderr").open("w+b") as err:
        server = Server.spawn(tool("docsmcp-runtime"), bundle, err)
        try:

            def run() -> None:
                server.initialize()

                def timed(method: str, params: dict | None, want: bool) -> float:
                    data = server.encode(method, params)
                    t0 = time.perf_counter()
                    server.send(data)
                    line = server.read_line()
                    elapsed = (time.perf_counter() - t0) * 1000
                    check_response(line, want_tool_result=want)
                    return elapsed

                pings = [timed("ping", None, False) for _ in range(repeat * 3)]
                out["ping (floor)"] = (pings, pings[0])
                for name, argument_sets in CALLS.items():
                    first = timed("tools/call", {"name": name, "arguments": argument_sets[0]}, True)
                    times = [
                        timed("tools/call", {"name": name, "arguments": args}, True)
                        for _ in range(repeat)
                        for args in argument_sets
                    ]
                    out[name] = (times, first)

            with_timeout(server, run)
        finally:
            server.close()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bundle", type=Path, help="an existing speakeasy-sdks bundle")
    p.add_argument("--docs-dir", type=Path, default=DEFAULT_DOCS, help="corpus to build")
    p.add_argument("--repeat", type=int, default=30, help="rounds of each argument set")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-browse-") as tmp_name:
        tmp = Path(tmp_name)
        bundle = args.bundle
        if bundle is None:
            if not args.docs_dir.is_dir():
                p.error(f"corpus not found: {args.docs_dir} (pass --docs-dir or --bundle)")
            bundle = tmp / "idx"
            import subprocess

            subprocess.run(
                [
                    tool("docsmcp"),
                    "build",
                    "--docs-dir",
                    str(args.docs_dir),
                    "--out",
                    str(bundle),
                    "-q",
                ],
                check=True,
            )
        results = measure(bundle, args.repeat, tmp)
    floor = pct(results["ping (floor)"][0], 50)
    rows = []
    failed = False
    for name, (times, first) in results.items():
        p50, p95 = pct(times, 50), pct(times, 95)
        is_tool = name in CALLS
        ok = p50 <= TARGET_P50_MS or not is_tool
        failed |= not ok
        rows.append(
            (
                name,
                f"{p50:.2f}",
                f"{p95:.2f}",
                f"{first:.1f}",
                f"{p50 / floor:.1f}x",
                f"<= {TARGET_P50_MS:g}" if is_tool else "",
                ("ok" if ok else "MISSED") if is_tool else "",
            )
        )
    print_table(rows, ("tool", "p50 ms", "p95 ms", "first ms", "vs ping", "target", "result"))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
