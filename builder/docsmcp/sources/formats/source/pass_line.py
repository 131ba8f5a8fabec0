"""The line a tree-wide pass appends to a page for its reader: a page converts alone, so what
the pass found in other files (a type's members declared elsewhere, what it inherits, the
extensions of a GraphQL type) travels after a marker as one JSON object. One home for how that
line is written, appended to the file and read, for every pass and reader that use one
(the C#, Kotlin and Swift merges; the Dart, PHP, Scala, Solidity and Ruby inherit lines;
GraphQL's extensions).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from docsmcp.model.source import SourceFile

log = logging.getLogger(__name__)

T = TypeVar("T")


def encode(marker: str, data: object) -> str:
    """`data` as the pass's line: `marker`, then the JSON (sorted keys, so the page's text and
    the bundle do not depend on the order the pass found things in)."""
    return marker + json.dumps(data, ensure_ascii=False, sort_keys=True)


def appended(f: SourceFile, line: str) -> SourceFile:
    """`f` with the pass's `line` (from its newline on) after its body: the one more line maps
    to the file's last source line, so the page's line map still covers every line."""
    own = f.line_map or tuple(range(f.body.count("\n") + 1))
    return dataclasses.replace(f, body=f.body + line, line_map=(*own, own[-1]))


def split(
    text: str, marker: str, read: Callable[[Any], T], empty: Callable[[], T]
) -> tuple[str, T]:
    """`text` without the pass's line (after the last `marker`), and `read` of its JSON;
    `empty()` when there is no such line, or when it or what `read` makes of it is broken
    (a page is read without what the pass said rather than not at all)."""
    head, found, line = text.rpartition(marker)
    if not found:
        return text, empty()
    try:
        return head, read(json.loads(line))
    except (ValueError, AttributeError, TypeError):
        log.debug("a broken %s line is ignored", marker.strip())
        return head, empty()
