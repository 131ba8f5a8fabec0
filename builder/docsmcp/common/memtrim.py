"""Handing freed heap memory back to the system, so a build's RSS follows what it still holds.

CPython frees large strings with `free`, and glibc keeps freed memory inside its heap unless it
lies at the top: after a build lets each file's text go (build.collect), the process would stay
as large as the whole corpus. glibc's `malloc_trim(0)` returns every free page of the heap (and
forked workers then inherit less). Elsewhere (musl, macOS, Windows) this does nothing.
"""

from __future__ import annotations

import ctypes
import functools
import logging

import pyarrow as pa

log = logging.getLogger(__name__)


@functools.cache
def _malloc_trim():  # type: ignore[no-untyped-def]
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def release_free_memory() -> None:
    """Give the heap's free pages back to the system (a few ms), where glibc allows it, and
    Arrow's pool its unused memory (the chunk table is written row group by row group while
    collecting: its pool would otherwise keep the largest it ever held)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
    pa.default_memory_pool().release_unused()
