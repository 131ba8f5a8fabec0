"""The HTTP transport's defaults and environment variable names: what the command line's help
says, importable without the settings' own imports (`http.settings` builds on them)."""

from __future__ import annotations

from ..protocol import MAX_MESSAGE_BYTES

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 20310
DEFAULT_MAX_BODY_BYTES = MAX_MESSAGE_BYTES
DEFAULT_THREADS = 8
DEFAULT_WATCH_INTERVAL = 1.0
DEFAULT_SHUTDOWN_TIMEOUT = 10
# Slow and excess clients (see `guard.guarded_protocol`). A real client sends its request head in
# one packet and its body right after: these bounds only cut off clients that trickle bytes.
DEFAULT_HEADER_TIMEOUT = 10.0  # request head complete within this many seconds (a deadline)
DEFAULT_BODY_TIMEOUT = 30.0  # request body complete within this many seconds of its head
DEFAULT_MAX_CONNECTIONS = 256  # open connections; more are answered 503 and closed
DEFAULT_MAX_HEADER_BYTES = 16 * 1024  # request line + headers, else 431 (h11's own default)
MCP_PATH = "/mcp"
HEALTH_PATH = "/healthz"

ENV_BUNDLE = "DOCSMCP_BUNDLE"
ENV_AUTH_TOKEN = "DOCSMCP_AUTH_TOKEN"
ENV_ALLOW_ORIGINS = "DOCSMCP_ALLOW_ORIGINS"
ENV_ALLOW_HOSTS = "DOCSMCP_ALLOW_HOSTS"
ENV_CORS_ORIGINS = "DOCSMCP_CORS_ORIGINS"
ENV_MAX_BODY_BYTES = "DOCSMCP_MAX_BODY_BYTES"
ENV_BODY_TIMEOUT = "DOCSMCP_BODY_TIMEOUT"
ENV_HEADER_TIMEOUT = "DOCSMCP_HEADER_TIMEOUT"
ENV_MAX_CONNECTIONS = "DOCSMCP_MAX_CONNECTIONS"
ENV_MAX_HEADER_BYTES = "DOCSMCP_MAX_HEADER_BYTES"
# Read by the protocol guard, not the app (see ConnectionLimits).
LIMIT_ENVS = (ENV_HEADER_TIMEOUT, ENV_MAX_CONNECTIONS, ENV_MAX_HEADER_BYTES)
ENV_THREADS = "DOCSMCP_THREADS"
ENV_WATCH = "DOCSMCP_WATCH"
ENV_NO_VERIFY = "DOCSMCP_NO_VERIFY"
ENV_HEALTH_COMMIT = "DOCSMCP_HEALTH_COMMIT"
ENV_LOG_LEVEL = "DOCSMCP_LOG_LEVEL"
ENV_FUSION_WEIGHTS = "DOCSMCP_FUSION_WEIGHTS"
ENV_SIMILARITY_FLOOR = "DOCSMCP_SIMILARITY_FLOOR"
ENV_IVF_PROBE = "DOCSMCP_IVF_PROBE"
