"""Versions as users lay them out (issue 27, item 1): version folders of every common shape
become the `version` taxonomy (`docsmcp init` proposes it, `docsmcp build` applies it when no
manifest names `version`), the bundle records the latest release, and search answers from it
(plus unversioned pages) unless a query names a version or a filter picks one; the same section
in other versions is listed in `also_in`."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import build_bundle, corpus, run_docsmcp, write_tree
from docsmcp.commands.init import propose, validate_proposal
from docsmcp.sources.layout.versions import detect
from docsmcp_runtime.search.intent import named_versions
from mcp_client import McpSession

PAGE = "# {title}\n\n{text}\n\n## Details\n\nMore about {title} in this version.\n"


def _pages(*paths: str) -> dict[str, str]:
    return {p: PAGE.format(title="Channels", text=f"Opening a channel ({p}).") for p in paths}


MIKE_VERSIONS = [
    {"version": "0.2", "title": "0.2", "aliases": ["latest"]},
    {"version": "0.1", "title": "0.1", "aliases": []},
]
MINTLIFY = {
    "navigation": {
        "versions": [
            {"version": "Version 2025-06-18", "pages": []},
            {"version": "Version 2024-11-05 (latest)", "pages": [], "default": True},
        ]
    }
}
SHAPES = {
    "docusaurus": (
        {
            **_pages(
                "docs/a.md", "versioned_docs/version-1.0/a.md", "versioned_docs/version-2.x/a.md"
            ),
            "versions.json": json.dumps(["2.x", "1.0"]),
        },
        {
            "docs": "next",  # the unreleased docs, Docusaurus' "Next" (a `current` misled)
            "versioned_docs/version-1.0": "1.0",
            "versioned_docs/version-2.x": "2.x",
        },
        "2.x",  # versions.json lists it first
    ),
    "docusaurus-lastVersion": (
        {
            **_pages("docs/a.md", "versioned_docs/version-1.0/a.md"),
            "versions.json": json.dumps(["1.0"]),
            "docusaurus.config.js": "module.exports = {docs: {lastVersion: 'current'}};",
        },
        {"docs": "current", "versioned_docs/version-1.0": "1.0"},
        "current",
    ),
    "docusaurus-in-a-site-folder": (
        {
            **_pages("website/docs/a.md", "website/versioned_docs/version-1.0/a.md", "README.md"),
            "website/versions.json": json.dumps(["1.0"]),
        },
        {"website/docs": "next", "website/versioned_docs/version-1.0": "1.0"},
        "1.0",
    ),
    "docusaurus-config-path": (  # Jest: the current docs at the root, `path: '../docs'`
        {
            **_pages(
                "docs/a.md",
                "website/versioned_docs/version-29.7/a.md",
                "website/versioned_docs/version-30.0/a.md",
                "website/blog/post.md",
            ),
            "website/versions.json": json.dumps(["29.7", "30.0"]),  # the site's own order
            "website/docusaurus.config.mjs": (
                "export default {presets: [['classic', {blog: {path: 'blog'},\n"
                "  docs: {path: '../docs', sidebarPath: './sidebars.json'}}]]};"
            ),
        },
        {
            "docs": "next",
            "website/versioned_docs/version-29.7": "29.7",
            "website/versioned_docs/version-30.0": "30.0",
        },
        "29.7",  # versions.json lists it first (the highest number would say 30.0)
    ),
    "docusaurus-named-version": (  # Prettier: `version-stable`, the current docs at the root
        {
            **_pages("docs/a.md", "docs/b.md", "website/versioned_docs/version-stable/a.md"),
            "website/versions.json": json.dumps(["stable"]),
            "website/docusaurus.config.js": (  # a label that is no version: `next`
                "module.exports = {docs: {path: '../docs',\n"
                "  versions: {current: {label: 'next', badge: false}}}};"
            ),
        },
        {"docs": "next", "website/versioned_docs/version-stable": "stable"},
        "stable",
    ),
    "docusaurus-current-label": (  # tRPC: the current docs are labelled 11.x and shown first
        {
            **_pages("docs/a.md", "versioned_docs/version-10.x/a.md"),
            "versions.json": json.dumps(["10.x"]),
            "docusaurus.config.ts": (
                "export default {presets: [['classic', {docs: {lastVersion: 'current',\n"
                "  versions: {current: {label: '11.x', badge: true},\n"
                "    '10.x': {label: '10.x', path: 'v10'}}}}]]};"
            ),
        },
        {"docs": "11.x", "versioned_docs/version-10.x": "10.x"},
        "11.x",
    ),
    "docusaurus-version-without-folder": (  # pnpm: 11.x is built from docs/, named by a const
        {
            **_pages("docs/a.md", "versioned_docs/version-10.x/a.md"),
            "versions.json": json.dumps(["11.x", "10.x"]),
            "docusaurus.config.ts": (
                "const lastDocsVersion = '11.x';\n"
                "export default {presets: [['classic', {docs: {lastVersion: lastDocsVersion,\n"
                "  versions: {[lastDocsVersion]: {label: '11 & 12'}}}}]]};"
            ),
        },
        {"docs": "11.x", "versioned_docs/version-10.x": "10.x"},
        "11.x",
    ),
    "docusaurus-second-plugin": (  # pnpm: a second docs plugin's folder is another product
        {
            **_pages(
                "docs/a.md",
                "versioned_docs/version-2.0/a.md",
                "versioned_docs_archived/version-1.0/a.md",
                "pnpr-docs/a.md",  # one page of three shares a name with the versions
                "pnpr-docs/b.md",
                "pnpr-docs/c.md",
            ),
            "versions.json": json.dumps(["2.0"]),
            "docusaurus.config.js": "module.exports = {plugins: [{path: './pnpr-docs'}]};",
        },
        {
            "docs": "next",
            "versioned_docs/version-2.0": "2.0",
            "versioned_docs_archived/version-1.0": "1.0",
        },
        "2.0",
    ),
    "mike": (
        {
            **_pages("0.1/a.md", "0.2/a.md", "latest/a.md"),
            "versions.json": json.dumps(MIKE_VERSIONS),
        },
        {"0.1": "0.1", "0.2": "0.2", "latest": "latest"},
        "0.2",
    ),
    "semver": (
        _pages("v1.2.0/a.md", "v1.10.0/a.md", "v2.0.0-rc1/a.md", "guide.md"),
        {"v1.10.0": "v1.10.0", "v1.2.0": "v1.2.0", "v2.0.0-rc1": "v2.0.0-rc1"},
        "v1.10.0",  # numeric order; a release candidate is not released
    ),
    "dates-and-draft": (
        _pages("spec/2024-11-05/a.md", "spec/2025-06-18/a.md", "spec/draft/a.md", "blog/x.md"),
        {"spec/2024-11-05": "2024-11-05", "spec/2025-06-18": "2025-06-18", "spec/draft": "draft"},
        "2025-06-18",
    ),
    "mintlify-default": (
        {
            **_pages("docs/2024-11-05/a.mdx", "docs/2025-06-18/a.mdx"),
            "docs.json": json.dumps(MINTLIFY),
        },
        {"docs/2024-11-05": "2024-11-05", "docs/2025-06-18": "2025-06-18"},
        "2024-11-05",  # the site's own default wins over the highest date
    ),
    "major-lines-at-two-depths": (  # Express: `4x/`, and a language folder above `docs/en/4x/`
        _pages(
            "api/3x/api/request.md",
            "api/4x/api/request.md",
            "api/5x/api/request.md",
            "docs/en/4x/guide/routing.md",
            "docs/en/5x/guide/routing.md",
            "docs/en/5x/guide/v2/errors.md",  # deep down and alone: no version
            "pages/en/guide/migrating-5.md",
        ),
        {
            "api/3x": "3x",
            "api/4x": "4x",
            "api/5x": "5x",
            "docs/en/4x": "4x",
            "docs/en/5x": "5x",
        },
        "5x",
    ),
    "only-unreleased": (
        _pages("next/a.md", "v3.0-beta/a.md"),
        {"next": "next", "v3.0-beta": "v3.0-beta"},
        None,
    ),
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_version_folder_shapes_and_the_latest_release(tmp_path: Path, shape: str) -> None:
    files, folders, latest = SHAPES[shape]
    docs = write_tree(tmp_path / "site", files)
    layout = detect(docs, [p for p in files if p.endswith((".md", ".mdx"))])
    assert dict(layout.folders) == folders
    assert layout.latest == latest, layout.why
    proposal = propose(docs)  # init proposes the same, `latest` included
    entry = proposal.manifest["taxonomy"]["version"]
    assert entry.get("latest") == latest
    assert set(proposal.values["version"]) == set(folders.values())


@pytest.mark.parametrize(
    "files",
    [
        _pages("blog/2024-01-15/a.md", "blog/2024-02-01/a.md"),  # dated posts
        _pages("2023/a.md", "2024/a.md"),  # year archives
        _pages("draft/a.md", "next/a.md"),  # channel names alone are ordinary folders
    ],
    ids=["blog-dates", "years", "channels-alone"],
)
def test_folders_that_are_not_versions(tmp_path: Path, files: dict[str, str]) -> None:
    docs = write_tree(tmp_path / "site", files)
    assert detect(docs, list(files)).folders == {}
    assert "taxonomy" not in propose(docs).manifest


def test_a_manifest_latest_must_be_a_version_value(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "site", _pages("v1/a.md", "v2/a.md"))
    manifest = {
        "version": "1",
        "taxonomy": {"version": {"latest": "v9"}, "area": {"latest": "x"}},
        "overrides": [{"pattern": f"{v}/**", "metadata": {"version": v}} for v in ("v1", "v2")],
    }
    (docs / ".docs-mcp.json").write_text(json.dumps(manifest), encoding="utf-8")
    out = run_docsmcp("validate", "--docs-dir", docs, check=False)
    assert out.returncode != 0
    assert "$.taxonomy.area.latest: only the key 'version' has a latest value" in out.stderr
    assert "taxonomy 'version': latest 'v9' occurs in no file" in out.stderr


# --- the build without a manifest, and the tools ---------------------------------------------

SITE = {
    "spec/2024-11-05/transports.md": (
        "# Transports\n\n## HTTP with SSE\n\nThe server opens an SSE endpoint for messages.\n"
    ),
    "spec/2025-06-18/transports.md": (
        "# Transports\n\n## Streamable HTTP\n\nOne endpoint carries messages over streamable "
        "HTTP.\n\n## Resumability\n\nA client resumes a stream with Last-Event-ID.\n"
    ),
    "spec/draft/transports.md": (
        "# Transports\n\n## Streamable HTTP\n\nOne endpoint carries messages over streamable "
        "HTTP, draft wording.\n\n## Resumability\n\nA client resumes a stream with Last-Event-ID.\n"
    ),
    "blog/announcing.md": "# Announcing streamable HTTP\n\nWe moved messages to one endpoint.\n",
}


@pytest.fixture(scope="module")
def site_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = write_tree(tmp_path_factory.mktemp("site") / "docs", SITE)
    return build_bundle(docs, docs.parent / "idx")  # no manifest: the build detects versions


@pytest.fixture(scope="module")
def session(site_bundle: Path) -> Iterator[McpSession]:
    with McpSession(site_bundle) as s:
        yield s


def test_the_build_records_detected_versions_and_the_latest(site_bundle: Path) -> None:
    entry = json.loads((site_bundle / "metadata.json").read_text())["taxonomy"]["version"]
    assert entry["values"] == ["2024-11-05", "2025-06-18", "draft"]
    assert entry["latest"] == "2025-06-18"


def test_search_answers_from_the_latest_release_and_folds_other_versions(
    session: McpSession,
) -> None:
    result = session.search(query="resume a stream with Last-Event-ID")
    assert result["notes"] == [
        "Searched version 2025-06-18 (latest release) and unversioned pages; "
        "pass version=… for another."
    ]
    top = result["hits"][0]
    assert top["chunk_id"] == "spec/2025-06-18/transports.md#transports/resumability"
    assert top["also_in"] == {"version": ["draft"]}
    versions = {h["metadata"].get("version") for h in result["hits"]}
    assert versions <= {"2025-06-18", None}
    blog = session.search(query="announcing one endpoint")
    assert blog["hits"][0]["filepath"] == "blog/announcing.md"  # unversioned pages stay


def test_a_named_version_or_a_filter_reaches_that_version(session: McpSession) -> None:
    named = session.search(query="2024-11-05 SSE endpoint")
    assert named["hits"][0]["filepath"] == "spec/2024-11-05/transports.md"
    assert named["notes"][0].startswith("Searched version 2024-11-05 (named in the query)")
    filtered = session.search(query="streamable HTTP", version="draft")
    assert {h["filepath"] for h in filtered["hits"]} == {"spec/draft/transports.md"}
    assert "notes" not in filtered
    latest = session.search(query="streamable HTTP", version="latest")
    assert latest["notes"] == ["version \"latest\" resolved to '2025-06-18'."]


def test_the_version_argument_names_the_default(session: McpSession) -> None:
    described = session.argument("search_docs", "version")["description"]
    assert described.endswith(
        "Without it, search answers from 2025-06-18 (the latest release) and the pages "
        "without a version."
    )


def test_a_named_draft_reaches_it(session: McpSession) -> None:
    result = session.search(query="draft streamable HTTP")
    assert result["hits"][0]["filepath"] == "spec/draft/transports.md"
    assert result["notes"][0].startswith("Searched version draft (named in the query)")


@pytest.mark.parametrize(
    ("query", "values", "named"),
    [
        ("2025-03-26 HTTP+SSE transport", ("2025-03-26", "2026-07-28", "draft"), ["2025-03-26"]),
        ("what the draft spec says", ("2026-07-28", "draft"), ["draft"]),
        ("in 0.5 how do channels close", ("0.5.x", "current"), ["0.5.x"]),
        ("v2 auth", ("v1", "v2"), ["v2"]),
        ("express 5.x router", ("3x", "4x", "5x"), ["5x"]),  # Express' `5x/` folders
        ("error 404 on python 3", ("2.x", "3.x"), []),  # plain numbers name no version
        ("next steps with the current API", ("1.0", "current", "next"), []),
        ("2024-01-01 outage", ("2025-03-26", "draft"), []),  # no such version
        # a move names the version wanted, not the one left behind
        ("upgrade from v1 to v2", ("v1", "v2"), ["v2"]),
        ("from 2025-03-26 to 2026-07-28 changes", ("2025-03-26", "2026-07-28"), ["2026-07-28"]),
    ],
)
def test_versions_a_query_names(query: str, values: tuple[str, ...], named: list[str]) -> None:
    assert named_versions(query, values) == named


def test_a_version_key_without_latest_searches_every_version(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", SITE)
    manifest = {
        "version": "1",
        "taxonomy": {"version": {"description": "Docs version."}},
        "overrides": [
            {"pattern": f"spec/{v}/**", "metadata": {"version": v}}
            for v in ("2024-11-05", "2025-06-18", "draft")
        ],
    }
    (docs / ".docs-mcp.json").write_text(json.dumps(manifest), encoding="utf-8")
    bundle = build_bundle(docs, tmp_path / "idx")
    entry = json.loads((bundle / "metadata.json").read_text())["taxonomy"]["version"]
    assert "latest" not in entry  # a hand-written key opts in with `latest`
    with McpSession(bundle) as s:
        result = s.search(query="resume a stream with Last-Event-ID")
    assert "notes" not in result
    assert {h["metadata"]["version"] for h in result["hits"]} == {"2025-06-18", "draft"}


def test_only_other_versions_match_then_the_hint_names_them(session: McpSession) -> None:
    result = session.search(query="SSE")  # only the 2024-11-05 page says it
    assert result["hits"] == []
    assert result["hint"]["suggested_filters"] == {"version": ["2024-11-05"]}


def test_a_page_path_still_fetches_any_version(session: McpSession) -> None:
    page = session.call("get_page", {"path": "spec/2024-11-05/transports.md"})
    assert not page.is_error and page.structured_content is not None
    assert "SSE endpoint" in page.structured_content["text"]
    listed = session.call("list_sections", {"path": "spec/draft"}).structured_content
    assert listed is not None
    assert [e["path"] for e in listed["entries"]] == ["spec/draft/transports.md"]
    assert "draft wording" in session.get_doc("spec/draft/transports.md#transports/streamable-http")


def test_the_tree_lists_the_latest_release_as_a_sidebar_does(session: McpSession) -> None:
    """Browsing the whole tree of the MCP docs listed twelve version folders; a site's sidebar
    shows its current version, and search answers from the latest release: so does
    list_sections, with the pages of no version, unless the call names one. A folder of one
    version lists as it is."""

    def listed(args: dict) -> dict:
        result = session.call("list_sections", {"depth": 5, **args}).structured_content
        assert result is not None
        return result

    whole = listed({})
    assert [e["path"] for e in whole["entries"]] == [
        "blog/announcing.md",
        "spec/2025-06-18/transports.md",
    ]
    assert whole["notes"] == [
        "Listed version 2025-06-18 (latest release) and unversioned pages; pass version=… for "
        "another."
    ]
    assert whole["categories"]["version"] == {"2024-11-05": 1, "2025-06-18": 1, "draft": 1}
    old = listed({"path": "spec/2024-11-05"})
    assert [e["path"] for e in old["entries"]] == ["spec/2024-11-05/transports.md"]
    assert "notes" not in old
    draft = listed({"version": "draft"})
    assert [e["path"] for e in draft["entries"]] == ["spec/draft/transports.md"]
    assert len(listed({"path": "spec"})["entries"]) == 1  # three versions: the latest one


def test_a_query_naming_both_sides_of_a_migration_reaches_the_current_docs(
    tmp_path: Path,
) -> None:
    """tRPC's "migrate from v10 to v11": v10 is a folder, v11 the label of the current docs;
    the migration guide lives in the current docs and must be searched."""
    files = {
        "docs/migrate-from-v10-to-v11.md": (
            "# Migrate from v10 to v11\n\nRename createTRPCProxyClient to createTRPCClient.\n"
        ),
        "docs/routers.md": "# Routers\n\nDefine a router with procedures.\n",
        "versioned_docs/version-10.x/routers.md": "# Routers\n\nDefine a router in v10.\n",
        "blog/announcing-v11.md": "# Announcing v11\n\nWe released v11, the successor of v10.\n",
        "versions.json": json.dumps(["10.x"]),
        "docusaurus.config.js": (
            "module.exports = {docs: {lastVersion: 'current',\n"
            "  versions: {current: {label: '11.x'}}}};"
        ),
    }
    docs = write_tree(tmp_path / "www", files)
    with McpSession(build_bundle(docs, tmp_path / "idx")) as s:
        result = s.search(query="migrate from v10 to v11")
    assert result["hits"][0]["filepath"] == "docs/migrate-from-v10-to-v11.md"
    assert result["notes"][0].startswith("Searched version 11.x (named in the query)")


def test_a_move_between_versions_answers_with_the_guide_to_the_second(tmp_path: Path) -> None:
    """Svelte's "migrate from svelte 4 to 5": both migration guides are unversioned pages; the
    v4 guide (from 3 to 4) says "migrate" and "4" most, the v5 guide is the answer."""
    files = {
        "misc/v4-migration-guide.md": (
            "---\ntitle: Widget 4 migration guide\n---\n\nHow to migrate from Widget 3 to 4. "
            "Run the migrate script to migrate Widget 4 code.\n\n## Minimum versions\n\n"
            "Widget 4 needs Node 16 to migrate.\n"
        ),
        "misc/v5-migration-guide.md": (
            "---\ntitle: Widget 5 migration guide\n---\n\nVersion 5 brings a new syntax. "
            "This guide shows how to upgrade.\n\n## Migration script\n\nA script helps you "
            "migrate.\n"
        ),
        "guide/intro.md": "# Introduction\n\nWidget draws widgets.\n",
    }
    docs = write_tree(tmp_path / "docs", files)
    with McpSession(build_bundle(docs, tmp_path / "idx")) as s:
        result = s.search(query="migrate from widget 4 to 5")
    assert result["hits"][0]["filepath"] == "misc/v5-migration-guide.md"


# --- the real MCP documentation ----------------------------------------------------------------


@pytest.fixture(scope="module")
def mcp_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpSession]:
    docs = tmp_path_factory.mktemp("mcp") / "mcp-docs"
    shutil.copytree(corpus("mcp-docs"), docs)
    run_docsmcp("init", "--docs-dir", docs, "--write")  # as a user would
    with McpSession(build_bundle(docs, docs.parent / "idx")) as s:
        yield s


@pytest.mark.corpus
def test_mcp_docs_init_proposes_the_dated_versions_and_the_latest() -> None:
    proposal = propose(corpus("mcp-docs"))
    assert set(proposal.values["version"]) == {
        "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "draft",
    }  # fmt: skip
    assert proposal.manifest["taxonomy"]["version"]["latest"] == "2026-07-28"
    assert "version: latest 2026-07-28 (docs.json shows it by default)" in proposal.report()
    assert validate_proposal(corpus("mcp-docs"), proposal).problems == []


@pytest.mark.corpus
def test_mcp_docs_search_answers_from_the_latest_release(mcp_session: McpSession) -> None:
    result = mcp_session.search(
        query="server missing from Claude Desktop after editing claude_desktop_config.json"
    )
    # the answering pages of the latest release (dev set mcp-dev-029: both are relevant)
    develop = "docs/2026-07-28/develop/"
    answers = {develop + "connect-local-servers.mdx", develop + "build-server.mdx"}
    assert result["hits"][0]["filepath"] in answers
    (local,) = [
        h for h in result["hits"][:3] if h["filepath"].endswith("connect-local-servers.mdx")
    ]
    assert local["also_in"]["version"] == [
        "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "draft",
    ]  # fmt: skip
    # No section appears twice (once per version) on the page.
    paths = [h["chunk_id"].split("/", 2)[-1] for h in result["hits"]]
    assert len(paths) == len(set(paths))
    old = mcp_session.search(query="2025-03-26 auth metadata 404, which endpoints to use")
    assert old["hits"][0]["filepath"] == "specification/2025-03-26/basic/authorization.mdx"
