"""Normal searches while attackers send huge queries (issue 8: "eight 35 KB requests push normal
searches from 5 ms to 11 s").

Starts `docsmcp-runtime --transport http` over the speakeasy-sdks bundle (built unless --bundle
is given), measures a normal `search_docs` alone (the floor), then again while `--attackers`
threads post queries of `--query-kb` KB of distinct words back to back. Prints both, their
ratio, and the attackers' own answer times. Figures only, not a unit test.

    /work/venv/bin/python bench/bench_hostile_queries.py [--bundle IDX] [--seconds 15]
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_http_load import Server
from bench_speakeasy import DEFAULT_DOCS, print_table, tool

NORMAL_QUERY = "links upsert"
# The ratio of the normal search's p50 under attack to its p50 alone that we accept.
TARGET_RATIO = 20.0


def post(port: int, query: str) -> float:
    """One search_docs round trip on a new connection; seconds."""
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "search_docs", "arguments": {"query": query}},
        }
    )
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("POST", "/mcp", body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"HTTP {response.status}")
    finally:
        conn.close()
    return time.perf_counter() - started


def normal_searches(port: int, seconds: float) -> list[float]:
    times, stop = [], time.monotonic() + seconds
    while time.monotonic() < stop:
        times.append(post(port, NORMAL_QUERY))
        time.sleep(0.05)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs-dir", type=Path, default=DEFAULT_DOCS)
    parser.add_argument("--bundle", type=Path)
    parser.add_argument("--attackers", type=int, default=8)
    parser.add_argument("--query-kb", type=int, default=35)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="docsmcp-bench-"))
    try:
        bundle = args.bundle
        if bundle is None:
            bundle = tmp / "idx"
            subprocess.run(
                [tool("docsmcp"), "build", "--docs-dir", str(args.docs_dir), "--out", str(bundle),
                 "--quiet"],
                check=True,
            )  # fmt: skip
        rng = random.Random(0)
        size = args.query_kb * 1000
        words = " ".join(f"w{i}q{rng.randrange(10**6)}" for i in range(size // 5))[:size]
        server = Server(bundle)
        server.wait_listening()
        try:
            post(server.port, NORMAL_QUERY)  # warm up
            alone = normal_searches(server.port, args.seconds / 3)
            attacked: list[float] = []
            stop = time.monotonic() + args.seconds
            attack_times: list[float] = []

            def attack() -> None:
                while time.monotonic() < stop:
                    attack_times.append(post(server.port, words))

            threads = [threading.Thread(target=attack) for _ in range(args.attackers)]
            for t in threads:
                t.start()
            attacked = normal_searches(server.port, args.seconds)
            for t in threads:
                t.join()
        finally:
            server.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    floor, under = statistics.median(alone) * 1e3, statistics.median(attacked) * 1e3
    ratio = under / floor
    rows = [
        ("normal search alone, p50 (floor)", f"{floor:.1f} ms ({len(alone)} calls)", "", ""),
        (
            f"normal search under {args.attackers} x {args.query_kb} KB queries, p50",
            f"{under:.1f} ms (max {max(attacked) * 1e3:.1f}, {len(attacked)} calls)",
            "",
            "",
        ),
        ("  ratio to the floor", f"{ratio:.1f}x", f"<= {TARGET_RATIO:g}x",
         "PASS" if ratio <= TARGET_RATIO else "FAIL"),
        ("attack query answered, p50", f"{statistics.median(attack_times) * 1e3:.1f} ms "
         f"({len(attack_times)} answered)", "", ""),
    ]  # fmt: skip
    print_table(rows)
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
