"""What a PHP class or interface inherits from types of the tree, as the phpDocumentor reader
(phpdoc.py) writes it, by the rule the other languages' pages follow (helper i, session 17):
in the type's own section, a line per parent, nearest first, naming the members it inherits
(`**Inherited from `AbstractProcessingHandler`:** `setFormatter()`, …`), each a reference the
build resolves to the parent's section (a link when the parent is earlier on the page); and
each an API entry named as the child's (`Monolog\\Handler\\StreamHandler::setFormatter`) with
the parent's declaration and summary, whose section is the parent member's own when that is on
the page, else the line. Never a copy of the text.

The page converts alone, so a tree-wide pass (packages/php_inherit.py) appends one line after
a marker (`MARKER`): a JSON object of each type's parents and their members.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any

from docsmcp.sources.formats.markdown.fences import code_span
from docsmcp.sources.formats.source import phpdoc_tags
from docsmcp.sources.formats.source.inherit_walk import alias_entries, inherited_line, linked
from docsmcp.sources.formats.source.php_parse import Param

log = logging.getLogger("docsmcp.sources.formats.source.php_inherit")

MARKER = "\n//@docsmcp-php-inherit "  # the line the pass appends to a page
_PARAM_FIELDS = frozenset(f.name for f in dataclasses.fields(Param))


def encode(inherits: dict[str, list[dict[str, Any]]]) -> str:
    return MARKER + json.dumps(dict(sorted(inherits.items())), ensure_ascii=False, sort_keys=True)


def split(text: str) -> tuple[str, dict[str, list[Any]]]:
    """`text` without the pass's line, and what it says (nothing when none or broken)."""
    head, found, line = text.rpartition(MARKER)
    if not found:
        return text, {}
    try:
        data = json.loads(line)
        return head, {str(k): list(v) for k, v in data.items()}
    except (ValueError, AttributeError, TypeError):
        log.debug("a broken inherit line is ignored")
        return head, {}


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
        at = inherited_line(page, decl.line, code_span(str(base.get("name", key))), shown, targets)
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
