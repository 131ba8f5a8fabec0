"""Writerside's elements written in markdown topics (ktor's `.md` pages), read line for line as
the page shows them: wrappers (`<tldr>`, `<tabs>`, `<compare>`, `<deflist>`) leave their
content, a titled `<tab>` or `<def>` its title as a label, an XML `<code-block>` a fence,
`<link-summary>` and the chrome's elements nothing, inline `<path>`/`<control>`/`<emphasis>`
their markdown, a blockquote styled `{style="note"}` its label. Moved out of writerside.py
(the project, its includes and trees).
"""

from __future__ import annotations

import re

from docsmcp.sources.formats.markdown.fences import fenced_lines

# Alone on a line: elements only the site's chrome shows, and the wrappers whose content shows.
_HIDDEN_LINE = re.compile(
    r"^[ \t]*<(?:show-structure|primary-label|secondary-label|var|seealso|img)\b[^<>]*/>[ \t]*$"
)
_WRAPPER_LINE = re.compile(
    r"^[ \t]*(?:</?(?:tldr|tabs|tab|compare|deflist|def|snippet|procedure|step|list|chapter|p)"
    r"|</(?:note|tip|warning))\b[^<>]*>[ \t]*$"
)
_SUMMARY_OPEN = re.compile(r"^[ \t]*<(link-summary|web-summary|card-summary)\b[^<>]*>")
# A titled element opening a line: its title is a label over what it holds.
_TITLED = re.compile(
    r'^([ \t]*)<(tab|def|procedure|step|chapter)\b[^<>]*?\btitle="([^"]*)"[^<>]*>[ \t]*(.*?)'
    r"(?:</\2>)?[ \t]*$"
)
_COMPARE = re.compile(
    r'^([ \t]*)<compare\b[^<>]*?first-title="([^"]*)"[^<>]*?second-title="([^"]*)"'
)
_INLINE_CODE = re.compile(r"<(code|path|ui-path|shortcut)>([^<>\n]*)</\1>")
_INLINE_BOLD = re.compile(r"<(control|b)>([^<>\n]*)</\1>")
_INLINE_ITALIC = re.compile(r"<(emphasis|i)>([^<>\n]*)</\1>")
# An XML code block written in a markdown topic (ktor: 36), its text on the lines between.
_CODE_OPEN = re.compile(
    r'^([ \t]*)<code-block\b(?![^<>]*/>)(?:[^<>]*?\blang="([^"]*)")?[^<>]*>[ \t]*$'
)
_CODE_CLOSE = re.compile(r"^[ \t]*</code-block>[ \t]*$")
_CDATA_LINE = re.compile(r"^[ \t]*(?:<!\[CDATA\[|\]\]>)[ \t]*$")
_CALLOUT_LINE = re.compile(r"^([ \t]*)<(note|tip|warning)>[ \t]*$")
_TITLE_LINE = re.compile(r"^([ \t]*)<title>(.*)</title>[ \t]*$")
# `{style="note"}` under a blockquote: a callout (ktor: 95).
_STYLE = re.compile(r'^[ \t]*\{style="(note|tip|warning)"[^{}\n]*\}[ \t]*$')


def markdown_lines(lines: list[str]) -> list[str]:
    """A markdown topic's Writerside elements as its page shows them, line for line: wrappers
    (`<tldr>`, `<tabs>`, `<compare>`, `<deflist>`) leave their content, a titled `<tab>` or
    `<def>` its title as a label, `<link-summary>` and the chrome's elements nothing, inline
    `<path>`/`<control>`/`<emphasis>` their markdown, a blockquote styled as a note its
    label."""
    code = fenced_lines(lines)
    out = list(lines)
    summary = ""  # the summary element being skipped
    block: tuple[str, int] | None = None  # an XML code block being read: (indent, shift)
    for i, line in enumerate(lines):
        if block is not None:
            if _CODE_CLOSE.match(line):
                out[i], block = f"{block[0]}```", None
            elif _CDATA_LINE.match(line):
                out[i] = ""
            else:  # (its text keeps the block's indent: a tab's code stays in its list item)
                shift = block[1]
                out[i] = line[shift:] if not line[:shift].strip() else line.lstrip()
            continue
        if code[i] or ("<" not in line and "{style=" not in line and not summary):
            continue
        if (m := _CODE_OPEN.match(line)) and (
            end := next((j for j in range(i + 1, len(lines)) if _CODE_CLOSE.match(lines[j])), 0)
        ):
            body = [x for x in lines[i + 1 : end] if x.strip() and not _CDATA_LINE.match(x)]
            width = min((len(x) - len(x.lstrip()) for x in body), default=0)
            indent = _kept(m.group(1))
            block = (indent, max(0, width - len(indent)))
            out[i] = f"{indent}```{(m.group(2) or '').lower()}"
            continue
        if summary:
            out[i] = ""
            summary = "" if f"</{summary}>" in line else summary
        elif m := _SUMMARY_OPEN.match(line):
            out[i] = ""
            summary = "" if f"</{m.group(1)}>" in line else m.group(1)
        elif _HIDDEN_LINE.match(line):
            out[i] = ""
        elif m := _TITLED.match(line):
            out[i] = f"{_kept(m.group(1))}{m.group(3)}:" + (
                f" {_inline(m.group(4))}" if m.group(4) else ""
            )
        elif m := _COMPARE.match(line):
            out[i] = f"{_kept(m.group(1))}{m.group(2)} / {m.group(3)}:"
        elif m := _CALLOUT_LINE.match(line):  # (its text follows: `<p>`, closed by `</note>`)
            out[i] = f"{_kept(m.group(1))}{m.group(2).capitalize()}:"
        elif m := _TITLE_LINE.match(line):
            out[i] = f"{_kept(m.group(1))}{_inline(m.group(2))}:"
        elif _WRAPPER_LINE.match(line):
            out[i] = ""
        elif (m := _STYLE.match(line)) and i and lines[i - 1].lstrip().startswith(">"):
            out[i] = ""
            first = i - 1
            while first > 0 and lines[first - 1].lstrip().startswith(">"):
                first -= 1
            head, _, rest = out[first].partition(">")
            out[first] = f"{head}> {m.group(1).capitalize()}: {rest.lstrip()}"
        else:
            out[i] = _inline(line)
    return out


def _kept(indent: str) -> str:
    """An element's indent as markdown may keep it: XML indents its children freely, and four
    columns would make what the element shows an indented code block."""
    return indent if len(indent.expandtabs(4)) < 4 else ""


def _inline(line: str) -> str:
    if "<" not in line:
        return line
    line = _INLINE_CODE.sub(lambda m: f"`{m.group(2)}`", line)
    line = _INLINE_BOLD.sub(lambda m: f"**{m.group(2)}**", line)
    return _INLINE_ITALIC.sub(lambda m: f"*{m.group(2)}*", line)
