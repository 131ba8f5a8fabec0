"""Build-speed measurements shared by bench_speakeasy.py and bench_win32.py (issue 14).

Each build is a `docsmcp build` subprocess reaped with `os.wait4`, so besides the wall clock
we get its CPU time (user + system, its worker processes included) and its peak RSS (the
largest of the process and its workers). The machine is shared, so every figure comes with
floors measured in the same run: the interpreter starting the builder (`docsmcp --version`)
and reading every corpus file (the disk).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

DOC_SUFFIXES = (".md", ".mdx", ".rst", ".html", ".htm")


@dataclass(frozen=True)
class Run:
    wall_s: float
    cpu_s: float  # user + system, workers included
    peak_rss_mb: float  # the largest process (MB = 10^6 bytes)


def run(cmd: list[str], env: dict[str, str] | None = None) -> Run:
    """Run `cmd`, exit the benchmark with its output if it fails."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **(env or {})}
    )
    # wait4 before communicate would deadlock on a full pipe: read first, then reap.
    out, err = proc.stdout.read(), proc.stderr.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(
            f"bench: {' '.join(cmd)} failed ({proc.returncode}):\n{err.decode()}{out.decode()}"
        )
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024 / 1e6)


def ensure_bytecode() -> str:
    """Compile docsmcp's and the runtime's sources to bytecode (`__pycache__`, as an installed
    wheel has it) and say so. With PYTHONDONTWRITEBYTECODE=1 (set on this machine) an editable
    install never writes it, so every process compiled ~140 modules from source: ~75 ms of the
    runtime's cold start and ~0.1 s of each `docsmcp` start, which no user pays."""
    folders = []
    for name in ("docsmcp", "docsmcp_runtime"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            folders.extend(spec.submodule_search_locations)
    subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], check=True)
    unset = " (PYTHONDONTWRITEBYTECODE is set: compiled here)" if sys.dont_write_bytecode else ""
    return f"bytecode: compiled for {len(folders)} packages{unset}"


def read_floor(docs: Path) -> float:
    """Seconds to read every docs file once (the page cache is warm after the first build)."""
    start = time.perf_counter()
    for folder, dirs, files in os.walk(docs):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.lower().endswith(DOC_SUFFIXES):
                with open(os.path.join(folder, name), "rb") as f:
                    f.read()
    return time.perf_counter() - start


def startup_floor(docsmcp: str) -> Run:
    return run([docsmcp, "--version"])


def measure_clean_builds(docsmcp: str, docs: Path, out: Path, runs: int) -> list[Run]:
    """Clean builds (`--no-cache`: every file parsed), both cores."""
    cmd = [docsmcp, "build", "--docs-dir", str(docs), "--out", str(out), "-q", "--no-cache"]
    results = []
    for i in range(runs):
        results.append(run(cmd))
        print(f"  build {i + 1}/{runs}: {describe(results[-1])}", flush=True)
    return results


def measure_rebuilds(
    docsmcp: str, docs: Path, tmp: Path, runs: int, extra: tuple[str, ...] = ()
) -> list[Run]:
    """Rebuilds after editing one file: a copy of the corpus is built once with a parse cache
    of its own and rebuilt once unchanged (the copy's files were written moments before the
    first build: too recent to be trusted by their stat, known_files.py, so that rebuild reads
    them and records them, as for any docs folder older than two seconds), then one page gets
    a new paragraph before each timed rebuild."""
    copy = tmp / f"docs{len(extra)}"
    if not copy.exists():
        shutil.copytree(docs, copy)
        for folder, _, files in os.walk(copy):  # the shared corpora are read-only
            os.chmod(folder, 0o755)
            for name in files:
                os.chmod(os.path.join(folder, name), 0o644)
    page = min(p for p in copy.rglob("*.md") if not any(s.startswith(".") for s in p.parts))
    env = {"DOCSMCP_CACHE_DIR": str(tmp / f"cache{len(extra)}")}
    cmd = [docsmcp, "build", "--docs-dir", str(copy), "--out", str(tmp / f"re{len(extra)}")]
    cmd += ["-q", *extra]
    run(cmd, env)  # fills the cache
    run(cmd, env)  # records the files unchanged since
    results = []
    for i in range(runs):
        with page.open("a", encoding="utf-8") as f:
            f.write(f"\n\nEdited for rebuild {i}: a new paragraph.\n")
        results.append(run(cmd, env))
        print(f"  rebuild {i + 1}/{runs}: {describe(results[-1])}", flush=True)
    return results


def describe(r: Run) -> str:
    return f"{r.wall_s:.2f} s wall, {r.cpu_s:.2f} s CPU, {r.peak_rss_mb:.0f} MB peak RSS"


def median_run(runs: list[Run]) -> Run:
    """The run of median wall time (its CPU and RSS with it)."""
    return sorted(runs, key=lambda r: r.wall_s)[(len(runs) - 1) // 2]
