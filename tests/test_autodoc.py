"""Sphinx autodoc directives rendered from the Python source (autodoc.py): `.. autofunction::`,
`.. autoclass::` with `:members:`, `.. automodule::`, nested `.. automethod::`, aliases and
star re-exports followed, the current module qualifying names; the objects reach the API
registry and search, and a build without the source says which folder to give."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle, run_docsmcp, write_tree
from docsmcp.sources.formats.rst import autodoc
from docsmcp.sources.formats.source import apidoc
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

PACKAGE = {
    "src/acme/__init__.py": (
        'raise SystemExit("imported!")\n'
        "from acme._core import frobnicate, Widget\n"
        "from acme.extras import *\n"
        "s = spin = frobnicate\n"
        'LIMIT = 3\n"""The most widgets at once."""\n'
    ),
    "src/acme/_core.py": (
        "def frobnicate(widget, *, times: int = 1) -> bool:\n"
        '    """Frobnicate a widget.\n\n    :param widget: the widget to frobnicate\n'
        '    :param times: how many times\n    """\n\n\n'
        "class Widget(Base):\n"
        '    """A widget that spins."""\n\n'
        "    def __init__(self, size: int) -> None:\n        self.size = size\n\n"
        "    def spin(self, speed=2):\n"
        '        """Spin the widget at `speed` turns a second."""\n\n'
        "    def undocumented(self):\n        pass\n\n"
        "    def _private(self):\n"
        '        """Hidden."""\n'
    ),
    "src/acme/extras.py": 'def polish(widget):\n    """Polish a widget until it shines."""\n',
}
PAGE = """API
===

.. module:: acme

.. autofunction:: acme.frobnicate

.. autoclass:: Widget
   :members:

   .. automethod:: undocumented

   Widgets come in three sizes.

.. autofunction:: polish

.. autofunction:: s

.. autodata:: LIMIT

.. autofunction:: acme.missing
"""


def _docs(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "repo", {**PACKAGE, "docs/api.rst": PAGE})


def test_autodoc_directives_read_as_the_descriptions_sphinx_generates(tmp_path: Path) -> None:
    repo = _docs(tmp_path)
    sources = apidoc.Sources(repo / "docs", [repo / "docs", repo / "src"])
    missing: list[str] = []
    lines, line_map = autodoc.expand(PAGE.split("\n"), sources, missing)
    text = "\n".join(lines)
    assert len(lines) == len(line_map) and max(line_map) < len(PAGE.split("\n"))
    assert ".. py:function:: acme.frobnicate(widget, *, times: int=1) -> bool" in text
    assert "   :param widget: the widget to frobnicate" in text
    # the class's signature is its __init__'s without self; documented public members only,
    # a member named in the content too, and the content after the docstring
    assert ".. py:class:: Widget(size: int)\n\n   A widget that spins." in text
    assert "   .. py:method:: spin(speed=2)\n\n      Spin the widget" in text
    assert "Widget(size: int) -> None" not in text
    assert "   .. py:method:: undocumented()" in text and "_private" not in text
    assert text.index("A widget that spins.") < text.index("Widgets come in three sizes.")
    assert ".. py:function:: polish(widget)" in text  # through `from acme.extras import *`
    assert ".. py:function:: s(widget, *, times: int=1) -> bool" in text  # `s = frobnicate`
    assert ".. py:data:: LIMIT" in text
    assert missing == [".. autofunction:: acme.missing"]
    assert ".. autofunction:: acme.missing" in text  # left as written


def test_automodule_no_members_is_the_docstring_alone(tmp_path: Path) -> None:
    """NumPy's polynomial pages: `.. automodule:: numpy.polynomial.chebyshev :no-members:`
    rendered every function under the module docstring's last heading."""
    repo = write_tree(
        tmp_path / "repo",
        {
            "src/acme/extras.py": '"""Extras for widgets."""\n\n'
            'def polish(widget):\n    """Polish."""\n',
            "docs/api.rst": "API\n===\n",
        },
    )
    sources = apidoc.Sources(repo / "docs", [repo / "docs", repo / "src"])
    page = ".. automodule:: acme.extras\n   :no-members:\n"
    text = "\n".join(autodoc.expand(page.split("\n"), sources, [])[0])
    assert "Extras for widgets." in text and "polish" not in text
    # As Sphinx: members with `:members:` (or conf.py's autodoc_default_options) only; the
    # module is the current one after it (Werkzeug's `.. autoexception:: BadRequest` lines).
    alone = "\n".join(autodoc.expand([".. automodule:: acme.extras"], sources, [])[0])
    assert "Extras for widgets." in alone and "polish" not in alone
    page = [".. automodule:: acme.extras", "   :members:", "", ".. autofunction:: polish"]
    listed = autodoc.expand(page, sources, missing := [])[0]
    assert listed.count(".. py:function:: polish(widget)") == 2 and not missing
    (repo / "docs" / "conf.py").write_text("autodoc_default_options = {'members': True}\n")
    configured = apidoc.Sources(repo / "docs", [repo / "docs", repo / "src"])
    default = "\n".join(autodoc.expand([".. automodule:: acme.extras"], configured, [])[0])
    assert ".. py:function:: polish(widget)" in default


def test_the_registry_and_search_reach_the_docstrings(tmp_path: Path) -> None:
    repo = _docs(tmp_path)
    out = build_bundle(repo / "docs", tmp_path / "idx", "--api-source", repo / "src")
    with McpSession(out) as s:
        entry = s.call("get_api_reference", {"method": "acme.frobnicate"})
        hits = s.search(query="polish a widget until it shines", limit=1)["hits"]
    assert not entry.is_error
    assert "frobnicate(widget, *, times: int=1)" in entry.content[0].text
    assert "Frobnicate a widget." in entry.content[0].text
    assert hits[0]["chunk_id"].startswith("api.rst#")


def test_without_the_source_the_warning_names_the_folder_to_give(tmp_path: Path) -> None:
    repo = _docs(tmp_path)
    proc = run_docsmcp("build", "--docs-dir", repo / "docs", "--out", tmp_path / "idx")
    warnings = [x for x in proc.stderr.splitlines() if "autodoc" in x]
    assert warnings == [
        "docsmcp: warning: 1 page generated by mkdocstrings or autodoc document 7 Python objects "
        "whose source is in no source root (first: .. autofunction:: acme.frobnicate, from "
        f"api.rst); give --api-source {(repo / 'src').resolve()}"
    ], proc.stderr


_LINES = st.lists(
    st.sampled_from(
        [
            ".. autofunction:: acme.frobnicate",
            ".. autoclass:: Widget",
            "   :members:",
            "   :members: spin, nope",
            "   .. automethod:: spin",
            ".. automodule:: acme",
            ".. autodata:: LIMIT",
            ".. currentmodule:: acme",
            ".. module:: None",
            "   text",
            "",
            "Title",
        ]
    ),
    max_size=30,
)


@FUZZ
@given(lines=_LINES)
def test_any_page_expands_without_error_and_maps_every_line(tmp_path_factory, lines) -> None:
    repo = _docs(tmp_path_factory.mktemp("fuzz"))
    sources = apidoc.Sources(repo / "docs", [repo / "src"])
    out, line_map = autodoc.expand(lines, sources, [])
    assert len(out) == len(line_map)
    assert line_map == sorted(line_map) and all(0 <= k < max(len(lines), 1) for k in line_map)


def test_init_names_the_users_folder_too(tmp_path: Path) -> None:
    """A package at the repository's top (MyST-NB's `myst_nb/`): init's check, made on an
    overlay of the docs, named the overlay's temporary folder as the one to give."""
    files = {k.removeprefix("src/"): v for k, v in PACKAGE.items()}
    repo = write_tree(tmp_path / "repo", {**files, "docs/api.rst": PAGE})
    proc = run_docsmcp("init", "--docs-dir", repo / "docs")
    assert f"give --api-source {repo.resolve()}" in proc.stderr, proc.stderr
    assert "docsmcp-init-" not in proc.stderr


def test_overloads_give_way_to_the_implementation_and_properties_read_as_properties(
    tmp_path: Path,
) -> None:
    """Werkzeug: `@t.overload` stubs, first in the class, hid 18 documented methods
    (`Request.get_data`), and properties read as calls (`data() -> bytes`)."""
    repo = write_tree(
        tmp_path / "repo",
        {
            "src/pkg/__init__.py": (
                "import typing as t\nfrom functools import cached_property\n\n\n"
                'class Request:\n    """A request."""\n\n'
                "    @property\n    def data(self) -> bytes:\n"
                '        """The raw data."""\n\n'
                '    @cached_property\n    def files(self):\n        """Uploaded files."""\n\n'
                "    @t.overload\n    def get_data(self, as_text: t.Literal[False]) -> bytes: ...\n"
                "    @t.overload\n    def get_data(self, as_text: t.Literal[True]) -> str: ...\n"
                "    def get_data(self, as_text=False):\n"
                '        """Read the buffered incoming data."""\n'
            ),
            "docs/api.rst": "API\n===\n",
        },
    )
    sources = apidoc.Sources(repo / "docs", [repo / "docs", repo / "src"])
    page = [".. autoclass:: pkg.Request", "   :members:"]
    text = "\n".join(autodoc.expand(page, sources, [])[0])
    assert ".. py:method:: get_data(as_text=False)" in text
    assert "Read the buffered incoming data." in text
    assert ".. py:property:: data\n      :type: bytes" in text
    assert ".. py:property:: files\n" in text and "files()" not in text
