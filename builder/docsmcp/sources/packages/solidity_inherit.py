"""What each Solidity contract inherits from contracts of the tree, and what its `@inheritdoc`
tags copy, for the reader's line of links and its copied tags
(formats/source/sol_inherit.py): an after-reading pass (site_passes.after_reading), which alone
sees every page.

A base is what a contract's `is` names, found by name among the tree's pages (a contract in a
file the page imports first, else the first by path), nearest first
(formats/source/inherit_walk.py). Its members are those the generators show of it: no private
one, no constructor; a name the contract or a nearer base declares is theirs.
OpenZeppelin's `Context` (`_msgSender`, in every contract) is listed by no contract, as its
docgen templates leave it out. Bases outside the tree (`lib/`, `node_modules/`) add nothing.
A page without such a base and without an `@inheritdoc` of another file is unchanged.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docsmcp.model.source import SourceFile
from docsmcp.sources.files import SOLIDITY_SUFFIXES
from docsmcp.sources.formats.source import pass_line, sol_inherit
from docsmcp.sources.formats.source.inherit_walk import nearest_first
from docsmcp.sources.formats.source.soldoc import type_string
from docsmcp.sources.formats.source.solidity_parse import Contract, Member, Unit, parse

MAX_FILES = 20_000  # Solidity pages read by the pass, at most (a bigger tree is left as read)
MAX_DOCS = 32  # contracts one page's `@inheritdoc` tags reach, at most
_HIDDEN_BASES = frozenset({"Context"})  # (OpenZeppelin's templates: `c.name !== 'Context'`)
_INHERITDOC = re.compile(r"@inheritdoc[ \t]+([A-Za-z_$][\w$]*)")
_INHERITED_KINDS = ("function", "modifier", "event", "error", "variable")

Found = tuple[str, Contract, str]  # (key, contract, its page's path)


def _members(c: Contract) -> list[Member]:
    return [m for m in c.members if m.kind in _INHERITED_KINDS and m.visibility != "private"]


def _member(m: Member) -> dict[str, Any]:
    returns = ", ".join(p.written() for p in m.returns) or (type_string(m.type) if m.type else "")
    return {
        "name": m.name,
        "kind": "constant" if "constant" in m.flags else m.kind,
        "signature": m.signature,
        "doc": m.doc or "",
        "params": [[p.written().removesuffix(f" {p.name}"), p.name] for p in m.params if p.name],
        "returns": returns,
    }


class _Tree:
    """The tree's contracts by name, each with its page and the pages each page imports."""

    def __init__(self, units: dict[str, Unit]) -> None:
        self.units = units
        self.by_name: dict[str, list[tuple[Contract, str]]] = {}
        for path in sorted(units):
            for c in units[path].contracts:
                self.by_name.setdefault(c.name, []).append((c, path))
        self.imports = {
            path: {
                posixpath.normpath(posixpath.join(posixpath.dirname(path), i)) for i in u.imports
            }
            for path, u in units.items()
        }

    def find(self, name: str, seen_from: str) -> Found | None:
        """The contract `name` as the page `seen_from` sees it."""
        name = name.rpartition(".")[2]
        found = self.by_name.get(name)
        if not found:
            return None
        near = self.imports.get(seen_from, set())
        c, path = next(
            (x for x in found if x[1] == seen_from),
            next((x for x in found if x[1] in near), found[0]),
        )
        return f"{path}:{c.name}", c, path


def _inherits(tree: _Tree, path: str, unit: Unit) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for c in unit.contracts:
        if not c.bases:
            continue

        def lookup(name: str, seen_from: Found | None) -> Found | None:
            if name.rpartition(".")[2] in _HIDDEN_BASES:
                return None
            return tree.find(name, seen_from[2] if seen_from else path)

        found = nearest_first(
            c.bases,
            {m.name for m in c.members},
            lookup,
            lambda base: base[1].bases,
            lambda base: _members(base[1]),
            lambda m: m.name,
            lambda base: base[0],
        )
        bases = [
            {"name": base[1].name, "path": base[2], "members": [_member(m) for m in ms]}
            for base, ms in found
            if base[1] is not c
        ]
        if bases:
            out[c.name] = bases
    return out


def _docs(tree: _Tree, path: str, text: str) -> dict[str, dict[str, list[Any]]]:
    """The members of the contracts `@inheritdoc` names in `text`, and in theirs, of other
    pages: name -> member -> [{types, doc}]."""
    own = {c.name for c in tree.units[path].contracts}
    queue = [n for n in dict.fromkeys(_INHERITDOC.findall(text)) if n not in own]
    out: dict[str, dict[str, list[Any]]] = {}
    while queue and len(out) < MAX_DOCS:
        name = queue.pop(0)
        if name in out:
            continue
        found = tree.find(name, path)
        if found is None:
            continue
        members: dict[str, list[Any]] = {}
        for m in found[1].members:
            if m.doc is not None and m.visibility != "private":
                types = [type_string(p.type) for p in m.params]
                members.setdefault(m.name, []).append({"types": types, "doc": m.doc})
                queue += [n for n in _INHERITDOC.findall(m.doc) if n not in out]
        out[name] = members
    return out


def resolve(files: list[SourceFile], docs_dir: Path, roots: Sequence[Path]) -> list[SourceFile]:
    """The Solidity pages with what their contracts inherit (see the module's docstring)."""
    pages = [f for f in files if f.path.lower().endswith(SOLIDITY_SUFFIXES)]
    if not pages or len(pages) > MAX_FILES:
        return files
    tree = _Tree({f.path: parse(f.body) for f in pages})
    out: list[SourceFile] = []
    for f in files:
        unit = tree.units.get(f.path)
        if unit is None:
            out.append(f)
            continue
        inherits = _inherits(tree, f.path, unit)
        docs = _docs(tree, f.path, f.body) if "@inheritdoc" in f.body else {}
        if not inherits and not docs:
            out.append(f)
            continue
        out.append(pass_line.appended(f, sol_inherit.encode(inherits, docs)))
    return out
