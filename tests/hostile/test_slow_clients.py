"""Slow and excess HTTP clients are bounded (issue 8, item 5).

The attack: many connections that send `POST /mcp HTTP/1.1` and then one header byte at a
time, so that an idle timer never fires (uvicorn's keep-alive timer restarts on every byte and
does not run at all while a first request head is read). Against real server processes:

- every trickling connection is answered 408 and closed at the header deadline, however many
  bytes it keeps sending, while a normal client is served in milliseconds;
- connections beyond `--max-connections` are answered 503 at once (not reset, not queued);
- an over-long request head gets 431, and a body that trickles gets 408 at the body deadline;
- plain uvicorn gets the same protections through `--http ...:GuardedH11Protocol`.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from test_http import ServerProcess, call, free_port, post, search_msg, start

pytestmark = pytest.mark.slow  # real server processes and real (short) timeouts: ~10 s

HEADER_TIMEOUT = 1.0
BODY_TIMEOUT = 1.0
SLACK = 1.5  # scheduling slack on top of a deadline, generous for a loaded CI machine
REQUEST_LINE = b"POST /mcp HTTP/1.1\r\n"


def wait_until(condition: Callable[[], bool], timeout: float = 10, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what or condition}"
        time.sleep(0.02)


class Trickler:
    """Connections that send a request line, then one header byte every `interval` seconds,
    and never finish the head. Records, per connection, what the server answered and when it
    closed the connection (seconds after that connection opened)."""

    def __init__(self, port: int, count: int, first: bytes = REQUEST_LINE, quiet: int = 0) -> None:
        """`count` trickling connections, then `quiet` ones that never send a byte."""
        total = count + quiet
        self.socks: list[socket.socket] = []
        self.opened: list[float] = []
        self.answers: list[bytes] = [b""] * total
        self.closed_after: list[float | None] = [None] * total
        self.sent: list[int] = [0] * total  # bytes trickled after the first write
        self.trickling = set(range(count))
        for i in range(total):
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            self.opened.append(time.monotonic())
            if first and i in self.trickling:
                s.sendall(first)
            s.setblocking(False)
            self.socks.append(s)

    def open(self) -> list[int]:
        return [i for i, t in enumerate(self.closed_after) if t is None]

    def run(self, until: float, interval: float = 0.2, bytes_=b"X-Slow: 1\r\n") -> None:
        """Trickle until every connection is closed by the server, or `until` seconds pass."""
        stop = time.monotonic() + until
        tick = 0
        while self.open() and time.monotonic() < stop:
            self.poll(interval)
            for i in set(self.open()) & self.trickling:
                byte = bytes_[tick % len(bytes_) : tick % len(bytes_) + 1]
                try:
                    self.socks[i].send(byte)
                    self.sent[i] += 1
                except BlockingIOError:
                    pass
                except OSError:
                    self._closed(i)
            tick += 1

    def poll(self, seconds: float) -> None:
        """Read what the server sends for `seconds`, noting the connections it closed."""
        stop = time.monotonic() + seconds
        while self.open():
            left = stop - time.monotonic()
            if left <= 0:
                return
            by_fd = {self.socks[i].fileno(): i for i in self.open()}
            readable, _, _ = select.select(list(by_fd), [], [], left)
            for fd in readable:
                i = by_fd[fd]
                try:
                    data = self.socks[i].recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if data:
                    self.answers[i] += data
                else:
                    self._closed(i)

    def wait_response(self, i: int = 0, timeout: float = 10) -> bytes:
        """Poll until connection `i` has a complete response (it must carry Content-Length)."""
        deadline = time.monotonic() + timeout
        while True:
            head, sep, body = self.answers[i].partition(b"\r\n\r\n")
            if sep:
                length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                if len(body) >= length:
                    return self.answers[i]
            assert time.monotonic() < deadline, self.answers[i]
            assert self.closed_after[i] is None, self.answers[i]
            self.poll(0.02)

    def _closed(self, i: int) -> None:
        if self.closed_after[i] is None:
            self.closed_after[i] = time.monotonic() - self.opened[i]

    def close(self) -> None:
        for s in self.socks:
            s.close()


class NormalClient(threading.Thread):
    """search_docs round trips on fresh connections, back to back, while an attack runs."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.results: list[tuple[float, int | str]] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            started = time.monotonic()
            try:
                status: int | str = post(self.port, search_msg("payment", limit=3)).status
            except OSError as exc:
                status = repr(exc)
            self.results.append((time.monotonic() - started, status))
            self.stopping.wait(0.05)

    def stop(self) -> list[tuple[float, int | str]]:
        self.stopping.set()
        self.join(timeout=30)
        return self.results


def raw_exchange(port: int, data: bytes, timeout: float = 10) -> bytes:
    """Send `data` on a fresh connection and read until the server closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except ConnectionResetError:
            pass
    return out


def events(srv: ServerProcess) -> list[dict]:
    """The JSON lines of a server's stderr (plain uvicorn also prints its own text lines)."""
    return [json.loads(line) for line in list(srv.stderr) if line.startswith("{")]


def wait_event(srv: ServerProcess, name: str) -> dict:
    found: list[dict] = []
    wait_until(
        lambda: bool(found.extend(e for e in events(srv) if e.get("event") == name) or found),
        what=f"a {name!r} log line",
    )
    return found[0]


def status_of(raw: bytes) -> int:
    assert raw.startswith(b"HTTP/1.1 "), raw[:200]
    return int(raw[9:12])


@pytest.fixture(scope="module")
def guarded(example_bundle: Path) -> Iterator[ServerProcess]:
    srv = start(
        example_bundle,
        "--header-timeout",
        str(HEADER_TIMEOUT),
        "--body-timeout",
        str(BODY_TIMEOUT),
        "--max-header-bytes",
        "4096",
        "--max-connections",
        "200",
    )
    yield srv
    assert srv.stop() == 0


def test_slow_headers_are_cut_at_the_deadline_while_others_are_served(
    guarded: ServerProcess,
) -> None:
    """The slow-header probe: 150 connections trickling a byte every 0.2 s are all answered
    408 and closed at the header deadline (they sent 4+ bytes each meanwhile, so an idle timer
    would never have fired); a normal client's searches take milliseconds throughout."""
    normal = NormalClient(guarded.port)
    attack = Trickler(guarded.port, 150, quiet=5)  # and 5 that connect and say nothing
    try:
        normal.start()
        attack.run(until=HEADER_TIMEOUT + SLACK + 3)
        results = normal.stop()
    finally:
        normal.stopping.set()
        attack.close()
    assert attack.open() == [], f"{len(attack.open())} slow connections still open"
    for i, after in enumerate(attack.closed_after):
        assert after is not None and HEADER_TIMEOUT - 0.05 <= after <= HEADER_TIMEOUT + SLACK
        if i in attack.trickling:
            assert attack.sent[i] >= 3  # kept trickling: the deadline was not extended
            assert status_of(attack.answers[i]) == 408
            assert b"connection: close" in attack.answers[i].lower()
        else:  # never sent a byte: closed without an answer
            assert attack.answers[i] == b""
    assert attack.answers[0].endswith(
        b"Request Timeout: the request head did not arrive within 1 s\n"
    )
    # The normal client was served the whole time, promptly.
    assert len(results) >= 5, results
    assert all(status == 200 for _, status in results), results
    assert max(seconds for seconds, _ in results) < 1.0, results
    rejected = guarded.wait_for_log(lambda e: e.get("event") == "connection_rejected")
    assert (rejected["reason"], rejected["client"], rejected["level"]) == (
        "header_timeout",
        "127.0.0.1",
        "info",
    )


def test_the_deadline_restarts_with_each_request_on_a_kept_alive_connection(
    guarded: ServerProcess,
) -> None:
    """A kept-alive connection gets a fresh deadline from the first byte of its next request:
    a client that was served once cannot then trickle forever, nor dribble out the rest of a
    body the server answered without reading (415 here)."""
    body = json.dumps(search_msg("payment")).encode()
    good = (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    unread = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\nxx"
    for first, answered in ((good, 200), (unread, 415)):
        conn = Trickler(guarded.port, 1, first=first)
        try:
            first_answer = conn.wait_response()
            assert status_of(first_answer) == answered
            conn.opened[0] = time.monotonic()  # measure from the end of the first request
            if answered == 200:
                conn.socks[0].send(REQUEST_LINE)
            conn.run(until=HEADER_TIMEOUT + SLACK + 3)  # bytes of a head, or of the old body
            after = conn.closed_after[0]
            assert after is not None and after <= HEADER_TIMEOUT + SLACK, after
            assert conn.sent[0] >= 3
            assert status_of(conn.answers[0][len(first_answer) :]) == 408
        finally:
            conn.close()


def test_connections_beyond_the_cap_get_503_at_once(example_bundle: Path) -> None:
    srv = start(example_bundle, "--max-connections", "8", "--header-timeout", "30")
    holders = Trickler(srv.port, 8)  # a slow-header attack as large as the cap
    try:

        def refused() -> bool:
            return call(srv.port, "GET", "/healthz").status == 503

        wait_until(refused, what="the server to count the 8 held connections")
        # Refused at once, answered (not reset), again and again, through a real HTTP client.
        for _ in range(20):
            started = time.monotonic()
            resp = post(srv.port, search_msg("payment"))
            assert time.monotonic() - started < 1.0
            assert resp.status == 503
            assert resp.headers["retry-after"] == "1"
            assert resp.headers["connection"] == "close"
            assert resp.body == b"Service Unavailable: too many open connections, retry later\n"
        # Raw: the answer comes before the client even sends its request.
        with socket.create_connection(("127.0.0.1", srv.port), timeout=5) as s:
            assert s.recv(4096).startswith(b"HTTP/1.1 503 Service Unavailable\r\n")
        warned = srv.wait_for_log(lambda e: e.get("event") == "connections_refused")
        assert warned["level"] == "warning" and warned["max_connections"] == 8
        # Freed slots are served again.
        for s in holders.socks[:2]:
            s.close()
        wait_until(lambda: call(srv.port, "GET", "/healthz").status == 200, what="a free slot")
        assert post(srv.port, search_msg("payment")).status == 200
    finally:
        holders.close()
        assert srv.stop() == 0


def test_an_over_long_request_head_gets_431(guarded: ServerProcess) -> None:
    body = json.dumps(search_msg("payment")).encode()

    def request(header_bytes: int) -> bytes:
        return (
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + b"X-Pad: "
            + b"a" * header_bytes
            + b"\r\n"
            + f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )

    assert status_of(raw_exchange(guarded.port, request(3000))) == 200  # under --max-header-bytes
    too_long = raw_exchange(guarded.port, request(5000))  # over it, in one read
    assert status_of(too_long) == 431
    assert too_long.endswith(b"Request Header Fields Too Large: the limit is 4096 bytes\n")
    # Over it in small pieces, never completing: refused once the limit is passed.
    with socket.create_connection(("127.0.0.1", guarded.port), timeout=10) as s:
        s.sendall(REQUEST_LINE)
        for _ in range(5):  # 5 x 1 KB: the fifth piece passes 4096 bytes
            s.sendall(b"X-Pad: " + b"a" * 1000 + b"\r\n")
            time.sleep(0.02)  # pacing, so the server reads them one by one
        answer = s.recv(65536)
    assert status_of(answer) == 431


def test_a_trickling_body_gets_408_at_the_body_deadline(guarded: ServerProcess) -> None:
    conn = Trickler(
        guarded.port,
        1,
        first=b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 1000\r\n\r\n{",
    )
    try:
        conn.run(until=BODY_TIMEOUT + SLACK + 3, bytes_=b" ")
    finally:
        conn.close()
    after = conn.closed_after[0]
    assert after is not None and BODY_TIMEOUT - 0.05 <= after <= BODY_TIMEOUT + SLACK
    assert conn.sent[0] >= 3
    head, _, payload = conn.answers[0].partition(b"\r\n\r\n")
    assert status_of(head) == 408 and b"connection: close" in head.lower()
    assert json.loads(payload) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "Request Timeout: the body did not arrive within 1 s"},
    }


def test_plain_uvicorn_with_the_guarded_protocol(example_bundle: Path) -> None:
    """`uvicorn --factory docsmcp_runtime.http:create_app --http ...:GuardedH11Protocol` takes
    its limits from DOCSMCP_* variables; without --http, setting them is warned about."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "--factory",
        "docsmcp_runtime.http:create_app",
        "--port",
        str(port),
        "--no-access-log",
    ]
    env = {
        "DOCSMCP_BUNDLE": str(example_bundle),
        "DOCSMCP_HEADER_TIMEOUT": "1",
        "DOCSMCP_MAX_CONNECTIONS": "4",
    }
    guard = ["--http", "docsmcp_runtime.http.guard:GuardedH11Protocol"]
    srv = ServerProcess(command + guard, env)
    try:
        srv.wait_healthy(port)
        slow = Trickler(port, 4)
        try:
            wait_until(lambda: call(port, "GET", "/healthz").status == 503, what="the cap")
            slow.run(until=1 + SLACK + 3)
            assert slow.open() == []
            assert all(status_of(answer) == 408 for answer in slow.answers)
        finally:
            slow.close()
        assert post(port, search_msg("payment")).status == 200
        assert not [e for e in events(srv) if e.get("event") == "connection_limits_unused"]
    finally:
        srv.stop()

    port = free_port()
    command[command.index("--port") + 1] = str(port)
    unguarded = ServerProcess(command, env)
    try:
        unguarded.wait_healthy(port)
        warned = wait_event(unguarded, "connection_limits_unused")
        unused = "DOCSMCP_HEADER_TIMEOUT, DOCSMCP_MAX_CONNECTIONS apply only with uvicorn's --http"
        assert warned["message"].startswith(unused)
    finally:
        unguarded.stop()

    bad = subprocess.run(
        command + guard,
        env={**os.environ, **env, "DOCSMCP_HEADER_TIMEOUT": "soon"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode != 0
    error = "DOCSMCP_HEADER_TIMEOUT must be a number of seconds > 0, got 'soon'"
    assert bad.stderr.strip().splitlines()[-1] == f"docsmcp-runtime: error: {error}"


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--header-timeout", "0", "must be > 0, got 0"),
        ("--body-timeout", "soon", "expected a number, got 'soon'"),
        ("--max-connections", "0", "must be >= 1, got 0"),
        ("--max-header-bytes", "100", "must be >= 1024, got 100"),
    ],
)
def test_limit_flags_are_checked(
    capsys: pytest.CaptureFixture[str], flag: str, value: str, message: str
) -> None:
    from docsmcp_runtime.commands.parser import _parser

    with pytest.raises(SystemExit) as exc:
        _parser().parse_known_args(["--bundle", "idx", "--transport", "http", flag, value])
    assert exc.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"docsmcp-runtime: error: argument {flag}: {message}"
    )


def test_limit_flags_need_the_http_transport(example_bundle: Path) -> None:
    stdio = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(example_bundle)]
        + ["--max-connections", "10"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert stdio.returncode == 2
    assert stdio.stderr.splitlines()[-1] == (
        "docsmcp-runtime: error: --max-connections only applies to --transport http"
    )
