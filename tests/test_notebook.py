"""Jupyter notebooks read as the page a docs site renders (formats/notebook.py): markdown cells
as written, code cells fenced in the notebook's language, outputs and raw cells left out, lines
mapped to the cells of the file; a file that is not a notebook is an empty page and a warning."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FUZZ, build_bundle, run_docsmcp, write_tree
from docsmcp.sources.formats.notebook import notebook_to_markdown
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

NOTEBOOK = {
    "nbformat": 4,
    "nbformat_minor": 5,
    "metadata": {"kernelspec": {"name": "python3", "language": "python"}},
    "cells": [
        {
            "cell_type": "markdown",
            "metadata": {},
            "source": ["# Agents with memory\n", "\n", "Give the agent a checkpointer.\n"],
        },  # fmt: skip
        {
            "cell_type": "code",
            "metadata": {},
            "execution_count": 1,
            "source": ["from graph import MemorySaver\n", "saver = MemorySaver()"],
            "outputs": [{"output_type": "stream", "name": "stdout", "text": ["OUTPUT NOISE\n"]}],
        },
        {"cell_type": "raw", "metadata": {}, "source": ["RAW EXPORTER TEXT"]},
        {
            "cell_type": "markdown",
            "metadata": {},
            "source": "## Resume a thread\n\nPass the thread id.",
        },
        {"cell_type": "code", "metadata": {}, "source": 'md = """\n```\n"""', "outputs": []},
    ],
}


def test_a_notebook_reads_as_its_cells(tmp_path: Path) -> None:
    raw = json.dumps(NOTEBOOK, indent=1)
    page = notebook_to_markdown("memory.ipynb", raw)
    assert page.text == (
        "# Agents with memory\n\nGive the agent a checkpointer.\n\n"
        "```python\nfrom graph import MemorySaver\nsaver = MemorySaver()\n```\n\n"
        "## Resume a thread\n\nPass the thread id.\n\n"
        '````python\nmd = """\n```\n"""\n````'  # a longer fence than the code's own
    )
    assert len(page.line_map) == page.text.count("\n") + 1
    lines = raw.split("\n")
    heading = page.text.split("\n").index("## Resume a thread")
    assert '"cell_type": "markdown"' in lines[page.line_map[heading]]  # the cell's own line


def test_a_folder_of_notebooks_builds_and_answers(tmp_path: Path) -> None:
    docs = write_tree(
        tmp_path / "docs",
        {"how-tos/memory.ipynb": json.dumps(NOTEBOOK, indent=1), "broken.ipynb": "{not json"},
    )
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx")
    assert "broken.ipynb: not a Jupyter notebook (no cells): left empty" in proc.stderr
    with McpSession(tmp_path / "idx") as s:
        hit = s.search(query="resume a thread", limit=1)["hits"][0]
        assert hit["chunk_id"] == "how-tos/memory.ipynb#agents-with-memory/resume-a-thread"
        assert s.search(query="OUTPUT NOISE", limit=3)["hits"] == []
        doc = s.get_doc("how-tos/memory.ipynb#agents-with-memory")
        assert "saver = MemorySaver()" in doc and "RAW EXPORTER" not in doc


def test_init_counts_notebooks_as_pages(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", {"a.ipynb": json.dumps(NOTEBOOK)})
    out = build_bundle(docs, tmp_path / "idx")
    assert (out / "metadata.json").is_file()
    proc = run_docsmcp("init", "--docs-dir", docs)
    assert "1 files" in proc.stdout + proc.stderr or "1 file" in proc.stdout + proc.stderr


_CELL = st.fixed_dictionaries(
    {
        "cell_type": st.sampled_from(["markdown", "code", "raw", 3, None]),
        "source": st.one_of(
            st.text(max_size=60), st.lists(st.text(max_size=20), max_size=4), st.integers()
        ),
    }
)


@FUZZ
@given(
    cells=st.one_of(st.lists(_CELL, max_size=6), st.integers(), st.text(max_size=10)),
    metadata=st.one_of(
        st.none(), st.just({"kernelspec": {"language": "R"}}), st.just({"kernelspec": 3})
    ),
)
def test_any_json_converts_without_error(cells, metadata) -> None:
    raw = json.dumps({"cells": cells, "metadata": metadata})
    page = notebook_to_markdown("x.ipynb", raw)
    assert len(page.line_map) == page.text.count("\n") + 1
