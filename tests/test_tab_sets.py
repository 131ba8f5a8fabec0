"""Tab sets whose labels live in the set's tag (Nextra's and Fumadocs' `<Tabs items={[...]}>`, by
position), their indented bodies, and which sets are a choice of programming language
(formats/markdown/dialects.py, formats/markdown/tab_languages.py): real builds of pages written
in each site's shape."""

from __future__ import annotations

from pathlib import Path

from docsmcp.chunking.chunk import chunk_file
from docsmcp.sources.corpus import load_corpus

NEXTRA = """# Install

Pick your package manager:

<Tabs items={['npm', 'yarn', "pnpm"]}>
  <Tabs.Tab>
    ```sh
    npm i nextra
    ```
  </Tabs.Tab>
  <Tabs.Tab>
    ```sh
    yarn add nextra
    ```
  </Tabs.Tab>
  <Tabs.Tab>Run `pnpm add nextra`.</Tabs.Tab>
</Tabs>

Then start the server.
"""


def _chunks(tmp_path: Path, name: str, text: str) -> list:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / name).write_text(text, encoding="utf-8")
    corpus = load_corpus(docs)
    assert not corpus.problems, corpus.problems
    (sf,) = [f for f in corpus.files if f.path == name]
    return chunk_file(sf)


def test_nextra_tabs_take_their_labels_from_the_sets_items(tmp_path: Path) -> None:
    """`<Tabs.Tab>` bodies had no label (npm, yarn and pnpm commands read as one list of three
    commands), and a fence indented in a tab read as paragraph text."""
    (chunk,) = _chunks(tmp_path, "install.mdx", NEXTRA)
    assert "npm\n```sh\nnpm i nextra\n```\n" in chunk.text
    assert "yarn\n```sh\nyarn add nextra\n```\n" in chunk.text
    assert "pnpm: Run `pnpm add nextra`." in chunk.text
    assert "Tabs" not in chunk.text and "items=" not in chunk.text
    assert dict(chunk.metadata) == {"role": "guide"}  # (package managers are no languages)


DEMO = """# Tabs

Use it in your MDX content:

```mdx
<Tabs items={['Javascript', 'Rust']}>
  <Tab value="Javascript">Javascript is weird</Tab>
  <Tab value="Rust">Rust is fast</Tab>
</Tabs>
```

<Tabs items={['Javascript', 'Rust']}>
  <Tab value="Javascript">Javascript is weird</Tab>
  <Tab value="Rust">Rust is fast</Tab>
</Tabs>

## Themes

<Tabs items={['neutral', 'black', 'ocean', 'ruby']}>
  <Tab value="neutral">A grey theme.</Tab>
  <Tab value="black">A dark theme.</Tab>
  <Tab value="ocean">A blue theme.</Tab>
  <Tab value="ruby">A red theme.</Tab>
</Tabs>

## Clients

<Tabs items={['Python', 'Go']}>
  <Tab value="Python">Run `pip install acme`.</Tab>
  <Tab value="Go">Run `go get acme.dev/acme`.</Tab>
</Tabs>
"""


def test_demo_and_theme_tabs_are_no_languages(tmp_path: Path) -> None:
    """Fumadocs' page on its `<Tabs>` renders the sample it shows (tabs named Javascript and
    Rust, each a sentence), and its themes page has a tab called `ruby`: they gave language
    chunks (`javascript`, `rust`, `ruby`) to the language facet. A set is a choice of language
    when half its tabs or more name one and it is no live copy of a sample the page shows."""
    chunks = {c.id: c for c in _chunks(tmp_path, "tabs.mdx", DEMO)}
    languages = {c.id: dict(c.metadata).get("language") for c in chunks.values()}
    assert {i: lang for i, lang in languages.items() if lang} == {
        "tabs.mdx#tabs/clients/python": "python",
        "tabs.mdx#tabs/clients/go": "go",
    }
    assert "Javascript: Javascript is weird\nRust: Rust is fast" in chunks["tabs.mdx#tabs"].text
    assert "ruby: A red theme." in chunks["tabs.mdx#tabs/themes"].text
