"""A Sphinx project in Django's shape: `.txt` pages (conf.py's `source_suffix`), its own object
types (`.. setting::`, `.. django-admin::`, `.. templatetag::`, `.. templatefilter::`,
`.. fieldlookup::`) and their roles (`:setting:`, `:djadmin:`, `:ttag:`, `:tfilter:`,
`:lookup:`)."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.discover import discover
from docsmcp.sources.formats.rst import rst_suffixes
from docsmcp.sources.sites import sphinx_extlinks, sphinx_suffix
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
version = "5.2"
extlinks = {
    "cve": ("https://nvd.nist.gov/vuln/detail/CVE-%s", "CVE-%s"),
    "ticket": ("https://code.djangoproject.com/ticket/%s", "#%s"),
}
"""
RELEASE = """===========================
Django 4.2.11 release notes
===========================

This release is for Django |version| users.

CVE-2024-27351: Potential regular expression denial-of-service
==============================================================

A follow up to :cve:`2019-14232` and :cve:`2023-43665`, fixed in
:ticket:`35020` (see :ticket:`the ticket <35021>`).

Write it as::

    :ticket:`12345`
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
ADMIN = """==================================
``django-admin`` and ``manage.py``
==================================

Getting runtime help
--------------------

.. django-admin:: help

Run ``django-admin help`` to display usage information.

Available commands
==================

``makemigrations``
------------------

.. django-admin:: makemigrations [app_label [app_label ...]]

Creates new migrations based on the changes detected to your models.

.. django-admin-option:: --noinput, --no-input

Suppresses all user prompts.

.. django-admin-option:: --empty

Outputs an empty migration for the specified apps, for manual editing.

Run it as:

.. console::

    $ django-admin makemigrations --empty yourappname
"""
BUILTINS = """==================================
Built-in template tags and filters
==================================

Built-in tag reference
======================

.. templatetag:: csrf_token

``csrf_token``
--------------

This tag is used for CSRF protection. See :ttag:`csrf_token` and
:djadmin:`makemigrations`, :option:`makemigrations --empty`.

.. templatefilter:: language_name
.. templatefilter:: language_name_local

Language filters
----------------

There are also some filters available for convenience.

.. fieldlookup:: exact
    :noindex:

.. templatetag:: get_flatpages

Displaying ``registration_required`` flatpages
----------------------------------------------

By default, the :ttag:`get_flatpages` template tag will only show public flatpages.
"""
FILES = {
    "docs/conf.py": CONF,
    "docs/contents.txt": "Django documentation contents\n=============================\n\n"
    ".. toctree::\n\n   ref/settings\n   ref/csrf\n   ref/django-admin\n",
    "docs/ref/settings.txt": SETTINGS,
    "docs/ref/csrf.txt": CSRF,
    "docs/ref/django-admin.txt": ADMIN,
    "docs/ref/templates/builtins.txt": BUILTINS,
    "docs/releases/4.2.11.txt": RELEASE,
    "docs/requirements.txt": "pyenchant\nSphinx>=4.5.0\n",
    "docs/_theme/djangodocs/static/LICENSE.txt": "Font Awesome Free License\n",
    "docs/_ext/djangodocs.py": "def setup(app):\n    pass\n",
    "docs/topics/http/_images/middleware.pdf": "%PDF-1.4 (a figure)\n",
}


def _listed(docs: Path) -> list[str]:
    """The files the listing holds but Python (it lists every `.py` a reader may take:
    python_package.py makes no page of a Sphinx project's conf.py or extensions)."""
    return [p for p in discover(docs) if not p.endswith(".py")]


def test_txt_pages_of_a_sphinx_project_are_read_as_rest(tmp_path: Path) -> None:
    """Django's 598 `.txt` pages were not read at all: the build said "5 files"."""
    docs = write_tree(tmp_path, FILES) / "docs"
    pages = ["contents.txt", "ref/csrf.txt", "ref/django-admin.txt", "ref/settings.txt"]
    others = ["ref/templates/builtins.txt", "releases/4.2.11.txt"]
    assert _listed(docs) == [*pages, *others]
    out = build_bundle(docs, tmp_path / "idx")
    texts = page_texts(out)
    assert set(texts) == {*pages, *others}
    settings = texts["ref/settings.txt"]
    assert "A list of trusted origins for unsafe requests" in settings
    assert "``CSRF_TRUSTED_ORIGINS``" not in settings and "========" not in settings
    with McpSession(out) as s:
        hit = s.search(query="CSRF_TRUSTED_ORIGINS", limit=1)["hits"][0]
        page = s.call("get_doc", {"chunk_id": hit["chunk_id"]}).content[0].text
    assert hit["chunk_id"].startswith("ref/settings.txt#")
    assert any(r["id"].startswith("ref/csrf.txt#") for r in hit["references"])
    # `:doc:` to a `.txt` page resolves to it, as Sphinx's document names carry no suffix
    assert "[Cross Site Request Forgery protection](csrf.txt)" in page


def test_commands_options_console_and_roles_read_as_djangos_site_shows_them(
    tmp_path: Path,
) -> None:
    """Django's `django-admin` commands (12 of 35 were entries, none showed its usage line),
    `django-admin-option`s (145, no entry), `console` blocks (148, read as paragraphs) and its
    cross-reference roles (`:ttag:` read as plain text)."""
    docs = write_tree(tmp_path, FILES) / "docs"
    out = build_bundle(docs, tmp_path / "idx")
    text = page_texts(out)["ref/django-admin.txt"]
    assert "`django-admin makemigrations [app_label [app_label ...]]`\n\nCreates new" in text
    assert "`django-admin help`\n\nRun `django-admin help`" in text
    assert "```console\n$ django-admin makemigrations --empty yourappname\n```" in text
    assert "`--empty`" in text
    builtins = page_texts(out)["ref/templates/builtins.txt"]
    assert "See `csrf_token` and\n`makemigrations`, `makemigrations --empty`." in builtins
    with McpSession(out) as s:
        entry = s.call("get_api_reference", {"method": "makemigrations"}).content[0].text
        help_ = s.call("get_api_reference", {"method": "help"}).content[0].text
        empty = s.call("get_api_reference", {"method": "makemigrations --empty"}).content[0].text
        noinput = s.call("get_api_reference", {"method": "makemigrations --no-input"})
        tag = s.search(query="csrf_token tag", limit=1)["hits"][0]
        # declared before a section named otherwise, or in a stack: entries all the same
        flatpages = s.call("get_api_reference", {"method": "get_flatpages"}).content[0].text
        local = s.call("get_api_reference", {"method": "language_name_local"}).content[0].text
        exact = s.call("get_api_reference", {"method": "exact"})
    assert "django-admin makemigrations [app_label [app_label ...]]" in entry
    assert "Creates new migrations" in entry and '"kind":"django-admin"' in entry.replace(" ", "")
    assert "Run django-admin help to display usage information." in help_
    assert "Outputs an empty migration" in empty and "Run it as" in empty
    assert "Suppresses all user prompts." in noinput.content[0].text
    assert "will only show public flatpages" in flatpages and "templatetag" in flatpages
    assert "There are also some filters" in local and "templatefilter" in local
    assert exact.is_error or "not found" in exact.content[0].text.lower()  # (`:noindex:`)
    assert ".. templatefilter::" not in builtins and "language_name_local" not in builtins
    # the roles are references to the declarations
    ids = {r["id"].partition("#")[0] for r in tag["references"]}
    assert "ref/django-admin.txt" in ids


def test_extlinks_and_version_read_as_conf_py_makes_them(tmp_path: Path) -> None:
    """Django's 1,042 `:ticket:` and 127 `:cve:` roles showed the bare number, and `|version|`
    the word "version"."""
    docs = write_tree(tmp_path, FILES) / "docs"
    out = build_bundle(docs, tmp_path / "idx")
    text = page_texts(out)["releases/4.2.11.txt"]
    assert "This release is for Django 5.2 users." in text
    assert "[CVE-2019-14232](https://nvd.nist.gov/vuln/detail/CVE-2019-14232)" in text
    assert "[#35020](https://code.djangoproject.com/ticket/35020)" in text
    assert "(see [the ticket](https://code.djangoproject.com/ticket/35021))" in text
    assert "```\n:ticket:`12345`\n```" in text  # (code stays as written)
    (docs / "conf.py").write_text(CONF.split("version =")[0])
    plain = page_texts(build_bundle(docs, tmp_path / "idx2"))["releases/4.2.11.txt"]
    assert "follow up to 2019-14232 and 2023-43665" in " ".join(plain.split())


def test_without_conf_py_or_its_suffix_txt_files_are_no_pages(tmp_path: Path) -> None:
    docs = write_tree(tmp_path, {**FILES, "docs/conf.py": "project = 'x'\n"}) / "docs"
    assert _listed(docs) == []
    (docs / "conf.py").unlink()
    (docs / "index.md").write_text("# Hi\n")
    assert _listed(docs) == ["index.md", "topics/http/_images/middleware.pdf"]  # (no Sphinx)


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
    templated = read("templates_path = ['_templates', './more/']\n")
    assert templated.skips("_templates") and templated.skips("more")
    assert not templated.skips("reference") and templated.suffixes == ()


@FUZZ
@given(st.text(max_size=300))
def test_any_conf_py_reads_without_error(tmp_path_factory, text: str) -> None:
    folder = tmp_path_factory.mktemp("conf")
    (folder / "conf.py").write_text(text, encoding="utf-8", errors="replace")
    found = sphinx_suffix.read(folder)
    assert all(s in rst_suffixes.EXTRA_RST_SUFFIXES for s in found.suffixes)


@FUZZ
@given(st.text(max_size=80), st.sampled_from(["#%s", None, "prefix ", "%s%s"]))
def test_any_extlink_text_expands_without_error(text: str, caption: str | None) -> None:
    project = sphinx_extlinks.Project({"ticket": ("https://t/%s", caption)}, {})
    found = sphinx_extlinks.expand(project, "ticket", text)
    assert found is not None and found[1].startswith("https://t/")
    assert sphinx_extlinks.expand(project, "other", text) is None
