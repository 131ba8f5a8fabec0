"""MCP resources, resource templates, prompts and completions (docsmcp_runtime/features/).

The real runtime process is driven by the official `mcp` SDK client over stdio (legacy handshake
and pinned 2026-07-28) and over Streamable HTTP on 127.0.0.1; the 2026-07-28 stateless envelope
and its result fields are checked on the wire with the in-process Dispatcher; a bounded
Hypothesis fuzz of the new methods' params never gets an internal error. Bundles: the example
corpus, and a generated corpus of 250 pages (more than one resources/list page) whose name and
paths need percent-encoding.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import pytest
from conftest import FUZZ, build_bundle
from docsmcp_runtime.bundle.reader import Bundle, open_bundle
from docsmcp_runtime.protocol.dispatcher import Dispatcher, Session, encode
from docsmcp_runtime.tools.app import DocsApp
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client, types
from mcp.shared.exceptions import MCPError
from mcp_client import McpSession

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
RESOURCE_NOT_FOUND_LEGACY = -32002
INVALID_PARAMS = -32602

# The generated corpus: its folder name (so the bundle name) needs percent-encoding.
MANY_NAME = "Many Docs"
MANY_AREAS = ("alpha", "beta", "gamma")
MANY_REGULAR = 247
ODD_PATH = "odd/my guide/C# tips.md"  # space and '#': both must be encoded in the URI
ODD_URI = "docs://Many%20Docs/odd/my%20guide/C%23%20tips.md"
CJK_PATH = "odd/会话.md"
PLUS_PATH = "odd/a+b=c.md"  # sub-delims stay as they are in a path segment
EXAMPLE_URI = "docs://acme-sdk/"


# --------------------------------------------------------------------------- fixtures


def _many_corpus(root: Path) -> Path:
    docs = root / MANY_NAME
    for i in range(MANY_REGULAR):
        area = MANY_AREAS[i % len(MANY_AREAS)]
        page = docs / area / f"page-{i:03d}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"# Page {i}\n\nIntro of page {i}.\n\n## Usage\n\nCall widget{i}().\n")
    extra = {
        ODD_PATH: "# C# tips\n\nIntro.\n\n## Setup\n\nInstall zorblax.\n",
        CJK_PATH: "# 会话\n\n## 会话密钥\n\n会话密钥用于签名请求。\n",
        PLUS_PATH: "# Sums\n\nAdd them.\n",
    }
    for rel, text in extra.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text, encoding="utf-8")
    manifest = {
        "version": "1",
        "taxonomy": {"area": {"description": "Product area of the page."}},
        "overrides": [{"pattern": f"{a}/**", "metadata": {"area": a}} for a in MANY_AREAS],
    }
    (docs / ".docs-mcp.json").write_text(json.dumps(manifest), encoding="utf-8")
    return docs


@pytest.fixture(scope="module")
def many_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("many")
    return build_bundle(_many_corpus(root), root / "idx")


@pytest.fixture(scope="module")
def many_pages(many_bundle: Path) -> list[str]:
    """Every page path of the generated corpus, in bundle order."""
    bundle = open_bundle(many_bundle)
    return [bundle.paths[r].as_py() for r in range(bundle.n_chunks) if bundle.positions[r] == 0]


@pytest.fixture(scope="module")
def example_reader(example_bundle: Path) -> Bundle:
    return open_bundle(example_bundle)


@pytest.fixture(scope="module", params=["legacy", MODERN])
def many(request: pytest.FixtureRequest, many_bundle: Path) -> Iterator[McpSession]:
    with McpSession(many_bundle, mode=request.param) as session:
        yield session


@pytest.fixture(scope="module", params=["legacy", MODERN])
def example(request: pytest.FixtureRequest, example_bundle: Path) -> Iterator[McpSession]:
    with McpSession(example_bundle, mode=request.param) as session:
        yield session


@pytest.fixture(scope="module")
def example_app(example_bundle: Path) -> DocsApp:
    return DocsApp(open_bundle(example_bundle))


def sdk(session: McpSession, method: str, *args: Any, **kwargs: Any) -> Any:
    """Call one async method of the session's SDK client from sync test code."""
    return session._portal.call(functools.partial(getattr(session.client, method), *args, **kwargs))


def sdk_error(session: McpSession, method: str, *args: Any, **kwargs: Any) -> MCPError:
    with pytest.raises(MCPError) as info:
        sdk(session, method, *args, **kwargs)
    return info.value


def not_found_code(session: McpSession) -> int:
    # 2025-11-25 and earlier: -32002; 2026-07-28: -32602 (Invalid params).
    return (
        INVALID_PARAMS if session.client.protocol_version == MODERN else RESOURCE_NOT_FOUND_LEGACY
    )


def page_text(bundle: Bundle, path: str) -> str:
    rows = [r for r in range(bundle.n_chunks) if bundle.paths[r].as_py() == path]
    return "\n\n".join(bundle.text(r) for r in rows)


def template_ref(uri: str) -> types.ResourceTemplateReference:
    return types.ResourceTemplateReference(type="ref/resource", uri=uri)


def prompt_ref(name: str) -> types.PromptReference:
    return types.PromptReference(type="ref/prompt", name=name)


# --------------------------------------------------------------------------- capabilities


def test_capabilities_are_advertised(example: McpSession) -> None:
    caps = example.client.server_capabilities
    if caps is None or caps.resources is None:  # a pinned modern client learns them by asking
        result = example._portal.call(example.client.session.send_discover, MODERN)
        caps = types.ServerCapabilities.model_validate(result["capabilities"])
    assert caps.resources is not None and not caps.resources.subscribe
    assert caps.prompts is not None
    assert caps.completions is not None
    assert caps.tools is not None


# --------------------------------------------------------------------------- resources/list


def test_list_resources_paginates_over_every_page(many: McpSession, many_pages: list[str]) -> None:
    assert len(many_pages) == MANY_REGULAR + 3 == 250
    seen: list[types.Resource] = []
    cursor = None
    sizes = []
    while True:
        result = sdk(many, "list_resources", cursor=cursor)
        sizes.append(len(result.resources))
        seen.extend(result.resources)
        cursor = result.next_cursor
        if cursor is None:
            break
    assert sizes == [100, 100, 50]
    assert [r.name for r in seen] == many_pages  # every page once, in path order
    assert len({r.uri for r in seen}) == 250
    for resource in seen:
        assert resource.uri == "docs://Many%20Docs/" + quote(resource.name, safe="/!$&'()*+,;=:@")
        assert resource.mime_type == "text/markdown"
        assert resource.title
    by_name = {r.name: r for r in seen}
    assert by_name[ODD_PATH].uri == ODD_URI
    assert by_name[PLUS_PATH].uri == "docs://Many%20Docs/odd/a+b=c.md"
    assert by_name["alpha/page-000.md"].title == "Page 0"
    assert by_name[CJK_PATH].title == "会话"
    assert "area: beta" in (by_name["beta/page-001.md"].description or "")


def test_tampered_cursor_is_invalid_params(many: McpSession) -> None:
    cursor = sdk(many, "list_resources").next_cursor
    assert cursor
    for bad in (cursor[:-2] + ("AA" if not cursor.endswith("AA") else "BB"), "garbage", "x" * 2000):
        error = sdk_error(many, "list_resources", cursor=bad, cache_mode="refresh")
        assert error.code == INVALID_PARAMS
        assert "cursor" in error.error.message


def test_cursor_of_another_bundle_is_refused(many_bundle: Path, example_bundle: Path) -> None:
    many_app = DocsApp(open_bundle(many_bundle))
    cursor = many_app.list_resources(None)["nextCursor"]
    resp = Dispatcher(DocsApp(open_bundle(example_bundle))).handle_message(
        _req("resources/list", {"cursor": cursor})
    )
    assert resp["error"]["code"] == INVALID_PARAMS


def test_small_bundle_lists_in_one_page(example: McpSession, example_reader: Bundle) -> None:
    result = sdk(example, "list_resources")
    assert result.next_cursor is None
    assert [r.name for r in result.resources] == [
        "guides/authentication.md",
        "guides/errors.mdx",
        "python/README.md",
        "python/payments.md",
        "typescript/README.md",
        "typescript/payments.md",
    ]
    titles = {r.name: r.title for r in result.resources}
    assert titles["python/README.md"] == "Acme Python SDK"  # the H1, not the first section
    assert titles["guides/errors.mdx"] == "Error handling"


# --------------------------------------------------------------------------- resources/read


def test_read_page_is_its_sections_in_order(example: McpSession, example_reader: Bundle) -> None:
    uri = EXAMPLE_URI + "python/payments.md"
    result = sdk(example, "read_resource", uri)
    (content,) = result.contents
    assert isinstance(content, types.TextResourceContents)
    assert content.uri == uri and content.mime_type == "text/markdown"
    assert content.text == page_text(example_reader, "python/payments.md")
    assert content.text.index("create") < content.text.index("refund")


def test_read_section_by_chunk_anchor(example: McpSession, example_reader: Bundle) -> None:
    chunk_id = "guides/errors.mdx#error-handling/retries"
    row = next(r for r in range(example_reader.n_chunks) if example_reader.id(r) == chunk_id)
    result = sdk(example, "read_resource", EXAMPLE_URI + chunk_id)
    (content,) = result.contents
    assert content.uri == EXAMPLE_URI + chunk_id
    assert content.text == example_reader.text(row)
    assert content.text.startswith("## Retries")


def test_read_percent_encoded_paths(many: McpSession, many_bundle: Path) -> None:
    bundle = open_bundle(many_bundle)
    expected = page_text(bundle, ODD_PATH)
    assert sdk(many, "read_resource", ODD_URI).contents[0].text == expected
    # Lenient decoding: another case for the authority, '%20' spelled out as a raw space is not a
    # URI the SDK sends, but an encoded CJK path and a section anchor are.
    section = sdk(
        many, "read_resource", "docs://many%20docs/odd/my%20guide/C%23%20tips.md#c-tips/setup"
    )
    assert section.contents[0].text.startswith("## Setup")
    cjk = sdk(many, "read_resource", "docs://Many%20Docs/" + quote(CJK_PATH))
    assert cjk.contents[0].text == page_text(bundle, CJK_PATH)


def test_read_missing_page_names_the_closest(example: McpSession) -> None:
    uri = EXAMPLE_URI + "python/payment.md"
    error = sdk_error(example, "read_resource", uri)
    assert error.code == not_found_code(example)
    assert error.error.message == "Resource not found"
    data = error.error.data
    assert data["uri"] == uri
    assert data["closest"][0] == EXAMPLE_URI + "python/payments.md"
    assert EXAMPLE_URI + "typescript/payments.md" in data["closest"]


@pytest.mark.parametrize(
    "uri",
    [
        "file:///python/payments.md",  # another scheme
        "docs://other-bundle/python/payments.md",  # another bundle
        "docs://acme-sdk/python/payments.md?raw=1",  # no queries
        "docs://acme-sdk",
        "docs://acme-sdk/python/payments.md#no-such-section",
        "docs://acme-sdk/%FF%FE.md",  # not UTF-8
    ],
)
def test_read_uris_that_name_nothing(example: McpSession, uri: str) -> None:
    error = sdk_error(example, "read_resource", uri)
    assert error.code == not_found_code(example)
    assert error.error.data["uri"] == uri
    if "payments" in uri:
        assert EXAMPLE_URI + "python/payments.md" in error.error.data["closest"]


# --------------------------------------------------------------------------- templates


def test_resource_template(example: McpSession) -> None:
    (template,) = sdk(example, "list_resource_templates").resource_templates
    assert template.uri_template == "docs://acme-sdk/{+path}"
    assert template.mime_type == "text/markdown"
    assert template.description and template.name


def test_template_uses_the_encoded_bundle_name(many: McpSession) -> None:
    (template,) = sdk(many, "list_resource_templates").resource_templates
    assert template.uri_template == "docs://Many%20Docs/{+path}"


# --------------------------------------------------------------------------- prompts


def test_prompts_list(example: McpSession) -> None:
    prompts = {p.name: p for p in sdk(example, "list_prompts").prompts}
    assert set(prompts) == {"search-and-cite", "explain-page"}
    search = prompts["search-and-cite"]
    assert search.description
    args = {a.name: a for a in search.arguments or []}
    assert list(args) == ["question", "language", "role", "scope"]  # role: built-in page role
    assert args["question"].required is True
    assert args["language"].required is False
    assert "python, typescript" in (args["language"].description or "")
    (path_arg,) = prompts["explain-page"].arguments or []
    assert path_arg.name == "path" and path_arg.required


def test_get_search_and_cite(example: McpSession) -> None:
    result = sdk(
        example,
        "get_prompt",
        "search-and-cite",
        {"question": "How do I retry failed payments?", "language": "python"},
    )
    (message,) = result.messages
    assert message.role == "user"
    text = message.content.text
    assert "How do I retry failed payments?" in text
    for word in ("search_docs", "get_doc", "chunk_id", 'language="python"'):
        assert word in text


def test_get_explain_page_embeds_the_page(example: McpSession, example_reader: Bundle) -> None:
    result = sdk(example, "get_prompt", "explain-page", {"path": "guides/errors.mdx"})
    instruction, embedded = result.messages
    assert "guides/errors.mdx" in instruction.content.text
    assert isinstance(embedded.content, types.EmbeddedResource)
    assert embedded.content.resource.uri == EXAMPLE_URI + "guides/errors.mdx"
    assert embedded.content.resource.text == page_text(example_reader, "guides/errors.mdx")
    # A chunk id embeds that section only.
    section = sdk(
        example, "get_prompt", "explain-page", {"path": "python/payments.md#payments/refund"}
    )
    resource = section.messages[1].content.resource
    assert resource.uri == EXAMPLE_URI + "python/payments.md#payments/refund"
    assert resource.text.startswith("## refund")


@pytest.mark.parametrize(
    ("name", "arguments", "needle"),
    [
        ("search-and-cite", {}, "missing required argument 'question'"),
        ("search-and-cite", {"question": "   "}, "missing required argument 'question'"),
        ("search-and-cite", {"question": "q", "language": "cobol"}, "allowed: python, typescript"),
        ("search-and-cite", {"question": "q", "colour": "red"}, "unexpected argument 'colour'"),
        ("explain-page", {}, "missing required argument 'path'"),
        ("explain-page", {"path": "python/payment.md"}, "unknown page path"),
        ("explain-page", {"path": "python/payments.md#nope"}, "unknown section"),
        ("no-such-prompt", {}, "unknown prompt 'no-such-prompt'"),
    ],
)
def test_prompt_errors(
    example: McpSession, name: str, arguments: dict[str, str], needle: str
) -> None:
    error = sdk_error(example, "get_prompt", name, arguments)
    assert error.code == INVALID_PARAMS
    assert needle in error.error.message


# --------------------------------------------------------------------------- completions


def test_complete_path_prefix_then_substring(example: McpSession) -> None:
    ref = template_ref("docs://acme-sdk/{+path}")
    result = sdk(example, "complete", ref, {"name": "path", "value": "PY"})
    assert result.completion.values == ["python/README.md", "python/payments.md"]
    # Prefix matches first, then the paths that contain the text elsewhere.
    result = sdk(example, "complete", ref, {"name": "path", "value": "pay"})
    assert result.completion.values == ["python/payments.md", "typescript/payments.md"]
    result = sdk(
        example, "complete", ref, {"name": "path", "value": "python/payments.md#payments/r"}
    )
    assert result.completion.values == ["python/payments.md#payments/refund"]
    result = sdk(example, "complete", ref, {"name": "path", "value": "zzz"})
    assert result.completion.values == [] and result.completion.total == 0


def test_complete_path_caps_at_100(many: McpSession, many_pages: list[str]) -> None:
    ref = template_ref("docs://Many%20Docs/{+path}")
    result = sdk(many, "complete", ref, {"name": "path", "value": ""})
    assert result.completion.values == many_pages[:100]
    assert result.completion.total == 250 and result.completion.has_more is True
    result = sdk(many, "complete", ref, {"name": "path", "value": "BETA/"})
    betas = [p for p in many_pages if p.startswith("beta/")]
    assert result.completion.values == betas and result.completion.total == len(betas)
    assert result.completion.has_more is False
    # "page-00" starts no path: every match is a substring one, in path order.
    result = sdk(many, "complete", ref, {"name": "path", "value": "page-00"})
    assert result.completion.values == [p for p in many_pages if "page-00" in p]


def test_complete_prompt_arguments(example: McpSession) -> None:
    search = prompt_ref("search-and-cite")
    result = sdk(example, "complete", search, {"name": "language", "value": "PY"})
    assert result.completion.values == ["python"]
    result = sdk(example, "complete", search, {"name": "scope", "value": ""})
    assert result.completion.values == ["global-guide", "sdk-specific"]
    result = sdk(example, "complete", search, {"name": "question", "value": "how"})
    assert result.completion.values == []
    explain = prompt_ref("explain-page")
    result = sdk(
        example, "complete", explain, {"name": "path", "value": "guides/"}, {"unused": "x"}
    )
    assert result.completion.values == ["guides/authentication.md", "guides/errors.mdx"]


def test_complete_unknown_refs_are_invalid_params(example: McpSession) -> None:
    for ref in (prompt_ref("nope"), template_ref("file:///{path}")):
        error = sdk_error(example, "complete", ref, {"name": "path", "value": "x"})
        assert error.code == INVALID_PARAMS


# --------------------------------------------------------------------------- 2026-07-28 envelope


def _req(method: str, params: dict | None = None, modern: bool = False, id_: int = 1) -> dict:
    params = dict(params or {})
    if modern:
        params["_meta"] = MODERN_META
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


CACHEABLE = ["resources/list", "resources/templates/list", "prompts/list"]


@pytest.mark.parametrize("method", CACHEABLE)
def test_modern_list_results_are_cacheable(example_app: DocsApp, method: str) -> None:
    d = Dispatcher(example_app)
    modern = d.handle_message(_req(method, modern=True))["result"]
    assert modern["resultType"] == "complete"
    assert modern["ttlMs"] > 0 and modern["cacheScope"] == "public"
    assert modern["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "docsmcp"
    legacy = d.handle_message(_req(method), Session())["result"]
    assert not {"ttlMs", "cacheScope", "resultType", "_meta"} & legacy.keys()
    assert {k: v for k, v in modern.items() if k in legacy} == legacy


def test_modern_read_and_errors_on_the_wire(example_app: DocsApp) -> None:
    d = Dispatcher(example_app)
    read = d.handle_message(_req("resources/read", {"uri": EXAMPLE_URI + "python/README.md"}, True))
    assert {"ttlMs", "cacheScope", "resultType"} <= read["result"].keys()
    missing = {"uri": EXAMPLE_URI + "nope.md"}
    assert d.handle_message(_req("resources/read", missing, True))["error"]["code"] == -32602
    assert d.handle_message(_req("resources/read", missing))["error"]["code"] == -32002
    # A handshake-era version stamped in the envelope is served as that revision.
    stamped = {**MODERN_META, "io.modelcontextprotocol/protocolVersion": LEGACY}
    resp = d.handle_message(_req("resources/read", {**missing, "_meta": stamped}))
    assert resp["error"]["code"] == -32002
    got = d.handle_message(_req("prompts/get", {"name": "search-and-cite", "arguments": {}}, True))
    assert got["error"]["code"] == INVALID_PARAMS
    complete = d.handle_message(
        _req(
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "search-and-cite"},
                "argument": {"name": "language", "value": "t"},
            },
            True,
        )
    )["result"]
    assert complete["resultType"] == "complete"
    assert complete["completion"] == {
        "values": ["typescript", "python"],
        "total": 2,
        "hasMore": False,
    }


def test_discover_and_initialize_capabilities(example_app: DocsApp) -> None:
    d = Dispatcher(example_app)
    caps = d.handle_message(_req("server/discover", modern=True))["result"]["capabilities"]
    assert {"tools", "resources", "prompts", "completions"} <= caps.keys()
    init = d.handle_message(_req("initialize", {"protocolVersion": LEGACY}), Session())
    caps = init["result"]["capabilities"]
    assert caps["resources"] == {"subscribe": False, "listChanged": False}
    assert caps["prompts"] == {"listChanged": False} and caps["completions"] == {}
    # Subscriptions are not offered, in either era.
    for modern in (False, True):
        resp = d.handle_message(_req("resources/subscribe", {"uri": EXAMPLE_URI + "x"}, modern))
        assert resp["error"]["code"] == -32601


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("resources/list", {"cursor": 5}),
        ("resources/list", {"cursor": ""}),
        ("resources/templates/list", {"cursor": "abc"}),
        ("prompts/list", {"cursor": "abc"}),
        ("resources/read", {}),
        ("resources/read", {"uri": ["docs://acme-sdk/x"]}),
        ("prompts/get", {}),
        ("prompts/get", {"name": "search-and-cite", "arguments": {"question": 42}}),
        ("prompts/get", {"name": "search-and-cite", "arguments": ["q"]}),
        ("completion/complete", {}),
        (
            "completion/complete",
            {"ref": {"type": "ref/other"}, "argument": {"name": "a", "value": ""}},
        ),
        (
            "completion/complete",
            {"ref": {"type": "ref/prompt"}, "argument": {"name": "a", "value": ""}},
        ),
        ("completion/complete", {"ref": {"type": "ref/resource", "uri": 1}, "argument": {}}),
        ("completion/complete", {"ref": {"type": "ref/prompt", "name": "explain-page"}}),
        (
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "explain-page"},
                "argument": {"name": "path", "value": "g"},
                "context": {"arguments": {"a": 1}},
            },
        ),
    ],
)
def test_bad_param_shapes_are_invalid_params(
    example_app: DocsApp, method: str, params: dict
) -> None:
    for modern in (False, True):
        resp = Dispatcher(example_app).handle_message(_req(method, params, modern))
        assert resp["error"]["code"] == INVALID_PARAMS, resp


def test_nothing_is_built_before_the_first_resource_call(example_bundle: Path) -> None:
    app = DocsApp(open_bundle(example_bundle))
    d = Dispatcher(app)
    d.handle_message(_req("tools/list"))
    d.handle_message(_req("initialize", {"protocolVersion": LEGACY}), Session())
    assert "docs_resources" not in vars(app)  # a cached_property, not computed yet
    d.handle_message(_req("resources/list"))
    assert "docs_resources" in vars(app)


# --------------------------------------------------------------------------- fuzzing

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
TEXT = st.sampled_from(
    ["", "python", "guides/", "python/payments.md#payments/", "python/payments.md#\ud800",
     "python/payments.md#nope", "#", "%", "会话", "\udc80", "a" * 300]
) | st.text(max_size=40)  # fmt: skip
URIS = (
    st.sampled_from(
        [
            EXAMPLE_URI + "python/payments.md",
            EXAMPLE_URI + "python/payments.md#payments/refund",
            EXAMPLE_URI + "{+path}",
            "docs://acme-sdk/{+path}",
            "docs://ACME-SDK/%E4%BC%9A",
            "docs://acme-sdk/%",
            "docs://acme-sdk/%ZZ?x#y",
            "docs://",
            "docs:///",
            "docs://acme-sdk/" + "a/" * 400,
            "\ud800",
            EXAMPLE_URI + "python/payments.md#\udc80",
        ]
    )
    | st.text(max_size=40).map(lambda t: EXAMPLE_URI + t)
    | st.text(max_size=40)
)
REF = st.fixed_dictionaries(
    {"type": st.sampled_from(["ref/prompt", "ref/resource", "ref/x"]) | JSON},
    optional={
        "name": st.sampled_from(["search-and-cite", "explain-page", "x"]) | JSON,
        "uri": URIS | JSON,
    },
)
ARGUMENT = st.fixed_dictionaries(
    {},
    optional={
        "name": st.sampled_from(["path", "language", "scope", "question", "x"]) | JSON,
        "value": TEXT | JSON,
    },
)
PROMPT_ARGS = st.dictionaries(
    st.sampled_from(["question", "language", "scope", "path", "x"]), TEXT | JSON, max_size=3
)
PARAMS = st.one_of(
    st.tuples(
        st.just("resources/list"), st.fixed_dictionaries({}, optional={"cursor": TEXT | JSON})
    ),
    st.tuples(
        st.just("resources/templates/list"),
        st.fixed_dictionaries({}, optional={"cursor": TEXT | JSON}),
    ),
    st.tuples(st.just("resources/read"), st.fixed_dictionaries({}, optional={"uri": URIS | JSON})),
    st.tuples(st.just("prompts/list"), st.fixed_dictionaries({}, optional={"cursor": JSON})),
    st.tuples(
        st.just("prompts/get"),
        st.fixed_dictionaries(
            {},
            optional={
                "name": st.sampled_from(["search-and-cite", "explain-page", "nope"]) | JSON,
                "arguments": PROMPT_ARGS | JSON,
            },
        ),
    ),
    st.tuples(
        st.just("completion/complete"),
        st.fixed_dictionaries(
            {},
            optional={
                "ref": REF | JSON,
                "argument": ARGUMENT | JSON,
                "context": st.fixed_dictionaries({}, optional={"arguments": PROMPT_ARGS | JSON})
                | JSON,
            },
        ),
    ),
)


@pytest.mark.slow  # fuzz against a server, ~2 s
@FUZZ
@given(PARAMS, st.booleans())
def test_fuzzed_params_never_internal_error(
    example_app: DocsApp, call: tuple[str, dict], modern: bool
) -> None:
    method, params = call
    response = Dispatcher(example_app).handle_message(_req(method, params, modern), Session())
    assert response is not None
    assert ("result" in response) != ("error" in response), response
    if "error" in response:
        assert response["error"]["code"] in (INVALID_PARAMS, RESOURCE_NOT_FOUND_LEGACY), response
        assert "Traceback" not in json.dumps(response)
    else:
        result = response["result"]
        if method == "completion/complete":
            assert len(result["completion"]["values"]) <= 100
    json.loads(encode(response))


# --------------------------------------------------------------------------- Streamable HTTP


class _HttpServer:
    def __init__(self, bundle: Path) -> None:
        cmd = [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(bundle),
               "--transport", "http", "--host", "127.0.0.1", "--port", "0"]  # fmt: skip
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env=dict(os.environ), text=True,
        )  # fmt: skip
        self.port: int | None = None
        self._ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        deadline = time.monotonic() + 30
        while not self._ready.wait(0.05):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError("the HTTP server did not start")

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and entry.get("event") == "listening":
                self.port = entry["port"]
                self._ready.set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="module")
def http_server(example_bundle: Path) -> Iterator[_HttpServer]:
    server = _HttpServer(example_bundle)
    yield server
    server.stop()


@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_http_resources_prompts_and_completions(
    http_server: _HttpServer, example_reader: Bundle, mode: str
) -> None:
    async def body() -> dict[str, Any]:
        async with Client(http_server.url, mode=mode, read_timeout_seconds=30) as client:
            listed = await client.list_resources()
            read = await client.read_resource(EXAMPLE_URI + "guides/authentication.md")
            try:
                await client.read_resource(EXAMPLE_URI + "guides/authentication.mdx")
            except MCPError as exc:
                missing = exc
            prompt = await client.get_prompt("search-and-cite", {"question": "rotate keys"})
            completion = await client.complete(
                types.ResourceTemplateReference(type="ref/resource", uri="docs://acme-sdk/{+path}"),
                {"name": "path", "value": "guides/a"},
            )
            return {
                "version": client.protocol_version,
                "listed": listed,
                "read": read,
                "missing": missing,
                "prompt": prompt,
                "completion": completion,
            }

    seen = anyio.run(body)
    assert seen["version"] == (MODERN if mode == MODERN else LEGACY)
    assert len(seen["listed"].resources) == 6
    assert seen["read"].contents[0].text == page_text(example_reader, "guides/authentication.md")
    missing = seen["missing"]
    assert missing.code == (INVALID_PARAMS if mode == MODERN else RESOURCE_NOT_FOUND_LEGACY)
    assert missing.error.data["closest"][0] == EXAMPLE_URI + "guides/authentication.md"
    assert "rotate keys" in seen["prompt"].messages[0].content.text
    assert seen["completion"].completion.values == ["guides/authentication.md"]
