"""Issue 8, item 4: no builder path is quadratic or unbounded in its input.

Each hostile shape the issue found (or one like it: every pre-parse pass, the chunker, globs)
runs in-process under a time budget at a size where the old code took from 25 s to hours; input
beyond the documented limits of `docsmcp.common.limits` is refused with one Problem naming the file,
before any work is spent on it. The glob matcher is checked against the plain regex that
defines glob semantics, so making it linear changed no match.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import corpus, run_docsmcp
from docsmcp.chunking.blocks import markdown_parser
from docsmcp.chunking.chunk import DEFAULT_MAX_CHUNK_SIZE, _FileChunker, _Section
from docsmcp.common import limits
from docsmcp.model.chunk import Block
from docsmcp.model.source import SourceFile, Strategy
from docsmcp.sources.globs import _expand_braces, _segment_tokens, glob_match, glob_problem
from docsmcp.sources.settings import _table_cells
from hostile import (
    admonition_spaces,
    collect_docs,
    flat_headings,
    fuzz,
    html_without_gt,
    problems_of,
    unclosed_hints,
    within,
    write_tree,
)
from hypothesis import given
from hypothesis import strategies as st

# Seconds for one shape below. A linear builder needs under 1.5 s on a loaded CI machine; the
# old code needed 25 s (unclosed hints), 40 s (`<` without `>`), 60 s (a run of spaces in an
# admonition line) and 26 s (bare headings) at these sizes, and far longer beyond.
BUDGET = 8.0

SHAPES = {
    "unclosed chunking hints": unclosed_hints(5_000),
    "html block of '<' without '>'": html_without_gt(200_000),
    "admonition line with a run of spaces": admonition_spaces(100_000),
    "bare headings": flat_headings(10_000),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_hostile_shape_is_collected_in_linear_time(tmp_path: Path, shape: str) -> None:
    write_tree(tmp_path, {"a.md": SHAPES[shape]})
    collected = collect_docs(tmp_path, seconds=BUDGET)
    assert collected.problems == [] and collected.chunks


@pytest.mark.slow  # ~1 s alone
def test_merging_many_tiny_sections_is_linear() -> None:
    """min_chunk_size merges every tiny section into the one before: 60,000 sections used to
    copy the growing chunk's block list once per merge."""
    n = 60_000
    strategy = Strategy("h2", max_chunk_size=10**9, min_chunk_size=10**9)
    source = SourceFile("a.md", "x\n" * n, "x\n" * n, strategy, (), None, None)
    chunker = _FileChunker(source, ["x"] * n, DEFAULT_MAX_CHUNK_SIZE)
    sections = [
        _Section(
            f"a.md#s{i}", "s", 2, (), [Block("paragraph", i, i + 1, "x")], segments=[(i, i + 1)]
        )
        for i in range(n)
    ]
    (merged,) = within(BUDGET, lambda: chunker.merge_small(sections))
    assert len(merged.blocks) == n and merged.segments == [(0, n)]


def test_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    # 16 MB of table rows once took 4 GB and two minutes; now it is refused by its size alone.
    rows = "| a | b | c | d |\n" * (limits.MAX_FILE_BYTES // 18 + 1)
    write_tree(tmp_path, {"big.md": "| h | h | h | h |\n|---|---|---|---|\n" + rows})
    write_tree(tmp_path, {"ok.md": "# fine\n\ntext\n"})
    problems = problems_of(collect_docs(tmp_path, seconds=BUDGET))
    size = (tmp_path / "big.md").stat().st_size
    assert problems == [
        f"big.md: file is {size:,} bytes; at most {limits.MAX_FILE_BYTES:,} bytes are allowed "
        "per file; split it or leave it out"
    ]


def test_embedded_data_uris_are_dropped_and_do_not_count_against_the_size_limit(
    tmp_path: Path,
) -> None:
    """Base64 images pasted into a page (LangChain's integration pages, notebooks saved as
    markdown): no reader sees their characters. A 3 MB page of them failed the whole build and
    another made a chunk of 600,000 characters; their URLs are now empty, and the page is read
    when it is within the limit without them (up to 8 times it)."""
    blob = "QUJD" * (limits.MAX_FILE_BYTES // 4)  # 2 MiB of base64 alone
    write_tree(
        tmp_path,
        {
            "big.md": f"# Big\n\n![Diagram](data:image/png;base64,{blob})\n\n"
            f'<img alt="Photo" src="data:image/jpeg;base64,{blob[:300_000]}">\n\nText after.\n',
            "small.md": "# Small\n\nInline ![dot](data:image/gif;base64,R0lGODlhAQABAAAAACw=) "
            "stays: a short URI is no payload.\n",
        },
    )
    assert (tmp_path / "big.md").stat().st_size > limits.MAX_FILE_BYTES
    collected = collect_docs(tmp_path, seconds=BUDGET)
    assert collected.problems == []
    (big,) = [c for c in collected.chunks if c.path == "big.md"]
    assert "base64" not in big.text and "![Diagram]()" in big.text
    assert "Photo" in big.search_text and "Text after." in big.text
    assert (big.line_start, big.line_end) == (1, 7)
    (small,) = [c for c in collected.chunks if c.path == "small.md"]
    assert "base64,R0lGOD" in small.text
    # Over the limit even without them: refused as before, with the same line.
    write_tree(tmp_path, {"big.md": f"# Big\n\n{'word ' * (limits.MAX_FILE_BYTES // 5)}\n{blob}"})
    size = (tmp_path / "big.md").stat().st_size
    assert problems_of(collect_docs(tmp_path, seconds=BUDGET)) == [
        f"big.md: file is {size:,} bytes; at most {limits.MAX_FILE_BYTES:,} bytes are allowed "
        "per file; split it or leave it out"
    ]


def test_size_limit_is_inclusive(tmp_path: Path) -> None:
    text = "# T\n\n" + "x" * (limits.MAX_FILE_BYTES - 6) + "\n"
    write_tree(tmp_path, {"a.md": text})
    assert (tmp_path / "a.md").stat().st_size == limits.MAX_FILE_BYTES
    assert collect_docs(tmp_path, seconds=BUDGET).problems == []


def test_line_limit_is_inclusive_and_refuses_one_more(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.md": "# T\n" + "\n" * (limits.MAX_FILE_LINES - 2)})
    assert collect_docs(tmp_path, seconds=BUDGET).problems == []
    write_tree(tmp_path, {"a.md": "# T\n" + "\n" * (limits.MAX_FILE_LINES - 1)})
    assert problems_of(collect_docs(tmp_path, seconds=BUDGET)) == [
        f"a.md: file has {limits.MAX_FILE_LINES + 1:,} lines; at most "
        f"{limits.MAX_FILE_LINES:,} are allowed per file; split it or leave it out"
    ]


def test_manifest_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    padding = " " * limits.MAX_MANIFEST_BYTES
    write_tree(tmp_path, {"a.md": "# a\n", ".docs-mcp.json": '{"version": "1"}' + padding})
    (problem,) = problems_of(collect_docs(tmp_path))
    assert problem.startswith(".docs-mcp.json: manifest is ")
    assert f"at most {limits.MAX_MANIFEST_BYTES:,} bytes" in problem


def _autocompleted_table(columns: int, rows: int) -> str:
    """A table whose body rows have one character: markdown-it fills each to `columns` cells."""
    return "|" + " h |" * columns + "\n|" + "-|" * columns + "\n" + "x\n" * rows


def test_table_cell_limit_counts_cells_markdown_it_makes_up(tmp_path: Path) -> None:
    # 128 columns and 512 rows of one character: 1.5 KB of text, 65,536 cells; 20 such tables
    # took 26 s and 1.4 GB.
    write_tree(tmp_path, {"a.md": (_autocompleted_table(128, 512) + "\n") * 20})
    (problem,) = problems_of(collect_docs(tmp_path, seconds=BUDGET))
    assert problem == (
        f"a.md: file has tables of {20 * 128 * 513:,} cells (rows times header columns); at "
        f"most {limits.MAX_TABLE_CELLS:,} are allowed per file; split it or leave it out"
    )
    write_tree(tmp_path, {"a.md": _autocompleted_table(100, limits.MAX_TABLE_CELLS // 100)})
    (problem,) = problems_of(collect_docs(tmp_path, seconds=BUDGET))
    assert f"tables of {limits.MAX_TABLE_CELLS + 100:,} cells" in problem


_TABLE_PARTS = ["| a |", "| a | b |", "|---|", "|-|-|", ":-:|", "---", "x", "", "> ", "  ", "```"]


@fuzz(1)
@given(st.lists(st.lists(st.sampled_from(_TABLE_PARTS), max_size=4).map("".join), max_size=12))
def test_table_cell_count_is_an_upper_bound(lines: list[str]) -> None:
    """The pre-parse count never undercounts what the parser makes: the limit cannot be evaded."""
    made = sum(t.type in ("th_open", "td_open") for t in markdown_parser().parse("\n".join(lines)))
    assert _table_cells(lines) >= made
    # The bound that lets most files skip the count (manifest._structure_problem).
    text = "\n".join(lines)
    assert _table_cells(lines) <= len(lines) * text.count("-")


# --- globs -----------------------------------------------------------------------------------


def test_brace_bomb_is_refused_in_flags_and_manifests(tmp_path: Path) -> None:
    bomb = "{a,b}" * 25  # 2^25 alternatives: minutes and gigabytes when expanded first
    write_tree(tmp_path, {"a.md": "# a\n"})
    problems = within(BUDGET, lambda: problems_of(collect_docs(tmp_path, include=(bomb,))))
    assert len(problems) == 1 and problems[0].startswith(".: --include '{a,b}{a,b}")
    assert problems[0].endswith(
        f" has {{a,b}} groups standing for more than {limits.MAX_GLOB_ALTERNATIVES} alternatives"
    )
    write_tree(tmp_path, {".docs-mcp.json": f'{{"version": "1", "exclude": ["{bomb}"]}}'})
    (problem,) = problems_of(collect_docs(tmp_path, seconds=BUDGET))
    assert problem.startswith(".docs-mcp.json: $.exclude[0]: glob '{a,b}")


def test_brace_alternatives_up_to_the_limit_work() -> None:
    bits = (limits.MAX_GLOB_ALTERNATIVES - 1).bit_length()  # 2^bits alternatives, at the limit
    pattern = "{0,1}" * bits + ".md"
    assert glob_problem(pattern) is None
    assert glob_match(pattern, "1" * bits + ".md")
    assert glob_problem("{0,1}" + pattern) is not None
    assert glob_problem("x" * (limits.MAX_GLOB_CHARS + 1)) is not None


@pytest.mark.parametrize(
    "pattern",
    [
        "*a" * 16 + "*b",  # backtracking through every placement of the pieces: exponential
        "**/*a*a*a*a*/" * 6 + "b",
        "*/" * 60 + "**/x",
        "**/a/" * 12 + "b",
        "[" * 1000,
    ],
)
def test_glob_matching_is_polynomial(pattern: str) -> None:
    long_name = "a/" * 1000 + "a" * 250 + ".md"
    assert within(BUDGET, lambda: glob_match(pattern, long_name)) in (True, False)


@pytest.mark.parametrize("pattern", ["[z-a].md", "docs/[b-a]*"])
def test_invalid_glob_is_a_problem_not_a_traceback(tmp_path: Path, pattern: str) -> None:
    write_tree(tmp_path, {"a.md": "# a\n", "sub/.docs-mcp.json": '{"version": "1"}'})
    (problem,) = problems_of(collect_docs(tmp_path, exclude=(pattern,)))
    assert problem.startswith(f".: --exclude {pattern!r} is invalid: bad character range")
    manifest = f'{{"version": "1", "overrides": [{{"pattern": "{pattern}", "metadata": {{}}}}]}}'
    write_tree(tmp_path, {"sub/.docs-mcp.json": manifest})
    (problem,) = problems_of(collect_docs(tmp_path))
    assert problem.startswith(
        f"sub/.docs-mcp.json: $.overrides[0].pattern: glob {pattern!r} is invalid: bad character"
    )


def _reference_regex(pattern: str) -> str:
    """The regex a glob stands for, as the module docstring of discover.py defines it, built
    the plain way (backtracking freely): the specification the linear matcher must meet."""

    def segment(seg: str) -> str:
        return "".join("[^/]*" if t is None else t for t in _segment_tokens(seg))

    def one(p: str) -> str:
        while p.startswith("./"):
            p = p[2:]
        anchored = "/" in p.rstrip("/")
        segments = [s for s in p.strip("/").split("/") if s and s != "."]
        out = [] if anchored else ["(?:.*/)?"]
        for i, seg in enumerate(segments):
            last = i == len(segments) - 1
            if seg == "**":
                out.append(".*" if last else "(?:.*/)?")
            else:
                out.append(segment(seg) + ("" if last else "/"))
        return "".join(out)

    return "(?:" + "|".join(sorted({one(p) for p in _expand_braces(pattern)})) + ")(?:/.*)?"


_GLOB_PARTS = ["a", "b", "/", "*", "?", ".", "**", "**/", "/**/", "{a,b}", "{,a}", "[ab]", "[!a]"]
_PATH_PARTS = ["a", "b", "ab", "ba", "/", ".md", "aa", "b/a", "\n"]


@pytest.mark.slow  # fuzz, ~1 s
@fuzz(4)
@given(
    st.lists(st.sampled_from(_GLOB_PARTS), max_size=10).map("".join),
    st.lists(st.sampled_from(_PATH_PARTS), max_size=8).map("".join),
)
def test_glob_matcher_agrees_with_the_reference_regex(pattern: str, path: str) -> None:
    if glob_problem(pattern) is not None:
        return  # over the limits: refused with a Problem (above), never matched
    expected = re.compile(_reference_regex(pattern), re.DOTALL).fullmatch(path) is not None
    assert glob_match(pattern, path) is expected


# --- the limits against real docs and at their worst ------------------------------------------


@pytest.mark.corpus
def test_limits_are_far_above_real_docs() -> None:
    """The claim of docsmcp/common/limits.py: real docs come nowhere near a limit (a third of
    it)."""
    largest, longest = 0, 0
    for name in ("yellow-docs", "rust-reference", "speakeasy-sdks"):
        for path in corpus(name).rglob("*.md*"):
            data = path.read_bytes()
            largest, longest = max(largest, len(data)), max(longest, data.count(b"\n") + 1)
        for path in corpus(name).rglob(".docs-mcp.json"):
            assert path.stat().st_size * 3 < limits.MAX_MANIFEST_BYTES
    assert largest * 3 < limits.MAX_FILE_BYTES and longest * 3 < limits.MAX_FILE_LINES


# Each as large as the limits allow: the worst one file can cost, the densest shapes for the
# markdown parser (a token per byte or two: inline marks; table cells that markdown-it makes up
# for short rows).
_WORST = {
    "emphasis": lambda: "*a* " * (limits.MAX_FILE_BYTES // 4 - 1),
    "table cells": lambda: _autocompleted_table(100, limits.MAX_TABLE_CELLS // 100 - 1),
}
# What limits.py promises for one file at its worst (about 1 GB and 15 s), with room for a
# loaded machine.
WORST_SECONDS = 60
WORST_MB = 1536
# `docsmcp validate`, then the peak RSS of the process (KB on Linux) as the last stdout line.
_VALIDATE_AND_PEAK = (
    "import resource, sys\n"
    "from docsmcp.cli import main\n"
    "code = main(['validate', '--docs-dir', sys.argv[1]])\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    "sys.exit(code)\n"
)


@pytest.mark.slow
@pytest.mark.parametrize("shape", _WORST)
def test_worst_file_within_the_limits_stays_bounded(tmp_path: Path, shape: str) -> None:
    write_tree(tmp_path, {"a.md": _WORST[shape]()})
    assert (tmp_path / "a.md").stat().st_size <= limits.MAX_FILE_BYTES
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", _VALIDATE_AND_PEAK, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=WORST_SECONDS * 3,
    )
    seconds = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    summary, peak_kb = proc.stdout.splitlines()
    assert summary.startswith("ok: 1 files")
    assert seconds < WORST_SECONDS, f"{shape}: {seconds:.1f} s"
    assert int(peak_kb) < WORST_MB * 1024, f"{shape}: {int(peak_kb) // 1024} MB"


def test_cli_refuses_a_hostile_file_in_one_line(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", {"a.md": "# a\n" + "\n" * limits.MAX_FILE_LINES})
    out = tmp_path / "out"
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", out, check=False)
    assert proc.returncode == 1 and not out.exists()
    assert proc.stderr.splitlines() == [
        f"a.md: file has {limits.MAX_FILE_LINES + 2:,} lines; at most "
        f"{limits.MAX_FILE_LINES:,} are allowed per file; split it or leave it out",
        "docsmcp: 1 problem(s) found; nothing was written",
    ]
