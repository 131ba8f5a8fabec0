"""What each PHP class or interface inherits from types of the tree, for the phpDocumentor
reader's line of links (formats/source/php_inherit.py): an after-reading pass
(site_passes.after_reading), which alone sees every page.

phpDocumentor lists a class's inherited methods, properties and constants. A parent is what a
class `extends` (an interface: the interfaces it extends; a class follows no interface it
implements, whose methods it declares itself), named as PHP resolves it in the file (a leading
`\\`, the file's `use` imports, else its namespace), nearest first
(formats/source/inherit_walk.py). Its members are those phpDocumentor shows (no private or
`@internal` one, no constructor); a name the type or a nearer parent declares is theirs.
Parents outside the tree (`\\Exception`) add nothing. A page without such a parent is
unchanged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docsmcp.model.source import SourceFile
from docsmcp.sources.files import PHP_SUFFIXES
from docsmcp.sources.formats.source import php_inherit, phpdoc_tags
from docsmcp.sources.formats.source.inherit_walk import nearest_first
from docsmcp.sources.formats.source.php_parse import TYPE_KINDS, Decl, Unit, parse
from docsmcp.sources.formats.source.phpdoc import member_declaration

MAX_FILES = 20_000  # PHP pages read by the pass, at most (a bigger tree is left as read)


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


def _member(m: Decl) -> dict[str, Any]:
    doc = phpdoc_tags.read(m.doc, lambda t, label: label or t)
    return {
        "name": m.name,
        "kind": m.kind,
        "signature": member_declaration(m, doc),
        "doc": m.doc,
        "params": [dataclasses.asdict(p) for p in m.params],
        "returns": m.returns or m.type,
    }


def resolve(files: list[SourceFile], docs_dir: Path, roots: Sequence[Path]) -> list[SourceFile]:
    """The PHP pages with what their types inherit (see the module's docstring)."""
    pages = [f for f in files if f.path.endswith(PHP_SUFFIXES) and "extends" in f.body]
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
        if not found:
            out.append(f)
            continue
        own = f.line_map or tuple(range(f.body.count("\n") + 1))
        body = f.body + php_inherit.encode(found)
        out.append(dataclasses.replace(f, body=body, line_map=(*own, own[-1])))
    return out


def _namespace(name: str) -> str:
    return name.rsplit("\\", 1)[0] if "\\" in name else ""


def _inherits(
    unit: Unit, types: dict[str, tuple[Decl, Unit, str]]
) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for d in unit.decls:
        if d.kind not in ("class", "interface") or not d.extends:
            continue

        def lookup(name: str, seen_from: Any, d: Decl = d) -> Any:
            decl, u = (d, unit) if seen_from is None else (seen_from[1][0], seen_from[1][1])
            qualified = _resolve(name, u, _namespace(decl.name))
            found = types.get(qualified)
            return (qualified, found) if found is not None else None

        found = nearest_first(
            d.extends,
            {m.name for m in d.members},
            lookup,
            lambda base: base[1][0].extends,
            lambda base: _members(base[1][0]),
            lambda m: m.name,
            lambda base: base[0],
        )
        found = [(b, ms) for b, ms in found if b[1][0] is not d]
        if found:
            out[d.name] = [
                {
                    "key": qualified,
                    "name": qualified.rsplit("\\", 1)[-1],
                    "path": path,
                    "members": [_member(m) for m in ms],
                }
                for (qualified, (_, _, path)), ms in found
            ]
    return out
