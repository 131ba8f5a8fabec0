"""A Documenter.jl site's navigation: the `pages = [...]` list its `docs/make.jl` gives
`makedocs` (navfiles.py reads it as it reads mkdocs' `nav`).

make.jl is Julia code, never run: only the list literal is read. An entry is a page
(`"man/guide.md"`, titled by its own heading), a titled page (`"Guide" => "man/guide.md"`), a
titled group (`"Manual" => Any[...]`, the group's title is no page's), or a page hidden from the
menu (`hide("x.md")`, `hide("Title" => "x.md")`, `hide("x.md", [children])`), which the site
still builds. What is computed (`map(s -> "lib/$(s)", readdir(...))`, a variable) is passed
over, so those pages keep the path order after the listed ones. Paths are relative to
`makedocs`' `source` folder (`src` beside make.jl unless it says otherwise).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from docsmcp.sources.inclusion.include_report import julia_package
from docsmcp.sources.site_config import read_text
from docsmcp.sources.sites import julia_source

NAMES = ("make.jl",)
MAX_ITEMS = 100_000
MAX_DEPTH = 32

_PAGES = re.compile(r"(?m)^[ \t]*pages[ \t]*=[ \t]*(?:Any)?\[")
_SOURCE = re.compile(r'(?m)^[ \t]*source[ \t]*=[ \t]*"([^"$\\]+)"')
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|=>|[\[\](),]|[A-Za-z_][\w.!]*|#[^\n]*|\S')


def make_files(docs_dir: Path) -> list[Path]:
    """The make.jl files that may list `docs_dir`'s pages: in it, or beside it (`docs/src`)."""
    return [d / name for d in (docs_dir, docs_dir.parent) for name in NAMES]


def describe(docs_dir: Path, roots: Sequence[Path]) -> str | None:
    """init's line on a Documenter site (a make.jl calling `makedocs` in or beside `docs_dir`):
    where its `@docs` blocks' docstrings come from, and the option that reads them."""
    make = next((m for m in make_files(docs_dir) if "makedocs" in read_text(m)), None)
    if make is None:
        return None
    here = Path(docs_dir).resolve()
    found = julia_source.load(here, [here, *(Path(r).resolve() for r in roots)]).docstrings
    package = julia_package(docs_dir)
    where = f"--api-source {package}" if package else "--api-source with the package's folder"
    if found:
        read = f"{len(found)} docstrings read from the Julia source"
    else:
        read = f"the package's docstrings are not read: build with {where}"
    return (
        f"site: Documenter.jl ({make.name} calls makedocs): @docs and @autodocs blocks show "
        f"docstrings of the package's Julia source ({read})"
    )


def pages(make: Path) -> Iterator[tuple[Path, str]]:
    """(page file, title) of each page make.jl's `pages` names, in its order ("" for a page
    titled by its own heading)."""
    yield from listed(read_text(make), make.parent)


def listed(text: str, folder: Path) -> Iterator[tuple[Path, str]]:
    """(page file, title) of each page the make.jl `text` lists, for make.jl in `folder`."""
    start = _PAGES.search(text)
    if start is None:
        return
    source = _SOURCE.search(text)
    base = folder / (source.group(1) if source else "src")
    tokens = [t for t in _TOKEN.findall(text, start.end() - 1) if not t.startswith("#")]
    budget = [MAX_ITEMS]
    found: list[tuple[str, str]] = []
    _list(tokens, 0, found, budget, 0)
    for path, title in found:
        yield base / path, title


def _string(token: str) -> str | None:
    """A string literal's text; None for another token or one that interpolates (`$(s)`)."""
    if len(token) < 2 or token[0] != '"' or "$" in token:
        return None
    return token[1:-1].replace('\\"', '"')


def _list(
    tokens: list[str], i: int, found: list[tuple[str, str]], budget: list[int], depth: int
) -> int:
    """Reads the entries of the list (`[`) or call (`hide(`) opened by tokens[i]; the index
    after its closing `]` or `)`."""
    closing = "]" if tokens[i] == "[" else ")"
    i += 1
    while i < len(tokens) and tokens[i] != closing:
        budget[0] -= 1
        if budget[0] < 0 or depth > MAX_DEPTH:
            return len(tokens)
        i = _entry(tokens, i, found, budget, depth)
        if i < len(tokens) and tokens[i] == ",":
            i += 1
    return i + 1


def _entry(
    tokens: list[str], i: int, found: list[tuple[str, str]], budget: list[int], depth: int
) -> int:
    """Reads one entry at tokens[i]; the index after it."""
    token = tokens[i]
    if token == "[":
        return _list(tokens, i, found, budget, depth + 1)
    if token in ("Any", "hide") and i + 1 < len(tokens) and tokens[i + 1] in "[(":
        # (Any[...], and hide(...): its pages, in order)
        return _list(tokens, i + 1, found, budget, depth + 1)
    text = _string(token)
    if i + 2 < len(tokens) and tokens[i + 1] == "=>":
        value = tokens[i + 2]
        page = _string(value)
        if text is not None and page is not None and page.endswith(".md"):
            found.append((page, text))
            return i + 3
        if value in ("Any", "[", "hide"):  # a titled group
            return _entry(tokens, i + 2, found, budget, depth + 1)
        return _skip(tokens, i + 2)
    if text is not None and text.endswith(".md"):
        found.append((text, ""))
        return i + 1
    return _skip(tokens, i)


def _skip(tokens: list[str], i: int) -> int:
    """The index after the expression at tokens[i] (to the next `,` or closing bracket at its
    depth): what is computed."""
    depth = 0
    while i < len(tokens):
        t = tokens[i]
        if t in "[(":
            depth += 1
        elif t in "])":
            if depth == 0:
                return i
            depth -= 1
        elif t == "," and depth == 0:
            return i
        i += 1
    return i
