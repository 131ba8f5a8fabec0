"""Pages a site does not publish are not built (corpus.py): `draft: true` in the frontmatter
(Hugo, Docusaurus, Starlight) or `published: false` (Jekyll). OpenTelemetry's draft
`collector/deploy/choose.md` was indexed and answered."""

from __future__ import annotations

import json
import time
from pathlib import Path

from conftest import run_docsmcp, write_tree
from docsmcp.pipeline.known_files import RACY_NS


def _build(docs: Path, out: Path) -> dict:
    return json.loads(run_docsmcp("build", "--docs-dir", docs, "--out", out, "--json").stdout)


def test_draft_pages_are_left_out_and_said(tmp_path: Path) -> None:
    docs = write_tree(
        tmp_path / "docs",
        {
            "guide.md": "# Guide\n\nPublished.\n",
            "choose.md": "---\ndraft: true\n---\n# Choose\n\nNot yet.\n",
            "old.md": "---\npublished: false\n---\n# Old\n\nGone.\n",
            "kept.md": "---\ndraft: false\n---\n# Kept\n\nShown.\n",
        },
    )
    line = (
        "drafts: 2 pages marked `draft: true` (or `published: false`) left out, as the site "
        "does not publish them (choose.md, old.md)"
    )
    first = _build(docs, tmp_path / "idx")
    assert (first["files"], first["unpublished"]) == (2, line)
    # A rebuild takes unchanged files from its record without reading them.
    time.sleep(RACY_NS / 1e9 + 0.2)
    _build(docs, tmp_path / "idx")
    again = _build(docs, tmp_path / "idx")
    assert again["unread_files"] == 2  # (drafts are not recorded: read again, left out again)
    assert (again["files"], again["unpublished"]) == (2, line)


def test_pages_that_only_redirect_are_left_out(tmp_path: Path) -> None:
    """pip keeps 15 Sphinx stubs, `.. meta:: :http-equiv=refresh: 3; url=…` over "This page
    has moved": they took hits; so do Jekyll's `redirect_to` pages and an HTML refresh."""
    docs = write_tree(
        tmp_path / "docs",
        {
            "cli/pip_show.rst": "pip show\n========\n\nShows a package.\n",
            "reference/pip_show.rst": ":orphan:\n\n.. meta::\n\n  :http-equiv=refresh: 3; "
            "url=../../cli/pip_show/\n\nThis page has moved\n===================\n\nSee "
            ":doc:`../cli/pip_show`.\n",
            "old.md": "---\nredirect_to: /new/\n---\n# Old\n",
            # docfx's own docs: 13 `redirect_url` stubs, empty pages
            "tutorial/intro_toc.md": "---\nredirect_url: ../docs/table-of-contents.html\n---\n",
            "moved.md": '<meta http-equiv="refresh" content="0; url=/x/">\n\n# Moved\n',
            "refresh.md": "# Refresh tokens\n\nA token to refresh a session.\n",
            # MDN's pages about the Refresh header and the 511 status show the tag as code
            "headers/refresh/index.md": "---\ntitle: Refresh\n---\n\nThe **`Refresh`** header "
            'is equivalent to [`<meta http-equiv="refresh" content="...">`](/meta) in HTML.\n',
            "status/511/index.md": "---\ntitle: 511\n---\n\nA proxy answers:\n\n```http\n"
            'HTTP/1.1 511\n\n<meta http-equiv="refresh" content="10; url=/login">\n```\n',
        },
    )
    summary = _build(docs, tmp_path / "idx")
    assert summary["files"] == 4  # cli/pip_show.rst, refresh.md, MDN's two pages
    assert summary["unpublished"] == (
        "redirects: 4 pages that only send the reader to another (a refresh, `redirect_to` or "
        "`redirect_url`) left out (moved.md, old.md, reference/pip_show.rst, ...)"
    )
