"""A Rust module file (`.rs` of a crate's `src/`) read as the page docs.rs shows of it.

docs.rs renders what rustdoc makes of the doc comments: a module's `//!` docs (or
`#![doc = …]`), then every public item, each with its `///` docs: structs (their public fields),
enums (their variants), traits (their methods), functions, exported macros, type aliases,
constants and statics, and the public methods of `impl Type` blocks. So a `.rs` file converts,
without compiling anything, to one markdown page: `# axum::routing`, the module docs, then a
section per item, `## Struct Router` over its declaration in a `rust` block and its docs (whose
own `# Examples`/`# Panics` headings go down under it), a method `### Router::nest` under its
type. Each item is an API entry named by its rustdoc path (`axum::routing::Router::nest`; the
registry finds `Router::nest` and `nest` too) and carries docs.rs' anchor (`struct.Router`,
`method.Router.nest`) and an `object:` anchor for each tail of its path, which the intra-doc
links of every page resolve to (rustdoc_text.py; xref).

What docs.rs does not show is left out: items that are not `pub` (`pub(crate)` is not), those
with `#[doc(hidden)]` or under `#[cfg(test)]`/`#[cfg(doctest)]`, trait impls' methods (docs.rs
lists them apart, under the trait's docs), `macro_rules!` without `#[macro_export]`, private
inline modules. A file without any doc or public item converts to no text (no page).

The crate, the module path and the path items are published under come from the header line
rust_crate.py writes over the file (`HEADER`); a private module's items are named under its
nearest public module, which re-exports them (`mod json; pub use json::Json;`: `axum::Json`).
`#[doc = include_str!(…)]` was inlined by rust_crate.py too. The walk over the tokens
(rust_lex.py) always advances, and nesting (inline modules, impls) is bounded by MAX_DEPTH.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from docsmcp.model.api import OBJECT_ANCHOR
from docsmcp.model.source import Converted
from docsmcp.sources.formats.source import rust_macros
from docsmcp.sources.formats.source.rust_lex import string_value, tokens
from docsmcp.sources.formats.source.rustdoc_page import Item, Page, api_entry, tails
from docsmcp.sources.formats.source.rustdoc_text import doc_markdown, first_paragraph
from docsmcp.sources.formats.source.token_groups import Token, group_end

HEADER = "//@docsmcp-rust "  # crate=NAME module=a::b public=a (rust_crate.expand writes it)
# NAME PRIMARY [ALIAS…]: where an item of the file is shown and the other paths re-exports give
# it (packages/rust_reexports.py writes them under HEADER)
USE_LINE = "//@docsmcp-rust-use "
# PATH DECLARATION: a line of the module's Re-exports, as docs.rs lists a `pub use` it does not
# inline (`pub use http;`, a public module's item), PATH where it is shown ("-": outside the tree)
REEXPORT_LINE = "//@docsmcp-rust-reexport "
_HEADER = re.compile(r"^//@docsmcp-rust crate=(\w+) module=([\w:]*) public=([\w:]*)$")
MAX_DEPTH = 16  # inline modules, impls and traits nested, at most
MAX_ITEMS = 5000  # items read from one file, at most (a generated file stops there)
_ITEM_MACROS = frozenset({"pin_project"})  # (pin-project-lite's: its body is the struct)
_QUALIFIERS = frozenset({"default", "async", "unsafe", "extern", "auto", "safe"})
_PUBLIC_ITEMS = frozenset({"struct", "enum", "union", "trait", "fn", "type", "const", "async"})
_KINDS = {
    "struct": "Struct",
    "union": "Union",
    "enum": "Enum",
    "trait": "Trait",
    "fn": "Function",
    "type": "Type Alias",
    "const": "Constant",
    "static": "Static",
    "mod": "Module",
    "macro_rules": "Macro",
}


def header(crate: str, module: list[str], public: list[str]) -> str:
    """The line rust_crate.py writes over a module file for this reader."""
    return f"{HEADER}crate={crate} module={'::'.join(module)} public={'::'.join(public)}"


@dataclass
class _Scope:
    path: str  # where this scope's items are published: `axum::routing`
    depth: int
    items: list[Item] = field(default_factory=list)
    inner: list[str] = field(default_factory=list)  # the module's own docs (`//!`)
    owner: str = ""  # inside `impl Router` / `trait Handler`: the type's name
    in_trait: bool = False  # a trait's items are public whatever they say
    hidden: bool = False  # `#![doc(hidden)]`
    private: set[str] = field(default_factory=set)  # types defined here that are not shown
    # the file's top-level items a re-export names (USE_LINE): name -> (path, aliases…)
    uses: dict[str, tuple[str, ...]] = field(default_factory=dict)


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.toks = tokens(source)
        self.count = 0
        self.gates = 0  # feature-gate macros (`cfg_rt! { … }`) being read, nested
        self._macros: rust_macros.Macros | None = None

    def macros(self) -> rust_macros.Macros:
        """The file's `macro_rules!` definitions (read once, when a call is first met)."""
        if self._macros is None:
            self._macros = rust_macros.definitions(self.toks)
        return self._macros

    def made(self, text: str, scope: _Scope, line: int) -> None:
        """The items of a macro's expansion `text` into `scope`, at the call's `line`."""
        sub = _Parser(text)
        sub._macros, sub.gates, sub.count = self._macros, self.gates + 1, self.count
        first = len(scope.items)
        sub.items(0, len(sub.toks), scope)
        self.count = sub.count
        for item in scope.items[first:]:
            _at_line(item, line)

    def span(self, a: int, b: int) -> str:
        """The source from token a up to (not with) token b, on one line."""
        if b <= a:
            return ""
        text = self.source[self.toks[a].start : self.toks[b - 1].end]
        text = " ".join(text.split())
        return re.sub(r"([(\[<]) | ([)\]>,])", r"\1\2", text).rstrip(",").strip()

    def stop(self, i: int, end: int, stops: str) -> int:
        """The index of the first token in `stops` (`{`, `;`, `=`) at bracket depth 0."""
        toks = self.toks
        while i < end:
            t = toks[i]
            if t.text in stops and t.kind != "str":
                return i
            i = group_end(toks, i) if t.kind == "open" else i + 1
        return end

    def items(self, i: int, end: int, scope: _Scope) -> None:
        toks = self.toks
        docs: list[str] = []
        hidden = test = export = False
        while i < end and self.count < MAX_ITEMS:
            t = toks[i]
            if t.kind == "inner":
                scope.inner += t.text.split("\n")
                i += 1
                continue
            if t.kind == "doc":
                docs += t.text.split("\n")
                i += 1
                continue
            if t.text == "#" and t.kind == "punct":
                inner = i + 1 < end and toks[i + 1].text == "!"
                j = i + 2 if inner else i + 1
                if j < end and toks[j].text == "[":
                    close = min(group_end(toks, j), end)
                    what, value = attribute(toks[j + 1 : close - 1])
                    if inner:
                        scope.inner += value.split("\n") if what == "doc" else []
                        scope.hidden |= what in ("hidden", "test")
                    else:
                        docs += value.split("\n") if what == "doc" else []
                        hidden |= what == "hidden"
                        test |= what == "test"
                        export |= what == "export"
                    i = close
                    continue
            start = i
            public, i = _visibility(toks, i, end)
            i = self.item(start, i, end, scope, public and not hidden and not test, docs, export)
            docs, hidden, test, export = [], False, False, False
        _merge_impls(scope.items, scope.private)

    def item(
        self,
        start: int,
        i: int,
        end: int,
        scope: _Scope,
        shown: bool,
        docs: list[str],
        export: bool,
    ) -> int:
        """Reads the item at toks[i] (after its visibility, from `start`); the index after it."""
        toks = self.toks
        j = i
        while j < end and toks[j].kind == "ident" and toks[j].text in _QUALIFIERS | {"const"}:
            if toks[j].text == "const" and not (
                j + 1 < end and toks[j + 1].text in _QUALIFIERS | {"fn"}
            ):
                break
            if toks[j].text == "extern" and j + 1 < end and toks[j + 1].text == "crate":
                return self.stop(j, end, ";") + 1
            j += 2 if j + 1 < end and toks[j + 1].kind == "str" else 1
        if j >= end:
            return end
        word = toks[j].text
        shown = shown or scope.in_trait
        name = toks[j + 1].text if j + 1 < end and toks[j + 1].kind == "ident" else ""
        if toks[j].kind != "ident":
            return i + 1 if j == i else j
        if word == "impl":
            return self.impl(j, end, scope)
        if word == "macro_rules" and j + 2 < end and toks[j + 1].text == "!":
            name = toks[j + 2].text
            body = j + 3
            after = group_end(toks, body) if body < end and toks[body].kind == "open" else body
            if export and toks[j + 2].kind == "ident":
                crate = scope.path.split("::")[0]
                self.add(scope, "Macro", name, f"{crate}::{name}", f"macro_rules! {name}", docs, j)
            return after
        if j + 1 < end and toks[j + 1].text == "!" and toks[j].kind == "ident":
            k = j + 2  # a macro called among the items: what it makes is unknown, but for
            if k < end and toks[k].kind == "ident":
                k += 1
            body = k
            k = group_end(toks, k) if k < end and toks[k].kind == "open" else k
            if toks[j].text in self.macros() and body < k and self.gates < MAX_DEPTH:
                # a macro of this file: what it makes, read as items (rust_macros.py)
                made = rust_macros.expand(self.macros(), toks[j].text, toks[body + 1 : k - 1])
                if made is not None:
                    self.made(made, scope, toks[j].line)
                    return k + 1 if k < end and toks[k].text == ";" else k
            # a feature gate (tokio's `cfg_rt! { pub fn spawn… }`), `pin_project! { pub
            # struct … }` (axum's bodies), or any other macro whose body declares public
            # items (axum's `define_rejection! { /// … pub struct MissingJsonContentType; }`,
            # `composite_rejection!`, tokio's `feature!`): its body read as items
            gate = body < end and toks[body].text == "{"
            if gate and not (toks[j].text.startswith("cfg_") or toks[j].text in _ITEM_MACROS):
                gate = _declares_items(toks, body + 1, k - 1)
            if gate and self.gates < MAX_DEPTH:
                self.gates += 1
                self.items(body + 1, k - 1, scope)
                self.gates -= 1
            return k + 1 if k < end and toks[k].text == ";" else k
        if word not in _KINDS or not name:
            return max(j, i) + 1
        kind = _KINDS[word]
        if word == "mod":
            return self.module(j, end, scope, shown, docs, name)
        if word in ("struct", "union", "enum", "trait"):
            stop = self.stop(j, end, "{;")
            sig_end = stop
        elif word in ("const", "static"):
            stop = self.stop(j, end, ";")
            sig_end = min(stop, self.stop(j, end, "=;"))
        elif word == "type":
            stop = sig_end = self.stop(j, end, ";")
        else:  # fn
            stop = sig_end = self.stop(j, end, "{;")
        after = group_end(toks, stop) if stop < end and toks[stop].text == "{" else stop + 1
        if not shown or name == "_":
            if word in ("struct", "union", "enum", "type", "trait"):
                scope.private.add(name)  # (its impls' methods are not shown either)
            return after
        if scope.owner:
            kind = {"Function": "Method", "Type Alias": "Associated Type"}.get(kind, kind)
            kind = "Associated Constant" if kind == "Constant" else kind
            owner = scope.uses.get(scope.owner, (f"{scope.path}::{scope.owner}",))[0]
            path = f"{owner}::{name}"
        else:
            path = scope.uses.get(name, (f"{scope.path}::{name}",))[0]
        item = self.add(scope, kind, name, path, self.span(start, sig_end), docs, j)
        if item is not None and stop < end and toks[stop].text == "{":
            if word == "trait":
                inner = _Scope(scope.path, scope.depth + 1, owner=name, in_trait=True)
                inner.uses = scope.uses
                if inner.depth <= MAX_DEPTH:
                    self.items(stop + 1, after - 1, inner)
                item.members = inner.items
            elif word == "enum":
                # a variant is documented as a method is: `### ArgAction::Set`, its docs
                for var, doc, k in self.variants(stop + 1, after - 1):
                    var_item = Item("Variant", var, f"{path}::{var}", "", doc, toks[k].line)
                    var_item.owner = name
                    var_item.signature = self.span(k, self.stop(k, after - 1, ",="))
                    item.members.append(var_item)
            elif word in ("struct", "union"):
                item.fields = self.fields(stop + 1, after - 1)
        return after

    def add(
        self, scope: _Scope, kind: str, name: str, path: str, sig: str, docs: list[str], at: int
    ) -> Item | None:
        self.count += 1
        item = Item(kind, name, path, sig, docs, self.toks[at].line, owner=scope.owner)
        scope.items.append(item)
        return item

    def module(
        self, j: int, end: int, scope: _Scope, shown: bool, docs: list[str], name: str
    ) -> int:
        """`mod name;` (its file is a page of its own) or an inline `mod name { … }`."""
        toks = self.toks
        k = j + 2
        if k >= end or toks[k].text != "{":
            return k + 1
        after = group_end(toks, k)
        inner = _Scope(f"{scope.path}::{name}", scope.depth + 1)
        if shown and inner.depth <= MAX_DEPTH:
            self.items(k + 1, after - 1, inner)
            if not inner.hidden:
                item = self.add(scope, "Module", name, inner.path, f"mod {name}", docs, j)
                if item is not None:
                    item.doc = docs + inner.inner
                    item.members = inner.items
        return after

    def impl(self, j: int, end: int, scope: _Scope) -> int:
        """An `impl` block: an inherent one's public methods are its type's; a trait impl's
        are not shown."""
        toks = self.toks
        stop = self.stop(j, end, "{;")
        after = group_end(toks, stop) if stop < end and toks[stop].text == "{" else stop + 1
        owner, trait_impl = _impl_type(toks[j + 1 : stop])
        if trait_impl or not owner or scope.depth + 1 > MAX_DEPTH:
            return after
        inner = _Scope(scope.path, scope.depth + 1, owner=owner, uses=scope.uses)
        self.items(stop + 1, after - 1, inner)
        if inner.items:
            holder = Item("impl", owner, f"{scope.path}::{owner}", "", [], toks[j].line)
            holder.members = inner.items
            scope.items.append(holder)
        return after

    def _members(self, i: int, end: int) -> Iterator[tuple[int, list[str], list[str], bool]]:
        """The comma-separated members between toks[i] and toks[end] (an enum's variants, a
        struct's fields): each one's first token's index, its docs (doc comments and
        `#[doc = …]` text, in order), its doc comments alone, and whether an attribute hides
        it (`#[doc(hidden)]`, `#[cfg(test)]`). The one walk variants and fields share."""
        toks = self.toks
        docs: list[str] = []
        comments: list[str] = []
        hidden = False
        while i < end:
            t = toks[i]
            if t.kind == "doc":
                lines = t.text.split("\n")
                docs += lines
                comments += lines
                i += 1
                continue
            if t.text == "#" and i + 1 < end and toks[i + 1].text == "[":
                close = group_end(toks, i + 1)
                what, value = attribute(toks[i + 2 : close - 1])
                hidden |= what in ("hidden", "test")
                docs += value.split("\n") if what == "doc" else []
                i = close
                continue
            yield i, docs, comments, hidden
            k = i
            while k < end and toks[k].text != ",":  # to the next `,` at depth 0
                k = group_end(toks, k) if toks[k].kind == "open" else k + 1
            i, docs, comments, hidden = k + 1, [], [], False

    def variants(self, i: int, end: int) -> list[tuple[str, list[str], int]]:
        """An enum's variants not hidden: (name, doc lines, token index)."""
        out: list[tuple[str, list[str], int]] = []
        for k, docs, _, hidden in self._members(i, end):
            t = self.toks[k]
            if t.kind == "ident" and not hidden and len(out) < MAX_ITEMS:
                out.append((t.text, docs, k))
        return out

    def fields(self, i: int, end: int) -> list[tuple[str, str, int]]:
        """A struct's public fields: (name, first paragraph of its doc comments, line)."""
        toks = self.toks
        out: list[tuple[str, str, int]] = []
        for k, _, comments, hidden in self._members(i, end):
            public, at = _visibility(toks, k, end)
            if at < end and toks[at].kind == "ident" and public and not hidden:
                paragraph = first_paragraph(doc_markdown(comments, 0)[0])
                out.append((toks[at].text, paragraph, toks[k].line))
        return out


def _declares_items(toks: list[Token], i: int, end: int) -> bool:
    """Whether a macro's body declares public items at its top level (`pub struct X;`), and
    is no pattern (`$name`)."""
    found = False
    while i < end:
        t = toks[i]
        if t.text == "$":
            return False
        if t.text == "pub" and i + 1 < end and toks[i + 1].text in _PUBLIC_ITEMS:
            found = True
        i = group_end(toks, i) if t.kind == "open" else i + 1
    return found


def _visibility(toks: list[Token], i: int, end: int) -> tuple[bool, int]:
    """(whether the item at toks[i] is `pub` to all, the index after its visibility)."""
    if i < end and toks[i].text == "pub" and toks[i].kind == "ident":
        if i + 1 < end and toks[i + 1].text == "(":
            return False, group_end(toks, i + 1)  # pub(crate), pub(super), pub(in …)
        return True, i + 1
    if i < end and toks[i].text == "crate" and i + 1 < end and toks[i + 1].text != "::":
        return False, i + 1  # (the old `crate fn` visibility)
    return False, i


def attribute(toks: list[Token]) -> tuple[str, str]:
    """What an attribute's tokens (inside `#[…]`) mean here: ("doc", text), ("hidden", ""),
    ("test", "") for `cfg(test)`/`cfg(doctest)`, ("export", "") for `macro_export`, else
    ("", "")."""
    if not toks or toks[0].kind != "ident":
        return "", ""
    head = toks[0].text
    words = {t.text for t in toks if t.kind == "ident"}
    if head == "doc":
        if len(toks) >= 3 and toks[1].text == "=" and toks[2].kind in ("str", "raw"):
            return "doc", string_value(toks[2])
        if "hidden" in words:
            return "hidden", ""
    if head == "cfg" and words & {"test", "doctest"} and "not" not in words:
        return "test", ""
    if head == "macro_export":
        return "export", ""
    return "", ""


def _impl_type(toks: list[Token]) -> tuple[str, bool]:
    """(the implemented type's name, whether it is a trait impl) of an impl's header tokens
    (after `impl`, before its `{`)."""
    depth = 0
    name = ""
    trait_impl = False
    for k, t in enumerate(toks):
        if t.text == "<":
            depth += 1
        elif t.text == ">":
            depth = max(0, depth - 1)
        elif depth == 0 and t.kind == "ident":
            if t.text == "where":
                break
            if t.text == "for" and not (k + 1 < len(toks) and toks[k + 1].text == "<"):
                trait_impl = True
                name = ""
            elif t.text not in ("dyn", "mut", "const", "unsafe"):
                name = t.text
    return name, trait_impl


def rust_to_markdown(path: str, text: str) -> Converted:
    """The page docs.rs would show of the module file `text` (see the module docstring)."""
    lines = text.split("\n")
    crate, module, public = _context(path, lines[0] if lines else "")
    parser = _Parser(text)
    uses, reexports = _uses(lines)
    scope = _Scope(public, 0, uses=uses)  # (items are named where they are published)
    parser.items(0, len(parser.toks), scope)
    _alias(scope.items, scope.uses)
    if scope.hidden:
        return Converted("", None, (), (), (), ())
    page = Page(path, crate, module, public)
    title = module
    page.add(0, f"# {title}")
    if module == public:  # (a private module has no docs.rs page: nothing links to it)
        page.anchors += [(0, OBJECT_ANCHOR + t) for t in tails(public)]
    if scope.inner:
        page.add(0, "")
        page.doc(scope.inner, _first_doc_line(parser.toks, "inner"), 1)
    if not any(x.strip() for x in scope.inner) and not scope.items and not reexports:
        return Converted("", None, (), (), (), ())
    if reexports:  # (docs.rs' first section of a module page)
        page.add(0, "")
        page.add(0, "## Re-exports")
        page.add(0, "")
        page.doc(
            [f"- [`pub use {d}`]({p})" if p else f"- `pub use {d}`" for p, d in reexports], 0, 2
        )
    for item in scope.items:
        page.item(item, 2)
    if module == public:  # (a private module is no entry: docs.rs has no page of it)
        doc = doc_markdown(scope.inner, 0)[0]
        kind = "Crate" if crate == module else "Module"
        sig = f"crate {crate}" if crate == module else f"pub mod {module.rsplit('::', 1)[-1]}"
        page.entries.insert(0, api_entry(path, module, kind, sig, doc, 0, len(page.out) - 1))
    return page.result(title)


def _context(path: str, first: str) -> tuple[str, str, str]:
    """(crate, module path, public path) of the page, from the header rust_crate.py wrote, or,
    without one, from the file's name."""
    m = _HEADER.match(first)
    if m:
        crate, module, public = m.groups()
        full = "::".join(x for x in (crate, module) if x)
        return crate, full, "::".join(x for x in (crate, public) if x)
    stem = path.rsplit("/", 1)[-1].removesuffix(".rs") or "crate"
    stem = re.sub(r"\W", "_", stem)
    return stem, stem, stem


def _uses(lines: list[str]) -> tuple[dict[str, tuple[str, ...]], list[tuple[str, str]]]:
    """The USE_LINEs under the header: item name -> (its path, its aliases…); and the
    REEXPORT_LINEs: (the item's path, "" outside the tree; the declaration)."""
    out: dict[str, tuple[str, ...]] = {}
    listed: list[tuple[str, str]] = []
    for line in lines[1:]:
        if line.startswith(REEXPORT_LINE):
            path, _, declaration = line[len(REEXPORT_LINE) :].partition(" ")
            listed.append(("" if path == "-" else path, declaration))
            continue
        if not line.startswith(USE_LINE):
            break
        name, *paths = line[len(USE_LINE) :].split()
        if paths:
            out[name] = tuple(paths)
    return out, listed


def _alias(items: list[Item], uses: dict[str, tuple[str, ...]]) -> None:
    """The aliases of the re-exported top-level items, and of their members where another
    crate re-exports them: docs.rs shows `clap::Command::arg` as a page of clap (a re-export
    across crates is inlined), `axum::Router` as a line of axum's Re-exports (its methods are
    `axum::routing::Router`'s)."""
    for item in items:
        aliases = uses.get(item.name, ())[1:] if item.kind != "impl" else ()
        if aliases:
            item.aliases = list(aliases)
            crate = item.path.split("::", 1)[0]
            inlined = [a for a in aliases if a.split("::", 1)[0] != crate]
            for member in item.members:
                member.aliases = [f"{a}::{member.name}" for a in inlined]


def _at_line(item: Item, line: int) -> None:
    """`item` and its members placed at `line` (a macro call's)."""
    item.line = line
    for member in item.members:
        _at_line(member, line)
    item.fields = [(name, summary, line) for name, summary, _ in item.fields]


def _first_doc_line(toks: list[Token], kind: str) -> int:
    return next((t.line for t in toks if t.kind == kind), 0)


def _merge_impls(items: list[Item], private: set[str]) -> None:
    """Methods of `impl Router` join the type `Router` of the same scope, wherever the impl
    stands; an impl of a type this scope does not show goes; an impl of a type defined
    elsewhere stays a section of its own."""
    types = {x.name: x for x in items if x.kind in ("Struct", "Enum", "Union", "Type Alias")}
    keep = []
    for item in items:
        if item.kind == "impl" and item.name in types:
            types[item.name].members += item.members
        elif not (item.kind == "impl" and item.name in private):
            keep.append(item)
    items[:] = keep
