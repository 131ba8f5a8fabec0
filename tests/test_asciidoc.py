"""AsciiDoc pages (Asciidoctor, Antora): a folder of `.adoc` files built nothing and said
"AsciiDoc is not read". An Antora component written in the shape of Asciidoctor's and
Asciidoctor PDF's docs (tests/fixtures/antora-docs, our own text) builds into pages whose
chunks show what the rendered site shows; the converter's behaviours one by one; bounded
fuzzing of the converter."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from conftest import FUZZ, build_bundle, run_docsmcp
from docsmcp.commands.init import propose
from docsmcp.sources.formats.asciidoc.asciidoc import asciidoc_to_markdown
from docsmcp.sources.formats.asciidoc.resource_ids import resource
from docsmcp.sources.sites.antora import not_a_page
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.tools.app import DocsApp
from hypothesis import given
from hypothesis import strategies as st

ANTORA = Path(__file__).resolve().parent / "fixtures" / "antora-docs"
PAGE = "modules/ROOT/pages/install.adoc"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> DocsApp:
    return DocsApp(open_bundle(build_bundle(ANTORA, tmp_path_factory.mktemp("antora") / "idx")))


def _get(app: DocsApp, path: str) -> str:
    """A whole page, as get_page gives it."""
    result = app.call_tool("get_page", {"path": path})
    assert not result["isError"], result
    return str(result["structuredContent"]["text"])


def _top(app: DocsApp, query: str) -> str:
    hits = app.call_tool("search_docs", {"query": query, "limit": 3})["structuredContent"]["hits"]
    return hits[0]["chunk_id"]


# -- a site ---------------------------------------------------------------------------------


def test_an_antora_component_builds_its_pages_only(app: DocsApp) -> None:
    """Pages are `modules/*/pages/**`: partials, examples and nav files are included or
    navigate, no pages of their own."""
    toc = app.call_tool("list_sections", {})["content"][0]["text"]
    assert "partials" not in toc and "nav.adoc" not in toc and "examples" not in toc
    assert _top(app, "install the gem from rubygems") == (f"{PAGE}#install-lantern/install-the-gem")
    assert _top(app, "milliseconds between polls") == (
        "modules/guide/pages/configure.adoc#configure-lantern/watch-options"
    )


def test_a_page_reads_as_the_site_shows_it(app: DocsApp) -> None:
    text = _get(app, PAGE)
    # the component's attributes (antora.yml), the page's own, and a partial's text
    assert "Install Lantern 2.4.1 from [RubyGems](https://rubygems.org/gems/lantern)" in text
    assert "Lantern needs Ruby 3.1 or newer" in text
    # a listing block with its language; an example's tagged region included as its code
    assert "```console\n$ gem install lantern\n```" in text
    assert "```ruby\nLantern.watch 'src', into: 'public' do |change|" in text
    assert "tag::" not in text and "Lantern.serve" not in text
    # admonitions as label lines; conditionals as Antora evaluates them
    assert "Note: Windows users need the `wdm` gem as well." in text
    assert "Warning:\n\nNever run the watcher as root." in text
    assert "On the published site" in text and "only shown on GitHub" not in text
    # a numbered list with a listing attached by `+`, and its callout list
    assert "2. Run the version command:\n\n   ```console" in text


def test_a_page_description_is_its_description_attribute(app: DocsApp) -> None:
    page = app.call_tool("get_page", {"path": "modules/ROOT/pages/index.adoc"})
    assert page["structuredContent"]["description"] == "What Lantern is."


def test_tables_and_description_lists(app: DocsApp) -> None:
    text = _get(app, "modules/guide/pages/configure.adoc")
    assert "| Option | Default | Description |\n|---|---|---|\n| `interval` | `500` |" in text
    assert "- **output-dir**: Folder the pages are written to." in text
    assert "**Example lantern.yml**\n\n```yaml" in text
    assert "block comment" not in text.lower()
    assert "> Fast rebuilds beat clever caches." in text


def test_cross_references_resolve_to_pages_and_anchors(tmp_path: Path) -> None:
    """`xref:guide:configure.adoc#watch-options[]`, `xref:install.adoc[]` and `<<id,text>>`
    are links the build resolves (Antora resource ids to the module's pages folder)."""
    out = tmp_path / "idx"
    proc = run_docsmcp("build", "--docs-dir", ANTORA, "--out", out)
    assert "cross references resolved (100.0%)" in proc.stdout + proc.stderr
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["stats"]["files"] == 3
    app = DocsApp(open_bundle(out))
    index = _get(app, "modules/ROOT/pages/index.adoc")
    assert "[installing Lantern](install.adoc)" in index
    assert "[the watch options](../../guide/pages/configure.adoc#watch-options)" in index
    # an xref without text shows the page's title, as Antora does (link_titles.py)
    assert "set up in [Configure Lantern](../../guide/pages/configure.adoc)" in index


def test_nav_files_title_the_pages(app: DocsApp) -> None:
    hits = app.call_tool("search_docs", {"query": "Configuration guide", "limit": 1})
    hit = hits["structuredContent"]["hits"][0]
    assert hit["filepath"] == "modules/guide/pages/configure.adoc"


def test_a_folder_of_asciidoc_builds_with_init(tmp_path: Path) -> None:
    """As a new user runs it: `init --write`, then `build`."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.adoc").write_text(
        "= Widget Manual\n\n== Getting started\n\nRun `widget init` in an empty folder.\n"
    )
    (docs / "usage.adoc").write_text("= Usage\n\n== Flags\n\n`--fast`:: Skip the checks.\n")
    run_docsmcp("init", "--docs-dir", docs, "--write")
    assert (docs / ".docs-mcp.json").is_file()
    out = tmp_path / "idx"
    build_bundle(docs, out)
    app = DocsApp(open_bundle(out))
    assert _top(app, "skip the checks flag").startswith("usage.adoc#usage")


def test_init_counts_and_measures_the_pages_only(tmp_path: Path) -> None:
    """init measured Asciidoctor's partials and nav files as pages (99 files, 78 pages)."""
    docs = tmp_path / "docs"
    shutil.copytree(ANTORA, docs)
    proc = run_docsmcp("init", "--docs-dir", docs, "--write")
    assert proc.stdout.splitlines()[0] == "3 files"
    assert "validate: ok: 3 files" in proc.stdout
    assert "navigation: modules/ROOT/nav.adoc, modules/guide/nav.adoc" in proc.stdout


def test_a_book_s_included_chapters_are_read_in_the_book(tmp_path: Path) -> None:
    """A plain Asciidoctor book: `book.adoc` includes chapters that start at `==`; they read in
    the book, not a second time as pages; an included file with its own title stays a page."""
    docs = tmp_path / "manual"
    (docs / "chapters").mkdir(parents=True)
    (docs / "book.adoc").write_text(
        "= Field Manual\n:toc:\n\ninclude::chapters/setup.adoc[]\n\n"
        "include::chapters/usage.adoc[leveloffset=+1]\n\ninclude::faq.adoc[]\n"
    )
    (docs / "chapters" / "setup.adoc").write_text("== Setting up the tent\n\nPeg it down.\n")
    (docs / "chapters" / "usage.adoc").write_text(
        "// a license header\n[#use]\n== Folding\n\nRoll it tightly.\n"
    )
    (docs / "faq.adoc").write_text("= Questions\n\nAsk the ranger.\n")
    out = tmp_path / "idx"
    build_bundle(docs, out)
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["stats"]["files"] == 2  # book.adoc and faq.adoc
    app = DocsApp(open_bundle(out))
    assert _top(app, "peg the tent") == "book.adoc#field-manual/setting-up-the-tent"
    assert _top(app, "roll it tightly").startswith("book.adoc#field-manual/")
    assert "### Folding {#use}" not in _get(app, "book.adoc")  # (the id is the slug)
    assert "### Folding" in _get(app, "book.adoc")  # leveloffset=+1


def test_a_descriptor_outside_the_docs_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "secret.yml"
    outside.write_text("name: x\nasciidoc:\n  attributes:\n    token: s3cr3t\n")
    docs = tmp_path / "docs"
    (docs / "modules" / "ROOT" / "pages").mkdir(parents=True)
    (docs / "antora.yml").symlink_to(outside)
    (docs / "modules" / "ROOT" / "pages" / "a.adoc").write_text("= A\n\nThe {token}.\n")
    out = tmp_path / "idx"
    build_bundle(docs, out)
    assert "The {token}." in _get(DocsApp(open_bundle(out)), "modules/ROOT/pages/a.adoc")


def test_language_tabs_get_chunks_of_their_own(tmp_path: Path) -> None:
    """Asciidoctor Tabs (Spring's, Couchbase's): a `[tabs]` block of `Java::`/`Kotlin::` items
    reads as content tabs, each language's code a chunk of that language, as Docusaurus and
    mkdocs tabs do; Maven/Gradle tabs stay in the section, labelled."""
    docs = tmp_path / "docs"
    docs.mkdir()
    tab = "{}::\n+\n[source,{}]\n----\n{}\n----\n\n"
    (docs / "client.adoc").write_text(
        "= Client\n\n== Create a client\n\nBuild it.\n\n[tabs]\n======\n"
        + tab.format("Java", "java", "Client c = Client.builder().build();")
        + tab.format("Kotlin", "kotlin", "val c = Client.builder().build()")
        + "======\n\n== Add the dependency\n\n[tabs]\n====\n"
        + tab.format("Maven", "xml", "<artifactId>client</artifactId>")
        + tab.format("Gradle", "groovy", "implementation 'org:client'")
        + "====\n"
    )
    out = tmp_path / "idx"
    build_bundle(docs, out)
    app = DocsApp(open_bundle(out))
    hits = app.call_tool("search_docs", {"query": "val c Client builder", "limit": 1})
    hit = hits["structuredContent"]["hits"][0]
    assert hit["chunk_id"] == "client.adoc#client/create-a-client/kotlin"
    text = _get(app, "client.adoc")
    assert "Maven\n\n```xml\n<artifactId>client</artifactId>\n```\n\nGradle" in text


def test_a_docs_folder_is_named_after_its_component(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(ANTORA, docs)
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx")
    assert "name 'lantern', from antora.yml title" in proc.stdout + proc.stderr


# -- the converter --------------------------------------------------------------------------


def _md(text: str, path: str = "page.adoc") -> str:
    return asciidoc_to_markdown(path, text).text


def test_headings_and_their_ids() -> None:
    done = asciidoc_to_markdown(
        "p.adoc", "= Title\n\n[[setup]]\n== Set up\n\n=== Run it again\n\n[#x.role]\n## Hash\n"
    )
    assert done.title == "Title"
    assert "## Set up {#setup}" in done.text
    assert "### Run it again" in done.text
    assert "## Hash {#x}" in done.text
    underscored = asciidoc_to_markdown("p.adoc", "[[_setup]]\n== Set up\n")
    assert underscored.text == "## Set up\n" and underscored.anchors == ((0, "_setup"),)
    assert _md("<<Set up,this>>\n") == "[this](#set-up)\n"
    assert _md("== toc-h<n>\n\nThe `<n>` key.\n") == "## toc-h\\<n>\n\nThe `<n>` key.\n"
    assert _md("See <<setup>>.\n\n[[setup]]\n== Set *up*\n") == (
        "See [Set up](#setup).\n\n## Set **up** {#setup}\n"
    )
    # Asciidoctor's generated id is an anchor of its heading line
    line = done.text.split("\n").index("### Run it again")
    assert (line, "_run_it_again") in done.anchors
    custom = asciidoc_to_markdown("p.adoc", ":idprefix:\n:idseparator: -\n\n== Run It\n")
    assert [a for _, a in custom.anchors] == ["run-it"]


def test_the_header_sets_attributes_the_title_and_text_show() -> None:
    done = asciidoc_to_markdown(
        "c.adoc",
        "= {project} Changelog\nDoc Writer <doc@example.org>\nv2.1, 2024-05-01\n"
        ":project: Tent\n\nBy {author} ({email}), {revnumber}.\n\n"
        "A tent{empty}footnote:[Or a tarp.]\n",
    )
    assert done.title == "Tent Changelog"
    assert done.text.startswith("# Tent Changelog\n\nBy Doc Writer (doc@example.org), 2.1.\n")
    assert "A tent\\[1\\]" in done.text


def test_attributes_and_conditionals() -> None:
    text = (
        ":product: Acme\n:flag:\n\nUse {product} and {unknown}.\n\n"
        "ifdef::flag[]\nshown\nendif::[]\nifndef::flag[]\nhidden\nendif::[]\n"
        "ifdef::nope[one line]\nifeval::[{x} > 1]\nkept\nendif::[]\n// comment\n"
    )
    out = _md(text)
    assert "Use Acme and {unknown}." in out
    # an entry shown in a listing block sets nothing; one in an open block does
    listed = _md("```adoc\n:flag:\n```\n\nifdef::flag[shown]\n--\n:other:\n--\nifdef::other[yes]\n")
    assert "shown" not in listed and "yes" in listed
    assert "shown" in out and "hidden" not in out and "one line" not in out
    assert "kept" in out and "comment" not in out


def test_inline_markup_reduced() -> None:
    out = _md(
        "*bold* and _em_ and `mono` and +{raw}+ and kbd:[Ctrl+C] and btn:[Save] and "
        "menu:File[Save As] and image:logo.png[The logo] and "
        "https://example.org[Example] and link:guide.html[Guide]footnote:[A note.]\n"
    )
    assert out.startswith("**bold** and *em* and `mono` and {raw} and `Ctrl+C` and Save and ")
    assert "File > Save As and The logo and [Example](https://example.org)" in out
    assert "[Guide](guide.html)\\[1\\]" in out and out.rstrip().endswith("\\[1\\] A note.")
    unknown = _md(":r: https://x.org\n\n{r}/blob/{ref}/ci.yml[tested] and {url-org}[eco^]\n")
    assert unknown == "[tested](https://x.org/blob/{ref}/ci.yml) and eco\n"
    quoted = _md('The "`Standard`" fonts (https://example.org/w[WINANSI^]) are Asciidoctor`\'s.\n')
    assert quoted == "The “Standard” fonts ([WINANSI](https://example.org/w)) are Asciidoctor’s.\n"


def test_blocks() -> None:
    out = _md(
        "[source,python]\n----\nx = 1 # <1>\n----\n<1> The value.\n\n"
        "....\nliteral  text\n....\n\n  indented literal\n\n"
        "[TIP]\n.Remember\n====\nSave often.\n====\n\n"
        "****\nA sidebar.\n****\n\n++++\n<div>raw</div>\n++++\n\n"
        "* a\n+\nattached\n* b\n"
    )
    assert "```python\nx = 1 # <1>\n```\n\n1. The value." in out
    assert "```\nliteral  text\n```" in out and "```\nindented literal\n```" in out
    assert "Tip: Remember\n\nSave often." in out
    assert "A sidebar." in out and "raw" not in out
    assert "- a\n\n  attached\n- b" in out
    assert _md("====\n[discrete]\n=== Inside\n\ntext\n====\n") == "**Inside**\n\ntext\n"


def test_table_forms() -> None:
    implicit = _md("|===\n|A |B\n\n|1 |2\n|3 |4\n|===\n")
    assert implicit == "| A | B |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n"
    spans = _md('[cols="3*"]\n|===\n2+|wide |c\n|d |e |f\n|===\n')
    assert "| wide |  | c |\n|---|---|---|\n| d | e | f |" in spans
    styled = _md('[%autowidth,cols="1h,1l"]\n|===\n|Library |Command\n\n|pdf |gem install\n|===\n')
    assert "| Library | Command |\n|---|---|\n| pdf | `gem install` |" in styled
    commented = _md("|===\n|a |b\n\n|1\n//|hidden\n|2\n|===\n")
    assert "hidden" not in commented and "| 1 | 2 |" in commented
    assert _md("`a` \\=> b\n") == "`a` => b\n"
    csv = _md(',===\nname,size\n"a, b",1\n,===\n')
    assert "| name | size |\n|---|---|\n| a, b | 1 |" in csv


def test_antora_resource_ids_and_pages() -> None:
    page = "docs/modules/ROOT/pages/a/b.adoc"
    assert resource(page, "c.adoc", "pages") == "docs/modules/ROOT/pages/c.adoc"
    assert resource(page, "./c.adoc", "pages") == "docs/modules/ROOT/pages/a/c.adoc"
    assert resource(page, "cli:run.adoc", "pages") == "docs/modules/cli/pages/run.adoc"
    assert resource(page, "partial$x.adoc", "") == "docs/modules/ROOT/partials/x.adoc"
    assert resource(page, "api:example$y.rb", "") == "docs/modules/api/examples/y.rb"
    assert resource(page, "other:ROOT:z.adoc", "pages") is None  # another component
    assert resource("guide/a.adoc", "b.adoc", "pages") == "guide/b.adoc"  # no Antora layout
    assert not not_a_page(page) and not_a_page("docs/modules/ROOT/partials/x.adoc")
    assert not_a_page("docs/modules/ROOT/nav.adoc") and not_a_page("m/modules/R/pages/_x.adoc")
    assert not not_a_page("guide/partials/x.adoc")  # outside Antora, every .adoc is a page


def test_line_map_names_the_source_lines() -> None:
    text = "= T\n\nintro\n\n== S\n\n[source,sh]\n----\nls\n----\n"
    done = asciidoc_to_markdown("p.adoc", text)
    lines = done.text.split("\n")
    assert done.line_map[lines.index("## S")] == 4
    assert done.line_map[lines.index("ls")] == 8


@pytest.mark.slow  # fuzz, ~1-2 s
@FUZZ
@given(
    st.lists(
        st.one_of(
            st.sampled_from(
                [
                    "= T\n",
                    "== S\n",
                    "\n",
                    "----\n",
                    "====\n",
                    "|===\n",
                    "|a |b\n",
                    "2+|x\n",
                    "[source,ruby]\n",
                    "[NOTE]\n",
                    "[tabs]\n",
                    "* item\n",
                    "** deeper\n",
                    ". step\n",
                    "term:: def\n",
                    "+\n",
                    "<1> callout\n",
                    ":a: {b}\n",
                    "ifdef::a[]\n",
                    "endif::[]\n",
                    "////\n",
                    "include::x.adoc[]\n",
                    "xref:a.adoc#b[c] <<d,e>> *f* _g_ `h` +i+ footnote:[j]",
                    "[[id]]",
                    "  literal\n",
                ]
            ),
            st.text(max_size=15),
        ),
        max_size=40,
    )
)
def test_fuzz_any_asciidoc_converts_deterministically(parts: list[str]) -> None:
    text = "".join(parts)
    first = asciidoc_to_markdown("modules/ROOT/pages/fuzz.adoc", text)
    assert first == asciidoc_to_markdown("modules/ROOT/pages/fuzz.adoc", text)
    assert len(first.line_map) == first.text.count("\n") + 1
    assert all(0 <= x <= text.count("\n") for x in first.line_map)


@pytest.mark.slow
def test_hostile_pages_convert_in_bounded_time() -> None:
    for unit in ("*a", "_a ", "`a", "+a", "<<a,", "xref:a[", "|", "* ", "====\n", "[x]\n", "{a}"):
        text = unit * 50_000
        started = time.process_time()
        asciidoc_to_markdown("p.adoc", text)
        assert time.process_time() - started < 5, unit
    nested = "".join(f"{'=' * (4 + k)}\n" for k in range(300))
    asciidoc_to_markdown("p.adoc", nested + "x\n" + nested)


# -- component versions ---------------------------------------------------------------------


def _component(into: Path, version: str, extra: str = "", name: str = "lantern") -> None:
    """The fixture's component checked out at another version (Antora takes each version from
    a branch; a folder of several checkouts holds each with its own antora.yml)."""
    shutil.copytree(ANTORA, into)
    descriptor = (into / "antora.yml").read_text(encoding="utf-8")
    descriptor = descriptor.replace("name: lantern", f"name: {name}")
    (into / "antora.yml").write_text(
        descriptor.replace("version: '2.4'", f"version: '{version}'{extra}"), encoding="utf-8"
    )


def test_a_component_in_several_versions_is_the_version_taxonomy(tmp_path: Path) -> None:
    """Asciidoctor's v2.0.x and main checkouts side by side (`asciidoctor-2.0/`,
    `asciidoctor-main/`: no folder name is a version) built without a version key, every page
    twice in the hits; the component's versions are what its site publishes and names, and
    a prerelease is not the latest."""
    docs = tmp_path / "docs"
    _component(docs / "lantern-2.4", "2.4")
    _component(docs / "lantern-main", "2.5", "\nprerelease: true")
    proposal = propose(docs)
    assert dict(proposal.values["version"]) == {"2.4": 3, "2.5": 3}
    assert proposal.latest.startswith("2.4 (antora.yml")
    assert {o["pattern"]: o["metadata"] for o in proposal.manifest["overrides"]} == {
        "lantern-2.4/**": {"version": "2.4"},
        "lantern-main/**": {"version": "2.5"},
    }
    idx = build_bundle(docs, tmp_path / "idx")  # (no manifest: the build's own detection)
    version = json.loads((idx / "metadata.json").read_text())["taxonomy"]["version"]
    assert (version["values"], version["latest"]) == (["2.4", "2.5"], "2.4")
    app = DocsApp(open_bundle(idx))
    found = app.call_tool("search_docs", {"query": "install lantern", "limit": 5})
    hits = found["structuredContent"]["hits"]
    assert {h["chunk_id"].split("/")[0] for h in hits} == {"lantern-2.4"}
    found = app.call_tool("search_docs", {"query": "install lantern", "version": "2.5"})
    assert found["structuredContent"]["hits"][0]["chunk_id"].startswith("lantern-main/")


def test_a_section_of_one_checkout_lists_the_other_checkouts_version(tmp_path: Path) -> None:
    """No checkout folder is named as its version (`lantern-main/` is 2.5): the bundle records
    each version's folder, so a hit lists its copy in the other version (it listed none)."""
    docs = tmp_path / "docs"
    _component(docs / "lantern-2.4", "2.4")
    _component(docs / "lantern-main", "2.5", "\nprerelease: true")
    for manifest in (False, True):  # the build's own detection, then init's manifest
        if manifest:
            run_docsmcp("init", "--docs-dir", docs, "--write")
        idx = build_bundle(docs, tmp_path / f"idx-{manifest}")
        version = json.loads((idx / "metadata.json").read_text())["taxonomy"]["version"]
        assert version["folders"] == {"2.4": ["lantern-2.4"], "2.5": ["lantern-main"]}
        app = DocsApp(open_bundle(idx))
        found = app.call_tool("search_docs", {"query": "install lantern", "limit": 3})
        top = found["structuredContent"]["hits"][0]
        assert top["chunk_id"].startswith("lantern-2.4/")
        assert top["also_in"] == {"version": ["2.5"]}


def test_components_of_one_version_each_are_no_version_filter(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _component(docs / "lantern", "2.4")
    _component(docs / "wick", "1.0", name="wick")
    assert "version" not in propose(docs).values
    single = propose(ANTORA)
    assert "version" not in single.values and "taxonomy" not in single.manifest
