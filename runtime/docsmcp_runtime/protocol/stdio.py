"""MCP stdio transport: newline-delimited JSON-RPC over stdin/stdout.

stdout belongs to the protocol. Before serving, the real stdout (fd 1) is duplicated to a private
descriptor that only this loop writes to, and fd 1 itself is pointed at stderr (as the official
MCP SDKs do): a stray `print()`, or native code writing to fd 1 directly, lands on stderr
instead of corrupting the message stream.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import BinaryIO

from ..errors import INVALID_REQUEST
from . import MAX_MESSAGE_BYTES
from .dispatcher import App, Dispatcher, Session, encode, error_response


@contextmanager
def guarded_stdout() -> Iterator[BinaryIO]:
    """The protocol's own stream on a private duplicate of fd 1, with fd 1 sent to stderr."""
    sys.stdout.flush()
    private = os.dup(1)
    os.dup2(2, 1)
    saved = sys.stdout
    sys.stdout = sys.stderr  # Python-level writes too, without waiting for a buffer flush
    stream = os.fdopen(private, "wb", buffering=0)
    try:
        yield stream
    finally:
        sys.stdout = saved
        with suppress(OSError):
            stream.close()


def serve(app: App, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Answer requests from `stdin` until EOF; returns the process exit status.

    With no streams given, serves the process's own stdin and stdout, guarding fd 1. Single-
    threaded on purpose: every request is answered synchronously in arrival order, which keeps
    the loop trivial and startup instant.
    """
    if stdout is not None:
        return _loop(app, stdin if stdin is not None else sys.stdin.buffer, stdout)
    with guarded_stdout() as stream:
        return _loop(app, stdin if stdin is not None else sys.stdin.buffer, stream)


def _lines(stdin: BinaryIO, limit: int) -> Iterator[bytes | None]:
    """The messages of `stdin`, one per line; None for a line over `limit` bytes, which is read
    through in pieces and dropped (300 MB without a newline grew the server to 681 MB)."""
    while line := stdin.readline(limit + 1):
        if len(line) <= limit or line.endswith(b"\n"):
            yield line
            continue
        while (rest := stdin.readline(limit)) and not rest.endswith(b"\n"):
            pass  # the rest of the line, a piece at a time
        yield None


def _loop(app: App, stdin: BinaryIO, stdout: BinaryIO, limit: int = MAX_MESSAGE_BYTES) -> int:
    dispatcher = Dispatcher(app)
    session = Session()  # one stdio process is one legacy "connection"
    try:
        for line in _lines(stdin, limit):
            if line is None:
                message = f"Request too large: a message is at most {limit:,} bytes"
                response: dict | None = error_response(None, INVALID_REQUEST, message)
            elif not line.strip():
                continue
            else:
                response = dispatcher.handle(line, session)
            if response is not None:
                stdout.write(encode(response) + b"\n")
                stdout.flush()
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0  # the client went away
    return 0
