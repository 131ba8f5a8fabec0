"""A Dart package's public library as the pages dartdoc (pub.dev's API docs) publishes.

A public library is a file directly in a package's `lib/` (or below it, outside `lib/src/`);
what it declares and what it `export`s (`lib/src/` files, `show`/`hide` applied) is its API.
dart_package.resolve writes above the library's text a header line (HEADER: the library's
and package's names) and appends each exported file after an EXPORT line (`EXPORT path show=A,B
hide=C`), and the files defining `{@template}`s the page's `{@macro}`s use after a TEMPLATES
line. This reader makes one page of them:

- `# http library`, the library's doc comment (the one above its `library` directive);
- a section per exported class, mixin, enum, extension, extension type, typedef, top-level
  function and variable (`## Client`, `## get`), with its declaration in a `dart` block and
  its doc comment; under a type, a section per member named as Dart calls it: constructors
  `### Client.new`, `### Response.bytes`, then enum values, properties (a getter and its
  setter are one), methods and operators;
- left out as dartdoc leaves them out: `_private` names (and all of a private type), a
  declaration whose comment says `@nodoc`, unnamed extensions;
- each shown declaration is an API entry named with its library (`http.Client.get`,
  `bloc.Bloc.add`), its signature, description, parameters (positional, optional `[…]`, named
  `{…}` with `required`; each one's text is the comment's sentence naming `[it]`) and return
  type; and `object:` anchors, so references from other pages resolve.

Comment text: dartdoc_text.py. A `.dart` file read without the header (a library of no
package the resolver saw) is read the same way, named after its `library` directive or file.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field

from docsmcp.model.api import Parameter
from docsmcp.model.source import Converted
from docsmcp.sources.formats.linemap import monotone
from docsmcp.sources.formats.markdown.fences import code_block
from docsmcp.sources.formats.source import dartdoc_inherit, dartdoc_text
from docsmcp.sources.formats.source.dart_parse import TYPE_KINDS, Decl, Unit, parse
from docsmcp.sources.formats.source.doc_entries import dotted_category, source_entry, summary_lines
from docsmcp.sources.formats.source.page_text import PageText, object_anchors

HEADER = "// docsmcp:dartdoc "
EXPORT = "// docsmcp:dart-export "
TEMPLATES = "// docsmcp:dart-templates "
LIBRARY = "// docsmcp:dart-library "  # another public library this one exports (its path)
# another package's library this one exports: JSON {package, uri, names, library}
REEXPORT = "// docsmcp:dart-reexport "
MAX_ENTRIES = 20_000
MAX_SUPERS = 32  # types searched for an inherited member a reference names, at most
_SUPER_CLAUSE = re.compile(r"\b(?:extends|with|implements|on)\b(.*)", re.S)
_CALLABLE = frozenset({"function", "method", "constructor", "operator", "setter"})
_PROPERTY = frozenset({"variable", "field", "getter", "value"})
# the order of a type's members on its dartdoc page
_RANK = {"constructor": 0, "value": 1, "field": 2, "getter": 2, "setter": 2, "method": 3,
         "operator": 4}  # fmt: skip
_TOP_RANK = {"class": 0, "enum": 1, "mixin": 2, "extension type": 3, "extension": 4,
             "variable": 5, "getter": 5, "setter": 5, "function": 6, "typedef": 7}  # fmt: skip
_DEPRECATED = re.compile(r"^@(?:Deprecated\(\s*(?:r?['\"](.*?)['\"])?|deprecated\b)", re.S)


@dataclass(frozen=True)
class Segment:
    """A file read into the page: the library's own, an exported one, one of templates."""

    path: str
    text: str
    first_line: int  # 0-based line of the page body where its text starts
    show: frozenset[str] = frozenset()
    hide: frozenset[str] = frozenset()
    templates_only: bool = False


def header_line(library: str, package: str, example: bool = False) -> str:
    data: dict[str, object] = {"library": library, "package": package}
    if example:
        data["example"] = True
    return HEADER + json.dumps(data, sort_keys=True)


def _example(text: str) -> Converted | None:
    """The page of a package's example file (the header says so): its code, as pub.dev's
    Example tab shows it."""
    head, _, body = text.partition("\n")
    try:
        data = json.loads(head[len(HEADER) :])
    except ValueError:
        return None
    if not isinstance(data, dict) or not data.get("example"):
        return None
    title = f"{data.get('package') or 'package'} example"
    code = body.rstrip("\n").split("\n")
    lines = [f"# {title}", "", *code_block("", "dart", code)]
    line_map = (0, 0, 0, *range(1, len(code) + 1), len(code))  # (line 0: the header)
    return Converted("\n".join(lines), title, (), tuple(line_map), (), ())


def export_line(path: str, show: tuple[str, ...], hide: tuple[str, ...]) -> str:
    return f"{EXPORT}{path} show={','.join(show)} hide={','.join(hide)}"


def split(path: str, body: str) -> tuple[str, list[Segment], list[str], list[dict]]:
    """The library name, the segments of a page body, the other libraries it exports and the
    other packages' (see the module's docstring)."""
    library = ""
    libraries: list[str] = []
    packages: list[dict] = []
    lines = body.split("\n")
    start = 0
    if lines and lines[0].startswith(HEADER):
        try:
            library = str(json.loads(lines[0][len(HEADER) :]).get("library", ""))
        except (ValueError, AttributeError):
            library = ""
        start = 1
    segments: list[Segment] = []
    cur = Segment(path, "", start)
    buf: list[str] = []
    for k in range(start, len(lines)):
        line = lines[k]
        if line.startswith(LIBRARY):
            libraries.append(line[len(LIBRARY) :].strip())
            continue
        if line.startswith(REEXPORT):
            try:
                said = json.loads(line[len(REEXPORT) :])
                packages += [said] if isinstance(said, dict) else []
            except ValueError:
                pass
            continue
        if line.startswith((EXPORT, TEMPLATES)):
            segments.append(Segment(cur.path, "\n".join(buf), cur.first_line, cur.show,
                                    cur.hide, cur.templates_only))  # fmt: skip
            buf = []
            if line.startswith(EXPORT):
                rest = line[len(EXPORT) :].split(" ")
                show = next((x[5:] for x in rest if x.startswith("show=")), "")
                hide = next((x[5:] for x in rest if x.startswith("hide=")), "")
                cur = Segment(rest[0], "", k + 1, _names(show), _names(hide))
            else:
                cur = Segment(line[len(TEMPLATES) :].strip(), "", k + 1, templates_only=True)
            continue
        buf.append(line)
    segments.append(Segment(cur.path, "\n".join(buf), cur.first_line, cur.show, cur.hide,
                            cur.templates_only))  # fmt: skip
    return library, segments, libraries, packages


def reexport_line(package: str, uri: str, names: list[str], library: str) -> str:
    said = {"package": package, "uri": uri, "names": names, "library": library}
    return REEXPORT + json.dumps(said, ensure_ascii=False, sort_keys=True)


def _names(text: str) -> frozenset[str]:
    return frozenset(x for x in text.split(",") if x)


def library_name(path: str, unit: Unit) -> str:
    """dartdoc's name of a library: its `library` directive's, else its file's."""
    if unit.library:
        return unit.library
    stem = posixpath.splitext(posixpath.basename(path))[0]
    below = path.split("/lib/", 1)[1] if "/lib/" in path else ""
    if below.count("/"):  # (`lib/foo/bar.dart`: dartdoc's `foo/bar`)
        return posixpath.splitext(below)[0]
    return stem


def shown(d: Decl) -> bool:
    """Whether dartdoc shows the declaration: a public name without `@nodoc`."""
    if not d.name or d.name.startswith("_") or d.name.split(".")[-1].startswith("_"):
        return False
    return not (d.doc and dartdoc_text.NODOC.search(d.doc))


@dataclass
class _Page(PageText):
    library: str
    table: dict[str, str]  # templates
    symbols: dict[str, str] = field(default_factory=dict)  # name -> anchor
    supers: dict[str, list[str]] = field(default_factory=dict)  # type -> its supertypes
    types: dict[str, str] = field(default_factory=dict)  # `Type.field` -> the field's type
    # (child's name, supertype member's name, member, line): dartdoc_inherit.entries
    aliases: list[tuple[str, str, Decl, int]] = field(default_factory=list)

    def heading(self, level: int, line: int, title: str, parts: list[str]) -> int:
        self.blank(line)
        at = len(self.out)
        anchor = self.symbols.get(".".join(parts), "")
        shown_title = re.sub(r"([_*\\`<>\[\]])", r"\\\1", title)
        self.add(line, f"{'#' * level} {shown_title}" + (f" {{#{anchor}}}" if anchor else ""))
        full = [self.library, *parts] if self.library else parts
        self.anchors += object_anchors(at, full)
        return at

    def link(self, owner: str, params: frozenset[str]) -> object:
        def resolve(name: str) -> str | None:
            if name in params:
                return None
            # a member of the type or of a type it extends, mixes in or implements (inherited,
            # as dartdoc links it), else a name of the library
            found = self.inherited(owner, name, self.symbols)
            return found if found is not None else self.symbols.get(name)

        return resolve

    def declaration(self, d: Decl, parts: list[str], level: int, first: int, extra: str) -> None:
        title = ".".join(parts[-2:]) if len(parts) > 1 else parts[0]
        line = first + d.line
        at = self.heading(level, line, title, parts)
        self.blank(line)
        for text in code_block("", "dart", [d.signature] + ([extra] if extra else [])):
            self.add(line, text)
        owner = parts[0] if len(parts) > 1 else (parts[0] if d.kind in TYPE_KINDS else "")
        names = frozenset(p.name for p in d.params)
        lines, refs = dartdoc_text.render(d.doc or "", self.table, self.link(owner, names))  # type: ignore[arg-type]
        deprecated = next((m for a in d.annotations if (m := _DEPRECATED.match(a))), None)
        if deprecated is not None:
            lines[:0] = [f"> Deprecated: {deprecated.group(1) or ''}".rstrip(), ""]
        if lines:
            self.blank(line)
            start = len(self.out)
            for text in lines:
                if m := re.match(r"(#{1,6}) ", text):  # (a comment's headings below its symbol's)
                    text = "#" * min(6, len(m.group(1)) + level) + text[len(m.group(1)) :]
                self.add(line, text)
            self.refs += [(start, n) for n in refs if n not in names]
        self.entry(d, parts, lines, at)

    def field_type(self, owner: str, name: str) -> str:
        """The type of the field an initializing parameter (`this.x`, `super.x`) names: the
        owner's, else a supertype's on the page."""
        found = self.inherited(owner, name, self.types)
        return found if found is not None else ""

    def inherited(self, owner: str, name: str, table: dict[str, str]) -> str | None:
        """`table`'s value for the member `name` of `owner` or of the nearest type it extends,
        mixes in or implements (breadth first, at most MAX_SUPERS types); None when none has
        it."""
        seen: set[str] = set()
        todo = [owner] if owner else []
        while todo and len(seen) < MAX_SUPERS:
            t = todo.pop(0)
            if t in seen:
                continue
            seen.add(t)
            if f"{t}.{name}" in table:
                return table[f"{t}.{name}"]
            todo += self.supers.get(t, [])
        return None

    def entry(self, d: Decl, parts: list[str], lines: list[str], at: int) -> None:
        if len(self.api) >= MAX_ENTRIES:
            return
        name = ".".join([self.library, *parts] if self.library else parts)
        doc = dartdoc_text.expand(d.doc or "", self.table)
        owner = parts[0] if d.kind == "constructor" else ""
        params = tuple(
            Parameter(
                p.name,
                p.type or self.field_type(owner, p.name),
                p.required,
                dartdoc_text.sentence_about(doc, p.name),
            )
            for p in d.params
        )
        kind = "method" if d.kind in _CALLABLE else "property" if d.kind in _PROPERTY else "type"
        self.api.append(
            source_entry(
                name=name,
                category=dotted_category(name),
                kind=kind,
                signature=d.signature,
                description=_description(lines),
                parameters=params,
                returns=d.returns,
                path=self.path,
                line_start=at + 1,
                line_end=len(self.out),
            )
        )


_LINKED = re.compile(r"\[(`[^`\n]+`)\]\(#[^)\s]*\)")


def _description(lines: list[str]) -> str:
    """The comment's first paragraph, its references as code without their links."""
    return " ".join(_LINKED.sub(r"\1", x) for x in summary_lines(lines))


def _filtered(unit: Unit, seg: Segment) -> list[Decl]:
    out = []
    for d in unit.decls:
        if not shown(d) or (d.kind == "extension" and not d.name):
            continue
        if seg.show and d.name not in seg.show:
            continue
        if d.name in seg.hide:
            continue
        out.append(d)
    return out


def _members(d: Decl) -> list[Decl]:
    """A type's shown members in dartdoc's order; a setter joins its getter (one property)."""
    members = [m for m in d.members if shown(m)]
    getters = {m.name for m in members if m.kind in ("getter", "field")}
    kept = [m for m in members if not (m.kind == "setter" and m.name in getters)]
    return sorted(kept, key=lambda m: (m.static and m.kind != "constructor", _RANK.get(m.kind, 5)))


def dart_to_markdown(path: str, text: str) -> Converted:
    """The dartdoc page of the library `text` (see the module's docstring)."""
    text = text.replace("\r\n", "\n")
    if text.startswith(HEADER) and (example := _example(text)) is not None:
        return example
    text, external = dartdoc_inherit.split(text)  # (the pass's supertypes of other pages)
    library, segments, exported, packages = split(path, text)
    units = [(seg, parse(seg.text)) for seg in segments]
    own = units[0][1]
    library = library or library_name(path, own)
    docs = [d.doc for _, u in units for d in _all(u.decls) if d.doc]
    table = dartdoc_text.templates(docs + ([own.library_doc] if own.library_doc else []))
    page = _Page(path, library, table)
    decls: list[tuple[Segment, Decl]] = []
    seen: set[str] = set()
    for seg, unit in units:
        if seg.templates_only or (unit.part_of and seg is segments[0]):
            continue
        for d in _filtered(unit, seg):
            key = f"{d.kind}:{d.name}"
            if key not in seen:  # (a file exported twice, by two routes)
                seen.add(key)
                decls.append((seg, d))
    # (in the order of dartdoc's library page: types, then properties, functions, typedefs)
    decls.sort(key=lambda sd: _TOP_RANK.get(sd[1].kind, 9))
    if not decls and not own.library_doc and not exported and not packages:
        return Converted("", None, (), (), (), ())
    for _, d in decls:
        page.symbols[d.name] = anchor(d.name)
        page.supers[d.name] = _supertypes(d.signature)
        for m in _members(d):
            page.symbols[f"{d.name}.{_member_name(m)}"] = anchor(f"{d.name}.{_member_name(m)}")
        for m in d.members:  # (private fields too: `this._x` parameters are rare, `this.x` not)
            if m.kind in ("field", "getter") and m.returns:
                page.types.setdefault(f"{d.name}.{m.name}", m.returns)
    title = f"{library} library"
    page.add(0, f"# {title}")
    if own.library_doc:
        lines, _ = dartdoc_text.render(own.library_doc, table, page.link("", frozenset()))  # type: ignore[arg-type]
        page.blank(0)
        for line in lines:
            page.add(0, line)
    if exported:  # (dartdoc lists their declarations on this page too; their pages show them)
        names = ", ".join(
            f"[{posixpath.splitext(posixpath.basename(p))[0]}]({p})" for p in exported
        )
        page.blank(0)
        page.add(0, f"Exports the libraries {names}." if len(exported) > 1 else
                 f"Exports the library {names}.")  # fmt: skip
    for said in packages:  # (dartdoc lists them here; their package's pages show them)
        _reexport(page, said)
    types = {d.name: d for _, d in decls if d.kind in dartdoc_inherit.INHERITING}
    for seg, d in decls:
        first = seg.first_line
        page.declaration(d, [d.name], 2, first, "")
        if (
            d.kind in dartdoc_inherit.INHERITING
        ):  # (dartdoc's inherited members: a line per supertype)
            dartdoc_inherit.write(page, d, types, external, _members, _member_name, first + d.line)
        setters = {m.name: m for m in d.members if m.kind == "setter" and shown(m)}
        for m in _members(d):
            extra = (
                setters[m.name].signature
                if m.kind in ("getter", "field") and m.name in setters
                else ""
            )
            page.declaration(m, [d.name, _member_name(m)], 3, first, extra)
    dartdoc_inherit.entries(page)
    lines = [t for _, t in page.out]
    line_map = monotone([n for n, _ in page.out])
    return Converted(
        "\n".join(lines), title, tuple(page.anchors), line_map, tuple(page.api), tuple(page.refs)
    )


def _reexport(page: _Page, said: dict) -> None:
    """`**Re-exports from package `riverpod`:** `Provider`, …`: each name, where the package is
    of the tree, a reference to its section on that package's page; never a copy."""
    names = [str(n) for n in said.get("names", ()) if isinstance(n, str) and n]
    uri, home = str(said.get("uri", "")), str(said.get("library", ""))
    label = f"**Re-exports from package `{said.get('package', '')}`** (`{uri}`)"
    page.blank(0)
    at = len(page.out)
    page.add(0, f"{label}: {', '.join(f'`{n}`' for n in names)}" if names else f"{label}.")
    if home:
        page.refs += [(at, n) for n in names]  # (the name: the library showing it may be any)


def _supertypes(signature: str) -> list[str]:
    """The types a class's, mixin's or extension's header names after `extends`, `with`,
    `implements` or `on`, without their type arguments."""
    m = _SUPER_CLAUSE.search(re.sub(r"<[^<>]*>", "", re.sub(r"<[^<>]*>", "", signature)))
    if m is None:
        return []
    return [w for w in re.findall(r"[A-Za-z_$][\w$]*", m.group(1))
            if w not in ("extends", "with", "implements", "on")]  # fmt: skip


def _member_name(m: Decl) -> str:
    return m.name.split(".", 1)[1] if m.kind == "constructor" else m.name


def anchor(name: str) -> str:
    """The id of a symbol's section (`Client.get`, `Client.operator--`): as dartdoc's files
    are named, characters that are no id characters made `-`."""
    return re.sub(r"[^\w.-]", "-", name)


def _all(decls: tuple[Decl, ...]) -> list[Decl]:
    out: list[Decl] = []
    for d in decls:
        out.append(d)
        out.extend(d.members)
    return out
