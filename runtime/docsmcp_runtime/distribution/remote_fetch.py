"""Downloading a release asset into the cache (`resolve_remote`): the sidecar or pin first, then the
body with Range resume across dropped connections and restarts, a lock per URL, the size and
time bounds of `FetchOptions`; a copy served before stands in when the host is down.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BundleError
from ..format import sha256_file
from ..records import record
from .archive import ArchiveSource, cached_bundle, check_room, parse_sha256sum, unpack_to_cache
from .remote import (
    _REDIRECTS,
    ATTEMPTS,
    BLOCK,
    DOWNLOADS,
    MAX_REDIRECTS,
    MAX_SIDECAR_BYTES,
    USER_AGENT,
    FetchOptions,
    RemoteRef,
    _shown,
    parse_content_range,
    parse_remote,
    sidecar_url,
)
from .specs import DEADLINE_FACTOR, ENV_MAX_BYTES
from .swap import replace_file

if TYPE_CHECKING:  # imported where used: only a download needs them
    import http.client
    import urllib.request

log = logging.getLogger(__name__)


class _Unreachable(Exception):
    """The host did not answer (network error, timeout, 5xx or 429): a cached copy may serve."""


class _Status(Exception):
    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"HTTP {code} {reason}".strip())
        self.code = code


def _opener() -> urllib.request.OpenerDirector:
    import urllib.parse
    import urllib.request

    class Redirects(urllib.request.HTTPRedirectHandler):
        max_redirections = MAX_REDIRECTS

        def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001, ANN202
            _check_redirect(req.full_url, newurl)
            return super().redirect_request(req, fp, code, msg, headers, newurl)

        def http_error_302(self, req, fp, code, msg, headers):  # noqa: ANN001, ANN202
            # urllib refuses a Location of another scheme (file://, ftp://…) itself, before
            # redirect_request, as an HTTPError that read as "more than 5 redirects".
            location = headers.get("location") or headers.get("uri")
            if location:
                _check_redirect(req.full_url, urllib.parse.urljoin(req.full_url, location))
            return super().http_error_302(req, fp, code, msg, headers)

        http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302

    return urllib.request.build_opener(Redirects)


def _check_redirect(url: str, newurl: str) -> None:
    """Refuse a redirect to a place a bundle may not come from (BundleError, one line)."""
    try:
        parse_remote(newurl.partition("#")[0])
    except ValueError as exc:
        raise BundleError(f"{_shown(url)}: redirect to {_shown(newurl)} refused: {exc}") from None


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


@record
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
