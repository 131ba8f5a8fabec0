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

from collections.abc import Iterable, Sequence


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


def section_starts(levels: Sequence[int], entries: Sequence[bool], split: int) -> list[bool]:
    """Which headings start a section, given their structural levels, whether each heads an API
    entry the page's reader registered (`SourceFile.api`), and the split level (chunk_by; 0 is
    the whole file).

    A heading at the split level or shallower starts one, as always. So does an API entry's
    heading deeper than that: each entry is a chunk of its own, however the site's guides are
    cut (an ExDoc module's `## Functions` at h2 was one 9,400-character chunk of 25 entries,
    holding every word of a question somewhere). An entry runs to the next heading of its level
    or shallower, as apiref.py delimits entries: a heading after it that is no entry (rustdoc's
    `### Trait Implementations` after the last method) starts a section too, so it does not
    swell the last entry. Headings inside an entry (its Examples) stay in it."""
    out: list[bool] = []
    entry_level = 0  # the level of the entry the current section is, 0 when none
    for level, entry in zip(levels, entries, strict=True):
        if level <= split:
            start = True
            entry_level = 0
        elif split and entry:
            start = True
            entry_level = level
        elif entry_level and level <= entry_level:
            start = True
            entry_level = 0
        else:
            start = False
        out.append(start)
    return out
