"""The tokens of the hand lexers of C-family code (rust_lex.py, java_lex.py, kotlin_lex.py,
csharp_lex.py, dart_lex.py: one `Token` for all five) and their bracket groups: tokens whose
`kind` is "open" for `(`, `[`, `{` and "close" for their closers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol


class Token(NamedTuple):
    kind: str
    text: str  # a doc token's text is its content, without `///`, `//!` or `/**`…`*/`
    start: int  # offset in the source (a run of `///` lines: its first line's)
    end: int
    line: int  # 0-based line of `start`


class Kinded(Protocol):
    @property
    def kind(self) -> str: ...


def group_end(toks: Sequence[Kinded], i: int, limit: int | None = None) -> int:
    """The index after the bracket that closes the one opening at `toks[i]` (any closer ends
    any opener: a stray bracket of broken code ends its group, not the file, so the walk goes
    on), or the end (`limit`, else len(toks)) when it is never closed."""
    end = len(toks) if limit is None else limit
    depth = 0
    for k in range(i, end):
        kind = toks[k].kind
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
            if depth <= 0:
                return k + 1
    return end
