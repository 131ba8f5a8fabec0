"""Mintlify API pages rendered from their OpenAPI document, as markdown.

A Mintlify page whose frontmatter says `openapi: "GET /users/{id}"` (or names its document,
`openapi: "/static-export-openapi.json GET /static-export/jobs/{jobId}"`) shows the operation the
document describes: its summary and description, parameters, request body and responses. The
page's own text is often one `<Info>` line (Mintlify's docs: 31 such pages), so without the
document the operation was not searchable at all.

The operation is appended to the page as markdown: a `## METHOD /path` section, its summary
and description, then `### Path parameters`, `### Query parameters`, `### Headers`, `### Request
body` and `### Responses` as lists of `name (type, required): description`, nested object
fields as dotted names. Local `$ref`s (`#/components/...`) are followed; everything is bounded
(MAX_DEPTH levels of nesting, MAX_FIELDS fields an operation). The document is found as named
(relative to the docs folder, a leading `/` too), else through `docs.json`/`mint.json`'s
`openapi` entries, else as `openapi.json`/`openapi.yaml` at the docs root; it is read through
`files.read_file`, inside the source roots only.
"""

from __future__ import annotations

import functools
import json
import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from docsmcp.common.limits import MAX_FILE_BYTES
from docsmcp.model.api import ApiEntry, Parameter
from docsmcp.model.source import SourceFile
from docsmcp.sources.files import Refused, read_file

MAX_DEPTH = 3  # levels of nested object fields shown
MAX_FIELDS = 200  # list items an operation renders, at most
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_TARGET = re.compile(r"^\s*(?:(\S+\.(?:json|ya?ml))\s+)?([A-Za-z]+)\s+(/\S*)\s*$", re.IGNORECASE)
_DEFAULT_DOCUMENTS = ("openapi.json", "openapi.yaml", "openapi.yml")
_CONFIGS = ("docs.json", "mint.json")


def target(frontmatter: dict) -> tuple[str | None, str, str] | None:
    """(document or None, method, path) of a page's `openapi` frontmatter, else None."""
    value = frontmatter.get("openapi") if isinstance(frontmatter, dict) else None
    if not isinstance(value, str):
        return None
    m = _TARGET.match(value)
    if m is None or m.group(2).lower() not in METHODS:
        return None
    return m.group(1), m.group(2).lower(), m.group(3)


@dataclass(frozen=True)
class Operation:
    """An operation found in a document, and the document (its local `$ref`s)."""

    method: str
    path: str
    operation: dict
    spec: dict

    def lines(self) -> list[str]:
        return _Renderer(self.spec).operation(self.method, self.path, self.operation)


def named_operation(docs_dir: Path, frontmatter: dict, roots: Sequence[Path]) -> Operation | None:
    """The operation a page's frontmatter names, or None (no `openapi` key, no document found,
    or no such operation in it)."""
    found = target(frontmatter)
    if found is None:
        return None
    document, method, path = found
    names = [document.lstrip("/")] if document else _documents(docs_dir, roots)
    for name in names:
        operation = document_operation(docs_dir, name, method, path, roots)
        if operation is not None:
            return operation
    return None


def render(docs_dir: Path, frontmatter: dict, roots: Sequence[Path]) -> list[str] | None:
    """The markdown lines of the operation a page's frontmatter names, or None."""
    operation = named_operation(docs_dir, frontmatter, roots)
    return None if operation is None else operation.lines()


def document_operation(
    docs_dir: Path, document: str, method: str, path: str, roots: Sequence[Path]
) -> Operation | None:
    """Operation `method path` of `document` (relative to the docs folder), or None when the
    document or the operation is not found."""
    spec = _load(docs_dir, document, tuple(roots))
    operation = _operation(spec, method, path)
    return None if operation is None or spec is None else Operation(method, path, operation, spec)


def operation_lines(method: str, path: str, operation: dict, spec: dict | None = None) -> list[str]:
    """The markdown lines of an operation object (`spec`: the document its local `$ref`s
    name; none for an operation whose schemas are resolved, as openapi_docs.py's are)."""
    return _Renderer(spec or {}).operation(method, path, operation)


def operation_entry(
    method: str,
    path: str,
    operation: dict,
    page: SourceFile,
    lines: tuple[int, int],
    spec: dict | None = None,
) -> ApiEntry:
    """The API registry's entry of an operation rendered into `page` at `lines` (the 1-based
    first and last lines of its `## METHOD /path` section in the page's body): named by its
    `operationId` (what SDKs call it) else `METHOD /path`, the category its first tag (else the
    page's title), its parameters those of the path, query and headers, then the request body's
    top-level fields; returns the first success response."""
    renderer = _Renderer(spec or {})
    op_id = operation.get("operationId")
    signature = f"{method.upper()} {path}"
    name = op_id.strip() if isinstance(op_id, str) and op_id.strip() else signature
    tags = [t for t in _list(operation.get("tags")) if isinstance(t, str) and t.strip()]
    text = next(
        (operation[k] for k in ("summary", "description") if isinstance(operation.get(k), str)),
        "",
    )
    params: list[Parameter] = []
    for p in (renderer.resolve(p) for p in _list(operation.get("parameters"))):
        if isinstance(p, dict) and isinstance(p.get("name"), str):
            params.append(renderer.parameter_field(p))
    body = renderer.resolve(operation.get("requestBody"))
    for _, content in _media(body)[:1] if isinstance(body, dict) else []:
        schema = renderer.resolve(content.get("schema"))
        required = {r for r in _list(_dict(schema).get("required")) if isinstance(r, str)}
        for prop, value in _dict(_dict(schema).get("properties")).items():
            resolved = renderer.resolve(value)
            params.append(described_field(prop, resolved, prop in required, _dict(resolved)))
    returns = ""
    for code, response in _dict(operation.get("responses")).items():
        response = renderer.resolve(response)
        if str(code).startswith("2") and isinstance(response, dict):
            returns = f"{code}: {' '.join(str(response.get('description') or '').split())}"
            break
    return ApiEntry(
        name=name,
        category=tags[0].strip() if tags else (page.title or ""),
        kind="method",
        signature=signature,
        description=" ".join(text.split())[:500],
        parameters=tuple(params[:MAX_FIELDS]),
        returns=returns.rstrip(": "),
        examples=(),
        chunk_id="",
        path=page.path,
        line_start=lines[0],
        line_end=lines[1],
    )


def _documents(docs_dir: Path, roots: Sequence[Path]) -> list[str]:
    """The documents a page without one may mean: the site configuration's, else the root's."""
    out: list[str] = []
    for config in _CONFIGS:  # (parsed once for all the pages: _load's cache)
        data = _load(docs_dir, config, tuple(roots))
        out += [v.lstrip("/") for v in _strings_under(data, "openapi") if v.endswith(_SUFFIXES)]
    return list(dict.fromkeys([*out, *_DEFAULT_DOCUMENTS]))


_SUFFIXES = (".json", ".yaml", ".yml")


def _strings_under(data: Any, key: str, depth: int = 0) -> list[str]:
    """Every string (or string of a list) stored under `key` anywhere in `data`."""
    if depth > 12:
        return []
    out: list[str] = []
    if isinstance(data, dict):
        for k, v in data.items():
            if k == key and isinstance(v, str):
                out.append(v)
            elif k == key and isinstance(v, list):
                out += [x for x in v if isinstance(x, str)]
            elif isinstance(v, dict | list):
                out += _strings_under(v, key, depth + 1)
    elif isinstance(data, list):
        for v in data:
            out += _strings_under(v, key, depth + 1)
    return out


def _read(docs_dir: Path, name: str, roots: tuple[Path, ...]) -> str | None:
    if not os.path.isfile(os.path.join(docs_dir, name)):
        return None
    try:
        return read_file(docs_dir, name, roots, MAX_FILE_BYTES).decode("utf-8", errors="replace")
    except (Refused, OSError):
        return None


def _load(docs_dir: Path, name: str, roots: tuple[Path, ...]) -> dict | None:
    full = os.path.join(docs_dir, name)
    try:
        stat = os.stat(full)
    except OSError:
        return None
    return _parsed(str(docs_dir), name, roots, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)  # a site's pages share a document or two
def _parsed(
    docs_dir: str, name: str, roots: tuple[Path, ...], mtime: int, size: int
) -> dict | None:
    text = _read(Path(docs_dir), name, roots)
    if text is None:
        return None
    try:
        data = json.loads(text) if name.endswith(".json") else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _operation(spec: dict | None, method: str, path: str) -> dict | None:
    paths = spec.get("paths") if spec else None
    item = paths.get(path) if isinstance(paths, dict) else None
    operation = item.get(method) if isinstance(item, dict) else None
    if not isinstance(operation, dict):
        return None
    shared = _list(item.get("parameters"))
    if shared:  # path-level parameters apply to every operation
        operation = {**operation, "parameters": [*shared, *_list(operation.get("parameters"))]}
    return operation


class _Renderer:
    def __init__(self, spec: dict) -> None:
        self.spec = spec
        self.fields = 0

    def operation(self, method: str, path: str, op: dict) -> list[str]:
        out = ["", f"## {method.upper()} `{path}`", ""]
        if isinstance(op.get("operationId"), str) and op["operationId"].strip():
            out += [f"Operation ID: `{op['operationId'].strip()}`", ""]  # what SDKs call it
        for key in ("summary", "description"):
            if isinstance(op.get(key), str) and op[key].strip():
                out += [_prose(op[key]), ""]
        params = [self.resolve(p) for p in _list(op.get("parameters")) if isinstance(p, dict)]
        for where, title in (("path", "Path"), ("query", "Query"), ("header", "Header")):
            items = [self.parameter(p) for p in params if p.get("in") == where]
            if items:
                out += [f"### {title} parameters", "", *items, ""]
        body = self.resolve(op.get("requestBody"))
        if isinstance(body, dict):
            for media, content in _media(body):
                schema = self.resolve(content.get("schema"))
                out += [f"### Request body ({media})", ""]
                if isinstance(body.get("description"), str):
                    out += [_prose(body["description"]), ""]
                out += [*self.schema_fields(schema, "", 0), ""]
                break
        responses = op.get("responses")
        if isinstance(responses, dict) and responses:
            out += ["### Responses", ""]
            for code, response in responses.items():
                response = self.resolve(response)
                if not isinstance(response, dict):
                    continue
                text = _prose(str(response.get("description") or ""))
                out.append(f"- `{code}`" + (f": {text}" if text else ""))
                for _, content in _media(response)[:1]:
                    schema = self.resolve(content.get("schema"))
                    out += ["  " + x for x in self.schema_fields(schema, "", 0)]
            out.append("")
        return out

    def resolve(self, value: Any, hops: int = 0) -> Any:
        """`value`, or what its local `$ref` names (a few hops)."""
        while isinstance(value, dict) and isinstance(value.get("$ref"), str) and hops < 8:
            ref = value["$ref"]
            if not ref.startswith("#/"):
                return {}
            node: Any = self.spec
            for part in ref[2:].split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                node = node.get(part) if isinstance(node, dict) else None
            value, hops = node if isinstance(node, dict) else {}, hops + 1
        return value

    def parameter(self, p: dict) -> str:
        return self.item(self.parameter_field(p))

    def parameter_field(self, p: dict) -> Parameter:
        """A parameter object's name, type, whether it is required and its description."""
        schema = self.resolve(p.get("schema"))
        return described_field(str(p.get("name", "")), schema, bool(p.get("required")), p)

    def item(self, found: Parameter) -> str:
        self.fields += 1
        flags = ", ".join(x for x in (found.type, "required" if found.required else "") if x)
        text = _prose(" ".join(found.description.split()))
        shown = f"- `{found.name}`" + (f" ({flags})" if flags else "")
        return shown + (f": {text}" if text else "")

    def schema_fields(
        self, schema: Any, prefix: str, depth: int, seen: frozenset[str] = frozenset()
    ) -> list[str]:
        """The fields of an object schema (and of its array items), dotted when nested; a
        schema already being listed (`User.manager: User`) is named, not listed again."""
        ref = schema.get("$ref") if isinstance(schema, dict) else None
        if isinstance(ref, str):
            if ref in seen:
                return []
            seen = seen | {ref}
        schema = self.resolve(schema)
        if not isinstance(schema, dict) or depth > MAX_DEPTH:
            return []
        if schema.get("type") == "array" or "items" in schema:
            return self.schema_fields(schema.get("items"), prefix, depth + 1, seen)
        if "properties" not in schema and "allOf" not in schema:
            # A choice (`anyOf: [{type: array, items: …}, {type: "null"}]`): the fields of its
            # first member that has some.
            for member in _list(schema.get("anyOf")) or _list(schema.get("oneOf")):
                fields = self.schema_fields(member, prefix, depth + 1, seen)
                if fields:
                    return fields
            return []
        merged = dict(_dict(schema.get("properties")))
        required = {r for r in _list(schema.get("required")) if isinstance(r, str)}
        for part in _list(schema.get("allOf")):  # composed objects: their fields together
            part = self.resolve(part)
            if isinstance(part, dict):
                merged.update(_dict(part.get("properties")))
                required |= {r for r in _list(part.get("required")) if isinstance(r, str)}
        out: list[str] = []
        for name, field in merged.items():
            if self.fields >= MAX_FIELDS:
                break
            full = f"{prefix}{name}"
            resolved = self.resolve(field)
            described = resolved if isinstance(resolved, dict) else {}
            out.append(self.item(described_field(full, resolved, name in required, described)))
            out += self.schema_fields(field, f"{full}.", depth + 1, seen)
        return out


def described_field(name: str, schema: Any, required: bool, described: dict) -> Parameter:
    """A field as the page lists it and the registry holds it: its type from `schema`, its
    description from `described` (the parameter or property object), else from the schema."""
    text = described.get("description") or _dict(schema).get("description") or ""
    return Parameter(name, _type(schema), required, str(text))


def _prose(text: str) -> str:
    """A description as page text: its `{id}` placeholders as code, which an MDX page would
    read as expressions and drop."""
    return _BRACES.sub(lambda m: f"`{m.group(0)}`", text.strip())


_BRACES = re.compile(r"(?<!`)\{[^{}`\n]{0,80}\}(?!`)")


def _list(value: Any) -> list:
    """`value` when a document gives a list there, else [] (`parameters:` left empty is null)."""
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _media(holder: dict) -> list[tuple[str, dict]]:
    content = holder.get("content")
    if not isinstance(content, dict):
        return []
    return [(m, c) for m, c in content.items() if isinstance(c, dict)]


def _type(schema: Any, depth: int = 0) -> str:
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return ""
    kind = schema.get("type")
    if kind is None:  # a choice of schemas (`anyOf: [{type: string}, {type: "null"}]`)
        members = _list(schema.get("anyOf")) or _list(schema.get("oneOf"))
        kinds = dict.fromkeys(k for m in members if (k := _type(m, depth + 1)))
        return " | ".join(kinds)
    if isinstance(kind, list):
        kind = " | ".join(str(k) for k in kind)
    if kind == "array":
        inner = _type(schema.get("items"), depth + 1)
        inner = f"({inner})" if " | " in inner else inner
        return f"{inner}[]" if inner else "array"
    fmt = schema.get("format")
    return f"{kind} ({fmt})" if kind and isinstance(fmt, str) else str(kind or "")


def with_operation(docs_dir: Path, source: SourceFile, roots: Sequence[Path]) -> SourceFile:
    """`source` with the operation its `openapi` frontmatter names appended (see the module
    docstring); its lines map to the page's last line. `source` itself when there is none."""
    frontmatter = source.frontmatter_with("openapi")
    found = named_operation(docs_dir, frontmatter, roots) if frontmatter else None
    if found is None:
        return source
    return appended(source, found.lines(), found)


def appended(source: SourceFile, lines: list[str], found: Operation) -> SourceFile:
    """`source` with an operation's rendered `lines` appended (mapped to the page's last line)
    and its API registry entry (operation_entry)."""
    body = source.body.split("\n")
    line_map = list(source.line_map) if source.line_map else list(range(len(body)))
    last = line_map[-1] if line_map else 0
    # (lines[0] is blank: the section is its `## METHOD /path` heading to the end, 1-based)
    entry = operation_entry(
        found.method, found.path, found.operation, source, (len(body) + 2, len(body) + len(lines)),
        found.spec,
    )  # fmt: skip
    return replace(
        source,
        body="\n".join([*body, *lines]),
        line_map=tuple([*line_map, *[last] * len(lines)]),
        api=(*source.api, entry),
    )


# GitBook's OpenAPI blocks: `{% openapi src="../.gitbook/assets/brand.yaml" path="/v1/brand"
# method="post" %}` ... `{% endopenapi %}` (Beefree's docs: 29), the document beside the page.
_GITBOOK_OPEN = re.compile(r"^[ \t]*\{%[ \t]*openapi[ \t]+([^%\n]*)%\}[ \t]*$")
_GITBOOK_CLOSE = re.compile(r"^[ \t]*\{%[ \t]*endopenapi[ \t]*%\}[ \t]*$")
_GITBOOK_ATTR = re.compile(r'([\w-]+)="([^"\n]*)"')
MAX_BLOCK_LINES = 50  # lines between a GitBook openapi tag and its end tag, at most


def with_gitbook_blocks(docs_dir: Path, source: SourceFile, roots: Sequence[Path]) -> SourceFile:
    """`source` with each GitBook OpenAPI block replaced by the operation it names, rendered
    from its document (a local file, relative to the page); its lines map to the block's first
    line. A block whose document or operation is not found stays as it is."""
    if "{% openapi" not in source.body:
        return source
    lines = source.body.split("\n")
    base = list(source.line_map) if source.line_map else list(range(len(lines)))
    out: list[str] = []
    line_map: list[int] = []
    entries: list[ApiEntry] = []
    i = 0
    while i < len(lines):
        m = _GITBOOK_OPEN.match(lines[i])
        end = None
        if m is not None:
            stop = min(len(lines), i + MAX_BLOCK_LINES)
            end = next((k for k in range(i + 1, stop) if _GITBOOK_CLOSE.match(lines[k])), None)
        found = _gitbook(docs_dir, source.path, m.group(1), roots) if m and end else None
        if found is not None and end is not None:
            rendered = found.lines()
            at = (len(out) + 2, len(out) + len(rendered))  # (see `appended`)
            entries.append(
                operation_entry(found.method, found.path, found.operation, source, at, found.spec)
            )
            out += rendered
            line_map += [base[i]] * len(rendered)
            i = end + 1
            continue
        out.append(lines[i])
        line_map.append(base[i])
        i += 1
    if out == lines:
        return source
    body = "\n".join(out)
    return replace(source, body=body, line_map=tuple(line_map), api=(*source.api, *entries))


def _gitbook(docs_dir: Path, page: str, attrs: str, roots: Sequence[Path]) -> Operation | None:
    found = dict(_GITBOOK_ATTR.findall(attrs))
    src, path, method = found.get("src", ""), found.get("path", ""), found.get("method", "")
    if not src or "://" in src or method.lower() not in METHODS or not path.startswith("/"):
        return None  # (a document on the web is not fetched)
    document = posixpath.normpath(posixpath.join(posixpath.dirname(page), src))
    if document.startswith("../") or document == "..":
        return None
    return document_operation(docs_dir, document, method.lower(), path, roots)
