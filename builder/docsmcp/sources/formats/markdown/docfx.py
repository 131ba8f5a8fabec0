"""DocFX-flavored markdown (docfx, Microsoft Learn: the Win32 docs) read as its page shows it,
line for line (dialects.rewrite calls it before `:::` containers are labelled):

- `:::row:::` / `:::column span="2":::` / `:::column-end:::` / `:::row-end:::` lay out columns:
  the markers leave nothing and the columns' text, indented under them, is dedented (left
  indented it read as code blocks: the Win32 docs' 52 rows of MIDL attribute links);
- `:::image type="content" source="x.png" alt-text="Diagram of …":::` is the picture, read as
  the markdown image it stands for (its alt text); a `type="complex"` image's long description,
  up to `:::image-end:::`, is text;
- `:::no-loc text="open":::` within a line is its text (126 in the Win32 docs);
- `:::zone pivot="x":::`, `:::moniker range="…":::` and their `-end` markers leave nothing,
  their content stays;
- `> [!div class="nextstepaction"]` (a blockquote's styling) leaves nothing;
- a tab group's tabs, `# [Linux](#tab/linux)`, are their label (`Linux:`), no headings, and
  the `---` ending the group leaves nothing;
- a cross reference tag, `<xref href="System.String?text=string"/>` or `<a href="xref:uid"/>`,
  is the link `[string](xref:System.String)` (its `text`, else its `alt`, else the uid; enrich/
  xref.py resolves it as `<xref:uid>`); before, the tag showed as written, or nothing.

`[!INCLUDE [title](file.md)]`, `[!code-csharp[](file.cs#region)]` and `:::code
source=…:::` read other files: docfx_includes.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# A layout or scoping marker alone on its line: `:::row:::`, `:::column span="2":::`,
# `:::zone pivot="windows":::`, `:::moniker-end:::`.
_MARKER = re.compile(
    r"^([ \t]*):::[ \t]*(row|column|row-end|column-end|zone|zone-end|moniker|moniker-end|"
    r"image-end)\b[^\n]*?:::[ \t]*$"
)
_IMAGE = re.compile(r"^([ \t]*):::[ \t]*image\b([^\n]*?)(?::::)?[ \t]*$")
_ATTR = re.compile(r'([\w-]+)="([^"\n]*)"')
_NO_LOC = re.compile(r':::no-loc[ \t]+text="([^"\n]*)":::')
# An image within a line (the Win32 docs' icons in table cells: `:::image type="icon"
# source="./images/IDC_ARROW.png":::`).
_INLINE_IMAGE = re.compile(r":::image\b((?:[ \t]+[\w-]+=\"[^\"\n]*\")*)[ \t]*:::[ \t]?")
# A tab of a tab group: a heading holding only a link to `#tab/id` (`# [Linux](#tab/linux)`);
# the group ends at a `---` line. Read as headings, the tabs cut the page into sections and
# nested what follows the group under its last tab (docfx's template.md: "Custom Template"
# under "Default Template").
_TAB = re.compile(r"^[ ]{0,3}#{1,6}[ \t]+\[([^\]\n]+)\]\(#tab/[^)\s]+\)[ \t]*$")
_GROUP_END = re.compile(r"^[ ]{0,3}-{3,}[ \t]*$")
_DIV = re.compile(r"^[ \t]*>[ \t]*\[!div\b[^\]\n]*\][ \t]*$", re.IGNORECASE)
# A cross reference tag with no text of its own: `<xref href="uid" …/>`, `<a href="xref:uid"/>`.
_XREF_TAG = re.compile(
    r"<(?:xref\b([^<>\n]*?)\bhref=\"([^\"\n]+)\"([^<>\n]*?)/?>(?:</xref>)?"
    r"|a\b([^<>\n]*?)\bhref=\"xref:([^\"\n]+)\"([^<>\n]*?)/>)",
    re.IGNORECASE,
)
_CODE_SPAN = re.compile(r"(`+)[^\n]*?(?<!`)\1(?!`)")


def may_hold(text: str) -> bool:
    """Whether `text` may hold DocFX-flavored markdown this module reads."""
    return ":::" in text or "[!div" in text or "](#tab/" in text or _has_xref_tag(text)


def _has_xref_tag(text: str) -> bool:
    return "<xref " in text or "<XREF " in text or 'href="xref:' in text


def read(lines: list[str], code: list[bool]) -> list[str]:
    """`lines` with DocFX's layout markers, images and `no-loc` read as shown (see the module
    docstring); as many lines."""
    out = list(lines)
    dedent: list[int] = []  # the indents of the open columns, innermost last
    tabs = False  # inside a tab group
    for i, line in enumerate(lines):
        if code[i] and not dedent:
            continue
        if "](#tab/" in line and (m := _TAB.match(line)):
            out[i], tabs = f"{m.group(1)}:", True
            continue
        if tabs and _GROUP_END.match(line):
            out[i], tabs = "", False
            continue
        if m := _MARKER.match(line):
            kind = m.group(2)
            if kind == "column":
                dedent.append(len(m.group(1).expandtabs(4)) + 4)
            elif kind == "column-end" and dedent:
                dedent.pop()
            elif kind == "row-end":
                dedent.clear()
            out[i] = ""
            continue
        if ":::" in line and (m := _IMAGE.match(line)) and not _INLINE_IMAGE.search(line[1:]):
            attrs = dict(_ATTR.findall(m.group(2)))
            alt = attrs.get("alt-text", "")
            out[i] = f"{m.group(1)}![{alt}]({attrs.get('source', '')})" if alt else ""
            continue
        if dedent and line.strip():
            width = min(dedent[-1], len(line) - len(line.lstrip(" ")))
            line = out[i] = line[width:]
        if ":::image" in line:
            line = out[i] = _INLINE_IMAGE.sub(_image, line)
        if ":::no-loc" in line:
            line = out[i] = _NO_LOC.sub(lambda m: m.group(1), line)
        if not code[i] and _has_xref_tag(line):
            out[i] = _outside_code_spans(line, lambda t: _XREF_TAG.sub(_xref_link, t))
        if "[!div" in line and _DIV.match(line):
            out[i] = ""
    return out


def _image(m: re.Match[str]) -> str:
    attrs = dict(_ATTR.findall(m.group(1)))
    alt = attrs.get("alt-text", "")
    space = " " if m.group(0).endswith((" ", "\t")) else ""
    return f"![{alt}]({attrs.get('source', '')}){space}" if alt else ""


def _xref_link(m: re.Match[str]) -> str:
    """The markdown link a cross reference tag stands for (see the module docstring)."""
    xref = m.group(2) is not None
    href = m.group(2) if xref else m.group(5)
    attrs = dict(_ATTR.findall((m.group(1) or "") + (m.group(3) or "") if xref else m.group(4)))
    uid, _, query = href.partition("?")
    params = dict(p.partition("=")[::2] for p in query.split("&") if "=" in p)
    text = params.get("text") or attrs.get("text") or params.get("alt") or attrs.get("alt") or uid
    target = f"xref:{href}"
    return f"[{text}]({f'<{target}>' if ' ' in target else target})"


def _outside_code_spans(line: str, rewrite: Callable[[str], str]) -> str:
    """`line` with `rewrite` applied to its text outside code spans."""
    out, at = [], 0
    for m in _CODE_SPAN.finditer(line):
        out += [rewrite(line[at : m.start()]), m.group(0)]
        at = m.end()
    out.append(rewrite(line[at:]))
    return "".join(out)
