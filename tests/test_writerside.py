"""JetBrains Writerside projects (ktor's docs): markdown topics titled by `[//]: # (title: X)`,
kramdown attribute lists giving headings their ids, code blocks filled from the snippets folder,
`%var%` variables of `v.list`."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ
from docsmcp.chunking.chunk import chunk_file
from docsmcp.commands.init import propose
from docsmcp.sources.convert import convert_source
from docsmcp.sources.corpus import load_corpus
from docsmcp.sources.formats.writerside_xml import render_element, render_topic
from docsmcp.sources.navigation.navfiles import read_nav
from docsmcp.sources.sites.writerside import CodeRef, Project, block, topic
from hypothesis import given
from hypothesis import strategies as st


def _chunks(docs: Path, path: str) -> list:
    corpus = load_corpus(docs)
    assert not corpus.problems, corpus.problems
    (sf,) = [f for f in corpus.files if f.path == path]
    return chunk_file(convert_source(sf))


def test_title_comment_and_attribute_ids(tmp_path: Path) -> None:
    """The title comment is the page's H1 (ktor's 142 markdown topics were titled by their
    first section or file name); `{id="x"}` after a heading is its id (947 ids, which links
    such as `client-requests.md#cookies` name), `{style="note"}` after a block leaves nothing."""
    docs = tmp_path / "topics"
    docs.mkdir()
    (docs / "client-cookies.md").write_text(
        "[//]: # (title: Cookies)\n\nThe client keeps cookies.\n\n"
        '## Add dependencies {id="add_dependencies"}\n\nNo artifact.\n\n'
        '> Cookies are kept in memory.\n>\n{style="note"}\n'
    )
    chunks = {c.id: c for c in _chunks(docs, "client-cookies.md")}
    assert set(chunks) == {
        "client-cookies.md#cookies",
        "client-cookies.md#cookies/add_dependencies",
    }
    first = chunks["client-cookies.md#cookies"]
    assert first.heading == "Cookies" and "title:" not in first.text
    c = chunks["client-cookies.md#cookies/add_dependencies"]
    assert c.heading == "Add dependencies"
    assert "{" not in c.text and "Cookies are kept in memory." in c.text


def _project(tmp_path: Path) -> Path:
    """A Writerside project in ktor's shape: `project.ihp`, `v.list`, `codeSnippets/`, `topics/`."""
    (tmp_path / "project.ihp").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<ihp version="2.0">\n'
        '    <snippets src="codeSnippets"/>\n    <vars src="v.list"/>\n'
        '    <topics dir="topics"/>\n    <instance src="ktor.tree" id="docs"/>\n</ihp>\n'
    )
    (tmp_path / "v.list").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<vars>\n'
        '    <var name="ktor_version" value="3.5.2"/>\n</vars>\n'
    )
    app = tmp_path / "codeSnippets" / "snippets" / "cookies" / "src"
    app.mkdir(parents=True)
    (app / "Application.kt").write_text(
        "package com.example\n\nimport io.ktor.client.*\n\n"
        "fun main() {\n    val client = HttpClient(CIO) {\n        install(HttpCookies)\n"
        "    }\n}\n\nfun other() = 1\n"
    )
    (tmp_path / "topics").mkdir()
    return tmp_path


def test_code_blocks_from_the_snippets_folder_and_variables(tmp_path: Path) -> None:
    """ktor's 540 code blocks written empty with `{src=…}` under them showed nothing; the
    lines, or the symbol, they name are the block; `%ktor_version%` is v.list's value."""
    root = _project(tmp_path)
    (root / "topics" / "client-cookies.md").write_text(
        '[//]: # (title: Cookies)\n\n<var name="artifact" value="ktor-client-core"/>\n'
        "Use Ktor %ktor_version% and %unknown%, add `%artifact%`.\n\n"
        "## Install\n\n```kotlin\n```\n"
        '{src="snippets/cookies/src/Application.kt" include-lines="6-8"}\n\n'
        "1. A list item:\n   ```kotlin\n   ```\n"
        '   {src="snippets/cookies/src/Application.kt" include-symbol="main"}\n\n'
        '```kotlin\n```\n{src="/snippets/cookies/src/Application.kt" include-symbol="other"}\n\n'
        '```groovy\nimplementation "io.ktor:ktor-client-core:%ktor_version%"\n```\n\n'
        '```kotlin\n```\n{src="https://raw.githubusercontent.com/x/EngineMainTest.kt"\n'
        'include-lines="18-26"}\n\n'
        '```kotlin\n```\n{src="snippets/none/Missing.kt"}\n'
    )
    chunks = {c.id: c for c in _chunks(root, "topics/client-cookies.md")}
    intro = chunks["topics/client-cookies.md#cookies"].text
    assert "Use Ktor 3.5.2 and %unknown%, add `ktor-client-core`." in intro
    install = chunks["topics/client-cookies.md#cookies/install"].text
    assert "```kotlin\nval client = HttpClient(CIO) {\n    install(HttpCookies)\n}\n```" in install
    assert "   ```kotlin\n   fun main() {\n       val client" in install
    assert install.count("fun other() = 1") == 1 and "{src=" not in install
    assert "include-lines" not in install  # (a list over two lines, a URL: no file to show)
    assert 'ktor-client-core:3.5.2"' in install
    assert install.rstrip().endswith('3.5.2"\n```')  # a file not found, a URL: no empty block


def test_xml_topics_are_pages_with_their_includes(tmp_path: Path) -> None:
    """ktor's 23 `.topic` pages (its tutorials, server configuration) were no pages at all; the
    `<snippet>`s that 414 `<include from="lib.topic" element-id=…/>` name were lost."""
    root = _project(tmp_path)
    (root / "topics" / "lib.topic").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topic SYSTEM "x.dtd">\n'
        '<topic id="lib" title="Library">\n    <snippet id="add_artifact">\n'
        "        <p>To use <code>%plugin_name%</code>, add <code>%artifact_name%</code>:</p>\n"
        '        <tabs>\n            <tab title="Gradle (Kotlin)">\n'
        '                <code-block lang="Kotlin">\n'
        '                    implementation("io.ktor:%artifact_name%:$ktor_version")\n'
        "                </code-block>\n            </tab>\n        </tabs>\n"
        "    </snippet>\n</topic>\n"
    )
    (root / "topics" / "server-config.topic").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<!DOCTYPE topic SYSTEM "https://resources.jetbrains.com/writerside/1.0/html-entities.dtd">\n'
        '<topic title="Configuration in a file" id="server-config">\n'
        '    <show-structure for="chapter" depth="2"/>\n'
        "    <link-summary>Learn how to configure a server.</link-summary>\n"
        "    <p>Ktor&nbsp;%ktor_version% reads <path>application.conf</path>, see\n"
        '        <a href="server-modules.md" anchor="load">modules</a>.</p>\n'
        '    <chapter title="Basic configuration" id="config-basic">\n'
        "        <list>\n            <li>HOCON</li>\n            <li><p>YAML</p>\n"
        "                <note><p>Needs <code>ktor-server-config-yaml</code>.</p></note></li>\n"
        "        </list>\n"
        '        <code-block lang="kotlin"\n'
        '                    src="snippets/cookies/src/Application.kt" include-symbol="other"/>\n'
        '        <var name="plugin_name" value="CORS"/>\n'
        '        <var name="artifact_name" value="ktor-cors"/>\n'
        '        <include from="lib.topic" element-id="add_artifact"/>\n'
        '        <procedure title="Run it" id="run">\n'
        "            <step>Open <control>Run</control>.</step>\n"
        "            <step>Click <emphasis>OK</emphasis>.</step>\n        </procedure>\n"
        "        <table><tr><td>Express</td><td>Ktor</td></tr>\n"
        '            <tr><td><code-block lang="js">app.listen(3000)</code-block></td>\n'
        '            <td><code-block lang="kotlin">embeddedServer(Netty)</code-block></td></tr>\n'
        "        </table>\n    </chapter>\n</topic>\n"
    )
    chunks = {c.id: c for c in _chunks(root, "topics/server-config.topic")}
    assert set(chunks) == {
        "topics/server-config.topic#configuration-in-a-file",
        "topics/server-config.topic#configuration-in-a-file/config-basic",
    }
    intro = chunks["topics/server-config.topic#configuration-in-a-file"]
    assert intro.text == (
        "# Configuration in a file\n\n"
        "Ktor\xa03.5.2 reads `application.conf`, see [modules](server-modules.md#load)."
    )
    basic = chunks["topics/server-config.topic#configuration-in-a-file/config-basic"]
    assert basic.heading == "Basic configuration"
    for shown in (
        "- HOCON\n- YAML\n\n  > Note: Needs `ktor-server-config-yaml`.\n",
        "```kotlin\nfun other() = 1\n```",
        "To use `CORS`, add `ktor-cors`:\n\nGradle (Kotlin):\n\n```kotlin\n"
        'implementation("io.ktor:ktor-cors:$ktor_version")\n```',
        "**Run it**\n\n1. Open **Run**.\n2. Click *OK*.",
        "Express:\n\n```js\napp.listen(3000)\n```\n\nKtor:\n\n```kotlin\nembeddedServer(Netty)\n```",
    ):
        assert shown in basic.text
    assert "<" not in basic.text and "%" not in basic.text


def test_markdown_pages_include_elements_of_xml_topics(tmp_path: Path) -> None:
    """`<include from element-id/>` in a markdown topic shows the element, with the page's
    `<var>`s in its `%name%`s."""
    root = _project(tmp_path)
    (root / "topics" / "lib.topic").write_text(
        '<topic id="lib" title="Library">\n<snippet id="install">\n'
        "<p>Install <code>%plugin_name%</code> with <code>install</code>.</p>\n"
        "</snippet>\n</topic>\n"
    )
    (root / "topics" / "server-cors.md").write_text(
        '[//]: # (title: CORS)\n\n<var name="plugin_name" value="CORS"/>\n\n## Install\n\n'
        '<include from="lib.topic" element-id="install"/>\n\nThen configure it.\n'
    )
    chunks = {c.id: c for c in _chunks(root, "topics/server-cors.md")}
    text = chunks["topics/server-cors.md#cors/install"].text
    assert "Install `CORS` with `install`.\n\nThen configure it." in text
    assert "<include" not in text


# Pieces of Writerside's syntax, with text between them.
_PIECES = st.sampled_from(
    [
        '<topic title="T" id="t">',
        "</topic>",
        '<chapter title="C" id="c">',
        "</chapter>",
        "<p>",
        "</p>",
        "<list>",
        "<li>",
        "</li>",
        "</list>",
        '<code-block lang="kotlin">',
        "</code-block>",
        "<![CDATA[",
        "]]>",
        "<note>",
        "</note>",
        '<tab title="A">',
        "</tab>",
        '<a href="x.md" anchor="y">',
        "</a>",
        '<a href="x.md"/>',
        "&nbsp;",
        "&bogus;",
        "%ktor_version%",
        '<include from="lib.topic" element-id="s"/>',
        '<code-block src="snippets/x.kt" include-lines="2-1,x"/>',
        '<var name="v" value="w"/>',
        "<table><tr><td>",
        "\n",
    ]
)
_XML = st.lists(st.one_of(_PIECES, st.text(max_size=8)), max_size=40).map("".join)


@FUZZ
@given(_XML, st.text(max_size=40))
def test_any_topic_text_renders_with_a_line_map_and_raises_nothing(text: str, other: str) -> None:
    done = render_topic(text)
    assert len(done.lines) == len(done.line_map)
    assert all(0 <= n < max(1, text.count("\n") + 1) for n in done.line_map)
    assert render_element(text, "s") is None or isinstance(render_element(text, "s"), list)
    project = Project(Path("."), None, {"ktor_version": "3"})
    lines, line_map = topic(text.split("\n"), project, lambda kind, name: other)
    assert len(lines) == len(line_map) and all(0 <= n <= text.count("\n") for n in line_map)
    ref = CodeRef(0, 0, "", "kotlin", "x.kt", {"include-symbol": other[:5] or "x"})
    shown = block(ref, text, {})
    assert shown[0].startswith("```kotlin") and shown[-1].strip("`") == ""


def test_writerside_elements_in_markdown_read_as_shown(tmp_path: Path) -> None:
    """ktor's markdown topics wrap markdown in Writerside's elements: `<tldr>` (109),
    `<tabs>`/`<tab title>` (176), `<show-structure/>` (103), `<link-summary>` (69),
    `<primary-label/>`, `<deflist>`/`<def title>`, `<compare>`, blockquotes styled as notes
    (95): the tags were indexed as text and the tab titles lost."""
    root = _project(tmp_path)
    (root / "topics" / "server-run.md").write_text(
        '[//]: # (title: Run)\n\n<show-structure for="chapter" depth="2"/>\n'
        '<primary-label ref="server-plugin"/>\n\n<tldr>\n'
        "<p><b>Code example</b>: <path>run.kt</path></p>\n</tldr>\n\n"
        "<link-summary>\nLearn how to run.\n</link-summary>\n\n"
        "Start the server.\n\n> It listens on port 8080.\n>\n"
        '{style="note"}\n\n<tabs group="os">\n<tab title="Linux/macOS" group-key="unix">\n\n'
        "```shell\n./gradlew run\n```\n\n</tab>\n"
        '<tab title="Windows" group-key="windows">\n\n```shell\ngradlew.bat run\n```\n\n'
        "</tab>\n</tabs>\n\n<deflist>\n"
        '<def title="HxRequestHeaders.Target">ID of the <emphasis>target</emphasis></def>\n'
        '</deflist>\n\n<tabs group="languages">\n    <tab title="Maven" group-key="maven">\n'
        '        <code-block lang="XML">\n        <![CDATA[\n            <dependency>\n'
        "                <version>%ktor_version%</version>\n            </dependency>\n"
        "        ]]>\n      </code-block>\n    </tab>\n</tabs>\n\n<deflist>\n<def>\n"
        "<title><code>Mode.All</code></title>\nCompresses both.\n</def>\n</deflist>\n\n"
        "<warning>\n<p>\nUse 2048-bit keys.\n</p>\n</warning>\n"
    )
    (chunk,) = _chunks(root, "topics/server-run.md")
    text = chunk.text
    prose = text.split("```xml")[0] + text.split("</dependency>")[-1]
    assert "<" not in prose and "{style" not in text and "Learn how to run" not in text
    for shown in (
        "**Code example**: `run.kt`",
        "> Note: It listens on port 8080.",
        "Linux/macOS:\n\n```shell\n./gradlew run\n```",
        "Windows:\n\n```shell\ngradlew.bat run\n```",
        "HxRequestHeaders.Target: ID of the *target*",
        # (the CDATA markers' lines stay, blank: a page keeps its lines)
        "Maven:\n```xml\n\n<dependency>\n    <version>3.5.2</version>\n</dependency>\n\n```",
        "`Mode.All`:\nCompresses both.",
        "Warning:\n\nUse 2048-bit keys.",
    ):
        assert shown in text


def test_the_tree_titles_orders_and_decides_the_pages(tmp_path: Path) -> None:
    """A Writerside project builds the topics its instance tree names: ktor's 166 code-sample
    READMEs, its own README and `lib.topic` (the library of included snippets) were pages,
    and its pages had no order; the tree's `toc-title` is the page's name in the sidebar."""
    root = _project(tmp_path)
    (root / "ktor.tree").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<!DOCTYPE instance-profile SYSTEM "https://x/product-profile.dtd">\n'
        '<instance-profile id="ktor" name="Ktor" start-page="welcome.topic">\n'
        '    <toc-element topic="welcome.topic"/>\n'
        '    <toc-element toc-title="Ktor Server">\n'
        '        <toc-element topic="server-run.md" toc-title="Run it"/>\n'
        '        <toc-element topic="client-cookies.md"/>\n    </toc-element>\n'
        "</instance-profile>\n"
    )
    topics = root / "topics"
    (topics / "welcome.topic").write_text('<topic title="Welcome" id="welcome"><p>Hi.</p></topic>')
    (topics / "lib.topic").write_text('<topic title="Library" id="lib"><snippet id="s"/></topic>')
    (topics / "client-cookies.md").write_text("[//]: # (title: Cookies)\n\nKept.\n")
    (topics / "server-run.md").write_text("[//]: # (title: Running)\n\nRun.\n")
    (topics / "orphan.md").write_text("[//]: # (title: Orphan)\n\nNot in the tree.\n")
    sample = root / "codeSnippets" / "snippets" / "cookies"
    (sample / "README.md").write_text("# Client cookies\n\nA sample.\n")
    (root / "README.md").write_text("# Ktor Documentation\n")
    corpus = load_corpus(root)
    paths = [f.path for f in corpus.files]
    assert sorted(paths) == [
        "topics/client-cookies.md",
        "topics/server-run.md",
        "topics/welcome.topic",
    ]
    assert "Writerside" in corpus.site_rule
    nav = read_nav(root, [root], paths)
    assert nav.order == {
        "topics/welcome.topic": 0,
        "topics/server-run.md": 1,
        "topics/client-cookies.md": 2,
    }
    assert nav.titles == {"topics/server-run.md": "Run it"}
    report = propose(root).report()  # init proposes the same, saying why
    assert "site: excludes what the Writerside project does not build (topics its trees name)" in (
        report
    )
    for line in ("exclude codeSnippets/**: 1 files", "exclude topics/lib.topic: 1 files"):
        assert line in report
