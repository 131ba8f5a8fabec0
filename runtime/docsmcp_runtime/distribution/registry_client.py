"""`Session`: one repository of one registry over HTTP(S), standard library only: requests with
the authentication a `WWW-Authenticate` challenge asks for, manifests and blobs down and up
(the builder's `docsmcp push` uploads with it), every size bounded.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import http.client
import json
import os
import socket
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from email.message import Message
from typing import BinaryIO

from ..records import record
from .oci_layout import OCI_MANIFEST_MEDIA_TYPE as MANIFEST_MEDIA_TYPE
from .registry import (
    CREDENTIALS_HINT,
    DEFAULT_TIMEOUT,
    ENV_PLAIN_HTTP,
    ENV_TIMEOUT,
    MAX_MANIFEST_BYTES,
    MAX_SMALL_BYTES,
    PULL_DEADLINE_FACTOR,
    Body,
    Challenge,
    Credentials,
    Reference,
    RegistryError,
    Unreachable,
    find_credentials,
    parse_challenges,
)

# Bytes of a small body read at a time (so a deadline is checked as a trickle comes in).
READ_PIECE = 1 << 16


@record(frozen=False)
class Response:
    status: int
    headers: Message
    url: str
    raw: object  # the open response (read with `read_body` / `stream_to`), closed by `close`

    def read_body(self, limit: int, what: str, session: Session | None = None) -> bytes:
        """The body, at most `limit` bytes, read a piece at a time so that `session`'s
        deadline holds against a server that trickles it."""
        parts: list[bytes] = []
        got = 0
        # read1: what one receive brings (read() waits for all it was asked for, each byte of a
        # trickle resetting the socket's timeout, and the deadline is checked only between).
        read = getattr(self.raw, "read1", None) or self.raw.read  # type: ignore[attr-defined]
        while got <= limit:
            part = read(min(READ_PIECE, limit + 1 - got))
            if not part:
                break
            parts.append(part)
            got += len(part)
            if session is not None:
                session.check_deadline(what)
        if got > limit:
            raise RegistryError(f"{self.url}: {what} is larger than {limit} bytes; refusing it")
        return b"".join(parts)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.raw.close()  # type: ignore[attr-defined]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects only for GET and HEAD (blob downloads); an upload answering with a redirect is
    an error to report, never a body to resend elsewhere."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001, ANN201
        if req.get_method() not in ("GET", "HEAD"):
            return None
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _timeout() -> float:
    value = os.environ.get(ENV_TIMEOUT, "").strip()
    try:
        seconds = float(value) if value else DEFAULT_TIMEOUT
    except ValueError:
        raise RegistryError(f"{ENV_TIMEOUT}={value!r} is not a number of seconds") from None
    if not 0 < seconds <= 3600:
        raise RegistryError(f"{ENV_TIMEOUT}={value!r} must be between 0 and 3600 seconds")
    return seconds


class Session:
    """Requests to one repository of one registry, authenticating on the first 401.

    `actions` is the scope asked of a token service (`pull`, or `pull,push`). Credentials are
    looked up only when the registry asks for them. The Authorization header is never carried
    across a redirect (blob storage on another host must not see it).
    """

    def __init__(self, reference: Reference, actions: str = "pull") -> None:
        self.reference = reference
        self.actions = actions
        self.timeout = _timeout()
        # A pull ends within PULL_DEADLINE_FACTOR timeouts, however slowly bytes come; a push
        # (a person uploading a large bundle) has only the per-read timeout.
        self.deadline = (
            time.monotonic() + self.timeout * PULL_DEADLINE_FACTOR if actions == "pull" else None
        )
        self.authorization: str | None = None
        self.credentials: Credentials | None = None
        self._opener = urllib.request.build_opener(_NoRedirect())

    @property
    def registry(self) -> str:
        return self.reference.registry

    def check_deadline(self, what: str) -> None:
        """Unreachable once the pull's deadline has passed."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise Unreachable(
                f"{self.registry}: {what} did not arrive within "
                f"{self.timeout * PULL_DEADLINE_FACTOR:g} s ({PULL_DEADLINE_FACTOR} x "
                f"{ENV_TIMEOUT}); the registry is too slow or stalling"
            )

    def _wait(self) -> float:
        """The socket timeout of the next request: the timeout, or what is left of the pull."""
        if self.deadline is None:
            return self.timeout
        self.check_deadline("the answer")
        return max(0.001, min(self.timeout, self.deadline - time.monotonic()))

    def url(self, path: str) -> str:
        return f"{self.reference.base_url}/{path}"

    def request(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str] | None = None,
        body: Body = None,
        ok: Iterable[int] = (200,),
        missing: Iterable[int] = (),
    ) -> Response:
        """Send, authenticating once on 401. A status in `ok` or `missing` is returned (the
        caller closes it); anything else is a RegistryError with one line."""
        for attempt in range(2):
            response = self._send(method, url, headers or {}, body)
            if response.status != 401 or attempt == 1:
                break
            challenges = response.headers.get_all("WWW-Authenticate") or []
            response.close()
            self._authenticate(challenges)
        if response.status in ok or response.status in missing:
            return response
        try:
            raise self._failure(method, url, response)
        finally:
            response.close()

    def _send(self, method: str, url: str, headers: Mapping[str, str], body: Body) -> Response:
        data = body() if callable(body) else body
        req = urllib.request.Request(url, data=data, method=method)
        for name, value in headers.items():
            req.add_header(name, value)
        if self.authorization is not None:
            req.add_unredirected_header("Authorization", self.authorization)
        try:
            raw = self._opener.open(req, timeout=self._wait())
        except urllib.error.HTTPError as exc:
            raw = exc
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            raise Unreachable(f"cannot reach {self.registry} ({_reason(exc)})") from None
        finally:
            if data is not None and not isinstance(data, bytes):
                data.close()
        if raw.status >= 500:
            status = raw.status
            with contextlib.suppress(Exception):
                raw.close()
            raise Unreachable(f"{self.registry} answered {status} to {method} {_path(url)}")
        return Response(raw.status, raw.headers, raw.geturl(), raw)

    def _authenticate(self, challenges: list[str]) -> None:
        parsed: list[Challenge] = []
        for header in challenges:
            try:
                parsed.extend(parse_challenges(header))
            except ValueError as exc:
                raise RegistryError(
                    f"{self.registry}: unreadable WWW-Authenticate header ({exc})"
                ) from None
        if self.authorization is not None and self.authorization.startswith("Basic "):
            raise RegistryError(self._rejected())
        # A Bearer token may have expired during a long push: ask for a new one (a request
        # refused again right after is reported as rejected by `request`).
        schemes = {c.scheme: c for c in parsed}
        if self.credentials is None:
            self.credentials = find_credentials(self.registry)
        if "bearer" in schemes:
            self.authorization = "Bearer " + self._token(schemes["bearer"])
        elif "basic" in schemes:
            if self.credentials is None:
                raise RegistryError(f"{self.registry} requires credentials; {CREDENTIALS_HINT}")
            self.authorization = "Basic " + _basic(self.credentials)
        else:
            names = ", ".join(sorted(schemes)) or "none"
            raise RegistryError(
                f"{self.registry} asks for authentication this client does not speak ({names})"
            )

    def _token(self, challenge: Challenge) -> str:
        realm = challenge.params.get("realm")
        if not realm or urllib.parse.urlsplit(realm).scheme not in ("http", "https"):
            raise RegistryError(f"{self.registry}: Bearer challenge without an http(s) realm")
        scope = f"repository:{self.reference.repository}:{self.actions}"
        query = {"scope": scope}
        if "service" in challenge.params:
            query["service"] = challenge.params["service"]
        url = realm + ("&" if "?" in realm else "?") + urllib.parse.urlencode(query)
        req = urllib.request.Request(url, method="GET")
        if self.credentials is not None:
            req.add_unredirected_header("Authorization", "Basic " + _basic(self.credentials))
        host = urllib.parse.urlsplit(realm).netloc
        try:
            raw = self._opener.open(req, timeout=self._wait())
        except urllib.error.HTTPError as exc:
            raw = exc
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            raise Unreachable(
                f"cannot reach the token service of {self.registry} at {host} ({_reason(exc)})"
            ) from None
        response = Response(raw.status, raw.headers, raw.geturl(), raw)
        try:
            if response.status in (401, 403):
                raise RegistryError(self._rejected())
            if response.status != 200:
                raise (Unreachable if response.status >= 500 else RegistryError)(
                    f"the token service of {self.registry} ({host}) answered {response.status}"
                )
            body = response.read_body(MAX_SMALL_BYTES, "token response", self)
        finally:
            response.close()
        try:
            data = json.loads(body)
            token = data.get("token") or data.get("access_token")
        except (ValueError, AttributeError):
            token = None
        if not isinstance(token, str) or not token:
            raise RegistryError(f"the token service of {self.registry} ({host}) sent no token")
        return token

    def _rejected(self) -> str:
        if self.credentials is None:
            return f"{self.registry} requires credentials; {CREDENTIALS_HINT}"
        return (
            f"credentials for {self.registry} rejected (from {self.credentials.origin}); "
            f"{CREDENTIALS_HINT}"
        )

    def _failure(self, method: str, url: str, response: Response) -> RegistryError:
        if response.status == 401:
            return RegistryError(self._rejected())
        if response.status == 403:
            who = f" with credentials from {self.credentials.origin}" if self.credentials else ""
            return RegistryError(
                f"{self.registry} denied {self.actions} access to {self.reference.repository}{who}"
            )
        detail = ""
        with contextlib.suppress(Exception):
            errors = json.loads(response.read_body(MAX_SMALL_BYTES, "error", self)).get("errors")
            detail = "; ".join(
                f"{e.get('code')}: {e.get('message')}" for e in errors if isinstance(e, dict)
            )
        return RegistryError(
            f"{self.registry} answered {response.status} to {method} {_path(url)}"
            + (f" ({detail})" if detail else "")
        )

    # -- the distribution API ------------------------------------------------------------------

    def get_manifest(self) -> tuple[bytes, str]:
        """(bytes, "sha256:...") of the manifest the reference names, its digest checked."""
        ref = self.reference
        response = self.request(
            "GET",
            self.url(f"manifests/{ref.target}"),
            {"Accept": MANIFEST_MEDIA_TYPE},
            missing=(404,),
        )
        try:
            if response.status == 404:
                raise RegistryError(f"{ref}: not found in {ref.registry}")
            body = response.read_body(MAX_MANIFEST_BYTES, "manifest", self)
            announced = response.headers.get("Docker-Content-Digest")
        finally:
            response.close()
        digest = "sha256:" + hashlib.sha256(body).hexdigest()
        if ref.digest is not None and digest != ref.digest:
            raise RegistryError(
                f"{ref}: the registry sent a manifest whose sha256 is {digest}; refusing it"
            )
        if announced and announced != digest:
            raise RegistryError(
                f"{ref}: manifest sha256 is {digest}, the registry says {announced}; refusing it"
            )
        return body, digest

    def manifest_digest(self, tag: str) -> str | None:
        """The digest the registry holds under `tag` (HEAD), or None when it has none."""
        response = self.request(
            "HEAD", self.url(f"manifests/{tag}"), {"Accept": MANIFEST_MEDIA_TYPE}, missing=(404,)
        )
        response.close()
        return response.headers.get("Docker-Content-Digest") if response.status == 200 else None

    def get_blob(self, digest: str, limit: int, what: str) -> bytes:
        response = self.request("GET", self.url(f"blobs/{digest}"))
        try:
            data = response.read_body(limit, what, self)
        finally:
            response.close()
        return data

    def download_blob(self, digest: str, size: int, out: BinaryIO) -> None:
        """Stream the blob into `out`, refusing more or fewer bytes than `size` or another
        sha256 than `digest`."""
        response = self.request("GET", self.url(f"blobs/{digest}"))
        hasher = hashlib.sha256()
        got = 0
        read = getattr(response.raw, "read1", None) or response.raw.read  # (see read_body)
        try:
            while True:
                try:
                    chunk = read(min(1 << 20, size + 1 - got))
                except (OSError, http.client.HTTPException) as exc:
                    raise Unreachable(
                        f"{self.registry}: download of {digest} broke off ({_reason(exc)})"
                    ) from None
                if not chunk:
                    break
                self.check_deadline(f"blob {digest}")
                got += len(chunk)
                if got > size:
                    raise RegistryError(
                        f"{self.reference}: blob {digest} is larger than its {size} bytes"
                    )
                hasher.update(chunk)
                out.write(chunk)
        finally:
            response.close()
        if got != size:
            raise RegistryError(f"{self.reference}: blob {digest} has {got} of its {size} bytes")
        actual = "sha256:" + hasher.hexdigest()
        if actual != digest:
            raise RegistryError(
                f"{self.reference}: blob {digest} arrived with sha256 {actual} "
                "(corrupt in the registry or altered on the way); refusing it"
            )

    def blob_exists(self, digest: str) -> bool:
        response = self.request("HEAD", self.url(f"blobs/{digest}"), missing=(404,))
        response.close()
        return response.status == 200

    def upload_blob(self, digest: str, size: int, body: Callable[[], BinaryIO] | bytes) -> None:
        """Monolithic upload: POST for an upload location, then one PUT with the bytes."""
        response = self.request("POST", self.url("blobs/uploads/"), ok=(202,))
        response.close()
        location = response.headers.get("Location")
        if not location:
            raise RegistryError(f"{self.registry}: upload started without a Location")
        target = urllib.parse.urljoin(self.url("blobs/uploads/"), location)
        target += ("&" if "?" in target else "?") + urllib.parse.urlencode({"digest": digest})
        headers = {"Content-Type": "application/octet-stream", "Content-Length": str(size)}
        self.request("PUT", target, headers, body, ok=(201,)).close()

    def put_manifest(self, tag: str, manifest: bytes) -> str:
        response = self.request(
            "PUT",
            self.url(f"manifests/{tag}"),
            {"Content-Type": MANIFEST_MEDIA_TYPE},
            manifest,
            ok=(201,),
        )
        response.close()
        digest = "sha256:" + hashlib.sha256(manifest).hexdigest()
        stored = response.headers.get("Docker-Content-Digest")
        if stored and stored != digest:
            raise RegistryError(
                f"{self.reference}: the registry stored the manifest as {stored}, not {digest}"
            )
        return digest


def _basic(credentials: Credentials) -> str:
    return base64.b64encode(f"{credentials.username}:{credentials.password}".encode()).decode()


def _reason(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None) or exc
    if isinstance(reason, ssl.SSLError):
        return f"TLS: {reason}; for a plain-http registry set {ENV_PLAIN_HTTP}=HOST"
    if isinstance(reason, socket.timeout | TimeoutError):
        return "timed out"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return str(reason) or type(reason).__name__


def _path(url: str) -> str:
    return urllib.parse.urlsplit(url).path
