"""A Swift package's layout, as SwiftPM (and so DocC) reads it, for the DocC readers
(formats/source/swiftdoc.py, formats/markdown/docc.py): which `.swift` files are pages, which
catalog files are added to a symbol's page, and the link table above each page.

- **Which `.swift` files are pages**: the sources of a library target, `Sources/<Target>/…` of a
  folder holding `Package.swift` (or `Package@swift-6.0.swift`), that folder inside the docs
  folder. Every other `.swift` file is code, no page: `Tests/`, `Examples/`, `Benchmarks/`,
  `Plugins/`, a target Package.swift declares as `.testTarget`, `.executableTarget`, `.macro` or
  `.plugin`, a target or package folder that reads as tests, examples, benchmarks or demos, and
  the code a catalog's tutorials show (`….docc/Resources/*.swift`).
- **Documentation extensions**: a catalog page titled by a symbol link
  (`# ``ArgumentParser/Option`` `) is DocC's addition to that symbol's page, not a page of its
  own: it is appended to the Swift page declaring the symbol (the target's file whose text
  declares its last name, a type declaration before an extension), after swiftdoc.EXTENSION.
  One naming the module itself (``` # ``ArgumentParser`` ```) is the module's landing page and
  stays a page, as does one whose symbol no page of the target declares.
- **Links**: a catalog's articles are named flat (`<doc:GettingStarted>`, whatever their
  folder); `resolve` writes above each catalog page and Swift page the table of the articles of
  its module (name -> relative link, title), which the converters read (docc.HEADER).
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.model.source import SourceFile
from docsmcp.sources.files import SWIFT_SUFFIXES
from docsmcp.sources.formats.markdown import docc
from docsmcp.sources.formats.source.swiftdoc import EXTENSION
from docsmcp.sources.packages.project_files import read_project_file

SWIFT_SUFFIX = SWIFT_SUFFIXES[0]
PACKAGE = "Package.swift"
_MANIFEST = re.compile(r"Package(?:@swift-[\d.]+)?\.swift")
_NOT_LIBRARY = re.compile(
    r"(?:^|[-_.])(?:tests?|examples?|samples?|benchmarks?|demos?|plugins?|fixtures?)(?:$|[-_.])",
    re.I,
)
_NOT_LIBRARY_TARGET = re.compile(
    r"\.(?:testTarget|executableTarget|macro|plugin)\(\s*name:\s*\"([^\"]+)\""
)
# A library product's targets: what DocC documents when the manifest names products.
_LIBRARY = re.compile(r"\.library\(\s*name:\s*\"[^\"]*\"[^\]]*?targets:\s*\[([^\]]*)\]")
_EXTENSION_TITLE = re.compile(r"^#\s+``([^`\n]+)``\s*$")
_MAX_FIRST_LINES = 40  # lines read for a catalog page's title


@dataclass(frozen=True)
class Plan:
    """The Swift pages of a tree and the documentation extensions merged into them."""

    pages: frozenset[str]
    # extension file -> the Swift page it is appended to
    merged: dict[str, str]
    modules: dict[str, str]  # catalog folder -> module name


def _split(path: str) -> tuple[str, str, str] | None:
    """(package folder, target, path below the target) of a file under `…/Sources/<Target>/`."""
    parts = path.split("/")
    for k in range(len(parts) - 2, -1, -1):
        if parts[k] == "Sources" and k + 2 < len(parts) + 1 and k + 1 < len(parts) - 1:
            return "/".join(parts[:k]), parts[k + 1], "/".join(parts[k + 2 :])
    return None


def _manifest(docs_dir: Path, folder: str) -> Path | None:
    base = docs_dir / folder if folder else docs_dir
    if (base / PACKAGE).is_file():
        return base / PACKAGE
    try:
        return next((p for p in sorted(base.glob("Package@swift-*.swift"))), None)
    except OSError:
        return None


def plan(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> Plan:
    """Which `.swift` files are pages and where the catalogs' extension files go."""
    listed = list(listed)
    swift = [
        p
        for p in listed
        if p.endswith(SWIFT_SUFFIX) and not _MANIFEST.fullmatch(posixpath.basename(p))
    ]
    if not swift and not any(docc.in_catalog(p) for p in listed):
        return Plan(frozenset(), {}, {})
    skipped: dict[str, frozenset[str] | None] = {}  # package folder -> non-library targets
    products: dict[str, frozenset[str]] = {}  # package folder -> library products' targets
    pages = set()
    for path in swift:
        found = _split(path)
        if found is None or ".docc/" in path.lower():
            continue
        folder, target, _ = found
        if folder not in skipped:
            manifest = _manifest(docs_dir, folder)
            if manifest is None:
                skipped[folder] = None
            else:
                text = (
                    read_project_file(docs_dir, roots, posixpath.join(folder, manifest.name)) or ""
                )
                skipped[folder] = frozenset(_NOT_LIBRARY_TARGET.findall(text))
                products[folder] = frozenset(
                    n for m in _LIBRARY.finditer(text) for n in re.findall(r'"([^"]+)"', m.group(1))
                )
        names = skipped[folder]
        if names is None or target in names or _NOT_LIBRARY.search(target):
            continue
        if products.get(folder) and target not in products[folder]:
            continue
        if any(_NOT_LIBRARY.search(p) for p in folder.split("/") if p):
            continue
        pages.add(path)
    modules: dict[str, str] = {}
    merged: dict[str, str] = {}
    by_target: dict[tuple[str, str], list[str]] = {}
    for p in sorted(pages):
        f = _split(p)
        assert f is not None
        by_target.setdefault((f[0], f[1]), []).append(p)
    texts: dict[str, str] = {}
    for path in listed:
        if not docc.in_catalog(path) or not path.lower().endswith(".md"):
            continue
        folder = docc.catalog_folder(path)
        module = modules.setdefault(folder, docc.module_of(path))
        text = read_project_file(docs_dir, roots, path) or ""
        first = next(
            (x for x in text.split("\n", _MAX_FIRST_LINES)[:_MAX_FIRST_LINES] if x.strip()), ""
        )
        m = _EXTENSION_TITLE.match(first.strip())
        if m is None:
            continue
        symbol = docc.symbol_name(m.group(1), module).split(".")
        if len(symbol) < 2:  # (the module's own page)
            continue
        found = _split(path)
        candidates = by_target.get((found[0], found[1]), []) if found else []
        target = _declaring(docs_dir, roots, candidates, symbol[-1], texts)
        if target is not None:
            merged[path] = target
    return Plan(frozenset(pages), merged, modules)


def _declaring(
    docs_dir: Path, roots: Sequence[Path], candidates: list[str], name: str, texts: dict[str, str]
) -> str | None:
    """The file of `candidates` declaring the type `name` (one extending it, else)."""
    bare = re.sub(r"\(.*", "", name)
    if not re.fullmatch(r"\w+", bare):
        return None
    declares = re.compile(rf"\b(?:struct|class|enum|protocol|actor|typealias)\s+{bare}\b")
    extends = re.compile(rf"\bextension\s+(?:\w+\.)*{bare}\b")
    later = None
    for path in candidates:
        if path not in texts:
            texts[path] = read_project_file(docs_dir, roots, path) or ""
        text = texts[path]
        if declares.search(text):
            return path
        if later is None and extends.search(text):
            later = path
    return later


def no_pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The `.swift` files of `listed` that are no page, and the extension files merged."""
    listed = list(listed)
    if not any(p.endswith(SWIFT_SUFFIX) or docc.in_catalog(p) for p in listed):
        return set()
    found = plan(docs_dir, roots, listed)
    swift = {p for p in listed if p.endswith(SWIFT_SUFFIX) and p not in found.pages}
    return swift | set(found.merged)


def resolve(files: list[SourceFile], docs_dir: Path, roots: Sequence[Path]) -> list[SourceFile]:
    """Catalog and Swift pages with their link table above them; Swift pages with the
    documentation extensions DocC adds to their symbols after them."""
    # (a `.docc` folder built on its own: every page of it is the catalog's)
    whole = Path(docs_dir).name.lower().endswith(".docc")
    here = f"{Path(docs_dir).resolve().parent.name}/{Path(docs_dir).name}/" if whole else ""

    def in_catalog(path: str) -> bool:
        return docc.in_catalog(path) or (whole and path.lower().endswith(".md"))

    def module_of(path: str) -> str:
        return docc.module_of(here + path)

    if not any(f.path.endswith(SWIFT_SUFFIX) or in_catalog(f.path) for f in files):
        return files
    # (pages headed already: a package's outside the docs folder, resolved in its own folder
    # by api_sources, keep their table and are no article of the docs' modules)
    headed = {f.path for f in files if (f.body if f.line_map else f.text).startswith(docc.HEADER)}
    listed = [f.path for f in files]
    catalogs = [f for f in files if in_catalog(f.path) and f.path not in headed]
    # (the merged extension files are no pages: listed again to know where they go)
    extra = sorted(
        _catalog_files(
            docs_dir,
            {docc.catalog_folder(f.path) for f in catalogs} | _catalogs_of(files, docs_dir),
        )
    )
    found = plan(docs_dir, roots, sorted(set(listed) | set(extra)))
    docs: dict[str, dict[str, tuple[str, str]]] = {}  # module -> article name -> (path, title)
    for f in catalogs:
        module = module_of(f.path)
        title = docc.title_of(f.body) or posixpath.splitext(posixpath.basename(f.path))[0]
        stem = posixpath.splitext(posixpath.basename(f.path))[0]
        docs.setdefault(module, {}).setdefault(stem, (f.path, title))
    appended: dict[str, list[str]] = {}
    for ext, page in sorted(found.merged.items()):
        appended.setdefault(page, []).append(ext)
    out = []
    for f in files:
        is_swift = f.path in found.pages
        if f.path in headed or (not is_swift and not in_catalog(f.path)):
            out.append(f)
            continue
        module = module_of(f.path) if not is_swift else (_split(f.path) or ("", "", ""))[1]
        table = {
            name: (posixpath.relpath(path, posixpath.dirname(f.path) or "."), title)
            for name, (path, title) in docs.get(module, {}).items()
        }
        body = f.body if f.line_map else f.text
        own = f.line_map or tuple(range(body.count("\n") + 1))
        code = _tutorial_code(docs_dir, roots, f.path, body) if f.path.endswith(".tutorial") else {}
        if "@Snippet" in body:  # (DocC's `@Snippet(path:)`: the package's `Snippets/` file)
            code = {**code, **_snippets(docs_dir, roots, f.path, body)}
        parts = [docc.header_line(docc.Links(module, table, code)), body]
        for ext in appended.get(f.path, []) if is_swift else ():
            text = read_project_file(docs_dir, roots, ext)
            if text is not None:
                parts.append(EXTENSION + ext + "\n" + text.replace("\r\n", "\n"))
        text = "\n".join(parts)
        total = text.count("\n") + 1
        line_map = (own[0] if own else 0, *own)
        line_map += (line_map[-1],) * (total - len(line_map))
        out.append(dataclasses.replace(f, body=text, line_map=line_map))
    return out


_CODE_FILE = re.compile(r"@Code\((?:[^()]|\([^()]*\))*?\bfile:\s*\"?([^\s,\")]+)", re.S)
MAX_CODE_FILES = 200  # `@Code` files shown on one tutorial page, at most
MAX_CODE_BYTES = 64_000  # one such file's text, at most


def _tutorial_code(docs_dir: Path, roots: Sequence[Path], path: str, body: str) -> dict[str, str]:
    """The text of the files a tutorial's `@Code(file:)` directives show, found by name in
    its catalog (DocC's resources are named flat, as its articles are)."""
    names = list(dict.fromkeys(_CODE_FILE.findall(body)))[:MAX_CODE_FILES]
    folder = docc.catalog_folder(path) or posixpath.dirname(path)
    if not names:
        return {}
    base = docs_dir / folder if folder else docs_dir
    wanted = set(names)
    found: dict[str, str] = {}
    try:
        for p in sorted(base.rglob("*")):
            if p.name in wanted and p.name not in found and p.is_file():
                found[p.name] = p.relative_to(docs_dir).as_posix()
    except (OSError, ValueError):
        return {}
    out = {}
    for name, rel in found.items():
        if (docs_dir / rel).stat().st_size > MAX_CODE_BYTES:
            continue
        text = read_project_file(docs_dir, roots, rel)
        if text is not None:
            out[name] = text.replace("\r\n", "\n")
    return out


_SNIPPET = re.compile(r"@Snippet\(([^()]*)\)")
_ARG = re.compile(r"\b(path|slice):\s*\"([^\"\n]*)\"")
_MARK = re.compile(r"^\s*//\s*snippet\.(\w+)\s*$")


def _snippets(docs_dir: Path, roots: Sequence[Path], path: str, body: str) -> dict[str, str]:
    """The code each `@Snippet(path: "Package/Snippets/Name", slice: "s")` shows, keyed
    `snippet:PATH` (`#SLICE`): the package's `Snippets/Name.swift` (the package: the folder
    above the page's `Sources/`, else the docs folder), as DocC shows it: `// snippet.hide`
    … `// snippet.show` left out, a slice the lines between `// snippet.s` and `// snippet.end`,
    the marker lines gone."""
    root = path.split("/Sources/", 1)[0] if "/Sources/" in "/" + path else ""
    root = "" if root == path or path.startswith("Sources/") else root
    out: dict[str, str] = {}
    for m in list(_SNIPPET.finditer(body))[:MAX_CODE_FILES]:
        args = dict(_ARG.findall(m.group(1)))
        named = args.get("path", "")
        if "/Snippets/" not in named:
            continue
        rel = posixpath.normpath(posixpath.join(root, "Snippets", named.split("/Snippets/", 1)[1]))
        rel = rel if rel.endswith(SWIFT_SUFFIX) else rel + SWIFT_SUFFIX
        if rel.startswith("../") or not (docs_dir / rel).is_file():
            continue
        if (docs_dir / rel).stat().st_size > MAX_CODE_BYTES:
            continue
        text = read_project_file(docs_dir, roots, rel)
        if text is not None:
            key = f"snippet:{named}" + (f"#{args['slice']}" if args.get("slice") else "")
            out[key] = _snippet_code(text.replace("\r\n", "\n"), args.get("slice", ""))
    return out


def _snippet_code(text: str, slice_name: str) -> str:
    shown: list[str] = []
    hidden, inside = False, not slice_name
    for line in text.split("\n"):
        m = _MARK.match(line)
        if m is None:
            if inside and not hidden:
                shown.append(line)
            continue
        word = m.group(1)
        if word in ("hide", "show"):
            hidden = word == "hide"
        elif slice_name:
            inside = word == slice_name or (inside and word != "end")
    return "\n".join(shown).strip("\n")


def _catalogs_of(files: list[SourceFile], docs_dir: Path) -> set[str]:
    """The catalog folders beside the Swift pages' targets (`Sources/T/T.docc`)."""
    out = set()
    for f in files:
        found = _split(f.path) if f.path.endswith(SWIFT_SUFFIX) else None
        if found is None:
            continue
        target = (
            posixpath.join(found[0], "Sources", found[1]) if found[0] else f"Sources/{found[1]}"
        )
        try:
            out |= {
                posixpath.join(target, p.name)
                for p in (docs_dir / target).iterdir()
                if p.is_dir() and p.name.lower().endswith(".docc")
            }
        except OSError:
            continue
    return out


def _catalog_files(docs_dir: Path, folders: set[str]) -> list[str]:
    out = []
    for folder in folders:
        if not folder:
            continue
        base = docs_dir / folder
        try:
            out += [p.relative_to(docs_dir).as_posix() for p in base.rglob("*.md") if p.is_file()]
        except (OSError, ValueError):
            continue
    return out
