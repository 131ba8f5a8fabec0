"""Small text helpers every stage shares: heading slugs (chunk ids; their rule is the bundle's,
so its home is the runtime's `format/slugs.py`) and word-boundary truncation."""

from __future__ import annotations

from docsmcp_runtime.format.slugs import slugify

__all__ = ["slugify", "truncate"]


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
