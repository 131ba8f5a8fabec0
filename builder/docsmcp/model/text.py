"""Small text helpers every stage shares: heading slugs (chunk ids) and word-boundary truncation."""

from __future__ import annotations

import hashlib
import re

_SLUG_DROP = re.compile(r"[^a-z0-9 -]")


def slugify(text: str) -> str:
    """docs-mcp slug: lowercase, keep [a-z0-9 -], spaces to '-', collapse '-'.

    A heading with nothing left (CJK, emoji, punctuation) gets a slug derived from its text
    hash, so different headings still get different ids that do not depend on their order.
    """
    slug = _SLUG_DROP.sub("", text.lower())
    slug = re.sub(r"-+", "-", re.sub(r"\s+", "-", slug.strip())).strip("-")
    if slug:
        return slug
    if not text.strip():
        return "section"
    return "section-" + hashlib.sha256(text.strip().encode()).hexdigest()[:8]


def truncate(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters at a word boundary (when one lies in its second
    half), with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "…"
