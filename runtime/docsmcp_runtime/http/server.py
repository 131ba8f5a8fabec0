"""Serving the app with uvicorn from the command line: the listening socket, one process or
`--workers N` pre-forked processes sharing one listening socket and one memory-mapped bundle,
and a graceful stop on SIGTERM/SIGINT.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import signal
import socket
import time

from .. import __version__, logs
from . import guard
from .app import McpHttpApp
from .defaults import MCP_PATH
from .playground import PLAYGROUND_PATH
from .settings import ConnectionLimits


def _release(previous: dict, sock: socket.socket, app: McpHttpApp) -> None:
    """End of serving (one process or the pre-fork parent): the signal handlers as they were,
    the listening socket and the bundle closed."""
    for sig, handler in previous.items():
        signal.signal(sig, handler)
    sock.close()
    app.close()


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, so the real port is known (and logged) before serving starts."""
    info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = info[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        # Listening now means clients that connect before uvicorn's loop runs wait in the
        # backlog instead of being refused.
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


def serve(
    app: McpHttpApp,
    sock: socket.socket,
    shutdown_timeout: int,
    limits: ConnectionLimits | None = None,
) -> int:
    """Run uvicorn on `sock` until SIGTERM/SIGINT; requests in flight finish first.

    Logging must already be set up (`logs.configure`); uvicorn is told to leave it alone.
    """
    import uvicorn  # the `http` extra; the CLI checked it is installed

    limits = limits or ConnectionLimits()
    config = uvicorn.Config(
        app,
        log_config=None,  # keep logs.configure's JSON handlers for uvicorn's loggers too
        access_log=False,  # our `request` events replace it
        server_header=False,  # we send our own Server header
        lifespan="on",
        timeout_graceful_shutdown=shutdown_timeout,
        # h11 always (not httptools when installed): the guard below is built on it.
        http=guard.guarded_protocol(limits),
        h11_max_incomplete_event_size=limits.max_header_bytes,
        backlog=guard.fit_descriptors(limits),
    )
    server = uvicorn.Server(config)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    logs.event(
        logging.INFO,
        "listening",
        host=host,
        port=port,
        url=f"http://{shown}:{port}{MCP_PATH}",
        playground=f"http://{shown}:{port}{PLAYGROUND_PATH}" if app.settings.playground else None,
        bundle_id=app.bundle_id,
        pid=os.getpid(),
        version=__version__,
    )

    # uvicorn re-raises the stopping signal once it has shut down gracefully; with the default
    # handlers that would kill the process (SIGTERM) or raise KeyboardInterrupt (SIGINT). These
    # handlers absorb it, so a graceful stop exits 0.
    received: list[int] = []
    stops = (signal.SIGTERM, signal.SIGINT)
    previous = {sig: signal.signal(sig, lambda s, _f: received.append(s)) for sig in stops}
    try:
        server.run(sockets=[sock])
    finally:
        _release(previous, sock, app)
    logs.event(
        logging.INFO,
        "stopped",
        signal=signal.Signals(received[0]).name if received else None,
    )
    return 0 if server.started else 1


# A worker that dies sooner than this after its start is not restarted (a crash loop): the
# server stops instead, with the worker's exit status.
WORKER_MIN_LIFETIME_S = 5.0


def serve_workers(
    app: McpHttpApp,
    sock: socket.socket,
    shutdown_timeout: int,
    limits: ConnectionLimits | None,
    workers: int,
) -> int:
    """Fork `workers` processes that each run `serve` on the same listening socket (the kernel
    hands each new connection to one of them) and supervise them until SIGTERM/SIGINT, which is
    passed on; a worker that dies is replaced. The bundle is opened and checked once, before the
    fork, so its memory maps and page cache are shared and each worker costs only its own heap.
    Every worker answers every request alike: cursors are signed with a key all share (the
    bundle id, or DOCSMCP_CURSOR_SECRET), and no state lives between requests.
    """
    # No thread may run while forking (a child would inherit its locks but not the thread):
    # the background check of large files finishes here, once for every worker.
    app.ready()
    # What every worker would otherwise make for itself is made once and shared (copy on
    # write, never written): decompressed chunk text, and the modules uvicorn loads to serve.
    served = app._served.dispatcher.app
    for docs in getattr(served, "apps", None) or [served]:  # one DocsApp, or a LibraryApp's
        docs.warm()
    import h11  # noqa: F401 - loaded by every worker's uvicorn.Server
    import uvicorn.lifespan.on  # noqa: F401
    import uvicorn.loops.asyncio  # noqa: F401
    import uvicorn.protocols.http.h11_impl  # noqa: F401

    gc.freeze()  # the collector of a worker must not write to (so copy) the parent's objects
    children: dict[int, float] = {}  # pid → start time
    stopping: list[int] = []

    def spawn() -> None:
        pid = os.fork()
        if pid == 0:  # the worker
            code = 1
            try:
                for sig in (signal.SIGTERM, signal.SIGINT):
                    signal.signal(sig, signal.SIG_DFL)
                app.worker = os.getpid()
                code = serve(app, sock, shutdown_timeout, limits)
            finally:
                os._exit(code)
        children[pid] = time.monotonic()

    def stop(sig: int, _frame: object) -> None:
        stopping.append(sig)
        for pid in list(children):
            with contextlib.suppress(ProcessLookupError):  # already gone
                os.kill(pid, sig)

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    status = 0
    try:
        for _ in range(workers):
            spawn()
        logs.event(logging.INFO, "workers_started", workers=workers, pids=sorted(children))
        while children:
            pid, raw = os.wait()
            started = children.pop(pid, None)
            if started is None:
                continue
            code = os.waitstatus_to_exitcode(raw)
            if stopping:
                status = status or (code if code > 0 else 0)
                continue
            logs.event(logging.ERROR, "worker_exited", pid=pid, status=code)
            if time.monotonic() - started < WORKER_MIN_LIFETIME_S:
                status = code if code > 0 else 1
                stop(signal.SIGTERM, None)
                continue
            spawn()
    finally:
        _release(previous, sock, app)
    logs.event(
        logging.INFO,
        "stopped",
        signal=signal.Signals(stopping[0]).name if stopping else None,
        workers=workers,
    )
    return status
