"""llms.txt both ways: `docsmcp export --llms-txt` writes a bundle's pages as `llms.txt` and
`llms-full.txt`, and the builder reads an `llms-full.txt` back as pages
(sources/formats/llms_full.py).

**llms.txt** (the https://llmstxt.org convention)::

    # {bundle name}

    > {bundle description}

    {n} pages; llms-full.txt holds the full text of each.

    ## Top-level pages

    - [{title}]({link}): {description}

    ## {top folder}

    - [{title}]({link}): {description}

One `##` section per top folder, in path order, after the pages at the root (`Top-level
pages`); one line per page, in path order (": description" only when the page has one). The
link is the page path, percent-encoded, or with `--base-url URL`: URL, a `/` unless URL ends in
one, then the path without its `.md`/`.mdx` extension (`guides/auth.md` → `URL/guides/auth`).

**llms-full.txt**: every page in path order, each one framed as::

    # {title}
    <!-- source: {path} ({n} lines) -->

    {text: n lines}

with one blank line between pages. The text is the page's chunks joined by a blank line, in
row order (what the bundle holds of the page: frontmatter and sections without searchable text
are not in it). Titles and descriptions are written on one line (whitespace runs become one
space).

**Reading it back** (`split_llms_full`): any file named `llms-full.txt` or `*.llms-full.txt`
in the docs folder is split into pages, which the builder indexes like markdown files without
frontmatter (the file is read under the limits of one markdown file; globs, manifests and
overrides apply to the page paths). A page's path is the file's path, `/`, then its name:

- a docsmcp export gives back each page's source path (`llms-full.txt/guides/auth.md`: the
  chunk ids are the original ones behind that prefix, given the same chunking settings), its
  `# {title}` line as the page title and the framed lines as its text. Pages are read by their
  line counts; when those no longer hold (the file was edited), a page runs from one
  title-and-source pair to the next. A source path that cannot name a page (absolute, with
  `.`/`..` segments, not .md/.mdx, unusable in chunk ids) gives way to the title's slug;
- any other file is split at its `# ` headings outside code fences, each page keeping its
  heading line and named by its slug (`getting-started.md`, then `getting-started-2.md`,
  `-3`, ... for repeats, in file order).

Text before the first page, if any, is the page `index.md`. Names are unique (`-2`, `-3`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from docsmcp_runtime.distribution.swap import pid_alive, replace_file

from docsmcp.commands.console import _err
from docsmcp.sources.files import LLMS_FULL_NAME, MARKDOWN_SUFFIXES
from docsmcp.sources.formats.llms_full import _SOURCE_START

LLMS_TXT_NAME = "llms.txt"
ROOT_SECTION = "Top-level pages"
_TEMP = re.compile(r"\.(llms\.txt|llms-full\.txt)\.tmp-(\d+)")


class ExportError(Exception):
    """The export cannot be made; the message is one line. `bundle`: the bundle is at fault
    (unreadable or damaged), not the output folder or a flag."""

    def __init__(self, message: str, bundle: bool = False) -> None:
        super().__init__(message)
        self.bundle = bundle


# --- export ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    path: str
    title: str
    description: str
    text: str  # the page's chunks, joined by a blank line


@dataclass(frozen=True)
class Exported:
    pages: int
    sections: int
    llms_txt: Path
    llms_full_txt: Path


def read_pages(bundle_dir: Path) -> tuple[str, str, list[Page]]:
    """(name, description, pages) of a bundle, in the site's navigation order where the bundle
    has one (page_order.bin; the pages it does not name after them), else in path order. Pages
    come from `pages.parquet`, or from the chunk table of a bundle built before it. Raises
    ExportError (one line)."""
    from docsmcp_runtime.browse.pages import PageIndex
    from docsmcp_runtime.bundle.reader import open_bundle
    from docsmcp_runtime.errors import BundleError

    try:
        bundle = open_bundle(bundle_dir)
        index = PageIndex(bundle)
    except BundleError as exc:
        raise ExportError(str(exc), bundle=True) from None
    pages = []
    for i in index.site_order(range(len(index.paths))):
        path = index.paths[i]
        first, count = int(index.first_rows[i]), int(index.counts[i])
        text = "\n\n".join(bundle.text(row) for row in range(first, first + count))
        title = one_line(index.titles[i]) or PurePosixPath(path).stem
        pages.append(Page(path, title, one_line(index.descriptions[i]), text))
    meta = bundle.metadata
    return one_line(meta.name), one_line(meta.description), pages


def one_line(text: str) -> str:
    """``text`` on one line: every run of whitespace (newlines included) as one space."""
    return " ".join(text.split())


def page_link(path: str, base_url: str | None = None) -> str:
    """The link target of a page: its path, or `base_url` + the path without .md/.mdx."""
    if base_url is None:
        return quote(path)
    stem = path
    if stem.lower().endswith(MARKDOWN_SUFFIXES):
        stem = stem[: stem.rindex(".")]
    return base_url + ("" if base_url.endswith("/") else "/") + quote(stem)


def _link_text(title: str) -> str:
    return re.sub(r"([\\\[\]])", r"\\\1", title)


def sections(pages: list[Page]) -> list[tuple[str, list[Page]]]:
    """The pages at the root, then those of each top folder, in the order of `pages`."""
    groups: dict[str, list[Page]] = {}
    for page in pages:
        folder, slash, _ = page.path.partition("/")
        groups.setdefault(folder if slash else "", []).append(page)
    root = groups.pop("", [])
    return ([(ROOT_SECTION, root)] if root else []) + list(groups.items())


def render_llms_txt(
    name: str, description: str, pages: list[Page], base_url: str | None = None
) -> str:
    out = [f"# {name}", ""]
    if description:
        out += [f"> {description}", ""]
    out += [f"{len(pages)} pages; {LLMS_FULL_NAME} holds the full text of each.", ""]
    for title, members in sections(pages):
        out += [f"## {one_line(title)}", ""]
        for page in members:
            line = f"- [{_link_text(page.title)}]({page_link(page.path, base_url)})"
            out.append(f"{line}: {page.description}" if page.description else line)
        out.append("")
    return "\n".join(out)


def render_llms_full(pages: list[Page]) -> str:
    parts = []
    for page in pages:
        lines = page.text.count("\n") + 1
        unit = "line" if lines == 1 else "lines"
        head = f"# {page.title}\n{_SOURCE_START}{page.path} ({lines} {unit}) -->\n\n"
        parts.append(head + page.text + "\n")
    return "\n".join(parts)


def export_llms(bundle_dir: Path, out_dir: Path, base_url: str | None = None) -> Exported:
    """Write `llms.txt` and `llms-full.txt` of the bundle into `out_dir` (created if missing).
    `out_dir` may hold nothing but an earlier export; each file is replaced atomically."""
    if base_url is not None and (not base_url or any(c.isspace() for c in base_url)):
        raise ExportError(f"--base-url {base_url!r} must be a URL without spaces")
    name, description, pages = read_pages(bundle_dir)
    _prepare(out_dir)
    llms_txt, llms_full = out_dir / LLMS_TXT_NAME, out_dir / LLMS_FULL_NAME
    replace_file(llms_full, render_llms_full(pages).encode("utf-8"), durable=True)
    replace_file(
        llms_txt,
        render_llms_txt(name, description, pages, base_url).encode("utf-8"),
        durable=True,
    )
    return Exported(len(pages), len(sections(pages)), llms_txt, llms_full)


def _prepare(out_dir: Path) -> None:
    """Create `out_dir`, or check that it holds nothing but an earlier export (removing the
    temporary files of exports that died)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise ExportError(f"{out_dir} is not a directory")
    if not out_dir.exists():
        try:
            out_dir.mkdir(parents=True)
        except OSError as exc:
            raise ExportError(f"cannot create {out_dir}: {exc.strerror or exc}") from None
        return
    others = []
    for entry in sorted(os.listdir(out_dir)):
        temp = _TEMP.fullmatch(entry)
        if temp is not None:
            if not pid_alive(int(temp.group(2))):
                with contextlib.suppress(OSError):
                    os.unlink(out_dir / entry)
        elif entry not in (LLMS_TXT_NAME, LLMS_FULL_NAME):
            others.append(entry)
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        raise ExportError(
            f"{out_dir} holds {shown}; --llms-txt writes only into a new or empty folder or "
            f"one holding nothing but {LLMS_TXT_NAME} and {LLMS_FULL_NAME}"
        )


def _export(args: argparse.Namespace) -> int:
    try:
        done = export_llms(args.bundle, args.llms_txt, base_url=args.base_url)
    except ExportError as exc:
        _err(f"error: {exc}")
        return 1 if exc.bundle else 2
    except OSError as exc:
        _err(f"error: cannot write {args.llms_txt}: {exc.strerror or exc}")
        return 2
    if not args.quiet:
        print(
            f"wrote {done.llms_txt} ({done.pages} pages in {done.sections} sections) "
            f"and {done.llms_full_txt}"
        )
    return 0
