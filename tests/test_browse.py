"""The browse tools (`list_sections`, `get_page`, `get_api_reference`, `get_code_examples`), section
ids, rule ids and references on hits, `get_doc(section=...)`, reference expansion, and tool
selection, as an agent meets them: the real runtime over stdio (and HTTP) driven by the official
`mcp` SDK client, on a small corpus written here and on the real corpora (corpus tier)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import build_bundle, run_docsmcp
from docsmcp_runtime.format import TABLE_FILES, bundle_id, sha256_file
from docsmcp_runtime.tools.arguments import MAX_LIST
from docsmcp_runtime.tools.list_sections import MAX_DEPTH
from docsmcp_runtime.tools.registry import TOOL_NAMES
from mcp_client import McpSession, text_of
from test_http import MODERN, modern, modern_headers, post, rpc_error, sdk, start

PROTOCOL = """---
title: Protocol basics
description: How the wire protocol frames messages.
sidebar_position: 3
---

# Protocol basics

Messages are framed as JSON arrays.

## 2.1 Framing

Every frame carries a request id. See section 2.2 for the signature rules and
[errors](../guides/errors.md#retry-policy) for what to do on failure.

r[frame.id]
A frame id is unique per connection.

r[frame.order]
Frames arrive in order.

## 2.2 Signatures

Frames are signed with the session key (see [sessions](sessions.md)).
"""

SESSIONS = """# Sessions

A session key signs requests for one workspace.

## 3.1 Expiry

Session keys expire after 24 hours.
"""

ERRORS = """# Errors

Errors carry a code and a message.

## Retry policy

Retry 429 and 5xx responses with exponential backoff.

```ts
await client.retry({ maxAttempts: 5 });
```

Python users pass the same options:

```py
client.retry(max_attempts=5)
```

```sh
curl -X POST https://api.example.com/retry
```
"""

METHODS = """# Channel Methods

The methods a client calls to manage channels.

## open_channel

Opens a payment channel between the user and the broker on one chain.

### Request

| Parameter | Type | Required | Description |
|-----------|------|----------|-------------|
| `chain_id` | uint32 | Yes | Blockchain network identifier |
| `token` | string | No | Token contract address |

### Response

| Parameter | Type | Description |
|-----------|------|-------------|
| `channel_id` | string | The new channel |

### Example

```ts
const channel = await client.open_channel({ chain_id: 137 });
```

## close_channel

Closes a channel.

### Request

| Parameter | Type | Required | Description |
|-----------|------|----------|-------------|
| `channel_id` | string | Yes | The channel to close |
"""

LEGAL = """# Legal

## 2.1 Licence

The licence of the legal pages, numbered like the protocol ones.
"""


def _long_page() -> str:
    sections = [f"## Part {i}\n\n" + ("Long text about zebras. " * 700) + "\n" for i in range(8)]
    return "# Handbook\n\nA long handbook.\n\n" + "\n".join(sections)


FILES = {
    "docs/protocol/basics.md": PROTOCOL,
    "docs/protocol/sessions.md": SESSIONS,
    "docs/guides/errors.md": ERRORS,
    "docs/api/channel-methods.md": METHODS,
    "docs/legal/legal.md": LEGAL,
    "docs/handbook/deep/deeper/handbook.md": _long_page(),
}
for _i in range(30):
    FILES[f"docs/faq/q{_i:02d}.md"] = f"# Question {_i}\n\nAnswer number {_i} about widgets.\n"


@pytest.fixture(scope="module")
def browse_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browse")
    for rel, text in FILES.items():
        path = root / "src" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return build_bundle(root / "src", root / "idx")


@pytest.fixture(scope="module")
def session(browse_bundle: Path) -> Iterator[McpSession]:
    with McpSession(browse_bundle, mode="auto") as s:
        yield s


def ok(session: McpSession, name: str, **arguments: Any) -> dict[str, Any]:
    result = session.call(name, arguments)
    assert not result.is_error, f"{name} {arguments}: {text_of(result)}"
    assert result.structured_content is not None
    assert json.loads(text_of(result)) == result.structured_content
    return result.structured_content


# --------------------------------------------------------------------------- tool list


def test_every_tool_is_listed_with_schemas_and_read_only_annotations(session: McpSession) -> None:
    tools = {t.name: t for t in session.list_tools()}
    assert list(tools) == list(TOOL_NAMES)
    for name, tool in tools.items():
        assert tool.input_schema["type"] == "object", name
        assert tool.input_schema["additionalProperties"] is False, name
        assert tool.annotations is not None and tool.annotations.read_only_hint, name
        assert tool.description, name
        if name != "get_doc":
            assert tool.output_schema is not None, name


# --------------------------------------------------------------------------- list_sections


def test_list_sections_root_folds_deep_folders_and_counts(session: McpSession) -> None:
    out = ok(session, "list_sections", depth=2)
    assert out["root"] == "" and out["matched_by"] == "all"
    folders = {e["folder"]: e["pages"] for e in out["entries"] if "folder" in e}
    assert folders["docs/faq/"] == 30 and folders["docs/handbook/"] == 1
    assert out["total"] == len(out["entries"]) and out["next_cursor"] is None
    # no taxonomy of the author's: the categories are the top folders, and the page roles
    assert out["categories"] == {
        "folder": {"docs": len(FILES)},
        "role": {"guide": 1, "reference": len(FILES) - 1},
    }


def test_list_sections_of_a_folder_shows_titles_and_descriptions(session: McpSession) -> None:
    out = ok(session, "list_sections", category="protocol")
    assert out["root"] == "docs/protocol/" and out["matched_by"] == "folder"
    pages = {e["path"]: e for e in out["entries"]}
    assert set(pages) == {"docs/protocol/basics.md", "docs/protocol/sessions.md"}
    basics = pages["docs/protocol/basics.md"]
    assert basics["title"] == "Protocol basics"
    assert basics["description"] == "How the wire protocol frames messages."
    assert pages["docs/protocol/sessions.md"]["description"].startswith("A session key signs")
    assert ok(session, "list_sections", path="docs/protocol")["entries"] == out["entries"]


def test_list_sections_paginates_with_cursors_and_clamps(session: McpSession) -> None:
    first = ok(session, "list_sections", path="docs/faq/", limit=12)
    assert len(first["entries"]) == 12 and first["total"] == 30
    seen = [e["path"] for e in first["entries"]]
    cursor = first["next_cursor"]
    while cursor:
        page = ok(session, "list_sections", path="docs/faq/", limit=12, cursor=cursor)
        seen += [e["path"] for e in page["entries"]]
        cursor = page["next_cursor"]
    assert seen == sorted(p for p in FILES if p.startswith("docs/faq/"))
    clamped = ok(session, "list_sections", depth=10**9, limit=10**9)
    assert clamped["notes"] == [
        f"depth 1000000000 is outside 1..{MAX_DEPTH}; used {MAX_DEPTH}.",
        f"limit 1000000000 is outside 1..{MAX_LIST}; used {MAX_LIST}.",
    ]
    error = session.tool_error("list_sections", {"path": "docs/faq/", "cursor": "x" * 40})
    assert "cursor" in error.lower()


def test_list_sections_unknown_category_names_close_ones(session: McpSession) -> None:
    error = session.tool_error("list_sections", {"category": "protocl"})
    assert error.startswith("Category 'protocl' not found. Closest: ")
    assert "docs/protocol" in error
    assert "must be an integer" in session.tool_error("list_sections", {"depth": "2"})


# --------------------------------------------------------------------------- get_page


@pytest.mark.parametrize(
    ("asked", "how"),
    [
        ("docs/protocol/basics.md", "path"),
        ("docs/protocol/basics", "path"),
        ("/docs/protocol/basics.md", "path"),
        ("protocol/basics", "path-suffix"),
        ("Protocol basics", "title"),
    ],
)
def test_get_page_finds_a_page_by_path_or_title(session: McpSession, asked: str, how: str) -> None:
    out = ok(session, "get_page", path=asked)
    assert out["path"] == "docs/protocol/basics.md" and out["matched_by"] == how
    assert out["frontmatter"] == {
        "description": "How the wire protocol frames messages.",
        "sidebar_position": 3,
        "title": "Protocol basics",
    }
    assert out["text"].startswith("# Protocol basics") and "## 2.2 Signatures" in out["text"]
    assert out["chunk_ids"][0] == "docs/protocol/basics.md#protocol-basics"
    assert out["source"]["file"] == "docs/protocol/basics.md"
    assert out["next_cursor"] is None


def test_get_page_fuzzy_match_says_so_and_lists_runners_up(session: McpSession) -> None:
    out = ok(session, "get_page", path="exponential backoff retries")
    assert out["path"] == "docs/guides/errors.md" and out["matched_by"] == "search"
    error = session.tool_error("get_page", {"path": "qqqqzzzz"})
    assert error.startswith("Page 'qqqqzzzz' not found.")


@pytest.mark.parametrize(
    "asked", ["docs/protocol/basic.md", "docs/guides/no-such-page", "protocol/basis.mdx"]
)
def test_get_page_of_a_path_that_names_no_page_is_an_error_with_the_closest(
    session: McpSession, asked: str
) -> None:
    """Issue 28: a guessed path that does not exist answered with the search fallback's first
    page (107,926 characters on FastAPI's docs). A path is an error naming the closest paths;
    free words (above) still find a page by search."""
    error = session.tool_error("get_page", {"path": asked})
    assert error.startswith(f"Page '{asked}' not found."), error
    assert "docs/" in error and len(error) < 1000, error


def test_get_page_continues_a_long_page_with_a_cursor(session: McpSession) -> None:
    path = "docs/handbook/deep/deeper/handbook.md"
    out = ok(session, "get_page", path=path)
    texts, ids = [out["text"]], list(out["chunk_ids"])
    assert out["next_cursor"] is not None and len(out["text"]) <= 100_000
    while out["next_cursor"]:
        out = ok(session, "get_page", path=path, cursor=out["next_cursor"])
        texts.append(out["text"])
        ids += out["chunk_ids"]
    assert len(ids) == len(set(ids)) == 9  # the intro and eight parts, each once
    assert sum(t.count("zebras") for t in texts) == 8 * 700


# --------------------------------------------------------------------------- get_api_reference


def test_get_api_reference_returns_the_method_spec(session: McpSession) -> None:
    out = ok(session, "get_api_reference", method="open_channel")
    assert out["total"] == 1
    entry = out["entries"][0]
    assert entry["name"] == "open_channel" and entry["kind"] == "method"
    assert entry["category"] == "Channel Methods"
    params = {p["name"]: p for p in entry["parameters"]}
    assert params["chain_id"]["type"] == "uint32" and params["chain_id"]["required"] is True
    assert params["token"]["required"] is False
    assert entry["examples"][0]["language"] == "typescript"
    assert "open_channel" in entry["examples"][0]["code"]
    assert entry["description"].startswith("Opens a payment channel")
    assert entry["filepath"] == "docs/api/channel-methods.md"
    # the qualified and call forms find it too
    assert ok(session, "get_api_reference", method="channelmethods.open_channel")["total"] == 1
    assert ok(session, "get_api_reference", method="`open_channel()`")["total"] == 1


def test_get_api_reference_lists_everything_by_category(session: McpSession) -> None:
    out = ok(session, "get_api_reference")
    names = [e["name"] for e in out["categories"]["Channel Methods"]]
    assert names == ["open_channel", "close_channel"]
    error = session.tool_error("get_api_reference", {"method": "open_chanel"})
    assert error.startswith("Method 'open_chanel' not found. Closest: ")
    assert "open_channel" in error


# --------------------------------------------------------------------------- get_code_examples


@pytest.mark.parametrize(("language", "expected"), [("ts", "typescript"), ("python", "python")])
def test_get_code_examples_normalises_languages(
    session: McpSession, language: str, expected: str
) -> None:
    out = ok(session, "get_code_examples", query="retry backoff", language=language)
    assert out["examples"], out
    assert {e["language"] for e in out["examples"]} == {expected}
    first = out["examples"][0]
    assert first["filepath"] == "docs/guides/errors.md" and "retry" in first["code"]
    assert first["source"]["lines"][0] < first["source"]["lines"][1]
    if expected == "python":
        assert first["context"] == "Python users pass the same options:"


def test_get_code_examples_topic_alias_and_no_match(session: McpSession) -> None:
    shell = ok(session, "get_code_examples", topic="retry", language="shell")
    assert [e["language"] for e in shell["examples"]] == ["bash"]
    none = ok(session, "get_code_examples", query="retry", language="cobol")
    assert none["examples"] == [] and "typescript" in none["languages"]


# --------------------------------------------------------------------------- sections, references


def test_hits_carry_section_ids_rule_ids_references_and_source(session: McpSession) -> None:
    hits = session.search(query="frame request id")["hits"]
    framing = next(h for h in hits if h["heading"] == "2.1 Framing")
    assert framing["section_id"] == "2.1"
    assert framing["rule_ids"] == ["frame.id", "frame.order"]
    targets = {r["id"]: r for r in framing["references"]}
    assert set(targets) == {
        "docs/protocol/basics.md#protocol-basics/22-signatures",
        "docs/guides/errors.md#errors/retry-policy",
    }
    assert targets["docs/guides/errors.md#errors/retry-policy"]["summary"].startswith("Retry 429")
    assert framing["source"]["file"] == "docs/protocol/basics.md"


def test_expand_references_adds_what_the_best_hits_refer_to(session: McpSession) -> None:
    plain = session.search(query="frame request id", limit=50)["hits"]
    expanded = session.search(query="frame request id", limit=50, expand_references=True)["hits"]
    reached = [h for h in expanded if "reached_by_reference" in h]
    assert reached and not any("reached_by_reference" in h for h in plain)
    assert {h["chunk_id"] for h in reached}.isdisjoint(h["chunk_id"] for h in plain)
    assert reached[0]["reached_by_reference"] in {h["chunk_id"] for h in plain}


def test_get_doc_resolves_section_numbers_and_rule_ids(session: McpSession) -> None:
    def doc(**arguments: Any) -> str:
        result = session.call("get_doc", arguments)
        assert not result.is_error, text_of(result)
        return text_of(result)

    assert "Frames are signed" in doc(section="2.2")
    assert "Frames are signed" in doc(section="§2.2", document="basics")
    assert "Session keys expire" in doc(section="Section 3.1.")
    assert "Frames arrive in order" in doc(section="r[frame.order]")
    assert "licence" in doc(section="2.1", document="Legal")
    ambiguous = session.tool_error("get_doc", {"section": "2.1"})
    assert "2 documents" in ambiguous and "docs/legal/legal.md" in ambiguous
    missing = session.tool_error("get_doc", {"section": "9.9.9"})
    assert missing.startswith("Section '9.9.9' not found.")
    both = session.tool_error("get_doc", {"section": "2.2", "chunk_id": "x.md"})
    assert both == "give chunk_id or section, not both"


# --------------------------------------------------------------------------- selection, compat


@pytest.mark.slow  # several server processes
def test_tools_and_prefix_choose_what_a_server_exposes(browse_bundle: Path) -> None:
    env = {"DOCSMCP_TOOLS": "search_docs,get_api_reference", "DOCSMCP_TOOL_PREFIX": "acme_"}
    with McpSession(browse_bundle, env=env) as s:
        assert [t.name for t in s.list_tools()] == ["acme_search_docs", "acme_get_api_reference"]
        result = s.call("acme_get_api_reference", {"method": "close_channel"})
        assert not result.is_error and result.structured_content["total"] == 1
        assert not s.call("acme_search_docs", {"query": "frame"}).is_error


@pytest.mark.slow  # a build, a server
def test_a_bundle_without_browse_tables_still_serves_what_it_can(
    browse_bundle: Path, tmp_path: Path
) -> None:
    old = tmp_path / "old"
    shutil.copytree(browse_bundle, old)
    meta = json.loads((old / "metadata.json").read_text())
    for name in TABLE_FILES:
        (old / name).unlink()
        del meta["files"][name]
    meta["bundle_id"] = bundle_id({k: v["sha256"] for k, v in meta["files"].items()})
    (old / "metadata.json").write_text(json.dumps(meta))
    with McpSession(old) as s:
        assert not s.call("search_docs", {"query": "frame"}).is_error
        listed = s.call("list_sections", {"category": "protocol"})
        assert not listed.is_error
        paths = [e["path"] for e in listed.structured_content["entries"]]
        assert paths == ["docs/protocol/basics.md", "docs/protocol/sessions.md"]
        assert "rebuild" in s.tool_error("get_api_reference", {"method": "open_channel"})


def _rewrite(bundle: Path, name: str, table: pa.Table) -> None:
    """Replace one table and re-sign metadata.json, so only the table's own checks can object."""
    pq.write_table(table, bundle / name)
    meta = json.loads((bundle / "metadata.json").read_text())
    meta["files"][name] = {
        "bytes": (bundle / name).stat().st_size,
        "sha256": sha256_file(bundle / name),
    }
    meta["bundle_id"] = bundle_id({k: v["sha256"] for k, v in meta["files"].items()})
    (bundle / "metadata.json").write_text(json.dumps(meta))


@pytest.mark.parametrize(
    ("name", "damage", "problem"),
    [
        ("pages.parquet", lambda t: t.drop_columns(["line_count"]), "schema"),
        ("sections.parquet", lambda t: t.slice(1), "rows; the bundle has"),
        (
            "code.parquet",
            lambda t: t.set_column(0, "row", pa.array([10**6] * t.num_rows, pa.uint32())),
            "past the last chunk",
        ),
        (
            "api.parquet",
            lambda t: t.set_column(5, "parameters", pa.array(["{}"] * t.num_rows)),
            "column parameters of entry 0",
        ),
    ],
)
def test_a_damaged_browse_table_is_one_clear_error(
    browse_bundle: Path, tmp_path: Path, name: str, damage: Any, problem: str
) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(browse_bundle, bad)
    _rewrite(bad, name, damage(pq.read_table(bad / name)))
    with McpSession(bad) as s:
        assert not s.call("search_docs", {"query": "widgets"}).is_error
        tool, arguments = {
            "pages.parquet": ("list_sections", {}),
            "sections.parquet": ("get_doc", {"section": "2.2"}),
            "code.parquet": ("get_code_examples", {"query": "retry"}),
            "api.parquet": ("get_api_reference", {"method": "open_channel"}),
        }[name]
        error = s.tool_error(tool, arguments)
        assert error.startswith("The bundle is damaged: ") and name in error and problem in error


# --------------------------------------------------------------------------- real corpora


@pytest.fixture(scope="module")
def yellow(yellow_bundle: Path) -> Iterator[McpSession]:
    with McpSession(yellow_bundle) as s:
        yield s


def test_yellow_state_channels_search_answers_from_learn(yellow: McpSession) -> None:
    # (it asked for a protocol page in the top 10 too: channel-methods' closeChannel, 8th then;
    # with each section carrying its page's title, the concept pages about state channels fill
    # the top, and the section named for the question comes first)
    hits = yellow.search(query="how do state channels work", version="current")["hits"]
    assert hits[0]["chunk_id"] == (
        "docs/learn/core-concepts/state-channels-vs-l1-l2.mdx#state-channels-vs-l1l2/"
        "how-state-channels-work"
    ), [h["chunk_id"] for h in hits]
    assert {h["filepath"].split("/")[1] for h in hits[:5]} == {"learn"}


def test_yellow_create_channel_api_reference(yellow: McpSession) -> None:
    out = ok(yellow, "get_api_reference", method="create_channel", version="current")
    (entry,) = out["entries"]
    assert entry["filepath"] == "docs/protocol/app-layer/off-chain/channel-methods.mdx"
    assert entry["kind"] == "method" and "channel" in entry["description"].lower()
    params = {p["name"]: p for p in entry["parameters"]}
    assert params["chain_id"]["type"] == "uint32" and params["chain_id"]["required"] is True
    assert params["token"]["required"] is True
    assert entry["examples"] and all(x["code"].strip() for x in entry["examples"])
    assert entry["returns"]


def test_yellow_code_examples_connect_to_clearnode_are_typescript(yellow: McpSession) -> None:
    out = ok(yellow, "get_code_examples", query="connect to clearnode", version="current")
    assert "typescript" in {e["language"] for e in out["examples"]}
    assert "mermaid" not in {e["language"] for e in out["examples"]}
    ts = ok(yellow, "get_code_examples", query="connect to clearnode", language="ts")
    assert ts["examples"] and {e["language"] for e in ts["examples"]} == {"typescript"}
    assert any("clearnode" in (e["code"] + e.get("context", "")).lower() for e in ts["examples"])


def test_yellow_protocol_tree(yellow: McpSession) -> None:
    out = ok(yellow, "list_sections", category="protocol", depth=3)
    assert out["root"] == "docs/protocol/" and out["matched_by"] == "folder"
    paths = {e.get("path") for e in out["entries"]}
    assert "docs/protocol/introduction.mdx" in paths
    assert "docs/protocol/app-layer/off-chain/channel-methods.mdx" in paths
    assert all((e.get("path") or e["folder"]).startswith("docs/protocol/") for e in out["entries"])
    assert all(e.get("title") for e in out["entries"] if "path" in e)


@pytest.fixture(scope="module")
def speakeasy(speakeasy_bundle: Path) -> Iterator[McpSession]:
    with McpSession(speakeasy_bundle) as s:
        yield s


def test_speakeasy_links_create_per_language(speakeasy: McpSession) -> None:
    out = ok(speakeasy, "get_api_reference", method="links.create", limit=50)
    entries = [e for e in out["entries"] if e["filepath"].endswith("sdks/links/README.md")]
    languages = {e["metadata"]["language"] for e in entries}
    assert {"typescript", "python", "go", "php", "ruby"} <= languages, languages
    python = ok(speakeasy, "get_api_reference", method="links.create", language="python")
    assert python["entries"] and {e["metadata"]["language"] for e in python["entries"]} == {
        "python"
    }
    example = python["entries"][0]["examples"][0]
    assert example["language"] == "python" and "links.create" in example["code"]


def test_rust_rule_ids_are_attributes_get_doc_resolves(rust_bundle: Path) -> None:
    with McpSession(rust_bundle) as s:
        hits = s.search(query="generic parameters of functions", limit=20)["hits"]
        assert any("items.fn.generics" in h.get("rule_ids", []) for h in hits)
        result = s.call("get_doc", {"section": "items.fn.generics"})
        # The rule line stands just before its heading: it belongs to the section it opens.
        assert not result.is_error and "## Generic functions" in text_of(result)
        linked = [h for h in hits if h.get("references")]
        assert linked and all(r["id"] and r["title"] for h in linked for r in h["references"])


# --------------------------------------------------------------------------- over HTTP


@pytest.mark.slow  # an HTTP server process each
@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_browse_tools_over_http_in_both_revisions(browse_bundle: Path, mode: str) -> None:
    server = start(browse_bundle)
    try:

        async def body(client: Any) -> tuple:
            listed = await client.call_tool("list_sections", {"category": "protocol"})
            api = await client.call_tool("get_api_reference", {"method": "open_channel"})
            page = await client.call_tool("get_page", {"path": "protocol/sessions"})
            code = await client.call_tool("get_code_examples", {"query": "retry", "language": "py"})
            section = await client.call_tool("get_doc", {"section": "3.1"})
            return listed, api, page, code, section

        listed, api, page, code, section = sdk(server.url, mode, body)
    finally:
        assert server.stop() == 0
    assert listed.structured_content["root"] == "docs/protocol/"
    assert api.structured_content["entries"][0]["parameters"][0]["name"] == "chain_id"
    assert page.structured_content["path"] == "docs/protocol/sessions.md"
    assert code.structured_content["examples"][0]["language"] == "python"
    assert "Session keys expire" in section.content[0].text


@pytest.mark.slow  # an HTTP server process
def test_modern_http_checks_mcp_name_on_resources_read(browse_bundle: Path) -> None:
    server = start(browse_bundle)
    try:
        name = json.loads((browse_bundle / "metadata.json").read_text())["name"]
        uri = f"docs://{name}/docs/protocol/sessions.md"
        message = modern("resources/read", {"uri": uri})
        good = post(server.port, message, modern_headers("resources/read", uri))
        bad = post(server.port, message, modern_headers("resources/read", f"docs://{name}/x.md"))
        missing = post(server.port, message, modern_headers("resources/read"))
    finally:
        assert server.stop() == 0
    assert good.status == 200, good.json()
    assert good.json()["result"]["contents"][0]["text"].startswith("# Sessions")
    assert bad.status == 400 and rpc_error(bad)["code"] == -32020
    assert missing.status == 400 and "Mcp-Name is missing" in rpc_error(missing)["message"]


def test_verify_checks_every_browse_table_against_the_texts(
    browse_bundle: Path, tmp_path: Path
) -> None:
    assert run_docsmcp("verify", browse_bundle).returncode == 0
    bad = tmp_path / "bad"
    shutil.copytree(browse_bundle, bad)
    table = pq.read_table(bad / "code.parquet")
    longer = pa.array([e + 10**5 for e in table.column("end").to_pylist()], pa.int32())
    _rewrite(bad, "code.parquet", table.set_column(3, "end", longer))
    proc = run_docsmcp("verify", bad, check=False)
    assert proc.returncode != 0
    assert "code.parquet: code offsets past the end of the chunk text" in proc.stdout + proc.stderr
