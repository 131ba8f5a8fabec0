"""A Swift source file of a package's library target read as the symbol pages DocC publishes.

DocC makes a page per symbol from the compiler's symbol graph; here the unit is the file (its
ids, line map and parse cache are the file's), whose public declarations are its sections, as
Javadoc's class pages are read (javadoc.py): `# Option` (the first public type, or the type the
file extends), its declaration in a `swift` block and its doc comment, then a section per public
member in source order, named as code calls it (`## Option.init(name:parsing:help:completion:)`,
`## ParsableCommand.run()`, `## Option.wrappedValue`); a file's other types are sections of
their own with their members one level down, and an `extension Option` in the file adds its
members to the type's section. What DocC shows is what is shown: `public` and `open`
declarations, the members of a public protocol, the cases of a public enum, members of a
`public extension`; never `internal`, `private`, underscored names (`_parsedValue`), `@_spi`
ones or those `@available(*, unavailable)`. A file with none is no page.

Doc comments (`///` runs, `/** */`) read as DocC renders them: markdown, with
`- Parameter x:` and `- Parameters:` lists gathered under *Parameters*, `- Returns:` and
`- Throws:` under their labels, the other callouts (`- Note:`, `- Important:`, `- Warning:`,
`- Precondition:`, `- Complexity:`, …) as asides where they stand, and symbol links
(``` ``Flag`` ```, ``` ``run()`` ``` below the member's type) as docc.py reads them.

A documentation extension of the catalog (`# ``ArgumentParser/Option`` ` with its `## Topics`)
is DocC's addition to the symbol's page: swift_package.resolve appends it to the file declaring
the symbol, after a marker line (EXTENSION), and it is shown after the symbol's doc comment, its
headings below the symbol's (`@DocumentationExtension(mergeBehavior: override)` replaces the
comment).

Every symbol shown is an API entry named by its qualified name (`ArgumentParser.Option.init(name:
parsing:help:completion:)`; the registry finds `Option.init` too) with its declaration, its first
paragraph, its parameters (types from the declaration, text from `- Parameter`) and its return.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from docsmcp.model.api import Parameter
from docsmcp.model.source import Converted
from docsmcp.sources.formats.linemap import monotone
from docsmcp.sources.formats.markdown import docc
from docsmcp.sources.formats.markdown.fences import code_block
from docsmcp.sources.formats.source import swift_inherit
from docsmcp.sources.formats.source.doc_entries import dotted_category, source_entry, summary_lines
from docsmcp.sources.formats.source.page_text import (
    Anchors,
    PageText,
    object_anchors,
    unique_anchor,
)
from docsmcp.sources.formats.source.swift_merge import Merge, split
from docsmcp.sources.formats.source.swift_parse import TYPE_KEYWORDS, Decl, parse

# The marker line swift_package.resolve writes before each documentation extension it appends.
EXTENSION = "//@docsmcp-docc-extension "
MAX_ENTRIES = 20_000
_HIDDEN_ATTRS = re.compile(r"@_spi\b|@available\(\s*\*\s*,\s*unavailable")
_DROPPED_ATTRS = re.compile(
    r"@(?:available|_\w+|inlinable|usableFromInline|preconcurrency|frozen|inline)"
    r"(?:\((?:[^()\"]|\"(?:[^\"\\]|\\.)*\"|\([^()]*\))*\))?\s*"
)
_DEPRECATED = re.compile(
    r"@available\(\s*(?:\*|\w+)\s*,[^)]*?\bdeprecated\b(?:[^)]*?message:\s*\"((?:[^\"\\]|\\.)*)\")?"
)
_NOT_PUBLIC = frozenset({"internal", "private", "fileprivate", "package"})
_CALLOUT = re.compile(r"^(\s*)[-*+] ([A-Za-z][A-Za-z ]{1,30}):\s?(.*)$")
_PARAMETER = re.compile(r"^\s*[-*+] [Pp]arameter\s+(\S+?):\s?(.*)$")
_PARAM_ITEM = re.compile(r"^\s*[-*+] (\S+?):\s?(.*)$")
_ASIDES = frozenset(
    "note important warning tip experiment attention author authors bug complexity "
    "copyright date invariant postcondition precondition remark remarks requires seealso "
    "since todo version throws returns parameters".split()
)
_METHODS = frozenset({"func", "init", "subscript", "macro"})
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


@dataclass
class _Doc:
    lines: list[str]
    params: dict[str, str]
    returns: str
    throws: str
    names: list[str]


def render_doc(text: str, module: str, owner: str) -> _Doc:
    """A doc comment as DocC renders it (see the module's docstring)."""
    doc = _Doc([], {}, "", "", [])
    fence = ""
    # Where an indented line goes on: "aside", "returns", "throws", "param:NAME" or "" (the
    # text); `- Parameters:` opens a list of `  - name: text` items.
    target = ""
    in_parameters = False
    for raw in text.split("\n"):
        if fence:
            doc.lines.append(raw)
            if raw.strip().startswith(fence):
                fence = ""
            continue
        if m := _FENCE.match(raw):
            fence = m.group(1)
            target, in_parameters = "", False
            doc.lines.append(raw)
            continue
        line, names = docc.inline(raw, None, module, owner)
        doc.names += names
        indented = line.startswith((" ", "\t")) and bool(line.strip())
        if m := _PARAMETER.match(line):
            doc.params[m.group(1)] = m.group(2).strip()
            target, in_parameters = "param:" + m.group(1), False
            continue
        if in_parameters and indented and (m := _PARAM_ITEM.match(line)):
            doc.params[m.group(1)] = m.group(2).strip()
            target = "param:" + m.group(1)
            continue
        m = _CALLOUT.match(line)
        if m and not m.group(1) and m.group(2).lower().replace(" ", "") in _ASIDES:
            kind = m.group(2).lower().replace(" ", "")
            in_parameters = kind == "parameters"
            if kind == "returns":
                doc.returns, target = m.group(3).strip(), "returns"
            elif kind == "throws":
                doc.throws, target = m.group(3).strip(), "throws"
            elif not in_parameters:
                doc.lines.append(f"> {m.group(2).strip()}: {m.group(3)}")
                target = "aside"
            continue
        if target and indented:
            more = line.strip()
            if target == "aside":
                doc.lines.append("> " + more)
            elif target == "returns":
                doc.returns += " " + more
            elif target == "throws":
                doc.throws += " " + more
            else:
                name = target.removeprefix("param:")
                doc.params[name] = f"{doc.params[name]} {more}".strip()
            continue
        if not indented:
            target, in_parameters = "", False
        doc.lines.append(line)
    while doc.lines and not doc.lines[-1].strip():
        doc.lines.pop()
    return doc


@dataclass
class _Page(PageText):
    module: str
    ids: Anchors = field(default_factory=Anchors)
    extensions: dict[str, list[str]] = field(default_factory=dict)  # type path -> its text
    links: docc.Links | None = None
    merged: Merge = field(default_factory=Merge)  # (other files' parts: swift_merge.py)
    aliases: list[tuple[str, str, Any, int]] = field(default_factory=list)  # (swift_inherit)

    def heading(
        self, level: int, line: int, title: str, path: list[str], named: bool = True
    ) -> int:
        self.blank(line)
        # (the id as Javadoc's are written: `Option.init-name-help-`; `(`, `:` and operators
        # are no id characters)
        anchor = re.sub(r"[^\w.-]", "-", ".".join(path) or self.module)
        anchor = unique_anchor(anchor, self.ids)
        at = len(self.out)
        # (`init(_:label:)`: its underscores and stars are no emphasis)
        shown = re.sub(r"([_*\\`])", r"\\\1", title)
        self.add(line, f"{'#' * level} {shown} {{#{anchor}}}")
        if not named:  # (an extension of a type another file declares: no link target of it)
            return at
        parts = [self.module, *path]
        self.anchors += object_anchors(at, parts)
        return at

    def symbol(self, decl: Decl, path: list[str], level: int, owner: list[str]) -> None:
        title = (
            ".".join(path) if decl.kind in TYPE_KEYWORDS or len(path) < 3 else ".".join(path[-2:])
        )
        declared = self.merged.declared.get(".".join(path))
        if declared is not None:  # (no second symbol of the type: its extension, as written)
            title = f"extension {'.'.join(path)}"
        at = self.heading(level, decl.line, title, path, declared is None)
        shown = declaration(decl)
        self.blank(decl.line)
        for text in code_block("", "swift", [shown]):
            self.add(decl.line, text)
        if declared is not None:  # (DocC shows these members on the type's page)
            self.blank(decl.line)
            self.add(decl.line, f"Extends [`{'.'.join(path)}`]({_href(declared)}).")
        doc = render_doc(decl.doc or "", self.module, ".".join(owner))
        for a in decl.attributes:
            if m := _DEPRECATED.search(a):
                doc.lines[:0] = [f"> Deprecated: {m.group(1) or ''}".rstrip(), ""]
        extension = self.extensions.pop(".".join(path), None)
        if extension and re.search(r"mergeBehavior:\s*override", "\n".join(extension)):
            doc = render_doc("", self.module, "")
        if doc.lines:
            self.blank(decl.line)
            fence = ""
            for text in doc.lines:
                if fence or _FENCE.match(text):
                    opened = _FENCE.match(text)
                    fence = (
                        ""
                        if fence and text.strip().startswith(fence)
                        else fence or (opened.group(1) if opened else "")
                    )
                elif m := re.match(r"(#{1,6}) ", text):  # (a comment's headings below its symbol's)
                    text = "#" * min(6, len(m.group(1)) + level) + text[len(m.group(1)) :]
                self.add(decl.line, text)
            first = len(self.out) - len(doc.lines)
            self.refs += [(first, n) for n in doc.names]
        if doc.params:
            self.blank(decl.line)
            self.add(decl.line, "**Parameters**")
            self.blank(decl.line)
            for name, text in doc.params.items():
                self.add(decl.line, f"- `{name}`: {text}".rstrip())
        for label, text in (("Returns", doc.returns), ("Throws", doc.throws)):
            if text:
                self.blank(decl.line)
                self.add(decl.line, f"**{label}:** {text}")
        if extension:
            self.merge(extension, level, decl.line, ".".join(path))
        if declared is None:  # (its superclass's and protocols' members: a line per base)
            swift_inherit.write(self, path, decl.line)
        self.extended(decl, path, level)
        if declared is None:
            self.entry(decl, path, doc, at)

    def extended(self, decl: Decl, path: list[str], level: int) -> None:
        """The members other files' extensions add to the type `path`, a line per file, under
        a heading of their own (as DocC's Topics group a page's members)."""
        files = self.merged.extended.get(".".join(path))
        if not files:
            return
        title = "Extensions in other files"
        self.heading(min(6, level + 1), decl.line, title, [*path, "extensions"], False)
        self.blank(decl.line)
        for file, names in files:
            shown = ", ".join(f"`{n}`" for n in dict.fromkeys(names))
            self.add(decl.line, f"- [{file.rsplit('/', 1)[-1]}]({_href(file)}): {shown}")

    def merge(self, text: list[str], level: int, line: int, owner: str) -> None:
        """A documentation extension's text below its symbol's heading (its own title gone)."""
        body = "\n".join(text)
        if self.links is not None:
            body = docc.header_line(self.links) + "\n" + body
        done = docc.docc_to_markdown(f"{self.module}.docc/x.md", body)
        lines = done.text.split("\n")
        if lines and lines[0].startswith("# "):
            lines = lines[1:]
        self.blank(line)
        start = len(self.out)
        for shown in lines:
            if shown.startswith("#") and (m := re.match(r"(#+) ", shown)):
                shown = "#" * min(6, len(m.group(1)) + level - 1) + shown[len(m.group(1)) :]
            self.add(line, shown)
        self.refs += [(start + max(0, r - 1), name) for r, name in done.refs if r > 0]

    def entry(self, decl: Decl, path: list[str], doc: _Doc, at: int) -> None:
        if len(self.api) >= MAX_ENTRIES:
            return
        name = ".".join([self.module, *path])
        params = tuple(
            Parameter(
                n if label == "_" else label,
                t,
                True,
                doc.params.get(n) or doc.params.get(label, ""),
            )
            for label, n, t in decl.params
        )
        returns = decl.returns
        if doc.returns:
            returns = f"{returns}: {doc.returns}" if returns else doc.returns
        description = _description(doc.lines)
        self.api.append(
            source_entry(
                name=name,
                category=dotted_category(name),
                kind="method" if decl.kind in _METHODS else "type",
                signature=declaration(decl),
                description=description,
                parameters=params,
                returns=returns,
                path=self.path,
                line_start=at + 1,
                line_end=len(self.out),
            )
        )


def declaration(decl: Decl) -> str:
    """A declaration as DocC shows it: without `@available` and the compiler's attributes."""
    text = " ".join(_DROPPED_ATTRS.sub("", decl.declaration).split())
    return re.sub(r"([(\[<])\s+|\s+([)\]>])", r"\1\2", text)


def _shown(m: Decl, owner: Decl, public_scope: bool) -> bool:
    if m.name.startswith("_") or any(_HIDDEN_ATTRS.search(a) for a in m.attributes):
        return False
    if "public" in m.modifiers or "open" in m.modifiers:
        return True
    if m.modifiers & _NOT_PUBLIC:
        return False
    if owner.kind == "protocol" or (owner.kind == "enum" and m.kind == "case"):
        return True
    return public_scope and owner.kind == "extension"


def _top_shown(d: Decl) -> bool:
    if d.name.startswith("_") or any(_HIDDEN_ATTRS.search(a) for a in d.attributes):
        return False
    if d.kind == "extension":
        public = "public" in d.modifiers
        return any(_shown(m, d, public) for m in d.members)
    return "public" in d.modifiers or "open" in d.modifiers


def _description(lines: list[str]) -> str:
    """The comment's first paragraph on one line."""
    return " ".join(summary_lines(lines))


def swift_to_markdown(path: str, text: str) -> Converted:
    """The DocC symbol pages of the Swift file `text` (see the module's docstring)."""
    text, merged = split(text)  # (the tree-wide pass's line, last: swift_merge.py)
    links, text, skipped = docc.read_header(text)
    text, _, appended = text.partition("\n" + EXTENSION)
    module = links.module if links is not None and links.module else _module(path)
    page = _Page(path, module, links=links, merged=merged)
    if appended:
        for part in (EXTENSION + appended).split("\n" + EXTENSION):
            body = part.split("\n", 1)[1] if "\n" in part else ""
            first = body.lstrip().split("\n", 1)[0]
            m = docc.SYMBOL_LINK.search(first)
            if m is not None:
                target = docc.symbol_name(m.group(1), module).split(".", 1)[-1]
                page.extensions[target] = body.lstrip().split("\n")[1:]
    groups = _groups(text)
    if not groups:
        return Converted("", None, (), (), (), ())
    first = next(iter(groups))
    top = first[0] if first else ""
    for path, g in groups.items():
        level = (len(path) if path[:1] == (top,) else len(path) + 1) if path else 1
        if path:
            decl = g.decl or Decl("extension", ".".join(path), frozenset(), (), "", None, 0)
            page.symbol(decl, list(path), min(6, level), list(path[:-1]))
        elif not groups.get((), _Group(None, [])).members:
            continue
        elif first == ():
            page.heading(1, g.members[0].line, module, [])
        for m in g.members:
            page.symbol(m, [*path, m.name], min(6, level + 1), list(path))
    for target, extension in list(page.extensions.items()):  # (its symbol not shown here)
        page.merge(extension, 2, page.out[-1][0] if page.out else 0, target)
    swift_inherit.entries(page)
    title = top or module
    if top and top in merged.declared:
        title = f"extension {top}"
    lines = [t for _, t in page.out]
    line_map = monotone([n + skipped for n, _ in page.out])
    return Converted(
        "\n".join(lines), title, tuple(page.anchors), line_map, tuple(page.api), tuple(page.refs)
    )


def _href(relative: str) -> str:
    return quote(relative, safe="/+-._~")


def _groups(text: str) -> dict[tuple[str, ...], _Group]:
    """The file's sections: each type path (() for top-level functions) with its members."""
    groups: dict[tuple[str, ...], _Group] = {}
    for d in parse(text):
        if not _top_shown(d):
            continue
        path = tuple(d.name.split("."))
        if d.kind == "extension":
            _group(groups, path, d, "public" in d.modifiers)
        elif d.kind in TYPE_KEYWORDS:
            _group(groups, path, d, "public" in d.modifiers or "open" in d.modifiers)
        else:
            groups.setdefault((), _Group(None, [])).members.append(d)
    return groups


def types_of(text: str) -> tuple[str, list[tuple[str, bool, list[str]]]]:
    """For the tree-wide pass (packages/swift_extensions.py): the module a page's header names
    ("" when none), and its type sections: (type path, whether the file declares the type,
    the names of the members it shows)."""
    text, _ = split(text)
    links, text, _ = docc.read_header(text)
    text = text.partition("\n" + EXTENSION)[0]
    module = links.module if links is not None else ""
    return module, [
        (
            ".".join(path),
            g.decl is not None and g.decl.kind != "extension",
            [m.name for m in g.members],
        )
        for path, g in _groups(text).items()
        if path
    ]


def type_facts(text: str) -> list[tuple[str, str, list[str], list[swift_inherit.Member]]]:
    """For the tree-wide pass: each type declaration and extension of a page (nested types
    too): its path, kind, the bases it names and the members it shows (swift_inherit.py)."""
    text, _ = split(text)
    links, text, _ = docc.read_header(text)
    text = text.partition("\n" + EXTENSION)[0]
    module = links.module if links is not None and links.module else ""
    out: list[tuple[str, str, list[str], list[swift_inherit.Member]]] = []
    todo = [(d, d.name, "public" in d.modifiers or "open" in d.modifiers) for d in parse(text)]
    while todo and len(out) < MAX_ENTRIES:
        d, path, public = todo.pop(0)
        if d.kind not in TYPE_KEYWORDS or d.name.startswith("_"):
            continue
        members = []
        for m in d.members:
            if not _shown(m, d, public):
                continue
            if m.kind in TYPE_KEYWORDS:
                todo.append((m, f"{path}.{m.name}", "public" in m.modifiers or public))
                continue
            doc = render_doc(m.doc or "", module, path)
            members.append(swift_inherit.Member(m.name, declaration(m), _description(doc.lines),
                                                d.kind == "extension"))  # fmt: skip
        out.append((path, d.kind, swift_inherit.bases(d.declaration, d.kind), members))
    return out


@dataclass
class _Group:
    """A type's section: its declaration (a type's, else the first extension's) and the
    members its declaration and the file's extensions of it show."""

    decl: Decl | None
    members: list[Decl]


def _group(
    groups: dict[tuple[str, ...], _Group], path: tuple[str, ...], d: Decl, public: bool
) -> None:
    g = groups.setdefault(path, _Group(None, []))
    if g.decl is None or (g.decl.kind == "extension" and d.kind != "extension"):
        g.decl = d
    for m in d.members:
        if not _shown(m, d, public):
            continue
        if m.kind in TYPE_KEYWORDS and m.kind != "extension":
            _group(groups, (*path, m.name), m, "public" in m.modifiers or "open" in m.modifiers)
        elif m.kind != "extension":
            g.members.append(m)


def module_of_path(path: str) -> str:
    """The module of a target's file when no header names it (see `_module`)."""
    return _module(path)


def _module(path: str) -> str:
    """The module of a target's file: the folder below `Sources/` (SwiftPM's default)."""
    parts = path.split("/")
    for k in range(len(parts) - 2, -1, -1):
        if parts[k] == "Sources" and k + 1 < len(parts) - 1:
            return parts[k + 1]
    return parts[-2] if len(parts) > 1 else "Module"
