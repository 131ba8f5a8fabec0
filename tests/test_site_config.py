"""Bundle names a person would use (issue 28): a docs folder with a telling name keeps it; a
generic one (`docs/en/docs` was library "en" for FastAPI) takes the site's title from its
configuration, else the git repository's name, else the nearest telling folder; the build
summary says which."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import run_docsmcp
from docsmcp.sources.site_config import CorpusName, corpus_name


def page(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "index.md").write_text("# Home\n\nWelcome.\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("config", "text", "title", "source"),
    [
        (
            "mkdocs.yml",
            "site_name: FastAPI\nsite_url: https://x\n",
            "FastAPI",
            "mkdocs.yml site_name",
        ),
        ("conf.py", "project = 'The Python Tutorial'\n", "The Python Tutorial", "conf.py project"),
        (
            "book.toml",
            '[book]\ntitle = "The Rust Reference"\n',
            "The Rust Reference",
            "book.toml title",
        ),
        (
            ".vitepress/config.ts",
            "export default defineConfig({\n  title: `Vite${additionalTitle}`,\n})\n",
            "Vite",
            ".vitepress/config.ts title",
        ),
        (  # Vue Router: a config split in a folder
            ".vitepress/config/shared.ts",
            "export const sharedConfig = defineConfig({\n  title: 'Vue Router',\n})\n",
            "Vue Router",
            ".vitepress/config/shared.ts title",
        ),
        (
            "docusaurus.config.ts",
            "const config = {\n  title: 'Yellow Network',\n  url: 'https://x',\n};\n",
            "Yellow Network",
            "docusaurus.config.ts title",
        ),
    ],
)
def test_a_generic_folder_takes_the_site_title_from_above(
    tmp_path: Path, config: str, text: str, title: str, source: str
) -> None:
    site = tmp_path / "project" / "docs" / "en"
    (site / config).parent.mkdir(parents=True, exist_ok=True)
    (site / config).write_text(text, encoding="utf-8")
    docs = page(site / "docs")
    found = corpus_name(docs)
    assert found == CorpusName(found.name, title, source)
    assert found.name == title.lower().replace(" ", "-")


def test_mintlify_docs_json_inside_the_folder(tmp_path: Path) -> None:
    docs = page(tmp_path / "docs")
    (docs / "docs.json").write_text(json.dumps({"name": "Model Context Protocol"}))
    assert corpus_name(docs) == CorpusName(
        "model-context-protocol", "Model Context Protocol", "docs.json name"
    )


def test_git_remote_then_the_nearest_telling_folder(tmp_path: Path) -> None:
    repo = tmp_path / "checkout"
    docs = page(repo / "docs" / "en" / "docs")
    # no configuration, no repository: the nearest folder that is not generic
    assert corpus_name(docs) == CorpusName(
        "checkout", "checkout", "the nearest folder with a telling name"
    )
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "remote", "add", "origin", "git@github.com:tiangolo/fastapi.git"],
        check=True,
    )
    assert corpus_name(docs) == CorpusName("fastapi", "fastapi", "the git remote's repository name")
    # a folder above the repository's root is never read
    (tmp_path / "mkdocs.yml").write_text("site_name: Outside\n")
    assert corpus_name(docs).name == "fastapi"


def test_a_telling_folder_name_is_kept(tmp_path: Path) -> None:
    docs = page(tmp_path / "acme-sdk")
    (docs / "docs.json").write_text(json.dumps({"name": "Something Else"}))
    assert corpus_name(docs) == CorpusName("acme-sdk", "acme-sdk", "the docs folder's name")


def test_the_build_summary_names_the_source(tmp_path: Path) -> None:
    site = tmp_path / "proj" / "docs"
    site.mkdir(parents=True)
    (site.parent / "mkdocs.yml").write_text("site_name: Acme Payments\n")
    page(site)
    out = tmp_path / "idx"
    proc = run_docsmcp("build", "--docs-dir", site, "--out", out)
    assert proc.stdout.splitlines()[-1] == (
        "  name 'acme-payments', from mkdocs.yml site_name (--name NAME to choose another)"
    )
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["name"] == "acme-payments"
    assert meta["description"].startswith("Acme Payments documentation (1 pages")
    named = run_docsmcp("build", "--docs-dir", site, "--out", out, "--name", "acme")
    assert "name '" not in named.stdout
