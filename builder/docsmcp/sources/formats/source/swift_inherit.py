"""What a Swift type gets from its superclass and from the extensions of the protocols it
conforms to, as DocC's symbol page lists it ("Inherited From", "Default Implementations"), by
the rule the other languages' pages follow (helper i, session 17): in the type's section of the
file that declares it, a line per base, nearest first (`**Default implementations from
`ParsableArguments`:** `parse(_:)`, …`; a class's `**Inherited from `Base`:**`), each name a
reference the build resolves to the member's section; and each an API entry named as the
type's (`ArgumentParser.ParsableCommand.parse(_:)`) with the member's declaration and summary,
whose section is the line (the member's own where it is on the page). Never a copy.

The page converts alone, so the tree-wide pass (packages/swift_extensions.py) says what each
type gets: `Merge.inherited` (swift_merge.py). What the pass reads of a type (`Facts`): its
kind, the bases its declaration and extensions name (`: ParsableArguments, Sendable`, before any
`where`), and its members, each with whether an extension adds it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from docsmcp.sources.formats.markdown.fences import code_span
from docsmcp.sources.formats.source.doc_entries import dotted_category, source_entry
from docsmcp.sources.formats.source.inherit_walk import alias_entries, inherited_line

_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_ARGS = re.compile(r"<[^<>]*>")


@dataclass(frozen=True)
class Member:
    name: str
    declaration: str
    summary: str
    from_extension: bool  # (a protocol's default implementation, not a requirement)


def bases(declaration: str, kind: str) -> list[str]:
    """The types a type's or extension's declaration names after its `:` (no `where` clause,
    no generic arguments): `public struct A<T: P>: B, C where T: D` -> B, C."""
    text = declaration
    for _ in range(4):
        text = _ARGS.sub("", text)
    head, sep, rest = text.partition(f"{kind} ")
    if not sep:
        return []
    rest = re.split(r"\bwhere\b|\{", rest, maxsplit=1)[0]  # (`where Value: P`: no base)
    _, colon, clause = rest.partition(":")
    if not colon:
        return []
    out = []
    for part in clause.split(","):
        m = _NAME.search(part.replace("any ", "").replace("some ", ""))
        if m and m.group() not in ("class", "AnyObject"):
            out.append(m.group())
    return out


def write(page: Any, path: list[str], line: int) -> None:
    """The lines of what the type `path` gets (swiftdoc._Page `page`, at source `line`)."""
    for base, kind, members in page.merged.inherited.get(".".join(path), ()):
        names = [str(m[0]) for m in members]
        if not names:
            continue
        word = "Default implementations from" if kind == "protocol" else "Inherited from"
        targets = [f"{page.module}.{base}.{n}" for n in names]
        shown = [code_span(n) for n in names]
        at = inherited_line(page, line, code_span(base), shown, targets, word)
        child = ".".join([page.module, *path])
        page.aliases += [
            (f"{child}.{m[0]}", f"{page.module}.{base}.{m[0]}", m, at) for m in members
        ]


def entries(page: Any) -> None:
    """The entries of the members the lines name."""

    def new_entry(m: Any, child: str, at: int) -> None:
        name, signature, summary = (str(x) for x in (list(m) + ["", "", ""])[:3])
        page.api.append(
            source_entry(
                name=child,
                category=dotted_category(child),
                kind="method" if "(" in name else "type",
                signature=signature,
                description=summary,
                parameters=(),
                returns="",
                path=page.path,
                line_start=at + 1,
                line_end=at + 1,
            )
        )

    alias_entries(page, lambda name: name, new_entry, ends_at_line=True)
