"""Heading slugs, the last part of a chunk id (bundle-spec.md, *Chunk ids*): written by the
builder, read back by the runtime when a site's own anchor names a heading whose section merged
into another chunk (tools/get_doc.py)."""

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
