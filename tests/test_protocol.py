"""MCP protocol layer and stdio transport.

Three layers of tests:
* in-process Dispatcher / stdio.serve over a real DocsApp on the example bundle;
* the real `docsmcp_runtime` process driven by the official `mcp` SDK client, in each
  connection mode (legacy handshake, pinned 2026-07-28, auto-probe);
* the real process driven over raw pipes, for error paths the SDK never produces.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import EXAMPLE_DOCS, without_display_store
from docsmcp_runtime import __version__ as runtime_version
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.logs import configure_text
from docsmcp_runtime.protocol.dispatcher import Dispatcher, Session, encode
from docsmcp_runtime.protocol.stdio import serve
from docsmcp_runtime.tools.app import DocsApp

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "pytest", "version": "0"},
}
TOOL_NAMES = {"search_docs", "get_doc"}
READ_TIMEOUT = 30.0


# --------------------------------------------------------------------------- in-process, real app


@pytest.fixture(scope="module")
def example_app(example_bundle: Path) -> DocsApp:
    return DocsApp(open_bundle(example_bundle))


def _manifest_instructions() -> str:
    manifest = json.loads((EXAMPLE_DOCS / ".docs-mcp.json").read_text(encoding="utf-8"))
    return manifest["mcpServerInstructions"]


def _req(id_: object, method: str, params: dict | None = None) -> dict:
    msg: dict = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def test_dispatcher_initialize_then_legacy_requests(example_app: DocsApp) -> None:
    d, session = Dispatcher(example_app), Session()
    init = d.handle_message(_req(1, "initialize", {"protocolVersion": "2025-06-18"}), session)
    assert init["result"]["protocolVersion"] == "2025-06-18"
    assert init["result"]["instructions"] == _manifest_instructions()
    assert init["result"]["serverInfo"] == {"name": "docsmcp", "version": runtime_version}
    assert session.protocol_version == "2025-06-18"
    listed = d.handle_message(_req(2, "tools/list"), session)["result"]
    # Legacy results have no 2026-only fields.
    assert listed == {"tools": example_app.list_tools()}
    assert [t["name"] for t in listed["tools"]][:2] == ["search_docs", "get_doc"]
    props = listed["tools"][0]["inputSchema"]["properties"]
    assert props["language"]["enum"] == ["python", "typescript"]
    assert props["scope"]["enum"] == ["global-guide", "sdk-specific"]


def test_dispatcher_modern_results_are_stamped(example_app: DocsApp) -> None:
    d = Dispatcher(example_app)
    params = {"name": "search_docs", "arguments": {"query": "npm"}, "_meta": MODERN_META}
    resp = d.handle_message(_req("c", "tools/call", params))
    result = resp["result"]
    assert resp["id"] == "c"
    assert result["resultType"] == "complete"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == {
        "name": "docsmcp",
        "version": runtime_version,
    }
    assert result["isError"] is False
    structured = result["structuredContent"]
    assert set(structured) == {"hits", "next_cursor", "hint"}
    # npm occurs in one section only: the TypeScript installation.
    (found,) = structured["hits"]
    assert found["chunk_id"] == "typescript/README.md#acme-typescript-sdk/installation"
    assert set(found) == {
        "chunk_id",
        "score",
        "heading",
        "breadcrumb",
        "snippet",
        "filepath",
        "metadata",
        "source",
    }
    assert found["metadata"] == {
        "language": "typescript",
        "role": "reference",
        "scope": "sdk-specific",
    }
    assert structured["next_cursor"] is None and structured["hint"] is None
    assert json.loads(result["content"][0]["text"]) == structured


def test_dispatcher_unknown_tool(example_app: DocsApp) -> None:
    resp = Dispatcher(example_app).handle_message(_req(4, "tools/call", {"name": "x"}))
    assert resp == {
        "jsonrpc": "2.0",
        "id": 4,
        "error": {"code": -32602, "message": "Unknown tool 'x'."},
    }


def test_dispatcher_internal_error_is_generic(
    example_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A real bundle rewritten on disk under a running server: chunk texts are read lazily, so
    # the next search fails inside the app (a pyarrow OSError), which must stay generic. (A
    # bundle with a display store reads no chunk table to search: an earlier builder's here.)
    configure_text("docsmcp-runtime")  # as the CLI does: diagnostics on stderr
    bundle = without_display_store(example_bundle, tmp_path / "idx")
    app = DocsApp(open_bundle(bundle))
    chunks = bundle / "chunks.parquet"
    with chunks.open("r+b") as fh:  # same size, so the memory map stays valid
        fh.write(b"\0" * chunks.stat().st_size)
    resp = Dispatcher(app).handle_message(
        _req(1, "tools/call", {"name": "search_docs", "arguments": {"query": "npm"}})
    )
    assert resp == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": -32603, "message": "Internal error"},
    }
    err = capsys.readouterr().err
    assert "internal error in tools/call: OSError" in err  # details go to stderr only
    detail = err.split("OSError: ", 1)[1].strip()
    assert detail and detail not in json.dumps(resp)


def test_encode_unserializable_result_becomes_internal_error(example_app: DocsApp) -> None:
    d = Dispatcher(example_app)
    resp = d.handle_message(
        _req(7, "tools/call", {"name": "search_docs", "arguments": {"query": "npm"}})
    )
    assert json.loads(encode(resp))["result"]["structuredContent"]["hits"]
    resp["result"]["structuredContent"]["hits"][0]["score"] = float("nan")  # not JSON
    assert json.loads(encode(resp)) == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32603, "message": "Internal error"},
    }


def test_encode_lone_surrogate_stays_valid_json() -> None:
    line = encode({"jsonrpc": "2.0", "id": 1, "result": {"text": "x\ud800y"}})
    assert json.loads(line)["result"]["text"] == "x\ud800y"


def test_serve_in_memory_streams(example_app: DocsApp) -> None:
    lines = [
        json.dumps(_req(1, "ping")),
        "",
        "{not json",
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json.dumps(_req(2, "tools/call", {"name": "get_doc", "arguments": {"chunk_id": "héllo"}})),
        json.dumps(_req(3, "tools/call", {"name": "search_docs", "arguments": {"query": "npm"}})),
    ]
    stdin = io.BytesIO(("\n".join(lines) + "\n").encode())
    stdout = io.BytesIO()
    assert serve(example_app, stdin=stdin, stdout=stdout) == 0
    out = stdout.getvalue()
    assert "héllo".encode() in out  # ensure_ascii=False
    replies = [json.loads(x) for x in out.splitlines()]
    assert [r.get("id") for r in replies] == [1, None, 2, 3]
    assert replies[1]["error"]["code"] == -32700
    missing = replies[2]["result"]
    assert missing["isError"] is True
    assert "Chunk ID 'héllo' not found" in missing["content"][0]["text"]
    hits = replies[3]["result"]["structuredContent"]["hits"]
    assert [h["chunk_id"] for h in hits] == [
        "typescript/README.md#acme-typescript-sdk/installation"
    ]


# --------------------------------------------------------------------------- real process


def _server_command(bundle: Path) -> list[str]:
    # `python -m` rather than the console script: it works without the venv on PATH.
    return [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(bundle)]


def _sample_arguments(tool: object) -> dict:
    """Arguments filling every required string property of a tool's input schema."""
    schema = tool.input_schema
    props = schema.get("properties", {})
    return {
        name: "getting started"
        for name in schema.get("required", [])
        if props.get(name, {}).get("type") == "string"
    }


async def _exercise_sdk_client(bundle: Path, mode: str) -> dict:
    from mcp import Client, StdioServerParameters

    command, *args = _server_command(bundle)
    # The SDK launches servers with a minimal allow-listed environment (no PYTHONPATH,
    # no VIRTUAL_ENV); hand over ours so the child imports the same packages we do.
    params = StdioServerParameters(command=command, args=args, env=dict(os.environ))
    async with Client(params, mode=mode, read_timeout_seconds=READ_TIMEOUT) as client:
        instructions = client.instructions
        if instructions is None and mode == MODERN:
            # A pinned modern client adopts a synthesized DiscoverResult without any wire
            # traffic, so it only learns the instructions by asking.
            instructions = (await client.session.send_discover(MODERN)).get("instructions")
        tools = (await client.list_tools()).tools
        search = next(t for t in tools if t.name == "search_docs")
        found = await client.call_tool("search_docs", _sample_arguments(search))
        missing_args = await client.call_tool("get_doc", {})
        return {
            "version": client.protocol_version,
            "instructions": instructions,
            "tool_names": {t.name for t in tools},
            "found": found,
            "missing_args": missing_args,
        }


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "expected_version"),
    [("legacy", LEGACY), (MODERN, MODERN), ("auto", MODERN)],
)
def test_sdk_client_modes(example_bundle: Path, mode: str, expected_version: str) -> None:
    seen = asyncio.run(_exercise_sdk_client(example_bundle, mode))
    assert seen["version"] == expected_version
    assert isinstance(seen["instructions"], str) and seen["instructions"].strip()
    assert seen["tool_names"] >= TOOL_NAMES
    assert not seen["found"].is_error
    assert seen["found"].content
    # Input validation failures are tool results the model can see, not protocol errors.
    assert seen["missing_args"].is_error


class RawServer:
    """The runtime process on plain pipes: write lines, read lines (with a timeout)."""

    def __init__(self, bundle: Path) -> None:
        self.proc = subprocess.Popen(
            _server_command(bundle),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(b"")  # EOF marker

    def send(self, message: object) -> None:
        raw = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def receive(self) -> dict:
        line = self._lines.get(timeout=READ_TIMEOUT)
        assert line, "server closed stdout"
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        return json.loads(line)

    def request(self, message: object) -> dict:
        self.send(message)
        return self.receive()

    def close(self) -> int:
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=READ_TIMEOUT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


@pytest.fixture
def raw_server(example_bundle: Path):
    server = RawServer(example_bundle)
    yield server
    server.close()


@pytest.mark.slow
def test_raw_malformed_json_then_keeps_answering(raw_server: RawServer) -> None:
    assert raw_server.request(b'{"jsonrpc": "2.0", "id": 1, "method": ') == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error"},
    }
    assert raw_server.request(_req(2, "ping")) == {"jsonrpc": "2.0", "id": 2, "result": {}}


@pytest.mark.slow
def test_raw_unknown_method(raw_server: RawServer) -> None:
    resp = raw_server.request(_req("x-1", "resources/subscribe"))
    assert resp["id"] == "x-1"
    assert resp["error"]["code"] == -32601


@pytest.mark.slow
@pytest.mark.parametrize(
    "params",
    [
        [1, 2],  # params must be an object
        {"arguments": {}},  # no tool name
        {"name": 42},
        {"name": "search_docs", "arguments": "query"},
        {"name": "no_such_tool", "arguments": {}},
    ],
)
def test_raw_bad_params(raw_server: RawServer, params: object) -> None:
    resp = raw_server.request(_req(3, "tools/call", params))
    assert resp["id"] == 3
    assert resp["error"]["code"] == -32602


@pytest.mark.slow
def test_raw_batch_rejected(raw_server: RawServer) -> None:
    resp = raw_server.request([_req(1, "ping"), _req(2, "ping")])
    assert resp["id"] is None
    assert resp["error"]["code"] == -32600


@pytest.mark.slow
@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1},
        "ping",
    ],
)
def test_raw_invalid_request(raw_server: RawServer, message: object) -> None:
    assert raw_server.request(message)["error"]["code"] == -32600


@pytest.mark.slow
def test_raw_notifications_get_no_reply(raw_server: RawServer) -> None:
    raw_server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    raw_server.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}})
    raw_server.send({"jsonrpc": "2.0", "method": "no/such/notification", "params": 7})
    raw_server.send(b"")  # blank lines are ignored too
    # The very next line must answer this ping: nothing was sent for the above.
    assert raw_server.request(_req(99, "ping"))["id"] == 99


@pytest.mark.slow
def test_raw_ids_echoed_exactly(raw_server: RawServer) -> None:
    for id_ in ("abc", "", 0, -5, 2**53 + 1):
        assert raw_server.request(_req(id_, "ping"))["id"] == id_


@pytest.mark.slow
def test_raw_initialize_unknown_version_negotiates_latest(raw_server: RawServer) -> None:
    resp = raw_server.request(
        _req(
            1,
            "initialize",
            {
                "protocolVersion": "1999-01-01",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        )
    )
    result = resp["result"]
    assert result["protocolVersion"] == LEGACY
    assert result["serverInfo"]["name"]
    assert "tools" in result["capabilities"]
    raw_server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert raw_server.request(_req(2, "ping"))["result"] == {}


@pytest.mark.slow
def test_raw_initialize_supported_old_version_is_kept(raw_server: RawServer) -> None:
    resp = raw_server.request(_req(1, "initialize", {"protocolVersion": "2025-06-18"}))
    assert resp["result"]["protocolVersion"] == "2025-06-18"


@pytest.mark.slow
def test_raw_unsupported_modern_version(raw_server: RawServer) -> None:
    meta = {**MODERN_META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
    resp = raw_server.request(_req(5, "tools/list", {"_meta": meta}))
    error = resp["error"]
    assert error["code"] == -32022
    assert MODERN in error["data"]["supported"]
    assert error["data"]["requested"] == "2099-01-01"


@pytest.mark.slow
def test_raw_modern_request_missing_capabilities(raw_server: RawServer) -> None:
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN}
    resp = raw_server.request(_req(6, "tools/list", {"_meta": meta}))
    assert resp["error"]["code"] == -32602


@pytest.mark.slow
def test_raw_discover(raw_server: RawServer) -> None:
    result = raw_server.request(_req(1, "server/discover", {"_meta": MODERN_META}))["result"]
    assert result["resultType"] == "complete"
    assert result["supportedVersions"][0] == MODERN
    assert LEGACY in result["supportedVersions"]
    assert "tools" in result["capabilities"]
    assert result["cacheScope"] in ("public", "private")
    assert result["ttlMs"] >= 0
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"]


@pytest.mark.slow
def test_raw_modern_tools_list_is_cacheable(raw_server: RawServer) -> None:
    result = raw_server.request(_req(1, "tools/list", {"_meta": MODERN_META}))["result"]
    assert result["resultType"] == "complete"
    assert {"ttlMs", "cacheScope"} <= result.keys()
    assert {t["name"] for t in result["tools"]} >= TOOL_NAMES


@pytest.mark.slow
def test_raw_eof_exits_cleanly(example_bundle: Path) -> None:
    server = RawServer(example_bundle)
    assert server.request(_req(1, "ping"))["id"] == 1
    assert server.close() == 0
