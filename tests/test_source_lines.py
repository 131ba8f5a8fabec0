"""Line numbers of converted pages (issue 11): every line a bundle stores for a .rst or saved
.html page (chunks, code blocks, API entries, the page's line count) is a line of the source
file, checked by reading the real fixtures (Flask's reST extract, its Sphinx HTML build, a
mkdocs-material site) at those lines; `source.lines` of hits over MCP; and bounded fuzzing of
the line maps (monotone, within the file)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import FUZZ, build_bundle
from docsmcp.sources.formats.html.htmlpage import html_to_markdown
from docsmcp.sources.formats.linemap import line_mark, take_lines
from docsmcp.sources.formats.rst.rst import rst_to_markdown
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SITES = {
    "flask-rst": FIXTURES / "flask-rst",
    "html-sphinx": FIXTURES / "html-sphinx",
    "html-mkdocs": FIXTURES / "html-mkdocs",
}
_TAG = re.compile(r"<[^>]*>")
_WORD = re.compile(r"\w+")


@pytest.fixture(scope="module", params=sorted(SITES))
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    docs = SITES[request.param]
    return docs, build_bundle(docs, tmp_path_factory.mktemp(request.param) / "idx")


def _words(text: str, path: str = "") -> list[str]:
    """The words of text, lowercased: of an HTML page's text (`path`) without tags and with
    entities resolved."""
    if path.endswith(".html"):
        text = html.unescape(_TAG.sub(" ", text))
    return [w.lower() for w in _WORD.findall(text)]


def _flat(text: str, path: str = "") -> str:
    """`text` with its whitespace runs as one space: of an HTML page's text without tags and
    with entities resolved."""
    if path.endswith(".html"):
        text = html.unescape(_TAG.sub("", text))
    return " ".join(text.split())


def _source(docs: Path, path: str, start: int, end: int) -> str:
    """Lines start..end (1-based, inclusive) of a source file."""
    lines = (docs / path).read_text(encoding="utf-8").split("\n")
    assert 1 <= start <= end <= len(lines), (path, start, end, len(lines))
    return "\n".join(lines[start - 1 : end])


_PART = re.compile(r"-part-\d+$")


def _converted(path: str) -> bool:
    return path.endswith((".rst", ".html"))


def test_chunk_lines_name_the_heading_in_the_source(site) -> None:
    docs, bundle = site
    chunks = pq.read_table(bundle / "chunks.parquet").to_pylist()
    checked = 0
    previous: dict[str, int] = {}
    for c in chunks:
        if not _converted(c["path"]):
            continue
        # Chunks of a page follow each other in its lines.
        assert c["line_start"] >= previous.get(c["path"], 1), c["id"]
        previous[c["path"]] = c["line_start"]
        _source(docs, c["path"], c["line_start"], c["line_end"])  # within the file
        if c["level"] == 0 or not c["heading"] or _PART.search(c["id"]):
            continue  # a later part of a long section starts inside it, not at its heading
        # The chunk's first line (a heading: a short section may be merged into the next one)
        # is the range's first line, and the chunk's own heading is in the range.
        top = c["text"].split("\n", 1)[0]
        assert top.startswith("#"), c["id"]
        first = _source(docs, c["path"], c["line_start"], c["line_start"])
        assert set(_words(top)) <= set(_words(first, c["path"])), (c["id"], top, first)
        lines = _source(docs, c["path"], c["line_start"], c["line_end"]).split("\n")
        heading = set(_words(c["heading"]))
        assert any(heading <= set(_words(line, c["path"])) for line in lines), c["id"]
        checked += 1
    assert checked >= 10


def test_code_block_lines_hold_the_code(site) -> None:
    docs, bundle = site
    chunks = pq.read_table(bundle / "chunks.parquet").to_pylist()
    code = pq.read_table(bundle / "code.parquet").to_pylist()
    checked = 0
    for block in code:
        chunk = chunks[block["row"]]
        if not _converted(chunk["path"]):
            continue
        text = chunk["text"][block["start"] : block["end"]]
        lines = [line for line in text.split("\n") if line.strip()]
        source = _source(docs, chunk["path"], block["line_start"], block["line_end"])
        # The first and last lines of the code are on the block's lines, in order.
        first, last = _flat(lines[0]), _flat(lines[-1])
        flat = [_flat(line, chunk["path"]) for line in source.split("\n")]
        at = next((i for i, s in enumerate(flat) if first in s), None)
        assert at is not None, (chunk["id"], lines[0], source)
        assert any(last in s for s in flat[at:]), (chunk["id"], lines[-1], source)
        checked += 1
    assert checked >= 2


def test_api_entries_and_page_line_counts_are_the_files(site) -> None:
    docs, bundle = site
    pages = pq.read_table(bundle / "pages.parquet").to_pylist()
    for page in pages:
        if _converted(page["path"]):
            text = (docs / page["path"]).read_text(encoding="utf-8")
            assert page["line_count"] == len(text.split("\n")), page["path"]
    chunks = pq.read_table(bundle / "chunks.parquet").to_pylist()
    for entry in pq.read_table(bundle / "api.parquet").to_pylist():
        path = chunks[entry["row"]]["path"]
        if _converted(path):
            source = _source(docs, path, entry["line_start"], entry["line_end"])
            # A Sphinx object's name is qualified by its module (`flask.request`): the page
            # writes its last part (`.. data:: request`).
            written = entry["name"].rpartition(".")[2].lower()
            assert written in html.unescape(source).lower(), (entry["name"], source)


@pytest.mark.slow  # builds, a server
def test_hits_over_mcp_name_source_lines_that_hold_the_chunk(tmp_path: Path) -> None:
    bundle = build_bundle(SITES["flask-rst"], tmp_path / "idx")
    with McpSession(bundle) as s:
        hit = s.search(query="debug mode reloader interactive debugger", limit=1)["hits"][0]
        assert hit["chunk_id"] == "quickstart.rst#quickstart/debug-mode"
        start, end = hit["source"]["lines"]
        source = _source(SITES["flask-rst"], hit["source"]["file"], start, end)
        assert source.split("\n")[0] == "Debug Mode"  # the heading's own line
        assert "$ flask --app hello run --debug" in source
        assert ".. warning::" in source
        # The next section starts after this one ends.
        assert "HTML Escaping" not in source
    meta = json.loads((bundle / "metadata.json").read_text())
    assert meta["stats"]["files"] == 7


# --- fuzzing -------------------------------------------------------------------------------------


def _check_map(source: str, text: str, line_map: tuple[int, ...]) -> None:
    count = source.count("\n") + 1
    assert len(line_map) == text.count("\n") + 1
    assert all(0 <= line < count for line in line_map)
    assert all(a <= b for a, b in zip(line_map, line_map[1:], strict=False))


_RST_PARTS = st.sampled_from(
    [
        "Title\n=====\n",
        "=====\nOver\n=====\n",
        "Sub\n---\n",
        "text *em* ``code`` :func:`f`\n",
        "::\n\n    code\n    more\n",
        ".. code-block:: python\n   :caption: x\n\n   x = 1\n",
        ".. note::\n   body\n",
        ".. unknownthing:: arg\n\n   inner\n",
        "- a\n- b\n\n  - c\n",
        "term\n   definition\n",
        ":field: value\n",
        "   quoted\n",
        "+---+---+\n| a | b |\n+---+---+\n",
        "=== ===\na   b\n=== ===\n",
        ".. _label:\n",
        ">>> 1 + 1\n2\n",
        "\x01",
        "\n",
        "\t",
    ]
)


@pytest.mark.slow  # fuzz, ~1 s
@FUZZ
@given(st.lists(st.one_of(_RST_PARTS, st.text(max_size=20)), max_size=14))
def test_fuzz_rst_line_map_is_monotone_and_in_the_file(parts: list[str]) -> None:
    source = "\n".join(parts)
    done = rst_to_markdown("page.rst", source)
    _check_map(source, done.text or "", done.line_map)


_HTML_PARTS = st.sampled_from(
    [
        "<h1>T</h1>",
        "<h2 id='x'>S\n</h2>",
        "<p>a\nb</p>",
        "<pre>\n\ncode\n  more\n</pre>",
        "<div class='highlight-python'><pre><span></span>x = 1\ny\n</pre></div>",
        "<ul><li>a</li>\n<li><p>b</p></li></ul>",
        "<table><tr><td>a</td><td>b\n</td></tr></table>",
        "<!-- c\nomment -->",
        "<!DOCTYPE\nhtml>",
        "<br>",
        "<main>",
        "</main>",
        "<script>\nx<y\n</script>",
        "<dl><dt class='sig'>f(\nx)</dt><dd>d</dd></dl>",
        "&amp;\n",
        "\x01",
        "<",
        "\n",
    ]
)


@FUZZ
@given(st.lists(st.one_of(_HTML_PARTS, st.text(max_size=20)), max_size=16))
def test_fuzz_html_line_map_is_monotone_and_in_the_file(parts: list[str]) -> None:
    source = "".join(parts)
    done = html_to_markdown(source)
    _check_map(source, done.text or "", done.line_map)


@FUZZ
@given(
    st.lists(
        st.tuples(st.one_of(st.none(), st.integers(-3, 60)), st.text("ab \x00", max_size=4)),
        max_size=30,
    ),
    st.integers(0, 40),
)
def test_fuzz_take_lines(lines: list[tuple[int | None, str]], count: int) -> None:
    text = "\n".join(line_mark(mark) + rest for mark, rest in lines)
    body, line_map = take_lines(text, count)
    assert body == "\n".join(rest for _, rest in lines)
    assert len(line_map) == len(body.split("\n"))
    assert all(0 <= line <= max(count - 1, 0) for line in line_map)
    assert all(a <= b for a, b in zip(line_map, line_map[1:], strict=False))
    # A marked line gets its mark whenever the marks before it are lower and it is in range.
    highest = -1
    for (mark, _), got in zip(lines, line_map, strict=False):
        if mark is not None and mark >= 0:
            if highest <= mark < count:
                assert got == mark
            highest = max(highest, mark)


def test_source_url_and_get_page_name_lines_of_the_html_file(tmp_path: Path) -> None:
    docs = SITES["html-sphinx"]
    template = "https://example.com/{path}#L{line_start}-L{line_end}"
    bundle = build_bundle(docs, tmp_path / "idx", "--source-url", template)
    with McpSession(bundle) as s:
        hit = s.search(query="HTML escaping markupsafe escape", limit=1)["hits"][0]
        assert hit["chunk_id"] == "quickstart.html#quickstart/html-escaping"
        start, end = hit["source"]["lines"]
        assert hit["source"]["url"] == f"https://example.com/quickstart.html#L{start}-L{end}"
        source = _source(docs, "quickstart.html", start, end)
        assert source.startswith("<h2>HTML Escaping")  # the heading's own line
        assert source.count("<h2>") == 1  # and ends before the next section
        result = s.call("get_page", {"path": "quickstart.html"})
        assert not result.is_error
        page = result.structured_content
        first, last = page["source"]["lines"]
        assert "<h1>Quickstart" in _source(docs, "quickstart.html", first, first)
        assert last <= len((docs / "quickstart.html").read_text(encoding="utf-8").split("\n"))
