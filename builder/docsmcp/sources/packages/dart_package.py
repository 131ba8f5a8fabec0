"""A Dart package's layout, as dartdoc (pub.dev's API docs) reads it, for the dartdoc reader
(formats/source/dartdoc.py): which `.dart` files are pages and what each page shows.

- **A package** is a folder holding `pubspec.yaml` and `lib/`, none of whose folders (within
  the docs folder) reads as tests, examples, tools, benchmarks or fixtures (a monorepo's
  `pkgs/http_client_conformance_tests`, `example/`'s app).
- **Its public libraries are the pages**: the `.dart` files of `lib/` outside `lib/src/`
  that are no `part of` another file. Every other `.dart` file is code, no page: `lib/src/`
  (shown in the libraries that export it), `test/`, `example/`, `tool/`, `bin/`, and any
  `.dart` outside a package.
- **What a library shows** (`resolve`, after reading): its own declarations, its `part`
  files', and those of the files it `export`s, followed through their own exports
  (`src/x.dart`, `package:<this package>/src/x.dart`; a conditional export's first URI;
  another package's are left out), each appended after dartdoc.EXPORT with its `show`/`hide`;
  and the files defining the `{@template}`s its `{@macro}`s name (anywhere in the package's
  `lib/`), after dartdoc.TEMPLATES. Bounded: MAX_EXPORTED files a library, MAX_DEPTH hops.
"""

from __future__ import annotations

import dataclasses
import logging
import posixpath
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from docsmcp.model.source import SourceFile
from docsmcp.sources.files import DART_SUFFIXES
from docsmcp.sources.formats.source import dartdoc
from docsmcp.sources.formats.source.dart_parse import Export, parse
from docsmcp.sources.packages import dart_categories, dart_inherit
from docsmcp.sources.packages.project_files import read_project_file

log = logging.getLogger("docsmcp.sources.packages.dart_package")

DART_SUFFIX = DART_SUFFIXES[0]
PUBSPEC = "pubspec.yaml"
MAX_EXPORTED = 400  # files read into one library's page, at most
MAX_DEPTH = 8  # exports followed through exports, at most
_NOT_PACKAGE = re.compile(
    r"(?:^|[-_.])(?:tests?|examples?|samples?|benchmarks?|demos?|tools?|fixtures?|testing)"
    r"(?:$|[-_.])",
    re.I,
)
_NAME = re.compile(r"^name:\s*['\"]?([\w]+)", re.M)
_PART_OF = re.compile(r"^\s*part\s+of\b", re.M)
_MACRO = re.compile(r"\{@macro\s+([^\s}]+)\s*\}")
_TEMPLATE = re.compile(r"\{@template\s+([^\s}]+)\s*\}")


def package_of(path: str, packages: Iterable[str]) -> str | None:
    """The package folder ("" for the docs folder itself) whose `lib/` holds `path`."""
    best = None
    for folder in packages:
        prefix = f"{folder}/lib/" if folder else "lib/"
        if path.startswith(prefix) and (best is None or len(folder) > len(best)):
            best = folder
    return best


def packages(docs_dir: Path, listed: Iterable[str]) -> set[str]:
    """The package folders of the tree holding a `.dart` file of `listed` in their `lib/`."""
    out: set[str] = set()
    seen: set[str] = set()
    for path in listed:
        if not path.endswith(DART_SUFFIX) or "/lib/" not in "/" + path:
            continue
        parts = ("/" + path).split("/lib/")
        for k in range(len(parts) - 1):
            folder = "/lib/".join(parts[: k + 1]).strip("/")
            if folder in seen:
                continue
            seen.add(folder)
            if any(_NOT_PACKAGE.search(p) for p in folder.split("/") if p):
                continue
            if ((docs_dir / folder) if folder else docs_dir).joinpath(PUBSPEC).is_file():
                out.add(folder)
    return out


def libraries(
    docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]
) -> dict[str, str]:  # fmt: skip
    """The public libraries of the tree's packages: path -> package folder."""
    listed = list(listed)
    found = packages(docs_dir, listed)
    out: dict[str, str] = {}
    for path in listed:
        if not path.endswith(DART_SUFFIX):
            continue
        folder = package_of(path, found)
        if folder is None:
            continue
        below = path[len(f"{folder}/lib/") if folder else len("lib/") :]
        if below.startswith("src/"):
            continue
        text = read_project_file(docs_dir, roots, path) or ""
        if _PART_OF.search(_code_head(text)):
            continue  # (a part of another library: read in it)
        out[path] = folder
    return out


# pub.dev's Example tab: the first of these a package has (a markdown one is a page already)
_EXAMPLE_PAGES = ("example/example.md", "example/README.md", "example/readme.md")
_EXAMPLES = (
    "example/lib/main.dart",
    "example/main.dart",
    "example/lib/{name}.dart",
    "example/{name}.dart",
    "example/lib/{name}_example.dart",
    "example/{name}_example.dart",
    "example/lib/example.dart",
    "example/example.dart",
)


def examples(docs_dir: Path, listed: Iterable[str]) -> dict[str, str]:
    """The example file pub.dev shows of each package (without a markdown one): path ->
    package name."""
    listed = set(listed)
    out: dict[str, str] = {}
    for folder in sorted(packages(docs_dir, listed)):
        base = f"{folder}/" if folder else ""
        if any(base + m in listed for m in _EXAMPLE_PAGES):
            continue
        name = _package_name(docs_dir, folder)
        found = next((base + c.format(name=name) for c in _EXAMPLES
                      if base + c.format(name=name) in listed), None)  # fmt: skip
        if found is not None:
            out[found] = name
    return out


def _code_head(text: str) -> str:
    """The text before the first declaration-looking line (where directives are)."""
    return "\n".join(x for x in text.split("\n")[:400] if not x.lstrip().startswith("//"))


def no_pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The `.dart` files of `listed` that are no public library of a package."""
    listed = list(listed)
    if not any(p.endswith(DART_SUFFIX) for p in listed):
        return set()
    pages = set(libraries(docs_dir, roots, listed)) | set(examples(docs_dir, listed))
    return {p for p in listed if p.endswith(DART_SUFFIX) and p not in pages}


def _package_name(docs_dir: Path, folder: str) -> str:
    try:
        text = (
            ((docs_dir / folder) if folder else docs_dir)
            .joinpath(PUBSPEC)
            .read_text(encoding="utf-8", errors="replace")
        )
    except OSError:
        return posixpath.basename(folder)
    m = _NAME.search(text)
    return m.group(1) if m else posixpath.basename(folder)


def _target(uri: str, here: str, folder: str, package: str) -> str | None:
    """The tree path an export's URI names, None for another package's or the SDK's."""
    lib = f"{folder}/lib" if folder else "lib"
    if uri.startswith("package:"):
        name, _, rest = uri[len("package:") :].partition("/")
        return posixpath.join(lib, rest) if name == package and rest else None
    if ":" in uri or not uri.endswith(DART_SUFFIX):
        return None
    return posixpath.normpath(posixpath.join(posixpath.dirname(here), uri))


def resolve(files: list[SourceFile], docs_dir: Path, roots: Sequence[Path]) -> list[SourceFile]:
    """Each public library's page with the files it exports (and their templates) after it."""
    if not any(f.path.endswith(DART_SUFFIX) for f in files):
        return files
    pages = libraries(docs_dir, roots, [f.path for f in files])
    shown = examples(docs_dir, [f.path for f in files])
    if not pages and not shown:
        return files
    names: dict[str, str] = {}
    folders = {_package_name(docs_dir, p): p for p in sorted(set(pages.values()), reverse=True)}
    reexported: dict[str, list[str]] = {}  # (another package's library: the names it shows)
    templates: dict[str, dict[str, str]] = {}  # package folder -> template name -> file
    # package folder -> library page -> its files (path, text, show, hide): for categories
    shows: dict[str, dict[str, list[tuple[str, str, tuple[str, ...], tuple[str, ...]]]]] = {}
    out = []
    for f in files:
        folder = pages.get(f.path)
        if f.path in shown:  # (the example's code, as pub.dev's Example tab shows it)
            body = f.body if f.line_map else f.text
            own = f.line_map or tuple(range(body.count("\n") + 1))
            text = dartdoc.header_line("", shown[f.path], example=True) + "\n" + body
            out.append(dataclasses.replace(f, body=text, line_map=(own[0] if own else 0, *own)))
            continue
        if folder is None:
            out.append(f)
            continue
        package = names.setdefault(folder, _package_name(docs_dir, folder))
        body = f.body if f.line_map else f.text
        own = f.line_map or tuple(range(body.count("\n") + 1))
        appended, libs, others = _exported(
            docs_dir, roots, f.path, body, folder, package, set(pages)
        )
        shows.setdefault(folder, {})[f.path] = [(f.path, body, (), ())] + [
            (p, t, e.show, e.hide) for p, e, t in appended
        ]
        text = "\n".join(
            [dartdoc.header_line("", package), body]
            + [dartdoc.export_line(p, e.show, e.hide) + "\n" + t for p, e, t in appended]
            + [dartdoc.LIBRARY + posixpath.relpath(p, posixpath.dirname(f.path)) for p in libs]
            + [_reexport(docs_dir, roots, e, folders, reexported) for e in others]
        )
        wanted = set(_MACRO.findall(text)) - set(_TEMPLATE.findall(text))
        if wanted:
            if folder not in templates:
                templates[folder] = _templates(docs_dir, roots, folder)
            for path in sorted({templates[folder][w] for w in wanted if w in templates[folder]}):
                found = read_project_file(docs_dir, roots, path)
                if found is not None:
                    text += "\n" + dartdoc.TEMPLATES + path + "\n" + found
        total = text.count("\n") + 1
        line_map = (own[0] if own else 0, *own)
        line_map += (line_map[-1],) * (total - len(line_map))
        out.append(dataclasses.replace(f, body=text, line_map=line_map[:total]))
    out = dart_inherit.with_supers(out, shows, names)  # (supertypes other pages show)
    return _with_categories(out, docs_dir, shows)


def _with_categories(
    files: list[SourceFile],
    docs_dir: Path,
    shows: dict[str, dict[str, list[tuple[str, str, tuple[str, ...], tuple[str, ...]]]]],
) -> list[SourceFile]:
    """The category pages `dartdoc_options.yaml` names, with their lists of declarations."""
    wanted: dict[str, str] = {}  # markdown page -> category
    found: dict[str, list[dart_categories.Listed]] = {}
    for folder, libs in sorted(shows.items()):
        named = dart_categories.pages(docs_dir, folder)
        if not named:
            continue
        listed = dart_categories.members(libs)
        for category, page in named.items():
            if listed.get(category):
                wanted[page] = category
                found[page] = listed[category]
    if not wanted:
        return files
    out = []
    for f in files:
        if f.path not in wanted:
            out.append(f)
            continue
        body = f.body if f.line_map else f.text
        own = f.line_map or tuple(range(body.count("\n") + 1))
        text = body.rstrip("\n") + "\n" + dart_categories.lists(f.path, found[f.path]) + "\n"
        total = text.count("\n") + 1
        line_map = (tuple(own) + (own[-1] if own else 0,) * total)[:total]
        title = f.nav_title or wanted[f.path]  # (dartdoc titles the page by its category)
        out.append(dataclasses.replace(f, body=text, line_map=line_map, nav_title=title))
    return out


def _exported(
    docs_dir: Path,
    roots: Sequence[Path],
    path: str,
    body: str,
    folder: str,
    package: str,
    public: set[str],
) -> tuple[list[tuple[str, Export, str]], list[str], list[Export]]:
    """The files a library's page shows after its own text: its parts and its exports,
    followed through their exports, each once (the first route's `show`/`hide`); the
    other public libraries it exports (`public`: named, not copied, as their own pages show
    their declarations); and the other packages' libraries it exports (with the route's
    `show`/`hide`)."""
    out: list[tuple[str, Export, str]] = []
    libs: list[str] = []
    others: list[Export] = []
    seen = {path}
    todo: list[tuple[str, Export, int, str]] = []  # (path, combinators, depth, exporter)
    unit = parse(body)
    for part in unit.parts:
        todo.append((part, Export(part, (), ()), 0, path))
    for e in unit.exports:
        todo.append((e.uri, e, 0, path))
    while todo and len(out) < MAX_EXPORTED:
        uri, e, depth, here = todo.pop(0)
        target = _target(uri, here, folder, package)
        if target is None and uri.startswith("package:") and uri not in {x.uri for x in others}:
            others.append(Export(uri, e.show, e.hide))  # (another package's: named, not read)
        if target is None or target in seen:
            continue
        seen.add(target)
        if target in public:
            libs.append(target)
            continue
        text = read_project_file(docs_dir, roots, target)
        if text is None:
            log.info("%s: exported file %s not found", path, target)
            continue
        out.append((target, e, text))
        if depth + 1 >= MAX_DEPTH:
            continue
        inner = parse(text)
        for part in inner.parts:
            todo.append((part, e, depth + 1, target))
        for sub in inner.exports:
            show = (
                sub.show
                if not e.show
                else tuple(x for x in e.show if not sub.show or x in sub.show)
            )
            if e.show and not show:
                continue  # (nothing the outer `show` lets through)
            todo.append((sub.uri, Export(sub.uri, show, e.hide + sub.hide), depth + 1, target))
    return out, libs, others


def _reexport(
    docs_dir: Path,
    roots: Sequence[Path],
    e: Export,
    folders: dict[str, str],
    cache: dict[str, list[str]],
) -> str:
    """The line naming what another package's library `e` gives this one: the names its
    `show` lets through; for a package of the tree, the names that library shows (its own
    and its exports', `hide` applied), referring to that package's main library."""
    name, _, rest = e.uri[len("package:") :].partition("/")
    folder = folders.get(name)
    if folder is None or not rest:
        return dartdoc.reexport_line(name, e.uri, list(e.show), "")
    if e.uri not in cache:
        path = posixpath.join(f"{folder}/lib" if folder else "lib", rest)
        text = read_project_file(docs_dir, roots, path)
        found: list[str] = []
        if text is not None:
            appended, _, _ = _exported(docs_dir, roots, path, text, folder, name, set())
            for target_text, show, hide in [(text, (), ())] + [
                (t, x.show, x.hide) for _, x, t in appended
            ]:
                for d in parse(target_text).decls:
                    if dartdoc.shown(d) and (not show or d.name in show) and d.name not in hide:
                        found.append(d.name)
        cache[e.uri] = list(dict.fromkeys(found))
    shown = [n for n in cache[e.uri] if (not e.show or n in e.show) and n not in e.hide]
    return dartdoc.reexport_line(name, e.uri, shown, name)


def _templates(docs_dir: Path, roots: Sequence[Path], folder: str) -> dict[str, str]:
    """Template name -> the file of the package's `lib/` defining it."""
    lib = (docs_dir / folder / "lib") if folder else docs_dir / "lib"
    out: dict[str, str] = {}
    try:
        found = sorted(lib.rglob("*" + DART_SUFFIX))
    except OSError:
        return out
    for p in found[:5_000]:
        rel = p.relative_to(docs_dir).as_posix()
        text = read_project_file(docs_dir, roots, rel) or ""
        if "{@template" in text:
            for name in _TEMPLATE.findall(text):
                out.setdefault(name, rel)
    return out
