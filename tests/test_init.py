"""`docsmcp init`: a starting .docs-mcp.json proposed from a docs tree's names and structure."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from conftest import FUZZ, build_bundle, corpus, run_docsmcp, write_tree
from docsmcp.commands.init import propose, validate_proposal
from docsmcp.commands.init_strategy import sections
from hypothesis import given
from hypothesis import strategies as st

PAGE = "# Title\n\nIntro text.\n\n## Install\n\n{body}\n\n## Usage\n\n{body}\n"


def _page(words: int = 40) -> str:
    return PAGE.format(body=" ".join(["lorem"] * words))


def _overrides(manifest: dict) -> dict[str, dict]:
    return {o["pattern"]: o["metadata"] for o in manifest.get("overrides", [])}


def test_language_folders_and_scope(tmp_path):
    docs = write_tree(
        tmp_path / "docs",
        {
            "index.md": _page(),
            "guides/auth.md": _page(),
            "python/quickstart.md": _page(),
            "ts/quickstart.md": _page(),
            "golang/quickstart.md": _page(),
        },
    )
    proposal = propose(docs)
    manifest = proposal.manifest
    assert _overrides(manifest) == {
        "golang/**": {"language": "go", "scope": "sdk-specific"},
        "python/**": {"language": "python", "scope": "sdk-specific"},
        "ts/**": {"language": "typescript", "scope": "sdk-specific"},
    }
    assert manifest["metadata"] == {"scope": "global-guide"}
    assert manifest["taxonomy"]["language"]["vector_collapse"] is True
    assert all(cfg["description"] for cfg in manifest["taxonomy"].values())
    assert dict(proposal.values["language"]) == {"go": 1, "python": 1, "typescript": 1}
    assert dict(proposal.values["scope"]) == {"global-guide": 2, "sdk-specific": 3}


def test_one_language_folder_is_no_taxonomy(tmp_path):
    docs = write_tree(tmp_path / "d", {"python/a.md": _page(), "guides/b.md": _page()})
    assert "taxonomy" not in propose(docs).manifest


def test_second_level_language_folders(tmp_path):
    docs = write_tree(
        tmp_path / "d",
        {"sdks/python/a.md": _page(), "sdks/ruby/a.md": _page(), "intro.md": _page()},
    )
    overrides = _overrides(propose(docs).manifest)
    assert overrides["sdks/python/**"]["language"] == "python"
    assert overrides["sdks/ruby/**"]["language"] == "ruby"


def test_language_folders_of_every_common_language(tmp_path):
    # OpenTelemetry's `languages/dotnet/`, `erlang/`, `swift/` got no language: their pages
    # passed every language filter as global guides.
    names = ["dotnet", "erlang", "swift", "python", "elixir"]
    docs = write_tree(tmp_path / "d", {f"languages/{n}/a.md": _page() for n in names})
    overrides = _overrides(propose(docs).manifest)
    assert {n: overrides[f"languages/{n}/**"]["language"] for n in names} == {n: n for n in names}


def test_product_prefixes_and_language_suffixes(tmp_path):
    docs = write_tree(
        tmp_path / "sdks",
        {
            "acme-python/docs/a.md": _page(),
            "acme-go/docs/a.md": _page(),
            "zeta-ts/docs/a.md": _page(),
            "zeta-python/README.md": _page(),
        },
    )
    proposal = propose(docs)
    overrides = _overrides(proposal.manifest)
    assert overrides["acme-go/**"] == {"language": "go", "product": "acme"}
    assert overrides["zeta-ts/**"] == {"language": "typescript", "product": "zeta"}
    assert set(proposal.values["product"]) == {"acme", "zeta"}
    assert "scope" not in proposal.manifest["taxonomy"]  # every page has a language


def test_version_folders(tmp_path):
    docs = write_tree(
        tmp_path / "site",
        {
            "docs/intro.md": _page(),
            "versioned_docs/version-0.5.x/intro.md": _page(),
            "versioned_docs/version-1.x/intro.md": _page(),
            "blog/2024/post.md": _page(),
        },
    )
    proposal = propose(docs)
    assert _overrides(proposal.manifest) == {
        "docs/**": {"version": "next"},  # (Docusaurus' unreleased "Next")
        "versioned_docs/version-0.5.x/**": {"version": "0.5.x"},
        "versioned_docs/version-1.x/**": {"version": "1.x"},
    }
    assert proposal.manifest["taxonomy"]["version"]["description"]


def test_v_folders_and_next(tmp_path):
    files = {"v1/a.md": _page(), "v2/a.md": _page(), "next/a.md": _page()}
    docs = write_tree(tmp_path / "d", files)
    overrides = _overrides(propose(docs).manifest)
    assert {k: v["version"] for k, v in overrides.items()} == {
        "next/**": "next",
        "v1/**": "v1",
        "v2/**": "v2",
    }


def test_years_and_numbered_chapters_are_not_versions(tmp_path):
    files = {"2023/a.md": _page(), "2024/a.md": _page(), "01/a.md": _page()}
    docs = write_tree(tmp_path / "d", files)
    assert "taxonomy" not in propose(docs).manifest


def test_changelogs_are_kept_and_vendor_folders_excluded(tmp_path):
    # Changelogs are documentation (a protocol's changelog says what changed between
    # revisions): init keeps them and says they rank lower; vendored folders are left out.
    docs = write_tree(
        tmp_path / "d",
        {
            "index.md": _page(),
            "CHANGELOG.md": "# 1.0\n",
            "pkg/RELEASES.md": "# 1.0\n",
            "changelog/2024.md": "# x\n",
            "node_modules/lib/README.md": "# lib\n",
            "api/_build/out.md": "# built\n",
            # Sphinx's Jinja templates (NumPy's `_templates/autosummary/*.rst`)
            "_templates/autosummary/module.rst": "{{ fullname }}\n===\n\n.. automodule:: {{ x }}\n",
        },
    )
    proposal = propose(docs)
    assert proposal.manifest["exclude"] == [
        "**/_build/**",
        "**/_templates/**",
        "**/node_modules/**",
    ]
    assert proposal.files == 4
    assert proposal.changelogs == 3
    assert (
        "changelogs: 3 files kept (role changelog: they rank below other pages unless a query "
        "asks about changes; filter role=changelog for them)"
    ) in proposal.report()
    clean = write_tree(tmp_path / "clean", {"index.md": _page()})
    assert "exclude" not in propose(clean).manifest
    assert not any(line.startswith("changelogs:") for line in propose(clean).report())


def test_a_repositorys_test_suite_is_excluded(tmp_path):
    """Prettier's root holds 552 markdown fixtures under tests/ (some with frontmatter no build
    accepts: init failed) and changelog entries sorted by language (a `language` key of
    `changelog_unreleased/javascript/`). Deno's docs keep their `test/` folder of pages."""
    fixture = "---\n- a list, not a mapping\n---\n# Fixture\n"
    docs = write_tree(
        tmp_path / "repo",
        {
            "package.json": "{}",
            "docs/index.md": _page(),
            "tests/format/markdown/list.md": fixture,
            "src/__tests__/snap.md": "# Snapshot\n",
            "changelog_unreleased/javascript/1.md": "#### Fix arrows\n",
            "changelog_unreleased/typescript/2.md": "#### Fix enums\n",
        },
    )
    proposal = propose(docs)
    assert proposal.manifest["exclude"] == ["**/__tests__/**", "tests/**"]
    assert "language" not in proposal.manifest.get("taxonomy", {})
    assert not validate_proposal(docs, proposal).problems
    pages = write_tree(tmp_path / "deno", {"runtime/test/index.md": _page(), "index.md": _page()})
    assert "exclude" not in propose(pages).manifest  # not a repository: `test/` is docs


def test_validation_reads_includes_as_the_build_does(tmp_path):
    """A snippet path written against the folder holding the docs (mkdocs.yml's, Textual's
    `--8<-- "docs/snippets/x.md"`): init's check runs on an overlay of the docs folder, where
    such a path named no file (731 "missing" includes on Textual, none for the build)."""
    repo = write_tree(
        tmp_path / "repo",
        {
            "mkdocs.yml": "site_name: x\n",
            "docs/index.md": '# Home\n\n## Install\n\n--8<-- "docs/snippets/install.md"\n',
            "docs/snippets/install.md": "Run the frobnicator installer.\n",
        },
    )
    collected = validate_proposal(repo / "docs", propose(repo / "docs"))
    (home,) = [c for c in collected.chunks if c.path == "index.md"]
    assert "Run the frobnicator installer." in home.text and "--8<--" not in home.text


def test_coding_agents_instruction_files_are_excluded(tmp_path):
    """CLAUDE.md, AGENTS.md, ... tell an agent how to work on the repository: not docs for its
    users (Jest's packages/jest-mock/CLAUDE.md answered a question about mocking modules)."""
    docs = write_tree(
        tmp_path / "d",
        {
            "index.md": _page(),
            "AGENTS.md": "# Agents\n\nRun the tests with yarn before committing.\n",
            "packages/mock/CLAUDE.md": "# Mock\n\nReplace a whole module with a fake here.\n",
            "packages/mock/README.md": _page(),
            "guides/claude.md": _page(),  # a page about Claude stays
        },
    )
    proposal = propose(docs)
    assert proposal.manifest["exclude"] == ["**/AGENTS.md", "**/CLAUDE.md"]
    (docs / ".docs-mcp.json").write_text(json.dumps(proposal.manifest), encoding="utf-8")
    out = build_bundle(docs, tmp_path / "idx")
    paths = set(pq.read_table(out / "pages.parquet", columns=["path"]).column("path").to_pylist())
    assert paths == {"index.md", "packages/mock/README.md", "guides/claude.md"}


def test_html_beside_markdown_is_not_described(tmp_path):
    """Sequelize's site keeps saved HTML of old versions in `static/v1..v5/`: the build reads no
    HTML beside markdown, but init counted it and proposed five version values of nothing."""
    docs = write_tree(
        tmp_path / "d",
        {
            "docs/index.md": _page(),
            "docs/guide.md": _page(),
            **{f"static/v{n}/manual/x.html": "<h1>Old</h1><p>old</p>" for n in (1, 2, 3)},
        },
    )
    proposal = propose(docs)
    assert proposal.files == 2
    assert "version" not in proposal.manifest.get("taxonomy", {})


def test_a_file_the_build_cannot_read_is_excluded_with_its_reason(tmp_path):
    """LangChain's docs: three pages over the size limit made init propose a manifest that
    failed its own validation, so `init --write` wrote nothing. Each such file is excluded by
    itself, the report says why, and the proposal builds."""
    docs = write_tree(
        tmp_path / "d",
        {
            "index.md": _page(),
            "guides/big [v2].md": "# Big\n\n" + "word " * 500_000,
            "node_modules/pkg/huge.md": "# Huge\n\n" + "word " * 500_000,
            "node_modules/pkg/README.md": _page(),
        },
    )
    (docs / "latin1.md").write_bytes(b"# Caf\xe9\n\ntext\n")
    proposal = propose(docs)
    big = r"guides/big \[v2\].md"  # (a glob: its brackets escaped)
    assert proposal.manifest["exclude"] == ["**/node_modules/**", big, "latin1.md"]
    report = "\n".join(proposal.report())
    assert f"exclude {big}: the build cannot read it: file is 2,500,007 bytes;" in report
    assert "exclude latin1.md: the build cannot read it: not valid UTF-8 at column 6" in report
    result = run_docsmcp("init", "--docs-dir", docs, "--write", check=False)
    assert result.returncode == 0, result.stderr
    assert (docs / ".docs-mcp.json").exists()
    out = build_bundle(docs, tmp_path / "idx")
    paths = set(pq.read_table(out / "pages.parquet", columns=["path"]).column("path").to_pylist())
    assert paths == {"index.md"}


def test_an_mdbook_table_of_contents_is_excluded_and_still_orders_the_pages(tmp_path):
    """mdBook's SUMMARY.md lists every chapter: the build reads it for titles and order, and as
    a page it outranked the chapters it links (mdBook's own docs: "preprocessor vs alternative
    backend"). A SUMMARY.md that summarises (fewer than three links) stays a page."""
    summary = "# Summary\n\n- [Intro](intro.md)\n- [Backends](backends.md)\n- [Hooks](hooks.md)\n"
    pages = {name: _page() for name in ("src/intro.md", "src/backends.md", "src/hooks.md")}
    docs = write_tree(tmp_path / "book", {"src/SUMMARY.md": summary, **pages})
    proposal = propose(docs)
    assert proposal.manifest["exclude"] == ["src/SUMMARY.md"]
    assert "exclude src/SUMMARY.md: 1 files" in proposal.report()
    (docs / ".docs-mcp.json").write_text(json.dumps(proposal.manifest), encoding="utf-8")
    out = build_bundle(docs, tmp_path / "idx")
    paths = pq.read_table(out / "pages.parquet", columns=["path"]).column("path").to_pylist()
    assert paths == ["src/backends.md", "src/hooks.md", "src/intro.md"]
    # The pages keep the table's order (page_order.bin: each page's rank, rows in path order).
    assert np.fromfile(out / "page_order.bin", dtype="<u4").tolist() == [1, 2, 0]
    short = write_tree(tmp_path / "short", {"SUMMARY.md": "# Summary\n\nSee [intro](intro.md).\n"})
    assert "exclude" not in propose(short).manifest
    # docsify's `_sidebar.md` is the same list of links
    sidebar = "- Start\n  - [Hooks](hooks.md)\n  - [Intro](intro.md)\n- [Backends](backends.md)\n"
    flat = {name.removeprefix("src/"): text for name, text in pages.items()}
    docsify = write_tree(tmp_path / "docsify", {"_sidebar.md": sidebar, **flat})
    proposal = propose(docsify)
    assert proposal.manifest["exclude"] == ["_sidebar.md"]
    (docsify / ".docs-mcp.json").write_text(json.dumps(proposal.manifest), encoding="utf-8")
    out = build_bundle(docsify, tmp_path / "idx2")
    assert np.fromfile(out / "page_order.bin", dtype="<u4").tolist() == [2, 0, 1]


def test_gitbook_spaces_tables_of_contents_are_excluded_and_order_their_pages(tmp_path):
    """A GitBook repository holds one SUMMARY.md per space (`developers/SUMMARY.md`, ...):
    built from its root, they were pages (32 table-of-contents chunks, the first hit for
    "build a custom component") and titled nothing."""
    toc = "# Table of contents\n\n* [Start](README.md)\n* [Custom blocks](blocks.md)\n"
    docs = write_tree(
        tmp_path / "repo",
        {
            "developers/SUMMARY.md": toc + "* [Runtime](runtime.md)\n",
            "developers/README.md": _page(),
            "developers/blocks.md": _page(),
            "developers/runtime.md": _page(),
            "guides/SUMMARY.md": "# Guides\n\nSee [one](one.md).\n",  # (summarises: a page)
            "guides/one.md": _page(),
        },
    )
    proposal = propose(docs)
    assert proposal.manifest["exclude"] == ["developers/SUMMARY.md"]
    (docs / ".docs-mcp.json").write_text(json.dumps(proposal.manifest), encoding="utf-8")
    built = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", "--json")
    assert json.loads(built.stdout)["navigation"] == (
        "navigation: developers/SUMMARY.md (titles and order of 3 pages)"
    )
    paths = pq.read_table(tmp_path / "idx" / "pages.parquet").column("path").to_pylist()
    assert paths == [
        "developers/README.md", "developers/blocks.md", "developers/runtime.md",
        "guides/SUMMARY.md", "guides/one.md",
    ]  # fmt: skip
    order = np.fromfile(tmp_path / "idx" / "page_order.bin", dtype="<u4").tolist()
    assert order == [0, 1, 2, 0xFFFFFFFF, 0xFFFFFFFF]


def test_what_mkdocs_exclude_docs_leaves_out_is_left_out(tmp_path):
    """Textual's mkdocs configuration excludes `snippets/*` and `**/_template.md` (through
    `INHERIT`): they were pages, a snippet the first hit for "border vs outline". init proposes
    the same excludes; a build without a manifest applies them and says so. Only a
    configuration inside the source roots is read."""
    site = write_tree(
        tmp_path / "site",
        {
            "mkdocs.yml": "INHERIT: common.yml\nsite_name: Shop\n",
            "common.yml": "exclude_docs: |\n  snippets/\n  **/_template.md\n  !keep.md\n  x.md\n",
            "docs/index.md": '# Home\n\n--8<-- "snippets/note.md"\n',
            "docs/snippets/note.md": "A snippet the home page shows.\n",
            "docs/widgets/_template.md": "# WIDGET\n",
            "docs/x.md": "# After a negation: not read\n",
        },
    )
    docs = site / "docs"
    assert "exclude" not in propose(docs).manifest  # (the configuration is outside the roots)
    proposal = propose(docs, (site,))
    assert proposal.manifest["exclude"] == ["**/_template.md", "**/snippets/**"]
    built = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", "--json",
                        "--source-root", site)  # fmt: skip
    summary = json.loads(built.stdout)
    assert summary["files"] == 2
    said = summary["unpublished"]
    assert "mkdocs exclude_docs: 2 pages left out, as the site's build does" in said
    pages = pq.read_table(tmp_path / "idx" / "pages.parquet").column("path").to_pylist()
    assert pages == ["index.md", "x.md"]


def test_heading_level_choice(tmp_path):
    long_h3 = "# T\n\n" + "\n\n".join(
        f"## Part {i}\n\n" + "\n\n".join(f"### Step {j}\n\n" + "word " * 700 for j in range(4))
        for i in range(3)
    )
    deep = write_tree(tmp_path / "deep", {f"p{i}.md": long_h3 for i in range(3)})
    assert propose(deep).level == "h3"
    sections = "# T\n\n" + "\n\n".join(f"## S{i}\n\n" + "word " * 600 for i in range(8))
    mid = write_tree(tmp_path / "mid", {f"p{i}.md": sections for i in range(3)})
    assert propose(mid).level == "h2"
    # FastAPI's shape: pages of ~9,000 characters in h2 sections of ~1,600: cut at h2, not
    # indexed as whole pages (the old rule took h1, 4,000 being nearer 9,000 than 1,600)
    tutorial = "# T\n\n" + "\n\n".join(f"## S{i}\n\n" + "word " * 320 for i in range(5))
    pages = write_tree(tmp_path / "pages", {f"p{i}.md": tutorial for i in range(3)})
    assert propose(pages).level == "h2"
    small = write_tree(tmp_path / "small", {f"p{i}.md": _page(20) for i in range(3)})
    proposal = propose(small)
    assert proposal.level == "h1"
    assert 4000 <= proposal.max_chunk_size <= 20000


def _provider_page(name: str, arguments: int, titles: tuple[str, ...]) -> str:
    """A page in a Terraform provider registry's shape: one resource, its sections from the
    registry's template (or other titles), an argument list ``arguments`` items long."""
    example, args, attrs, imp = titles
    items = "\n".join(
        f"- `arg_{i}` - (Optional) What argument {i} of {name} sets, and its default." * 2
        for i in range(arguments)
    )
    return (
        f"# {name} (Resource)\n\nManages a {name} of an organization. " * 3
        + f'\n\n## {example}\n\n```terraform\nresource "{name}" "x" {{}}\n```\n'
        + f"\n## {args}\n\n{items}\n\n## {attrs}\n\n- `id` - The id of the {name}.\n"
        + f"\n## {imp}\n\n```sh\nterraform import {name}.x x\n```\n"
    )


TEMPLATE = ("Example Usage", "Argument Reference", "Attributes Reference", "Import")


def test_pages_of_one_template_with_long_pages_are_cut_at_its_sections(tmp_path):
    """The github provider's shape: many short data-source pages and some resources whose
    argument lists run to 15,000 characters, all from one template. Whole (h1 / 20,000) a
    resource was one 15,020-character hit and ranked below its sections; now h2 and 8,000."""
    pages = {f"d/s{i}.md": _provider_page(f"github_small_{i}", 8, TEMPLATE) for i in range(40)}
    pages |= {f"r/l{i}.md": _provider_page(f"github_large_{i}", 60, TEMPLATE) for i in range(4)}
    proposal = propose(write_tree(tmp_path / "provider", pages))
    assert (proposal.level, proposal.max_chunk_size) == ("h2", 8000), proposal.medians
    assert proposal.template > 0.9
    assert any("follow one template" in line for line in proposal.report())
    # The same sizes under titles of their own: no template, whole pages as before.
    varied = {path: body for path, body in pages.items()}
    for i, path in enumerate(varied):
        for title in TEMPLATE:
            varied[path] = varied[path].replace(f"## {title}", f"## {title} {i}")
    proposal = propose(write_tree(tmp_path / "varied", varied))
    assert proposal.level == "h1" and not proposal.template
    # The random provider's shape: one template, every page short: whole pages still.
    short = {f"r/p{i}.md": _provider_page(f"random_{i}", 8, TEMPLATE) for i in range(20)}
    proposal = propose(write_tree(tmp_path / "short", short))
    assert proposal.level == "h1" and not proposal.template


def test_rest_and_html_sections_are_measured_as_the_builder_converts_them(tmp_path):
    """A Sphinx project's headings are underlines, not `#` lines: measured raw, each page was
    one section and init proposed h1 (Python's own docs: pages of ~45,000 characters)."""
    section = "\n\n".join("Words of a paragraph. " * 40 for _ in range(3))
    rst = "Title\n=====\n\n" + "".join(f"Part {i}\n------\n\n{section}\n\n" for i in range(6))
    html = "<html><body><h1>Title</h1>" + "".join(
        f"<h2>Part {i}</h2><p>{section}</p>" for i in range(6)
    )
    for name, files in (
        ("rst", {f"p{i}.rst": rst for i in range(3)}),
        ("html", {f"p{i}.html": html for i in range(3)}),
    ):
        proposal = propose(write_tree(tmp_path / name, files))
        assert proposal.level == "h2", (name, proposal.medians)
        assert proposal.medians["h2"] < proposal.medians["h1"]


def test_deterministic(tmp_path):
    files = {"python/a.md": _page(), "ruby/b.md": _page(), "v1/c.md": _page(), "v2/c.md": _page()}
    first = propose(write_tree(tmp_path / "a", files)).text()
    second = propose(write_tree(tmp_path / "b", dict(reversed(files.items())))).text()
    assert first == second
    assert first == json.dumps(json.loads(first), indent=2, sort_keys=True) + "\n"


def test_write_force_and_stdout(tmp_path):
    docs = write_tree(tmp_path / "docs", {"python/a.md": _page(), "typescript/a.md": _page()})
    shown = run_docsmcp("init", "--docs-dir", docs)
    proposal = json.loads(shown.stdout)
    assert "validate: ok: 2 files" in shown.stderr
    assert "language: 2 values" in shown.stderr
    assert not (docs / ".docs-mcp.json").exists()
    wrote = run_docsmcp("init", "--docs-dir", docs, "--write")
    assert json.loads((docs / ".docs-mcp.json").read_text()) == proposal
    assert "wrote" in wrote.stdout
    (docs / ".docs-mcp.json").write_text('{"version": "1"}')
    refused = run_docsmcp("init", "--docs-dir", docs, "--write", check=False)
    assert refused.returncode == 2
    assert len(refused.stderr.strip().splitlines()) == 1
    assert "--force" in refused.stderr
    assert (docs / ".docs-mcp.json").read_text() == '{"version": "1"}'
    run_docsmcp("init", "--docs-dir", docs, "--write", "--force")
    assert json.loads((docs / ".docs-mcp.json").read_text()) == proposal


def test_proposal_validates_and_builds(tmp_path):
    docs = write_tree(
        tmp_path / "docs",
        {
            "guides/start.md": _page(),
            "python/v1/a.md": _page(),
            "python/v2/a.md": _page(),
            "ts/a.md": _page(),
            "CHANGELOG.md": "# 1.0\n\nchanges\n",
        },
    )
    proposal = propose(docs)
    collected = validate_proposal(docs, proposal, workers=1)
    assert collected.problems == []
    assert len(collected.corpus.files) == 5  # the changelog is kept
    run_docsmcp("init", "--docs-dir", docs, "--write")
    bundle = build_bundle(docs, tmp_path / "idx")
    taxonomy = json.loads((bundle / "metadata.json").read_text())["taxonomy"]
    assert taxonomy["language"]["values"] == ["python", "typescript"]
    assert taxonomy["language"]["vector_collapse"] is True
    assert taxonomy["scope"]["values"] == ["global-guide", "sdk-specific"]


_NAMES = st.sampled_from(
    ["python", "ts", "dub-go", "acme-ruby", "v1", "v2", "1.x", "current", "versioned_docs",
     "docs", "version-0.5.x", "CHANGELOG.md", "node_modules", "a[b]", "x{y,z}", "*", "guides",
     "RELEASES.md", "changelog", "_build", "é", "2024"]
)  # fmt: skip


@pytest.mark.slow  # fuzz, ~2 s
@FUZZ
@given(
    paths=st.lists(st.lists(_NAMES, min_size=1, max_size=4), max_size=8),
    text=st.sampled_from(["", "# a\n", _page(5), "```\n# not\n```\n## b\n", "### c\n#"]),
)
def test_init_never_raises_on_random_trees(tmp_path_factory, paths, text):
    docs = tmp_path_factory.mktemp("fuzz")
    for parts in paths:
        path = docs.joinpath(*parts)
        name = path.name if path.suffix == ".md" else "page.md"
        target = path if path.suffix == ".md" else path / name
        if any(p.is_file() for p in target.parents if p != docs and p.exists()):
            continue
        if target.is_dir():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    proposal = propose(docs)
    manifest = json.loads(proposal.text())
    assert manifest["version"] == "1"
    collected = validate_proposal(docs, proposal, workers=1)
    # Whatever the tree, the manifest itself is never the problem.
    assert not [p for p in collected.problems if p.path == ".docs-mcp.json"]


@pytest.mark.corpus
def test_speakeasy_sdks_proposal():
    proposal = propose(corpus("speakeasy-sdks"))
    languages = set(proposal.values["language"])
    assert {"python", "typescript", "go", "php", "ruby"} <= languages
    assert set(proposal.values["product"]) >= {"dub", "mistral"}
    assert proposal.manifest["taxonomy"]["language"]["vector_collapse"] is True
    # RELEASES.md, MIGRATION.md are kept; mistral-python/AGENTS.md ("This repository is mostly
    # generated code. Before editing or approving a PR ...") is for agents working on the repo
    assert proposal.manifest["exclude"] == ["**/AGENTS.md"]
    assert proposal.changelogs == 13
    assert proposal.level == "h2"


@pytest.mark.corpus
def test_yellow_docs_proposal():
    docs = corpus("yellow-docs")
    proposal = propose(docs)
    assert set(proposal.values["version"]) == {"next", "0.5.x"}  # (its own manifest: current)
    assert proposal.level == "h2"
    collected = validate_proposal(docs, proposal)
    assert collected.problems == []
    assert set(collected.taxonomy["version"].values) == {"next", "0.5.x"}


@pytest.mark.slow  # two CLI processes, each validating the example corpus
@pytest.mark.parametrize("command", ["init", "validate"])
def test_a_reader_that_goes_away_gets_no_traceback_and_init_still_writes(
    tmp_path: Path, command: str
) -> None:
    """Issue 28: `docsmcp init --write | head` ended in a BrokenPipe traceback without writing
    the manifest. Here stdout is a pipe whose reader is already gone, so every write fails."""
    import os
    import shutil
    import subprocess
    import sys

    from conftest import EXAMPLE_DOCS

    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    (docs / ".docs-mcp.json").unlink(missing_ok=True)
    args = ["init", "--write"] if command == "init" else ["validate"]
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "docsmcp.cli", *args, "--docs-dir", str(docs)],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write)
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.returncode == 1
    if command == "init":
        assert json.loads((docs / ".docs-mcp.json").read_text())


def test_init_reads_the_source_roots_its_warning_names() -> None:
    """The includes warning tells a user to name the folder with --source-root; init took no
    such option ("unknown option --source-root"), so its validation could never agree with the
    build's. FastAPI's `{* ../../docs_src/... *}` includes, from the fixture."""
    fastapi = Path(__file__).resolve().parent / "fixtures" / "fastapi-docs"
    docs = fastapi / "docs" / "en" / "docs"
    alone = run_docsmcp("init", "--docs-dir", docs)
    assert "includes in 1 page name files that do not exist" in alone.stderr
    assert "--source-root" in alone.stderr
    rooted = run_docsmcp("init", "--docs-dir", docs, "--source-root", fastapi)
    assert "includes" not in rooted.stderr and "warning" not in rooted.stderr
    assert "validate: ok: 1 files" in rooted.stderr
    assert json.loads(rooted.stdout) == json.loads(alone.stdout)  # the same proposal


def test_sections_are_measured_where_the_chunker_splits() -> None:
    """A page that opens its sections with `###` (Starlette) splits at them under h2, as the
    chunker does (chunking/levels.py): init's sizes are the chunks' sizes."""
    body = "intro\n### A\n" + "a" * 50 + "\n#### A1\nx\n### B\n" + "b" * 30 + "\n"
    assert [size > 0 for size in sections(body, 2)] == [True] * 3
    assert len(sections(body, 3)) == 4
    assert len(sections("# T\n## S\ns\n### D\nd\n", 2)) == 2


def test_a_docusaurus_sites_static_files_are_no_pages(tmp_path):
    """Ionic keeps 8,927 code fragments under `static/usage/` (imported into pages as props):
    they were pages, 81% of the chunks, and the first hits. Docusaurus copies `static/` as is."""
    docs = write_tree(
        tmp_path / "site",
        {
            "docusaurus.config.js": "module.exports = {title: 'Ionic'};\n",
            "docs/api/modal.md": _page(),
            "static/usage/v9/modal/javascript.md": "```html\n<ion-modal></ion-modal>\n```\n",
        },
    )
    assert propose(docs).manifest["exclude"] == ["static/**"]
    built = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", "--json")
    summary = json.loads(built.stdout)
    assert summary["files"] == 1
    assert summary["unpublished"].startswith(
        "what the Docusaurus site does not publish: 1 pages left out"
    )


def test_markdown_a_docusaurus_site_does_not_publish_is_no_page(tmp_path):
    """Agenta's docs folder holds 600 pages of design notes, plans and drafts beside the 800
    its site publishes, and they outranked them; tRPC's `README.md` says "This website is built
    using Docusaurus". A site renders its content folders only: the docs plugins' `path`s (a
    version's `path` is a URL), versions, blog and `src/pages`."""
    config = (
        "module.exports = {presets: [['classic', {docs: {\n"
        "  path: 'guides',\n"
        "  versions: {current: {label: 'v2', path: ''}, '1.0': {path: '1.0'}},\n"
        "}}]]};\n"
    )
    files = {
        "docusaurus.config.js": config,
        "README.md": "# Website\n\nThis website is built using Docusaurus.\n",
        "guides/intro.md": _page(),
        "guides/tools/README.md": _page(),  # a page of the docs, whatever its name
        "versioned_docs/version-1.0/intro.md": _page(),
        "blog/2024-01-01-launch.md": _page(),
        "src/pages/pricing.md": _page(),
        "src/components/Notes.md": "# Notes\n\nFor the component's authors.\n",
        "design/evaluators.md": "# Evaluators design\n\nInternal notes.\n",
    }
    docs = write_tree(tmp_path / "site", files)
    proposed = propose(docs).manifest["exclude"]
    assert proposed == ["/README.md", "design/**", "src/components/**"]
    built = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", "--json")
    summary = json.loads(built.stdout)
    assert summary["files"] == 5
    assert summary["unpublished"].startswith(
        "what the Docusaurus site does not publish: 3 pages left out"
    )
    # A path written as code: what is published is not known, nothing is left out.
    (docs / "docusaurus.config.js").write_text(config.replace("'guides'", "docsPath"))
    assert "exclude" not in propose(docs).manifest


def test_a_docusaurus_site_inside_the_docs_folder_keeps_what_lies_beside_it(tmp_path):
    """Jest's docs folder is its repository: the site in `website/` publishes `../docs`, and
    the packages' READMEs beside it are the user's to keep; the site's own README is not."""
    docs = write_tree(
        tmp_path / "repo",
        {
            "website/docusaurus.config.js": "module.exports = {docs: {path: '../docs'}};\n",
            "website/README.md": "# Website\n\nBuilt with Docusaurus.\n",
            "website/versioned_docs/version-29.7/intro.md": _page(),
            "docs/intro.md": _page(),
            "packages/jest-mock/README.md": _page(),
        },
    )
    assert propose(docs).manifest["exclude"] == ["website/README.md"]
