"""AWS Lambda entry point: handler `docsmcp_runtime.lambda_handler.handler` (extra `[lambda]`).

The Streamable HTTP app (http/app.py) is already stateless and answers plain JSON (no session,
no SSE stream), which is what a function can serve: each invocation is one POST /mcp. Mangum
turns Lambda events into ASGI requests and back; it reads Function URL and API Gateway HTTP API
events (payload 2.0) and API Gateway REST API events (payload 1.0), and returns the matching
response shape.

Settings are the `DOCSMCP_*` variables of `create_app` (http/settings.py):

- `DOCSMCP_BUNDLE`: a bundle directory or archive inside the deployment package (a relative
  path is relative to the package root, `$LAMBDA_TASK_ROOT`), or an `https://` URL (or any
  reference the runtime resolves) pulled at init into the function's temporary directory;
  `DOCSMCP_BUNDLE_SHA256` pins a URL.
- `DOCSMCP_AUTH_TOKEN`: require `Authorization: Bearer TOKEN` (leave unset when IAM auth or an
  API Gateway authorizer guards the function: IAM puts its own signature in that header).
- `DOCSMCP_CACHE_DIR`: where archives are unpacked; default `/tmp/docsmcp` here, the only
  writable place on Lambda.

In a Lambda environment the app is built during the init phase (module import), so the first
invocation does not pay for opening the bundle; elsewhere (tests, `make_handler`) on first use.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from typing import Any

from . import blas  # noqa: F401 - first: numpy reads its thread count on import
from .distribution.specs import is_remote
from .http.settings import ENV_BUNDLE

Handler = Callable[[dict, Any], dict]


def _prepare_environment() -> None:
    """Lambda's defaults: a writable cache, and bundle paths relative to the package root."""
    os.environ.setdefault("DOCSMCP_CACHE_DIR", os.path.join(tempfile.gettempdir(), "docsmcp"))
    bundle = os.environ.get(ENV_BUNDLE, "").strip()
    root = os.environ.get("LAMBDA_TASK_ROOT")
    if bundle and root and not is_remote(bundle) and not os.path.isabs(bundle):
        os.environ[ENV_BUNDLE] = os.path.join(root, bundle)


def make_handler() -> Handler:
    """A Lambda handler serving the app built from the environment now.

    A bad setting or bundle raises RuntimeError with the runtime's one-line message, which
    Lambda reports as the init error (errorMessage) rather than a bare exit status.
    """
    try:
        from mangum import Mangum
    except ImportError:
        raise RuntimeError(
            "docsmcp-runtime: error: the Lambda handler needs mangum; install "
            "docsmcp-runtime[lambda] into the deployment package"
        ) from None
    from .http.app import create_app

    _prepare_environment()
    try:
        app = create_app()
    except SystemExit as exc:  # create_app's one-line refusals
        raise RuntimeError(str(exc)) from None
    # lifespan off: Mangum would run startup and shutdown around every invocation, and
    # shutdown stops the app's thread pool. The app needs no startup step (no --watch here).
    return Mangum(app, lifespan="off")


_handler: Handler | None = None


def handler(event: dict, context: Any) -> dict:
    """The function's handler: one API Gateway / Function URL event in, its response out."""
    global _handler
    if _handler is None:
        _handler = make_handler()
    return _handler(event, context)


if os.environ.get("AWS_LAMBDA_FUNCTION_NAME") and os.environ.get(ENV_BUNDLE):
    _handler = make_handler()
