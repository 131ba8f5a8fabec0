"""A Swift type declared in one file and extended in others, as DocC shows it: one symbol.

swift-collections declares `OrderedSet` in `OrderedSet.swift` and extends it in 28 files
(`OrderedSet+Partial RangeReplaceableCollection.swift` adds `append(_:)`); each file is a page,
and each had a section and an API entry for `OrderedSet`. This after-reading pass
(site_passes.after_reading, after swift_package.resolve) finds, per module, the file that
declares each type (the first by path when several do) and appends a line to the pages
concerned (formats/source/swift_merge.py): an extending file's section links to the type and is
no entry or link target of it; the declaring file's section lists the members each extending
file adds, with a link to it. No text moves between files, so every line keeps its source line.
An extension of a type no page declares (`extension Array`) stays as it was.

The same pass says what each declared type gets from its bases (formats/source/
swift_inherit.py): what a superclass of the module declares or adds in extensions (no
initializer), and what the extensions of a protocol of the module it conforms to add (its
default implementations, not its requirements), through the bases those name, nearest first;
a name the type or a nearer base has is theirs. Bases are what the type's declaration and its
extensions name after `:`; one outside the module (`Sendable`, `Collection`) adds nothing.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Sequence
from pathlib import Path

from docsmcp.model.source import SourceFile
from docsmcp.sources.files import SWIFT_SUFFIXES
from docsmcp.sources.formats.source import pass_line
from docsmcp.sources.formats.source.inherit_walk import nearest_first
from docsmcp.sources.formats.source.swift_inherit import Member
from docsmcp.sources.formats.source.swift_merge import Merge
from docsmcp.sources.formats.source.swiftdoc import module_of_path, type_facts, types_of

MAX_FILES = 20_000  # Swift pages read by the pass, at most
MAX_MEMBERS = 60  # member names one extending file lists on the type's section, at most


def resolve(files: list[SourceFile], docs_dir: Path, roots: Sequence[Path]) -> list[SourceFile]:
    """The Swift pages with their types' other files named (see the module's docstring)."""
    pages = [f for f in files if f.path.endswith(SWIFT_SUFFIXES)]
    if len(pages) < 2 or len(pages) > MAX_FILES:
        return files
    read: dict[str, tuple[str, list[tuple[str, bool, list[str]]]]] = {}
    declared_at: dict[tuple[str, str], str] = {}
    for f in sorted(pages, key=lambda f: f.path):
        module, types = types_of(f.body)
        module = module or module_of_path(f.path)
        read[f.path] = (module, types)
        for name, declares, _ in types:
            if declares:
                declared_at.setdefault((module, name), f.path)
    declared: dict[str, dict[str, str]] = {}
    extended: dict[str, dict[str, list[tuple[str, tuple[str, ...]]]]] = {}
    for path, (module, types) in sorted(read.items()):
        for name, declares, members in types:
            home = declared_at.get((module, name))
            if declares or home is None or home == path:
                continue
            declared.setdefault(path, {})[name] = _relative(home, path)
            if members:
                extended.setdefault(home, {}).setdefault(name, []).append(
                    (_relative(path, home), tuple(members[:MAX_MEMBERS]))
                )
    inherited = _inherited(pages, read, declared_at)
    out: list[SourceFile] = []
    for f in files:
        merge = Merge(
            declared.get(f.path, {}),
            {k: tuple(v) for k, v in extended.get(f.path, {}).items()},
            inherited.get(f.path, {}),
        )
        if not merge:
            out.append(f)
            continue
        out.append(pass_line.appended(f, "\n" + merge.encode()))
    return out


@dataclasses.dataclass
class _Type:
    kind: str = "extension"  # (its declaration's; "extension" while no page declares it)
    bases: list[str] = dataclasses.field(default_factory=list)
    members: list[Member] = dataclasses.field(default_factory=list)


def _inherited(
    pages: list[SourceFile],
    read: dict[str, tuple[str, list[tuple[str, bool, list[str]]]]],
    declared_at: dict[tuple[str, str], str],
) -> dict[str, dict[str, tuple[tuple[str, str, tuple[tuple[str, str, str], ...]], ...]]]:
    """Each declaring page's types with what they get from their bases (see the docstring)."""
    types: dict[tuple[str, str], _Type] = {}
    for f in sorted(pages, key=lambda f: f.path):
        module = read[f.path][0]
        for path, kind, bases, members in type_facts(f.body):
            t = types.setdefault((module, path), _Type())
            t.kind = kind if kind != "extension" else t.kind
            t.bases += [b for b in bases if b not in t.bases]
            t.members += members
    out: dict[str, dict[str, tuple[tuple[str, str, tuple[tuple[str, str, str], ...]], ...]]] = {}
    for (module, path), t in sorted(types.items()):
        home = declared_at.get((module, path))
        if home is None or not t.bases:
            continue

        def lookup(name: str, _: object, module: str = module) -> tuple[str, _Type] | None:
            name = name.removeprefix(f"{module}.")
            found = types.get((module, name))
            return (name, found) if found is not None and found.kind != "extension" else None

        def given(base: tuple[str, _Type]) -> list[Member]:
            b = base[1]
            if b.kind == "protocol":
                return [m for m in b.members if m.from_extension]
            if b.kind == "class":
                return [m for m in b.members if not m.name.startswith("init(")]
            return []

        found = nearest_first(
            t.bases,
            {m.name for m in t.members},
            lookup,
            lambda base: base[1].bases,
            given,
            lambda m: m.name,
            lambda base: base[0],
        )
        lines = tuple(
            (name, b.kind, tuple((m.name, m.declaration, m.summary) for m in _once(ms)))
            for (name, b), ms in found
            if name != path
        )
        if lines:
            out.setdefault(home, {})[path] = lines
    return out


def _once(members: list[Member]) -> list[Member]:
    """Each name once (overloads: the first), as the line names it."""
    seen: set[str] = set()
    out = []
    for m in members:
        if m.name not in seen:
            seen.add(m.name)
            out.append(m)
    return out


def _relative(target: str, page: str) -> str:
    return posixpath.relpath(target, posixpath.dirname(page) or ".")
