"""The argument rules every tool shares: a wrong type is a ToolInputError the model can correct,
a number out of range is clamped with a note; the taxonomy filters (with `version` resolution),
`limit`, `cursor`, `max_tokens` and `exclude` read alike in every tool that takes them."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import numpy as np

from ..bundle.versions import VERSION_KEY
from ..bundle.versions import resolve as resolve_version
from ..protocol.cursor import CursorError, decode_cursor, encode_cursor
from ..records import record
from ..search.budget import DEFAULT_MAX_TOKENS, MAX_TOKENS, MIN_TOKENS

if TYPE_CHECKING:
    from ..bundle.reader import Bundle
    from ..format import TaxonomyKey

# Longer queries are cut here (and their terms at search.MAX_QUERY_TERMS) with a note: an error
# message or a stack trace pasted as a query still searches, in bounded time.
MAX_QUERY_CHARS = 2048
# Results per call (search_docs, get_code_examples; get_api_reference looking up one method).
MAX_LIMIT = 50
DEFAULT_LIMIT = 10
# list_sections and get_api_reference listings: entries per page.
MAX_LIST = 500
DEFAULT_LIST = 100
# Chunk ids one search_docs call may exclude (a long conversation's worth of reads).
MAX_EXCLUDE = 500


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


def limit_arg(
    args: dict, notes: list[str], default: int = DEFAULT_LIMIT, most: int = MAX_LIMIT
) -> int:
    """`limit`: results (or entries) per call, clamped into 1..most."""
    return int_arg(args, "limit", default, 1, most, notes)


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


def search_offset(
    secret: bytes, key: str, bound: str, filters: dict[str, str], cursor: str, most: int
) -> int:
    """The offset a search cursor carries (bound to the query and filters); a bad cursor is a
    tool error."""
    try:
        return decode_cursor(secret, key, bound, filters, cursor, max_offset=most)
    except CursorError as exc:
        raise ToolInputError(str(exc)) from None


@record
class SearchCall:
    """The arguments of a search: what is searched and which page, whether one bundle answers
    (search_docs) or several (libraries/)."""

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
        limit=limit_arg(args, notes),
        cursor=cursor_arg(args),
        expand=bool_arg(args, "expand_references", expand_default),
    )


def filter_args(
    taxonomy: Mapping[str, TaxonomyKey],
    args: dict,
    own: tuple[str, ...],
    notes: list[str] | None = None,
) -> dict[str, str]:
    """The taxonomy filters of a call (every field but the tool's `own` must be one), checked
    against the bundle's values; a `version` may be `latest` or a range, resolved to one value
    (noted in `notes`)."""
    allowed = [k for k in taxonomy if k not in own]
    check_fields(args, (*own, *allowed))
    filters: dict[str, str] = {}
    for key in sorted(allowed):
        if key not in args or args[key] is None:
            continue
        value = args[key]
        values = taxonomy[key].values
        if key == VERSION_KEY and isinstance(value, str) and value not in values:
            resolved = resolve_version(value, values, taxonomy[key].latest)
            if resolved is None:
                raise ToolInputError(
                    f"No version matches {json.dumps(value)}. Available versions: "
                    f"{', '.join(values)} (or latest, or a range such as 1.x, >=1.2, ^1.2)."
                )
            if notes is not None:
                notes.append(f"version {json.dumps(value)} resolved to {resolved!r}.")
            value = resolved
        elif not isinstance(value, str) or value not in values:
            raise ToolInputError(
                f"Invalid taxonomy value for '{key}': {json.dumps(value)}. "
                f"Allowed values: {', '.join(values)}"
            )
        filters[key] = value
    return filters


def max_tokens_arg(args: dict, default: int | None, notes: list[str]) -> int:
    """`max_tokens` of a call, else the server's default (--max-tokens), else
    DEFAULT_MAX_TOKENS."""
    if args.get("max_tokens") is None:
        return DEFAULT_MAX_TOKENS if default is None else default
    return int_arg(args, "max_tokens", 0, MIN_TOKENS, MAX_TOKENS, notes)


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


def exclude_arg(bundle: Bundle, args: dict, notes: list[str]) -> tuple[np.ndarray | None, str]:
    """Rows of the chunk ids in `exclude`, and what cursors must be bound to for them."""
    value = exclude_ids(args)
    if value is None:
        return None, ""
    rows = sorted({r for r in map(bundle.row_of, value) if r is not None})
    unknown = len(set(value)) - len(rows)
    if unknown:
        notes.append(f"{unknown} chunk id(s) in exclude do not exist and were ignored.")
    if not rows:
        return None, ""
    return np.asarray(rows, dtype=np.int64), "\0exclude:" + ",".join(map(str, rows))
