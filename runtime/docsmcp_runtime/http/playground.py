"""The playground: one static page (playground.html, no external resources, no build step)
that talks MCP to this server's /mcp like any client, plus `POST /playground/explain`, which
tells why hits rank where they do (explain.py), and `GET /playground/about`, the corpus name,
version and size for the page's header (no MCP message carries the bundle's version). Served
only with `--playground`; the same Host, Origin and token checks as /mcp apply (the page itself
holds no data)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from functools import cache
from importlib import resources

from ..tools.arguments import ToolInputError
from .replies import Reply

PLAYGROUND_PATH = "/playground"
EXPLAIN_PATH = "/playground/explain"
ABOUT_PATH = "/playground/about"
_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


@cache
def page() -> tuple[bytes, str]:
    """The page, and its Content-Security-Policy: nothing but this page's own inline script
    (by hash) and style, and requests to this origin."""
    html = resources.files(__package__).joinpath("playground.html").read_text("utf-8")
    scripts = _SCRIPT.findall(html)
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'"
        for s in scripts
    )
    policy = (
        "default-src 'none'; connect-src 'self'; style-src 'unsafe-inline'; "
        f"script-src {hashes}; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )
    return html.encode("utf-8"), policy


def page_reply() -> Reply:
    body, policy = page()
    return Reply(
        200,
        body,
        "text/html; charset=utf-8",
        (
            ("Content-Security-Policy", policy),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
        ),
    )


def explain_reply(app: object, body: bytes) -> Reply:
    """The parts of each named hit's score: 200 with {chunk_id: parts}, 400 with one line."""
    try:
        args = json.loads(body)
        if not isinstance(args, dict):
            raise ToolInputError("the body must be a JSON object")
        parts = app.explain(args)  # type: ignore[attr-defined]
    except (ValueError, RecursionError, ToolInputError) as exc:
        return Reply(400, json.dumps({"error": str(exc)}).encode(), "application/json")
    return Reply(200, json.dumps(parts, ensure_ascii=False).encode(), "application/json")


def about_reply(app: object) -> Reply:
    """{"libraries": [{name, description, version, ...}]} of the served bundles."""
    about = app.about()  # type: ignore[attr-defined]
    return Reply(200, json.dumps(about, ensure_ascii=False).encode(), "application/json")
