"""Replacing a file or a directory (a bundle, an OCI layout) so that a crash at any instant
leaves either the old one or the new one at its path, never neither, and cleaning what dead
writers left.

The new directory is written beside the destination as `.NAME.tmp-PID`, then swapped in:

- with `renameat2(RENAME_EXCHANGE)` (Linux 3.15+, most local filesystems) the two paths trade
  places in one atomic step, and the old content, now at `.NAME.tmp-PID`, is deleted;
- elsewhere, two renames: the old directory to `.NAME.old-PID`, the new one into place, then the
  old one deleted. A crash between the renames leaves no NAME but a complete `.NAME.old-PID`,
  which `recover()` renames back (the next build does, and so does the runtime when it opens
  NAME).

A file is replaced the same way with one rename (`replace_file`): written whole to
`.NAME.tmp-PID`, then renamed over NAME; a failure removes the temporary file.

Leftovers are recognised by name and by their writer's PID no longer running. The runtime uses
`recover()` too, when it opens NAME.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import logging
import os
import re
import shutil
from pathlib import Path

from ..format.layout import METADATA_FILE

log = logging.getLogger(__name__)

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_LEFTOVER = re.compile(r"\.(?P<name>.+)\.(?P<kind>tmp|old)-(?P<pid>[0-9]+)")


def staging_path(dest: Path, kind: str = "tmp", pid: int | None = None) -> Path:
    """`.NAME.tmp-PID` (or `.old-`) beside `dest`: where a writer prepares or parks a copy."""
    return dest.parent / f".{dest.name}.{kind}-{os.getpid() if pid is None else pid}"


def replace_file(path: Path, data: bytes, *, durable: bool = False) -> None:
    """Put `data` at `path` so that readers see the old file or the new one, never a part of
    either. `durable` also flushes the data and the rename to disk (files users keep, such as
    exported pages; caches and records can be rebuilt, so they skip the two fsyncs)."""
    tmp = staging_path(path)
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        with contextlib.suppress(OSError):  # the rename itself
            fd = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def exchange(a: Path, b: Path) -> bool:
    """Atomically swap two existing paths; False where the system or filesystem cannot."""
    renameat2 = getattr(_libc(), "renameat2", None)
    if renameat2 is None:
        return False
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if result == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EXDEV, errno.ENOTSUP, errno.EPERM):
        return False  # not supported here: use the two-rename path
    raise OSError(err, os.strerror(err), str(b))


def swap_dir(tmp: Path, dest: Path, *, atomic_exchange: bool = True) -> None:
    """Put the finished directory `tmp` at `dest`, replacing the old one only once `tmp` is
    complete. A failure leaves `dest` as it was; a crash leaves it old or new (see above)."""
    if not dest.exists() and not dest.is_symlink():
        os.replace(tmp, dest)
        return
    if atomic_exchange and exchange(tmp, dest):
        shutil.rmtree(tmp, ignore_errors=True)  # now the old content
        return
    old = staging_path(dest, "old")
    os.replace(dest, old)
    try:
        os.replace(tmp, dest)
    except OSError:
        os.replace(old, dest)
        raise
    shutil.rmtree(old, ignore_errors=True)


def recover(dest: Path, *, remove: bool = True) -> Path | None:
    """Undo what writers that died while replacing `dest` left behind.

    A dead writer's `.NAME.old-PID` is the previous complete directory: when NAME is missing it
    is renamed back (or, if that is impossible, e.g. on a read-only filesystem, its path is
    returned so a reader can use it where it lies). With `remove`, dead writers' other leftovers
    are deleted. Returns the path holding NAME's content, or None when there is none.
    """
    parked: list[Path] = []
    for item in _leftovers(dest):
        kind = _LEFTOVER.fullmatch(item.name)
        assert kind is not None
        if kind["kind"] == "old" and (item / METADATA_FILE).is_file():
            parked.append(item)
        elif remove:
            shutil.rmtree(item, ignore_errors=True)
            log.info("removed %s, left by a build that did not finish", item)
    if not dest.exists() and parked:
        newest = max(parked, key=lambda p: p.stat().st_mtime_ns)
        try:
            os.rename(newest, dest)
            log.warning("restored %s from %s (a replacement was interrupted)", dest, newest.name)
        except OSError:
            log.warning("%s is missing; reading the interrupted replacement's %s", dest, newest)
            return newest
        parked.remove(newest)
    if remove:
        for item in parked:
            shutil.rmtree(item, ignore_errors=True)
    return dest if dest.exists() else None


def _copies(dest: Path) -> list[tuple[Path, str, bool]]:
    """Siblings `.NAME.tmp-PID` / `.NAME.old-PID` of `dest`: (path, "tmp" or "old", whether
    their writer is gone)."""
    try:
        entries = list(dest.parent.iterdir())
    except OSError:
        return []
    out = []
    for item in entries:
        match = _LEFTOVER.fullmatch(item.name)
        if match and match["name"] == dest.name and not item.is_symlink():
            out.append((item, match["kind"], not pid_alive(int(match["pid"]))))
    return out


def _leftovers(dest: Path) -> list[Path]:
    """Folders `.NAME.tmp-PID` / `.NAME.old-PID` beside `dest` whose writer is gone."""
    return sorted(item for item, _, gone in _copies(dest) if gone and item.is_dir())


def staged_files(dest: Path) -> list[tuple[Path, bool]]:
    """Files `.NAME.tmp-PID` beside `dest` (what writers prepared for it), newest first, each
    with whether its writer is gone."""
    found = []
    for item, kind, gone in _copies(dest):
        with contextlib.suppress(OSError):
            if kind == "tmp" and item.is_file():
                found.append((item.stat().st_mtime_ns, item.name, item, gone))
    return [(item, gone) for *_, item, gone in sorted(found, reverse=True)]


# Temporary entries of the cache's and of `docsmcp pack`'s writers: `.NAME.tmp-PID` (swaps,
# packs), `.PREFIX.tmp-PID-RANDOM` (unpacks), `.PREFIX.pull-PID-RANDOM` (registry pulls), and the
# names unpacks and pulls had before they carried a pid (`.PREFIX.tmp-RANDOM`).
_TEMPORARY = re.compile(r"\..+\.(?:tmp|old|pull)-(?:(?P<pid>[0-9]+)(?:-[^/]*)?|[^/]*)")
# A temporary entry without a pid is stale once this old (no unpack or pull takes a day).
STALE_SECONDS = 24 * 3600


def stale_temporaries(folder: Path, prefix: str = ".") -> list[Path]:
    """Temporary entries of `folder` (names starting with `prefix`) whose writer is gone: its
    process no longer runs, or, for a name without a pid, it is over STALE_SECONDS old. A
    writer killed with SIGKILL leaves these behind (an unpack's 19 MB each, piling up)."""
    import time

    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    out = []
    now = time.time()
    for item in entries:
        match = _TEMPORARY.fullmatch(item.name)
        if not match or not item.name.startswith(prefix):
            continue
        try:
            age = now - item.lstat().st_mtime
        except OSError:
            continue
        pid = match["pid"]
        if (pid is not None and not pid_alive(int(pid))) or (pid is None and age > STALE_SECONDS):
            out.append(item)
    return out


def remove_stale_temporaries(folder: Path, prefix: str = ".") -> int:
    """Remove `stale_temporaries`; how many were removed (one debug line each)."""
    removed = 0
    for item in stale_temporaries(folder, prefix):
        with contextlib.suppress(OSError):
            if item.is_dir() and not item.is_symlink():
                shutil.rmtree(item)
            else:
                item.unlink()
            removed += 1
            log.debug("removed %s, left by a writer that is gone", item)
    return removed


def pid_alive(pid: int) -> bool:
    """Whether a process of that number may still be writing (this one counts as alive)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    except OverflowError:
        return False  # no process has such a number
    return True


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)
