"""A C or C++ header read as the reference Doxygen publishes from it: one page per header.

packages/doxygen_project.py decides which headers are pages (the Doxyfile's INPUT) and writes
over each a line (`HEADER` + JSON) with what the Doxyfile says (EXTRACT_ALL, EXCLUDE_SYMBOLS,
PREDEFINED words emptied, ALIASES) and the project's link table (`@ref name` -> target), so
this reader is a pure function of the text, as every converter is.

The page: `# GLFW/glfw3.h` (the path below `include/`), the `@file` comment, then a section per
`@defgroup` group in the order the header defines them (`## Window reference {#window}`:
Doxygen's reference is organised by groups, and `@ref window` names that section), then the
declarations of no group under `## Functions`, `## Macros`, `## Types`, `## Variables`. Each
documented declaration is a section (`### glfwCreateWindow {#glfwCreateWindow}`) holding its
declaration in a `c`/`cpp` block, its brief and text, and its parameters, returns and return
values as lists. A class or struct with member functions is a section of its own
(`## tinyxml2::XMLElement`), its public documented members under it (`### XMLElement::Attribute`);
a struct with fields only lists them in its section; an enum its enumerators. With EXTRACT_ALL,
undocumented declarations are kept, as one code block of their declarations under their
section (GLFW's key tokens); in a plain header (no Doxyfile) each is a section of its own, under
its name, unless a sqlite group's text describes them. `@internal`/`@private` ones are left out
always.

Every declaration shown is an API entry named with its scope (`tinyxml2::XMLElement::Attribute`,
found also as `XMLElement::Attribute`), with its signature, parameters and returns. Pages have
the role `generated` (sources/roles.py), as TypeDoc's module pages do.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

from docsmcp.model.api import ApiEntry, Parameter
from docsmcp.model.api_fields import (
    MAX_DESCRIPTION_CHARS,
    MAX_RETURNS_CHARS,
    MAX_SIGNATURE_CHARS,
)
from docsmcp.model.text import truncate
from docsmcp.sources.files import DOXYGEN_PAGE_SUFFIXES
from docsmcp.sources.formats.markdown.dialects import ATX
from docsmcp.sources.formats.markdown.fences import code_block
from docsmcp.sources.formats.source import doxygen_pages
from docsmcp.sources.formats.source.doxygen_decls import Decl, Group, Header, read_header
from docsmcp.sources.formats.source.doxygen_text import Doc, Links, expand_aliases, parse

log = logging.getLogger("docsmcp.sources.formats.source.doxygen")

HEADER = "//@docsmcp-doxygen "
MAX_ENTRIES = 20_000
_KIND_SECTIONS = (
    ("function", "Functions"),
    ("macro", "Macros"),
    ("typedef", "Types"),
    ("enum", "Types"),
    ("struct", "Types"),
    ("union", "Types"),
    ("class", "Classes"),
    ("variable", "Variables"),
)


@dataclass(frozen=True)
class Settings:
    extract_all: bool = False
    hidden: frozenset[str] = frozenset()  # EXCLUDE_SYMBOLS and PREDEFINED words made empty
    aliases: tuple[tuple[str, str], ...] = ()
    links: tuple[tuple[str, str, str], ...] = ()  # (name, target, text)
    title: str = ""
    project: str = ""  # PROJECT_NAME (the title of a `@mainpage` that gives none)
    # (class, base, the base's members it inherits), qualified (doxygen_inherit.py)
    inherited: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    # those members as declared: (name, kind, code, doc or "", params), for their entries
    inherited_decls: tuple[tuple[str, str, str, str, str], ...] = ()
    # A header documented in plain comments, without a Doxyfile (packages/c_headers.py)
    plain: bool = False


def header_line(settings: Settings) -> str:
    data = {
        "extract_all": settings.extract_all,
        "hidden": sorted(settings.hidden),
        "aliases": dict(settings.aliases),
        "links": [list(x) for x in settings.links],
        "title": settings.title,
        **({"project": settings.project} if settings.project else {}),
        **(
            {"inherited": [[c, b, list(m)] for c, b, m in settings.inherited]}
            if settings.inherited
            else {}
        ),
        **(
            {"inherited_decls": [list(x) for x in settings.inherited_decls]}
            if settings.inherited_decls
            else {}
        ),
        **({"plain": True} if settings.plain else {}),
    }
    return HEADER + json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _settings(text: str) -> tuple[Settings, int]:
    """The settings the header line holds and the number of lines it takes (0 or 1)."""
    if not text.startswith(HEADER):
        return Settings(), 0
    line = text.split("\n", 1)[0]
    try:
        data = json.loads(line[len(HEADER) :])
    except ValueError:
        return Settings(), 1
    return (
        Settings(
            bool(data.get("extract_all")),
            frozenset(data.get("hidden", ())),
            tuple(sorted(data.get("aliases", {}).items())),
            tuple(tuple(x) for x in data.get("links", ())),  # type: ignore[misc]
            str(data.get("title", "")),
            str(data.get("project", "")),
            tuple(
                (str(c), str(b), tuple(str(x) for x in m))
                for c, b, m in data.get("inherited", ())
                if isinstance(m, list)
            ),
            tuple(
                tuple(str(v) for v in x)  # type: ignore[misc]
                for x in data.get("inherited_decls", ())
                if isinstance(x, list) and len(x) == 5
            ),
            bool(data.get("plain")),
        ),
        1,
    )


@dataclass(frozen=True)
class HeaderPage:
    text: str
    title: str | None
    line_map: tuple[int, ...]
    api: tuple[ApiEntry, ...]


class _Writer:
    def __init__(
        self, path: str, offset: int, cpp: bool, links: Links, aliases: dict, project: str = ""
    ) -> None:
        self.path = path
        self.project = project
        self.plain = False  # (a header documented in plain comments: enumerators are entries)
        self.offset = offset  # lines of the header line above the file's own
        self.lang = "cpp" if cpp else "c"
        self.links = links
        self.aliases = aliases
        self.lines: list[str] = []
        self.sources: list[int] = []
        self.api: list[ApiEntry] = []
        self.anchors: set[str] = set()

    def add(self, line: int, text: str) -> None:
        self.lines.append(text)
        self.sources.append(line + self.offset)

    def blank(self, line: int) -> None:
        if self.lines and self.lines[-1]:
            self.add(line, "")

    def anchor(self, name: str) -> str:
        anchor, n = name, 1
        while anchor in self.anchors:
            n += 1
            anchor = f"{name}-{n}"
        self.anchors.add(anchor)
        return anchor

    def heading(self, level: int, line: int, title: str, anchor: str) -> None:
        self.blank(line)
        self.add(line, f"{'#' * level} {title} {{#{self.anchor(anchor)}}}")
        self.add(line, "")

    def doc(self, d: Doc, line: int) -> None:
        if d.brief:
            self.add(line, d.brief)
            self.add(line, "")
        for text in d.lines:
            self.add(line, text)
        self.blank(line)
        for label, items in (("Template parameters", d.tparams), ("Parameters", d.params)):
            if items:
                self.add(line, f"**{label}:**")
                self.add(line, "")
                for p in items:
                    how = f" [{p.direction}]" if p.direction else ""
                    self.add(line, f"- `{p.name}`{how} — {p.text}".rstrip(" —"))
                self.add(line, "")
        if d.returns:
            self.add(line, f"**Returns:** {d.returns}")
            self.add(line, "")
        if d.retvals:
            self.add(line, "**Return values:**")
            self.add(line, "")
            for p in d.retvals:
                self.add(line, f"- `{p.name}` — {p.text}".rstrip(" —"))
            self.add(line, "")

    def code(self, line: int, code: str) -> None:
        self.blank(line)
        for text in code_block("", self.lang, code.split("\n")):
            self.add(line, text)
        self.add(line, "")


def _short(name: str) -> str:
    """The heading of a member: its class and name (`XMLElement::Attribute`)."""
    parts = name.split("::")
    return "::".join(parts[-2:]) if len(parts) > 1 else name


def header_to_markdown(path: str, text: str) -> HeaderPage:
    """The Doxygen page of the header `text` (see the module's docstring)."""
    settings, skip = _settings(text)
    own = text.split("\n", skip)[-1] if skip else text
    links: Links = {name: (target, shown) for name, target, shown in settings.links}
    aliases = dict(settings.aliases)
    parsed = read_header(own, settings.hidden, is_dox(path), plain=settings.plain)
    cpp = not path.lower().endswith(".h") or any(
        d.kind == "class" or "::" in d.name for d in parsed.decls
    )
    w = _Writer(path, skip, cpp, links, aliases, settings.project)
    w.plain = settings.plain
    if len(parsed.pages) == 1 and not _documents(parsed, settings.extract_all):
        # A file of one page (a `.dox` file, mbedtls' `doc_mainpage.h`): the page is the
        # file's, its title the page's, as Doxygen shows it among the related pages.
        _page_comment(w, parsed.pages[0][0], parsed.pages[0][2], links, top=True)
        title = next((x[2:].split(" {#")[0] for x in w.lines if x.startswith("# ")), None)
        return HeaderPage("\n".join(w.lines), title or settings.title or path, tuple(w.sources), ())
    title = settings.title or path
    w.add(parsed.file_line, f"# {title}")
    w.add(parsed.file_line, "")
    if parsed.file_doc:
        w.doc(parse(parsed.file_doc, links, aliases, w.lang), parsed.file_line)
    for text, _, line in parsed.pages:  # (a `@mainpage`/`@page` comment: a section of the page)
        _page_comment(w, text, line, links)

    def keep(d: Decl, doc: Doc | None) -> bool:
        if doc is not None and doc.hidden:
            return False
        if d.name.rsplit("::", 1)[-1].startswith("_") and doc is None:
            return False
        # (plain: a public header's declarations are its API, as EXTRACT_ALL shows them;
        # sqlite's `CAPI3REF:` comment documents the declarations of its group)
        return doc is not None or settings.extract_all or settings.plain

    docs: dict[int, Doc | None] = {}

    def doc_of(d: Decl) -> Doc | None:
        if id(d) not in docs:
            docs[id(d)] = parse(d.doc, links, aliases, w.lang) if d.doc else None
        return docs[id(d)]

    # Which section each declaration goes under.
    groups: dict[str, Group] = {g.name: g for g in parsed.groups}
    order: list[str] = [g.name for g in parsed.groups]
    placed: dict[str, list[Decl]] = {}
    classes: list[Decl] = []
    seen: set[str] = set()
    for d in parsed.decls:
        doc = doc_of(d)
        has_methods = any(m.kind == "function" for m in d.members)
        if d.kind in ("class", "struct", "union") and has_methods:
            if doc is not None and doc.hidden:
                continue
            members = [m for m in d.members if keep(m, doc_of(m))]
            if members or keep(d, doc):
                classes.append(d)
            continue
        if not keep(d, doc):
            continue
        key = (d.kind, d.name)
        if d.kind == "macro" and f"macro {d.name}" in seen:
            continue  # (a macro defined again under another #if)
        seen.add(f"{key[0]} {key[1]}")
        group = (doc.groups[0] if doc and doc.groups else "") or d.group
        if group and group not in groups:
            groups[group] = Group(group, group, "", d.line)
            order.append(group)
        if not group:
            group = "kind:" + dict(_KIND_SECTIONS).get(d.kind, "Declarations")
            if group not in order:
                order.append(group)
        placed.setdefault(group, []).append(d)
    for g in parsed.groups:  # (a group documented here whose members are elsewhere)
        if g.name not in placed and g.doc.strip() and g.name in groups:
            placed[g.name] = []
    for name in order:
        found = placed.get(name)
        if found is None:
            continue
        summary = ""
        if name.startswith("kind:"):
            w.heading(2, found[0].line, name[5:], name[5:].lower())
        else:
            g = groups[name]
            w.heading(2, g.line, g.title, g.name)
            gdoc = parse(g.doc, links, aliases, w.lang) if g.doc.strip() else None
            if gdoc is not None:
                w.doc(gdoc, g.line)
            if settings.plain and gdoc is not None:  # (sqlite: the group's text is theirs)
                summary = gdoc.brief
        _section_decls(
            w, found, doc_of, 3, name if not name.startswith("kind:") else "", summary=summary
        )
    for c in classes:
        doc = doc_of(c)
        start = len(w.lines)
        w.heading(2, c.doc_line, c.name, c.name)
        w.code(c.line, c.code.split("{", 1)[0].strip() + " { … };")
        if doc is not None:
            w.doc(doc, c.doc_line)
        bases = [(b, m) for name, b, m in settings.inherited if name == c.name]
        _inherited(w, c, bases, settings, doc_of)
        _entry(w, c, doc, c.name, start)
        members = [m for m in c.members if keep(m, doc_of(m))]
        _section_decls(w, members, doc_of, 3, c.name, member=True)
    if not w.api and not (parsed.file_doc or "").strip() and not parsed.pages and not placed:
        return HeaderPage("", None, (), ())
    return HeaderPage("\n".join(w.lines), title, tuple(w.sources), tuple(w.api))


def _inherited(
    w: _Writer,
    c: Decl,
    bases: list[tuple[str, tuple[str, ...]]],
    settings: Settings,
    doc_of: Callable[[Decl], Doc | None],
) -> None:
    """What the class inherits, a line per base listing its members as links (Doxygen's
    "Public Member Functions inherited from sf::Window"), in the class's own section; each
    member an API entry named as the class's (`sf::RenderWindow::close`) with the base's
    declaration and comment, whose section is the line (as TypeScript's and Java's are)."""
    declared = {x[0]: x for x in settings.inherited_decls}
    for base, members in bases:
        shown = w.links.get(base, (f"#{base}", base))[0]
        names = ", ".join(
            f"[{m.rsplit('::', 1)[-1]}]({w.links.get(m, (f'#{m}', ''))[0]})" for m in members
        )
        w.add(c.line, f"**Inherited from [{base}]({shown}):** {names}")
        row = len(w.lines) - 1
        for m in members:
            if m in declared:
                _, kind, code, doc, params = declared[m]
                d = Decl(kind, m, code, c.line, doc or None, c.line, params=params)
                name = f"{c.name}::{m.rsplit('::', 1)[-1]}"
                _entry(w, dataclasses.replace(d, name=name), doc_of(d), c.name, row)
        w.add(c.line, "")


def _documents(parsed: Header, extract_all: bool) -> bool:
    """Whether a header documents any declaration or group (else it holds pages only)."""
    return any(g.doc.strip() for g in parsed.groups) or any(
        extract_all or d.doc or any(m.doc for m in d.members) for d in parsed.decls
    )


def _page_comment(w: _Writer, text: str, line: int, links: Links, top: bool = False) -> None:
    """A `@page name Title` comment in a header, as a section (its `@section`s below it);
    `top`: as the page itself (a file of one page), its headings as written."""
    rendered = doxygen_pages.rewrite(expand_aliases(text, w.aliases), links).split("\n")
    first = True
    for x in rendered:
        heading = ATX.match(x)
        if top:
            if not w.lines and not x.strip():
                continue  # (the comment's first lines, before its `@page` line)
            if x == "# ":  # (`@mainpage` without a title: Doxygen's "PROJECT Documentation")
                x = f"# {w.project} Documentation".replace("#  ", "# ")
        elif heading and first:
            x = "##" + x.lstrip("#")  # (the page: a section of the header's page)
            first = False
        elif heading:
            x = "#" * min(6, len(heading.group(1)) + 1) + x.lstrip(" ")[len(heading.group(1)) :]
        w.add(line, x)
    w.blank(line)


def _section_decls(
    w: _Writer,
    decls: list[Decl],
    doc_of,
    level: int,
    category: str,
    member: bool = False,
    summary: str = "",
) -> None:
    """The sections of `decls`; `summary`: the description of the undocumented ones' entries
    (a plain header's group text)."""
    # (plain, outside a group whose text describes them: an undocumented declaration is a
    # section of its own, as Doxygen's EXTRACT_ALL gives each member its heading, so its hit
    # is named after it, not after the documented one above it)
    own = w.plain and not summary
    undocumented = [] if own else [d for d in decls if doc_of(d) is None]
    for d in decls:
        doc = doc_of(d)
        if doc is None and not own:
            continue
        shown = _short(d.name) if member else d.name
        start = len(w.lines)
        w.heading(level, d.doc_line, shown, d.name)
        w.code(d.line, _declaration(d))
        if doc is None:
            _entry(w, d, None, category, start)
            continue
        w.doc(doc, d.doc_line)
        values = [m for m in d.members if m.kind == "enumerator" or m.kind == "variable"]
        if values:
            label = "Values" if d.kind == "enum" or d.code.startswith("typedef enum") else "Fields"
            w.add(d.line, f"**{label}:**")
            w.add(d.line, "")
            for m in values:
                mdoc = doc_of(m)
                said = (mdoc.brief if mdoc else "") or ""
                w.add(m.line, f"- `{m.name.rsplit('::', 1)[-1]}` — {said}".rstrip(" —"))
            w.add(d.line, "")
        _entry(w, d, doc, category, start)
        if w.plain:  # (raylib's `KEY_SPACE`: found by its name, in its enum's section)
            for m in values:
                if m.kind == "enumerator":
                    _entry(w, m, doc_of(m), category, start)
    if undocumented:
        start = len(w.lines)
        w.code(undocumented[0].line, "\n".join(_declaration(d) for d in undocumented))
        for d in undocumented:
            _entry(w, d, None, category, start, summary)


def _declaration(d: Decl) -> str:
    code = d.code.strip()
    if d.kind == "macro":
        return code
    return code if code.endswith(("}", ";", "};")) else code + ";"


def _entry(
    w: _Writer, d: Decl, doc: Doc | None, category: str, start: int, summary: str = ""
) -> None:
    if len(w.api) >= MAX_ENTRIES:
        return
    last = len(w.lines) - 1
    while last > start and not w.lines[last]:
        last -= 1
    params = tuple(
        Parameter(p.name, _param_type(d.params, p.name), None, truncate(p.text, 300))
        for p in (doc.params if doc else [])
    )
    if not params and d.params and d.kind in ("function", "macro"):
        params = tuple(Parameter(name, kind, None, "") for kind, name in _split_params(d.params))
    returns = doc.returns if doc else ""
    w.api.append(
        ApiEntry(
            name=d.name,
            category=category,
            kind="method" if d.kind == "function" or (d.kind == "macro" and d.params) else "type",
            signature=truncate(" ".join(_declaration(d).split()), MAX_SIGNATURE_CHARS),
            description=truncate(doc.brief if doc else summary, MAX_DESCRIPTION_CHARS),
            parameters=params,
            returns=truncate(returns, MAX_RETURNS_CHARS),
            examples=(),
            chunk_id="",
            path=w.path,
            line_start=start + 1,
            line_end=last + 1,
        )
    )


def _split_params(params: str) -> list[tuple[str, str]]:
    """(type, name) of each parameter of a parameter list (tokens joined by spaces): split at
    the commas outside brackets, a default value (`= static_cast<size_t>(-1)`) left off."""
    parts: list[list[str]] = [[]]
    depth = 0
    for t in params.split():
        if t in ("(", "[", "<", "{"):
            depth += 1
        elif t in (")", "]", ">", "}"):
            depth -= 1
        if t == "," and depth <= 0:
            parts.append([])
            continue
        parts[-1].append(t)
    out = []
    for words in parts:
        if "=" in words:
            words = words[: words.index("=")]
        if not words or words == ["void"] or words == ["..."]:
            continue
        name = words[-1] if len(words) > 1 and re.fullmatch(r"[A-Za-z_]\w*", words[-1]) else ""
        kind = " ".join(words[:-1] if name else words)
        pointer = re.search(r"\( \* (\w+) \)", " ".join(words))  # (`int (*cb)(int)`)
        if not name and pointer:
            name, kind = pointer.group(1), " ".join(words).replace(f" {pointer.group(1)} ", " ")
        kind = re.sub(r"\s+([*&,>\])])", r"\1", kind)
        kind = re.sub(r"([<(\[])\s+", r"\1", kind).replace(" :: ", "::")
        out.append((kind, name or f"arg{len(out) + 1}"))
    return out


def _param_type(params: str, name: str) -> str:
    for kind, pname in _split_params(params):
        if pname == name:
            return kind
    return ""


def is_dox(path: str) -> bool:
    """A `.dox` file: Doxygen's pages as comments, no code."""
    return path.lower().endswith(DOXYGEN_PAGE_SUFFIXES)


def header_title(path: str) -> str:
    """The page title of a header: its path below `include/` (`GLFW/glfw3.h`), else its name."""
    parts = path.split("/")
    if "include" in parts:
        return "/".join(parts[parts.index("include") + 1 :])
    return posixpath.basename(path)
