"""Bundles published as release assets: `--bundle https://HOST/PATH/idx.tar.gz`.

The archive's sha256 comes from a pin (`--bundle-sha256 HEX`, or `#sha256=HEX` at the end of
the URL, the way pip pins downloads) or else from the `URL.sha256` sidecar `docsmcp pack`
writes; with neither, the bundle is refused unless `--bundle-unverified` says otherwise. The
download follows at most `MAX_REDIRECTS` redirects (each hop https, or http to this machine),
is bounded in bytes (`FetchOptions.max_bytes`) and time, and resumes after a dropped
connection with a Range request, also in a later start: the partial file and the validators it
was started with (ETag, Last-Modified, total size) stay in `CACHE/downloads/`. Once its sha256
matches, the archive goes through the same checks and cache as a local one
(`archive.unpack_to_cache`: `CACHE/bundles/<sha256>/`) and is deleted; a small record remembers
which sha256 the URL served last, so a start that cannot reach the host serves that copy and
says so in the log. A pinned URL whose bundle is cached starts without any network request.

Standard library only (urllib, so `https_proxy` and friends apply as usual). This module is
light (the CLI builds `FetchOptions` on every start): what a URL and its pin say, and the
bounds. The download itself is remote_fetch.py's, imported when a URL is fetched, with urllib
and http.client (25-30 ms of imports) loaded inside it only then.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit, urlunsplit

from .. import __version__
from ..records import record
from ..search.options import parse_flag
from .oci_layout import HEX64
from .specs import (
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT,
    ENV_MAX_BYTES,
    ENV_TIMEOUT,
    ENV_UNVERIFIED,
    is_remote,
)

MAX_REDIRECTS = 5
# Connections per download in one start: the first one and resumes after drops.
ATTEMPTS = 4
MAX_URL_CHARS = 2048
MAX_SIDECAR_BYTES = 4096
BLOCK = 1 << 20
USER_AGENT = f"docsmcp-runtime/{__version__}"
DOWNLOADS = "downloads"  # the cache kind (builder cache.py lists it)


_CONTENT_RANGE = re.compile(r"bytes\s+(\d{1,19})-(\d{1,19})/(\d{1,19}|\*)", re.IGNORECASE)
_REDIRECTS = (301, 302, 303, 307, 308)


@record
class FetchOptions:
    """Bounds and policy of downloads (CLI flags, else DOCSMCP_BUNDLE_* variables)."""

    max_bytes: int = DEFAULT_MAX_BYTES
    timeout: float = DEFAULT_TIMEOUT
    # Serve an archive with neither pin nor sidecar (its sha256 is logged, never checked).
    unverified: bool = False

    @classmethod
    def parse(
        cls,
        max_bytes: str | None,
        timeout: str | None,
        unverified: bool,
        names: tuple[str, str] = ("--bundle-max-bytes", "--bundle-timeout"),
    ) -> FetchOptions:
        """From option texts (None: the default); ValueError naming the bad one."""
        out = cls(unverified=unverified)
        if max_bytes is not None and max_bytes.strip():
            try:
                value = int(max_bytes.strip().replace("_", ""))
            except ValueError:
                value = 0
            if value < 1:
                raise ValueError(f"{names[0]} must be a positive byte count, got {max_bytes!r}")
            out = cls(value, out.timeout, unverified)
        if timeout is not None and timeout.strip():
            try:
                seconds = float(timeout)
            except ValueError:
                seconds = float("nan")
            if not 0 < seconds <= 3600:
                raise ValueError(f"{names[1]} must be seconds in (0, 3600], got {timeout!r}")
            out = cls(out.max_bytes, seconds, unverified)
        return out

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> FetchOptions:
        return cls.parse(
            environ.get(ENV_MAX_BYTES),
            environ.get(ENV_TIMEOUT),
            parse_flag(environ.get(ENV_UNVERIFIED, "")),
            names=(ENV_MAX_BYTES, ENV_TIMEOUT),
        )


@record
class RemoteRef:
    """A checked release-asset reference: the URL to fetch and the optional sha256 pin."""

    url: str  # without the fragment; the scheme and host in lower case
    pin: str | None

    @property
    def host(self) -> str:
        return urlsplit(self.url).netloc


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_remote(spec: str) -> RemoteRef:
    """Check a `--bundle` URL; ValueError with the reason (one line, without the URL)."""
    if len(spec) > MAX_URL_CHARS:
        raise ValueError(f"URL is longer than {MAX_URL_CHARS} characters")
    if not spec.isascii() or any(c.isspace() or not c.isprintable() for c in spec):
        raise ValueError("URL has spaces, control or non-ASCII characters (percent-encode them)")
    parts = urlsplit(spec)  # ValueError for a malformed [IPv6] host
    scheme = parts.scheme.lower()
    host = parts.hostname
    port = parts.port  # ValueError for a port that is not a number in 0-65535
    if scheme not in ("https", "http"):
        raise ValueError("not an https:// URL")
    if not host:
        raise ValueError("URL has no host")
    if parts.username is not None or parts.password is not None:
        raise ValueError("credentials in the URL are refused (they would show in logs)")
    if scheme == "http" and not _loopback(host):
        raise ValueError("plain http:// is accepted only for this machine; use https://")
    pin = None
    if parts.fragment:
        key, sep, value = parts.fragment.partition("=")
        if key != "sha256" or not sep:
            raise ValueError(f"unknown URL fragment #{parts.fragment[:40]} (only #sha256=HEX)")
        pin = value.lower().removeprefix("sha256:")
        if not HEX64.fullmatch(pin):
            raise ValueError("#sha256= needs the archive's sha256 as 64 hex digits")
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    return RemoteRef(urlunsplit((scheme, netloc, parts.path or "/", parts.query, "")), pin)


def with_pin(spec: str, hexdigest: str) -> str:
    """`spec` with `#sha256=HEX` (what `--bundle-sha256 HEX` means); ValueError if malformed or
    the URL already pins another digest."""
    value = hexdigest.strip().lower().removeprefix("sha256:")
    if not HEX64.fullmatch(value):
        raise ValueError(f"--bundle-sha256 needs 64 hex digits, got {hexdigest!r}")
    ref = parse_remote(spec)
    if ref.pin is not None and ref.pin != value:
        raise ValueError(f"{ref.url}: pinned twice with different digests")
    return f"{ref.url}#sha256={value}"


def pin_specs(specs: Sequence[str], pins: Sequence[str]) -> list[str]:
    """Pair `--bundle-sha256` values with the URL `--bundle` values, in order."""
    urls = [i for i, spec in enumerate(specs) if is_remote(spec)]
    if not pins:
        return list(specs)
    if len(pins) != len(urls):
        raise ValueError(
            f"--bundle-sha256 given {len(pins)} time(s) for {len(urls)} https:// --bundle "
            "value(s): give one per URL, in the same order"
        )
    out = list(specs)
    for i, pin in zip(urls, pins, strict=True):
        try:
            out[i] = with_pin(specs[i], pin)
        except ValueError as exc:
            raise ValueError(f"{_shown(specs[i])}: {exc}") from None
    return out


def parse_content_range(value: str) -> tuple[int, int, int | None] | None:
    """(first, last, total or None) of a `Content-Range: bytes A-B/T` header; None if it is
    malformed or inconsistent (B < A, B beyond T)."""
    match = _CONTENT_RANGE.fullmatch(value.strip())
    if not match:
        return None
    first, last = int(match[1]), int(match[2])
    total = None if match[3] == "*" else int(match[3])
    if last < first or (total is not None and last >= total):
        return None
    return first, last, total


def sidecar_url(url: str) -> str:
    """`URL.sha256`: the suffix goes on the path, before any query (signed URLs keep theirs)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=parts.path + ".sha256"))


def _shown(spec: str) -> str:
    """A spec for a message: cut, so a hostile value cannot flood the one line."""
    return spec if len(spec) <= 200 else spec[:200] + "..."
