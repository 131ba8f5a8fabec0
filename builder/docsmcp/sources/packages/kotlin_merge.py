"""One Kotlin declaration, one section, as Dokka shows it: an after-reading pass over every
Kotlin page of the tree (site_passes.after_reading).

- **Platforms.** A multiplatform module declares a thing once per source set: an `expect` in
  `commonMain` and an `actual` in each platform's (the reader already hides `actual`s), or the
  same declaration written again in each platform's set (koin's `object GlobalContext` in
  `jvmMain`, `jsMain`, `wasmJsMain`, `nativeMain`). Dokka merges them into one page with a tab
  per platform. Here the copy with the most members, else the one in the first source set
  (`common…` first, then by name), is shown, with a *Platforms* line naming every set that
  declares it; the other copies are hidden (a file left with nothing to show is no page). Two
  copies in one source set are different declarations (other imports) and stay. A copy whose
  type holds members the shown copy lacks keeps its type's section, so those members stay
  reachable. A shown copy without KDoc takes the first other copy's (an `actual`'s included).
  An `actual` is shown only where no `expect` or plain copy is a page of the tree (the module
  read alone), or, for a type, when it declares public members the shown copy lacks (okhttp's
  Android `OkHttp.initialize`): then, as Dokka's platform tab, with the `expect`'s KDoc when it
  has none.
- **Options.** The module's Dokka options (kotlin_project.module_options): the visibilities it
  documents, `skipDeprecated`, and `suppressInheritedMembers` (no inherited lines).
- **Overrides.** An `override` without KDoc shows the overridden member's text, as Dokka
  does: the supertypes named by its class are looked up through the file's imports and
  package among the tree's Kotlin pages (a member of the same name and number of
  parameters), up to MAX_DEPTH supertypes up.

Both are told to the reader by one line appended to the page (formats/source/kotlin_merge.py);
a page the pass has nothing to say about is unchanged.
"""

from __future__ import annotations

import logging
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.model.source import SourceFile
from docsmcp.sources.formats.source import pass_line
from docsmcp.sources.formats.source.kdoc import SAMPLE, hidden_by_doc
from docsmcp.sources.formats.source.kotlin_merge import Merge, declaration_key
from docsmcp.sources.formats.source.kotlin_parse import parse
from docsmcp.sources.formats.source.kotlin_syntax import Decl, Unit, is_type
from docsmcp.sources.packages.kotlin_inherit import inherits
from docsmcp.sources.packages.kotlin_project import (
    KOTLIN_SUFFIX,
    conventions,
    module_of,
    module_options,
)

log = logging.getLogger("docsmcp.sources.packages.kotlin_merge")

_NOT_SHOWN = frozenset({"actual", "private", "internal", "protected"})  # (kdoc.py's rule)
_HIDDEN = frozenset({"private", "internal", "protected"})
MAX_DEPTH = 6  # supertypes followed up for an override's comment, at most
MAX_FILES = 20_000  # Kotlin pages merged, at most (a bigger tree is left as read)


@dataclass(frozen=True)
class _Found:
    """A declaration of a page: its key, its type's key ("" at the top) and the file's."""

    key: str
    decl: Decl
    owner: str
    path: str
    unit: Unit


def source_set(relative: str) -> str:
    """The source set a file below its module is in, as Dokka names its platform: `jvm` of
    `src/jvmMain/kotlin/…`, `common` of kotlinx' `common/src/…`, `main` of `src/main/kotlin`."""
    parts = relative.split("/")
    if len(parts) > 3 and parts[0] == "src" and parts[2] in ("kotlin", "java"):
        name = parts[1]
    elif len(parts) > 2 and parts[1] == "src":
        name = parts[0]
    else:
        return ""
    return name.removesuffix("Main") or name


def _rank(found: _Found, sets: dict[str, str]) -> tuple[int, str, str]:
    name = sets[found.path]
    return (0 if name == "common" else 1 if name.startswith("common") else 2, name, found.path)


def _walk(unit: Unit, path: str) -> list[_Found]:
    out: list[_Found] = []
    todo = [(d, unit.package) for d in unit.declarations]
    while todo:
        decl, owner = todo.pop(0)
        key = declaration_key(decl, owner)
        out.append(_Found(key, decl, owner if owner != unit.package else "", path, unit))
        if is_type(decl):
            todo += [(m, key) for m in decl.members]
    return out


def _below(found: list[_Found]) -> dict[str, set[str]]:
    """The keys of the members (at any depth) of each type of a file, by the type's key."""
    out: dict[str, set[str]] = {}
    parent = {f.key: f.owner for f in found}  # (a type's key -> its owner's, "" at the top)
    for f in found:
        owner, depth = f.owner, 0
        while owner and depth < 64:  # (types nest 12 deep at most: kotlin_parse.MAX_DEPTH)
            out.setdefault(owner, set()).add(f.key)
            owner, depth = parent.get(owner, ""), depth + 1
    return out


def resolve(files: list[SourceFile], docs_dir: Path, roots: Sequence[Path]) -> list[SourceFile]:
    """The Kotlin pages with what they show of the others (see the module's docstring)."""
    kotlin = [f for f in files if f.path.endswith(KOTLIN_SUFFIX)]
    if not kotlin or len(kotlin) > MAX_FILES:
        return files
    folders: dict[str, str | None] = {}
    sets: dict[str, str] = {}
    modules: dict[str, str | None] = {}
    found: dict[str, list[_Found]] = {}
    for f in kotlin:
        folder = posixpath.dirname(f.path)
        if folder not in folders:
            folders[folder] = module_of(Path(docs_dir), folder)
        module = modules[f.path] = folders[folder]
        relative = f.path[len(module) + 1 :] if module else f.path
        sets[f.path] = source_set(relative) if module is not None else ""
        own = f.body.partition("\n" + SAMPLE)[0]
        found[f.path] = _walk(parse(own), f.path)
    below = {path: _below(items) for path, items in found.items()}
    hide: dict[str, set[str]] = {}
    platforms: dict[str, dict[str, tuple[str, ...]]] = {}
    docs: dict[str, dict[str, str]] = {}
    show: dict[str, set[str]] = {}  # (the `actual`s shown, by page)
    # (platforms: the copies of one key in one module's source sets)
    groups: dict[tuple[str | None, str], list[_Found]] = {}
    for path, items in found.items():
        if modules[path] is None or not sets[path]:
            continue
        for item in items:
            groups.setdefault((modules[path], item.key), []).append(item)
    chosen: dict[tuple[str | None, str], str] = {}  # (module, key) -> the file shown
    for (module, key), copies in sorted(groups.items(), key=lambda g: len(g[0][1])):
        # (a member in its type's file shown, else the copy with the most members: the others'
        # are then all shown on it)
        shown = sorted(
            (c for c in copies if not c.decl.modifiers & _HIDDEN),
            key=lambda c: (
                "actual" in c.decl.modifiers,  # (an `actual` only where no `expect` or copy is)
                chosen.get((module, c.owner), c.path) != c.path,
                -len(below[c.path].get(c.key, ())),
                _rank(c, sets),
            ),
        )
        if len({sets[c.path] for c in copies}) < len(copies):
            continue  # (two in one source set: different declarations, e.g. of other imports)
        if shown:
            chosen[(module, key)] = shown[0].path
            if "actual" in shown[0].decl.modifiers and _owner_shown(shown[0], found, show):
                show.setdefault(shown[0].path, set()).add(key)
        if not shown or len({c.path for c in copies}) < 2:
            continue
        first = shown[0]
        _actual_types(first, shown[1:], found, show, docs)
        names = sorted({sets[c.path] for c in copies}, key=lambda n: (n != "common", n))
        if len(names) > 1:
            platforms.setdefault(first.path, {})[first.key] = tuple(names)
        if not (first.decl.doc or "").strip():
            others = sorted((c for c in copies if c is not first), key=lambda c: _rank(c, sets))
            text = next((c.decl.doc for c in others if (c.decl.doc or "").strip()), None)
            if text is not None:
                docs.setdefault(first.path, {})[first.key] = text
        primary_keys = {f.key for f in found[first.path]}
        for c in shown[1:]:
            if c.path == first.path or "actual" in c.decl.modifiers:
                continue  # (an `actual` not shown: the reader hides it)
            if is_type(c.decl) and not below[c.path].get(c.key, set()) <= primary_keys:
                continue  # (members the first copy lacks: its type's section stays)
            hide.setdefault(c.path, set()).add(c.key)
    for path, named in platforms.items():  # (a member on its type's platforms: said once)
        owners = {f.key: f.owner for f in found[path]}
        for key in [k for k, v in named.items() if named.get(owners.get(k, "")) == v]:
            del named[key]
    types = _types(found)
    _overrides(found, docs, types)
    shared = conventions(Path(docs_dir), roots)
    options = {
        m: module_options(Path(docs_dir), roots, m, shared)
        for m in sorted({m for m in modules.values() if m is not None})
    }
    out: list[SourceFile] = []
    for f in files:
        module = modules.get(f.path)
        told = dict(options.get(module, {})) if module is not None else {}
        no_inherited = told.pop("no_inherited", False)
        merge = Merge(
            frozenset(hide.get(f.path, ())),
            platforms.get(f.path, {}),
            docs.get(f.path, {}),
            {} if no_inherited else inherits(found.get(f.path, []), types, _supertype),
            frozenset(show.get(f.path, ())),
            told,
        )
        if not merge:
            out.append(f)
            continue
        out.append(pass_line.appended(f, "\n" + merge.encode()))
    return out


def _owner_shown(item: _Found, found: dict[str, list[_Found]], show: dict[str, set[str]]) -> bool:
    """Whether the type holding `item` (at the top: none) is shown: an `actual` one only when
    the pass shows it."""
    if not item.owner:
        return True
    owner = next((f for f in found[item.path] if f.key == item.owner), None)
    if owner is None or owner.decl.modifiers & _HIDDEN:
        return False
    return "actual" not in owner.decl.modifiers or item.owner in show.get(item.path, ())


def _actual_types(
    first: _Found,
    others: list[_Found],
    found: dict[str, list[_Found]],
    show: dict[str, set[str]],
    docs: dict[str, dict[str, str]],
) -> None:
    """Shows an `actual` type of `others` declaring public members the shown copy `first`
    lacks (okhttp's Android `OkHttp.initialize`), as Dokka's platform tab does, with the
    `expect`'s KDoc when it has none."""
    primary = {f.key for f in found[first.path]}
    for c in others:
        if "actual" not in c.decl.modifiers or not is_type(c.decl):
            continue
        extra = [  # (its own members only: a nested `actual` type is left hidden)
            f
            for f in found[c.path]
            if f.owner == c.key
            and f.key not in primary
            and not f.decl.modifiers & (_NOT_SHOWN | {"override"})
            and f.decl.kind in ("function", "property")
            and not hidden_by_doc(f.decl)
        ]
        if not extra or not _owner_shown(c, found, show):
            continue
        show.setdefault(c.path, set()).add(c.key)
        if not (c.decl.doc or "").strip() and (first.decl.doc or "").strip():
            docs.setdefault(c.path, {})[c.key] = first.decl.doc or ""


def _types(found: dict[str, list[_Found]]) -> dict[str, _Found]:
    """The tree's types by key (the first copy of each)."""
    types: dict[str, _Found] = {}
    for items in found.values():
        for item in items:
            if is_type(item.decl):
                types.setdefault(item.key, item)
    return types


def _overrides(
    found: dict[str, list[_Found]], docs: dict[str, dict[str, str]], types: dict[str, _Found]
) -> None:
    """The comment of each `override` without one (nor a platform copy's): the overridden
    member's, found through its class's supertypes."""
    for path, items in found.items():
        for item in items:
            decl = item.decl
            if "override" not in decl.modifiers or (decl.doc or "").strip() or not item.owner:
                continue
            if item.key in docs.get(path, {}):
                continue
            owner = types.get(item.owner)
            text = _inherited(decl, owner, types) if owner is not None else None
            if text:
                docs.setdefault(path, {})[item.key] = text


def _supertype(name: str, owner: _Found, types: dict[str, _Found]) -> _Found | None:
    """The type `name` (as a supertype list writes it) names, seen from `owner`'s file."""
    unit = owner.unit
    head, _, rest = name.partition(".")
    tried = []
    if head in unit.imports:
        tried.append(unit.imports[head] + ("." + rest if rest else ""))
    scope = owner.key
    while "." in scope:  # (a nested type, then the package)
        scope = scope.rpartition(".")[0]
        tried.append(f"{scope}.{name}")
    tried.append(name)
    return next((types[t] for t in tried if t in types), None)


def _inherited(decl: Decl, owner: _Found, types: dict[str, _Found]) -> str | None:
    """The KDoc of the member `decl` of `owner` overrides: the first documented one of the same
    name, kind, receiver and number of parameters up its supertypes (breadth first, each type
    once, MAX_DEPTH up)."""
    queue, seen = [(owner, 0)], {owner.key}
    while queue:
        current, depth = queue.pop(0)
        if depth >= MAX_DEPTH:
            continue
        for name in current.decl.supertypes:
            parent = _supertype(name, current, types)
            if parent is None or parent.key in seen:
                continue
            seen.add(parent.key)
            for m in parent.decl.members:
                same = m.name == decl.name and m.kind == decl.kind and m.receiver == decl.receiver
                if same and len(m.params) == len(decl.params) and (m.doc or "").strip():
                    return m.doc
            queue.append((parent, depth + 1))
    return None
