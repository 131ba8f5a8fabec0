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
light (the CLI builds `FetchOptions` on every start); urllib and http.client, 25-30 ms of
imports, are loaded only when a URL is fetched.
"""

from __future__ import annotations

import contextlib
import hashlib
import ipaddress
import json
import logging
import os
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from .. import __version__
from ..errors import BundleError
from ..format import sha256_file
from ..search.engine import parse_flag
from .archive import (
    HEX64,
    ArchiveSource,
    cached_bundle,
    check_room,
    is_remote,
    parse_sha256sum,
    unpack_to_cache,
)
from .swap import replace_file

if TYPE_CHECKING:  # imported where used: the CLI loads this module on every start
    import http.client
    import urllib.request

log = logging.getLogger(__name__)

# A bundle with vectors of a large corpus is a few hundred MB; far beyond that is a mistake or
# an attack, so it is refused before or while downloading (--bundle-max-bytes raises it).
DEFAULT_MAX_BYTES = 1 << 30
# Seconds a connect or a read may wait without progress; the whole download (all resumes)
# must end within DEADLINE_FACTOR times this, so a server trickling bytes cannot hold a start.
DEFAULT_TIMEOUT = 30.0
DEADLINE_FACTOR = 30
MAX_REDIRECTS = 5
# Connections per download in one start: the first one and resumes after drops.
ATTEMPTS = 4
MAX_URL_CHARS = 2048
MAX_SIDECAR_BYTES = 4096
BLOCK = 1 << 20
USER_AGENT = f"docsmcp-runtime/{__version__}"
DOWNLOADS = "downloads"  # the cache kind (builder cache.py lists it)

ENV_SHA256 = "DOCSMCP_BUNDLE_SHA256"
ENV_MAX_BYTES = "DOCSMCP_BUNDLE_MAX_BYTES"
ENV_TIMEOUT = "DOCSMCP_BUNDLE_TIMEOUT"
ENV_UNVERIFIED = "DOCSMCP_BUNDLE_UNVERIFIED"

_CONTENT_RANGE = re.compile(r"bytes\s+(\d{1,19})-(\d{1,19})/(\d{1,19}|\*)", re.IGNORECASE)
_REDIRECTS = (301, 302, 303, 307, 308)


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


class _Unreachable(Exception):
    """The host did not answer (network error, timeout, 5xx or 429): a cached copy may serve."""


class _Status(Exception):
    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"HTTP {code} {reason}".strip())
        self.code = code


def _opener() -> urllib.request.OpenerDirector:
    import urllib.request

    class Redirects(urllib.request.HTTPRedirectHandler):
        max_redirections = MAX_REDIRECTS

        def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001, ANN202
            try:
                parse_remote(newurl.partition("#")[0])
            except ValueError as exc:
                raise BundleError(
                    f"{_shown(req.full_url)}: redirect to {_shown(newurl)} refused: {exc}"
                ) from None
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return urllib.request.build_opener(Redirects)


def _open(
    opener: urllib.request.OpenerDirector, url: str, headers: dict[str, str], timeout: float
) -> http.client.HTTPResponse:
    import http.client
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        url, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity", **headers}
    )
    try:
        return opener.open(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        exc.close()
        if exc.code in _REDIRECTS:
            raise BundleError(f"{url}: more than {MAX_REDIRECTS} redirects") from None
        if exc.code >= 500 or exc.code == 429:
            raise _Unreachable(f"HTTP {exc.code} {exc.reason}") from None
        raise _Status(exc.code, str(exc.reason)) from None
    except urllib.error.URLError as exc:
        raise _Unreachable(str(exc.reason)) from None
    except (OSError, http.client.HTTPException) as exc:
        raise _Unreachable(str(exc) or type(exc).__name__) from None


def _fetch_sidecar(opener: urllib.request.OpenerDirector, ref: RemoteRef, timeout: float) -> str:
    import http.client

    url = sidecar_url(ref.url)
    try:
        response = _open(opener, url, {}, timeout)
    except _Status as exc:
        raise BundleError(
            f"{ref.url}: no sha256 to check it against: no --bundle-sha256 pin, and the sidecar "
            f"{url} answered {exc}; pass --bundle-sha256 HEX (the archive's sha256sum), or "
            "--bundle-unverified to serve it unchecked"
        ) from None
    try:
        with response:
            data = response.read(MAX_SIDECAR_BYTES + 1)
    except (OSError, http.client.HTTPException) as exc:
        raise _Unreachable(str(exc) or type(exc).__name__) from None
    digest = parse_sha256sum(data[:MAX_SIDECAR_BYTES].decode("utf-8", "replace"))
    if digest is None or len(data) > MAX_SIDECAR_BYTES:
        raise BundleError(f"{url}: not a sha256sum line (expected 64 hex digits first)")
    return digest


@dataclass(frozen=True)
class _Partial:
    """Where a download stands: the part file and what it was started with."""

    part: Path
    state: Path  # JSON: url, expected sha256, etag, last_modified, total

    def load(self, url: str, expected: str | None) -> dict:
        """The saved validators when the part file continues this URL and digest, else {}
        (and no part file)."""
        state = _read_json(self.state)
        size = self.part.stat().st_size if self.part.is_file() else 0
        if state.get("url") == url and state.get("expected") == expected and size > 0:
            return state
        self.discard()
        return {}

    def save(self, state: dict) -> None:
        _write_json(self.state, state)

    def discard(self) -> None:
        for path in (self.part, self.state):
            with contextlib.suppress(OSError):
                path.unlink()


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_bytes()[:65536])
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_json(path: Path, data: dict) -> None:
    replace_file(path, json.dumps(data, sort_keys=True).encode())


def _validators(headers: http.client.HTTPMessage) -> dict:
    return {"etag": headers.get("ETag"), "last_modified": headers.get("Last-Modified")}


def _too_big(ref: RemoteRef, size: int, opts: FetchOptions) -> BundleError:
    return BundleError(
        f"{ref.url}: the archive has {size} bytes, over the {opts.max_bytes}-byte limit "
        f"(raise it with --bundle-max-bytes or ${ENV_MAX_BYTES})"
    )


def _download(
    opener: urllib.request.OpenerDirector,
    ref: RemoteRef,
    partial: _Partial,
    expected: str | None,
    opts: FetchOptions,
    deadline: float,
) -> Path:
    """The whole archive in `partial.part`, resuming what an earlier start left there.
    _Unreachable when the first connection fails; BundleError for everything else."""
    state = partial.load(ref.url, expected)
    reason = ""
    for attempt in range(ATTEMPTS):
        have = partial.part.stat().st_size if state else 0
        headers = {}
        if have:
            headers["Range"] = f"bytes={have}-"
            etag, modified = state.get("etag"), state.get("last_modified")
            # If-Range makes a server whose file changed send all of the new one (200).
            if etag and not etag.startswith("W/"):
                headers["If-Range"] = etag
            elif modified:
                headers["If-Range"] = modified
        try:
            response = _open(opener, ref.url, headers, opts.timeout)
        except _Status as exc:
            if exc.code == 416 and have:  # the part is not a prefix of what is served now
                partial.discard()
                state = {}
                continue
            raise BundleError(f"{ref.url}: {exc}") from None
        except _Unreachable as exc:
            if attempt == 0:
                raise
            reason = str(exc)
            time.sleep(min(0.25 * attempt, 1.0))
            continue
        with response:
            seen = _validators(response.headers)
            if response.status == 206 and have:
                span = parse_content_range(response.headers.get("Content-Range", ""))
                total = span[2] if span else None
                same = all(state.get(k) in (None, v) for k, v in seen.items()) and (
                    state.get("total") in (None, total)
                )
                if span is None or span[0] != have or not same:
                    # Not the continuation asked for: start over without Range.
                    log.info("%s: the server did not resume where we stopped; restarting", ref.url)
                    partial.discard()
                    state = {}
                    continue
                mode = "ab"
            elif response.status == 200:
                length = response.headers.get("Content-Length")
                total = int(length) if length and length.isdigit() else None
                have, mode = 0, "wb"
                if state:
                    # It ignores Range, or If-Range told it the file changed: all of it again.
                    log.info("%s: the server sent the whole file again; restarting", ref.url)
            else:
                raise BundleError(f"{ref.url}: unexpected HTTP {response.status}")
            if total is not None and total > opts.max_bytes:
                partial.discard()
                raise _too_big(ref, total, opts)
            check_room(ref.url, partial.part.parent, (total or 0) - have, "downloading")
            state = {"url": ref.url, "expected": expected, "total": total, **seen}
            partial.save(state)
            if have == 0:
                log.info("downloading %s (%s bytes)", ref.url, total if total else "unknown")
            have, reason = _receive(ref, response, partial.part, mode, have, total, opts, deadline)
        if not reason:
            return partial.part
        log.info("%s: connection dropped at %d bytes (%s); resuming", ref.url, have, reason)
    raise BundleError(
        f"{ref.url}: download interrupted {ATTEMPTS} times (last: {reason or 'refused resume'}); "
        "the bytes received are kept and the next start resumes them"
    )


def _receive(
    ref: RemoteRef,
    response: http.client.HTTPResponse,
    part: Path,
    mode: str,
    have: int,
    total: int | None,
    opts: FetchOptions,
    deadline: float,
) -> tuple[int, str]:
    """Append the body to `part`: (bytes in part, why it stopped early or "")."""
    import http.client

    with part.open(mode) as out:
        while True:
            if time.monotonic() > deadline:
                raise BundleError(
                    f"{ref.url}: the download took longer than "
                    f"{opts.timeout * DEADLINE_FACTOR:g} s (the bytes received are kept; raise "
                    f"--bundle-timeout to allow more)"
                )
            try:
                block = response.read1(BLOCK)
            except (OSError, http.client.HTTPException) as exc:
                return have, str(exc) or type(exc).__name__
            if not block:
                break
            have += len(block)
            if have > opts.max_bytes:
                out.close()
                part.unlink(missing_ok=True)
                raise _too_big(ref, have, opts)
            if total is not None and have > total:
                out.close()
                part.unlink(missing_ok=True)
                raise BundleError(f"{ref.url}: the server sent more than the {total} bytes it said")
            out.write(block)
    if total is not None and have < total:
        return have, f"{have} of {total} bytes"
    return have, ""


@contextlib.contextmanager
def _locked(path: Path, deadline: float, ref: RemoteRef) -> Iterator[None]:
    """One process at a time per URL (others wait, then find its result cached)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock; concurrent starters each download
        yield
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise BundleError(
                        f"{ref.url}: another process has been downloading it for too long "
                        f"(lock {path})"
                    ) from None
                time.sleep(0.1)
        yield
    finally:
        os.close(fd)


def resolve_remote(spec: str, root: Path, fetch: FetchOptions | None = None) -> Path:
    """The cached bundle directory of a release-asset URL, downloading it when needed."""
    try:
        opts = fetch if fetch is not None else FetchOptions.from_env()
        ref = parse_remote(spec)
    except ValueError as exc:
        raise BundleError(f"{_shown(spec)}: {exc}") from None
    hit = cached_bundle(root, ref.pin)
    if hit is not None:  # a pin names exactly these bytes: no need to ask anyone
        return hit
    downloads = root / DOWNLOADS
    try:
        downloads.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BundleError(
            f"cannot create cache directory {downloads} ({exc.strerror or exc}); "
            "set DOCSMCP_CACHE_DIR to a writable directory"
        ) from None
    key = hashlib.sha256(ref.url.encode()).hexdigest()[:32]
    record_path = downloads / f"{key}.json"
    partial = _Partial(downloads / f"{key}.part", downloads / f"{key}.part.json")
    deadline = time.monotonic() + opts.timeout * DEADLINE_FACTOR
    with _locked(downloads / f"{key}.lock", deadline, ref):
        hit = cached_bundle(root, ref.pin)
        if hit is not None:  # another process finished while we waited
            return hit
        opener = _opener()
        try:
            if ref.pin:
                expected, how = ref.pin, "pin"
            elif opts.unverified:
                expected, how = None, "unverified"
            else:
                expected, how = _fetch_sidecar(opener, ref, opts.timeout), "sidecar"
            hit = cached_bundle(root, expected)
            if hit is None:
                archive = _download(opener, ref, partial, expected, opts, deadline)
        except _Unreachable as exc:
            return _offline(ref, root, record_path, str(exc))
        if hit is None:
            hit = _unpack(ref, root, partial, archive, expected, how)
        record = {"url": ref.url, "sha256": hit.name, "checked": how, "at": int(time.time())}
        _write_json(record_path, record)
        return hit


def _unpack(
    ref: RemoteRef,
    root: Path,
    partial: _Partial,
    archive: Path,
    expected: str | None,
    how: str,
) -> Path:
    try:
        digest = sha256_file(archive)
        if expected is not None and digest != expected:
            raise BundleError(
                f"{ref.url}: the downloaded archive's sha256 is {digest}, the {how} says "
                f"{expected}; refused (the download is deleted)"
            )
        if expected is None:
            log.warning(
                "%s: serving an archive whose sha256 (%s) was not checked (--bundle-unverified)",
                ref.url,
                digest,
            )
        final = unpack_to_cache(ArchiveSource(archive, digest, ref.url), root)
    except OSError as exc:
        raise BundleError(f"{ref.url}: cannot read the download ({exc.strerror or exc})") from None
    finally:
        partial.discard()  # verified and unpacked, or refused: either way nothing to resume
    log.info("%s: sha256 %s (checked against the %s); cached as %s", ref.url, digest, how, final)
    return final


def _offline(ref: RemoteRef, root: Path, record_path: Path, reason: str) -> Path:
    """The copy this URL served last, when the host cannot be reached."""
    record = _read_json(record_path)
    digest = record.get("sha256") if record.get("url") == ref.url else None
    hit = cached_bundle(root, digest) if ref.pin in (None, digest) else None
    if hit is None:
        raise BundleError(
            f"{ref.url}: cannot reach {ref.host} ({reason}) and no copy of it is cached"
        )
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(record.get("at", 0)))
    log.warning(
        "%s: cannot reach %s (%s); serving the cached copy downloaded %s (sha256 %s)",
        ref.url,
        ref.host,
        reason,
        when,
        digest,
    )
    return hit
