"""Questions in words over API reference members (issue 27, session 19): the words every member
of a type shares (its qualified name, its package, its summary: the trail, page and lead fields,
the heading's qualifier, the entry name as anchor text) weigh as a heading on many pages does,
so the member whose own words answer ranks first, and an exact name still finds its entry. The
fixture is a Maven project shaped like jhy/jsoup: a `Selector` class whose name, package and
summary hold the query's words on each of its members, and an `Element` whose `select` says in
its own words what the query asks."""

from __future__ import annotations

import json

import pytest
from conftest import build_bundle, write_tree
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.tools.app import DocsApp

POM = "<project><modelVersion>4.0.0</modelVersion><artifactId>pagekit</artifactId></project>\n"

SELECTOR = """package com.example.pagekit.select;

import com.example.pagekit.nodes.Element;

/**
 CSS element selector, that finds elements matching a CSS selector query.
 <p>Selector syntax: a selector is a chain of simple selectors, separated by combinators.</p>
 */
public final class Selector {
    /** Find the matching nodes under a root. */
    public static Elements select(String query, Element root) { return null; }
    /** Find the first matching node under a root. */
    public static Element selectFirst(String query, Element root) { return null; }
    /** A stream of the matching nodes. */
    public static Object selectStream(String query, Element root) { return null; }
    /** Escape an identifier for use in a query. */
    public static String escapeIdentifier(String in) { return null; }
    /** Unescape an identifier. */
    public static String unescapeIdentifier(String in) { return null; }
    /** Compile a query into an evaluator. */
    public static Object evaluatorOf(String query) { return null; }
    /** Whether a query is valid. */
    public static boolean isValid(String query) { return false; }
    /** The error of an invalid query. */
    public static String errorOf(String query) { return null; }
}
"""

ELEMENT = """package com.example.pagekit.nodes;

/**
 An HTML element: a tag name, attributes and child nodes.
 */
public class Element {
    /**
     Find elements that match the CSS selector query, with this element as the starting
     context.
     @param cssQuery a selector query
     @return the matching elements
     */
    public Elements select(String cssQuery) { return null; }
    /** Get the combined text of this element and all its children. */
    public String text() { return null; }
    /** Set an attribute value on this element. */
    public Element attr(String key, String value) { return this; }
    /** The tag name of this element. */
    public String tagName() { return null; }
}
"""


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> DocsApp:
    root = tmp_path_factory.mktemp("pagekit")
    main = "src/main/java/com/example/pagekit/"
    docs = write_tree(
        root / "pagekit",
        {
            "README.md": "# pagekit\n\nRead HTML pages in Java.\n",
            "pom.xml": POM,
            main + "select/Selector.java": SELECTOR,
            main + "nodes/Element.java": ELEMENT,
        },
    )
    return DocsApp(open_bundle(build_bundle(docs, root / "bundle")))


def _ids(app: DocsApp, query: str) -> list[str]:
    result = app.call_tool("search_docs", {"query": query, "limit": 10})
    return [h["chunk_id"] for h in json.loads(result["content"][0]["text"])["hits"]]


@pytest.mark.parametrize("query", ["select elements with css selector", "css selector query"])
def test_a_members_own_words_rank_it_above_a_types_shared_words(app: DocsApp, query: str) -> None:
    # Every `Selector` member carries "selector", "css", "elements" from its class's name,
    # package and summary; `Element.select` says it in its own text. Before, the eight
    # members of `Selector` all ranked above it (the class's own chunk is a fair answer too).
    ids = _ids(app, query)
    mine = next(i for i, c in enumerate(ids) if c.endswith("Element.java#Element/select-String-"))
    members = [i for i, c in enumerate(ids) if "Selector.java#Selector/" in c]
    assert mine <= 1 and all(mine < i for i in members), ids


@pytest.mark.parametrize(
    ("query", "wanted"),
    [
        ("Selector.select", "Selector.java#Selector/select-String-Element-"),
        ("Element.select", "Element.java#Element/select-String-"),
        ("escapeIdentifier", "Selector.java#Selector/escapeIdentifier-String-"),
        ("Selector", "Selector.java#Selector"),
        ("com.example.pagekit.select.Selector.selectFirst", "Selector/selectFirst-String-Element-"),
    ],
)
def test_exact_names_still_find_their_entry_first(app: DocsApp, query: str, wanted: str) -> None:
    ids = _ids(app, query)
    assert ids[0].endswith(wanted), ids
