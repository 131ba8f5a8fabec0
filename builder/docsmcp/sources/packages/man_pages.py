"""Which files of a docs tree are Unix manual pages (formats/roff/manpage.py).

A manual page's suffix is its section (`tmux.1`, `ssh_config.5`, `SSL_read.3ssl`, `foo.man`,
a configure template `htop.1.in`, jq's `jq.1.prebuilt`), but so is the end of many names that
are no page: jq's signature folder `sig/v1.5`, bash's `tests/misc/test-minus-e.1`, a library's
`libfoo.so.1`. A file is a page when it reads as one: its first line that is no comment is a
roff request, and a title request (`.TH`, or mdoc's `.Dd`/`.Dt`) comes within its first 300
lines (pod2man's pages define ~100 lines of macros first). A page that is only `.so other.1`
(an alias of another page) is no page of its own.

A page generated from a source beside it is no page either: `rsync.1` built from
`rsync.1.md`, `git-add.1` from `git-add.adoc`, `foo.1` from `foo.pod` where the build reads POD
(a source counts only when it is a page of the build). The source is what its authors write, and
it reads as a page already; two pages of one text would split its hits. A configure template
(`htop.1.in`) beside the page built from it (`htop.1`) is no page: the built page has its
substitutions made. Files under `node_modules/` are no pages.
"""

from __future__ import annotations

import logging
import posixpath
from collections.abc import Iterable, Sequence
from pathlib import Path

from docsmcp.sources.files import MAN_SUFFIXES, read_file_text

log = logging.getLogger("docsmcp.sources.packages.man_pages")

MAX_BYTES = 4_000_000
HEAD_LINES = 300
_TITLES = (".TH", ".Dd", ".Dt", "'TH")
# Sources a page is built from, beside it, in the order generators name them.
_SOURCE_SUFFIXES = (".md", ".adoc", ".asciidoc", ".rst", ".ronn", ".pod", ".txt", ".markdown")


def reads_as_page(text: str) -> bool:
    """Whether `text` begins as a manual page (see the module docstring)."""
    first = True
    for line in text.split("\n", HEAD_LINES)[:HEAD_LINES]:
        stripped = line.strip()
        if not stripped or stripped in (".", "'") or stripped.startswith(('.\\"', "'\\\"", '\\"')):
            continue
        if first:
            if not stripped.startswith((".", "'")):
                return False
            if stripped.startswith(".so ") and len(text.strip().split("\n")) <= 3:
                return False
            first = False
        if stripped.startswith(_TITLES) and (len(stripped) == 3 or stripped[3] in " \t"):
            return True
    return False


def _base(path: str) -> str | None:
    """`path` without its manual suffix (`docs/tmux.1` → `docs/tmux`), or None."""
    lower = path.lower()
    for suffix in sorted(MAN_SUFFIXES, key=len, reverse=True):
        if lower.endswith(suffix):
            return path[: len(path) - len(suffix)]
    return None


def _generated(path: str, pages: set[str]) -> str | None:
    """The page of `pages` that `path` is built from, if any."""
    lower = path.lower()
    base = _base(path)
    if base is None:
        return None
    section = path[len(base) :].lower()
    if section.endswith((".in", ".prebuilt")):  # (a template or a copy of a built page)
        built = lower.rsplit(".", 1)[0]
        if built in pages and built != lower:
            return built
    for suffix in _SOURCE_SUFFIXES:
        for source in (lower + suffix, base.lower() + suffix):
            if source in pages:
                return source
    return None


def no_pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The files of `listed` with a manual page's suffix that are no page of their own."""
    listed = list(listed)
    candidates = [p for p in listed if p.lower().endswith(MAN_SUFFIXES)]
    if not candidates:
        return set()
    out: set[str] = set()
    pages = {p.lower() for p in listed}
    for path in candidates:
        if "node_modules/" in path or posixpath.basename(path).startswith("."):
            out.add(path)
            continue
        text = read_file_text(docs_dir, path, roots, MAX_BYTES)
        if text is None or not reads_as_page(text):
            out.add(path)
    pages -= {p.lower() for p in out}
    for path in candidates:
        if path in out:
            continue
        source = _generated(path, pages)
        if source is not None:
            log.debug("%s: built from %s, read as the page", path, source)
            out.add(path)
    return out
