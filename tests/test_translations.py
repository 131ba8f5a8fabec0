"""Translations as sites lay them out (sources/layout/translations.py): `docsmcp init` proposes
excluding them and `docsmcp build` without a manifest leaves them out and says so, so a search
answers in the site's default language instead of returning one section once per language (SWR's
site: `mutation.mdx`, `mutation.es.mdx`, `mutation.ru.mdx` were the top three)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FUZZ, run_docsmcp
from docsmcp.commands.init import propose
from docsmcp.sources.layout.translations import detect
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

PAGE = "# {title}\n\nUse `useSWRMutation` to {verb} data.\n\n## Trigger\n\nCall `trigger()`.\n"


def _tree(root: Path, paths: list[str]) -> Path:
    for rel in paths:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(PAGE.format(title=rel, verb="mutate"), encoding="utf-8")
    return root


SUFFIXED = [
    "docs/mutation.mdx",
    "docs/mutation.ja.mdx",
    "docs/mutation.es.mdx",
    "docs/pagination.mdx",
    "docs/pagination.ja.mdx",
    "docs/pagination.es.mdx",
    "blog/v2.mdx",
]


@pytest.mark.parametrize(
    ("paths", "globs"),
    [
        (SUFFIXED, {"**/*.es.mdx": 2, "**/*.ja.mdx": 2}),
        (  # Nextra: every page suffixed, English the default
            ["a.en-US.mdx", "a.zh-CN.mdx", "b.en-US.mdx", "b.zh-CN.mdx"],
            {"**/*.zh-CN.mdx": 2},
        ),
        (  # FastAPI: a folder per language, English among them
            ["en/docs/index.md", "en/docs/a.md", "es/docs/index.md", "es/docs/a.md"],
            {"es/**": 2},
        ),
        (  # VitePress, Starlight: the default unprefixed, translations mirror its pages
            ["index.md", "guide/a.md", "guide/b.md", "zh/index.md", "zh/guide/a.md"],
            {"zh/**": 2},
        ),
        (  # Docusaurus: everything under i18n/<language>/
            ["docs/a.md", "i18n/fr/plugin/current/a.md", "i18n/fr/plugin/current/b.md"],
            {"i18n/fr/**": 2},
        ),
        (  # Terraform providers: CDK for Terraform's copies of the HCL pages, per language
            [
                "docs/index.md",
                "docs/resources/a.md",
                "docs/resources/b.md",
                "docs/cdktf/python/index.md",
                "docs/cdktf/python/resources/a.md",
                "docs/cdktf/typescript/resources/a.md",
                "docs/cdktf/typescript/resources/b.md",
            ],
            {"docs/cdktf/python/**": 2, "docs/cdktf/typescript/**": 2},
        ),
    ],
    ids=["suffix", "nextra", "folders-with-en", "vitepress", "docusaurus-i18n", "cdktf"],
)
def test_translation_layouts(paths: list[str], globs: dict[str, int]) -> None:
    found = detect(paths)
    assert {g: len(files) for g, files in found.globs.items()} == globs
    assert found.line().startswith(f"translations: {sum(globs.values())} pages")


@pytest.mark.parametrize(
    "paths",
    [
        ["notes.md", "notes.it.md", "other.md"],  # one page in a language is no translation
        ["id/a.md", "id/b.md", "users/a.md"],  # a folder `id/` mirroring nothing
        ["a.ja.mdx", "b.ja.mdx"],  # no default-language page beside them
        ["v1.2.md", "v1.2.0.md", "a.md"],  # versions, not languages
        ["cdktf/python/a.md", "cdktf/python/b.md", "c.md"],  # (a CDKTF project's own docs)
        # MDN's `<th>` element: a folder of one page (and a sample) beside td/, tr/, ...
        [
            "web/html/element/index.md",
            "web/html/element/th/index.md",
            "web/html/element/th/column-row-span.html",
            "web/html/element/td/index.md",
        ],
    ],
    ids=["lone-page", "id-folder", "no-default", "dotted-versions", "cdktf-docs", "mdn-th"],
)
def test_pages_that_are_not_translations(paths: list[str]) -> None:
    found = detect(paths)
    assert found.globs == {} and found.line() == ""


@FUZZ
@given(
    st.lists(st.from_regex(r"[a-z]{1,3}(/[a-z]{1,3}){0,2}(\.(ja|en|es|x))?\.mdx?", fullmatch=True))
)
def test_detect_never_raises_and_keeps_a_default_page(paths: list[str]) -> None:
    found = detect(paths)
    assert found.files <= set(paths)
    if paths:  # never every page: each translation has a default-language page beside it
        assert len(found.files) < len(set(paths))


def test_init_proposes_excluding_translations_and_says_so(tmp_path: Path) -> None:
    docs = _tree(tmp_path / "site", SUFFIXED)
    proposal = propose(docs)
    assert proposal.manifest["exclude"] == ["**/*.es.mdx", "**/*.ja.mdx"]
    assert proposal.files == 3
    report = "\n".join(proposal.report())
    assert "translations: 4 pages in 2 other languages left out: es (2), ja (2)" in report


def test_a_build_without_a_manifest_answers_in_the_default_language(tmp_path: Path) -> None:
    docs = _tree(tmp_path / "site", SUFFIXED)
    out = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx")
    assert "translations: 4 pages in 2 other languages left out" in out.stdout
    with McpSession(tmp_path / "idx") as session:
        hits = session.search(query="useSWRMutation trigger")["hits"]
    found = {h["filepath"] for h in hits}
    assert "docs/mutation.mdx" in found and not any(".ja." in f or ".es." in f for f in found)


def test_a_manifest_decides_instead(tmp_path: Path) -> None:
    docs = _tree(tmp_path / "site", SUFFIXED)
    (docs / ".docs-mcp.json").write_text(json.dumps({"version": "1"}), encoding="utf-8")
    out = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", "--json")
    summary = json.loads(out.stdout)
    assert summary["files"] == len(SUFFIXED) and summary["translations"] is None
