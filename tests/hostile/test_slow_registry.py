"""A registry that trickles its answer cannot hold a start (issue 31): a pull ends within
PULL_DEADLINE_FACTOR times DOCSMCP_REGISTRY_TIMEOUT, as an https download does; each byte used to
reset the timeout, so a byte every 2 s kept `--bundle oci://…` waiting without end. The
registry here is a local stand-in speaking the registry API's manifest request (the reference
registry cannot be made slow)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from docsmcp_runtime.distribution.registry import PULL_DEADLINE_FACTOR
from docsmcp_runtime.distribution.registry_pull import pull_bundle
from docsmcp_runtime.errors import BundleError

TIMEOUT = 0.05  # seconds a read may wait: each trickled byte comes well within it


class Trickle(BaseHTTPRequestHandler):
    """Answers a manifest request with 200 and a body of 100,000 bytes, one byte every 20 ms."""

    def do_GET(self) -> None:  # noqa: N802 - the http.server convention
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.oci.image.manifest.v1+json")
        self.send_header("Content-Length", "100000")
        self.end_headers()
        try:
            for _ in range(100_000):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.02)
        except OSError:
            pass  # the client gave up: what the test expects

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def registry() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Trickle)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_trickling_registry_cannot_hold_a_start(
    registry: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCSMCP_REGISTRY_TIMEOUT", str(TIMEOUT))
    started = time.monotonic()
    with pytest.raises(BundleError) as err:
        pull_bundle(f"oci://{registry}/acme/docs:v1", tmp_path / "cache")
    took = time.monotonic() - started
    deadline = TIMEOUT * PULL_DEADLINE_FACTOR
    assert deadline <= took < deadline + 5, took
    message = str(err.value)
    assert f"manifest did not arrive within {deadline:g} s" in message, message
    assert "\n" not in message
