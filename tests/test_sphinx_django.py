"""A Sphinx project in Django's shape: `.txt` pages (conf.py's `source_suffix`), its own object
types (`.. setting::`, `.. django-admin::`, `.. templatetag::`, `.. templatefilter::`,
`.. fieldlookup::`) and their roles (`:setting:`, `:djadmin:`, `:ttag:`, `:tfilter:`,
`:lookup:`)."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources import sphinx_suffix
from docsmcp.sources.discover import discover
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

CONF = """import sys
from os.path import abspath, dirname, join
sys.path.append(abspath(join(dirname(__file__), "_ext")))
project = "Django"
extensions = ["djangodocs", "sphinx.ext.intersphinx"]
source_suffix = ".txt"
root_doc = "contents"
exclude_patterns = ["_build", "_theme", "requirements.txt"]
"""
SETTINGS = """========
Settings
========

.. contents::
    :local:
    :depth: 1

Core Settings
=============

Here's a list of settings available in Django core and their default values.

.. setting:: CSRF_TRUSTED_ORIGINS

``CSRF_TRUSTED_ORIGINS``
------------------------

Default: ``[]`` (Empty list)

A list of trusted origins for unsafe requests (e.g. ``POST``). See also
:setting:`CSRF_COOKIE_DOMAIN` and the :doc:`/ref/csrf` page.

.. setting:: CSRF_COOKIE_DOMAIN

``CSRF_COOKIE_DOMAIN``
----------------------

Default: ``None``

The domain to be used when setting the CSRF cookie.
"""
CSRF = """=====================================
Cross Site Request Forgery protection
=====================================

The CSRF middleware checks the origin of unsafe requests against
:setting:`CSRF_TRUSTED_ORIGINS`.
"""
FILES = {
    "docs/conf.py": CONF,
    "docs/contents.txt": "Django documentation contents\n=============================\n\n"
    ".. toctree::\n\n   ref/settings\n   ref/csrf\n",
    "docs/ref/settings.txt": SETTINGS,
    "docs/ref/csrf.txt": CSRF,
    "docs/requirements.txt": "pyenchant\nSphinx>=4.5.0\n",
    "docs/_theme/djangodocs/static/LICENSE.txt": "Font Awesome Free License\n",
    "docs/_ext/djangodocs.py": "def setup(app):\n    pass\n",
}


def test_txt_pages_of_a_sphinx_project_are_read_as_rest(tmp_path: Path) -> None:
    """Django's 598 `.txt` pages were not read at all: the build said "5 files"."""
    docs = write_tree(tmp_path, FILES) / "docs"
    assert discover(docs) == ["contents.txt", "ref/csrf.txt", "ref/settings.txt"]
    out = build_bundle(docs, tmp_path / "idx")
    texts = page_texts(out)
    assert set(texts) == {"contents.txt", "ref/csrf.txt", "ref/settings.txt"}
    settings = texts["ref/settings.txt"]
    assert "A list of trusted origins for unsafe requests" in settings
    assert "``CSRF_TRUSTED_ORIGINS``" not in settings and "========" not in settings
    with McpSession(out) as s:
        hit = s.search(query="CSRF_TRUSTED_ORIGINS", limit=1)["hits"][0]
        page = s.call("get_doc", {"chunk_id": hit["chunk_id"]}).content[0].text
    assert hit["chunk_id"].startswith("ref/settings.txt#")
    # `:doc:` to a `.txt` page resolves to it, as Sphinx's document names carry no suffix
    assert "[Cross Site Request Forgery protection](csrf.txt)" in page


def test_without_conf_py_or_its_suffix_txt_files_are_no_pages(tmp_path: Path) -> None:
    docs = write_tree(tmp_path, {**FILES, "docs/conf.py": "project = 'x'\n"}) / "docs"
    assert discover(docs) == []
    (docs / "conf.py").unlink()
    (docs / "index.md").write_text("# Hi\n")
    assert discover(docs) == ["index.md"]


def test_source_suffix_in_each_shape_sphinx_accepts(tmp_path: Path) -> None:
    def read(text: str) -> sphinx_suffix.SphinxSuffixes:
        (tmp_path / "conf.py").write_text(text)
        return sphinx_suffix.read(tmp_path)

    assert read("source_suffix = '.txt'\n").suffixes == (".txt",)
    assert read("source_suffix = ['.rst', '.txt']\n").suffixes == (".txt",)
    mapping = "source_suffix = {'.rst': 'restructuredtext', '.txt': 'markdown'}\n"
    assert read(mapping).suffixes == ()  # (a `.txt` read as markdown by MyST: not reST)
    assert read("source_suffix = {'.txt': 'restructuredtext'}\n").suffixes == (".txt",)
    assert read("source_suffix = '.rst'\n").suffixes == ()
    assert read("source_suffix = SUFFIX\n").suffixes == ()  # computed: not read
    assert read("source_suffix = '.txt'\nsource_suffix = '.rst'\n").suffixes == ()
    assert read("def broken(:\n").suffixes == ()
    found = read("source_suffix = '.txt'\nexclude_patterns = ['_build', 'old/*']\n")
    assert found.admits("ref/settings.txt") and not found.admits("old/notes.txt")
    assert not found.admits("_static/LICENSE.txt") and not found.admits("llms-full.txt")


@FUZZ
@given(st.text(max_size=300))
def test_any_conf_py_reads_without_error(tmp_path_factory, text: str) -> None:
    folder = tmp_path_factory.mktemp("conf")
    (folder / "conf.py").write_text(text, encoding="utf-8", errors="replace")
    found = sphinx_suffix.read(folder)
    assert all(s in sphinx_suffix.EXTRA_RST_SUFFIXES for s in found.suffixes)
