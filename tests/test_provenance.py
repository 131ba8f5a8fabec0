"""Provenance on every hit (issue 13, item 3): the commit and its date from git at build time, the
corpus version, and a link made from a URL template, as an agent reads them through the official
`mcp` SDK client; and the one-line refusals of bad templates."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import EXAMPLE_DOCS, build_bundle, run_docsmcp
from docsmcp_runtime.format import Source
from mcp_client import McpSession

COMMIT_DATE = "2026-01-02T03:04:05+00:00"
GITHUB = "https://github.com/acme/sdk/blob/{commit}/docs/{path}#L{line_start}-L{line_end}"
SITE = "https://docs.acme.test/{path_noext}#{anchor}"


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_AUTHOR_DATE": COMMIT_DATE,
        "GIT_COMMITTER_DATE": COMMIT_DATE,
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path_factory.mktemp("repo")
    shutil.copytree(EXAMPLE_DOCS, root / "docs")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "docs")
    return root, _git(root, "rev-parse", "HEAD")


def _top_source(bundle: Path, query: str = "create payment") -> dict:
    with McpSession(bundle) as s:
        return s.search(query=query, limit=1)["hits"][0]["source"]


@pytest.mark.slow  # git, a build, a server
def test_hits_carry_commit_date_version_and_a_github_link(
    repo: tuple[Path, str], tmp_path: Path
) -> None:
    root, commit = repo
    bundle = build_bundle(
        root / "docs", tmp_path / "idx", "--source-url", GITHUB, "--corpus-version", "2.4.0"
    )
    meta = json.loads((bundle / "metadata.json").read_text())
    assert meta["source"] == {"commit": commit, "commit_date": COMMIT_DATE, "url": GITHUB}
    assert meta["version"] == "2.4.0"
    source = _top_source(bundle)
    start, end = source["lines"]
    assert source["commit"] == commit and source["commit_date"] == COMMIT_DATE
    assert source["version"] == "2.4.0"
    assert source["url"] == (
        f"https://github.com/acme/sdk/blob/{commit}/docs/{source['file']}#L{start}-L{end}"
    )
    # the date is git's, not the clock's: a later rebuild is byte-identical
    again = build_bundle(
        root / "docs", tmp_path / "idx2", "--source-url", GITHUB, "--corpus-version", "2.4.0"
    )
    assert (again / "metadata.json").read_bytes() == (bundle / "metadata.json").read_bytes()


def test_a_site_template_links_the_heading_anchor(repo: tuple[Path, str], tmp_path: Path) -> None:
    root, _ = repo
    bundle = build_bundle(root / "docs", tmp_path / "idx", "--source-url", SITE)
    source = _top_source(bundle)
    stem = source["file"].rsplit(".", 1)[0]
    assert source["url"] == f"https://docs.acme.test/{stem}#create"


@pytest.mark.slow  # builds and a server
def test_without_git_no_commit_and_no_commit_link(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    bundle = build_bundle(docs, tmp_path / "idx", "--source-url", GITHUB)
    source = _top_source(bundle)
    assert set(source) == {"file", "lines"}  # a link needing {commit} is not made up
    site = build_bundle(docs, tmp_path / "site", "--source-url", SITE)
    assert _top_source(site)["url"].startswith("https://docs.acme.test/")


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("https://x/{nope}", "unknown placeholder {nope}"),
        ("https://x/{path", "unbalanced { or }"),
    ],
)
def test_a_bad_template_is_one_line(tmp_path: Path, template: str, message: str) -> None:
    proc = run_docsmcp(
        "build", "--docs-dir", EXAMPLE_DOCS, "--out", tmp_path / "idx", "--source-url", template,
        check=False,
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert f"--source-url: {message}" in proc.stderr
    assert not (tmp_path / "idx").exists()


def test_links_encode_paths_and_anchors() -> None:
    source = Source(commit="abc", url="https://h/{commit}/{path}?a={anchor}")
    assert (
        source.link("my docs/C# tips.md", 3, 9, "a/b")
        == "https://h/abc/my%20docs/C%23%20tips.md?a=a%2Fb"
    )
    assert Source(url="https://h/{commit}/{path}").link("a.md", 1, 2, "") is None
