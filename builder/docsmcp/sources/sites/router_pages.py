"""Next.js' documentation: one page written for two routers, and pages that show another's text.

Next.js documents its App Router (`02-app/`) and its Pages Router (`03-pages/`) from one text:
- a part for one router is wrapped in `<AppOnly>…</AppOnly>` or `<PagesOnly>…</PagesOnly>`,
  as blocks of lines or within a sentence (`your <PagesOnly>API Endpoints</PagesOnly>
  <AppOnly>Route Handlers</AppOnly>`); the site shows a page's parts for its own router and
  none of the other's (read as MDX, both showed: "API EndpointsRoute Handlers");
- a Pages Router page whose front matter says `source: app/api-reference/components/image`, and
  whose body is only a comment, shows that App Router page's text, read for the Pages Router,
  under its own title and description. 89 of the 326 pages of Next.js' docs are such, and each
  was a page with no text: the Pages Router's `<Image>`, `next.config.js` options, fonts, ...

The router is a page's first folder without its ordering prefix (`02-app` is `app`, `03-pages`
`pages`); a page in neither keeps both parts, as written. A `source` is a route, read as
xref_resolve reads links: the page whose path without ordering prefixes and suffix, or whose
folder's `index`, is it. Done once every page is read (corpus.py): the page shown is read with
its includes first; a page that shows another gets a line map (every line its `source:` line's),
so it is read again on every build and its parse is keyed on the text shown; the page shown is
never recorded by known_files.py either (a rebuild would take it without its text). A `source`
naming no page, or a page that itself names a source, leaves the page as it was, with one
warning line.
"""

from __future__ import annotations

import bisect
import dataclasses
import logging
import posixpath
import re
from collections.abc import Callable, Sequence
from itertools import accumulate

from docsmcp.model.source import SourceFile
from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.roles import ORDER_PREFIX

log = logging.getLogger("docsmcp.sources.sites.router_pages")

_TAGS = {"app": "PagesOnly", "pages": "AppOnly"}  # a router -> the tag of the other's parts
_PART = re.compile(r"<(AppOnly|PagesOnly)>|</(AppOnly|PagesOnly)>")
_CODE_SPAN = re.compile(r"(`+)[^`]*?\1")  # (a backtick run closed by one as long)
_COMMENT = re.compile(r"\{/\*.*?\*/\}|<!--.*?-->", re.DOTALL)
_MDX = (".mdx", ".md")


def _in_docs(path: str) -> str:
    """`path` below the repository's `docs/` folder when the docs are built from the
    repository's root (`docs/01-app/x.mdx`: its Pages Router pages showed no text)."""
    below = path.removeprefix("docs/")
    return below if below != path and _first(below) in _TAGS else path


def _first(path: str) -> str:
    return ORDER_PREFIX.sub("", path.split("/", 1)[0]) if "/" in path else ""


def router(path: str) -> str | None:
    """`app` or `pages`: the router a page at `path` documents (None: neither)."""
    first = _first(_in_docs(path))
    return first if first in _TAGS else None


def route(path: str) -> str:
    """The route of a page at `path`: its folders and stem without ordering prefixes, and
    without a last `index` (`02-app/01-x/index.mdx` is `app/x`; `docs/` above the routers
    is no part of it, as a `source:` names no `docs/`)."""
    stem = posixpath.splitext(_in_docs(path))[0]
    parts = [ORDER_PREFIX.sub("", part) for part in stem.split("/")]
    if len(parts) > 1 and parts[-1] == "index":
        parts.pop()
    return "/".join(parts)


def for_router(body: str, which: str | None) -> str:
    """`body` without the parts for the router other than `which` (as many lines: a part's
    lines become blank, a part within a line goes). Tags in fenced code, code spans and
    comments are text; a part with no end tag runs to the end of the page, as an unclosed
    element would (an MDX page with one does not compile)."""
    if which is None or "Only>" not in body:
        return body
    other = _TAGS[which]
    lines = body.split("\n")
    starts = [0, *accumulate(len(line) + 1 for line in lines)]
    code = fenced_lines(lines)
    masked = [m.span() for m in _COMMENT.finditer(body)]
    for k, line in enumerate(lines):
        if code[k]:
            masked.append((starts[k], starts[k] + len(line)))
        elif "`" in line:
            masked += [(starts[k] + a, starts[k] + b) for a, b in _spans(line)]
    masked.sort()
    firsts = [a for a, _ in masked]
    reach = list(accumulate((b for _, b in masked), max))  # (the furthest end so far)

    def in_code(at: int) -> bool:
        k = bisect.bisect_right(firsts, at) - 1
        return k >= 0 and at < reach[k]

    pieces: list[str] = []
    kept = depth = 0
    cut = -1
    for m in _PART.finditer(body):
        if in_code(m.start()) or (m.group(1) or m.group(2)) != other:
            continue
        if m.group(1):
            if depth == 0:
                cut = m.start()
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                pieces += [body[kept:cut], "\n" * body.count("\n", cut, m.end())]
                kept = m.end()
    if depth:  # (unclosed: the rest of the page)
        pieces += [body[kept:cut], "\n" * body.count("\n", cut)]
        kept = len(body)
    pieces.append(body[kept:])
    return "".join(pieces)


def _spans(line: str) -> list[tuple[int, int]]:
    return [m.span() for m in _CODE_SPAN.finditer(line)]


def _named(sf: SourceFile) -> str | None:
    """The route a page's front matter names as its `source:`, if any."""
    if router(sf.path) is None:
        return None
    value = sf.frontmatter_with("source").get("source")
    if not isinstance(value, str) or not value.strip():
        return None
    return value.strip().strip("/").removeprefix("docs/")


def _source(sf: SourceFile) -> str | None:
    """The route a page shows (`source:`), if its body says nothing (comments and blank lines
    only)."""
    value = _named(sf)
    return None if value is None or _COMMENT.sub("", sf.body).strip() else value


def shown(files: Sequence[SourceFile]) -> frozenset[str]:
    """The paths of the pages that other pages of `files` show: their text is another page's
    too, so a rebuild must read them (known_files.py takes an unchanged file without it)."""
    named = {value for sf in files if (value := _named(sf))}
    return frozenset(sf.path for sf in files if named and route(sf.path) in named)


def resolve(
    files: Sequence[SourceFile], read: Callable[[str], SourceFile | None] | None = None
) -> list[SourceFile]:
    """`files` with the pages that show another page's text given it, and every page of a
    router without the other router's parts. `read(path)` reads a page again: one a rebuild
    took unchanged without its text (known_files.py) and another page now shows."""
    if not any(router(sf.path) for sf in files):
        return list(files)
    routes = {route(sf.path): sf for sf in files}
    out = []
    for sf in files:
        which = router(sf.path) if sf.path.endswith(_MDX) else None
        if which is None:
            out.append(sf)
            continue
        body, line_map = sf.body, sf.line_map
        wanted = _source(sf)
        shown = routes.get(wanted) if wanted else None
        if shown is not None and not shown.text and read is not None:
            shown = read(shown.path) or shown
        if shown is not None and shown is not sf and not _source(shown):
            body = shown.body
            line_map = (sf.frontmatter_line("source"),) * (body.count("\n") + 1)
        elif wanted:
            log.warning(
                "%s: its source %r is no page with text; the page is left empty", sf.path, wanted
            )
        body = for_router(body, which)
        if body != sf.body or line_map != sf.line_map:
            sf = dataclasses.replace(sf, body=body, line_map=line_map)
        out.append(sf)
    return out
