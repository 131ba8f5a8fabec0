"""The records of the API registry: an `ApiEntry` (a documented symbol), its `Parameter`s and
`Example`s.
"""

from __future__ import annotations

from dataclasses import dataclass

# The anchor namespace of the objects a reST page describes, for the code roles that name them
# (`:func:`read_text``, xref.py): anchors are compared as letters and digits only, so
# `object:read_text` meets no heading's slug.
OBJECT_ANCHOR = "object:"


@dataclass(frozen=True)
class Parameter:
    name: str
    type: str
    required: bool | None
    description: str


@dataclass(frozen=True)
class Example:
    language: str  # normalised fence language ("" when none)
    code: str


@dataclass(frozen=True)
class ApiEntry:
    name: str  # the identifier as the heading names it: "create_channel", "links.create"
    category: str  # the enclosing heading or page title
    kind: str  # "method" | "type"
    signature: str  # declaration, call line of a usage example, or name(params); "" if none
    description: str  # first prose paragraph(s), markdown/JSX stripped, <= 500 chars
    parameters: tuple[Parameter, ...]
    returns: str  # return/response type or a short description; "" if none
    examples: tuple[Example, ...]
    chunk_id: str  # id of the chunk that holds the entry's heading
    path: str
    line_start: int  # 1-based, inclusive: the heading line
    line_end: int  # 1-based, inclusive: the end of the section
    # A member the type inherits, named as the child's (`ZodEffects.brand`, `Document.select`):
    # a copy of the base's entry, not a definition. It is found by its full and two-part
    # names, not by its last part, which names the definition (tables._name_definitions).
    inherited: bool = False
