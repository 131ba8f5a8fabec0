"""reStructuredText pages (issue 11, item 1, last bullet): a real extract of Flask's Sphinx docs
(tests/fixtures/flask-rst/SOURCE.txt) built into a bundle and read back through the official
`mcp` SDK client, Sphinx directives and roles handled, unknown directives kept as text with one
warning each; plus bounded fuzzing of the converter."""

from __future__ import annotations

import json
import re
import shutil
import textwrap
import time
from pathlib import Path

import pytest
from conftest import FUZZ, build_bundle, run_docsmcp
from docsmcp.common.limits import MAX_RST_EXPLICIT_MARKUP
from docsmcp.sources.formats.rst.rst import rst_to_markdown
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

FLASK = Path(__file__).resolve().parent / "fixtures" / "flask-rst"
# reST markup that must not survive conversion (directives, roles, targets, section underlines).
LEFTOVERS = re.compile(r"^\s*\.\. [\w:-]+::|:[a-z]+:`|^\.\. _|^[=~^-]{4,}$", re.MULTILINE)


@pytest.fixture(scope="module")
def flask_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(FLASK, tmp_path_factory.mktemp("flask-rst") / "idx")


def test_a_sphinx_project_reads_cleanly(flask_bundle: Path) -> None:
    meta = json.loads((flask_bundle / "metadata.json").read_text())
    assert meta["stats"]["files"] == 7
    with McpSession(flask_bundle) as s:
        hit = s.search(query="debug mode reloader interactive debugger", limit=1)["hits"][0]
        assert hit["chunk_id"] == "quickstart.rst#quickstart/debug-mode"
        assert hit["breadcrumb"] == "quickstart.rst > Quickstart > Debug Mode"
        minimal = s.get_doc("quickstart.rst#quickstart/a-minimal-application")
        assert "```python\nfrom flask import Flask\n" in minimal  # code-block python
        assert "1. First we imported the `Flask` class." in minimal  # :class: as code
        install = s.get_doc("installation.rst#installation/virtual-environments")
        # sphinx-tabs' group-tab labels stay, each tab's code is a fenced block
        assert "macOS/Linux\n\n```text\n$ mkdir myproject" in install
        deps = s.get_doc("installation.rst#installation/dependencies")
        assert "[Werkzeug](https://palletsprojects.com/p/werkzeug/) implements WSGI" in deps
        assert "[signals](signals.rst)" in deps  # :doc: becomes a link to the page
        api = s.get_doc("api.rst#api/application-object")
        assert "`Flask` (API reference generated from the code by autodoc)" in api
        for chunk_id in (hit["chunk_id"], "installation.rst#installation/dependencies"):
            body = s.get_doc(chunk_id)
            assert not LEFTOVERS.search(body), LEFTOVERS.search(body)
        # admonition with a title, versionadded
        discovery = s.search(query="Application Discovery Behavior", limit=1)["hits"][0]
        assert "Application Discovery Behavior\n\nAs a shortcut" in s.get_doc(discovery["chunk_id"])


def test_doc_and_toctree_links_resolve(tmp_path: Path) -> None:
    res = run_docsmcp("build", "--docs-dir", FLASK, "--out", tmp_path / "idx", "--json")
    refs = json.loads(res.stdout)["references"]
    # Links to pages of the extract resolve (index's toctree, :doc:`installation`, ...); the
    # others name pages the extract leaves out.
    assert refs["resolved"] >= 19


def test_sphinx_roles_and_same_page_refs() -> None:
    text = """Title
=====

.. _setup-label:

Setup
-----

See :ref:`the setup <setup-label>`, :ref:`elsewhere`, :func:`~flask.json.dumps`,
:meth:`.Flask.run`, :doc:`/tutorial/index`, :pep:`8` and :issue:`123`.

.. note:: Mind the gap.

.. versionchanged:: 2.0
   Renamed.

.. mystery:: arg

   Inner *text*.

========  =====
Name      Value
========  =====
``a|b``   1
========  =====
"""
    out = rst_to_markdown("guide/page.rst", text)
    assert out.title == "Title"
    assert out.text == (
        "# Title\n\n"
        "## Setup\n\n"
        "See [the setup](#setup), [elsewhere](#elsewhere), `dumps`,\n"
        "`Flask.run`, [index](../tutorial/index.rst), "
        "[PEP 8](https://peps.python.org/pep-0008) and 123.\n\n"
        "Note\n\nMind the gap.\n\n"
        "Changed in version 2.0: Renamed.\n\n"
        "arg\n\nInner *text*.\n\n"
        "| Name | Value |\n|---|---|\n| `a\\|b` | 1 |\n"
    )
    assert out.anchors == ((2, "setup-label"),)  # the label's heading line, for xref


@pytest.mark.slow  # a worker pool and a server
def test_unknown_directives_warn_once_per_name(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(70):  # enough pages for two worker processes, each meeting both names
        (docs / f"p{i}.rst").write_text(
            f"Page {i}\n======\n\n.. frobnicate:: x\n\n   kept text {i}\n\n.. zorble::\n"
        )
    res = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", "--workers", "2")
    warnings = [line for line in res.stderr.splitlines() if "unknown reST directive" in line]
    assert len(warnings) == 2, res.stderr  # frobnicate and zorble, once each
    # Two workers may print them in either order.
    named = sorted(w.split("unknown reST directive ")[1] for w in warnings)
    assert named[0].startswith("'frobnicate': its content is kept as text"), named
    assert named[1].startswith("'zorble': its content is kept as text"), named
    with McpSession(tmp_path / "idx") as s:
        assert "kept text 2" in s.get_doc("p2.rst#page-2")


def test_a_warning_names_the_line_of_the_file_after_includes(tmp_path: Path) -> None:
    """Scrapy's settings.rst warned at line 2427 of a 2,422-line file: the line of the text
    with its includes in, not of the file."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "part.rst").write_text("".join(f"Included line {i}.\n\n" for i in range(20)))
    (docs / "page.rst").write_text("Page\n====\n\n.. include:: part.rst\n\n.. quux:: x\n")
    res = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx")
    assert "page.rst:6: unknown reST directive 'quux'" in res.stderr, res.stderr


def test_include_and_raw_never_read_files(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    text = f"T\n=\n\n.. include:: {secret}\n\n.. raw:: html\n   :file: {secret}\n\nafter\n"
    out = rst_to_markdown("p.rst", text)
    assert "TOP SECRET" not in out.text and "after" in out.text


def test_include_directives_resolve_inside_the_docs_and_are_summed_up_outside(
    tmp_path: Path,
) -> None:
    """rst.py reads no file (above); includes.py resolves them inside the source roots, as it
    does markdown's, and sums up in one line the ones it cannot read (pytest's
    `.. include:: ../../CONTRIBUTING.rst` from a docs folder built alone)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a", "b"):
        (docs / f"{name}.rst").write_text(
            f"{name.upper()}\n=\n\n.. include:: part.rst\n\n.. literalinclude:: x.py\n\n"
            ".. include:: ../../CONTRIBUTING.rst\n\nend\n"
        )
    (docs / "part.rst").write_text("Part\n----\n\nIncluded *here*.\n")
    (docs / "x.py").write_text("def x():\n    return 1\n")
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", "--quiet")
    assert proc.stderr.splitlines() == [
        "docsmcp: warning: 2 includes in 2 pages name files that do not exist (first: "
        "../../CONTRIBUTING.rst, from a.rst); they are left as written (a folder beside the "
        "docs? copy it along, or name it with --source-root)"
    ]
    with McpSession(tmp_path / "idx") as s:
        page = s.get_doc("a.rst#a/part")  # the included page's heading is one of a.rst's
    assert "Included *here*." in page and "```python\ndef x():\n    return 1\n```" in page


@pytest.mark.slow  # fuzz, ~1-2 s
@FUZZ
@given(
    st.lists(
        st.one_of(
            st.sampled_from(
                [
                    "Title\n=====\n",
                    "\n",
                    "   ",
                    ".. note::",
                    ".. code-block:: python\n\n   x = 1\n",
                    ".. toctree::\n\n   a\n   B <b>\n",
                    ".. unknownthing:: y\n",
                    ":ref:`x`",
                    ":doc:`../a`",
                    ":func:`~a.b`",
                    "* item\n",
                    "1. one\n",
                    "``code``",
                    "`link <http://x>`_",
                    "+---+\n| a |\n+---+\n",
                    "====  ==\n a    b\n====  ==\n",
                    "::\n\n    literal\n",
                    ".. _label:\n",
                    "|sub|",
                    "[#]_",
                ]
            ),
            st.text(max_size=15),
        ),
        max_size=30,
    )
)
def test_fuzz_any_rst_converts_deterministically(parts: list[str]) -> None:
    text = "".join(parts)
    first = rst_to_markdown("fuzz.rst", text)
    assert first == rst_to_markdown("fuzz.rst", text)
    assert first.text == "" or first.text.endswith("\n")


@pytest.mark.slow  # ~3 s alone
def test_many_references_convert_in_linear_time() -> None:
    """docutils' reference and substitution transforms are quadratic (20,000 `name_`
    references: 13 s); the converter parses without them. CPU time, not the clock: CI's
    machine shared with other work took 8 s of wall time for a linear conversion."""
    for unit in ("a_ ", "|x| ", ":func:`x` "):
        text = "\n".join(textwrap.wrap(unit * 20_000, 80))
        started = time.process_time()
        out = rst_to_markdown("p.rst", text)
        assert time.process_time() - started < 5, unit
        assert out.text.count("x" if unit != "a_ " else "a") >= 20_000


def test_too_much_explicit_markup_is_plain_text(caplog: pytest.LogCaptureFixture) -> None:
    text = "".join(f".. [#] note {i}\n\n" for i in range(MAX_RST_EXPLICIT_MARKUP + 1))
    out = rst_to_markdown("notes.rst", text)
    assert out.text.startswith("```rst\n.. [#] note 0\n")
    assert "notes.rst: 10001 explicit markup lines" in caplog.text


def test_the_docs_commands_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/sources.md, *Sphinx projects and saved HTML sites*: its two commands, exactly as
    written, from a folder where `tests/fixtures` is the repository's."""
    page = (Path(__file__).resolve().parents[1] / "docs" / "sources.md").read_text()
    section = page.split("## Sphinx projects (reStructuredText) and saved HTML sites")[1]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].split() for line in block.splitlines() if line.strip()]
    assert [c[:3] for c in commands] == [["docsmcp", "build", "--docs-dir"]] * 2
    (tmp_path / "tests").symlink_to(FLASK.parents[1])
    monkeypatch.chdir(tmp_path)
    for command in commands:
        run_docsmcp(*command[1:], "--quiet")
    for out in ("idx-rst", "idx-html"):
        assert json.loads((tmp_path / out / "metadata.json").read_text())["stats"]["files"] >= 6


@pytest.mark.slow  # worker pools
def test_converted_pages_are_byte_identical_whatever_the_workers(tmp_path: Path) -> None:
    """Conversion runs in the worker processes: 1 or 2 of them (70 pages: a real pool) give
    the same bundle, and so does a rebuild from the parse cache."""
    docs = tmp_path / "docs"
    shutil.copytree(FLASK, docs)
    for i in range(64):
        (docs / f"extra{i}.rst").write_text(
            f"Extra {i}\n========\n\n.. _extra-{i}:\n\nPart\n----\n\nSee :ref:`extra-{i}` and "
            f":doc:`index`.\n\n.. code-block:: python\n\n   x = {i}\n"
        )
    ids = []
    cache = str(tmp_path / "cache")
    for n, extra in (
        ("1", ["--no-cache"]),
        ("2", ["--cache-dir", cache]),
        ("2", ["--cache-dir", cache]),
    ):
        out = build_bundle(docs, tmp_path / f"idx{len(ids)}", "--workers", n, *extra)
        ids.append(json.loads((out / "metadata.json").read_text())["bundle_id"])
    assert len(set(ids)) == 1


def test_ref_to_a_label_of_another_page_resolves(tmp_path: Path) -> None:
    """Sphinx labels are global: `:ref:` from one page finds the section another page labels
    (Sphinx's own docs: 499 of 514 links and references resolved)."""
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "config.rst").write_text(
        "Config\n======\n\nIntro.\n\n.. _dotenv:\n\nEnvironment files\n-----------------\n\n"
        "Use a ``.env`` file.\n"
    )
    (docs / "guide" / "cli.rst").write_text(
        "CLI\n===\n\nSee :ref:`dotenv` and :ref:`missing-label`.\n"
    )
    res = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", "--json")
    refs = json.loads(res.stdout)["references"]
    assert (refs["found"], refs["resolved"]) == (2, 1)
    with McpSession(tmp_path / "idx") as s:
        # Sphinx shows the heading the label marks (link_titles.py)
        assert "See [Environment files](#dotenv)" in s.get_doc("guide/cli.rst#cli")
        hit = s.search(query="CLI dotenv", limit=1, expand_references=True)["hits"][0]
        assert hit["chunk_id"] == "guide/cli.rst#cli"
        assert [r["id"] for r in hit["references"]] == ["config.rst#config/environment-files"]


def test_sphinx_info_fields_version_notes_autosummary_and_metadata_read_as_sphinx_shows_them() -> (
    None
):
    """Defects on Scrapy's and NumPy's docs: info fields shown as `**param x:**`, a version
    note whose text starts on the next line kept its roles as written, `autosummary` tables
    (1,472 objects in 46 NumPy pages) left nothing, `:orphan:` became a chunk of its own, and
    the default role's `~numpy.strings` was shown as written."""
    text = textwrap.dedent(
        """\
        :orphan:
        :tocdepth: 2

        Core API
        ========

        .. class:: Crawler(spidercls)

           :param spidercls: the spider class
           :type spidercls: :class:`~scrapy.Spider` subclass
           :param int settings: the settings
           :returns: a deferred
           :rtype: Deferred
           :raises ValueError: if wrong

        .. versionchanged:: 2.0
           :setting:`ITEM_PIPELINES` and ``FEEDS`` are now ignored.

        .. autosummary::
           :toctree: generated/

           einsum
           ~numpy.einsum_path

        See `~numpy.strings` and `ndarray.__array__ <numpy.ndarray.__array__>`.
        """
    )
    out = rst_to_markdown("api.rst", text).text
    assert "orphan" not in out and "tocdepth" not in out
    assert (
        "Parameters:\n- **spidercls** (`Spider` subclass) – the spider class\n"
        "- **settings** (int) – the settings\n\nReturns: a deferred (Deferred)\n\n"
        "Raises:\n- **ValueError** – if wrong"
    ) in out
    assert "Changed in version 2.0: `ITEM_PIPELINES` and `FEEDS` are now ignored." in out
    assert "- `einsum`\n- `numpy.einsum_path`" in out and "toctree" not in out
    assert "See `strings` and `ndarray.__array__`." in out
    # A field list that is not info fields reads as before.
    other = rst_to_markdown("b.rst", "T\n=\n\nText.\n\n:Author: Ada\n:Version: 2\n").text
    assert "- **Author:** Ada\n- **Version:** 2" in other
