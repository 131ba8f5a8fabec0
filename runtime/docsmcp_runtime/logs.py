"""Structured logs for the HTTP server: one JSON object per line on stderr.

Every line has `ts` (UTC, ISO 8601 with milliseconds), `level` and `event`; the rest are the
event's fields (`method`, `path`, `status`, `duration_ms`, `rpc_method`, ...). Log shippers
(journald, Docker, Cloud Logging, Loki) ingest such lines without a parsing rule.

uvicorn's own loggers are routed through the same formatter, so a deployment never sees two
log formats; its access log is off because `request` events carry the same facts and more.
"""

from __future__ import annotations

import io
import json
import logging
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

LOGGER_NAME = "docsmcp_runtime"
LEVELS = ("debug", "info", "warning", "error")
DEBUG, INFO, WARNING, ERROR = logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR

_logger = logging.getLogger(LOGGER_NAME)


class JsonFormatter(logging.Formatter):
    """Formats a record as one JSON line; `extra={"fields": {...}}` adds structured fields."""

    def format(self, record: logging.LogRecord) -> str:
        seconds = time.gmtime(record.created)
        line: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", seconds) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line["event"] = record.getMessage()
            line.update(fields)
        else:
            # A foreign record (uvicorn, asyncio): keep its text, name where it came from.
            line["event"] = record.name.split(".")[0]
            line["logger"] = record.name
            line["message"] = record.getMessage()
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        # ensure_ascii keeps each line valid on any stderr encoding; default=str so a stray
        # Path or exception in a field can never make logging itself fail.
        return json.dumps(line, default=str)


def log_config(level: str, stream: TextIO | None = None) -> dict[str, Any]:
    """A `logging.config.dictConfig` dict for our logger and uvicorn's, all as JSON on `stream`.

    uvicorn's startup chatter ("Started server process", "Application startup complete") is
    replaced by our `listening` event, so its loggers only pass warnings and errors unless
    the user asked for debug output.
    """
    ours = level.upper()
    theirs = "DEBUG" if ours == "DEBUG" else max(ours, "WARNING", key=logging.getLevelName)
    return {
        "version": 1,
        # Loggers created before this call (ours included) must keep working.
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                # The stream object itself, not "ext://sys.stderr": sys.stderr is replaced
                # by StderrEvents while serving, which would send log lines back to logging.
                "stream": stream or sys.stderr,
            }
        },
        "loggers": {
            LOGGER_NAME: {"handlers": ["stderr"], "level": ours, "propagate": False},
            "uvicorn": {"handlers": ["stderr"], "level": theirs, "propagate": False},
            "uvicorn.error": {"level": theirs},
            "uvicorn.access": {"handlers": [], "level": "CRITICAL", "propagate": False},
        },
    }


def configure(level: str) -> None:
    """Send our events, and uvicorn's, to stderr as JSON at `level` (one of LEVELS)."""
    import logging.config  # only the HTTP server needs it; keep stdio start-up lean

    logging.config.dictConfig(log_config(level))


class StderrEvents(io.TextIOBase):
    """Stands in for sys.stderr while serving HTTP: each line printed by code that writes plain
    text (protocol.note, the vector-search degraded warning, the warnings module) becomes a
    JSON `stderr` event, so every line on the real stderr stays one JSON object."""

    def __init__(self) -> None:
        self._pending = ""
        self._lock = threading.Lock()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        with self._lock:
            *lines, self._pending = (self._pending + text).split("\n")
        for line in lines:
            self._emit(line)
        return len(text)

    def flush(self) -> None:
        with self._lock:
            line, self._pending = self._pending, ""
        self._emit(line)

    def _emit(self, line: str) -> None:
        if line.strip():
            event(logging.WARNING, "stderr", message=line.removeprefix("docsmcp-runtime: "))


@contextmanager
def stderr_as_events() -> Iterator[None]:
    """Route plain-text writes to sys.stderr through StderrEvents for the duration."""
    saved = sys.stderr
    adapter = StderrEvents()
    sys.stderr = adapter
    try:
        yield
    finally:
        adapter.flush()
        sys.stderr = saved


def configure_if_unset(level: str) -> None:
    """Like `configure`, for our logger only, unless the host application already set one up.

    Used by the ASGI factory: under someone else's server we must not reconfigure its loggers.
    """
    if not _logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(JsonFormatter())
        _logger.addHandler(handler)
        _logger.setLevel(level.upper())
        _logger.propagate = False


def event(level: int, name: str, **fields: Any) -> None:
    """Log one structured event, e.g. `event(logging.INFO, "request", status=200)`."""
    if _logger.isEnabledFor(level):
        _logger.log(level, name, extra={"fields": fields})
