"""One Swift type, one symbol: what the tree-wide pass (packages/swift_extensions.py) tells the
DocC reader (swiftdoc.py) about a type declared in one file and extended in others.

DocC shows one page per symbol, an extension's members on its type's page. Here each file is
a page (its lines stay its own), so the pass appends one line to a page, after a marker
(`MERGE`): a JSON object of `declared` (a type path this file only extends, to the file that
declares it, relative to this one) and `extended` (a type path this file declares, to the files
that extend it and the members each adds). The extending file's section then says where the
type is and is no API entry or link target of the type (its members still are, named by the
type: `OrderedSet.append(_:)`); the declaring file's section lists the members the extensions
add, with a link to each file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from docsmcp.sources.formats.source import pass_line

MERGE = "//@docsmcp-swift-merge "  # the marker of the line the pass appends to a page


@dataclass(frozen=True)
class Merge:
    declared: dict[str, str] = field(default_factory=dict)  # type path -> declaring file
    # type path -> ((extending file, (member names …)) …)
    extended: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = field(default_factory=dict)
    # type path -> ((base path, its kind, ((member, declaration, summary) …)) …), nearest first:
    # what the type gets from its superclass and protocols' extensions (swift_inherit.py)
    inherited: dict[str, tuple[tuple[str, str, tuple[tuple[str, str, str], ...]], ...]] = field(
        default_factory=dict
    )

    def encode(self) -> str:
        data: dict[str, object] = {
            "declared": dict(sorted(self.declared.items())),
            "extended": {k: [[f, list(m)] for f, m in v] for k, v in sorted(self.extended.items())},
        }
        if self.inherited:  # (absent otherwise: the lines of pages without it stay as they were)
            data["inherited"] = {
                k: [[b, kind, [list(m) for m in ms]] for b, kind, ms in v]
                for k, v in sorted(self.inherited.items())
            }
        return pass_line.encode(MERGE, data)

    def __bool__(self) -> bool:
        return bool(self.declared or self.extended or self.inherited)


def split(text: str) -> tuple[str, Merge]:
    """`text` without the pass's line, and what the line says (nothing when none or broken)."""
    return pass_line.split(text, "\n" + MERGE, _read, Merge)


def _read(data: Any) -> Merge:
    return Merge(
        {str(k): str(v) for k, v in data.get("declared", {}).items()},
        {
            str(k): tuple((str(f), tuple(str(x) for x in m)) for f, m in v)
            for k, v in data.get("extended", {}).items()
        },
        {
            str(k): tuple(
                (str(b), str(kind), tuple(tuple(str(x) for x in m[:3]) for m in ms))
                for b, kind, ms in v
            )
            for k, v in data.get("inherited", {}).items()
        },
    )
