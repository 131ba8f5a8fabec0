"""React Router's mode badges (reactrouter.com, formats/markdown/mode_badges.py): `[MODES:
framework, data]` under an API page's title is drawn as the icons of the modes it works in. It
reads as `Modes: framework, data`, and a title whose section holds only it (and the generator's
hidden comment) is no chunk of its own: 112 of the site's 892 chunks were such a stub, and
"useFetcher" ranked one first."""

from __future__ import annotations

from pathlib import Path

from docsmcp.chunking.chunk import chunk_file
from docsmcp.sources.corpus import load_corpus
from docsmcp.sources.formats.markdown.dialects import rewrite

API_PAGE = """---
title: useThing
---

# useThing

<!--
This file is auto-generated from the JSDoc comments in the source.
-->

[MODES: framework ,data]

## Summary

Returns the thing of the current route.

## Signature

```tsx
useThing(): Thing
// [MODES: framework] stays as written in code
```
"""

GUIDE = """# Pending UI

[MODES: framework]

When a form submits, show a pending state.

## Global pending navigation

Use `useNavigation`.
"""


def _chunks(tmp_path: Path, name: str, text: str) -> dict[str, str]:
    (tmp_path / name).write_text(text, encoding="utf-8")
    (source,) = load_corpus(tmp_path).files
    return {c.id: c.text for c in chunk_file(source)}


def test_a_title_over_mode_badges_alone_is_the_title_of_its_first_section(tmp_path: Path) -> None:
    chunks = _chunks(tmp_path, "useThing.md", API_PAGE)
    assert list(chunks) == ["useThing.md#usething/summary", "useThing.md#usething/signature"]
    summary = chunks["useThing.md#usething/summary"]
    assert summary.startswith("# useThing\n") and "[MODES" not in summary
    assert "Modes: framework, data\n\n## Summary\n\nReturns the thing" in summary
    assert (
        "// [MODES: framework] stays as written in code" in chunks["useThing.md#usething/signature"]
    )


def test_a_section_with_text_beside_its_badges_stays_a_chunk(tmp_path: Path) -> None:
    chunks = _chunks(tmp_path, "pending-ui.md", GUIDE)
    assert list(chunks) == [
        "pending-ui.md#pending-ui",
        "pending-ui.md#pending-ui/global-pending-navigation",
    ]
    assert chunks["pending-ui.md#pending-ui"].startswith(
        "# Pending UI\n\nModes: framework\n\nWhen a form submits, show a pending state."
    )


def test_badges_keep_the_lines() -> None:
    lines = API_PAGE.split("\n")
    out = rewrite(lines)
    assert len(out.display) == len(lines)
    assert out.display[10] == "Modes: framework, data"
