"""stdout belongs to the protocol: in stdio mode the runtime moves fd 1 aside before serving, so
output from a stray print() or from native code writing to fd 1 lands on stderr and never
corrupts the JSON-RPC stream (as the official MCP SDKs guard it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# Fault injection: the real runtime, with a tool call that first writes to fd 1 three ways.
NOISY_RUNTIME = """
import ctypes, os, sys
from docsmcp_runtime.tools import app as tools

real_call = tools.DocsApp.call_tool

def noisy_call(self, name, arguments):
    ctypes.CDLL(None).write(1, b"NATIVE NOISE\\n", 13)  # C code writing to fd 1
    os.write(1, b"OS NOISE\\n")
    print("PRINTED NOISE", flush=True)
    return real_call(self, name, arguments)

tools.DocsApp.call_tool = noisy_call
from docsmcp_runtime.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _request(id_: int, method: str, params: dict) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}).encode()


def test_writes_to_fd_1_cannot_reach_the_protocol_stream(example_bundle: Path) -> None:
    messages = [
        _request(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                   "clientInfo": {"name": "t", "version": "0"}}),
        b'{"jsonrpc": "2.0", "method": "notifications/initialized"}',
        _request(2, "tools/call", {"name": "search_docs", "arguments": {"query": "refund"}}),
        _request(3, "tools/call", {"name": "get_doc", "arguments": {"chunk_id": "nope.md"}}),
    ]  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-c", NOISY_RUNTIME, "--bundle", str(example_bundle)],
        input=b"\n".join(messages) + b"\n",
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    replies = [json.loads(line) for line in proc.stdout.splitlines()]  # every line is JSON-RPC
    assert [r["id"] for r in replies] == [1, 2, 3]
    assert replies[1]["result"]["structuredContent"]["hits"]
    assert replies[2]["result"]["isError"] is True
    for noise in (b"NATIVE NOISE", b"OS NOISE", b"PRINTED NOISE"):
        assert noise not in proc.stdout
        assert proc.stderr.count(noise) == 2  # one per tool call, on stderr
