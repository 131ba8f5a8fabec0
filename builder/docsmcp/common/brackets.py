"""Matching brackets in a declaration's text (a signature's parameters, a member's arguments),
for the readers that show declarations without a parser of their language."""

from __future__ import annotations


def closing(text: str, start: int, opening: str = "(", closing_: str = ")") -> int:
    """The offset of the bracket closing the one at `start` (`text[start] == opening`), counting
    nested pairs; -1 when it is never closed. Brackets inside strings are counted too: the
    declarations read this way hold none that matter."""
    depth = 0
    for k in range(start, len(text)):
        ch = text[k]
        if ch == opening:
            depth += 1
        elif ch == closing_:
            depth -= 1
            if depth == 0:
                return k
    return -1
