"""The markdown a reader of source code writes for one page (javadoc, kdoc, swiftdoc, dartdoc,
csharpdoc, phpdoc, yard, scaladoc, haddock, pod, protodoc, soldoc; GraphQL's SDL pages and
manual pages too): its lines, each with the 0-based source line it came from (the page's line
map), its anchors, references and API entries, and the object anchors of its headings. One home
for how a block is set apart by a blank line, so the readers' pages cannot drift apart on it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import KW_ONLY, dataclass, field

from docsmcp.model.api import OBJECT_ANCHOR, ApiEntry
from docsmcp.model.source import Converted
from docsmcp.sources.formats.linemap import monotone


@dataclass
class PageText:
    """What every reader's `_Page` dataclass holds: the page's path, the written lines with
    their source lines (`out`), its headings' anchors and the references written (each at an
    output line), and its API entries. A reader's own fields follow `path` (those after
    `KW_ONLY` here are keywords only, so a page's own fields without a default may follow)."""

    path: str
    _: KW_ONLY
    out: list[tuple[int, str]] = field(default_factory=list)
    anchors: list[tuple[int, str]] = field(default_factory=list)
    refs: list[tuple[int, str]] = field(default_factory=list)
    api: list[ApiEntry] = field(default_factory=list)

    def add(self, line: int, text: str) -> None:
        self.out.append((line, text))

    def converted(self, title: str | None, description: str | None = None) -> Converted:
        """The page as the build takes it: its lines, `title`, its anchors, its line map (the
        source lines, made monotone), its API entries and references."""
        return Converted(
            "\n".join(t for _, t in self.out),
            title,
            tuple(self.anchors),
            monotone([n for n, _ in self.out]),
            tuple(self.api),
            tuple(self.refs),
            description=description,
        )

    def last_text(self, at: int, end: int | None = None) -> int:
        """The last line written before `end` (default: every line written) that holds text,
        or `at` when none after it does: where an entry written from line `at` ends."""
        last = (len(self.out) if end is None else end) - 1
        while last > at and not self.out[last][1]:
            last -= 1
        return last

    def blank(self, line: int) -> None:
        """One blank line before a block, none where the page already ends with one (or is
        empty)."""
        if self.out and self.out[-1][1]:
            self.add(line, "")

    def lines(self, line: int, lines: list[str] | tuple[str, ...]) -> None:
        """`lines` as a block of their own, nothing when they are all blank."""
        if any(x.strip() for x in lines):
            self.blank(line)
            for x in lines:
                self.add(line, x)


def object_anchors(at: int, parts: list[str]) -> list[tuple[int, str]]:
    """The object anchors of the heading at output line `at` that names `parts` (a qualified
    name's pieces): each dotted tail (`a.B.c`, `B.c`, `c`), so a reference finds the
    declaration however much of its name it writes."""
    return [(at, OBJECT_ANCHOR + ".".join(parts[k:])) for k in range(len(parts))]


class Anchors(set[str]):
    """The anchors a page has given, and for each base the next suffix to try, so that
    `unique_anchor` stays linear in a name's overloads (50,000 `def f` in one file took
    minutes when each tried `f-2`, `f-3`… from the start)."""

    def __init__(self, *given: Iterable[str]) -> None:
        super().__init__(*given)
        self.next: dict[str, int] = {}


def unique_anchor(base: str, used: Anchors) -> str:
    """`base`, or where the page already has it `base-2`, `base-3`… (overloads, a name in two
    scopes), recorded in `used`."""
    if base not in used:
        used.add(base)
        return base
    k = used.next.get(base, 2)
    while f"{base}-{k}" in used:
        k += 1
    used.next[base] = k + 1
    anchor = f"{base}-{k}"
    used.add(anchor)
    return anchor
