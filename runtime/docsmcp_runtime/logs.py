"""The runtime's diagnostics, all through `logging` (logger `docsmcp_runtime` and its children).

Serving stdio or running a terminal command, records are plain lines on stderr
(`docsmcp-runtime: warning: ...`, `configure_text`). Serving HTTP, they are structured: one
JSON object per line on stderr (`configure`). Every JSON line has `ts` (UTC, ISO 8601 with
milliseconds), `level` and `event`; the rest are the event's fields (`method`, `path`,
`status`, `duration_ms`, `rpc_method`, ...). Log shippers (journald, Docker, Cloud Logging,
Loki) ingest such lines without a parsing rule.

uvicorn's own loggers are routed through the same formatter, so a deployment never sees two
log formats; its access log is off because `request` events carry the same facts and more.
"""

from __future__ import annotations

import json
import logging
import sys
import time
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
                "stream": stream or sys.stderr,
            }
        },
        "loggers": {
            LOGGER_NAME: {"handlers": ["stderr"], "level": ours, "propagate": False},
            "uvicorn": {"handlers": ["stderr"], "level": theirs, "propagate": False},
            "uvicorn.error": {"level": theirs},
            "uvicorn.access": {"handlers": [], "level": "CRITICAL", "propagate": False},
            # `warnings` go through logging (captureWarnings), so they are JSON lines too.
            "py.warnings": {"handlers": ["stderr"], "level": "WARNING", "propagate": False},
        },
    }


def configure(level: str) -> None:
    """Send our events, and uvicorn's, to stderr as JSON at `level` (one of LEVELS)."""
    import logging.config  # only the HTTP server needs it; keep stdio start-up lean

    logging.config.dictConfig(log_config(level))
    logging.captureWarnings(True)


class StderrHandler(logging.StreamHandler):
    """Writes to whatever `sys.stderr` is when a record arrives (tests and hosts swap it)."""

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self) -> TextIO:  # type: ignore[override]
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:
        pass


class TextFormatter(logging.Formatter):
    """One plain line per record, `docsmcp-runtime: warning: message`, as the CLI's own errors
    look; used on stdio and for terminal commands, where JSON would be noise."""

    def __init__(self, prog: str) -> None:
        super().__init__()
        self.prog = prog

    def format(self, record: logging.LogRecord) -> str:
        level = "" if record.levelno == logging.INFO else record.levelname.lower() + ": "
        text = " ".join(record.getMessage().split())
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            text += f" ({type(exc).__name__}: {' '.join(str(exc).split())})"
        return f"{self.prog}: {level}{text}"


def configure_text(prog: str, level: str = "info", stream: TextIO | None = None) -> None:
    """Send our records to stderr as plain lines (stdio serving and terminal commands)."""
    handler = logging.StreamHandler(stream) if stream is not None else StderrHandler()
    handler.setFormatter(TextFormatter(prog))
    _logger.handlers[:] = [handler]
    _logger.setLevel(level.upper())
    _logger.propagate = False
    logging.captureWarnings(True)  # `warnings` lines come through the same handler
    logging.getLogger("py.warnings").handlers[:] = [handler]


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
