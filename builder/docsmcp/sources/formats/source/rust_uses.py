"""What a Rust module file says about names, for the re-exports a crate publishes
(packages/rust_reexports.py): its `use` declarations, each cut into the names it binds
(`pub use self::routing::{Router, MethodRouter as Mr, method_routing::*};` binds `Router`,
`Mr` and a glob), and the public items it defines at module level (`pub struct Command`,
`pub fn spawn`, also inside a feature-gate macro's body, `cfg_net! { pub use … }`, as rustdoc.py
reads items). Bodies of functions, impls, traits and inline modules are skipped: what they
`use` is theirs. `#[doc(hidden)]` and `#[cfg(test)]` declarations are left out, as docs.rs
leaves them.

The walk is over rust_lex's tokens, always advances, and nests macro bodies and `{ … }` use
groups at most MAX_DEPTH deep.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from docsmcp.sources.formats.source.rust_lex import tokens
from docsmcp.sources.formats.source.rustdoc import attribute
from docsmcp.sources.formats.source.token_groups import Token, group_end

MAX_DEPTH = 16
MAX_USES = 5000  # names bound by one file's `use` declarations, at most
_ITEMS = frozenset({"struct", "enum", "union", "trait", "fn", "type", "const", "static", "mod"})
_QUALIFIERS = frozenset({"async", "unsafe", "extern", "default", "auto", "safe", "const"})


@dataclass(frozen=True)
class Use:
    """One name a `use` binds: `path` as written (`("crate", "builder", "Command")`; a glob's
    path is the module's), the name it binds (the last segment or its `as` rename; "" for a
    glob), and whether it is `pub` to all."""

    path: tuple[str, ...]
    name: str
    glob: bool
    public: bool
    # `#[doc(inline)]` / `#[doc(no_inline)]` over it ("inline", "no_inline"; "" without):
    # whether docs.rs shows the item here or as a line of the module's Re-exports
    inline: str = ""


@dataclass(frozen=True)
class Names:
    uses: tuple[Use, ...]
    items: frozenset[str]  # the public items defined at module level (`pub mod x;` too)


def scan(text: str) -> Names:
    """The `use` declarations and public module-level items of a Rust module file."""
    toks = tokens(text)
    uses: list[Use] = []
    items: set[str] = set()
    _walk(toks, 0, len(toks), 0, uses, items)
    return Names(tuple(uses), frozenset(items))


def _walk(
    toks: list[Token], i: int, end: int, depth: int, uses: list[Use], items: set[str]
) -> None:
    hidden = False
    inline = ""
    while i < end:
        t = toks[i]
        if t.text == "#" and t.kind == "punct":
            j = i + 2 if i + 1 < end and toks[i + 1].text == "!" else i + 1
            if j < end and toks[j].text == "[":
                close = min(group_end(toks, j), end)
                what = attribute(toks[j + 1 : close - 1])[0]
                hidden |= what in ("hidden", "test") and j == i + 1
                inline = _inline(toks[j + 1 : close - 1]) or inline
                i = close
                continue
            i += 1
            continue
        if t.kind in ("doc", "inner"):
            i += 1
            continue
        public = False
        if t.text == "pub" and t.kind == "ident":
            if i + 1 < end and toks[i + 1].text == "(":
                i = group_end(toks, i + 1)  # pub(crate) and the like: not public to all
            else:
                public = True
                i += 1
            if i >= end:
                return
            t = toks[i]
        if t.text == "use" and t.kind == "ident":
            stop = i + 1
            while stop < end and toks[stop].text != ";" and toks[stop].kind != "close":
                stop = group_end(toks, stop) if toks[stop].text == "{" else stop + 1
            if not hidden:
                first = len(uses)
                _tree(toks, i + 1, min(stop, end), (), public, uses, 0)
                if inline:
                    uses[first:] = [dataclasses.replace(u, inline=inline) for u in uses[first:]]
            i, hidden, inline = stop + 1, False, ""
            continue
        if t.kind == "ident" and i + 1 < end and toks[i + 1].text == "!":
            k = i + 2  # a macro among the items: a body of items (`cfg_rt! { … }`) is read
            if k < end and toks[k].kind == "ident":
                k += 1
            if k < end and toks[k].kind == "open":
                after = min(group_end(toks, k), end)
                body = toks[k].text == "{" and t.text != "macro_rules"  # (a pattern, no items)
                if body and depth < MAX_DEPTH and not hidden:
                    _walk(toks, k + 1, after - 1, depth + 1, uses, items)
                k = after
            i, hidden, inline = k, False, ""
            continue
        j = i
        while j < end and toks[j].kind == "ident" and toks[j].text in _QUALIFIERS:
            qualified = j + 1 < end and toks[j + 1].text in _QUALIFIERS | {"fn"}
            if toks[j].text == "const" and not qualified:
                break  # (a constant, not a `const fn`)
            j += 2 if j + 1 < end and toks[j + 1].kind == "str" else 1
        if j < end and toks[j].kind == "ident" and toks[j].text in _ITEMS:
            if j + 1 < end and toks[j + 1].kind == "ident" and public and not hidden:
                items.add(toks[j + 1].text)
            i = j + 1
            while i < end and toks[i].text not in (";", "{") and toks[i].kind != "close":
                i = group_end(toks, i) if toks[i].kind == "open" else i + 1
            if i < end and toks[i].text == "{":
                i = group_end(toks, i)  # (its body: fields, methods, an inline module's items)
            else:
                i += 1
            hidden, inline = False, ""
            continue
        if t.kind == "open":
            i = group_end(toks, i)  # an impl's or a function's body, an array
            hidden, inline = False, ""
            continue
        if t.text == ";":
            hidden, inline = False, ""
        i += 1


def _inline(toks: list[Token]) -> str:
    """ "inline" or "no_inline" for an attribute `doc(inline)` / `doc(no_inline)`, else ""."""
    if len(toks) == 4 and toks[0].text == "doc" and toks[2].text in ("inline", "no_inline"):
        return toks[2].text
    return ""


def _tree(
    toks: list[Token],
    i: int,
    end: int,
    prefix: tuple[str, ...],
    public: bool,
    uses: list[Use],
    depth: int,
) -> None:
    """The names a use tree between toks[i] and toks[end] binds, below `prefix`."""
    path = list(prefix)
    while i < end and len(uses) < MAX_USES:
        t = toks[i]
        if t.text == "::":
            i += 1
        elif t.kind == "ident" and t.text != "as":
            path.append(t.text)
            i += 1
        elif t.text == "*":
            uses.append(Use(tuple(path), "", True, public))
            return
        elif t.text == "{":
            close = min(group_end(toks, i), end)
            if depth < MAX_DEPTH:
                start = i + 1
                k = start
                while k < close - 1:  # each comma-separated subtree
                    stop = k
                    while stop < close - 1 and toks[stop].text != ",":
                        stop = group_end(toks, stop) if toks[stop].kind == "open" else stop + 1
                    _tree(toks, k, stop, tuple(path), public, uses, depth + 1)
                    k = stop + 1
            return
        elif t.text == "as":
            if path and i + 1 < end and toks[i + 1].kind == "ident" and toks[i + 1].text != "_":
                _bind(path, toks[i + 1].text, public, uses)
            return
        else:
            return  # (anything else: no name bound)
    if path and len(uses) < MAX_USES:
        _bind(path, path[-1], public, uses)


def _bind(path: list[str], name: str, public: bool, uses: list[Use]) -> None:
    """`a::b::{self}` binds `b` (the module) by the path `a::b`."""
    if path[-1] == "self":
        path = path[:-1]
        if not path:
            return
        name = path[-1] if name == "self" else name
    if name in ("self", "super", "crate"):
        return
    uses.append(Use(tuple(path), name, False, public))
