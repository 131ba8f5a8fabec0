"""The level a heading has in its page's structure, which the chunker splits at (chunk_by) and
`docsmcp init` measures sections by.

Pages skip levels: Starlette's docs (mkdocs, the title from the nav) open every section with
`###`, some pages put `### X` straight under `# Title`. Split by the written level, chunk_by h2
left each such page one chunk (responses.md: ten response classes, 7 KB, one hit). A heading no
h2..h6 encloses is a top section, level 2, whatever it is written as; one that k such headings
enclose is at most level 2 + k; h1 stays 1, and so does a first heading no other one matches or
outranks (the page's title, written `##` in mdBook chapters); none is deeper than written. A
page that does not skip levels keeps its levels.
"""

from __future__ import annotations

from collections.abc import Iterable


def structural_levels(levels: Iterable[int]) -> list[int]:
    """The structural level of each heading of a page, given their written levels in order."""
    written = list(levels)
    # A page's first heading that no other heading matches or outranks is its title, level 1,
    # whatever it is written as: mdBook chapters open with `## What Is Ownership?` and cut at
    # `###` (the Rust book: "h1" and "h2" sections were the same 14 KB pages).
    top = min(written, default=1)
    titled = top > 1 and written[0] == top and written.count(top) == 1
    out: list[int] = []
    enclosing: list[int] = []  # written levels of the open headings below the title
    for i, level in enumerate(written):
        if level == 1 or (titled and i == 0):
            out.append(1)
            continue
        while enclosing and enclosing[-1] >= level:
            enclosing.pop()
        out.append(min(level, 2 + len(enclosing)))
        enclosing.append(level)
    return out
