"""What each Ruby class or module gets from the modules it includes or extends and from its
superclass, for the YARD reader's line of links (formats/source/yard_inherit.py): an
after-reading pass (site_passes.after_reading), which alone sees every page.

YARD lists, under a class, the methods of each module of its ancestors ("Methods included from
M") and of each superclass ("Methods inherited from C"), and an `extend`ed module's methods as
its class methods. A module or class is named as Ruby resolves a constant: `::A` from the top,
else from the namespace it is written in outward (`include Helpers` in `Rack::Request` is
`Rack::Request::Helpers`), nearest first (formats/source/inherit_walk.py): the latest `include`
first, then the superclass. A name the namespace or a nearer giver defines is theirs; a giver
reopened in several files gives what all of them define. The line is written on the page that
writes the `include` or the superclass. Givers outside the tree (`Enumerable`, `Forwardable`)
add nothing; a page without such a giver is unchanged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from docsmcp.model.source import SourceFile
from docsmcp.sources.files import RUBY_SUFFIXES
from docsmcp.sources.formats.source import pass_line, yard_inherit
from docsmcp.sources.formats.source.inherit_walk import nearest_first
from docsmcp.sources.formats.source.ruby_lex import lex
from docsmcp.sources.formats.source.ruby_parse import RubyObject, parse
from docsmcp.sources.formats.source.yard import declaration
from docsmcp.sources.formats.source.yard_tags import parse_doc

MAX_FILES = 20_000  # Ruby pages read by the pass, at most (a bigger tree is left as read)


@dataclasses.dataclass
class _Namespace:
    name: str
    kind: str = "module"
    superclass: str = ""
    includes: list[str] = dataclasses.field(default_factory=list)
    members: dict[str, RubyObject] = dataclasses.field(default_factory=dict)  # `#x`/`.x`


def _shown(objects: list[RubyObject]) -> list[RubyObject]:
    """The members YARD shows: visible methods and attributes, and aliases of such methods."""
    own = {o.path for o in objects if o.kind in ("method", "attribute") and not o.alias_of}
    return [
        o
        for o in objects
        if o.namespace
        and o.kind in ("method", "attribute")
        and (not o.alias_of or o.path[: -len(o.name)] + o.alias_of in own)
    ]


def resolve(files: list[SourceFile], docs_dir: Path, roots: Sequence[Path]) -> list[SourceFile]:
    """The Ruby pages with what their namespaces get (see the module's docstring)."""
    pages = [f for f in files if f.path.endswith(RUBY_SUFFIXES)]
    if not pages or len(pages) > MAX_FILES:
        return files
    if not any(w in f.body for f in pages for w in ("include", "extend", "<")):
        return files
    parsed = {f.path: [o for o in parse(lex(f.body)) if not o.hidden] for f in pages}
    spaces: dict[str, _Namespace] = {}
    for objects in parsed.values():
        for o in objects:
            if not o.namespace:
                ns = spaces.setdefault(o.name, _Namespace(o.name))
                ns.kind = o.kind if o.kind == "class" else ns.kind
                ns.superclass = ns.superclass or o.superclass
                ns.includes += [i for i in o.includes if i not in ns.includes]
        for o in _shown(objects):
            key = ("." if o.scope == "class" else "#") + o.name
            spaces.setdefault(o.namespace, _Namespace(o.namespace)).members.setdefault(key, o)
    out: list[SourceFile] = []
    for f in files:
        found = _page(parsed[f.path], spaces) if f.path in parsed else {}
        if not found:
            out.append(f)
            continue
        out.append(pass_line.appended(f, yard_inherit.encode(found)))
    return out


def _lookup(name: str, context: str, spaces: dict[str, _Namespace]) -> _Namespace | None:
    """The namespace `name` names, written inside `context` (Ruby's lexical lookup)."""
    name = name.strip()
    if name.startswith("::"):
        return spaces.get(name[2:])
    parts = context.split("::") if context else []
    for k in range(len(parts), -1, -1):
        found = spaces.get("::".join([*parts[:k], name]))
        if found is not None:
            return found
    return None


def _member(o: RubyObject, scope: str) -> dict[str, Any]:
    doc = parse_doc(o.doc)
    returns = "; ".join(": ".join(x for x in (r.types, r.text) if x) for _, r in doc.returns)
    return {
        "name": o.name,
        "scope": scope,
        "from_scope": o.scope,
        "signature": declaration(o),
        "summary": doc.summary,
        "returns": returns,
    }


def _walk(
    written: Iterable[str],
    context: str,
    own: set[str],
    spaces: dict[str, _Namespace],
    givers: Any,
    members: Any,
) -> list[tuple[_Namespace, list[tuple[str, RubyObject]]]]:
    def lookup(name: str, seen_from: _Namespace | None) -> _Namespace | None:
        return _lookup(name, seen_from.name if seen_from is not None else context, spaces)

    return nearest_first(written, own, lookup, givers, members, lambda m: m[0], lambda ns: ns.name)


def _givers(ns: _Namespace) -> list[str]:
    """What a namespace's methods come from, nearest first: its latest include first."""
    return [*reversed(ns.includes), *([ns.superclass] if ns.superclass else [])]


def _page(objects: list[RubyObject], spaces: dict[str, _Namespace]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for o in objects:
        if o.namespace or not (o.includes or o.extends or o.superclass):
            continue
        ns = spaces[o.name]
        own = set(ns.members)

        def instance(b: _Namespace) -> list[tuple[str, RubyObject]]:
            return [
                (k, m) for k, m in sorted(b.members.items()) if k[0] == "#" or b.kind == "class"
            ]

        written = [*reversed(o.includes), *([o.superclass] if o.superclass else [])]
        found = _walk(written, o.name, own, spaces, _givers, instance)
        bases = [
            {
                "key": b.name,
                "via": "superclass" if b.kind == "class" else "include",
                "members": [_member(m, m.scope) for _, m in ms],
            }
            for b, ms in found
            if b is not ns
        ]

        def extended(b: _Namespace) -> list[tuple[str, RubyObject]]:
            return [("." + k[1:], m) for k, m in sorted(b.members.items()) if k[0] == "#"]

        found = _walk(
            reversed(o.extends), o.name, own, spaces, lambda b: list(reversed(b.includes)), extended
        )
        bases += [
            {"key": b.name, "via": "extend", "members": [_member(m, "class") for _, m in ms]}
            for b, ms in found
            if b is not ns
        ]
        if bases:
            out[o.name] = bases
    return out
