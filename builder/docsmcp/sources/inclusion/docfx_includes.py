"""DocFX's file includes (docfx, Microsoft Learn), resolved by includes.py before the page is
parsed:

- `[!INCLUDE [title](path.md)]` alone on a line (in a blockquote or list item too) is the
  file's markdown, its front matter aside (`ms.topic: include`), read through
  `_Reader._inline`; within a line, the file's text joined into the line, as docfx's inline
  include;
- `[!code-csharp[](Program.cs)]` alone on a line is a code block of the file in the named
  language: all of it, `#L12-L16` or `?range=1-3,5-` lines, or a snippet named `#region` /
  `?name=region` (between `#region name` and `#endregion`, or `<name>` and `</name>` in a
  comment: `// <snippet1>`); `?highlight=` and `?dedent=` change nothing a reader needs;
- `:::code language="csharp" source="Program.cs" range="3-5" id="snippet1":::` alike.

A path is relative to the page; `~/` starts at the docfx project (the folder of the
`docfx.json` above the page), as docfx reads it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs

from docsmcp.sources.formats.markdown.fences import code_block

_INCLUDE = re.compile(
    r"\[!INCLUDE[ \t]*\[([^\]\n]*)\]\([ \t]*<?([^)\s>]+)>?[ \t]*\)\]", re.IGNORECASE
)
_CODE = re.compile(r"^([ \t>]*)\[!code(?:-([\w+#-]+))?\[[^\]\n]*\]\(([^)\s]+)[^)\n]*\)\][ \t]*$")
_CODE_TRIPLE = re.compile(r"^([ \t>]*):::code\b([^\n]*?):::[ \t]*$")
_ATTR = re.compile(r'([\w-]+)="([^"\n]*)"')
_FRONT = re.compile(r"\A---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.DOTALL)
# Region and snippet markers: `#region name`, `#endregion`, `// <snippet1>`, `<!-- </x> -->`.
_REGION_START = re.compile(r"^\s*#\s*region\b\s*(.*?)\s*$", re.IGNORECASE)
_REGION_END = re.compile(r"^\s*#\s*end\s*region\b", re.IGNORECASE)
_TAG = re.compile(r"^\s*(?://|#|'|--|<!--|/\*|REM\b)\s*<(/?)([\w.-]+)>\s*(?:-->|\*/)?\s*$")
# docfx's language names that are no fence language of their own.
_LANGUAGES = {"csharp": "csharp", "cs": "csharp", "vb": "vb", "cpp": "cpp", "fsharp": "fsharp"}


@dataclass(frozen=True)
class Directive:
    prefix: str  # what the line holds before it (indent, `> `)
    path: str  # the file, as written (its `#fragment` and `?query` aside)
    kind: str  # "include" (markdown, alone), "inline" (markdown within the line), "code"
    language: str = ""
    selection: str = ""  # `#L1-L5`, `#region`, `?range=…`, `?name=…`, `range="…"`, `id="…"`
    line: str = ""  # the whole line (an inline include's)


def may_hold(body: str) -> bool:
    """Whether a page may hold one of DocFX's includes."""
    return "[!INCLUDE" in body or "[!include" in body or "[!code" in body or ":::code" in body


def directive(line: str) -> Directive | None:
    """The DocFX include `line` holds, if any."""
    if m := _CODE.match(line):
        path, _, fragment = m.group(3).partition("#")
        path, _, query = path.partition("?")
        return Directive(m.group(1), path, "code", m.group(2) or "", f"#{fragment}?{query}")
    if ":::code" in line and (m := _CODE_TRIPLE.match(line)):
        attrs = dict(_ATTR.findall(m.group(2)))
        if "source" not in attrs:
            return None
        selection = f"#{attrs.get('id', '')}?range={attrs.get('range', '')}"
        return Directive(m.group(1), attrs["source"], "code", attrs.get("language", ""), selection)
    m = _INCLUDE.search(line)
    if m is None:
        return None
    alone = not line[: m.start()].strip(" \t>") and not line[m.end() :].strip()
    kind = "include" if alone else "inline"
    return Directive(line[: m.start()], m.group(2), kind, line=line)


def candidates(
    page: str, path: str, project: str | None, beside: Callable[[str, str], list[str]]
) -> list[str]:
    """Where `path` is, relative to the docs folder: `~/x` from the docfx project's folder
    (`project`, relative to the docs folder), else as includes' own lookup (`beside`)."""
    if path.startswith("~/"):
        return [posixpath.normpath(posixpath.join(project or "", path[2:]))]
    return beside(page, path)


def render(d: Directive, text: str, inline: Callable[[list[str]], list[str]]) -> list[str]:
    """What the directive's line becomes, the file's `text` read (`inline`: included markdown
    read as the page's own)."""
    if d.kind == "code":
        lines = _selected(text.rstrip("\n").split("\n"), d.selection)
        language = _LANGUAGES.get(d.language.lower(), d.language.lower())
        return code_block(d.prefix, language, [d.prefix + x if x else x for x in lines])
    body = _FRONT.sub("", text, count=1).strip("\n")
    if d.kind == "inline":
        first = body.split("\n\n", 1)[0]
        return [_INCLUDE.sub(lambda m: " ".join(first.split()), d.line, count=1)]
    lines = inline(body.split("\n"))
    return [d.prefix + x if x else d.prefix.rstrip() for x in lines]


def _selected(lines: list[str], selection: str) -> list[str]:
    fragment, _, query = selection.lstrip("#").partition("?")
    params = {k: v[0] for k, v in parse_qs(query).items()}
    if m := re.fullmatch(r"L(\d+)(?:-L(\d+))?", fragment):
        return _dedented(lines[int(m.group(1)) - 1 : int(m.group(2) or m.group(1))])
    if spec := params.get("range"):
        out: list[str] = []
        for part in spec.split(","):
            first, dash, last = part.strip().partition("-")
            if first.isdigit() and (not last or last.isdigit()):
                end = int(last) if last else (len(lines) if dash else int(first))
                out += lines[int(first) - 1 : end]
        return _dedented(_unmarked(out))
    name = params.get("name") or fragment
    if name:
        return _dedented(_unmarked(_region(lines, name)))
    return _unmarked(lines)


def _region(lines: list[str], name: str) -> list[str]:
    """The lines between a region's (or snippet tag's) start and end markers; all of them when
    there is none of that name."""
    depth = 0
    start = None
    for i, line in enumerate(lines):
        region = _REGION_START.match(line)
        tag = _TAG.match(line)
        if start is None:
            opened = (region and region.group(1) == name) or (
                tag and not tag.group(1) and tag.group(2) == name
            )
            if opened:
                start = i + 1
            continue
        if region:
            depth += 1
        elif _REGION_END.match(line):
            if depth == 0:
                return lines[start:i]
            depth -= 1
        elif tag and tag.group(1) and tag.group(2) == name:
            return lines[start:i]
    return lines[start:] if start is not None else lines


def _unmarked(lines: list[str]) -> list[str]:
    """Without the lines of other regions' and snippets' markers (docfx leaves them out)."""
    return [
        x for x in lines if not (_REGION_START.match(x) or _REGION_END.match(x) or _TAG.match(x))
    ]


def _dedented(lines: list[str]) -> list[str]:
    width = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return [x[width:] for x in lines]
