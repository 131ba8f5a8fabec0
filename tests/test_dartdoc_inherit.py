"""Dart classes list what they inherit, as dartdoc's "Inherited" properties and methods do,
by the rule the other languages' pages follow: a line per supertype (mixins, superclass,
interfaces) linking its sections, an API entry per member named as the child's; never a copy.
A supertype another library of the package shows comes from the pass, as references
(formats/source/dartdoc_inherit.py, packages/dart_inherit.py). The fixture is in the shape of
dart-lang/http (`IOClient` in `io_client.dart` extends `BaseClient`, which `http.dart`
exports with the `Client` interface it implements). A library exporting another package's
library names what it gives, without copying it (riverpod's `flutter_riverpod`)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, page_texts, run_docsmcp, write_tree
from docsmcp.sources.formats.source.dartdoc import dart_to_markdown
from docsmcp.sources.formats.source.dartdoc_inherit import encode, split, supertypes
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

CLIENT = """/// The interface for HTTP clients.
abstract interface class Client {
  /// Sends an HTTP GET request with the given headers to the given URL.
  ///
  /// For more fine-grained control over the request, use [send] instead.
  Future<String> get(Uri url);

  /// Closes the client and cleans up any resources associated with it.
  void close();

  /// How many requests were sent.
  static int sent = 0;
}
"""

BASE = """import 'client.dart';

/// The abstract base class for an HTTP client.
abstract mixin class BaseClient implements Client {
  @override
  Future<String> get(Uri url) => send(url);

  /// Sends an HTTP request and asynchronously returns the response.
  Future<String> send(Uri url);
}
"""

IO = """import 'base_client.dart';

/// A `dart:io`-based HTTP [Client].
class IOClient extends BaseClient {
  /// Create a new `dart:io`-based HTTP `Client`.
  IOClient();

  @override
  Future<String> send(Uri url) async => '';

  @override
  void close() {}
}
"""


def _package(root: Path) -> Path:
    return write_tree(
        root,
        {
            "pubspec.yaml": "name: webby\nversion: 1.0.0\n",
            "lib/webby.dart": "export 'src/client.dart';\nexport 'src/base_client.dart';\n",
            "lib/io_client.dart": "export 'src/io_client.dart' show IOClient;\n",
            "lib/src/client.dart": CLIENT,
            "lib/src/base_client.dart": BASE,
            "lib/src/io_client.dart": IO,
        },
    )


def test_a_class_lists_what_it_inherits(tmp_path: Path) -> None:
    out = build_bundle(_package(tmp_path / "webby"), tmp_path / "idx")
    pages = page_texts(out)
    webby = pages["lib/webby.dart"]
    # (the interface's `close`, which BaseClient does not declare: a link on the same page;
    # no constructor, no static member, no copy of the text)
    assert "**Inherited from `Client`:** [`close`](#Client.close)\n" in webby
    assert webby.count("Closes the client") == 1 and "`sent`" not in webby.split("## Base")[1]
    io = pages["lib/io_client.dart"]
    # Another library's supertypes: names (references), nearest first, own members left out.
    assert "**Inherited from `BaseClient`:** `get`\n" in io
    assert "Sends an HTTP GET request" not in io
    api = ApiRegistry(open_bundle(out))
    (get,) = [api.spec(i) for i in api.lookup("IOClient.get")]
    # (BaseClient's `get` has no text: the interface's, as dartdoc shows it)
    assert get["name"] == "io_client.IOClient.get"
    assert get["description"].startswith("Sends an HTTP GET request")
    rows = {r["name"]: r for r in pq.read_table(out / "api.parquet").to_pylist()}
    same = ("row", "line_start", "line_end")
    child, base = rows["webby.BaseClient.close"], rows["webby.Client.close"]
    assert [child[k] for k in same] == [base[k] for k in same]


def test_the_lines_refer_to_the_supertypes_sections(tmp_path: Path) -> None:
    root = _package(tmp_path / "webby")
    built = run_docsmcp("build", "--docs-dir", root, "--out", tmp_path / "i", "--json")
    refs = json.loads(built.stdout)["references"]
    # (all resolve: IOClient's line, which names BaseClient's `get` on webby's page, and links)
    assert refs["resolved"] == refs["found"] == 4, refs


def test_another_packages_library_is_named_not_copied(tmp_path: Path) -> None:
    root = tmp_path / "mono"
    _package(root / "packages" / "webby")
    write_tree(
        root / "packages" / "webby_flutter",
        {
            "pubspec.yaml": "name: webby_flutter\n",
            "lib/webby_flutter.dart": (
                "/// Webby for Flutter.\nlibrary;\n\n"
                "export 'package:meta/meta.dart' show immutable;\n"
                "export 'package:webby/webby.dart' hide Client;\n"
            ),
        },
    )
    built = run_docsmcp("build", "--docs-dir", root, "--out", tmp_path / "i", "--json")
    page = page_texts(tmp_path / "i")["packages/webby_flutter/lib/webby_flutter.dart"]
    assert "**Re-exports from package `meta`** (`package:meta/meta.dart`): `immutable`" in page
    said = "**Re-exports from package `webby`** (`package:webby/webby.dart`): `BaseClient`"
    assert said in page and "Sends an HTTP request" not in page
    refs = json.loads(built.stdout)["references"]
    assert refs["resolved"] == refs["found"], refs  # (`BaseClient`: webby's section)


def test_supertypes_are_read_nearest_first() -> None:
    header = "class A<T extends B<C>> extends D<E> with F, G implements H, I"
    assert supertypes(header) == ["G", "F", "D", "H", "I"]
    assert supertypes("mixin M on A implements B") == ["B"]
    # A library read alone lists what its own page holds.
    got = dart_to_markdown("lib/x.dart", CLIENT + BASE)
    assert "**Inherited from `Client`:** [`close`](#Client.close)" in got.text


@given(st.text(max_size=200))
@FUZZ
def test_supers_line_round_trips_and_never_fails(text: str) -> None:
    data = {text: {"library": text, "signature": text, "members": [{"name": text}]}}
    body, read = split("class A {}" + encode(data))
    assert body == "class A {}" and read == data
    split(text)  # (any text: no error)
    supertypes(text)
    dart_to_markdown("lib/x.dart", f"class A extends {text[:20]} {{}}" + encode(data))
