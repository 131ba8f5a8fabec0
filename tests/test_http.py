"""The Streamable HTTP transport (`--transport http`), tested as users meet it.

Every server here is a real `python -m docsmcp_runtime ... --transport http` child process (or
uvicorn loading the ASGI factory) on 127.0.0.1. MCP traffic goes through the official `mcp` SDK
client in all three connection modes; the transport rules (status codes, headers, error bodies)
are checked with raw requests from the standard library, since SDK clients never send the bad
input a server must refuse.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from conftest import EXAMPLE_DOCS, build_bundle
from docsmcp_runtime import __version__
from docsmcp_runtime.tools.registry import TOOL_NAMES
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
SERVER = f"docsmcp-runtime/{__version__}"
START_TIMEOUT = 30.0
TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

pytestmark = pytest.mark.slow  # real server processes throughout: ~8 s


# ---------------------------------------------------------------------------------------------
# A real server process and plain HTTP helpers
# ---------------------------------------------------------------------------------------------


class ServerProcess:
    """A child process serving HTTP; its stderr is collected line by line as it arrives."""

    def __init__(self, command: list[str], env: dict[str, str] | None = None) -> None:
        environ = dict(os.environ)
        environ.update(env or {})
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environ,
            text=True,
        )
        self.stderr: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.port = 0

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line.rstrip("\n"))

    def logs(self) -> list[dict[str, Any]]:
        """Every stderr line, each of which must be one JSON object."""
        return [json.loads(line) for line in list(self.stderr)]

    def wait_for_log(self, predicate: Callable[[dict], bool], timeout: float = 10) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for entry in self.logs():
                if predicate(entry):
                    return entry
            if self.proc.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.02)
        raise AssertionError("no matching log line; stderr:\n" + "\n".join(self.stderr))

    def wait_listening(self) -> None:
        entry = self.wait_for_log(lambda e: e.get("event") == "listening", START_TIMEOUT)
        self.port = entry["port"]

    def wait_healthy(self, port: int) -> None:
        self.port = port
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, "\n".join(self.stderr)
            try:
                if call(port, "GET", "/healthz").status == 200:
                    return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("server never became healthy:\n" + "\n".join(self.stderr))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self._reader.join(timeout=5)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        return rc


def runtime(bundle: Path | str, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "docsmcp_runtime",
        "--bundle",
        str(bundle),
        "--transport",
        "http",
        *args,
    ]


def start(bundle: Path | str, *args: str, env: dict[str, str] | None = None) -> ServerProcess:
    server = ServerProcess(runtime(bundle, "--port", "0", *args), env)
    try:
        server.wait_listening()
    except BaseException:
        server.stop()
        raise
    return server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass(frozen=True)
class Resp:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def call(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> Resp:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return Resp(r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
    finally:
        conn.close()


JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def post(port: int, message: Any, headers: dict[str, str] | None = None) -> Resp:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return call(port, "POST", "/mcp", body, {**JSON_HEADERS, **(headers or {})})


def modern(method: str, params: dict | None = None, id_: int | str = 1) -> dict:
    params = dict(params or {})
    params["_meta"] = {META_VERSION: MODERN, META_CAPS: {}}
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


def modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


def search_msg(query: str, id_: int | str = 1, **arguments: Any) -> dict:
    args = {"query": query, **arguments}
    return {
        "jsonrpc": "2.0",
        "id": id_,
        "method": "tools/call",
        "params": {"name": "search_docs", "arguments": args},
    }


def answers_from_workers(
    bundle: Path, query: str, env: dict[str, str] | None = None, requests: int = 4
) -> list[dict]:
    """The structured results of `requests` searches for `query` over new connections to a
    `--workers 2` server of `bundle` (the kernel spreads them over both workers), once both
    listen."""
    srv = start(bundle, "--workers", "2", env=env)
    try:
        srv.wait_for_log(
            lambda _: sum(e.get("event") == "listening" for e in srv.logs()) == 2, timeout=60
        )
        out = []
        for _ in range(requests):
            reply = post(srv.port, search_msg(query, limit=5))
            assert reply.status == 200, reply.body
            out.append(reply.json()["result"]["structuredContent"])
        return out
    finally:
        srv.stop()


def assert_common_headers(resp: Resp, bundle_id: str) -> None:
    assert resp.headers["server"] == SERVER
    assert resp.headers["x-docsmcp-bundle"] == bundle_id
    assert "mcp-session-id" not in resp.headers  # stateless: never minted
    assert not any(k.startswith("access-control-") for k in resp.headers)  # no CORS by default


def rpc_error(resp: Resp) -> dict:
    assert resp.headers["content-type"] == "application/json"
    return resp.json()["error"]


def sdk(url: str, mode: str, body: Callable[[Client], Awaitable[Any]], token: str | None = None):
    """Run `body(client)` with a connected official SDK client."""

    async def main() -> Any:
        if token is None:
            async with Client(url, mode=mode, read_timeout_seconds=30) as client:
                return await body(client)
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as hc:
            transport = streamable_http_client(url, http_client=hc)
            async with Client(transport, mode=mode, read_timeout_seconds=30) as client:
                return await body(client)

    return anyio.run(main)


# ---------------------------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bundle_id(example_bundle: Path) -> str:
    return json.loads((example_bundle / "metadata.json").read_text())["bundle_id"]


@pytest.fixture(scope="module")
def server(example_bundle: Path) -> Iterator[ServerProcess]:
    srv = start(example_bundle, "--max-body-bytes", "4096")
    yield srv
    assert srv.stop() == 0


# ---------------------------------------------------------------------------------------------
# MCP through the official SDK
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "version"), [("legacy", LEGACY), (MODERN, MODERN), ("auto", MODERN)]
)
def test_sdk_client_searches_and_reads(server: ServerProcess, mode: str, version: str) -> None:
    async def body(client: Client) -> tuple:
        tools = await client.list_tools()
        found = await client.call_tool("search_docs", {"query": "create payment", "limit": 3})
        hit = found.structured_content["hits"][0]
        doc = await client.call_tool("get_doc", {"chunk_id": hit["chunk_id"]})
        bad = await client.call_tool("get_doc", {"chunk_id": "nope.md#x"})
        return client.protocol_version, tools, found, hit, doc, bad

    protocol_version, tools, found, hit, doc, bad = sdk(server.url, mode, body)
    assert protocol_version == version
    assert [t.name for t in tools.tools][:2] == ["search_docs", "get_doc"]
    assert not found.is_error and 1 <= len(found.structured_content["hits"]) <= 3
    assert "payment" in hit["chunk_id"].lower() or "payment" in hit["snippet"].lower()
    assert doc.content[0].text.startswith(f"--- Chunk: {hit['chunk_id']} (Chunk ")
    assert bad.is_error
    assert bad.content[0].text == (
        "Chunk ID 'nope.md#x' not found. Use search_docs to discover valid chunk IDs."
    )


def test_concurrent_clients_get_correct_answers(server: ServerProcess) -> None:
    queries = ["payment", "retry", "authentication", "error", "refund", "client", "typescript"]
    expected = {q: post(server.port, search_msg(q, limit=5)).json()["result"] for q in queries}
    barrier = threading.Barrier(20)
    failures: list[str] = []

    def worker(n: int) -> None:
        barrier.wait()
        for i in range(5):
            q = queries[(n + i) % len(queries)]
            try:
                resp = post(server.port, search_msg(q, id_=f"c{n}-{i}", limit=5))
                if resp.status != 200 or resp.json()["result"] != expected[q]:
                    failures.append(f"{n}/{i} {q}: {resp.status} {resp.body[:200]!r}")
                if resp.json()["id"] != f"c{n}-{i}":
                    failures.append(f"{n}/{i}: answer for another request")
            except Exception as exc:  # collected: an assert in a thread would be lost
                failures.append(f"{n}/{i} {q}: {exc!r}")

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert failures == []


# ---------------------------------------------------------------------------------------------
# Transport rules, one status code at a time
# ---------------------------------------------------------------------------------------------


def test_healthz_names_the_source_commit_only_when_asked(tmp_path: Path) -> None:
    docs = shutil.copytree(EXAMPLE_DOCS, tmp_path / "docs")
    git = ["git", "-C", str(docs), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "docs"]):
        subprocess.run([*git, *args], check=True)
    bundle = build_bundle(docs, tmp_path / "idx")
    commit = json.loads((bundle / "metadata.json").read_text())["source"]["commit"]
    assert commit
    for flags, expected in (((), None), (("--health-commit",), commit)):
        srv = start(bundle, *flags)
        try:
            assert call(srv.port, "GET", "/healthz").json()["source_commit"] == expected
        finally:
            assert srv.stop() == 0


def test_healthz(server: ServerProcess, bundle_id: str, example_bundle: Path) -> None:
    meta = json.loads((example_bundle / "metadata.json").read_text())
    resp = call(server.port, "GET", "/healthz")
    assert resp.status == 200
    assert resp.headers["content-type"] == "application/json"
    assert_common_headers(resp, bundle_id)
    assert resp.json() == {
        "status": "ok",
        "bundle_id": bundle_id,
        "format_version": 1,
        "name": meta["name"],
        "build": meta["build"],
        "source_commit": None,  # opt-in: --health-commit
        "chunks": meta["stats"]["chunks"],
        "runtime": __version__,
    }
    head = call(server.port, "HEAD", "/healthz")
    assert (head.status, head.body) == (200, b"")
    wrong = call(server.port, "POST", "/healthz", b"{}", JSON_HEADERS)
    assert (wrong.status, wrong.headers["allow"]) == (405, "GET, HEAD")


def test_200_json_answer_and_legacy_initialize_is_stateless(
    server: ServerProcess, bundle_id: str
) -> None:
    init = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    }
    resp = post(server.port, init)
    assert resp.status == 200 and resp.headers["content-type"] == "application/json"
    assert_common_headers(resp, bundle_id)
    assert resp.json()["result"]["protocolVersion"] == LEGACY
    # No handshake needed before a call: any replica can answer any request.
    listed = post(
        server.port,
        {"jsonrpc": "2.0", "id": 8, "method": "tools/list"},
        {"MCP-Protocol-Version": LEGACY},
    )
    assert listed.status == 200 and len(listed.json()["result"]["tools"]) == len(TOOL_NAMES)


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        {"jsonrpc": "2.0", "id": 3, "result": {}},
    ],
    ids=["initialized", "cancelled", "response"],
)
def test_202_for_notifications_and_responses(
    server: ServerProcess, bundle_id: str, message: dict
) -> None:
    resp = post(server.port, message)
    assert (resp.status, resp.body) == (202, b"")
    assert_common_headers(resp, bundle_id)


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        (b'{"jsonrpc": "2.0", "id": 1, "method": ', -32700, "Parse error"),
        (b"\xff\xfe", -32700, "Parse error"),
        (b"[]", -32600, "Invalid Request: batching is not supported"),
        (b'{"jsonrpc": "2.0"}', -32600, "Invalid Request: not a JSON-RPC request or notification"),
    ],
    ids=["truncated", "not-utf8", "batch", "neither"],
)
def test_400_for_malformed_messages(
    server: ServerProcess, bundle_id: str, body: bytes, code: int, message: str
) -> None:
    resp = post(server.port, body)
    assert resp.status == 400
    assert_common_headers(resp, bundle_id)
    assert resp.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": code, "message": message},
    }


def test_400_header_mismatch_on_modern_requests(server: ServerProcess) -> None:
    call_msg = modern("tools/call", {"name": "search_docs", "arguments": {"query": "payment"}})
    ok = post(server.port, call_msg, modern_headers("tools/call", "search_docs"))
    assert ok.status == 200 and ok.json()["result"]["isError"] is False
    # Mcp-Name may be base64-encoded with the spec's sentinel.
    encoded = "=?base64?" + base64.b64encode(b"search_docs").decode() + "?="
    assert post(server.port, call_msg, modern_headers("tools/call", encoded)).status == 200

    cases = [
        (
            {"Mcp-Method": "tools/call", "Mcp-Name": "search_docs"},
            "Header mismatch: required header MCP-Protocol-Version is missing",
        ),
        (
            {**modern_headers("tools/call", "search_docs"), "MCP-Protocol-Version": LEGACY},
            f"Header mismatch: MCP-Protocol-Version header value '{LEGACY}' does not match "
            f"body value '{MODERN}'",
        ),
        (
            modern_headers("tools/list", "search_docs"),
            "Header mismatch: Mcp-Method header value 'tools/list' does not match body value "
            "'tools/call'",
        ),
        (
            modern_headers("tools/call", "get_doc"),
            "Header mismatch: Mcp-Name header value 'get_doc' does not match body value "
            "'search_docs'",
        ),
        (modern_headers("tools/call"), "Header mismatch: required header Mcp-Name is missing"),
    ]
    for headers, message in cases:
        resp = post(server.port, call_msg, headers)
        assert resp.status == 400, headers
        assert resp.json() == {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {"code": -32020, "message": message},
        }


def test_sep_2575_envelope_rules(server: ServerProcess) -> None:
    # A 2026-07-28 request without the _meta envelope: invalid params, not a header mismatch.
    bare = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}
    resp = post(server.port, bare, modern_headers("tools/list"))
    assert resp.status == 400
    assert rpc_error(resp)["code"] == -32602
    assert "params._meta is missing required key" in rpc_error(resp)["message"]
    # The handshake does not exist in 2026-07-28: initialize stamped with it is unknown.
    init = modern("initialize", {"protocolVersion": MODERN, "capabilities": {}})
    resp = post(server.port, init, modern_headers("initialize"))
    assert resp.status == 404
    assert rpc_error(resp) == {"code": -32601, "message": "Method not found: initialize"}


def test_both_transports_classify_a_legacy_version_in_meta_alike(
    server: ServerProcess, example_bundle: Path
) -> None:
    """A handshake-era version stamped in params._meta is served as that revision by stdio and
    HTTP alike (protocol.classify decides for both): no 2026 routing headers required, a
    legacy-shaped result, and a header that contradicts the body is a mismatch."""
    from docsmcp_runtime.bundle.reader import open_bundle
    from docsmcp_runtime.protocol.dispatcher import Dispatcher
    from docsmcp_runtime.tools.app import DocsApp

    msg = {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "tools/list",
        "params": {"_meta": {META_VERSION: LEGACY}},
    }
    stdio = Dispatcher(DocsApp(open_bundle(example_bundle))).handle_message(msg)
    http = post(server.port, msg)
    assert http.status == 200
    assert http.json() == stdio
    assert "resultType" not in stdio["result"]  # a 2025-11-25 result, not a 2026-07-28 one
    with_header = post(server.port, msg, {"MCP-Protocol-Version": LEGACY})
    assert with_header.status == 200 and with_header.json() == stdio
    contradicted = post(server.port, msg, {"MCP-Protocol-Version": "2025-06-18"})
    assert contradicted.status == 400 and rpc_error(contradicted)["code"] == -32020


def test_400_unsupported_protocol_version(server: ServerProcess) -> None:
    msg = modern("tools/list")
    msg["params"]["_meta"][META_VERSION] = "2099-01-01"
    resp = post(
        server.port, msg, {"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list"}
    )
    assert resp.status == 400
    assert rpc_error(resp) == {
        "code": -32022,
        "message": "Unsupported protocol version",
        "data": {"supported": [MODERN, LEGACY], "requested": "2099-01-01"},
    }
    legacy = post(
        server.port,
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"MCP-Protocol-Version": "1999-01-01"},
    )
    assert legacy.status == 400 and rpc_error(legacy)["code"] == -32022


def test_404_unknown_method_on_modern_requests_and_unknown_path(
    server: ServerProcess, bundle_id: str
) -> None:
    resp = post(server.port, modern("resources/subscribe"), modern_headers("resources/subscribe"))
    assert resp.status == 404
    assert rpc_error(resp) == {"code": -32601, "message": "Method not found: resources/subscribe"}
    # Legacy era: JSON-RPC errors travel with 200, as handshake-era servers answer them.
    legacy = post(server.port, {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe"})
    assert legacy.status == 200 and rpc_error(legacy)["code"] == -32601

    lost = call(server.port, "POST", "/sse", b"{}", JSON_HEADERS)
    assert lost.status == 404
    assert lost.headers["content-type"] == "text/plain; charset=utf-8"
    assert lost.body == b"Not Found: the MCP endpoint is /mcp\n"
    assert_common_headers(lost, bundle_id)


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT", "OPTIONS"])
def test_405_for_anything_but_post(server: ServerProcess, bundle_id: str, method: str) -> None:
    resp = call(server.port, method, "/mcp", headers={"Accept": "text/event-stream"})
    assert resp.status == 405
    assert resp.headers["allow"] == "POST"
    assert_common_headers(resp, bundle_id)


def test_406_when_json_is_not_accepted(server: ServerProcess) -> None:
    resp = post(server.port, search_msg("payment"), {"Accept": "text/event-stream"})
    assert resp.status == 406
    assert rpc_error(resp)["message"] == "Not Acceptable: the client must accept application/json"
    for accept in ("*/*", "application/*", "application/json"):
        assert post(server.port, search_msg("payment"), {"Accept": accept}).status == 200


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin-1"],
)
def test_415_for_other_content_types(server: ServerProcess, content_type: str | None) -> None:
    headers = {"Accept": "application/json"}
    if content_type:
        headers["Content-Type"] = content_type
    resp = call(server.port, "POST", "/mcp", json.dumps(search_msg("x")).encode(), headers)
    assert resp.status == 415
    assert rpc_error(resp)["message"] == (
        "Unsupported Media Type: the body must be application/json (UTF-8)"
    )
    ok = post(server.port, search_msg("x"), {"Content-Type": "Application/JSON; charset=UTF-8"})
    assert ok.status == 200


def test_413_over_the_body_limit(server: ServerProcess, bundle_id: str) -> None:
    def sized(n: int) -> bytes:
        msg = search_msg("payment")
        msg["params"]["pad"] = ""
        base = len(json.dumps(msg).encode())
        msg["params"]["pad"] = "x" * (n - base)
        body = json.dumps(msg).encode()
        assert len(body) == n
        return body

    assert post(server.port, sized(4096)).status == 200  # --max-body-bytes 4096: inclusive
    resp = post(server.port, sized(4097))
    assert resp.status == 413
    assert_common_headers(resp, bundle_id)
    assert rpc_error(resp)["message"] == "Payload Too Large: the limit is 4096 bytes"
    # Without Content-Length (chunked), the limit is enforced while reading.
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    body = sized(6000)
    conn.request(
        "POST",
        "/mcp",
        body=iter([body[:3000], body[3000:]]),
        headers=JSON_HEADERS,
        encode_chunked=True,
    )
    assert conn.getresponse().status == 413
    conn.close()


def test_403_foreign_origin_or_host(server: ServerProcess, bundle_id: str) -> None:
    evil = post(server.port, search_msg("payment"), {"Origin": "https://evil.example"})
    assert evil.status == 403
    assert_common_headers(evil, bundle_id)
    assert evil.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32600,
            "message": "Forbidden: Origin 'https://evil.example' is not allowed",
        },
    }
    # DNS rebinding: a page on evil.example whose name now resolves to 127.0.0.1.
    rebound = post(server.port, search_msg("payment"), {"Host": f"evil.example:{server.port}"})
    assert rebound.status == 403
    assert rpc_error(rebound)["message"] == (
        f"Forbidden: Host 'evil.example:{server.port}' is not allowed"
    )
    # Bound to loopback: local origins and hosts are fine, as is no Origin at all.
    for headers in (
        {"Origin": "http://localhost:5173"},
        {"Origin": "http://127.0.0.1:3000"},
        {"Host": f"localhost:{server.port}"},
        {},
    ):
        assert post(server.port, search_msg("payment"), headers).status == 200, headers


def test_json_logs_on_stderr(server: ServerProcess, bundle_id: str) -> None:
    post(server.port, search_msg("payment", id_="log-probe-1"))
    entry = server.wait_for_log(lambda e: e.get("rpc_id") == "log-probe-1")
    assert TS.match(entry["ts"]), entry
    assert isinstance(entry["duration_ms"], (int, float)) and entry["duration_ms"] >= 0
    assert {
        k: entry[k]
        for k in (
            "level",
            "event",
            "method",
            "path",
            "status",
            "rpc_method",
            "tool",
            "bundle_id",
            "client",
        )
    } == {
        "level": "info",
        "event": "request",
        "method": "POST",
        "path": "/mcp",
        "status": 200,
        "rpc_method": "tools/call",
        "tool": "search_docs",
        "bundle_id": bundle_id,
        "client": "127.0.0.1",
    }
    call(server.port, "GET", "/no-such-page-for-logs")
    missing = server.wait_for_log(lambda e: e.get("path") == "/no-such-page-for-logs")
    assert (missing["status"], missing["level"]) == (404, "info")
    listening = server.wait_for_log(lambda e: e.get("event") == "listening")
    assert listening["url"] == f"http://127.0.0.1:{server.port}/mcp"
    # Every line is JSON (logs() raises otherwise), and uvicorn's access log is off.
    assert all("event" in e for e in server.logs())


# ---------------------------------------------------------------------------------------------
# Auth, CORS, log level: servers with options
# ---------------------------------------------------------------------------------------------


def test_401_bearer_token(example_bundle: Path, bundle_id: str) -> None:
    token = "s3cret-token"
    srv = start(example_bundle, env={"DOCSMCP_AUTH_TOKEN": token})
    try:
        missing = post(srv.port, search_msg("payment"))
        assert missing.status == 401
        assert missing.headers["www-authenticate"] == 'Bearer realm="docsmcp"'
        assert_common_headers(missing, bundle_id)
        wrong = post(srv.port, search_msg("payment"), {"Authorization": "Bearer nope"})
        assert wrong.status == 401
        assert wrong.headers["www-authenticate"] == 'Bearer realm="docsmcp", error="invalid_token"'
        assert rpc_error(wrong)["message"] == "Unauthorized: invalid bearer token"
        assert (
            post(srv.port, search_msg("payment"), {"Authorization": "Basic czNjcmV0"}).status == 401
        )
        right = post(srv.port, search_msg("payment"), {"Authorization": f"Bearer {token}"})
        assert right.status == 200
        assert call(srv.port, "GET", "/healthz").status == 200  # probes need no token

        async def body(client: Client) -> Any:
            return await client.call_tool("search_docs", {"query": "payment", "limit": 1})

        assert not sdk(srv.url, "auto", body, token=token).is_error
        # The default body limit is 1 MiB; a declared length over it is refused before reading.
        with socket.create_connection(("127.0.0.1", srv.port), timeout=30) as s:
            s.sendall(
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Authorization: Bearer " + token.encode() + b"\r\n"
                b"Content-Length: 1048577\r\n\r\n"
            )
            assert s.recv(4096).startswith(b"HTTP/1.1 413 ")
    finally:
        assert srv.stop() == 0


def test_a_token_read_from_a_secret_file_and_a_non_ascii_token_are_accepted(
    example_bundle: Path,
) -> None:
    """Issue 31: a token with the trailing newline of a secret file was accepted at start-up,
    but clients' tokens were stripped and the server's not: every request was 401. And a
    non-ASCII token could never match (the header read as Latin-1, the token as UTF-8). One
    normalisation for both sides: surrounding whitespace stripped, the bytes as sent."""
    token = "s3cret-\u00fc-token"
    srv = start(example_bundle, env={"DOCSMCP_AUTH_TOKEN": f"  {token}\n"})
    try:
        body = json.dumps(search_msg("payment")).encode()
        for sent, status in ((token, b"200"), (token[:-1], b"401"), ("", b"401")):
            with socket.create_connection(("127.0.0.1", srv.port), timeout=30) as s:
                s.sendall(
                    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    b"Accept: application/json, text/event-stream\r\nConnection: close\r\n"
                    b"Authorization: Bearer " + sent.encode() + b"\r\n"
                    b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
                )
                assert s.recv(4096).split(b" ")[1] == status, sent
    finally:
        assert srv.stop() == 0


def test_cors_only_when_configured(example_bundle: Path) -> None:
    app = "https://app.example"
    srv = start(example_bundle, "--cors-origin", app)
    try:
        pre = call(
            srv.port,
            "OPTIONS",
            "/mcp",
            headers={
                "Origin": app,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type, mcp-protocol-version",
            },
        )
        assert pre.status == 204
        assert pre.headers["access-control-allow-origin"] == app
        assert pre.headers["access-control-allow-methods"] == "POST, OPTIONS"
        assert "MCP-Protocol-Version" in pre.headers["access-control-allow-headers"]
        assert pre.headers["vary"] == "Origin"
        resp = post(srv.port, search_msg("payment"), {"Origin": app})
        assert resp.status == 200 and resp.headers["access-control-allow-origin"] == app
        other = post(srv.port, search_msg("payment"), {"Origin": "https://other.example"})
        assert other.status == 403 and "access-control-allow-origin" not in other.headers
    finally:
        assert srv.stop() == 0


def test_log_level_warning_hides_info(example_bundle: Path) -> None:
    port = free_port()
    srv = ServerProcess(runtime(example_bundle, "--port", str(port), "--log-level", "warning"))
    try:
        srv.wait_healthy(port)
        assert post(port, search_msg("payment")).status == 200
        assert post(port, b"{bad").status == 400
    finally:
        assert srv.stop() == 0
    assert srv.logs() == []  # no request, listening or stopped lines below warning


# ---------------------------------------------------------------------------------------------
# Lifecycle: graceful shutdown, --watch, the ASGI factory, the missing extra
# ---------------------------------------------------------------------------------------------


def test_sigterm_lets_the_request_in_flight_finish(example_bundle: Path) -> None:
    srv = start(example_bundle)
    body = json.dumps(search_msg("payment", id_="in-flight")).encode()
    with socket.create_connection(("127.0.0.1", srv.port), timeout=30) as s:
        s.sendall(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body[:20]
        )
        time.sleep(0.3)  # the server has the headers: the request is in flight
        srv.proc.send_signal(signal.SIGTERM)
        time.sleep(0.7)
        with pytest.raises(ConnectionRefusedError):  # no new connections while stopping
            socket.create_connection(("127.0.0.1", srv.port), timeout=5).close()
        s.sendall(body[20:])
        raw = b""
        while chunk := s.recv(65536):
            raw += chunk
    head, _, payload = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 "), raw[:300]
    assert json.loads(payload)["id"] == "in-flight"
    # The first SIGTERM stops it: wait for that exit (stop() would send a second signal to a
    # server still closing, and a loaded CI machine caught it there: exit -15).
    assert srv.proc.wait(timeout=20) == 0
    assert srv.stop() == 0
    assert srv.logs()[-1]["event"] == "stopped" and srv.logs()[-1]["signal"] == "SIGTERM"


def test_watch_switches_to_a_replaced_bundle(
    example_bundle: Path, bundle_id: str, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    with (docs / "python" / "payments.md").open("a") as fh:
        fh.write("\n## Payment webhooks\n\nVerify the webhook signature of every payment event.\n")
    second = build_bundle(docs, tmp_path / "idx-2")
    second_id = json.loads((second / "metadata.json").read_text())["bundle_id"]
    broken = tmp_path / "idx-broken"
    broken.mkdir()
    (broken / "metadata.json").write_text("{}")
    current = tmp_path / "current"
    current.symlink_to(example_bundle)

    def swap(target: Path) -> None:  # atomic, as a deployment would do it
        tmp_link = tmp_path / "next"
        tmp_link.symlink_to(target)
        os.replace(tmp_link, current)

    def health_id() -> str:
        return call(srv.port, "GET", "/healthz").json()["bundle_id"]

    srv = start(current, "--watch", "--watch-interval", "0.1")
    try:
        first = post(srv.port, search_msg("payment", limit=1)).json()["result"]
        cursor = first["structuredContent"]["next_cursor"]
        assert cursor and health_id() == bundle_id
        swap(second)
        deadline = time.monotonic() + 15
        while health_id() != second_id:
            assert time.monotonic() < deadline, "\n".join(srv.stderr)
            time.sleep(0.05)
        resp = post(srv.port, search_msg("payment", limit=1, cursor=cursor))
        assert resp.headers["x-docsmcp-bundle"] == second_id
        result = resp.json()["result"]
        assert result["isError"] is True
        assert result["content"][0]["text"] == (
            "Invalid cursor: the documentation bundle changed since this cursor was issued; "
            "search again without a cursor."
        )
        reloaded = srv.wait_for_log(lambda e: e.get("event") == "bundle_reloaded")
        assert (reloaded["old_bundle_id"], reloaded["bundle_id"]) == (bundle_id, second_id)
        # A broken replacement is refused; the last good bundle keeps serving.
        swap(broken)
        failed = srv.wait_for_log(lambda e: e.get("event") == "bundle_reload_failed")
        assert failed["level"] == "error" and "not a docsmcp bundle" in failed["error"]
        assert health_id() == second_id
        assert post(srv.port, search_msg("webhook signature")).json()["result"][
            "structuredContent"
        ]["hits"]
    finally:
        assert srv.stop() == 0


def test_watch_follows_a_rebuild_renamed_into_place(tmp_path: Path) -> None:
    # `docsmcp build --out PATH` swaps the new bundle in by renaming directories: the other
    # atomic replacement a deployment does.
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    idx = build_bundle(docs, tmp_path / "idx")
    srv = start(idx, "--watch", "--watch-interval", "0.1")
    try:
        assert not post(srv.port, search_msg("webhook signature")).json()["result"][
            "structuredContent"
        ]["hits"]
        with (docs / "python" / "payments.md").open("a") as fh:
            fh.write("\n## Payment webhooks\n\nVerify the webhook signature of every event.\n")
        build_bundle(docs, idx)
        new_id = json.loads((idx / "metadata.json").read_text())["bundle_id"]
        deadline = time.monotonic() + 15
        while call(srv.port, "GET", "/healthz").json()["bundle_id"] != new_id:
            assert time.monotonic() < deadline, "\n".join(srv.stderr)
            time.sleep(0.05)
        hits = post(srv.port, search_msg("webhook signature")).json()["result"][
            "structuredContent"
        ]["hits"]
        assert hits[0]["chunk_id"] == "python/payments.md#payments/payment-webhooks"
    finally:
        assert srv.stop() == 0


def test_asgi_factory_from_environment(example_bundle: Path) -> None:
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "--factory",
        "docsmcp_runtime.http:create_app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-access-log",
    ]
    srv = ServerProcess(command, {"DOCSMCP_BUNDLE": str(example_bundle)})
    try:
        srv.wait_healthy(port)

        async def body(client: Client) -> Any:
            return await client.call_tool("search_docs", {"query": "payment", "limit": 2})

        found = sdk(f"http://127.0.0.1:{port}/mcp", "auto", body)
        assert len(found.structured_content["hits"]) == 2
        # No bind address is known to the factory, so no origin is trusted implicitly.
        local = post(port, search_msg("payment"), {"Origin": "http://localhost:3000"})
        assert local.status == 403
    finally:
        srv.stop()

    bad = subprocess.run(
        command,
        env={**os.environ, "DOCSMCP_BUNDLE": "/nonexistent/idx"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode != 0
    assert "docsmcp-runtime: error: bundle not found: /nonexistent/idx" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_missing_uvicorn_gives_one_line_hint(example_bundle: Path) -> None:
    code = (
        "import sys\n"
        "class NoUvicorn:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'uvicorn':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, NoUvicorn())\n"
        "from docsmcp_runtime.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "--bundle", str(example_bundle), "--transport", "http"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr == (
        "docsmcp-runtime: error: --transport http needs uvicorn; install it with: "
        "pip install 'docsmcp-runtime[http]'\n"
    )


def test_cli_errors_are_one_line(example_bundle: Path) -> None:
    stdio = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(example_bundle), "--port", "1"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert stdio.returncode == 2
    assert stdio.stderr.splitlines()[-1] == (
        "docsmcp-runtime: error: --port only applies to --transport http"
    )
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = subprocess.run(
            runtime(example_bundle, "--port", str(port)), capture_output=True, text=True, timeout=60
        )
    assert busy.returncode == 2
    assert busy.stderr == (
        f"docsmcp-runtime: error: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    )
    missing = subprocess.run(
        runtime("/nonexistent/idx"), capture_output=True, text=True, timeout=60
    )
    assert (missing.returncode, missing.stderr) == (
        2,
        "docsmcp-runtime: error: bundle not found: /nonexistent/idx\n",
    )
