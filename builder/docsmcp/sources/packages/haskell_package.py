"""A Haskell package's layout, as Haddock (Hackage's docs) reads it, for the Haddock reader
(formats/source/haddock.py): which `.hs`/`.lhs` files are pages and what each page is given.

- **A package** is a folder holding a `*.cabal` file (or hpack's `package.yaml`), none of
  whose folders reads as tests, examples or benchmarks. Its library is the `library` stanza
  (a named one only with `visibility: public`), with what its `import:`ed `common` stanzas
  and `if` blocks add: `hs-source-dirs` (`.` by default) and `exposed-modules`;
  `other-modules` are its hidden modules. hpack: `library`'s (and the top level's)
  `source-dirs`, `exposed-modules` (all modules of the source folders less `other-modules`
  when it names none).
- **Its pages** are the exposed modules' files (`Data/Aeson.hs` of `Data.Aeson` in a source
  folder). Every other `.hs`/`.lhs` file is code, no page: other-modules, test suites,
  benchmarks, executables, `Setup.hs`, and Haskell outside any package. A module with
  `{-# OPTIONS_HADDOCK hide #-}` converts to no text (haddock.py).
- **What a page is given** (`resolve`, after reading): the package's modules it imports,
  followed through their imports (MAX_DEPTH hops, MAX_MODULES modules), each after a
  haddock.MODULE line saying whether it is a page and its names' home (not `not-home`), so
  the page can list a re-exported name as Haddock does.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.model.source import SourceFile
from docsmcp.sources.files import HASKELL_SUFFIXES
from docsmcp.sources.formats.source import haddock
from docsmcp.sources.packages.project_files import folders_above, nearest_folder, read_project_file

MAX_PACKAGES = 200
MAX_DEPTH = 4  # imports followed through imports, at most
MAX_MODULES = 80  # modules given to one page, at most
_NOT_PACKAGE = re.compile(
    r"^(?:tests?|examples?|samples?|benchmarks?|bench|fixtures?|testdata)$", re.I
)
_STANZA = re.compile(r"^([A-Za-z][\w-]*)(?:[ \t]+([^\s{]+))?[ \t]*\{?[ \t]*$")
_FIELD = re.compile(r"^([ \t]*)([A-Za-z][\w-]*)[ \t]*:(.*)$")
_IMPORT = re.compile(r"^import\s+(?:safe\s+)?(?:qualified\s+)?([A-Z][\w'.]*)", re.M)
_HIDE = re.compile(r"OPTIONS_HADDOCK[^#]*\b(hide|not-home)\b")


@dataclass(frozen=True)
class Package:
    folder: str  # relative to the docs dir, "" for the docs dir itself
    dirs: tuple[str, ...]  # the library's source folders, relative to the folder
    exposed: frozenset[str]  # module names; empty with `every`: all but `hidden`
    hidden: frozenset[str]
    every: bool = False  # hpack without exposed-modules


def _stanzas(text: str) -> list[tuple[str, str, dict[str, list[str]]]]:
    """A .cabal file's top-level stanzas: (kind, name, field -> its values' words), fields
    of `if`/`else` blocks included; the fields before any stanza are kind "" (the package's)."""
    out: list[tuple[str, str, dict[str, list[str]]]] = [("", "", {})]
    current: list[str] | None = None
    for raw in text.split("\n"):
        if raw.lstrip().startswith("--") or not raw.strip():
            continue
        if not raw[0].isspace():
            m = _FIELD.match(raw)
            s = _STANZA.match(raw.strip())
            if m and not (s and ":" not in raw):
                current = out[-1][2].setdefault(m.group(2).lower(), [])
                current += m.group(3).replace(",", " ").split()
                continue
            if s:
                out.append((s.group(1).lower(), (s.group(2) or "").lower(), {}))
                current = None
                continue
        m = _FIELD.match(raw)
        if m:
            current = out[-1][2].setdefault(m.group(2).lower(), [])
            current += m.group(3).replace(",", " ").split()
        elif current is not None and not raw.strip().startswith(("if ", "else", "elif ")):
            current += raw.replace(",", " ").split()
    return out


def _cabal(text: str, folder: str) -> Package | None:
    stanzas = _stanzas(text)
    commons = {name: fields for kind, name, fields in stanzas if kind == "common"}
    dirs: list[str] = []
    exposed: set[str] = set()
    hidden: set[str] = set()
    found = False
    for kind, name, fields in stanzas:
        if kind != "library":
            continue
        if name and "public" not in [v.lower() for v in fields.get("visibility", [])]:
            continue
        found = True
        merged = [fields] + [
            commons[i.lower()] for i in fields.get("import", []) if i.lower() in commons
        ]
        for f in merged:
            dirs += f.get("hs-source-dirs", []) + f.get("hs-source-dir", [])
            exposed.update(f.get("exposed-modules", []))
            hidden.update(f.get("other-modules", []))
    if not found:
        return None
    dirs = [d.strip("\"'").rstrip("/").removeprefix("./") for d in dirs] or ["."]
    return Package(folder, tuple(dict.fromkeys(d or "." for d in dirs)), frozenset(exposed),
                   frozenset(hidden))  # fmt: skip


def _hpack(text: str, folder: str) -> Package | None:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("library"), dict):
        return None
    lib = data["library"]

    def words(value: object) -> list[str]:
        if isinstance(value, str):
            return [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    dirs = words(data.get("source-dirs")) + words(lib.get("source-dirs")) or ["."]
    exposed = frozenset(words(lib.get("exposed-modules")))
    hidden = frozenset(words(lib.get("other-modules")))
    dirs = [d.rstrip("/").removeprefix("./") or "." for d in dirs]
    return Package(folder, tuple(dict.fromkeys(dirs)), exposed, hidden, every=not exposed)


def packages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> dict[str, Package]:
    """The packages of the tree holding a Haskell file of `listed`, by folder."""
    out: dict[str, Package] = {}
    for folder in folders_above(p for p in listed if p.endswith(HASKELL_SUFFIXES)):
        if len(out) >= MAX_PACKAGES:
            break
        if any(_NOT_PACKAGE.match(p) for p in folder.split("/") if p):
            continue
        base = docs_dir / folder if folder else docs_dir
        prefix = folder + "/" if folder else ""
        try:
            cabals = sorted(p.name for p in base.glob("*.cabal") if p.is_file())
        except OSError:
            cabals = []
        package = None
        if cabals:
            package = _cabal(read_project_file(docs_dir, roots, prefix + cabals[0]) or "", folder)
        elif (base / "package.yaml").is_file():
            package = _hpack(
                read_project_file(docs_dir, roots, prefix + "package.yaml") or "", folder
            )
        if package is not None:
            out[folder] = package
    return out


def module_of(path: str, package: Package) -> str | None:
    """The module name `path` holds in `package`'s source folders, if it lies in one."""
    inner = path[len(package.folder) + 1 :] if package.folder else path
    for d in package.dirs:
        below = inner if d == "." else (inner[len(d) + 1 :] if inner.startswith(d + "/") else "")
        if not below:
            continue
        stem = below.rsplit(".", 1)[0]
        parts = stem.split("/")
        if all(p[:1].isupper() and p.replace("_", "").replace("'", "").isalnum() for p in parts):
            return ".".join(parts)
    return None


def is_exposed(module: str, package: Package) -> bool:
    if package.every:
        return module not in package.hidden and not module.startswith("Paths_")
    return module in package.exposed


def pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> dict[str, Package]:
    """The Haskell files of `listed` that are exposed modules: path -> package."""
    listed = list(listed)
    found = packages(docs_dir, roots, listed)
    out: dict[str, Package] = {}
    for p in listed:
        if not p.endswith(HASKELL_SUFFIXES):
            continue
        at = nearest_folder(p, found)
        if at is None:
            continue
        package = found[at]
        module = module_of(p, package)
        if module is not None and is_exposed(module, package):
            out[p] = package
    return out


def no_pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The Haskell files of `listed` that are no page: all but the exposed modules."""
    listed = list(listed)
    haskell = {p for p in listed if p.endswith(HASKELL_SUFFIXES)}
    if not haskell:
        return set()
    return haskell - set(pages(docs_dir, roots, listed))


def _modules(docs_dir: Path, package: Package) -> dict[str, str]:
    """Every module file of the package's source folders: module -> path."""
    out: dict[str, str] = {}
    base = docs_dir / package.folder if package.folder else docs_dir
    prefix = package.folder + "/" if package.folder else ""
    for d in package.dirs:
        root = base if d == "." else base / d
        try:
            found = sorted(p for p in root.rglob("*") if p.suffix in HASKELL_SUFFIXES)
        except OSError:
            continue
        for p in found[:5_000]:
            rel = prefix + p.relative_to(base).as_posix()
            module = module_of(rel, package)
            if module is not None:
                out.setdefault(module, rel)
    return out


def resolve(files: list[SourceFile], docs_dir: Path, roots: Sequence[Path]) -> list[SourceFile]:
    """Each module page with the package's modules it imports after its text."""
    if not any(f.path.endswith(HASKELL_SUFFIXES) for f in files):
        return files
    found = pages(docs_dir, roots, [f.path for f in files])
    if not found:
        return files
    tables: dict[str, dict[str, str]] = {}
    texts: dict[str, str | None] = {}

    def read(path: str) -> str | None:
        if path not in texts:
            texts[path] = read_project_file(docs_dir, roots, path)
        return texts[path]

    out = []
    for f in files:
        package = found.get(f.path)
        if package is None:
            out.append(f)
            continue
        if package.folder not in tables:
            tables[package.folder] = _modules(docs_dir, package)
        table = tables[package.folder]
        body = f.body if f.line_map else f.text
        own = f.line_map or tuple(range(body.count("\n") + 1))
        added = _given(body, f.path, table, read)
        if not added:
            out.append(f)
            continue
        parts = [body]
        for module, path, text in added:
            hide = _HIDE.findall(text[:4000])
            page = is_exposed(module, package) and "hide" not in hide
            parts.append(haddock.module_line(module, path, page, page and "not-home" not in hide))
            parts.append(text)
        text = "\n".join(parts)
        total = text.count("\n") + 1
        line_map = tuple(own) + (own[-1] if own else 0,) * (total - len(own))
        out.append(dataclasses.replace(f, body=text, line_map=line_map[:total]))
    return out


def _given(body: str, path: str, table: dict[str, str], read) -> list[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    """The package's modules a page imports, through their imports: (module, path, text)."""
    out: list[tuple[str, str, str]] = []
    seen = {path}
    todo = [(m, 1) for m in _IMPORT.findall(body)]
    while todo and len(out) < MAX_MODULES:
        module, depth = todo.pop(0)
        target = table.get(module)
        if target is None or target in seen:
            continue
        seen.add(target)
        text = read(target)
        if text is None:
            continue
        out.append((module, target, text))
        if depth < MAX_DEPTH:
            todo += [(m, depth + 1) for m in _IMPORT.findall(text)]
    return out
