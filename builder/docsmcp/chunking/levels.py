"""The level a heading has in its page's structure, which the chunker splits at (chunk_by) and
`docsmcp init` measures sections by.

Pages skip levels: Starlette's docs (mkdocs, the title from the nav) open every section with
`###`, some pages put `### X` straight under `# Title`. Split by the written level, chunk_by h2
left each such page one chunk (responses.md: ten response classes, 7 KB, one hit). A heading no
h2..h6 encloses is a top section, level 2, whatever it is written as; one that k such headings
enclose is at most level 2 + k; h1 stays 1; none is deeper than written. A page that does not
skip levels keeps its levels.
"""

from __future__ import annotations

from collections.abc import Iterable


def structural_levels(levels: Iterable[int]) -> list[int]:
    """The structural level of each heading of a page, given their written levels in order."""
    out: list[int] = []
    enclosing: list[int] = []  # written levels of the open headings below h1
    for level in levels:
        while enclosing and enclosing[-1] >= level:
            enclosing.pop()
        out.append(1 if level == 1 else min(level, 2 + len(enclosing)))
        if level > 1:
            enclosing.append(level)
    return out
