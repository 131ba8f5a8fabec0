"""Installing from a clean checkout, as a new user does: `pip install .` (the builder alone,
which brings the runtime from ./runtime) in a fresh virtual environment made from a copy of the
files git tracks. The README's Try-it command (`pip install ./runtime .`) is run as written by
tests/test_readme.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from checkout import checkout

pytestmark = pytest.mark.slow  # a fresh venv and pip install: ~30 s


def _bash(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        # python3 on PATH is this interpreter's, as in the environment the README assumes
        env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(cwd)},
    )


def test_pip_install_dot_brings_the_runtime(tmp_path: Path) -> None:
    repo = checkout(tmp_path / "docsmcp")
    done = _bash(
        "python3 -m venv v && v/bin/pip install -q . && v/bin/docsmcp build --docs-dir "
        "examples/acme-sdk --out idx -q && v/bin/docsmcp-runtime --bundle idx toc",
        repo,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "python/" in done.stdout
