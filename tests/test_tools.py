"""The docs-mcp tool contract (`search_docs`, `get_doc`) as a user sees it.

Every MCP test drives the real runtime process over stdio with the official `mcp` SDK client,
against bundles built from the repo's example corpus and the shared real corpora. One client
session per bundle per module keeps the suite fast; the CLI tests run the real console entry
point in child processes.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLE_DOCS, build_bundle
from mcp_client import McpSession

HIT_FIELDS = {
    "chunk_id",
    "score",
    "heading",
    "breadcrumb",
    "snippet",
    "filepath",
    "metadata",
    "source",
}
# Hit metadata: the manifest's keys and the built-in page role (bundle-spec.md, *Page roles*).
PY_SDK = {"language": "python", "role": "reference", "scope": "sdk-specific"}
TS_SDK = {"language": "typescript", "role": "reference", "scope": "sdk-specific"}
GUIDE = {"role": "guide", "scope": "global-guide"}
NONSENSE = "xyzzyplugh qwfpgjluy"
CURSOR_SECRET = "DOCSMCP_CURSOR_SECRET"

# Files added to a copy of the example corpus: ids must survive spaces, '#' and CJK headings.
ODD_PATH = "docs/my guide/C# tips.md"
ODD_DOC = """# C# tips

Intro about csharp helpers.

## Setup

Install the zorblax package before anything else.

## Usage

Call zorblax.run() to start.
"""
CJK_PATH = "docs/session.md"
CJK_DOC = """# 会话

## 会话密钥

会话密钥用于签名请求。

## 会话管理

会话管理包括创建和撤销。
"""


# --------------------------------------------------------------------------- fixtures


def _metadata(bundle: Path) -> dict[str, Any]:
    return json.loads((bundle / "metadata.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def example(example_bundle: Path) -> Iterator[McpSession]:
    # Legacy mode: the initialize handshake is where a client receives the instructions.
    with McpSession(example_bundle, mode="legacy", env={CURSOR_SECRET: None}) as session:
        yield session


@pytest.fixture(scope="module")
def special_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example corpus plus a file with ' ' and '#' in its path and a CJK-headed file."""
    docs = tmp_path_factory.mktemp("special") / "docs-copy"
    shutil.copytree(EXAMPLE_DOCS, docs)
    for rel, text in ((ODD_PATH, ODD_DOC), (CJK_PATH, CJK_DOC)):
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text, encoding="utf-8")
    return build_bundle(docs, docs.parent / "idx")


@pytest.fixture(scope="module")
def special(special_bundle: Path) -> Iterator[McpSession]:
    with McpSession(special_bundle, mode="auto", env={CURSOR_SECRET: None}) as session:
        yield session


@pytest.fixture(scope="module")
def speakeasy(speakeasy_bundle: Path) -> Iterator[McpSession]:
    with McpSession(speakeasy_bundle, mode="auto") as session:
        yield session


@pytest.fixture(scope="module")
def yellow(yellow_bundle: Path) -> Iterator[McpSession]:
    with McpSession(yellow_bundle, mode="auto") as session:
        yield session


def _ids(result: dict[str, Any]) -> list[str]:
    return [hit["chunk_id"] for hit in result["hits"]]


def _section(rel: str, heading_line: str, until: str = "\n## ") -> str:
    """The source markdown of an example file from `heading_line` to `until` (the next h2)."""
    text = (EXAMPLE_DOCS / rel).read_text(encoding="utf-8")
    start = text.index(heading_line)
    end = text.find(until, start + len(heading_line))
    return text[start : end if end >= 0 else len(text)].strip()


# --------------------------------------------------------------------------- tools/list


def test_tools_list_exact_names(example: McpSession) -> None:
    assert [t.name for t in example.list_tools()] == [
        "search_docs",
        "get_doc",
        "list_sections",
        "get_page",
        "get_api_reference",
        "get_code_examples",
    ]


def test_search_docs_input_schema(example: McpSession, example_bundle: Path) -> None:
    taxonomy = _metadata(example_bundle)["taxonomy"]
    tool = next(t for t in example.list_tools() if t.name == "search_docs")
    schema = tool.input_schema
    assert schema["type"] == "object"
    assert schema["required"] == ["query"]
    assert schema["additionalProperties"] is False
    props = schema["properties"]
    assert set(props) == {
        "query",
        "limit",
        "cursor",
        "expand_references",
        "max_tokens",
        "exclude",
        "language",
        "role",
        "scope",
    }
    assert props["expand_references"]["type"] == "boolean"
    assert props["query"]["type"] == "string"
    assert props["cursor"]["type"] == "string"
    limit = props["limit"]
    assert (limit["type"], limit["minimum"], limit["maximum"], limit["default"]) == (
        "integer",
        1,
        50,
        10,
    )
    # One enum per taxonomy key, with the bundle's values in sorted order.
    assert props["language"]["enum"] == ["python", "typescript"]
    assert props["scope"]["enum"] == ["global-guide", "sdk-specific"]
    for key in ("language", "scope"):
        assert props[key]["type"] == "string"
        assert props[key]["enum"] == sorted(taxonomy[key]["values"])
        assert props[key]["description"] == taxonomy[key]["description"]


def test_get_doc_input_schema(example: McpSession) -> None:
    tool = next(t for t in example.list_tools() if t.name == "get_doc")
    schema = tool.input_schema
    # chunk_id, or section (+ document): neither is required on its own.
    assert schema["required"] == []
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == {
        "chunk_id",
        "section",
        "document",
        "context",
        "query",
        "max_tokens",
        "cursor",
    }
    context = schema["properties"]["context"]
    assert (context["type"], context["minimum"], context["maximum"], context["default"]) == (
        "integer",
        0,
        5,
        0,
    )


def test_output_schema_and_annotations(example: McpSession) -> None:
    tools = {t.name: t for t in example.list_tools()}
    output = tools["search_docs"].output_schema
    assert output is not None
    assert output["required"] == ["hits", "next_cursor", "hint"]
    assert set(output["properties"]["hits"]["items"]["required"]) == HIT_FIELDS
    for tool in tools.values():
        hints = tool.annotations
        assert hints is not None
        assert hints.read_only_hint is True
        assert hints.idempotent_hint is True
        assert hints.destructive_hint is False
        assert hints.open_world_hint is False


def test_descriptions_come_from_bundle(example: McpSession, example_bundle: Path) -> None:
    meta = _metadata(example_bundle)
    tools = {t.name: t for t in example.list_tools()}
    assert meta["description"].startswith("acme-sdk documentation")
    assert meta["description"] in tools["search_docs"].description
    assert tools["search_docs"].description == meta["tools"]["search_docs"]["description"]
    assert tools["get_doc"].description == meta["tools"]["get_doc"]["description"]


def test_instructions_equal_manifest(example: McpSession) -> None:
    manifest = json.loads((EXAMPLE_DOCS / ".docs-mcp.json").read_text(encoding="utf-8"))
    assert example.instructions == manifest["mcpServerInstructions"]


# --------------------------------------------------------------------------- search_docs


def test_search_result_contract(example: McpSession) -> None:
    # McpSession.search also checks the single text block's JSON equals structuredContent.
    result = example.search(query="listPayments", language="python")
    assert set(result) == {"hits", "next_cursor", "hint"}
    assert result["hint"] is None and result["next_cursor"] is None
    for hit in result["hits"]:
        assert set(hit) == HIT_FIELDS
        assert isinstance(hit["score"], float) and hit["score"] > 0
    scores = [hit["score"] for hit in result["hits"]]
    assert scores == sorted(scores, reverse=True)
    top = dict(result["hits"][0])
    # Inside a git checkout (like this repository) the source also names the commit.
    top["source"] = {k: v for k, v in top["source"].items() if k not in ("commit", "commit_date")}
    assert top == {
        "chunk_id": "python/payments.md#payments/listpayments",
        "score": result["hits"][0]["score"],
        "heading": "list_payments",
        "breadcrumb": "python/payments.md > Payments > list_payments",
        "snippet": (
            "## list_payments List payments, newest first. Supports `limit` (1-100) and "
            "`starting_after` cursors."
        ),
        "filepath": "python/payments.md",
        "metadata": PY_SDK,
        "source": {"file": "python/payments.md", "lines": [20, 22]},
    }


def test_snippet_keeps_case_and_shows_query_term(example: McpSession) -> None:
    result = example.search(query="permissiondeniederror", limit=3)
    assert result["hits"]
    for hit in result["hits"]:
        # The query was lower-case; the snippet quotes the docs as written.
        assert "PermissionDeniedError" in hit["snippet"]
    # A long section's snippet is a window around the match, not its first 240 characters.
    top = example.search(query="idempotency_key", language="python", limit=1)["hits"][0]
    assert top["chunk_id"] == "python/payments.md#payments/create"
    assert "`idempotency_key`" in top["snippet"]
    assert top["snippet"].startswith("…")


def test_ranking_speakeasy_facet_case(speakeasy: McpSession) -> None:
    # dev-035: the python bulk update of links, not the commissions one.
    result = speakeasy.search(query="update many links at once", language="python", product="dub")
    assert _ids(result)[0] == "dub-python/docs/sdks/links/README.md#links/updatemany"
    # The SDK operation pages, not generated model pages (the page-role prior).
    assert all(
        h["metadata"] == {"language": "python", "product": "dub", "role": "reference"}
        for h in result["hits"]
    )


@pytest.mark.parametrize(
    ("query", "top"),
    [
        (
            "links update_many",
            "dub-python/docs/sdks/links/README.md#links/updatemany",
        ),
        (
            "d_client.links.create_many python",
            "dub-python/docs/sdks/links/README.md#links/createmany",
        ),
        (
            "mistral.classifiers.moderateChat",
            "mistral-ts/docs/sdks/classifiers/README.md#classifiers/moderatechat",
        ),
    ],
)
def test_ranking_speakeasy_identifiers(speakeasy: McpSession, query: str, top: str) -> None:
    filters = {"language": "python", "product": "dub"} if "update_many" in query else {}
    first = _ids(speakeasy.search(query=query, limit=3, **filters))[0]
    # The section, or a part of it (a section of tables splits at its subheadings).
    assert first == top or first.startswith(top + "/")


def test_ranking_yellow_identifier(yellow: McpSession) -> None:
    hits = yellow.search(query="withHandshakeTimeout", limit=3)["hits"]
    assert "docs/build/sdk/typescript/configuration.mdx" in [h["filepath"] for h in hits]
    # dev-007 exactly as labelled: the Client Options section comes first.
    labelled = yellow.search(query="withHandshakeTimeout default @yellow-org/sdk", limit=3)
    assert labelled["hits"][0]["chunk_id"] == (
        "docs/build/sdk/typescript/configuration.mdx#configuration/client-options"
    )
    assert labelled["hits"][0]["heading"] == "Client Options"


# The labelled dev cases (../shared/eval) are scored as a whole, with MRR/nDCG/hit@5
# thresholds, in test_ranking_quality.py.


# --------------------------------------------------------------------------- filters


def test_filters_apply_before_ranking(example: McpSession) -> None:
    everything = example.search(query="payments create", limit=50)["hits"]
    assert {h["metadata"].get("language") for h in everything} >= {"python", "typescript"}
    # Unfiltered, a typescript section wins; a filter must not just drop it from a top-k.
    assert everything[0]["metadata"] == TS_SDK
    python = example.search(query="payments create", language="python", limit=50)["hits"]
    # The filtered ranking is the unfiltered one restricted to matching chunks (python pages
    # plus the auto-included guides): same order, same scores, nothing lost below a cut.
    expected = [h for h in everything if h["metadata"] in (PY_SDK, GUIDE)]
    assert python == expected
    top = example.search(query="payments create", language="python", limit=1)["hits"]
    assert top == [expected[0]]
    assert top[0]["chunk_id"] == "python/payments.md#payments/create"


def test_limit_is_respected(example: McpSession) -> None:
    for limit in (1, 2, 5):
        result = example.search(query="payments", limit=limit)
        assert len(result["hits"]) == limit
        assert result["next_cursor"] is not None
    assert len(example.search(query="payments")["hits"]) == 10  # the default limit


def test_explicit_filters_restrict_every_hit(example: McpSession) -> None:
    hits = example.search(query="payments", language="python", scope="sdk-specific", limit=50)
    assert hits["hits"]
    assert all(h["metadata"] == PY_SDK for h in hits["hits"])
    guides = example.search(query="key", scope="global-guide", limit=50)
    assert guides["hits"]
    # A guide's language tabs are guides too, with their own language.
    assert all(h["metadata"]["scope"] == GUIDE["scope"] for h in guides["hits"])
    assert all(h["metadata"] == GUIDE for h in guides["hits"] if "/retries/" not in h["chunk_id"])


def test_language_filter_auto_includes_global_guides(example: McpSession) -> None:
    result = example.search(query="retries backoff", language="python", limit=50)
    assert "guides/errors.mdx#error-handling/retries" in _ids(result)
    assert _ids(result)[0] == "guides/errors.mdx#error-handling/retries"
    assert "guides/errors.mdx#error-handling/retries/python" in _ids(result)
    assert "guides/errors.mdx#error-handling/retries/typescript" not in _ids(result)
    py_guide = {**GUIDE, "language": "python"}
    assert all(h["metadata"] in (PY_SDK, GUIDE, py_guide) for h in result["hits"])


def test_explicit_scope_disables_auto_include(example: McpSession) -> None:
    result = example.search(query="retries backoff", language="python", scope="sdk-specific")
    assert result["hits"], "the python create section mentions retries"
    assert not any(h["filepath"].startswith("guides/") for h in result["hits"])
    assert all(h["metadata"] == PY_SDK for h in result["hits"])


# --------------------------------------------------------------------------- zero hits


def test_zero_hits_nonsense_query(example: McpSession) -> None:
    result = example.search(query=NONSENSE)
    assert result["hits"] == [] and result["next_cursor"] is None
    assert result["hint"]["message"].startswith("0 results found")
    assert result["hint"]["suggested_filters"] == {}


def test_zero_hits_suggests_other_filter_values(example: McpSession) -> None:
    # "npm" appears only in the typescript README (not in the auto-included guides).
    result = example.search(query="npm", language="python")
    assert result["hits"] == [] and result["next_cursor"] is None
    assert result["hint"]["message"].startswith("0 results found for query 'npm'")
    assert result["hint"]["suggested_filters"] == {"language": ["typescript"]}
    # And the suggestion is right: following it finds the page.
    found = example.search(query="npm", language="typescript")
    assert _ids(found) == ["typescript/README.md#acme-typescript-sdk/installation"]


# --------------------------------------------------------------------------- pagination


def _all_pages(session: McpSession, **arguments: Any) -> list[list[dict[str, Any]]]:
    pages = []
    cursor = None
    for _ in range(100):
        args = dict(arguments, cursor=cursor) if cursor else arguments
        result = session.search(**args)
        pages.append(result["hits"])
        cursor = result["next_cursor"]
        if cursor is None:
            return pages
        assert result["hint"] is None
    raise AssertionError("pagination did not terminate")


@pytest.mark.parametrize("filters", [{}, {"language": "python"}])
def test_pagination_walks_all_results(example: McpSession, filters: dict[str, str]) -> None:
    whole = example.search(query="payments", limit=50, **filters)["hits"]
    assert whole and whole == sorted(whole, key=lambda h: -h["score"])
    pages = _all_pages(example, query="payments", limit=2, **filters)
    assert len(pages) == (len(whole) + 1) // 2 >= 3
    assert all(len(page) == 2 for page in pages[:-1]) and 1 <= len(pages[-1]) <= 2
    flat = [hit for page in pages for hit in page]
    assert len({h["chunk_id"] for h in flat}) == len(flat)
    assert flat == whole


def test_cursor_rejected_for_other_query_or_filters(example: McpSession) -> None:
    cursor = example.search(query="payments", limit=2)["next_cursor"]
    for other in ({"query": "refund"}, {"query": "payments", "language": "python"}):
        message = example.tool_error("search_docs", {**other, "limit": 2, "cursor": cursor})
        assert "does not match current query or filters" in message


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def test_tampered_cursor_rejected(example: McpSession) -> None:
    cursor = example.search(query="payments", limit=2)["next_cursor"]
    payload, signature = cursor.split(".")
    # Re-encoded payload pointing elsewhere, original signature: a forged skip.
    body = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert body["o"] == 2
    forged = _b64(json.dumps({**body, "o": 0}, separators=(",", ":")).encode())
    flipped = ("B" if signature[0] == "A" else "A") + signature[1:]
    cases = {
        f"{forged}.{signature}": "signature",
        f"{payload}.{flipped}": "signature",
        "not-a-cursor": "malformed",
        f"{payload[:-3]}!!!.{signature}": "malformed",
    }
    for bad, reason in cases.items():
        message = example.tool_error("search_docs", {"query": "payments", "cursor": bad})
        assert message.startswith("Invalid cursor:") and reason in message, (bad, message)


def test_cursor_from_other_bundle_rejected(
    example: McpSession, special: McpSession, example_bundle: Path, special_bundle: Path
) -> None:
    assert _metadata(example_bundle)["bundle_id"] != _metadata(special_bundle)["bundle_id"]
    cursor = special.search(query="payments", limit=2)["next_cursor"]
    message = example.tool_error("search_docs", {"query": "payments", "limit": 2, "cursor": cursor})
    assert "bundle changed" in message


def test_cursor_valid_across_server_processes(example: McpSession, example_bundle: Path) -> None:
    first = example.search(query="payments", limit=2)
    second_page = example.search(query="payments", limit=2, cursor=first["next_cursor"])
    # A fresh process on the same bundle (a stateless replica) continues the same listing.
    with McpSession(example_bundle, mode="auto", env={CURSOR_SECRET: None}) as replica:
        assert replica.search(query="payments", limit=2, cursor=first["next_cursor"]) == second_page


@pytest.mark.slow  # 2 more server processes
def test_cursor_secret_must_match(example: McpSession, example_bundle: Path) -> None:
    with (
        McpSession(example_bundle, env={CURSOR_SECRET: "alpha-secret"}) as alpha,
        McpSession(example_bundle, env={CURSOR_SECRET: "beta-secret"}) as beta,
    ):
        cursor = alpha.search(query="payments", limit=2)["next_cursor"]
        assert alpha.search(query="payments", limit=2, cursor=cursor)["hits"]
        for other in (beta, example):  # another secret, and the default (no secret)
            message = other.tool_error("search_docs", {"query": "payments", "cursor": cursor})
            assert "signature" in message


# --------------------------------------------------------------------------- bad arguments


def test_numbers_out_of_range_are_clamped_with_a_note(example: McpSession) -> None:
    """../shared/DECISIONS.md: clamp to the documented maximum and say so in `notes`."""
    low = example.search(query="payments", limit=0)
    assert len(low["hits"]) == 1 and low["notes"] == ["limit 0 is outside 1..50; used 1."]
    high = example.search(query="payments", limit=500)
    assert high["notes"] == ["limit 500 is outside 1..50; used 50."]
    assert "notes" not in example.search(query="payments", limit=50)
    chunk = "python/payments.md#payments/listpayments"
    wide = example.call("get_doc", {"chunk_id": chunk, "context": 99})
    texts = [c.text for c in wide.content]
    assert texts[-1] == "Note: context 99 is outside 0..5; used 5."
    assert texts[0].startswith("--- Chunk: python/payments.md")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"query": "payments", "foo": 1},
            "Unexpected field 'foo'. Allowed fields: cursor, exclude, expand_references, language, "
            "limit, max_tokens, query, role, scope.",
        ),
        ({"query": "payments", "limit": "x"}, "limit must be an integer"),
        ({"query": "payments", "limit": True}, "limit must be an integer"),
        ({"query": ""}, "query must be a non-empty string"),
        ({"query": "   "}, "query must be a non-empty string"),
        ({}, "query must be a non-empty string"),
        ({"query": "payments", "cursor": ""}, "cursor must be a non-empty string"),
        (
            {"query": "payments", "language": "rust"},
            "Invalid taxonomy value for 'language': \"rust\". Allowed values: python, typescript",
        ),
        (
            {"query": "payments", "scope": "Global-Guide"},
            "Invalid taxonomy value for 'scope': \"Global-Guide\". "
            "Allowed values: global-guide, sdk-specific",
        ),
    ],
)
def test_search_bad_arguments(example: McpSession, arguments: dict, message: str) -> None:
    assert example.tool_error("search_docs", arguments) == message


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"chunk_id": "python/payments.md", "context": "1"}, "context must be an integer"),
        ({}, "chunk_id must be a non-empty string (or give section)"),
        (
            {"chunk_id": "x", "extra": True},
            "Unexpected field 'extra'. Allowed fields: chunk_id, context, cursor, document, "
            "max_tokens, query, section.",
        ),
        (
            {"chunk_id": "python/payments.md#payments/nope"},
            "Chunk ID 'python/payments.md#payments/nope' not found. "
            "Use search_docs to discover valid chunk IDs.",
        ),
        (
            {"chunk_id": " x"},
            "Chunk ID ' x' has invalid format. Expected {filepath} or {filepath}#{heading-path}.",
        ),
        (
            {"chunk_id": "a\nb"},
            "Chunk ID 'a\nb' has invalid format. Expected {filepath} or {filepath}#{heading-path}.",
        ),
        (
            {"chunk_id": ""},
            "Chunk ID '' has invalid format. Expected {filepath} or {filepath}#{heading-path}.",
        ),
    ],
)
def test_get_doc_bad_arguments(example: McpSession, arguments: dict, message: str) -> None:
    assert example.tool_error("get_doc", arguments) == message


# --------------------------------------------------------------------------- get_doc


def test_get_doc_target_only(example: McpSession) -> None:
    text = example.get_doc("python/payments.md#payments/refund")
    assert text == (
        "--- Chunk: python/payments.md#payments/refund (Chunk 3 of 3) (Target) ---\n"
        + _section("python/payments.md", "## refund")
    )


def test_get_doc_context_one(example: McpSession) -> None:
    text = example.get_doc("python/payments.md#payments/listpayments", context=1)
    # The page's h1 has no body of its own, so it rides with the first section.
    create = _section("python/payments.md", "# Payments", until="\n## list_payments")
    assert text == (
        "--- Chunk: python/payments.md#payments/create (Chunk 1 of 3) (Context: -1) ---\n"
        f"{create}\n\n"
        "--- Chunk: python/payments.md#payments/listpayments (Chunk 2 of 3) (Target) ---\n"
        f"{_section('python/payments.md', '## list_payments')}\n\n"
        "--- Chunk: python/payments.md#payments/refund (Chunk 3 of 3) (Context: +1) ---\n"
        f"{_section('python/payments.md', '## refund')}"
    )


def test_get_doc_context_stays_in_file(example: McpSession) -> None:
    # First chunk of a file: no -1 even though python/README.md precedes it in the bundle.
    first = example.get_doc("python/payments.md#payments/create", context=1)
    assert first.startswith("--- Chunk: python/payments.md#payments/create (Chunk 1 of 3) (Target)")
    assert "(Context: -1)" not in first
    assert (
        "--- Chunk: python/payments.md#payments/listpayments (Chunk 2 of 3) (Context: +1) ---"
        in (first)
    )
    assert "python/payments.md#payments/refund" not in first
    # Last chunk, widest context: only its own file's earlier chunks, never the next file.
    last = example.get_doc("python/payments.md#payments/refund", context=5)
    headers = [line for line in last.splitlines() if line.startswith("--- Chunk: ")]
    assert headers == [
        "--- Chunk: python/payments.md#payments/create (Chunk 1 of 3) (Context: -2) ---",
        "--- Chunk: python/payments.md#payments/listpayments (Chunk 2 of 3) (Context: -1) ---",
        "--- Chunk: python/payments.md#payments/refund (Chunk 3 of 3) (Target) ---",
    ]


def test_get_doc_round_trips_search_ids(example: McpSession) -> None:
    for query in ("payments", "key", "retries", "installation"):
        for hit in example.search(query=query, limit=50)["hits"]:
            text = example.get_doc(hit["chunk_id"])
            header = text.splitlines()[0]
            assert header.startswith(f"--- Chunk: {hit['chunk_id']} (Chunk ")
            assert header.endswith(" (Target) ---")
            assert hit["heading"] in text


# --------------------------------------------------------------------------- awkward ids


def test_ids_with_spaces_and_hash_round_trip(special: McpSession) -> None:
    ids = _ids(special.search(query="zorblax", limit=50))
    assert ids == [f"{ODD_PATH}#c-tips/setup", f"{ODD_PATH}#c-tips/usage"] or ids == [
        f"{ODD_PATH}#c-tips/usage",
        f"{ODD_PATH}#c-tips/setup",
    ]
    setup = special.get_doc(f"{ODD_PATH}#c-tips/setup")
    assert setup == (
        f"--- Chunk: {ODD_PATH}#c-tips/setup (Chunk 2 of 3) (Target) ---\n"
        "## Setup\n\nInstall the zorblax package before anything else."
    )
    for query in ("zorblax", "csharp tips", "setup", "payments", "会话"):
        for hit in special.search(query=query, limit=50)["hits"]:
            assert special.get_doc(hit["chunk_id"]).startswith(f"--- Chunk: {hit['chunk_id']} (")


def test_cjk_headings_get_distinct_ids_and_are_searchable(special: McpSession) -> None:
    key = special.search(query="会话密钥", limit=5)["hits"]
    manage = special.search(query="会话管理", limit=5)["hits"]
    assert key[0]["heading"] == "会话密钥" and manage[0]["heading"] == "会话管理"
    assert key[0]["filepath"] == manage[0]["filepath"] == CJK_PATH
    assert key[0]["chunk_id"] != manage[0]["chunk_id"]
    assert key[0]["chunk_id"].startswith(f"{CJK_PATH}#")
    assert "会话密钥用于签名请求" in key[0]["snippet"]
    text = special.get_doc(key[0]["chunk_id"])
    assert text.endswith("## 会话密钥\n\n会话密钥用于签名请求。")
    assert "会话管理包括" not in text


# --------------------------------------------------------------------------- CLI


def _runtime(*args: str | Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", *map(str, args)],
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_cli_search_prints_ranked_hits(example_bundle: Path) -> None:
    proc = _runtime("--bundle", example_bundle, "search", "listPayments", "--language", "python")
    assert proc.returncode == 0, proc.stderr
    ranked = [
        line.split()[1] for line in proc.stdout.splitlines() if line[:3].strip()[:-1].isdigit()
    ]
    assert ranked[0] == "python/payments.md#payments/listpayments"
    assert proc.stdout.startswith(" 1. python/payments.md#payments/listpayments  (score ")
    assert not any(cid.startswith("typescript/") for cid in ranked)


def test_cli_search_json_matches_mcp(example: McpSession, example_bundle: Path) -> None:
    proc = _runtime(
        "--bundle",
        example_bundle,
        "search",
        "payments create",
        "--language",
        "typescript",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    expected = example.search(query="payments create", language="typescript")
    assert json.loads(proc.stdout) == expected


def test_cli_unknown_flag(example_bundle: Path) -> None:
    proc = _runtime("--bundle", example_bundle, "search", "payments", "--foo", "x")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("docsmcp-runtime: error:") and "--foo" in proc.stderr


def test_cli_invalid_filter_value(example_bundle: Path) -> None:
    proc = _runtime("--bundle", example_bundle, "search", "payments", "--language", "rust")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (
        "docsmcp-runtime: error: Invalid taxonomy value for 'language': \"rust\". "
        "Allowed values: python, typescript\n"
    )


def test_cli_zero_hits_prints_hint(example_bundle: Path) -> None:
    proc = _runtime("--bundle", example_bundle, "search", "npm", "--language", "python")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("0 results found for query 'npm'")
    assert lines[1:] == ["  try --language typescript"]


def test_cli_missing_bundle_dir(tmp_path: Path) -> None:
    proc = _runtime("--bundle", tmp_path / "nope", "search", "payments")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"docsmcp-runtime: error: bundle not found: {tmp_path / 'nope'}\n"


def _flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _delete(path: Path) -> None:
    path.unlink()


def _future_version(path: Path) -> None:
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta["format_version"] = 99
    path.write_text(json.dumps(meta), encoding="utf-8")


@pytest.mark.parametrize(
    ("filename", "damage"),
    [
        ("postings_docs.bin", _flip_byte),
        ("chunks.parquet", _delete),
        ("metadata.json", _future_version),
    ],
)
@pytest.mark.parametrize("command", [["search", "payments"], []], ids=["search", "serve"])
def test_cli_corrupt_bundle_fails_in_one_line(
    example_bundle: Path, tmp_path: Path, filename: str, damage: Any, command: list[str]
) -> None:
    bundle = tmp_path / "idx"
    shutil.copytree(example_bundle, bundle)
    damage(bundle / filename)
    proc = _runtime("--bundle", bundle, *command)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("docsmcp-runtime: error: ")
    assert filename in proc.stderr
    if filename == "metadata.json":
        assert "version 99" in proc.stderr
