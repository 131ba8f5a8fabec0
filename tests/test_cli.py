"""The builder's command line as users run it: validate, build, and their errors."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import EXAMPLE_DOCS, TINY_DOCS, run_docsmcp, write_tree
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.tools.app import DocsApp


def ids_of(bundle: Path) -> list[str]:
    return pq.read_table(bundle / "chunks.parquet", columns=["id"]).column("id").to_pylist()


def test_validate_ok_on_the_example(tmp_path: Path) -> None:
    proc = run_docsmcp("validate", "--docs-dir", EXAMPLE_DOCS)
    assert proc.stdout.strip() == "ok: 6 files, 19 chunks, taxonomy keys: language, role, scope"


def test_validate_reports_every_problem_at_once(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / ".docs-mcp.json").write_text('{"version": "1", "strategy": {"chunk_by": "h4"}}')
    (docs / "sub" / ".docs-mcp.json").write_text('{"version": "1",\n "metadata": {"a": 1}\n')
    (docs / "front.md").write_text("---\nmetadata:\n  language: [go]\n---\n# T\n")
    (docs / "latin1.md").write_bytes("# Caf\xe9\n".encode("latin-1"))
    (docs / "sub" / "ok.md").write_text("# fine\n")
    proc = run_docsmcp("validate", "--docs-dir", docs, check=False)
    assert proc.returncode == 1
    err = proc.stderr
    assert "Traceback" not in err
    assert ".docs-mcp.json: $.strategy.chunk_by: 'h4' is not one of 'h1', 'h2', 'h3', 'file'" in err
    assert "sub/.docs-mcp.json:3:" in err  # JSON syntax error, with its line
    assert "front.md:" in err and "language" in err
    assert (
        "latin1.md:1: not valid UTF-8 at column 6 (byte 0xe9); save it as UTF-8 or leave it out "
        "with --exclude latin1.md"
    ) in err
    assert err.splitlines()[-1] == "docsmcp: 4 problem(s) found; nothing was built"


def test_a_part_id_that_is_a_heading_slug_still_builds(tmp_path: Path) -> None:
    """A section split by size has parts `x-part-2`, ...; a later heading "X Part 2" has the
    same slug. The build used to stop on the duplicate id (win32 could not be built): the
    heading keeps its id, the part takes the next free suffix."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / ".docs-mcp.json").write_text(
        '{"version": "1", "strategy": {"chunk_by": "h2", "max_chunk_size": 200}}'
    )
    big = "word " * 30
    (docs / "dup.md").write_text(f"## X\n\n{big}\n\n{big}\n\n## X Part 2\n\nsmall\n")
    run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx")
    assert ids_of(tmp_path / "idx") == ["dup.md#x", "dup.md#x-part-2-2", "dup.md#x-part-2"]


def test_include_and_exclude_flags(tmp_path: Path) -> None:
    out = tmp_path / "idx"
    run_docsmcp("build", "--docs-dir", EXAMPLE_DOCS, "--out", out, "--exclude", "typescript/**")
    paths = {i.split("#")[0] for i in ids_of(out)}
    assert paths == {
        "guides/authentication.md",
        "guides/errors.mdx",
        "python/README.md",
        "python/payments.md",
    }
    run_docsmcp("build", "--docs-dir", EXAMPLE_DOCS, "--out", out, "--include", "guides/*")
    assert {i.split("#")[0] for i in ids_of(out)} == {
        "guides/authentication.md",
        "guides/errors.mdx",
    }


def test_build_json_summary_has_seconds_per_phase(tmp_path: Path) -> None:
    proc = run_docsmcp("build", "--docs-dir", EXAMPLE_DOCS, "--out", tmp_path / "idx", "--json")
    summary = json.loads(proc.stdout)
    assert (summary["files"], summary["chunks"], summary["api_entries"]) == (6, 19, 2)
    assert list(summary["phases"]) == ["read and parse", "browse tables", "index", "write"]
    files = [p for p in (tmp_path / "idx").iterdir() if p.name != "metadata.json"]
    assert summary["bytes"] == sum(p.stat().st_size for p in files)  # the files metadata lists


def test_the_summary_names_links_to_no_page(tmp_path: Path) -> None:
    """ "1684 of 1696 cross references resolved" told a user nothing of which (Electron, React
    Native, shadcn): the summary names the first three, `--json` up to twenty."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nSee [b](b.md), [gone](gone.md) and [old](/docs/old).\n")
    (docs / "b.md").write_text("# B\n\nText.\n")
    text = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx").stdout
    line = "  2 links to no page or heading of the bundle: gone.md (in a.md), /docs/old (in a.md)"
    assert line + "\n" in text
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx2", "--json")
    assert json.loads(proc.stdout)["references"]["unresolved_links"] == [
        {"page": "a.md", "link": "gone.md"},
        {"page": "a.md", "link": "/docs/old"},
    ]
    # A link every page repeats (a template's) is named once (OpenTelemetry's three were one).
    (docs / "c.md").write_text("# C\n\n[gone](gone.md), [b](b.md#nothing), [x](x.md)\n")
    text = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx3").stdout
    assert (
        "  5 links to no page or heading of the bundle: gone.md (in a.md), /docs/old (in a.md), "
        "b.md#nothing (in c.md); --json lists the first 5\n"
    ) in text


def test_every_long_phase_reports_progress(tmp_path: Path) -> None:
    """A build with embeddings counts its files, then its chunks as the provider embeds them;
    eval counts its cases (each phase a Progress with the right total, run to its end)."""
    from docsmcp.common.progress import Progress
    from docsmcp.embeddings.embed import EmbeddingOptions
    from docsmcp.pipeline.build import build
    from docsmcp.pipeline.collect import BuildOptions

    seen: list[Progress] = []

    def reporter(label: str, total: int) -> Progress:
        seen.append(Progress("docsmcp", label, total, enabled=False))
        return seen[-1]

    options = BuildOptions(
        docs_dir=TINY_DOCS, embedding=EmbeddingOptions(provider="static"), parse_cache=False
    )
    chunks = build(options, tmp_path / "idx", reporter).metadata.stats.chunks
    assert [(p.label, p.total, p.done) for p in seen] == [
        ("parsing files", 4, 4),
        ("embedding chunks", chunks, chunks),
    ]


def test_a_pdf_counts_its_pages_as_they_are_read(tmp_path: Path) -> None:
    """A PDF takes seconds to minutes: its pages are counted as each range is read, before the
    file counter starts (a terminal line, or a log line every few seconds)."""
    import pdf_fixtures as fx
    from docsmcp.common.progress import Progress
    from docsmcp.pipeline.build import build
    from docsmcp.pipeline.collect import BuildOptions

    pytest.importorskip("pypdfium2", reason="the pdf extra reads PDFs")
    (tmp_path / "docs").mkdir()
    fx.manual(tmp_path / "docs" / "manual.pdf")
    seen: list[Progress] = []

    def reporter(label: str, total: int) -> Progress:
        seen.append(Progress("docsmcp", label, total, enabled=False))
        return seen[-1]

    options = BuildOptions(docs_dir=tmp_path / "docs", parse_cache=False, workers=2)
    built = build(options, tmp_path / "idx", reporter)
    pages = built.pdfs[0].pages
    assert pages > 1
    assert [(p.label, p.total, p.done) for p in seen] == [
        ("reading manual.pdf pages", pages, pages),
        ("parsing files", 1, 1),
    ]
    line = seen[0].line()  # done: its time, no ETA
    assert re.search(rf" pages {pages}/{pages} \(\d+s\)$", line) and "ETA" not in line, line


def test_progress_lines_on_a_terminal_and_in_logs(tmp_path: Path) -> None:
    import io

    from docsmcp.common.progress import Progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    bar = Progress("docsmcp", "parsing files", 3, stream=tty)
    for _ in range(3):
        bar.advance()
        bar._shown = 0  # as if time had passed
    bar.close()
    assert "\r\x1b[Kdocsmcp: parsing files 3/3 (" in tty.getvalue()
    log = io.StringIO()
    plain = Progress("docsmcp", "parsing files", 10, stream=log)
    plain.started -= 60  # a long build: a line every few seconds, never a carriage return
    plain.advance()
    assert log.getvalue().startswith("docsmcp: parsing files 1/10 (") and "\r" not in log.getvalue()
    quiet = io.StringIO()
    silent = Progress("docsmcp", "parsing files", 10, stream=quiet, enabled=False)
    silent.started -= 60
    silent.advance()
    assert quiet.getvalue() == ""


def test_build_prints_a_summary_and_records_options(tmp_path: Path) -> None:
    out = tmp_path / "idx"
    proc = run_docsmcp(
        "build", "--docs-dir", EXAMPLE_DOCS, "--out", out, "--name", "acme",
        "--description", "the Acme Payments docs", "--instructions", "Be brief.",
    )  # fmt: skip
    assert proc.stdout.startswith(f"built {out}: 6 files, 19 chunks, ")
    summary, phases = proc.stdout.rstrip().split("\n")
    assert summary.endswith("; no cross references, 2 API entries, 10 code blocks")
    assert phases.startswith("  read and parse ") and phases.rstrip().endswith("s")
    assert proc.stderr == ""  # no progress lines for a build of seconds when not a terminal
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["name"] == "acme"
    assert meta["instructions"] == "Be brief."
    assert meta["description"] == "the Acme Payments docs"
    assert meta["tools"]["search_docs"]["description"].startswith("Search the Acme Payments docs")
    assert meta["taxonomy"]["language"] == {
        "description": "SDK language the page documents.",
        "vector_collapse": True,
        "values": ["python", "typescript"],
        # The default rule: filtering a language keeps the guides for every language visible.
        "auto_include": {"scope": ["global-guide"]},
    }
    assert meta["requires"] == ["auto-include", "impact-codes", "narrow-index"]


def test_missing_docs_dir_and_unwritable_out(tmp_path: Path) -> None:
    proc = run_docsmcp(
        "build", "--docs-dir", tmp_path / "nope", "--out", tmp_path / "i", check=False
    )
    assert proc.returncode == 2
    assert (
        proc.stderr.strip() == f"docsmcp: error: --docs-dir {tmp_path / 'nope'} is not a directory"
    )
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = run_docsmcp("build", "--docs-dir", EXAMPLE_DOCS, "--out", blocker, check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert blocker.read_text() == "x"


def test_empty_docs_dir_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    proc = run_docsmcp("validate", "--docs-dir", tmp_path / "docs", check=False)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == (
        "no .md, .mdx, .rst, .adoc, .Rd, .Rmd, .texi, .html, .ipynb or .pdf files found in "
        f"{tmp_path / 'docs'}"
    )
    assert "--include" not in proc.stderr  # no advice about flags that were not given
    filtered = run_docsmcp(
        "validate", "--docs-dir", EXAMPLE_DOCS, "--include", "nothing/**", check=False
    )
    assert "(check --include/--exclude)" in filtered.stderr


def test_a_folder_of_files_not_read_says_what_to_do_with_them(tmp_path: Path) -> None:
    """A LaTeX folder found nothing and the line said nothing about its files."""
    docs = write_tree(
        tmp_path / "tex",
        {"index.tex": "\\section{Title}\n", "guide/a.tex": "x\n", "logo.svg": "<svg/>"},
    )
    proc = run_docsmcp("validate", "--docs-dir", docs, check=False)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == (
        "no .md, .mdx, .rst, .adoc, .Rd, .Rmd, .texi, .html, .ipynb or .pdf files found in "
        f"{docs}; it holds 2 .tex files "
        "(LaTeX is not read: build the PDF and point --docs-dir at it)"
    )
    other = write_tree(tmp_path / "other", {"a.xyz": "x"})
    proc = run_docsmcp("validate", "--docs-dir", other, check=False)
    assert proc.stderr.splitlines()[0].endswith("; it holds 1 .xyz file, which are not read")
    # init says it of the user's folder too (it named its temporary overlay, and counted only
    # the files at its top: "it holds 1 .yml file")
    proc = run_docsmcp("init", "--docs-dir", docs, check=False)
    assert (
        "no .md, .mdx, .rst, .adoc, .Rd, .Rmd, .texi, .html, .ipynb or .pdf files found in "
        f"{docs}; it holds 2 .tex " in proc.stderr
    )
    assert "docsmcp-init-" not in proc.stderr


def test_a_markdown_suffix_is_read_as_markdown(tmp_path: Path) -> None:
    """Jekyll names its pages `.markdown`: they were not read at all."""
    docs = write_tree(tmp_path / "docs", {"about.markdown": "# About\n\n## Setup\n\nInstall it.\n"})
    out = tmp_path / "idx"
    run_docsmcp("build", "--docs-dir", docs, "--out", out)
    app = DocsApp(open_bundle(out))
    hits = app.call_tool("search_docs", {"query": "install"})["structuredContent"]["hits"]
    assert hits[0]["chunk_id"] == "about.markdown#about/setup"


def test_a_generic_docs_folder_is_named_after_its_project(tmp_path: Path) -> None:
    docs = tmp_path / "acme" / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx")
    meta = json.loads((tmp_path / "idx" / "metadata.json").read_text())
    assert meta["name"] == "acme" and "acme documentation" in meta["description"]


def test_broken_markdown_still_builds(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    (docs / "broken.md").write_text(
        "## Unclosed fence\n\n```python\nprint(1)\n\n## Not a heading inside the fence\n"
        "| bad | table\n|---\n<div unclosed\n"
    )
    run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx")
    assert "broken.md#unclosed-fence" in ids_of(tmp_path / "idx")


def test_source_commit_only_for_docs_tracked_in_the_repository(tmp_path: Path) -> None:
    """`git -C` walks up to any enclosing repository: docs that merely lie inside one (untracked)
    must not record, and later expose, that repository's commit."""
    import subprocess

    repo = tmp_path / "home"
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    (repo / "dotfiles").mkdir(parents=True)
    (repo / "dotfiles" / "bashrc").write_text("alias ll='ls -l'\n")
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "private"], check=True)
    untracked = shutil.copytree(EXAMPLE_DOCS, repo / "projects" / "docs")
    run_docsmcp("build", "--docs-dir", untracked, "--out", tmp_path / "a")
    assert json.loads((tmp_path / "a" / "metadata.json").read_text())["source"] == {
        "commit": None,
        "commit_date": None,
        "url": None,
    }
    subprocess.run([*git, "add", "projects"], check=True)  # now the docs are part of the repo
    subprocess.run([*git, "commit", "-qm", "docs"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    run_docsmcp("build", "--docs-dir", untracked, "--out", tmp_path / "b")
    meta = json.loads((tmp_path / "b" / "metadata.json").read_text())
    assert meta["source"]["commit"] == head.strip() and meta["source"]["commit_date"]


def test_source_commit_is_recorded_for_a_git_checkout(tmp_path: Path) -> None:
    import subprocess

    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    git = ["git", "-C", str(docs), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "docs"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    out = tmp_path / "idx"
    run_docsmcp("build", "--docs-dir", docs, "--out", out)
    assert json.loads((out / "metadata.json").read_text())["source"]["commit"] == head.strip()


def test_out_inside_the_docs_folder_is_refused(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", docs / "idx", check=False)
    assert proc.returncode == 2 and not (docs / "idx").exists()
    assert proc.stderr == (
        f"docsmcp: error: --out {docs / 'idx'} is inside --docs-dir {docs}: the bundle would sit "
        "among the docs it indexes (and --watch would rebuild on its own output); write it "
        "outside the docs folder\n"
    )


def test_a_failed_first_build_says_nothing_was_written(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_bytes(b"# A\n\nok\n\xff\n")
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", check=False)
    assert proc.returncode == 1 and not (tmp_path / "idx").exists()
    assert proc.stderr.splitlines() == [
        "a.md:4: not valid UTF-8 at column 1 (byte 0xff); save it as UTF-8 or leave it out with "
        "--exclude a.md",
        "docsmcp: 1 problem(s) found; nothing was written",
    ]
