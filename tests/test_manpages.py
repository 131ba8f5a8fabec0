"""Unix manual pages in roff read as `man` and mandoc show them: a man(7) page and an mdoc(7)
page in the shape of a command-line tool's `man/` folder (a command, its configuration file),
with what a tree holds beside them that is no page (a signature folder's `v1.5`, a test's
`case.1`, an alias `.so`, a page built from the markdown beside it). The title is the page's
name, section and description; sections are headings; options, commands and keywords are
entries named with their program (`grove --verbose`, `grove serve`, `grove.conf ProxyHost`);
`.Xr` and `name(N)` are references to the pages of the bundle.
"""

from __future__ import annotations

import time
from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.formats.roff.manpage import man_to_markdown
from docsmcp.sources.formats.roff.roff_text import plain
from docsmcp.sources.packages.man_pages import reads_as_page
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.tools.app import DocsApp
from hypothesis import given
from hypothesis import strategies as st

GROVE_1 = r""".\" Copyright (c) the grove authors
.\" This comment must not show.
.de URL
\\$2 \(laURL: \\$1 \(ra\\$3
..
.ds gv \fBgrove\fP
.TH GROVE 1 "May 2026" "grove 2.1" "User Commands"
.SH NAME
grove \- plant and prune directory trees
.SH SYNOPSIS
.B grove
[\fIoptions\fR] \fIcommand\fR [\fIargs\fR...]
.SH DESCRIPTION
\*(gv keeps a tree of folders in shape.
It reads its settings from \fBgrove.conf\fR(5).
.ie n .sp
.el .This line only shows when typeset.
.PP
Use it with care \(em pruning cannot be undone.
The quote \(aqsaplings\(aq stays, and \e is a backslash.
.SH OPTIONS
.TP
\fB\-v\fR, \fB\-\-verbose\fR
Print every folder as it is visited.
.TP
.BI \-\-depth " n"
Stop at depth
.IR n .
.RS
.TP
.B \-\-nested
An option of the depth option, no entry of its own.
.RE
.SH COMMANDS
.TP
.B serve
Serve the tree over HTTP.
.PP
Example:
.PP
.nf
.RS
$ grove serve \-\-port 8080
$ grove prune \fIold\fR
.RE
.fi
.SH EXIT STATUS
.TP
.B 0
Success.
.SH TABLES
.TS
tab(;);
l l.
Name;Meaning
_
oak;a tree
T{
birch
T};another tree
.TE
.SH "SEE ALSO"
.BR grove.conf (5),
.URL https://grove.example "the grove site" .
"""

GROVE_CONF_5 = r""".\"	$OpenBSD: grove.conf.5 $
.Dd $Mdocdate: May 1 2026 $
.Dt GROVE.CONF 5
.Os
.Sh NAME
.Nm grove.conf
.Nd grove configuration file
.Sh DESCRIPTION
.Xr grove 1
reads
.Pa ~/.grove.conf
first.
Its variables are in
.Sx ENVIRONMENT .
The keywords are:
.Bl -tag -width Ds
.It Cm ProxyHost Ar host
Connect through
.Ar host ,
given as
.Sm off
.Op Ar user No @
.Ar host
.Op : Ns Ar port
.Sm on
or
.Dq none .
.It Cm Prune Op Cm yes | no
Whether to prune.
.Bd -literal -offset indent
Prune yes
.Ed
.El
.Ss Columns
.Bl -column "Keyword" "Default"
.It Sy Keyword Ta Sy Default
.It Cm Prune Ta no
.El
.Sh ENVIRONMENT
.Bl -tag -width Ds
.It Ev GROVE_HOME
Where the tree starts.
.El
.Sh SEE ALSO
.Xr grove 1 ,
.Xr ssh 1
"""

GENERATED_MD = """# gen(1) -- a page written in markdown

## DESCRIPTION

Gen writes its manual in markdown; the roff page beside it is built from this one.
"""

TREE = {
    "man/grove.1": GROVE_1,
    "man/grove.conf.5": GROVE_CONF_5,
    "man/grv.1": ".so man1/grove.1\n",
    "man/gen.1.md": GENERATED_MD,
    "man/gen.1": ".TH GEN 1\n.SH NAME\ngen \\- built page\n.SH DESCRIPTION\nBuilt.\n",
    "man/grove.1.in": GROVE_1.replace("grove 2.1", "@VERSION@"),
    "sig/v1.5": "-----BEGIN PGP SIGNATURE-----\nxyz\n",
    "tests/case.1": "1. plant\n2. prune\n",
    "README.md": "# grove\n\nA tool for trees. See man/grove.1.\n",
}


def test_pages_entries_and_references(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", TREE)
    out = build_bundle(docs, tmp_path / "out")
    pages = page_texts(out)
    # Only the pages: no alias, no built double, no template beside its page, no look-alike.
    assert sorted(pages) == ["README.md", "man/gen.1.md", "man/grove.1", "man/grove.conf.5"]

    grove = pages["man/grove.1"]
    assert "# grove(1) — plant and prune directory trees" in grove
    assert "## OPTIONS" in grove and "## SEE ALSO" in grove
    assert "This comment must not show" not in grove and "only shows when typeset" not in grove
    assert "grove keeps a tree of folders in shape." in grove  # (a `.ds` string)
    assert "Use it with care — pruning cannot be undone." in grove
    assert "The quote 'saplings' stays, and \\\\ is a backslash." in grove
    # An option closing its section heads its own (mandoc's anchor `-v` → `v`), its text
    # below it; what is nested in it stays its list.
    shown = man_to_markdown("man/grove.1", GROVE_1).text
    assert "### -v, --verbose {#v}\n\nPrint every folder as it is visited." in shown
    assert "### --depth n {#depth}" in shown
    assert "\n- **--nested**" in shown  # (nested by .RS inside the item)
    # A paragraph after the list is its section's again, not `serve`'s.
    assert "### serve {#serve}\n\nServe the tree over HTTP.\n### COMMANDS\nExample:" in shown
    assert "```\n$ grove serve --port 8080\n$ grove prune old\n```" in grove
    assert "| Name | Meaning |" in grove and "| birch | another tree |" in grove
    assert "the grove site ⟨URL: https://grove.example ⟩." in grove  # (the page's own macro)

    conf = pages["man/grove.conf.5"]
    assert "# grove.conf(5) — grove configuration file" in conf
    words = " ".join(conf.split())
    assert "**grove**(1) reads *~/.grove.conf* first." in words
    assert "### ProxyHost host {#ProxyHost}" in man_to_markdown("x.5", GROVE_CONF_5).text
    assert "Its variables are in [*ENVIRONMENT*](#environment)." in words  # (`.Sx`)
    assert "given as [*user*@]*host*[:*port*] or “none”." in words
    assert "### Prune [yes | no]" in conf
    assert "\n```\nPrune yes\n```" in conf
    assert "| **Keyword** | **Default** |" in conf and "| **Prune** | no |" in conf
    assert "### Columns" in conf

    app = DocsApp(open_bundle(out))

    def entry(name: str) -> dict:
        found = app.call_tool("get_api_reference", {"method": name})
        assert not found.get("isError"), (name, found)
        return found["structuredContent"]["entries"][0]

    verbose = entry("--verbose")
    assert (verbose["name"], verbose["kind"]) == ("grove --verbose", "option")
    assert verbose["description"] == "Print every folder as it is visited."
    assert entry("grove -v")["name"] == "grove -v"
    assert entry("--depth")["signature"] == "--depth n"
    serve = entry("serve")
    assert (serve["name"], serve["kind"]) == ("grove serve", "command")
    proxy = entry("ProxyHost")
    assert (proxy["name"], proxy["signature"]) == ("grove.conf ProxyHost", "ProxyHost host")
    assert entry("GROVE_HOME")["name"] == "grove.conf GROVE_HOME"
    for absent in ("--nested", "0"):  # (nested in an item; an exit status)
        found = app.call_tool("get_api_reference", {"method": absent})
        assert found.get("isError") or not found["structuredContent"].get("entries"), absent

    def first(query: str) -> dict:
        return app.call_tool("search_docs", {"query": query})["structuredContent"]["hits"][0]

    assert first("grove configuration file keywords")["filepath"] == "man/grove.conf.5"
    assert first("plant and prune directory trees")["filepath"] == "man/grove.1"
    # `.Xr grove 1` and `\fBgrove.conf\fR(5)` are references to the pages of the bundle.
    hit = first("ProxyHost connect through host")
    assert hit["filepath"] == "man/grove.conf.5"
    doc = app.call_tool("get_doc", {"chunk_id": hit["chunk_id"]})
    assert not doc["isError"] and "### ProxyHost host" in doc["content"][0]["text"]
    # A hit on an option is headed by it, its id mandoc's anchor.
    assert hit["heading"] == "ProxyHost host"
    assert hit["chunk_id"].endswith("/description/ProxyHost")
    verbose_hit = first("grove --verbose")
    assert (verbose_hit["heading"], verbose_hit["chunk_id"][-2:]) == ("-v, --verbose", "/v")
    assert entry("--verbose")["chunk_id"] == verbose_hit["chunk_id"]
    # `.Sx ENVIRONMENT` is a reference to that section of the page.
    intro = first("grove.conf variables ENVIRONMENT keywords")
    assert intro["chunk_id"].endswith("/description"), intro["chunk_id"]
    # (the ENVIRONMENT heading has no text of its own: its first chunk is GROVE_HOME's)
    assert any("/environment" in r["id"] for r in intro["references"]), intro["references"]
    assert any(r["id"].startswith("man/grove.1#") for r in intro["references"]), intro


def test_which_files_are_pages() -> None:
    assert reads_as_page(GROVE_1) and reads_as_page(GROVE_CONF_5)
    assert reads_as_page('\'\\" t\n.\\" pod2man\n.de Sp\n.sp\n..\n.TH FOO 3pm\n')
    assert not reads_as_page(".so man1/grove.1\n")
    assert not reads_as_page("1. plant\n.TH not a page\n")
    assert not reads_as_page(".PP\n" * 400 + ".TH LATE 1\n")


@FUZZ
@given(
    st.text(
        alphabet=".\\'\"fBIRP()[]{}*&-e|TH SH TP IP RS RE Bl It El Xo Xc Op Fl Ar nf fi de ie el "
        "if n t TS TE T{ T} ds\n\t",
        max_size=400,
    )
)
def test_reader_never_fails_on_any_text(text: str) -> None:
    page = man_to_markdown("x.1", ".TH X 1\n" + text)
    assert isinstance(page.text, str)
    assert len(page.line_map) == page.text.count("\n") + 1
    assert all(0 <= line <= text.count("\n") + 1 for line in page.line_map)
    plain(text)


def test_hostile_input_ends_in_linear_time() -> None:
    started = time.process_time()
    for text in (
        ".de a\n.a\n.a\n..\n.a\n",  # (a macro calling itself twice: the budget ends it)
        ".de b\n.b \\\\$1 \\\\$1\n..\n.b x\n",
        ".if n \\{\\\n" * 20_000 + "x\n" + ".\\}\n" * 20_000,
        "\\f" * 100_000,
        "\\(" * 100_000 + "\\[" * 50_000,
        ".Bl -tag\n" * 20_000 + ".It Fl x\ny\n" * 5_000,
        ".RS\n.TP\n.B x\n" * 20_000,
        ".Op " + "Op " * 30_000 + "x\n",
        ".ds a \\*a\\*a\n" + "\\*a" * 50_000,
        ".TS\n" + "a\tb\n" * 50_000 + ".TE\n",
        "\\" + "\\" * 100_000 + "\n.TH",
    ):
        assert isinstance(man_to_markdown("x.1", text).text, str)
        reads_as_page(text)
    assert time.process_time() - started < 30
