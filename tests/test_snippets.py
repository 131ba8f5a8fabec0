"""Snippets (search/snippets.py): the fast word matcher finds exactly what the regex finds.

The regex (`SnippetPattern.regex`: an IGNORECASE alternation of word-start prefixes) is the
reference; `word_hits` finds the same matches with `str.find` because a hit list builds ten
snippets and the regex was most of `search_docs`' time (issue 30).
"""

from __future__ import annotations

from docsmcp_runtime.search.snippets import snippet, snippet_pattern, word_hits
from hypothesis import given
from hypothesis import strategies as st

# Letters in both cases, digits, `_`, separators, and characters whose case rules are special
# (`İ` lower-cases to two characters, `ß` and `ẞ`, a Greek final sigma, the Kelvin sign).
ALPHABET = "abcXYZ019_ .-/:\n\tÉéßẞİıΣσςKſ✔️➖"
WORDS = st.text(alphabet="abcXYZ019_Éßİσ", min_size=1, max_size=6)


def _reference(text: str, query: str) -> list[tuple[int, int]]:
    pattern = snippet_pattern(query)
    return [(m.start(), m.lastindex or 0) for m in pattern.regex.finditer(text)] if pattern else []


@given(st.text(alphabet=ALPHABET, max_size=300), st.lists(WORDS, min_size=1, max_size=6))
def test_word_hits_are_the_regex_matches(text: str, words: list[str]) -> None:
    query = " ".join(words)
    pattern = snippet_pattern(query)
    got = word_hits(text, pattern) if pattern else []
    assert got == _reference(text, query)


@given(
    st.text(alphabet="abcAB019_ .-/:\n", max_size=300),
    st.lists(st.text(alphabet="abcAB01_", min_size=1, max_size=5), min_size=1, max_size=6),
)
def test_word_hits_of_ascii_text_are_the_regex_matches(text: str, words: list[str]) -> None:
    """ASCII text takes the str.find path (the other test's texts are mostly not ASCII)."""
    query = " ".join(words)
    pattern = snippet_pattern(query)
    assert (word_hits(text, pattern) if pattern else []) == _reference(text, query)


@given(
    st.text(alphabet="abcAB019_ .-/:?\n✔️➖éÉßıſİK😀", max_size=300),
    st.lists(st.text(alphabet="abcAB01_", min_size=1, max_size=5), min_size=1, max_size=6),
)
def test_word_hits_of_ascii_words_in_any_text_are_the_regex_matches(
    text: str, words: list[str]
) -> None:
    """ASCII words in text with emoji and accents take the str.find path where lower() is
    enough, the regex where it is not (`ı`, `ſ`, `İ`)."""
    query = " ".join(words)
    pattern = snippet_pattern(query)
    assert (word_hits(text, pattern) if pattern else []) == _reference(text, query)


def test_word_hits_where_lower_case_is_not_enough() -> None:
    for text, query in [
        ("aΣ b", "aσ"),
        ("İstanbul", "istanbul"),
        ("Kelvin K", "ke"),
        ("ok", "OK"),
        ("✔️ ın", "in"),
        ("ſet ➖", "set"),
        ("éab ?ab ✔️ab ßab _ab", "ab"),  # a `?` of the text, and ones of _ascii_lower
        ("😀ab 😀 ab", "ab"),  # a character outside the BMP is one `?`
    ]:
        assert word_hits(text, snippet_pattern(query)) == _reference(text, query), text
        assert _reference(text, query), text


def test_word_hits_on_docs_text() -> None:
    text = (
        "Links: create many links at once with links.createMany (linksUpsert upserts). "
        "LINK_ID is the link's id; relink, unlinked and re-link do not start a word match."
    )
    for query in ["links.createMany", "link", "create links", "upsert link id", "re link"]:
        pattern = snippet_pattern(query)
        assert pattern is not None
        assert word_hits(text, pattern) == _reference(text, query), query
        assert word_hits(text, pattern), query


def test_snippets_look_past_stop_words() -> None:
    """A long question's stop words match everywhere; the window goes where its other words
    are. A query of stop words only still finds them."""
    filler = "the and with of to " * 30
    text = filler + "Retries: configure the backoff strategy of the client. " + filler
    shown = snippet(text, snippet_pattern("how do I configure the backoff with the client"))
    assert "configure the backoff" in shown
    assert snippet_pattern("the and with") is not None
