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
  the `---` ending the group leaves nothing.

`[!INCLUDE [title](file.md)]`, `[!code-csharp[](file.cs#region)]` and `:::code
source=…:::` read other files: docfx_includes.py.
"""

from __future__ import annotations

import re

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


def may_hold(text: str) -> bool:
    """Whether `text` may hold DocFX-flavored markdown this module reads."""
    return ":::" in text or "[!div" in text or "](#tab/" in text


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
            out[i] = _NO_LOC.sub(lambda m: m.group(1), line)
        elif "[!div" in line and _DIV.match(line):
            out[i] = ""
    return out


def _image(m: re.Match[str]) -> str:
    attrs = dict(_ATTR.findall(m.group(1)))
    alt = attrs.get("alt-text", "")
    space = " " if m.group(0).endswith((" ", "\t")) else ""
    return f"![{alt}]({attrs.get('source', '')}){space}" if alt else ""
