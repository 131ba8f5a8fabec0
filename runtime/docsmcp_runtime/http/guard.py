"""Slow and excess clients: uvicorn's h11 protocol with a request-head deadline and caps.

`docsmcp-runtime --transport http` always serves through `guarded_protocol(limits)`; plain
uvicorn gets the same guard with `--http docsmcp_runtime.http.guard:GuardedH11Protocol` (limits
from DOCSMCP_* variables). The request body has its own deadline in the ASGI app (app.py).
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any

from .. import logs
from .settings import SERVER_HEADER, ConnectionLimits, limits_from_env

# The end of a request head as h11 finds it: a blank line, CRLF or bare LF.
_BLANK_LINE = re.compile(rb"\n\r?\n")
# How long a refused connection may keep sending before it is closed: long enough for the
# client to read its 503 (closing on unread input would reset the connection and lose it).
REFUSAL_LINGER = 1.0
# Refusals are logged at most once a second, with a count, so a flood cannot flood the log.
REFUSAL_LOG_INTERVAL = 1.0


def _plain_response(status: str, text: str, extra: tuple[tuple[str, str], ...] = ()) -> bytes:
    """A complete `Connection: close` response, written straight to the transport."""
    body = text.encode()
    head = [
        f"HTTP/1.1 {status}",
        f"server: {SERVER_HEADER}",
        "content-type: text/plain; charset=utf-8",
        f"content-length: {len(body)}",
        "connection: close",
        *(f"{name}: {value}" for name, value in extra),
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def guarded_protocol(limits: ConnectionLimits) -> type:
    """uvicorn's h11 protocol class, bounded against slow and excess clients.

    - A request head must be complete within `header_timeout` seconds of the connection
      opening, or of its first byte on a kept-alive connection. It is a deadline: trickling
      bytes cannot extend it (uvicorn's keep-alive timer restarts on every byte and is not
      running at all while a first head is read). Past it, a client that sent part of a head
      gets 408 and the connection is closed; one that sent nothing is closed silently.
      Leftover bytes of a body the app did not read count towards the next head.
    - A head over `max_header_bytes` gets 431 and the connection is closed.
    - With `max_connections` connections open, a new one is answered 503 at once and closed,
      so excess clients are refused quickly instead of waiting in the backlog.
    The request body has its own deadline in the app (`HttpSettings.body_timeout`).
    """
    import asyncio

    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    refused = {"open": 0, "unlogged": 0, "logged_at": 0.0}
    refusal = _plain_response(
        "503 Service Unavailable",
        "Service Unavailable: too many open connections, retry later\n",
        (("retry-after", "1"),),
    )

    class Refused(asyncio.Protocol):
        """A connection over the cap: 503, then discard its input until it closes (or briefly)."""

        timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            refused["open"] += 1
            refused["unlogged"] += 1
            now = time.monotonic()
            if now - refused["logged_at"] >= REFUSAL_LOG_INTERVAL:
                logs.event(
                    logging.WARNING,
                    "connections_refused",
                    count=refused["unlogged"],
                    max_connections=limits.max_connections,
                )
                refused["unlogged"], refused["logged_at"] = 0, now
            if refused["open"] > limits.max_connections:
                transport.abort()  # a flood: no courtesy, and no descriptor held
                return
            transport.write(refusal)
            if transport.can_write_eof():
                transport.write_eof()
            loop = asyncio.get_running_loop()
            self.timer = loop.call_later(REFUSAL_LINGER, transport.close)

        def data_received(self, data: bytes) -> None:
            pass  # the request is not read: the answer is already sent

        def eof_received(self) -> bool:
            return False  # the client is done: close

        def connection_lost(self, exc: Exception | None) -> None:
            refused["open"] -= 1
            if self.timer is not None:
                self.timer.cancel()

    class GuardedH11Protocol(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._deadline: asyncio.TimerHandle | None = None
            self._head_started = False  # a byte of the awaited head has arrived
            self._head_bytes = 0  # bytes of the head being read (while h11 awaits one)
            self._tail = b""  # its last bytes, to find a blank line split across reads

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            if len(self.connections) >= limits.max_connections:
                stand_in = Refused()
                transport.set_protocol(stand_in)
                stand_in.connection_made(transport)
                return
            super().connection_made(transport)  # type: ignore[arg-type]
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self._between_requests():
                self._head_started = True
                if self._deadline is None:
                    self._arm()
            if self.conn.their_state is h11.IDLE and self._head_too_large(data):
                self._reject(
                    "431 Request Header Fields Too Large",
                    "Request Header Fields Too Large: the limit is "
                    f"{limits.max_header_bytes} bytes\n",
                    "header_too_large",
                )
                return
            super().data_received(data)
            if not self._between_requests():
                self._disarm()  # the head arrived; the app bounds the body

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _between_requests(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def _arm(self) -> None:
            self._deadline = self.loop.call_later(limits.header_timeout, self._timed_out)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            self._head_started = False

        def _head_too_large(self, data: bytes) -> bool:
            window = self._tail + data
            end = _BLANK_LINE.search(window)
            if end is not None:  # the head is complete in this read
                size = self._head_bytes + end.end() - len(self._tail)
                self._head_bytes, self._tail = 0, b""
                return size > limits.max_header_bytes
            self._head_bytes += len(data)
            self._tail = window[-2:]
            return self._head_bytes > limits.max_header_bytes

        def _timed_out(self) -> None:
            self._deadline = None
            transport = self.transport
            if (
                transport.is_closing()
                or transport.get_protocol() is not self  # upgraded to another protocol
                or not self._between_requests()
            ):
                return
            if self._head_started:
                self._reject(
                    "408 Request Timeout",
                    "Request Timeout: the request head did not arrive within "
                    f"{limits.header_timeout:g} s\n",
                    "header_timeout",
                )
            else:  # an idle connection that never sent a request: nothing to answer
                logs.event(logging.DEBUG, "idle_connection_closed", client=self._client_ip())
                transport.close()

        def _reject(self, status: str, text: str, reason: str) -> None:
            self._disarm()
            logs.event(logging.INFO, "connection_rejected", reason=reason, client=self._client_ip())
            if not self.transport.is_closing():
                self.transport.write(_plain_response(status, text))
                self.transport.close()

        def _client_ip(self) -> str | None:
            return self.client[0] if self.client else None

    return GuardedH11Protocol


def __getattr__(name: str) -> Any:
    """`GuardedH11Protocol` with limits from DOCSMCP_* variables, for plain uvicorn:
    `uvicorn --http docsmcp_runtime.http.guard:GuardedH11Protocol --factory ...`."""
    if name == "GuardedH11Protocol":
        cls = guarded_protocol(limits_from_env())
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def fit_descriptors(limits: ConnectionLimits, backlog: int = 2048) -> int:
    """The listen backlog to use, after raising the soft limit on open files if need be.

    Every connection and lingering refusal holds a descriptor, and asyncio accepts up to a
    whole backlog at once before any of them is refused; past the limit accept() fails with
    EMFILE and asyncio stops accepting anyone for a second at a time. So the soft limit is
    raised towards what the caps need (never past the hard limit), and the backlog shrinks to
    what is left when it cannot be.
    """
    try:
        import resource
    except ImportError:  # not on Windows
        return backlog
    needed = 2 * limits.max_connections + 64  # connections, refusals, bundle files, stdio...
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return backlog
    if soft < needed + backlog:
        target = needed + backlog
        if hard != resource.RLIM_INFINITY:
            target = min(target, hard)
        if target > soft:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
                soft = target
            except (ValueError, OSError):
                pass
    if soft - needed < 64:
        logs.event(
            logging.WARNING,
            "fd_limit",
            message=f"only {soft} open files allowed (ulimit -n): lower --max-connections to "
            f"{max(1, (soft - 128) // 2)} or raise the limit",
        )
    return max(64, min(backlog, soft - needed))
