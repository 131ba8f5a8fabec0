"""Which lines of markdown are inside fenced code blocks: one tracker for every pre-parse pass
(MDX import stripping, admonitions, inline chunking hints, eval heading judging).

CommonMark rules, with one widening: a fence may be indented any amount, because fences nested
in list items are indented further and what is inside them is code all the same.
- an opening fence is 3+ backticks or 3+ tildes; a backtick fence's info string cannot contain
  a backtick, so a one-line ```js``` span opens nothing;
- the block closes at a fence of the same character, at least as long, with nothing after it
  but spaces (an unclosed block runs to the end of the text).
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")


# The last lines given and their flags: a file's passes (dialect rewrite, admonitions of the
# display and of the parse lines) mostly ask about the same lines, one after the other.
_last: tuple[list[str], list[bool]] = ([], [])


def fenced_lines(lines: list[str]) -> list[bool]:
    """For each line, whether it belongs to a fenced code block (fence lines included)."""
    global _last
    if lines == _last[0]:  # (equal lines are mostly the same objects: a cheap comparison)
        return list(_last[1])
    flags = _fenced_lines(lines)
    _last = (list(lines), list(flags))
    return flags


def _fenced_lines(lines: list[str]) -> list[bool]:
    flags: list[bool] = []
    fence: str | None = None  # the opening fence while inside a block
    for line in lines:
        m = _FENCE.match(line)
        if fence is None:
            opens = m is not None and not (m.group(1)[0] == "`" and "`" in m.group(2))
            if opens:
                assert m is not None
                fence = m.group(1)
            flags.append(opens)
            continue
        flags.append(True)
        if (
            m is not None
            and m.group(1)[0] == fence[0]
            and len(m.group(1)) >= len(fence)
            and not m.group(2).strip()
        ):
            fence = None
    return flags


def fence_for(lines: list[str]) -> str:
    """A backtick fence that no run of backticks in `lines` closes (three at least): what a
    block made of another file's lines is written with."""
    longest = max((len(r) for line in lines for r in re.findall("`+", line)), default=0)
    return "`" * max(3, longest + 1)


def code_block(indent: str, info: str, lines: list[str]) -> list[str]:
    """`lines` (another file's) as a fenced block with `info` (its language, options), at
    `indent`."""
    fence = fence_for(lines)
    return [f"{indent}{fence}{info}", *lines, f"{indent}{fence}"]


def code_span(text: str) -> str:
    """`text` as an inline code span on one line: runs of whitespace one space, backticks
    inside it fenced by a longer run (CommonMark), "" for blank text."""
    text = " ".join(text.split())
    if not text:
        return ""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"
