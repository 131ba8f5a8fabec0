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
  block says `interpolate-variables="true"`. A page's own `<var name value/>` counts from its
  line on, in what it includes too.
- `<include from="lib.topic" element-id="x"/>` shows that element of the other topic (beside
  the page or in the topics folder): in a markdown topic rendered as markdown
  (formats/writerside_xml.py) and read through includes' `_Reader._inline`; in an XML topic
  spliced in as XML before the topic is converted, as `<code-block src=…/>` gets its file.
- The instance trees (`ktor.tree`, `<toc-element topic toc-title>`) title and order the pages
  (navfiles.py), and decide what is built (site_build.py): files outside the topics folder and
  topics no tree names are no pages.

Writerside's elements within markdown topics are read in formats/markdown/writerside_md.py.
"""

from __future__ import annotations

import logging
import os
import posixpath
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from docsmcp.sources.formats.markdown.fences import code_block, fenced_lines
from docsmcp.sources.formats.writerside_xml import render_element
from docsmcp.sources.site_config import config_above

log = logging.getLogger("docsmcp.sources.sites.writerside")

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
    topics: Path | None = None  # where `<include from="lib.topic">` names files
    trees: tuple[Path, ...] = ()  # the instances' `.tree` files: navigation, what is built


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
    topics = ihp.find("topics")
    return Project(
        root,
        root / snippets.get("src", "") if snippets is not None and snippets.get("src") else None,
        _variables(root / vars_file.get("src", "")) if vars_file is not None else {},
        root / topics.get("dir", "") if topics is not None and topics.get("dir") else None,
        tuple(root / i.get("src", "") for i in ihp.iter("instance") if i.get("src")),
    )


def _variables(path: Path) -> dict[str, str]:
    """`<var name value/>` of a `v.list`."""
    try:
        tree = ElementTree.fromstring(path.read_bytes())
    except (OSError, ElementTree.ParseError) as exc:
        log.warning("%s: Writerside variables not read (%s)", path, exc)
        return {}
    return {v.get("name", ""): v.get("value", "") for v in tree.iter("var") if v.get("name")}


def may_need(path: str, body: str) -> bool:
    """Whether a page may use its project: an XML topic, a `{src=…}` block, an `<include
    from=…>` or a `%name%`."""
    return (
        path.lower().endswith(TOPIC)
        or '{src="' in body
        or "<include from=" in body
        or ("%" in body and VARIABLE.search(body) is not None)
        or (("<" in body or "{" in body) and _ELEMENT.search(body) is not None)
    )


# What makes a markdown page a Writerside topic (markdown_lines reads them).
_ELEMENT = re.compile(
    r"<(?:tldr|tabs|show-structure|primary-label|link-summary|compare|deflist|procedure)\b"
    r'|\{style="'
)


# A page's own variable, `<var name="artifact_name" value="ktor-client-auth"/>` (ktor: 351): from
# its line on, over the project's (and in what the page includes from lib.topic).
LOCAL_VARIABLE = re.compile(r'<var[ \t]+name="([^"\n]+)"[ \t]+value="([^"\n]*)"[ \t]*/>')


def substituted(
    lines: list[str], variables: Mapping[str, str]
) -> tuple[list[str], dict[int, dict[str, str]]]:
    """`lines` with the project's variables and the page's own (`<var …/>`, from their line
    on) in place of `%name%`; and the variables at each line that includes an element (what
    the element's own `%name%` are)."""
    scope = dict(variables)
    out = []
    scopes: dict[int, dict[str, str]] = {}
    for i, line in enumerate(lines):
        if "<var" in line:
            scope.update(LOCAL_VARIABLE.findall(line))
        if "<include" in line:
            scopes[i] = dict(scope)
        out.append(substitute(line, scope))
    return out, scopes


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
        if "{src=" not in line or code[i]:
            continue
        last = i  # (the list may go on over the next lines: ktor's migration pages)
        while not lines[last].rstrip().endswith("}") and last + 1 < min(len(lines), i + 4):
            last += 1
        if not (m := SRC_LINE.match(" ".join(lines[i : last + 1]))):
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
        found[start] = CodeRef(start, last, fence.group(1), fence.group(3), m.group(2), attrs)
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
    file not found, or a URL: nothing; an empty block is no code a reader sees)."""
    if text is None:
        return []
    lines = selected(text, ref)
    if ref.attrs.get("interpolate-variables") == "true":
        lines = [substitute(x, variables) for x in lines]
    return code_block(ref.indent, ref.language, [ref.indent + x if x else x for x in lines])


def reader(
    project: Project,
    page: str,
    docs_dir: Path,
    read_first: Callable[[list[str], str], str | None],
) -> Callable[[str, str], str | None]:
    """The text of a topic (`kind` "topic") or snippet file `name` that `page` names, through
    `read_first` (the includes' reading: source roots, limits, failures counted): a topic
    beside the page or in the topics folder, a snippet in the snippets folder."""

    def relative(path: Path) -> str:
        return os.path.relpath(path, docs_dir)

    def read(kind: str, name: str) -> str | None:
        if kind == "topic":
            found = [posixpath.normpath(posixpath.join(posixpath.dirname(page), name))]
            if project.topics is not None:
                found.append(relative(project.topics / name))
        elif "://" in name or project.snippets is None:
            return None
        else:  # (`/snippets/x`: ktor, 31)
            found = [relative(project.snippets / name.lstrip("/"))]
        return read_first(found, name)

    return read


TOPIC = ".topic"
# `<include from="lib.topic" element-id="download_example"/>` (ktor: 414 in markdown pages).
INCLUDE = re.compile(
    r'^([ \t]*)<include[ \t]+from="([^"\n]+)"[ \t]+element-id="([^"\n]+)"[^<>\n]*/>[ \t]*$'
)


@dataclass(frozen=True)
class ElementRef:
    """A markdown line including an element of another topic, and the variables there."""

    start: int
    end: int
    indent: str
    source: str
    element_id: str
    scope: Mapping[str, str]


def element_refs(
    lines: list[str], scopes: Mapping[int, Mapping[str, str]]
) -> dict[int, ElementRef]:
    """The `<include from element-id/>` lines of a markdown page, by line."""
    found: dict[int, ElementRef] = {}
    code = fenced_lines(lines)
    for i, scope in scopes.items():
        if not code[i] and (m := INCLUDE.match(lines[i])):
            found[i] = ElementRef(i, i, m.group(1), m.group(2), m.group(3), scope)
    return found


def element(ref: ElementRef, text: str | None) -> list[str]:
    """The markdown of the element an `<include>` names (nothing if it is not found, as
    Writerside's build refuses such a page)."""
    if text is None:
        return []
    lines, _ = substituted(text.split("\n"), ref.scope)
    found = render_element("\n".join(lines), ref.element_id)
    return [ref.indent + x if x else x for x in found or []]


# In an XML topic: an element included from another topic, a code block's file.
_XML_PIECE = re.compile(
    r'<include\s+from="(?P<source>[^"]+)"\s+element-id="(?P<id>[^"]+)"[^<>]*/>'
    r'|<code-block\b(?P<attrs>[^<>]*?\bsrc="[^"]+"[^<>]*?)(?:/>|>\s*</code-block>)'
)
# Included topics include others in turn, to this depth (includes.MAX_DEPTH's).
MAX_TOPIC_DEPTH = 5


def topic(
    lines: list[str],
    project: Project,
    read: Callable[[str, str], str | None],
    depth: int = 0,
) -> tuple[list[str], list[int]]:
    """An XML topic's lines with its `<include from element-id/>` replaced by the element's XML
    and its `<code-block src=…/>` holding their file (`read(kind, name)`: the text of a topic
    or snippet file, None if not found), and for each line its line in `lines`."""
    lines, scopes = substituted(lines, project.variables)
    text = "\n".join(lines)
    pieces: list[tuple[int, int, str]] = []
    for m in _XML_PIECE.finditer(text):
        if m.group("source"):
            found = read("topic", m.group("source"))
            raw = _raw_element(found, m.group("id")) if found is not None else None
            if raw:  # (its `%name%`s: the variables where it is included)
                scope = scopes.get(text.count("\n", 0, m.start()), project.variables)
                raw = "\n".join(substituted(raw.split("\n"), scope)[0])
            if raw and depth + 1 < MAX_TOPIC_DEPTH and _XML_PIECE.search(raw):
                raw = "\n".join(topic(raw.split("\n"), project, read, depth + 1)[0])
            pieces.append((m.start(), m.end(), raw or ""))
        else:
            attrs = dict(_ATTR.findall(m.group("attrs")))
            ref = CodeRef(0, 0, "", "", attrs.pop("src", ""), attrs)
            found = read("snippet", ref.src)
            kept = " ".join(f'{k}="{v}"' for k, v in attrs.items() if k == "lang")
            body = "\n".join(selected(found, ref)) if found is not None else ""
            if attrs.get("interpolate-variables") == "true":
                body = substitute(body, project.variables)
            cdata = body.replace("]]>", "]]]]><![CDATA[>")
            pieces.append(
                (m.start(), m.end(), f"<code-block {kept}><![CDATA[{cdata}]]></code-block>")
            )
    return _splice(text, pieces)


def _splice(text: str, pieces: list[tuple[int, int, str]]) -> tuple[list[str], list[int]]:
    """`text` with each (start, end, replacement) made, as lines with their line in `text` (a
    replacement's lines all map to where it started)."""
    out: list[str] = []
    line_map = [0]
    src = pos = 0
    for start, end, replacement in pieces:
        kept = text[pos:start]
        for _ in range(kept.count("\n")):
            src += 1
            line_map.append(src)
        line_map.extend([src] * replacement.count("\n"))
        out += [kept, replacement]
        src += text.count("\n", start, end)
        pos = end
    rest = text[pos:]
    for _ in range(rest.count("\n")):
        src += 1
        line_map.append(src)
    out.append(rest)
    return "".join(out).split("\n"), line_map


def _raw_element(text: str, element_id: str) -> str | None:
    """The XML of the element `element_id` of a topic: a `<snippet>`'s content, another
    element whole."""
    start = re.search(r'<([\w-]+)\b[^<>]*\bid="' + re.escape(element_id) + r'"[^<>]*?(/?)>', text)
    if start is None:
        return None
    if start.group(2):
        return ""
    name = start.group(1)
    depth = 1
    for m in re.finditer(r"<(/?)" + re.escape(name) + r"\b[^<>]*?(/?)>", text[start.end() :]):
        if m.group(2):
            continue
        depth += -1 if m.group(1) else 1
        if depth == 0:
            if name == "snippet":
                return text[start.end() : start.end() + m.start()]
            return text[start.start() : start.end() + m.end()]
    return None


# -- the instance trees: navigation and what is built -----------------------------------------


def tree(project: Project) -> list[tuple[str, str]]:
    """(topic file name, its `toc-title` or "") of every `<toc-element topic>` of the
    project's trees, in their order (a tree that does not parse gives nothing, with a line)."""
    out: list[tuple[str, str]] = []
    for path in project.trees:
        try:
            root = ElementTree.fromstring(path.read_bytes())
        except (OSError, ElementTree.ParseError) as exc:
            log.warning("%s: Writerside tree not read (%s)", path, exc)
            continue
        out += [
            (e.get("topic", ""), e.get("toc-title", ""))
            for e in root.iter("toc-element")
            if e.get("topic")
        ]
    return out


def _by_name(project: Project, docs_dir: Path, paths: Sequence[str]) -> dict[str, str]:
    """The pages of the topics folder by file name (Writerside names a topic by its name)."""
    try:
        topics = project.topics.resolve().relative_to(docs_dir.resolve()).as_posix()
    except (AttributeError, ValueError):
        return {}
    prefix = "" if topics == "." else topics + "/"
    found: dict[str, str] = {}
    for p in paths:
        if p.startswith(prefix):
            found.setdefault(posixpath.basename(p), p)
    return found


def nav_entries(
    project: Project, docs_dir: Path, paths: Sequence[str]
) -> Iterator[tuple[Path, str]]:
    """The tree's pages (navfiles' entries: the page's file, its title in the tree)."""
    pages = _by_name(project, docs_dir, paths)
    for name, title in tree(project):
        if name in pages:
            yield docs_dir / pages[name], title


def unbuilt(project: Project, docs_dir: Path, paths: Sequence[str]) -> tuple[str, ...]:
    """Globs of what the project does not build: files outside its topics folder (ktor's 166
    code-sample READMEs, its own README), and topics no tree names (`lib.topic`, the library of
    included snippets); () when the trees name none of the pages."""
    pages = _by_name(project, docs_dir, paths)
    named = {pages[n] for n, _ in tree(project) if n in pages}
    if not named:
        return ()
    topics = next(iter(named)).rsplit("/", 1)[0] + "/" if "/" in next(iter(named)) else ""
    globs: set[str] = set()
    for p in paths:
        if p in named:
            continue
        if topics and not p.startswith(topics):
            top, _, rest = p.partition("/")
            globs.add(f"{top}/**" if rest and not topics.startswith(top + "/") else f"/{p}")
        else:
            globs.add(p if "/" in p else f"/{p}")
    return tuple(sorted(globs))
