"""common/brackets.closing: the one matcher of brackets the declaration readers share
(Julia signatures, Fumadocs type members, Sphinx object signatures)."""

from __future__ import annotations

from docsmcp.common.brackets import closing
from hypothesis import given, settings
from hypothesis import strategies as st


def test_nested_and_unclosed():
    text = "f(a, g(b), (c)) -> d"
    assert closing(text, 1) == text.index(" ->") - 1
    assert closing(text, text.index("g(") + 1) == text.index("b)") + 1
    assert closing("f(a, (b)", 1) == -1
    assert closing("<T<U>>", 0, "<", ">") == 5


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="()ab", max_size=40))
def test_closing_is_the_first_balanced_prefix(text):
    text = "(" + text
    k = closing(text, 0)
    depths = [text[: i + 1].count("(") - text[: i + 1].count(")") for i in range(len(text))]
    expected = next((i for i, d in enumerate(depths) if d == 0), -1)
    assert k == expected
