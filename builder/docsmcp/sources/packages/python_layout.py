"""Which import packages a Python distribution at the top of the docs folder holds, found as
its build backend finds them (python_package.py reads their modules as pages): an explicit
list (`[tool.setuptools] packages`/`py-modules`, `[tool.setuptools.packages.find]`
`where`/`include`/`exclude`, `package-dir`; `[tool.poetry] packages`; hatch's wheel
`packages`; flit's module; setup.cfg's `[options]` and `[options.packages.find]`; setup.py's
literal `packages=`, `package_dir=`, `py_modules=`), else the `src/` layout, else the flat
layout (top-level folders with an `__init__.py`, less setuptools' excluded names: tests,
docs, examples, scripts, benchmarks, ...). Nothing is imported or run; setup.py is read with
`ast` for literals only.

Namespace packages (PEP 420: a folder without `__init__.py`, `acme/widgets/__init__.py` under
a bare `acme/`) are packages where the configuration says so: `packages.find` with
`namespaces` (pyproject's default), setup.cfg's `find_namespace:`, setup.py's
`find_namespace_packages(...)`, a listed `acme.widgets`, hatch's `packages = ["src/acme"]`,
poetry's `include = "acme/widgets"`, flit's module `acme.widgets`, and the `src/` layout
(setuptools' discovery finds them there). Such a folder counts when a regular package lies
below it, so a data folder is never one.
"""

from __future__ import annotations

import ast
import configparser
import functools
import logging
import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.common.limits import MAX_FILE_BYTES
from docsmcp.sources.files import PYTHON_SUFFIXES, read_file_text
from docsmcp.sources.globs import glob_match

try:
    import tomllib
except ImportError:  # Python 3.10: the tables are found, their keys not (auto-discovery only)
    tomllib = None  # type: ignore[assignment]

log = logging.getLogger("docsmcp.sources.packages.python_layout")

PY_SUFFIX = PYTHON_SUFFIXES[0]
# setuptools' FlatLayoutPackageFinder.DEFAULT_EXCLUDE and friends: top-level folders that are
# no package of a flat layout.
_FLAT_EXCLUDED = frozenset(
    "ci bin debian doc docs documentation manpages news newsfragments changelog test tests "
    "unit_test unit_tests example examples scripts tools util utils python build dist venv env "
    "requirements tasks fabfile site_scons benchmark benchmarks bench exercise exercises "
    "htmlcov site-packages node_modules".split()
)


@dataclass(frozen=True)
class Distribution:
    """The import packages of the docs folder's distribution: top-level name -> its folder
    (or `x.py` file) relative to the docs folder."""

    packages: dict[str, str]


class Reader:
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
                found["namespaces"] = "namespace" in getattr(value.func, "id", "")
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
    reader = Reader(Path(docs_dir), roots)
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
    reader: Reader, tool: dict, poetry: dict | None, cfg: configparser.ConfigParser, setup: dict
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
            find["namespaces"] = value.startswith("find_namespace")
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
                # (a namespace package: matched by its own name or a package's below it)
                if find.get("namespaces") is not False and _namespace(reader, folder, top):
                    names = [top, *(f"{top}.{c}" for c in reader.folders(folder))]
                    if any(glob_match(p, n) for p in include for n in names) and not any(
                        glob_match(p, top) for p in exclude
                    ):
                        out.setdefault(top, folder)
                continue
            if any(glob_match(p, top) for p in include) and not any(
                glob_match(p, top) for p in exclude
            ):
                out.setdefault(top, folder)
    for package in listed:
        top, *below = package.split(".")
        where = package_dir.get(top) if isinstance(package_dir, dict) else None
        folder = where or posixpath.join(base, top) if base else where or top
        if reader.is_file(posixpath.join(folder, "__init__.py")):
            out.setdefault(top, posixpath.normpath(folder))
        elif below and reader.is_file(posixpath.join(folder, *below, "__init__.py")):
            out.setdefault(top, posixpath.normpath(folder))  # (`acme.widgets`, bare `acme/`)
    for module in modules:
        path = posixpath.join(base, module + PY_SUFFIX) if base else module + PY_SUFFIX
        if reader.is_file(path):
            out.setdefault(module, path)
    for entry in (poetry or {}).get("packages") or []:
        if isinstance(entry, dict) and isinstance(entry.get("include"), str):
            top, *below = entry["include"].strip("/").split("/")
            top = top.removesuffix(PY_SUFFIX)
            folder = posixpath.join(str(entry.get("from") or ""), entry["include"]).lstrip("/")
            if reader.is_file(posixpath.join(folder, "__init__.py")) or reader.is_file(folder):
                if below:  # (`acme/widgets`: the namespace package `acme` holds it)
                    folder = posixpath.join(str(entry.get("from") or ""), top).lstrip("/")
                out.setdefault(top, posixpath.normpath(folder))
    hatch = tool.get("hatch", {}) if isinstance(tool.get("hatch"), dict) else {}
    wheel = hatch.get("build", {}).get("targets", {}).get("wheel", {}) if hatch else {}
    for folder in _strings(wheel.get("packages") if isinstance(wheel, dict) else []):
        folder = posixpath.normpath(folder)
        top = posixpath.basename(folder)
        if reader.is_file(posixpath.join(folder, "__init__.py")) or _namespace(reader, folder, top):
            out.setdefault(top, folder)
    flit = tool.get("flit", {}) if isinstance(tool.get("flit"), dict) else {}
    module = flit.get("module", {}).get("name") if isinstance(flit.get("module"), dict) else None
    if isinstance(module, str):
        out.update(_named(reader, module))
    explicit = find is not None or listed or modules or (poetry or {}).get("packages")
    return out if out or explicit else None


def _named(reader: Reader, name: str) -> dict[str, str]:
    """The package named `name` (`-` read as `_`), at the top or under `src/`; a dotted
    name (flit's `acme.widgets`) is a package of the namespace package `acme`."""
    if "." in name and all(p.isidentifier() for p in name.split(".")):
        top, *below = name.split(".")
        for base in ("src", ""):
            folder = posixpath.join(base, top) if base else top
            if reader.is_file(posixpath.join(folder, *below, "__init__.py")) or reader.is_file(
                posixpath.join(folder, *below) + PY_SUFFIX
            ):
                return {top: folder}
    top = re.sub(r"[-.]+", "_", name).lower()
    for base in ("src", ""):
        folder = posixpath.join(base, top) if base else top
        if reader.is_file(posixpath.join(folder, "__init__.py")):
            return {top: folder}
        if reader.is_file(folder + PY_SUFFIX):
            return {top: folder + PY_SUFFIX}
    return {}


def _discovered(reader: Reader, name: str, tool: dict) -> dict[str, str]:
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
            # (a namespace package, PEP 420, only under `src/`: the flat layout's bare folders
            # are data as often)
            regular = reader.is_file(posixpath.join(folder, "__init__.py"))
            if regular or (base and _namespace(reader, folder, top)):
                out[top] = folder
        if out:
            return out
    return _named(reader, name) if name else {}


MAX_NAMESPACE_DEPTH = 3  # folders of a namespace package looked through for a package


def _namespace(reader: Reader, folder: str, name: str, depth: int = 0) -> bool:
    """Whether `folder` (no `__init__.py`) may be a namespace package: its name is one, no
    folder setuptools leaves out, and a regular package lies below it."""
    if depth > MAX_NAMESPACE_DEPTH or not name.isidentifier() or name in _FLAT_EXCLUDED:
        return False
    for child in reader.folders(folder):
        below = posixpath.join(folder, child)
        if not child.isidentifier() or child in _FLAT_EXCLUDED:
            continue
        if reader.is_file(posixpath.join(below, "__init__.py")):
            return True
        if _namespace(reader, below, child, depth + 1):
            return True
    return False


def is_namespace(reader: Reader, folder: str) -> bool:
    """Whether a folder of the namespace portion of a package (python_package's module names)
    may be passed without an `__init__.py`: a name, no folder setuptools leaves out."""
    name = posixpath.basename(folder)
    return name.isidentifier() and name not in _FLAT_EXCLUDED
