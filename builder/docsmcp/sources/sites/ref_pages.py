"""TanStack's documentation: a framework's page that shows another framework's page.

TanStack Query, Table, Router and Form document each framework adapter (React, Vue, Solid,
Svelte, Angular, ...) from one text. A page such as `framework/vue/guides/queries.md` holds
front matter `ref: docs/framework/react/guides/queries.md` and only its own examples; the site
(tanstack.com) shows the page it names, with:
- the page's `replace:` mapping applied to that text (`{'@tanstack/react-query':
  '@tanstack/vue-query', 'React': 'Vue'}`), every occurrence of each key;
- each part of that text between a pair of markers `[//]: # 'Example'` (a link reference
  definition, which markdown shows as nothing) replaced by the part of the page itself between
  markers of the same name (a name the page does not give keeps the named page's part);
- the markers removed.
Read as markdown, 156 of TanStack Query's 496 pages showed their code examples and no word of
prose: the Vue, Solid, Svelte, Angular, Preact and Lit guides.

`ref` is a path of the repository; it names the page whose path under the docs folder is that
path without up to its first few folders (`docs/framework/react/x.md` is `framework/react/x.md`
when the docs folder is `docs/`). A page that names a page that itself names one shows that
one's page (at most `MAX_DEPTH` steps), with its own replacements. Replacement keys are text,
not patterns (the site reads them as JavaScript regular expressions; every key TanStack writes
is plain text), at most `MAX_REPLACEMENTS`. Done once every page is read (corpus.py), as
router_pages.py does: a page that shows another gets a line map (every line its `ref:` line's)
and is read on every build; the page shown is never taken from known_files.py's record.
A `ref` naming no page leaves the page as it is, with one warning line.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Callable, Sequence

from docsmcp.model.source import SourceFile

log = logging.getLogger("docsmcp.sources.sites.ref_pages")

MAX_DEPTH = 3  # pages followed from a page to the page it shows
MAX_REPLACEMENTS = 64  # `replace:` keys applied, at most
_MAX_KEY = 1000  # characters of one replacement key or value
_LEADING = 3  # folders of a `ref` path that may name no folder of the docs (`docs/`)
# A marker line: `[//]: # 'Name'` (TanStack's names are letters and digits).
_MARKER = re.compile(r"^\[//\]: # '([A-Za-z\d]*)'[ \t]*$", re.M)
_PAGES = (".md", ".mdx")


def _named(sf: SourceFile) -> str | None:
    value = sf.frontmatter_with("ref").get("ref")
    if not isinstance(value, str) or not value.strip().endswith(_PAGES):
        return None
    return value.strip()


def _target(ref: str, by_path: dict[str, SourceFile]) -> SourceFile | None:
    parts = ref.removeprefix("./").lstrip("/").split("/")
    for k in range(min(_LEADING, len(parts) - 1) + 1):
        found = by_path.get("/".join(parts[k:]))
        if found is not None:
            return found
    return None


def shown(files: Sequence[SourceFile]) -> frozenset[str]:
    """The paths of the pages other pages of `files` show: a rebuild reads them (known_files.py
    takes an unchanged file without its text)."""
    named = [ref for sf in files if (ref := _named(sf))]
    if not named:
        return frozenset()
    by_path = {sf.path: sf for sf in files}
    return frozenset(t.path for ref in named if (t := _target(ref, by_path)) is not None)


def _replacements(sf: SourceFile) -> list[tuple[str, str]]:
    value = sf.frontmatter_with("replace").get("replace")
    if not isinstance(value, dict):
        return []
    pairs = [
        (key, text)
        for key, text in value.items()
        if isinstance(key, str) and isinstance(text, str) and key and len(key) <= _MAX_KEY
    ]
    return [(key, text[:_MAX_KEY]) for key, text in pairs[:MAX_REPLACEMENTS]]


def _parts(body: str) -> dict[str, tuple[int, int]]:
    """The marked parts of `body`: name -> (start, end) from its opening marker to the end of
    its closing one (markers pair in order, as the site pairs them; a later part of the same
    name wins)."""
    markers = list(_MARKER.finditer(body))
    return {
        opening.group(1): (opening.start(), closing.end())
        for opening, closing in zip(markers[::2], markers[1::2], strict=False)
    }


def shown_text(named: str, own: str, replacements: Sequence[tuple[str, str]]) -> str:
    """The text a page whose body is `own` shows of the page whose body is `named`."""
    for key, value in replacements:
        named = named.replace(key, value)
    mine = _parts(own)
    theirs = _parts(named)
    for name, (start, end) in sorted(theirs.items(), key=lambda kv: -kv[1][0]):
        if name in mine:
            a, b = mine[name]
            named = named[:start] + own[a:b] + named[end:]
    return _MARKER.sub("", named)


def resolve(
    files: Sequence[SourceFile], read: Callable[[str], SourceFile | None] | None = None
) -> list[SourceFile]:
    """`files` with each page that names another (`ref:`) showing that page's text. `read(path)`
    reads a page again: one a rebuild took unchanged without its text (known_files.py)."""
    if not any(_named(sf) for sf in files):
        return list(files)
    by_path = {sf.path: sf for sf in files}
    out = []
    for sf in files:
        ref = _named(sf)
        target = _final(ref, by_path) if ref else None
        if target is not None and not target.text and read is not None:
            target = read(target.path) or target
        if target is None or target is sf or not target.body.strip():
            if ref:
                log.warning("%s: its ref %r names no page with text; left as it is", sf.path, ref)
            out.append(sf)
            continue
        body = shown_text(target.body, sf.body, _replacements(sf))
        line = sf.frontmatter_line("ref")
        out.append(dataclasses.replace(sf, body=body, line_map=(line,) * (body.count("\n") + 1)))
    return out


def _final(ref: str, by_path: dict[str, SourceFile]) -> SourceFile | None:
    """The page `ref` names, following the pages that name another (at most MAX_DEPTH)."""
    target = None
    for _ in range(MAX_DEPTH):
        target = _target(ref, by_path)
        ref_next = _named(target) if target is not None else None
        if ref_next is None:
            return target
        ref = ref_next
    return None  # (a cycle, or a chain too long)
