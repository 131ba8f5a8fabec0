"""Temporary files of killed writers are cleaned and counted (issue 31): an unpack, a registry
pull or a pack killed with SIGKILL left `.HEX.tmp-*` (19 MB each), `.HEX.pull-*` and
`.ARCHIVE.tmp-PID` behind for good, and `docsmcp cache info` did not count them. Their names
now carry the writer's pid: the next writer of the folder removes those whose process is gone
(and, for names from before, those a day old), and `cache info` counts them."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from conftest import run_docsmcp
from docsmcp_runtime.distribution.archive import locate_archive, unpack_to_cache
from docsmcp_runtime.distribution.swap import STALE_SECONDS, stale_temporaries
from hostile import CRASH_PREAMBLE


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


# `docsmcp pack` run in a child that dies (os._exit, as abrupt as SIGKILL) at its Nth step:
# before and after each rename, the archive writer, the digest and the layout swap.
CRASHING_PACK = (
    CRASH_PREAMBLE
    + """
import docsmcp.commands.pack as pack

pack.os = crashing_os
for name in ("write_tar_gz", "sha256_file", "swap_dir"):
    crash_around(pack, name)
from docsmcp.cli import main
main(sys.argv[2:])
print("FINISHED")
"""
)


def test_a_pack_killed_at_any_step_leaves_a_valid_archive(
    example_bundle: Path, tiny_bundle: Path, tmp_path: Path
) -> None:
    """The archive and its `.sha256` are two renames: a pack killed between them left the new
    archive beside the old digest, which `verify` and the runtime refused (and the previous
    archive was gone). Whatever the step, the archive now verifies as the old or the new one,
    and the next pack leaves exactly the archive and its digest."""
    first = tmp_path / "first"
    first.mkdir()
    run_docsmcp("pack", example_bundle, "-o", first / "idx.tar.gz")
    old = locate_archive(first / "idx.tar.gz")
    assert old is not None
    new_digest = None
    crash_at = 1
    while True:
        work = tmp_path / f"run{crash_at}"
        work.mkdir()
        archive = work / "idx.tar.gz"
        for name in ("idx.tar.gz", "idx.tar.gz.sha256"):
            (work / name).write_bytes((first / name).read_bytes())
        proc = subprocess.run(
            [sys.executable, "-c", CRASHING_PACK, str(crash_at), "pack", str(tiny_bundle),
             "-o", str(archive)],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert proc.returncode in (0, 137), proc.stderr
        checked = run_docsmcp("verify", archive, check=False)
        assert checked.returncode == 0, (crash_at, checked.stdout, checked.stderr)
        source = locate_archive(archive)
        assert source is not None
        if source.digest != old.digest:
            new_digest = new_digest or source.digest
            assert source.digest == new_digest, crash_at
        run_docsmcp("pack", tiny_bundle, "-o", archive)
        assert sorted(p.name for p in work.iterdir()) == ["idx.tar.gz", "idx.tar.gz.sha256"]
        if "FINISHED" in proc.stdout:
            break
        crash_at += 1
    assert crash_at >= 8 and new_digest is not None  # every step was visited
