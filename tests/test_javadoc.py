"""Java libraries read as Javadoc shows them: a Maven/Gradle project's main sources become a
page per class (and `package-info.java` the package's page), each public or protected member
a section and an API entry. The fixture is a Maven project in the shape of jhy/jsoup and
google/gson (package-info.java, a class with overloads, a nested class and enum, `<pre>{@code}`
examples, `{@link}`s; an internal package the pom's javadoc plugin excludes; tests; a sample
module) and a docs site's Java snippets without a build around them."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, page_texts, run_docsmcp, write_tree
from docsmcp.sources.formats.source.java_lex import tokens
from docsmcp.sources.formats.source.java_parse import parse
from docsmcp.sources.formats.source.javadoc import java_to_markdown
from docsmcp.sources.formats.source.javadoc_text import render
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

POM = """<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>htmlkit</artifactId>
  <description>Parse and clean HTML.</description>
  <build>
    <plugins>
      <plugin>
        <artifactId>maven-javadoc-plugin</artifactId>
        <configuration>
          <excludePackageNames>com.example.htmlkit.internal</excludePackageNames>
        </configuration>
      </plugin>
    </plugins>
  </build>
</project>
"""

PACKAGE_INFO = """/**
 Contains the main {@link com.example.htmlkit.Parser} entry point, and the <b>nodes</b> it makes.
 */
@NullMarked
package com.example.htmlkit;

import org.jspecify.annotations.NullMarked;
"""

PARSER = """/*
 * Copyright (c) 2024 The Authors. This package is MIT licensed.
 */
package com.example.htmlkit;

import com.example.htmlkit.nodes.Node;
import java.util.List;

/**
 Parses HTML into a tree of {@link Node}s.
 <p>Use {@link #parse(String)} for a whole document, or
 {@link #parseFragment(String, Node) a fragment}:</p>
 <pre>{@code
 Parser p = new Parser();
 Node doc = p.parse("<p>Hi</p>");
 }</pre>
 <ul>
   <li>tolerant of <i>broken</i> markup</li>
   <li>keeps source positions</li>
 </ul>
 @since 1.2
 @see Node#text()
 */
public final class Parser {
    /** The most nodes one parse makes. */
    public static final int MAX_NODES = 100_000, MAX_DEPTH = 512;

    private final List<String> errors = null;
    int packagePrivate;

    /**
     * Parse a whole HTML document.
     *
     * @param html the HTML to parse, as a {@code String}
     * @return the document's root node
     * @throws IllegalArgumentException if {@code html} is null
     */
    public Node parse(String html) {
        return parse(html, "");
    }

    /**
     * Parse a whole HTML document, resolving relative links against a base URI.
     * @param html HTML to parse
     * @param baseUri the base URI; {@literal <base href>} wins over it
     * @return the document's root node
     * @deprecated use {@link #parse(String)} and set the base on the document.
     */
    @Deprecated
    public Node parse(String html, String baseUri) {
        return null;
    }

    /**
     * Parse a fragment of HTML in the context of an element.
     * @param <T> the node type
     * @param fragment the fragment
     * @param context its context
     * @return the fragment's nodes
     */
    public <T extends Node> List<T> parseFragment(String fragment, @Nullable Node context) {
        return null;
    }

    private void helper() {}

    void packageHelper() {}

    /** Settings for a parse. */
    public static class Settings implements Cloneable {
        /** Whether tag names keep their case. @return true when they do */
        public boolean preserveCase() { return false; }
        private void hidden() {}
    }

    /** How much a parse tolerates. */
    public enum Mode {
        /** Fail on the first error. */
        STRICT,
        /** Repair what it can. */
        LENIENT
    }
}

class PackagePrivateHelper {
    public void shouldNotShow() {}
}
"""

NODE = """package com.example.htmlkit.nodes;

/** A node of the tree. */
public abstract class Node {
    /**
     * The node's text, and its children's.
     * @return the text
     */
    public String text() { return ""; }

    /** The node's name. */
    public abstract String name();
}
"""

ELEMENT = """package com.example.htmlkit.nodes;

/** An element. */
public class Element extends Node implements Comparable<Element> {
    @Override
    public String text() { return ""; }

    /** {@inheritDoc} An element's is its tag's. */
    @Override
    public String name() { return "p"; }
}
"""

INTERNAL = """package com.example.htmlkit.internal;

/** Internal helpers: not part of the API. */
public final class StringUtil {
    /** Joins strings. */
    public static String join(String... parts) { return ""; }
}
"""

GENERATED = """// Generated by the entity tool. DO NOT EDIT.
package com.example.htmlkit.nodes;

/** Entity data. */
public final class EntitiesData {
    /** The points. */
    public static final String POINTS = "";
}
"""


def _project(root: Path) -> Path:
    return write_tree(
        root,
        {
            "README.md": "# htmlkit\n\nParse HTML with `Parser.parse`.\n",
            "pom.xml": POM,
            "src/main/java/com/example/htmlkit/package-info.java": PACKAGE_INFO,
            "src/main/java/com/example/htmlkit/Parser.java": PARSER,
            "src/main/java/com/example/htmlkit/nodes/Node.java": NODE,
            "src/main/java/com/example/htmlkit/nodes/Element.java": ELEMENT,
            "src/main/java/com/example/htmlkit/nodes/EntitiesData.java": GENERATED,
            "src/main/java/com/example/htmlkit/internal/StringUtil.java": INTERNAL,
            "src/main/java11/com/example/htmlkit/Http11.java": NODE.replace("nodes", "x"),
            "src/test/java/com/example/htmlkit/ParserTest.java": (
                "package com.example.htmlkit;\n/** Tests. */\npublic class ParserTest {}\n"
            ),
            "samples/demo/build.gradle": "plugins { id 'java' }\n",
            "samples/demo/src/main/java/demo/Demo.java": (
                "package demo;\n/** A demo. */\npublic class Demo {}\n"
            ),
        },
    )


def test_project_reads_as_javadoc_shows_it(tmp_path: Path) -> None:
    out = build_bundle(_project(tmp_path / "htmlkit"), tmp_path / "idx")
    pages = page_texts(out)
    main = "src/main/java/com/example/htmlkit/"
    # Main sources of the project only: not tests, samples, other source sets, the excluded
    # internal package or a generated file.
    assert set(pages) == {
        "README.md",
        main + "package-info.java",
        main + "Parser.java",
        main + "nodes/Node.java",
        main + "nodes/Element.java",
    }
    text = pages[main + "Parser.java"]
    assert "# com.example.htmlkit.Parser" in text
    assert "```java\npublic final class Parser\n```" in text
    assert "Parses HTML into a tree of `Node`s." in text
    # `{@link #parse(String)}` on the page is a link to its section.
    assert "Use [`parse(String)`](#parse-String-) for a whole document" in text
    assert "[a fragment](#parseFragment-String-Node-)" in text
    assert '```java\nParser p = new Parser();\nNode doc = p.parse("<p>Hi</p>");\n```' in text
    assert "- tolerant of *broken* markup\n- keeps source positions" in text
    assert "**Since:** 1.2" in text
    assert "## Parser.parse" in text and "public Node parse(String html)" in text
    assert "- `html` - the HTML to parse, as a `String`" in text
    assert "**Returns:** the document's root node" in text
    assert "- `IllegalArgumentException` - if `html` is null" in text
    assert "**Deprecated.** use [`parse(String)`](#parse-String-) and set the base" in text
    assert "the base URI; <base href> wins over it" in text
    assert "public <T extends Node> List<T> parseFragment(String fragment, @Nullable Node" in text
    assert "- `<T>` - the node type" in text
    assert "## Parser.MAX_NODES" in text and "## Parser.MAX_DEPTH" in text
    assert "## Parser.Settings" in text and "### Settings.preserveCase" in text
    assert "## Parser.Mode" in text and "### Mode.STRICT" in text
    # What javadoc leaves out: private and package-private members and types.
    for hidden in ("errors", "packagePrivate", "helper", "packageHelper", "shouldNotShow"):
        assert hidden not in text
    # A method overriding without a comment shows the overridden one's, as javadoc copies it.
    element = pages[main + "nodes/Element.java"]
    assert "*Description copied from `Node`:*\n\nThe node's text, and its children's." in element
    assert "The node's name. An element's is its tag's." in element
    assert pages[main + "package-info.java"].strip().startswith("# com.example.htmlkit")
    assert "the **nodes** it makes" in pages[main + "package-info.java"]

    api = ApiRegistry(open_bundle(out))
    names = set(api.names)
    assert {
        "com.example.htmlkit.Parser",
        "com.example.htmlkit.Parser.parse",
        "com.example.htmlkit.Parser.parseFragment",
        "com.example.htmlkit.Parser.MAX_NODES",
        "com.example.htmlkit.Parser.Settings.preserveCase",
        "com.example.htmlkit.Parser.Mode.STRICT",
        "com.example.htmlkit.nodes.Node.text",
    } <= names
    assert not {n for n in names if "helper" in n.lower() or "StringUtil" in n or "Demo" in n}
    found = [api.spec(i) for i in api.lookup("Parser.parse")]
    assert [e["signature"] for e in found] == [
        "public Node parse(String html)",
        "@Deprecated public Node parse(String html, String baseUri)",
    ]
    assert api.lookup("com.example.htmlkit.Parser.parse") == api.lookup("Parser.parse")
    first = found[0]
    assert first["description"] == "Parse a whole HTML document."
    assert [(p["name"], p["type"], p["description"]) for p in first["parameters"]] == [
        ("html", "String", "the HTML to parse, as a `String`")
    ]
    assert first["returns"] == "Node: the document's root node"
    assert first["chunk_id"] == main + "Parser.java#Parser/parse-String-"
    assert found[1]["description"].startswith("Deprecated. use `parse(String)`")
    text_of = api.spec(api.lookup("Element.text")[0])
    assert text_of["description"] == "The node's text, and its children's."

    # The pages are generated reference (like TypeDoc's); the README stays the guide.
    roles = {
        r["path"]: json.loads(r["metadata"]).get("role")
        for r in pq.read_table(out / "chunks.parquet", columns=["path", "metadata"]).to_pylist()
    }
    assert roles[main + "Parser.java"] == "generated"
    assert roles["README.md"] != "generated"
    # `{@link Node}` / `@see Node#text()` on Parser's page resolve to Node's page.
    built = run_docsmcp(
        "build", "--docs-dir", tmp_path / "htmlkit", "--out", tmp_path / "idx2", "--json"
    )
    refs = json.loads(built.stdout)["references"]
    assert refs["resolved"] >= 6 and refs["resolved"] == refs["found"], refs


def test_java_outside_a_project_is_no_page(tmp_path: Path) -> None:
    # A docs site's snippets (no pom.xml or build.gradle around them) stay code, and a saved
    # HTML site beside Java files is still read as a site.
    docs = write_tree(
        tmp_path / "docs",
        {
            "index.html": "<html><head><title>Home</title></head><body><h1>Home</h1>"
            "<p>Welcome to the client.</p></body></html>",
            "snippets/src/main/java/Example.java": "/** Example. */\npublic class Example {}\n",
        },
    )
    assert set(page_texts(build_bundle(docs, tmp_path / "idx"))) == {"index.html"}


def test_module_info_exports_decide(tmp_path: Path) -> None:
    # A named module's javadoc documents only the packages it exports (gson's `internal`).
    root = write_tree(
        tmp_path / "lib",
        {
            "build.gradle.kts": "plugins { `java-library` }\n",
            "src/main/java/module-info.java": "/** The module. */\nmodule com.example.lib {\n"
            "  exports com.example.lib;\n  exports com.example.lib.spi to com.other;\n}\n",
            "src/main/java/com/example/lib/Api.java": (
                "package com.example.lib;\n/** The API. */\npublic interface Api {\n"
                "  /** Run it. */\n  void run();\n  /** A constant. */\n  int LIMIT = 3;\n"
                "  private void secret() {}\n}\n"
            ),
            "src/main/java/com/example/lib/internal/Impl.java": (
                "package com.example.lib.internal;\n/** Impl. */\npublic class Impl {}\n"
            ),
        },
    )
    out = build_bundle(root, tmp_path / "idx")
    assert set(page_texts(out)) == {"src/main/java/com/example/lib/Api.java"}
    # An interface's members are public unless private.
    assert set(ApiRegistry(open_bundle(out)).names) == {
        "com.example.lib.Api",
        "com.example.lib.Api.run",
        "com.example.lib.Api.LIMIT",
    }


def test_declarations_of_modern_java() -> None:
    source = """package p;
/// A point, in **markdown** (Java 23): see [Shape#area()] and [#x()].
/// @param x the x
public record Point(int x, @Nullable Integer y) implements Shape {
    /** Make one. */
    public Point {
    }
    static { init(); }
    /** Sealed. */
    public sealed interface Shape permits Point, Other {
        /** The area. */
        default double area() { return 0; }
    }
    /** An annotation. */
    public @interface Marker {
        /** Its value. */
        String[] value() default {};
        /** A count. */
        int count() default 1;
    }
    /** Text. */
    public static final String TEXT = \"\"\"
        a "quoted" { brace
        \"\"\";
    /** A char. */
    public static final char BRACE = '{';
    /** Generic. */
    public static <K, V extends Comparable<? super V>> Map<K, List<V>> group(
            Map<K, V> in, int... n) throws java.io.IOException { return null; }
}
"""
    unit = parse(source)
    (point,) = unit.types
    assert point.kind == "record" and point.components == (("int", "x"), ("Integer", "y"))
    names = [(m.kind, m.name) for m in point.members]
    assert names == [
        ("interface", "Shape"),
        ("annotation", "Marker"),
        ("field", "TEXT"),
        ("field", "BRACE"),
        ("method", "group"),
    ]
    assert point.members[2].declaration == "public static final String TEXT"  # (a text block)
    assert point.members[3].declaration == "public static final char BRACE = '{'"
    group = point.members[-1]
    assert group.declaration == (
        "public static <K, V extends Comparable<? super V>> Map<K, List<V>> group(Map<K, V> in, "
        "int... n) throws java.io.IOException"
    )
    assert group.params == (("Map<K, V>", "in"), ("int...", "n"))
    assert point.members[1].members[0].declaration == "String[] value()"
    page = java_to_markdown("src/main/java/p/Point.java", source)
    assert "A point, in **markdown** (Java 23): see `Shape.area()` and [`x()`]" not in page.text
    assert "A point, in **markdown** (Java 23): see `Shape.area()`" in page.text
    assert "- `x` - the x" in page.text
    assert "## Point.group {#group-Map-int...-}" in page.text


def test_comment_html_and_tags() -> None:
    links: list[tuple[str, str]] = []

    def link(ref: str, label: str) -> str:
        links.append((ref, label))
        return label or f"`{ref}`"

    doc = render(
        """
     * First line with {@code Map<String, List<T>>} and {@literal a < b & c}.
     * <p>
     * A list:
     * <ol>
     *   <li>one <a href="https://example.com/x">link</a></li>
     *   <li>two</li>
     * </ol>
     * # not a heading
     * <pre>
     *   int x = a &lt; b;
     *     indented();
     * </pre>
     * @param map the map, see {@link java.util.Map#get(Object) get}
     * @throws IOException when
     *         it fails
     * @see <a href="https://example.com">the site</a>
     * @author nobody
     """,
        False,
        link,
    )
    assert doc.lines[0] == "First line with `Map<String, List<T>>` and a < b & c."
    text = "\n".join(doc.lines)
    assert "1. one [link](https://example.com/x)\n2. two" in text
    assert "\\# not a heading" in text
    assert "```java\nint x = a < b;\n  indented();\n```" in text
    tags = {t.name: t for t in doc.tags}
    assert tags["param"].arg == "map" and tags["param"].text == "the map, see get"
    assert tags["throws"].arg == "IOException" and " ".join(tags["throws"].text.split()) == (
        "when it fails"
    )
    assert tags["see"].text == "[the site](https://example.com)"
    assert links == [("java.util.Map#get(Object)", "get")]


def test_generated_and_classless_files_are_no_pages() -> None:
    assert java_to_markdown("src/main/java/p/E.java", GENERATED).text == ""
    assert java_to_markdown("src/main/java/p/H.java", "package p;\nclass H {}\n").text == ""
    info = "package p;\n"
    assert java_to_markdown("src/main/java/p/package-info.java", info).text == ""


@FUZZ
@given(
    st.text(alphabet="/*\"'{}()<>@;=,.\\\n abcpublicstaticvoidclassenum{@code}<pre>#", max_size=400)
)
def test_reader_never_fails_on_any_text(text: str) -> None:
    toks = tokens(text)
    assert all(a.end <= b.start for a, b in zip(toks, toks[1:], strict=False))
    page = java_to_markdown("src/main/java/p/A.java", "package p;\n" + text)
    assert isinstance(page.text, str)
    doc = render(text, False, lambda ref, label: label or ref)
    assert isinstance(doc.lines, tuple)


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            ['"a{"', "'}'", "/* { */", "// {\n", '"""\n{\n"""', "{", "}", "x", ";", "\n"]
        ),
        max_size=40,
    )
)
def test_literals_and_comments_hide_their_brackets(parts: list[str]) -> None:
    # A bracket inside a string, text block, character or comment is no token of its own.
    toks = tokens("".join(parts))
    expected = sum(p in ("{", "}") for p in parts)
    assert sum(t.kind in ("open", "close") for t in toks) == expected


def test_hostile_input_ends() -> None:
    deep = "public class A {\n" * 3000 + "/** x */ public void f() {}\n" + "}\n" * 3000
    assert isinstance(java_to_markdown("src/main/java/A.java", deep).text, str)
    assert isinstance(java_to_markdown("src/main/java/A.java", "/**" + "{@code " * 20000).text, str)
    tokens("/*" * 20000 + '"""' * 5000)


def test_docs_folder_of_a_java_project_says_where_its_javadoc_is(tmp_path: Path) -> None:
    root = _project(tmp_path / "htmlkit")
    write_tree(root, {"docs/guide.md": "# Guide\n\nParse with the parser.\n"})
    built = run_docsmcp("build", "--docs-dir", root / "docs", "--out", tmp_path / "idx")
    assert (
        "its Javadoc is read when the project's folder is built or named: "
        f"--docs-dir {root.resolve()}, or --api-source {root.resolve()}" in built.stderr
    )


def test_a_class_lists_the_methods_it_inherits(tmp_path: Path) -> None:
    # jsoup's shape: Document extends Element extends Node; Javadoc's "Methods inherited from
    # class org.jsoup.nodes.Element: …" is a line per supertype in the class's section, each
    # name a reference to its section, and an entry named as the child's
    nodes = "src/main/java/org/jsoup/nodes/"
    root = write_tree(
        tmp_path / "jsoup",
        {
            "pom.xml": POM,
            nodes + "Node.java": "package org.jsoup.nodes;\n\n/** A node. */\n"
            "public abstract class Node {\n    /** Remove the node from the tree. */\n"
            "    public void remove() {}\n\n    /** The node's text. */\n"
            '    public String text() { return ""; }\n\n    void packagePrivate() {}\n}\n',
            nodes + "Element.java": "package org.jsoup.nodes;\n\n/** An element. */\n"
            "public class Element extends Node {\n"
            "    /**\n     * Find elements matching the query.\n"
            "     * @param cssQuery a CSS selector\n     * @return the matches\n     */\n"
            "    public Elements select(String cssQuery) { return null; }\n\n"
            "    /** Find elements matching the evaluator. */\n"
            "    public Elements select(Evaluator evaluator) { return null; }\n\n"
            "    /** The largest depth walked, as javadoc's Field Summary lists it. */\n"
            "    public static final int MAX_DEPTH = 256, MIN_DEPTH = -1;\n\n"
            '    @Override\n    public String text() { return ""; }\n}\n',
            nodes + "Document.java": "package org.jsoup.nodes;\n\n/** A document. */\n"
            "public class Document extends Element implements Cloneable {\n"
            '    /** The title. */\n    public String title() { return ""; }\n}\n',
            nodes + "Elements.java": "package org.jsoup.nodes;\n\n/** A list. */\n"
            "public class Elements {}\n",
        },
    )
    out = build_bundle(root, tmp_path / "idx")
    document = page_texts(out)[nodes + "Document.java"]
    # nearest supertype first; a name a nearer one declares is listed there only
    assert "**Inherited from `Element`:** `select`, `text`" in document
    assert "**Inherited from `Node`:** `remove`" in document
    assert "packagePrivate" not in document and "## Document.select" not in document
    api = ApiRegistry(open_bundle(out))
    # each overload on the one line is answered (not only the first)
    found, other = [api.spec(i) for i in api.lookup("Document.select")]
    assert found["name"] == "org.jsoup.nodes.Document.select"
    assert found["signature"] == "public Elements select(String cssQuery)"
    assert found["description"] == "Find elements matching the query."
    assert found["chunk_id"] == nodes + "Document.java#Document"
    assert other["signature"] == "public Elements select(Evaluator evaluator)"
    assert other["chunk_id"] == found["chunk_id"]
    # a constant shows its value; each of `int a = 1, b = 2;` has the comment, as javadoc's
    for name, value in (("MAX_DEPTH", "256"), ("MIN_DEPTH", "-1")):
        (field,) = [api.spec(i) for i in api.lookup(f"Element.{name}")]
        assert field["signature"] == f"public static final int {name} = {value}"
        assert field["description"].startswith("The largest depth walked")
    # the names are references to the supertypes' sections
    built = run_docsmcp("build", "--docs-dir", root, "--out", tmp_path / "idx2", "--json")
    refs = json.loads(built.stdout)["references"]
    assert refs["resolved"] >= 3 and refs["resolved"] == refs["found"], refs
    # a class whose supertypes are the JDK's lists nothing
    assert "Inherited" not in page_texts(out)[nodes + "Node.java"]


@FUZZ
@given(
    st.lists(
        st.tuples(
            st.sampled_from("ABCD"),
            st.lists(st.sampled_from(["A", "B<T>", "C", "D", "x.D", "<", ">", ","]), max_size=4),
        ),
        max_size=6,
    )
)
def test_any_graph_of_supertypes_lists_each_once(classes: list) -> None:
    # classes extending each other (cycles, generics, junk): each supertype once, each name
    # once, and the search ends
    from docsmcp.sources.formats.source.javadoc_inherit import Supertype, inherited

    supertypes: dict[str, Supertype] = {}
    for name, supers in classes:
        written = " ".join(supers) or "Object"
        text = f"public class {name} extends {written} {{ public void m{name}() {{}} }}"
        for t in parse(text).types:
            supertypes.setdefault(t.name, Supertype(f"p.{t.name}", t))
    for t in [s.decl for s in supertypes.values()]:
        found = inherited(t, supertypes)
        names = [m.name for _, methods in found for m in methods]
        assert len(names) == len(set(names))
        assert len({s.qualified for s, _ in found}) == len(found) <= 8
