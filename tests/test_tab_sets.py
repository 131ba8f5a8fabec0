"""Tab sets whose labels live in the set's tag (Nextra's and Fumadocs' `<Tabs items={[...]}>`,
by position), their indented bodies, and which sets are a choice of programming language
(formats/dialects.py, formats/tab_languages.py): real builds of pages written in each site's
shape."""

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
