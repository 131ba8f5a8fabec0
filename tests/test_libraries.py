"""Several bundles in one server (libraries/): the `library` argument, `LIBRARY:` id prefixes,
search across libraries fused by rank, versions among a library's bundles, and the start-up
errors — through the official MCP SDK over real stdio pipes, and the CLI as a user runs it."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import TINY_DOCS, build_bundle
from mcp_client import McpSession, text_of


@pytest.fixture(scope="module")
def acme(example_bundle: Path) -> Path:
    return example_bundle


@pytest.fixture(scope="module")
def versions(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The tiny corpus as two versions of one library, `widgets` 1.0 and 2.0; 2.0 changes the
    retry delays and adds a section on jitter."""
    root = tmp_path_factory.mktemp("versions")
    newer = shutil.copytree(TINY_DOCS, root / "docs-2.0")
    errors = newer / "guides" / "errors.md"
    text = errors.read_text().replace("then 2 s, then 4 s", "then 3 s, then 9 s")
    errors.write_text(text + "\n## Jitter\n\nEach delay gets up to 20 % random jitter.\n")
    return [
        build_bundle(docs, root / f"v{v}", "--name", "widgets", "--corpus-version", v)
        for docs, v in ((TINY_DOCS, "1.0"), (newer, "2.0"))
    ]


@pytest.fixture(scope="module")
def session(acme: Path, tiny_bundle: Path) -> McpSession:
    with McpSession([acme, tiny_bundle]) as s:
        yield s


def _names(bundle: Path) -> str:
    return json.loads((bundle / "metadata.json").read_text())["name"]


def test_tools_list_the_libraries_with_their_descriptions(
    session: McpSession, acme: Path, tiny_bundle: Path
) -> None:
    names = sorted([_names(acme), _names(tiny_bundle)], key=str.casefold)
    for tool in session.list_tools():
        library = tool.input_schema["properties"]["library"]
        assert library["enum"] == names, tool.name
        assert all(n in library["description"] for n in names)
    assert session.instructions is not None
    assert "2 libraries" in session.instructions
    # each bundle's own instructions are kept, under its name
    assert "Docs of the tiny Widget SDKs" in session.instructions


def test_search_across_libraries_prefixes_ids_and_every_id_reads_back(
    session: McpSession,
) -> None:
    result = session.search(query="errors retry", limit=10)
    hits = result["hits"]
    libraries = {h["library"] for h in hits}
    assert len(libraries) == 2, "both libraries answer a query both match"
    for hit in hits:
        assert hit["chunk_id"].startswith(hit["library"] + ":")
        assert hit["filepath"] == hit["chunk_id"].split(":", 1)[1].split("#")[0]
        text = session.get_doc(hit["chunk_id"])
        assert text.startswith(f"--- Chunk: {hit['chunk_id']} ")
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)


def test_fused_pages_continue_without_overlap(session: McpSession) -> None:
    whole = session.search(query="widget", limit=12)["hits"]
    first = session.search(query="widget", limit=5)
    second = session.search(query="widget", limit=5, cursor=first["next_cursor"])
    ids = [h["chunk_id"] for h in first["hits"] + second["hits"]]
    assert ids == [h["chunk_id"] for h in whole[:10]]
    # a cursor is bound to its query
    error = session.tool_error("search_docs", {"query": "other", "cursor": first["next_cursor"]})
    assert "cursor" in error.lower()


def test_library_argument_gives_that_bundles_own_ranking(
    session: McpSession, tiny_bundle: Path
) -> None:
    name = _names(tiny_bundle)
    together = session.search(query="widget", library=name, limit=8)["hits"]
    with McpSession(tiny_bundle) as alone:
        own = alone.search(query="widget", limit=8)["hits"]
    assert [h["chunk_id"] for h in together] == [f"{name}:{h['chunk_id']}" for h in own]
    assert [h["score"] for h in together] == [h["score"] for h in own]
    assert {h["library"] for h in together} == {name}


def test_a_filter_reaches_only_libraries_that_have_it(
    session: McpSession, tiny_bundle: Path
) -> None:
    # `scope` is a taxonomy key of the tiny corpus only
    hits = session.search(query="widget", scope="sdk-specific")["hits"]
    assert hits and {h["library"] for h in hits} == {_names(tiny_bundle)}
    error = session.tool_error("search_docs", {"query": "widget", "scope": "nope"})
    assert "nope" in error


def test_unprefixed_ids_and_ambiguity(session: McpSession, acme: Path, tiny_bundle: Path) -> None:
    hit = session.search(query="widget", library=_names(tiny_bundle), limit=1)["hits"][0]
    bare = hit["chunk_id"].split(":", 1)[1]
    assert session.get_doc(bare).startswith(f"--- Chunk: {hit['chunk_id']} ")
    # a page both libraries have (guides/errors.md and guides/errors.mdx)
    error = session.tool_error("get_page", {"path": "guides/errors"})
    assert _names(acme) in error and _names(tiny_bundle) in error
    page = session.call("get_page", {"path": "guides/errors", "library": _names(acme)})
    assert not page.is_error
    assert page.structured_content["library"] == _names(acme)
    prefixed = session.call("get_page", {"path": f"{_names(tiny_bundle)}:guides/errors"})
    assert prefixed.structured_content["path"] == "guides/errors.md"
    error = session.tool_error("search_docs", {"query": "x", "library": "nosuch"})
    assert "Unknown library 'nosuch'" in error


def test_list_sections_names_the_libraries_then_browses_one(
    session: McpSession, tiny_bundle: Path
) -> None:
    listing = session.call("list_sections", {}).structured_content
    assert listing["matched_by"] == "libraries"
    assert {e["library"] for e in listing["entries"]} >= {_names(tiny_bundle)}
    tree = session.call("list_sections", {"library": _names(tiny_bundle), "depth": 3})
    assert {e["path"] for e in tree.structured_content["entries"] if "path" in e} >= {
        "guides/errors.md"
    }


def test_code_examples_and_api_across_libraries(session: McpSession) -> None:
    result = session.call("get_code_examples", {"query": "retry", "limit": 4})
    assert not result.is_error, text_of(result)
    examples = result.structured_content["examples"]
    assert examples and all(e["chunk_id"].startswith(e["library"] + ":") for e in examples)


def test_resources_of_every_library(session: McpSession, acme: Path, tiny_bundle: Path) -> None:
    uris = []
    cursor = None
    while True:
        page = session._portal.call(functools.partial(session.client.list_resources, cursor=cursor))
        uris.extend(str(r.uri) for r in page.resources)
        cursor = page.next_cursor
        if not cursor:
            break
    for name in (_names(acme), _names(tiny_bundle)):
        assert any(u.startswith(f"docs://{name}/") for u in uris), name
    read = session._portal.call(session.client.read_resource, uris[-1])
    assert read.contents[0].text


def test_versions_of_one_library(versions: list[Path]) -> None:
    with McpSession(versions) as s:
        assert s.argument("search_docs", "library")["enum"] == ["widgets"]
        assert "1.0" in s.argument("search_docs", "version")["description"]
        latest = s.search(query="widget", limit=3)["hits"]
        assert latest and all(h["chunk_id"].startswith("widgets@2.0:") for h in latest)
        assert {h["source"]["version"] for h in latest} == {"2.0"}
        older = s.search(query="widget", limit=3, version="1.x")
        assert all(h["source"]["version"] == "1.0" for h in older["hits"])
        assert any("resolved to '1.0'" in n for n in older["notes"])
        error = s.tool_error("search_docs", {"query": "widget", "version": "9"})
        assert "1.0" in error and "2.0" in error


def _runtime(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.slow  # several processes
def test_a_directory_of_bundles_and_the_cli_reader(
    tmp_path: Path, acme: Path, tiny_bundle: Path
) -> None:
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    shutil.copytree(acme, shelf / "a")
    shutil.copytree(tiny_bundle, shelf / "b")
    (shelf / "notes.txt").write_text("not a bundle")
    out = _runtime("--bundle", str(shelf), "search", "widget", "--limit", "3")
    assert out.returncode == 0, out.stderr
    assert f"{_names(tiny_bundle)}:" in out.stdout
    toc = _runtime("--bundle", str(shelf), "toc")
    assert toc.returncode == 0 and _names(acme) in toc.stdout
    one = _runtime("--bundle", str(shelf), "toc", "--library", _names(tiny_bundle))
    assert one.returncode == 0 and "guides/errors.md" in one.stdout


@pytest.mark.slow  # server processes that fail to start
def test_start_up_errors_are_one_line(tmp_path: Path, versions: list[Path]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    out = _runtime("--bundle", str(empty), "toc")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "directory of bundles" in out.stderr
    twin = tmp_path / "twin"
    shutil.copytree(versions[0], twin)
    out = _runtime("--bundle", str(versions[0]), "--bundle", str(twin), "toc")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "two bundles are named 'widgets'" in out.stderr


def test_example_corpus_alone_keeps_unprefixed_ids(acme: Path) -> None:
    out = _runtime("--bundle", str(acme), "search", "retry", "--limit", "1", "--json")
    hit = json.loads(out.stdout)["hits"][0]
    assert ":" not in hit["chunk_id"].split("#")[0] and "library" not in hit


@pytest.mark.slow
def test_http_serves_several_bundles(acme: Path, tiny_bundle: Path) -> None:
    from test_http import call, sdk, start

    srv = start(acme, "--bundle", str(tiny_bundle))
    try:
        health = call(srv.port, "GET", "/healthz").json()
        assert [lib["name"] for lib in health["libraries"]] == [_names(acme), _names(tiny_bundle)]
        assert health["chunks"] == sum(lib["chunks"] for lib in health["libraries"])

        async def body(client):  # noqa: ANN001, ANN202 - the SDK's Client
            return await client.call_tool("search_docs", {"query": "widget", "limit": 5})

        result = sdk(f"http://127.0.0.1:{srv.port}/mcp", "legacy", body)
        hits = result.structured_content["hits"]
        assert hits and all(h["chunk_id"].startswith(h["library"] + ":") for h in hits)
    finally:
        assert srv.stop() == 0
    # --watch follows one bundle path: one line, exit 2
    out = _runtime(
        "--bundle",
        str(acme),
        "--bundle",
        str(tiny_bundle),
        "--transport",
        "http",
        "--watch",
        "--port",
        "0",
    )
    assert out.returncode == 2 and "--watch follows one bundle path" in out.stderr


@pytest.mark.slow  # 2 processes, ~1.5 s
def test_compare_versions_lists_what_changed(versions: list[Path], tiny_bundle: Path) -> None:
    with McpSession([*versions, tiny_bundle]) as s:
        names = [t.name for t in s.list_tools()]
        assert "compare_versions" in names
        result = s.call("compare_versions", {"library": "widgets"})
        assert not result.is_error, text_of(result)
        data = result.structured_content
        assert (data["old_version"], data["new_version"]) == ("1.0", "2.0")
        assert data["counts"]["added"] == 1 and data["counts"]["changed"] == 1
        added = next(e for e in data["entries"] if e["kind"] == "added")
        assert (
            added["new_id"].startswith("widgets@2.0:guides/errors.md#") and added["old_id"] is None
        )
        changed = next(e for e in data["entries"] if e["kind"] == "changed")
        assert "3 s" in changed["excerpt"] and "2 s" in changed["excerpt"]
        assert s.get_doc(changed["old_id"]).count("then 2 s") == 1  # ids read back
        narrowed = s.call("compare_versions", {"library": "widgets", "path": "python/"})
        assert narrowed.structured_content["counts"]["changed"] == 0
        error = s.tool_error("compare_versions", {"library": _names(tiny_bundle)})
        assert "no two versions" in error
    with McpSession(versions[0]) as single:  # one bundle: no such tool
        assert "compare_versions" not in [t.name for t in single.list_tools()]
