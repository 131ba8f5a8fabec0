"""Find the markdown files and manifests of a docs folder; the globs that select them are
globs.py's (re-exported here, where the rest of the builder imports them from)."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from docsmcp.sources.formats.r.rmarkdown import not_pages
from docsmcp.sources.globs import GlobError as GlobError
from docsmcp.sources.globs import compile_glob as compile_glob
from docsmcp.sources.globs import glob_match as glob_match
from docsmcp.sources.globs import glob_problem as glob_problem
from docsmcp.sources.globs import glob_to_regex as glob_to_regex
from docsmcp.sources.globs import matches_any as matches_any
from docsmcp.sources.globs import selected
from docsmcp.sources.sites import sphinx_suffix
from docsmcp.sources.sites.sphinx_suffix import SphinxSuffixes

log = logging.getLogger(__name__)

MANIFEST_NAME = ".docs-mcp.json"
# .markdown: Jekyll's; .qmd: Quarto's; .mdoc: Markdoc's; .rmd, .rmarkdown: R Markdown's
# (formats/r/rmarkdown.py); .cheatmd: ExDoc's cheat sheets (markdown, `{: .col-2}`)
MARKDOWN_SUFFIXES = (".md", ".mdx", ".markdown", ".qmd", ".mdoc", ".rmd", ".rmarkdown", ".cheatmd")
# PDF manuals are sources too (pdf/ turns them into markdown-like text); listed with markdown.
PDF_SUFFIXES = (".pdf",)
# Pages converted to markdown before parsing (convert.py). HTML pages are read only from a folder
# without markdown or reStructuredText sources (a saved site), since a source folder's .html
# files are templates and partials (mkdocs `overrides/`, Sphinx `_templates/`).
HTML_SUFFIXES = (".html", ".htm")
RST_SUFFIXES = (".rst",)
NOTEBOOK_SUFFIXES = (".ipynb",)  # Jupyter notebooks, read as the page a site shows
# AsciiDoc (Asciidoctor, Antora); `.asc` is not one: it is as often a PGP signature.
ASCIIDOC_SUFFIXES = (".adoc", ".asciidoc")
RD_SUFFIXES = (".rd",)  # R documentation (`man/*.Rd`): an R package's reference (formats/r/rd.py)
# Elixir modules: their @moduledoc/@doc heredocs are the API pages ExDoc publishes (exdoc.py)
ELIXIR_SUFFIXES = (".ex",)
WRITERSIDE_SUFFIXES = (".topic",)  # JetBrains Writerside's XML topics (formats/writerside_xml.py)
TEXINFO_SUFFIXES = (".texi", ".texinfo", ".txi")  # GNU manuals (formats/texinfo/texinfo.py)
# Source code read as the API reference its ecosystem publishes, only where a package says so:
# Rust: a library crate's modules (`src/**/*.rs` beside `src/lib.rs`) are the pages docs.rs
# shows (formats/source/rustdoc.py); every other `.rs` file is code, no page (rust_crate.no_pages).
RUST_SUFFIXES = (".rs",)
# TypeScript modules: the TSDoc of a package's API, the pages TypeDoc publishes (tsdoc.py); only
# the files a package's entry points export are pages (typescript_site.py), never a site's code.
TYPESCRIPT_SUFFIXES = (".ts", ".tsx", ".mts", ".cts")
# Plain JavaScript with JSDoc: read as TypeScript is, only the modules a published package
# without types exports (typescript_site.py, formats/source/jsdoc_cjs.py): never a site's code.
JAVASCRIPT_SUFFIXES = (".js", ".mjs", ".cjs")
# Go: a package's files read as the page pkg.go.dev shows, inside a module only (go_source.py,
# formats/source/godoc.py).
GO_SUFFIXES = (".go",)
# Python: a distribution's public modules read as the pages pdoc shows, only when the docs
# folder is the distribution (python_package.py, formats/source/pydoc.py); other `.py` is code.
PYTHON_SUFFIXES = (".py",)
# Java: a Maven/Gradle project's main sources read as the pages Javadoc publishes, a class's
# or (package-info.java) a package's (java_project.py, formats/source/javadoc.py).
JAVA_SUFFIXES = (".java",)
CONVERTED_SUFFIXES = HTML_SUFFIXES + RST_SUFFIXES + NOTEBOOK_SUFFIXES + ASCIIDOC_SUFFIXES
CONVERTED_SUFFIXES += RD_SUFFIXES + ELIXIR_SUFFIXES + WRITERSIDE_SUFFIXES + TEXINFO_SUFFIXES
CONVERTED_SUFFIXES += RUST_SUFFIXES + TYPESCRIPT_SUFFIXES + GO_SUFFIXES + JAVA_SUFFIXES
# C and C++ headers: the pages Doxygen makes of them, only in a tree holding a Doxyfile that
# names them (packages/doxygen_project.py, formats/source/doxygen.py); else code, no page.
C_HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++")
CONVERTED_SUFFIXES += C_HEADER_SUFFIXES + JAVASCRIPT_SUFFIXES + PYTHON_SUFFIXES
# Every file the builder reads as a page.
SOURCE_SUFFIXES = MARKDOWN_SUFFIXES + PDF_SUFFIXES + CONVERTED_SUFFIXES
# A concatenation of pages (`llms-full.txt`, `NAME.llms-full.txt`): read as markdown, then split
# into pages by formats/llms_full.py.
LLMS_FULL_NAME = "llms-full.txt"


# --- the docs tree ------------------------------------------------------------------------------
# The builder reads only inside its source roots: the docs dir and any --source-root. It walks the
# docs dir's own folders first, then folders reached through symlinks, each real folder once (a
# symlink loop or a second way to a folder adds nothing). Symlinks whose real path leaves every
# root are refused; FIFOs, sockets and devices are skipped with a warning, never opened.


class Refused(Exception):
    """A file the builder must not read; the message says why, in one line."""


@dataclass(frozen=True)
class Entry:
    """A markdown file, manifest or symlinked folder met in the docs tree."""

    path: str  # POSIX, relative to the docs dir (as the file system spells it)
    refusal: str | None = None  # why it is refused (a Problem), or None
    skip: str | None = None  # why it is left out (a warning): it is not a regular file


# Code that may sit beside a saved HTML site without being its source.
_CODE_BESIDE_SITES = TYPESCRIPT_SUFFIXES + JAVASCRIPT_SUFFIXES + JAVA_SUFFIXES + PYTHON_SUFFIXES
_CODE_BESIDE_SITES += C_HEADER_SUFFIXES


@dataclass(frozen=True)
class Listing:
    markdown: tuple[Entry, ...]  # every .md/.mdx/.pdf file, sorted by path
    manifests: tuple[Entry, ...]  # every .docs-mcp.json, sorted by path
    folders: tuple[Entry, ...]  # symlinked folders refused for leaving the source roots

    @cached_property
    def has_sources(self) -> bool:
        """Whether the listing holds markdown, reST or other pages than HTML (TypeScript,
        JavaScript, Java and C headers are code beside a saved site, not its source)."""
        return any(
            not is_html(e.path) and not e.path.lower().endswith(_CODE_BESIDE_SITES)
            for e in self.markdown
        )

    def unread_html(self, path: str) -> bool:
        """Whether `path` is an HTML file the build leaves unread: a saved site is read only
        from a folder without markdown or reST sources (beside them `.html` files are
        templates), and a generator's own pages (404, search) never."""
        return is_html(path) and (self.has_sources or is_generated_page(path))

    @cached_property
    def _not_pages(self) -> frozenset[str]:
        return not_pages(e.path for e in self.markdown)

    @cached_property
    def _texinfo(self) -> frozenset[str]:
        """The Texinfo manuals, without suffix (`doc/bashref`)."""
        found = (e.path for e in self.markdown if e.path.lower().endswith(TEXINFO_SUFFIXES))
        return frozenset(p.rpartition(".")[0] for p in found)

    def unread(self, path: str) -> bool:
        """Whether the build leaves `path` unread: an HTML file beside sources (unread_html),
        an R Markdown file that is no page (`README.Rmd` beside the `README.md` knitted from
        it, roxygen2's fragments in `man/`: rmarkdown.not_pages), or the PDF of a Texinfo
        manual beside it (Bash's `doc/bashref.pdf` beside `bashref.texi`: the same text)."""
        if self._texinfo and path.lower().endswith(PDF_SUFFIXES):
            return path.rpartition(".")[0] in self._texinfo
        return self.unread_html(path) or path in self._not_pages


def source_roots(docs_dir: Path, extra: Sequence[Path] = ()) -> tuple[Path, ...]:
    """Real paths of the roots the builder may read: the docs dir, then `extra`."""
    return tuple(dict.fromkeys(Path(os.path.realpath(r)) for r in (docs_dir, *extra)))


def _inside(real: str, roots: Sequence[Path]) -> bool:
    """Whether the real path ``real`` is one of ``roots`` or under one (compared as text: this
    runs for every file read)."""
    for root in roots:
        prefix = str(root)
        if real == prefix or real.startswith(prefix if prefix.endswith("/") else prefix + "/"):
            return True
    return False


def shown(path: str) -> str:
    """``path`` as one printable line: bytes that are not UTF-8 as ``\\xNN``, control
    characters escaped (``\\n``, ``\\t``)."""
    out = []
    for ch in path:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's stand-in for an undecodable byte
            out.append(f"\\x{code - 0xDC00:02x}")
        elif _unusable(ch):
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    return "".join(out)


def _unusable(ch: str) -> bool:
    """Control characters (C0, DEL, C1), line/paragraph separators and lone surrogates: no chunk
    id may contain them, since an id is one line of text that get_doc must accept back."""
    code = ord(ch)
    return (
        code < 0x20
        or 0x7F <= code <= 0x9F
        or code in (0x2028, 0x2029)
        or (0xD800 <= code <= 0xDFFF)
    )


def path_problem(path: str) -> str | None:
    """Why a file at ``path`` cannot be indexed under that name, or None. Chunk ids begin with
    the path, so it must be UTF-8 text that get_doc accepts back: no control characters, and
    no whitespace to trim at its start."""
    if path.isprintable():  # the usual case, answered in C: no control character, no surrogate
        return None if path == path.lstrip() else _LEADING_SPACE
    if any(0xDC80 <= ord(ch) <= 0xDCFF for ch in path):
        return "file name is not valid UTF-8; rename it (chunk ids are UTF-8 text)"
    bad = next((ch for ch in path if _unusable(ch)), None)
    if bad is not None:
        return (
            f"file name contains the control character U+{ord(bad):04X}; rename it "
            "(a chunk id begins with the path and must be one line of text)"
        )
    return None if path == path.lstrip() else _LEADING_SPACE


_LEADING_SPACE = "file name starts with whitespace; rename it (chunk ids are trimmed)"


def _special(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _outside(target: str) -> str:
    return (
        f"symlink to {shown(target)}, outside the source roots "
        "(--docs-dir and every --source-root); refused"
    )


def _kind(name: str) -> str | None:
    if name == MANIFEST_NAME:
        return "manifest"
    if not name.startswith(".") and (name.lower().endswith(SOURCE_SUFFIXES) or is_llms_full(name)):
        return "markdown"
    return None


# Pages a site generator writes that hold no documentation (Sphinx's indexes, search pages).
SITE_GENERATED = frozenset({"404.html", "search.html", "genindex.html", "py-modindex.html"})


def is_html(path: str) -> bool:
    return path.lower().endswith(HTML_SUFFIXES)


def is_generated_page(path: str) -> bool:
    """A site generator's own page (404, search, index of names, Sphinx's `genindex-A.html`
    and `genindex-all.html`): not indexed."""
    lower = path.lower()
    return lower in SITE_GENERATED or lower.startswith(("search/", "genindex"))


def is_llms_full(path: str) -> bool:
    """Whether the file at ``path`` is an llms-full.txt, which the builder splits into pages."""
    name = path.rpartition("/")[2].lower()
    return name == LLMS_FULL_NAME or name.endswith("." + LLMS_FULL_NAME)


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


class _Walker:
    """Collects the entries of the docs tree; see the comment above `Refused`."""

    def __init__(self, roots: Sequence[Path], sphinx: SphinxSuffixes | None = None) -> None:
        self.roots = roots
        # conf.py's own reST suffixes (Django's `.txt`): sphinx_suffix.py
        self.sphinx = sphinx or SphinxSuffixes()
        self.visited: set[tuple[int, int]] = set()  # (device, inode) of every folder walked
        self.links: list[tuple[str, str]] = []  # symlinked folders met: (path, real path)
        self.entries: dict[str, list[Entry]] = {"markdown": [], "manifest": [], "folder": []}

    def walk(self, rel: str, real: str) -> None:
        stack = [(rel, real)]
        while stack:
            rel, real = stack.pop()
            try:
                with os.scandir(real) as it:
                    found = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                log.warning("%s: cannot list folder: %s", shown(rel or "."), exc.strerror)
                continue
            for entry in found:
                sub = self._entry(rel, entry)
                if sub is not None:
                    stack.append(sub)

    def _entry(self, rel: str, entry: os.DirEntry[str]) -> tuple[str, str] | None:
        """Record one directory entry; returns a real subfolder to walk."""
        path = _join(rel, entry.name)
        try:
            if entry.is_symlink():
                self._symlink(path, entry)
                return None
            if entry.is_dir(follow_symlinks=False):
                # Hidden folders (.git, .github, .docusaurus) are never documentation, nor a
                # Sphinx project's templates (sphinx_suffix.py).
                if entry.name.startswith(".") or self.sphinx.skips(path):
                    return None
                if not self._first_visit(entry.stat()):
                    return None
                return path, entry.path
            kind = _kind(entry.name) or ("markdown" if self.sphinx.admits(path) else None)
            if kind is not None and not self.sphinx.figure(path):
                # is_file() answers from the listing itself; only an odd entry costs a stat.
                regular = entry.is_file(follow_symlinks=False)
                skip = None if regular else _special(entry.stat(follow_symlinks=False).st_mode)
                self._add(kind, path, skip=skip)
        except OSError as exc:  # vanished or unreadable while listing
            if _kind(entry.name) is not None:
                refusal = f"cannot read: {exc.strerror}; {leave_out(path)}"
                self._add(_kind(entry.name), path, refusal=refusal)
        return None

    def _symlink(self, path: str, entry: os.DirEntry[str]) -> None:
        target = os.path.realpath(entry.path)
        try:
            st: os.stat_result | None = os.stat(target)
        except OSError:
            st = None  # dangling: reading it reports why
        if st is not None and stat.S_ISDIR(st.st_mode):
            if not entry.name.startswith(".") and not self.sphinx.skips(path):
                self.links.append((path, target))
            return
        kind = _kind(entry.name) or ("markdown" if self.sphinx.admits(path) else None)
        if kind is None or self.sphinx.figure(path):  # (as a file: init's overlay links them)
            return
        if not _inside(target, self.roots):
            self._add(kind, path, refusal=_outside(target))
        elif st is not None and not stat.S_ISREG(st.st_mode):
            self._add(kind, path, skip=f"{_special(st.st_mode)} (through a symlink)")
        else:
            self._add(kind, path)

    def _first_visit(self, st: os.stat_result) -> bool:
        key = (st.st_dev, st.st_ino)
        if key in self.visited:
            return False
        self.visited.add(key)
        return True

    def _add(self, kind: str, path: str, refusal: str | None = None, skip: str | None = None):
        if refusal is None and skip is None:
            refusal = path_problem(path)
        self.entries[kind].append(Entry(path, refusal, skip))

    def follow_links(self) -> None:
        """Walk the symlinked folders met so far (and those met inside them), in order."""
        done = 0
        while done < len(self.links):
            path, target = self.links[done]
            done += 1
            if not _inside(target, self.roots):
                self._add("folder", path, refusal=_outside(target))
                continue
            try:
                st = os.stat(target)
            except OSError:
                continue
            if self._first_visit(st):
                self.walk(path, target)


def scan(docs_dir: Path, extra_roots: Sequence[Path] = ()) -> Listing:
    """Every markdown file and manifest of ``docs_dir`` and of the folders linked into it."""
    roots = source_roots(docs_dir, extra_roots)
    top = os.path.realpath(docs_dir)
    walker = _Walker(roots, sphinx_suffix.read(docs_dir))
    walker._first_visit(os.stat(top))
    walker.walk("", top)
    walker.follow_links()
    by_path = {k: tuple(sorted(v, key=lambda e: e.path)) for k, v in walker.entries.items()}
    return Listing(by_path["markdown"], by_path["manifest"], by_path["folder"])


def leave_out(path: str) -> str:
    """The end of a message about one file a build cannot use: how to build without it."""
    import shlex

    return f"leave it out with --exclude {shlex.quote(path)}"


def not_utf8(raw: bytes, start: int) -> tuple[int, str]:
    """(line, message) for the first byte of `raw` (a file as stored) that is not UTF-8, at
    offset `start`: the line and column an editor shows, and the byte itself."""
    line = raw.count(b"\n", 0, start) + 1
    column = start - (raw.rfind(b"\n", 0, start) + 1) + 1
    return line, f"not valid UTF-8 at column {column} (byte 0x{raw[start]:02x})"


def read_file(docs_dir: Path, path: str, roots: Sequence[Path], limit: int) -> bytes:
    """The bytes of the regular file at ``path`` (relative to docs_dir), at most ``limit``.

    The scan already refused what leads outside the roots and skipped what is not a regular
    file, without opening anything; this is the guard for a file changed since: it checks the
    file it actually opened (without blocking, so a FIFO cannot hang the build). Raises
    Refused for a file outside the roots, not regular or too large; OSError if unreadable."""
    full = os.path.join(docs_dir, path)
    fd = os.open(full, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        real = _real_path(fd, full)
        if not _inside(real, roots):
            raise Refused(_outside(real))
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"{_special(info.st_mode)}; refused")
        too_big = f"at most {limit:,} bytes are allowed per file; split it or leave it out"
        if info.st_size > limit:
            raise Refused(f"is {info.st_size:,} bytes; {too_big}")
        # One byte more than fstat said shows whether the file grew since.
        data = _read(fd, info.st_size + 1)
        if len(data) > info.st_size:
            data += _read(fd, limit + 1 - len(data))
        if len(data) > limit:
            raise Refused(f"is over {limit:,} bytes; {too_big}")
        return data
    finally:
        os.close(fd)


def _real_path(fd: int, path: str) -> str:
    """The real path of the open file ``fd``: one readlink on Linux, else resolved again."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return os.path.realpath(path)


def _read(fd: int, size: int) -> bytes:
    """Up to ``size`` bytes from ``fd`` (fewer only at the end of the file)."""
    parts = []
    while size > 0 and (part := os.read(fd, size)):
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


def discover(docs_dir: Path, include: Sequence[str] = (), exclude: Sequence[str] = ()) -> list[str]:
    """Sorted POSIX paths (relative to docs_dir) of the readable markdown files selected by the
    globs."""
    return [
        e.path
        for e in scan(Path(docs_dir)).markdown
        if e.refusal is None and e.skip is None and selected(e.path, include, exclude)
    ]


def find_manifests(docs_dir: Path) -> list[str]:
    """Sorted POSIX paths (relative to docs_dir) of the manifests outside hidden folders."""
    return [e.path for e in scan(Path(docs_dir)).manifests]
