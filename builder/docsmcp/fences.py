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

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$", re.MULTILINE)


def fenced_lines(lines: list[str]) -> list[bool]:
    """For each line, whether it belongs to a fenced code block (fence lines included).

    The fence lines are found by one regex over the joined text (a loop over every line was
    ~5 % of a build: four passes call this), then the lines between are marked by slices."""
    flags = [False] * len(lines)
    text = "\n".join(lines)
    if "```" not in text and "~~~" not in text:
        return flags
    fence: str | None = None  # the opening fence while inside a block
    opened = 0  # the line of the opening fence
    line = 0  # the line of the current match
    pos = 0  # where `line` starts counting from
    for m in _FENCE.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        run, rest = m.group(1), m.group(2)
        if fence is None:
            if not (run[0] == "`" and "`" in rest):
                fence, opened = run, line
        elif run[0] == fence[0] and len(run) >= len(fence) and not rest.strip():
            flags[opened : line + 1] = [True] * (line + 1 - opened)
            fence = None
    if fence is not None:  # an unclosed block runs to the end of the text
        flags[opened:] = [True] * (len(lines) - opened)
    return flags
