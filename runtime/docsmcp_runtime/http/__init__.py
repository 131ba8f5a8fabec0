"""The Streamable HTTP transport (`docsmcp-runtime --transport http`, extra `[http]`).

- `app`: the stateless ASGI application, `POST /mcp` (`post`) and `/healthz`; `server`: the
  uvicorn runner (one process or `--workers N`);
- `security`: Host/Origin checks (DNS-rebinding protection), bearer auth and CORS;
- `guard`: bounds on slow and excess clients (request-head deadline, head size, connection cap);
- `watch`: the served bundle and `--watch` (serving a new bundle when its path is replaced);
- `defaults`: defaults and the names of the `DOCSMCP_*` environment variables; `settings`:
  `HttpSettings`, read from flags or those variables.

`create_app()` builds the app from environment variables for any ASGI server:
`DOCSMCP_BUNDLE=./idx uvicorn --factory docsmcp_runtime.http:create_app`. The package imports
only its defaults eagerly, so `docsmcp-runtime --help`, a shell search and the stdio transport
stay quick.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import blas  # noqa: F401 - first: numpy reads its thread count on import
from .defaults import (
    DEFAULT_HOST,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_PORT,
    DEFAULT_SHUTDOWN_TIMEOUT,
    DEFAULT_THREADS,
    DEFAULT_WATCH_INTERVAL,
    ENV_AUTH_TOKEN,
    HEALTH_PATH,
    MCP_PATH,
)

if TYPE_CHECKING:
    from .app import McpHttpApp
    from .settings import HttpSettings, is_loopback


def __getattr__(name: str) -> object:
    """`HttpSettings` and `is_loopback` from `settings`, imported on first use (PEP 562): the
    command line's help needs only the defaults."""
    if name in ("HttpSettings", "is_loopback"):
        from . import settings

        return getattr(settings, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def create_app() -> McpHttpApp:
    """ASGI app factory for `uvicorn --factory docsmcp_runtime.http:create_app` and friends."""
    from .app import create_app as create

    return create()


__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_PORT",
    "DEFAULT_SHUTDOWN_TIMEOUT",
    "DEFAULT_THREADS",
    "DEFAULT_WATCH_INTERVAL",
    "ENV_AUTH_TOKEN",
    "HEALTH_PATH",
    "MCP_PATH",
    "HttpSettings",
    "create_app",
    "is_loopback",
]
