"""Version requests on a `version` taxonomy key (issue 13, item 4, within one bundle): `latest`
and ranges resolve to the newest matching value and the result says which answered; through
the official `mcp` SDK client, plus the matching rules as a table."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from conftest import build_bundle
from docsmcp_runtime.bundle.versions import parse, resolve
from mcp_client import McpSession

VALUES = ("0.4.x", "0.5.x", "1.2.0", "1.10.3", "2.0.0-beta", "current")


@pytest.mark.parametrize(
    ("request_", "answer"),
    [
        ("current", "current"),  # an exact value is itself
        ("latest", "current"),  # Docusaurus' newest docs
        ("0.5", "0.5.x"),
        ("0.5.3", "0.5.x"),
        ("0.x", "0.5.x"),
        ("1.x", "1.10.3"),  # numeric, not string, order
        ("^1.2", "1.10.3"),
        ("~1.2", "1.2.0"),
        (">=1.3", "2.0.0-beta"),
        ("<1", "0.5.x"),
        ("v1.2.0", "1.2.0"),
        ("9.x", None),
        ("next", None),
    ],
)
def test_requests_resolve_to_the_newest_match(request_: str, answer: str | None) -> None:
    assert resolve(request_, VALUES) == answer


def test_latest_without_a_named_newest_is_the_highest_number() -> None:
    assert resolve("latest", ("1.9.0", "1.10.0", "1.2.0")) == "1.10.0"
    assert resolve("latest", ("next", "main")) is None
    assert parse("current") is None and parse("0.5.x") == (0, 5, None)


def test_a_major_line_without_its_dot_is_that_line() -> None:
    # Express' version folders `3x/`, `4x/`, `5x/`: `4x` reads as `4.x`.
    assert parse("4x") == (4, None) and parse("v5X") == (5, None)
    lines = ("3x", "4x", "5x")
    assert resolve("latest", lines) == "5x"
    assert resolve("4", lines) == resolve("4.x", lines) == resolve("v4", lines) == "4x"
    assert resolve(">=4", lines) == "5x" and resolve("6.x", lines) is None
    assert parse("x4") is None and parse("4xx") is None


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpSession]:
    docs = tmp_path_factory.mktemp("versions") / "docs"
    for version in ("0.4.x", "0.5.x", "current"):
        page = docs / version / "channels.md"
        page.parent.mkdir(parents=True)
        page.write_text(
            f"# Channels\n\nOpening a channel in version {version} of the widget protocol.\n",
            encoding="utf-8",
        )
    manifest = {
        "version": "1",
        "taxonomy": {"version": {"description": "Docs version."}},
        "overrides": [
            {"pattern": f"{v}/**", "metadata": {"version": v}}
            for v in ("0.4.x", "0.5.x", "current")
        ],
    }
    (docs / ".docs-mcp.json").write_text(json.dumps(manifest), encoding="utf-8")
    with McpSession(build_bundle(docs, docs.parent / "idx")) as s:
        yield s


def test_search_answers_from_the_resolved_version_and_says_so(session: McpSession) -> None:
    latest = session.search(query="opening a channel", version="latest")
    assert {h["metadata"]["version"] for h in latest["hits"]} == {"current"}
    assert latest["notes"] == ["version \"latest\" resolved to 'current'."]
    older = session.search(query="opening a channel", version="0.5")
    assert [h["filepath"] for h in older["hits"]] == ["0.5.x/channels.md"]
    exact = session.search(query="opening a channel", version="0.4.x")
    assert "notes" not in exact


def test_no_match_lists_the_available_versions(session: McpSession) -> None:
    error = session.tool_error("search_docs", {"query": "channel", "version": "9.x"})
    assert error.startswith('No version matches "9.x". Available versions: 0.4.x, 0.5.x, current')
    version = session.argument("search_docs", "version")
    assert "enum" not in version and version["examples"] == ["0.4.x", "0.5.x", "current"]
    listed = session.call("list_sections", {"version": "^0.4"}).structured_content
    assert [e["path"] for e in listed["entries"]] == ["0.4.x/channels.md"]
