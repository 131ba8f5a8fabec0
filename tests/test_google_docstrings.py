"""Google-style docstrings read as the site shows them: a mkdocstrings page (`::: pkg.mod`, the
Python handler's default `docstring_style: google`) shows Parameters/Raises/Returns tables with
the signature's types and defaults, Examples as code and Note as an admonition; a Sphinx page
of autodoc directives in a project with napoleon shows napoleon's fields. Either way the API
entry holds the parameters (pydantic had 305 entries and none with a parameter)."""

from __future__ import annotations

from pathlib import Path

from conftest import build_bundle, page_texts, write_tree
from mcp_client import McpSession

SOURCE = '''"""Clients of the acme service."""


class Client:
    """A connection to the service.

    Attributes:
        timeout: Seconds to wait for an answer.
    """

    timeout: float = 5.0

    def fetch(self, key: str, *, strict: bool | None = None, retries: int = 3) -> bytes:
        """Fetch one value.

        Args:
            key: The key to read.
            strict: Whether to refuse stale values.
                A stale value is one older than the timeout.
            retries (int): How many times to try again.

        Returns:
            The value as stored.

        Raises:
            KeyError: If the key is absent.

        Examples:
            Read a key:

            >>> Client().fetch("a")  # doctest: +SKIP
            b"1"

        Note:
            Values are never cached.
        """
'''

NUMPY_SOURCE = '''
def scale(x: float, factor: float = 2.0) -> float:
    """Scale a value.

    Parameters
    ----------
    x : float
        The value.
    factor
        The factor.

    Returns
    -------
    float
        The scaled value.
    """
'''

SPHINX_SOURCE = '''
def scale(x: float, factor: float = 2.0) -> float:
    """Scale a value.

    :param x: The value.
    :param factor: The factor.
    :returns: The scaled value.
    :raises ValueError: If x is negative.
    """
'''


def _mkdocs_site(tmp_path: Path, source: str, options: str = "") -> Path:
    config = "site_name: acme\nplugins:\n  - search\n  - mkdocstrings:\n      handlers:\n"
    config += "        python:\n          paths: [src]\n" + options
    repo = write_tree(
        tmp_path / "repo",
        {
            "mkdocs.yml": config,
            "docs/index.md": "# Acme\n\nA client.\n",
            "docs/api.md": "# API\n\n::: acme.client\n    options:\n      show_source: false\n",
            "src/acme/__init__.py": "",
            "src/acme/client.py": source,
        },
    )
    return build_bundle(repo / "docs", tmp_path / "idx", "--api-source", repo / "src")


def test_mkdocstrings_page_shows_the_sections_as_mkdocstrings_does(tmp_path: Path) -> None:
    bundle = _mkdocs_site(tmp_path, SOURCE)
    text = page_texts(bundle)["api.md"]
    assert "Args:" not in text and "Returns:\n" not in text
    assert "**Parameters:**\n\n| Name | Type | Description | Default |" in text
    assert "| `key` | `str` | The key to read. | *required* |" in text
    # the type and default the signature gives; text over two lines in one cell
    assert (
        "| `strict` | `bool \\| None` | Whether to refuse stale values. A stale value is one"
        " older than the timeout. | `None` |"
    ) in text
    assert "| `retries` | `int` | How many times to try again. | `3` |" in text
    assert "**Returns:**\n\n| Type | Description |\n| --- | --- |\n| `bytes` | The value" in text
    assert "**Raises:**\n\n| Type | Description |\n| --- | --- |\n| `KeyError` | If the" in text
    assert "| `timeout` | `float` | Seconds to wait for an answer. |" in text  # (annotated)
    assert '**Examples:**\n\nRead a key:\n\n```python\n>>> Client().fetch("a")\n' in text
    assert "doctest" not in text
    assert "Note\nValues are never cached." in text  # (an admonition, as mkdocs shows it)
    with McpSession(bundle) as s:
        entry = s.call("get_api_reference", {"method": "acme.client.Client.fetch"})
    body = entry.content[0].text
    assert not entry.is_error and "Whether to refuse stale values" in body
    assert "The key to read." in body and "bool | None" in body
    # (the Default column: *required*, or a default that makes it optional)
    assert '"name":"key","type":"str","required":true' in body
    assert '"name":"retries","type":"int","required":false' in body


def test_the_sites_docstring_style_is_honoured(tmp_path: Path) -> None:
    numpy = _mkdocs_site(
        tmp_path / "n", NUMPY_SOURCE, "          options:\n            docstring_style: numpy\n"
    )
    text = page_texts(numpy)["api.md"]
    assert "| `x` | `float` | The value. | *required* |" in text
    assert "| `factor` | `float` | The factor. | `2.0` |" in text
    assert "| `float` | The scaled value. |" in text and "----------" not in text
    sphinx = _mkdocs_site(
        tmp_path / "s", SPHINX_SOURCE, "          options:\n            docstring_style: sphinx\n"
    )
    text = page_texts(sphinx)["api.md"]
    assert ":param" not in text and "| `x` | `float` | The value. | *required* |" in text
    assert "| `ValueError` | If x is negative. |" in text
    plain = _mkdocs_site(
        tmp_path / "p", SOURCE, "          options:\n            docstring_style: null\n"
    )
    assert "Args:\n    key: The key to read." in page_texts(plain)["api.md"]


NAPOLEON_PAGE = "Client\n======\n\n.. autoclass:: acme.client.Client\n   :members:\n"


def _sphinx_site(tmp_path: Path, conf: str) -> Path:
    repo = write_tree(
        tmp_path / "repo",
        {
            "docs/conf.py": conf,
            "docs/index.rst": "Acme\n====\n\n.. toctree::\n\n   client\n",
            "docs/client.rst": NAPOLEON_PAGE,
            "src/acme/__init__.py": "",
            "src/acme/client.py": SOURCE,
        },
    )
    return build_bundle(repo / "docs", tmp_path / "idx", "--api-source", repo / "src")


def test_napoleon_renders_google_sections_in_autodoc(tmp_path: Path) -> None:
    conf = 'extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]\n'
    conf += "napoleon_use_admonition_for_examples = True\n"
    bundle = _sphinx_site(tmp_path, conf)
    text = page_texts(bundle)["client.rst"]
    assert "Args:" not in text
    assert "Parameters:\n- **key** – The key to read." in text
    assert "- **retries** (int) – How many times to try again." in text
    assert "Raises:\n- **KeyError** – If the key is absent." in text
    assert '```pycon\n>>> Client().fetch("a")' in text  # (a doctest block: code)
    with McpSession(bundle) as s:
        body = s.call("get_api_reference", {"method": "acme.client.Client.fetch"}).content[0]
    assert "Whether to refuse stale values" in body.text and "The key to read." in body.text


def test_without_napoleon_sphinx_shows_the_docstring_as_written(tmp_path: Path) -> None:
    bundle = _sphinx_site(tmp_path, 'extensions = ["sphinx.ext.autodoc"]\n')
    text = page_texts(bundle)["client.rst"]
    assert "Parameters:\n- **key**" not in text and "key: The key to read." in text


APP_SOURCE = '''
class App:
    """The application."""

    def __init__(self, debug: bool = False, max_body: int | None = 1000) -> None:
        """Make an application.

        Args:
            debug: Whether to show tracebacks.
            max_body: The largest request body, in bytes.
        """

    def run(self) -> None:
        """Serve until stopped."""

    def _private(self) -> None:
        """Not shown."""
'''


def test_automodule_members_document_classes_members_and_init(tmp_path: Path) -> None:
    """Litestar's `.. automodule:: litestar.app` with `:members:` and conf.py's
    `special-members: __init__`: Sphinx shows `Litestar`'s methods and its `__init__`, whose
    `Args:` are the application's parameters (the page had the class's summary only)."""
    conf = 'extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]\n'
    conf += 'autodoc_default_options = {"special-members": "__init__", "members": True}\n'
    repo = write_tree(
        tmp_path / "repo",
        {
            "docs/conf.py": conf,
            "docs/index.rst": "Acme\n====\n\n.. toctree::\n\n   app\n",
            "docs/app.rst": "app\n===\n\n.. automodule:: acme.app\n    :members:\n",
            "src/acme/__init__.py": "",
            "src/acme/app.py": APP_SOURCE,
        },
    )
    bundle = build_bundle(repo / "docs", tmp_path / "idx", "--api-source", repo / "src")
    text = page_texts(bundle)["app.rst"]
    assert "Serve until stopped." in text and "Not shown." not in text
    assert "- **max_body** – The largest request body, in bytes." in text
    with McpSession(bundle) as s:
        init = s.call("get_api_reference", {"method": "acme.app.App.__init__"}).content[0].text
    assert '"name":"max_body","type":"int | None"' in init and "largest request body" in init


def test_merge_init_into_class_shows_init_in_the_class(tmp_path: Path) -> None:
    """pydantic's mkdocs.yml: `merge_init_into_class: true` and `ignore_init_summary`: the
    class shows its `__init__`'s docstring (less its summary line) and parameters, and no
    `__init__` of its own; an `@overload` stub gives no type or default."""
    stub = "    @overload\n    def __init__(self, debug: int = ...) -> None: ...\n\n"
    source = APP_SOURCE.replace("    def __init__", stub + "    def __init__")
    options = "          options:\n            merge_init_into_class: true\n"
    options += "            docstring_options:\n              ignore_init_summary: true\n"
    repo_text = page_texts(
        _mkdocs_site(tmp_path, "from typing import overload\n" + source, options)
    )
    text = repo_text["api.md"]
    assert "`acme.client.App.__init__`" not in text and "Make an application." not in text
    assert "The application.\n\n**Parameters:**" in text
    assert "| `debug` | `bool` | Whether to show tracebacks. | `False` |" in text
