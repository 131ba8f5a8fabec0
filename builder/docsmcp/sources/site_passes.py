"""The site rules that look at the whole docs tree rather than one page, in the order the
corpus applies them: before reading, the files that are no pages of their own (a generator's
partials, a package's other files); after reading, the passes over every page read (a page
showing another's text, titles from links, a site's terms and params, API entries named by
titles). Each rule lives with its generator; this module only says which run and when, so
corpus.py reads as the pipeline and a new rule is one line here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from docsmcp.common import logs
from docsmcp.model.source import SourceFile
from docsmcp.sources.discover import Entry
from docsmcp.sources.formats.markdown import link_titles
from docsmcp.sources.inclusion import asciidoc_includes, dumi_demos, texinfo_includes
from docsmcp.sources.packages import api_sources as outside
from docsmcp.sources.packages import (
    dart_package,
    dokka_includes,
    dotnet_merge,
    dotnet_project,
    doxygen_project,
    go_source,
    graphql_extend,
    graphql_schema,
    haskell_package,
    java_project,
    kotlin_merge,
    kotlin_project,
    man_pages,
    perl_dist,
    php_inherit,
    php_package,
    proto_project,
    python_package,
    ruby_gem,
    ruby_inherit,
    rust_crate,
    rust_reexports,
    scala_inherit,
    scala_project,
    solidity_inherit,
    solidity_project,
    swift_extensions,
    swift_package,
    typescript_site,
)
from docsmcp.sources.packages.typescript_links import TsTree
from docsmcp.sources.sites import (
    autosummary_pages,
    dumi_tabs,
    hugo_params,
    hugo_terms,
    mdn_api,
    ref_pages,
    router_pages,
    sphinx_extlinks,
)

T = TypeVar("T")


def guarded(fallback: T, rule: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`rule(*args, **kwargs)`, or `fallback` when it raises. A rule over the whole tree (which
    files of a package are pages, a pass over every page read) that fails on something in the
    tree is a defect of docsmcp's: it costs the build that rule, not the build, and one warning
    names it (a reader failing on one file costs that file its structure: workers.process)."""
    try:
        return rule(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - one rule must not end the build
        where = f"{rule.__module__.rpartition('.')[2]}.{rule.__name__}"
        error = f"{type(exc).__name__}: {exc}"[:300]
        logs.warn_once(
            f"rule:{where}",
            "%s failed (%s); the docs are read without it. Please report it",
            where,
            error,
        )
        return fallback


@dataclass(frozen=True)
class Parts:
    """The files of a docs tree that are no page of their own, and the Go packages (whose page
    file gathers the package's other files when it is read)."""

    paths: frozenset[str]
    go: go_source.GoTree
    # Rust items re-exported: the paths docs.rs shows them at (rust_reexports.with_uses)
    rust: rust_reexports.Uses
    # TypeScript API pages read with other files' declarations (bases, referenced types)
    typescript: TsTree = TsTree({})
    # Version folders a package names itself (zod's `exports` `./v3`, `./v4`: versions.detect)
    versions: Mapping[str, str] = field(default_factory=dict)
    # Packages --api-source names outside the docs folder, and their API pages (api_sources.py)
    mounts: tuple[outside.Mount, ...] = ()
    api: outside.Outside = field(default_factory=lambda: outside.Outside({}, {}))

    def url_paths(self, paths: Iterable[str]) -> tuple[tuple[str, str | None], ...]:
        """The bundle's `source.paths` for the mounts some of `paths` (the pages) lie in."""
        used = {p.split("/", 1)[0] for p in paths}
        found = outside.url_paths([m for m in self.mounts if m.prefix in used])
        return tuple(sorted(found.items()))


# What a failed scan leaves: no TypeScript module a package's API, every `.go` file no page.
_NO_TYPESCRIPT = typescript_site.Scan({}, {}, TsTree({}))


def go_packages(docs_dir: Path, roots: Sequence[Path], paths: Sequence[str]) -> go_source.GoTree:
    """The Go packages among `paths` (go_source.scan); where the scan fails, none: every
    `.go` file is then no page (build and init alike)."""
    fallback = frozenset(p for p in paths if p.lower().endswith(".go"))
    return guarded(go_source.GoTree({}, fallback, {}), go_source.scan, docs_dir, roots, paths)


def typescript_code(
    docs_dir: Path,
    roots: Sequence[Path],
    listed: Sequence[str],
    warn: bool = True,
    scanned: typescript_site.Scan | None = None,
) -> set[str]:
    """The TypeScript and JavaScript files of `listed` no package's API (typescript_site's
    no_pages); where that fails, all of them (build and init alike)."""
    code = {
        p for p in listed if typescript_site.is_typescript(p) or typescript_site.is_javascript(p)
    }
    rule = typescript_site.no_pages
    return guarded(code, rule, docs_dir, roots, listed, warn=warn, scanned=scanned)


def parts(
    docs_dir: Path,
    roots: Sequence[Path],
    entries: Sequence[Entry],
    api_sources: Sequence[Path] = (),
) -> Parts:
    """What no page is among `entries` (the listing's files); `api_sources`: the folders
    `--api-source` names (a Go module outside the docs folder is read as one inside it)."""
    listed = [e.path for e in entries]
    # Each scan below hands on what it found; one that fails is left out with one warning
    # (guarded), its fallback the safe reading: no mounts, no package's code a page.
    mounts = guarded((), outside.mounts, docs_dir, api_sources, listed)
    # (a package holding the docs folder, named by --api-source, is read: no warning about it)
    out = no_pages(docs_dir, roots, listed, warn=not any(m.holds_docs for m in mounts))
    out |= demo_descriptions(docs_dir, listed)
    # TypeScript that no package's entry points export (a site's components, tests, examples).
    ts = guarded(_NO_TYPESCRIPT, typescript_site.scan, docs_dir, roots, listed)
    out |= typescript_code(docs_dir, roots, listed, scanned=ts)
    # A Go package is one page, its page file's; its other files are read with it (go_source.py).
    read = [e.path for e in entries if not (e.refusal or e.skip)]
    go = go_packages(docs_dir, roots, read)
    out |= go.not_pages
    # Packages --api-source names outside the docs folder: read as if it held them (Go modules
    # by go_source, crates and projects by api_sources.scan, with no_pages' rules).
    go = guarded(go, go_source.with_api_sources, go, roots, mounts)
    api = guarded(
        outside.Outside({}, {}),
        outside.scan,
        roots,
        mounts,
        lambda top, r, found: no_pages(top, r, found, warn=False),
    )
    rust = guarded({}, rust_reexports.table, docs_dir, roots, listed)
    versions = guarded({}, typescript_site.version_folders, docs_dir, roots, listed)
    return Parts(frozenset(out), go, rust, ts.tree, versions, mounts, api)


def no_pages(
    docs_dir: Path, roots: Sequence[Path], listed: Sequence[str], warn: bool = True
) -> set[str]:
    """The files of `listed` that a generator's or a package's rules read into other pages or
    as code, never as pages of their own: the one list the build (`parts`) and `docsmcp init`'s
    proposal both apply (TypeScript, Go and dumi's demos each take a step of their own there).
    `warn`: whether a rule may log what it left out (init's proposal says it otherwise)."""
    return included(docs_dir, roots, listed) | code_files(docs_dir, roots, listed, warn)


def demo_descriptions(docs_dir: Path, listed: Sequence[str]) -> set[str]:
    """dumi's demo descriptions among `listed` (`demo/basic.md` beside `demo/basic.tsx`): each
    is read with its demo into the pages that show it, no page of its own (build and init)."""
    return guarded(set(), dumi_demos.descriptions, docs_dir, listed)


def included(docs_dir: Path, roots: Sequence[Path], listed: Sequence[str]) -> set[str]:
    """Pages of a manual or a component that other pages include, no pages of their own."""
    # An Antora component's partials, examples and nav files, and AsciiDoc files other pages
    # include (without a title of their own) are no pages.
    out = guarded(set(), asciidoc_includes.no_pages, docs_dir, roots, listed)
    # A Texinfo manual's included files (its chapters, version.texi): read in the manual.
    out |= guarded(set(), texinfo_includes.no_pages, docs_dir, roots, listed)
    return out


def code_files(
    docs_dir: Path, roots: Sequence[Path], listed: Sequence[str], warn: bool = True
) -> set[str]:
    """The code of `listed` that no package reader makes a page of (tests, samples, private
    modules, sources no build file or Doxyfile names), and the files a crate's docs include;
    `init` never reads them, the build reads them as no pages."""
    # Rust files that are no library module, and the files modules include (rust_crate.py).
    out = guarded(set(), rust_crate.no_pages, docs_dir, roots, listed)
    # Java that is no documented main source of a Maven/Gradle project (java_project.py).
    out |= guarded(set(), java_project.no_pages, docs_dir, roots, listed, warn)
    # Kotlin that is no documented main source of a Gradle/Maven project (kotlin_project.py).
    out |= guarded(set(), kotlin_project.no_pages, docs_dir, roots, listed)
    # Python that is no public module of the docs folder's distribution (python_package.py).
    out |= guarded(set(), python_package.no_pages, docs_dir, roots, listed)
    # C/C++ headers a Doxyfile does not name are code (doxygen_project.py).
    out |= guarded(set(), doxygen_project.no_pages, docs_dir, roots, listed)
    # C# that no docfx.json or library `src/` project names is code (dotnet_project.py).
    out |= guarded(set(), dotnet_project.no_pages, docs_dir, roots, listed, warn)
    # Swift that is no library target's source; DocC extension files merged (swift_package.py).
    out |= guarded(set(), swift_package.no_pages, docs_dir, roots, listed)
    # PHP outside the source folders phpdoc.xml or composer.json's autoload names (php_package.py).
    out |= guarded(set(), php_package.no_pages, docs_dir, roots, listed)
    # Ruby that is no gem's library file (YARD's sources: ruby_gem.py).
    out |= guarded(set(), ruby_gem.no_pages, docs_dir, roots, listed)
    # Dart that is no public library of a package (lib/src/, tests, examples: dart_package.py).
    out |= guarded(set(), dart_package.no_pages, docs_dir, roots, listed)
    # GraphQL that holds no schema: a client's queries and fragments, tests (graphql_schema.py).
    out |= guarded(set(), graphql_schema.no_pages, docs_dir, roots, listed)
    # Haskell that is no exposed module of a cabal library (Haddock's: haskell_package.py).
    out |= guarded(set(), haskell_package.no_pages, docs_dir, roots, listed)
    # .proto outside the buf modules, or in third_party/, tests, examples (proto_project.py).
    out |= guarded(set(), proto_project.no_pages, docs_dir, roots, listed)
    # Perl that is no distribution's module, script or POD (t/, examples: perl_dist.py).
    out |= guarded(set(), perl_dist.no_pages, docs_dir, roots, listed)
    # Scala that is no published main source of an sbt, Mill or scala-cli build (scala_project.py).
    out |= guarded(set(), scala_project.no_pages, docs_dir, roots, listed)
    # Solidity outside the Foundry/Hardhat sources, or tests, scripts, lib/, mocks
    # (solidity_project.py).
    out |= guarded(set(), solidity_project.no_pages, docs_dir, roots, listed)
    # Files named like manual pages that are none (`sig/v1.5`, `test.1`), aliases (`.so`), and
    # pages built from a source read beside them (`rsync.1` of `rsync.1.md`: man_pages.py).
    out |= guarded(set(), man_pages.no_pages, docs_dir, roots, listed)
    return out


def after_reading(
    files: list[SourceFile],
    docs_dir: Path,
    roots: Sequence[Path],
    reread: Callable[[str], SourceFile | None],
    generated: autosummary_pages.Generated,
) -> list[SourceFile]:
    """Every page read, after the passes that need all of them, in path order. A pass that
    fails is left out with one warning (guarded)."""
    for rule, *args in (
        (router_pages.resolve, reread),  # (Next.js: pages shown from another's text)
        (ref_pages.resolve, reread),  # (TanStack: a framework's page shows another's)
        (dumi_tabs.resolve,),  # (a tab page is titled by its page)
    ):
        files = guarded(files, rule, files, *args)
    files = sorted(files, key=lambda f: f.path)  # (in path order from here)
    for rule, *args in (
        (link_titles.resolve,),  # (a link's text titles a page that has none)
        (sphinx_extlinks.resolve, docs_dir),  # (conf.py's extlinks, |version|)
        (autosummary_pages.with_links, generated.links),
        (hugo_params.resolve, docs_dir, roots),
        (hugo_terms.resolve, docs_dir, roots),  # (glossary terms, `heading`: Kubernetes)
        (doxygen_project.resolve, docs_dir, roots),  # (Doxygen: headers' settings, @ref)
        (swift_package.resolve, docs_dir, roots),  # (DocC: <doc:> links, extensions)
        (swift_extensions.resolve, docs_dir, roots),  # (DocC: a type over several files)
        (dokka_includes.resolve, docs_dir, roots),  # (Dokka: Module.md's module, packages)
        (kotlin_merge.resolve, docs_dir, roots),  # (Dokka: platform copies, overrides)
        (dotnet_merge.resolve, docs_dir, roots),  # (docfx: <inheritdoc/>, code regions)
        (dart_package.resolve, docs_dir, roots),  # (dartdoc: a library's exports)
        (php_inherit.resolve, docs_dir, roots),  # (phpDocumentor: inherited members)
        (haskell_package.resolve, docs_dir, roots),  # (Haddock: re-exported names)
        (scala_inherit.resolve, docs_dir, roots),  # (Scaladoc: inherited members, comments)
        (ruby_inherit.resolve, docs_dir, roots),  # (YARD: included and inherited methods)
        (solidity_inherit.resolve, docs_dir, roots),  # (docgen: inherited, @inheritdoc)
        (graphql_extend.resolve, docs_dir, roots),  # (GraphiQL: a type over several files)
        (mdn_api.resolve,),  # (MDN's reference pages: entries named by their titles)
    ):
        files = guarded(files, rule, files, *args)
    return files
