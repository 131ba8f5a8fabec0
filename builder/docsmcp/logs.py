"""The builder's diagnostics: `logging` records shown on stderr as `docsmcp: warning: ...`."""

from __future__ import annotations

import logging

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
