"""Which TypeScript files of a docs folder are a package's API, as TypeDoc would publish it.

A `.ts` file in a docs tree is usually no documentation: a Docusaurus site's components, its
`docusaurus.config.ts`, an example's code, a test. Reading each as a page would fill the
bundle with code nobody looks up. So a TypeScript file is a page only when a package says it
is part of its API, as TypeDoc decides what to document:
- the package's folders: the docs folder itself and every `--api-source` (or
  `--source-root`) folder inside it;
- its entry points: TypeDoc's `entryPoints` (`typedoc.json`/`typedoc.jsonc`, else
  `typedocOptions` in `package.json` or `tsconfig.json`; globs and folders as TypeDoc reads
  them), else `package.json`'s `types`/`typings` and the `types` (else import/default) targets
  of its `exports` (no `*` patterns), a built file (`dist/index.d.ts`) read as the source it
  is built from (tsconfig's `outDir` -> `rootDir`, else `src/`) when it is not in the tree
  (typescript_entries.py);
- what the entry points export: followed through `export ... from './x'`, `export * as ns`,
  and `export { A }` of a name imported from `./x` (Stainless SDKs re-export each resource's
  class from a `namespace`), relative modules only, inside the docs folder, at most
  MAX_FILES files. Tests (`*.test.ts`, `*.spec.ts`, `__tests__/`) and `node_modules/` never.
Everything else with a TypeScript suffix is no page (`no_pages`), so a docs site without such
a package builds exactly as before. Nothing is run: configuration files are read as JSON
with comments, modules as text.
"""

from __future__ import annotations

import logging
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.sources.files import JAVASCRIPT_SUFFIXES, TYPESCRIPT_SUFFIXES, read_file_text
from docsmcp.sources.formats.source.jsdoc_cjs import is_javascript, required_exports
from docsmcp.sources.formats.source.ts_scan import blank
from docsmcp.sources.layout.versions import value_of_name
from docsmcp.sources.packages.typescript_entries import (
    MAX_ENTRY_POINTS,
    MAX_FILES,
    entry_points,
    expand,
    export_targets,
    own_paths,
    package_folders,
    read_jsonc,
    resolve_spec,
    source_of,
    workspace_packages,
)
from docsmcp.sources.packages.typescript_links import (
    Resolver,
    TsTree,
    gather,
    namespaces,
    referenced_modules,
)
from docsmcp.sources.settings import MAX_FILE_BYTES

log = logging.getLogger(__name__)

MAX_PACKAGES = 200  # packages of a monorepo (TypeDoc's `packages` strategy)
_TEST = re.compile(
    r"(?:^|/)(?:__tests__|__mocks__|node_modules)/|\.(?:test|spec|bench)\.[mc]?tsx?$"
)
# Folders a build writes to, read as `src/` (the files a package.json names are built ones).
_TEST_JS = re.compile(
    r"(?:^|/)(?:__tests__|__mocks__|node_modules|tests?|examples?|benchmarks?|bench|scripts|"
    r"dist|build|vendor|coverage)/|\.(?:test|spec|bench|config|min)\.[mc]?js$"
)
_SPEC = r"""['"]([^'"\n]+)['"]"""
_FROM = re.compile(r"\bexport\s+(?:type\s+)?(?:\*(?:\s+as\s+[\w$]+)?|\{[^}]*\})\s*from\s*" + _SPEC)
_IMPORT = re.compile(r"\bimport\s+(?:type\s+)?([^'\";]*?)\s*from\s*" + _SPEC)
_LOCAL_EXPORT = re.compile(r"\bexport\s+(?:type\s+)?\{([^}]*)\}(?!\s*from)")
_DEFAULT_EXPORT = re.compile(r"\bexport\s+default\s+([A-Za-z_$][\w$]*)\s*;?")


def is_typescript(path: str) -> bool:
    return path.lower().endswith(TYPESCRIPT_SUFFIXES)


def exported_modules(text: str) -> list[str]:
    """The module specifiers whose declarations `text` exports: `export … from`, and the
    modules of imported names it exports again (`export { Chat }`, `export default X`)."""
    code = blank(text).code
    specs: list[str] = []
    imported: dict[str, str] = {}
    for regex in (_FROM, _IMPORT):
        for m in regex.finditer(text):
            if code[m.start()] == " ":  # (inside a comment or string)
                continue
            if regex is _FROM:
                specs.append(m.group(1))
                continue
            for name in re.findall(r"(?:\bas\s+)?([A-Za-z_$][\w$]*)\s*(?:,|}|$)", m.group(1)):
                imported[name] = m.group(2)
            if star := re.search(r"\*\s+as\s+([A-Za-z_$][\w$]*)", m.group(1)):
                imported[star.group(1)] = m.group(2)
            if default := re.match(r"\s*([A-Za-z_$][\w$]*)\s*(?:,|$)", m.group(1)):
                imported[default.group(1)] = m.group(2)
    names: list[str] = []
    for m in _LOCAL_EXPORT.finditer(code):
        for part in m.group(1).split(","):
            local = part.strip().removeprefix("type ").split(" as ")[0].strip()
            names.append(local)
    names.extend(m.group(1) for m in _DEFAULT_EXPORT.finditer(code))
    specs.extend(imported[n] for n in names if n in imported)
    return list(dict.fromkeys(specs))


def api_files(docs_dir: Path, roots: Sequence[Path], paths: Iterable[str]) -> dict[str, str]:
    """The TypeScript files among `paths` that are a package's API: path -> where the
    package's entry points are declared (`typedoc.json`, `package.json`)."""
    known = {p for p in paths if is_typescript(p) and not _TEST.search(p)}
    if not known:
        return {}
    api: dict[str, str] = {}
    folders = package_folders(docs_dir, roots)
    done: set[str] = set()
    while folders and len(done) < MAX_PACKAGES:
        folder = folders.pop(0)
        if folder in done:
            continue
        done.add(folder)
        base = docs_dir / folder if folder else docs_dir
        points = entry_points(base)
        if points.strategy == "packages":  # a monorepo: each package's own entry points
            folders.extend(workspace_packages(points.items, folder, known, docs_dir))
            continue
        entries, source = points.items, points.source
        tsconfig = read_jsonc(base / "tsconfig.json")
        options = tsconfig.get("compilerOptions") if isinstance(tsconfig, dict) else None
        outdir = ("", "")
        if isinstance(options, dict) and isinstance(options.get("outDir"), str):
            root = options.get("rootDir") if isinstance(options.get("rootDir"), str) else ""
            out = posixpath.normpath(options["outDir"])
            outdir = (out, posixpath.normpath(root) if root else "")
        queue: list[str] = []
        for entry in entries[:MAX_ENTRY_POINTS]:
            queue.extend(expand(entry, folder, known, outdir, points.strategy))
        if not queue and source == "package.json" and entries:
            # The built files it names are not in the tree and no folder maps to the sources:
            # the tsconfig `paths` that give the package's own name are its sources (zustand:
            # `"zustand": ["./src/index.ts"], "zustand/*": ["./src/*.ts"]`).
            queue = own_paths(base, options, folder, known)
            source = "tsconfig.json" if queue else source
        where = posixpath.join(folder, source) if folder else source
        seen: set[str] = set(api)
        while queue and len(api) < MAX_FILES:
            path = queue.pop(0)
            if path in seen:
                continue
            seen.add(path)
            api[path] = where
            text = read_file_text(docs_dir, path, roots, MAX_FILE_BYTES)
            if text is None:
                continue
            for spec in exported_modules(text):
                target = resolve_spec(spec, path, known)
                if target is not None and target not in seen:
                    queue.append(target)
    return api


def version_folders(docs_dir: Path, roots: Sequence[Path], paths: Iterable[str]) -> dict[str, str]:
    """The version folders a TypeScript package names in its `exports`: a subpath named as a
    version (zod's `"./v3"`, `"./v4"`) whose entry is a folder's index (`src/v3/index.ts`)
    makes that folder the version, as users import it (`zod/v3`). Only where two versions or
    more are named; a subpath of another name (`./v4-mini`, `./mini`) is none."""
    known = {p for p in paths if is_typescript(p) and not _TEST.search(p)}
    out: dict[str, str] = {}
    for folder in package_folders(docs_dir, roots) if known else []:
        data = read_jsonc((docs_dir / folder if folder else docs_dir) / "package.json")
        exports = data.get("exports") if isinstance(data, dict) else None
        if not isinstance(exports, dict):
            continue
        found: dict[str, str] = {}
        for key, value in list(exports.items())[:MAX_ENTRY_POINTS]:
            version = value_of_name(key.rpartition("/")[2]) if key.startswith("./") else None
            if version is None or "*" in key:
                continue
            for target in export_targets({key: value}):
                source = source_of(target, folder, known, ("", ""))
                if source is not None and posixpath.basename(source).startswith("index."):
                    found[posixpath.dirname(source)] = version
                    break
        if len(set(found.values())) >= 2:
            out.update(found)
    return out


def _resolve_js(spec: str, importer: str, known: set[str]) -> str | None:
    """The JavaScript file a relative `require`/`import` names from `importer`."""
    if not spec.startswith("."):
        return None
    base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
    for candidate in (base, *(base + s for s in JAVASCRIPT_SUFFIXES)):
        if candidate in known:
            return candidate
    for index in ("index.js", "index.mjs", "index.cjs"):
        if posixpath.join(base, index) in known:
            return posixpath.join(base, index)
    return None


def js_api_files(
    docs_dir: Path, roots: Sequence[Path], paths: Iterable[str], typed: set[str]
) -> dict[str, str]:
    """The JavaScript files among `paths` a package without types publishes as its API, as
    jsdoc (or TypeDoc with `allowJs`) reads them: a package.json that is not private, names
    no `types`/`typings` and has no TypeScript API read (`typed`: the package folders that
    have), whose `main` and `exports` targets are `.js`/`.mjs`/`.cjs` files of the tree;
    then the modules they export again (`export … from`, `module.exports = require('./x')`,
    a required name exported), relative only, at most MAX_FILES files. A site's own scripts
    (its package is private, or names no such entry) are never read."""
    known = {p for p in paths if is_javascript(p) and not _TEST_JS.search(p)}
    if not known:
        return {}
    api: dict[str, str] = {}
    for folder in package_folders(docs_dir, roots):
        if folder in typed:
            continue
        base = docs_dir / folder if folder else docs_dir
        data = read_jsonc(base / "package.json")
        # (npm publishes only a package with a name and a version)
        if not isinstance(data, dict) or data.get("private") is True:
            continue
        if not all(isinstance(data.get(k), str) for k in ("name", "version")):
            continue
        if any(isinstance(data.get(k), str) for k in ("types", "typings")):
            continue
        targets = [data["main"]] if isinstance(data.get("main"), str) else []
        targets += _js_export_targets(data.get("exports"))
        if "main" not in data and "exports" not in data:
            targets.append("index.js")  # Node's default entry point (Express)
        queue: list[str] = []
        for target in targets[:MAX_ENTRY_POINTS]:
            rel = posixpath.normpath(posixpath.join(folder, target))
            found = _resolve_js("./" + rel, "x", known) if not rel.startswith("../") else None
            if found is not None:
                queue.append(found)
        where = posixpath.join(folder, "package.json") if folder else "package.json"
        while queue and len(api) < MAX_FILES:
            path = queue.pop(0)
            if path in api:
                continue
            api[path] = where
            text = read_file_text(docs_dir, path, roots, MAX_FILE_BYTES)
            if text is None:
                continue
            for spec in [*exported_modules(text), *required_exports(text)]:
                target = _resolve_js(spec, path, known)
                if target is not None and target not in api:
                    queue.append(target)
    return api


def _js_export_targets(exports: object, depth: int = 0) -> list[str]:
    """Every JavaScript file `exports` names (each condition: `import`, `require`, `node`,
    `default`; not `browser`, `types`, or `*` patterns)."""
    if depth > 6:
        return []
    if isinstance(exports, str):
        return [exports] if "*" not in exports and exports.endswith(JAVASCRIPT_SUFFIXES) else []
    if isinstance(exports, list):
        return [t for e in exports[:50] for t in _js_export_targets(e, depth + 1)]
    if not isinstance(exports, dict):
        return []
    out: list[str] = []
    for key, value in list(exports.items())[:MAX_ENTRY_POINTS]:
        if "*" in key or key in ("browser", "types", "deno", "react-native"):
            continue
        out.extend(_js_export_targets(value, depth + 1))
    return out


@dataclass(frozen=True)
class Scan:
    api: dict[str, str]  # path -> where its package's entry points are declared
    referenced: dict[str, tuple[str, ...]]  # a module no entry exports -> the types it shows
    tree: TsTree  # what each page is read with (typescript_links.py)


def scan(docs_dir: Path, roots: Sequence[Path], paths: Iterable[str]) -> Scan:
    """The API files among `paths`, the modules of types they name that none exports, and
    what each of those pages shows from other files (bases, referenced types)."""
    every = list(paths)
    listed = [p for p in every if is_typescript(p)]
    api = api_files(docs_dir, roots, listed) if listed else {}
    typed = {posixpath.dirname(where) for where in api.values()}
    scripts = [p for p in every if is_javascript(p)]
    js = js_api_files(docs_dir, roots, scripts, typed) if scripts else {}
    texts: dict[str, str | None] = {}

    def read(path: str) -> str | None:
        if path not in texts:
            texts[path] = read_file_text(docs_dir, path, roots, MAX_FILE_BYTES)
        return texts[path]

    # A JavaScript class's bases in the package (`class A extends B`, B required or
    # imported from `./b`) are shown under it as a TypeScript class's are.
    scripts_known = {p for p in scripts if not _TEST_JS.search(p)}
    js_tree = gather(js, {}, Resolver(scripts_known, read, _resolve_js)) if js else TsTree({})
    if not api:
        return Scan(js, {}, js_tree)
    known = {p for p in listed if not _TEST.search(p)}
    resolver = Resolver(known, read, resolve_spec)
    referenced = referenced_modules(api, resolver)
    spaces = namespaces(api, resolver)  # (zod's `z`: `z.object`)
    tree = gather(api, referenced, resolver, spaces)
    return Scan({**api, **js}, referenced, TsTree({**js_tree.extra, **tree.extra}))


def no_pages(
    docs_dir: Path,
    roots: Sequence[Path],
    paths: Iterable[str],
    warn: bool = True,
    scanned: Scan | None = None,
) -> set[str]:
    """The TypeScript files among `paths` that are no package's API (nor a module of types
    it names): no pages. With `warn`, one warning when none is and a TypeDoc project lies
    above the docs folder (`docs/` of a package: its API is read when the package's folder is
    built)."""
    listed = [p for p in paths if is_typescript(p) or is_javascript(p)]
    found = scanned if scanned is not None else scan(docs_dir, roots, listed)
    api = {**found.api, **dict.fromkeys(found.referenced, "")}
    if warn and not api and (above := typedoc_above(docs_dir)) is not None:
        log.warning(
            "%s is a TypeScript package's docs (%s): its API reference (TSDoc) is read when "
            "the package's folder is built: --docs-dir %s",
            docs_dir,
            above,
            above.parent,
        )
    return {p for p in listed if p not in api}


def typedoc_above(docs_dir: Path) -> Path | None:
    """The TypeDoc configuration of a package one or two folders above `docs_dir`, or None
    (only looked for: a file outside the source roots is never read)."""
    here = Path(docs_dir).resolve()
    for folder in (here.parent, here.parent.parent):
        for name in ("typedoc.json", "typedoc.jsonc"):
            # (a symlink is init's overlay of the folder above, whose own line says it)
            if (folder / name).is_file() and not (folder / name).is_symlink():
                return folder / name
    return None


def describe(docs_dir: Path, roots: Sequence[Path], paths: Iterable[str]) -> str | None:
    """init's line on a TypeScript package: where its entry points come from and how many
    files are read as its API pages, or which folder to build for them."""
    listed = [p for p in paths if is_typescript(p) or is_javascript(p)]
    found = scan(docs_dir, roots, listed) if listed else Scan({}, {}, TsTree({}))
    typed = [p for p in found.api if is_typescript(p)]
    if typed:
        where = ", ".join(sorted({found.api[p] for p in typed}))
        also = f" (and {len(found.referenced)} of types they name)" if found.referenced else ""
        return (
            f"site: TypeScript package ({where} names the entry points): {len(typed)} files "
            f"they export{also} are read as TypeDoc's module pages and API entries; other .ts "
            "files are no pages"
        )
    if found.api:
        where = ", ".join(sorted(set(found.api.values())))
        return (
            f"site: JavaScript package ({where} names the entry points): {len(found.api)} "
            "files it exports are read as jsdoc's pages and API entries; other .js files are "
            "no pages"
        )
    if (above := typedoc_above(docs_dir)) is not None:
        return (
            f"site: the docs of a TypeScript package ({above}): its API reference is read "
            f"when the package's folder is built (--docs-dir {above.parent})"
        )
    return None
