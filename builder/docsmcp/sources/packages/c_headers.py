"""C libraries whose public headers are their API reference, without a Doxyfile: which headers
are pages (doxygen_project.no_pages asks here where the tree holds no Doxyfile; with one, its
INPUT decides, as before).

Many of the most used C libraries document their API in the header users include and nowhere
else: raylib (a comment after each prototype), sqlite (`CAPI3REF:` blocks, the source of
sqlite.org's C reference), zlib (a comment after each prototype), cJSON, stb's single-file
headers. A header is a page when it is public and documents its declarations:

- public: below an `include/` folder (the install layout of CMake, meson and autotools
  projects: libuv's `include/uv.h`, curl's `include/curl/curl.h`), or named by a build file's
  install rule (CMake `install(FILES …)`, `PUBLIC_HEADER`, a `set()` of public headers;
  meson `install_headers()`; automake `include_HEADERS`; a Makefile's install line: zlib's
  `zlib.h zconf.h`, raylib's `raylib.h rlgl.h raymath.h`, cJSON's two), or the header named as
  the project beside its build file (`NAME.h`, `NAME3.h`: an amalgamation's `sqlite3.h`), or a
  single-header library at the top of the tree (it holds its implementation behind
  `#ifdef X_IMPLEMENTATION`: stb, miniaudio);
- never a test's, an example's, a vendored copy's or an internal one (`test/`, `examples/`,
  `external/`, `third_party/`, `contrib/`, `private/`, `internal/`, `*_internal.h`, …);
- documenting: at least three of its declarations carry a comment, a quarter of them, or its
  first comments document the library (stb's and miniaudio's manuals at the top). A header of
  bare prototypes adds nothing to the code the user has.

Such a page is read by the Doxygen reader in its plain mode (formats/source/doxygen_decls.py).
sqlite's repository holds `src/sqlite.h.in`, from which its build writes `sqlite3.h`: the
page is the amalgamation's `sqlite3.h`, the file users have (a `.in` template is no header).
"""

from __future__ import annotations

import logging
import os
import posixpath
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from docsmcp.sources.files import C_HEADER_SUFFIXES
from docsmcp.sources.formats.source.doxygen_decls import read_header
from docsmcp.sources.formats.source.doxygen_plain import implementation_blocks, without_license
from docsmcp.sources.packages.project_files import folders_above
from docsmcp.sources.settings import read_page_text

log = logging.getLogger("docsmcp.sources.packages.c_headers")

# Folders whose headers are no library's public API.
_NOT_PUBLIC = frozenset(
    """test tests testing unittest unittests example examples sample samples demo demos bench
    benchmark benchmarks fuzz fuzzing third_party thirdparty third-party 3rdparty vendor
    vendored external externals extern deps contrib build node_modules internal private detail
    details impl old deprecated tools scripts cmake""".split()
)
_INTERNAL_NAME = re.compile(r"(?:[_-](?:internal|private|priv|impl|int)|_p)\.\w+$", re.I)
_BUILD_FILES = frozenset(
    {
        "CMakeLists.txt",
        "meson.build",
        "Makefile",
        "makefile",
        "GNUmakefile",
        "Makefile.in",
        "Makefile.am",
        "configure.ac",
        "build.zig",
    }
)
_HEADER_WORD = re.compile(r"[\w./${}()@-]+\.(?:h|hh|hpp|hxx|h\+\+)\b")
_VARIABLE = re.compile(r"^(?:\$\{\w+\}|\$\(\w+\)|@\w+@)/?")
_CMAKE_CALL = re.compile(r"\b(\w+)[ \t]*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", re.S)
_CMAKE_PROJECT = re.compile(r"\bproject[ \t]*\([ \t]*['\"]?([A-Za-z][\w.+-]*)", re.I)
_MAKE_ASSIGN = re.compile(r"^[ \t]*([A-Za-z_][\w.]*)[ \t]*[:+?]?=(.*)$", re.M)
_MAKE_REF = re.compile(r"\$[({](\w+)[)}]")
MAX_BUILD_FILE = 1_000_000  # bytes of a build file read, at most
MAX_HEADER = 4_000_000  # a header larger is not read (a generated table)


_TEST_FOLDER = re.compile(r"(?:^|[_-])tests?(?:$|[_-])")


def _public_place(path: str) -> bool:
    parts = path.lower().split("/")
    return not any(
        p in _NOT_PUBLIC or p.startswith(".") or _TEST_FOLDER.search(p) for p in parts[:-1]
    ) and not _INTERNAL_NAME.search(parts[-1])


def _stem(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _installed(text: str, name: str) -> list[str]:
    """The header words a build file's install rules name (see the module's docstring)."""
    words: list[str] = []
    if name == "CMakeLists.txt" or name.endswith(".cmake"):
        sets: dict[str, str] = {}
        calls = [(m.group(1).lower(), m.group(2)) for m in _CMAKE_CALL.finditer(text)]
        for cmd, args in calls:
            if cmd == "set" and args.split():
                sets[args.split()[0]] = args
        for cmd, args in calls:
            first = args.split()[0] if args.split() else ""
            public = cmd == "set" and re.search(r"public|install", first, re.I)
            public = public and not re.search(r"private|internal|test", first, re.I)
            if cmd == "install" or "PUBLIC_HEADER" in args or public:
                words += _HEADER_WORD.findall(args)
                for ref in re.findall(r"\$\{(\w+)\}", args):
                    words += _HEADER_WORD.findall(sets.get(ref, ""))
    elif name == "meson.build":
        for m in re.finditer(r"install_headers\s*\(([^)]*)\)", text):
            words += re.findall(r"['\"]([^'\"]+\.h\w*)['\"]", m.group(1))
    else:  # (Makefiles, automake, configure.ac)
        joined = re.sub(r"\\\n", " ", text)
        assigns = {m.group(1): m.group(2) for m in _MAKE_ASSIGN.finditer(joined)}
        for m in _MAKE_ASSIGN.finditer(joined):
            if re.search(r"include_HEADERS$|HEADERS?_INSTALL|PUBLIC_H", m.group(1)):
                words += _HEADER_WORD.findall(m.group(2))
        for line in joined.split("\n"):
            if re.search(r"includedir|INCLUDE_PATH|_H_INSTALL|INCLUDEDIR", line) and re.search(
                r"\b(?:cp|install)\b", line
            ):
                words += _HEADER_WORD.findall(line)
                for ref in _MAKE_REF.findall(line):
                    words += _HEADER_WORD.findall(assigns.get(ref, ""))
    return words


def _build_files(docs_dir: Path, headers: Sequence[str]) -> dict[str, list[str]]:
    """folder -> its build files, for the folders holding a header and those above them
    (build files are no pages: the listing has none, so the folders are read)."""
    out: dict[str, list[str]] = {}
    for folder in sorted({"", *folders_above(headers)}):
        if not _public_place(folder + "/x"):
            continue
        try:
            entries = sorted(e.name for e in os.scandir(docs_dir / folder) if e.is_file())
        except OSError:
            continue
        found = [n for n in entries if n in _BUILD_FILES or n.endswith(".pc.in")]
        if found:
            out[folder] = found
    return out


def candidates(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The public headers of the listing (see the module's docstring), before the check that
    they document anything."""
    listed = list(listed)
    headers = [p for p in listed if p.lower().endswith(C_HEADER_SUFFIXES) and _public_place(p)]
    if not headers:
        return set()
    header_set = set(headers)
    out = {p for p in headers if "include" in p.lower().split("/")[:-1]}
    folders = _build_files(docs_dir, headers)
    names: dict[str, set[str]] = {}  # folder -> project names
    for folder, files in folders.items():
        found = names.setdefault(folder, set())
        if folder:
            found.add(_stem(posixpath.basename(folder)))
        for name in files:
            if name.endswith(".pc.in"):
                found.add(_stem(name[: -len(".pc.in")]))
                continue
            rel = posixpath.join(folder, name) if folder else name
            text, _ = read_page_text(docs_dir, rel, roots)
            if text is None or len(text) > MAX_BUILD_FILE:
                continue
            project = (
                _CMAKE_PROJECT.search(text) if name in ("CMakeLists.txt", "meson.build") else None
            )
            if project:
                found.add(_stem(project.group(1)))
            for word in _installed(text, name):
                word = _VARIABLE.sub("", word.strip("\"'"))
                for base in (folder, posixpath.dirname(folder) if folder else folder):
                    target = posixpath.normpath(posixpath.join(base, word))
                    if target in header_set:
                        out.add(target)
    if "" not in names:  # (the docs folder itself is the project, named as its folder)
        names[""] = {_stem(docs_dir.resolve().name)}
    for p in headers:
        folder, name = posixpath.split(p)
        stem = _stem(posixpath.splitext(name)[0])
        owner = folder if folder in names else posixpath.dirname(folder)
        inside = f"{owner}/include/" if owner else "include/"
        if any(h.startswith(inside) for h in headers):
            continue  # (a project with an `include/` folder: its `src/` headers are internal)
        if posixpath.basename(folder) == "src" and owner in names or folder in names:
            wanted = names.get(folder, set()) | names.get(owner, set())
            if any(n and re.fullmatch(re.escape(n) + r"\d*", stem) for n in wanted):
                out.add(p)
    return out


def _single_header(text: str) -> bool:
    return bool(implementation_blocks(text))


def documents(text: str) -> bool:
    """Whether a header documents its declarations (see the module's docstring)."""
    parsed = read_header(text, plain=True)
    decls = [d for d in parsed.decls if not d.name.startswith("_")]
    typed = [d for d in decls if d.kind != "macro"] or decls
    # (a declaration of a group whose comment says what it does: sqlite's CAPI3REF blocks)
    groups = {g.name for g in parsed.groups if g.doc.strip()}
    documented = sum(1 for d in typed if d.doc or d.group in groups)
    if documented >= 3 and documented * 4 >= len(typed):
        return True
    intro = without_license(parsed.file_doc or "")
    return intro.count("\n") >= 10


def pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The headers of the listing that are pages of their own (see the module's docstring)."""
    listed = list(listed)
    found = candidates(docs_dir, roots, listed)
    # Single-header libraries at the top of the tree or one folder below (stb, miniaudio).
    shallow = [
        p
        for p in listed
        if p.lower().endswith(C_HEADER_SUFFIXES)
        and p not in found
        and p.count("/") <= 1
        and _public_place(p)
    ]
    out: set[str] = set()
    for p in sorted(found) + shallow:
        text, _ = read_page_text(docs_dir, p, roots)
        if text is None or len(text) > MAX_HEADER:
            continue
        if p not in found and not _single_header(text):
            continue
        if documents(text):
            out.add(p)
    return out
