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

from docsmcp.sources.files import (
    CODE_BESIDE_SITES,
    MANIFEST_NAME,
    PDF_SUFFIXES,
    SOURCE_SUFFIXES,
    TEXINFO_SUFFIXES,
    inside_roots,
    is_generated_page,
    is_html,
    is_llms_full,
    leave_out,
    outside_roots,
    path_problem,
    shown,
    source_roots,
    special_kind,
)
from docsmcp.sources.formats.r.rmarkdown import not_pages
from docsmcp.sources.globs import GlobError as GlobError
from docsmcp.sources.globs import compile_glob as compile_glob
from docsmcp.sources.globs import glob_match as glob_match
from docsmcp.sources.globs import glob_problem as glob_problem
from docsmcp.sources.globs import glob_to_regex as glob_to_regex
from docsmcp.sources.globs import matches_any as matches_any
from docsmcp.sources.globs import selected
from docsmcp.sources.perl_command import is_command
from docsmcp.sources.sites import sphinx_suffix
from docsmcp.sources.sites.sphinx_suffix import SphinxSuffixes

log = logging.getLogger(__name__)


# --- the docs tree ------------------------------------------------------------------------------
# The builder reads only inside its source roots: the docs dir and any --source-root. It walks the
# docs dir's own folders first, then folders reached through symlinks, each real folder once (a
# symlink loop or a second way to a folder adds nothing). Symlinks whose real path leaves every
# root are refused; FIFOs, sockets and devices are skipped with a warning, never opened.


@dataclass(frozen=True)
class Entry:
    """A markdown file, manifest or symlinked folder met in the docs tree."""

    path: str  # POSIX, relative to the docs dir (as the file system spells it)
    refusal: str | None = None  # why it is refused (a Problem), or None
    skip: str | None = None  # why it is left out (a warning): it is not a regular file


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
            not is_html(e.path) and not e.path.lower().endswith(CODE_BESIDE_SITES)
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


def _kind(name: str) -> str | None:
    if name == MANIFEST_NAME:
        return "manifest"
    if not name.startswith(".") and (name.lower().endswith(SOURCE_SUFFIXES) or is_llms_full(name)):
        return "markdown"
    return None


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


class _Walker:
    """Collects the entries of the docs tree; see the comment above `Entry`."""

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
            if kind is None and is_command(entry.path, entry.name, os.path.dirname(entry.path)):
                kind = "markdown"  # (a Perl distribution's command: perl_command.py)
            if kind is not None and not self.sphinx.figure(path):
                # is_file() answers from the listing itself; only an odd entry costs a stat.
                regular = entry.is_file(follow_symlinks=False)
                skip = None if regular else special_kind(entry.stat(follow_symlinks=False).st_mode)
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
        if not inside_roots(target, self.roots):
            self._add(kind, path, refusal=outside_roots(target))
        elif st is not None and not stat.S_ISREG(st.st_mode):
            self._add(kind, path, skip=f"{special_kind(st.st_mode)} (through a symlink)")
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
            if not inside_roots(target, self.roots):
                self._add("folder", path, refusal=outside_roots(target))
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
