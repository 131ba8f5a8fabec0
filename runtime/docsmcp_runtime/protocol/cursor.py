"""Stateless pagination cursors, HMAC-signed and bound to query, filters and bundle.

Any replica holding the same bundle (and, if set, the same DOCSMCP_CURSOR_SECRET) can serve the
next page: the cursor carries everything needed and no server keeps state.

Without DOCSMCP_CURSOR_SECRET the key derives from a random key of this machine, kept in the
cache root (`cursor-key`, owner-only, made on first use), and the bundle id: a client cannot
forge a cursor (the bundle id alone is public: `/healthz` shows it), and the next run of
`docsmcp-runtime search --cursor` on this machine still reads it. Where the cache root cannot be
written (a read-only container) the key is this process's own. Replicas on several machines
need the same DOCSMCP_CURSOR_SECRET to accept each other's cursors; a cursor another server
signed is refused with that hint. Every offset is range-checked whoever signed it.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import hmac
import json
import os

SECRET_ENV = "DOCSMCP_CURSOR_SECRET"
# A real cursor is about 110 characters; anything far longer is not one (and is not decoded).
MAX_CURSOR_CHARS = 1024


class CursorError(ValueError):
    pass


KEY_FILE = "cursor-key"
KEY_BYTES = 32


def cursor_secret(bundle_id: str) -> bytes:
    configured = os.environ.get(SECRET_ENV)
    if configured:
        return configured.encode()
    return hashlib.sha256(b"docsmcp-cursor\0" + machine_key() + bundle_id.encode()).digest()


@functools.cache
def machine_key() -> bytes:
    """This machine's cursor key (the cache root's `cursor-key`), made on first use; this
    process's own where the cache root cannot be written."""
    from ..distribution.specs import default_cache_dir  # (the cache root's one home)

    path = default_cache_dir() / KEY_FILE
    try:
        key = path.read_bytes()
        if len(key) == KEY_BYTES:
            return key
    except OSError:
        pass
    key = os.urandom(KEY_BYTES)
    temp = path.with_name(f".{KEY_FILE}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(key)
        os.link(temp, path)  # never replaces one another process made first
    except FileExistsError:
        with contextlib.suppress(OSError):
            other = path.read_bytes()
            key = other if len(other) == KEY_BYTES else key
    except OSError:
        pass  # a read-only cache root: this process's key
    finally:
        with contextlib.suppress(OSError):
            temp.unlink()
    return key


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
            "Invalid cursor: signature check failed (the cursor was altered, or issued by "
            "another server: replicas need the same DOCSMCP_CURSOR_SECRET). Omit cursor to "
            "start a new search."
        )
    if body.get("q") != binding(query, filters):
        raise CursorError("Invalid cursor: does not match current query or filters.")
    return offset
