"""JetBrains Writerside projects (ktor's docs): what a page takes from the project around it.

A project is a folder holding `writerside.cfg` or a `*.ihp` file (`<ihp>`: `<snippets
src="codeSnippets"/>`, `<vars src="v.list"/>`, `<topics dir="topics"/>`, `<instance
src="ktor.tree"/>`), found at or above the docs folder (site_config.config_above).

- A markdown code block written empty with its file under it, ```` ```kotlin ```` ```` ``` ````
  then `{src="snippets/x/Application.kt" include-lines="16-18"}`, shows that file of the
  snippets folder: its lines (`include-lines="1,5-8"`), or the declarations `include-symbol`
  names (`"main"`, `"withTransaction, daoToModel"`). ktor's 540 such blocks were empty.
- `%name%` is the variable `v.list` defines (`<var name="ktor_version" value="3.5.2"/>`), in
  the text and in code written on the page (`version "%ktor_version%"`); an unknown name stays
  as written, as Writerside leaves it. A file included by `src` is read as it is unless its
  block says `interpolate-variables="true"`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from docsmcp.sources.formats.fences import code_block, fenced_lines
from docsmcp.sources.site_config import config_above

log = logging.getLogger("docsmcp.sources.writerside")

PROJECT_FILES = ("writerside.cfg", "project.ihp")
# The attribute line under a block: `{src="…" include-lines="…"}` (ktor writes it indented in a
# list item as the fence is).
SRC_LINE = re.compile(r'^([ \t]*)\{src="([^"\n]+)"([^{}\n]*)\}[ \t]*$')
_ATTR = re.compile(r'([\w-]+)="([^"\n]*)"')
_OPEN_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})[ \t]*([\w+#.-]*)")
VARIABLE = re.compile(r"%([A-Za-z_][\w-]*)%")
# A declaration a symbol names: `fun main`, `fun Application.module`, `class X`, `val client`.
_DECLARATION = r"^[ \t]*(?:[\w@]+[ \t]+)*(?:fun|class|object|interface|val|var|def|function)[ \t]+"
# At most this many lines of a file are read for one symbol (a brace never closed).
MAX_SYMBOL_LINES = 400


@dataclass(frozen=True)
class Project:
    root: Path  # the folder of its project file
    snippets: Path | None = None
    variables: Mapping[str, str] = field(default_factory=dict)


def find(docs_dir: Path, roots: Sequence[Path]) -> Project | None:
    """The Writerside project the docs folder is part of, if any (an unreadable project file
    is none, with one line saying so)."""
    found = config_above(docs_dir, roots, PROJECT_FILES)
    if found is None:
        found = next(iter(sorted(docs_dir.glob("*.ihp"))), None)
    if found is None:
        return None
    try:
        ihp = ElementTree.fromstring(found.read_bytes())
    except (OSError, ElementTree.ParseError) as exc:
        log.warning("%s: not read as a Writerside project (%s)", found, exc)
        return None
    root = found.parent
    snippets = ihp.find("snippets")
    vars_file = ihp.find("vars")
    return Project(
        root,
        root / snippets.get("src", "") if snippets is not None and snippets.get("src") else None,
        _variables(root / vars_file.get("src", "")) if vars_file is not None else {},
    )


def _variables(path: Path) -> dict[str, str]:
    """`<var name value/>` of a `v.list`."""
    try:
        tree = ElementTree.fromstring(path.read_bytes())
    except (OSError, ElementTree.ParseError) as exc:
        log.warning("%s: Writerside variables not read (%s)", path, exc)
        return {}
    return {v.get("name", ""): v.get("value", "") for v in tree.iter("var") if v.get("name")}


def may_need(body: str) -> bool:
    """Whether a page may use its project: a `{src=…}` block or a `%name%`."""
    return '{src="' in body or ("%" in body and VARIABLE.search(body) is not None)


# A page's own variable, `<var name="artifact_name" value="ktor-client-auth"/>` (ktor: 351): from
# its line on, over the project's (and in what the page includes from lib.topic).
LOCAL_VARIABLE = re.compile(r'<var[ \t]+name="([^"\n]+)"[ \t]+value="([^"\n]*)"[ \t]*/>')


def substituted(lines: list[str], variables: Mapping[str, str]) -> list[str]:
    """`lines` with the project's variables and the page's own (`<var …/>`, from their line
    on) in place of `%name%`."""
    scope = dict(variables)
    out = []
    for line in lines:
        if "<var" in line:
            scope.update(LOCAL_VARIABLE.findall(line))
        out.append(substitute(line, scope))
    return out


def substitute(line: str, variables: Mapping[str, str]) -> str:
    """`line` with each `%name%` of a known variable replaced by its value."""
    if "%" not in line:
        return line
    return VARIABLE.sub(lambda m: variables.get(m.group(1), m.group(0)), line)


@dataclass(frozen=True)
class CodeRef:
    """An empty code block and the `{src=…}` line under it (lines start..end)."""

    start: int
    end: int
    indent: str
    language: str
    src: str
    attrs: Mapping[str, str]


def code_refs(lines: list[str]) -> dict[int, CodeRef]:
    """The `{src=…}` blocks of a markdown page, by the line of their opening fence."""
    code = fenced_lines(lines)
    found: dict[int, CodeRef] = {}
    for i, line in enumerate(lines):
        if "{src=" not in line or code[i] or not (m := SRC_LINE.match(line)):
            continue
        close = i - 1
        while close >= 0 and not lines[close].strip():
            close -= 1
        if close < 1 or not code[close]:
            continue
        start = close - 1
        while start > 0 and code[start - 1] and not _OPEN_FENCE.match(lines[start]):
            start -= 1
        fence = _OPEN_FENCE.match(lines[start])
        if fence is None or start in found:
            continue
        attrs = dict(_ATTR.findall(m.group(3)))
        found[start] = CodeRef(start, i, fence.group(1), fence.group(3), m.group(2), attrs)
    return found


def selected(text: str, ref: CodeRef) -> list[str]:
    """The lines of the file `text` that the block shows."""
    lines = text.rstrip("\n").split("\n")
    if spec := ref.attrs.get("include-lines"):
        return _numbered(lines, spec)
    if symbols := ref.attrs.get("include-symbol"):
        out: list[str] = []
        for name in (s.strip() for s in symbols.split(",")):
            if name and (found := _symbol(lines, name)):
                out += ([""] if out else []) + found
        return out or lines
    return lines


def _numbered(lines: list[str], spec: str) -> list[str]:
    """`1,5-8` (1-based, inclusive) of `lines`, dedented as one."""
    out: list[str] = []
    for part in spec.split(","):
        first, _, last = part.strip().partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            continue
        a, b = int(first), int(last or first)
        out += lines[max(a - 1, 0) : min(b, len(lines))]
    return _dedented(out)


def _symbol(lines: list[str], name: str) -> list[str]:
    """The declaration of `name`: its line through the line closing its braces (or its line
    alone when it opens none)."""
    pattern = re.compile(_DECLARATION + r"(?:[\w.<>]+\.)?" + re.escape(name) + r"\b")
    for i, line in enumerate(lines):
        if not pattern.match(line):
            continue
        depth = 0
        opened = False
        for j in range(i, min(len(lines), i + MAX_SYMBOL_LINES)):
            depth += lines[j].count("{") - lines[j].count("}")
            opened = opened or "{" in lines[j]
            if opened and depth <= 0 or (not opened and not lines[j].rstrip().endswith(("=", "("))):
                return _dedented(lines[i : j + 1])
        return _dedented(lines[i : i + 1])
    return []


def _dedented(lines: list[str]) -> list[str]:
    width = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return [x[width:] for x in lines]


def block(ref: CodeRef, text: str | None, variables: Mapping[str, str]) -> list[str]:
    """What the block shows: the file's selected lines in a fence of the block's language (a
    file not found: the empty block, as written)."""
    if text is None:
        return [f"{ref.indent}```{ref.language}", f"{ref.indent}```"]
    lines = selected(text, ref)
    if ref.attrs.get("interpolate-variables") == "true":
        lines = [substitute(x, variables) for x in lines]
    return code_block(ref.indent, ref.language, [ref.indent + x if x else x for x in lines])


def snippet_candidates(project: Project, src: str, relative: Callable[[Path], str]) -> list[str]:
    """Where a block's `src` is, relative to docs_dir (`relative`): the snippets folder's."""
    if "://" in src or project.snippets is None:
        return []
    return [relative(project.snippets / src.lstrip("/"))]  # (`/snippets/x`: ktor, 31)
