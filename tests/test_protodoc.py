"""Protocol Buffers / gRPC APIs read as protoc-gen-doc and the Buf Schema Registry show them: a
buf module's `.proto` files become pages of their services (RPCs, streaming marked), messages
(fields with label, map, oneof, number, options and comments), enums and nested declarations,
API entries named as users write them (`acme.shop.v1.Order`, `Shop.PlaceOrder`,
`Order.items`), field types object references to their message. The fixture is a tree in the
shape of open-telemetry/opentelemetry-proto and googleapis (a buf.yaml, `proto/` packages,
third_party copies, tests), and of envoyproxy/data-plane-api's protodoc annotations."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.formats.source.proto_lex import lex
from docsmcp.sources.formats.source.proto_parse import parse
from docsmcp.sources.formats.source.protodoc import proto_to_markdown
from docsmcp.sources.packages.proto_project import no_pages
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.tools.app import DocsApp
from hypothesis import given
from hypothesis import strategies as st

BUF = """version: v2
modules:
  - path: proto
    excludes:
      - proto/acme/internal
deps:
  - buf.build/googleapis/googleapis
"""

SHOP = """// Copyright 2026 Acme. Licensed under the Apache License.

syntax = "proto3";

package acme.shop.v1;

import "acme/shop/v1/money.proto";
import "google/api/annotations.proto";

option go_package = "acme.dev/shop/v1;shopv1";

// The Shop service takes orders and streams their progress.
service Shop {
  // Places an order; the order is charged once.
  rpc PlaceOrder(PlaceOrderRequest) returns (Order) {
    option (google.api.http) = {
      post: "/v1/{parent=shops/*}/orders"
      body: "order"
    };
  }

  // Streams the order's status changes until it is delivered.
  rpc WatchOrder(WatchOrderRequest) returns (stream OrderEvent);

  // @exclude Not ready for callers.
  rpc Refund(Order) returns (Order);
}

message PlaceOrderRequest {
  // The order to place.
  Order order = 1;
}

message WatchOrderRequest {
  string name = 1; // The order's resource name.
}

// An order of one or more items.
//
// Orders are immutable once placed.
message Order {
  // The items, in the order the customer added them.
  repeated Item items = 1;
  map<string, string> labels = 2;  // Free-form labels.
  Money total = 3;
  string coupon = 4 [deprecated = true];
  oneof payment {
    // Paid by card.
    string card_token = 5;
    /* Paid from the
     * customer's wallet. */
    string wallet_id = 6;
  }

  // One line of an order.
  message Item {
    string sku = 1;
    int32 quantity = 2;
  }

  // Where an order is.
  enum State {
    STATE_UNSPECIFIED = 0;
    // Taken, not yet paid.
    PLACED = 1;
    SHIPPED = 2 [deprecated = true];
  }
}

message OrderEvent {
  Order.State state = 1;
}

// @exclude An internal message.
message Ledger {
  int64 cents = 1;
}
"""

MONEY = """syntax = "proto3";

package acme.shop.v1;

// An amount of money in a currency.
message Money {
  // The three-letter currency code (ISO 4217).
  string currency_code = 1;
  int64 units = 2;
}
"""


def _tree(root: Path) -> Path:
    return write_tree(
        root,
        {
            "README.md": "# Acme Shop API\n\nThe gRPC API of the shop.\n",
            "buf.yaml": BUF,
            "proto/acme/shop/v1/shop.proto": SHOP,
            "proto/acme/shop/v1/money.proto": MONEY,
            "proto/acme/internal/audit.proto": 'syntax = "proto3";\npackage acme.internal;\n'
            "message Audit {}\n",
            "proto/acme/shop/v1/testdata/fixture.proto": "message Fixture {}\n",
            "third_party/google/api/annotations.proto": 'syntax = "proto3";\n'
            "package google.api;\nmessage Http {}\n",
            "proto/google/protobuf/empty.proto": "package google.protobuf;\nmessage Empty {}\n",
        },
    )


def test_proto_tree_reads_as_protoc_gen_doc_shows_it(tmp_path: Path) -> None:
    out = build_bundle(_tree(tmp_path / "shop"), tmp_path / "idx")
    pages = page_texts(out)
    # The module's own files: not third_party/, testdata, the buf excludes, copied WKTs.
    assert set(pages) == {
        "README.md",
        "proto/acme/shop/v1/shop.proto",
        "proto/acme/shop/v1/money.proto",
    }
    shop = pages["proto/acme/shop/v1/shop.proto"]
    assert "# acme.shop.v1 (shop.proto)" in shop and "package acme.shop.v1;" in shop
    assert "Copyright" not in shop  # (a detached comment: no generator shows it)
    assert "## Shop" in shop and "The Shop service takes orders" in shop
    assert "rpc PlaceOrder(PlaceOrderRequest) returns (Order) {" in shop
    assert '    post: "/v1/{parent=shops/*}/orders"' in shop
    assert "rpc WatchOrder(WatchOrderRequest) returns (stream OrderEvent);" in shop
    assert "Server streaming" in shop
    assert "- `string name = 1` — The order's resource name." in shop  # (trailing)
    assert "Orders are immutable once placed." in shop
    assert "- `repeated Item items = 1` — The items, in the order" in shop
    assert "- `map<string, string> labels = 2` — Free-form labels." in shop
    assert "- `string coupon = 4 [deprecated = true]` **Deprecated.**" in shop
    assert "- `oneof payment`" in shop
    assert (
        "- `string wallet_id = 6` (in `oneof payment`) — Paid from the\n  customer's wallet."
        in shop
    )
    assert "### Order.Item" in shop and "### Order.State" in shop
    assert "- `PLACED = 1` — Taken, not yet paid." in shop
    # What protoc-gen-doc hides (`@exclude`) is absent.
    assert "Refund" not in shop and "Ledger" not in shop

    app = DocsApp(open_bundle(out))

    def entries(name: str) -> list[dict]:
        result = app.call_tool("get_api_reference", {"method": name})
        assert not result.get("isError"), result
        return result["structuredContent"]["entries"]

    (order,) = entries("acme.shop.v1.Order")
    assert order["kind"] == "type" and order["signature"] == "message Order"
    assert order["description"] == "An order of one or more items."
    assert [(p["name"], p["type"]) for p in order["parameters"]][:3] == [
        ("items", "repeated Item"),
        ("labels", "map<string, string>"),
        ("total", "Money"),
    ]
    assert entries("Order")[0]["name"] == "acme.shop.v1.Order"  # (the short name)
    (rpc,) = entries("Shop.PlaceOrder")
    assert rpc["kind"] == "method" and rpc["returns"] == "Order"
    assert rpc["chunk_id"].endswith("/Shop/Shop.PlaceOrder")
    (watch,) = entries("acme.shop.v1.Shop.WatchOrder")
    assert watch["returns"] == "stream OrderEvent"
    (items,) = entries("Order.items")
    assert items["name"] == "acme.shop.v1.Order.items" and items["returns"] == "repeated Item"
    assert entries("Order.State.PLACED")[0]["description"] == "Taken, not yet paid."
    assert entries("acme.shop.v1.Money")[0]["chunk_id"].startswith(
        "proto/acme/shop/v1/money.proto#"
    )
    for hidden in ("Shop.Refund", "Ledger", "Audit", "Fixture", "Http", "Empty"):
        assert app.call_tool("get_api_reference", {"method": hidden}).get("isError"), hidden

    # A field's type in another file of the package is a reference to its section.
    result = app.call_tool("search_docs", {"query": "order of one or more items", "limit": 3})
    hit = result["structuredContent"]["hits"][0]
    assert hit["chunk_id"] == "proto/acme/shop/v1/shop.proto#acme.shop.v1/Order"
    targets = {r["id"] for r in hit.get("references", [])}
    assert "proto/acme/shop/v1/money.proto#acme.shop.v1/Money" in targets
    first = app.call_tool("search_docs", {"query": "currency code ISO 4217", "limit": 1})
    assert first["structuredContent"]["hits"][0]["chunk_id"].endswith(
        "money.proto#acme.shop.v1/Money"
    )


def test_api_source_outside_the_docs_folder(tmp_path: Path) -> None:
    """`--api-source` names a proto tree beside the docs (a site in `site/`, the API in
    `api/`): its pages are read as if the docs folder held it."""
    write_tree(tmp_path / "repo", {"site/index.md": "# Shop\n\nSee the API.\n"})
    _tree(tmp_path / "repo" / "api")
    out = build_bundle(
        tmp_path / "repo" / "site", tmp_path / "idx", "--api-source", str(tmp_path / "repo" / "api")
    )
    assert set(page_texts(out)) == {
        "index.md",
        "api/proto/acme/shop/v1/shop.proto",
        "api/proto/acme/shop/v1/money.proto",
    }
    app = DocsApp(open_bundle(out))
    found = app.call_tool("get_api_reference", {"method": "Shop.PlaceOrder"})
    (entry,) = found["structuredContent"]["entries"]
    assert entry["chunk_id"].startswith("api/proto/acme/shop/v1/shop.proto#")


def test_which_files_are_pages(tmp_path: Path) -> None:
    files = {
        "api/a/v1/a.proto": "",
        "vendor/x/x.proto": "",
        "examples/protos/helloworld.proto": "",
        "src/a/a_test.proto": "",
        "google/protobuf/any.proto": "",
    }
    root = write_tree(tmp_path / "plain", files)
    # Without buf files, the docs folder's own protos are pages.
    assert no_pages(root, (root,), list(files)) == set(files) - {"api/a/v1/a.proto"}
    # Examples are the tree when the docs folder is theirs; WKTs when they are all it holds.
    ex = write_tree(tmp_path / "ex", {"helloworld.proto": "", "route_guide.proto": ""})
    assert no_pages(ex, (ex,), ["helloworld.proto", "route_guide.proto"]) == set()
    wkt = write_tree(tmp_path / "wkt", {"google/protobuf/any.proto": ""})
    assert no_pages(wkt, (wkt,), ["google/protobuf/any.proto"]) == set()
    # buf.work.yaml's directories and buf.yaml v1's build.excludes.
    work = write_tree(
        tmp_path / "work",
        {
            "buf.work.yaml": "version: v1\ndirectories:\n  - proto\n",
            "proto/buf.yaml": "version: v1\nbuild:\n  excludes:\n    - old\n",
            "proto/a/a.proto": "",
            "proto/old/b.proto": "",
            "tools/c.proto": "",
        },
    )
    listed = ["proto/a/a.proto", "proto/old/b.proto", "tools/c.proto"]
    assert no_pages(work, (work,), listed) == {"proto/old/b.proto", "tools/c.proto"}


def test_comments_attach_as_protoc_attaches_them() -> None:
    """protoc's own examples (descriptor.proto, SourceCodeInfo.Location)."""
    text = """message M {
  optional int32 foo = 1;  // Comment attached to foo.
  // Comment attached to bar.
  optional int32 bar = 2;

  optional string baz = 3;
  // Comment attached to baz.
  // Another line attached to baz.

  // Comment attached to moo.
  //
  // Another line attached to moo.
  optional double moo = 4;

  // Detached comment for corge. This is not leading or trailing comments
  // to moo or corge because there are blank lines separating it from
  // both.

  // Detached comment for corge paragraph 2.

  optional string corge = 5;
  /* Block comment attached
   * to corge.  Leading asterisks
   * will be removed. */
  /* Block comment attached to
   * grault. */
  optional int32 grault = 6;

  // ignored detached comments.
}
"""
    (m,) = parse(text).decls
    got = {f.name: (f.doc, f.trailing) for f in m.fields}
    assert got["foo"] == ("", "Comment attached to foo.")
    assert got["bar"] == ("Comment attached to bar.", "")
    assert got["baz"] == ("", "Comment attached to baz.\nAnother line attached to baz.")
    assert got["moo"] == ("Comment attached to moo.\n\nAnother line attached to moo.", "")
    assert got["corge"] == (
        "",
        "Block comment attached\nto corge.  Leading asterisks\nwill be removed.",
    )
    assert got["grault"] == ("Block comment attached to\ngrault.", "")


def test_envoy_protodoc_annotations() -> None:
    text = """syntax = "proto3";
package envoy.config.demo.v3;
import "udpa/annotations/status.proto";
option (udpa.annotations.file_status).package_version_status = ACTIVE;

// [#protodoc-title: Demo filter]
// Demo filter :ref:`configuration overview <config_demo>`.

// Configuration of the demo filter.
// [#extension: envoy.filters.http.demo]
// [#next-free-field: 3]
message Demo {
  // [#not-implemented-hide:]
  string secret = 1;
  // How long to wait.
  core.v3.Duration timeout = 2 [(validate.rules).duration = {gt {}}];
}
"""
    page = proto_to_markdown("envoy/config/demo/v3/demo.proto", text)
    assert page.title == "Demo filter"
    assert "Extension: `envoy.filters.http.demo`" in page.text
    assert "next-free-field" not in page.text and "secret" not in page.text
    assert "`core.v3.Duration timeout = 2 [(validate.rules).duration = {gt {}}]`" in page.text
    refs = {name for _, name in page.refs}
    assert "envoy.config.core.v3.Duration" in refs  # (a candidate by protobuf's scoping)
    frozen = text.replace("= ACTIVE", "= FROZEN")
    assert proto_to_markdown("envoy/config/demo/v2/demo.proto", frozen).text == ""
    hidden = text.replace("// Demo filter :ref:", "// [#not-implemented-hide:]\n// Demo :ref:")
    assert proto_to_markdown("envoy/config/demo/v3/demo.proto", hidden).text == ""


def test_scoping_and_odd_declarations() -> None:
    text = """syntax = "proto2";
package a.b;
message Outer {
  message Inner { optional int32 x = 1; }
  optional Inner inner = 1;
  optional .a.b.Outer self = 2;
  optional group Result = 3 { required string url = 1; }
  extensions 100 to max;
  reserved 4, 5;
}
extend Outer { optional string note = 100; }
enum E { option allow_alias = true; A = 0; B = 0; C = -1; }
service S { rpc Chat(stream Outer) returns (stream Outer) {} }
"""
    page = proto_to_markdown("a/b/x.proto", text)
    refs = {name for _, name in page.refs}
    assert {"a.b.Outer.Inner", "a.b.Outer", "a.b.Outer.Result"} <= refs
    names = {e.name for e in page.api}
    assert {
        "a.b.Outer.result",
        "a.b.Outer.Result.url",
        "a.b.note",
        "a.b.E.C",
        "a.b.S.Chat",
    } <= names
    assert "Bidirectional streaming" in page.text and "`C = -1`" in page.text
    assert json.dumps([e.signature for e in page.api if e.name == "a.b.note"]) == (
        '["optional string note = 100 (extends Outer)"]'
    )


@FUZZ
@given(st.text(alphabet="message enum service rpc{}[]()<>=;,.\"'/*\n\\ abcxyz019-", max_size=300))
def test_reader_never_fails_on_any_text(text: str) -> None:
    tokens = lex(text)
    assert all(a.end <= b.start for a, b in zip(tokens, tokens[1:], strict=False))
    page = proto_to_markdown("a/x.proto", 'syntax = "proto3";\npackage p;\n' + text)
    assert isinstance(page.text, str)
    assert len(page.line_map) == len(page.text.split("\n"))


def test_hostile_input_ends() -> None:
    deep = "message A {\n" * 5000 + "int32 x = 1;\n" + "}\n" * 5000
    assert isinstance(proto_to_markdown("a.proto", deep).text, str)
    assert isinstance(proto_to_markdown("a.proto", "/*" + "x" * 200_000).text, str)
    assert isinstance(proto_to_markdown("a.proto", '"' + "\\" * 100_001).text, str)
    many = "message M {\n" + "  // c\n  int32 f = 1 [(o) = {a: [1, {b: 2}]}];\n" * 20000 + "}\n"
    page = proto_to_markdown("a.proto", many)
    assert page.text.count("- `int32 f = 1") == 20000 and len(page.api) == 5000  # (entries cap)
