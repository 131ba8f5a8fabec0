"""One `search_docs` call: its arguments, and the parts of its answer that are the same whether
one bundle answers (tools.app.DocsApp) or several (libraries.app.LibraryApp): cursors, the response
budget, the hint of an empty result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..search.budget import pack_hits
from .cursor import CursorError, decode_cursor
from .toolargs import ToolInputError, bool_arg, cursor_arg, int_arg, query_arg
from .tooldefs import DEFAULT_LIMIT, MAX_EXCLUDE, MAX_LIMIT

# search_docs' own arguments (the taxonomy filters and `library` come on top).
SEARCH_OWN = ("query", "limit", "cursor", "expand_references", "max_tokens", "exclude")


@dataclass(frozen=True)
class SearchCall:
    query: str
    limit: int
    cursor: str | None
    expand: bool  # expand_references

    @property
    def bound(self) -> str:
        """What a cursor of this call is bound to besides the filters: another result list
        (expanded) must not continue this one."""
        return self.query + ("\0expand" if self.expand else "")


def search_call(args: dict, notes: list[str], expand_default: bool) -> SearchCall:
    """The query, limit, cursor and expand_references of a call (numbers clamped into notes)."""
    return SearchCall(
        query=query_arg(args, notes),
        limit=int_arg(args, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT, notes),
        cursor=cursor_arg(args),
        expand=bool_arg(args, "expand_references", expand_default),
    )


def exclude_ids(args: dict) -> list[str] | None:
    """The chunk ids of `exclude` (None when absent); a wrong shape or too many is a tool error."""
    value = args.get("exclude")
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ToolInputError("exclude must be an array of chunk ids")
    if len(value) > MAX_EXCLUDE:
        raise ToolInputError(f"exclude takes at most {MAX_EXCLUDE} chunk ids")
    return value


def decode_offset(
    secret: bytes, key: str, bound: str, filters: dict[str, str], cursor: str, most: int
) -> int:
    """The offset a search cursor carries; a bad cursor is a tool error."""
    try:
        return decode_cursor(secret, key, bound, filters, cursor, max_offset=most)
    except CursorError as exc:
        raise ToolInputError(str(exc)) from None


def fit_hits(hits: list[dict], budget: int | None, notes: list[str]) -> list[dict]:
    """The hits that fit `max_tokens` (whole hits first, then the best passage of the next),
    with a note saying what was left out."""
    if budget is None or not hits:
        return hits
    shown = len(hits)
    hits, used, shortened = pack_hits(hits, budget)
    if len(hits) < shown or shortened:
        notes.append(
            f"max_tokens {budget}: {len(hits)} of {shown} hits fit (~{used} tokens"
            + ("; the last one shortened" if shortened else "")
            + "). Continue with next_cursor, or raise max_tokens."
        )
    return hits


def degraded_message(reason: str) -> str:
    return f"Semantic search was unavailable ({reason}); results are full-text only."


def search_hint(
    query: str, filters: dict[str, str], suggested: dict, corpus_matches: int, offset: int
) -> dict[str, Any]:
    """What an empty page says: last page, no match anywhere, or a filter that excluded them."""
    if offset > 0:
        message = "No more results for this query; this was the last page."
    elif corpus_matches == 0:
        message = (
            "0 results found. No matches were found for this query in the indexed corpus; "
            "try other words or an identifier that appears in the docs."
        )
    elif filters:
        active = ", ".join(f"{k}='{v}'" for k, v in filters.items())
        message = f"0 results found for query '{query}' with filters {active}."
        if suggested:
            message += " Matches exist under the values listed in suggested_filters."
        else:
            message += " Remove a filter to see matches elsewhere in the corpus."
    else:
        message = f"0 results found for query '{query}'."
    return {"message": message, "suggested_filters": suggested}
