"""The snippet of a hit: a window of its text around the densest cluster of query words.

Query words are matched by prefix at word starts (`link` finds "links" and "linksUpsert"), case
aside. A hit list builds ten snippets, and matching was most of `search_docs`' time (a regex
alternation with IGNORECASE over each whole text, ~55 µs a speakeasy-sdks chunk): the same
matches are found with `bytes.find` over the text lower-cased as ASCII bytes, one pass per word,
for ASCII query words (other characters are a `?` there); the regex is the reference (tests)
and matches what case rules beyond ASCII decide (`ı`, `ſ`, `İ`, query words not in ASCII).
"""

from __future__ import annotations

import re

from ..format import DEFAULT_STOPWORDS
from ..records import record

# Characters a snippet shows (about 60 before the first matched word).
SNIPPET_CHARS = 240
_WORD = re.compile(r"\w+", re.UNICODE)
# Stop words place no window ("with", "the" match everywhere) and were half the time of a long
# question's snippets; a query of nothing else keeps them.
_STOPWORDS = frozenset(DEFAULT_STOPWORDS)


def query_words(query: str) -> list[str]:
    """The query's distinct words of two characters or more, lower-cased, longest first."""
    return sorted({w.lower() for w in _WORD.findall(query) if len(w) > 1}, key=len, reverse=True)


def word_regex(words: list[str]) -> re.Pattern[str] | None:
    """One alternation over `words` (longest first), each word a prefix at a word start and its
    own group, case aside; None for no words. Long words lose their last letter, so a plural or
    a verb form still matches ("paginate" finds "paginated")."""
    stems = _stems(words)
    if not stems:
        return None
    # `\b`, not `(?<!\w)`: the same matches (every stem starts with a word character), ~40 %
    # faster.
    return re.compile(r"\b(?:" + "|".join(f"({re.escape(s)})" for s in stems) + ")", re.I)


def _stems(words: list[str]) -> tuple[str, ...]:
    return tuple(w[:-1] if len(w) > 4 else w for w in words)


@record
class SnippetPattern:
    """What snippets of one query match: its words' stems (group k + 1 of `regex` is stem k),
    their lengths, and each as UTF-8 bytes (what word_hits finds)."""

    stems: tuple[str, ...]
    regex: re.Pattern[str]
    lengths: tuple[int, ...]
    keys: tuple[bytes, ...]


def snippet_pattern(query: str) -> SnippetPattern | None:
    """The words of `query` a snippet looks for, without stop words; None for none."""
    words = query_words(query)
    words = [w for w in words if w not in _STOPWORDS] or words
    regex = word_regex(words)
    if regex is None:
        return None
    stems = _stems(words)
    return SnippetPattern(
        stems, regex, tuple(len(s) for s in stems), tuple(s.encode() for s in stems)
    )


def word_hits(text: str, pattern: SnippetPattern) -> list[tuple[int, int]]:
    """(position, group number) of each match of `pattern.regex` in `text`, as `finditer`
    finds them (leftmost; the first of the stems matching there; never overlapping)."""
    low = _ascii_lower(text, pattern.stems)
    if low is None:
        # Unicode case rules are more than lower(): `Σ` lower-cases to `ς` at a word's end,
        # `İ` to two characters, IGNORECASE matches `ı` with `i`. The regex knows them.
        return [(m.start(), m.lastindex or 0) for m in pattern.regex.finditer(text)]
    found: list[tuple[int, int]] = []
    find = low.find
    for k, stem in enumerate(pattern.keys, start=1):
        at = find(stem)
        while at >= 0:
            # `\b`: no word character before (a `?` may stand for any other character).
            if not at or (
                low[at - 1] not in _WORD_BYTES
                if low[at - 1] != _REPLACED
                else not (text[at - 1].isalnum() or text[at - 1] == "_")
            ):
                found.append((at, k))
            at = find(stem, at + 1)
    found.sort()
    out: list[tuple[int, int]] = []
    end = 0
    lengths = pattern.lengths
    for at, k in found:
        if at >= end:
            out.append((at, k))
            end = at + lengths[k - 1]
    return out


# ASCII word characters (`\w`), as bytes of _ascii_lower's text, and its `?`.
_WORD_BYTES = frozenset(b for b in range(128) if chr(b).isalnum() or b == ord("_"))
_REPLACED = ord("?")
# Characters IGNORECASE matches with an ASCII letter that lower() leaves apart (Python's sre:
# `ı` with `i`, `ſ` with `s`), and `İ`, whose lower case is two characters (`i` and a dot).
_REGEX_ONLY = ("\u0131", "\u017f", "\u0130")
# The Kelvin sign: the one other character whose lower case is ASCII (`k`).
_KELVIN = "\u212a"


def _ascii_lower(text: str, stems: tuple[str, ...]) -> bytes | None:
    """`text` lower-cased as ASCII bytes, one a character, in which bytes.find finds what the
    regex finds in `text`, at the same positions; None where only the regex knows (non-ASCII
    stems, `ı`, `ſ`, `İ`). ASCII stems match ASCII letters only, so every other character is
    a `?` (word_hits asks the text whether one is a word character): lower() of a text with
    speakeasy-sdks' ✔️ and ➖ columns did a Unicode lookup per character (~40 µs for 5,000
    characters), the encoding copies (issue 30)."""
    if not text.isascii():
        if not all(s.isascii() for s in stems) or any(c in text for c in _REGEX_ONLY):
            return None
        if _KELVIN in text:
            text = text.lower()
    return text.encode("ascii", "replace").lower()


def snippet(text: str, pattern: SnippetPattern | None, width: int = SNIPPET_CHARS) -> str:
    """A window of the original text (original case) around the densest cluster of query words."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    hits = word_hits(flat, pattern) if pattern else []
    start = 0
    if hits:
        # Sliding window over match positions: the start whose window holds most distinct words.
        best, best_count = hits[0][0], 0
        inside: dict[int, int] = {}
        j, n = 0, len(hits)
        for pos, word in hits:
            while j < n and hits[j][0] < pos + width - 60:
                inside[hits[j][1]] = inside.get(hits[j][1], 0) + 1
                j += 1
            if len(inside) > best_count:
                best, best_count = pos, len(inside)
            inside[word] -= 1
            if not inside[word]:
                del inside[word]
        start = max(0, best - 60)
    end = min(len(flat), start + width)
    start = max(0, end - width)
    if start > 0:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    if end < len(flat):
        space = flat.rfind(" ", start, end)
        end = space if space > end - 20 else end
    return ("…" if start > 0 else "") + flat[start:end].strip() + ("…" if end < len(flat) else "")
