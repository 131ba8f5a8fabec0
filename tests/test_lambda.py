"""The AWS Lambda entry point (runtime/docsmcp_runtime/lambda_handler.py), in-process, with
events in the shapes AWS documents (tests/fixtures/lambda-events: Function URL, API Gateway HTTP
API payload 2.0, REST API payload 1.0): initialize, tools/list, a search, bad requests and the
bearer token; the official MCP SDK client talking to the handler through a stand-in for the
Function URL front end (HTTP request -> event -> handler -> HTTP response); and the handler
initialised in a fresh interpreter as Lambda does, with the bundle in the package or pulled
from an https URL into the temporary directory."""

from __future__ import annotations

import asyncio
import base64
import copy
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from asset_server import AssetServer
from conftest import run_docsmcp
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytest.importorskip("mangum", reason="the lambda extra (mangum) is part of the test extra")

from docsmcp_runtime.lambda_handler import make_handler  # noqa: E402

EVENTS = Path(__file__).resolve().parent / "fixtures" / "lambda-events"
KINDS = ("function-url", "apigw-v2", "apigw-v1")
TOKEN = "lambda-test-token"
VERSION = "2025-06-18"


class Context:
    """The attributes of a Lambda context object that handlers commonly read."""

    function_name = "docs-mcp"
    aws_request_id = "c6af9ac6-7b61-11e6-9a41-93e8deadbeef"
    memory_limit_in_mb = 512

    def get_remaining_time_in_millis(self) -> int:
        return 30_000


def event(
    kind: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
    method: str = "POST",
    path: str = "/mcp",
    b64: bool = False,
) -> dict:
    template = json.loads((EVENTS / f"{kind}.json").read_text())
    out = copy.deepcopy(template)
    sent = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    sent.update(headers or {})
    text = "" if body is None else body if isinstance(body, str) else json.dumps(body)
    out["body"] = base64.b64encode(text.encode()).decode() if b64 else text
    out["isBase64Encoded"] = b64
    if kind == "apigw-v1":  # REST APIs keep the client's header case
        for name, value in sent.items():
            title = "-".join(part.capitalize() for part in name.split("-"))
            out["headers"][title] = value
            out["multiValueHeaders"][title] = [value]
        out["httpMethod"] = out["requestContext"]["httpMethod"] = method
        out["path"] = path
        out["requestContext"]["path"] = "/prod" + path
    else:
        out["headers"].update(sent)
        out["rawPath"] = out["requestContext"]["http"]["path"] = path
        out["requestContext"]["http"]["method"] = method
        if kind == "apigw-v2":
            out["routeKey"] = out["requestContext"]["routeKey"] = f"{method} {path}"
    return out


def reply(response: dict) -> tuple[int, dict[str, str], Any]:
    body = response.get("body") or ""
    if response.get("isBase64Encoded"):
        body = base64.b64decode(body).decode()
    headers = {k.lower(): v for k, v in (response.get("headers") or {}).items()}
    for name, values in (response.get("multiValueHeaders") or {}).items():
        headers[name.lower()] = ", ".join(values)
    is_json = headers.get("content-type", "").startswith("application/json")
    return response["statusCode"], headers, json.loads(body) if body and is_json else body


def rpc(method: str, params: dict | None = None, id_: int = 1) -> dict:
    message: dict = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        message["params"] = params
    return message


INITIALIZE = rpc(
    "initialize",
    {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
)


@pytest.fixture(scope="module")
def handler(example_bundle: Path):
    saved = dict(os.environ)
    os.environ.update({"DOCSMCP_BUNDLE": str(example_bundle), "DOCSMCP_AUTH_TOKEN": TOKEN})
    try:
        yield make_handler()
    finally:
        os.environ.clear()
        os.environ.update(saved)


AUTH = {"authorization": f"Bearer {TOKEN}", "mcp-protocol-version": VERSION}


@pytest.mark.parametrize("kind", KINDS)
def test_initialize_list_and_search(handler, kind):
    status, headers, body = reply(handler(event(kind, INITIALIZE, AUTH), Context()))
    assert status == 200, body
    assert body["result"]["protocolVersion"] == VERSION
    assert "mcp-session-id" not in headers  # stateless: any instance answers any request
    status, _, body = reply(handler(event(kind, rpc("tools/list", id_=2), AUTH), Context()))
    assert status == 200 and "search_docs" in {t["name"] for t in body["result"]["tools"]}
    call = rpc("tools/call", {"name": "search_docs", "arguments": {"query": "retry backoff"}}, 3)
    status, headers, body = reply(handler(event(kind, call, AUTH), Context()))
    assert status == 200 and headers["content-type"].startswith("application/json")
    hits = body["result"]["structuredContent"]["hits"]
    assert hits and hits[0]["chunk_id"].startswith("guides/errors.mdx#")


@pytest.mark.parametrize("kind", KINDS)
def test_auth_is_required(handler, kind):
    for headers in ({}, {"authorization": "Bearer wrong"}, {"authorization": TOKEN}):
        status, _, body = reply(handler(event(kind, INITIALIZE, headers), Context()))
        assert status == 401, (headers, body)
        assert body["error"]["message"]


@pytest.mark.parametrize("kind", KINDS)
def test_bad_requests(handler, kind):
    status, _, body = reply(handler(event(kind, "{not json", AUTH), Context()))
    assert status == 400 and body["error"]["code"] == -32700
    status, headers, _ = reply(handler(event(kind, None, AUTH, method="GET"), Context()))
    assert status == 405 and headers["allow"] == "POST"
    unknown = rpc("no/such/method", {}, 9)
    status, _, body = reply(handler(event(kind, unknown, AUTH), Context()))
    assert body["error"]["code"] == -32601 and status == 200  # legacy era: errors answer 200
    status, _, body = reply(handler(event(kind, None, AUTH, path="/elsewhere"), Context()))
    assert status == 404


def test_base64_body(handler):
    """API Gateway and Function URLs base64-encode bodies they do not treat as text."""
    status, _, body = reply(handler(event("apigw-v2", INITIALIZE, AUTH, b64=True), Context()))
    assert status == 200 and body["result"]["serverInfo"]["name"]


class FunctionUrl(httpx2.AsyncBaseTransport):
    """What the Function URL front end does: each HTTP request becomes a payload 2.0 event for
    the handler, and the handler's result becomes the HTTP response. The handler runs on a
    thread with an event loop of its own, as on Lambda (nothing else runs on it)."""

    def __init__(self, handler) -> None:  # noqa: ANN001
        self.handler = handler

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        headers = {k.lower(): v for k, v in request.headers.items()}
        shaped = event("function-url", body.decode(), headers, request.method, request.url.path)

        def invoke() -> dict:
            asyncio.set_event_loop(asyncio.new_event_loop())
            return self.handler(shaped, Context())

        result = await anyio.to_thread.run_sync(invoke)
        content = result.get("body") or ""
        data = base64.b64decode(content) if result.get("isBase64Encoded") else content.encode()
        return httpx2.Response(result["statusCode"], headers=result.get("headers"), content=data)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_official_sdk_client_through_a_function_url(handler, mode):
    async def main() -> tuple[list[str], dict]:
        client_http = httpx2.AsyncClient(
            transport=FunctionUrl(handler), headers={"Authorization": f"Bearer {TOKEN}"}
        )
        async with client_http:
            transport = streamable_http_client(
                "https://abc.lambda-url.us-east-1.on.aws/mcp", http_client=client_http
            )
            async with Client(transport, mode=mode, read_timeout_seconds=30) as client:
                tools = [t.name for t in (await client.list_tools()).tools]
                found = await client.call_tool("search_docs", {"query": "pagination cursor"})
                return tools, found.structured_content

    tools, found = anyio.run(main)
    assert "search_docs" in tools and found["hits"]


# -- a fresh interpreter, as Lambda starts it -------------------------------------------------

INVOKE = """
import json, sys, time
started = time.perf_counter()
from docsmcp_runtime.lambda_handler import handler
event = json.load(sys.stdin)
out = handler(event, None)
print(json.dumps(out))
"""


def lambda_process(env: dict[str, str], payload: dict, cwd: Path) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("DOCSMCP_")}
    environ.update({"AWS_LAMBDA_FUNCTION_NAME": "docs-mcp", **env})
    return subprocess.run(
        [sys.executable, "-c", INVOKE],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
        cwd=cwd,
    )


def test_fresh_interpreter_with_the_bundle_in_the_package(example_bundle, tmp_path):
    task_root = tmp_path / "task"
    task_root.mkdir()
    run_docsmcp("pack", example_bundle, "-o", task_root / "idx.tar.gz")
    env = {
        "LAMBDA_TASK_ROOT": str(task_root),
        "DOCSMCP_BUNDLE": "idx.tar.gz",  # relative to the package root
        "TMPDIR": str(tmp_path / "tmp"),
    }
    (tmp_path / "tmp").mkdir()
    call = rpc("tools/call", {"name": "search_docs", "arguments": {"query": "retry"}})
    done = lambda_process(env, event("function-url", call), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    status, _, body = reply(json.loads(done.stdout))
    assert status == 200 and body["result"]["structuredContent"]["hits"]
    # The archive was unpacked into the temporary directory, the only writable place.
    assert list((tmp_path / "tmp" / "docsmcp" / "bundles").iterdir())


def test_fresh_interpreter_pulls_an_https_bundle_at_init(example_bundle, tmp_path):
    assets = tmp_path / "assets"
    assets.mkdir()
    run_docsmcp("pack", example_bundle, "-o", assets / "idx.tar.gz")
    digest = hashlib.sha256((assets / "idx.tar.gz").read_bytes()).hexdigest()
    server = AssetServer(assets)
    try:
        env = {
            "DOCSMCP_BUNDLE": server.url("idx.tar.gz"),
            "DOCSMCP_BUNDLE_SHA256": digest,
            "DOCSMCP_CACHE_DIR": str(tmp_path / "cache"),
        }
        done = lambda_process(env, event("apigw-v1", INITIALIZE), cwd=tmp_path)
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    assert reply(json.loads(done.stdout))[0] == 200
    assert (tmp_path / "cache" / "bundles" / digest / "metadata.json").is_file()


def test_bad_bundle_fails_init_with_one_line(tmp_path):
    env = {"DOCSMCP_BUNDLE": str(tmp_path / "missing"), "LAMBDA_TASK_ROOT": str(tmp_path)}
    done = lambda_process(env, event("function-url", INITIALIZE), cwd=tmp_path)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("RuntimeError: docsmcp-runtime: error:") and "missing" in last
