"""What each PHP class or interface inherits from types of the tree, for the phpDocumentor
reader's line of links (formats/source/php_inherit.py): an after-reading pass
(site_passes.after_reading), which alone sees every page.

phpDocumentor lists a class's inherited methods, properties and constants, and those of the
traits it uses. A parent is a trait the type `use`s or what it `extends` (an interface: the
interfaces it extends; a class follows no interface it implements, whose methods it declares
itself), named as PHP resolves it in the file (a leading `\\`, the file's `use` imports, else
its namespace), nearest first (formats/source/inherit_walk.py): a type's traits before its
parent class, as PHP's precedence has it. Its members are those phpDocumentor shows (no
private or `@internal` one, no constructor); a name the type or a nearer parent declares is
theirs. Parents outside the tree (`\\Exception`) add nothing.

A member without a docblock, or whose docblock says `{@inheritDoc}`/`@inheritDoc`, takes
its text from the nearest parent member of its name that has text (through implemented
interfaces too), as phpDocumentor inherits it: the pass hands the page that docblock.
A page without such a parent is unchanged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from docsmcp.model.source import SourceFile
from docsmcp.sources.files import PHP_SUFFIXES
from docsmcp.sources.formats.source import pass_line, php_inherit, phpdoc_tags
from docsmcp.sources.formats.source.inherit_walk import MAX_BASES, nearest_first
from docsmcp.sources.formats.source.php_parse import TYPE_KINDS, Decl, Unit, parse
from docsmcp.sources.formats.source.phpdoc import member_declaration

MAX_FILES = 20_000  # PHP pages read by the pass, at most (a bigger tree is left as read)
# Parents searched for an inherited docblock, at most: each trait and interface is one, and
# monolog's StreamHandler reaches HandlerInterface's `close()` text through nine.
MAX_DOC_PARENTS = 32


def _resolve(name: str, unit: Unit, namespace: str) -> str:
    name = name.strip()
    if name.startswith("\\"):
        return name[1:]
    head, sep, tail = name.partition("\\")
    if head in unit.uses:
        return unit.uses[head] + (f"\\{tail}" if sep else "")
    return f"{namespace}\\{name}" if namespace else name


def _members(decl: Decl) -> list[Decl]:
    out = []
    for m in decl.members:
        if m.kind not in ("method", "property", "const") or "private" in m.modifiers:
            continue
        if m.name.lower() == "__construct":
            continue
        if phpdoc_tags.read(m.doc, lambda t, label: label or t).internal:
            continue
        out.append(m)
    return out


def _documented(decl: Decl) -> list[Decl]:
    """The members whose docblock has text of its own (what a child's `{@inheritDoc}` takes)."""
    out = []
    for m in decl.members:
        if m.kind in ("method", "property", "const") and m.doc and "private" not in m.modifiers:
            doc = phpdoc_tags.read(m.doc, lambda t, label: label or t)
            if doc.summary or doc.description:
                out.append(m)
    return out


def _inherits_doc(m: Decl) -> bool:
    """No docblock (phpDocumentor's implicit inheritance), or one saying `{@inheritDoc}`."""
    return m.kind in ("method", "property", "const") and (
        not m.doc.strip() or phpdoc_tags.read(m.doc, lambda t, label: label or t).inherit
    )


def _member(m: Decl, docs: dict[str, str]) -> dict[str, Any]:
    doc = phpdoc_tags.read(m.doc, lambda t, label: label or t)
    return {
        "name": m.name,
        "kind": m.kind,
        "signature": member_declaration(m, doc),
        "doc": docs.get(m.name, m.doc) if _inherits_doc(m) else m.doc,
        "params": [dataclasses.asdict(p) for p in m.params],
        "returns": m.returns or m.type,
    }


def resolve(files: list[SourceFile], docs_dir: Path, roots: Sequence[Path]) -> list[SourceFile]:
    """The PHP pages with what their types inherit (see the module's docstring)."""
    # (every page: an interface or trait a type names may have no parent of its own)
    pages = [f for f in files if f.path.endswith(PHP_SUFFIXES)]
    if not pages or len(pages) > MAX_FILES:
        return files
    units = {f.path: parse(f.body) for f in pages}
    types: dict[str, tuple[Decl, Unit, str]] = {}
    for path, unit in units.items():
        for d in unit.decls:
            if d.kind in TYPE_KINDS:
                types.setdefault(d.name, (d, unit, path))
    out: list[SourceFile] = []
    for f in files:
        unit = units.get(f.path)
        found = _inherits(unit, types) if unit is not None else {}
        docs = _docs(unit, types) if unit is not None else {}
        if not found and not docs:
            out.append(f)
            continue
        out.append(pass_line.appended(f, php_inherit.encode(found, docs)))
    return out


def _namespace(name: str) -> str:
    return name.rsplit("\\", 1)[0] if "\\" in name else ""


def _walk(
    d: Decl,
    unit: Unit,
    types: dict[str, tuple[Decl, Unit, str]],
    written: Callable[[Decl], tuple[str, ...]],
    members: Callable[[Decl], list[Decl]],
    own: set[str],
    limit: int = MAX_BASES,
) -> list[tuple[tuple[str, tuple[Decl, Unit, str]], list[Decl]]]:
    """(parent, its members `d` inherits) nearest first; `written(decl)`: its parents' names."""

    def lookup(name: str, seen_from: Any) -> Any:
        decl, u = (d, unit) if seen_from is None else (seen_from[1][0], seen_from[1][1])
        qualified = _resolve(name, u, _namespace(decl.name))
        found = types.get(qualified)
        return (qualified, found) if found is not None else None

    found = nearest_first(
        written(d),
        own,
        lookup,
        lambda base: written(base[1][0]),
        lambda base: members(base[1][0]),
        lambda m: m.name,
        lambda base: base[0],
        limit,
    )
    return [(b, ms) for b, ms in found if b[1][0] is not d]


def _parents(decl: Decl) -> tuple[str, ...]:
    """What a type inherits members from, nearest first: its traits, then what it extends."""
    return decl.traits + decl.extends


def _inherits(
    unit: Unit, types: dict[str, tuple[Decl, Unit, str]]
) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for d in unit.decls:
        if d.kind not in TYPE_KINDS or not _parents(d):
            continue
        found = _walk(d, unit, types, _parents, _members, {m.name for m in d.members})
        if found:
            # (a member that inherits its docblock: the text the type sees through its
            # interfaces too, for the entry: a trait's `{@inheritDoc}` names no interface)
            docs = {m.name: m.doc for _, ms in _texts(d, unit, types) for m in ms}
            out[d.name] = [
                {
                    "key": qualified,
                    "name": qualified.rsplit("\\", 1)[-1],
                    "path": path,
                    "members": [_member(m, docs) for m in ms],
                    **({"trait": True} if decl.kind == "trait" else {}),
                }
                for (qualified, (decl, _, path)), ms in found
            ]
    return out


def _texts(
    d: Decl, unit: Unit, types: dict[str, tuple[Decl, Unit, str]]
) -> list[tuple[tuple[str, tuple[Decl, Unit, str]], list[Decl]]]:
    """The members with text `d`'s parents, traits and interfaces have, nearest first."""

    def parents(decl: Decl) -> tuple[str, ...]:
        return decl.traits + decl.extends + decl.implements

    return _walk(d, unit, types, parents, _documented, set(), MAX_DOC_PARENTS)


def _docs(
    unit: Unit, types: dict[str, tuple[Decl, Unit, str]]
) -> dict[str, dict[str, dict[str, str]]]:
    """For each type, its members that inherit their docblock: the nearest parent member of
    that name with text (`from`: its qualified name; `doc`: its docblock)."""
    out: dict[str, dict[str, dict[str, str]]] = {}
    for d in unit.decls:
        wanting = {m.name for m in d.members if _inherits_doc(m)}
        if d.kind not in TYPE_KINDS or not wanting:
            continue

        found = _texts(d, unit, types)
        docs = {
            m.name: {"from": f"{qualified}::{m.name}", "doc": m.doc}
            for (qualified, _), ms in found
            for m in ms
            if m.name in wanting
        }
        if docs:
            out[d.name] = dict(sorted(docs.items()))
    return out
