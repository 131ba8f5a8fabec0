"""Cold start of a first pull from an OCI registry on 127.0.0.1 (issue 15, item 4c).

Starts the reference registry (Debian's `docker-registry`, as the tests do: tests/oci_registry.py)
with a temporary storage folder, pushes the speakeasy-sdks bundle with `docsmcp push`, then times
a fresh `docsmcp-runtime --bundle oci://127.0.0.1:PORT/docs/speakeasy:v1` with an empty cache
from spawn to its first search_docs answer: resolve the tag, download and check manifest and
layer, unpack, verify the bundle's checksums, serve. Interleaved in every round, under the same
machine noise: `python -c pass` and the same bundle served from its directory (the floors), and
a second start on the warm cache (the tag is still asked of the registry).

    python bench/bench_oci_pull.py [--bundle IDX] [--cold 10] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from bench_speakeasy import (  # noqa: E402 - the shared raw-pipe client and helpers
    DEFAULT_DOCS,
    Server,
    check_response,
    pct,
    print_table,
    tool,
    with_timeout,
)
from oci_registry import Registry, missing  # noqa: E402 - the tests' registry runner

REPO = Path(__file__).resolve().parent.parent
TARGET_FIRST_PULL_S = 1.5
QUERY = {"query": "links.createMany", "limit": 10}


def first_answer(bundle: str, cache: Path, tmp: Path, label: str) -> float:
    """Seconds from spawning the server on `bundle` (cache root `cache`) to its first
    search_docs result."""
    os.environ["DOCSMCP_CACHE_DIR"] = str(cache)
    with (tmp / f"{label}.stderr").open("w+b") as err:
        t0 = time.perf_counter()
        server = Server.spawn(tool("docsmcp-runtime"), bundle, err)  # type: ignore[arg-type]
        try:

            def run(server: Server = server) -> None:
                server.initialize()
                server.send(server.search_request(QUERY))
                check_response(server.read_line(), want_tool_result=True)

            with_timeout(server, run)
            return time.perf_counter() - t0
        finally:
            server.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--docs-dir", type=Path, default=DEFAULT_DOCS, help="corpus to build")
    p.add_argument("--bundle", type=Path, help="reuse this bundle and skip the build")
    p.add_argument("--cold", type=int, default=10, help="rounds (default 10)")
    p.add_argument("--json", type=Path, metavar="PATH", help="also write the figures here")
    args = p.parse_args(argv)
    if args.cold < 1:
        p.error("--cold must be >= 1")
    if missing():
        sys.exit(f"bench: {missing()}")
    with tempfile.TemporaryDirectory(prefix="bench-oci-") as tmp_name:
        tmp = Path(tmp_name)
        if args.bundle is not None:
            bundle = args.bundle.resolve()
        else:
            docs = args.docs_dir
            if not docs.is_dir():
                docs = REPO / "examples" / "acme-sdk"
                print(f"note: {args.docs_dir} not found; using {docs} (figures not comparable)")
            bundle = tmp / "idx"
            print(f"building {docs} ...", flush=True)
            subprocess.run(
                [tool("docsmcp"), "build", "--docs-dir", str(docs), "--out", str(bundle), "-q"],
                check=True,
            )
        registry = Registry(tmp / "registry").start()
        try:
            reference = f"{registry.host}/docs/speakeasy:v1"
            t0 = time.perf_counter()
            pushed = subprocess.run(
                [tool("docsmcp"), "push", str(bundle), reference, "--json"],
                check=True,
                capture_output=True,
                text=True,
            )
            push_s = time.perf_counter() - t0
            layer_bytes = json.loads(pushed.stdout)["size"]
            times: dict[str, list[float]] = {"pull": [], "cached": [], "local": [], "python": []}
            for i in range(args.cold):
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-c", "pass"], check=True)
                times["python"].append(time.perf_counter() - t0)
                times["local"].append(first_answer(str(bundle), tmp / f"c{i}-l", tmp, f"l{i}"))
                cache = tmp / f"c{i}"
                times["pull"].append(first_answer(f"oci://{reference}", cache, tmp, f"p{i}"))
                times["cached"].append(first_answer(f"oci://{reference}", cache, tmp, f"w{i}"))
                shutil.rmtree(cache)
                print(f"  round {i + 1}/{args.cold}: first pull {times['pull'][-1]:.3f} s")
        finally:
            registry.close()
    p50 = {k: pct(v, 50) for k, v in times.items()}
    ok = p50["pull"] <= TARGET_FIRST_PULL_S
    print()
    print(f"bundle {bundle}: layer {layer_bytes / 1e6:.1f} MB; docsmcp push {push_s:.2f} s")
    print_table(
        [
            (
                "first pull → first answer p50",
                f"{p50['pull']:.3f} s (min {min(times['pull']):.3f})",
                f"≤ {TARGET_FIRST_PULL_S} s",
                "ok" if ok else "FAIL",
            ),
            ("warm cache, tag checked, p50", f"{p50['cached']:.3f} s", "—", ""),
            ("floor: bundle directory p50", f"{p50['local']:.3f} s", "—", ""),
            ("floor: python -c pass p50", f"{p50['python']:.3f} s", "—", ""),
            ("first pull ÷ directory", f"{p50['pull'] / p50['local']:.2f}×", "—", ""),
        ]
    )
    if args.json:
        figures = {
            "layer_bytes": layer_bytes,
            "push_s": push_s,
            "p50_s": p50,
            "mean_s": {k: statistics.fmean(v) for k, v in times.items()},
            "runs_s": times,
            "target_first_pull_s": TARGET_FIRST_PULL_S,
        }
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
