"""What the tree-wide pass over C# pages (packages/dotnet_merge.py) tells the converter
(csharpdoc.py), which reads one file at a time: the base member's comment an `<inheritdoc/>`
copies, and the code of the `<code source="…" region="…"/>` files, as docfx shows both.

The pass appends one line to a page, after a marker (`MERGE`): a JSON object of `docs` (a
declaration's key, `line:name` of its declaration in the file, to the XML comment it inherits)
and `regions` ("source#region" as written to the region's code).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from docsmcp.sources.formats.source import pass_line
from docsmcp.sources.formats.source.csharp_decls import Decl
from docsmcp.sources.formats.source.xmldoc import XmlDoc

MERGE = "//@docsmcp-csharp-merge "  # the marker of the line the pass appends to a page


@dataclass(frozen=True)
class Merge:
    docs: dict[str, str] = field(default_factory=dict)
    regions: dict[str, str] = field(default_factory=dict)
    # a type's key -> its bases of the tree and what it inherits of each, nearest first
    # (packages/dotnet_inherit.py; written by csharp_inherit.py)
    inherits: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def encode(self) -> str:
        data: dict[str, Any] = {
            "docs": dict(sorted(self.docs.items())),
            "regions": dict(sorted(self.regions.items())),
        }
        if self.inherits:  # (only then: a page without bases reads as before)
            data["inherits"] = dict(sorted(self.inherits.items()))
        return pass_line.encode(MERGE, data)

    def __bool__(self) -> bool:
        return bool(self.docs or self.regions or self.inherits)


def key(decl: Decl) -> str:
    """A declaration's key on its page (both sides parse the same text)."""
    return f"{decl.line}:{decl.name}"


def split(text: str) -> tuple[str, Merge]:
    """`text` without the pass's line, and what the line says (nothing when none or broken)."""
    return pass_line.split(text, "\n" + MERGE, _read, Merge)


def _read(data: Any) -> Merge:
    return Merge(
        {str(k): str(v) for k, v in data.get("docs", {}).items()},
        {str(k): str(v) for k, v in data.get("regions", {}).items()},
        {str(k): list(v) for k, v in data.get("inherits", {}).items()},
    )


def inherited(own: XmlDoc, base: XmlDoc, names: frozenset[str]) -> XmlDoc:
    """`own` (a comment holding `<inheritdoc/>`) with what it does not say taken from `base`,
    as docfx copies it: each section the member writes itself wins, parameters by name (only
    those of `names`, the declaration's parameters and type parameters)."""

    def by_name(mine: tuple[tuple[str, str], ...], theirs: tuple[tuple[str, str], ...]):
        named = {n for n, _ in mine}
        return mine + tuple(x for x in theirs if x[0] not in named and x[0] in names)

    return dataclasses.replace(
        own,
        summary=own.summary or base.summary,
        remarks=own.remarks or base.remarks,
        returns=own.returns or base.returns,
        value=own.value or base.value,
        params=by_name(own.params, base.params),
        typeparams=by_name(own.typeparams, base.typeparams),
        exceptions=own.exceptions or base.exceptions,
        examples=own.examples or base.examples,
        seealso=own.seealso or base.seealso,
        inheritdoc=None,
    )
