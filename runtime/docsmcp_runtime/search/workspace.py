"""Per-search work arrays (one value per chunk), reused from search to search.

A search of a million-chunk bundle fills several arrays of a million values (scores, masks).
Allocated afresh each time, every one is a new memory mapping whose pages fault in on first
touch: ~4,400 page faults and 7 of 20 ms of CPU per full-text query were the kernel's, not
the search's. Leased from a small pool instead, the pages stay mapped; a search fully
overwrites what it leases (`fill`, `out=`), so nothing leaks from one query to the next.
"""

from __future__ import annotations

import mmap
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

# Mapped arrays at least this large give their pages back after each search (`release`).
RELEASE_BYTES = 64 << 20
# Idle workspaces kept for reuse: one per concurrently searching thread on a small machine.
# More concurrent searches get a fresh workspace that is dropped afterwards, so the memory kept
# is bounded (a million chunks: ~14 MB per workspace) whatever the HTTP thread count.
KEEP_IDLE = 2


class Workspace:
    """Named one-dimensional arrays of one length; contents are whatever the last user left."""

    def __init__(self, n: int) -> None:
        self.n = n
        self._arrays: dict[tuple[str, object], np.ndarray] = {}

    def array(self, name: str, dtype: type | np.dtype) -> np.ndarray:
        """The array `name` of this workspace's length: uninitialised, or a previous search's."""
        # Keyed by the dtype as given (np.float32 and np.dtype("float32") are two keys, each
        # of the right type): np.dtype(dtype).str cost ~1 us of each of a search's nine calls.
        key = (name, dtype)
        found = self._arrays.get(key)
        if found is None:
            found = self._arrays[key] = np.empty(self.n, dtype=dtype)
        return found

    def buffer(self, name: str, size: int, dtype: type | np.dtype) -> np.ndarray:
        """A one-dimensional array of at least `size` values (grown, never shrunk), sliced to
        `size`: for work whose size varies per search (the rows of the probed IVF lists)."""
        key = (f"buffer:{name}", np.dtype(dtype).str)
        found = self._arrays.get(key)
        if found is None or len(found) < size:
            found = self._arrays[key] = np.empty(max(size, 1), dtype=dtype)
        return found[:size]

    def zeros(self, name: str, dtype: type | np.dtype) -> np.ndarray:
        out = self.array(name, dtype)
        out.fill(0)
        return out


class WorkspacePool:
    """Workspaces of one length, leased to one search at a time."""

    def __init__(self, n: int, keep_idle: int = KEEP_IDLE) -> None:
        self.n = n
        self.keep_idle = keep_idle
        self._idle: list[Workspace] = []
        self._lock = threading.Lock()

    @contextmanager
    def lease(self) -> Iterator[Workspace]:
        with self._lock:
            work = self._idle.pop() if self._idle else None
        if work is None:
            work = Workspace(self.n)
        try:
            yield work
        finally:
            with self._lock:
                if len(self._idle) < self.keep_idle:
                    self._idle.append(work)


def release(array: np.ndarray) -> None:
    """Unmap this process's pages of the file under `array`; the page cache keeps them and
    the next read maps them again (a few faults: the cache holds large folios). The postings
    a million-chunk bundle's searches touch otherwise stay resident: 140 MB after 120
    searches, for ~0.5 ms of faults per search when given back."""
    base: object = array
    while isinstance(base, np.ndarray | memoryview):
        base = base.base if isinstance(base, np.ndarray) else base.obj
    if isinstance(base, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
        base.madvise(mmap.MADV_DONTNEED)


def large_mappings(arrays: dict[str, np.ndarray], names: tuple[str, ...]) -> list[np.ndarray]:
    """The arrays among `names` of at least RELEASE_BYTES (small bundles keep their pages)."""
    return [arrays[n] for n in names if n in arrays and arrays[n].nbytes >= RELEASE_BYTES]
