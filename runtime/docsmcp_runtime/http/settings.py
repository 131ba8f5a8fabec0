"""Settings of the HTTP transport: `HttpSettings` from flags or the environment variables that
`defaults` names."""

from __future__ import annotations

import ipaddress
import os
from typing import TYPE_CHECKING

from .. import __version__, logs
from ..records import record
from ..search.options import (
    EXPAND_ENV,
    MAX_TOKENS_ENV,
    TIME_BUDGET_ENV,
    SearchOptions,
    parse_flag,
)
from ..tools.registry import TOOL_PREFIX_ENV, TOOLS_ENV, ToolSelection
from .defaults import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_HEADER_BYTES,
    DEFAULT_THREADS,
    DEFAULT_WATCH_INTERVAL,
    ENV_ALLOW_HOSTS,
    ENV_ALLOW_ORIGINS,
    ENV_AUTH_TOKEN,
    ENV_BODY_TIMEOUT,
    ENV_BUNDLE,
    ENV_CORS_ORIGINS,
    ENV_FUSION_WEIGHTS,
    ENV_HEADER_TIMEOUT,
    ENV_HEALTH_COMMIT,
    ENV_IVF_PROBE,
    ENV_LOG_LEVEL,
    ENV_MAX_BODY_BYTES,
    ENV_MAX_CONNECTIONS,
    ENV_MAX_HEADER_BYTES,
    ENV_NO_VERIFY,
    ENV_SIMILARITY_FLOOR,
    ENV_THREADS,
    ENV_WATCH,
)

if TYPE_CHECKING:
    from ..distribution.remote import FetchOptions

SERVER_HEADER = f"docsmcp-runtime/{__version__}"


@record
class HttpSettings:
    """Everything the ASGI app needs; the CLI and `create_app` fill it from flags or env."""

    bundle: str
    # Further --bundle values: several bundles are served as libraries (libraries/).
    more_bundles: tuple[str, ...] = ()
    verify: bool = True
    auth_token: str | None = None
    allow_origins: tuple[str, ...] = ()
    allow_hosts: tuple[str, ...] = ()
    cors_origins: tuple[str, ...] = ()
    # Bound to a loopback address: localhost origins are trusted and `Host` is checked.
    loopback: bool = False
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    threads: int = DEFAULT_THREADS
    watch: bool = False
    watch_interval: float = DEFAULT_WATCH_INTERVAL
    search: SearchOptions = SearchOptions()
    tools: ToolSelection = ToolSelection()
    # /healthz names the source commit only when asked: a public health check should not
    # tell the world which revision of a private repository the docs came from.
    health_commit: bool = False
    # Serve the playground page (GET /playground) and its explain endpoint (--playground).
    playground: bool = False
    # Bounds of https:// bundle downloads (remote.py); None: from DOCSMCP_BUNDLE_* variables.
    fetch: FetchOptions | None = None


@record
class ConnectionLimits:
    """Bounds on slow and excess clients, enforced by the HTTP protocol (not the ASGI app):
    `docsmcp-runtime --transport http` always, plain uvicorn with
    `--http docsmcp_runtime.http.guard:GuardedH11Protocol`."""

    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES


def is_loopback(host: str) -> bool:
    """Whether a bind address only accepts connections from this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _env_list(name: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in os.environ.get(name, "").split(",") if v.strip())


def _env_int(name: str, default: int, low: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = low - 1
    if value < low:
        raise SystemExit(f"docsmcp-runtime: error: {name} must be an integer >= {low}, got {raw!r}")
    return value


def _env_seconds(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise SystemExit(
            f"docsmcp-runtime: error: {name} must be a number of seconds > 0, got {raw!r}"
        )
    return value


def _env_flag(name: str) -> bool:
    return parse_flag(os.environ.get(name, ""))


def settings_from_env() -> HttpSettings:
    """HttpSettings from DOCSMCP_* variables; exits with a one-line message when they are bad.

    The host's bind address is unknown here, so nothing is trusted implicitly: no localhost
    origins, and `Host` is checked only when DOCSMCP_ALLOW_HOSTS is set.
    """
    bundle = os.environ.get(ENV_BUNDLE, "").strip()
    if not bundle:
        raise SystemExit(f"docsmcp-runtime: error: set {ENV_BUNDLE} to the bundle directory")
    level = os.environ.get(ENV_LOG_LEVEL, "info").strip().lower() or "info"
    if level not in logs.LEVELS:
        raise SystemExit(
            f"docsmcp-runtime: error: {ENV_LOG_LEVEL} must be one of {', '.join(logs.LEVELS)}"
        )
    logs.configure_if_unset(level)
    return HttpSettings(
        bundle=_env_pinned(bundle),
        verify=not _env_flag(ENV_NO_VERIFY),
        auth_token=_env_token(),
        allow_origins=_env_list(ENV_ALLOW_ORIGINS),
        allow_hosts=_env_list(ENV_ALLOW_HOSTS),
        cors_origins=_env_list(ENV_CORS_ORIGINS),
        max_body_bytes=_env_int(ENV_MAX_BODY_BYTES, DEFAULT_MAX_BODY_BYTES, 1),
        body_timeout=_env_seconds(ENV_BODY_TIMEOUT, DEFAULT_BODY_TIMEOUT),
        threads=_env_int(ENV_THREADS, DEFAULT_THREADS, 1),
        watch=_env_flag(ENV_WATCH),
        search=_env_search_options(),
        tools=_env_tools(),
        health_commit=_env_flag(ENV_HEALTH_COMMIT),
    )


def _env_pinned(bundle: str) -> str:
    """DOCSMCP_BUNDLE with DOCSMCP_BUNDLE_SHA256 as its pin, when that is set (remote.py)."""
    from ..distribution.remote import FetchOptions, pin_specs
    from ..distribution.specs import ENV_SHA256

    pin = os.environ.get(ENV_SHA256, "").strip()
    try:
        FetchOptions.from_env()  # refuse bad DOCSMCP_BUNDLE_* values now, in one line
        return pin_specs([bundle], [pin] if pin else [])[0]
    except ValueError as exc:
        message = str(exc).replace("--bundle-sha256", ENV_SHA256).replace("--bundle", ENV_BUNDLE)
        raise SystemExit(f"docsmcp-runtime: error: {message}") from None


def limits_from_env() -> ConnectionLimits:
    """ConnectionLimits from DOCSMCP_* variables (for uvicorn's `--http` option)."""
    return ConnectionLimits(
        header_timeout=_env_seconds(ENV_HEADER_TIMEOUT, DEFAULT_HEADER_TIMEOUT),
        max_connections=_env_int(ENV_MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS, 1),
        max_header_bytes=_env_int(ENV_MAX_HEADER_BYTES, DEFAULT_MAX_HEADER_BYTES, 1024),
    )


def _env_token() -> str | None:
    """The bearer token; set but blank is refused (it would silently mean "no auth")."""
    token = os.environ.get(ENV_AUTH_TOKEN)
    if token is not None and not token.strip():
        raise SystemExit(f"docsmcp-runtime: error: {ENV_AUTH_TOKEN} is set but empty")
    return token


def _env_search_options() -> SearchOptions:
    names = (
        ENV_FUSION_WEIGHTS,
        ENV_SIMILARITY_FLOOR,
        TIME_BUDGET_ENV,
        EXPAND_ENV,
        MAX_TOKENS_ENV,
        ENV_IVF_PROBE,
    )
    try:
        return SearchOptions.parse(*(os.environ.get(name) for name in names), names=names)
    except ValueError as exc:
        raise SystemExit(f"docsmcp-runtime: error: {exc}") from None


def _env_tools() -> ToolSelection:
    try:
        return ToolSelection.parse(os.environ.get(TOOLS_ENV), os.environ.get(TOOL_PREFIX_ENV))
    except ValueError as exc:
        message = str(exc).replace("--tools", TOOLS_ENV).replace("--tool-prefix", TOOL_PREFIX_ENV)
        raise SystemExit(f"docsmcp-runtime: error: {message}") from None
