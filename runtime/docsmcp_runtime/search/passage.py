"""The passage of a long section that a query is about (issue 16, direction 6: smaller hits).

`get_doc(chunk_id, query=...)` returns, for a section longer than PASSAGE_CHARS, only the window
of whole lines (at most PASSAGE_CHARS characters) where the query's words are densest, and says
which characters of the section it holds; `get_doc` without `query` still returns the whole
section. Ranking is untouched: this only trims what an agent reads of a hit it already has.
"""

from __future__ import annotations

import bisect
import re

from .snippets import query_words, word_regex

# What an agent reads of one hit at most when it passes the query: sized so the mean read per
# hit stays under 2,000 characters on every dev corpus (most sections are shorter and whole).
PASSAGE_CHARS = 2000
# Words that say little about where an answer is; they still count, a tenth as much.
_FUNCTION_WORDS = frozenset(
    "a an and are as at be by can do does for from how i in is it my of on or our should "
    "that the this to we what when where which why will with would you your".split()
)
_LIGHT = 0.1


def passage_pattern(query: str) -> re.Pattern[str] | None:
    """Every word of the query (function words too: they weigh a tenth), as snippets match."""
    return word_regex(query_words(query))


def best_passage(
    text: str, pattern: re.Pattern[str] | None, width: int = PASSAGE_CHARS
) -> tuple[int, int] | None:
    """(start, end) of the window of `text` to return, or None when the text fits in `width`.

    Windows start at a line start and end at the last line end that fits (a single line longer
    than `width` is cut). The best window holds the most distinct query words (function words
    weigh a tenth), then the most matches; ties go to the earliest, and a text without any
    query word gives its head. Linear in lines plus matches."""
    if len(text) <= width:
        return None
    starts = [0] + [m.end() for m in re.finditer("\n", text) if m.end() < len(text)]
    ends = [s - 1 for s in starts[1:]] + [len(text)]  # each line's end (before its newline)
    matches = [(m.start(), m.group().lower()) for m in pattern.finditer(text)] if pattern else []
    best = (-1.0, -1, 0, 0)
    lo = hi = 0  # matches[lo:hi] lie inside the current window
    inside: dict[str, int] = {}
    score = 0.0
    for i, start in enumerate(starts):
        limit = start + width
        j = bisect.bisect_right(ends, limit) - 1
        # A first line longer than the window is cut; so is an empty one (no empty window).
        end = ends[j] if j >= i and ends[j] > start else limit
        while lo < len(matches) and matches[lo][0] < start:
            word = matches[lo][1]
            if lo < hi:
                inside[word] -= 1
                if not inside[word]:
                    del inside[word]
                    score -= _LIGHT if word in _FUNCTION_WORDS else 1.0
            lo += 1
        hi = max(hi, lo)
        while hi < len(matches) and matches[hi][0] < end:
            word = matches[hi][1]
            if word not in inside:
                score += _LIGHT if word in _FUNCTION_WORDS else 1.0
            inside[word] = inside.get(word, 0) + 1
            hi += 1
        # A window that ends early since its next line is long shrinks; keep it if it wins.
        candidate = (round(score, 6), hi - lo, -start, end)
        if candidate[:3] > best[:3]:
            best = candidate
        if end >= len(text):
            break
    if best[1] <= 0:  # no query word anywhere: the head (whole lines, else cut at the width)
        fit = ends[bisect.bisect_right(ends, width) - 1] if ends[0] <= width else 0
        return 0, fit if fit > 0 else width
    return -best[2], best[3]
