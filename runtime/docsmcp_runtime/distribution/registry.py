"""A small OCI-distribution client (standard library only) and `oci://` bundle pulls.

`docsmcp-runtime --bundle oci://REGISTRY/REPO:TAG` (or `@sha256:...`) resolves the reference,
downloads the manifest and the bundle layer, checks every digest, and unpacks the layer through
the archive cache (`archive.unpack_to_cache`, which checks the bundle's own checksums). A small
record `CACHE/oci/<key>.json` maps the reference to what it last resolved to, so a registry
that cannot be reached later still serves that copy (logged as such), and a digest reference
already pulled is served without asking the registry at all (its content cannot change).

The builder's `docsmcp push` uses the same `Session` to upload blobs and the manifest.
Authentication follows the `WWW-Authenticate` challenge: anonymous, Basic, or a Bearer token
from the realm the registry names. Credentials come from `$DOCSMCP_REGISTRY_USERNAME` /
`$DOCSMCP_REGISTRY_PASSWORD` or docker's config file (`$DOCKER_CONFIG/config.json`, else
`~/.docker/config.json`, its `auths` entries), never from the command line.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import http.client
import json
import logging
import os
import re
import socket
import ssl
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from email.message import Message
from pathlib import Path
from typing import BinaryIO

from ..errors import BundleError
from .archive import (
    HEX64,
    ArchiveSource,
    bundle_layer,
    cached_bundle,
    check_room,
    unpack_to_cache,
)
from .archive import OCI_MANIFEST_MEDIA_TYPE as MANIFEST_MEDIA_TYPE
from .archive import OCI_SCHEME as SCHEME
from .swap import replace_file

ENV_USERNAME = "DOCSMCP_REGISTRY_USERNAME"
ENV_PASSWORD = "DOCSMCP_REGISTRY_PASSWORD"
# Hosts (host or host:port, comma-separated) reached over plain http besides loopback ones.
ENV_PLAIN_HTTP = "DOCSMCP_REGISTRY_PLAIN_HTTP"
ENV_TIMEOUT = "DOCSMCP_REGISTRY_TIMEOUT"
DEFAULT_TIMEOUT = 30.0  # seconds without a byte before a request is abandoned
DEFAULT_TAG = "latest"
CREDENTIALS_HINT = (
    f"set {ENV_USERNAME} and {ENV_PASSWORD}, or log in with `docker login` "
    "(auths in ~/.docker/config.json)"
)

# Bounds on what a registry may send: distribution itself refuses manifests over 4 MiB.
MAX_MANIFEST_BYTES = 4 << 20
MAX_SMALL_BYTES = 1 << 20  # token responses, config blobs, error bodies, docker config
MAX_LAYER_BYTES = 64 << 30
MAX_REFERENCE_CHARS = 1024
# The reference records kept in CACHE/oci (least recently used beyond this are removed).
MAX_RECORDS = 1000
EMPTY_CONFIG = b"{}"

_log = logging.getLogger(__name__)

_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
TAG_PATTERN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")
_COMPONENT = r"[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*"
_REPOSITORY = re.compile(rf"{_COMPONENT}(?:/{_COMPONENT})*")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_HOST = re.compile(rf"(?:{_LABEL}(?:\.{_LABEL})*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{{1,5}})?")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


class RegistryError(BundleError):
    """A registry refused or failed a request; the message is one line."""


class Unreachable(RegistryError):
    """The registry could not be reached (network, timeout, or a server error)."""


# -- references --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reference:
    """`REGISTRY/REPOSITORY[:TAG][@sha256:HEX]`; with neither tag nor digest the tag is latest."""

    registry: str  # host[:port]
    repository: str
    tag: str | None
    digest: str | None  # "sha256:<hex>"

    def __str__(self) -> str:
        text = f"{self.registry}/{self.repository}"
        if self.tag is not None:
            text += f":{self.tag}"
        if self.digest is not None:
            text += f"@{self.digest}"
        return text

    @property
    def target(self) -> str:
        """What the manifest is fetched by: the digest when pinned, else the tag."""
        return self.digest or self.tag or DEFAULT_TAG

    @property
    def base_url(self) -> str:
        return f"{scheme_for(self.registry)}://{self.registry}/v2/{self.repository}"


def is_reference(spec: object) -> bool:
    return isinstance(spec, str) and spec.startswith(SCHEME)


def parse_reference(text: str) -> Reference:
    """Parse `[oci://]REGISTRY/REPO[:TAG][@sha256:HEX]`; ValueError with a one-line reason."""
    if len(text) > MAX_REFERENCE_CHARS:
        raise ValueError(f"OCI reference longer than {MAX_REFERENCE_CHARS} characters")
    body = text.removeprefix(SCHEME)
    if not (body.isascii() and body.isprintable()) or " " in body:
        # Every part of a reference is printable ASCII; quote rather than echo the rest.
        raise ValueError(f"not an OCI reference: {text!r}")
    shown = SCHEME + body
    name, at, digest = body.partition("@")
    if at and not _DIGEST.fullmatch(digest):
        raise ValueError(f"{shown}: the digest must be sha256: and 64 lowercase hex digits")
    registry, slash, rest = name.partition("/")
    if not slash or not rest:
        raise ValueError(f"{shown}: expected REGISTRY/REPOSITORY[:TAG][@sha256:...]")
    if not _HOST.fullmatch(registry) or not (
        "." in registry or ":" in registry or registry == "localhost"
    ):
        raise ValueError(
            f"{shown}: {registry!r} is not a registry host; start with one, "
            "e.g. ghcr.io/ORG/REPO:TAG or localhost:5000/REPO:TAG"
        )
    port = registry.rpartition(":")[2] if not registry.endswith("]") else ""
    if ":" in registry and not registry.endswith("]") and not 0 < int(port) < 65536:
        raise ValueError(f"{shown}: port {port} is out of range")
    repository, colon, tag = rest.partition(":")
    if not _REPOSITORY.fullmatch(repository) or len(repository) > 255:
        raise ValueError(
            f"{shown}: invalid repository {repository!r} (lowercase letters, digits, "
            "'.', '_', '-' and '/' between components)"
        )
    if colon and not TAG_PATTERN.fullmatch(tag):
        raise ValueError(f"{shown}: invalid tag {tag!r} (letters, digits, '_', '.', '-'; ≤ 128)")
    return Reference(
        registry=registry,
        repository=repository,
        tag=tag if colon else (None if at else DEFAULT_TAG),
        digest=digest if at else None,
    )


def scheme_for(registry: str) -> str:
    """http for loopback hosts and those named in $DOCSMCP_REGISTRY_PLAIN_HTTP, else https."""
    host = registry.rsplit(":", 1)[0] if not registry.endswith("]") else registry
    if host in ("localhost", "[::1]") or host.startswith("127."):
        return "http"
    plain = {h.strip() for h in os.environ.get(ENV_PLAIN_HTTP, "").split(",") if h.strip()}
    return "http" if registry in plain or host in plain else "https"


# -- WWW-Authenticate --------------------------------------------------------------------------


@dataclass(frozen=True)
class Challenge:
    scheme: str  # lowercased
    params: Mapping[str, str] = field(default_factory=dict)  # names lowercased


def parse_challenges(header: str) -> list[Challenge]:
    """The challenges of a `WWW-Authenticate` value (RFC 9110 auth-params; token68 forms are
    not used by registries and are refused). ValueError on anything malformed."""
    out: list[tuple[str, dict[str, str]]] = []
    i, n = 0, len(header)
    while True:
        while i < n and header[i] in " \t,":
            i += 1
        if i >= n:
            break
        match = _TOKEN.match(header, i)
        if match is None:
            raise ValueError(f"unexpected {header[i]!r} at {i}")
        name, j = match.group(), match.end()
        k = j
        while k < n and header[k] in " \t":
            k += 1
        if k < n and header[k] == "=":
            if not out:
                raise ValueError(f"parameter {name!r} before any scheme")
            k += 1
            while k < n and header[k] in " \t":
                k += 1
            value, i = _param_value(header, k)
            out[-1][1].setdefault(name.lower(), value)
            while i < n and header[i] in " \t":
                i += 1
            if i < n and header[i] != ",":
                raise ValueError(f"expected ',' at {i}")
        else:
            if k == j and k < n and header[k] != ",":
                raise ValueError(f"unexpected {header[k]!r} at {k}")
            out.append((name.lower(), {}))
            i = j
    return [Challenge(scheme, params) for scheme, params in out]


def _param_value(header: str, i: int) -> tuple[str, int]:
    n = len(header)
    if i < n and header[i] == '"':
        chars: list[str] = []
        i += 1
        while i < n:
            c = header[i]
            if c == "\\" and i + 1 < n:
                chars.append(header[i + 1])
                i += 2
            elif c == '"':
                return "".join(chars), i + 1
            else:
                chars.append(c)
                i += 1
        raise ValueError("unterminated quoted string")
    match = _TOKEN.match(header, i)
    if match is None:
        raise ValueError(f"missing parameter value at {i}")
    return match.group(), match.end()


# -- credentials -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str
    origin: str  # where they came from, for messages


def docker_config_path() -> Path:
    folder = os.environ.get("DOCKER_CONFIG")
    return (Path(folder) if folder else Path.home() / ".docker") / "config.json"


def find_credentials(registry: str) -> Credentials | None:
    """The environment's credentials, else the docker config's `auths` entry for `registry`."""
    user, password = os.environ.get(ENV_USERNAME), os.environ.get(ENV_PASSWORD)
    if user is not None or password is not None:
        if not user or password is None:
            raise RegistryError(f"set both {ENV_USERNAME} and {ENV_PASSWORD}, or neither")
        return Credentials(user, password, f"${ENV_USERNAME}")
    path = docker_config_path()
    try:
        if not path.is_file():
            return None
        if path.stat().st_size > MAX_SMALL_BYTES:
            raise RegistryError(f"{path}: implausibly large docker config file")
        data = json.loads(path.read_bytes())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RegistryError(f"{path}: unreadable docker config ({exc})") from None
    auths = data.get("auths") if isinstance(data, dict) else None
    if not isinstance(auths, dict):
        return None
    for key, entry in auths.items():
        # Keys are `host[:port]`, sometimes written as URLs (`https://host/v1/`).
        host = str(key).split("://", 1)[-1].split("/", 1)[0]
        if host != registry or not isinstance(entry, dict):
            continue
        if isinstance(entry.get("auth"), str) and entry["auth"]:
            try:
                decoded = base64.b64decode(entry["auth"], validate=True).decode("utf-8")
            except (ValueError, UnicodeDecodeError):
                decoded = ""
            user, colon, password = decoded.partition(":")
            if not colon:
                raise RegistryError(f"{path}: auths[{key!r}].auth is not base64 of USER:PASSWORD")
            return Credentials(user, password, str(path))
        if isinstance(entry.get("username"), str) and isinstance(entry.get("password"), str):
            return Credentials(entry["username"], entry["password"], str(path))
    return None


# -- HTTP --------------------------------------------------------------------------------------


@dataclass
class Response:
    status: int
    headers: Message
    url: str
    raw: object  # the open response (read with `read_body` / `stream_to`), closed by `close`

    def read_body(self, limit: int, what: str) -> bytes:
        data = self.raw.read(limit + 1)  # type: ignore[attr-defined]
        if len(data) > limit:
            raise RegistryError(f"{self.url}: {what} is larger than {limit} bytes; refusing it")
        return data

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


Body = bytes | Callable[[], BinaryIO] | None


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
        self.authorization: str | None = None
        self.credentials: Credentials | None = None
        self._opener = urllib.request.build_opener(_NoRedirect())

    @property
    def registry(self) -> str:
        return self.reference.registry

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
            raw = self._opener.open(req, timeout=self.timeout)
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
            raw = self._opener.open(req, timeout=self.timeout)
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
            body = response.read_body(MAX_SMALL_BYTES, "token response")
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
            errors = json.loads(response.read_body(MAX_SMALL_BYTES, "error")).get("errors")
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
            body = response.read_body(MAX_MANIFEST_BYTES, "manifest")
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
            data = response.read_body(limit, what)
        finally:
            response.close()
        return data

    def download_blob(self, digest: str, size: int, out: BinaryIO) -> None:
        """Stream the blob into `out`, refusing more or fewer bytes than `size` or another
        sha256 than `digest`."""
        response = self.request("GET", self.url(f"blobs/{digest}"))
        hasher = hashlib.sha256()
        got = 0
        try:
            while True:
                try:
                    chunk = response.raw.read(min(1 << 20, size + 1 - got))  # type: ignore[attr-defined]
                except (OSError, http.client.HTTPException) as exc:
                    raise Unreachable(
                        f"{self.registry}: download of {digest} broke off ({_reason(exc)})"
                    ) from None
                if not chunk:
                    break
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


# -- pulling a bundle --------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """What a reference resolved to when it was last pulled (CACHE/oci/<key>.json)."""

    reference: str
    manifest: str  # "sha256:..."
    layer: str  # hex sha256 of the bundle archive = the bundles/ cache entry


def record_path(cache_dir: Path, reference: Reference) -> Path:
    key = hashlib.sha256(_record_key(reference).encode()).hexdigest()[:32]
    return cache_dir / "oci" / f"{key}.json"


def _record_key(reference: Reference) -> str:
    # A pinned reference is the digest whatever tag is written beside it.
    if reference.digest is not None:
        return f"{reference.registry}/{reference.repository}@{reference.digest}"
    return str(reference)


def read_record(cache_dir: Path, reference: Reference) -> Record | None:
    path = record_path(cache_dir, reference)
    try:
        data = json.loads(path.read_bytes()[:MAX_SMALL_BYTES])
        record = Record(str(data["reference"]), str(data["manifest"]), str(data["layer"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if (
        record.reference != _record_key(reference)
        or not _DIGEST.fullmatch(record.manifest)
        or not HEX64.fullmatch(record.layer)
        or (reference.digest is not None and record.manifest != reference.digest)
    ):
        return None
    return record


def _write_record(cache_dir: Path, reference: Reference, manifest: str, layer: str) -> None:
    """Best effort: a cache that cannot record only loses the offline fallback."""
    path = record_path(cache_dir, reference)
    data = {"reference": _record_key(reference), "manifest": manifest, "layer": layer}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, json.dumps(data, sort_keys=True).encode())
        records = sorted(
            (p for p in path.parent.glob("*.json")), key=lambda p: p.stat().st_mtime, reverse=True
        )
        for old in records[MAX_RECORDS:]:
            old.unlink(missing_ok=True)
    except OSError as exc:
        _log.warning("cannot record %s in %s (%s)", reference, path.parent, exc.strerror or exc)


def pull_bundle(spec: str, cache_dir: Path) -> Path:
    """The unpacked, verified bundle directory for `oci://...`; BundleError with one line."""
    try:
        reference = parse_reference(spec)
    except ValueError as exc:
        raise BundleError(str(exc)) from None
    record = read_record(cache_dir, reference)
    if reference.digest is not None and record is not None:
        cached = cached_bundle(cache_dir, record.layer)
        if cached is not None:
            # A manifest digest names its content forever: no need to ask the registry.
            return cached
    session = Session(reference)
    try:
        body, manifest_digest = session.get_manifest()
    except Unreachable as exc:
        cached = cached_bundle(cache_dir, record.layer) if record is not None else None
        if record is None or cached is None:
            raise RegistryError(f"{exc}; no cached copy of {reference} to serve") from None
        _log.warning(
            "%s; serving the cached copy of %s (manifest %s)", exc, reference, record.manifest
        )
        return cached
    label = SCHEME + str(reference)
    try:
        manifest = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise RegistryError(f"{label}: the manifest is not JSON") from None
    config, layer = bundle_layer(manifest, label)
    config_digest, config_size = config
    if config_digest == "sha256:" + hashlib.sha256(EMPTY_CONFIG).hexdigest():
        if config_size != len(EMPTY_CONFIG):
            raise RegistryError(f"{label}: the empty config's size is {config_size}, not 2")
    else:
        data = session.get_blob(config_digest, min(config_size, MAX_SMALL_BYTES), "config blob")
        if "sha256:" + hashlib.sha256(data).hexdigest() != config_digest:
            raise RegistryError(f"{label}: config blob does not match its digest; refusing it")
    layer_digest, layer_size = layer["digest"], layer["size"]
    hexdigest = layer_digest.removeprefix("sha256:")
    cached = cached_bundle(cache_dir, hexdigest)
    if cached is None:
        cached = _download_layer(session, cache_dir, label, layer_digest, layer_size)
    _write_record(cache_dir, reference, manifest_digest, hexdigest)
    if record is None or record.manifest != manifest_digest:
        _log.info("pulled %s (manifest %s, %d bytes)", reference, manifest_digest, layer_size)
    return cached


def _download_layer(session: Session, cache_dir: Path, label: str, digest: str, size: int) -> Path:
    if size > MAX_LAYER_BYTES:
        raise RegistryError(f"{label}: bundle layer of {size} bytes is over {MAX_LAYER_BYTES}")
    bundles = cache_dir / "bundles"
    try:
        bundles.mkdir(parents=True, exist_ok=True)
        check_room(label, bundles, size, "downloading the layer")  # before a file is open
        fd, name = tempfile.mkstemp(prefix=f".{digest[7:23]}.pull-", dir=bundles)
    except OSError as exc:
        raise RegistryError(
            f"cannot create cache directory {bundles} ({exc.strerror or exc}); "
            "set DOCSMCP_CACHE_DIR to a writable directory"
        ) from None
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as out:
            session.download_blob(digest, size, out)
        return unpack_to_cache(ArchiveSource(tmp, digest.removeprefix("sha256:"), label), cache_dir)
    except OSError as exc:
        raise RegistryError(f"cannot write {tmp} ({exc.strerror or exc})") from None
    finally:
        tmp.unlink(missing_ok=True)
