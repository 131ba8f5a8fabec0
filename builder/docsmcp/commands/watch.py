"""`docsmcp build --watch`: rebuild when the docs change, for docs authors.

The docs folder (and the source roots) are polled: a change is any file added, removed, resized
or touched (hidden folders skipped, as discovery skips them). Each rebuild is an ordinary build:
incremental through the parse cache, written beside OUT and swapped in atomically, so a runtime
serving OUT with `--watch` picks the new bundle up between requests. A build that fails prints
its problems and leaves the last good bundle served; the next change tries again.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from docsmcp.sources.files import MANIFEST_NAME

# How often the docs are looked at (seconds), and how long they must stay unchanged before a
# rebuild starts (an editor saving several files, a git checkout in progress).
DEFAULT_INTERVAL = 1.0
SETTLE = 0.3

Signature = frozenset[tuple[str, int, int]]


def signature(roots: Sequence[Path], skip: Path | None = None) -> Signature:
    """(path, size, mtime_ns) of every file under `roots` (hidden entries but manifests, and
    `skip`, left out)."""
    seen: set[tuple[str, int, int]] = set()
    skipped = skip.resolve() if skip is not None else None
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [
                d
                for d in dirs
                if not d.startswith(".")
                and (skipped is None or Path(folder, d).resolve() != skipped)
            ]
            for name in files:
                if name.startswith(".") and name != MANIFEST_NAME:
                    continue
                path = os.path.join(folder, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue  # removed while we looked: the next look sees it
                seen.add((path, st.st_size, st.st_mtime_ns))
    return frozenset(seen)


def watch(
    roots: Sequence[Path],
    rebuild: Callable[[], int],
    say: Callable[[str], None],
    interval: float = DEFAULT_INTERVAL,
    skip: Path | None = None,
    rounds: int | None = None,
) -> int:
    """Call `rebuild` whenever the files under `roots` change; Ctrl-C ends it (exit 0).
    `rounds` bounds the number of rebuilds (tests); None: until interrupted."""
    seen = signature(roots, skip)
    say(f"watching {', '.join(map(str, roots))} for changes (Ctrl-C to stop)")
    done = 0
    try:
        while rounds is None or done < rounds:
            time.sleep(interval)
            now = signature(roots, skip)
            if now == seen:
                continue
            while True:  # wait until the tree holds still
                time.sleep(SETTLE)
                settled = signature(roots, skip)
                if settled == now:
                    break
                now = settled
            seen = now
            rebuild()
            done += 1
    except KeyboardInterrupt:
        say("stopped watching")
    return 0
