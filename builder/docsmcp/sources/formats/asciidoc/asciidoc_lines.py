"""The line grammar of AsciiDoc (asciidoc.py reads a page's blocks with it): what a line is,
block attribute lists, attribute entries, and the preprocessor's conditionals.

Conditionals are read as Asciidoctor's preprocessor reads them, before any block: `ifdef::a[]`
(`a,b`: any of them set; `a+b`: all) and `ifndef::a[]` keep their lines when the document's
attributes say so, up to the matching `endif::[]`; a one-line form (`ifdef::a[text]`) keeps its
text. `ifeval::[...]` keeps its content (its expressions are not evaluated). Attribute entries
(`:name: value`, `:name!:`) set or unset as the lines pass, so a conditional sees the entries
above it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# A line is at most this long when read as a structural line (a delimiter, a list item, a
# title): longer lines are text.
MAX_STRUCTURE = 2000

ATTRIBUTE_ENTRY = re.compile(r"^:(!?)(\w[\w-]{0,100}?)(!?):(?:[ \t]+(.*?))?[ \t]*$")
CONDITIONAL = re.compile(r"^(\\)?(ifdef|ifndef|ifeval|endif)::([^\[\n]*)\[(.*)\][ \t]*$")
SECTION = re.compile(r"^(={1,6}|#{1,6})[ \t]+(\S.*?)(?:[ \t]+\1)?[ \t]*$")
BLOCK_ATTRIBUTES = re.compile(r"^\[(|[#.%\w{,\"'].*)\][ \t]*$")
ANCHOR_LINE = re.compile(r"^\[\[([A-Za-z_:][\w:.-]*)(?:,\s*(.*))?\]\][ \t]*$")
BLOCK_TITLE = re.compile(r"^\.(\.?[^ \t.].*)$")
DELIMITER = re.compile(
    r"^(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,}|--|`{3,}.*|[|,:!]={3,})[ \t]*$"
)
ADMONITION_PARAGRAPH = re.compile(r"^(NOTE|TIP|IMPORTANT|WARNING|CAUTION):[ \t]+(.*)$")
ADMONITIONS = {
    "NOTE": "Note",
    "TIP": "Tip",
    "IMPORTANT": "Important",
    "WARNING": "Warning",
    "CAUTION": "Caution",
}
LIST_ITEM = re.compile(
    r"^[ \t]*(\*{1,5}|-|\.{1,5}|\d{1,9}\.|[a-zA-Z]\.|[ivxIVX]{1,8}\))[ \t]+(.*)$"
)
DESCRIPTION_ITEM = re.compile(r"^(?!//[^/])[ \t]*([^ \t].*?)(:::{0,2}|;;)(?:$|[ \t]+(.*)$)")
CALLOUT_ITEM = re.compile(r"^<(\d{1,4}|\.)>[ \t]+(.*)$")
BLOCK_MACRO = re.compile(r"^(\w[\w-]*)::(\S*?)\[(.*)\][ \t]*$")
BREAK = re.compile(r"^(?:'{3,}|<{3,}|(?:-[ \t]?){3}|(?:\*[ \t]?){3})[ \t]*$")
LIST_CONTINUATION = "+"


def kind(line: str) -> str:
    """What a line opens, read alone: "blank", "comment", "delimiter", "attributes", "anchor",
    "title", "section", "list", "dlist", "callout", "macro", "break", "continuation", "text"."""
    stripped = line.strip()
    if not stripped:
        return "blank"
    if len(line) > MAX_STRUCTURE:
        return "text"
    if line.startswith("//") and not line.startswith("////"):
        return "comment"
    if DELIMITER.match(line):
        return "delimiter"
    if stripped == LIST_CONTINUATION:
        return "continuation"
    if line.startswith("[[") and ANCHOR_LINE.match(line):
        return "anchor"
    if line.startswith("[") and BLOCK_ATTRIBUTES.match(line):
        return "attributes"
    if line.startswith(".") and BLOCK_TITLE.match(line) and not LIST_ITEM.match(line):
        return "title"
    if line[0] in "=#" and SECTION.match(line):
        return "section"
    if BREAK.match(line):
        return "break"
    if LIST_ITEM.match(line):
        return "list"
    if line.startswith("<") and CALLOUT_ITEM.match(line):
        return "callout"
    if "::" in line and BLOCK_MACRO.match(line):
        return "macro"
    if (":" in line or ";;" in line) and DESCRIPTION_ITEM.match(line):
        return "dlist"
    return "text"


def list_marker(line: str) -> tuple[str, str, str] | None:
    """(marker kind, marker as written, item text) of a list item line."""
    m = LIST_ITEM.match(line)
    if m:
        marker = m.group(1)
        if marker[0].isdigit():
            return "1.", marker, m.group(2)
        if marker.endswith(")"):
            return "i)", marker, m.group(2)
        if marker[0].isalpha():
            return "a.", marker, m.group(2)
        return marker, marker, m.group(2)
    m = DESCRIPTION_ITEM.match(line)
    if m:
        return m.group(2), m.group(2), f"{m.group(1)}\x00{m.group(3) or ''}"
    m = CALLOUT_ITEM.match(line)
    if m:
        return "<1>", m.group(1), m.group(2)
    return None


@dataclass
class Attributes:
    """A block attribute list (`[source,ruby,subs="attributes+"]`, `[#id.role%header]`)."""

    positional: list[str] = field(default_factory=list)
    named: dict[str, str] = field(default_factory=dict)
    id: str = ""
    roles: list[str] = field(default_factory=list)
    options: set[str] = field(default_factory=set)

    @property
    def style(self) -> str:
        return self.positional[0] if self.positional else ""


def parse_attributes(text: str, into: Attributes | None = None) -> Attributes:
    """The attributes of the list inside `[...]` (added to `into`, as consecutive attribute
    lines merge)."""
    out = into or Attributes()
    parts = _split(text)
    for k, part in enumerate(parts):
        if "=" in part and re.match(r"^[\w-]+[ \t]*=", part):
            name, _, value = part.partition("=")
            name, value = name.strip().lower(), _unquote(value.strip())
            out.named[name] = value
            if name == "id":
                out.id = value
            elif name == "role":
                out.roles.extend(value.split())
            elif name in ("options", "opts"):
                out.options.update(x.strip() for x in value.split(",") if x.strip())
            continue
        value = _unquote(part.strip())
        if k == 0:
            value = _shorthand(value, out)
            out.positional = [value]
        else:
            while len(out.positional) < k:
                out.positional.append("")
            out.positional.append(value)
    return out


def _shorthand(first: str, out: Attributes) -> str:
    """The style of a first positional attribute `style#id.role%option`; the rest set."""
    m = re.match(r"^([^#.%]*)(.*)$", first)
    style, rest = (m.group(1), m.group(2)) if m else (first, "")
    for mark, value in re.findall(r"([#.%])([^#.%]*)", rest):
        if mark == "#" and value:
            out.id = value
        elif mark == "." and value:
            out.roles.append(value)
        elif mark == "%" and value:
            out.options.add(value)
    return style.strip()


def _split(text: str) -> list[str]:
    """Comma-separated parts, quotes kept together."""
    parts: list[str] = []
    current: list[str] = []
    quote = ""
    for ch in text:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "\"'" and (
            not "".join(current).strip() or "".join(current).rstrip().endswith("=")
        ):
            quote = ch
            current.append(ch)
        elif ch == ",":
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts]


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def preprocess(lines: list[str], attributes: dict[str, str]) -> list[tuple[str, int]]:
    """The lines the conditionals keep, each with its 0-based line in `lines`; `attributes`
    (the document's so far) are updated by the entries read."""
    out: list[tuple[str, int]] = []
    stack: list[tuple[str, bool]] = []  # (the attribute an endif names, whether lines are kept)
    keep = True
    fence = ""  # an open listing/literal/comment/passthrough delimiter: entries there are text
    for number, line in enumerate(lines):
        if (
            "::" in line
            and line[:2] in ("if", "en", "\\i", "\\e")
            and (m := CONDITIONAL.match(line))
        ):
            if m.group(1):
                if keep:
                    out.append((line[1:], number))
                continue
            directive, target, text = m.group(2), m.group(3).strip(), m.group(4)
            if directive == "endif":
                if stack:
                    stack.pop()
                keep = all(k for _, k in stack)
                continue
            wanted = True if directive == "ifeval" else _defined(target, attributes)
            if directive == "ifndef":
                wanted = not wanted
            if directive != "ifeval" and text:  # one line: its text
                if keep and wanted:
                    out.append((text, number))
                continue
            stack.append((target, wanted))
            keep = keep and wanted
            continue
        if not keep:
            continue
        out.append((line, number))
        if len(line) <= MAX_STRUCTURE and DELIMITER.match(line):
            delimiter = "```" if line.startswith("```") else line.strip()
            if fence and delimiter == fence:
                fence = ""
            elif not fence and delimiter[0] in "-./+`" and delimiter != "--":
                fence = delimiter
            continue
        if not fence and line.startswith(":") and (e := ATTRIBUTE_ENTRY.match(line)):
            set_attribute(attributes, e)
    return out


def set_attribute(attributes: dict[str, str], m: re.Match[str]) -> None:
    """Apply an attribute entry (ATTRIBUTE_ENTRY's match); its value's references resolved."""
    from docsmcp.sources.formats.asciidoc.asciidoc_inline import substitute

    name = m.group(2).lower()
    if m.group(1) or m.group(3):
        attributes.pop(name, None)
        return
    value = substitute((m.group(4) or "").rstrip(" \\").rstrip(" +"), attributes)
    if name == "leveloffset" and re.fullmatch(r"[+-]\d{1,2}", value):
        now = attributes.get("leveloffset", "0")
        value = str(int(value) + (int(now) if re.fullmatch(r"[+-]?\d{1,2}", now) else 0))
    attributes[name] = value


def _defined(target: str, attributes: dict[str, str]) -> bool:
    if "+" in target:
        return all(n.strip().lower() in attributes for n in target.split("+") if n.strip())
    names = [n.strip().lower() for n in target.split(",") if n.strip()]
    return any(n in attributes for n in names) if names else True
