"""Installing from a clean checkout, as a new user does: the README's "Try it" command exactly as
written, and `pip install .` (the builder alone, which brings the runtime from ./runtime), each
in a fresh virtual environment made from a copy of the files git tracks."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # fresh venvs and pip installs: ~30 s each

ROOT = Path(__file__).resolve().parent.parent


def _checkout(dest: Path) -> Path:
    """The tracked files (and the uncommitted edits to them) in `dest`, like a fresh clone."""
    files = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, files):
        source = ROOT / name.decode()
        if source.is_file():
            target = dest / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    return dest


def _readme_command(heading: str) -> str:
    """The one command in the ```bash block under `heading` of the README."""
    text = (ROOT / "README.md").read_text()
    section = text.split(f"## {heading}", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block is not None, heading
    return block.group(1).strip()


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


def test_readme_try_it_runs_as_written(tmp_path: Path) -> None:
    command = _readme_command("Try it (no API keys)")
    assert command.startswith("python3 -m venv .venv")
    done = _bash(command, _checkout(tmp_path / "docsmcp"))
    assert done.returncode == 0, done.stderr[-2000:]
    # pip speaks first (on stdout); then the ranked hits, the Python tab's text among them
    hits = done.stdout[done.stdout.index("\n 1. ") + 1 :]
    first = hits.splitlines()[0]
    assert first.startswith(" 1. guides/errors.mdx#error-handling/retries"), hits[:400]
    assert "language=python" in hits and "</TabItem>" not in hits


def test_pip_install_dot_brings_the_runtime(tmp_path: Path) -> None:
    repo = _checkout(tmp_path / "docsmcp")
    done = _bash(
        "python3 -m venv v && v/bin/pip install -q . && v/bin/docsmcp build --docs-dir "
        "examples/acme-sdk --out idx -q && v/bin/docsmcp-runtime --bundle idx toc",
        repo,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "python/" in done.stdout
