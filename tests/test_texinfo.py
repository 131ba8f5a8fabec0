"""GNU Texinfo manuals (`.texi`, formats/texinfo/texinfo.py): a manual, with the files it
`@include`s, reads as one page as the HTML manual shows it; its nodes are headings whose anchors
the `@xref`s link to; `@deffn` definitions are entries of the API registry. The fixture is a few
lines in the shape of the GNU Make and Bash manuals."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FUZZ, run_docsmcp
from docsmcp.sources.formats.texinfo.texinfo import texinfo_to_markdown
from docsmcp.sources.formats.texinfo.texinfo_inline import inline, node_id
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.tools.app import DocsApp
from hypothesis import given
from hypothesis import strategies as st

MANUAL = r"""\input texinfo                @c -*-texinfo-*-
@setfilename tent.info
@include version.texi
@settitle Tent Manual
@defcodeindex bt

@copying
This manual is for Tent, version @value{VERSION}.
@end copying

@titlepage
@title Tent
@end titlepage

@ifnottex
@node Top
@top Tent

@insertcopying
@end ifnottex

@menu
* Pitching::   How to pitch.
@end menu

@node Pitching
@chapter Pitching the Tent
@cindex pitching

Read @ref{Pegs} first, and @pxref{Guy Lines, , Tightening the lines}.
Use @code{tent pitch @var{site}} with @samp{--fast}; see @uref{https://example.org, the site}.
@iftex
Only the printed manual says this.
@end iftex
@c a comment nobody sees

@example
@group
tent pitch --site=@var{meadow} @{ stakes @}
@end group
@end example

@node Pegs
@section Pegs and Stakes

@table @code
@item --stakes=@var{n}
@itemx -s @var{n}
@btindex stakes
Drive @var{n} stakes.

@item --deep
Drive them deep.
@end table

@table @code
@item unpack    @r{(a verb)}
@btindex unpack
@example
unpack [-a] @var{bag}
@end example

Takes the tent out of @var{bag}.
@end table

@itemize @bullet
@item
First peg.
@item
Second peg.
@end itemize

@deffn Command fold-tent name @var{size}
Folds the tent called @var{name} to @var{size}.
@end deffn

@deftypefun int tent_count (const char *@var{field})
Counts the tents in @var{field}.
@end deftypefun

@deftypevar {char *} tent_name
The tent's name.
@end deftypevar

@node Guy Lines
@subsection Guy Lines

@anchor{Tent poles}Poles hold it up; see @ref{Tent poles}.

@node Knots
Knots come undone; see @ref{Knots}.

@multitable @columnfractions .5 .5
@headitem Line @tab Tension
@item main
@tab high
@end multitable
Knots follow @sc{posix}.

@bye
"""


def _manual(tmp_path: Path) -> Path:
    docs = tmp_path / "doc"
    docs.mkdir()
    (docs / "tent.texi").write_text(MANUAL)
    (docs / "version.texi").write_text("@set VERSION 4.2\n@set UPDATED 1 May 2024\n")
    (docs / "tent.pdf").write_bytes(b"%PDF-1.4\n")  # (the printed manual: the same text)
    (docs / "tent.html").write_text("<h1>Tent</h1>")  # (makeinfo --html: the same text)
    return docs


def _get(app: DocsApp, path: str) -> str:
    result = app.call_tool("get_page", {"path": path})
    assert not result["isError"], result
    return str(result["structuredContent"]["text"])


def test_a_manual_builds_as_one_page_with_its_includes(tmp_path: Path) -> None:
    docs = _manual(tmp_path)
    out = tmp_path / "idx"
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "cross references resolved (100.0%)" in proc.stdout + proc.stderr
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["stats"]["files"] == 1  # version.texi reads in the manual; PDF, HTML unread
    app = DocsApp(open_bundle(out))
    page = _get(app, "tent.texi")
    assert "This manual is for Tent, version 4.2." in page  # @insertcopying, @value
    assert "## Pitching the Tent" in page
    assert "[Pegs](#Pegs)" in page
    assert "see [Tightening the lines](#Guy-Lines)" in page
    assert "`tent pitch site`" in page and "`--fast`" in page
    assert "[the site](https://example.org)" in page
    assert "tent pitch --site=meadow { stakes }" in page  # a code block, @{ @} read
    for hidden in ("printed manual", "comment nobody", "@", "pitching\n", "How to pitch"):
        assert hidden not in page
    assert "- `--stakes=n`, `-s n`" in page
    assert "| Line | Tension |\n| --- | --- |\n| main | high |" in page  # (`@tab` on its line)
    assert "Knots follow POSIX." in page
    assert "Poles hold it up; see [Tent poles](#Tent-poles)." in page  # (an @anchor's link)
    hits = app.call_tool("search_docs", {"query": "drive stakes deep", "limit": 3})
    assert hits["structuredContent"]["hits"][0]["chunk_id"].startswith("tent.texi#")
    api = app.call_tool("get_api_reference", {"method": "fold-tent"})
    assert not api["isError"], api
    assert "Folds the tent" in json.dumps(api["structuredContent"])


def test_headings_lists_and_definitions() -> None:
    done = texinfo_to_markdown("tent.texi", MANUAL)
    assert done.title == "Tent"
    headings = [x for x in done.text.split("\n") if x.startswith("#")]
    assert headings == [
        "# Tent",
        "## Pitching the Tent",
        "### Pegs and Stakes",
        "#### Guy Lines",
    ]
    assert {a for _, a in done.anchors} == {
        "Top",
        "Pitching",
        "Pegs",
        "Guy-Lines",
        "Tent-poles",
        "Knots",
    }
    assert "- First peg.\n\n- Second peg." in done.text
    assert "**Command:** `fold-tent name size`" in done.text
    entries = {e.name: e for e in done.api}
    assert entries.keys() == {"fold-tent", "stakes", "unpack", "tent_count", "tent_name"}
    # typed definitions (Readline's): the name after the type
    count, name = entries["tent_count"], entries["tent_name"]
    assert (count.kind, count.signature) == ("method", "int tent_count (const char *field)")
    assert (name.kind, name.signature, name.description) == (
        "type",
        "char * tent_name",
        "The tent's name.",
    )
    entry = entries["fold-tent"]
    assert (entry.kind, entry.signature) == ("method", "fold-tent name size")
    assert entry.description.startswith("Folds the tent called")
    # a table item a code index names (Bash's builtins): its example's first line the signature
    unpack = entries["unpack"]
    assert (unpack.signature, unpack.category) == ("unpack [-a] bag", "Pegs and Stakes")
    assert unpack.description == "Takes the tent out of *bag*."
    assert "- `unpack` (a verb)" in done.text
    assert len(done.line_map) == done.text.count("\n") + 1


def test_inline_commands_and_node_ids() -> None:
    assert inline("@code{a@@b} @emph{x} @strong{y} ``q'' a---b", {})[0] == "`a@b` *x* **y** “q” a—b"
    assert (
        inline("@xref{Make Manual, , , make, GNU Make}", {})[0] == "See *Make Manual* in *GNU Make*"
    )
    assert inline("@code{@{unclosed", {})[1] == "{unclosed"
    assert inline("$@{!@var{prefix}*@}", {})[0] == "${!*prefix*\\*}"  # (a `*` of prose)
    # a value holding commands reads as them (sed's `@set SSED GNU @command{sed}`)
    assert inline("@value{SSED} edits", {"SSED": "GNU @command{sed}"})[0] == "GNU `sed` edits"
    assert inline("an --option", {}) == ("an –option", "an --option")  # (names keep `--`)
    assert node_id("Rule Syntax") == "Rule-Syntax"
    assert node_id("$(...)") == "_0024_0028_002e_002e_002e_0029"


PIECES = st.sampled_from(
    [
        "@node A\n",
        "@chapter B\n",
        "@section C\n",
        "@example\n",
        "@end example\n",
        "@table @code\n",
        "@item x\n",
        "@itemx y\n",
        "@end table\n",
        "@itemize\n",
        "@end itemize\n",
        "@enumerate\n",
        "@end enumerate\n",
        "@multitable .5 .5\n",
        "@tab",
        "@end multitable\n",
        "@deffn Command f a\n",
        "@deffnx Command g\n",
        "@end deffn\n",
        "@ignore\n",
        "@end ignore\n",
        "@ifset X\n",
        "@end ifset\n",
        "@set X 1\n",
        "@value{X}",
        "@code{",
        "@xref{",
        "}",
        "{",
        ",",
        "@@",
        "@{",
        "@",
        "@insertcopying\n",
        "@copying\n",
        "@end copying\n",
        "@end\n",
        "@c x\n",
        "\n",
        "",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=10)), max_size=40).map("".join)


@FUZZ
@given(TEXT)
def test_any_text_converts_in_bounds(text: str) -> None:
    done = texinfo_to_markdown("x.texi", text)
    assert len(done.line_map) == done.text.count("\n") + 1
    assert all(0 <= n <= max(text.count("\n"), 0) for n in done.line_map)
    assert "\x00" not in done.text and "\x01" not in done.text


def test_init_counts_the_manual_alone(tmp_path: Path) -> None:
    """init's report counts the pages the build reads: the manual, not its version.texi."""
    proc = run_docsmcp("init", "--docs-dir", _manual(tmp_path))
    assert "\n1 files\n" in "\n" + proc.stdout + proc.stderr


def test_includes_stay_in_the_source_roots_and_the_depth_bound(tmp_path: Path) -> None:
    """`@include` reads only inside the source roots (Bash's Readline chapters need
    `--source-root`), and a manual that includes itself stops at the depth bound."""
    docs = tmp_path / "doc"
    docs.mkdir()
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "keys.texi").write_text("@node Keys\n@section Keys\n\nPress the key.\n")
    (docs / "shell.texi").write_text(
        "@settitle Shell\n@node Top\n@top Shell\n\n@include shell.texi\n\n@include keys.texi\n"
    )
    out = tmp_path / "idx"
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", out)
    assert "keys.texi" in proc.stdout + proc.stderr  # (named in the summary of missing files)
    page = _get(DocsApp(open_bundle(out)), "shell.texi")
    assert "Press the key." not in page and page.count("# Shell") <= 5
    out2 = tmp_path / "idx2"
    run_docsmcp("build", "--docs-dir", docs, "--source-root", tmp_path / "lib", "--out", out2)
    assert "Press the key." in _get(DocsApp(open_bundle(out2)), "shell.texi")
