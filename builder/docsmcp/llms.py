"""llms.txt both ways: `docsmcp export --llms-txt` writes a bundle's pages as `llms.txt` and
`llms-full.txt`, and the builder reads an `llms-full.txt` back as pages.

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

import contextlib
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from docsmcp_runtime.distribution.swap import pid_alive, replace_file

from .discover import LLMS_FULL_NAME, MARKDOWN_SUFFIXES, path_problem
from .fences import fenced_lines

LLMS_TXT_NAME = "llms.txt"
ROOT_SECTION = "Top-level pages"
# The page the text before the first page heading becomes.
LEAD_PAGE = "index.md"
# Slugs naming pages are cut to this many characters (a heading can be a paragraph long).
MAX_SLUG_CHARS = 80

# The second line of a page of a docsmcp llms-full.txt, after its `# {title}` line.
_SOURCE = re.compile(r"<!-- source: (.+) \((\d{1,9}) lines?\) -->")
_SOURCE_START = "<!-- source: "
# An ATX level-1 heading (CommonMark: up to 3 spaces of indentation, `#`, then a space or the
# end of the line), and its optional closing sequence.
_H1 = re.compile(r" {0,3}#(?:[ \t]+(.*))?")
_CLOSING = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
# Temporary files of an export (ours or one that died), `.llms.txt.tmp-PID`.
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
    """(name, description, pages in path order) of a bundle. Pages come from `pages.parquet`,
    or from the chunk table of a bundle built before it. Raises ExportError (one line)."""
    from docsmcp_runtime.browse.pages import PageIndex
    from docsmcp_runtime.bundle.reader import open_bundle
    from docsmcp_runtime.errors import BundleError

    try:
        bundle = open_bundle(bundle_dir)
        index = PageIndex(bundle)
    except BundleError as exc:
        raise ExportError(str(exc), bundle=True) from None
    pages = []
    for i, path in enumerate(index.paths):
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
    """The pages at the root, then those of each top folder, in path order."""
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


# --- import ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SplitPage:
    name: str  # the page's path inside the file: `guides/auth.md`, `getting-started.md`
    title: str | None  # the title of a docsmcp page (its `# ` line), else None
    text: str


def split_llms_full(text: str) -> list[SplitPage]:
    """The pages of an llms-full.txt (see the module docstring). Never raises; names are unique
    relative paths ending in .md or .mdx that make valid chunk ids."""
    lines = text.split("\n")
    markers = _markers(lines)
    if markers:
        pages = _framed(lines, markers[0]) or _unframed(lines, markers)
        lead = lines[: markers[0]]
    else:
        pages, lead = _by_headings(lines)
    claimed: set[str] = set()
    suffixes: dict[str, int] = {}
    out = [SplitPage(_claim(n, claimed, suffixes), t, body) for n, t, body in pages]
    if any(line.strip() for line in lead):
        lead_page = SplitPage(_claim(LEAD_PAGE, claimed, suffixes), None, _trim(lead))
        out.insert(0, lead_page)
    return out


def _markers(lines: list[str]) -> list[int]:
    """Lines that open a page of a docsmcp export: `# title`, then the source comment."""
    return [
        i
        for i in range(len(lines) - 1)
        if lines[i + 1].startswith(_SOURCE_START)
        and lines[i].startswith("# ")
        and _SOURCE.fullmatch(lines[i + 1])
    ]


def _page_head(lines: list[str], i: int) -> tuple[str, str | None, int]:
    """(name, title, line count) of the page whose marker is at line i."""
    m = _SOURCE.fullmatch(lines[i + 1])
    assert m is not None
    title = lines[i][2:].strip() or None
    return _explicit_name(m.group(1), title), title, int(m.group(2))


def _framed(lines: list[str], start: int) -> list[tuple[str, str | None, str]] | None:
    """The pages of an export as written, each read by its line count; None when the framing
    does not hold (the file was edited)."""
    pages = []
    i, n = start, len(lines)
    while True:
        while i < n and not lines[i].strip():
            i += 1
        if i == n:
            return pages
        if not (i + 1 < n and lines[i].startswith("# ") and _SOURCE.fullmatch(lines[i + 1])):
            return None
        name, title, count = _page_head(lines, i)
        end = i + 3 + count
        if end > n or lines[i + 2] != "" or (end < n and lines[end].strip()):
            return None
        pages.append((name, title, "\n".join(lines[i + 3 : end])))
        i = end


def _unframed(lines: list[str], markers: list[int]) -> list[tuple[str, str | None, str]]:
    """The pages of an edited export: each runs from its marker to the next."""
    pages = []
    for k, i in enumerate(markers):
        end = markers[k + 1] if k + 1 < len(markers) else len(lines)
        name, title, _ = _page_head(lines, i)
        pages.append((name, title, _trim(lines[i + 2 : end])))
    return pages


def _by_headings(lines: list[str]) -> tuple[list[tuple[str, str | None, str]], list[str]]:
    """Pages of a third-party llms-full.txt, split at `# ` headings outside code fences; and
    the lines before the first."""
    fenced = fenced_lines(lines)
    starts = [i for i, line in enumerate(lines) if not fenced[i] and _H1.fullmatch(line)]
    pages = []
    for k, i in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        m = _H1.fullmatch(lines[i])
        assert m is not None
        heading = _CLOSING.sub("", (m.group(1) or "").strip()).strip()
        pages.append((_slug_name(heading), None, _trim(lines[i:end])))
    return pages, lines[: starts[0]] if starts else lines


def _trim(lines: list[str]) -> str:
    return "\n".join(lines).strip("\n")


def _slug_name(title: str | None) -> str:
    from .chunk import slugify  # chunk imports manifest, which imports this module lazily

    slug = slugify(title or "")[:MAX_SLUG_CHARS].rstrip("-") or "section"
    return slug + ".md"


def _explicit_name(raw: str, title: str | None) -> str:
    """The source path of a docsmcp page, when it can name a page: a relative POSIX path of
    a .md/.mdx file, without `.`/`..` segments, usable in chunk ids; else the title's slug."""
    name = raw.strip()
    parts = name.split("/")
    if (
        name.lower().endswith(MARKDOWN_SUFFIXES)
        and "\\" not in name
        and all(p not in ("", ".", "..") for p in parts)
        and path_problem(name) is None
    ):
        return name
    return _slug_name(title)


def _claim(name: str, claimed: set[str], suffixes: dict[str, int]) -> str:
    """`name`, or `stem-2.ext`, `stem-3.ext`, ... when it is taken."""
    if name in claimed:
        stem, dot, ext = name.rpartition(".")
        n = suffixes.get(name, 1)
        while True:
            n += 1
            candidate = f"{stem}-{n}{dot}{ext}"
            if candidate not in claimed:
                break
        suffixes[name] = n
        name = candidate
    claimed.add(name)
    return name
