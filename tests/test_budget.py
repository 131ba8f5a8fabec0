"""Response budgets (`max_tokens`) and `exclude`, as an agent meets them: the runtime over stdio
driven by the official `mcp` SDK client (and HTTP for the server default), plus the packing
rules of docsmcp_runtime/search/budget.py checked as properties."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLE_DOCS, FUZZ, build_bundle
from docsmcp_runtime.search.budget import (
    CHARS_PER_TOKEN,
    DEFAULT_MAX_TOKENS,
    approx_tokens,
    cut_point,
    hit_tokens,
    pack_encoded,
    pack_hits,
)
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession, text_of
from test_http import MODERN, sdk, start

LONG_PAGE = "# Big page\n\n" + "\n\n".join(
    f"Paragraph {i}: " + " ".join(f"word{i}x{j}" for j in range(40)) for i in range(200)
)


@pytest.fixture(scope="module")
def budget_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = tmp_path_factory.mktemp("budget") / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    (docs / "big.md").write_text(LONG_PAGE, encoding="utf-8")
    return build_bundle(docs, docs.parent / "idx")


@pytest.fixture(scope="module")
def session(budget_bundle: Path) -> Iterator[McpSession]:
    with McpSession(budget_bundle) as s:
        yield s


def search(session: McpSession, **arguments: Any) -> dict:
    return session.search(**arguments)


# --------------------------------------------------------------------------- the rules


def test_tokens_are_characters_over_four_rounded_up() -> None:
    assert CHARS_PER_TOKEN == 4
    assert [approx_tokens("x" * n) for n in (0, 1, 4, 5, 8)] == [0, 1, 1, 2, 2]


@FUZZ
@given(st.text(max_size=3000), st.integers(0, 2000), st.integers(1, 400))
def test_cut_point_moves_forward_and_stays_in_the_allowance(
    text: str, start: int, tokens: int
) -> None:
    start = min(start, max(len(text) - 1, 0))
    end = cut_point(text, start, tokens)
    assert start < end <= len(text) or (not text and end == 0)
    assert end - start <= tokens * CHARS_PER_TOKEN or end == start + 1


HIT = st.fixed_dictionaries(
    {
        "chunk_id": st.text(min_size=1, max_size=40),
        "score": st.floats(0, 100),
        "heading": st.text(max_size=40),
        "breadcrumb": st.text(max_size=80),
        "snippet": st.text(max_size=400),
        "filepath": st.text(max_size=40),
        "metadata": st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=2),
        "source": st.just({"file": "a.md", "lines": [1, 2]}),
    }
)


@pytest.mark.slow  # fuzz, ~1-2 s
@FUZZ
@given(st.lists(HIT, min_size=1, max_size=12), st.integers(50, 3000))
def test_packed_hits_are_a_ranked_prefix_within_the_budget(hits: list[dict], budget: int) -> None:
    kept, used, shortened = pack_hits(hits, budget)
    assert 1 <= len(kept) <= len(hits)
    whole = kept[:-1] if shortened else kept
    assert whole == hits[: len(whole)]  # whole hits, in rank order
    if shortened:
        assert kept[-1]["truncated"] is True
        assert kept[-1]["chunk_id"] == hits[len(kept) - 1]["chunk_id"]
    assert used == sum(hit_tokens(h) for h in kept)
    assert used <= budget or len(kept) == 1  # only a lone first hit may overrun


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


UNICODE_HIT = st.fixed_dictionaries(
    {
        "chunk_id": st.text(min_size=1, max_size=40),
        "score": st.floats(0, 100),
        "snippet": st.text(max_size=400),  # quotes, backslashes, control and non-ASCII
        "metadata": st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=2),
        "source": st.just({"file": "a.md", "lines": [1, 2]}),
    }
)


@FUZZ
@given(st.lists(UNICODE_HIT, max_size=12), st.integers(50, 3000), st.booleans())
def test_hits_encoded_once_are_the_json_users_got_before(
    hits: list[dict], budget: int, with_notes: bool
) -> None:
    """search_docs encodes each hit once (to count its tokens) and splices those texts into its
    result: the text is byte for byte json.dumps' of the whole result, as before."""
    from docsmcp_runtime.tools.hits import hits_json
    from docsmcp_runtime.tools.results import json_result

    kept, texts, used, shortened = pack_encoded(iter(hits), budget)
    assert (kept, used, shortened) == pack_hits(hits, budget)
    assert texts == [_dumps(h) for h in kept]
    result = {"hits": kept, "next_cursor": None, "hint": {"message": 'é "x"', "n": [1.5]}}
    notes = ["a note ✔️"] if with_notes else None
    answer = json_result(result, notes, {"hits": hits_json(texts)})
    assert answer["structuredContent"] is result
    assert answer["content"][0]["text"] == _dumps(result)


def test_search_text_is_the_json_of_its_structured_content(budget_bundle: Path) -> None:
    """Through the runtime, whole hits and a shortened one: the text a client without
    structuredContent reads is json.dumps of structuredContent, byte for byte."""
    from docsmcp_runtime.bundle.reader import open_bundle
    from docsmcp_runtime.tools.app import DocsApp

    app = DocsApp(open_bundle(budget_bundle))
    full = app.call_tool("search_docs", {"query": "payment", "limit": 10})["structuredContent"]
    room = sum(hit_tokens(h) for h in full["hits"][:3]) - 20
    for args in ({}, {"max_tokens": room}, {"max_tokens": 50}, {"expand_references": True}):
        answer = app.call_tool("search_docs", {"query": "payment", "limit": 10, **args})
        structured = answer["structuredContent"]
        assert answer["content"][0]["text"] == _dumps(structured)
        assert structured["hits"]
    assert structured["hits"][0]["chunk_id"] == full["hits"][0]["chunk_id"]


# --------------------------------------------------------------------------- search_docs


def test_search_without_budget_is_unchanged(session: McpSession) -> None:
    result = search(session, query="payment", limit=10)
    assert "notes" not in result and all("truncated" not in h for h in result["hits"])


def test_search_packs_hits_into_the_budget_and_pages_on(session: McpSession) -> None:
    full = search(session, query="payment", limit=10)["hits"]
    assert len(full) >= 4
    budget = sum(hit_tokens(h) for h in full[:2]) + 10
    first = search(session, query="payment", limit=10, max_tokens=budget)
    assert [h["chunk_id"] for h in first["hits"]] == [h["chunk_id"] for h in full[:2]]
    assert first["notes"][0].startswith(f"max_tokens {budget}: 2 of 10 hits fit")
    # next_cursor continues right after what was shown
    after = search(session, query="payment", limit=10, cursor=first["next_cursor"])
    rest = [h["chunk_id"] for h in full[2:]]
    assert [h["chunk_id"] for h in after["hits"]][: len(rest)] == rest
    room = sum(hit_tokens(h) for h in full[:3]) - 20  # the third fits only shortened
    shortened = search(session, query="payment", limit=10, max_tokens=room)
    last = shortened["hits"][-1]
    assert last["truncated"] is True and len(shortened["hits"]) == 3
    assert "the last one shortened" in shortened["notes"][0]


def test_budget_out_of_range_is_clamped_and_wrong_type_refused(session: McpSession) -> None:
    result = search(session, query="payment", max_tokens=1)
    assert "max_tokens 1 is outside 50..1000000; used 50." in result["notes"]
    assert len(result["hits"]) == 1
    error = session.tool_error("search_docs", {"query": "payment", "max_tokens": "lots"})
    assert error == "max_tokens must be an integer"


# --------------------------------------------------------------------------- exclude


def test_exclude_returns_new_material_and_binds_cursors(session: McpSession) -> None:
    first = search(session, query="payment", limit=3)
    seen = [h["chunk_id"] for h in first["hits"]]
    follow = search(session, query="payment", limit=3, exclude=seen)
    assert follow["hits"] and not {h["chunk_id"] for h in follow["hits"]} & set(seen)
    # a cursor of the first list does not continue the excluded one
    error = session.tool_error(
        "search_docs",
        {"query": "payment", "limit": 3, "exclude": seen, "cursor": first["next_cursor"]},
    )
    assert "cursor" in error.lower()
    noted = search(session, query="payment", exclude=["nope.md#x", seen[0]])
    assert noted["notes"] == ["1 chunk id(s) in exclude do not exist and were ignored."]
    assert session.tool_error("search_docs", {"query": "x", "exclude": "a.md"}) == (
        "exclude must be an array of chunk ids"
    )
    too_many = session.tool_error("search_docs", {"query": "x", "exclude": ["a"] * 501})
    assert too_many == "exclude takes at most 500 chunk ids"


# --------------------------------------------------------------------------- get_doc, get_page


def _doc_parts(session: McpSession, arguments: dict) -> tuple[str, str | None, list[str]]:
    result = session.call("get_doc", arguments)
    assert not result.is_error, result.content[0].text
    texts = [block.text for block in result.content]
    cursor = None
    for extra in texts[1:]:
        if "cursor '" in extra:
            cursor = extra.split("cursor '", 1)[1].split("'", 1)[0]
    return texts[0], cursor, texts[1:]


def test_get_doc_returns_a_long_chunk_in_budgeted_parts(session: McpSession) -> None:
    chunk_id = "big.md#big-page"
    whole = text_of(session.call("get_doc", {"chunk_id": chunk_id}))
    assert approx_tokens(whole) > 600
    pieces, cursor = [], None
    while True:
        arguments: dict[str, Any] = {"chunk_id": chunk_id, "max_tokens": 200}
        if cursor:
            arguments["cursor"] = cursor
        text, cursor, extra = _doc_parts(session, arguments)
        assert approx_tokens(text) <= 200
        assert extra[0].startswith("Characters ")
        pieces.append(text)
        if cursor is None:
            break
    assert "".join(pieces) == whole and len(pieces) >= 3
    bad = session.tool_error("get_doc", {"chunk_id": chunk_id, "cursor": "x"})
    assert "cursor" in bad.lower()


def test_get_page_honours_the_budget(session: McpSession) -> None:
    result = session.call("get_page", {"path": "guides/errors.mdx", "max_tokens": 60})
    page = result.structured_content
    assert page["next_cursor"] and len(page["chunk_ids"]) == 1
    assert page["notes"][0].endswith("(max_tokens 60); continue with next_cursor.")


# --------------------------------------------------------------------------- server default


@pytest.mark.slow  # an HTTP server process per revision
@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_server_default_budget_over_http(budget_bundle: Path, mode: str) -> None:
    server = start(budget_bundle, env={"DOCSMCP_MAX_TOKENS": "120"})
    try:

        async def body(client: Any) -> tuple:
            found = await client.call_tool("search_docs", {"query": "payment"})
            wide = await client.call_tool("search_docs", {"query": "payment", "max_tokens": 100000})
            return found, wide

        found, wide = sdk(server.url, mode, body)
    finally:
        assert server.stop() == 0
    narrow_hits = found.structured_content["hits"]
    assert len(narrow_hits) < len(wide.structured_content["hits"])
    assert "max_tokens 120" in found.structured_content["notes"][0]
    assert json.loads(found.content[0].text) == found.structured_content


# --------------------------------------------------------------------------- default budgets


def test_every_tool_answers_within_a_default_budget(session: McpSession) -> None:
    """A call that names no max_tokens, on a server without --max-tokens, gets at most
    DEFAULT_MAX_TOKENS (a guessed path cost 107,926 characters of FastAPI's release notes)."""
    page = session.call("get_page", {"path": "big.md"}).structured_content
    assert approx_tokens(page["text"]) <= DEFAULT_MAX_TOKENS
    assert page["next_cursor"]
    assert page["notes"][-1].endswith(
        f"(max_tokens {DEFAULT_MAX_TOKENS}); continue with next_cursor."
    )
    rest = session.call("get_page", {"path": "big.md", "cursor": page["next_cursor"]})
    assert rest.structured_content["chunk_ids"][0] not in page["chunk_ids"]
    text, cursor, extra = _doc_parts(session, {"chunk_id": page["chunk_ids"][0]})
    assert approx_tokens(text) <= DEFAULT_MAX_TOKENS


@pytest.mark.parametrize(
    ("tool", "arguments", "items", "what"),
    [
        ("list_sections", {"depth": 3}, "entries", "entries"),
        ("get_api_reference", {}, "categories", "entries"),
        ("get_code_examples", {"query": "payment", "limit": 10}, "examples", "examples"),
    ],
)
def test_list_tools_keep_whole_entries_within_max_tokens(
    session: McpSession, tool: str, arguments: dict, items: str, what: str
) -> None:
    full = session.call(tool, arguments).structured_content

    def entries(result: dict) -> list:
        found = result[items]
        return [e for group in found.values() for e in group] if isinstance(found, dict) else found

    every = entries(full)
    assert len(every) >= 2, full
    budget = max(50, hit_tokens(every[0]) + 5)  # room for the first entry only
    narrow = session.call(tool, {**arguments, "max_tokens": budget}).structured_content
    kept = entries(narrow)
    assert kept == every[: len(kept)] and 1 <= len(kept) < len(every)
    assert narrow["notes"][-1].startswith(f"max_tokens {budget}: {len(kept)} of ")
    assert f" {what} fit (~" in narrow["notes"][-1]
    if "next_cursor" in narrow:  # the cursor continues right after what was shown
        after = session.call(tool, {**arguments, "cursor": narrow["next_cursor"]})
        assert entries(after.structured_content)[0] == every[len(kept)]


def test_the_terminal_get_prints_one_budget_then_says_how_to_see_more(
    budget_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from docsmcp_runtime.cli import main

    def get(*args: str) -> str:
        assert main(["--bundle", str(budget_bundle), "get", "big.md", *args]) == 0
        return capsys.readouterr().out

    part = get()
    assert approx_tokens(part) < DEFAULT_MAX_TOKENS + 100
    last = part.rstrip().splitlines()[-1]
    assert last.startswith("--- ") and "add --full for all of it, or --cursor " in last
    cursor = last.split("--cursor ", 1)[1].split()[0]
    whole = get("--full")
    assert "--- " not in whole.splitlines()[-1] and whole.count("Paragraph ") == 200
    following = get("--cursor", cursor)
    assert following.split("\n\n", 1)[1][:40] in whole
