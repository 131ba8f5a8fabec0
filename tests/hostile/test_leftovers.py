"""Temporary files of killed writers are cleaned and counted (issue 31): an unpack, a registry
pull or a pack killed with SIGKILL left `.HEX.tmp-*` (19 MB each), `.HEX.pull-*` and
`.ARCHIVE.tmp-PID` behind for good, and `docsmcp cache info` did not count them. Their names
now carry the writer's pid: the next writer of the folder removes those whose process is gone
(and, for names from before, those a day old), and `cache info` counts them."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from conftest import run_docsmcp
from docsmcp_runtime.distribution.archive import locate_archive, unpack_to_cache
from docsmcp_runtime.distribution.swap import STALE_SECONDS, stale_temporaries


def dead_pid() -> int:
    """The pid of a process that has ended (as a SIGKILLed writer's)."""
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def leftovers(folder: Path) -> dict[str, Path]:
    """What killed writers leave, and what a live writer (this process) is writing."""
    folder.mkdir(parents=True, exist_ok=True)
    gone, me = dead_pid(), os.getpid()
    made = {
        "unpack": folder / f".0123456789abcdef.tmp-{gone}-k2j4",  # a killed unpack's folder
        "pull": folder / f".0123456789abcdef.pull-{gone}-x9",  # a killed pull's layer
        "old-style": folder / ".0123456789abcdef.tmp-qzx81a",  # before names had a pid
        "live": folder / f".fedcba9876543210.tmp-{me}-ab",  # this process: still writing
        "fresh": folder / ".fedcba9876543210.tmp-new1",  # no pid, but young
    }
    for name, path in made.items():
        if name in ("unpack", "old-style", "live", "fresh"):
            path.mkdir()
            (path / "vectors.bin").write_bytes(b"\0" * 4096)
        else:
            path.write_bytes(b"\0" * 4096)
    day_ago = time.time() - STALE_SECONDS - 60
    os.utime(made["old-style"], (day_ago, day_ago))
    return made


def test_stale_temporaries_are_the_ones_whose_writer_is_gone(tmp_path: Path) -> None:
    made = leftovers(tmp_path / "bundles")
    found = stale_temporaries(tmp_path / "bundles")
    assert found == sorted([made["unpack"], made["pull"], made["old-style"]])


def test_the_next_unpack_removes_them_and_cache_info_counted_them(
    example_bundle: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    made = leftovers(cache / "bundles")
    info = run_docsmcp("cache", "info", "--cache-dir", cache).stdout
    assert "3 left by killed writers, 0.0 MB" in info, info
    archive = tmp_path / "idx.tar.gz"
    run_docsmcp("pack", example_bundle, "-o", archive)
    source = locate_archive(archive)
    assert source is not None
    unpacked = unpack_to_cache(source, cache)
    assert (unpacked / "metadata.json").is_file()
    left = {p.name for p in (cache / "bundles").iterdir()}
    assert left == {unpacked.name, made["live"].name, made["fresh"].name}
    assert "left by killed writers" not in run_docsmcp("cache", "info", "--cache-dir", cache).stdout


def test_the_next_pack_removes_what_a_killed_pack_left(
    example_bundle: Path, tmp_path: Path
) -> None:
    archive = tmp_path / "out" / "idx.tar.gz"
    archive.parent.mkdir()
    gone = dead_pid()
    stale = [
        archive.parent / f".idx.tar.gz.tmp-{gone}",
        archive.parent / f".idx.tar.gz.sha256.tmp-{gone}",
    ]
    other = archive.parent / f".other.tar.gz.tmp-{gone}"  # another output's: not ours to remove
    for path in (*stale, other):
        path.write_bytes(b"partial")
    run_docsmcp("pack", example_bundle, "-o", archive)
    assert sorted(p.name for p in archive.parent.iterdir()) == sorted(
        [other.name, "idx.tar.gz", "idx.tar.gz.sha256"]
    )
