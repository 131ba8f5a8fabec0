"""Saved HTML sites as docs (issue 11, item 3): real builds of a Sphinx project (an extract of
Flask's docs) and of a mkdocs-material site (tests/fixtures/html-*/SOURCE.txt), built into
bundles and read back through the official `mcp` SDK client; plus bounded fuzzing of the HTML
converter."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest
from conftest import FUZZ, build_bundle, run_docsmcp
from docsmcp.sources.formats.html.html_tree import MAX_DEPTH
from docsmcp.sources.formats.html.htmlpage import html_to_markdown
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession, text_of

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SPHINX = FIXTURES / "html-sphinx"
MKDOCS = FIXTURES / "html-mkdocs"
# What a page's chrome or HTML markup would leave in the text if it were not dropped.
LEFTOVERS = re.compile(r"</?[a-z]+[ >]|¶|Skip to content|Navigation|Quick search|&[a-z]+;")


@pytest.fixture(scope="module")
def sphinx_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(SPHINX, tmp_path_factory.mktemp("sphinx") / "idx")


@pytest.fixture(scope="module")
def mkdocs_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(MKDOCS, tmp_path_factory.mktemp("mkdocs") / "idx")


def test_a_sphinx_site_reads_cleanly(sphinx_bundle: Path) -> None:
    meta = json.loads((sphinx_bundle / "metadata.json").read_text())
    assert meta["stats"]["files"] == 6  # search.html, a generated page, is left out
    with McpSession(sphinx_bundle) as s:
        hit = s.search(query="debug mode reload", limit=1)["hits"][0]
        assert hit["chunk_id"] == "quickstart.html#quickstart/debug-mode"
        assert hit["breadcrumb"] == "quickstart.html > Quickstart > Debug Mode"
        text = s.get_doc("quickstart.html#quickstart/a-minimal-application")
        assert "```python\nfrom flask import Flask\n" in text  # highlight-python kept
        install = s.get_doc("installation.html#installation/install-flask")
        assert "```sh\n$ pip install Flask\n```" in install
        assert "[Quickstart](quickstart.html)" in install  # links kept as written
        venv = s.get_doc("installation.html#installation/virtual-environments")
        # sphinx-tabs: each tab's label, then its panel
        assert "macOS/Linux\n\n```\n$ mkdir myproject" in venv
        assert "Windows\n\n```\n> mkdir myproject" in venv
        for chunk_id in (hit["chunk_id"], "installation.html#installation/dependencies"):
            body = s.get_doc(chunk_id)
            assert not LEFTOVERS.search(body), LEFTOVERS.search(body)
        assert s.tool_error("get_doc", {"chunk_id": "search.html"})


def test_sphinx_links_between_pages_resolve(tmp_path: Path) -> None:
    res = run_docsmcp("build", "--docs-dir", SPHINX, "--out", tmp_path / "idx", "--json")
    refs = json.loads(res.stdout)["references"]
    # Every link to a page of the site resolves (index.html's toctree, quickstart.html#anchors);
    # the rest point at api.html, which the fixture leaves out.
    text = "".join(p.read_text() for p in SPHINX.rglob("*.html"))
    to_api = len(re.findall(r'href="(?:\.\./)?api\.html', text))
    assert refs["found"] - refs["resolved"] <= to_api + 2
    assert refs["resolved"] >= 38


def test_a_mkdocs_material_site_reads_cleanly(mkdocs_bundle: Path) -> None:
    meta = json.loads((mkdocs_bundle / "metadata.json").read_text())
    assert meta["stats"]["files"] == 4  # 404.html is left out
    with McpSession(mkdocs_bundle) as s:
        page = json.loads(text_of(s.call("get_page", {"path": "index.html"})))
        assert page["title"] == "Acme widgets"
        home = "\n".join(_strings(page))  # every text of the page, whatever key holds it
        assert "# Acme widgets" in home
        assert "Warning: Rate limits\n\nMore than 100 requests" in home  # admonition label
        assert "```python\nfrom acme import Client" in home  # language-python
        assert not LEFTOVERS.search(home), LEFTOVERS.search(home)
        errors = s.get_doc("guides/errors/index.html#errors/error-codes")
        assert "| 429 | `RateLimitError` | yes |" in errors  # tables as pipe rows
        hits = s.search(query="exponential backoff retries", limit=1)["hits"]
        assert hits[0]["filepath"] == "guides/errors/index.html"
        assert hits[0]["heading"] == "Retries"


def _strings(value: object):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def test_mkdocs_directory_links_resolve(tmp_path: Path) -> None:
    res = run_docsmcp("build", "--docs-dir", MKDOCS, "--out", tmp_path / "idx", "--json")
    refs = json.loads(res.stdout)["references"]
    assert refs["found"] >= 3 and refs["resolved"] == refs["found"]  # guides/errors/#retries


def test_html_beside_markdown_is_not_indexed(tmp_path: Path) -> None:
    """In a source folder, .html files are templates (mkdocs overrides/): only a folder without
    markdown or reST is read as a saved site."""
    docs = tmp_path / "docs"
    (docs / "overrides").mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n\nHello.\n")
    (docs / "overrides" / "main.html").write_text("{% extends 'base.html' %}<p>template</p>")
    res = run_docsmcp("validate", "--docs-dir", docs)
    assert res.stdout.startswith("ok: 1 files")


def test_a_saved_site_is_byte_identical_across_builds(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(MKDOCS, site)
    a = build_bundle(site, tmp_path / "a", "--no-cache")
    b = build_bundle(site, tmp_path / "b", "--workers", "1")
    c = build_bundle(site, tmp_path / "b", "--workers", "2")  # from the parse cache
    del c
    meta_a = json.loads((a / "metadata.json").read_text())
    meta_b = json.loads((b / "metadata.json").read_text())
    assert meta_a["bundle_id"] == meta_b["bundle_id"]


# --- the converter alone -------------------------------------------------------------------


def test_converter_structure() -> None:
    page = """<html><head><title>T — Site</title></head><body>
    <nav><a href="/">Home</a></nav><header>Site header</header>
    <main><h1>Title<a class="headerlink" href="#t">¶</a></h1>
    <p>Intro with <code>x()</code>, <strong>bold</strong> and <a href="b.html#y">a link</a>.
    <p># not a heading
    <ul><li>one<li>two<ul><li>nested</ul></ul>
    <table><tr><th>A<th>B<tr><td>1<td>x|y</table>
    <div class="admonition note"><p class="admonition-title">Note</p><p>Careful.</p></div>
    <pre class="language-rust"><code>fn main() {}</code></pre>
    </main><footer>Footer text</footer></body></html>"""
    out = html_to_markdown(page)
    assert out.title == "Title"
    assert out.text == (
        "# Title\n\n"
        "Intro with `x()`, **bold** and [a link](b.html#y).\n\n"
        "\\# not a heading\n\n"
        "- one\n- two\n\n  - nested\n\n"
        "| A | B |\n|---|---|\n| 1 | x\\|y |\n\n"
        "Note\n\nCareful.\n\n"
        "```rust\nfn main() {}\n```\n"
    )


def test_content_tabs_keep_their_labels() -> None:
    """mkdocs-material (pymdownx.tabbed, alternate style, as mkdocs 1.6 writes it) and
    sphinx-design tab sets: each label, then its panel."""
    material = (
        '<main><div class="tabbed-set tabbed-alternate" data-tabs="1:2">'
        '<input checked="checked" id="__tabbed_1_1" name="__tabbed_1" type="radio" />'
        '<input id="__tabbed_1_2" name="__tabbed_1" type="radio" /><div class="tabbed-labels">'
        '<label for="__tabbed_1_1">Python</label><label for="__tabbed_1_2">TypeScript</label>'
        '</div><div class="tabbed-content"><div class="tabbed-block"><div class="language-python'
        ' highlight"><pre><span></span><code>pip install acme\n</code></pre></div></div>'
        '<div class="tabbed-block"><div class="language-ts highlight"><pre><span></span><code>'
        "npm install acme\n</code></pre></div></div></div></div><p>After.</p></main>"
    )
    assert html_to_markdown(material).text == (
        "Python\n\n```python\npip install acme\n```\n\n"
        "TypeScript\n\n```ts\nnpm install acme\n```\n\nAfter.\n"
    )
    design = (
        '<main><div class="sd-tab-set docutils"><input checked="checked" id="sd-tab-item-0" '
        'name="sd-tab-set-0" type="radio"><label class="sd-tab-label" for="sd-tab-item-0">'
        'pip</label><div class="sd-tab-content docutils"><p>pip install x</p></div>'
        '<input id="sd-tab-item-1" name="sd-tab-set-0" type="radio"><label class="sd-tab-label"'
        ' for="sd-tab-item-1">uv</label><div class="sd-tab-content docutils"><p>uv add x</p>'
        "</div></div></main>"
    )
    assert html_to_markdown(design).text == "pip\n\npip install x\n\nuv\n\nuv add x\n"


def test_title_falls_back_to_the_title_element() -> None:
    assert html_to_markdown("<title> Only  a title </title><p>x</p>").title == "Only a title"


@pytest.mark.slow  # ~3-5 s alone
def test_deep_nesting_is_flattened_not_a_crash() -> None:
    deep = "<div>" * 50_000 + "<p>deep text</p>" + "</div>" * 50_000
    assert "deep text" in html_to_markdown(deep).text
    assert MAX_DEPTH < 300


@FUZZ
@given(
    st.lists(
        st.one_of(
            st.sampled_from(
                [
                    "<p>",
                    "</p>",
                    "<ul>",
                    "<li>",
                    "</ul>",
                    "<table>",
                    "<tr>",
                    "<td>",
                    "<th>",
                    "</table>",
                    "<pre>",
                    "</pre>",
                    "<code>",
                    "</code>",
                    "<h2>",
                    "</h2>",
                    "<a href='x.html'>",
                    "</a>",
                    "<nav>",
                    "</nav>",
                    "<br>",
                    "<!--",
                    "-->",
                    "<main>",
                    "&amp;",
                    "`",
                    "|",
                    "\n",
                ]
            ),
            st.text(max_size=20),
        ),
        max_size=60,
    )
)
def test_fuzz_any_html_converts_deterministically(parts: list[str]) -> None:
    page = "".join(parts)
    first = html_to_markdown(page)
    assert first == html_to_markdown(page)
    assert first.text == "" or first.text.endswith("\n")


def test_links_to_element_ids_resolve(tmp_path: Path) -> None:
    """Sphinx links to API entries by their element id (`api.html#pkg.func`), not a heading:
    the converter keeps each id's line, so the link resolves to the chunk holding it."""
    site = tmp_path / "site"
    site.mkdir()
    entries = "".join(
        f'<dl class="py function"><dt class="sig" id="pkg.f{i}">pkg.f{i}(x)'
        f'<a class="headerlink" href="#pkg.f{i}">¶</a></dt><dd><p>Does {i}.</p></dd></dl>'
        for i in range(3)
    )
    (site / "api.html").write_text(
        f'<div role="main"><h1>API</h1><h2 id="funcs">Functions</h2>{entries}'
        "<h2>Other</h2><p>More.</p></div>"
    )
    (site / "guide.html").write_text(
        '<main><h1>Guide</h1><p>Call <a href="api.html#pkg.f2"><code>f2</code></a>, '
        'see <a href="api.html#funcs">functions</a> and <a href="api.html#nowhere">x</a>.'
        "</p></main>"
    )
    res = run_docsmcp("build", "--docs-dir", site, "--out", tmp_path / "idx", "--json")
    refs = json.loads(res.stdout)["references"]
    assert (refs["found"], refs["resolved"]) == (3, 2)
    out = html_to_markdown((site / "api.html").read_text())
    assert "`pkg.f1(x)`\n\nDoes 1." in out.text and "\x00" not in out.text
    lines = out.text.split("\n")
    assert [(lines[n], name) for n, name in out.anchors][:2] == [
        ("## Functions", "funcs"),
        ("`pkg.f0(x)`", "pkg.f0"),
    ]


@pytest.mark.parametrize(
    ("name", "page", "within"),
    [
        # html.parser alone rescans to the end from each unclosed construct: minutes
        ("unclosed comments", "<!--" * 200_000, 2.0),
        ("unclosed tags", "<a " * 200_000, 5.0),
        ("unclosed declarations", "<!x" * 200_000, 5.0),
        ("unclosed processing instructions", "<?x" * 200_000, 5.0),
        ("unclosed end tags", "</x" * 200_000, 5.0),
        ("unclosed attribute quotes", '<a href="' * 100_000, 5.0),
        pytest.param(  # ~1 s
            "many script tags", "<script></script>" * 50_000, 5.0, marks=pytest.mark.slow
        ),
        pytest.param(  # ~1 s
            "deep rows", "<table>" + "<tr><td>x" * 20_000 + "</table>", 5.0, marks=pytest.mark.slow
        ),
    ],
)
def test_hostile_html_converts_in_linear_time(name: str, page: str, within: float) -> None:
    # CPU time, not wall time: the bound tells linear from quadratic (minutes), whatever else
    # shares the machine.
    started = time.process_time()
    html_to_markdown(page)
    assert time.process_time() - started < within, name


def test_colspan_cannot_multiply_a_page() -> None:
    page = "<table><tr>" + '<td colspan="50">x' * 20_000 + "</table>"
    out = html_to_markdown(page)
    assert len(out.text) < 3 * len(page)  # not 20,000 x 50 padded cells
    assert out.text.count("x") == 20_000


def test_large_pages_and_generated_indexes(tmp_path: Path) -> None:
    """An HTML page may be larger than a markdown file (markup is most of it), and Sphinx's
    generated indexes (genindex-all.html, often the largest page) are left out unread."""
    site = tmp_path / "site"
    site.mkdir()
    script = "<script>var searchIndex = [" + '"entry",' * 300_000 + "];</script>"
    (site / "big.html").write_text(
        f"<html><head>{script}</head><main><h1>Big</h1><p>last words</p></main></html>"
    )
    assert (site / "big.html").stat().st_size > 2 * 1024 * 1024
    (site / "genindex-all.html").write_text("<main><h1>Index</h1></main>" + "x" * 9_000_000)
    (site / "genindex-A.html").write_text("<main><h1>Index A</h1></main>")
    res = run_docsmcp("build", "--docs-dir", site, "--out", tmp_path / "idx", "--json")
    assert json.loads(res.stdout)["files"] == 1
    with McpSession(tmp_path / "idx") as s:
        assert s.search(query="last words", limit=1)["hits"][0]["filepath"] == "big.html"


def test_text_never_becomes_a_table() -> None:
    """A delimiter row in a paragraph's text would make markdown-it build a table (of a size
    the converter does not bound): it is escaped."""
    out = html_to_markdown("<p>" + "|" * 1000 + "<br>" + "-|" * 1000 + "<br>x</p>")
    assert "\\|" in out.text.split("\n")[1]


def test_nested_tables_cost_what_they_hold() -> None:
    """Each nesting level walked the inner tables' rows again as its own (issue 31: 18 levels
    in a 725-byte page took 26 s and 2.1 GB). A nested table is its cell's content, once."""
    depth = 40
    page = "<main><h1>T</h1>" + "<table><tr><td>" * depth + "deepest"
    page += "</td></tr></table>" * depth + "<table><tr><th>A</th></tr><tr><td>1</td></tr>"
    page += "<tbody><tr><td>2</td></tr></tbody></table></main>"
    started = time.process_time()
    out = html_to_markdown(page)
    assert time.process_time() - started < 2  # (~5 ms; 17 levels took 12 s before)
    assert out.text.count("deepest") == 1
    assert "| A |\n|---|\n| 1 |\n| 2 |" in out.text  # rows of thead/tbody still the table's


def test_a_page_in_its_declared_charset(tmp_path: Path) -> None:
    """Older saved sites are windows-1252: decoded as the page declares; a page that is not
    UTF-8 and declares nothing (or a charset its bytes do not fit) is one line naming it."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "old.html").write_bytes(
        b'<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
        b"</head><body><main><h1>Caf\xe9</h1><p>\x93Quoted\x94 na\xefve text</p></main></body>"
        b"</html>"
    )
    run_docsmcp("build", "--docs-dir", site, "--out", tmp_path / "idx", "--quiet")
    with McpSession(tmp_path / "idx") as s:
        hit = s.search(query="naïve", limit=1)["hits"][0]
        assert hit["heading"] == "Café"
        assert "\u201cQuoted\u201d naïve text" in s.get_doc(hit["chunk_id"])
    (site / "bad.html").write_bytes(b"<main><h1>Bad</h1><p>\xff\xfe</p></main>")
    res = run_docsmcp("validate", "--docs-dir", site, check=False)
    assert res.returncode == 1
    assert "bad.html:1: not valid UTF-8 at column 22 (byte 0xff)" in res.stderr
