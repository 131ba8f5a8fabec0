"""A Go struct's exported fields, as pkg.go.dev shows them inside the type's declaration
(`type Command struct { // Use is the one-line usage message. Use string … }`), for godoc.py
to register each as an API entry (`cobra.Command.Use`): its name, its line (`Use string`,
without its tag), the comment above it (else the one after it on its line), and where it
stands among the declaration's lines.

The declaration is the one godoc_parse.py kept (unexported fields already filtered out). Named
fields (`A, B int`), embedded ones (`*Base`, `pkg.Reader`, `List[T]`: named by their type)
and fields of an anonymous struct type over several lines (the field is the outer name; what
is inside its braces is not read) are read; a line that is none of these is skipped. One
pass over the lines, each read once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_STRUCT = re.compile(r"^type\s+[A-Za-z_]\w*\s*(?:\[[^\n]*\])?\s*struct\s*\{\s*$")
_TAG = re.compile(r"`[^`]*`|\"(?:[^\"\\]|\\.)*\"")
_NAMED = re.compile(r"^([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s+\S")
_EMBEDDED = re.compile(r"^\*?(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)(?:\[[^\n]*\])?$")
MAX_FIELDS = 2000  # of one struct, at most


@dataclass(frozen=True)
class Field:
    name: str
    code: str  # its line as pkg.go.dev shows it, tag and comment cut: `Use string`
    doc: str  # its comment, lines joined by "\n"
    first: int  # index of its first line (its comment's) among the declaration's lines
    line: int  # index of its own line


def struct_fields(code: str) -> list[Field]:
    """The exported fields of a `type T struct { … }` declaration (none of any other)."""
    lines = code.split("\n")
    if not lines or not _STRUCT.match(lines[0].strip()):
        return []
    out: list[Field] = []
    comment: list[str] = []
    start = -1
    depth = 0  # inside an anonymous struct or interface type of a field
    for k in range(1, len(lines)):
        text = lines[k].strip()
        part = _TAG.sub("", text)
        cut = part.find("//")
        trailing = part[cut + 2 :].strip() if cut >= 0 else ""
        part = (part[:cut] if cut >= 0 else part).strip()
        opened = part.count("{") - part.count("}")
        if depth > 0:
            depth = max(0, depth + opened)
            continue
        if text.startswith("}"):
            break
        if text.startswith("//"):
            start = k if not comment else start
            comment.append(text[2:].strip())
            continue
        if not part:
            comment, start = [], -1
            continue
        depth = max(0, opened)
        names: list[str] = []
        if m := _NAMED.match(part):
            names = [n.strip() for n in m.group(1).split(",")]
        elif m := _EMBEDDED.match(part):
            names = [m.group(1)]
        doc = "\n".join(comment) if comment else trailing
        for name in names:
            if name[:1].isupper() and len(out) < MAX_FIELDS:
                shown = part.split("{", 1)[0].strip() + (" {…}" if opened > 0 else "")
                out.append(Field(name, shown, doc, start if comment else k, k))
        comment, start = [], -1
    return out
