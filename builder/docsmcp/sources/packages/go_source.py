"""Go modules in the docs folder: which `.go` files are read, and each package as one page.

pkg.go.dev documents a Go module from its source: a page per package, from the doc comments
of all the package's files and the `Example*` functions of its tests (formats/source/godoc.py writes
that page). Here the build decides which files make which page:
- `.go` files are read only inside a Go module: under a folder holding a `go.mod` (the docs
  folder or one inside it; the nearest one gives the module path). A docs folder whose `.go`
  files are snippets, without a `go.mod`, reads none of them;
- a package is a folder of the module; what the go tool ignores is no package: folders named
  `testdata`, or starting with `_` or `.` (chi's `_examples/`, modules of their own included),
  and `vendor/` (other modules' code); `internal/` folders are left out too, as no user of the
  module can import them;
- the package's files are its `.go` files of the package name most of them declare (a
  `//go:build ignore` generator declaring `package main` in a library folder is not read);
  its `_test.go` files are read for their `Example*` functions only;
- the page is the package's file holding its package comment (`doc.go` by convention), else
  the file named for the package (`middleware.go`), else its first file by name: its path is
  the page's (`doc.go#Command.Execute`); the package's
  other files are no pages. The page's text is the package's files gathered (a header line
  naming the import path and the module's other package pages, for doc links, then each file
  after a marker line), so a change to any of them changes the page's parse-cache key; every
  line from another file maps to the page file's package clause, and the page, having a line
  map, is read on every build (known_files.py); its text is the one the scan read (`page`),
  not read again.

A module outside the docs folder named with `--api-source` (cobra's repository beside the docs
site built from its `site/content/`) is read the same way, as pkg.go.dev shows it
(`with_api_sources`): its pages lie in a folder named as the module's folder (`cobra/doc.go`),
which the docs folder does not hold (api_sources.mounts, which names every package so named);
a docs folder inside the module is not read again.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import posixpath
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.model.source import Manifest, Problem, SourceFile
from docsmcp.sources.formats.source.godoc_files import MARK
from docsmcp.sources.packages.api_sources import Mount
from docsmcp.sources.packages.project_files import marked_folder
from docsmcp.sources.settings import configure_file, read_page_text

log = logging.getLogger("docsmcp.sources.packages.go_source")

GO_MOD = "go.mod"
SKIPPED_FOLDERS = ("testdata", "vendor", "internal")
# Bytes of one package's files gathered, at most (the rest of its files are left out, with a
# warning): a generated SDK package of 40 MB would otherwise make one page of it all.
MAX_PACKAGE_BYTES = 24_000_000
_PACKAGE = re.compile(r"^package[ \t]+(\w+)", re.M)
_MODULE = re.compile(r"^module[ \t]+\"?([^\s\"]+)\"?", re.M)
_IGNORED = re.compile(r"^//go:build ignore\b|^// \+build ignore\b", re.M)


@dataclass(frozen=True)
class Package:
    import_path: str
    page: str  # the page file's path, relative to the docs folder
    files: tuple[str, ...]  # its files (the page's first), relative to the docs folder
    tests: tuple[str, ...]  # its `_test.go` files holding examples


@dataclass(frozen=True)
class GoTree:
    packages: dict[str, Package]  # page path -> package
    not_pages: frozenset[str]  # every other `.go` file of the listing
    texts: dict[str, str]  # the files read
    # page paths of the modules `--api-source` names outside the docs folder, in order
    outside: tuple[str, ...] = ()

    def page(self, path: str, manifest: Manifest | None) -> tuple[SourceFile, list[Problem]]:
        """The package page file `path` as load_file reads it, from the text the scan read."""
        return configure_file(path, self.texts[path], manifest)

    def gathered(self, source: SourceFile) -> SourceFile:
        """The page file `source` with its package's files as its body (the module's
        docstring): what formats/source/godoc.py converts."""
        package = self.packages[source.path]
        own = source.text.split("\n")
        clause = _package_line(source.text)
        lines = [f"{MARK}package {package.import_path}"]
        lines += [
            f"{MARK}local {p.import_path} {p.page}"
            for p in sorted(self.packages.values(), key=lambda p: p.import_path)
            if p is not package
        ]
        line_map = [clause] * len(lines)
        for path in package.files + package.tests:
            text = source.text if path == source.path else self.texts.get(path)
            if text is None:
                continue
            kind = "test" if path in package.tests else "file"
            lines.append(f"{MARK}{kind} {posixpath.basename(path)}")
            line_map.append(clause)
            body = text.replace("\0", "").split("\n")
            lines += body
            line_map += range(len(own)) if path == source.path else [clause] * len(body)
        return dataclasses.replace(source, body="\n".join(lines), line_map=tuple(line_map))


def _package_line(text: str) -> int:
    m = _PACKAGE.search(text)
    return text.count("\n", 0, m.start()) if m else 0


def _module_path(docs_dir: Path, folder: str, roots: Sequence[Path]) -> str | None:
    path = posixpath.join(folder, GO_MOD) if folder else GO_MOD
    text, problem = read_page_text(docs_dir, path, roots)
    m = _MODULE.search(text or "")
    if m is None:
        why = problem.message if problem else "it has no `module` line"
        log.warning("%s: %s; the Go files beside it are not read", path, why)
    return m.group(1) if m else None


def _has_doc(text: str) -> bool:
    """Whether the package clause has a comment directly above it (the package comment)."""
    m = _PACKAGE.search(text)
    if m is None:
        return False
    before = text[max(0, m.start() - 2000) : m.start()].split("\n")
    above = before[-2].rstrip() if len(before) > 1 else ""
    return above.startswith("//") and not above.startswith("//go:") or above.endswith("*/")


def scan(docs_dir: Path, roots: Sequence[Path], paths: Iterable[str]) -> GoTree:
    """The Go packages of the listing's `paths` (see the module's docstring)."""
    go_files = sorted(p for p in paths if p.lower().endswith(".go"))
    if not go_files:
        return GoTree({}, frozenset(), {})
    modules: dict[str, str | None] = {}  # folder -> its module folder, None outside one

    def module_of(folder: str) -> str | None:
        return marked_folder(docs_dir, folder, (GO_MOD,), modules)

    folders: dict[str, list[str]] = {}
    module_paths: dict[str, str | None] = {}
    for path in go_files:
        folder = posixpath.dirname(path)
        root = module_of(folder)
        if root is None:
            continue
        # (counted from the docs folder: a module inside `_examples/` is an example too)
        parts = folder.split("/") if folder else []
        if any(p in SKIPPED_FOLDERS or p.startswith(("_", ".")) for p in parts):
            continue
        if root not in module_paths:
            module_paths[root] = _module_path(docs_dir, root, roots)
        folders.setdefault(folder, []).append(path)
    packages: dict[str, Package] = {}
    texts: dict[str, str] = {}
    for folder, files in sorted(folders.items()):
        root = module_of(folder)
        module = module_paths.get(root or "") if root is not None else None
        if module is None:
            continue
        package = _package(docs_dir, roots, folder, files, texts)
        if package is None:
            continue
        inside = folder[len(root or "") :].strip("/")
        import_path = f"{module}/{inside}" if inside else module
        packages[package[0]] = Package(import_path, *package)
    pages = frozenset(packages)
    return GoTree(packages, frozenset(p for p in go_files if p not in pages), texts)


def _package(
    docs_dir: Path, roots: Sequence[Path], folder: str, files: list[str], texts: dict[str, str]
) -> tuple[str, tuple[str, ...], tuple[str, ...]] | None:
    """A folder's package: its page, files and test files with examples; None when none."""
    names: dict[str, str] = {}
    total = 0
    for path in files:
        text, problem = read_page_text(docs_dir, path, roots)
        if text is None:
            if problem is not None:
                log.warning("%s", problem)
            continue
        total += len(text)
        if total > MAX_PACKAGE_BYTES:
            log.warning("%s: the package's files pass %d bytes; left out", path, MAX_PACKAGE_BYTES)
            break
        m = _PACKAGE.search(text)
        if m is None or _IGNORED.search(text[: m.start()]):
            continue
        texts[path] = text
        names[path] = m.group(1)
    sources = [p for p in files if p in names and not p.endswith("_test.go")]
    counted = Counter(names[p] for p in sources)
    if not counted:
        return None
    package = counted.most_common(1)[0][0]
    own = [p for p in sources if names[p] == package]
    tests = tuple(
        p
        for p in files
        if p.endswith("_test.go")
        and p in names
        and "func Example" in texts[p]
        and names[p] in (package, package + "_test")
    )
    documented = [p for p in own if _has_doc(texts[p])]
    doc_go = [p for p in documented if posixpath.basename(p) == "doc.go"]
    named = [p for p in own if posixpath.basename(p) == f"{package}.go"]
    page = (doc_go or documented or named or own)[0]
    return page, (page, *(p for p in own if p != page)), tests


def with_api_sources(tree: GoTree, roots: Sequence[Path], mounts: Sequence[Mount]) -> GoTree:
    """`tree` with the Go modules (a `go.mod` at the top) of `mounts` (the folders
    `--api-source` names outside the docs folder, api_sources.mounts), each read as a module
    inside it is, its paths under the mount's folder (see the module's docstring)."""
    packages, texts, outside = dict(tree.packages), dict(tree.texts), list(tree.outside)
    for mount in mounts:
        if not (mount.root / GO_MOD).is_file():
            continue  # no module: nothing to read
        found = scan(mount.root, roots, _go_files(mount.root, mount.skip))
        if not found.packages:
            continue

        def moved(path: str, prefix: str = mount.prefix) -> str:
            return f"{prefix}/{path}"

        for page, package in sorted(found.packages.items()):
            packages[moved(page)] = Package(
                package.import_path,
                moved(package.page),
                tuple(map(moved, package.files)),
                tuple(map(moved, package.tests)),
            )
            outside.append(moved(page))
        texts.update((moved(path), text) for path, text in found.texts.items())
    if len(outside) == len(tree.outside):
        return tree
    return GoTree(packages, tree.not_pages, texts, tuple(outside))


def _go_files(top: Path, skip: Sequence[str]) -> list[str]:
    """The `.go` files under `top` (relative to it), without the folders no package is in
    (hidden, `_`, testdata, vendor, internal) nor `skip` (the docs folder, read as such, and
    the packages named apart inside it)."""
    out = []
    for here, folders, names in os.walk(top):
        rel = Path(here).relative_to(top).as_posix()
        rel = "" if rel == "." else rel
        folders[:] = sorted(
            f
            for f in folders
            if f not in SKIPPED_FOLDERS
            and not f.startswith(("_", "."))
            and posixpath.join(rel, f) not in skip
        )
        out += [posixpath.join(rel, n) for n in names if n.lower().endswith(".go")]
    return sorted(out)
