"""A Swift type lists what it gets from its superclass and from the extensions of the protocols
it conforms to, as DocC's "Default Implementations" / "Inherited From" do, by the rule the
other languages' pages follow: a line per base of references to the members' sections and an
API entry per member named as the type's; never a copy (formats/source/swift_inherit.py, the
pass in packages/swift_extensions.py). A catalog article's `@Snippet(path:)` shows the
package's `Snippets/` file as DocC does. The fixture is in the shape of
apple/swift-argument-parser (`ParsableCommand: ParsableArguments`, whose extension gives
`parse(_:)`; a class hierarchy; an `extension … where Value: P`, which names no base)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, run_docsmcp, write_tree
from docsmcp.sources.formats.source.swift_inherit import bases
from docsmcp.sources.formats.source.swift_merge import Merge, split
from docsmcp.sources.packages.swift_package import _snippet_code
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

PACKAGE = """// swift-tools-version:5.9
import PackageDescription

let package = Package(
  name: "swift-kit",
  products: [.library(name: "Kit", targets: ["Kit"])],
  targets: [.target(name: "Kit")]
)
"""

ARGUMENTS = """/// A type that can be parsed from a program's command-line arguments.
public protocol ParsableArguments {
  /// Validates the properties of the instance after parsing.
  mutating func validate() throws
}

extension ParsableArguments {
  /// Parses a new instance of this type from command-line arguments.
  ///
  /// - Parameter arguments: An array of arguments to use for parsing.
  public static func parse(_ arguments: [String]? = nil) throws -> Self {
    fatalError()
  }

  public mutating func validate() throws {}
}

/// A base class for handlers.
open class Handler {
  /// Creates a handler.
  public init() {}

  /// Handles the input.
  open func handle(_ input: String) {}
}

/// A handler that logs.
open class LoggingHandler: Handler {
  /// The log's name.
  public var name: String = ""
}
"""

COMMAND = """/// A type that can be executed as part of a nested tree of commands.
public protocol ParsableCommand: ParsableArguments {
  /// Runs this command.
  mutating func run() throws
}

extension ParsableCommand {
  public mutating func run() throws {}
}

/// An option.
public struct Option<Value> {
  /// The value.
  public var wrappedValue: Value
}

extension Option where Value: ParsableArguments {
  /// Makes one.
  public init() { fatalError() }
}
"""

ARTICLE = """# Getting Started

Declare a command:

@Snippet(path: "swift-kit/Snippets/Repeat")

And only its run method:

@Snippet(path: "swift-kit/Snippets/Repeat", slice: "run")
"""

SNIPPET = """// Repeats a phrase.
import Kit

// snippet.hide
struct Hidden {}
// snippet.show
struct Repeat: ParsableCommand {
  // snippet.run
  func run() { print("hello") }
  // snippet.end
}
"""


def _tree(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "kit",
        {
            "Package.swift": PACKAGE,
            "Sources/Kit/ParsableArguments.swift": ARGUMENTS,
            "Sources/Kit/ParsableCommand.swift": COMMAND,
            "Sources/Kit/Kit.docc/GettingStarted.md": ARTICLE,
            "Snippets/Repeat.swift": SNIPPET,
        },
    )


def test_a_type_lists_what_its_protocols_and_superclass_give(tmp_path: Path) -> None:
    out = build_bundle(_tree(tmp_path), tmp_path / "idx")
    pages = page_texts(out)
    command = pages["Sources/Kit/ParsableCommand.swift"]
    # The extension's members, not the requirement the protocol itself declares
    # (`validate()` is the extension's too); never a copy; `where Value: P` names no base.
    assert "**Default implementations from `ParsableArguments`:** `parse(_:)`, `validate()`" in (
        command
    )
    assert "Parses a new instance" not in command and command.count("Default impl") == 1
    arguments = pages["Sources/Kit/ParsableArguments.swift"]
    # (a class's superclass: its members but its initializers)
    assert "**Inherited from `Handler`:** `handle(_:)`\n" in arguments
    api = ApiRegistry(open_bundle(out))
    (parse,) = [api.spec(i) for i in api.lookup("ParsableCommand.parse(_:)")]
    assert parse["name"] == "Kit.ParsableCommand.parse(_:)"
    assert parse["description"] == "Parses a new instance of this type from command-line arguments."
    assert parse["signature"].startswith("public static func parse(")


def test_the_lines_refer_to_the_members_sections(tmp_path: Path) -> None:
    built = run_docsmcp("build", "--docs-dir", _tree(tmp_path), "--out", tmp_path / "i", "--json")
    refs = json.loads(built.stdout)["references"]
    assert refs["resolved"] == refs["found"] and refs["resolved"] >= 3, refs


def test_a_snippet_shows_its_file(tmp_path: Path) -> None:
    out = build_bundle(_tree(tmp_path), tmp_path / "idx")
    article = page_texts(out)["Sources/Kit/Kit.docc/GettingStarted.md"]
    assert "Snippet: `Repeat`\n\n```swift\n// Repeats a phrase.\nimport Kit\n" in article
    assert "struct Hidden" not in article and "snippet." not in article
    # the slice: its lines alone
    assert '```swift\n  func run() { print("hello") }\n```' in article


def test_bases_and_snippets_read_as_written() -> None:
    assert bases("extension Argument where Value: ExpressibleByArgument", "extension") == []
    assert bases("public struct A<T: P>: B, C where T: D", "struct") == ["B", "C"]
    assert _snippet_code("a\n// snippet.hide\nb\n// snippet.show\nc", "") == "a\nc"


@given(st.text(max_size=200))
@FUZZ
def test_merge_line_round_trips_and_never_fails(text: str) -> None:
    merge = Merge({}, {}, {text: ((text, "protocol", ((text, text, text),)),)})
    body, read = split("struct A {}\n" + merge.encode())
    assert body == "struct A {}" and read == merge
    bases(text, "struct")
    _snippet_code(text, text[:5])
