"""Server instructions (issue 28): a bundle built without any gets a useful default, what the
docs are, which tool does what under the names this server exposes, and the filters; a bundle's
own instructions are served as written."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import EXAMPLE_DOCS, build_bundle
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.tools.app import DocsApp
from docsmcp_runtime.tools.registry import ToolSelection
from mcp_client import McpSession


def test_a_bundle_without_instructions_gets_a_default(tmp_path: Path) -> None:
    docs = tmp_path / "acme"
    shutil.copytree(EXAMPLE_DOCS, docs)
    (docs / ".docs-mcp.json").unlink()  # its mcpServerInstructions with it
    bundle = build_bundle(docs, tmp_path / "idx")
    with McpSession(bundle, env={"DOCSMCP_TOOL_PREFIX": "acme_"}) as session:
        text = session.instructions
    assert text is not None
    lines = text.splitlines()
    assert lines[0].startswith("acme documentation (") and lines[0].endswith(").")
    assert "acme_search_docs finds sections" in lines[1]
    assert "acme_get_page reads a whole page by its path or title" in lines[1]
    assert lines[-1] == "Answers stay within max_tokens (default 5,000); continue with next_cursor."
    # only the tools a server exposes are named
    app = DocsApp(open_bundle(bundle), selection=ToolSelection.parse("search_docs,get_doc", None))
    assert "get_page" not in app.instructions and "get_doc reads" in app.instructions


def test_a_bundles_own_instructions_are_served_as_written(example_bundle: Path) -> None:
    app = DocsApp(open_bundle(example_bundle))
    assert app.instructions == app.bundle.metadata.instructions
    assert "Use these tools" not in app.instructions
