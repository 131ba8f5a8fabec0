"""A stdio line has a length cap (issue 31): 300 MB without a newline grew the server to 681 MB.
An over-long line is read through in pieces, answered with one JSON-RPC error, and the session
goes on."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.protocol import MAX_MESSAGE_BYTES
from docsmcp_runtime.protocol.stdio import _loop
from docsmcp_runtime.tools.app import DocsApp

PING = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}).encode() + b"\n"


def test_an_over_long_line_is_one_error_and_the_session_goes_on(example_bundle: Path) -> None:
    app = DocsApp(open_bundle(example_bundle))
    huge = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "' + b"a" * 5000 + b'"}\n'
    out = io.BytesIO()
    assert _loop(app, io.BytesIO(huge + PING + b"a" * 3000), out, limit=1000) == 0
    first, second, third = (json.loads(x) for x in out.getvalue().splitlines())
    assert first["error"]["message"] == "Request too large: a message is at most 1,000 bytes"
    assert first["id"] is None
    assert second == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert third["error"]["message"].startswith("Request too large")  # no newline at EOF


def test_a_real_server_survives_a_line_without_end(example_bundle: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(example_bundle)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    chunk = b"x" * (1 << 20)
    for _ in range(3 * MAX_MESSAGE_BYTES // len(chunk)):
        proc.stdin.write(chunk)
    proc.stdin.write(b"\n" + PING)
    proc.stdin.close()
    lines = [json.loads(x) for x in proc.stdout.read().splitlines()]
    assert proc.wait(timeout=60) == 0
    assert lines[0]["error"]["message"].startswith("Request too large")
    assert lines[1]["result"] == {}
