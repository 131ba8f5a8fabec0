"""get_doc's `query`: the passage of a long section where the query's words are densest
(issue 16, direction 6). Ranking is untouched; only what an agent reads of a hit shrinks."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FUZZ_EXAMPLES, build_bundle
from docsmcp_runtime.search.passage import PASSAGE_CHARS, best_passage, passage_pattern
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_client import McpSession, text_of

FILLER = "The reference lists every option of the client in the order the constructor takes."


def _long_page() -> str:
    lines = ["# Client options", ""]
    for i in range(60):
        lines.append(f"{FILLER} Option number {i} is described here.")
    lines.append("")
    lines.append("Webhook signatures are verified with the signing secret of the endpoint.")
    lines.append("A webhook whose signature does not match is rejected before parsing.")
    for i in range(60, 120):
        lines.append(f"{FILLER} Option number {i} is described here.")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def long_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("long")
    docs = root / "docs"
    docs.mkdir()
    (docs / "client.md").write_text(_long_page(), "utf-8")
    (docs / "short.md").write_text("# Short\n\nA short page about webhook retries.\n", "utf-8")
    # The manifest keeps the page one section, as speakeasy-sdks' 12,000-character sections.
    (docs / ".docs-mcp.json").write_text(
        '{"version": "1", "strategy": {"chunk_by": "h2", "max_chunk_size": 20000}}', "utf-8"
    )
    return build_bundle(docs, root / "idx")


def test_a_long_section_returns_its_densest_passage_and_says_where_the_rest_is(
    long_bundle: Path,
) -> None:
    query = "verify webhook signature"
    with McpSession(long_bundle) as session:
        hit = session.search(query=query, limit=1)["hits"][0]
        assert hit["filepath"] == "client.md"
        whole = session.get_doc(hit["chunk_id"])
        assert len(whole) > 3 * PASSAGE_CHARS
        result = session.call("get_doc", {"chunk_id": hit["chunk_id"], "query": query})
        assert not result.is_error
        passage, note = (block.text for block in result.content)
        header, _, body = passage.partition("\n")
        assert header.startswith("--- Chunk: ") and len(body) <= PASSAGE_CHARS
        assert "Webhook signatures are verified" in body and body in whole
        assert note.startswith("Passage: characters ") and "no query" in note
        # Short sections, and reads with context or a cursor, are whole as before.
        short = [h for h in session.search(query="webhook retries", limit=5)["hits"]
                 if h["filepath"] == "short.md"]  # fmt: skip
        same = session.call("get_doc", {"chunk_id": short[0]["chunk_id"], "query": query})
        assert text_of(same) == session.get_doc(short[0]["chunk_id"])
        with_context = session.call(
            "get_doc", {"chunk_id": hit["chunk_id"], "query": query, "context": 1}
        )
        assert text_of(with_context) == session.get_doc(hit["chunk_id"], context=1)
        error = session.tool_error("get_doc", {"chunk_id": hit["chunk_id"], "query": ""})
        assert "query must be a non-empty string" in error


def test_the_densest_window_wins_and_ties_go_to_the_head() -> None:
    text = "\n".join(["alpha filler words here"] * 100 + ["beta gamma beta"] + ["x"] * 10)
    start, end = best_passage(text, passage_pattern("beta gamma"), width=200)
    assert "beta gamma beta" in text[start:end]
    # No query word anywhere: the head of the section, cut at a line end.
    start, end = best_passage(text, passage_pattern("zeta"), width=200)
    assert start == 0 and text[end] == "\n" and end <= 200
    assert best_passage("short", passage_pattern("short"), width=200) is None


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True, database=None)
@given(
    text=st.text(alphabet=st.sampled_from("ab c\nxyz."), max_size=600),
    query=st.text(alphabet=st.sampled_from("ab cxyz"), max_size=12),
    width=st.integers(min_value=1, max_value=120),
)
def test_a_passage_is_a_window_of_whole_lines_within_the_width(
    text: str, query: str, width: int
) -> None:
    span = best_passage(text, passage_pattern(query), width)
    if len(text) <= width:
        assert span is None
        return
    start, end = span
    assert 0 <= start < end <= len(text) and end - start <= width
    assert start == 0 or text[start - 1] == "\n"  # starts a line
