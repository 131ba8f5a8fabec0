"""Reading an llms-full.txt: its pages split by their frames or headings, each with a file name of
its own, so a corpus can be built from one (the other direction of commands/export.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docsmcp.model.text import slugify
from docsmcp.sources.files import MARKDOWN_SUFFIXES, path_problem
from docsmcp.sources.formats.markdown.fences import fenced_lines

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
