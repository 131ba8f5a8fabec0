"""Which listed paths are reST pages: `.rst`, and the suffixes a Sphinx project's conf.py may
name besides it (`.txt` for Django, `.rest`).

A fact of the format, read wherever a path decides how a page is read (convert, includes,
link titles, cross-references); which `.txt` files a project lists as pages is the project's
word (sites/sphinx_suffix.py reads its conf.py). A `.txt` file is no page anywhere else (only
`llms-full.txt`, split by formats/llms_full.py), so a `.txt` page the listing holds is reST.
"""

from __future__ import annotations

from docsmcp.sources.files import is_llms_full

# The suffixes besides `.rst` a conf.py may name for reST that the builder reads as reST.
EXTRA_RST_SUFFIXES = (".txt", ".rest")
RST_PAGE_SUFFIXES = (".rst", *EXTRA_RST_SUFFIXES)


def is_rst(path: str) -> bool:
    """Whether the listed page `path` is reST: `.rst`, or a suffix conf.py names (only such a
    project's listing holds `.txt` pages; `llms-full.txt` is markdown)."""
    lower = path.lower()
    return lower.endswith(RST_PAGE_SUFFIXES) and not is_llms_full(lower)
