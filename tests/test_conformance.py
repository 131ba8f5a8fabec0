"""The official MCP conformance suite (npm `@modelcontextprotocol/conformance`) against the HTTP
transport, through bench/conformance.py: every scenario that applies to a read-only tools server
must pass; see bench/conformance-expected.json for the list and why the others do not apply.

Needs npm and the npm registry (the pinned package is installed once into a cache under /tmp)
and a Node >= 22 (installed from PyPI when the one on PATH is older); skipped when any of them
cannot be had. A first run takes ~15 s for the installs, later ones ~3 s.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
SCRIPT = BENCH / "conformance.py"
EXPECTED = BENCH / "conformance-expected.json"
EXIT_SKIP = 77  # bench/conformance.py: a prerequisite is unavailable

pytestmark = pytest.mark.network


def test_conformance_suite_server_scenarios() -> None:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed: cannot install @modelcontextprotocol/conformance")
    proc = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=900
    )
    if proc.returncode == EXIT_SKIP:
        pytest.skip(proc.stderr.strip().splitlines()[0])  # the script's one-line reason
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    scenarios = json.loads(EXPECTED.read_text())["scenarios"].values()
    applicable = sum(s["expect"] != "n/a" for s in scenarios)
    assert f"applicable: {applicable}/{applicable} as expected" in proc.stdout, proc.stdout
