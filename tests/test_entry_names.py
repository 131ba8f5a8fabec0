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
from docsmcp_runtime.search.entry_names import MARK, entry_terms, named_terms, query_term
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

# gson's FieldAttributes: a short class comment, and members about classes
ATTRIBUTES = """package com.example.tokens;

import java.lang.reflect.Field;

/**
 * A data object that stores attributes of a field.
 */
public final class TokenAttributes {
    private final Field field;

    /**
     * Constructs a Field Attributes object from the {@code f}.
     */
    public TokenAttributes(Field f) {
        this.field = f;
    }

    /**
     * Returns the {@code Class} object that was declared for this field of the class.
     */
    public Class<?> getDeclaringClass() {
        return field.getDeclaringClass();
    }

    /**
     * Returns the {@code Class} object of the declared type of this field: for a field
     * {@code String name}, the class {@code String.class}.
     */
    public Class<?> getDeclaredClass() {
        return field.getType();
    }
}
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
            "src/main/java/com/example/tokens/TokenAttributes.java": ATTRIBUTES,
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
    # a member named as an entry of one part is not named by that part (openai-node's static
    # `AzureOpenAI.OpenAI` and the class `OpenAI`)
    assert entry_terms("AzureOpenAI.OpenAI", frozenset({"OpenAI"})) == named("AzureOpenAI.OpenAI")
    assert entry_terms("AzureOpenAI.chat", frozenset({"OpenAI"})) == named(
        "AzureOpenAI.chat", "chat"
    )
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


def test_a_name_with_a_kind_word_finds_the_entry_as_the_bare_name_does(app: DocsApp) -> None:
    # "JsonReader class", "the Router struct": the kind word is a word of the query, the name
    # names the entry
    for query in ("TokenReader class", "the TokenReader class", "class TokenReader"):
        assert first_heading(app, query) == "com.example.tokens.stream.TokenReader", query
    assert first_heading(app, "TokenReader.peek method") == "TokenReader.peek"
    # ranked as the bare name is: the kind word is not searched where the name names an entry
    # (in gson, guides and members whose text says "class" came first: "FieldNamingStrategy
    # class" found `Gson.fieldNamingStrategy`)
    assert first_heading(app, "TokenAttributes class") == "com.example.tokens.TokenAttributes"
    bare = app.searcher.search("TokenAttributes", {}, 0, 10)
    for query in ("TokenAttributes class", "the TokenAttributes class", "class TokenAttributes"):
        hits = app.searcher.search(query, {}, 0, 10)
        assert (hits.rows, hits.scores) == (bare.rows, bare.scores), query
    # a name no entry has keeps its kind word
    assert app.searcher.without_kind_words("NoSuchName class") == "NoSuchName class"


def test_a_name_written_apart_finds_the_entry(app: DocsApp) -> None:
    # swift-argument-parser's "Flag inversion" for `FlagInversion`, date-fns' "add days" for
    # `addDays`: the camel-case name the words join to, where the bundle holds it
    assert first_heading(app, "Token reader") == "com.example.tokens.stream.TokenReader"
    assert first_heading(app, "next name") == "TokenReader.nextName"
    searcher = app.searcher
    assert searcher.entry_named("Token reader") == [query_term("TokenReader")]
    assert searcher.entry_named("skip value") == [query_term("skipValue")]
    assert searcher.entry_named("read a token stream") == []  # a name no entry has
    # articles name nothing; a verb and its object, named object first (Saleor's and
    # Shopify's `productCreate`), in lower camel case only where the forward name is no entry
    assert searcher.entry_named("skip a value") == [query_term("skipValue")]
    assert first_heading(app, "skip a value") == "TokenReader.skipValue"
    assert searcher.entry_named("value skip") == [query_term("skipValue")]
    assert searcher.entry_named("name next") == [query_term("nextName")]
    assert searcher.entry_named("reader token") == []  # (only lower camel case, two words)


def test_named_terms() -> None:
    assert named_terms("JsonReader") == named("JsonReader")
    assert named_terms("JsonReader class") == named("JsonReader")
    assert named_terms("the Router struct") == named("Router")
    assert named_terms("useState hook") == named("useState")
    assert named_terms("Logger.Level enum") == named("Logger.Level")
    assert named_terms("Flag inversion") == named("FlagInversion", "flagInversion")
    assert named_terms("add days") == named("AddDays", "addDays")
    # articles name nothing (GitHub's `createIssue`, `mergePullRequest`)
    assert named_terms("create an issue") == named("CreateIssue", "createIssue")
    assert named_terms("merge a pull request") == named("MergePullRequest", "mergePullRequest")
    assert named_terms("a an the") == []
    assert named_terms("the Router") == named("Router")
    assert named_terms("Struct Router") == named("Router")
    assert named_terms("Attribute class") == named("Attribute")  # jsoup's class Attribute
    assert named_terms("class struct") == []  # kind words alone name nothing
    assert named_terms("select elements with CSS selector") == []
    assert named_terms("how to add days") == []
    assert named_terms("user's guide") == []  # no plain words


@FUZZ
@given(st.text(max_size=60))
def test_named_terms_are_marked_words(query: str) -> None:
    terms = named_terms(query)
    assert len(terms) <= 2
    for term in terms:
        assert term.startswith(MARK) and len(term) == 9


CLIENT = """/**
 * API Client for interfacing with the Acme API.
 */
export class Acme {
  apiKey: string;
  baseURL: string;

  /**
   * API Client for interfacing with the Acme API.
   *
   * @param {string} [opts.apiKey=process.env['ACME_API_KEY'] ?? undefined]
   * @param {string} [opts.baseURL=process.env['ACME_BASE_URL'] ?? https://api.acme.com/v1]
   */
  constructor({ apiKey, baseURL }: { apiKey?: string; baseURL?: string } = {}) {
    this.apiKey = apiKey ?? '';
    this.baseURL = baseURL ?? 'https://api.acme.com/v1';
  }

  /** Send a request. */
  request(path: string): Promise<unknown> {
    return fetch(this.baseURL + path);
  }

  /** Query parameters sent with every request, from the client's options. */
  protected defaultQuery(opts: Record<string, unknown>): Record<string, string> {
    return {};
  }

  /** Checks that the headers hold an API key or an authorization token. */
  protected validateHeaders(opts: Record<string, unknown>): Record<string, string> {
    return {};
  }

  /** The headers that authenticate a request with the client's API key. */
  protected authHeaders(opts: Record<string, unknown>): Record<string, string> {
    return {};
  }

  /** The query string of a request's parameters, arrays as repeated keys. */
  protected stringifyQuery(opts: Record<string, unknown>): Record<string, string> {
    return {};
  }

  /** The error of a response's status: a rate limit, a bad request, a timeout. */
  protected makeStatusError(opts: Record<string, unknown>): Record<string, string> {
    return {};
  }

  /** The URL of a path and query, under the client's base URL. */
  protected buildURL(opts: Record<string, unknown>): Record<string, string> {
    return {};
  }

  /** The headers of one request: defaults, then the options' own, then idempotency. */
  protected buildHeaders(opts: Record<string, unknown>): Record<string, string> {
    return {};
  }

  static Acme = this;
  static DEFAULT_TIMEOUT = 600000; // 10 minutes
}
"""

AZURE = """import { Acme } from './client';

/** API Client for interfacing with the Azure Acme API. */
export class AzureAcme extends Acme {
  deployment: string | undefined;
}
"""

CLOUD = """import { Acme } from './client';

/** API Client for interfacing with Acme on the cloud. */
export class CloudAcme extends Acme {
  region: string;
}
"""


def test_a_class_name_finds_the_class_not_the_static_its_subclasses_inherit(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # openai-node: each client has a static `OpenAI = this`, and the subclasses AzureOpenAI and
    # BedrockOpenAI inherit it (entries `AzureOpenAI.OpenAI`, on their class's row), so "OpenAI"
    # named three classes and ranked AzureOpenAI's first
    root = tmp_path_factory.mktemp("acme")
    docs = write_tree(
        root / "src",
        {
            "README.md": "# Acme\n\nThe Acme client: `new Acme()`, or `AzureAcme` on Azure.\n",
            "package.json": '{"name": "acme", "version": "1.0.0", "types": "src/index.ts"}',
            "src/index.ts": 'export { Acme } from "./client";\nexport * from "./azure";\n'
            'export * from "./cloud";\n',
            "src/client.ts": CLIENT,
            "src/azure.ts": AZURE,
            "src/cloud.ts": CLOUD,
        },
    )
    app = DocsApp(open_bundle(build_bundle(docs, root / "bundle")))
    lexicon = app.searcher.lexicon
    term = lexicon.lookup(query_term("Acme") or "")
    assert term is not None
    rows = lexicon.postings(term)[0].tolist()
    assert [app.bundle.shown(r).header["heading"] for r in rows] == ["Acme"]
    assert first_heading(app, "Acme") == "Acme"
    assert first_heading(app, "Acme class") == "Acme"
    assert first_heading(app, "AzureAcme") == "AzureAcme"
