"""Where docs.rs shows a Rust item that a crate re-exports: the paths users type.

`clap::Command` is `pub use clap_builder::*` in the `clap` crate over `pub use
crate::builder::Command` in `clap_builder`, over `pub use command::Command` in
`clap_builder::builder`, whose private module `command` defines it; `axum::Router` is `pub use
self::routing::Router`; `tokio::net::TcpListener` is `pub use tcp::listener::TcpListener` in
`tokio::net`, whose module `tcp::listener` is `pub(crate)`. The rustdoc reader names an item by
the path of the module defining it (rustdoc.py); this module finds, across the crates of the
docs tree, every public path a `pub use` gives an item, so the reader registers it there too.

- An item whose module is public keeps its path (docs.rs' page of it); every other path a
  re-export gives it is an alias: an API entry of the same section (`clap::Command`,
  `clap::Command::arg`) and `object:` anchors, so intra-doc links written so resolve.
- An item of a private module has no page at its own path (docs.rs inlines it where it is
  re-exported): when its nearest public module re-exports it (`mod command; pub use
  command::Command;`), that path, as before; else its re-export in its own crate, the shortest
  path first (`tokio::net::TcpListener`, not `tokio::net::tcp::TcpListener`, which does not
  exist). Other re-exports are aliases; without one it keeps the nearest public module's path.
- A path is resolved as rustc does: `crate::`, `self::`, `super::`, a child module (a module
  file of the tree), a name another `use` binds there (its `pub use`, glob ones too), another
  crate of the tree by its name, else an item of that module. A glob (`pub use x::*`) brings the
  public items and re-exports of `x`. Items under a re-exported module (`clap::builder::Arg`)
  need no alias: their path below the module is a tail of the defining path, which the registry
  finds already (runtime browse/apiref.py). Crates outside the tree (std, serde) stay unresolved.

An inherent `impl` of a type defined in another file (`impl RngSeed` in tokio's
`util/rand/rt_unstable.rs`, the type in `util/rand.rs`; `impl Foo` in `foo/ops.rs`) names its
methods by the type's path as docs.rs shows it (`tokio::runtime::RngSeed::from_bytes`, not
`tokio::RngSeed::from_bytes`, the impl's nearest public module): the impl's type is resolved
through its file's `use` declarations (`use super::RngSeed;`, `use super::*;` too) and given as
a line of the table for the impl's file (`foreign_impls`).

Only files holding a `pub use` are read for their declarations (and a glob's module for its
items, a foreign impl's file for its `use`s): tokio's 300 module files have 36. Resolution is
bounded (MAX_HOPS, a cycle guard).
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from docsmcp.model.source import SourceFile
from docsmcp.sources.formats.source.rust_uses import Names, Use, scan
from docsmcp.sources.formats.source.rustdoc import HEADER, REEXPORT_LINE, USE_LINE
from docsmcp.sources.packages.rust_crate import RUST_SUFFIX, Module, _Reader, crate_name, module_of

log = logging.getLogger("docsmcp.sources.packages.rust_reexports")

MAX_HOPS = 12  # `use` declarations followed to resolve one path, at most
MAX_ALIASES = 8  # paths registered for one item besides its own, at most
_PUB_USE = re.compile(r"^[ \t]*pub(?:\([^)\n]*\))?\s+use\b", re.MULTILINE)
# an `impl` block's header, up to its `{` (`impl<T> Foo<T> where T: Clone {`)
_IMPL = re.compile(r"^[ \t]*(?:unsafe[ \t]+)?impl\b([^{};]*)\{", re.MULTILINE)
_GENERICS = re.compile(r"<[^<>]*>")

ModKey = tuple[str, tuple[str, ...]]  # (crate folder, module segments)


@dataclass(frozen=True)
class _Item:
    module: ModKey
    name: str


@dataclass
class _Tree:
    reader: _Reader
    modules: dict[ModKey, tuple[str, Module]]  # every library module file: its path, module
    crates: dict[str, str]  # crate name -> folder
    names: dict[str, str]  # crate folder -> name
    scans: dict[ModKey, Names | None] = field(default_factory=dict)

    def declared(self, key: ModKey, items: bool = False) -> Names | None:
        """The module's `use` declarations (and items), read only where a `pub use` is or
        `items` are asked for (a glob's module)."""
        if key in self.scans and (self.scans[key] is not None or not items):
            return self.scans[key]
        found = self.modules.get(key)
        text = self.reader.text(found[0]) if found else None
        names = scan(text) if text is not None and (items or _PUB_USE.search(text)) else None
        self.scans[key] = names
        return names

    def resolve(
        self, at: ModKey, path: Sequence[str], hops: int, module: bool = False
    ) -> ModKey | _Item | None:
        """What `path`, written in module `at`, names: a module or an item (`module`: a
        glob's path, which names a module)."""
        if not path or hops > MAX_HOPS:
            return None
        root, segments = at
        first, rest = path[0], list(path[1:])
        current: ModKey | _Item | None
        if first == "crate":
            current = (root, ())
        elif first == "self":
            current = at
        elif first == "super":
            current = (root, segments[:-1])
        else:
            current = self.lookup(at, first, hops, strict=True, globs=False)
            if current is None and first in self.crates:
                current = (self.crates[first], ())
            if current is None and (rest or module):
                current = self.lookup(at, first, hops, strict=True)
            elif current is None:
                current = self.lookup(at, first, hops, strict=False)
            if current is None:
                return None
        for k, seg in enumerate(rest):
            if not isinstance(current, tuple):
                return None  # (a path into an item: an enum's variant, an associated item)
            if seg == "super":
                current = (current[0], current[1][:-1])
                continue
            last = k == len(rest) - 1 and not module
            current = self.lookup(current, seg, hops, strict=False, last=last)
            if current is None:
                return None
        return current

    def lookup(
        self,
        at: ModKey,
        name: str,
        hops: int,
        strict: bool,
        globs: bool = True,
        last: bool = False,
    ) -> ModKey | _Item | None:
        """`name` in module `at`: a child module, a name a `use` binds, a glob's (unless not
        `globs`), else (unless `strict`) an item defined there. A path's `last` name is
        looked up among the `use`s and items first: a function and a module share a name
        (tokio's `task::spawn`, in `task/spawn.rs`), and an item is what a re-export means."""
        child = (at[0], (*at[1], name))
        if child in self.modules and not last:
            return child
        names = self.declared(at, items=strict)
        if names is not None:
            for use in names.uses:
                if not use.glob and use.name == name:
                    return self.resolve(at, use.path, hops + 1)
            if strict and name in names.items:
                return _Item(at, name)
        if child in self.modules:
            return child
        if names is not None:
            for use in names.uses if globs else ():
                if use.glob and use.public:
                    found = self.resolve(at, use.path, hops + 1, module=True)
                    if isinstance(found, tuple):
                        inner = self.lookup(found, name, hops + 1, strict=True)
                        if inner is not None:
                            return inner
        return None if strict else _Item(at, name)

    def exported(self, key: ModKey, hops: int) -> list[tuple[str, _Item]]:
        """The items a module gives a glob: its public items and its re-exported items."""
        names = self.declared(key, items=True)
        if names is None or hops > MAX_HOPS:
            return []
        out = [(name, _Item(key, name)) for name in sorted(names.items)]
        out = [(n, x) for n, x in out if (key[0], (*key[1], n)) not in self.modules]
        for use in names.uses:
            if not use.public:
                continue
            found = self.resolve(key, use.path, hops + 1, module=use.glob)
            if use.glob and isinstance(found, tuple):
                out += self.exported(found, hops + 1)
            elif isinstance(found, _Item):
                out.append((use.name, found))
        return out


# module file -> item name -> (path, aliases…); and `pub use …` (a line of its Re-exports) ->
# (the path its item is shown at, or "" for an item of a crate outside the tree,)
Uses = dict[str, dict[str, tuple[str, ...]]]
LISTED = "pub use "


def table(docs_dir: Path, roots: Sequence[Path], paths: Iterable[str]) -> Uses:
    """For each module file of the tree's crates: item name -> (the path it is shown at, its
    aliases…), for the items a `pub use` re-exports (see the module docstring)."""
    listed = set(paths)
    reader = _Reader(docs_dir, roots)
    modules: dict[ModKey, tuple[str, Module]] = {}
    for path in sorted(p for p in listed if p.endswith(RUST_SUFFIX)):
        module = module_of(path, reader, listed.__contains__)
        if module is not None and module.shown:
            modules.setdefault((module.root, module.segments), (path, module))
    if not modules:
        return {}
    names = {root: crate_name(root, reader, docs_dir) for root in sorted({r for r, _ in modules})}
    crates: dict[str, str] = {}
    for root, name in names.items():
        crates.setdefault(name, root)
    tree = _Tree(reader, modules, crates, names)
    found: dict[_Item, set[str]] = {}
    listed: list[tuple[str, ModKey, Use, ModKey | _Item | None]] = []  # (file, module, use, target)
    for key, (file, module) in sorted(modules.items()):
        if module.public != module.segments:
            continue  # (a private module's re-exports are seen where they are published)
        names_here = tree.declared(key)
        if names_here is None:
            continue
        prefix = "::".join((names[key[0]], *key[1]))
        for use in names_here.uses:
            if not use.public:
                continue
            target = tree.resolve(key, use.path, 0, module=use.glob)
            if use.glob and isinstance(target, tuple):
                for name, item in tree.exported(target, 1):
                    found.setdefault(item, set()).add(f"{prefix}::{name}")
            elif isinstance(target, _Item):
                found.setdefault(target, set()).add(f"{prefix}::{use.name}")
            if not use.glob and use.inline != "inline":
                listed.append((file, key, use, target))
    out: Uses = {}
    for item, paths_found in sorted(found.items(), key=lambda x: (x[0].module, x[0].name)):
        defined = modules.get(item.module)
        if defined is None:
            continue
        path, module = defined
        crate = names[item.module[0]]
        own = "::".join((crate, *module.public, item.name))
        others = sorted(paths_found - {own}, key=lambda p, c=crate: _order(p, c))
        if not others:
            continue
        if module.public != module.segments and own not in paths_found:
            # (docs.rs shows it where it is re-exported, not at the nearest public module)
            primary, aliases = others[0], others[1:]
        else:
            primary, aliases = own, others
        out.setdefault(path, {})[item.name] = (primary, *aliases[:MAX_ALIASES])
    foreign_impls(tree, out)
    for file, key, use, target in listed:
        shown = _listed(tree, out, key, use, target)
        if shown is not None:
            written = "::".join(use.path)
            written += f" as {use.name}" if use.name != use.path[-1] else ""
            out.setdefault(file, {})[f"{LISTED}{written};"] = (shown,)
    return out


def _listed(
    tree: _Tree, out: Uses, at: ModKey, use: Use, target: ModKey | _Item | None
) -> str | None:
    """Whether docs.rs lists the re-export `use` of the public module `at` among the module's
    Re-exports rather than showing its item there (rustdoc inlines an item of a private module
    and one of another crate, unless `#[doc(no_inline)]`; `#[doc(inline)]` ones are left out
    before): the path its item is shown at ("" for one outside the tree: `pub use http;`), or
    None."""
    if target is None:
        external = use.path[0] not in ("crate", "self", "super")
        return "" if external and (len(use.path) == 1 or use.inline == "no_inline") else None
    if not isinstance(target, _Item) or target.module not in tree.modules:
        return None
    path, module = tree.modules[target.module]
    crate = tree.names[target.module[0]]
    own = "::".join((crate, *module.public, target.name))
    shown = out.get(path, {}).get(target.name, (own,))[0]
    here = "::".join((tree.names[at[0]], *at[1], use.name))
    if target.module[0] != at[0] and use.inline != "no_inline":
        return None  # (inlined: another crate's item is shown here)
    return shown if shown != here else None


def _inherent_owners(text: str) -> set[str]:
    """The types the file's inherent `impl` blocks implement (not `impl Trait for T`), by
    their last name, where the file does not define them."""
    owners = set()
    for m in _IMPL.finditer(text):
        head = m.group(1)
        while "<" in head and (shorter := _GENERICS.sub(" ", head)) != head:
            head = shorter  # (generics out, the innermost first)
        head = re.split(r"\bwhere\b", head, maxsplit=1)[0]
        if re.search(r"\bfor\b", head):
            continue  # a trait impl: docs.rs lists it apart
        words = re.findall(r"\w+", head)
        if words and words[-1] not in ("dyn", "mut", "const", "unsafe"):
            owners.add(words[-1])
    return {o for o in owners if not _defines(text, o)}


def _defines(text: str, name: str, public: bool = False) -> bool:
    """Whether the file defines the type `name` (`public`: `pub` to all, which docs.rs shows)."""
    visibility = r"\bpub\s+" if public else r"\b"
    kinds = r"(?:struct|enum|union|type)\s+"
    return re.search(rf"{visibility}{kinds}{re.escape(name)}\b", text) is not None


def foreign_impls(tree: _Tree, out: Uses) -> None:
    """Adds to `out`, for each module file with an inherent impl of a type defined in another
    module file of the tree, the type's name -> (the path docs.rs shows it at,), where that
    path is not the one the impl's module would give it (see the module docstring)."""
    for key, (path, module) in sorted(tree.modules.items()):
        text = tree.reader.text(path)
        if text is None or "impl" not in text:
            continue
        for name in sorted(_inherent_owners(text)):
            found = _defining(tree, key, name)
            if found is None:
                continue
            def_path, def_module = tree.modules[found.module]
            crate = tree.names[found.module[0]]
            shown = out.get(def_path, {}).get(name, ("::".join((crate, *def_module.public, name)),))
            here = "::".join((tree.names[key[0]], *module.public, name))
            if shown[0] != here:
                out.setdefault(path, {}).setdefault(name, (shown[0],))


def _defining(tree: _Tree, at: ModKey, name: str) -> _Item | None:
    """The item `name` names in module `at` where another module file of the tree defines it:
    through a `use` that binds it, else a glob `use` (`use super::*;`, private ones too)."""
    found = tree.resolve(at, (name,), 0)
    candidates = [found] if isinstance(found, _Item) and found.module != at else []
    names = tree.declared(at, items=True)
    for use in names.uses if names is not None and not candidates else ():
        if use.glob:
            module = tree.resolve(at, use.path, 1, module=True)
            if isinstance(module, tuple) and module != at:
                candidates.append(_Item(module, name))
    for item in candidates:
        defined = tree.modules.get(item.module)
        text = tree.reader.text(defined[0]) if defined else None
        if text is not None and _defines(text, name, public=True):
            return item
    return None


def _order(path: str, crate: str) -> tuple[bool, int, str]:
    """Its own crate's re-exports first, the shortest path first."""
    return path.split("::")[0] != crate, path.count("::"), path


def with_uses(source: SourceFile, uses: Uses) -> SourceFile:
    """A crate's module file, read (its body starting with rustdoc's header line), with a line
    per re-exported item after that header: `USE_LINE NAME PRIMARY ALIAS…`."""
    found = uses.get(source.path)
    body = source.body
    if not found or not body.startswith(HEADER):
        return source
    head, _, rest = body.partition("\n")
    lines = [
        f"{REEXPORT_LINE}{paths[0] or '-'} {name.removeprefix(LISTED)}"
        if name.startswith(LISTED)
        else f"{USE_LINE}{name} {' '.join(paths)}"
        for name, paths in sorted(found.items())
    ]
    line_map = source.line_map or tuple(range(body.count("\n") + 1))
    line_map = (line_map[0],) * (len(lines) + 1) + line_map[1:]
    return dataclasses.replace(source, body="\n".join([head, *lines, rest]), line_map=line_map)
