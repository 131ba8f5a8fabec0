"""NumPy-style docstrings (numpydoc.py) read as Sphinx renders them: a page of an autodoc'd
function in NumPy's shape shows its Parameters, Returns, Raises, See Also, Notes and Examples,
and its API entry holds the parameters' types and text, the returns, and the signature the
docstring's first line gives."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.formats.rst import numpydoc
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

SOURCE = '''
def svd(a, full_matrices=True, *args, **kwargs):
    """
    svd(a, full_matrices=True,
        compute_uv=True)

    Singular Value Decomposition.

    When `a` is a 2D array, it is factorized as ``u @ np.diag(s) @ vh``.

    Parameters
    ----------
    a : (..., M, N) array_like
        A real or complex array with ``a.ndim >= 2``.
    full_matrices : bool, optional
        If True (default), `u` and `vh` have the shapes ``(..., M, M)``.

        Otherwise, the shapes are ``(..., M, K)``.
    *args
        Passed on.

    Returns
    -------
    U : { (..., M, M), (..., M, K) } array
        Unitary array(s).
    S : (..., K) array
        Vector(s) with the singular values.

    Raises
    ------
    LinAlgError
        If SVD computation does not converge.

    See Also
    --------
    scipy.linalg.svd : Similar function in SciPy.
    eig, eigh

    Notes
    -----
    The decomposition is performed using LAPACK routine ``_gesdd``.

    Examples
    --------
    >>> U, S, Vh = np.linalg.svd(a, full_matrices=True)
    >>> U.shape
    (9, 9)
    """


def join() -> list:
    """join()

    Wait for all crawlers.
    """


def eig(a):
    """
    Compute the eigenvalues of a square array.

    Parameters
    ----------
    a : (..., M, M) array

    Returns
    -------
    ndarray
        The eigenvalues.
    """
'''
PAGE = """Linear algebra
==============

.. currentmodule:: acme.linalg

.. autofunction:: svd

.. autofunction:: eig

.. autofunction:: join
"""


def _bundle(tmp_path: Path) -> Path:
    repo = write_tree(
        tmp_path / "repo",
        {"src/acme/__init__.py": "", "src/acme/linalg.py": SOURCE, "docs/linalg.rst": PAGE},
    )
    return build_bundle(repo / "docs", tmp_path / "idx", "--api-source", repo / "src")


def test_sections_read_as_sphinx_shows_them(tmp_path: Path) -> None:
    text = page_texts(_bundle(tmp_path))["linalg.rst"]
    assert "`svd(a, full_matrices=True, compute_uv=True)`" in text  # the docstring's own
    assert "svd(a, full_matrices=True,\n" not in text
    assert "Parameters:\n- **a** ((..., M, N) array_like) – A real or complex array" in text
    # a parameter of two paragraphs keeps them, under its item
    assert "`(..., M, M)`.\n\n  Otherwise, the shapes are `(..., M, K)`." in text
    assert "- **\\*args**" not in text and "- ***args**" in text
    assert "Returns:\n- **U** ({ (..., M, M), (..., M, K) } array) – Unitary array(s)." in text
    assert "Raises:\n- **LinAlgError** – If SVD computation does not converge." in text
    assert "See also\n\n- `scipy.linalg.svd` – Similar function in SciPy.\n- `eig`, `eigh`" in text
    assert "Notes\n\nThe decomposition is performed" in text
    assert "Examples\n\n```pycon\n>>> U, S, Vh = np.linalg.svd(a, full_matrices=True)" in text
    assert "`join() -> list`\n\nWait for all crawlers." in text  # (the code's return kept)
    assert "----------" not in text and "**a : (..., M, N) array_like**" not in text


def test_the_entry_holds_parameters_returns_and_the_written_signature(tmp_path: Path) -> None:
    with McpSession(_bundle(tmp_path)) as s:
        svd = s.call("get_api_reference", {"method": "acme.linalg.svd"}).content[0].text
        eig = s.call("get_api_reference", {"method": "acme.linalg.eig"}).content[0].text
    assert "svd(a, full_matrices=True, compute_uv=True)" in svd
    assert "(..., M, N) array_like" in svd and "A real or complex array" in svd
    assert "Unitary array(s)." in svd
    assert "ndarray" in eig and "The eigenvalues." in eig


def test_other_titled_sections_are_rubrics_in_an_object_headings_in_a_module() -> None:
    """Scrapy's scheduler docstring titles "Start request order" (dropped inside the class's
    description); Celery's `celery.states` module docstring has "States" and "Sets" headings
    over subsections, which stay headings of the page."""
    doc = ["Summary.", "", "Start request order", "-------------------", "", "Text."]
    assert numpydoc.to_rest(doc) == ["Summary.", "", ".. rubric:: Start request order", "",
                                     "Text."]  # fmt: skip
    module = ["States", "------", "", "Text.", "", "Notes", "-----", "", "A note."]
    assert numpydoc.to_rest(module, known_only=True) == [
        "States", "------", "", "Text.", "", ".. rubric:: Notes", "", "A note.",
    ]  # fmt: skip
    raises = ["Raises", "------", "ImproperlyConfigured:", "    if pyArango is missing."]
    assert numpydoc.to_rest(raises)[0] == ":raises ImproperlyConfigured:"


def test_docstrings_without_sections_and_signatures_of_other_names_stay() -> None:
    plain = ["Summary.", "", "Text --- with dashes.", "----"]
    assert numpydoc.to_rest(plain) == plain  # ("----" under a sentence is no title)
    assert numpydoc.split_signature(["svd(a)", "", "Text."], "eig") == (
        None,
        ["svd(a)", "", "Text."],
    )
    assert numpydoc.split_signature(["a, b = eig(x)", "", "T."], "eig") == ("(x)", ["T."])


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            [
                "Parameters",
                "----------",
                "x : int",
                "    text",
                "",
                "Returns",
                "-------",
                "int",
                "See Also",
                "--------",
                "f : g",
                "a, b",
                "  *",
                "Examples",
                ">>> 1",
                "Warnings",
            ]
        ),
        max_size=40,
    )
)
def test_any_docstring_converts_without_error(lines: list[str]) -> None:
    out = numpydoc.to_rest(lines)
    assert isinstance(out, list) and all(isinstance(x, str) for x in out)
    numpydoc.split_signature(lines, "x")
