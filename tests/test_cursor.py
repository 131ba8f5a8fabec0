"""Pagination cursors (docsmcp_runtime/protocol/cursor.py) on their own: signed, bound to the query,
filters and bundle, and keyed by DOCSMCP_CURSOR_SECRET when it is set. test_tools.py covers
the same rules end to end through the MCP server."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from docsmcp_runtime.protocol.cursor import (
    KEY_FILE,
    SECRET_ENV,
    CursorError,
    cursor_secret,
    decode_cursor,
    encode_cursor,
)
from hypothesis import given, settings
from hypothesis import strategies as st

BUNDLE = "0123456789abcdef0123456789abcdef"
OTHER_BUNDLE = "fedcba9876543210fedcba9876543210"
QUERY = "create widget"
FILTERS = {"language": "python", "scope": "sdk-specific"}
BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


@pytest.fixture(autouse=True)
def no_configured_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SECRET_ENV, raising=False)


def secret() -> bytes:
    return cursor_secret(BUNDLE)


def make(offset: int = 10, query: str = QUERY, filters: dict | None = None) -> str:
    return encode_cursor(secret(), BUNDLE, query, FILTERS if filters is None else filters, offset)


def decode(cursor: str, query: str = QUERY, filters: dict | None = None) -> int:
    return decode_cursor(secret(), BUNDLE, query, FILTERS if filters is None else filters, cursor)


def test_round_trip_and_shape() -> None:
    cursor = make(20)
    assert decode(cursor) == 20
    payload, signature = cursor.split(".")
    assert set(payload + signature) <= set(BASE64URL)  # URL-safe, no padding
    assert make(20) == cursor  # deterministic: any replica issues the same cursor
    assert make(21) != cursor


def test_query_is_compared_stripped_and_filters_in_any_order() -> None:
    cursor = make(5)
    assert decode(cursor, query=f"  {QUERY}\n") == 5
    assert decode(cursor, filters=dict(reversed(FILTERS.items()))) == 5


@pytest.mark.parametrize(
    ("query", "filters"),
    [
        ("create widgets", FILTERS),
        ("Create widget", FILTERS),
        (QUERY, {"language": "python"}),
        (QUERY, {**FILTERS, "language": "typescript"}),
        (QUERY, {}),
    ],
)
def test_bound_to_query_and_filters(query: str, filters: dict[str, str]) -> None:
    with pytest.raises(CursorError, match="does not match current query or filters"):
        decode(make(5), query=query, filters=filters)


def test_bound_to_the_bundle() -> None:
    cursor = make(5)
    with pytest.raises(CursorError, match="bundle changed"):
        decode_cursor(cursor_secret(OTHER_BUNDLE), OTHER_BUNDLE, QUERY, FILTERS, cursor)
    # the same secret does not help: the bundle id is part of the signed payload
    with pytest.raises(CursorError, match="bundle changed"):
        decode_cursor(secret(), OTHER_BUNDLE, QUERY, FILTERS, cursor)


def test_default_secret_is_derived_from_the_bundle_id() -> None:
    assert cursor_secret(BUNDLE) == cursor_secret(BUNDLE)
    assert cursor_secret(BUNDLE) != cursor_secret(OTHER_BUNDLE)
    assert len(cursor_secret(BUNDLE)) == 32
    # ... and this machine's key: the public bundle id alone no longer makes the signature
    public = hashlib.sha256(b"docsmcp-cursor\0" + BUNDLE.encode()).digest()
    assert cursor_secret(BUNDLE) != public


_NEXT_RUN = (
    "import sys; from docsmcp_runtime.protocol.cursor import *; "
    "c = sys.argv[1]; s = cursor_secret(sys.argv[2]); "
    "print(decode_cursor(s, sys.argv[2], 'q', {}, c) if c != '-' else "
    "encode_cursor(s, sys.argv[2], 'q', {}, 7))"
)


def _next_run(cache: Path, cursor: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DOCSMCP_CACHE_DIR": str(cache)}
    env.pop(SECRET_ENV, None)
    return subprocess.run(
        [sys.executable, "-c", _NEXT_RUN, cursor, BUNDLE], capture_output=True, text=True, env=env
    )


def test_a_cursor_outlives_the_process_on_this_machine_only(tmp_path: Path) -> None:
    """`docsmcp-runtime search --cursor` runs in a new process: the machine's key (made once in
    the cache root, owner-only) signs both; another machine's cache root has another key."""
    made = _next_run(tmp_path / "here", "-")
    assert made.returncode == 0, made.stderr
    cursor = made.stdout.strip()
    key = tmp_path / "here" / KEY_FILE
    assert key.stat().st_size == 32 and stat.S_IMODE(key.stat().st_mode) == 0o600
    assert _next_run(tmp_path / "here", cursor).stdout.strip() == "7"
    elsewhere = _next_run(tmp_path / "there", cursor)
    assert elsewhere.returncode != 0
    assert "replicas need the same DOCSMCP_CURSOR_SECRET" in elsewhere.stderr
    # a cache root that cannot be written: the process's own key, and still a working cursor
    (tmp_path / "ro").write_text("a file where the folder would be")
    lone = _next_run(tmp_path / "ro" / "cache", "-")
    assert lone.returncode == 0 and lone.stdout.strip(), lone.stderr


def test_configured_secret_changes_signatures(monkeypatch: pytest.MonkeyPatch) -> None:
    derived = make(5)
    monkeypatch.setenv(SECRET_ENV, "alpha-secret")
    assert cursor_secret(BUNDLE) == cursor_secret(OTHER_BUNDLE) == b"alpha-secret"
    alpha = make(5)
    assert alpha.split(".")[0] == derived.split(".")[0]  # same payload
    assert alpha.split(".")[1] != derived.split(".")[1]  # another signature
    assert decode(alpha) == 5
    with pytest.raises(CursorError, match="signature check failed"):
        decode(derived)
    monkeypatch.setenv(SECRET_ENV, "beta-secret")
    with pytest.raises(CursorError, match="signature check failed"):
        decode(alpha)
    monkeypatch.setenv(SECRET_ENV, "")  # empty means unset
    assert decode(derived) == 5


def _flips(cursor: str, bits: range):
    """Every flip of one of `bits` in every byte of the cursor (payload, dot and signature)."""
    raw = cursor.encode("ascii")
    for i in range(len(raw)):
        for bit in bits:
            mutated = bytearray(raw)
            mutated[i] ^= 1 << bit
            yield bytes(mutated).decode("latin-1")


def test_every_bit_flip_is_rejected() -> None:
    cursor = make(1234)
    flipped = list(_flips(cursor, range(7)))  # bits 0-6: the cursor stays ASCII
    assert len(set(flipped)) == 7 * len(cursor)
    for mutated in flipped:
        with pytest.raises(CursorError):
            decode(mutated)


def test_non_ascii_byte_in_the_payload_is_rejected() -> None:
    cursor = make(1234)
    payload, signature = cursor.split(".")
    for mutated in _flips(payload, range(7, 8)):
        with pytest.raises(CursorError, match="malformed"):
            decode(f"{mutated}.{signature}")


def test_non_ascii_byte_in_the_signature_is_rejected() -> None:
    # hmac.compare_digest raises TypeError for non-ASCII str: this must stay a CursorError
    cursor = make(1234)
    payload, signature = cursor.split(".")
    for mutated in _flips(signature, range(7, 8)):
        with pytest.raises(CursorError, match="signature check failed"):
            decode(f"{payload}.{mutated}")


def test_every_character_substitution_is_rejected() -> None:
    cursor = make(1234)
    for i, old in enumerate(cursor):
        for new in BASE64URL + ".=":
            if new != old:
                with pytest.raises(CursorError):
                    decode(cursor[:i] + new + cursor[i + 1 :])


@pytest.mark.parametrize(
    "cursor",
    ["", ".", "abc", "a.b.c", "!!!.???", "eyJ2IjoxfQ.sig", make(1).split(".")[0]],
)
def test_malformed_cursors(cursor: str) -> None:
    with pytest.raises(CursorError, match="Invalid cursor"):
        decode(cursor)


def test_forged_payload_with_negative_or_float_offset_is_rejected() -> None:
    for offset in (-1, 1.5, "3", None):
        body = {"v": 1, "o": offset, "b": BUNDLE, "q": "0" * 16}
        payload = base64.urlsafe_b64encode(json.dumps(body).encode()).rstrip(b"=").decode()
        with pytest.raises(CursorError, match="malformed"):
            decode(f"{payload}.{make(1).split('.')[1]}")


def test_query_with_a_lone_surrogate() -> None:
    # legal in JSON (an escaped \ud800) but not encodable as UTF-8
    assert decode(make(5, query="widget \ud800"), query="widget \ud800") == 5


text = st.text(st.characters(exclude_categories=()), max_size=40)  # lone surrogates too


@settings(max_examples=200, deadline=None, database=None)
@given(
    offset=st.integers(min_value=0, max_value=2**53),
    query=text,
    filters=st.dictionaries(text, text, max_size=4),
    other_query=text,
)
def test_round_trip_property(
    offset: int, query: str, filters: dict[str, str], other_query: str
) -> None:
    cursor = encode_cursor(secret(), BUNDLE, query, filters, offset)
    assert decode_cursor(secret(), BUNDLE, query, filters, cursor) == offset
    if other_query.strip() != query.strip():
        with pytest.raises(CursorError):
            decode_cursor(secret(), BUNDLE, other_query, filters, cursor)
    with pytest.raises(CursorError):
        decode_cursor(secret(), OTHER_BUNDLE, query, filters, cursor)
