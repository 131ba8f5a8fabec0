"""Dart packages read as dartdoc (pub.dev's API docs) shows them: each public library of a
package (`lib/*.dart`) is a page of the declarations it holds and exports from `lib/src/`,
named as Dart calls them, with `{@macro}` expanded and `[Name]` references linked; `lib/src/`,
tests and examples are no pages. The fixture is a package in the shape of dart-lang/http
(`pkgs/http`: a library of top-level functions exporting `src/` files with `show`/`hide`, a
second library) and felangel/bloc (templates in one file used by macros in another, a `part`).
"""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.formats.source.dart_lex import tokens
from docsmcp.sources.formats.source.dart_parse import parse
from docsmcp.sources.formats.source.dartdoc import dart_to_markdown
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

LIBRARY = """// Copyright (c) 2013, the authors.

/// A composable, [Future]-based library for making HTTP requests.
library;

import 'dart:convert';

import 'src/client.dart';

export 'package:other_pkg/other.dart' show MediaType;
export 'src/client.dart' hide zoneClient;
export 'src/response.dart' show Response;
export 'src/platform_stub.dart' if (dart.library.io) 'src/platform_io.dart';
export 'retry.dart';

/// Sends an HTTP GET request with the given headers to the given URL.
///
/// [headers] are sent as they are. For more control, use [Client.get].
Future<Response> get(Uri url, {Map<String, String>? headers}) =>
    _withClient((client) => client.get(url, headers: headers));

Future<T> _withClient<T>(Future<T> Function(Client) fn) async => fn(Client());
"""

CLIENT = r"""import 'response.dart';

part 'client_base.dart';

/// {@category Core}
/// {@template client}
/// The interface for HTTP clients that take care of maintaining persistent
/// connections across multiple requests to the same server.
/// {@endtemplate}
abstract interface class Client {
  /// {@macro client}
  ///
  /// Creates a client for the current platform.
  factory Client() => zoneClient ?? _create();

  /// Sends an HTTP GET request with the given headers to the given URL.
  ///
  /// ```dart
  /// final response = await client.get(Uri.https('example.com', '/${"{"}'));
  /// ```
  Future<Response> get(Uri url, {Map<String, String>? headers});

  /// Sends a request with a [body], see [close] and [Response.bytes].
  Future<Response> post(Uri url, {required Object body, Encoding? encoding});

  /// Closes the client. Never throws; see [_cleanup].
  void close();

  /// Internal plumbing.
  ///
  /// @nodoc
  void debugHook();

  void _cleanup() {
    final s = '}';
    final t = r'\${';
  }
}

/// The client of the current zone.
Client? get zoneClient => null;

class _Hidden {
  void shown() {}
}
"""

CLIENT_BASE = """part of 'client.dart';

/// A base class that handles the common work of [Client]s.
abstract mixin class BaseClient implements Client {
  /// Sends [request] and returns its response.
  Future<Response> send(Request request, [int retries = 0]);
}
"""

RESPONSE = """/// An HTTP response where the entire response body is known in advance.
class Response {
  /// The bytes comprising the body of this response.
  final List<int> bodyBytes;

  /// The HTTP status code.
  final int statusCode;

  /// Creates a new HTTP response with a string body.
  Response(String body, this.statusCode);

  /// Creates a new HTTP response with a byte array body.
  ///
  /// [bodyBytes] are kept as given, [statusCode] is the status.
  Response.bytes(this.bodyBytes, this.statusCode);

  /// The body as a string.
  String get body => '';
  set body(String value) {}

  /// Whether two responses are equal.
  bool operator ==(Object other) => false;
}

/// Not exported: `show Response` leaves it out.
class ResponseHelper {}
"""

RETRY = """/// A wrapper that retries failing requests.
library retry;

import 'package:webby/webby.dart';

/// {@macro retry}
class RetryClient {
  /// The levels of retrying.
  static const defaultRetries = 3;
}

/// How often to retry.
enum RetryPolicy {
  /// Never retry.
  never,

  /// Retry until [RetryClient.defaultRetries].
  always;

  /// Whether this policy retries.
  bool get retries => this != never;
}
"""

TEMPLATES = """/// {@template retry}
/// A client that retries requests that fail with a server error.
/// {@endtemplate}
void _templates() {}
"""


def _package(root: Path) -> Path:
    return write_tree(
        root,
        {
            "pubspec.yaml": "name: webby\nversion: 1.0.0\n",
            "README.md": "# webby\n\nA composable HTTP library.\n",
            "CHANGELOG.md": "## 1.0.0\n\n- First release.\n",
            "dartdoc_options.yaml": (
                'dartdoc:\n  categories:\n    "Core":\n      markdown: doc/core.md\n'
            ),
            "doc/core.md": "The objects most programs use.\n",
            "lib/webby.dart": LIBRARY,
            "lib/retry.dart": RETRY,
            "lib/src/client.dart": CLIENT,
            "lib/src/client_base.dart": CLIENT_BASE,
            "lib/src/response.dart": RESPONSE,
            "lib/src/platform_stub.dart": "/// Stub.\nString platform() => 'stub';\n",
            "lib/src/platform_io.dart": "/// IO.\nString platform() => 'io';\n",
            "lib/src/templates.dart": TEMPLATES,
            "test/client_test.dart": "/// A test.\nvoid main() {}\n",
            "example/main.dart": "/// An example.\nvoid main() {}\n",
            "example/pubspec.yaml": "name: webby_example\n",
            "example/lib/app.dart": "/// The example app.\nclass App {}\n",
            "tool/gen.dart": "/// A tool.\nvoid main() {}\n",
        },
    )


def test_package_reads_as_dartdoc_shows_it(tmp_path: Path) -> None:
    out = build_bundle(_package(tmp_path / "webby"), tmp_path / "idx")
    pages = page_texts(out)
    # The public libraries, and the example pub.dev's Example tab shows; lib/src/, tests, the
    # example's other files (its app's lib/), tools are no pages.
    assert set(pages) == {
        "README.md",
        "doc/core.md",
        "CHANGELOG.md",
        "lib/webby.dart",
        "lib/retry.dart",
        "example/main.dart",
    }
    assert "# webby example" in pages["example/main.dart"]
    assert "```dart\n/// An example.\nvoid main() {}\n```" in pages["example/main.dart"]
    lib = pages["lib/webby.dart"]
    assert "# webby library" in lib
    assert "A composable, `Future`-based library for making HTTP requests." in lib
    # Types first (as dartdoc's library page lists them), then functions.
    assert lib.index("## Client") < lib.index("## get")
    assert "```dart\nabstract interface class Client\n```" in lib
    # {@macro} expanded from its {@template}; the template's markers gone.
    assert "The interface for HTTP clients that take care of maintaining persistent" in lib
    assert lib.count("The interface for HTTP clients") == 2  # (the class's and Client.new's)
    assert "{@" not in lib
    assert "### Client.new" in lib and "factory Client()" in lib
    assert "### Client.get" in lib
    assert "Uri.https('example.com', '/${\"{\"}')" in lib  # (an example, as written)
    assert (
        "```dart\nFuture<Response> post(Uri url, {required Object body, Encoding? encoding})"
        in (lib)
    )
    # References: a member of the type, another type's member, a parameter (code only), a
    # private name (code only).
    assert "Sends a request with a `body`, see [`close`](#Client.close) and" in lib
    assert "[`Response.bytes`](#Response.bytes)" in lib
    assert "see `_cleanup`" in lib
    # A part of an exported file is read with it.
    assert "## BaseClient" in lib and "### BaseClient.send" in lib
    # The exported file's top-level getter is hidden by `hide zoneClient`; `show Response`
    # leaves ResponseHelper out; private and @nodoc declarations are left out.
    for hidden in ("zoneClient", "ResponseHelper", "_Hidden", "shown", "debugHook", "_cleanup\n"):
        assert f"## {hidden}" not in lib and f".{hidden}" not in lib, hidden
    assert "## Response" in lib and "### Response.bytes" in lib and "### Response.new" in lib
    # A getter and its setter are one property; an operator keeps its name.
    assert "### Response.body\n\n```dart\nString get body\nset body(String value)\n```" in lib
    assert "### Response.operator ==" in lib
    # A conditional export: its default (first) URI; another package's export: named only.
    assert "## platform" in lib and "'io'" not in lib and "## MediaType" not in lib
    assert "**Re-exports from package `other_pkg`** (`package:other_pkg/other.dart`)" in lib
    # dartdoc_options.yaml's category page: its text, then the declarations `{@category Core}`
    # puts in it, linked to their sections, with their first sentence.
    core = pages["doc/core.md"]
    assert "The objects most programs use." in core and "## Classes" in core
    assert "- [`Client`](../lib/webby.dart#Client): The interface for HTTP clients" in core
    assert "{@category" not in lib
    # Another public library it exports: named with a link, its declarations on its own page.
    assert "Exports the library [retry](retry.dart)." in lib and "## RetryClient" not in lib
    retry = pages["lib/retry.dart"]
    assert "# retry library" in retry and "A wrapper that retries failing requests." in retry
    # A template defined in another file of the package (not exported) still expands.
    assert "A client that retries requests that fail with a server error." in retry
    assert "## RetryPolicy" in retry and "### RetryPolicy.never" in retry
    assert "Retry until [`RetryClient.defaultRetries`](#RetryClient.defaultRetries)." in retry

    api = ApiRegistry(open_bundle(out))
    names = set(api.names)
    assert {
        "webby.Client",
        "webby.Client.new",
        "webby.Client.get",
        "webby.Client.post",
        "webby.BaseClient.send",
        "webby.Response.bytes",
        "webby.Response.body",
        "webby.get",
        "retry.RetryClient.defaultRetries",
        "retry.RetryPolicy.always",
        "retry.RetryPolicy.retries",
    } <= names
    assert not {n for n in names if "_" in n.split(".")[-1][:1] or "debugHook" in n}
    post = api.spec(api.lookup("webby.Client.post")[0])
    assert [(p["name"], p["type"], p["required"]) for p in post["parameters"]] == [
        ("url", "Uri", True),
        ("body", "Object", True),
        ("encoding", "Encoding?", False),
    ]
    assert post["returns"] == "Future<Response>"
    send = api.spec(api.lookup("webby.BaseClient.send")[0])
    assert [(p["name"], p["required"]) for p in send["parameters"]] == [
        ("request", True),
        ("retries", False),
    ]
    assert send["parameters"][0]["description"] == "Sends `request` and returns its response."
    # An initializing formal (`this.bodyBytes`) has its field's type.
    bytes_ = api.spec(api.lookup("webby.Response.bytes")[0])
    assert [(p["name"], p["type"]) for p in bytes_["parameters"]] == [
        ("bodyBytes", "List<int>"),
        ("statusCode", "int"),
    ]
    assert bytes_["description"] == "Creates a new HTTP response with a byte array body."


def test_dart_outside_a_package_is_no_page(tmp_path: Path) -> None:
    # A docs folder holding Dart code that belongs to no package (snippets beside guides).
    root = write_tree(
        tmp_path / "docs",
        {"guide.md": "# Guide\n\nText.\n", "snippets/lib/a.dart": "/// A.\nclass A {}\n"},
    )
    pages = page_texts(build_bundle(root, tmp_path / "idx"))
    assert set(pages) == {"guide.md"}


def test_library_read_alone() -> None:
    # A library file converted without the resolver's header: its own declarations only.
    page = dart_to_markdown("lib/retry.dart", RETRY)
    assert page.title == "retry library"
    assert "## RetryClient" in page.text and "### RetryClient.defaultRetries" in page.text
    assert [e.name for e in page.api][:2] == [
        "retry.RetryClient",
        "retry.RetryClient.defaultRetries",
    ]


def test_lexer_reads_literals_and_comments_whole() -> None:
    source = (
        "var a = 'x${b + \"}\" + c}y';\n"
        "var r = r'\\${';\n"
        "var t = '''\n{\n''';\n"
        "/* { /* } */ still a comment { */\n"
        "@Deprecated('Use (x) instead')\n"
        "/// Doc.\n"
        "void f() {}\n"
    )
    toks = tokens(source)
    assert [t.text for t in toks if t.kind == "str"] == [
        "'x${b + \"}\" + c}y'",
        "r'\\${'",
        "'''\n{\n'''",
    ]
    assert [t.text for t in toks if t.kind == "annot"] == ["@Deprecated('Use (x) instead')"]
    assert [t.text for t in toks if t.kind == "doc"] == ["Doc."]
    assert sum(t.kind in ("open", "close") for t in toks) == 4  # (f's parentheses and body)


def test_declarations_are_parsed_as_dart_declares_them() -> None:
    unit = parse(
        "library a.b;\n"
        "export 'src/x.dart' show A, B hide C;\n"
        "typedef Handler<E> = void Function(E event);\n"
        "typedef void OldHandler(int x);\n"
        "mixin M on Object { int get m => 1; }\n"
        "extension type const Id(int value) implements Object {}\n"
        "extension on String { void hidden() {} }\n"
        "class Box<T extends Map<String, int>> {\n"
        "  Box.named(this.value, {required Map<String, List<int>> extra, int n = 1});\n"
        "  final T value;\n"
        "  static Box<T> create<T>([T? v]) => Box.named(v);\n"
        "  void Function(int)? onData;\n"
        "  T operator [](int i) => value;\n"
        "  void operator []=(int i, T v) {}\n"
        "  void get(String key) {}\n"
        "}\n"
        "enum E { a(1), b(2); const E(this.n); final int n; }\n"
    )
    assert unit.library == "a.b"
    assert unit.exports[0].show == ("A", "B") and unit.exports[0].hide == ("C",)
    kinds = [(d.kind, d.name) for d in unit.decls]
    assert kinds == [  # (the unnamed extension: none, as dartdoc shows none)
        ("typedef", "Handler"),
        ("typedef", "OldHandler"),
        ("mixin", "M"),
        ("extension type", "Id"),
        ("class", "Box"),
        ("enum", "E"),
    ]
    box = next(d for d in unit.decls if d.name == "Box")
    members = [(m.kind, m.name) for m in box.members]
    assert members == [
        ("constructor", "Box.named"),
        ("field", "value"),
        ("method", "create"),
        ("field", "onData"),
        ("operator", "operator []"),
        ("operator", "operator []="),
        ("method", "get"),
    ]
    named = box.members[0]
    assert [(p.name, p.type, p.kind, p.required, p.default) for p in named.params] == [
        ("value", "", "positional", True, ""),
        ("extra", "Map<String, List<int>>", "named", True, ""),
        ("n", "int", "named", False, "1"),
    ]
    assert box.members[2].static and box.members[2].returns == "Box<T>"
    enum = unit.decls[-1]
    assert [(m.kind, m.name) for m in enum.members][:3] == [
        ("value", "a"),
        ("value", "b"),
        ("constructor", "E.new"),
    ]


@FUZZ
@given(
    st.text(
        alphabet="/*'\"$r\\(){}[]<>@;=,.:`\n abclassmixinenumextensiongetsetvoidlibraryexport",
        max_size=400,
    )
)
def test_reader_never_fails_on_any_text(text: str) -> None:
    toks = tokens(text)
    assert all(a.end <= b.start for a, b in zip(toks, toks[1:], strict=False))
    page = dart_to_markdown("lib/a.dart", "/// A.\nclass A {\n" + text)
    assert isinstance(page.text, str)


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            [
                "'a{'",
                "'${x['}']}'",
                '"$y}"',
                "r'\\${'",
                "/* { /* } */ */",
                "// {\n",
                "'''\n{\n'''",
                "@A('}')",
                "{",
                "}",
                "x",
            ]
        ),
        max_size=40,
    )
)
def test_literals_and_comments_hide_their_brackets(parts: list[str]) -> None:
    toks = tokens(" ".join(parts))
    expected = sum(p in ("{", "}") for p in parts)
    assert sum(t.kind in ("open", "close") for t in toks) == expected


def test_hostile_input_ends() -> None:
    deep = "class A {\n" * 3000 + "/// x\nvoid f() {}\n" + "}\n" * 3000
    assert isinstance(dart_to_markdown("lib/a.dart", deep).text, str)
    tokens("'${" * 20000)
    tokens("/*" * 20000 + "'''" * 5000)
    many = "".join(f"/// {{@macro m{k}}}\nvoid f{k}() {{}}\n" for k in range(3000))
    assert isinstance(dart_to_markdown("lib/a.dart", many).text, str)
    loop = "/// {@template a}\n/// {@macro a}\n/// {@endtemplate}\nclass A {}\n"
    assert "A" in dart_to_markdown("lib/a.dart", loop).text


def test_flutter_directives_read_as_dartdoc_renders_them() -> None:
    # Flutter's comments: a sample between tool markers, a video, injected HTML, a template
    # defined in the same file and used by another declaration.
    source = (
        "/// A widget that shows [child].\n"
        "///\n"
        "/// {@youtube 560 315 https://www.youtube.com/watch?v=x}\n"
        "///\n"
        "/// {@tool snippet}\n"
        "/// This sample shows a padded box.\n"
        "///\n"
        "/// ```dart\n"
        "/// const Padded(child: Text('[not a reference]'))\n"
        "/// ```\n"
        "/// {@end-tool}\n"
        "///\n"
        "/// {@inject-html}\n"
        "/// <div>diagram</div>\n"
        "/// {@end-inject-html}\n"
        "///\n"
        "/// {@template flutter.widgets.Padded.child}\n"
        "/// The widget below this widget in the tree.\n"
        "/// {@endtemplate}\n"
        "class Padded {\n"
        "  /// {@macro flutter.widgets.Padded.child}\n"
        "  final Widget child;\n"
        "  /// {@macro flutter.widgets.missing}\n"
        "  const Padded({required this.child});\n"
        "}\n"
    )
    page = dart_to_markdown("lib/widgets.dart", source)
    assert "A widget that shows [`child`](#Padded.child)." in page.text
    assert "This sample shows a padded box." in page.text
    assert "const Padded(child: Text('[not a reference]'))" in page.text
    assert "youtube" not in page.text and "diagram" not in page.text and "{@" not in page.text
    child = page.text.split("### Padded.child", 1)[1]
    assert child.split("###")[0].count("The widget below this widget in the tree.") == 1
