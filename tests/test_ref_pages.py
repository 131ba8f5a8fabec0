"""TanStack's documentation (sources/sites/ref_pages.py): a framework's page whose front matter
names another page (`ref:`) shows that page's text, with its `replace:` mapping applied and the
parts between `[//]: # 'Name'` markers replaced by its own. Before, 156 of TanStack Query's 496
pages (the Vue, Solid, Svelte, Angular, Preact and Lit guides) showed their examples and no
prose."""

from __future__ import annotations

import json
import time

from conftest import build_bundle, bundle_differences, page_texts, run_docsmcp, write_tree
from docsmcp.pipeline.known_files import RACY_NS
from docsmcp.sources.sites.ref_pages import shown_text

_REACT = (
    "---\nid: queries\ntitle: Queries\n---\n\n## Query Basics\n\n"
    "A query is a declarative dependency on an asynchronous source of data.\n\n"
    "[//]: # 'Example'\n\n```tsx\nimport { useQuery } from '@tanstack/react-query'\n```\n\n"
    "[//]: # 'Example'\n\nThe **unique key** you provide is used for refetching in React.\n\n"
    "[//]: # 'Materials'\n\n## Further reading\n\nRead the React article.\n\n"
    "[//]: # 'Materials'\n"
)
_VUE = (
    "---\nid: queries\ntitle: Queries\nref: docs/framework/react/guides/queries.md\n"
    "replace: { 'React': 'Vue' }\n---\n\n"
    "[//]: # 'Example'\n\n```ts\nimport { useQuery } from '@tanstack/vue-query'\n```\n\n"
    "[//]: # 'Example'\n[//]: # 'Materials'\n[//]: # 'Materials'\n"
)


def test_a_page_naming_another_shows_its_text_with_its_own_parts(tmp_path) -> None:
    docs = write_tree(
        tmp_path / "docs",
        {
            "framework/react/guides/queries.md": _REACT,
            "framework/vue/guides/queries.md": _VUE,
            "framework/solid/guides/queries.md": _VUE.replace("react/guides/queries", "nothing"),
        },
    )
    texts = page_texts(build_bundle(docs, tmp_path / "idx"))
    vue = texts["framework/vue/guides/queries.md"]
    react = texts["framework/react/guides/queries.md"]
    assert "declarative dependency" in vue and "used for refetching in Vue" in vue
    assert "@tanstack/vue-query" in vue and "react-query" not in vue
    assert "Further reading" not in vue  # (its own Materials part is empty)
    assert "[//]" not in vue and "[//]" not in react
    assert "@tanstack/react-query" in react and "Further reading" in react
    # A ref naming no page leaves the page as written: its own examples only.
    solid = texts["framework/solid/guides/queries.md"]
    assert "vue-query" in solid and "declarative dependency" not in solid


def test_shown_text_pairs_markers_and_keeps_unnamed_parts() -> None:
    named = "a\n[//]: # 'X'\nx\n[//]: # 'X'\nb\n[//]: # 'Y'\ny\n[//]: # 'Y'\nc React"
    own = "[//]: # 'Y'\nmine\n[//]: # 'Y'\n"
    assert shown_text(named, own, [("React", "Vue")]) == "a\n\nx\n\nb\n\nmine\n\nc Vue"
    assert shown_text("no markers", own, []) == "no markers"
    # A key is text, not a pattern.
    assert shown_text("a.b axb", "", [("a.b", "z")]) == "z axb"


def test_rebuilds_show_what_a_clean_build_shows(tmp_path) -> None:
    """A page another page shows is read again on every build (known_files.py takes an
    unchanged file without its text)."""
    react = "framework/react/guides/queries.md"
    docs = write_tree(tmp_path / "docs", {react: _REACT, "other.md": "# Other\n\nText.\n"})
    out = tmp_path / "idx"

    def build() -> dict:
        return json.loads(run_docsmcp("build", "--docs-dir", docs, "--out", out, "--json").stdout)

    build()
    time.sleep(RACY_NS / 1e9 + 0.2)  # files written moments ago are read again: not recorded
    build()
    assert build()["unread_files"] == 2
    vue = "framework/vue/guides/queries.md"
    (docs / vue).parent.mkdir(parents=True)
    (docs / vue).write_text(_VUE, encoding="utf-8")
    build()
    assert "declarative dependency" in page_texts(out)[vue]
    assert bundle_differences(out, build_bundle(docs, tmp_path / "clean", "--no-cache")) == []
    time.sleep(RACY_NS / 1e9 + 0.2)
    build()
    assert build()["unread_files"] == 1  # other.md: the React page is shown by another page
    assert bundle_differences(out, build_bundle(docs, tmp_path / "clean2", "--no-cache")) == []
