"""The builder's diagnostics: `logging` records shown on stderr as `docsmcp: warning: ...`."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
from collections.abc import Iterator

from docsmcp_runtime.logs import StderrHandler, TextFormatter

LOGGER_NAME = "docsmcp"
PROG = "docsmcp"


def configure(quiet: bool = False) -> None:
    """Warnings always; progress and summaries (INFO) unless `quiet`."""
    handler = StderrHandler()
    handler.setFormatter(TextFormatter(PROG))
    logger = logging.getLogger(LOGGER_NAME)
    logger.handlers[:] = [handler]
    logger.setLevel(logging.WARNING if quiet else logging.INFO)
    logger.propagate = False


# Warnings given once per build, whichever worker process meets them first: each key is a file
# created with O_EXCL in a folder the parent makes before forking (`once_per_build`); without it
# (one process), a set in memory.
_ONCE_DIR: str | None = None
_ONCE: set[str] = set()


def warn_once(key: str, message: str, *args: object) -> None:
    """Log `message` as a warning the first time `key` is met in this build."""
    if _ONCE_DIR is not None:
        name = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
        try:
            os.close(os.open(os.path.join(_ONCE_DIR, name), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return
        except OSError:
            pass  # the folder is gone: warn rather than stay silent
    elif key in _ONCE:
        return
    _ONCE.add(key)
    logging.getLogger(LOGGER_NAME + ".convert").warning(message, *args)


@contextlib.contextmanager
def once_per_build() -> Iterator[None]:
    """Share `warn_once` between the worker processes forked inside this block."""
    global _ONCE_DIR
    with tempfile.TemporaryDirectory(prefix="docsmcp-once-") as folder:
        for key in _ONCE:  # already given in this process
            name = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
            open(os.path.join(folder, name), "w").close()
        _ONCE_DIR = folder
        try:
            yield
        finally:
            _ONCE_DIR = None
