"""Taxonomy search rules are data: `auto_include` is declared in manifests (with the docs-mcp
convention as the default for `language`/`scope`), stored in the bundle and applied by the
runtime for any key names, e.g. a corpus filtering by `lang` and `kind`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import EXAMPLE_DOCS, build_bundle, run_docsmcp
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.tools.app import DocsApp


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _manifest(lang_rule: dict | None) -> str:
    taxonomy = {"lang": {"description": "SDK language"}}
    if lang_rule is not None:
        taxonomy["lang"]["auto_include"] = lang_rule
    return json.dumps(
        {
            "version": "1",
            "taxonomy": taxonomy,
            "overrides": [
                {"pattern": "go/**", "metadata": {"lang": "go", "kind": "reference"}},
                {"pattern": "rust/**", "metadata": {"lang": "rust", "kind": "reference"}},
                {"pattern": "guides/**", "metadata": {"kind": "guide"}},
            ],
        }
    )


PAGES = {
    "go/client.md": "# Client\n\n## Timeouts\n\nSet the webhook timeout on the Go client.\n",
    "rust/client.md": "# Client\n\n## Timeouts\n\nSet the webhook timeout on the Rust client.\n",
    "guides/webhooks.md": "# Webhooks\n\n## Timeouts\n\nEvery webhook timeout is 30 seconds.\n",
}


def _files_found(bundle: Path, **filters: str) -> set[str]:
    app = DocsApp(open_bundle(bundle))
    args = {"query": "webhook timeout", "limit": 50, **filters}
    hits = app.call_tool("search_docs", args)["structuredContent"]["hits"]
    return {h["filepath"] for h in hits}


def test_declared_rule_for_other_key_names(tmp_path: Path) -> None:
    docs = _write(tmp_path / "docs", {**PAGES, ".docs-mcp.json": _manifest({"kind": ["guide"]})})
    bundle = build_bundle(docs, tmp_path / "idx")
    meta = json.loads((bundle / "metadata.json").read_text())
    assert meta["taxonomy"]["lang"]["auto_include"] == {"kind": ["guide"]}
    assert meta["requires"] == ["auto-include", "impact-codes", "narrow-index"]
    # Filtering a language keeps the guides for every language...
    assert _files_found(bundle, lang="go") == {"go/client.md", "guides/webhooks.md"}
    # ...unless the other key is filtered too.
    assert _files_found(bundle, lang="go", kind="reference") == {"go/client.md"}
    assert _files_found(bundle, kind="guide") == {"guides/webhooks.md"}


def test_without_a_rule_a_filter_is_exact(tmp_path: Path) -> None:
    docs = _write(tmp_path / "docs", {**PAGES, ".docs-mcp.json": _manifest(None)})
    bundle = build_bundle(docs, tmp_path / "idx")
    meta = json.loads((bundle / "metadata.json").read_text())
    assert "auto_include" not in meta["taxonomy"]["lang"] and meta["requires"] == [
        "impact-codes",
        "narrow-index",
    ]
    assert _files_found(bundle, lang="go") == {"go/client.md"}


def test_the_language_default_can_be_turned_off(tmp_path: Path) -> None:
    docs = shutil.copytree(EXAMPLE_DOCS, tmp_path / "docs")
    manifest = json.loads((docs / ".docs-mcp.json").read_text())
    default = build_bundle(docs, tmp_path / "default")
    manifest["taxonomy"]["language"]["auto_include"] = {}
    (docs / ".docs-mcp.json").write_text(json.dumps(manifest))
    off = build_bundle(docs, tmp_path / "off")
    app_default, app_off = DocsApp(open_bundle(default)), DocsApp(open_bundle(off))
    args = {"query": "authentication api key", "language": "python", "limit": 50}
    scopes_default = {
        h["metadata"]["scope"]
        for h in app_default.call_tool("search_docs", args)["structuredContent"]["hits"]
    }
    scopes_off = {
        h["metadata"]["scope"]
        for h in app_off.call_tool("search_docs", args)["structuredContent"]["hits"]
    }
    assert scopes_default == {"global-guide", "sdk-specific"}
    # Without the rule, only Python rows are left: the Python SDK pages and the Python tab of a
    # guide (a row with a language of its own), never a guide's other text.
    hits_off = app_off.call_tool("search_docs", args)["structuredContent"]["hits"]
    assert {h["metadata"]["language"] for h in hits_off} == {"python"}
    assert scopes_off == {"sdk-specific", "global-guide"}
    guides = [h for h in hits_off if h["metadata"]["scope"] == "global-guide"]
    assert guides and all(h["chunk_id"].endswith("/python") for h in guides), guides


def test_rules_naming_what_does_not_exist_are_reported(tmp_path: Path) -> None:
    docs = _write(
        tmp_path / "docs",
        {**PAGES, ".docs-mcp.json": _manifest({"kind": ["guides"], "audience": ["all"]})},
    )
    proc = run_docsmcp("validate", "--docs-dir", docs, check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "auto_include names key 'audience', which no file has" in proc.stderr
    assert "auto_include values ['guides'] of 'kind' occur in no file" in proc.stderr


def test_a_key_cannot_include_itself(tmp_path: Path) -> None:
    docs = _write(tmp_path / "docs", {**PAGES, ".docs-mcp.json": _manifest({"lang": ["go"]})})
    proc = run_docsmcp("validate", "--docs-dir", docs, check=False)
    assert proc.returncode == 1
    assert "taxonomy.lang.auto_include.lang: a key cannot auto-include its own values" in (
        proc.stderr
    )
