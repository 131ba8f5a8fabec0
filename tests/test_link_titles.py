"""References written without a title show what Sphinx shows (formats/markdown/link_titles.py): the
heading a label marks, the title of the page a `:doc:` names; also from MyST pages, and after a
rebuild that changed only the other page's title."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pyarrow.parquet as pq
from conftest import build_bundle, bundle_differences, run_docsmcp, write_tree
from docsmcp.model.source import SourceFile, Strategy
from docsmcp.pipeline.known_files import RACY_NS
from docsmcp.sources.formats.markdown.link_titles import defined

PAGES = {
    "index.rst": (
        "Welcome\n=======\n\n"
        "See :ref:`tut-functions` and :doc:`library/os`, also :doc:`/library/os` and "
        ":ref:`Custom <tut-functions>`.\n"
        "Unknown :ref:`no-such-label` stays. The MyST page: :doc:`guide`.\n"
    ),
    "tutorial.rst": (
        "########\nTutorial\n########\n\n.. _tut-functions:\n\nDefining ``Functions``\n"
        "----------------------\n\nBody. Back to :ref:`tut-functions`.\n"
    ),
    "library/os.rst": (
        ":mod:`!os` --- Operating system interfaces\n"
        "===========================================\n\nText of :doc:`../index`.\n"
    ),
    "guide.md": (
        "# The MyST guide\n\n(my-label)=\n## Labelled *section*\n\n"
        "See {ref}`tut-functions`, {doc}`library/os` and {ref}`my-label`.\n"
    ),
}


def _texts(bundle: Path) -> dict[str, str]:
    rows = pq.read_table(bundle / "chunks.parquet", columns=["path", "text"]).to_pylist()
    texts: dict[str, str] = {}
    for row in rows:
        texts[row["path"]] = texts.get(row["path"], "") + row["text"]
    return texts


def test_references_show_the_titles_sphinx_shows(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", PAGES)
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "b")
    texts = _texts(tmp_path / "b")
    index = texts["index.rst"]
    assert "[Defining Functions](#tut-functions)" in index
    assert index.count("[os --- Operating system interfaces](library/os.rst)") == 2
    assert "[Custom](#tut-functions)" in index  # an explicit title wins
    assert "[no such label](#no-such-label)" in index  # not found: as before
    assert "[The MyST guide](guide.rst)" in index
    assert "Back to [Defining Functions](#defining-functions)" in texts["tutorial.rst"]
    assert "[Welcome](../index.rst)" in texts["library/os.rst"]
    assert (
        "See Defining Functions, os --- Operating system interfaces and Labelled section."
        in texts["guide.md"]
    )
    # `:doc:` of a MyST page links to it (rst.py writes `.rst`); the unknown label is named.
    line = "1 links to no page or heading of the bundle: #no-such-label (in index.rst)"
    assert line in proc.stdout


def _build(docs: Path, out: Path, *extra: str) -> dict:
    return json.loads(
        run_docsmcp("build", "--docs-dir", docs, "--out", out, "--json", *extra).stdout
    )


def test_rebuilds_show_the_titles_a_clean_build_shows(tmp_path: Path) -> None:
    """A rebuild takes unchanged files from its record without reading them (known_files.py):
    a page that names others is read again each time (their titles may have changed), and a
    page taken from the record still gives its labels' titles."""
    plain = ".. _plain-label:\n\nPlain Title\n===========\n\nNames nothing.\n"
    docs = write_tree(tmp_path / "docs", {**PAGES, "plain.rst": plain})
    out = tmp_path / "idx"
    _build(docs, out)
    time.sleep(RACY_NS / 1e9 + 0.2)  # files written moments ago are read again: not recorded
    _build(docs, out)
    assert _build(docs, out)["unread_files"] == 1  # plain.rst; the others name pages

    index = docs / "index.rst"
    index.write_text(PAGES["index.rst"] + "And :ref:`plain-label`.\n", encoding="utf-8")
    assert _build(docs, out)["unread_files"] == 1
    assert "And [Plain Title](#plain-label)." in _texts(out)["index.rst"]
    assert bundle_differences(out, build_bundle(docs, tmp_path / "clean", "--no-cache")) == []

    tutorial = docs / "tutorial.rst"
    st = tutorial.stat()
    tutorial.write_text(PAGES["tutorial.rst"].replace("``Functions``", "Functions!!!!"))
    os.utime(tutorial, ns=(st.st_atime_ns, st.st_mtime_ns))  # the ctime still tells the edit
    _build(docs, out)
    assert "[Defining Functions!!!!](#tut-functions)" in _texts(out)["index.rst"]
    assert bundle_differences(out, build_bundle(docs, tmp_path / "clean2", "--no-cache")) == []


def _page(path: str, body: str, title: str | None = None) -> SourceFile:
    return SourceFile(path, body, body, Strategy("h2", 4000), (), title, None)


def test_labels_mark_sections_only() -> None:
    rst = (
        ".. _before-table:\n\n.. list-table::\n\n   * - a\n\n"
        ".. _first:\n.. _Second Name:\n\nTitle *one*\n~~~~~~~~~~~\n\n"
        "    indented\n    --------\n"
    )
    assert defined(_page("a.rst", rst)) == (
        ("doc", "Title one"),
        ("label:first", "Title one"),
        ("label:second name", "Title one"),
    )
    myst = "```\n# not a heading\n```\n(x)=\n# Real\n"
    assert defined(_page("b.md", myst, title="Front")) == (
        ("doc", "Front"),
        ("label:x", "Real"),
    )
    assert defined(_page("c.md", "# Plain markdown, no MyST\n")) == ()


def test_myst_links_to_labels_reach_them(tmp_path: Path) -> None:
    """Black's `[…](labels/line-length)` links name a `(labels/line-length)=` target of another
    page: all 25 were "links to no page"; `#label` on the same page too."""
    docs = write_tree(
        tmp_path / "docs",
        {
            "style.md": "# Style\n\n(labels/line-length)=\n\n## Line length\n\n88 characters.\n",
            "faq.md": "# FAQ\n\n(faq-why)=\n## Why\n\nSee [the limit](labels/line-length) and "
            "[why](#faq-why), and [](style.md).\n",
        },
    )
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", "--json")
    refs = json.loads(proc.stdout)["references"]
    assert (refs["found"], refs["resolved"]) == (3, 3)
    text = _texts(tmp_path / "idx")["faq.md"]
    assert "[the limit](/style.md#labels/line-length)" in text
    assert "and [Style](style.md)." in text  # an empty link shows the page's title, as MyST does
