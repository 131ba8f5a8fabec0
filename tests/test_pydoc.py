"""Python distributions read as pdoc shows them (python_package.py, pydoc.py): a repository
whose docs folder is the distribution (a README, a few pages, no API pages) gets a page per
public module, each public object a section and an API entry. The fixtures are small packages
in the shape of requests (a flat layout, `__init__.py` importing from public modules), httpx
(a package re-exporting classes of private `_client.py` in `__all__`), tqdm (numpydoc
parameters on `__init__`) and python-fire (Google-style docstrings, `*_test.py` beside the
modules), and the layouts setuptools, hatch and poetry find."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, run_docsmcp
from docsmcp.sources.files import source_roots
from docsmcp.sources.formats.source.pydoc import python_to_markdown
from docsmcp.sources.packages.python_package import distribution, modules
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "reqs"
description = "HTTP for humans, small."

[tool.setuptools.packages.find]
exclude = ["tests", "examples"]
"""

INIT = '''"""Reqs: HTTP for humans, small.

Basic use::

    >>> import reqs
    >>> reqs.get("https://example.org")
"""

from ._client import AsyncClient, Client, _Helper
from .api import get
from .sessions import Session

__all__ = ["AsyncClient", "Client", "get", "Session"]
'''

CLIENT = '''class Client:
    """An HTTP client, with connection pooling.

    Usage:

    ```python
    with reqs.Client() as client:
        client.get("https://example.org")
    ```
    """

    def __init__(self, timeout: float = 5.0, *, http2: bool = False) -> None:
        self.timeout = timeout

    def send(self, request, *, stream: bool = False):
        """Send a request and return the response."""


class AsyncClient(Client):
    """An asynchronous HTTP client."""

    async def aclose(self) -> None:
        """Close the transport and its connections."""


class _Helper:
    pass
'''

SESSIONS = '''"""Session objects: cookies and connection pooling across requests."""

from __future__ import annotations

DEFAULT_REDIRECT_LIMIT = 30
"""How many redirects a session follows."""

_internal_state = {}


class Session:
    """A persistent session that keeps cookies across requests.

    Parameters
    ----------
    trust_env : bool
        Read proxies from the environment.
    """

    max_redirects: int = 30
    """Redirects followed at most."""

    cookie_policy = None

    def __init__(self, trust_env: bool = True):
        self.trust_env = trust_env

    def get(self, url: str, **kwargs) -> "Response":
        """Sends a GET request.

        :param url: URL for the new request.
        :param kwargs: Optional arguments that ``request`` takes.
        :rtype: Response
        """

    @property
    def cookies(self) -> dict:
        """The session's cookie jar."""

    def _rebuild_auth(self):
        """Internal."""


def new_session() -> Session:
    """Returns a Session for context-management."""
    return Session()
'''

API = '''"""The simple interface: one call per HTTP method."""


def get(url, params=None, **kwargs):
    """Sends a GET request.

    Parameters
    ----------
    url : str
        URL for the new request.
    params : dict, optional
        Query string parameters.

    Returns
    -------
    Response
        The server's answer.
    """


def _private():
    pass
'''


def _repository(root: Path) -> Path:
    """A repository in requests' and httpx's shape: README, a docs folder of markdown, the
    package with private modules, tests and examples beside it."""
    files = {
        "pyproject.toml": PYPROJECT,
        "README.md": "# Reqs\n\nHTTP for humans. Install it with `pip install reqs`.\n",
        "docs/quickstart.md": "# Quickstart\n\nMake a request with `reqs.get`.\n",
        "reqs/__init__.py": INIT,
        "reqs/_client.py": CLIENT,
        "reqs/sessions.py": SESSIONS,
        "reqs/api.py": API,
        "reqs/_utils.py": '"""Helpers."""\n\ndef helper():\n    """Help."""\n',
        "reqs/compat/__init__.py": '"""Compatibility shims."""\n\nPY3 = True\n',
        "reqs/vendor/__init__.py": '"""Vendored."""\n\ndef chardet():\n    """x."""\n',
        "tests/test_api.py": "def test_get():\n    assert True\n",
        "conftest.py": "import pytest\n",
        "examples/demo.py": '"""A demo."""\n\ndef main():\n    """Run."""\n',
        "setup_helpers.py": "def build():\n    pass\n",
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def test_a_repository_without_api_pages_gets_its_modules_as_pdoc_shows_them(
    tmp_path: Path,
) -> None:
    repo = _repository(tmp_path / "reqs")
    out = build_bundle(repo, tmp_path / "idx")
    texts = page_texts(out)
    pages = sorted(p for p in texts if p.endswith(".py"))
    # public modules only: no private module, test, conftest, example, vendored code
    assert pages == [
        "reqs/__init__.py",
        "reqs/api.py",
        "reqs/compat/__init__.py",
        "reqs/sessions.py",
    ]
    sessions = texts["reqs/sessions.py"]
    assert "# reqs.sessions" in sessions
    assert "Session objects: cookies and connection pooling" in sessions
    assert (
        "## Session\n\n```python\nclass Session:\n    def __init__(self, trust_env: bool=True)"
        in (sessions)
    )
    assert "### Session.get\n\n```python\ndef get(self, url: str, **kwargs) -> 'Response'\n```" in (
        sessions
    )
    for shown in ("## Session", "### Session.get", "### Session.cookies", "## new_session"):
        assert f"{shown}\n" in sessions, shown
    assert "```python\n@property\ndef cookies(self) -> dict\n```" in sessions
    assert "## DEFAULT_REDIRECT_LIMIT" in sessions and "How many redirects" in sessions
    assert "DEFAULT_REDIRECT_LIMIT = 30" in sessions
    assert "_rebuild_auth" not in sessions and "_internal_state" not in sessions
    # a class's annotated or documented attributes (a dataclass's fields), not its others
    assert "### Session.max_redirects\n\n```python\nmax_redirects: int = 30\n```" in sessions
    assert "Redirects followed at most." in sessions and "cookie_policy" not in sessions
    # numpydoc and reST fields rendered as Sphinx shows them (autodoc's renderer)
    assert "- **trust_env** (bool) – Read proxies from the environment." in sessions
    assert "- **url** – URL for the new request." in sessions
    # the package page shows what it re-exports from its private module (httpx's shape),
    # code fences of a markdown docstring as code
    package = texts["reqs/__init__.py"]
    assert "## Client\n" in package and "### Client.send\n" in package
    assert "## AsyncClient\n" in package and "async def aclose(self) -> None" in package
    assert "with reqs.Client() as client:" in package and "```" in package
    assert "_Helper" not in package
    assert "def get(url" not in package  # (a public module's object stays on its own page)
    with McpSession(out) as s:
        lookups = {
            name: s.call("get_api_reference", {"method": name}).structured_content["entries"][0]
            for name in (
                "Session.get",
                "reqs.Session.get",
                "reqs.sessions.Session.get",
                "reqs.get",
                "reqs.api.get",
                "reqs.Client.send",
                "reqs.new_session",
                "reqs.sessions.new_session",
            )
        }
        hit = s.search(query="Session.get", limit=1)["hits"][0]
    # named as users call them: the package re-exports Session and get (`reqs.Session.get`,
    # `reqs.get`); `new_session` it does not (`reqs.sessions.new_session`), found by the
    # package's name all the same (apiref: a package's own entries of the name)
    for name in ("Session.get", "reqs.Session.get", "reqs.sessions.Session.get"):
        assert lookups[name]["name"] == "reqs.Session.get", name
    assert lookups["Session.get"]["category"] == "reqs.Session"
    assert lookups["reqs.get"]["name"] == lookups["reqs.api.get"]["name"] == "reqs.get"
    for name in ("reqs.new_session", "reqs.sessions.new_session"):
        assert lookups[name]["name"] == "reqs.sessions.new_session", name
    assert lookups["reqs.api.get"]["returns"].startswith("Response")
    assert [p["name"] for p in lookups["reqs.api.get"]["parameters"]] == [
        "url",
        "params",
        "**kwargs",
    ]
    assert lookups["reqs.Client.send"]["chunk_id"].startswith("reqs/__init__.py#")
    assert hit["chunk_id"].startswith("reqs/sessions.py#") and hit["metadata"]["role"] == (
        "generated"
    )


def test_a_package_a_page_already_renders_keeps_those_pages(tmp_path: Path) -> None:
    """mkdocstrings (`::: reqs.sessions`) or autodoc naming the package: today's pages are its
    API, and no module page doubles them."""
    repo = _repository(tmp_path / "reqs")
    (repo / "docs" / "api.md").write_text("# API\n\n::: reqs.sessions\n", encoding="utf-8")
    texts = page_texts(build_bundle(repo, tmp_path / "idx"))
    assert not [p for p in texts if p.endswith(".py")]
    assert "Session" in texts["docs/api.md"]
    (repo / "docs" / "api.md").write_text(
        "API\n===\n\n.. module:: reqs\n\n.. autofunction:: get\n", encoding="utf-8"
    )
    texts = page_texts(build_bundle(repo, tmp_path / "idx2"))
    assert not [p for p in texts if p.endswith(".py")]


def test_a_docs_folder_that_is_no_distribution_reads_no_python(tmp_path: Path) -> None:
    """A Sphinx site's `docs/` with its conf.py and a helper extension, or a distribution's
    `docs/` built alone: no page of Python, the bundle as before."""
    docs = tmp_path / "docs"
    (docs / "_ext").mkdir(parents=True)
    (docs / "index.rst").write_text("Title\n=====\n\nText.\n", encoding="utf-8")
    (docs / "conf.py").write_text('"""Sphinx configuration."""\nproject = "x"\n')
    (docs / "_ext" / "helper.py").write_text('"""A role."""\n\ndef setup(app):\n    """x."""\n')
    (docs / "helpers.py").write_text('"""Helpers."""\n\ndef public():\n    """x."""\n')
    texts = page_texts(build_bundle(docs, tmp_path / "idx"))
    assert sorted(texts) == ["index.rst"]
    repo = _repository(tmp_path / "reqs")
    texts = page_texts(build_bundle(repo / "docs", tmp_path / "idx2"))
    assert sorted(texts) == ["quickstart.md"]


GOOGLE = '''"""Fire-like command lines.

Example:
    Call it from your main module::

        fire.Fire(main)
"""


def Fire(component=None, command=None, name=None):
    """Run a command line over `component`.

    Args:
      component: The initial target component.
      command: Optional. The command to execute; if not
        supplied, it is taken from sys.argv.
      name: Optional. The name shown in help screens.

    Returns:
      The result of executing the command.

    Raises:
      ValueError: If the command is not a string or a list.
    """
'''


def test_google_style_docstrings_read_as_pdoc_and_napoleon_show_them(tmp_path: Path) -> None:
    """python-fire's shape: `Args:`/`Returns:`/`Raises:` sections are the entry's parameters,
    returns and raises (they read as bold run-on text before), a module's `Example:` is code."""
    repo = _write(
        tmp_path / "fire",
        {
            "pyproject.toml": '[project]\nname = "fire"\n[tool.setuptools]\npackages = ["fire"]\n',
            "README.md": "# Fire\n\nCommand lines from any object.\n",
            "fire/__init__.py": '"""Fire."""\n\nfrom fire.core import Fire\n\n__all__ = ["Fire"]\n',
            "fire/core.py": GOOGLE,
        },
    )
    out = build_bundle(repo, tmp_path / "idx")
    core = page_texts(out)["fire/core.py"]
    assert "**Args:**" not in core and "Args:" not in core
    assert "- **component** – The initial target component." in core
    assert "- **ValueError** – If the command is not a string or a list." in core
    with McpSession(out) as s:
        entry = s.call("get_api_reference", {"method": "fire.Fire"}).structured_content["entries"][
            0
        ]
    described = {p["name"]: p["description"] for p in entry["parameters"]}
    assert described["component"] == "The initial target component."
    assert described["command"].startswith("Optional. The command to execute; if not supplied")
    assert entry["returns"].startswith("The result of executing the command.")


def test_a_bare_name_answers_the_entry_a_reader_means_first(tmp_path: Path) -> None:
    """tqdm's `trange` answered `tqdm.auto.trange` before `tqdm.trange`, jsoup's `Elements`
    `FormElement.elements` before the class (path order): the asked case, then the shallower
    path, come first."""
    repo = _write(
        tmp_path / "tq",
        {
            "pyproject.toml": '[project]\nname = "tq"\n[tool.setuptools]\npackages = ["tq"]\n',
            "tq/__init__.py": '"""Progress."""\nfrom tq.std import trange\n__all__ = ["trange"]\n',
            "tq/auto.py": '"""Auto."""\n\n\ndef trange(n):\n    """Auto range."""\n\n\n'
            'def elements(page):\n    """The elements of a page."""\n',
            "tq/std.py": '"""Std."""\n\n\ndef trange(n):\n    """A range with a bar."""\n\n\n'
            'class Elements:\n    """A list of elements."""\n',
        },
    )
    out = build_bundle(repo, tmp_path / "idx")
    with McpSession(out) as s:
        names = {
            asked: [
                e["name"]
                for e in s.call("get_api_reference", {"method": asked}).structured_content[
                    "entries"
                ]
            ]
            for asked in ("trange", "Elements")
        }
    assert names["trange"] == ["tq.trange", "tq.auto.trange"]
    assert names["Elements"] == ["tq.std.Elements", "tq.auto.elements"]


def _write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


MODULE = '"""A module."""\n\ndef run():\n    """Run."""\n'


def _pages(root: Path) -> dict[str, str]:
    listed = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    return modules(root, source_roots(root), listed).pages


def test_packages_are_found_as_the_build_backends_find_them(tmp_path: Path) -> None:
    # the src layout, found automatically (tests beside it are no package)
    src = _write(
        tmp_path / "a",
        {
            "pyproject.toml": '[project]\nname = "alpha"\n',
            "src/alpha/__init__.py": MODULE,
            "src/alpha/core.py": MODULE,
            "tests/__init__.py": "",
            "tests/test_core.py": MODULE,
        },
    )
    assert _pages(src) == {"src/alpha/__init__.py": "alpha", "src/alpha/core.py": "alpha.core"}
    # setup.cfg's package_dir and find, setup.py's literal list (python-fire's `*_test.py`)
    cfg = _write(
        tmp_path / "b",
        {
            "setup.cfg": "[metadata]\nname = beta\n\n[options]\npackage_dir =\n    =lib\n"
            "packages = find:\n\n[options.packages.find]\nwhere = lib\n",
            "lib/beta/__init__.py": MODULE,
            "lib/beta/parser.py": MODULE,
            "lib/beta/parser_test.py": MODULE,
            "beta_old/__init__.py": MODULE,
        },
    )
    assert _pages(cfg) == {"lib/beta/__init__.py": "beta", "lib/beta/parser.py": "beta.parser"}
    setup = _write(
        tmp_path / "c",
        {
            "setup.py": "from setuptools import setup\nsetup(name='gamma', "
            "packages=['gamma', 'gamma.console'], py_modules=['gamma_compat'])\n",
            "gamma/__init__.py": MODULE,
            "gamma/console/__init__.py": MODULE,
            "gamma_compat.py": MODULE,
            "scripts/release.py": MODULE,
        },
    )
    assert _pages(setup) == {
        "gamma/__init__.py": "gamma",
        "gamma/console/__init__.py": "gamma.console",
        "gamma_compat.py": "gamma_compat",
    }
    # hatch's wheel packages, poetry's packages
    hatch = _write(
        tmp_path / "d",
        {
            "pyproject.toml": '[project]\nname = "delta-x"\n\n'
            '[tool.hatch.build.targets.wheel]\npackages = ["src/delta"]\n',
            "src/delta/__init__.py": MODULE,
            "src/other/__init__.py": MODULE,
        },
    )
    assert _pages(hatch) == {"src/delta/__init__.py": "delta"}
    poetry = _write(
        tmp_path / "e",
        {
            "pyproject.toml": '[tool.poetry]\nname = "eps"\npackages = [{include = "eps", '
            'from = "python"}]\n',
            "python/eps/__init__.py": MODULE,
            "python/eps/sub.py": MODULE,
        },
    )
    assert _pages(poetry) == {"python/eps/__init__.py": "eps", "python/eps/sub.py": "eps.sub"}
    # a pyproject without [project] (a tool's settings only) is no distribution
    tools = _write(
        tmp_path / "f", {"pyproject.toml": "[tool.ruff]\nline-length = 100\n", "x/__init__.py": ""}
    )
    assert distribution(tools, source_roots(tools)) is None


def test_a_module_that_is_not_python_says_so_in_one_line(tmp_path: Path) -> None:
    repo = _repository(tmp_path / "reqs")
    (repo / "reqs" / "broken.py").write_text('"""Broken."""\n\ndef f(:\n', encoding="utf-8")
    proc = run_docsmcp("build", "--docs-dir", repo, "--out", tmp_path / "idx")
    said = [x for x in proc.stderr.splitlines() if "broken.py" in x]
    assert len(said) == 1 and "not read as Python (line 3)" in said[0], proc.stderr
    assert "Traceback" not in proc.stderr
    assert "reqs/broken.py" not in page_texts(tmp_path / "idx")
    assert open_bundle(tmp_path / "idx").n_chunks > 0


_NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)


@st.composite
def _modules(draw: st.DrawFn) -> str:
    """Module texts of definitions, docstrings (numpydoc, Google, fences, reST) and noise."""
    parts = []
    for _ in range(draw(st.integers(0, 6))):
        name = draw(_NAMES)
        doc = draw(
            st.sampled_from(
                [
                    "",
                    '"""Short."""',
                    '"""X.\n\n    Parameters\n    ----------\n    a : int\n        A.\n    """',
                    '"""X.\n\n    Args:\n        a: A.\n    """',
                    '"""X.\n\n    ```python\n    x = 1\n    ```\n    """',
                    '""":param a: A.\n    :rtype: int\n    """',
                    '"""``unclosed\n\n    .. note::\n    """',
                ]
            )
        )
        kind = draw(st.sampled_from(["def", "async def", "class", "const"]))
        if kind == "const":
            parts.append(f"{name.upper()} = {draw(st.integers())}\n{doc}\n")
        elif kind == "class":
            parts.append(f"class {name}:\n    {doc or 'pass'}\n    x: int = 1\n    {doc}\n"
                         f"    def m(self, a=1):\n        {doc or 'pass'}\n")  # fmt: skip
        else:
            parts.append(f"{kind} {name}(a, *b, c: int = 2, **d) -> int:\n    {doc or 'pass'}\n")
    noise = draw(st.text(max_size=40))
    return "\n\n".join(parts) + draw(st.sampled_from(["", "\n" + noise]))


@FUZZ
@given(_modules())
def test_any_module_converts_without_raising_and_maps_its_lines(text: str) -> None:
    body = "#@docsmcp-python module=pkg.mod\n" + text
    page = python_to_markdown("pkg/mod.py", body)
    lines = page.text.split("\n")
    assert len(page.line_map) == len(lines) or page.text == ""
    assert list(page.line_map) == sorted(page.line_map)
    assert all(0 <= n <= body.count("\n") for n in page.line_map)
    for entry in page.api:
        assert entry.name.startswith("pkg.mod.")
        assert 1 <= entry.line_start <= entry.line_end <= len(lines)
        assert lines[entry.line_start - 1].startswith("#")


@FUZZ
@given(st.text(max_size=300), st.sampled_from(["pyproject.toml", "setup.cfg", "setup.py"]))
def test_any_configuration_is_read_without_raising(tmp_path_factory, text: str, name: str) -> None:
    root = tmp_path_factory.mktemp("cfg")
    (root / name).write_text(text, encoding="utf-8", errors="replace")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text(MODULE, encoding="utf-8")
    found = distribution(root, source_roots(root))
    assert found is None or all(isinstance(v, str) for v in found.packages.values())
