"""pypdfium2's own log messages, said with the file they are about.

The library logs what it meets in a damaged file ("A circular bookmark reference was detected
while traversing the table of contents.", "Maximum recursion depth 16 reached (subtree
skipped).") on its own logger, without naming the file, as often as it meets it: a build of
many PDFs printed them bare, twice. Within `named(path)` they are held back and said once each
afterwards, with the file and a count.
"""

from __future__ import annotations

import contextlib
import logging
from collections import Counter
from collections.abc import Iterator

log = logging.getLogger(__name__)

LIBRARY_LOGGER = "pypdfium2"


class _Held(logging.Handler):
    """Collects the library's records (its loggers are children of LIBRARY_LOGGER)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: Counter[str] = Counter()
        self.levels: dict[str, int] = {}

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        self.messages[message] += 1
        self.levels[message] = max(self.levels.get(message, 0), record.levelno)


@contextlib.contextmanager
def named(path: str) -> Iterator[None]:
    library = logging.getLogger(LIBRARY_LOGGER)
    held, propagate = _Held(), library.propagate
    library.addHandler(held)
    library.propagate = False  # (else Python's last-resort handler prints them bare)
    try:
        yield
    finally:
        library.removeHandler(held)
        library.propagate = propagate
        for message, count in held.messages.items():
            times = f" ({count} times)" if count > 1 else ""
            log.log(held.levels[message], "%s: %s%s", path, message.rstrip("."), times)
