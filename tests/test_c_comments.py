"""The comment rules the C-family lexers share (formats/source/c_comments.py: Dart, Swift,
Kotlin, Java): how far a nesting block comment runs, which `///` lines and `/** */` blocks are
doc comments and what their text is. The fixtures are comments in the shape Dart, Swift and
Kotlin sources write them (a nested `/* /* */ */`, a `/***` banner, `////` separators).
"""

from __future__ import annotations

from conftest import FUZZ
from docsmcp.sources.formats.source.c_comments import (
    DocRun,
    block_doc_text,
    comment_at,
    doc_content,
    is_slash_doc,
    nested_comment_end,
)
from hypothesis import given
from hypothesis import strategies as st


def _reference_end(source: str, start: int) -> int:
    """The nesting rule written out character by character: a `/*` opens, a `*/` closes,
    two characters consumed by each, one otherwise."""
    depth, i = 0, start
    while i < len(source):
        pair = source[i : i + 2]
        if pair == "/*":
            depth, i = depth + 1, i + 2
        elif pair == "*/":
            depth, i = depth - 1, i + 2
            if depth == 0:
                return i
        else:
            i += 1
    return len(source)


def test_a_nested_block_comment_ends_at_its_own_close() -> None:
    source = "/* outer /* inner */ still outer */ code()"
    assert source[: nested_comment_end(source, 0)] == "/* outer /* inner */ still outer */"


def test_an_unclosed_block_comment_runs_to_the_end() -> None:
    assert nested_comment_end("x /* a /* b */", 2) == len("x /* a /* b */")


def test_marks_that_share_a_star_count_once() -> None:
    # `/*/` opens a comment; its `*/` shares the star and closes nothing
    assert nested_comment_end("/*/ x */y", 0) == len("/*/ x */")


def test_doc_comments_and_plain_ones() -> None:
    assert is_slash_doc("/// A doc line.", 0)
    assert not is_slash_doc("//// a separator", 0)
    assert not is_slash_doc("// a comment", 0)
    assert block_doc_text("/**\n   * Reads a line.\n   *\n   * Returns null.\n   */") == (
        "Reads a line.\n\nReturns null."
    )
    assert block_doc_text("/*** banner ***/") is None
    assert block_doc_text("/**/") is None
    assert block_doc_text("/* plain */") is None
    assert doc_content("/** Reads. */") == " Reads. "
    assert doc_content("/** unclosed") == " unclosed"


def test_a_comment_at_a_position() -> None:
    source = "x = 1 // one\n/** Two. */ y /* a /* b */ c */ z"
    assert comment_at(source, 0) is None
    assert comment_at(source, 6) == (12, None)
    assert comment_at(source, 13) == (24, "Two. ")  # (margins go, not spaces at the end)
    start = source.index("/* a")
    assert comment_at(source, start) == (len(source) - 2, None)


def test_a_run_of_slash_lines_is_one_doc_comment() -> None:
    source = "/// First.\n///\n///  Indented.\nclass A {}"
    run = DocRun()
    pos = run.add(source, 0, 0)
    pos = run.add(source, pos + 1, 1)
    pos = run.add(source, pos + 1, 2)
    assert run.take() == "First.\n\n Indented."
    assert (run.line, run.start, run.end) == (0, 0, pos)
    assert run.take() is None


@FUZZ
@given(
    st.lists(st.sampled_from(["/*", "*/", "/", "*", "a", " ", "\n"]), max_size=80),
    st.integers(min_value=0, max_value=20),
)
def test_the_end_is_the_nesting_rule_written_out(pieces: list[str], at: int) -> None:
    text = "".join(pieces)
    source = text[:at] + "/*" + text[at:]
    start = min(at, len(text))
    end = nested_comment_end(source, start)
    assert start + 2 <= end <= len(source)
    assert end == _reference_end(source, start)
