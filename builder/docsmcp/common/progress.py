"""Progress of long commands on stderr: on a terminal one line redrawn in place (count, rate,
ETA); otherwise a plain line every few seconds, so a CI log shows the build is alive; nothing
when quiet. No dependency: a counter and `\\r` are all a progress line needs here (tqdm and rich
each cost ~40 ms of import for the same)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

# A terminal line is redrawn at most this often; a log line is written at most this often.
REDRAW_SECONDS = 0.1
LOG_SECONDS = 5.0


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


class Progress:
    """Counts `done` of `total` items of one phase (`label`, e.g. "parsing files")."""

    def __init__(
        self,
        prog: str,
        label: str,
        total: int,
        stream: TextIO | None = None,
        enabled: bool = True,
    ) -> None:
        self.prog = prog
        self.label = label
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and total > 0
        self.tty = self.enabled and self.stream.isatty()
        self.done = 0
        self.started = time.monotonic()
        self._shown = 0.0  # when the last line was drawn or written

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        text = f"{self.prog}: {self.label} {self.done}/{self.total}"
        if self.done >= self.total:
            text += f" ({_duration(elapsed)})"
        elif self.done and rate:
            left = (self.total - self.done) / rate
            text += f" ({rate:,.0f}/s, {_duration(elapsed)} elapsed, ETA {_duration(left)})"
        return text

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty and now - self._shown >= REDRAW_SECONDS:
            self.stream.write("\r\x1b[K" + self.line())
            self.stream.flush()
            self._shown = now
        elif (
            not self.tty and now - self.started >= LOG_SECONDS and now - self._shown >= LOG_SECONDS
        ):
            self.stream.write(self.line() + "\n")
            self.stream.flush()
            self._shown = now

    def close(self) -> None:
        """Clear the terminal line (the command's summary follows)."""
        if self.tty:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


# What a command hands its phases: makes the counter of one (label, total).
Reporter = Callable[[str, int], Progress]
