"""The folders holding each version (variant) a bundle records (issue 27, bundle-spec.md
*Versions and variants*): search finds one section's copies across values whose folders are not
named as the value. Jest keeps its unreleased docs (version `next`) at `docs/` and its releases
at `website/versioned_docs/version-30.4/`: `also_in` listed the releases and never `next`. A
bundle without the record is served as before; a forged record is refused in one line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import build_bundle, run_docsmcp, write_tree
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.format import TaxonomyKey
from docsmcp_runtime.format.jsonread import MetadataError
from docsmcp_runtime.search.versions import copy_id, folder_places, orders_by_prefix
from docsmcp_runtime.tools.app import DocsApp

PAGE = (
    "# Manual mocks\n\nManual mocks stub out a module ({v}).\n\n"
    "## Mocking node modules\n\nPut the mock of a node module in __mocks__ ({v}).\n"
)

# Jest's shape: the current docs at the repository's root (`path: '../docs'` in the site's
# configuration), the releases in the site folder's `versioned_docs/`.
JEST = {
    "docs/ManualMocks.md": PAGE.format(v="next"),
    "docs/UpcomingOnly.md": "# Upcoming\n\nA page only the unreleased docs have.\n",
    "website/versioned_docs/version-29.7/ManualMocks.md": PAGE.format(v="29.7"),
    "website/versioned_docs/version-30.0/ManualMocks.md": PAGE.format(v="30.0"),
    "website/versions.json": json.dumps(["30.0", "29.7"]),
    "website/docusaurus.config.mjs": (
        "export default {presets: [['classic', {docs: {path: '../docs'}}]]};"
    ),
}
TOP = "website/versioned_docs/version-30.0/ManualMocks.md#manual-mocks/mocking-node-modules"


def _top(bundle: Path, query: str = "mock a node module in __mocks__") -> dict:
    app = DocsApp(open_bundle(bundle))
    return app.call_tool("search_docs", {"query": query, "limit": 3})["structuredContent"]["hits"][
        0
    ]


@pytest.fixture(scope="module")
def jest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("jest")
    return build_bundle(write_tree(root / "docs", JEST), root / "idx")


def test_the_bundle_records_each_versions_folder(jest: Path) -> None:
    entry = json.loads((jest / "metadata.json").read_text())["taxonomy"]["version"]
    assert entry["latest"] == "30.0"
    assert entry["folders"] == {
        "29.7": ["website/versioned_docs/version-29.7"],
        "30.0": ["website/versioned_docs/version-30.0"],
        "next": ["docs"],
    }


def test_also_in_lists_the_current_docs_kept_beside_the_site(jest: Path) -> None:
    hit = _top(jest)
    assert hit["chunk_id"] == TOP
    assert hit["also_in"] == {"version": ["29.7", "next"]}


def test_a_manifest_from_init_records_the_same_folders(tmp_path: Path) -> None:
    """The way a new user builds: `docsmcp init --write` writes an override per version folder
    (`website/versioned_docs/version-30.0/**`), and the build records those."""
    docs = write_tree(tmp_path / "docs", JEST)
    run_docsmcp("init", "--docs-dir", docs, "--write")
    overrides = json.loads((docs / ".docs-mcp.json").read_text())["overrides"]
    assert {"pattern": "docs/**", "metadata": {"version": "next"}} in overrides
    bundle = build_bundle(docs, tmp_path / "idx")
    entry = json.loads((bundle / "metadata.json").read_text())["taxonomy"]["version"]
    assert entry["folders"]["next"] == ["docs"]
    assert _top(bundle)["also_in"] == {"version": ["29.7", "next"]}


def test_a_page_whose_frontmatter_says_another_version_keeps_its_folder_out(
    tmp_path: Path,
) -> None:
    docs = write_tree(tmp_path / "docs", JEST)
    (docs / "docs/UpcomingOnly.md").write_text(
        "---\nmetadata:\n  version: '29.7'\n---\n# Upcoming\n\nx\n"
    )
    bundle = build_bundle(docs, tmp_path / "idx")
    entry = json.loads((bundle / "metadata.json").read_text())["taxonomy"]["version"]
    assert "next" not in entry["folders"]  # its folder no longer says what its pages are


def test_a_bundle_without_the_record_is_served_as_before(jest: Path, tmp_path: Path) -> None:
    """An older builder's bundle: copies are the ids less the folder named as the value, so
    `docs/` (no value's name) is no copy; everything else is unchanged."""
    old = shutil.copytree(jest, tmp_path / "old")
    meta = json.loads((old / "metadata.json").read_text())
    del meta["taxonomy"]["version"]["folders"]
    (old / "metadata.json").write_text(json.dumps(meta))
    hit = _top(old)
    assert hit["chunk_id"] == TOP
    assert hit["also_in"] == {"version": ["29.7"]}


def test_copy_ids() -> None:
    jest = folder_places({"30.0": ("website/versioned_docs/version-30.0",), "next": ("docs",)})
    assert copy_id(TOP, "30.0", jest["30.0"]) == "ManualMocks.md#manual-mocks/mocking-node-modules"
    assert copy_id("docs/a.md#x", "next", jest["next"]) == "a.md#x"
    assert copy_id("docs/a.md#x", "next", {}) == "docs/a.md#x"  # (today's rule: no `next/`)
    # the deepest recorded folder holding the page; a page outside them: today's rule
    assert copy_id("v2/api/v2/a.md", "v2", {"v2": "", "v2/api/v2": ""}) == "a.md"
    assert copy_id("guide/v2/a.md#x", "v2", {"other": ""}) == "guide/a.md#x"
    # Express: a version's API and its guides are two places, not copies of each other
    express = folder_places({"3x": ("api/3x",), "4x": ("api/4x", "docs/en/4x")})
    assert express == {"3x": {"api/3x": "api"}, "4x": {"api/4x": "api", "docs/en/4x": "docs/en"}}
    assert copy_id("api/3x/app.md#x", "3x", express["3x"]) == "api/app.md#x"
    assert copy_id("docs/en/4x/app.md#x", "4x", express["4x"]) == "docs/en/app.md#x"


ENTRY = {"description": "d", "vector_collapse": False, "values": ["1.0", "next"], "latest": "1.0"}


@pytest.mark.parametrize(
    ("folders", "message"),
    [
        ({"2.0": ["v2"]}, r"folders/2\.0: must be one of the key's values"),
        ({"1.0": "v1"}, r"expected a list of strings"),
        ({"1.0": []}, r"must list 1 to 64 folders"),
        ({"1.0": ["b", "a"]}, r"must be sorted in byte order"),
        ({"1.0": ["../etc"]}, r"must be a relative folder path"),
        ({"1.0": ["/abs"]}, r"must be a relative folder path"),
        ({"1.0": ["a//b"]}, r"must be a relative folder path"),
        ({"1.0": ["a\\b"]}, r"must be a relative folder path"),
        ({"1.0": ["a\nb"]}, r"must be a relative folder path"),
        ({"1.0": ["x" * 1025]}, r"must be a relative folder path"),
        ({"1.0": [f"f{i:03}" for i in range(65)]}, r"must list 1 to 64 folders"),
        ({"1.0": ["docs"], "next": ["docs"]}, r"is also a folder of '1\.0'"),
        (["docs"], r"expected an object"),
    ],
)
def test_a_forged_record_is_refused(folders: object, message: str) -> None:
    with pytest.raises(MetadataError, match=message):
        TaxonomyKey.from_json({**ENTRY, "folders": folders}, "$.taxonomy.version")
    ok = TaxonomyKey.from_json({**ENTRY, "folders": {"next": ["docs"]}}, "$.taxonomy.version")
    assert ok.folders == {"next": ("docs",)}
    assert TaxonomyKey.from_json(ok.to_json(), "$.taxonomy.version") == ok


def test_a_forged_bundle_is_refused_in_one_line(jest: Path, tmp_path: Path) -> None:
    forged = shutil.copytree(jest, tmp_path / "forged")
    meta = json.loads((forged / "metadata.json").read_text())
    meta["taxonomy"]["version"]["folders"]["next"] = ["../../etc"]
    (forged / "metadata.json").write_text(json.dumps(meta))
    out = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(forged), "search", "mock"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode != 0
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "taxonomy/version/folders/next/0: must be a relative folder path" in out.stderr


# Next.js' shape: the App and Pages routers' docs in folders ordered by a number (`02-app/`,
# `03-pages/`), one page under other numbers in each (`05-next-config-js/` and
# `03-next-config-js/`), the routers a variant key a manifest declares.
NEXT = {
    "02-app/01-guides/01-intro.mdx": "# Intro\n\nThe App Router.\n",
    "02-app/02-api/05-next-config-js/redirects.mdx": (
        "# redirects\n\nRedirect an incoming request path to another destination path.\n"
    ),
    "03-pages/02-api/03-next-config-js/redirects.mdx": (
        "# redirects\n\nRedirect an incoming request path to another destination path.\n"
    ),
    ".docs-mcp.json": json.dumps(
        {
            "version": "1",
            "taxonomy": {"router": {"default": "app"}},
            "overrides": [
                {"pattern": "02-app/**", "metadata": {"router": "app"}},
                {"pattern": "03-pages/**", "metadata": {"router": "pages"}},
            ],
        }
    ),
}


def test_copies_in_folders_ordered_by_number_fold_once_their_numbers_are_dropped(
    tmp_path: Path,
) -> None:
    bundle = build_bundle(write_tree(tmp_path / "docs", NEXT), tmp_path / "idx")
    entry = json.loads((bundle / "metadata.json").read_text())["taxonomy"]["router"]
    assert entry["folders"] == {"app": ["02-app"], "pages": ["03-pages"]}
    app = DocsApp(open_bundle(bundle))
    found = app.call_tool("search_docs", {"query": "redirect a request path", "limit": 3})
    hits = found["structuredContent"]["hits"]
    assert hits[0]["chunk_id"] == "02-app/02-api/05-next-config-js/redirects.mdx#redirects"
    assert hits[0]["also_in"] == {"router": ["pages"]}
    assert all(not h["chunk_id"].startswith("03-pages/") for h in hits)  # shown once


def test_ordering_prefixes() -> None:
    nextjs = {"app": ("docs/02-app",), "pages": ("docs/03-pages",)}
    assert orders_by_prefix(nextjs)
    assert not orders_by_prefix({"a": ("docs/2025-06-18",), "b": ("docs/2024-11-05",)})  # dates
    assert not orders_by_prefix({"next": ("docs",), "1.0": ("versioned_docs/version-1.0",)})
    page = "docs/03-pages/02-api/03-next-config-js/redirects.mdx#01-step"
    assert copy_id(page, "pages", {"docs/03-pages": ""}, True) == (
        "api/next-config-js/redirects.mdx#01-step"  # (an anchor keeps its number)
    )
