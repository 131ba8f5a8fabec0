"""A real HTTP server on 127.0.0.1 that serves release assets the way hosts do (and fail):
ranges with `ETag`/`Last-Modified`/`If-Range`, redirect chains, a connection dropped midway,
a server that ignores `Range`, a body without `Content-Length` (chunked), a trickle.

It runs in a thread of the test process (`http.server.ThreadingHTTPServer`); every request's
path and headers are recorded in `requests`, so tests can assert what the client asked.
"""

from __future__ import annotations

import email.utils
import hashlib
import http.server
import re
import ssl
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Behaviour:
    """How the next requests are answered; tests change it between calls."""

    drop_after: int | None = None  # close the connection after sending this many body bytes
    drops: int = 0  # how many responses drop (then they stop dropping)
    ignore_range: bool = False
    validators: bool = True  # send ETag and Last-Modified
    etag_salt: str = ""  # change the ETag (the file "changed" on the server)
    chunked: bool = False  # no Content-Length
    trickle: float = 0.0  # seconds between body bytes
    status: int | None = None  # answer every asset request with this status
    redirects: dict[str, str] = field(default_factory=dict)  # path -> Location


class AssetServer:
    def __init__(self, root: Path, tls: tuple[Path, Path] | None = None) -> None:
        """`tls`: (certificate, key) PEM files to serve https instead of http."""
        self.root = root
        self.scheme = "https" if tls else "http"
        self.behaviour = Behaviour()
        self.requests: list[tuple[str, dict[str, str]]] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                server.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                server._answer(self)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        # A short poll interval makes shutdown() (every test's teardown) quick.
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def url(self, path: str) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def asset_requests(self, name: str) -> list[dict[str, str]]:
        return [headers for path, headers in self.requests if path == "/" + name]

    # -- answering -----------------------------------------------------------------------------

    def _answer(self, h: http.server.BaseHTTPRequestHandler) -> None:
        b = self.behaviour
        path = h.path.split("?")[0]
        if path in b.redirects:
            h.send_response(302)
            h.send_header("Location", b.redirects[path])
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        file = self.root / path.lstrip("/")
        if b.status is not None:
            h.send_response(b.status)
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        if not file.is_file():
            h.send_response(404)
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        data = file.read_bytes()
        etag = '"' + hashlib.sha256(data + b.etag_salt.encode()).hexdigest()[:16] + '"'
        modified = email.utils.formatdate(file.stat().st_mtime, usegmt=True)
        start = 0
        wanted = h.headers.get("Range")
        match = re.fullmatch(r"bytes=(\d+)-", wanted or "")
        if_range = h.headers.get("If-Range")
        partial = bool(match) and not b.ignore_range and if_range in (None, etag, modified)
        if partial:
            start = int(match[1])
            if start >= len(data):
                h.send_response(416)
                h.send_header("Content-Range", f"bytes */{len(data)}")
                h.send_header("Content-Length", "0")
                h.end_headers()
                return
            h.send_response(206)
            h.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            h.send_response(200)
        body = data[start:]
        if b.validators:
            h.send_header("ETag", etag)
            h.send_header("Last-Modified", modified)
        if b.chunked:
            h.send_header("Transfer-Encoding", "chunked")
        else:
            h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        if not path.endswith(".sha256") and b.drops > 0 and b.drop_after is not None:
            b.drops -= 1
            body = body[: b.drop_after]
            self._write(h, body, b)
            h.close_connection = True
            return
        self._write(h, body, b)
        if b.chunked:
            h.wfile.write(b"0\r\n\r\n")

    @staticmethod
    def _write(h: http.server.BaseHTTPRequestHandler, body: bytes, b: Behaviour) -> None:
        pieces = [body[i : i + 1] for i in range(len(body))] if b.trickle else [body]
        for piece in pieces:
            if b.chunked:
                piece = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
            try:
                h.wfile.write(piece)
                h.wfile.flush()
            except OSError:
                return
            if b.trickle:
                time.sleep(b.trickle)
