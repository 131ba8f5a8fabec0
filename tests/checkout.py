"""A copy of the checkout as a fresh clone would have it, for tests that install or run the
README's commands from one (tests/test_install.py, tests/test_readme.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def checkout(dest: Path) -> Path:
    """The files git tracks (and uncommitted edits to them) in `dest`, like a fresh clone."""
    files = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, files):
        source = REPO / name.decode()
        if source.is_file():
            target = dest / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    return dest
