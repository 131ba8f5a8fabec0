"""The Google-style section parser (googledoc.py) and the two renderers built on it: napoleon's
reST (napoleon.py) and mkdocstrings' markdown (docstring_md.py)."""

from __future__ import annotations

import ast

from conftest import FUZZ
from docsmcp.sources.formats.rst import napoleon
from docsmcp.sources.formats.source import docstring_md, googledoc
from hypothesis import given
from hypothesis import strategies as st

DOC = [
    "Summary.",
    "",
    "Args:",
    "    name (str): The name.",
    "    *args: Passed on.",
    "    mapping (dict[str, int]): Counts: one per key.",
    "        More about it.",
    "",
    "Returns:",
    "    dict[str, Any]: The result",
    "    over two lines.",
    "",
    "Raises:",
    "    ValueError: If bad.",
    "",
    "Usage:",
    "    not a section napoleon knows",
]


def test_sections_and_items() -> None:
    sections = googledoc.parse(DOC)
    kinds = [s.kind for s in sections]
    assert kinds == [googledoc.TEXT, googledoc.PARAMS, googledoc.RETURNS, googledoc.RAISES,
                     googledoc.TEXT]  # fmt: skip
    params = sections[1].items
    assert params[0] == googledoc.Item("name", "str", ("The name.",))
    assert params[1] == googledoc.Item("*args", "", ("Passed on.",))
    # a colon inside the type's brackets or the text is no separator; continuation dedented
    assert params[2] == googledoc.Item(
        "mapping", "dict[str, int]", ("Counts: one per key.", "More about it.")
    )
    # a plain line goes on with the returned value, as napoleon reads it
    assert sections[2].items == (
        googledoc.Item("", "dict[str, Any]", ("The result", "over two lines.")),
    )
    assert sections[3].items == (googledoc.Item("", "ValueError", ("If bad.",)),)
    assert sections[4].body == ("Usage:", "    not a section napoleon knows")


def test_griffe_needs_a_blank_line_above_a_title_napoleon_does_not() -> None:
    doc = ["Summary.", "Args:", "    x: The x."]
    assert googledoc.parse(doc)[1].kind == googledoc.PARAMS
    assert [s.kind for s in googledoc.parse(doc, blank_above=True)] == [googledoc.TEXT]
    # griffe: any `Word:` over an indented block is an admonition
    doc = ["", "Usage Documentation:", "    See the guide."]
    assert googledoc.parse(doc, blank_above=True, any_admonition=True)[0].kind == "admonition"
    assert not googledoc.has_sections(doc)


def test_titles_inside_fenced_code_are_text() -> None:
    doc = ["```python", "Args:", "    x = 1", "```"]
    assert googledoc.parse(doc) == [googledoc.Section(googledoc.TEXT, "", body=tuple(doc))]


def test_split_colon_skips_roles_code_and_brackets() -> None:
    assert googledoc.split_colon("x (:class:`Foo`): text") == ("x (:class:`Foo`)", "text")
    assert googledoc.split_colon("`a:b`: text") == ("`a:b`", "text")
    assert googledoc.split_colon("no colon here") is None
    assert googledoc.split_colon("a:: b") is None


def test_napoleon_reads_the_sections_as_numpydocs_fields() -> None:
    out = napoleon.to_rest(DOC, napoleon.Settings())
    assert ":param name:" in out and ":type name: str" in out
    assert ":param \\*args:" in out
    assert ":rtype: dict[str, Any]" in out and ":raises ValueError:" in out
    assert napoleon.to_rest(DOC, napoleon.Settings(google=False)) == DOC
    note = ["Text.", "", "Note:", "    Careful.", "", "Example:", "    >>> 1"]
    assert napoleon.to_rest(note, napoleon.Settings()) == [
        "Text.", "", ".. note::", "", "   Careful.", "", ".. rubric:: Example", "", ">>> 1",
    ]  # fmt: skip


def test_napoleon_settings_from_conf_py(tmp_path) -> None:
    (tmp_path / "conf.py").write_text(
        "extensions = ['sphinx.ext.napoleon']\nnapoleon_use_admonition_for_examples = True\n"
    )
    found = napoleon.settings(tmp_path)
    assert found.google and found.admonition_for_examples
    (tmp_path / "conf.py").write_text("extensions = ['sphinx.ext.autodoc']\n")
    assert not napoleon.settings(tmp_path).google
    (tmp_path / "conf.py").write_text(
        "extensions = ['sphinx.ext.napoleon']\nnapoleon_google_docstring = False\n"
    )
    assert not napoleon.settings(tmp_path).google


def test_markdown_list_style_and_generator_types() -> None:
    source = '''
def items(n: int) -> Iterator[str]:
    """Items.

    Args:
        n: How many.

    Yields:
        One item.
    """
'''
    node = ast.parse(source).body[0]
    out = docstring_md.render(node, docstring_md.Options(section_style="list"))
    assert "**Parameters:**" in out and "- **`n`** (`int`) – How many." in out
    assert "- `str` – One item." in out


LINES = st.sampled_from(
    [
        "Args:",
        "Arguments:",
        "Returns:",
        "Raises:",
        "Yields:",
        "Attributes:",
        "Examples:",
        "Note:",
        "Warning: Careful",
        "Keyword Args:",
        "See Also:",
        "    x (int): text",
        "    y: a: b",
        "    (str): value",
        "    int: value",
        "        more",
        "    `a:b` (:class:`T`): t",
        "    >>> f(1)",
        "    *args",
        "```",
        "",
        "Plain text:",
        "text (",
        "\t tabbed:",
        ":param x: y",
    ]
)


@FUZZ
@given(st.lists(LINES, max_size=40), st.booleans(), st.booleans())
def test_any_docstring_parses_and_renders(lines: list[str], blank: bool, anyadm: bool) -> None:
    sections = googledoc.parse(lines, blank_above=blank, any_admonition=anyadm)
    # every line is read once: the text, titles and bodies never hold more lines than given
    held = sum(len(s.body) + sum(len(i.description) for i in s.items) for s in sections)
    assert held <= len(lines)
    for s in sections:
        assert s.kind in {googledoc.TEXT, googledoc.ADMONITION, *googledoc.KINDS.values()}
        assert all(isinstance(i.name, str) and isinstance(i.type, str) for i in s.items)
    if all(s.kind == googledoc.TEXT for s in sections):  # (no title: the text as given)
        stripped = list(lines)
        while stripped and not stripped[-1].strip():
            stripped.pop()
        assert [x for s in sections for x in s.body] == stripped
    out = napoleon.to_rest(lines, napoleon.Settings())
    assert all(isinstance(x, str) for x in out)
    node = ast.parse('def f(x: int = 1, *a, **k) -> int:\n    """doc"""\n').body[0]
    node.body[0].value.value = "\n".join(lines) or "x"  # type: ignore[attr-defined]
    for style in ("google", "numpy", "sphinx", "auto", ""):
        for section_style in ("table", "list"):
            rendered = docstring_md.render(node, docstring_md.Options(style, section_style))
            assert all(isinstance(x, str) for x in rendered)


def test_site_options_from_mkdocs_yml(tmp_path) -> None:
    (tmp_path / "docs").mkdir()
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "plugins:\n  - mkdocstrings:\n      handlers:\n        python:\n          options:\n"
        "            docstring_style: numpy\n            docstring_section_style: list\n"
    )
    assert docstring_md.site_options(tmp_path / "docs") == docstring_md.Options("numpy", "list")
    # a style of another type, an unknown one, a file that is no YAML: no error, no parsing
    assert docstring_md.options_from({"docstring_style": ["google"]}).style == ""
    assert docstring_md.options_from({"docstring_style": "restructured"}).style == ""
    config.write_text("plugins: [\n")
    assert docstring_md.site_options(tmp_path / "docs") == docstring_md.Options()
