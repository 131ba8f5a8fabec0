"""A small OCI-distribution client (standard library only) and `oci://` bundle pulls: here the
references, challenges, credentials and bounds; the client `Session` is registry_client.py's,
the pulls registry_pull.py's.

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
import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import BinaryIO

from ..errors import BundleError
from ..records import record
from .specs import OCI_SCHEME as SCHEME

ENV_USERNAME = "DOCSMCP_REGISTRY_USERNAME"
ENV_PASSWORD = "DOCSMCP_REGISTRY_PASSWORD"
# Hosts (host or host:port, comma-separated) reached over plain http besides loopback ones.
ENV_PLAIN_HTTP = "DOCSMCP_REGISTRY_PLAIN_HTTP"
ENV_TIMEOUT = "DOCSMCP_REGISTRY_TIMEOUT"
DEFAULT_TIMEOUT = 30.0  # seconds without a byte before a request is abandoned
# A whole pull (token, manifest, config, layer) must end within this many times the timeout,
# as an https download must (specs.DEADLINE_FACTOR): a registry sending a byte every 2 s kept
# a start waiting without end, each byte resetting the timeout.
PULL_DEADLINE_FACTOR = 30
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


@record
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


@record
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


@record
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


Body = bytes | Callable[[], BinaryIO] | None
