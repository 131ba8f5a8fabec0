"""A C or C++ project documented with Doxygen: which headers are pages, and the project's
markdown read with Doxygen's commands (formats/source/doxygen.py writes a header's page).

A header (`.h`, `.hpp`, …) is a page only in a tree holding a Doxyfile: a file named
`Doxyfile*` or `*.doxyfile`, or a file whose first line is Doxygen's `# Doxyfile 1.x` (tinyxml2's
`dox`), in the docs folder or two folders below it (GLFW's `docs/Doxyfile.in`). Its settings are
read as literals, never run: INPUT (paths from the Doxyfile's folder; a CMake `@VAR@/` or
`${VAR}/` prefix is dropped and the rest tried from there and from the docs folder; an INPUT
that is only a variable, as GLFW's `@GLFW_DOXYGEN_INPUT@`, means the headers under `include/`),
FILE_PATTERNS, RECURSIVE, EXCLUDE, EXCLUDE_PATTERNS, EXCLUDE_SYMBOLS, PREDEFINED (a word
defined empty, `GLFWAPI=`, is dropped from declarations), EXTRACT_ALL and ALIASES. Every other
header is code, no page (none of a trial tree's headers is read without a Doxyfile).

After every page is read (`resolve`), each header page gets a first line with those settings
and the project's link table, and each markdown page its Doxygen commands rendered
(doxygen_pages.py): `@ref name` links to the symbol's section on its header page, a group's
section, or a page or section of the markdown. A `.dox` file `INPUT` names is a page too (its
comments only), and each class's header line lists what it inherits (doxygen_inherit.py).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import logging
import os
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.model.source import SourceFile
from docsmcp.sources.files import C_HEADER_SUFFIXES, DOXYGEN_PAGE_SUFFIXES, inside_roots
from docsmcp.sources.formats.source import doxygen_pages
from docsmcp.sources.formats.source.doxygen import (
    HEADER,
    Settings,
    header_line,
    header_title,
    is_dox,
)
from docsmcp.sources.formats.source.doxygen_decls import Header, read_header
from docsmcp.sources.packages import c_headers, doxygen_inherit
from docsmcp.sources.settings import read_page_text

log = logging.getLogger("docsmcp.sources.packages.doxygen_project")

_SKIPPED = frozenset({"node_modules", "build", "third_party", "deps", "vendor", "external"})
_FIRST_LINE = re.compile(rb"^\s*#\s*Doxyfile\s+\d")
_VARIABLE = re.compile(r"^(?:@\w+@|\$\{\w+\}|\$\(\w+\))/?")
_DEFAULT_PATTERNS = ("*.h", "*.hh", "*.hxx", "*.hpp", "*.h++", "*.md", "*.dox")
_MD = (".md", ".markdown")
# The files read as Doxygen reads them, pages where the Doxyfile names them: headers, `.dox`.
_READ = C_HEADER_SUFFIXES + DOXYGEN_PAGE_SUFFIXES


@dataclass(frozen=True)
class Project:
    doxyfile: str  # relative to the docs dir
    headers: frozenset[str]  # the header pages
    settings: Settings


def _is_doxyfile(folder: Path, name: str) -> bool:
    lower = name.lower()
    if lower.startswith("doxyfile") or lower.endswith(".doxyfile"):
        return True
    if "." in name.strip(".") and not lower.endswith((".in", ".cfg", ".conf")):
        return False
    try:
        with open(folder / name, "rb") as f:
            return bool(_FIRST_LINE.match(f.read(200)))
    except OSError:
        return False


def find_doxyfile(docs_dir: Path, roots: Sequence[Path] = ()) -> str | None:
    """The Doxyfile of the tree: in the docs dir, else one or two folders below (by name). A
    symlink is followed where it stays inside the source roots (`docsmcp init` checks its
    proposal on a folder of links to the docs folder's entries)."""
    inside = [Path(r).resolve() for r in (docs_dir, *roots)]
    level = [""]
    for _ in range(3):
        found: list[str] = []
        below: list[str] = []
        for rel in level:
            try:
                entries = sorted(os.scandir(docs_dir / rel), key=lambda e: e.name)
            except OSError:
                continue
            for e in entries:
                if e.name.startswith(".") or (
                    e.is_symlink() and not inside_roots(os.path.realpath(e.path), inside)
                ):
                    continue
                path = posixpath.join(rel, e.name) if rel else e.name
                if e.is_file() and e.stat().st_size < 1_000_000:
                    if _is_doxyfile(docs_dir / rel, e.name):
                        found.append(path)
                elif e.is_dir() and e.name not in _SKIPPED:
                    below.append(path)
        if found:
            return sorted(found, key=lambda p: (not p.lower().endswith("doxyfile"), p))[0]
        level = below
    return None


def read_doxyfile(text: str) -> dict[str, list[str]]:
    """KEY -> its values (`+=` adds, `\\` continues, quotes group words)."""
    out: dict[str, list[str]] = {}
    joined = re.sub(r"\\[ \t]*\n", " ", text)
    for line in joined.split("\n"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"([A-Z_][A-Z0-9_]*)\s*(\+?=)\s*(.*)$", line)
        if not m:
            continue
        values = [a or b for a, b in re.findall(r'"([^"]*)"|([^\s,]+)', m.group(3))]
        if m.group(2) == "+=":
            out.setdefault(m.group(1), []).extend(values)
        else:
            out[m.group(1)] = values
    return out


def _yes(values: list[str] | None) -> bool:
    return bool(values) and values[0].upper() == "YES"


def _headers(config: dict[str, list[str]], base: str, listed: Sequence[str]) -> set[str]:
    """The headers INPUT names, among `listed` (see the module's docstring)."""
    recursive = _yes(config.get("RECURSIVE"))
    patterns = tuple(config.get("FILE_PATTERNS") or _DEFAULT_PATTERNS)
    excluded = [posixpath.normpath(posixpath.join(base, x)) for x in config.get("EXCLUDE", [])]
    exclude_patterns = config.get("EXCLUDE_PATTERNS", [])
    # An empty INPUT is the Doxyfile's folder, unless the Doxyfile is a template a build
    # script fills (NumPy's `@ROOT_DIR/…` paths): then, as for an INPUT that is a variable,
    # the public headers.
    template = any(
        _VARIABLE.match(v) or v.startswith("@")
        for key in ("OUTPUT_DIRECTORY", "STRIP_FROM_PATH", "INPUT", "EXAMPLE_PATH")
        for v in config.get(key, [])
    )
    inputs = config.get("INPUT") or (["@INPUT@"] if template else ["."])
    roots: list[tuple[str, bool]] = []  # (path, recursive)
    for value in inputs:
        m = _VARIABLE.match(value)
        rest = value[m.end() :] if m else value
        if m and not rest:  # (only a variable: the public headers)
            roots.append(("include", True))
            continue
        candidates = [posixpath.normpath(posixpath.join(base, rest))]
        if m:
            candidates.append(posixpath.normpath(rest))
        roots.extend((c.removeprefix("./") if c != "." else "", recursive) for c in candidates)
    listed_set = set(listed)
    out: set[str] = set()
    headers = [p for p in listed if p.lower().endswith(_READ)]
    for root, deep in roots:
        if root in listed_set:
            out.add(root)
            continue
        prefix = f"{root}/" if root else ""
        for p in headers:
            if not p.startswith(prefix):
                continue
            rest = p[len(prefix) :]
            if "/" in rest and not deep:
                continue
            name = posixpath.basename(p)
            if not any(fnmatch.fnmatch(name, pat) for pat in patterns):
                continue
            out.add(p)
    return {
        p
        for p in out
        if p.lower().endswith(_READ)
        and not any(p == x or p.startswith(x + "/") for x in excluded)
        and not any(
            fnmatch.fnmatch(p, x) or fnmatch.fnmatch(posixpath.basename(p), x)
            for x in exclude_patterns
        )
    }


def _aliases(values: list[str]) -> tuple[tuple[str, str], ...]:
    out = []
    for v in values:
        name, eq, value = v.partition("=")
        if eq and re.fullmatch(r"\w+", name.strip()):
            out.append((name.strip(), value))
    return tuple(sorted(out))


def _project_name(values: list[str]) -> str:
    name = " ".join(values).strip()
    return "" if re.search(r"[@$]", name) else name  # (`@PROJECT_NAME@`: CMake fills it in)


def project(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> Project | None:
    """The tree's Doxygen project, or None when it has no Doxyfile."""
    listed = list(listed)
    if not any(p.lower().endswith(_READ) for p in listed):
        return None
    doxyfile = find_doxyfile(docs_dir, roots)
    if doxyfile is None:
        return None
    text, problem = read_page_text(docs_dir, doxyfile, roots)
    if text is None:
        log.warning("%s", problem or f"{doxyfile}: unreadable; its headers are not read")
        return None
    config = read_doxyfile(text)
    headers = _headers(config, posixpath.dirname(doxyfile), listed)
    hidden = set(config.get("EXCLUDE_SYMBOLS", []))
    hidden |= {v[:-1] for v in config.get("PREDEFINED", []) if v.endswith("=")}
    settings = Settings(
        extract_all=_yes(config.get("EXTRACT_ALL")),
        hidden=frozenset(h for h in hidden if re.fullmatch(r"\w+", h)),
        aliases=_aliases(config.get("ALIASES", [])),
        project=_project_name(config.get("PROJECT_NAME", [])),
    )
    return Project(doxyfile, frozenset(headers), settings)


def no_pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The headers of the listing that are no page: those the Doxyfile does not name, or
    without one, all but a C library's documented public headers (c_headers.py)."""
    listed = list(listed)
    if not any(p.lower().endswith(_READ) for p in listed):
        return set()
    found = project(docs_dir, roots, listed)
    pages = found.headers if found else c_headers.pages(docs_dir, roots, listed)
    return {p for p in listed if p.lower().endswith(_READ) and p not in pages}


def _plain(f: SourceFile) -> SourceFile:
    """A header documented in plain comments, with its settings line (doxygen.Settings.plain)."""
    if f.body.startswith(HEADER) or not f.path.lower().endswith(C_HEADER_SUFFIXES):
        return f
    line = header_line(Settings(title=header_title(f.path), plain=True))
    body = f.body if f.line_map else f.text
    own = f.line_map or tuple(range(body.count("\n") + 1))
    return dataclasses.replace(f, body=line + "\n" + body, line_map=(own[0] if own else 0, *own))


def _link_table(files: list[SourceFile], headers: Mapping[str, Header]) -> dict:
    """name -> (path#anchor, shown text) for every symbol, group, page and section."""
    table: dict[str, tuple[str, str]] = {}
    for f in files:
        parsed = headers.get(f.path)
        if parsed is not None:
            for g in parsed.groups:
                table.setdefault(g.name, (f"{f.path}#{g.name}", g.title))
            for text, _, _ in parsed.pages:
                for name, title, anchor in doxygen_pages.names(f.path, text):
                    table.setdefault(name, (f"{f.path}#{anchor}", title))
            for d in parsed.decls:
                for n in (d, *d.members):
                    table.setdefault(n.name, (f"{f.path}#{n.name}", n.name.rsplit("::", 1)[-1]))
                    short = "::".join(n.name.split("::")[-2:])
                    table.setdefault(short, (f"{f.path}#{n.name}", short))
        elif f.path.lower().endswith(_MD):
            for name, title, anchor in doxygen_pages.names(f.path, f.body):
                table.setdefault(name, (f"{f.path}#{anchor}" if anchor else f.path, title))
    return table


def _relative(
    table: dict, page: str, text: str | None = None, also: frozenset[str] = frozenset()
) -> dict[str, tuple[str, str]]:
    """The link table as links from `page`; with `text`, only the names it holds (a header's
    line carries its own links, not SDL's 3,925) and those in `also`."""
    folder = posixpath.dirname(page)
    out = {}
    words = set(re.findall(r"[A-Za-z_]\w*", text)) if text is not None else None
    relative: dict[str, str] = {page: ""}  # (relpath is slow: once per target page)
    for name, (target, shown) in table.items():
        if words is not None and name.rsplit("::", 1)[-1] not in words and name not in also:
            continue
        path, _, anchor = target.partition("#")
        if path not in relative:
            relative[path] = posixpath.relpath(path, folder or ".")
        rel = relative[path]
        out[name] = (f"{rel}#{anchor}" if anchor else rel, shown)
    return out


def resolve(
    files: list[SourceFile], docs_dir: Path, roots: Sequence[Path], prefix: str = ""
) -> list[SourceFile]:
    """Header pages with their settings line; markdown pages with Doxygen's commands read.
    `prefix`: the folder the project's pages lie in, `docs_dir` being the project's folder (a
    project outside the docs folder, api_sources.py; the docs' pages among `files` link to it
    and it to them)."""
    headers = [f for f in files if f.path.lower().endswith(_READ)]
    if not headers:
        return files
    own = [f.path.removeprefix(prefix) for f in files if f.path.startswith(prefix)]
    found = project(docs_dir, roots, own)
    if found is None:  # (the public headers of a library without a Doxyfile: c_headers.py)
        return [_plain(f) if f.path.startswith(prefix) else f for f in files]
    if prefix:
        found = dataclasses.replace(found, headers=frozenset(prefix + h for h in found.headers))
    parsed = {
        f.path: read_header(f.text, found.settings.hidden, is_dox(f.path))
        for f in files
        if f.path in found.headers
    }
    # Headers of a project outside the docs folder (api_sources.py) come with their settings
    # line, read in its folder: the docs' pages link to their symbols (GLFW's `@ref glfwInit`).
    parsed |= {
        f.path: read_header(f.text, found.settings.hidden, is_dox(f.path))
        for f in headers
        if f.path not in found.headers and f.body.startswith(HEADER)
    }
    table = _link_table(files, parsed)
    inherits = doxygen_inherit.inherited(parsed, found.settings.extract_all)
    member_decls = doxygen_inherit.members(parsed) if inherits else {}
    if inherits:  # (an undocumented member has no section: its link is its class's)
        with_doc = doxygen_inherit.documented(parsed)
        for bases in inherits.values():
            for base, members in bases:
                for m in members:
                    if m not in with_doc and base in table:
                        table[m] = table[base]
    out = []
    for f in files:
        if f.path in found.headers:
            classes = dict.fromkeys(
                d.name for d in parsed[f.path].decls if d.kind in ("class", "struct")
            )
            inherited = tuple(
                (name, base, members)
                for name in classes
                for base, members in inherits.get(name, ())
            )
            also = frozenset(n for _, base, members in inherited for n in (base, *members))
            links = _relative(table, f.path, f.text, also)
            listed = dict.fromkeys(n for _, _, members in inherited for n in members)
            settings = dataclasses.replace(
                found.settings,
                links=tuple(sorted((n, t, s) for n, (t, s) in links.items())),
                title=header_title(f.path),
                inherited=inherited,
                inherited_decls=tuple(
                    (n, d.kind, d.code, d.doc or "", d.params)
                    for n in listed
                    if (d := member_decls.get(n)) is not None
                ),
            )
            body = f.body if f.line_map else f.text
            own = f.line_map or tuple(range(body.count("\n") + 1))
            out.append(
                dataclasses.replace(
                    f,
                    body=header_line(settings) + "\n" + body,
                    line_map=(own[0] if own else 0, *own),
                )
            )
        elif f.path.lower().endswith(_MD) and (
            "@" in f.body or "\\" in f.body or "[TOC]" in f.body
        ):
            body = doxygen_pages.rewrite(f.body, _relative(table, f.path, f.body))
            if body == f.body:
                out.append(f)
                continue
            line_map = f.line_map or tuple(range(body.count("\n") + 1))
            out.append(dataclasses.replace(f, body=body, line_map=line_map))
        else:
            out.append(f)
    return out
