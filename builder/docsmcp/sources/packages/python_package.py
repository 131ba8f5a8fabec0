"""A Python distribution in the docs folder: which `.py` files are its public modules, read as
the pages pdoc (or `help()`) shows of them (formats/source/pydoc.py writes each page).

Many Python libraries publish no API pages: their repository holds a README, perhaps a few
markdown pages, and the docstrings. A user who builds docsmcp on such a repository got no API at
all. So, strictly:
- only the docs folder itself is read as a distribution, when it holds one at its top: a
  `pyproject.toml` with a `[project]` (or `[tool.poetry]`) table, or a `setup.py` or
  `setup.cfg`. A site's `docs/` holding a `conf.py` and a few helper modules is none, and
  neither is `--api-source` (mkdocstrings and autodoc read it where pages name objects);
- its packages are found as its build backend finds them (python_layout.py);
- a module is a page when it is public: no part of its dotted name starts with `_` (but
  `__init__`), it is no test (`tests`, `test_x`, `x_test`, `conftest`), no example, no
  vendored code (`_vendor`, `vendor`, `third_party`), not `__main__` or `setup`;
- a package that a page of the tree already renders (a mkdocstrings `::: pkg…`, an autodoc,
  `automodule`, `module::` or `currentmodule::` directive naming it) has no module pages:
  that site's API pages stay the API, and nothing is shown twice.
Every other `.py` file is code, no page (`no_pages`). Nothing is imported or run.

A page's module name is written over its text as a header line (`expand`, pydoc.HEADER),
with the objects it re-exports from private modules (`from ._client import Client` in
httpx's `__init__.py`, listed in `__all__`, whose module has no page) appended after a marker
line, so pdoc's package page, which shows them, is what the page shows.
"""

from __future__ import annotations

import ast
import functools
import logging
import posixpath
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.sources.files import PYTHON_SUFFIXES
from docsmcp.sources.formats.source.apidoc import all_names, defs
from docsmcp.sources.formats.source.pydoc import HEADER, REEXPORT
from docsmcp.sources.packages.python_layout import Reader, distribution, is_namespace

log = logging.getLogger("docsmcp.sources.packages.python_package")

PY_SUFFIX = PYTHON_SUFFIXES[0]
_NOT_PUBLIC = frozenset(
    "test tests testing conftest example examples vendor vendored third_party externals "
    "__main__ setup benchmarks benchmark".split()
)
# Directives of a page that render a package's objects (mkdocstrings, autodoc, Sphinx' module).
_RENDERS = re.compile(
    r"^(?::::[ \t]+|[ \t]*\.\.[ \t]+(?:py:)?(?:auto\w+|module|currentmodule)::[ \t]+)"
    r"([A-Za-z_]\w*)",
    re.MULTILINE,
)
_PAGE_SUFFIXES = (".md", ".mdx", ".markdown", ".rst", ".txt", ".qmd")
MAX_REEXPORTED = 200  # objects a package page shows from its private modules, at most


def rendered(reader: Reader, pages: Iterable[str]) -> set[str]:
    """Top-level package names that some page's directive renders (see the module docstring)."""
    out: set[str] = set()
    for path in pages:
        if not path.lower().endswith(_PAGE_SUFFIXES):
            continue
        text = reader.text(path) or ""
        if ":::" in text or ".. " in text:
            out.update(m.group(1) for m in _RENDERS.finditer(text))
    return out


def _public(parts: Sequence[str]) -> bool:
    for part in parts:
        if part.startswith("_") and part != "__init__":
            return False
        if part in _NOT_PUBLIC or part.startswith("test_") or part.endswith(("_test", "_tests")):
            return False
    return True


@dataclass(frozen=True)
class Modules:
    """The docs folder's public modules: page path -> dotted name; and the private ones
    (path -> dotted name) whose objects a public package may re-export."""

    pages: dict[str, str]
    private: dict[str, str]


def modules(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> Modules:
    """The modules of the distribution at the top of `docs_dir` among the `listed` paths."""
    paths = sorted(set(listed))
    python = [p for p in paths if p.endswith(PY_SUFFIX)]
    if not python:
        return Modules({}, {})
    found = distribution(Path(docs_dir), roots)
    if found is None:
        return Modules({}, {})
    reader = Reader(Path(docs_dir), roots)
    done = rendered(reader, paths)
    pages: dict[str, str] = {}
    private: dict[str, str] = {}
    for top, where in sorted(found.packages.items()):
        if top in done:
            log.info("%s: a page renders it (mkdocstrings or autodoc); no module pages", top)
            continue
        for path in python:
            dotted = _dotted(path, top, where, reader)
            if dotted is None:
                continue
            parts = dotted.split(".")
            (pages if _public(parts[1:]) and _public(parts[:1]) else private)[path] = dotted
    return Modules(pages, private)


def _dotted(path: str, top: str, where: str, reader: Reader) -> str | None:
    """The module name of `path` inside package `top` at `where`, or None when it is not one
    (a folder between them without `__init__.py` is no package)."""
    if where.endswith(PY_SUFFIX):
        return top if path == where else None
    if not path.startswith(where + "/"):
        return None
    rest = path[len(where) + 1 : -len(PY_SUFFIX)].split("/")
    folder = where
    # (a namespace package, PEP 420: its folders hold no `__init__.py` down to a regular one)
    namespace = not reader.is_file(posixpath.join(where, "__init__.py"))
    for part in rest[:-1]:
        folder = posixpath.join(folder, part)
        if not part.isidentifier():
            return None
        if reader.is_file(posixpath.join(folder, "__init__.py")):
            namespace = False
        elif not (namespace and is_namespace(reader, folder)):
            return None
    if not rest[-1].isidentifier():
        return None
    names = [top, *rest[:-1]] + ([] if rest[-1] == "__init__" else [rest[-1]])
    return ".".join(names)


def no_pages(docs_dir: Path, roots: Sequence[Path], paths: Iterable[str]) -> set[str]:
    """The `.py` files of `paths` that are no page: all but the public modules."""
    listed = list(paths)
    python = {p for p in listed if p.endswith(PY_SUFFIX)}
    if not python:
        return set()
    return python - set(modules(docs_dir, roots, listed).pages)


def expand(
    docs_dir: Path, path: str, body: str, roots: Sequence[Path]
) -> tuple[str, tuple[int, ...], str | None]:
    """The module file `body` with its header line and the objects it re-exports from
    private modules appended (see the module docstring), the original line of each line (()
    when unchanged) and no warning; unchanged when it is no module. (inclusion/includes.py
    makes the `Expanded`.)"""
    reader = Reader(Path(docs_dir), roots)
    found = distribution(Path(docs_dir), roots)
    dotted = None
    for top, where in sorted((found.packages if found else {}).items()):
        dotted = _dotted(path, top, where, reader)
        if dotted is not None:
            break
    if dotted is None:
        return body, (), None
    public = _published(reader, path, dotted)
    names = ",".join(f"{name}:{where}" for name, where in sorted(public.items()))
    lines = [f"{HEADER}module={dotted}" + (f" public={names}" if names else ""), *body.split("\n")]
    line_map = [0, *range(len(lines) - 1)]
    if path.endswith("/__init__.py") or path == "__init__.py":
        for origin, line, source in _reexported(reader, path, dotted, body):
            lines.append(f"{REEXPORT}{origin}")
            line_map.append(line)
            block = source.split("\n")
            lines += block
            line_map += [line] * len(block)
    return "\n".join(lines), tuple(line_map), None


def _published(reader: Reader, path: str, dotted: str) -> dict[str, str]:
    """name -> the package that publishes it, for the module's objects an ancestor package's
    `__init__.py` imports under their own name (`from .std import tqdm` in tqdm's:
    `tqdm.tqdm`; `from fire.core import Fire`: `fire.Fire`), the highest ancestor first, only
    names in its `__all__` when it has one. What users call them by."""
    parts = dotted.split(".")
    folders = path.split("/")[:-1]
    if path.endswith("/__init__.py"):
        parts, folders = parts, folders[:-1]  # (a package: its ancestors are above it)
    out: dict[str, str] = {}
    depth = len(parts) - 1  # ancestors: parts[:1] … parts[:depth]
    for k in range(1, depth + 1):
        package = ".".join(parts[:k])
        init = "/".join(folders[: len(folders) - (depth - k)] + ["__init__.py"])
        text = reader.text(init) if reader.is_file(init) else None
        tree = _parsed_text(text) if text else None
        if tree is None:
            continue
        listed = all_names(tree, _sibling_names(reader, posixpath.dirname(init)))
        for node in tree.body:
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            if source != dotted:
                continue
            for alias in node.names:
                name = alias.name
                if alias.asname not in (None, name) or name.startswith("_"):
                    continue
                if listed is None or name in listed:
                    out.setdefault(name, package)
    return out


def _sibling_names(reader: Reader, folder: str) -> Callable[[str], set[str] | None]:
    """For `__all__ = [...] + std.__all__` in the package at `folder`: the static `__all__`
    of its module `std` (one level: that module's own `other.__all__` parts are not read)."""

    def names(module: str) -> set[str] | None:
        parts = module.split(".")
        if not all(p.isidentifier() for p in parts):
            return None
        for candidate in (posixpath.join(folder, parts[-1]) + PY_SUFFIX,
                          posixpath.join(folder, parts[-1], "__init__.py")):  # fmt: skip
            text = reader.text(candidate) if reader.is_file(candidate) else None
            tree = _parsed_text(text) if text else None
            if tree is not None:
                return all_names(tree)
        return None

    return names


@functools.lru_cache(maxsize=32)
def _parsed_text(text: str) -> ast.Module | None:
    """`text` parsed, once per build for each package's `__init__.py` (every module of the
    package looks at its ancestors'); None when it is not Python. Never mutated."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _reexported(reader: Reader, path: str, dotted: str, body: str) -> list[tuple[str, int, str]]:
    """(module, 0-based line of the import, source) of each class or function a package's
    `__init__.py` imports from one of its private modules and lists in `__all__` (all its
    public imported names when it has no `__all__`)."""
    try:
        tree = ast.parse(body)
    except (SyntaxError, ValueError, RecursionError):
        return []
    folder = posixpath.dirname(path)
    listed = all_names(tree, _sibling_names(reader, folder))
    out: list[tuple[str, int, str]] = []
    cache: dict[str, tuple[str, ast.Module] | None] = {}
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or node.level != 1 or not node.module:
            continue
        parts = node.module.split(".")
        if not any(p.startswith("_") for p in parts):
            continue  # (a public module has its own page)
        target = posixpath.join(folder, *parts)
        if target not in cache:
            cache[target] = _parsed(reader, target)
        module = cache[target]
        if module is None:
            continue
        text, parsed = module
        by_name = {d.name: d for d in defs(parsed)}
        for alias in node.names:
            shown = alias.asname or alias.name
            wanted = shown in listed if listed is not None else not shown.startswith("_")
            definition = by_name.get(alias.name)
            if not wanted or definition is None or alias.asname:
                continue
            source = _segment(text, definition)
            if source:
                out.append((f"{dotted}.{node.module}", node.lineno - 1, source))
            if len(out) >= MAX_REEXPORTED:
                return out
    return out


def _parsed(reader: Reader, target: str) -> tuple[str, ast.Module] | None:
    for candidate in (target + PY_SUFFIX, posixpath.join(target, "__init__.py")):
        text = reader.text(candidate) if reader.is_file(candidate) else None
        if text is None:
            continue
        try:
            return text, ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            return None
    return None


def _segment(text: str, node: ast.AST) -> str:
    """The source of a top-level definition with its decorators, dedented."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    end = getattr(node, "end_lineno", None) or first
    lines = text.split("\n")[first - 1 : end]
    if not lines:
        return ""
    indent = len(lines[0]) - len(lines[0].lstrip())
    return "\n".join(x[indent:] if x[:indent].isspace() or not x[:indent] else x for x in lines)
