"""A budget of time and memory for one file's parse (limits.DEFAULT_PARSE_SECONDS,
limits.DEFAULT_PARSE_MEGABYTES): markdown-it and docutils have inputs, within every size limit,
on which their own code is quadratic, and a build must not stall or run out of memory on one
such file. Past the time budget `TooSlow` is raised in the parsing thread; past the memory
budget an allocation fails (MemoryError in Python; pdfium aborts its process); the file is then
indexed as plain text (a PDF is refused in one line).

The time budget counts the process's CPU time (an ITIMER_PROF timer, SIGPROF), not the clock: a
file parses in the same CPU seconds on a quiet machine and on one shared with other work, so
whether it falls back to plain text does not depend on the load (with a wall-clock timer, R's
manuals and SQLAlchemy's changelog went past 15 s on a loaded 2-core machine and built other
bundles). The timer interrupts pure-Python parsing, which is where those paths are, and needs
the main thread of its process (build workers are processes). Elsewhere (a thread, a platform
without setitimer) files are parsed without a time budget. What the process waits for (a PDF's
page readers in their own processes, bounded on their own) is not counted.

The memory budget is the soft RLIMIT_DATA (Linux counts a process's private writable memory
against it, mmap'd or not) set to what the process uses when the file starts plus the budget,
and restored after it: 13 us a file. Elsewhere (no /proc/self/statm) there is no memory budget.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator

try:
    import resource
except ImportError:  # not on Windows: no memory budget there
    resource = None  # type: ignore[assignment]

from docsmcp.common import logs
from docsmcp.common.limits import (
    DEFAULT_PARSE_MEGABYTES,
    DEFAULT_PARSE_SECONDS,
    PARSE_MEMORY_ENV,
    PARSE_SECONDS_ENV,
)


class TooSlow(BaseException):
    """The file's parse ran past its budget. A BaseException, as KeyboardInterrupt is: it may
    arrive anywhere, and the converters' `except Exception` fallbacks must not take it."""


def _setting(env: str, default: float, unit: str) -> float:
    """A budget from the environment (0 turns it off); a bad value warns once and keeps the
    default."""
    text = os.environ.get(env, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:  # also NaN
        logs.warn_once(env, "%s=%r is not a number of %s >= 0; using %g", env, text, unit, default)
        return default
    return value


def parse_seconds() -> float:
    """The time budget of one file (DOCSMCP_PARSE_SECONDS; 0 turns it off)."""
    return _setting(PARSE_SECONDS_ENV, DEFAULT_PARSE_SECONDS, "seconds")


def parse_megabytes() -> float:
    """The memory budget of one file in MiB (DOCSMCP_PARSE_MEMORY_MB; 0 turns it off)."""
    return _setting(PARSE_MEMORY_ENV, DEFAULT_PARSE_MEGABYTES, "MiB")


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise TooSlow in this block once the process has used `seconds` of CPU time (0: no
    limit). The previous SIGPROF handler is restored on the way out (the builder runs no other
    timer)."""
    usable = (
        seconds > 0
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return

    def expired(signum: int, frame: object) -> None:
        raise TooSlow

    previous = signal.signal(signal.SIGPROF, expired)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def _data_bytes() -> int | None:
    """The private writable memory of this process (what RLIMIT_DATA counts), or None where
    /proc does not say."""
    if resource is None:
        return None
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[5]) * resource.getpagesize()
    except (OSError, IndexError, ValueError):
        return None


@contextlib.contextmanager
def memory_limit(megabytes: float) -> Iterator[None]:
    """Allocations in this block fail once the process has grown by `megabytes` MiB (0: no
    limit): Python raises MemoryError, C libraries get NULL (pdfium aborts its process). The
    whole process counts, so this is for worker processes and the single-process build, whose
    other threads allocate little while a file parses; in any thread but the main one there is
    no limit. The previous limit is restored."""
    # Like the timer, only in a main thread: a build run from a thread shares its process
    # with others (a server, a watcher) whose allocations must not fail for it.
    usable = megabytes > 0 and threading.current_thread() is threading.main_thread()
    used = _data_bytes() if usable else None
    if used is None:
        yield
        return
    previous = soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    wanted = used + int(megabytes * (1 << 20))
    for bound in (soft, hard):  # never looser than a limit the user set
        if bound != resource.RLIM_INFINITY:
            wanted = min(wanted, bound)
    try:
        resource.setrlimit(resource.RLIMIT_DATA, (wanted, hard))
    except (ValueError, OSError):  # a limit the system will not take: parse without one
        yield
        return
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, previous)
