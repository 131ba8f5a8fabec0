"""API pages of docusaurus-plugin-openapi-docs, as the site shows them.

The plugin generates one `.api.mdx` page per operation of an OpenAPI document. Its body is a
description between components that draw the rest from data: `<MethodEndpoint method path>`,
`<ParamsDetails>`, `<RequestSchema>` and `<StatusCodes>` (their props inline, or spread from
`require("./x.ParamsDetails.json")` files beside the page), under `<Heading>` components whose
text is a prop. Read as MDX, such a page kept its description and the word "Request": no
endpoint, parameter, body field or response (Agenta's docs: 520 such pages).

Every version of the plugin stores the whole operation, its schemas resolved, in the page's
frontmatter: `api:` is the operation as JSON, deflated (zlib) and base64-encoded, with its
`method` and `path`. That operation is rendered as Mintlify's OpenAPI pages are (openapi.py: a
`## METHOD /path` section, parameters, request body, responses) and appended to the page; its
lines map to the page's last line. The generated component blocks are blanked (their lines stay,
empty), the description written in the body stays (so the rendered operation leaves it out).
A value that is not such an operation leaves the page as it is; the inflated JSON is bounded
(MAX_API_BYTES).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from dataclasses import replace

from docsmcp.model.source import SourceFile
from docsmcp.sources.formats.openapi import METHODS, Operation, appended, operation_lines

# Inflated size of one page's `api` operation, at most (Agenta's largest: ~200 KB).
MAX_API_BYTES = 8 << 20
# Components the plugin generates around an operation's data (blanked: the rendered operation
# says what they showed).
_GENERATED = ("MethodEndpoint", "ParamsDetails", "RequestSchema", "StatusCodes", "Heading")
_OPEN = re.compile(r"^\s*<(" + "|".join(_GENERATED) + r")\b")
MAX_BLOCK_LINES = 2000  # lines of one component block, at most (props inline on a line or few)


def api_operation(frontmatter: dict) -> dict | None:
    """The operation a page's `api` frontmatter holds (with `method` and `path`), or None."""
    value = frontmatter.get("api") if isinstance(frontmatter, dict) else None
    if not isinstance(value, str) or len(value) < 8:
        return None
    try:
        raw = base64.b64decode(value, validate=True)
        inflate = zlib.decompressobj()
        text = inflate.decompress(raw, MAX_API_BYTES)
        if inflate.unconsumed_tail:
            return None  # (larger than MAX_API_BYTES)
        data = json.loads(text)
    except (binascii.Error, ValueError, zlib.error, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    method, path = data.get("method"), data.get("path")
    if not isinstance(method, str) or method.lower() not in METHODS:
        return None
    if not isinstance(path, str) or not path.startswith("/"):
        return None
    return data


def with_api_operation(source: SourceFile) -> SourceFile:
    """`source` shown as its generated page shows it (see the module docstring); `source`
    itself when its frontmatter holds no operation."""
    operation = api_operation(source.frontmatter_with("api"))
    if operation is None:
        return source
    method, path = operation["method"].lower(), operation["path"]
    shown = {k: v for k, v in operation.items() if k not in ("description", "summary")}
    blanked = replace(source, body="\n".join(_blanked(source.body.split("\n"))))
    found = Operation(method, path, operation, {})
    return appended(blanked, operation_lines(method, path, shown), found)


def _blanked(lines: list[str]) -> list[str]:
    """`lines` with each generated component's block (its opening line to its closing tag, or
    to the `/>` ending its opening tag) made empty lines; a block never closed stays."""
    out = list(lines)
    i = 0
    while i < len(out):
        m = _OPEN.match(out[i])
        end = _block_end(out, i, m.group(1)) if m is not None else None
        if end is None:
            i += 1
            continue
        out[i : end + 1] = [""] * (end + 1 - i)
        i = end + 1
    return out


def _block_end(lines: list[str], start: int, name: str) -> int | None:
    """The line closing the component `name` opened on line `start`, or None."""
    in_tag = True  # still in the opening tag (its props)
    for k in range(start, min(len(lines), start + MAX_BLOCK_LINES)):
        line = lines[k]
        if f"</{name}>" in line:
            return k
        if in_tag:
            tail = line.rstrip()
            if tail.endswith("/>"):
                return k
            in_tag = not tail.endswith(">")
    return None
