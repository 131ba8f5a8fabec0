"""Markdoc pages (`.mdoc`, or markdown that closes Markdoc tags): the text its renderer shows.

Markdoc extends markdown with tags in `{% %}`: blocks `{% callout type="warning" %}` …
`{% /callout %}`, self-closing `{% partial file="x.md" /%}`, variables `{% $name %}` and
annotations `{% #id .class %}` at the end of a node. The generic template rules of dialects.py
drop a line of one tag and a tag within a line, which left the Markdoc site's every H1
(`# {% $markdoc.frontmatter.title %}`) empty: 20 of its 21 pages had chunk ids under
`#section`. Read here, line by line (no line is added or removed, code is never touched):

- `{% $markdoc.frontmatter.KEY %}` is that front matter value (a string, number or boolean);
  another variable is set by the site's code, which is not read: it shows nothing, as Markdoc
  renders an undefined variable;
- a heading's annotation `{% #id .class %}` (or `id="x"`) is its `{#id}`; classes show nothing;
- `{% callout type="warning" title="X" %}` (and `note`, `hint`, `admonition`) is its label
  `Warning: X`; a tab `{% tab label="npm" %}` its label;
- `{% table %}` … `{% /table %}`, a list per row and `---` between rows, is a pipe table: its
  rows on the table's first lines (the header, the `| --- |` row, the body), the other lines of
  the table blank; a cell's lines are one line there, its code a code span, its annotations
  (`{% colspan=2 %}`) gone;
- a fence's info annotation (```` ``` {% process=false %} ````) is no part of its language.

The other tag lines are left to dialects.py's template rules (a line of one tag leaves nothing,
one written over several lines too). Partials are includes.py's (markdoc_partials.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import partial

from docsmcp.sources.formats.markdown.fences import code_span, fenced_lines

SUFFIXES = (".mdoc", ".markdoc")
# A closing tag (`{% /callout %}`), a self-closing one (`{% partial file="x" /%}`) or a variable
# (`{% $name %}`): Liquid and Jinja close with `{% endname %}`, have no `/%}` and write a
# variable `{{ name }}`; GitBook writes `{% endhint %}`.
# (Not Hugo's `{{% /tab %}}`, which holds one.)
_MARKDOC = re.compile(r"(?<!\{)\{%-?[ \t]*[/$][A-Za-z_][\w.-]*[ \t]*-?%\}(?!\})|[ \t]/%\}(?!\})")
# What a tag holds: anything on its line up to its `%}` (a value may hold `%`: `width="40%"`).
_BODY = r"(?:[^%\n]|%(?!\}))*"
_VARIABLE = re.compile(r"\{%[ \t]*\$([A-Za-z_][\w.-]*)[ \t]*/?%\}")
_FRONTMATTER_VAR = "markdoc.frontmatter."
# A heading's trailing annotation(s): `## Title {% #id .class %}`.
_HEADING = re.compile(r"^([ ]{0,3}#{1,6}[ \t]+.*?)((?:[ \t]*\{%" + _BODY + r"%\})+)[ \t]*$")
_ID = re.compile(r"""(?:^|[\s{])#([\w:.-]+)|\bid=["']([^"'\n]+)["']""")
_LABELLED = re.compile(
    r"^([ \t]*)\{%[ \t]*(callout|note|hint|admonition|tab)\b(" + _BODY + r")%\}[ \t]*$"
)
_ATTR = re.compile(r"""\b([A-Za-z_][\w-]*)=(?:"([^"\n]*)"|'([^'\n]*)'|([\w.-]+))""")
_TABLE_OPEN = re.compile(r"^[ \t]*\{%[ \t]*table\b" + _BODY + r"%\}[ \t]*$")
_TABLE_CLOSE = re.compile(r"^[ \t]*\{%[ \t]*/table[ \t]*%\}[ \t]*$")
_ROW_RULE = re.compile(r"^([ \t]*)(?:-{3,}|\*{3,}|_{3,})[ \t]*$")
_ITEM = re.compile(r"^([ \t]*)[-*+][ \t]+(.*)$")
_FENCE_INFO = re.compile(r"^([ \t]*(?:`{3,}|~{3,})[^`{\n]*?)[ \t]*\{%" + _BODY + r"%\}[ \t]*$")
_LIST_FENCE = re.compile(r"^[ \t]*[-*+][ \t]+(?=`{3,}|~{3,})")
_CELL_HEADING = re.compile(r"^#{1,6}[ \t]+")
_ANY_TAG = re.compile(r"\{%(?:[^%\n]|%(?!\}))*?%\}")
MAX_TABLE_LINES = 2_000  # lines a table may span; one not closed within them is left as it is


def is_markdoc(path: str, body: str) -> bool:
    """Whether the page at `path` is written in Markdoc: an `.mdoc` file, or one that closes a
    Markdoc tag (`{% /name %}`, `/%}`) or shows a variable (`{% $name %}`)."""
    if path.lower().endswith(SUFFIXES):
        return True
    return "{%" in body and _MARKDOC.search(body) is not None


def read(lines: list[str], frontmatter: str | Mapping[str, object]) -> list[str]:
    """`lines` of a Markdoc page with its variables, annotations, labelled tags and tables read
    as the page shows them (module docstring); as many lines."""
    if isinstance(frontmatter, str):
        try:
            frontmatter = json.loads(frontmatter)
        except ValueError:
            frontmatter = {}
    data = frontmatter if isinstance(frontmatter, Mapping) else {}
    # A fence may open a list item (`- ```js`, a table's cell): its lines are code too.
    code = fenced_lines(
        [_LIST_FENCE.sub(_spaces, x) if "``" in x or "~~" in x else x for x in lines]
    )
    out = list(lines)
    i = 0
    while i < len(out):
        line = out[i]
        if "{%" not in line:
            i += 1
            continue
        if code[i]:
            if (i == 0 or not code[i - 1]) and (m := _FENCE_INFO.match(line)):
                out[i] = m.group(1)  # (an opening fence's `{% process=false %}`)
            i += 1
            continue
        if _TABLE_OPEN.match(line) and (end := _table_end(out, code, i)) is not None:
            out[i : end + 1] = table(out[i : end + 1], code[i : end + 1])
            i = end + 1
            continue
        out[i] = read_line(line, data)
        i += 1
    return out


def read_line(line: str, frontmatter: Mapping[str, object]) -> str:
    """One line outside code: variables, a heading's annotation, a labelled tag."""
    if "$" in line:
        line = _VARIABLE.sub(lambda m: _value(m, line, frontmatter), line)
    if (m := _HEADING.match(line)) is not None:
        anchor = _ID.search(m.group(2))
        title = m.group(1).rstrip()
        return f"{title} {{#{anchor.group(1) or anchor.group(2)}}}" if anchor else title
    if (m := _LABELLED.match(line)) is not None:
        attrs = _attributes(m.group(3))
        if m.group(2) == "tab":
            return m.group(1) + (attrs.get("label") or attrs.get("title") or "")
        kind = (attrs.get("type") or attrs.get("style") or m.group(2)).capitalize()
        title = attrs.get("title", "")
        return f"{m.group(1)}{kind}: {title}" if title else f"{m.group(1)}{kind}"
    return line


def _value(m: re.Match[str], line: str, frontmatter: Mapping[str, object]) -> str:
    """What a variable shows: a front matter value, else nothing (in a code span: as written)."""
    if line.count("`", 0, m.start()) % 2:
        return m.group(0)
    name = m.group(1)
    if not name.startswith(_FRONTMATTER_VAR):
        return ""
    value = frontmatter.get(name[len(_FRONTMATTER_VAR) :])
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, (str, int, float)) else ""


def _attributes(text: str) -> dict[str, str]:
    return {
        m.group(1): next((g for g in m.groups()[1:] if g is not None), "")
        for m in _ATTR.finditer(text)
    }


def _table_end(lines: list[str], code: list[bool], start: int) -> int | None:
    """The line of the `{% /table %}` closing the table opened at `start` (nested ones
    counted), None when it is not closed within MAX_TABLE_LINES."""
    depth = 0
    for j in range(start, min(len(lines), start + MAX_TABLE_LINES)):
        if code[j]:
            continue
        if _TABLE_OPEN.match(lines[j]):
            depth += 1
        elif _TABLE_CLOSE.match(lines[j]):
            depth -= 1
            if depth == 0:
                return j
    return None


def table(lines: list[str], code: list[bool]) -> list[str]:
    """A Markdoc table (its opening line to its closing line) as pipe rows on its first lines,
    the rest blank: as many lines. One with no list item is left as it is but for its tags."""
    inner = lines[1:-1]
    indents = [
        len(x) - len(x.lstrip()) for k, x in enumerate(inner) if not code[k + 1] and _ITEM.match(x)
    ]
    base = min(indents, default=None)
    if base is None:
        return ["", *inner, ""]
    rows: list[list[list[str]]] = [[]]
    for k, line in enumerate(inner):
        in_code = code[k + 1]
        rule = None if in_code else _ROW_RULE.match(line)
        if rule is not None and len(rule.group(1).expandtabs(4)) <= base:
            rows.append([])
            continue
        opens = in_code and not code[k]  # (a cell may open with its fence: `- ```js`)
        item = None if in_code and not opens else _ITEM.match(line)
        if item is not None and len(item.group(1).expandtabs(4)) == base:
            rows[-1].append([("\0" if in_code else "") + item.group(2)])
        elif rows[-1] and line.strip():
            rows[-1][-1].append(("\0" if in_code else "") + line.strip())
    # The first list is the header (Markdoc's transforms/table.ts); a table opening with `---`
    # has none: its header row is empty.
    cells = [[] if not rows[0] else [_cell(c) for c in rows[0]]]
    cells += [[_cell(c) for c in row] for row in rows[1:] if row]
    if len(cells) == 1 and not cells[0]:
        return ["", *inner, ""]
    width = max(len(row) for row in cells)
    shown = [_row(cells[0], width), "|" + " --- |" * width]
    shown += [_row(row, width) for row in cells[1:]]
    shown = shown[: len(lines) - 1]  # (fits: every row takes a line and a rule, the closer one)
    return [*shown, *[""] * (len(lines) - len(shown))]


def _spaces(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


def _cell(parts: list[str]) -> str:
    """A cell's lines as one line: code lines a code span, fences and annotations gone."""
    words: list[str] = []
    snippet: list[str] = []
    for part in parts:
        if part.startswith("\0"):
            text = part[1:]
            if not re.match(r"^(`{3,}|~{3,})", text):
                snippet.append(text)
            continue
        if snippet:
            words.append(code_span(" ".join(snippet)))
            snippet = []
        part = _CELL_HEADING.sub("", part)  # (a heading in a cell: its words)
        words.append(_ANY_TAG.sub(partial(_kept, text=part), part).strip())
    if snippet:
        words.append(code_span(" ".join(snippet)))
    return " ".join(w for w in words if w).replace("|", "\\|")


def _kept(m: re.Match[str], *, text: str) -> str:
    """A tag within a cell: kept in a code span, else nothing."""
    return m.group(0) if text.count("`", 0, m.start()) % 2 else ""


def _row(cells: list[str], width: int) -> str:
    return "| " + " | ".join([*cells, *[""] * (width - len(cells))]) + " |"
