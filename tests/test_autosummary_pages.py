"""Sphinx autosummary's generated pages (autosummary_pages.py): an `.. autosummary::` with
`:toctree:` makes a page per object whose source is found, in NumPy's shape (`.. currentmodule::
numpy`, `linalg.svd`, `einsum`, names followed by a remark, C objects with no source)."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, run_docsmcp, write_tree
from docsmcp.sources import autosummary_pages
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

PACKAGE = {
    "numpy/__init__.py": "from numpy._core import *\nfrom numpy import linalg, ma\n",
    "numpy/_core/__init__.py": "from .einsumfunc import *\n",
    "numpy/_core/einsumfunc.py": (
        "__all__ = ['einsum']\n\n"
        "def einsum(*operands, out=None, optimize=False, **kwargs):\n"
        '    """Evaluates the Einstein summation convention on the operands."""\n'
    ),
    "numpy/linalg/__init__.py": "from ._linalg import *\n",
    "numpy/linalg/_linalg.py": (
        "__all__ = ['svd']\n\n"
        "def svd(a, full_matrices=True):\n"
        '    """Singular Value Decomposition."""\n'
    ),
    "numpy/ma/__init__.py": "from .core import *\n",
    "numpy/ma/core.py": (
        "class MaskedArray(ndarray):\n"
        '    """An array class with possibly masked values."""\n\n'
        "    def all(self, axis=None):\n"
        '        """Returns True if all elements evaluate to True."""\n'
    ),
}
PAGE = """Linear algebra
==============

.. currentmodule:: numpy

Matrix and vector products
--------------------------
.. autosummary::
   :toctree: generated/

   einsum
   linalg.svd (Array API compatible location)
   ufunc_written_in_c
   ma.MaskedArray
   ma.MaskedArray.all

.. autosummary::

   linalg.svd
"""


TEMPLATE = """{{ fullname | escape | underline}}

.. automodule:: {{ fullname }}

   {% block docstring %}
   {% endblock %}
"""


def _repo(tmp_path: Path) -> Path:
    files = {"src/" + k: v for k, v in PACKAGE.items()}
    docs = {
        "doc/source/reference/routines.rst": PAGE,
        "doc/source/conf.py": "project = 'NumPy'\ntemplates_path = ['_templates']\n",
        "doc/source/_templates/autosummary/minimal_module.rst": TEMPLATE,
    }
    return write_tree(tmp_path / "repo", {**files, **docs})


def test_each_listed_object_with_source_is_a_page_and_an_entry(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    proc = run_docsmcp(
        "build", "--docs-dir", repo / "doc/source", "--out", tmp_path / "idx",
        "--api-source", repo / "src",
    )  # fmt: skip
    assert "{{ fullname" not in proc.stderr  # (the templates folder holds no page: Sphinx's)
    out = tmp_path / "idx"
    texts = page_texts(out)
    assert not any(p.startswith("_templates/") for p in texts)
    generated = sorted(p for p in texts if "/generated/" in p)
    assert generated == [
        "reference/generated/numpy.einsum.rst",
        "reference/generated/numpy.linalg.svd.rst",
        "reference/generated/numpy.ma.MaskedArray.all.rst",
        "reference/generated/numpy.ma.MaskedArray.rst",
    ]
    assert "Evaluates the Einstein summation" in texts["reference/generated/numpy.einsum.rst"]
    with McpSession(out) as s:
        svd = s.call("get_api_reference", {"method": "numpy.linalg.svd"}).content[0].text
        all_ = s.call("get_api_reference", {"method": "numpy.ma.MaskedArray.all"}).content[0].text
        hit = s.search(query="numpy.einsum", limit=1)["hits"][0]
        title = s.call("get_page", {"path": "reference/generated/numpy.einsum.rst"})
    assert "svd(a, full_matrices=True)" in svd and "Singular Value Decomposition." in svd
    assert "all(axis=None)" in all_ and "self" not in all_
    assert hit["chunk_id"].startswith("reference/generated/numpy.einsum.rst#")
    assert "numpy.einsum" in title.content[0].text.split("\n", 1)[0]


def test_without_the_source_or_a_toctree_no_page_is_made(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    out = build_bundle(repo / "doc/source", tmp_path / "idx")
    assert list(page_texts(out)) == ["reference/routines.rst"]
    found = list(autosummary_pages._tables("a/b.rst", ".. autosummary::\n\n   x\n"))
    assert found == []  # (no `:toctree:`: Sphinx generates nothing)
    nested = ".. currentmodule:: m\n\n.. autosummary::\n   :toctree:\n\n   ~m.x\n   y (remark)\n"
    assert [(x.folder, x.module, x.name) for x in autosummary_pages._tables("a/b.rst", nested)] == [
        ("a", "m", "m.x"),
        ("a", "m", "y"),
    ]


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            [
                ".. autosummary::",
                "   :toctree: g/",
                "   x",
                "",
                "  ~a.b c",
                ".. currentmodule:: m",
                "   :toctree:",
                "\t",
            ]
        ),
        max_size=30,
    )
)
def test_any_table_reads_without_error(lines: list[str]) -> None:
    for item in autosummary_pages._tables("p/q.rst", "\n".join(lines)):
        assert item.name and not item.folder.startswith("/")
