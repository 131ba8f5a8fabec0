"""Small text helpers every stage shares: heading slugs (chunk ids; their rule is the bundle's,
so its home is the runtime's `format/slugs.py`), word-boundary truncation, and cutting a
parameter or option list at its top-level commas."""

from __future__ import annotations

from docsmcp_runtime.format.slugs import slugify

__all__ = ["slugify", "split_top", "truncate"]


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


def split_top(
    text: str,
    sep: str = ",",
    *,
    quotes: str = "'\"",
    brackets: tuple[str, str] = ("([{", ")]}"),
    most: int | None = None,
) -> list[str]:
    """`text` cut at `sep` outside brackets and quotes (a signature's parameters, a knitr chunk's
    options, an R call's arguments); at most `most` parts, the rest of the text then dropped."""
    opening, closing = brackets
    out: list[str] = []
    depth = 0
    quote = ""
    start = 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in quotes:
            quote = ch
        elif ch in opening:
            depth += 1
        elif ch in closing:
            depth = max(depth - 1, 0)
        elif ch == sep and depth == 0:
            out.append(text[start:i])
            start = i + 1
            if most is not None and len(out) >= most:
                return out
    out.append(text[start:])
    return out
