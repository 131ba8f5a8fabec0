"""What a PHP class or interface inherits from types of the tree, as the phpDocumentor reader
(phpdoc.py) writes it, by the rule the other languages' pages follow (helper i, session 17):
in the type's own section, a line per parent, nearest first, naming the members it inherits
(`**Inherited from `AbstractProcessingHandler`:** `setFormatter()`, …`), each a reference the
build resolves to the parent's section (a link when the parent is earlier on the page); and
each an API entry named as the child's (`Monolog\\Handler\\StreamHandler::setFormatter`) with
the parent's declaration and summary, whose section is the parent member's own when that is on
the page, else the line. Never a copy of the text.

A trait's members are listed the same way in each type that `use`s it (`**From trait
`ProcessableHandlerTrait`:** …`), as phpDocumentor lists them with the class's own.

A member without a docblock, or whose docblock says `{@inheritDoc}`, shows the nearest parent
member's text, as phpDocumentor inherits it (`inherited`): the whole docblock where the member
has none or only the tag; else the tag's place in its text takes the parent's description, and
parameters, return and exceptions the member does not document are the parent's.

The page converts alone, so a tree-wide pass (packages/php_inherit.py) appends one line after
a marker (`MARKER`): a JSON object of each type's parents and their members (`bases`), and of
the docblocks its members inherit (`docs`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from docsmcp.sources.formats.markdown.fences import code_span
from docsmcp.sources.formats.source import pass_line, phpdoc_tags
from docsmcp.sources.formats.source.inherit_walk import alias_entries, inherited_line, linked
from docsmcp.sources.formats.source.php_parse import Param

MARKER = "\n//@docsmcp-php-inherit "  # the line the pass appends to a page
_PARAM_FIELDS = frozenset(f.name for f in dataclasses.fields(Param))


def encode(inherits: dict[str, list[dict[str, Any]]], docs: dict[str, Any]) -> str:
    data = {"bases": dict(sorted(inherits.items())), "docs": dict(sorted(docs.items()))}
    return pass_line.encode(MARKER, data)


def split(text: str) -> tuple[str, dict[str, list[Any]], dict[str, dict[str, Any]]]:
    """`text` without the pass's line, and what it says: each type's parents, and the
    docblocks its members inherit (nothing when none or broken)."""
    head, (bases, docs) = pass_line.split(text, MARKER, _read, lambda: ({}, {}))
    return head, bases, docs


def _read(data: Any) -> tuple[dict[str, list[Any]], dict[str, dict[str, Any]]]:
    bases = {str(k): list(v) for k, v in data.get("bases", {}).items()}
    return bases, {str(k): dict(v) for k, v in data.get("docs", {}).items()}


_TAG = re.compile(r"\{@inheritdoc\}", re.I)
_MARK = "\ue000"  # (where the tag stood, while the member's own docblock is read)


def inherited(
    own: str, said: dict[str, Any], link: Callable[[str, str], str]
) -> tuple[phpdoc_tags.DocBlock, str]:
    """The docblock a member shows when it inherits (`said`: the pass's `doc` and `from`),
    and the member it comes from; its own when what the pass said is broken."""
    parent_text, source = said.get("doc"), said.get("from")
    if not isinstance(parent_text, str) or not isinstance(source, str):
        return phpdoc_tags.read(own, link), ""
    parent = phpdoc_tags.read(parent_text, link)
    mine = phpdoc_tags.read(_TAG.sub(_MARK, own.replace(_MARK, "")), link)
    summary = mine.summary.replace(_MARK, "").strip()
    description: list[str] = []
    if not summary:  # (no text of its own before the tag: the parent's summary and text)
        summary = parent.summary
        description += parent.description
        if mine.description:
            description.append("")
    for x in mine.description:
        if x.strip() == _MARK:
            description += parent.description
        else:
            description.append(x.replace(_MARK, " ".join(parent.description)).rstrip())
    names = {p.name for p in mine.params}
    doc = dataclasses.replace(
        mine,
        summary=summary,
        description=tuple(description),
        params=mine.params + tuple(p for p in parent.params if p.name not in names),
        returns=mine.returns or parent.returns,
        throws=mine.throws or parent.throws,
        var=mine.var or parent.var,
        inherit=False,
    )
    return doc, source


def write(page: Any, decl: Any, bases: list[Any]) -> None:
    """The lines of what the type `decl` inherits (phpdoc._Page `page`); its entries
    (`entries`, once the page is written: a parent may come after its child)."""
    for base in bases:
        if not isinstance(base, dict):
            continue
        members = [m for m in base.get("members", ()) if isinstance(m, dict) and m.get("name")]
        key = str(base.get("key", ""))
        shown: list[str] = []
        targets: list[str] = []
        for m in members:
            name = str(m["name"])
            label = code_span(name + ("()" if m.get("kind") == "method" else ""))
            anchor = page.local.get(f"{key}::{name}")
            shown.append(linked(label, anchor))
            if anchor is None:
                targets.append(f"{key}::{name}")
        if not shown:
            continue
        word = "From trait" if base.get("trait") else "Inherited from"
        label = code_span(str(base.get("name", key)))
        at = inherited_line(page, decl.line, label, shown, targets, word)
        for m in members:
            page.aliases.append((f"{decl.name}::{m['name']}", f"{key}::{m['name']}", m, at))


def entries(page: Any) -> None:
    """The inherited members' entries: the parent member's own under the child's name where
    the page shows it, else one at the line."""

    def new_entry(m: dict[str, Any], child: str, at: int) -> None:
        params = tuple(
            Param(**{k: v for k, v in p.items() if k in _PARAM_FIELDS})
            for p in m.get("params", ())
            if isinstance(p, dict) and "name" in p
        )
        doc = phpdoc_tags.read(str(m.get("doc", "")), lambda t, label: label or t)
        kind = "method" if m.get("kind") == "method" else "type"
        page.entry(
            child, kind, str(m.get("signature", "")), doc, at, params, str(m.get("returns", ""))
        )

    alias_entries(page, lambda name: name, new_entry, first_only=True, ends_at_line=True)
