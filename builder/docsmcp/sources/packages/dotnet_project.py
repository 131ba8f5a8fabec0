""".NET libraries: which C# files are the pages docfx publishes from their XML doc comments
(formats/source/csharpdoc.py writes a file's page).

A `.cs` file is a page only where a project says so:

- **docfx.json** (in the docs folder or one or two folders below it, as Polly's `docs/`): its
  `metadata` entries' `src` name the projects docfx reads, as docfx reads them: each item a
  glob or `{src, files, exclude}` (`files` from `src`, itself from docfx.json's folder;
  `**.csproj` is any `.csproj` below). A `.csproj` names the `.cs` files under its folder (no
  `bin/`, `obj/`, nor another project's folder below it), a `.sln` the projects it lists, a
  `.cs` glob itself; `.dll`, `.vb` and the rest are not read. docfx.json is JSON with comments
  and trailing commas allowed (docfx's own samples have them).
- **Without docfx.json**, a library's repository: the docs folder holds a `.sln`/`.slnx` or a
  `src/` (`Src/`) folder with projects; the projects under `src/` are the library (tests,
  benchmarks, samples, examples, demos and tools by their folder name, and projects saying
  `<IsPackable>false</IsPackable>`, are not).

Every other `.cs` file is code, no page. A docs folder whose docfx.json names projects outside
it (`"src": "../src"`) gets one warning saying its API pages are read when the folder above is
built (nothing outside the source roots is read).
"""

from __future__ import annotations

import json
import logging
import os
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.sources.files import CSHARP_SUFFIXES
from docsmcp.sources.globs import GlobError, glob_match
from docsmcp.sources.settings import read_page_text

log = logging.getLogger("docsmcp.sources.packages.dotnet_project")

CS_SUFFIX = CSHARP_SUFFIXES[0]
DOCFX_JSON = "docfx.json"
_SKIPPED = frozenset({"node_modules", "bin", "obj", "_site", "packages", ".git"})
_NOT_LIBRARY = re.compile(
    r"(?:^|[._-])(?:tests?|specs?|benchmarks?|bench|samples?|examples?|demos?|tools?|"
    r"playground|sandbox|testing\.?utils?|testapp|approvaltests|performancetests)(?:$|[._-])",
    re.I,
)
_NOT_PACKABLE = re.compile(r"<IsPackable>\s*false\s*</IsPackable>", re.I)
_SLN_PROJECT = re.compile(r'"([^"]+\.csproj)"|Path="([^"]+\.csproj)"', re.I)
_JSON_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = re.compile(r",(\s*[\]}])")
# A public type's declaration (modifiers between): a file without one shows nothing on docfx's
# pages (internal helpers, a partial type's private half), so it is no page.
_PUBLIC_TYPE = re.compile(
    r"\bpublic\b[^;{}()=\n]*?\b(?:class|struct|interface|enum|record|delegate)\b"
)


@dataclass(frozen=True)
class Project:
    config: str  # docfx.json's path, or "" for a repository's `src/` projects
    pages: frozenset[str]
    outside: tuple[str, ...] = ()  # what docfx.json names outside the docs folder


def find_docfx_json(docs_dir: Path) -> str | None:
    """docfx.json in the docs folder, else one or two folders below (by name)."""
    level = [""]
    for _ in range(3):
        below: list[str] = []
        for rel in level:
            try:
                entries = sorted(os.scandir(docs_dir / rel), key=lambda e: e.name)
            except OSError:
                continue
            for e in entries:
                path = posixpath.join(rel, e.name) if rel else e.name
                if e.name == DOCFX_JSON and e.is_file():
                    return path
                if (
                    e.is_dir(follow_symlinks=False)
                    and not e.name.startswith(".")
                    and (e.name not in _SKIPPED)
                ):
                    below.append(path)
        level = below
    return None


def read_json(text: str) -> object:
    """docfx.json's value: JSON with `//` and `/* */` comments and trailing commas."""
    text = _JSON_COMMENT.sub(lambda m: m.group() if m.group().startswith('"') else "", text)
    return json.loads(_TRAILING_COMMA.sub(r"\1", text.lstrip("\ufeff")))


def _glob(pattern: str, path: str) -> bool:
    """docfx's glob (`**.csproj`: any `.csproj` below) on a relative path."""
    pattern = re.sub(r"(^|/)\*\*([^/])", r"\1**/*\2", pattern.strip().removeprefix("./"))
    try:
        return glob_match(pattern, path)
    except GlobError:
        return False


def _sources(config: object) -> list[tuple[str, list[str], list[str]]]:
    """(src folder, files globs, exclude globs) of every metadata entry's `src` item."""
    out = []
    metadata = config.get("metadata") if isinstance(config, dict) else None
    for entry in metadata if isinstance(metadata, list) else []:
        items = entry.get("src") if isinstance(entry, dict) else None
        for item in items if isinstance(items, list) else []:
            if isinstance(item, str):
                out.append(("", [item], []))
            elif isinstance(item, dict):
                files = item.get("files") or []
                exclude = item.get("exclude") or []
                files = [files] if isinstance(files, str) else files
                exclude = [exclude] if isinstance(exclude, str) else exclude
                src = item.get("src") if isinstance(item.get("src"), str) else ""
                out.append(
                    (
                        src,
                        [f for f in files if isinstance(f, str)],
                        [x for x in exclude if isinstance(x, str)],
                    )
                )
    return out


class _Folders:
    """The project files (`.csproj`) and solutions (`.sln`, `.slnx`) of the folders above the
    `.cs` files, read once each (discovery lists pages only)."""

    def __init__(self, docs_dir: Path) -> None:
        self.docs_dir = docs_dir
        self.names: dict[str, list[str]] = {}

    def files(self, folder: str) -> list[str]:
        if folder not in self.names:
            try:
                names = sorted(
                    e.name
                    for e in os.scandir(self.docs_dir / folder)
                    if e.name.lower().endswith((".csproj", ".sln", ".slnx")) and e.is_file()
                )
            except OSError:
                names = []
            self.names[folder] = [posixpath.join(folder, n) if folder else n for n in names]
        return self.names[folder]

    def project_of(self, path: str) -> str | None:
        """The `.csproj` of the nearest folder above `path` holding one (its project)."""
        folder = posixpath.dirname(path)
        while True:
            if any(p.lower().endswith(".csproj") for p in self.files(folder)):
                return next(p for p in self.files(folder) if p.lower().endswith(".csproj"))
            if not folder:
                return None
            folder = posixpath.dirname(folder)

    def seen(self, suffixes: tuple[str, ...]) -> list[str]:
        return sorted(p for ps in self.names.values() for p in ps if p.lower().endswith(suffixes))


def _in_output(path: str) -> bool:
    return any(x.lower() in ("bin", "obj") for x in path.split("/")[:-1])


def _from_docfx(
    docs_dir: Path, roots: Sequence[Path], config_path: str, listed: list[str]
) -> Project:
    text, problem = read_page_text(docs_dir, config_path, roots)
    if text is None:
        log.warning("%s", problem or f"{config_path}: unreadable; its API is not read")
        return Project(config_path, frozenset())
    try:
        config = read_json(text)
    except ValueError as exc:
        log.warning("%s: not JSON (%s); its API is not read", config_path, exc)
        return Project(config_path, frozenset())
    base = posixpath.dirname(config_path)
    cs = [p for p in listed if p.lower().endswith(CS_SUFFIX) and not _in_output(p)]
    folders = _Folders(docs_dir)
    owner = {p: folders.project_of(p) for p in cs}
    project_files = folders.seen((".csproj",))
    solutions = folders.seen((".sln", ".slnx"))
    pages: set[str] = set()
    outside: list[str] = []
    for src, files, exclude in _sources(config):
        root = posixpath.normpath(posixpath.join(base, src)) if (base or src) else ""
        root = "" if root == "." else root
        if root == ".." or root.startswith("../"):
            outside += [posixpath.join(root, f) for f in files]
            continue
        prefix = f"{root}/" if root else ""

        def chosen(path: str, prefix: str = prefix, files=files, exclude=exclude) -> bool:
            if not path.startswith(prefix):
                return False
            rel = path[len(prefix) :]
            return any(_glob(f, rel) for f in files) and not any(_glob(x, rel) for x in exclude)

        named = {p for p in project_files if chosen(p)}
        for sln in (p for p in solutions if chosen(p)):
            named |= set(_solution_projects(docs_dir, roots, sln, set(project_files)))
        pages |= {p for p in cs if owner[p] in named or chosen(p)}
    return Project(config_path, frozenset(pages), tuple(outside))


def _solution_projects(
    docs_dir: Path, roots: Sequence[Path], sln: str, projects: set[str]
) -> list[str]:
    text, _ = read_page_text(docs_dir, sln, roots)
    out = []
    for a, b in _SLN_PROJECT.findall(text or ""):
        path = posixpath.normpath(
            posixpath.join(posixpath.dirname(sln), (a or b).replace("\\", "/"))
        )
        if path in projects:
            out.append(path)
    return out


def _from_repository(docs_dir: Path, roots: Sequence[Path], listed: list[str]) -> Project | None:
    """A library's repository without docfx.json: its `src/` projects (module docstring)."""
    cs = [p for p in listed if p.lower().endswith(CS_SUFFIX) and not _in_output(p)]
    folders = _Folders(docs_dir)
    owner = {p: folders.project_of(p) for p in cs}
    top = any(p.lower().endswith((".sln", ".slnx")) for p in folders.files(""))
    projects = sorted({p for p in owner.values() if p is not None})
    library = [p for p in projects if p.split("/", 1)[0].lower() == "src" and p.count("/") <= 3]
    if not library and not top:
        return None
    if not library:  # (a solution at the top, its projects beside it)
        library = [p for p in projects if p.count("/") <= 2]
    shown: set[str] = set()
    for proj in library:
        folder = posixpath.dirname(proj)
        if any(_NOT_LIBRARY.search(part) for part in folder.split("/")[1:] or [folder]):
            continue
        if _NOT_LIBRARY.search(posixpath.basename(proj)[: -len(".csproj")]):
            continue
        text, _ = read_page_text(docs_dir, proj, roots)
        if text and _NOT_PACKABLE.search(text):
            continue
        shown.add(proj)
    return Project("", frozenset(p for p in cs if owner[p] in shown))


def project(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> Project | None:
    """The tree's .NET project, or None when it has none."""
    listed = list(listed)
    config = find_docfx_json(docs_dir)
    if config is not None:
        return _from_docfx(docs_dir, roots, config, listed)
    return _from_repository(docs_dir, roots, listed)


def no_pages(
    docs_dir: Path, roots: Sequence[Path], listed: Iterable[str], warn: bool = True
) -> set[str]:
    """The `.cs` files of the listing that are no page (see the module's docstring); with
    `warn`, one warning when the docs folder's docfx.json names projects outside it."""
    listed = list(listed)
    cs = [p for p in listed if p.lower().endswith(CS_SUFFIX)]
    if (docs_dir / DOCFX_JSON).is_file():  # (Polly's `docs/`: is its API above it?)
        found = _from_docfx(docs_dir, roots, DOCFX_JSON, listed)
        if warn and found.outside and not found.pages:
            log.warning(
                "%s names %s outside the docs folder: its API pages are read when the folder "
                "above is built or named (--docs-dir %s, or --api-source %s)",
                DOCFX_JSON,
                ", ".join(found.outside[:3]),
                os.path.normpath(docs_dir / ".."),
                os.path.normpath(docs_dir / ".."),
            )
        return {p for p in cs if p not in _with_public_types(docs_dir, roots, found.pages)}
    if not cs:
        return set()
    found = project(docs_dir, roots, listed)
    pages = _with_public_types(docs_dir, roots, found.pages) if found else set()
    return {p for p in cs if p not in pages}


def _with_public_types(docs_dir: Path, roots: Sequence[Path], paths: Iterable[str]) -> set[str]:
    """The files of `paths` that declare a public type (a cheap test on the text)."""
    out = set()
    for path in paths:
        text, _ = read_page_text(docs_dir, path, roots)
        if text is None or _PUBLIC_TYPE.search(text):
            out.add(path)  # (unreadable: the read says why, once)
    return out
