"""Tool arguments and results shared by every tool: validation with clamping notes, cursors
bound to a tool's arguments, and the result envelopes (bundle-independent helpers)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from .cursor import CursorError, decode_cursor, encode_cursor

# Longer queries are cut here (and their terms at search.MAX_QUERY_TERMS) with a note: an error
# message or a stack trace pasted as a query still searches, in bounded time.
MAX_QUERY_CHARS = 2048
# Names offered when an argument names nothing that exists.
CLOSE_MATCHES = 5


class ToolInputError(ValueError):
    """Bad tool arguments: reported to the model as an isError result it can correct."""


def check_fields(args: dict, allowed: Iterable[str]) -> None:
    allowed = set(allowed)
    for key in args:
        if key not in allowed:
            raise ToolInputError(
                f"Unexpected field '{key}'. Allowed fields: {', '.join(sorted(allowed))}."
            )


def int_arg(args: dict, name: str, default: int, low: int, high: int, notes: list[str]) -> int:
    """An integer argument; out of range is clamped (and noted), a wrong type is an error."""
    value = args.get(name, default)
    if value is None:
        value = default
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON clients may send 5.0
    if not isinstance(value, int) or isinstance(value, bool):
        raise ToolInputError(f"{name} must be an integer")
    if not low <= value <= high:
        clamped = min(max(value, low), high)
        notes.append(f"{name} {value} is outside {low}..{high}; used {clamped}.")
        return clamped
    return value


def str_arg(args: dict, name: str, required: bool = False) -> str | None:
    """A string argument: None when absent (or an error when required), else stripped text."""
    value = args.get(name)
    if value is None:
        if required:
            raise ToolInputError(f"{name} is required")
        return None
    if not isinstance(value, str) or not value.strip():
        raise ToolInputError(f"{name} must be a non-empty string")
    if len(value) > MAX_QUERY_CHARS:
        raise ToolInputError(f"{name} is longer than {MAX_QUERY_CHARS} characters")
    return value.strip()


def bool_arg(args: dict, name: str, default: bool) -> bool:
    value = args.get(name, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ToolInputError(f"{name} must be true or false")
    return value


def query_arg(args: dict, notes: list[str], name: str = "query") -> str:
    query = args.get(name)
    if not isinstance(query, str) or not query.strip():
        raise ToolInputError(f"{name} must be a non-empty string")
    if len(query) > MAX_QUERY_CHARS:
        notes.append(
            f"The {name} was cut to its first {MAX_QUERY_CHARS} of {len(query)} characters."
        )
        query = query[:MAX_QUERY_CHARS]
    return query


def cursor_arg(args: dict) -> str | None:
    cursor = args.get("cursor")
    if cursor is not None and (not isinstance(cursor, str) or not cursor):
        raise ToolInputError("cursor must be a non-empty string")
    return cursor


class Pager:
    """Cursors of one tool call: bound to the tool, its arguments and the bundle, so a cursor
    only continues the listing it came from."""

    def __init__(self, secret: bytes, bundle_id: str, tool: str, binding: dict) -> None:
        self.secret = secret
        self.bundle_id = bundle_id
        self.key = tool + "\0" + json.dumps(binding, sort_keys=True, ensure_ascii=True)

    def offset(self, cursor: str | None, total: int) -> int:
        if cursor is None:
            return 0
        try:
            return decode_cursor(
                self.secret, self.bundle_id, self.key, {}, cursor, max_offset=max(total, 0)
            )
        except CursorError as exc:
            raise ToolInputError(str(exc)) from None

    def next(self, offset: int, shown: int, total: int) -> str | None:
        end = offset + shown
        if shown and end < total:
            return encode_cursor(self.secret, self.bundle_id, self.key, {}, end)
        return None


def close_matches(word: str, candidates: Iterable[str], n: int = CLOSE_MATCHES) -> list[str]:
    """The candidates nearest to `word` (containment first, then edit similarity)."""
    import difflib  # only on the error path: keep it out of start-up

    pool = sorted(set(candidates))
    lowered = word.lower()
    containing = [c for c in pool if lowered in c.lower()]
    containing.sort(key=lambda c: (len(c), c))
    fuzzy = difflib.get_close_matches(word, pool, n=n, cutoff=0.5)
    out: list[str] = []
    for c in [*containing, *fuzzy]:
        if c not in out:
            out.append(c)
    return out[:n]


def not_found(what: str, closest: list[str], hint: str) -> ToolInputError:
    message = f"{what} not found."
    if closest:
        message += " Closest: " + ", ".join(closest) + "."
    return ToolInputError(f"{message} {hint}")


def text_result(text: str, is_error: bool = False) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def json_result(result: dict[str, Any], notes: list[str] | None = None) -> dict:
    """A structured result: the same object as JSON text (for clients without
    structuredContent) and as structuredContent. The text is compact JSON: fewer tokens for the
    model, and the C encoder (`indent` takes json's pure-Python path: ~20 % of a search)."""
    if notes:
        result["notes"] = notes
    text = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
    return {
        "content": [{"type": "text", "text": text}],
        "structuredContent": result,
        "isError": False,
    }
