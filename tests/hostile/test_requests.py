"""Crafted requests: every one gets a JSON-RPC answer or a tool error it can act on, in bounded
time; never an internal error, a traceback or a stall.

Bounded fuzzing (Hypothesis, fixed seed, `FUZZ_EXAMPLES` examples, more with
DOCSMCP_FUZZ_EXAMPLES=N locally) of the protocol layer and of both tools' arguments, in process
over a real bundle; plus the query caps and time budget end to end through the runtime CLI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import FUZZ
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.errors import INTERNAL_ERROR
from docsmcp_runtime.protocol.dispatcher import Dispatcher, Session, encode
from docsmcp_runtime.search.engine import MAX_QUERY_TERMS
from docsmcp_runtime.tools.app import DocsApp
from docsmcp_runtime.tools.arguments import MAX_QUERY_CHARS
from hypothesis import given
from hypothesis import strategies as st


@pytest.fixture(scope="module")
def app(example_bundle: Path) -> DocsApp:
    return DocsApp(open_bundle(example_bundle))


# -- queries: caps, budget, odd characters --------------------------------------------------------


def _search(app: DocsApp, **arguments: Any) -> dict:
    result = app.call_tool("search_docs", arguments)
    assert result["isError"] is False, result["content"][0]["text"]
    return result["structuredContent"]


def test_a_huge_query_of_distinct_words_is_cut_with_notes(app: DocsApp) -> None:
    """The issue's attack: a 100 KB query of distinct words took 26 s (quadratic)."""
    words = " ".join(f"w{i}x" for i in range(20_000)) + " payments"
    assert len(words) > 100_000
    first = _search(app, query=words)
    assert first["notes"] == [
        f"The query was cut to its first {MAX_QUERY_CHARS} of {len(words)} characters.",
        f"Only the first {MAX_QUERY_TERMS} distinct words of the query were searched.",
    ]
    assert _search(app, query=words) == first  # deterministic


def test_many_words_within_the_character_cap_are_cut_to_the_term_cap(app: DocsApp) -> None:
    query = " ".join(f"t{i}" for i in range(400))
    assert len(query) < MAX_QUERY_CHARS
    assert _search(app, query=query)["notes"] == [
        f"Only the first {MAX_QUERY_TERMS} distinct words of the query were searched."
    ]


@pytest.mark.parametrize(
    "query",
    ["\ud800payments", "payments\udfff", "pay\x00ments", "\u202e\u200bpayments", "\U0001f4b3 card"],
    ids=["lone-high", "lone-low", "nul", "bidi", "emoji"],
)
def test_odd_characters_in_a_query_search_normally(app: DocsApp, query: str) -> None:
    result = _search(app, query=query)
    if result["next_cursor"]:  # the cursor of such a query works too
        assert _search(app, query=query, cursor=result["next_cursor"])["hits"]
    json.loads(encode({"jsonrpc": "2.0", "id": 1, "result": result}))


def test_the_time_budget_is_a_tool_error_never_a_partial_result(example_bundle: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(example_bundle),
         "--search-timeout", "0.000001", "search", "create a payment"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (
        "docsmcp-runtime: error: The search took longer than its 1e-06 s budget and was "
        "stopped; try a shorter or more specific query.\n"
    )


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_a_bad_time_budget_is_one_line(example_bundle: Path, value: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(example_bundle),
         "--search-timeout", value, "search", "x"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("docsmcp-runtime: error: --search-timeout")


# -- tool arguments ------------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),  # fmt: skip
    max_leaves=6,
)
SEARCH_KEYS = st.sampled_from(["query", "limit", "cursor", "language", "scope", "extra", ""])
GET_KEYS = st.sampled_from(["chunk_id", "context", "query", "x"])
PLAUSIBLE = st.sampled_from(
    ["payments", "python", "typescript", "global-guide", "python/payments.md#payments/refund",
     "python/payments.md", "#", "", " ", "\ud800", "a" * 3000, "🙂"]
)  # fmt: skip


@pytest.mark.slow  # fuzz, ~1.5 s
@FUZZ
@given(st.dictionaries(SEARCH_KEYS, PLAUSIBLE | JSON, max_size=5))
def test_fuzzed_search_arguments(app: DocsApp, arguments: dict) -> None:
    _tool_result(app.call_tool("search_docs", arguments))


@FUZZ
@given(st.dictionaries(GET_KEYS, PLAUSIBLE | JSON, max_size=3))
def test_fuzzed_get_doc_arguments(app: DocsApp, arguments: dict) -> None:
    _tool_result(app.call_tool("get_doc", arguments))


BROWSE_KEYS = {
    "list_sections": ["category", "path", "depth", "limit", "cursor", "language", "scope", "x"],
    "get_page": ["path", "cursor", "query"],
    "get_api_reference": ["method", "limit", "cursor", "language", "x"],
    "get_code_examples": ["query", "topic", "language", "limit", "scope", "x"],
    "get_doc": ["chunk_id", "section", "document", "context"],
    "search_docs": ["query", "expand_references", "limit", "language"],
}
BROWSE_PLAUSIBLE = PLAUSIBLE | st.sampled_from(
    ["python/", "guides", "create", "payments.create", "ts", "1.2", "r[x.y]", "§3", "../..",
     "typescript/README", 0, -1, 10**12, 2.5, True]
)  # fmt: skip


@FUZZ
@given(
    st.sampled_from(sorted(BROWSE_KEYS)).flatmap(
        lambda tool: st.tuples(
            st.just(tool),
            st.dictionaries(
                st.sampled_from(BROWSE_KEYS[tool]), BROWSE_PLAUSIBLE | JSON, max_size=4
            ),
        )
    )
)
def test_fuzzed_browse_arguments(app: DocsApp, call: tuple[str, dict]) -> None:
    tool, arguments = call
    _tool_result(app.call_tool(tool, arguments))


def _tool_result(result: dict) -> None:
    """A tool result the model can use: content, isError, and valid JSON on the wire."""
    assert isinstance(result["isError"], bool) and result["content"]
    if result["isError"]:
        text = result["content"][0]["text"]
        assert "Traceback" not in text and len(text) < 4000
    json.loads(encode({"jsonrpc": "2.0", "id": 1, "result": result}))


# -- the protocol layer --------------------------------------------------------------------------

METHODS = st.sampled_from(
    ["initialize", "ping", "tools/list", "tools/call", "server/discover", "resources/list",
     "notifications/initialized", "", "x" * 200]
)  # fmt: skip
META = st.fixed_dictionaries(
    {},
    optional={
        "io.modelcontextprotocol/protocolVersion": st.sampled_from(
            ["2026-07-28", "2025-11-25", "2025-06-18", "1999-01-01", ""]
        )
        | JSON,
        "io.modelcontextprotocol/clientCapabilities": JSON,
    },
)
PARAMS = st.fixed_dictionaries(
    {},
    optional={
        "name": st.sampled_from(["search_docs", "get_doc", "nope"]) | JSON,
        "arguments": st.dictionaries(SEARCH_KEYS, PLAUSIBLE | JSON, max_size=3) | JSON,
        "protocolVersion": st.sampled_from(["2025-11-25", "2026-07-28"]) | JSON,
        "_meta": META | JSON,
    },
)
MESSAGES = (
    st.fixed_dictionaries(
        {},
        optional={
            "jsonrpc": st.sampled_from(["2.0", "1.0"]) | JSON,
            "id": st.integers(-(2**63), 2**63) | st.text(max_size=10) | JSON,
            "method": METHODS | JSON,
            "params": PARAMS | JSON,
        },
    )
    | JSON
)


@FUZZ
@given(MESSAGES)
def test_fuzzed_messages_get_a_valid_answer(app: DocsApp, message: Any) -> None:
    response = Dispatcher(app).handle_message(message, Session())
    if response is None:
        return  # a notification or a response: nothing is due
    assert response["jsonrpc"] == "2.0"
    assert ("result" in response) != ("error" in response)
    if "error" in response:
        assert response["error"]["code"] != INTERNAL_ERROR, response
    json.loads(encode(response))


@FUZZ
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_fuzzed_bytes_get_a_valid_answer(app: DocsApp, raw: bytes) -> None:
    response = Dispatcher(app).handle(raw, Session())
    if response is not None:
        assert response.get("error", {}).get("code") != INTERNAL_ERROR, response
        json.loads(encode(response))


# -- cursors and tokens ----------------------------------------------------------------------------


@pytest.mark.parametrize("offset", [10**9, -1, True, 1.5, "3", None])
def test_forged_cursor_offsets_are_refused(app: DocsApp, offset: object) -> None:
    """Without DOCSMCP_CURSOR_SECRET anyone can sign a cursor (the key derives from the public
    bundle id), so the offset inside is checked whoever signed it."""
    import base64

    from docsmcp_runtime.protocol.cursor import _sign, binding, cursor_secret

    bundle_id = app.bundle.bundle_id
    body = {"v": 1, "o": offset, "b": bundle_id, "q": binding("payments", {})}
    payload = base64.urlsafe_b64encode(json.dumps(body).encode()).rstrip(b"=").decode()
    cursor = f"{payload}.{_sign(cursor_secret(bundle_id), payload)}"
    result = app.call_tool("search_docs", {"query": "payments", "cursor": cursor})
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith("Invalid cursor: malformed cursor.")


@pytest.mark.parametrize("token", ["", "   "])
def test_an_empty_auth_token_is_refused_by_the_asgi_factory(
    example_bundle: Path, token: str
) -> None:
    """An empty token would silently mean "no auth": the factory refuses it as the CLI does."""
    proc = subprocess.run(
        [sys.executable, "-c", "from docsmcp_runtime.http import create_app; create_app()"],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "DOCSMCP_BUNDLE": str(example_bundle), "DOCSMCP_AUTH_TOKEN": token},
    )  # fmt: skip
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == "docsmcp-runtime: error: DOCSMCP_AUTH_TOKEN is set but empty"
