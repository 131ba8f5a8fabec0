"""Hugo's include shortcode (sources/inclusion/hugo_includes.py) and the pages a Hugo site never
renders (sources/sites/hugo_site.py). OpenTelemetry's docs (Hugo + Docsy) write `{{% include
"span-status-preamble.md" %}}` (44 in its docs folder), found in the nearest `_includes/` folder
up the page's sections: the included text was lost, and the 16 fragments, which the site's
configuration never renders (a `cascade` of `build: {render: never}` targeting
`{,/**}/_includes{,/**}`), were pages of their own."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import run_docsmcp, write_tree
from docsmcp.commands.init import propose

SITE = {
    "config/_default/hugo.yaml": (
        "title: Tracing\ncascade:\n"
        "  - build: { list: never, publishResources: false, render: never }\n"
        "    target: { path: '{,/**}/_includes{,/**}' }\n"
        "  - outputs: [HTML, RSS]\n    target: { kind: home }\n"
    ),
    "layouts/_shortcodes/include.html": '{{ partial "include" (dict "_path" (.Get 0)) }}\n',
    "content/en/_includes/banner.md": "Words from the site's top fragment.\n",
    "content/en/docs/_index.md": "---\ntitle: Docs\n---\n\nThe docs.\n",
    "content/en/docs/_includes/exporters/outro.md": (
        "---\n---\n\n## Writing your own\n\nSee the [exporter interface]({{ $1 }}).\n\n"
        "{{ if $extra }}\nOnly with extra.\n{{ end }}\n{{ if not $extra }}\nOnly without.\n"
        "{{ end }}\n"
    ),
    "content/en/docs/languages/_includes/status.md": (
        "Span status words.\n\n{{% include nested.md %}}\n"
    ),
    "content/en/docs/languages/_includes/nested.md": "Nested fragment words.\n",
    "content/en/docs/languages/go/traces.md": (
        '---\ntitle: Go traces\n---\n\n## Status\n\n{{% include "status.md" %}}\n\n'
        "## Export\n\n"
        '{{% include "exporters/outro.md" `https://pkg.example/SpanExporter` extra=true %}}\n\n'
        '## More\n\n{{< include "/_includes/banner" >}}\n\n{{% include missing.md %}}\n'
    ),
}


def test_hugo_includes_resolve_and_fragments_are_no_pages(tmp_path: Path) -> None:
    site = write_tree(tmp_path / "site", SITE)
    docs = site / "content" / "en" / "docs"
    proc = run_docsmcp(
        "build", "--docs-dir", docs, "--source-root", site, "--out", tmp_path / "idx", "--json"
    )
    summary = json.loads(proc.stdout)
    assert summary["files"] == 2  # the section page and traces.md: no fragment
    assert summary["unpublished"] == (
        "Hugo's headless pages (`build: {render: never, list: never}`): 3 pages left out, as "
        "the site's build does "
        "(_includes/exporters/outro.md, languages/_includes/nested.md, "
        "languages/_includes/status.md); a manifest decides instead"
    )
    assert "missing.md" in proc.stderr  # the one include not found is named
    rows = pq.read_table(tmp_path / "idx" / "chunks.parquet").to_pylist()
    text = "\n".join(r["text"] for r in rows if r["path"] == "languages/go/traces.md")
    for shown in (
        "Span status words.",  # `_includes/` of the page's parent section
        "Nested fragment words.",  # an include of the included file, from its own folder
        "## Writing your own",  # `_includes/` of the docs' top section; its front matter gone
        "[exporter interface](https://pkg.example/SpanExporter)",  # `{{ $1 }}`
        "Only with extra.",
        "Words from the site's top fragment.",  # `/`: from the content root, `.md` added
    ):
        assert shown in text, shown
    assert "Only without." not in text and "{{" not in text
    assert propose(docs, (site,)).manifest["exclude"] == ["**/_includes"]


def test_without_the_site_configuration_fragments_stay_pages(tmp_path: Path) -> None:
    """The configuration is read only inside the source roots (what decides what is built):
    the docs folder alone keeps its fragments as pages, says which --source-root reads it, and
    still resolves its includes."""
    site = write_tree(tmp_path / "site", SITE)
    docs = site / "content" / "en" / "docs"
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", "--json")
    summary = json.loads(proc.stdout)
    assert summary["files"] == 5
    config = site / "config" / "_default" / "hugo.yaml"
    assert summary["unpublished"] == (
        f"{config} leaves pages out of the site (`build: {{render: never}}`); it is outside the "
        f"source roots: add --source-root {site}"
    )
    rows = pq.read_table(tmp_path / "idx" / "chunks.parquet").to_pylist()
    text = "\n".join(r["text"] for r in rows if r["path"] == "languages/go/traces.md")
    assert "Span status words." in text and "Nested fragment words." in text


HUGO_DOCS = {
    "hugo.toml": "title = 'Hugo'\n",
    "layouts/_shortcodes/include.html": "{{ with or ($.Page.GetPage .) (site.GetPage .) }}\n",
    "content/en/_common/_index.md": (
        "---\ncascade:\n  build:\n    list: never\n    publishResources: false\n"
        "    render: never\n---\n\n<!-- Markdown snippets, included by the include shortcode. -->\n"
    ),
    "content/en/_common/glob-patterns.md": "---\n---\n\nA glob pattern matches paths.\n",
    "content/en/functions/_common/options.md": "---\n---\n\nOptions of the function.\n",
    "content/en/functions/_common/_index.md": (
        "---\ncascade:\n  - build: {list: never, render: never}\n---\n"
    ),
    "content/en/functions/urls/Ref.md": (
        "---\ntitle: urls.Ref\n---\n\n## Options\n\n"
        '{{% include "functions/_common/options.md" %}}\n\n'
        '{{% include "/_common/glob-patterns.md" %}}\n'
    ),
    "content/en/glossary/_index.md": (
        "---\ntitle: Glossary\ncascade:\n  build:\n    render: never\n    list: local\n---\n\n"
        "{{% glossary %}}\n"
    ),
    "content/en/glossary/float.md": "---\ntitle: float\n---\n\nA number with a fraction.\n",
}


def test_hugo_docs_sections_make_their_pages_headless(tmp_path: Path) -> None:
    """Hugo's own docs: `{{% include "/_common/x.md" %}}` from the content root, and
    `_common/_index.md` whose front matter cascades `build: {render: never, list: never}` to
    the snippets below it (without the site's configuration: the docs folder alone). The
    glossary's terms, never rendered but listed on the glossary's page, stay pages."""
    site = write_tree(tmp_path / "site", HUGO_DOCS)
    docs = site / "content" / "en"
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", "--json")
    summary = json.loads(proc.stdout)
    assert summary["unpublished"] == (
        "Hugo's headless pages (`build: {render: never, list: never}`): 4 pages left out, as "
        "the site's build does (_common/_index.md, _common/glob-patterns.md, "
        "functions/_common/_index.md, ...); a manifest decides instead"
    )
    rows = pq.read_table(tmp_path / "idx" / "chunks.parquet").to_pylist()
    assert {r["path"] for r in rows} == {"functions/urls/Ref.md", "glossary/float.md"}
    text = "\n".join(r["text"] for r in rows if r["path"] == "functions/urls/Ref.md")
    assert "Options of the function." in text and "A glob pattern matches paths." in text
    assert propose(docs).manifest["exclude"] == ["_common/**", "functions/_common/**"]
