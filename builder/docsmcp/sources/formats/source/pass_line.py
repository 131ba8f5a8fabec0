"""The line a tree-wide pass appends to a page for its reader: a page converts alone, so what
the pass found in other files (a type's members declared elsewhere, what it inherits, the
extensions of a GraphQL type) travels after a marker as one JSON object. One home for how that
line is written and read, for every reader that takes one (csharp_merge, kotlin_merge,
swift_merge, dartdoc_inherit, php_inherit, scala_inherit, sol_inherit, yard_inherit and
GraphQL's sdl_extend).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


def encode(marker: str, data: object) -> str:
    """`data` as the pass's line: `marker`, then the JSON (sorted keys, so the page's text and
    the bundle do not depend on the order the pass found things in)."""
    return marker + json.dumps(data, ensure_ascii=False, sort_keys=True)


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
