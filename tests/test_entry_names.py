"""A query that is exactly an API entry's name finds that entry first (entry_names.py): the class
for a bare class name, above its constructor and methods, whose headings (`TokenReader.peek`),
trails and names hold the class's name too and whose short chunks saturate it sooner; the method
for `Class.method`; the class for its full qualified name. The fixture is a Maven project in the
shape of google/gson's `JsonReader`: a long class comment, a constructor and short methods, and
a README guide that uses the class."""

from __future__ import annotations

import pytest
from conftest import FUZZ, build_bundle, write_tree
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.search.entry_names import MARK, entry_terms, query_term
from docsmcp_runtime.tools.app import DocsApp
from hypothesis import given
from hypothesis import strategies as st

POM = """<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>tokens</artifactId>
</project>
"""

METHODS = "\n".join(
    f"""
    /**
     * {text}
     */
    public {kind} {name}() throws IOException {{
        return {value};
    }}
"""
    for name, kind, value, text in [
        ("peek", "Token", "null", "Returns the type of the next token without consuming it."),
        ("hasNext", "boolean", "false", "Returns true if the current array or object has more."),
        ("nextName", "String", "null", "Returns the next token, a property name, and consumes it."),
        ("nextString", "String", "null", "Returns the string value of the next token."),
        ("nextInt", "int", "0", "Returns the int value of the next token."),
        ("skipValue", "void", "", "Skips the next value recursively."),
    ]
).replace("return ;", "return;")

READER = f"""package com.example.tokens.stream;

import java.io.IOException;
import java.io.Reader;

/**
 * Reads a JSON encoded value as a stream of tokens. This stream includes both literal values
 * (strings, numbers, booleans, and nulls) as well as the begin and end delimiters of objects
 * and arrays. The tokens are traversed in depth-first order, the same order that they appear
 * in the JSON document.
 *
 * <h2>Parsing JSON</h2>
 * To create a recursive descent parser for your own JSON streams, first create an entry point
 * method that creates a {{@code TokenReader}}. Next, create handler methods for each structure
 * in your JSON text. Within the array handling methods, first call {{@link #hasNext}} to find
 * out whether there are more elements, then read each element.
 *
 * <h2>Example</h2>
 * <pre>{{@code
 * TokenReader reader = new TokenReader(new InputStreamReader(in, "UTF-8"));
 * try {{
 *   return readMessagesArray(reader);
 * }} finally {{
 *   reader.close();
 * }}
 * }}</pre>
 *
 * <h2>Number handling</h2>
 * This reader permits numeric values to be read as strings and string values to be read as
 * numbers. Each {{@code TokenReader}} may be used to read a single JSON stream. Instances of
 * this class are not thread safe.
 */
public class TokenReader {{
    /**
     * Creates a new instance that reads a JSON-encoded stream from {{@code in}}.
     */
    public TokenReader(Reader in) {{
    }}
{METHODS}
}}
"""

README = """# tokens

A streaming JSON library.

## Reading a stream

Create a `TokenReader` over your input and call `TokenReader.peek` to see what comes next:
`TokenReader.nextName` reads a property name and `TokenReader.nextString` a value.
"""


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> DocsApp:
    root = tmp_path_factory.mktemp("tokens")
    docs = write_tree(
        root / "src",
        {
            "pom.xml": POM,
            "README.md": README,
            "src/main/java/com/example/tokens/stream/TokenReader.java": READER,
        },
    )
    return DocsApp(open_bundle(build_bundle(docs, root / "bundle")))


def first_heading(app: DocsApp, query: str) -> str:
    hits = app.searcher.search(query, {}, 0, 5)
    return app.bundle.shown(hits.rows[0]).header["heading"]


def test_a_bare_class_name_finds_the_class_before_its_members(app: DocsApp) -> None:
    assert first_heading(app, "TokenReader") == "com.example.tokens.stream.TokenReader"
    assert first_heading(app, "`TokenReader`") == "com.example.tokens.stream.TokenReader"


def test_the_full_name_finds_the_class(app: DocsApp) -> None:
    assert first_heading(app, "com.example.tokens.stream.TokenReader") == (
        "com.example.tokens.stream.TokenReader"
    )


def test_class_dot_method_finds_the_method(app: DocsApp) -> None:
    assert first_heading(app, "TokenReader.peek") == "TokenReader.peek"
    assert first_heading(app, "TokenReader.nextName()") == "TokenReader.nextName"


def test_a_query_of_words_searches_no_entry_name(app: DocsApp) -> None:
    searcher = app.searcher
    assert searcher.entry_named("TokenReader") == [query_term("TokenReader")]
    assert searcher.entry_named("read a token stream") == []
    assert searcher.entry_named("tokenreader") == []  # names are typed in their own case
    assert searcher.entry_named("NoSuchName") == []  # not in the bundle: nothing searched


def named(*keys: str) -> list[str]:
    """The terms a query typing each of `keys` searches."""
    return [query_term(k) for k in keys]


def test_entry_terms() -> None:
    assert entry_terms("com.google.gson.stream.JsonReader") == named(
        "com.google.gson.stream.JsonReader", "stream.JsonReader", "JsonReader"
    )
    # a constructor is named by its class's name with the class before it, never alone
    assert entry_terms("com.google.gson.stream.JsonReader.JsonReader") == named(
        "com.google.gson.stream.JsonReader.JsonReader", "JsonReader.JsonReader"
    )
    assert entry_terms("axum::Router::nest") == named("axum::Router::nest", "Router::nest", "nest")
    assert entry_terms("Ecto.Repo.insert/2") == named("Ecto.Repo.insert", "Repo.insert", "insert")
    assert entry_terms("Links.create()") == named("Links.create", "create")
    assert entry_terms("glfwCreateWindow") == named("glfwCreateWindow")
    assert entry_terms("makemigrations --empty") == []  # no one-word query types it
    assert query_term("`Element.select()`") == query_term("Element.select")
    assert query_term("Element.select") != query_term("element.select")  # case kept
    assert query_term("select elements") is None
    assert query_term("?") is None
    # MARK and a digest of the name: short, and no analysed term (the analyzer never keeps MARK)
    term = query_term("com.google.gson.stream.JsonReader")
    assert term is not None and term.startswith(MARK) and len(term) == 9


@FUZZ
@given(st.text(max_size=40))
def test_entry_terms_are_one_marked_word(name: str) -> None:
    terms = entry_terms(name)
    for term in terms:
        assert term.startswith(MARK) and len(term) == 9 and term == term.strip()
    found = query_term(name)
    # a name as its reader types it finds the entry's own term
    assert found is None or not terms or found in terms
