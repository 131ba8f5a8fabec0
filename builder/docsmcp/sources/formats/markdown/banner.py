"""A banner above a page's own title: an HTML heading alone on the page's first line, with the
page's markdown heading next (Fastify opens 34 of its 42 pages with `<h1 align="center">Fastify
</h1>` then `## Decorators`). It repeats the site's name over every page, as a site's header
does (fastify.dev shows none: its build removes the line). Read as text it was each page's
preamble chunk, a chunk of one word that ranked second for "how to write a plugin", and each
page's description. The line is blanked (the file keeps its number of lines).

An HTML heading with the page's text under it (`<h1>Serverless</h1>` then a paragraph) is the
page's own and stays.
"""

from __future__ import annotations

import re

from docsmcp.sources.formats.markdown.dialects import ATX

_HTML_HEADING = re.compile(r"^[ ]{0,3}<(h[1-6])\b[^<>]*>[^<>]*</\1>[ \t]*$", re.IGNORECASE)


def drop_banner(lines: list[str]) -> list[str]:
    """`lines` with a banner heading on their first non-blank line blanked."""
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or not _HTML_HEADING.match(lines[first]):
        return lines
    following = next((line for line in lines[first + 1 :] if line.strip()), "")
    if not ATX.match(following):
        return lines
    return [*lines[:first], "", *lines[first + 1 :]]
