"""Packages `--api-source` names outside the docs folder, read as if the docs folder held them.

A book or site often lies beside the code it documents: Rocket's guide in `site/guide/` of the
repository whose crate is `core/lib/`, serde's book in a repository of its own beside the
crate's, cobra's Hugo site in `site/content/` of the Go module. `--api-source DIR` names the
package; its API pages are then read as they are when the docs folder holds the package: a Rust
crate's modules, a Java or Kotlin project's main sources, the headers a Doxyfile names, the C#
a library project compiles, a gem's library files (YARD's), a PHP library's autoloaded classes,
a Dart package's public libraries with what they export, a protobuf API's `.proto` files, a
GraphQL service's schema files (the
same rules, `site_passes.no_pages`, applied to the package's folder as if it were the docs
folder). Go modules are read by go_source.with_api_sources, with the same folder names
(`mounts`).

Each package is a *mount*: its pages lie in a folder of the docs tree named as the package's
folder (`lib/src/request/mod.rs` for `--api-source core/lib`), or that name with `-2`, `-3`...
when the docs folder holds a folder of that name already. Ids are printable and never `../`
(link resolvers and the runtime read `..` as leaving the tree). A page is read with the
package's folder as its docs folder (`include_str!`, a Java class's supertypes, Cargo.toml are
looked up there), then named by its mount. A docs folder inside the package (cobra's, Rocket's
with `--api-source .`) is not walked again.

Where the repository holds both, `--source-url`'s `{path}` of such a page is the page's path as
seen from the docs folder (`../../core/lib/src/request/mod.rs`), so a template written for the
docs folder (`…/blob/{commit}/site/guide/{path}`) links to the file (`…/blob/{commit}/core/lib/…`)
once the runtime removes the dot segments (`url_paths`). A package in another repository than
the docs (serde's crate beside its book's repository) has no such link.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.model.source import Manifest, Problem, SourceFile
from docsmcp.sources.discover import scan as scan_folder
from docsmcp.sources.files import (
    C_HEADER_SUFFIXES,
    CSHARP_SUFFIXES,
    DART_SUFFIXES,
    DOXYGEN_PAGE_SUFFIXES,
    GRAPHQL_SUFFIXES,
    HASKELL_SUFFIXES,
    JAVA_SUFFIXES,
    JAVASCRIPT_SUFFIXES,
    KOTLIN_SUFFIXES,
    PERL_MODULE_SUFFIXES,
    PERL_SCRIPT_SUFFIXES,
    PHP_SUFFIXES,
    POD_SUFFIXES,
    PROTO_SUFFIXES,
    RUBY_SUFFIXES,
    RUST_SUFFIXES,
    SCALA_SUFFIXES,
    SOLIDITY_SUFFIXES,
    SWIFT_SUFFIXES,
    TYPESCRIPT_SUFFIXES,
)
from docsmcp.sources.formats.markdown import docc
from docsmcp.sources.packages import (
    dart_package,
    doxygen_project,
    graphql_extend,
    haskell_package,
    rust_reexports,
    scala_inherit,
    swift_package,
    typescript_site,
)
from docsmcp.sources.packages.typescript_links import TsTree
from docsmcp.sources.settings import load_file

log = logging.getLogger("docsmcp.sources.packages.api_sources")

# The files of a package outside the docs folder that may be pages: those a package reader
# makes API pages of. Go has its own scan (go_source); TypeScript's is typescript_site's
# (SCRIPT_SUFFIXES); Python packages named by --api-source are read where pages name their
# objects (mkdocstrings, autodoc).
# A Swift package's symbols are read with the extension files of its DocC catalogs, and the
# catalogs' articles and tutorials (scan) with its own link tables.
PAGE_SUFFIXES = (
    RUST_SUFFIXES
    + JAVA_SUFFIXES
    + KOTLIN_SUFFIXES
    + C_HEADER_SUFFIXES
    + DOXYGEN_PAGE_SUFFIXES
    + CSHARP_SUFFIXES
    + SWIFT_SUFFIXES
    # (a gem's library files, a PHP library's autoloaded classes, a Dart package's public
    # libraries: ruby_gem, php_package and dart_package say which, as in the docs folder)
    + RUBY_SUFFIXES
    + PHP_SUFFIXES
    + DART_SUFFIXES
    + HASKELL_SUFFIXES  # (a cabal library's exposed modules: haskell_package)
    # (a protobuf API's `.proto` files: proto_project says which, as in the docs folder)
    + PROTO_SUFFIXES
    # (a Perl distribution's modules, POD and scripts: perl_dist says which)
    + PERL_MODULE_SUFFIXES
    + POD_SUFFIXES
    + PERL_SCRIPT_SUFFIXES
    + SCALA_SUFFIXES  # (an sbt/Mill build's published main sources: scala_project)
    # (a Solidity project's contracts: solidity_project says which, as in the docs folder)
    + SOLIDITY_SUFFIXES
    # (a GraphQL service's schema files: graphql_schema says which, as in the docs folder)
    + GRAPHQL_SUFFIXES
)
# TypeScript and JavaScript: the files a package's entry points export (typescript_site.scan),
# each read with the other files' declarations it shows (bases, referenced types)
SCRIPT_SUFFIXES = TYPESCRIPT_SUFFIXES + JAVASCRIPT_SUFFIXES


@dataclass(frozen=True)
class Mount:
    """A folder `--api-source` names outside the docs folder."""

    prefix: str  # the folder of the docs tree its pages lie in (`lib`, `cobra-2`)
    given: str  # the folder as --api-source spells it (for messages)
    root: Path  # its real path
    # folders not walked, relative to `root`: the docs folder when the package holds it, and
    # the packages --api-source names inside it (each read once, under its own name)
    skip: tuple[str, ...]
    holds_docs: bool  # whether the docs folder is inside it
    # `{path}` of its pages for --source-url: the mount's path from the docs folder (`../..`),
    # or None when the package is in another repository than the docs (no link)
    from_docs: str | None = None


def mounts(docs_dir: Path, api_sources: Sequence[Path], listed: Iterable[str]) -> tuple[Mount, ...]:
    """The folders of `api_sources` outside the docs folder, each named apart from the top
    folders of `listed` (the docs folder's files) and from each other, in order."""
    docs = Path(os.path.realpath(docs_dir))
    taken = {p.split("/", 1)[0] for p in listed}
    found: dict[Path, str] = {}  # real folder -> as given
    for folder in api_sources:
        real = Path(os.path.realpath(folder))
        if real == docs or docs in real.parents or not real.is_dir() or real in found:
            continue  # inside the docs folder: read with it
        found[real] = str(folder)
    out: list[Mount] = []
    for real, given in found.items():
        name = real.name.lstrip(".") or "package"  # (no hidden folder: ids would be refused)
        prefix, n = name, 1
        while prefix in taken:
            n += 1
            prefix = f"{name}-{n}"
        taken.add(prefix)
        inner = [p for p in (docs, *found) if real in p.parents]
        skip = tuple(sorted(p.relative_to(real).as_posix() for p in inner))
        holds = real in docs.parents
        out.append(Mount(prefix, given, real, skip, holds, _from_docs(docs, real)))
    return tuple(out)


def _from_docs(docs: Path, real: Path) -> str | None:
    """`real`'s path from `docs` when both lie in one repository (or neither in one), else None."""
    if _work_tree(docs) != _work_tree(real):
        return None
    return Path(os.path.relpath(real, docs)).as_posix()


def _work_tree(folder: Path) -> str | None:
    """The top of the git work tree holding `folder`, or None (no git, or not in one)."""
    try:
        res = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return os.path.realpath(res.stdout.strip()) if res.returncode == 0 else None


def url_paths(found: Sequence[Mount]) -> dict[str, str | None]:
    """For the bundle's `source.paths`: each mount's folder (`lib/`) -> its path from the docs
    folder (`../../core/lib/`), None where no link can be made."""
    return {f"{m.prefix}/": (f"{m.from_docs}/" if m.from_docs is not None else None) for m in found}


@dataclass(frozen=True)
class Outside:
    """The API pages of the mounts: shown path -> (mount, path inside it)."""

    pages: Mapping[str, tuple[Mount, str]]
    rust: Mapping[str, rust_reexports.Uses]  # mount prefix -> its crates' re-exports
    # mount prefix -> what its TypeScript pages are read with (typescript_site.scan)
    typescript: Mapping[str, TsTree] = dataclasses.field(default_factory=dict)

    def read(
        self,
        roots: Sequence[Path],
        docs: Sequence[SourceFile],
        problems: list[Problem],
        governing: Callable[[str], Manifest | None],
        configure: Callable[[Manifest | None, str], Manifest | None],
        keep: Callable[[str], bool],
        finish: Callable[[Path, SourceFile], SourceFile],
    ) -> list[SourceFile]:
        """The pages `keep` keeps, each read inside its package's folder (`finish`: the
        corpus's includes and passes, given that folder), then named by its mount; their
        problems are added to `problems`. `docs`: the docs folder's pages (a Doxygen project's
        headers link to its guides). `governing(shown path)`: the manifest governing a page,
        `configure(it, path)` the one configuring it (a page no manifest governs names none,
        as the corpus's own pages)."""
        if not self.pages:
            return []
        by_mount: dict[Mount, list[SourceFile]] = {}
        ungoverned: set[str] = set()
        for shown, (mount, path) in sorted(self.pages.items()):
            if not keep(shown):
                continue
            governed = governing(shown)
            source, found = load_file(mount.root, path, configure(governed, shown), roots)
            problems += [dataclasses.replace(p, path=shown) for p in found]
            if source is None:
                continue
            if governed is None:
                ungoverned.add(shown)
            tree = self.typescript.get(mount.prefix)
            if tree is not None and source.path in tree.extra:
                source = tree.gathered(source)
            source = finish(mount.root, source)
            uses = self.rust.get(mount.prefix)
            by_mount.setdefault(mount, []).append(
                rust_reexports.with_uses(source, uses) if uses else source
            )
        files: list[SourceFile] = []
        for mount, read in by_mount.items():
            # (DocC's extension files, read in the package's own folder)
            read = swift_package.resolve(read, mount.root, roots)
            # (dartdoc: a library's exports, its categories, read in the package's folder)
            read = dart_package.resolve(read, mount.root, roots)
            # (Haddock: the package's modules a page re-exports from, in the package's folder)
            read = haskell_package.resolve(read, mount.root, roots)
            # (Scaladoc: what a type inherits from the package's own types)
            read = scala_inherit.resolve(read, mount.root, roots)
            prefix = f"{mount.prefix}/"
            moved = []
            for f in read:
                shown = prefix + f.path
                manifest = None if shown in ungoverned else f.manifest
                moved.append(dataclasses.replace(f, path=shown, manifest=manifest))
            # (GraphiQL: a type's extensions in other schema files, on its own page; after
            # the renaming, so the pages name each other as the bundle does)
            moved = graphql_extend.resolve(moved, mount.root, roots)
            # (Doxygen's settings and @ref links, with the docs' guides: only its own pages)
            done = doxygen_project.resolve([*docs, *moved], mount.root, roots, prefix)
            files += [f for f in done if f.path.startswith(prefix)]
        return files


# What else a package named by --api-source is read from: Go (go_source); Python, Julia,
# Elixir and R (the pages naming their objects: mkdocstrings, autodoc, Documenter)
_OTHER_SOURCES = (".go", ".py", ".jl", ".ex", ".r", ".rd")
MAX_LOOKED_AT = 50_000  # files looked at for one; past it the folder is taken to hold some


def holds_sources(folder: Path) -> bool:
    """Whether `folder` holds a file of a kind some package reader reads (hidden folders and
    `node_modules` aside): build's one warning names an `--api-source` that holds none."""
    suffixes = PAGE_SUFFIXES + SCRIPT_SUFFIXES + _OTHER_SOURCES
    seen = 0
    for _top, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "node_modules"]
        seen += len(names)
        if seen > MAX_LOOKED_AT or any(n.lower().endswith(suffixes) for n in names):
            return True
        if any(n.lower().endswith(".docc") for n in dirs):
            return True
    return False


def scan(
    roots: Sequence[Path],
    found: Sequence[Mount],
    no_pages: Callable[[Path, Sequence[Path], list[str]], set[str]],
) -> Outside:
    """The API pages of each mount: its files of PAGE_SUFFIXES that `no_pages` (the docs
    folder's rules, given the mount's folder and listing) leaves pages."""
    pages: dict[str, tuple[Mount, str]] = {}
    rust: dict[str, rust_reexports.Uses] = {}
    typescript: dict[str, TsTree] = {}
    for mount in found:
        listing = scan_folder(mount.root, roots)
        skip = tuple(f"{folder}/" for folder in mount.skip)
        listed = [
            e.path
            for e in listing.markdown
            if not (e.refusal or e.skip) and not (skip and e.path.startswith(skip))
        ]
        # (a Swift package's DocC catalog articles and tutorials too: swift_package.resolve
        # heads them in the package's folder, with its modules' link tables)
        code = [p for p in listed if p.lower().endswith(PAGE_SUFFIXES) or docc.in_catalog(p)]
        scripts = [p for p in listed if p.lower().endswith(SCRIPT_SUFFIXES)]
        if not code and not scripts:
            continue
        left = no_pages(mount.root, roots, listed) if code else set()
        kept = [p for p in code if p not in left]
        if scripts:
            ts = typescript_site.scan(mount.root, roots, scripts)
            left = typescript_site.no_pages(mount.root, roots, scripts, warn=False, scanned=ts)
            kept += [p for p in scripts if p not in left]
            if ts.tree.extra:
                typescript[mount.prefix] = ts.tree
        if not kept:
            continue
        log.info("--api-source %s: %d API pages, under %s/", mount.given, len(kept), mount.prefix)
        pages.update((f"{mount.prefix}/{p}", (mount, p)) for p in kept)
        table = rust_reexports.table(mount.root, roots, listed)
        if table:
            rust[mount.prefix] = table
    return Outside(pages, rust, typescript)
