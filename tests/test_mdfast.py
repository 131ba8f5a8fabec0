"""The parse fast paths (mdfast.py) give exactly markdown-it-py's tokens: fuzzed documents and
every fixture are parsed by the builder's parser and by a stock markdown-it-py parser of the
same configuration, and every token (children included) must be equal."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import corpus
from docsmcp.chunking import blocks
from docsmcp.sources.formats.markdown import mdfast
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.rules_block.table import escapedSplit
from markdown_it.token import Token

STOCK = MarkdownIt("commonmark").enable(["table", "strikethrough"])
FIXTURES = Path(__file__).parent / "fixtures"

# Characters every inline and table rule reacts to, plus plain text and line structure.
_ALPHABET = st.sampled_from(
    list("ab Z09.|\\`*_~[]()!<>&#;:-=+/\"'\n\t") + ["  ", "| ", "---", "\r", "\r\n", "\0"]
)
_LINE = st.lists(_ALPHABET, max_size=40).map("".join)
_TABLE_ROW = st.lists(
    st.text(st.sampled_from(list("ab `*_\\|[]()!<&~:-")), max_size=12), min_size=1, max_size=5
).map(lambda cells: "| " + " | ".join(cells) + " |")


def _tokens(md: MarkdownIt, text: str) -> list[dict]:
    return [t.as_dict() for t in md.parse(text)]


def test_the_builder_parser_has_both_fast_paths() -> None:
    """If markdown-it-py changes shape the fast paths switch off; this says when that happens."""
    md = blocks.markdown_parser()
    table = next(r for r in md.block.ruler.__rules__ if r.name == "table")
    assert table.fn.__globals__["escapedSplit"] is mdfast.escaped_split
    assert list(table.alt) == list(
        next(r for r in STOCK.block.ruler.__rules__ if r.name == "table").alt
    )
    inline = next(r for r in md.core.ruler.__rules__ if r.name == "inline")
    assert inline.fn.__qualname__.startswith("_fast_inline")
    normalize = next(r for r in md.core.ruler.__rules__ if r.name == "normalize")
    assert normalize.fn is mdfast._fast_normalize
    # every chain of block rules is one rule dispatching on the line's first character
    for chain in ("", "paragraph", "reference", "blockquote", "list"):
        (rule,) = md.block.ruler.getRules(chain)
        stock = STOCK.block.ruler.getRules(chain)
        assert [f.__name__ for f in rule.chain] == [f.__name__ for f in stock]
    assert isinstance(md.block.parse("a", md, {}, []), list)
    assert type(md.block.parse("a\n\n| x |\n|---|\n| y |", md, {}, [])[0]) is Token


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(list("ab|\\ `x")), max_size=30))
def test_escaped_split_is_markdown_its(line: str) -> None:
    assert mdfast.escaped_split(line) == escapedSplit(line)


@pytest.mark.slow  # fuzz, ~1 s
@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, max_size=12))
def test_fuzzed_documents_parse_the_same(lines: list[str]) -> None:
    text = "\n".join(lines)
    expected = _tokens(STOCK, text)
    assert _tokens(blocks.markdown_parser(), text) == expected
    # again: repeated contents come from the memo
    assert _tokens(blocks.markdown_parser(), text) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(_LINE, max_size=12))
def test_copied_tokens_are_equal_and_share_nothing(lines: list[str]) -> None:
    """mdfast._copy builds tokens field by field (not through Token's __init__): each copy
    equals its token, children included, and shares no mutable field with it."""
    for token in STOCK.parse("\n".join(lines)):
        for t in [token, *(token.children or [])]:
            c = mdfast._copy(t)
            assert type(c) is Token and c == t and c.as_dict() == t.as_dict()
            assert c.attrs is not t.attrs and c.meta is not t.meta
            assert c.map is None or c.map is not t.map
            assert c.children is None or (c.children is not t.children and c.children == t.children)


@settings(max_examples=200, deadline=None)
@given(
    _TABLE_ROW,
    st.sampled_from(["|---|", "| :-- | --: |", "|---|---|---|", "--- | ---"]),
    st.lists(_TABLE_ROW, max_size=6),
)
def test_fuzzed_tables_parse_the_same(header: str, rule: str, rows: list[str]) -> None:
    text = "\n".join([header, rule, *rows, "", "after"])
    assert _tokens(blocks.markdown_parser(), text) == _tokens(STOCK, text)


# Lines opening every kind of block (and the indents that make code or continue items), so the
# rules tried by first character meet each other as starts and as terminators.
_BLOCK_LINE = st.tuples(
    st.sampled_from(["", " ", "  ", "    ", "> ", ">", "- ", "* ", "+ ", "1. ", "2) ", "10. "]),
    st.sampled_from(
        [
            "",
            "# ",
            "## ",
            "```",
            "~~~",
            "---",
            "***",
            "___",
            "<div>",
            "<!-- ",
            "[a]: /u",
            "[a]",
            "| a | b |",
            "|---|---|",
            "a | b",
            ":-: | --",
            "==",
        ]
    ),
    _LINE,
).map("".join)


@pytest.mark.slow  # fuzz, ~1 s
@settings(max_examples=300, deadline=None)
@given(st.lists(_BLOCK_LINE, max_size=14))
def test_fuzzed_block_structures_parse_the_same(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert _tokens(blocks.markdown_parser(), text) == _tokens(STOCK, text)


@pytest.mark.parametrize(
    "path", sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".md", ".mdx")), ids=str
)
def test_fixtures_parse_the_same(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    assert _tokens(blocks.markdown_parser(), text) == _tokens(STOCK, text)


@pytest.mark.corpus
def test_speakeasy_parses_the_same() -> None:
    files = sorted(corpus("speakeasy-sdks").rglob("*.md"))
    assert len(files) > 4000
    for path in files[::7]:
        text = path.read_text(encoding="utf-8")
        assert _tokens(blocks.markdown_parser(), text) == _tokens(STOCK, text), path


def test_remembered_cells_are_fresh_tokens() -> None:
    """Repeated contents come from the memo as copies: equal to a fresh parse, sharing nothing
    (core rules after `inline` edit tokens in place), and reference links are not remembered
    across documents that define them differently."""
    text = "| a | b |\n|---|---|\n| *x_y* | [r] |\n| *x_y* | [r] |\n\n*x_y* and `c`\n"
    first, second = blocks.markdown_parser().parse(text), blocks.markdown_parser().parse(text)
    assert [t.as_dict() for t in first] == [t.as_dict() for t in second] == _tokens(STOCK, text)
    cells = [t for t in second if t.type == "inline" and t.content == "*x_y*"]
    assert len(cells) == 2 and cells[0].children[0] is not cells[1].children[0]
    cells[0].children[1].content = "changed"
    assert cells[1].children[1].content == "x_y"
    for target in ("one", "two"):
        doc = f"[r] and [r][]\n\n[r]: https://example.com/{target}\n"
        assert _tokens(blocks.markdown_parser(), doc) == _tokens(STOCK, doc)
