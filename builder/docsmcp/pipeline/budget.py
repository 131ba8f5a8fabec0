"""A time budget for one file's parse (limits.DEFAULT_PARSE_SECONDS): markdown-it and docutils
have inputs, within every size limit, on which their own code is quadratic, and a build must not
stall on one such file. Past the budget `TooSlow` is raised in the parsing thread, which then
indexes the file as plain text.

The budget is a SIGALRM timer: it interrupts pure-Python parsing, which is where those paths
are, and needs the main thread of its process (build workers are processes). Elsewhere (a
thread, a platform without setitimer) files are parsed without a budget.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator

from docsmcp.common import logs
from docsmcp.common.limits import DEFAULT_PARSE_SECONDS, PARSE_SECONDS_ENV


class TooSlow(BaseException):
    """The file's parse ran past its budget. A BaseException, as KeyboardInterrupt is: it may
    arrive anywhere, and the converters' `except Exception` fallbacks must not take it."""


def parse_seconds() -> float:
    """The budget (DOCSMCP_PARSE_SECONDS; 0 turns it off); a bad value warns and keeps the
    default."""
    text = os.environ.get(PARSE_SECONDS_ENV, "").strip()
    if not text:
        return DEFAULT_PARSE_SECONDS
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:  # also NaN
        logs.warn_once(
            "parse-seconds",
            "%s=%r is not a number of seconds >= 0; using %g",
            PARSE_SECONDS_ENV,
            text,
            DEFAULT_PARSE_SECONDS,
        )
        return DEFAULT_PARSE_SECONDS
    return value


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise TooSlow in this block once `seconds` have passed (0: no limit). The previous
    SIGALRM handler is restored on the way out (the builder runs no other timer)."""
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

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
