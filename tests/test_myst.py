"""MyST markdown (Sphinx projects, Jupyter Book) read as its reader sees it
(sources/formats/markdown/myst.py): MyST-Parser's own docs showed 189 `:::{...}` fences, 39 roles
and 13 `(label)=` targets in get_doc text, and admonition bodies as code blocks."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ
from docsmcp.chunking.chunk import chunk_file
from docsmcp.sources.corpus import load_corpus
from docsmcp.sources.formats.markdown.myst import rewrite_myst
from hypothesis import given
from hypothesis import strategies as st

PAGE = """\
(install)=
# Install

```{note}
:class: tip
Run {py:func}`~pkg.setup` first (see {ref}`the guide <guide>`).
```

::::{admonition} Careful now
:::{versionadded} 1.2
Added.
:::
::::

```{code-block} python
:linenos:
print("hello")
```

```{toctree}
:maxdepth: 2
intro
```

````md
```{note}
An example, as code.
```
````

```{figure} img.png
---
width: 200px
---
The caption.
```
The `{ref}` role, `P::{self}` and `https://{domain}/x` stay as written.
"""


def test_directives_roles_and_targets_read_as_plain_markdown() -> None:
    lines = PAGE.split("\n")
    out = rewrite_myst(lines)
    assert len(out) == len(lines)  # the file's numbering stays
    assert out[:9] == [
        "", "# Install", "", "Note", "",
        "Run pkg.setup first (see the guide).", "", "", "Careful now",
    ]  # fmt: skip
    assert out[9:13] == ["New in version 1.2", "Added.", "", ""]
    assert out[14:18] == ["", "```python", 'print("hello")', "```"]  # options gone, code kept
    assert out[19:23] == ["", "", "", ""]  # toctree: nothing
    assert out[24:29] == lines[24:29]  # fenced code holding directive syntax is code
    assert [x for x in out[30:36] if x] == ["The caption."]
    assert out[36] == lines[36]


def test_a_myst_page_chunks_into_readable_text(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "install.md").write_text(PAGE, encoding="utf-8")
    corpus = load_corpus(docs)
    (chunk,) = chunk_file(corpus.files[0])
    assert chunk.heading == "Install" and chunk.id == "install.md#install"
    for leak in (":::{", "{py:func}", "{ref}`the", "(install)=", ":class:", ":linenos:"):
        assert leak not in chunk.text, leak
    assert chunk.text.count("```{") == 1  # the example, in its code block
    assert "Note\n\nRun pkg.setup first (see the guide)." in chunk.text
    assert '```python\nprint("hello")\n```' in chunk.text


def test_markdown_without_myst_is_left_alone() -> None:
    lines = ["Use `obj.{key}` and `f({a})`.", "x = (1)=2", "```{r}", "plot(x)", "```"]
    out = rewrite_myst(lines)
    assert out[:2] == lines[:2]
    assert out[2:] == ["```r", "plot(x)", "```"]  # R Markdown and Quarto code chunks


def test_doctests_stay_code() -> None:
    """Sphinx's doctest directive (attrs' docs): its `>>>` lines are code, not prose."""
    lines = ["```{doctest}", ">>> f(1)", "2", "```", "```{testcode}", "f(1)", "```"]
    assert rewrite_myst(lines) == ["```pycon", ">>> f(1)", "2", "```", "```python", "f(1)", "```"]


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            [
                "```{note}",
                ":::{tip}",
                "::::{admonition} T",
                "```",
                ":::",
                "::::",
                "````",
                "```{code-block} py",
                ":class: x",
                "---",
                "(a)=",
                "{ref}`x <y>`",
                "text",
                "",
                "```python",
                "~~~",
                "# H",
            ]
        ),  # fmt: skip
        max_size=30,
    )
)
def test_rewrite_never_raises_and_keeps_the_numbering(lines: list[str]) -> None:
    out = rewrite_myst(lines)
    assert len(out) == len(lines)


def test_icon_roles_leave_nothing_and_card_titles_keep_their_roles_read() -> None:
    """sphinx-design's cards: `::::{grid-item-card} {octicon}`table` Grids` kept the role as
    written in the card's title; an icon role draws a picture, no word."""
    lines = [
        "::::{grid-item-card} {octicon}`table` Grids",
        "Arrange content in a grid {fa}`star`, see {ref}`the grids page <grids>`.",
        "::::",
    ]
    out = rewrite_myst(lines)
    assert out[0] == "Grids"
    assert out[1] == "Arrange content in a grid , see the grids page."


def test_a_sites_own_directive_holding_a_shell_session_is_code() -> None:
    """pip's `{pip-cli}` blocks (26) hold `$ pip install …` sessions: read as prose, their
    commands were no code examples; a label with spaces, `(vcs support)=`, was left as text."""
    lines = ["```{pip-cli}", "$ pip install x", "[...]", "```", "", "(vcs support)=", "# VCS"]
    lines += ["", "```{figure} a.png", ":alt: A", "", "Caption", "```"]
    assert rewrite_myst(lines) == [
        "```console", "$ pip install x", "[...]", "```", "", "", "# VCS",
        "", "", "", "", "Caption", "",
    ]  # fmt: skip
