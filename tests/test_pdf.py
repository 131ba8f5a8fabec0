"""PDF manuals as sources (issue 10): real PDFs written by the tests (tests/pdf_fixtures.py),
built by the real CLI and served by the real runtime over MCP stdio; bad input (encrypted,
damaged, HTML, scanned, broken outlines) as one line each; the layout rules and the
section-lookup parser fuzzed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pdf_fixtures as fx
import pytest
import tomllib
from conftest import FUZZ, REPO, run_docsmcp
from docsmcp.sources.pdf import extract as pdf_module
from docsmcp.sources.pdf.cached import PdfCache, extract
from docsmcp.sources.pdf.extract import PdfError, read_pdf
from docsmcp.sources.pdf.layout import assemble
from docsmcp.sources.pdf.model import Line, Link, OutlineEntry
from docsmcp.sources.pdf.reading import clean, split_number
from docsmcp.sources.pdf.tables import find_tables, render
from docsmcp_runtime.browse.sections import section_query
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession, text_of


def _build(docs: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run_docsmcp("build", "--docs-dir", docs, "--out", out, *extra, check=False)


@pytest.fixture(scope="module")
def manual_bundle(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("pdf")
    docs = root / "docs"
    docs.mkdir()
    fx.manual(docs / "manual.pdf")
    (docs / "guide.md").write_text("# Guide\n\nA markdown page beside the PDF about widgets.\n")
    (docs / ".docs-mcp.json").write_text(
        json.dumps(
            {
                "version": "1",
                "metadata": {"product": "widget"},
                "overrides": [{"pattern": "*.pdf", "metadata": {"kind": "manual"}}],
            }
        )
    )
    proc = _build(docs, root / "bundle")
    assert proc.returncode == 0, proc.stderr
    return root / "bundle", proc.stderr


@pytest.fixture(scope="module")
def session(manual_bundle: tuple[Path, str]):
    with McpSession(manual_bundle[0]) as s:
        yield s


def test_pdf_chunks_have_outline_headings_section_ids_and_pages(session: McpSession) -> None:
    hits = session.search(query="WIDGET_MAX_THREADS")["hits"]
    top = hits[0]
    assert top["filepath"] == "manual.pdf"
    assert top["heading"] == "Options"  # the number is the section id, not heading text
    assert top["breadcrumb"] == "manual.pdf > Reference > Options"
    assert top["section_id"] == "2.1"
    assert top["source"]["file"] == "manual.pdf"
    assert top["source"]["pages"] == [2, 2]
    # manifest + override, and the page role (a manual is reference)
    assert top["metadata"] == {"kind": "manual", "product": "widget", "role": "reference"}
    # the markdown page beside it has lines only
    md = session.search(query="markdown page beside")["hits"][0]
    assert md["filepath"] == "guide.md" and "pages" not in md["source"]


def test_pdf_text_is_clean(session: McpSession) -> None:
    hit = session.search(query="installer configuration restart")["hits"][0]
    assert hit["heading"] == "Installing"
    text = session.get_doc(hit["chunk_id"])
    assert "the configuration is read again" in text  # hyphenation joined
    assert "```\nwidget install --prefix /opt/widget\nif ready:\n" in text  # code block
    assert "\n    start_widget(R_registerRoutines)\n" in text  # indentation rebuilt
    assert "## Installing" in text
    page = session.call("get_page", {"path": "manual.pdf"})
    assert not page.is_error, text_of(page)
    body = page.structured_content["text"]
    assert "Widget Manual   " not in body  # running headers dropped
    assert not any(line.strip().isdigit() for line in body.splitlines())  # page numbers too
    # the identifier stays one searchable word
    assert session.search(query="R_registerRoutines")["hits"][0]["heading"] == "Installing"


def test_pdf_metadata_fills_title_and_description(session: McpSession) -> None:
    page = session.call("get_page", {"path": "manual"}).structured_content
    assert page["path"] == "manual.pdf"
    assert page["title"] == "Widget Manual"
    assert page["frontmatter"]["author"] == "ACME Docs Team"
    listing = session.call("list_sections", {"path": "manual.pdf"}).structured_content
    assert "How to install and configure widgets" in json.dumps(listing)


def test_section_lookups_resolve_in_search_and_get_doc(session: McpSession) -> None:
    assert session.search(query="manual 2.2")["hits"][0]["heading"] == "Limits"
    assert session.search(query="manual section 2.3")["hits"][0]["heading"] == "Troubleshooting"
    assert session.search(query="§2.1")["hits"][0]["heading"] == "Options"
    result = session.call("get_doc", {"section": "2.1", "document": "manual"})
    assert not result.is_error, text_of(result)
    assert "WIDGET_TIMEOUT" in text_of(result)
    error = session.tool_error("get_doc", {"section": "9.9", "document": "manual"})
    assert "9.9" in error


def test_pdf_cross_references_resolve(session: McpSession) -> None:
    hit = next(
        h for h in session.search(query="connections limits")["hits"] if h["heading"] == "Limits"
    )
    assert [r["id"] for r in hit["references"]] == [
        "manual.pdf#reference/options",  # `see Section 2.1` in the text
        "manual.pdf#reference/troubleshooting",  # a link annotation to page 3
    ]


def test_pdf_api_reference_answers(session: McpSession) -> None:
    # a manual without API entries: the listing is empty and a lookup says so in one line
    listing = session.call("get_api_reference", {})
    assert not listing.is_error, text_of(listing)
    assert listing.structured_content["total"] == 0
    result = session.call("get_api_reference", {"method": "start_widget"})
    assert result.is_error
    assert text_of(result).startswith("Method 'start_widget' not found.")


def test_pdf_code_examples(session: McpSession) -> None:
    result = session.call("get_code_examples", {"query": "install widget prefix"})
    assert not result.is_error, text_of(result)
    codes = [e["code"] for e in result.structured_content["examples"]]
    assert any("widget install --prefix /opt/widget" in c for c in codes)


def test_outline_less_pdf_gets_headings_from_typography(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    fx.write_manual(docs / "plain.pdf", fx.MANUAL, outline=False)
    proc = _build(docs, tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert "plain.pdf: no outline (bookmarks); headings guessed from the typography" in proc.stderr
    assert "PDFs: 1 files, 3 pages; no outline (headings from typography): plain.pdf" in (
        proc.stdout
    )
    with McpSession(tmp_path / "out") as s:
        top = s.search(query="WIDGET_MAX_THREADS")["hits"][0]
        assert (top["heading"], top["section_id"]) == ("Options", "2.1")
        assert top["breadcrumb"] == "plain.pdf > Reference > Options"


def test_bad_pdfs_are_one_line_each_and_no_bundle(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    good = fx.manual(tmp_path / "good.pdf")
    (docs / "page.pdf").write_text("<!DOCTYPE html><html><body>Not found</body></html>")
    (docs / "garbage.pdf").write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    fx.encrypted(good, docs / "locked.pdf", user_password="secret")
    fx.image_only(docs / "scan.pdf")
    proc = _build(docs, tmp_path / "out")
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()

    def line_of(name: str) -> str:
        found = [x for x in lines if name in x]
        assert len(found) == 1, (name, proc.stderr)
        return found[0]

    assert "is HTML, not a PDF" in line_of("page.pdf")
    assert "damaged or unsupported PDF" in line_of("garbage.pdf")
    assert "encrypted PDF that needs a password" in line_of("locked.pdf")
    assert "no text layer" in line_of("scan.pdf")
    assert not (tmp_path / "out").exists()


def test_empty_password_truncated_and_partly_scanned_pdfs(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    good = fx.manual(tmp_path / "good.pdf")
    fx.encrypted(good, docs / "open.pdf", user_password="")
    fx.image_only(docs / "mixed.pdf", text_pages=1)
    data = good.read_bytes()
    (docs / "cut.pdf").write_bytes(data[: len(data) // 2])
    proc = _build(docs, tmp_path / "out")
    assert "Traceback" not in proc.stderr
    assert "mixed.pdf: 1 of 2 pages have no text layer" in proc.stderr
    if proc.returncode:  # a truncated file is readable or one line, never a crash
        assert [x for x in proc.stderr.splitlines() if "error" in x.lower()] == [
            x for x in proc.stderr.splitlines() if "cut.pdf" in x and "error" in x.lower()
        ]
        return
    with McpSession(tmp_path / "out") as s:
        assert s.search(query="WIDGET_TIMEOUT", limit=50)["hits"][0]["filepath"] in (
            "open.pdf",
            "cut.pdf",
        )
        assert s.search(query="quokkas")["hits"][0]["filepath"] == "mixed.pdf"


def test_broken_outline_entries_are_skipped(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    fx.broken_outline(fx.manual(tmp_path / "good.pdf"), docs / "broken.pdf")
    proc = _build(docs, tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert "outline entries ignored" in proc.stderr
    # pypdfium2's own message names the file (it was printed bare, as the library logs it)
    lines = proc.stderr.splitlines()
    assert (
        "docsmcp: warning: broken.pdf: A circular bookmark reference was detected while "
        "traversing the table of contents" in lines
    ), lines
    assert not [x for x in lines if x.startswith("A circular")]
    with McpSession(tmp_path / "out") as s:
        assert s.search(query="WIDGET_MAX_THREADS")["hits"][0]["heading"] == "Options"


@pytest.mark.slow  # worker pools
def test_extraction_is_cached_and_the_bundle_the_same_whatever_the_workers(
    tmp_path: Path,
) -> None:
    pdf = fx.write_manual(tmp_path / "long.pdf", fx.MANUAL * 40)  # 120 pages: several ranges
    data = pdf.read_bytes()
    cache = PdfCache(tmp_path / "cache")
    first = extract(data, workers=2, cache=cache)
    assert cache.hits == 0 and first.pages == 120
    again = extract(data, workers=1, cache=cache)
    assert cache.hits == 1 and again == first
    assert extract(data, workers=1) == first  # one worker reads the same text
    docs = tmp_path / "docs"
    docs.mkdir()
    pdf.rename(docs / "long.pdf")
    ids = []
    for n, workers in enumerate(("1", "2", "2")):
        out = tmp_path / f"out{n}"
        cache_args = ("--no-cache",) if n < 2 else ("--cache-dir", str(tmp_path / "c"))
        proc = _build(docs, out, "--workers", workers, *cache_args)
        assert proc.returncode == 0, proc.stderr
        ids.append(json.loads((out / "metadata.json").read_text())["bundle_id"])
    assert len(set(ids)) == 1
    again = _build(docs, tmp_path / "out3", "--cache-dir", str(tmp_path / "c"), "--json")
    assert json.loads(again.stdout)["pdfs"] == [
        {"path": "long.pdf", "pages": 120, "empty_pages": 0, "outline": True, "cached": True}
    ]
    assert list((tmp_path / "c" / "pdf").glob("*.marshal.z"))


def test_pdf_cache_evicts_least_recently_used(tmp_path: Path) -> None:
    cache = PdfCache(tmp_path, max_bytes=1)
    one = extract(fx.manual(tmp_path / "a.pdf").read_bytes(), cache=cache)
    assert one.pages == 3
    assert len(list((tmp_path / "pdf").glob("*.marshal.z"))) == 0  # over the bound: evicted


def test_too_many_pages_is_refused(tmp_path: Path) -> None:
    data = fx.manual(tmp_path / "a.pdf").read_bytes()
    with pytest.raises(PdfError, match="has 3 pages; at most 2 are allowed"):
        extract(data, max_pages=2)


@pytest.mark.slow
def test_ten_thousand_pages_in_bounded_memory(tmp_path: Path) -> None:
    big = fx.many_pages(tmp_path / "big.pdf", 10_000)
    code = (
        "import resource, sys; from pathlib import Path; "
        "from docsmcp.sources.pdf.cached import extract; "
        "r = extract(Path(sys.argv[1]).read_bytes(), workers=2); "
        "print(r.pages, len(r.page_starts), "
        "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(big)], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    pages, starts, rss, child = map(int, proc.stdout.split())
    assert pages == starts == 10_000
    assert max(rss, child) < 1024 * 1024  # KiB: under 1 GiB


# -- layout rules ------------------------------------------------------------------------------


def test_two_column_pages_read_column_by_column(tmp_path: Path) -> None:
    text = extract(fx.two_columns(tmp_path / "cols.pdf").read_bytes()).text
    lines = [x for x in text.splitlines() if "column line" in x]
    assert lines == [f"left column line {i} about apples" for i in range(1, 9)] + [
        f"right column line {i} about pears" for i in range(1, 9)
    ]
    assert text.index("A title line") < text.index("left column line 1")


def test_clean_normalises_ligatures_spaces_and_soft_hyphens() -> None:
    assert clean("e\ufb03cient \ufb01le\u00a0name co\u00adoperate\x02 \ufeff") == (
        "efficient file name cooperate"
    )


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("5.10.2 Calling .External", ("5.10.2", "Calling .External")),
        ("1 Creating R packages", ("1", "Creating R packages")),
        ("Appendix A The command-line tools", ("A", "The command-line tools")),
        ("A.2 Details", ("A.2", "Details")),
        ("2024 roadmap", (None, "2024 roadmap")),
        ("A Tour", (None, "A Tour")),
        ("Package structure", (None, "Package structure")),
    ],
)
def test_split_number(title: str, expected: tuple) -> None:
    assert split_number(title) == expected


def test_headers_footers_and_toc_lines_are_dropped() -> None:
    pages = [
        [
            Line(f"Chapter 1: Basics {n + 5}", 72, 750, 9, False, False),
            Line("Body text of the page.", 72, 700, 10, False, False),
            Line("Some entry . . . . . . . 12", 72, 680, 10, False, False),
            Line(str(n + 5), 300, 40, 9, False, False),
        ]
        for n in range(6)
    ]
    md = assemble(pages, [])
    assert "Chapter 1" not in md.text and "Some entry" not in md.text
    assert md.text.count("Body text of the page.") == 6
    assert md.headers_dropped == 12


def test_markdown_syntax_in_prose_is_escaped() -> None:
    lines = [
        Line(text, 72, 700 - 13 * i, 10, False, False)
        for i, text in enumerate(["# not a heading", "- not a list", "<b> not html", "---"])
    ]
    md = assemble([lines], [])
    assert md.text.splitlines() == [
        "\\# not a heading",
        "\\- not a list",
        "\\<b> not html",
        "\\---",
    ]


def test_a_link_inside_another_links_text_leaves_no_marker() -> None:
    """Found by the fuzz below: a link whose text holds `)` let a later link's text, found
    inside it, nest a second marker there, which outlived the first one's resolution (a NUL
    and `#1` in the page's text)."""
    lines = [
        Line("Intro", 72, 720, 10, False, False),
        Line("see a) b c here", 72, 700, 10, False, False),
    ]
    links = [[Link("a) b c", 695, 712, 0, None), Link("b c", 695, 712, 0, None)]]
    assert assemble([lines], [], links).text == "Intro\n\nsee a) b c here\n"


_line = st.builds(
    Line,
    text=st.text(max_size=40),
    x=st.floats(0, 600, allow_nan=False),
    y=st.floats(0, 800, allow_nan=False),
    size=st.floats(1, 30, allow_nan=False),
    bold=st.booleans(),
    mono=st.booleans(),
    advance=st.floats(0, 20, allow_nan=False),
    right=st.floats(0, 700, allow_nan=False),
    parts=st.lists(
        st.tuples(
            st.integers(-2, 50),
            st.integers(-2, 50),
            st.floats(0, 700, allow_nan=False),
            st.floats(0, 700, allow_nan=False),
        ),
        max_size=3,
    ).map(tuple),
    cells=st.lists(
        st.tuples(st.integers(-2, 50), st.floats(-10, 700, allow_nan=False)), max_size=4
    ).map(tuple),
)
_link = st.builds(
    Link,
    text=st.text(max_size=30),
    bottom=st.floats(0, 800, allow_nan=False),
    top=st.floats(0, 800, allow_nan=False),
    page=st.integers(0, 8),
    y=st.none() | st.floats(-100, 900, allow_nan=False),
)
_entry = st.builds(
    OutlineEntry,
    title=st.text(max_size=30),
    level=st.integers(0, 20),
    page=st.integers(-2, 8),
    y=st.none() | st.floats(-100, 900, allow_nan=False),
)


@pytest.mark.slow  # fuzz, ~2-3 s
@FUZZ
@given(
    st.lists(st.lists(_line, max_size=12), max_size=6),
    st.lists(_entry, max_size=8),
    st.lists(st.lists(_link, max_size=4), max_size=6),
)
def test_assemble_fuzz(
    pages: list[list[Line]], outline: list[OutlineEntry], links: list[list[Link]]
) -> None:
    md = assemble(pages, outline, links)
    lines = md.text.split("\n")
    assert len(md.page_starts) == len(pages)
    assert list(md.page_starts) == sorted(md.page_starts)
    assert all(0 <= s <= len(lines) for s in md.page_starts)
    for line, number in md.section_numbers:
        assert lines[line].startswith("#") and number
    assert "\x00" not in md.text  # every link marker resolved or removed


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("R-exts 5.10.2", ("R-exts", "5.10.2")),
        ("R-lang section 3.5.2", ("R-lang", "3.5.2")),
        ("§3.14", (None, "3.14")),
        ("section 5", (None, "5")),
        ("MS-DTYP 2.4.2.1", ("MS-DTYP", "2.4.2.1")),
        ("404", None),
        ("python 3", None),
        ("how do I use section 5.2 of the guide", None),
    ],
)
def test_section_query(query: str, expected: tuple | None) -> None:
    assert section_query(query) == expected


@FUZZ
@given(st.text(max_size=300))
def test_section_query_fuzz(query: str) -> None:
    got = section_query(query)
    if got is not None:
        document, number = got
        assert number and number in query
        assert document is None or document in query


def test_docs_pdf_commands_run_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = (REPO / "docs" / "sources.md").read_text("utf-8")
    section = page.split("\n## PDF manuals\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].split() for line in block.strip().split("\n")]
    assert [c[:2] for c in commands] == [
        ["pip", "install"],
        ["docsmcp", "build"],
        ["docsmcp", "verify"],
    ]
    # the install line names the extra this checkout declares (run by tests/test_readme.py)
    assert commands[0][2] == "'.[pdf]'"
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert any(d.startswith("pypdfium2") for d in extras["pdf"])
    monkeypatch.chdir(tmp_path)
    Path("manuals").mkdir()
    fx.manual(Path("manuals/manual.pdf"))
    for command in commands[1:]:
        run_docsmcp(*command[1:])
    assert json.loads(Path("idx-pdf/metadata.json").read_text())["stats"]["files"] == 1


def _crash(start: int, end: int, megabytes: float = 0) -> list:
    os._exit(3)  # a PDF library dying in a worker (fault injection)


def test_a_crashing_or_endless_read_is_one_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = fx.manual(tmp_path / "a.pdf").read_bytes()
    with pytest.raises(PdfError, match=r"^reading took over 0 s; the PDF may be damaged"):
        read_pdf(data, workers=1, time_limit=1e-9)
    monkeypatch.setattr(pdf_module, "_read_range", _crash)
    with pytest.raises(
        PdfError, match=r"^the PDF library (needed over \d+ MiB \(\w+\) or )?crashed reading"
    ):
        read_pdf(data, workers=2)


@FUZZ
@given(st.text(max_size=200))
def test_clean_and_split_number_fuzz(text: str) -> None:
    cleaned = clean(text)
    assert clean(cleaned) == cleaned  # idempotent: text cleaned twice reads the same
    assert not any(ch in cleaned for ch in "\u00ad\u00a0\ufb01\ufffe\x02")
    number, rest = split_number(text)
    if number is not None:
        assert number in text and rest and rest in text
    else:
        assert rest == text.strip()


def test_without_the_pdf_extra_a_pdf_is_one_line_naming_it(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    fx.manual(docs / "manual.pdf")
    (docs / "page.md").write_text("# Page\n\nMarkdown still builds.\n")
    code = (
        "import sys; sys.modules['pypdfium2'] = None; from docsmcp.cli import main; "
        "sys.exit(main(['build', '--docs-dir', sys.argv[1], '--out', sys.argv[2]]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(docs), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert "manual.pdf: PDF support needs pypdfium2: pip install 'docsmcp[pdf]'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_heading_text_survives_markdown() -> None:
    from docsmcp.chunking.chunk import chunk_file
    from docsmcp.sources.settings import configure_file

    lines = [
        Line("2.1 Including <stdio.h> ##", 72, 700, 12, True, False),
        Line("Body text about R_registerRoutines.", 72, 680, 10, False, False),
    ]
    md = assemble([lines], [OutlineEntry("Including <stdio.h> ##", 1, 0, 710.0)])
    source, problems = configure_file("a.pdf", md.text, None, frontmatter=False)
    assert not problems
    chunk = chunk_file(source)[-1]
    assert chunk.heading == "Including <stdio.h> ##"
    assert md.section_numbers == ((0, "2.1"),)


def test_too_much_text_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from docsmcp.common import limits
    from docsmcp.sources.pdf.source import load_pdf

    docs = tmp_path / "docs"
    docs.mkdir()
    fx.manual(docs / "manual.pdf")
    monkeypatch.setattr(limits, "MAX_PDF_TEXT_BYTES", 100)
    source, problems, _ = load_pdf(docs, "manual.pdf", None, (docs.resolve(),), None)
    assert source is None
    # Stopped as the pages arrive, at the first range past the limit (tests/test_pdf_limits.py).
    assert [str(p) for p in problems] == [
        f"manual.pdf: PDF text passes 100 characters by page {problems[0].message.split()[7]} "
        "at most 100 are allowed per PDF; split it (qpdf --split-pages=N IN OUT) or leave it out"
    ]


def test_a_raised_footnote_number_opens_its_footnote() -> None:
    lines = [
        Line("Body text of the page with a note.", 72, 700, 10, False, False),
        Line("1", 72, 102, 6, False, False),
        Line("The footnote itself.", 78, 98, 8, False, False),
    ]
    assert assemble([lines], []).text.splitlines()[-1] == "1 The footnote itself."


def test_get_doc_names_the_pages_of_a_pdf_chunk(session: McpSession) -> None:
    hit = session.search(query="WIDGET_MAX_THREADS")["hits"][0]
    assert hit["source"]["pages"] == [2, 2]
    text = session.get_doc(hit["chunk_id"])
    assert text.startswith(f"--- Chunk: {hit['chunk_id']} (Chunk ")
    assert text.split("\n")[0].endswith("(Target) (page 2) ---")
    md = session.search(query="markdown page beside")["hits"][0]
    assert session.get_doc(md["chunk_id"]).split("\n")[0].endswith("(Target) ---")


def test_pdf_tables_are_kept_row_by_row(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    fx.tables(docs / "tables.pdf")
    assert _build(docs, tmp_path / "bundle").returncode == 0
    with McpSession(tmp_path / "bundle") as s:
        hit = s.search(query="enable-shlib shared library")["hits"][0]
        text = s.get_doc(hit["chunk_id"])
    lines = text.split("\n")
    assert lines[0].endswith("(page 1) ---")
    at = lines.index("| Option | Default | What it does |")  # a bold first row: the header
    assert lines[at + 1 : at + 5] == [
        "|---|---|---|",
        "| --with-blas | no | use an external BLAS library |",
        # the wrapped cell stays in its row
        "| --enable-shlib | yes | build the shared library libwidget so that front ends can "
        "embed it |",
        "| --with-x |  | use the X11 window system |",  # an empty cell keeps its column
    ]
    at = lines.index("| path | the file to open, relative to the working directory, or absolute |")
    assert lines[at - 2 : at] == ["|  |  |", "|---|---|"]  # no header row: an empty one
    assert lines[at + 1] == "| mode | one of r, w or a |"
    # aligned code output stays a code block, and the prose after it a paragraph
    assert "```\nMin. Median Max.\n1.60 4.00 5.10\n```" in text
    assert "After the table comes prose about the options again." in lines


def _row(text: str, y: float, *cells: tuple[str, float], mono: bool = False) -> Line:
    """A line of cells: the first at x 72, the others at their x."""
    full, starts = text, []
    for cell, x in cells:
        full += " "
        starts.append((len(full), x))
        full += cell
    return Line(full, 72.0, y, 10.0, False, mono, 0.0, 0.0, (), tuple(starts))


def test_find_tables_needs_aligned_cells() -> None:
    rows = [_row(f"key{i}", 700 - 13 * i, (f"value {i}", 180.0)) for i in range(3)]
    prose = [
        Line("A paragraph line of prose.", 72.0, 600 - 13 * i, 10.0, False, False) for i in range(3)
    ]
    (table,) = find_tables([*rows, *prose])
    assert (table.start, table.end, table.header) == (0, 3, None)
    assert render(table)[2:] == [f"| key{i} | value {i} |" for i in range(3)]
    assert find_tables(prose) == []
    # cells that do not line up, a lone row, or code output are no table
    assert find_tables([rows[0], _row("key", 687, ("value", 300.0)), *prose]) == []
    assert find_tables(rows[:1] + prose) == []
    code = [_row("1.60", 700 - 13 * i, ("4.00", 180.0), mono=True) for i in range(3)]
    assert find_tables(code) == []
    assert find_tables(rows, stops={1}) == []  # a heading between them


def test_table_cells_escape_pipes_and_html() -> None:
    rows = [_row("a|b", 700, ("<b>x", 180.0)), _row("c", 687, ("d", 180.0))]
    assert render(find_tables(rows)[0])[2] == "| a\\|b | \\<b>x |"


@pytest.mark.slow  # fuzz, ~1 s
@FUZZ
@given(st.lists(_line, max_size=16))
def test_find_tables_fuzz(lines: list[Line]) -> None:
    tables = find_tables(lines)
    end = 0
    for table in tables:
        assert end <= table.start < table.end <= len(lines)
        end = table.end
        out = render(table)
        width = out[1].count("|") - 1
        assert all(x.startswith("| ") and x.endswith(" |") for x in out[:1] + out[2:])
        assert all("\n" not in x for x in out)
        assert len(out) == len(table.rows) + 2 and width >= 2
        assert all(len(r) == width for r in table.rows)


def test_init_reads_a_pdf_as_the_build_does(tmp_path: Path) -> None:
    """init proposed leaving out every PDF, "not valid UTF-8" (it decoded them as text); a
    manual is a page now, and a scan is left out for the reason the build gives."""
    from docsmcp.commands.init import propose

    fx.manual(tmp_path / "manual.pdf")
    fx.image_only(tmp_path / "scan.pdf")
    proposal = propose(tmp_path)
    assert proposal.files == 1
    assert list(proposal.unreadable) == ["scan.pdf"]
    assert "no text layer" in proposal.unreadable["scan.pdf"]
