"""What each Scala class, trait or object inherits from types of the tree, for the Scaladoc
reader's line of links (formats/source/scala_inherit.py): an after-reading pass
(site_passes.after_reading), which alone sees every page.

Scaladoc lists a type's inherited members by the type they come from ("Inherited from
Invariant"). A parent is what a template `extends` or mixes in `with`, named as Scala resolves
it in the file (its imports, else its package and the packages enclosing it), nearest first
(formats/source/inherit_walk.py). Its members are those Scaladoc shows (no `private`, no
`protected[this]`); a name the type or a nearer parent declares is theirs. Parents outside the
tree (`Serializable`) add nothing. A member without a comment of its own takes the nearest
parent's comment for the same name, as Scaladoc copies it (`docs`). A page whose types have no
such parent is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docsmcp.model.source import SourceFile
from docsmcp.sources.files import SCALA_SUFFIXES
from docsmcp.sources.formats.source import pass_line, scala_inherit
from docsmcp.sources.formats.source.inherit_walk import MAX_BASES, nearest_first
from docsmcp.sources.formats.source.scala_parse import Decl, Unit, parse

MAX_FILES = 20_000  # Scala pages read by the pass, at most (a bigger tree is left as read)
PACKAGE = "package "  # (the key of a package object's line: its package, not a path)
_MEMBER_KINDS = frozenset({"def", "val", "var", "type", "given"})

# qualified name -> (declaration, its file's unit, its page, its path below the package)
Types = dict[str, tuple[Decl, Unit, str, str]]


def _types(decls: list[Decl], unit: Unit, path: str, package: str, below: str,
           out: Types) -> None:  # fmt: skip
    for d in decls:
        if d.hidden or not d.is_type:
            continue
        if d.kind == "package":  # (a package object: its package inherits, `io.circe.parser`)
            pkg = ".".join(p for p in (package, d.name) if p)
            out.setdefault(pkg, (d, unit, path, PACKAGE + pkg))
            _types(d.members, unit, path, pkg, "", out)
            continue
        here = f"{below}.{d.name}" if below else d.name
        key = f"{package}.{here}" if package else here
        if key not in out or out[key][0].kind == "object":  # (a class before its companion)
            out[key] = (d, unit, path, here)
        _types(d.members, unit, path, package, here, out)


def _members(d: Decl) -> list[Decl]:
    return [m for m in d.members if m.kind in _MEMBER_KINDS and not m.hidden and m.name]


def _lookup(name: str, unit: Unit, types: Types) -> str | None:
    """The qualified name of the type `name` written in `unit`: through its imports, else
    its package and each package enclosing it, else as written."""
    head, _, rest = name.partition(".")
    if head in unit.imports:
        full = unit.imports[head] + ("." + rest if rest else "")
        return full if full in types else None
    parts = unit.package.split(".") if unit.package else []
    for k in range(len(parts), -1, -1):
        full = ".".join([*parts[:k], name])
        if full in types:
            return full
    return None


def resolve(files: list[SourceFile], docs_dir: Path, roots: Sequence[Path]) -> list[SourceFile]:
    """The Scala pages with what their types inherit (see the module's docstring)."""
    pages = [f for f in files if f.path.endswith(SCALA_SUFFIXES)]
    if not pages or len(pages) > MAX_FILES or not any("extends" in f.body for f in pages):
        return files
    units = {f.path: parse(f.body) for f in pages}
    types: Types = {}
    for path, unit in sorted(units.items()):
        _types(unit.decls, unit, path, unit.package, "", types)
    by_page: dict[str, list[str]] = {}
    for qualified, (_, _, path, _) in types.items():
        by_page.setdefault(path, []).append(qualified)
    out: list[SourceFile] = []
    for f in files:
        found = _inherits(by_page[f.path], types) if f.path in by_page else {}
        if not found:
            out.append(f)
            continue
        out.append(pass_line.appended(f, scala_inherit.encode(found)))
    return out


def _inherits(own: list[str], types: Types) -> dict[str, Any]:
    """Path below the package of each type of a page (`own`: their qualified names) -> its
    parents' lines and the comments its members take from them."""
    out: dict[str, Any] = {}
    for qualified in own:
        d, u, _, below = types[qualified]
        if not d.parents:
            continue

        def lookup(name: str, seen_from: Any, u: Unit = u) -> Any:
            scope = u if seen_from is None else types[seen_from][1]
            return _lookup(name, scope, types)

        found = nearest_first(
            d.parents,
            {m.name for m in d.members},
            lookup,
            lambda base: types[base][0].parents,
            lambda base: _members(types[base][0]),
            lambda m: m.name,
            lambda base: base,
        )
        found = [(b, ms) for b, ms in found if b != qualified]
        lines = [
            {
                "key": base,
                "name": types[base][3],
                "members": [
                    {"name": m.name, "kind": m.kind, "signature": m.signature, "doc": m.doc or ""}
                    for m in ms
                ],
            }
            for base, ms in found
        ]
        docs = _docs(d, _ancestors(d, qualified, types, lookup), types)
        if lines or docs:
            out[below] = {"bases": lines, "docs": docs}
    return out


def _ancestors(d: Decl, qualified: str, types: Types, lookup: Any) -> list[str]:
    """Every parent of the tree, nearest first (an override's comment comes from one of
    them, whatever members a nearer one declares)."""
    out: list[str] = []
    queue: list[tuple[str, str | None]] = [(p, None) for p in d.parents]
    while queue and len(out) < MAX_BASES:
        name, seen_from = queue.pop(0)
        found = lookup(name, seen_from)
        if found is None or found in out or found == qualified:
            continue
        out.append(found)
        queue += [(p, found) for p in types[found][0].parents]
    return out


def _docs(d: Decl, bases: list[str], types: Types) -> dict[str, str]:
    """Member name -> the nearest parent's comment, for the members without their own."""
    out: dict[str, str] = {}
    wanted = {m.name for m in d.members if not (m.doc or "").strip() and not m.hidden}
    for base in bases:
        for m in types[base][0].members:
            if m.name in wanted and m.doc and m.name not in out:
                out[m.name] = m.doc
    return out
