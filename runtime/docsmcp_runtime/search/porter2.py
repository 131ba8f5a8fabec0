"""The Porter2 ("Snowball English") stemmer, for the stem variants of a query's words.

The index keeps words as written (with plurals folded: analyzer.stem); a query word also
reaches the other inflections of its word (`render` -> `rendering`, `rendered`) at a lower
weight (search/stems.py). The builder groups the dictionary's words by `inflection_stem` and the
runtime stems the query's words with it, so both sides need the one implementation here: the
runtime depends on numpy and pyarrow only. The rules are those of
https://snowballstem.org/algorithms/english/stemmer.html as Snowball 3.1 has them;
tests/test_porter2.py checks `porter2`, the whole algorithm of which `inflection_stem` is the
first steps, word for word against the Snowball project's own Python stemmer.
"""

from __future__ import annotations

from functools import lru_cache

_VOWELS = frozenset("aeiouy")
_DOUBLES = ("bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt")
_LI_ENDINGS = frozenset("cdeghkmnrt")
# Words whose stem the rules would get wrong, and words left as they are.
_EXCEPTIONS = {
    "skis": "ski",
    "skies": "sky",
    "dying": "die",
    "lying": "lie",
    "tying": "tie",
    "idly": "idl",
    "gently": "gentl",
    "ugly": "ugli",
    "early": "earli",
    "only": "onli",
    "singly": "singl",
    "sky": "sky",
    "news": "news",
    "howe": "howe",
    "atlas": "atlas",
    "cosmos": "cosmos",
    "bias": "bias",
    "andes": "andes",
}
# Checked after step 1a: left as they are.
_INVARIANT_1A = frozenset(
    {"inning", "outing", "canning", "herring", "earring", "proceed", "exceed", "succeed"}
    | {"evening"}
)
# Prefixes after which R1 starts (the rule would put it elsewhere).
_R1_PREFIXES = (
    "gener", "commun", "arsen", "past", "univers", "later", "emerg", "organ", "inter",
)  # fmt: skip

_STEP2 = (
    ("ization", "ize"),
    ("ational", "ate"),
    ("fulness", "ful"),
    ("ogist", "og"),
    ("ousness", "ous"),
    ("iveness", "ive"),
    ("tional", "tion"),
    ("biliti", "ble"),
    ("lessli", "less"),
    ("entli", "ent"),
    ("ation", "ate"),
    ("alism", "al"),
    ("aliti", "al"),
    ("ousli", "ous"),
    ("iviti", "ive"),
    ("fulli", "ful"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("abli", "able"),
    ("izer", "ize"),
    ("ator", "ate"),
    ("alli", "al"),
    ("bli", "ble"),
    ("ogi", "og"),
    ("li", ""),
)
_STEP3 = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("alize", "al"),
    ("icate", "ic"),
    ("iciti", "ic"),
    ("ative", ""),
    ("ical", "ic"),
    ("ness", ""),
    ("ful", ""),
)
_STEP4 = (
    "ement", "ance", "ence", "able", "ible", "ment", "ant", "ent", "ism", "ate", "iti", "ous",
    "ive", "ize", "ion", "al", "er", "ic",
)  # fmt: skip


def _vowel(word: str, i: int) -> bool:
    return word[i] in _VOWELS


def _region(word: str, start: int) -> int:
    """Where the region after the first non-vowel following a vowel (from `start`) begins."""
    for i in range(start + 1, len(word)):
        if word[i] not in _VOWELS and word[i - 1] in _VOWELS:
            return i + 1
    return len(word)


def _short_syllable_at_end(word: str) -> bool:
    """Whether `word` ends in a short syllable: a vowel then a non-vowel other than w, x or Y
    after a non-vowel, or a vowel then a non-vowel at the start of the word (a two-letter word);
    `past` is the Snowball rule's one further case."""
    n = len(word)
    if n >= 3:
        a, b, c = word[-3], word[-2], word[-1]
        if a not in _VOWELS and b in _VOWELS and c not in _VOWELS and c not in "wxY":
            return True
    if n == 2:
        return word[0] in _VOWELS and word[1] not in _VOWELS
    return word.endswith("past")


def _step1b(word: str, r1: int) -> str:
    for suffix in ("eedly", "eed"):
        if word.endswith(suffix):
            if len(word) - len(suffix) >= r1:
                return word[: -len(suffix)] + "ee"
            return word
    for suffix in ("ingly", "edly", "ing", "ed"):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            if not any(c in _VOWELS for c in stem):
                return word
            if stem.endswith(("at", "bl", "iz")):
                return stem + "e"
            if stem.endswith(_DOUBLES):
                # "add", "egg", "off" keep theirs (Snowball's rule: a, e or o, then the double)
                return stem if len(stem) == 3 and stem[0] in "aeo" else stem[:-1]
            if r1 >= len(stem) and _short_syllable_at_end(stem):
                return stem + "e"
            return stem
    return word


def _inflected(word: str) -> tuple[str, int, int, bool]:
    """Steps 0 to 1c (the inflectional endings: -s, -es, -ied, -ed, -ing, -ly after -ed/-ing, a
    final y after a consonant) of a lower-case ASCII word of three or more letters, with `Y`
    for a y that is a consonant; R1 and R2 where they start; and whether the word is done (an
    exceptional form, or one left as it is after step 1a)."""
    if word in _EXCEPTIONS:
        return _EXCEPTIONS[word], len(word), len(word), True
    # y at the start or after a vowel is a consonant: Y, for the rules below.
    chars = list(word)
    for i, c in enumerate(chars):
        if c == "y" and (i == 0 or chars[i - 1] in _VOWELS):
            chars[i] = "Y"
    w = "".join(chars)
    r1 = next((len(p) for p in _R1_PREFIXES if w.startswith(p)), None)
    if r1 is None:
        r1 = _region(w, 0)
    r2 = _region(w, r1 - 1) if r1 < len(w) else len(w)
    # Step 0 needs no work: words hold no apostrophe. Step 1a:
    if w.endswith("sses"):
        w = w[:-2]
    elif w.endswith(("ied", "ies")):
        w = w[:-2] if len(w) > 4 else w[:-1]
    elif w.endswith(("us", "ss")):
        pass
    elif w.endswith("s") and any(c in _VOWELS for c in w[:-2]):
        w = w[:-1]
    if w in _INVARIANT_1A:
        return w, r1, r2, True
    w = _step1b(w, r1)
    # Step 1c: a final y (or Y) after a non-vowel that is not the first letter becomes i.
    if len(w) > 2 and w[-1] in "yY" and w[-2] not in _VOWELS:
        w = w[:-1] + "i"
    return w, r1, r2, False


def _stemmable(word: str) -> bool:
    return len(word) > 2 and word.isascii() and word.isalpha() and word.islower()


@lru_cache(maxsize=65536)
def inflection_stem(word: str) -> str:
    """Porter2's steps 0 to 1c alone: a lower-case word without its inflectional ending
    (`rendering`, `rendered` -> `render`; `applies`, `applying` -> `appli`), derivational ones
    kept (`operator` stays apart from `operation`, where the whole algorithm makes both
    `oper`). Any other word, or one of two letters or fewer, is returned as it is."""
    if not _stemmable(word):
        return word
    return _inflected(word)[0].replace("Y", "y")


@lru_cache(maxsize=65536)
def porter2(word: str) -> str:
    """The whole Porter2 stem of a lower-case word (any other word, or one of two letters or
    fewer, is returned as it is): steps 2 to 5 after `inflection_stem`'s."""
    if not _stemmable(word):
        return word
    w, r1, r2, done = _inflected(word)
    if done:
        return w
    for suffix, repl in _STEP2:
        if w.endswith(suffix):
            if len(w) - len(suffix) >= r1:
                if suffix == "ogi":
                    if w[-4] == "l":
                        w = w[:-1]
                elif suffix == "li":
                    if w[-3] in _LI_ENDINGS:
                        w = w[:-2]
                else:
                    w = w[: -len(suffix)] + repl
            break
    for suffix, repl in _STEP3:
        if w.endswith(suffix):
            if len(w) - len(suffix) >= r1 and (suffix != "ative" or len(w) - 5 >= r2):
                w = w[: -len(suffix)] + repl
            break
    for suffix in _STEP4:
        if w.endswith(suffix):
            if len(w) - len(suffix) >= r2 and (suffix != "ion" or w[-4:-3] in ("s", "t")):
                w = w[: -len(suffix)]
            break
    if w.endswith("e"):
        at = len(w) - 1
        if at >= r2 or (at >= r1 and not _short_syllable_at_end(w[:-1])):
            w = w[:-1]
    elif w.endswith("ll") and len(w) - 1 >= r2:
        w = w[:-1]
    return w.replace("Y", "y")
