"""React Router's mode badges (reactrouter.com): a paragraph `[MODES: framework, data]` under an
API page's title is drawn as the icons of the modes the API works in (framework, data,
declarative; "across the docs you'll see these icons indicating which mode the content is
relevant to"). It reads as the line `Modes: framework, data` (dialects.rewrite calls `read`),
and a heading whose section holds nothing else is the title of what follows, as a bare heading
is (chunk.py merges it forward): 138 of the site's 892 chunks were a title and this line alone,
and "useFetcher" ranked `useFetcher.md#usefetcher` (`[MODES: framework, data]`) first.
"""

from __future__ import annotations

import re

_MODE = r"(?:framework|data|declarative)"
# As the pages write it (`[MODES: framework ,data]` too), alone on its line, outside code.
_MARKER = re.compile(
    rf"([ \t]{{0,3}})\[MODES:[ \t]*({_MODE}(?:[ \t]*,[ \t]*{_MODE})*)[ \t]*\][ \t]*"
)
# The line as read, which chunk.py recognises (a paragraph's searchable text).
_READ = re.compile(rf"Modes: {_MODE}(?:, {_MODE})*")


def may_hold(text: str) -> bool:
    """Whether `read` could change a file's `text` (a substring test: most files hold none)."""
    return "[MODES:" in text


def read(lines: list[str], code: list[bool]) -> list[str]:
    """``lines`` with each marker line outside code (``code``: fences.fenced_lines) read as
    `Modes: a, b`; the line count is kept."""
    out = list(lines)
    for i, (line, in_code) in enumerate(zip(lines, code, strict=True)):
        if not in_code and (m := _MARKER.fullmatch(line)) is not None:
            modes = ", ".join(mode.strip() for mode in m.group(2).split(","))
            out[i] = f"{m.group(1)}Modes: {modes}"
    return out


def is_badge(text: str) -> bool:
    """Whether a paragraph's text is a mode badge line as `read` writes it."""
    return _READ.fullmatch(text.strip()) is not None
