"""A full cache disk (issue 31): the cache is optional, so a build whose cache cannot be
written warns once per cache and goes on uncached. Before, a parse cache whose side file could
not flush failed the build as "cannot write OUT" (OUT on another disk), and a git checkout
into a full cache ended the build.

The disk is a real one: a 64 KiB tmpfs, mounted for the test where this machine lets the test
mount one (root with CAP_SYS_ADMIN, as in CI's container); elsewhere the test is skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import EXAMPLE_DOCS
from hostile import write_tree


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"needs a small disk to fill, and mount refused: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)


def _build(docs: Path | str, out: Path, cache: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "docsmcp.cli", "build", "--docs-dir", str(docs), "--out", out,
         "--cache-dir", cache, *extra],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_a_full_cache_disk_is_one_warning_per_cache(full_disk: Path, tmp_path: Path) -> None:
    cache = full_disk / "cache"
    out = tmp_path / "idx"
    # Enough text, hard to compress, that the parse cache's side file outgrows the disk.
    words = [hashlib.sha256(str(n).encode()).hexdigest()[:8] for n in range(4000)]
    docs = write_tree(
        tmp_path / "docs",
        {
            f"page{n}.md": f"# Page {n}\n\n{' '.join(words[n * 100 : n * 100 + 100])}\n"
            for n in range(40)
        },
    )
    for _ in range(2):  # the second build reads what the first left
        proc = _build(docs, out, cache, "--embedding-provider", "static")
        assert proc.returncode == 0, proc.stderr
        assert "Traceback" not in proc.stderr and "cannot write " + str(out) not in proc.stderr
        warnings = [x for x in proc.stderr.splitlines() if "warning" in x]
        # One per cache that did not fit (the parse cache; the vectors may have room left).
        assert any("cannot write the parse cache" in x for x in warnings), warnings
        assert len(warnings) == len({x.split(" cache ")[0] for x in warnings}), warnings
        assert all(x.endswith("(No space left on device)") for x in warnings), warnings
        assert json.loads((out / "metadata.json").read_text())["stats"]["files"] == 40
    assert not [p for p in cache.rglob("*") if ".tmp-" in p.name]  # no partial files left
    assert _build(EXAMPLE_DOCS, tmp_path / "idx2", cache, "--quiet").returncode == 0


def test_a_git_source_into_a_full_cache_is_checked_out_elsewhere(
    full_disk: Path, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / "docs" / "guide.md").write_text("# Guide\n\n" + "Install the frobnicator. " * 2000)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "docs"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, env=env)
    proc = _build(f"file://{repo}", tmp_path / "idx", full_disk / "cache", "--subdir", "docs")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0].startswith(
        f"docsmcp: warning: cannot keep git checkouts in the cache {full_disk}/cache/git "
        "(No space left on device); fetching into a temporary folder"
    ), proc.stderr
