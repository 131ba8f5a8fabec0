"""Reference-style links shown with their URL, line by line (a chunk seldom holds the page's
definitions, which CommonMark lets stand anywhere, usually at the page's end):

- `[text][label]` and `[text][]` -> `[text](url)`; a label the page does not define keeps its
  text only (mkdocs autorefs: `[`Model`][pydantic.BaseModel]`);
- the end of a link whose text began on an earlier line, `practices][security]` (OpenTelemetry:
  21), `practices](url)`;
- a shortcut reference, `[text]` alone, when the page defines `text` (Tauri's ``[`Arc`]``: 336);
- a definition's destination may be on the line after its label (CommonMark; OpenTelemetry's
  180 `[security]:` then the URL).

A definition whose destination is no plain URL (spaces, parentheses) leaves its links as
written. Code spans are left alone.
"""

from __future__ import annotations

import re

_REF_DEFINITION = re.compile(r"^[ ]{0,3}\[([^\]\n]+)\]:")
# `[text][ref]` (no `]` inside either part); `text` may hold code spans and emphasis.
_REF_LINK = re.compile(r"\[([^\[\]\n]+)\]\[([^\[\]\n]*)\]")
_REF_LINK_END = re.compile(r"^([^\[\]\n]+)\]\[([^\[\]\n]+)\]")
# `[text]` alone: not an image, a link, a definition or part of `[text][ref]` / `[ref][text]`.
_SHORTCUT_REF = re.compile(r"(?<![\]!\\])\[([^\[\]\n^][^\[\]\n]*)\](?![\[(:])")
# A definition's destination: `<...>` (spaces allowed) or a run of non-blanks.
_REF_URL = re.compile(r"[ \t]*(?:<([^<>\n]*)>|(\S+))")


def _label(text: str) -> str:
    """A label as CommonMark matches them: case and runs of spaces aside."""
    return " ".join(text.split()).lower()


def definitions(lines: list[str], code: list[bool]) -> dict[str, str]:
    """Each reference label the page defines and its URL, where a plain one (else ""; the link
    is then kept as written); the first wins."""
    found: dict[str, str] = {}
    for i, line in enumerate(lines):
        if "]:" not in line or code[i] or not (m := _REF_DEFINITION.match(line)):
            continue
        label = _label(m.group(1))
        if label in found or label.startswith("^"):  # (a footnote's text, `[^1]: While …`)
            continue
        url = _REF_URL.match(line, m.end())
        if url is None and i + 1 < len(lines) and not code[i + 1]:
            url = _REF_URL.match(lines[i + 1])  # CommonMark: the destination may follow
        target = (url.group(1) if url.group(1) is not None else url.group(2)) if url else None
        found[label] = target if target and " " not in target and ")" not in target else ""
    return found


def with_urls(line: str, defined: dict[str, str]) -> str:
    """`line` with its reference links as inline links (`defined`: from `definitions`)."""
    if "][" in line:

        def keep_text(m: re.Match[str]) -> str:
            if line.count("`", 0, m.start()) % 2 == 1:
                return m.group(0)  # in a code span
            url = defined.get(_label(m.group(2) or m.group(1)))
            if url is None:
                return m.group(1)
            return f"[{m.group(1)}]({url})" if url else m.group(0)

        line = _REF_LINK.sub(keep_text, line)
        if "][" in line and (m := _REF_LINK_END.match(line)):
            url = defined.get(_label(m.group(2)))
            if url:
                line = f"{m.group(1)}]({url})" + line[m.end() :]
    if defined and "]" in line:

        def shortcut(m: re.Match[str]) -> str:
            url = defined.get(_label(m.group(1)))
            if not url or line.count("`", 0, m.start()) % 2 == 1:
                return m.group(0)
            return f"[{m.group(1)}]({url})"

        line = _SHORTCUT_REF.sub(shortcut, line)
    return line
