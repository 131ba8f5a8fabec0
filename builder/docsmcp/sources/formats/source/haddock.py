"""A Haskell module (an exposed module of a cabal library: haskell_package.py says which) as the
page Haddock publishes on Hackage.

- `# Data.Aeson`, the module header comment (its `Module:`/`Copyright:`… fields left out, its
  `Description:` kept);
- the export list in its order: `-- * Section` and `-- ** Sub` headings, `-- $chunk` named
  chunks (the `-- $chunk` comment of the module body), comments written in the list, and a
  section per exported declaration (`### decode {#v:decode}`, `### Value {#t:Value}`:
  Haddock's anchors) with its declaration in a `haskell` block and its comment in Haddock's
  markup (haddock_markup.py); a type lists its constructors and record fields, a class its
  methods and associated types, a signature its arguments' `-- ^` comments;
- no export list: every top-level declaration, in source order;
- `module X` in the export list: a line linking to X's page; where X has no page of its own
  (an other-module, `OPTIONS_HADDOCK hide`), X's exports are shown here, as Haddock inlines
  them. A name the module imports and exports: where its home module is a page (and not
  `not-home`) a line linking there, the entry with the home's signature and comment (nothing
  copied); otherwise the home's section is shown here, as Haddock shows it.
- `OPTIONS_HADDOCK hide`: no page (no text). Unexported names: not shown.

Every shown declaration is an API entry named as users write it, with its module
(`Data.Aeson.decode`, `Data.Aeson.Value`, a constructor `Data.Aeson.Object`, a method
`Data.Aeson.toJSON`), and `object:` anchors so `'decode'` links of other pages resolve.

haskell_package.resolve writes the modules a page needs after the page's text, each after a
MODULE line (`-- docsmcp:haddock-module {json}`); a file read without them shows its own.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from docsmcp.model.api import Parameter
from docsmcp.model.source import Converted
from docsmcp.sources.formats.markdown.fences import code_block
from docsmcp.sources.formats.source import haddock_markup as markup
from docsmcp.sources.formats.source.doc_entries import source_entry
from docsmcp.sources.formats.source.haskell_lex import unlit
from docsmcp.sources.formats.source.haskell_parse import Decl, Export, Module, parse
from docsmcp.sources.formats.source.page_text import (
    Anchors,
    PageText,
    object_anchors,
    unique_anchor,
)

MODULE = "-- docsmcp:haddock-module "
MAX_ENTRIES = 20_000
MAX_DEPTH = 6  # re-exports followed through re-exports, at most
_FIELD = re.compile(r"^(Module|Copyright|License|Licence|Maintainer|Stability|Portability)\s*:")
_DESCRIPTION = re.compile(r"^Description\s*:\s*(.*)$")
_TYPES = frozenset({"data", "newtype", "class", "type", "type family", "data family"})


@dataclass(frozen=True)
class Other:
    """A module the page's text was given (its imports of the same package)."""

    module: Module
    path: str
    page: bool  # it has a page of its own
    home: bool  # a page that is its names' home (not `not-home`)


@dataclass(frozen=True)
class Found:
    decl: Decl
    module: str  # its home module
    other: Other | None  # None: the page's own


def module_line(module: str, path: str, page: bool, home: bool) -> str:
    data = {"module": module, "path": path, "page": page, "home": home}
    return MODULE + json.dumps(data, sort_keys=True)


def split(text: str) -> tuple[str, dict[str, Other]]:
    """The page's own text and the modules appended after it, by name."""
    own, *rest = text.split("\n" + MODULE)
    others: dict[str, Other] = {}
    for part in rest:
        head, _, body = part.partition("\n")
        try:
            data = json.loads(head)
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        path = str(data.get("path", ""))
        mod = parse(unlit(body) if path.endswith(".lhs") else body)
        name = str(data.get("module") or mod.name)
        others.setdefault(name, Other(mod, path, bool(data.get("page")), bool(data.get("home"))))
    return own, others


def anchor_id(name: str) -> str:
    """Haddock's anchor escaping: a character that is no letter (first) or no letter, digit,
    `:`, `_`, `.` (after) is `-NN-`, its code point."""
    out = []
    for k, c in enumerate(name):
        ok = c.isascii() and (c.isalpha() if k == 0 else (c.isalnum() or c in ":_."))
        out.append(c if ok else f"-{ord(c)}-")
    return "".join(out)


def _shown(name: str) -> str:
    return name if name[:1].isalpha() or name[:1] == "_" else f"({name})"


@dataclass
class _Page(PageText):
    module: str
    ids: Anchors = field(default_factory=Anchors)
    done: set[tuple[str, str]] = field(default_factory=set)

    def doc(self, doc: tuple[int, str] | None, level: int, at: int | None = None) -> None:
        """A comment's markdown; `at`: the line all of it is shown at (another file's)."""
        if doc is None or not doc[1].strip():
            return
        refs: list[str] = []
        rows = [(doc[0] + k if at is None else at, t) for k, t in enumerate(doc[1].split("\n"))]
        lines = markup.markdown(rows, level, refs)
        if not lines:
            return
        self.blank(lines[0][0])
        start = len(self.out)
        for n, t in lines:
            self.add(n, t)
        self.refs += [(start, r) for r in refs]

    def add(self, line: int, text: str) -> None:
        # (one output line per entry of `out`: the line map and entries' lines count them)
        self.out.append((line, " ".join(text.split("\n"))))

    def heading(self, level: int, line: int, decl: Decl) -> int:
        self.blank(line)
        space = "t" if decl.kind in _TYPES else "v"
        anchor = unique_anchor(f"{space}:{anchor_id(decl.name)}", self.ids)
        at = len(self.out)
        shown = re.sub(r"([_*\\`\[\]<>#])", r"\\\1", _shown(decl.name))
        self.add(line, f"{'#' * level} {shown} {{#{anchor}}}")
        self.anchors += object_anchors(at, [*self.module.split("."), decl.name])
        self.blank(line)
        return at

    def section(self, level: int, decl: Decl, at_line: int | None = None, note: str = "") -> None:
        """`decl`'s section; `at_line`: where another file's declaration is shown (the
        export's line), None for the page's own."""
        line = decl.line if at_line is None else at_line
        at = self.heading(level, line, decl)
        for t in code_block("", "haskell", [decl.signature]):
            self.add(line, t)
        if note:
            self.blank(line)
            self.add(line, note)
        self.doc(decl.doc, level, at_line)
        if any(text for _, text in decl.args):
            self.blank(line)
            self.add(line, "**Arguments:**")
            self.blank(line)
            for ty, text in decl.args:
                refs: list[str] = []
                said = markup.inline(" ".join(text.split()), refs) if text else ""
                self.refs += [(len(self.out), r) for r in refs]
                self.add(line, f"- `{ty}`" + (f" — {said}" if said else ""))
        for label, kinds in (("Constructors", ("constructor",)), ("Methods", ("method",)),
                             ("Associated types", ("type family", "data family"))):  # fmt: skip
            kids = [c for c in decl.children if c.kind in kinds]
            if not kids:
                continue
            self.blank(line)
            self.add(line, f"**{label}:**")
            self.blank(line)
            for c in kids:
                self.child(c, "", at_line)
                for f in c.children:
                    self.child(f, "  ", at_line)
        self.entry(decl, at)
        for c in decl.children:
            self.entry(c, at, decl.name)
            for f in c.children:
                self.entry(f, at, decl.name)

    def child(self, c: Decl, indent: str, at_line: int | None) -> None:
        text = f"{indent}- `{c.signature}`"
        if c.doc is not None:
            body = " ".join(x.strip() for x in c.doc[1].split("\n") if x.strip())
            refs: list[str] = []
            text += " — " + markup.inline(body, refs)
            self.refs += [(len(self.out), r) for r in refs]
        self.anchors += object_anchors(len(self.out), [*self.module.split("."), c.name])
        self.add(c.line if at_line is None else at_line, text)

    def entry(self, decl: Decl, at: int, owner: str = "") -> None:
        if len(self.api) >= MAX_ENTRIES:
            return
        space = "type" if decl.kind in _TYPES else "value"
        if (space, decl.name) in self.done:
            return
        self.done.add((space, decl.name))
        rows = [(0, t) for t in (decl.doc[1].split("\n") if decl.doc else [])]
        params = tuple(
            Parameter(ty, ty, None, markup.summary([(0, text)])) for ty, text in decl.args if text
        )
        kind = "type" if decl.kind in _TYPES else "method"
        name = f"{self.module}.{decl.name}" if self.module else decl.name
        category = f"{self.module}.{owner}" if owner and self.module else (self.module or name)
        self.api.append(
            source_entry(
                name=name,
                category=category,
                kind=kind,
                signature=decl.signature,
                description=markup.summary(rows),
                parameters=params,
                returns="",
                path=self.path,
                line_start=at + 1,
                line_end=len(self.out),
            )
        )


def _local(mod: Module, name: str, namespace: str = "") -> Decl | None:
    """The top-level declaration of `mod` named `name` (a type first for a capitalised
    name, unless the export says `pattern`), or the one whose constructor, field or method
    it is (returned as the owner)."""
    found = [d for d in mod.decls if d.name == name]
    if found:
        if namespace == "pattern":
            found = [d for d in found if d.kind == "pattern"] or found
        types = [d for d in found if d.kind in _TYPES]
        return (types or found)[0] if name[:1].isupper() or namespace == "type" else found[-1]
    for d in mod.decls:
        for c in d.children:
            if c.name == name or any(f.name == name for f in c.children):
                return d
    return None


def _resolve(
    mod: Module, name: str, namespace: str, others: dict[str, Other], depth: int
) -> Found | None:
    """Where `name`, in scope in `mod`, is declared: `mod` itself, or what it imports from
    the modules it was given, followed through their exports."""
    qualifier, _, bare = (
        name.rpartition(".") if name[:1].isupper() and "." in name else ("", "", name)
    )
    if not qualifier:
        d = _local(mod, name, namespace)
        if d is not None:
            return Found(d, mod.name, None)
    if depth >= MAX_DEPTH:
        return None
    for imp in mod.imports:
        other = others.get(imp.module)
        if other is None or (qualifier and qualifier != imp.alias):
            continue
        if imp.names is not None and not qualifier:
            listed = bare in imp.names
            if listed == imp.hiding and not any(n.endswith("(..)") for n in imp.names):
                continue
        found = _exported(other, bare, namespace, others, depth + 1)
        if found is not None:
            return found
    return None


def _exported(
    other: Other, name: str, namespace: str, others: dict[str, Other], depth: int
) -> Found | None:
    mod = other.module
    found: Found | None = None
    if mod.exports is None:
        d = _local(mod, name, namespace)
        found = Found(d, mod.name, other) if d is not None else None
    else:
        for e in mod.exports:
            if e.kind == "name" and (e.text.rpartition(".")[2] == name or name in e.subs):
                found = _resolve(mod, e.text if e.text.rpartition(".")[2] == name else name,
                                 namespace, others, depth)  # fmt: skip
            elif e.kind == "module" and e.text in (mod.name, *(i.alias for i in mod.imports)):
                if e.text == mod.name:
                    d = _local(mod, name, namespace)
                    found = Found(d, mod.name, None) if d is not None else None
                else:
                    target = next((i.module for i in mod.imports if i.alias == e.text), "")
                    if target in others:
                        found = _exported(others[target], name, namespace, others, depth + 1)
            if found is not None:
                break
    if found is not None and found.other is None:
        found = Found(found.decl, found.module, other)
    return found


def _trimmed(decl: Decl, subs: tuple[str, ...]) -> Decl:
    """`decl` with the children its export names: `T(..)` all, `T` none, `T(A, b)` those."""
    if ".." in subs:
        return decl
    kids = []
    for c in decl.children:
        if c.name in subs:
            kids.append(c)
        elif any(f.name in subs for f in c.children):
            kids.append(Decl(c.kind, c.name, c.signature, c.line, c.doc,
                             [f for f in c.children if f.name in subs], c.args))  # fmt: skip
    return Decl(decl.kind, decl.name, decl.signature, decl.line, decl.doc, kids, decl.args)


def _header(doc: tuple[int, str] | None) -> tuple[tuple[int, str] | None, str]:
    """The module header's text without Haddock's fields, and its `Description:`."""
    if doc is None:
        return None, ""
    rows = doc[1].split("\n")
    kept: list[str] = []
    description = ""
    skipping = False
    for row in rows:
        if _FIELD.match(row.strip()):
            skipping = True
            continue
        if m := _DESCRIPTION.match(row.strip()):
            description, skipping = m.group(1).strip(), True
            continue
        if skipping and row.startswith((" ", "\t")) and row.strip():
            continue  # (a field's continuation)
        skipping = False
        kept.append(row)
    first = next((k for k, r in enumerate(kept) if r.strip()), len(kept))
    offset = len(rows) - len(kept) + first
    return (doc[0] + offset, "\n".join(kept[first:])), description


def haskell_to_markdown(path: str, text: str) -> Converted:
    """The Haddock page of a Haskell module (see the module docstring); no text when Haddock
    hides it."""
    own, others = split(text)
    mod = parse(unlit(own) if path.endswith(".lhs") else own)
    if "hide" in mod.options:
        return Converted("", None)
    name = mod.name or path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    page = _Page(path, name)
    page.add(0, f"# {name}")
    header, description = _header(mod.header)
    if description:
        page.blank(0)
        page.add(header[0] if header else 0, markup.inline(description, []))
    page.doc(header, 1)
    if mod.exports is None:
        for d in mod.decls:
            page.section(2, d)
    else:
        _exports(page, mod, others)
    return page.converted(name, description=description or None)


def _exports(page: _Page, mod: Module, others: dict[str, Other]) -> None:
    level = 2
    for e in mod.exports or ():
        if e.kind == "section":
            level = min(6, 1 + e.level)
            page.blank(e.line)
            page.add(e.line, f"{'#' * level} {markup.inline(e.text, [])}")
            page.blank(e.line)
            continue
        if e.kind in ("doc", "chunk"):
            doc = (e.line, e.text) if e.kind == "doc" else mod.chunks.get(e.text)
            page.doc(doc, level)
            continue
        below = min(6, level + 1)
        if e.kind == "module":
            _module_export(page, mod, e, others, below)
            continue
        found = _resolve(mod, e.text, e.namespace, others, 0)
        if found is None:
            page.blank(e.line)
            page.add(e.line, f"- `{_shown(e.text)}`")
            page.refs.append((len(page.out) - 1, e.text))
            continue
        _shown_found(page, found, e, below)


def _shown_found(page: _Page, found: Found, e: Export, level: int) -> None:
    decl = _trimmed(found.decl, e.subs) if found.decl.kind in _TYPES else found.decl
    if found.other is None:
        page.section(level, decl)
        return
    space = "t" if decl.kind in _TYPES else "v"
    if found.other.page and found.other.home:
        page.blank(e.line)
        target = _relative(found.other.path, page.path) + f"#{space}:{anchor_id(decl.name)}"
        at = len(page.out)
        page.add(e.line, f"- [`{_shown(decl.name)}`]({target}) — from `{found.module}`")
        page.anchors.append((at, "object:" + f"{page.module}.{decl.name}"))
        page.entry(decl, at)
        for c in decl.children:
            page.entry(c, at, decl.name)
        return
    page.section(level, decl, e.line)


def _module_export(
    page: _Page, mod: Module, e: Export, others: dict[str, Other], level: int
) -> None:
    if e.text == mod.name:
        for d in mod.decls:
            page.section(level, d)
        return
    target = next((i.module for i in mod.imports if i.alias == e.text), e.text)
    other = others.get(target)
    page.blank(e.line)
    if other is not None and other.page and "hide" not in other.module.options:
        page.add(e.line, f"- module [`{target}`]({_relative(other.path, page.path)})")
        page.refs.append((len(page.out) - 1, target))
        return
    if other is None:
        page.add(e.line, f"- module `{target}`")
        page.refs.append((len(page.out) - 1, target))
        return
    # (a module with no page of its own: its exports shown here, as Haddock inlines them)
    inner = other.module
    items = (
        inner.exports
        if inner.exports is not None
        else [Export("name", d.name, d.line, ("..",)) for d in inner.decls]
    )
    for x in items:
        if x.kind != "name":
            continue
        found = _exported(other, x.text.rpartition(".")[2], x.namespace, others, 1)
        if found is not None:
            _shown_found(page, found, Export("name", x.text, e.line, x.subs, 0, x.namespace), level)


def _relative(path: str, here: str) -> str:
    import posixpath

    return posixpath.relpath(path, posixpath.dirname(here) or ".")
