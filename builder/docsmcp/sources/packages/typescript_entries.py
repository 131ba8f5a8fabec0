"""Where a TypeScript package's entry points are and which files of the tree they name, as
TypeDoc and the compiler find them: TypeDoc's `entryPoints` (typedoc.json, `typedocOptions`),
else package.json's `types`/`typings` and `exports` (a condition naming the TypeScript source
first: zod's `"@zod/source"`), a built file read as the source it is built from (tsconfig's
`outDir` -> `rootDir`, else `src/`), else tsconfig's `paths` for the package's own name
(zustand); globs and folders as TypeDoc reads them, a monorepo's packages. Configuration files
are read as JSON with comments, never run. typescript_site.py decides from these which files
are pages.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.sources.globs import GlobError, compile_glob, glob_match
from docsmcp.sources.site_config import read_text

MAX_FILES = 5000  # API files followed from one package's entry points
MAX_ENTRY_POINTS = 2000
_BUILT_FOLDERS = ("dist", "lib", "build", "out", "types", "esm", "cjs", "dist/esm", "dist/cjs")
_BUILT = re.compile(r"\.d\.([mc]?)ts$|\.([mc]?)js$|\.jsx$")


def strip_jsonc(text: str) -> str:
    """JSON with comments (`//`, `/* */`) and trailing commas as JSON: one pass, strings kept."""
    out: list[str] = []
    k, n = 0, len(text)
    while k < n:
        ch = text[k]
        if ch == '"':
            j = k + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[k : j + 1])
            k = j + 1
        elif text.startswith("//", k):
            end = text.find("\n", k)
            k = n if end < 0 else end
        elif text.startswith("/*", k):
            end = text.find("*/", k + 2)
            k = n if end < 0 else end + 2
        else:
            out.append(ch)
            k += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def read_jsonc(path: Path) -> object:
    """A JSON-with-comments configuration file (typedoc.json, tsconfig.json), or None."""
    text = read_text(path)
    try:
        return json.loads(strip_jsonc(text)) if text else None
    except (ValueError, RecursionError):
        return None


@dataclass(frozen=True)
class EntryPoints:
    items: tuple[str, ...]  # as written (paths, globs, folders)
    source: str  # the file naming them: `typedoc.json`, `package.json`, ...
    strategy: str = "resolve"  # TypeDoc's entryPointStrategy: resolve, expand, packages


def _typedoc(data: object, name: str) -> EntryPoints | None:
    if isinstance(data, dict) and isinstance(data.get("entryPoints"), list):
        items = tuple(e for e in data["entryPoints"] if isinstance(e, str))
        strategy = data.get("entryPointStrategy")
        return EntryPoints(items, name, strategy if isinstance(strategy, str) else "resolve")
    return None


def entry_points(folder: Path) -> EntryPoints:
    """TypeDoc's entry points of the package in `folder` and where they came from."""
    for name in ("typedoc.json", "typedoc.jsonc"):
        if found := _typedoc(read_jsonc(folder / name), name):
            return found
    for name in ("package.json", "tsconfig.json"):
        data = read_jsonc(folder / name)
        if found := _typedoc(data.get("typedocOptions") if isinstance(data, dict) else None, name):
            return found
    data = read_jsonc(folder / "package.json")
    if not isinstance(data, dict):
        return EntryPoints((), "")
    found: list[str] = []
    for key in ("types", "typings"):
        if isinstance(data.get(key), str):
            found.append(data[key])
    found.extend(export_targets(data.get("exports")))
    # `main` names the API of a published package without types (its `.ts` source); a
    # private one (an example app, a docs site) publishes nothing.
    if not found and isinstance(data.get("main"), str) and data.get("private") is not True:
        found.append(data["main"])
    # A monorepo's root (`workspaces`, no entry points of its own) names no API by itself: its
    # packages' TSDoc is read when a TypeDoc config says so (strategy `packages`) or
    # `--api-source` names a package. Jest's repository, built for its website, read 158 module
    # pages of its packages' internals, and `Matchers.toHaveBeenCalledWith` in `types.ts` took
    # the first place from the Expect page; a monorepo's docs site is its reference.
    return EntryPoints(tuple(dict.fromkeys(found)), "package.json")


def export_targets(exports: object, depth: int = 0) -> list[str]:
    """The files `exports` names, the `types` condition first where there is one."""
    if depth > 6:
        return []
    if isinstance(exports, str):
        return [] if "*" in exports else [exports]
    if isinstance(exports, list):
        return [t for e in exports[:50] for t in export_targets(e, depth + 1)]
    if not isinstance(exports, dict):
        return []
    out: list[str] = []
    for key, value in list(exports.items())[:MAX_ENTRY_POINTS]:
        if "*" in key or key.endswith(("package.json", ".css")):
            continue
        if key.startswith(".") and depth == 0 or not key.startswith("."):
            if source := _source_condition(value):
                out.append(source)
            elif isinstance(value, dict) and isinstance(value.get("types"), str):
                out.append(value["types"])
            elif isinstance(value, dict) and "types" in value:
                out.extend(export_targets(value["types"], depth + 1))
            else:
                out.extend(export_targets(value, depth + 1)[:1])
    return out


def _source_condition(value: object) -> str | None:
    """The TypeScript source a condition of an `exports` entry names, where one does: zod's
    `"@zod/source": "./src/index.ts"` beside `"types": "./index.d.cts"` (a build's output,
    not in the repository). A declaration file (`.d.ts`) is no source."""
    if not isinstance(value, dict):
        return None
    for target in value.values():
        if isinstance(target, str) and "*" not in target and _is_source(target):
            return target
    return None


def _is_source(target: str) -> bool:
    return target.endswith((".ts", ".tsx", ".mts", ".cts")) and not re.search(
        r"\.d\.[mc]?ts$", target
    )


def source_of(target: str, folder: str, known: set[str], outdir: tuple[str, str]) -> str | None:
    """The TypeScript file in the tree that `target` (a path in the package) is, or is built
    from: itself, its folder's index, `x.js` as `x.ts`, `dist/x.d.ts` as `src/x.ts`."""
    rel = posixpath.normpath(posixpath.join(folder, target))
    if rel.startswith("../"):
        return None
    stems = [rel]
    if m := _BUILT.search(rel):
        stem = rel[: m.start()]
        stems = [stem]
        out, root = outdir
        for built in dict.fromkeys((out, *_BUILT_FOLDERS)):
            prefix = posixpath.join(folder, built) + "/" if built else ""
            if built and stem.startswith(prefix):
                tail = stem[len(prefix) :]
                src = root if built == out and root else "src"
                stems.append(posixpath.join(folder, src, tail) if src else tail)
    for stem in stems:
        for candidate in (stem, *(stem + s for s in (".ts", ".tsx", ".d.ts", ".mts", ".cts"))):
            if candidate in known:
                return candidate
        for index in ("index.ts", "index.tsx", "index.d.ts"):
            if posixpath.join(stem, index) in known:
                return posixpath.join(stem, index)
    return None


def resolve_spec(spec: str, importer: str, known: set[str]) -> str | None:
    """The file a relative module specifier names from `importer`."""
    if not spec.startswith("."):
        return None
    base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
    stem = re.sub(r"\.([mc]?)jsx?$", "", base)
    for candidate in (base, *(stem + s for s in (".ts", ".tsx", ".d.ts", ".mts", ".cts"))):
        if candidate in known:
            return candidate
    for index in ("index.ts", "index.tsx", "index.d.ts"):
        if posixpath.join(base, index) in known:
            return posixpath.join(base, index)
    return None


def package_folders(docs_dir: Path, roots: Sequence[Path]) -> list[str]:
    """The docs folder and every source root inside it (relative POSIX paths, "" the docs)."""
    top = docs_dir.resolve()
    folders = [""]
    for root in roots:
        try:
            rel = root.resolve().relative_to(top).as_posix()
        except ValueError:
            rel = _linked(docs_dir, root.resolve())
            if rel is None:
                continue
        if rel != "." and rel not in folders:
            folders.append(rel)
    return folders


def _linked(docs_dir: Path, real: Path) -> str | None:
    """`real`'s path in `docs_dir` through a link at its top (init validates a proposal on a
    folder of links to the docs folder's entries: `packages -> …/zod/packages`), else None."""
    for above in (real, *real.parents):
        link = docs_dir / above.name
        if above.name and link.is_symlink() and link.resolve() == above:
            return (Path(above.name) / real.relative_to(above)).as_posix()
    return None


def expand(
    entry: str, folder: str, known: set[str], outdir: tuple[str, str], strategy: str
) -> list[str]:
    """The files one `entryPoints` item names: a glob's files, a file, a folder's index (with
    the `expand` strategy: every file under it)."""
    rel = posixpath.normpath(posixpath.join(folder, entry))
    if any(c in entry for c in "*?[{"):
        return sorted(p for p in known if glob_matches(rel, p))
    if strategy == "expand" and any(p.startswith(rel + "/") for p in known):
        return sorted(p for p in known if p.startswith(rel + "/"))
    found = source_of(entry, folder, known, outdir)
    return [found] if found else []


def own_paths(base: Path, options: object, folder: str, known: set[str]) -> list[str]:
    """The files tsconfig's `compilerOptions.paths` map the package's own name to: `name`'s
    targets, and `name/*`'s with `*` read as TypeScript does (any text, folders too), among
    the TypeScript files of the tree."""
    data = read_jsonc(base / "package.json")
    name = data.get("name") if isinstance(data, dict) else None
    paths = options.get("paths") if isinstance(options, dict) else None
    if not isinstance(name, str) or not isinstance(paths, dict):
        return []
    out: list[str] = []
    for key in (name, name + "/*"):
        targets = paths.get(key)
        for target in targets[:50] if isinstance(targets, list) else ():
            if not isinstance(target, str) or target.count("*") > 1:
                continue
            rel = posixpath.normpath(posixpath.join(folder, target))
            if rel.startswith("../"):
                continue
            if "*" not in rel:
                out.extend(p for p in (source_of(target, folder, known, ("", "")),) if p)
                continue
            head, _, tail = rel.partition("*")
            out.extend(
                sorted(p for p in known if p.startswith(head) and p.endswith(tail) and p != head)
            )
    return list(dict.fromkeys(out))[:MAX_FILES]


def glob_matches(pattern: str, path: str) -> bool:
    """TypeDoc's (minimatch's) reading of an entry glob: `*` within a folder, `**` across."""
    try:
        return bool(compile_glob(pattern).fullmatch(path)) and glob_match(pattern, path)
    except GlobError:
        return False


def workspace_packages(items: Sequence[str], folder: str, known: set[str], base: Path) -> list[str]:
    """The package folders a `packages` strategy names (globs of folders holding a
    package.json), among the folders of the TypeScript files."""
    folders = sorted({posixpath.dirname(p) for p in known} | set())
    ancestors = sorted({"/".join(f.split("/")[:k]) for f in folders for k in range(1, 8)} - {""})
    out = []
    for item in items[:MAX_ENTRY_POINTS]:
        pattern = posixpath.normpath(posixpath.join(folder, item))
        depth = pattern.count("/")
        for candidate in ancestors:
            if "**" not in pattern and candidate.count("/") != depth:
                continue
            if glob_matches(pattern, candidate) and (base / candidate / "package.json").is_file():
                out.append(candidate)
    return list(dict.fromkeys(out))
