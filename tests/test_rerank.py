"""Optional reranking by an OpenAI-compatible chat endpoint (runtime --rerank-url), against the
local stub (tests/openai_stub.py, a real HTTP server) and the runtime over real stdio pipes."""

from __future__ import annotations

import json
import subprocess

import pytest
from docsmcp_runtime.search.rerank import RerankError, parse_ranking
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_client import McpSession, server_command
from openai_stub import Fault, OpenAIStub


@pytest.fixture()
def stub():
    with OpenAIStub() as server:
        yield server


def _session(bundle, stub: OpenAIStub, *extra: str) -> McpSession:
    argv = [*server_command(bundle), "--rerank-url", stub.base_url, *extra]
    return McpSession(bundle, argv=argv, env={"OPENAI_API_KEY": "k-rerank"})


QUERY = "retry with backoff"


def _ids(result: dict) -> list[str]:
    return [h["chunk_id"] for h in result["hits"]]


@pytest.mark.slow  # 2 server processes
def test_the_models_order_is_applied_and_pages_agree(example_bundle, stub) -> None:
    with McpSession(example_bundle) as plain:
        fused = _ids(plain.search(query=QUERY, limit=30))
    assert len(fused) >= 3, "the example corpus must give several candidates"
    with _session(example_bundle, stub, "--rerank-depth", "30") as session:
        first = session.search(query=QUERY, limit=2)
        rest = session.search(query=QUERY, limit=30, cursor=first["next_cursor"])
    # The stub ranks the candidates it is shown last-first.
    assert _ids(first) + _ids(rest) == fused[::-1]
    assert "notes" not in first or not any("Rerank" in n for n in first["notes"])
    (messages,) = stub.chats  # the second page came from the cache
    assert messages[0]["role"] == "system"
    assert f"Query: {QUERY}" in messages[-1]["content"]


@pytest.mark.slow  # 2 servers, waits on purpose
def test_a_timeout_keeps_the_fused_order_with_a_note(example_bundle, stub) -> None:
    with McpSession(example_bundle) as plain:
        fused = _ids(plain.search(query=QUERY, limit=5))
    stub.always = Fault(delay=3.0)
    with _session(example_bundle, stub, "--rerank-timeout", "0.3") as session:
        result = session.search(query=QUERY, limit=5)
    assert _ids(result) == fused
    assert any("Reranking was skipped" in n for n in result["notes"])


@pytest.mark.slow  # 2 server processes each
@pytest.mark.parametrize(
    "fault_or_reply",
    [Fault(malformed=True), Fault(status=500), "I cannot rank these.", '{"ranking": [99, 0]}'],
)
def test_a_bad_reply_keeps_the_fused_order_with_a_note(example_bundle, stub, fault_or_reply):
    with McpSession(example_bundle) as plain:
        fused = _ids(plain.search(query=QUERY, limit=5))
    if isinstance(fault_or_reply, Fault):
        stub.always = fault_or_reply
    else:
        stub.chat = lambda messages: fault_or_reply
    with _session(example_bundle, stub) as session:
        result = session.search(query=QUERY, limit=5)
    assert _ids(result) == fused
    assert any("Reranking was skipped" in n for n in result["notes"])


@pytest.mark.slow  # 2 servers
def test_a_partial_ranking_puts_the_named_first_then_the_rest_in_order(example_bundle, stub):
    with McpSession(example_bundle) as plain:
        fused = _ids(plain.search(query=QUERY, limit=5))
    stub.chat = lambda messages: 'Here you go:\n```json\n{"ranking": [3]}\n```'
    with _session(example_bundle, stub, "--rerank-depth", "5") as session:
        result = session.search(query=QUERY, limit=5)
    assert _ids(result) == [fused[2], *(fused[:2] + fused[3:])]


def test_rerank_flags_are_checked_in_one_line(example_bundle) -> None:
    out = subprocess.run(
        [
            *server_command(example_bundle),
            "--rerank-url",
            "http://127.0.0.1:9/v1",
            "--rerank-depth",
            "80",
            "search",
            "x",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode != 0
    assert "--rerank-depth" in out.stderr and "Traceback" not in out.stderr


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.integers(min_value=1, max_value=50))
def test_parse_ranking_never_crashes_and_stays_in_range(content: str, count: int) -> None:
    try:
        order = parse_ranking(content, count)
    except RerankError:
        return
    assert order and len(order) == len(set(order))
    assert all(0 <= i < count for i in order)


def test_parse_ranking_reads_json_and_bare_lists() -> None:
    assert parse_ranking(json.dumps({"ranking": [2, 1, 2, 7]}), 3) == [1, 0]
    assert parse_ranking("best: [3, 1]", 3) == [2, 0]
    with pytest.raises(RerankError):
        parse_ranking("{}", 3)
