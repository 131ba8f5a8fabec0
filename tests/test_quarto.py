"""Quarto projects (sources/sites/quarto.py): `.qmd` pages are markdown, `{{< include >}}` inserts a
file, callouts read as their label (a first heading as their title), other fenced divs leave
nothing, `_` files are no pages. Quarto's own docs (545 `.qmd` pages) gave an empty bundle."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import run_docsmcp, write_tree
from docsmcp.commands.init import propose

PROJECT = {
    "_quarto.yml": "project:\n  type: website\nwebsite:\n  sidebar:\n    - title: Guide\n"
    "      contents:\n        - docs/figures.qmd\n        - section: Authoring\n"
    "          contents:\n            - href: docs/guide/callouts.qmd\n"
    "              text: Callout blocks\n",
    "docs/_common.qmd": "Shared words from `_common.qmd`.\n",
    "docs/_parts/deep.md": "Deep words.\n",
    "docs/guide/callouts.qmd": (
        "---\ntitle: Callouts\n---\n\n## Syntax\n\n{{< include ../_common.qmd >}}\n\n"
        "{{< include /docs/_parts/deep.md >}}\n\n"
        "::: {.callout-tip}\n## Tip with Title\n\nA tip's body.\n:::\n\n"
        '::: {.callout-warning title="Careful"}\nA warning.\n:::\n\n'
        '::: {.panel-tabset group="language"}\n\n```{python}\n#| label: demo\nprint(1)\n```\n\n'
        "```{python}\n#| echo: false\nprint('hidden')\n```\n\n"
        ":::\n\nSee [figures](../figures.qmd).\n"
    ),
    "docs/figures.qmd": "---\ntitle: Figures\n---\n\n## Cross references\n\nUse `@fig-x`.\n"
    "In {{< meta tool.name >}}, press {{< kbd Ctrl-Shift-K >}}.\n",
    "docs/_metadata.yml": "tool:\n  name: Positron\n",
}


def test_a_quarto_project_builds_as_its_site_shows(tmp_path: Path) -> None:
    site = write_tree(tmp_path / "site", PROJECT)
    proc = run_docsmcp("build", "--docs-dir", site, "--out", tmp_path / "idx", "--json")
    summary = json.loads(proc.stdout)
    assert summary["files"] == 2
    assert summary["unpublished"] == (
        "Quarto's `_` files: 2 pages left out, as the site's build does (docs/_common.qmd, "
        "docs/_parts/deep.md); a manifest decides instead"
    )
    assert summary["references"]["found"] == summary["references"]["resolved"] == 1
    # the sidebar's order and titles (navfiles.py)
    assert summary["navigation"] == "navigation: _quarto.yml (titles and order of 2 pages)"
    rows = pq.read_table(tmp_path / "idx" / "chunks.parquet").to_pylist()
    (guide,) = [r for r in rows if r["path"] == "docs/guide/callouts.qmd"]
    text = guide["text"]
    assert guide["heading"] == "Syntax"  # the callout's heading is its title, no section
    for shown in (
        "Shared words from `_common.qmd`.",  # relative to the page
        "Deep words.",  # `/docs/…`: from the project's folder (where _quarto.yml is)
        "Tip: Tip with Title\n\n\nA tip's body.",  # (the heading's line is blank)
        "Warning: Careful\nA warning.",
        "```python\nprint(1)\n```",  # a chunk's `#|` options are no code (rmarkdown.knit)
    ):
        assert shown in text, shown
    assert "hidden" not in text and "#|" not in text  # `echo: false` shows no code
    assert ":::" not in text and "{{<" not in text
    code = pq.read_table(tmp_path / "idx" / "code.parquet").to_pylist()
    assert [c["language"] for c in code] == ["python"]
    assert propose(site).manifest["exclude"] == ["**/_*", "**/_*/**"]
    # `{{< meta >}}` from the folder's `_metadata.yml`, `{{< kbd >}}` its keys
    (figures,) = [r for r in rows if r["path"] == "docs/figures.qmd"]
    assert "In Positron, press Ctrl-Shift-K." in figures["text"]
