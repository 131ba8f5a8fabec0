"""A Python distribution in the docs folder: which `.py` files are its public modules, read as
the pages pdoc (or `help()`) shows of them (formats/source/pydoc.py writes each page).

Many Python libraries publish no API pages: their repository holds a README, perhaps a few
markdown pages, and the docstrings. A user who builds docsmcp on such a repository got no API at
all. So, strictly:
- only the docs folder itself is read as a distribution, when it holds one at its top: a
  `pyproject.toml` with a `[project]` (or `[tool.poetry]`) table, or a `setup.py` or
  `setup.cfg`. A site's `docs/` holding a `conf.py` and a few helper modules is none, and
  neither is `--api-source` (mkdocstrings and autodoc read it where pages name objects);
- its packages are found as its build backend finds them: an explicit list
  (`[tool.setuptools] packages`/`py-modules`, `[tool.setuptools.packages.find]`
  `where`/`include`/`exclude`, `package-dir`; `[tool.poetry] packages`; hatch's wheel
  `packages`; flit's module; setup.cfg's `[options]` and `[options.packages.find]`; setup.py's
  literal `packages=`, `package_dir=`, `py_modules=`), else the `src/` layout, else the flat
  layout (top-level folders with an `__init__.py`, less setuptools' excluded names: tests,
  docs, examples, scripts, benchmarks, ...);
- a module is a page when it is public: no part of its dotted name starts with `_` (but
  `__init__`), it is no test (`tests`, `test_x`, `x_test`, `conftest`), no example, no
  vendored code (`_vendor`, `vendor`, `third_party`), not `__main__` or `setup`;
- a package that a page of the tree already renders (a mkdocstrings `::: pkg…`, an autodoc,
  `automodule`, `module::` or `currentmodule::` directive naming it) has no module pages:
  that site's API pages stay the API, and nothing is shown twice.
Every other `.py` file is code, no page (`no_pages`). Nothing is imported or run; setup.py is
read with `ast` for literals only.

A page's module name is written over its text as a header line (`expand`, pydoc.HEADER),
with the objects it re-exports from private modules (`from ._client import Client` in
httpx's `__init__.py`, listed in `__all__`, whose module has no page) appended after a marker
line, so pdoc's package page, which shows them, is what the page shows.
"""

from __future__ import annotations

import ast
import configparser
import functools
import logging
import os
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.common.limits import MAX_FILE_BYTES
from docsmcp.sources.files import PYTHON_SUFFIXES, read_file_text
from docsmcp.sources.formats.source.apidoc import all_names, defs
from docsmcp.sources.formats.source.pydoc import HEADER, REEXPORT
from docsmcp.sources.globs import glob_match

try:
    import tomllib
except ImportError:  # Python 3.10: the tables are found, their keys not (auto-discovery only)
    tomllib = None  # type: ignore[assignment]

log = logging.getLogger("docsmcp.sources.packages.python_package")

PY_SUFFIX = PYTHON_SUFFIXES[0]
# setuptools' FlatLayoutPackageFinder.DEFAULT_EXCLUDE and friends: top-level folders that are
# no package of a flat layout.
_FLAT_EXCLUDED = frozenset(
    "ci bin debian doc docs documentation manpages news newsfragments changelog test tests "
    "unit_test unit_tests example examples scripts tools util utils python build dist venv env "
    "requirements tasks fabfile site_scons benchmark benchmarks bench exercise exercises "
    "htmlcov site-packages node_modules".split()
)
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


@dataclass(frozen=True)
class Distribution:
    """The import packages of the docs folder's distribution: top-level name -> its folder
    (or `x.py` file) relative to the docs folder."""

    packages: dict[str, str]


class _Reader:
    def __init__(self, docs_dir: Path, roots: Sequence[Path]) -> None:
        self.docs_dir = docs_dir
        self.roots = roots

    def text(self, path: str) -> str | None:
        return read_file_text(self.docs_dir, path, self.roots, MAX_FILE_BYTES)

    def is_file(self, path: str) -> bool:
        return os.path.isfile(os.path.join(self.docs_dir, path))

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(os.path.join(self.docs_dir, path)) if path else True

    def folders(self, path: str) -> list[str]:
        try:
            names = sorted(os.listdir(os.path.join(self.docs_dir, path)))
        except OSError:
            return []
        return [n for n in names if self.is_dir(posixpath.join(path, n))]


_TABLE = re.compile(r"^\[(project|tool\.poetry)\][ \t]*$", re.MULTILINE)
_NAME = re.compile(r'^name[ \t]*=[ \t]*"([^"\n]+)"', re.MULTILINE)


@functools.lru_cache(maxsize=8)
def _toml(text: str | None) -> dict:
    if not text:
        return {}
    if tomllib is None:
        tables = {m.group(1) for m in _TABLE.finditer(text)}
        name = _NAME.search(text)
        found = {"name": name.group(1)} if name else {}
        return {
            **({"project": found} if "project" in tables else {}),
            **({"tool": {"poetry": found}} if "tool.poetry" in tables else {}),
        }
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
        log.warning("pyproject.toml: not read (%s)", str(exc).split("\n")[0])
        return {}


def _cfg(text: str | None) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    if text:
        try:
            parser.read_string(text)
        except configparser.Error as exc:
            log.warning("setup.cfg: not read (%s)", str(exc).split("\n")[0])
    return parser


def _literal(node: ast.expr) -> object:
    """A literal's value, None when it is none (setup.py is never run)."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None


def _setup_py(text: str | None) -> dict[str, object]:
    """The literal keyword arguments of the `setup(...)` call of a setup.py (`packages`,
    `package_dir`, `py_modules`; `find_packages(...)` as {"find": its keywords})."""
    if not text:
        return {}
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    for node in ast.walk(tree):
        called = getattr(node, "func", None)
        if not isinstance(node, ast.Call) or "setup" not in (
            getattr(called, "id", None),
            getattr(called, "attr", None),
        ):
            continue
        out: dict[str, object] = {}
        for kw in node.keywords:
            if kw.arg not in ("packages", "package_dir", "py_modules"):
                continue
            value = kw.value
            if isinstance(value, ast.Call) and getattr(value.func, "id", "").startswith("find"):
                found = {k.arg: _literal(k.value) for k in value.keywords if k.arg}
                if value.args:
                    found["where"] = _literal(value.args[0])
                out[kw.arg] = {"find": {k: v for k, v in found.items() if v is not None}}
            elif (literal := _literal(value)) is not None:
                out[kw.arg] = literal
        return out
    return {}


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in re.split(r"[\n,]", value) if v.strip()]
    if isinstance(value, list | tuple):
        return [v for v in value if isinstance(v, str)]
    return []


def distribution(docs_dir: Path, roots: Sequence[Path]) -> Distribution | None:
    """The distribution at the top of the docs folder, or None (see the module docstring)."""
    reader = _Reader(Path(docs_dir), roots)
    pyproject = _toml(reader.text("pyproject.toml")) if reader.is_file("pyproject.toml") else {}
    has_cfg, has_py = reader.is_file("setup.cfg"), reader.is_file("setup.py")
    tool = pyproject.get("tool", {}) if isinstance(pyproject.get("tool"), dict) else {}
    project = pyproject.get("project") if isinstance(pyproject.get("project"), dict) else None
    poetry = tool.get("poetry") if isinstance(tool.get("poetry"), dict) else None
    if project is None and poetry is None and not has_py and not has_cfg:
        return None
    cfg = _cfg(reader.text("setup.cfg")) if has_cfg else _cfg(None)
    setup = _setup_py(reader.text("setup.py")) if has_py else {}
    name = str((project or {}).get("name") or (poetry or {}).get("name") or "")
    if not name and cfg.has_option("metadata", "name"):
        name = cfg.get("metadata", "name")
    packages = _explicit(reader, tool, poetry, cfg, setup)
    if packages is None:
        packages = _discovered(reader, name, tool)
    return Distribution(packages) if packages else None


def _explicit(
    reader: _Reader, tool: dict, poetry: dict | None, cfg: configparser.ConfigParser, setup: dict
) -> dict[str, str] | None:
    """Packages a configuration lists or finds explicitly, else None."""
    setuptools = tool.get("setuptools") if isinstance(tool.get("setuptools"), dict) else {}
    package_dir = setuptools.get("package-dir") or setup.get("package_dir") or {}
    if not package_dir and cfg.has_option("options", "package_dir"):
        raw = cfg.get("options", "package_dir").strip()
        pairs = [p.split("=", 1) for p in re.split(r"[\n]", raw) if "=" in p]
        package_dir = {k.strip(): v.strip() for k, v in pairs}
    base = package_dir.get("", "") if isinstance(package_dir, dict) else ""
    listed: list[str] = []
    find: dict | None = None
    raw = setuptools.get("packages")
    if isinstance(raw, dict):
        find = raw.get("find") if isinstance(raw.get("find"), dict) else {}
    elif raw is not None:
        listed = _strings(raw)
    elif "packages" in setup:
        found = setup["packages"]
        find = found["find"] if isinstance(found, dict) and "find" in found else None
        listed = [] if find is not None else _strings(found)
    elif cfg.has_option("options", "packages"):
        value = cfg.get("options", "packages").strip()
        if value.startswith("find"):
            find = (
                dict(cfg.items("options.packages.find"))
                if cfg.has_section("options.packages.find")
                else {}
            )
        else:
            listed = _strings(value)
    modules = _strings(setuptools.get("py-modules") or setup.get("py_modules") or [])
    if cfg.has_option("options", "py_modules"):
        modules += _strings(cfg.get("options", "py_modules"))
    out: dict[str, str] = {}
    if find is not None:
        where = _strings(find.get("where") or [base or "."])[0]
        include = _strings(find.get("include") or ["*"])
        exclude = _strings(find.get("exclude") or [])
        for top in reader.folders("" if where in (".", "") else where):
            folder = posixpath.normpath(posixpath.join(where, top))
            if not reader.is_file(posixpath.join(folder, "__init__.py")):
                continue
            if any(glob_match(p, top) for p in include) and not any(
                glob_match(p, top) for p in exclude
            ):
                out.setdefault(top, folder)
    for package in listed:
        top = package.split(".")[0]
        where = package_dir.get(top) if isinstance(package_dir, dict) else None
        folder = where or posixpath.join(base, top) if base else where or top
        if reader.is_file(posixpath.join(folder, "__init__.py")):
            out.setdefault(top, posixpath.normpath(folder))
    for module in modules:
        path = posixpath.join(base, module + PY_SUFFIX) if base else module + PY_SUFFIX
        if reader.is_file(path):
            out.setdefault(module, path)
    for entry in (poetry or {}).get("packages") or []:
        if isinstance(entry, dict) and isinstance(entry.get("include"), str):
            top = entry["include"].split("/")[0].removesuffix(PY_SUFFIX)
            folder = posixpath.join(str(entry.get("from") or ""), entry["include"]).lstrip("/")
            if reader.is_file(posixpath.join(folder, "__init__.py")) or reader.is_file(folder):
                out.setdefault(top, posixpath.normpath(folder))
    hatch = tool.get("hatch", {}) if isinstance(tool.get("hatch"), dict) else {}
    wheel = hatch.get("build", {}).get("targets", {}).get("wheel", {}) if hatch else {}
    for folder in _strings(wheel.get("packages") if isinstance(wheel, dict) else []):
        folder = posixpath.normpath(folder)
        if reader.is_file(posixpath.join(folder, "__init__.py")):
            out.setdefault(posixpath.basename(folder), folder)
    flit = tool.get("flit", {}) if isinstance(tool.get("flit"), dict) else {}
    module = flit.get("module", {}).get("name") if isinstance(flit.get("module"), dict) else None
    if isinstance(module, str):
        out.update(_named(reader, module))
    explicit = find is not None or listed or modules or (poetry or {}).get("packages")
    return out if out or explicit else None


def _named(reader: _Reader, name: str) -> dict[str, str]:
    """The package named `name` (`-` read as `_`), at the top or under `src/`."""
    top = re.sub(r"[-.]+", "_", name).lower()
    for base in ("src", ""):
        folder = posixpath.join(base, top) if base else top
        if reader.is_file(posixpath.join(folder, "__init__.py")):
            return {top: folder}
        if reader.is_file(folder + PY_SUFFIX):
            return {top: folder + PY_SUFFIX}
    return {}


def _discovered(reader: _Reader, name: str, tool: dict) -> dict[str, str]:
    """setuptools' automatic discovery: the `src/` layout, else the flat layout; a hatch,
    poetry or flit project's package named after it."""
    out: dict[str, str] = {}
    for base in ("src", ""):
        if base and not reader.is_dir(base):
            continue
        for top in reader.folders(base):
            folder = posixpath.join(base, top) if base else top
            if not top.isidentifier() or top.startswith(("_", ".")) or top in _FLAT_EXCLUDED:
                continue
            if reader.is_file(posixpath.join(folder, "__init__.py")):
                out[top] = folder
        if out:
            return out
    return _named(reader, name) if name else {}


def rendered(reader: _Reader, pages: Iterable[str]) -> set[str]:
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
    reader = _Reader(Path(docs_dir), roots)
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


def _dotted(path: str, top: str, where: str, reader: _Reader) -> str | None:
    """The module name of `path` inside package `top` at `where`, or None when it is not one
    (a folder between them without `__init__.py` is no package)."""
    if where.endswith(PY_SUFFIX):
        return top if path == where else None
    if not path.startswith(where + "/"):
        return None
    rest = path[len(where) + 1 : -len(PY_SUFFIX)].split("/")
    folder = where
    for part in rest[:-1]:
        folder = posixpath.join(folder, part)
        if not part.isidentifier() or not reader.is_file(posixpath.join(folder, "__init__.py")):
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
    reader = _Reader(Path(docs_dir), roots)
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


def _published(reader: _Reader, path: str, dotted: str) -> dict[str, str]:
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
        listed = all_names(tree)
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


@functools.lru_cache(maxsize=32)
def _parsed_text(text: str) -> ast.Module | None:
    """`text` parsed, once per build for each package's `__init__.py` (every module of the
    package looks at its ancestors'); None when it is not Python. Never mutated."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _reexported(reader: _Reader, path: str, dotted: str, body: str) -> list[tuple[str, int, str]]:
    """(module, 0-based line of the import, source) of each class or function a package's
    `__init__.py` imports from one of its private modules and lists in `__all__` (all its
    public imported names when it has no `__all__`)."""
    try:
        tree = ast.parse(body)
    except (SyntaxError, ValueError, RecursionError):
        return []
    listed = all_names(tree)
    folder = posixpath.dirname(path)
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


def _parsed(reader: _Reader, target: str) -> tuple[str, ast.Module] | None:
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
