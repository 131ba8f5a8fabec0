"""Transport security of the HTTP server: Host and Origin checks (DNS-rebinding protection),
bearer-token auth and CORS. Every check returns the refusal to send, or None to go on.

Defaults suit a server on a developer machine:

* No `Origin` header (curl, SDK clients, agents) is allowed. A browser `Origin` must be in
  `allow_origins` or `cors_origins`; when bound to loopback, `http(s)://localhost`,
  `127.0.0.1` and `[::1]` origins (any port) are also allowed. Anything else → 403, which is
  what defeats DNS rebinding: a rebound page still sends its own origin.
* Bound to loopback, the `Host` header must name a loopback host (or an `allow_hosts` entry),
  a second line of defence against DNS rebinding. Bound elsewhere, `Host` is only checked
  when `allow_hosts` is given.
* With an auth token, /mcp requires `Authorization: Bearer <token>`; /healthz stays open so
  load balancers can probe it.
* No CORS headers unless `cors_origins` is given; `*` only if passed explicitly.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import urlsplit

from ..errors import INVALID_REQUEST
from .replies import Headers, Reply, first, plain, rpc_error
from .settings import HttpSettings

WWW_AUTHENTICATE = 'Bearer realm="docsmcp"'
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
# What a CORS preflight may ask to send; the MCP routing headers plus auth.
CORS_ALLOW_HEADERS = (
    "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name"
)


def normalize_origin(origin: str) -> str:
    return origin.strip().lower().rstrip("/")


def host_name(host: str) -> str:
    """`example.com:8080` → `example.com`; `[::1]:8080` → `::1`."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    name, sep, port = host.rpartition(":")
    return name if sep and port.isdigit() else host


def token_bytes(token: str, sent: bool = False) -> bytes:
    """A bearer token as compared, the one normalisation of both sides: surrounding whitespace
    dropped (a secret file's newline), then its bytes: UTF-8 for the server's own, the bytes as
    sent for a client's (headers are decoded as Latin-1, which gives those bytes back)."""
    return token.strip().encode("latin-1", "replace") if sent else token.strip().encode()


class TransportSecurity:
    """The checks for one server's settings, precomputed once."""

    def __init__(self, settings: HttpSettings) -> None:
        if settings.auth_token is not None and not settings.auth_token.strip():
            # An empty token would silently mean "no auth": refuse it wherever it comes from.
            raise ValueError("the auth token is empty")
        self.loopback = settings.loopback
        self.origins = frozenset(
            normalize_origin(o) for o in settings.allow_origins + settings.cors_origins
        )
        self.cors = frozenset(normalize_origin(o) for o in settings.cors_origins)
        hosts = {h.strip().lower() for h in settings.allow_hosts if h.strip()}
        if settings.loopback:
            hosts |= LOOPBACK_HOSTS
        # None: no Host check (bound to a public interface without an explicit list).
        self.hosts: frozenset[str] | None = frozenset(hosts) if hosts else None
        self.token_digest = (
            hashlib.sha256(token_bytes(settings.auth_token)).digest()
            if settings.auth_token
            else None
        )

    def check_host(self, headers: Headers) -> Reply | None:
        if self.hosts is None:
            return None
        host = (first(headers, "host") or "").strip().lower()
        if host in self.hosts or host_name(host) in self.hosts:
            return None
        return rpc_error(403, INVALID_REQUEST, f"Forbidden: Host {host!r} is not allowed")

    def origin_allowed(self, origin: str) -> bool:
        normalized = normalize_origin(origin)
        if "*" in self.origins or normalized in self.origins:
            return True
        if self.loopback:
            parts = urlsplit(normalized)
            return parts.scheme in ("http", "https") and parts.hostname in LOOPBACK_HOSTS
        return False

    def check_origin(self, headers: Headers) -> Reply | None:
        origin = first(headers, "origin")
        if origin is None or self.origin_allowed(origin):
            return None  # no Origin: not a browser, nothing to rebind
        return rpc_error(403, INVALID_REQUEST, f"Forbidden: Origin {origin!r} is not allowed")

    def check_auth(self, headers: Headers) -> Reply | None:
        if self.token_digest is None:
            return None
        scheme, _, credentials = (first(headers, "authorization") or "").strip().partition(" ")
        if scheme.lower() != "bearer" or not credentials.strip():
            return rpc_error(
                401,
                INVALID_REQUEST,
                "Unauthorized: send Authorization: Bearer <token>",
                headers=(("WWW-Authenticate", WWW_AUTHENTICATE),),
            )
        # Digests have equal length, so the comparison leaks neither content nor length.
        digest = hashlib.sha256(token_bytes(credentials, sent=True)).digest()
        if hmac.compare_digest(digest, self.token_digest):
            return None
        return rpc_error(
            401,
            INVALID_REQUEST,
            "Unauthorized: invalid bearer token",
            headers=(("WWW-Authenticate", WWW_AUTHENTICATE + ', error="invalid_token"'),),
        )

    def cors_match(self, origin: str | None) -> str | None:
        """The Access-Control-Allow-Origin value for this request, or None for no CORS."""
        if origin is None or not self.cors:
            return None
        if normalize_origin(origin) in self.cors:
            return origin.strip()
        return "*" if "*" in self.cors else None

    def cors_headers(self, origin: str | None) -> list[tuple[bytes, bytes]]:
        allowed = self.cors_match(origin)
        if allowed is None:
            return []
        out = [
            (b"access-control-allow-origin", allowed.encode("latin-1")),
            (b"access-control-expose-headers", b"X-Docsmcp-Bundle"),
        ]
        if allowed != "*":
            out.append((b"vary", b"Origin"))
        return out

    def allowed_methods(self) -> str:
        return "POST, OPTIONS" if self.cors else "POST"

    def preflight(self, headers: Headers) -> Reply:
        if self.cors_match(first(headers, "origin")) is None:
            return plain(405, "Method Not Allowed\n", (("Allow", self.allowed_methods()),))
        return Reply(
            204,
            headers=(
                ("Access-Control-Allow-Methods", "POST, OPTIONS"),
                ("Access-Control-Allow-Headers", CORS_ALLOW_HEADERS),
                ("Access-Control-Max-Age", "600"),
            ),
        )
