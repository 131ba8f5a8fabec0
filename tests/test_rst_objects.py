"""Sphinx object descriptions in the API registry (issue 27, item 5): a real extract of Sphinx's own
docs (tests/fixtures/sphinx-domains/SOURCE.txt: the Python, JavaScript, C and reST domains and
the application API) built into a bundle and looked up with `get_api_reference`; code roles
resolved as references to the objects of the corpus; hostile object markup stays bounded; and
identifiers written with a leading `.`, `$`, `--` found as written."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conftest import build_bundle, run_docsmcp
from docsmcp.sources.formats.rst.rst import rst_to_markdown
from docsmcp_runtime.search.analyzer import AnalyzerConfig, analyze
from mcp_client import McpSession

SPHINX = Path(__file__).resolve().parent / "fixtures" / "sphinx-domains"


@pytest.fixture(scope="module")
def sphinx_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(SPHINX, tmp_path_factory.mktemp("sphinx-domains") / "idx")


def call(session: McpSession, **arguments: object) -> dict:
    result = session.call("get_api_reference", arguments)
    assert not result.is_error, result
    assert result.structured_content is not None
    return result.structured_content


def entry(session: McpSession, method: str) -> dict:
    return call(session, method=method)["entries"][0]


def test_python_objects_are_qualified_by_module_and_class(sphinx_bundle: Path) -> None:
    with McpSession(sphinx_bundle) as s:
        # `.. currentmodule:: sphinx.application` then `.. attribute:: Sphinx.outdir`
        outdir = entry(s, "sphinx.application.Sphinx.outdir")
        assert outdir["name"] == "sphinx.application.Sphinx.outdir"
        assert outdir["kind"] == "attribute"
        assert outdir["category"] == "Sphinx runtime information"
        assert outdir["description"] == "Directory for storing built document."
        assert outdir["chunk_id"].startswith("extdev/appapi.rst#")
        # the tails of the qualified name find it too
        for tail in ("Sphinx.outdir", "outdir", "application.Sphinx.outdir"):
            assert entry(s, tail)["name"] == outdir["name"], tail
        # `:no-index:` objects are examples, as in Sphinx: not entries
        error = s.tool_error("get_api_reference", {"method": "Timer.repeat"})
        assert "not found" in error.lower() or "no " in error.lower()


def test_field_lists_give_parameters_returns_and_raises(sphinx_bundle: Path) -> None:
    with McpSession(sphinx_bundle) as s:
        send = entry(s, "send_message")
        assert send["kind"] == "method"
        assert send["signature"] == "send_message(sender, recipient, message_body, [priority=1])"
        params = {p["name"]: p for p in send["parameters"]}
        assert list(params) == ["sender", "recipient", "message_body", "priority"]
        assert params["sender"] == {
            "name": "sender",
            "type": "str",
            "required": True,
            "description": "The person sending the message",
        }
        assert params["priority"]["type"] == "int or None"
        assert params["priority"]["required"] is False  # `[priority=1]`
        assert send["returns"] == "int: the message id"
        assert send["description"] == (
            "Send a message to a recipient Raises: ValueError, TypeError."
        )
        assert send["source"]["file"] == "usage/domains/python.rst"


def test_javascript_c_and_rst_domains(sphinx_bundle: Path) -> None:
    with McpSession(sphinx_bundle) as s:
        get_json = entry(s, "$.getJSON")  # the `$` is part of the name
        assert get_json["kind"] == "method"
        assert get_json["signature"] == "$.getJSON(href, callback[, errback])"
        href, callback, errback = get_json["parameters"]
        assert (href["name"], href["type"], href["required"]) == ("href", "string", True)
        assert errback["name"] == "errback"
        assert get_json["returns"] == "Something."
        assert entry(s, "getJSON")["name"] == "$.getJSON"
        animal = entry(s, "MyAnimal")
        assert animal["kind"] == "type"
        assert [p["type"] for p in animal["parameters"]] == ["string", "number"]
        alloc = entry(s, "PyType_GenericAlloc")  # c:function
        assert alloc["kind"] == "method"
        assert [(p["name"], p["type"]) for p in alloc["parameters"]] == [
            ("type", "PyTypeObject *"),
            ("nitems", "Py_ssize_t"),
        ]
        directive = entry(s, "py:currentmodule")  # rst:directive `.. py:currentmodule:: name`
        assert (directive["kind"], directive["category"]) == ("directive", "The Python Domain")
        assert entry(s, "py:function:async")["kind"] == "option"  # rst:directive:option
        assert entry(s, "rst:dir")["kind"] == "role"
        listing = call(s, limit=500)
        kinds = {e["kind"] for group in listing["categories"].values() for e in group}
        assert kinds >= {"method", "type", "attribute", "directive", "role", "option"}


def test_code_roles_resolve_to_objects_of_the_corpus(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "api.rst").write_text(
        "API\n===\n\n.. module:: pathlib\n\nPaths\n-----\n\n"
        ".. class:: Path(*pathsegments)\n\n   A concrete path.\n\n"
        "   .. method:: read_text(encoding=None, errors=None, newline=None)\n\n"
        "      Return the decoded contents of the pointed-to file as a string.\n\n"
        "      :param encoding: the text encoding\n      :type encoding: str\n"
        "      :rtype: str\n\n"
        ".. option:: -v, --verbose\n\n   Talk more.\n"
    )
    (docs / "guide.rst").write_text(
        "Guide\n=====\n\nRead a file with :meth:`pathlib.Path.read_text`, "
        "count it with :func:`len`.\n"
    )
    res = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", "--json")
    refs = json.loads(res.stdout)["references"]
    # the role naming an object of the corpus resolves; `len` (a builtin) counts for nothing
    assert (refs["found"], refs["resolved"]) == (1, 1)
    with McpSession(tmp_path / "idx") as s:
        read_text = entry(s, "pathlib.Path.read_text")  # nested in `.. class:: Path`
        assert read_text["signature"] == "read_text(encoding=None, errors=None, newline=None)"
        assert read_text["parameters"][0] == {
            "name": "encoding",
            "type": "str",
            "required": False,
            "description": "the text encoding",
        }
        assert read_text["returns"] == "str"
        hit = s.search(query="read a file count it", limit=1, expand_references=True)["hits"][0]
        assert hit["chunk_id"] == "guide.rst#guide"
        assert [r["id"] for r in hit["references"]] == [read_text["chunk_id"]]
        assert "Read a file with `pathlib.Path.read_text`" in s.get_doc("guide.rst#guide")
        # options keep their dashes, and are found without them too
        assert entry(s, "--verbose")["name"] == "--verbose"
        assert entry(s, "verbose")["name"] == "--verbose"
        assert entry(s, "-v")["signature"] == "-v, --verbose"


def test_hostile_object_markup_stays_bounded() -> None:
    params = ", ".join(f"p{i}=None" for i in range(20_000))
    huge = f"Title\n=====\n\n.. function:: f({params})\n\n   Body.\n"
    start = time.process_time()
    out = rst_to_markdown("huge.rst", huge)
    (e,) = out.api
    assert len(e.parameters) <= 64 and len(e.signature) <= 300
    nested = "Title\n=====\n\n" + "".join("   " * i + f".. class:: C{i}\n\n" for i in range(60))
    out = rst_to_markdown("deep.rst", nested)
    names = [e.name for e in out.api]
    assert len(names) <= 60 and (not names or names[0] == "C0")
    if len(names) > 1:
        assert names[1] == "C0.C1"
    assert time.process_time() - start < 20


def test_identifiers_keep_their_leading_punctuation() -> None:
    config = AnalyzerConfig()
    assert analyze("the .Call interface", config).terms == [".call", "call", "interface"]
    assert analyze("$crate::x", config).terms[:2] == ["$crate", "crate"]
    assert analyze("use --no-color", config).terms == [
        "use",
        "--no-color",
        "no-color",
        "no",
        "color",
    ]
    assert analyze("__init__", config).terms == ["__init__", "init"]
    # not a sigil: inside a word, before a digit, after a separator
    assert analyze("x--y $5 x/.y", config).terms == ["x", "y", "5", "x", "y"]


def test_a_dotted_name_search_prefers_the_page_that_writes_it(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "calls.md").write_text(
        "# Calling functions\n\nA call evaluates a function. Every call returns a value; "
        "call it again to call it twice.\n"
    )
    (docs / "native.md").write_text(
        "# Native interfaces\n\nCompiled code is reached through `.Call` from R code.\n"
    )
    build_bundle(docs, tmp_path / "idx")
    with McpSession(tmp_path / "idx") as s:
        assert s.search(query=".Call", limit=1)["hits"][0]["filepath"] == "native.md"


def test_dunder_names_stay_names() -> None:
    """`__slots__` in a reST heading or emphasis is text, not markdown's bold "slots"; the
    analyzer keeps a dunder part whole (`object.__slots__` gives `__slots__`)."""
    out = rst_to_markdown("d.rst", "__slots__\n=========\n\n*__slots__* reserve space.\n")
    assert out.title == "__slots__"
    assert out.text == "# \\_\\_slots__\n\n*\\_\\_slots__* reserve space.\n"
    config = AnalyzerConfig()
    assert analyze("object.__slots__", config).terms[:2] == ["object.__slots__", "__slots__"]


SCOPES = """Options
=======

.. program:: python

.. option:: -m module

   Run a library module as a script.

.. program:: None

.. option:: --global

   An option of no program.

C++ API
=======

.. cpp:namespace:: mylib

.. cpp:function:: int add(int a, int b)

   Add two numbers.

.. cpp:namespace-push:: detail

.. cpp:class:: Helper

   A helper.

.. cpp:namespace-pop::

.. cpp:function:: void reset()

   Reset everything.

C API
=====

.. c:namespace:: A.B

.. c:function:: int f(int x)

   Eff.

.. c:namespace:: NULL

.. c:function:: int g(void)

   Gee.
"""


def test_programs_and_namespaces_qualify_what_follows(tmp_path: Path) -> None:
    """`program` qualifies the options after it as Sphinx's inventory names them (`python
    -m`); C/C++ `namespace`, `namespace-push` and `namespace-pop` scope the objects after them
    (issue 27: they were shown as stray text and scoped nothing)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "api.rst").write_text(SCOPES, encoding="utf-8")
    out = build_bundle(docs, tmp_path / "idx")
    with McpSession(out) as s:
        for asked, name in [
            ("python -m", "python -m"),
            ("-m", "python -m"),
            ("--global", "--global"),
            ("add", "mylib::add"),
            ("detail::Helper", "mylib::detail::Helper"),
            ("reset", "mylib::reset"),  # popped back to mylib
            ("A.B.f", "A.B.f"),
            ("g", "g"),  # NULL: the global scope
        ]:
            assert entry(s, asked)["name"] == name, asked
        page = s.call("get_page", {"path": "api.rst"})
    text = page.content[0].text
    assert "`python`" not in text and "mylib" not in text  # scopes show nothing, as in Sphinx


def test_a_declaration_before_the_section_named_for_it_belongs_to_that_section(
    tmp_path: Path,
) -> None:
    """Scrapy and Django declare a setting right before its section (`.. setting::
    DOWNLOAD_DELAY`, then a `DOWNLOAD_DELAY` heading). docutils leaves the declaration at the end
    of the section before: DOWNLOADER_STATS's text ended with "DOWNLOAD_DELAY" and the API
    registry gave that section for DOWNLOAD_DELAY (none of Scrapy's 200 settings had its own).
    An autodoc stub at the end of its own section stays there."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "settings.rst").write_text(
        "Settings\n========\n\n.. setting:: DOWNLOADER_STATS\n\nDOWNLOADER_STATS\n"
        "----------------\n\nWhether to enable downloader stats collection.\n\n"
        ".. setting:: DOWNLOAD_DELAY\n\nDOWNLOAD_DELAY\n--------------\n\n"
        "Minimum seconds to wait between consecutive requests.\n\n"
        ".. reqmeta:: download_timeout\n\ndownload_timeout\n----------------\n\nSeconds.\n\n"
        "Application\n-----------\n\n.. autoclass:: Flask\n   :members:\n\n"
        "Blueprints\n----------\n\nMore.\n"
    )
    out = build_bundle(docs, tmp_path / "idx")
    with McpSession(out) as s:
        stats = s.get_doc("settings.rst#settings/downloaderstats")
        assert "DOWNLOAD_DELAY" not in stats and "downloader stats collection" in stats
        # A project's own directive (Scrapy's `reqmeta`, unknown here) is moved the same way.
        assert "download_timeout" not in s.get_doc("settings.rst#settings/downloaddelay")
        delay = call(s, method="DOWNLOAD_DELAY")["entries"][0]
        assert delay["chunk_id"] == "settings.rst#settings/downloaddelay", delay
        assert delay["category"] == "Settings"  # what encloses its section, not the one before
        assert "Flask" in s.get_doc("settings.rst#settings/application")
        assert "Flask" not in s.get_doc("settings.rst#settings/blueprints")


def test_type_subscripts_are_kept_and_only_optional_brackets_dropped() -> None:
    """`t.IO[t.Any]` was read `t.IOt.Any`: every bracket was taken for Sphinx's optional
    marker (`a[, b]`)."""
    from docsmcp.sources.formats.rst.rst_objects import signature_parameters

    def shown(domain: str, signature: str) -> list[tuple[str, str, bool | None]]:
        return [(p.name, p.type, p.required) for p in signature_parameters(domain, signature)]

    assert shown("py", "echo(message: t.Any | None = None, file: t.IO[t.Any] | None = None)") == [
        ("message", "t.Any | None", False),
        ("file", "t.IO[t.Any] | None", False),
    ]
    assert shown("py", "g(x: dict[str, int], y=[1, 2])") == [
        ("x", "dict[str, int]", True),
        ("y", "", False),
    ]
    assert shown("js", "f(a[, b[, c]])") == [("a", "", True), ("b", "", False), ("c", "", False)]
    assert shown("py", "f([a])") == [("a", "", False)]
