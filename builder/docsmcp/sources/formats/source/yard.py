"""Ruby files (`lib/**/*.rb` of a gem, ruby_gem.py says which) read as the pages YARD publishes
on rubydoc.info: a page per file, a section per class or module it documents, and under it a
section per public method, attribute and documented constant, named as Ruby code calls them
(`Faraday::Connection#get`, `HTTParty.get` for a class method, `Faraday::Connection::METHODS`).

A section shows the definition in a `ruby` block (`class Faraday::Connection < Object`,
`def get(url = nil, params = nil)`, `attr_reader :params`) and the YARD docstring as YARD renders
it (yard_tags.py): its text, then *Parameters* (`@param`, with `@option` keys below their
hash), *Returns*, and the other tags as labelled lines, `@example`s as code. Each is an API
entry with its signature, summary, parameters and returns. `{Foo#bar}` links are object
references, resolved against every Ruby section's `object:` anchors (each suffix of the
path: `Faraday::Connection#get`, `Connection#get`). A class reopened without text or members
(`module Faraday` around a file's class) gets no section; a file documenting nothing converts
to no text (no page). Nothing is run: ruby_lex.py and ruby_parse.py read the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from docsmcp.model.api import OBJECT_ANCHOR, Parameter
from docsmcp.model.source import Converted
from docsmcp.sources.formats.linemap import monotone
from docsmcp.sources.formats.markdown.fences import code_block
from docsmcp.sources.formats.source import yard_inherit
from docsmcp.sources.formats.source.doc_entries import source_entry
from docsmcp.sources.formats.source.page_text import Anchors, PageText, unique_anchor
from docsmcp.sources.formats.source.ruby_lex import Line, lex
from docsmcp.sources.formats.source.ruby_parse import RubyObject, open_parens, parse
from docsmcp.sources.formats.source.yard_tags import Doc, parse_doc, rdoc_markup

MAX_ENTRIES = 2000  # API entries of one file, at most
_HEADING = re.compile(r"^(#{1,6}) ")
# RDoc's directives on lines of their own (`:title:`, `:include: file`, `:stopdoc:`)
_RDOC_DIRECTIVE = re.compile(r"^:\w+:(?:\s|$)")
# What ruby_lex.py leaves of a literal: `""`, `%w[]`, `//`, `?c`.
_BLANKED = re.compile(r"\"\"|''|%\w?\W\W|//|\?c\b|``")


@dataclass
class _Page(PageText):
    ids: Anchors = field(default_factory=Anchors)
    local: dict[str, str] = field(default_factory=dict)  # an object's path -> its anchor
    # (child's name, giver's name, member or None for an `alias`, line): yard_inherit.entries
    aliases: list[tuple[str, str, Any, int]] = field(default_factory=list)
    also: dict[str, list[str]] = field(default_factory=dict)  # a method's path -> its aliases

    def add(self, line: int, text: str) -> None:
        if not text and self.out and not self.out[-1][1]:
            return  # (one blank line between blocks: dropped directives left runs of them)
        self.out.append((line, text))

    def heading(self, level: int, line: int, obj: RubyObject) -> int:
        self.blank(line)
        anchor = re.sub(r"[^\w.-]+", "-", obj.path).strip("-") or "object"
        anchor = unique_anchor(anchor, self.ids)
        self.local.setdefault(obj.path, anchor)
        at = len(self.out)
        shown = re.sub(r"([_*\\`\[\]<>])", r"\\\1", obj.path)
        self.add(line, f"{'#' * level} {shown} {{#{anchor}}}")
        for key in _suffixes(obj):
            self.anchors.append((at, OBJECT_ANCHOR + key))
        self.blank(line)
        return at

    def section(self, level: int, obj: RubyObject, namespace: str) -> None:
        at = self.heading(level, obj.line, obj)
        line = obj.line
        for text in code_block("", "ruby", [declaration(obj)]):
            self.add(line, text)
        doc = parse_doc(obj.doc)
        if doc.deprecated is not None:
            self.blank(line)
            self.add(line, f"> **Deprecated.** {doc.deprecated}")
        if doc.text:
            self.blank(line)
            start = len(self.out)
            for n, text in doc.text:
                if m := _HEADING.match(text):  # (a docstring's headings stay below its section)
                    text = "#" * min(6, len(m.group(1)) + level) + text[len(m.group(1)) :]
                self.add(n, text)
            self.refs += [(start, _qualify(name, namespace)) for _, name in doc.names]
        elif doc.names:
            self.refs += [(at, _qualify(name, namespace)) for _, name in doc.names]
        if doc.params or doc.options:
            self.blank(line)
            self.add(line, "**Parameters:**")
            self.blank(line)
            for n, p in [*doc.params, *doc.options]:
                indent = "  " if "[" in p.name and p.name.endswith("]") else ""
                types = f" (`{p.types}`)" if p.types else ""
                self.add(n, f"{indent}- `{p.name}`{types} — {p.text}".rstrip(" —"))
        for n, r in doc.returns:
            self.blank(n)
            label = "Returns" if r.name == "return" else "Block returns"
            types = f"`{r.types}`" if r.types else ""
            self.add(n, f"**{label}:** {types}{' — ' if types and r.text else ''}{r.text}")
        for n, text in doc.sections:
            if text.startswith("**"):
                self.blank(n)
            self.add(n, text)
        if obj.path in self.also:  # (YARD's "Also known as": the names `alias` gives it)
            self.blank(line)
            self.add(line, f"**Also known as:** {', '.join(self.also[obj.path])}")
        self.entry(obj, doc, at)

    def entry(self, obj: RubyObject, doc: Doc, at: int) -> None:
        if len(self.api) >= MAX_ENTRIES:
            return
        options: dict[str, list[str]] = {}
        for _, o in doc.options:
            options.setdefault(o.name.split("[", 1)[0], []).append(o.name.split("[", 1)[-1][:-1])
        params = tuple(
            Parameter(p.name, p.types, None, p.text) for _, p in [*doc.params, *doc.options]
        )
        returns = "; ".join(
            ": ".join(x for x in (r.types, r.text) if x)
            for _, r in doc.returns
            if r.name == "return"
        )
        if not returns and obj.kind == "attribute":
            returns = ""
        self.api.append(
            source_entry(
                name=obj.path,
                category=obj.namespace or obj.path,
                kind="type" if obj.kind in ("class", "module") else "method",
                signature=declaration(obj),
                description=doc.summary,
                parameters=params,
                returns=returns,
                path=self.path,
                line_start=at + 1,
                line_end=len(self.out),
            )
        )


def _suffixes(obj: RubyObject) -> list[str]:
    """The names a `{…}` link may give `obj` by: its path and each shorter one (`Connection#get`,
    `#get` is qualified by the link's own namespace first)."""
    parts = (obj.namespace or obj.name).split("::")
    if not obj.namespace:
        return ["::".join(parts[k:]) for k in range(len(parts))]
    sep = "::" if obj.kind == "constant" else ("." if obj.scope == "class" else "#")
    return ["::".join(parts[k:]) + sep + obj.name for k in range(len(parts))]


def _qualify(name: str, namespace: str) -> str:
    """`{#get}` inside `Faraday::Connection` is `Faraday::Connection#get`."""
    name = name.removeprefix("::")
    return namespace + name if name[:1] in "#." and namespace else name


def declaration(obj: RubyObject) -> str:
    if obj.kind in ("class", "module"):
        sup = f" < {obj.superclass}" if obj.superclass else ""
        return f"{obj.kind} {obj.name}{sup}"
    if obj.kind == "attribute":
        word = {"r": "attr_reader", "w": "attr_writer"}.get(obj.access, "attr_accessor")
        return f"{word} :{obj.name}"
    if obj.kind == "constant":
        return obj.signature
    sig = obj.signature or f"def {obj.name}"
    if obj.scope == "class" and not re.match(r"def\s+(self|[A-Z]\w*)\.", sig):
        sig = "def self." + sig[4:]
    return sig


def _as_written(obj: RubyObject, raw: list[str], lexed: list[Line]) -> str:
    """`obj`'s definition line as the file has it, without its comment (one line: a signature
    over several lines keeps ruby_parse.py's blanked one)."""
    text = raw[obj.line].rstrip("\r")
    comment = lexed[obj.line].comment if obj.line < len(lexed) else None
    if comment is not None and text.endswith("#" + comment):
        text = text[: -len(comment) - 1]
    text = text.strip()
    if obj.kind == "method":
        text = re.sub(r"^(?:private|protected|public|module_function)\s+(?=def\b)", "", text)
        if not text.startswith("def") or open_parens(text):
            return obj.signature
    return text[:400]


def ruby_to_markdown(path: str, text: str) -> Converted:
    """The YARD page of a Ruby file (see the module docstring); no text when it documents
    nothing YARD would show."""
    text, inherits = yard_inherit.split(text)  # (the tree-wide pass's line, last)
    lexed = lex(text)
    raw = text.split("\n")
    objects = [o for o in parse(lexed) if not o.hidden]
    for o in objects:  # (a signature with literals is shown as written: `def f(a = "x")`)
        if o.kind in ("method", "constant") and _BLANKED.search(o.signature) and o.line < len(raw):
            o.signature = _as_written(o, raw, lexed)
    # (a method defined twice is one object, as YARD's: the later definition, the text of the
    # last one that has text)
    latest: dict[tuple[str, str], RubyObject] = {}
    for o in objects:
        if o.namespace:
            before = latest.pop((o.kind, o.path), None)
            if before is not None and not o.doc:
                o.doc = before.doc
            latest[(o.kind, o.path)] = o
    page = _Page(path)
    members: dict[str, list[RubyObject]] = {}
    for o in latest.values():
        if not o.alias_of:
            members.setdefault(o.namespace, []).append(o)
    for o in latest.values():  # (an alias of a method the page shows: another name of it)
        original = latest.get(("method", o.path[: -len(o.name)] + o.alias_of))
        if o.alias_of and original is not None and not original.alias_of:
            page.also.setdefault(original.path, []).append(f"`{o.path[len(o.namespace) :]}`")
            page.aliases.append((o.path, original.path, None, -1))
    namespaces = [
        o
        for o in objects
        if not o.namespace and (o.doc or members.get(o.name) or inherits.get(o.name))
    ]
    if not namespaces:
        return Converted("", None)
    stem = path.rsplit("/", 1)[-1].removesuffix(".rb").replace("_", "")
    main = next(
        (o for o in namespaces if o.name.rsplit("::", 1)[-1].lower() == stem), namespaces[0]
    )
    order = [main, *(o for o in namespaces if o is not main)]
    for ns in order:
        level = 1 if ns is main else 2
        page.section(level, ns, ns.name)
        if ns.name in inherits:  # (a line per module or superclass of the tree)
            yard_inherit.write(page, ns.name, ns.line, inherits[ns.name])
        for kind in ("constant", "attribute", "method"):
            for m in members.get(ns.name, []):
                if m.kind == kind:
                    page.section(level + 1, m, ns.name)
    yard_inherit.entries(page)
    return page.converted(main.name)


def rdoc_to_markdown(path: str, text: str) -> Converted:
    """An RDoc page (`README.rdoc`, Rack's `SPEC.rdoc`) as RDoc renders it, in markdown:
    `= Title` headings, `+code+`, labelled lists, indented text as code, `{text}[url]` links
    (yard_tags.py's markup); its first heading is the title."""
    lines = text.split("\n")
    shown = rdoc_markup([(n, t) for n, t in enumerate(lines) if not _RDOC_DIRECTIVE.match(t)])
    title = next((t[2:].strip() for _, t in shown if t.startswith("# ")), None)
    return Converted("\n".join(t for _, t in shown), title, (), monotone([n for n, _ in shown]))
