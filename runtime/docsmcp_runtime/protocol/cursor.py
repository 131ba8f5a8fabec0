"""Stateless pagination cursors, HMAC-signed and bound to query, filters and bundle.

Any replica holding the same bundle (and, if set, the same DOCSMCP_CURSOR_SECRET) can serve the
next page: the cursor carries everything needed and no server keeps state.

Without DOCSMCP_CURSOR_SECRET the key derives from the (public) bundle id: cursors then detect
damage and mismatches (another query, filters or bundle) but are not unforgeable. That is by
design: a cursor only selects an offset into results the caller may fetch anyway, and every
offset is range-checked. Set the secret (the same on every replica) when cursors must be
tamper-evident.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os

SECRET_ENV = "DOCSMCP_CURSOR_SECRET"
# A real cursor is about 110 characters; anything far longer is not one (and is not decoded).
MAX_CURSOR_CHARS = 1024


class CursorError(ValueError):
    pass


def cursor_secret(bundle_id: str) -> bytes:
    configured = os.environ.get(SECRET_ENV)
    if configured:
        return configured.encode()
    return hashlib.sha256(b"docsmcp-cursor\0" + bundle_id.encode()).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def binding(query: str, filters: dict[str, str]) -> str:
    # ensure_ascii: a query may hold lone surrogates (legal as JSON escapes), which have no UTF-8.
    canonical = json.dumps([query.strip(), sorted(filters.items())])
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _sign(secret: bytes, payload: str) -> str:
    return _b64(hmac.new(secret, payload.encode(), hashlib.sha256).digest()[:16])


def encode_cursor(
    secret: bytes, bundle_id: str, query: str, filters: dict[str, str], offset: int
) -> str:
    body = {"v": 1, "o": offset, "b": bundle_id, "q": binding(query, filters)}
    payload = _b64(json.dumps(body, separators=(",", ":")).encode())
    return f"{payload}.{_sign(secret, payload)}"


def decode_cursor(
    secret: bytes,
    bundle_id: str,
    query: str,
    filters: dict[str, str],
    cursor: str,
    max_offset: int | None = None,
) -> int:
    """Return the offset a cursor points at, or raise CursorError saying what is wrong.

    The offset must be an integer from 0 to `max_offset` (the bundle's chunk count: no result
    list is longer), whoever signed the cursor."""
    if len(cursor) > MAX_CURSOR_CHARS:
        raise CursorError("Invalid cursor: malformed cursor. Omit cursor to start a new search.")
    try:
        payload, signature = cursor.split(".")
        body = json.loads(_unb64(payload))
        offset = body["o"]
        valid = (
            body.get("v") == 1
            and isinstance(offset, int)
            and not isinstance(offset, bool)
            and 0 <= offset <= (max_offset if max_offset is not None else offset)
        )
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        valid = False
    if not valid:
        raise CursorError("Invalid cursor: malformed cursor. Omit cursor to start a new search.")
    if body.get("b") != bundle_id:
        raise CursorError(
            "Invalid cursor: the documentation bundle changed since this cursor was issued; "
            "search again without a cursor."
        )
    if not signature.isascii() or not hmac.compare_digest(signature, _sign(secret, payload)):
        raise CursorError(
            "Invalid cursor: signature check failed (the cursor was altered or issued by "
            "another server). Omit cursor to start a new search."
        )
    if body.get("q") != binding(query, filters):
        raise CursorError("Invalid cursor: does not match current query or filters.")
    return offset
