"""The Porter2 stemmer (search/porter2.py) against the Snowball project's own Python stemmer, the
reference implementation (snowballstemmer 3.1): word for word on tricky forms, on random words,
and on every word of the shared corpora; and its first steps, the inflection stem that groups
a dictionary's words (bundle-spec.md, *Stem variants*)."""

from __future__ import annotations

import re

import pytest
import snowballstemmer
from conftest import SHARED
from docsmcp_runtime.search.porter2 import inflection_stem, porter2
from hypothesis import given, settings
from hypothesis import strategies as st

REFERENCE = snowballstemmer.stemmer("english")

# Exceptional forms, R1 prefixes, undoubling, short syllables, each step's suffixes.
TRICKY = (
    "skis skies dying lying tying idly gently ugly early only singly sky news howe atlas cosmos "
    "bias andes inning outing canning herring earring proceed exceed succeed evening evenings "
    "generate generously communication arsenal university organization emergency lateral "
    "international interval added adding egged erred irred uffed upping hoping pasted pasting "
    "wasted cries ties gas gaps kiwis caresses agreed feed bled sing luxuriating hopping "
    "happy happily enjoy enjoying played rational relational conditional valency hesitancy "
    "digitizer conformabli radicalli differentli vileli analogousli vietnamization "
    "predication operator feudalism decisiveness hopefulness callousness formaliti "
    "sensitiviti sensibiliti biologist triplicate formative formalize electriciti electrical "
    "hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible "
    "irritant replacement adjustment dependent adoption homologou communism activate "
    "angulariti homologous effective bowdlerize probate rate cease controll roll"
).split()


def test_the_tricky_forms_stem_as_snowball_stems_them() -> None:
    wrong = [
        (w, porter2(w), REFERENCE.stemWord(w))
        for w in TRICKY
        if porter2(w) != REFERENCE.stemWord(w)
    ]
    assert not wrong


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="aeiouybcdglmnprstz", min_size=1, max_size=14))
def test_random_words_stem_as_snowball_stems_them(word: str) -> None:
    assert porter2(word) == REFERENCE.stemWord(word)


@pytest.mark.corpus
def test_every_word_of_the_shared_corpora_stems_as_snowball_stems_it() -> None:
    words: set[str] = set()
    for name in ("speakeasy-sdks", "yellow-docs", "rust-reference", "mcp-docs"):
        for path in (SHARED / "corpora" / name).rglob("*.md*"):
            text = path.read_text(encoding="utf-8", errors="replace").lower()
            words.update(re.findall(r"\b[a-z]{3,}\b", text))
    assert len(words) > 10_000
    wrong = [
        (w, porter2(w), REFERENCE.stemWord(w))
        for w in sorted(words)
        if porter2(w) != REFERENCE.stemWord(w)
    ]
    assert not wrong, wrong[:10]


@pytest.mark.parametrize(
    ("words", "stem"),
    [
        (("render", "renders", "rendered", "rendering"), "render"),
        (("apply", "applies", "applied", "applying"), "appli"),
        (("create", "created", "creates"), "create"),
        (("use", "using", "used"), "use"),
        (("hop", "hopping", "hopped"), "hop"),
        (("hope", "hoping", "hoped"), "hope"),
        (("add", "added", "adding"), "add"),
    ],
)
def test_the_inflections_of_a_word_share_its_inflection_stem(
    words: tuple[str, ...], stem: str
) -> None:
    assert {inflection_stem(w) for w in words} == {stem}


def test_derivations_keep_their_own_stem() -> None:
    """What the whole algorithm conflates, the inflection stem keeps apart."""
    assert porter2("operator") == porter2("operation") == "oper"
    assert inflection_stem("operator") != inflection_stem("operation")
    assert porter2("custom") == porter2("customer")
    assert inflection_stem("custom") != inflection_stem("customer")


@pytest.mark.parametrize("word", ["", "a", "an", "Rendering", "réglage", "x86", "api_key"])
def test_other_words_are_left_as_they_are(word: str) -> None:
    assert porter2(word) == inflection_stem(word) == word
