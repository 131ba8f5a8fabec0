"""The snippet of a hit: a window of its text around the densest cluster of query words.

Query words are matched by prefix at word starts (`link` finds "links" and "linksUpsert"), case
aside. A hit list builds ten snippets, and matching was most of `search_docs`' time (a regex
alternation with IGNORECASE over each whole text, ~55 µs a speakeasy-sdks chunk): the same
matches are found with `str.find` over the lower-cased text, one pass per word, for ASCII texts
(most of any corpus); the regex is the reference (tests) and matches every other text.
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
    """What snippets of one query match: its words' stems (group k + 1 of `regex` is stem k)."""

    stems: tuple[str, ...]
    regex: re.Pattern[str]


def snippet_pattern(query: str) -> SnippetPattern | None:
    """The words of `query` a snippet looks for, without stop words; None for none."""
    words = query_words(query)
    words = [w for w in words if w not in _STOPWORDS] or words
    regex = word_regex(words)
    return SnippetPattern(_stems(words), regex) if regex is not None else None


def word_hits(text: str, pattern: SnippetPattern) -> list[tuple[int, int]]:
    """(position, group number) of each match of `pattern.regex` in `text`, as `finditer`
    finds them (leftmost; the first of the stems matching there; never overlapping)."""
    low = text.lower()
    if not text.isascii() and not _lower_is_enough(text, low, pattern.stems):
        # Unicode case rules are more than lower(): `Σ` lower-cases to `ς` at a word's end,
        # `İ` to two characters, IGNORECASE matches `ı` with `i`. The regex knows them.
        return [(m.start(), m.lastindex or 0) for m in pattern.regex.finditer(text)]
    found: list[tuple[int, int]] = []
    for k, stem in enumerate(pattern.stems, start=1):
        at = low.find(stem)
        while at >= 0:
            before = low[at - 1] if at else " "
            if not (before.isalnum() or before == "_"):  # `\b`: no word character before
                found.append((at, k))
            at = low.find(stem, at + 1)
    found.sort()
    out: list[tuple[int, int]] = []
    end = 0
    for at, k in found:
        if at >= end:
            out.append((at, k))
            end = at + len(pattern.stems[k - 1])
    return out


# Characters IGNORECASE matches with an ASCII letter that lower() leaves apart (Python's sre:
# `ı` with `i`, `ſ` with `s`); the Kelvin sign lower-cases to `k` itself.
_FOLDED_TO_ASCII = ("\u0131", "\u017f")


def _lower_is_enough(text: str, low: str, stems: tuple[str, ...]) -> bool:
    """Whether str.find in `low` finds what the regex finds in non-ASCII `text`: ASCII stems,
    a lower case of the same length (positions kept), and no character IGNORECASE equates with
    an ASCII letter that lower() does not. Docs with emoji or accents (speakeasy-sdks' ✔️ and ➖
    columns) then take the fast path too."""
    return (
        len(low) == len(text)
        and all(s.isascii() for s in stems)
        and not any(c in text for c in _FOLDED_TO_ASCII)
    )


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
