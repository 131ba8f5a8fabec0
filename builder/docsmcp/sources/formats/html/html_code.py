"""Code blocks a markdown page writes as HTML, `<pre class="language-yaml"><code>…</code></pre>`,
read as fenced code of their language, line for line.

GitBook writes a code block so when it highlights lines (`<strong>`, `<mark>` around them): as
an HTML block its lines were read as markdown once their tags were gone, so YAML comments
(`# Spaces`) became headings and indentation went (GitBook's own docs: 23 blocks, 8 false
sections). The block's first code line shares the `<pre>` line, so the fences take the blank
lines around the block: the one before it opens the fence, the `</pre>` line (or the blank one
after it, when code ends that line) closes it. A block without such room, indented, or not
closed within `MAX_LINES` is left as it was. Tags inside go, entities are decoded.
"""

from __future__ import annotations

import html
import re

from docsmcp.sources.formats.markdown.fences import fence_for, fenced_lines

_OPEN = re.compile(r"^<pre\b([^<>]*)>[ \t]*(?:<code\b([^<>]*)>)?(.*)$", re.IGNORECASE)
_CLOSE = re.compile(r"^(.*?)(?:</code>)?[ \t]*</pre>[ \t]*$", re.IGNORECASE)
_LANGUAGE = re.compile(r"""\bclass=["'][^"']*?\b(?:language|lang)-([\w+#.-]+)""", re.IGNORECASE)
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
MAX_LINES = 500


def _code(line: str) -> str:
    return html.unescape(_TAG.sub("", line))


def pre_blocks(lines: list[str]) -> list[str]:
    """`lines` with each `<pre>` code block that has room for its fences as a fenced block."""
    out = list(lines)
    code_lines = fenced_lines(lines)
    i = 1
    while i < len(lines):
        m = _OPEN.match(lines[i]) if lines[i].startswith("<") and not code_lines[i] else None
        if m is None or lines[i - 1].strip():
            i += 1
            continue
        limit = min(len(lines), i + MAX_LINES)
        end = next((j for j in range(i, limit) if "</pre>" in lines[j].lower()), None)
        closing = _CLOSE.match(m.group(3) if end == i else lines[end]) if end is not None else None
        if end is None or closing is None:
            i += 1
            continue
        # The code of each line: the rest of the `<pre>` line, the lines between, the start of
        # the `</pre>` line.
        code = [m.group(3), *lines[i + 1 : end + 1]] if end > i else [m.group(3)]
        code[-1] = closing.group(1)
        if not code[-1].strip():
            code.pop()  # the `</pre>` line closes the fence
        fence_at = i + len(code)
        if fence_at >= len(lines) or (fence_at > end and lines[fence_at].strip()):
            i = end + 1
            continue
        code = [_code(x) for x in code]
        fence = fence_for(code)
        found = _LANGUAGE.search(m.group(2) or "") or _LANGUAGE.search(m.group(1))
        out[i - 1] = fence + (found.group(1).lower() if found else "")
        out[i : i + len(code)] = code
        out[fence_at] = fence
        i = fence_at + 1
    return out
