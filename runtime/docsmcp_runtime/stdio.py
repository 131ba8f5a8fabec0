"""MCP stdio transport: newline-delimited JSON-RPC over stdin/stdout."""

from __future__ import annotations

import os
import sys
from typing import BinaryIO

from .protocol import App, Dispatcher, Session, encode


def serve(app: App, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Answer requests from `stdin` until EOF; returns the process exit status.

    Single-threaded on purpose: every request is answered synchronously in arrival order,
    which keeps the loop trivial and startup instant.
    """
    stdin = sys.stdin.buffer if stdin is None else stdin
    stdout = sys.stdout.buffer if stdout is None else stdout
    real_stdio = stdout is getattr(sys.stdout, "buffer", None)
    saved_stdout = sys.stdout
    if real_stdio:
        # Any stray print() from library code would corrupt the protocol stream;
        # send it to stderr instead (we keep writing to the original buffer).
        sys.stdout = sys.stderr
    dispatcher = Dispatcher(app)
    session = Session()  # one stdio process is one legacy "connection"
    try:
        for line in stdin:
            if not line.strip():
                continue
            response = dispatcher.handle(line, session)
            if response is not None:
                stdout.write(encode(response) + b"\n")
                stdout.flush()
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The client went away. Point fd 1 at /dev/null so the interpreter's final
        # flush of stdout doesn't print another BrokenPipeError at exit.
        if real_stdio:
            _silence_stdout()
        return 0
    finally:
        sys.stdout = saved_stdout
    return 0


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):
        pass
