"""Swift packages read as DocC shows them: a library target's public declarations become symbol
pages and API entries named as code calls them, its catalog's articles and tutorials read as
DocC renders them (directives reduced to their text, ``` ``Symbol`` ``` and `<doc:…>` links), and
a catalog's extension files join their symbol's page. The fixture is a package in the shape of
apple/swift-argument-parser and apple/swift-log (a `.library` product, a test target, a
`Documentation.docc` with Articles/, Extensions/ and a tutorial with its code resources)."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.formats.markdown.docc import docc_to_markdown
from docsmcp.sources.formats.source.swift_lex import tokens
from docsmcp.sources.formats.source.swift_parse import parse
from docsmcp.sources.formats.source.swiftdoc import swift_to_markdown
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

PACKAGE = """// swift-tools-version:5.9
import PackageDescription

let package = Package(
  name: "swift-flags",
  products: [
    .library(name: "Flags", targets: ["Flags"]),
  ],
  targets: [
    .target(name: "Flags", dependencies: ["FlagsToolInfo"]),
    .target(name: "FlagsToolInfo"),
    .executableTarget(name: "flags-demo", dependencies: ["Flags"]),
    .testTarget(name: "FlagsTests", dependencies: ["Flags"]),
  ]
)
"""

OPTION = """//===--- Option.swift -----------------------------------------*- swift -*-===//
// Licensed under Apache License v2.0
//===----------------------------------------------------------------------===//

/// A property wrapper that reads a named option.
///
/// Declare an option on a ``ParsableCommand``:
///
/// ```swift
/// @Option var count: Int = 1 // {
/// ```
@propertyWrapper
public struct Option<Value>: Decodable {
  internal var _parsed: Int
  var hiddenByDefault = "}"

  /// The value presented by this property wrapper.
  public var wrappedValue: Value {
    get { fatalError("\\(_parsed) {") }
    set { }
  }

  /// Creates an option with a name.
  ///
  /// - Parameters:
  ///   - name: The names the option is
  ///     known by.
  ///   - help: Information about the option.
  /// - Returns: Never: an initializer.
  /// - Note: Prefer ``init(name:help:)`` over the deprecated one.
  public init(
    name: NameSpecification = .long,
    help: String? = nil
  ) where Value: ExpressibleByArgument {
    let raw = #"a "quoted" } brace"#
    /* a nested /* comment */ with } */
    _ = raw
  }

  @available(*, deprecated, message: "Use init(name:help:) instead.")
  public init(help: String) { }

  @available(*, unavailable)
  public init() { fatalError() }

  public func _internalHook() {}
}

extension Option: CustomStringConvertible {
  /// A description of the option.
  public var description: String { "option" }

  func notShown() {}
}

/// How to read an option's value.
public enum ParsingStrategy: Sendable {
  /// The next input.
  case next
  case unconditional, remaining(limit: Int)

  /// Parses `input`.
  ///
  /// - Parameter input: The text to parse.
  /// - Throws: `ValidationError` when it is empty.
  /// - Returns: The parsed value.
  public static func parse(_ input: String) throws -> Int { 0 }
}

internal struct Helper {}
"""

COMMAND = """/// A type that can be executed as a command-line program.
public protocol ParsableCommand {
  /// Runs this command.
  mutating func run() throws
  var name: String { get }
}

extension ParsableCommand {
  public static func main() { }
}

public func == (lhs: Option<Int>, rhs: Option<Int>) -> Bool { true }
"""

ROOT = """# ``Flags``

Straightforward, type-safe flag parsing for Swift.

## Overview

Declare a type conforming to ``ParsableCommand`` with ``Option`` properties, then read
<doc:GettingStarted>.

## Topics

### Essentials

- <doc:GettingStarted>
- ``ParsableCommand``
- ``Option/init(name:help:)-4yske``
"""

GETTING_STARTED = """# Getting Started with Flags

@Metadata {
    @DisplayName("Getting Started")
    @PageImage(purpose: icon, source: "flags-icon")
}

Build a first command with ``ParsableCommand/run()``.

@Row {
    @Column {
        Declare options first.
    }
    @Column {
        ![A terminal](terminal.png)
    }
}

@TabNavigator {
    @Tab("Swift") {
        ```swift
        struct Count: ParsableCommand {}
        ```
    }
}

@Options {
    @AutomaticSeeAlso(disabled)
}
"""

OPTION_EXTENSION = """# ``Flags/Option``

Options are read in any order.

## Topics

### Creating an Option

- ``init(name:help:)``
- ``ParsingStrategy``
"""

TUTORIAL = """@Tutorial(time: 10) {
    @Intro(title: "Your first command") {
        Write a command that counts.

        @Image(source: "intro.png", alt: "A counter")
    }

    @Section(title: "Declare the command") {
        @ContentAndMedia {
            Start from an empty package.
        }

        @Steps {
            @Step {
                Add a type conforming to ``ParsableCommand``.

                @Code(name: "Count.swift", file: 01-count.swift)
            }

            @Step {
                Add an ``Option``, as <doc:GettingStarted> shows.

                @Code(
                    name: "Count.swift",
                    file: 02-count.swift
                )
            }
        }
    }
}
"""


def _package(root: Path) -> Path:
    catalog = "Sources/Flags/Documentation.docc/"
    return write_tree(
        root,
        {
            "README.md": "# swift-flags\n\nParse flags with `Option`.\n",
            "Package.swift": PACKAGE,
            "Sources/Flags/Option.swift": OPTION,
            "Sources/Flags/Command.swift": COMMAND,
            "Sources/FlagsToolInfo/ToolInfo.swift": "/// Info.\npublic struct ToolInfo {}\n",
            "Sources/flags-demo/main.swift": "/// Demo.\npublic struct Demo {}\n",
            "Tests/FlagsTests/OptionTests.swift": "/// Tests.\npublic final class T {}\n",
            catalog + "Flags.md": ROOT,
            catalog + "Articles/GettingStarted.md": GETTING_STARTED,
            catalog + "Extensions/Option.md": OPTION_EXTENSION,
            catalog + "Tutorials/YourFirstCommand.tutorial": TUTORIAL,
            catalog + "Resources/01-count.swift": "public struct Count {}\n",
        },
    )


def test_package_reads_as_docc_shows_it(tmp_path: Path) -> None:
    out = build_bundle(_package(tmp_path / "swift-flags"), tmp_path / "idx")
    pages = page_texts(out)
    catalog = "Sources/Flags/Documentation.docc/"
    # The library product's target only: no tests, executables, other targets, tutorial code;
    # the extension file is no page of its own (it joins Option's).
    assert set(pages) == {
        "README.md",
        "Sources/Flags/Option.swift",
        "Sources/Flags/Command.swift",
        catalog + "Flags.md",
        catalog + "Articles/GettingStarted.md",
        catalog + "Tutorials/YourFirstCommand.tutorial",
    }
    option = pages["Sources/Flags/Option.swift"]
    assert "# Option" in option
    assert "```swift\n@propertyWrapper public struct Option<Value>: Decodable\n```" in option
    assert "A property wrapper that reads a named option." in option
    assert "Declare an option on a `ParsableCommand`:" in option
    # The catalog's extension file, after the type's comment, its Topics the type's index.
    assert "Options are read in any order." in option
    assert "## Topics" in option and "### Creating an Option" in option
    assert "- `init(name:help:)`" in option
    assert "## Option.init(name:help:)" in option
    assert "public init(name: NameSpecification = .long, help: String? = nil)" in option
    assert "**Parameters**" in option
    assert "- `name`: The names the option is known by." in option
    assert "> Note: Prefer `init(name:help:)` over the deprecated one." in option
    assert "> Deprecated: Use init(name:help:) instead." in option
    assert "## Option.description" in option  # (an extension's member, on the type's page)
    assert "## ParsingStrategy" in option and "### ParsingStrategy.remaining(limit:)" in option
    assert "### ParsingStrategy.parse(\\_:)" in option  # (no emphasis)
    assert "**Throws:** `ValidationError` when it is empty." in option
    # What DocC leaves out: internal, underscored, unavailable declarations.
    for hidden in ("_parsed", "hiddenByDefault", "_internalHook", "notShown", "Helper", "init()"):
        assert hidden not in option.replace("init(name", "").replace("init(help", ""), hidden
    command = pages["Sources/Flags/Command.swift"]
    assert "## ParsableCommand.run()" in command and "## ParsableCommand.name" in command
    assert "var name: String { get }" in command
    assert "## ParsableCommand.main()" in command

    root = pages[catalog + "Flags.md"]
    assert "``" not in root and "<doc:" not in root
    assert "Declare a type conforming to `ParsableCommand` with `Option` properties" in root
    assert "[Getting Started](Articles/GettingStarted.md)" in root
    assert "### Essentials" in root and "- `init(name:help:)`" in root
    article = pages[catalog + "Articles/GettingStarted.md"]
    assert "@" not in article.replace("@Option", "")
    assert "Build a first command with `run()`." in article
    assert "Declare options first." in article
    assert "```swift\nstruct Count: ParsableCommand {}\n```" in article
    assert "AutomaticSeeAlso" not in article and "PageImage" not in article
    tutorial = pages[catalog + "Tutorials/YourFirstCommand.tutorial"]
    assert "# Your first command" in tutorial and "## Declare the command" in tutorial
    assert "**Step 1.**" in tutorial and "**Step 2.**" in tutorial
    assert "Add a type conforming to `ParsableCommand`." in tutorial
    # A step's code, as DocC shows it beside the step (found by name in the catalog); a file
    # the catalog lacks is named.
    assert "Code: `Count.swift`\n\n```swift\npublic struct Count {}\n```" in tutorial
    assert "Code: `Count.swift` (02-count.swift)" in tutorial
    assert "[Getting Started](../Articles/GettingStarted.md)" in tutorial
    assert "@Step" not in tutorial and "    Start from" not in tutorial

    api = ApiRegistry(open_bundle(out))
    names = set(api.names)
    assert {
        "Flags.Option",
        "Flags.Option.init(name:help:)",
        "Flags.Option.wrappedValue",
        "Flags.Option.description",
        "Flags.ParsingStrategy.next",
        "Flags.ParsingStrategy.remaining(limit:)",
        "Flags.ParsingStrategy.parse(_:)",
        "Flags.ParsableCommand.run()",
        "Flags.==(_:_:)",
    } <= names
    assert not {n for n in names if "ToolInfo" in n or "Demo" in n or "_parsed" in n}
    spec = api.spec(api.lookup("Flags.Option.init(name:help:)")[0])
    assert spec["description"] == "Creates an option with a name."
    assert [(p["name"], p["type"], p["description"]) for p in spec["parameters"]] == [
        ("name", "NameSpecification", "The names the option is known by."),
        ("help", "String?", "Information about the option."),
    ]
    parse_spec = api.spec(api.lookup("Flags.ParsingStrategy.parse(_:)")[0])
    assert parse_spec["returns"] == "Int: The parsed value."
    assert parse_spec["parameters"][0]["description"] == "The text to parse."


def test_catalog_folder_built_on_its_own(tmp_path: Path) -> None:
    # `docsmcp build --docs-dir Sources/Flags/Documentation.docc`: its pages read as DocC's,
    # the extension file a page of its own (no Swift page to join), titled by its symbol.
    root = _package(tmp_path / "swift-flags") / "Sources/Flags/Documentation.docc"
    pages = page_texts(build_bundle(root, tmp_path / "idx"))
    assert set(pages) == {
        "Flags.md",
        "Articles/GettingStarted.md",
        "Extensions/Option.md",
        "Tutorials/YourFirstCommand.tutorial",
    }
    assert "[Getting Started](Articles/GettingStarted.md)" in pages["Flags.md"]
    leaks = ("``Parsable", "``Option", "``init", "<doc:", "@Metadata", "@Step", "@Column")
    assert not any(leak in t for t in pages.values() for leak in leaks)
    assert pages["Extensions/Option.md"].strip().startswith("# Option")


def test_catalog_outside_a_package_reads_alone() -> None:
    # A `.docc` folder built on its own: the module is the catalog's name; links it cannot
    # resolve read as the article's name.
    done = docc_to_markdown("Flags.docc/Flags.md", ROOT)
    assert done.title == "Flags"
    assert "read\nGettingStarted." in done.text
    assert "Flags.ParsableCommand" in [name for _, name in done.refs]


def test_swift_outside_a_package_is_no_page(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "site",
        {
            "guide.md": "# Guide\n\nUse the API.\n",
            "snippets/Example.swift": "/// An example.\npublic struct Example {}\n",
            "Sources/Lib/Lib.swift": "/// No manifest.\npublic struct Lib {}\n",
        },
    )
    assert set(page_texts(build_bundle(root, tmp_path / "idx"))) == {"guide.md"}


def test_lexer_reads_literals_and_comments_whole() -> None:
    src = (
        'let a = "x \\(f("}")) y"\n'
        'let b = """\n  { \\(g(#"}"#)) \n  """\n'
        'let c = ##"a "# } "##\n'
        "/* a /* nested } */ still comment { */\n"
        "@available(macOS 10.15, *) func h() {}\n"
        "let r = #/a{2}/#\n"
    )
    toks = tokens(src)
    assert [t.text for t in toks if t.kind in ("open", "close")] == ["(", ")", "{", "}"]
    assert [t.kind for t in toks if t.text.startswith("@")] == ["attr"]
    assert sum(t.kind == "str" for t in toks) == 4


def test_declarations_are_named_as_docc_names_them() -> None:
    decls = parse(
        "public struct S {\n"
        "  public init?(_ x: Int, label y: String) {}\n"
        "  public subscript(index: Int) -> Int { 0 }\n"
        "  public static func + (l: S, r: S) -> S { l }\n"
        "  public func f<T>(\n    _ a: T,\n    b: Int = 1\n"
        "  ) async throws -> [T] where T: P { [] }\n"
        "  #if os(Linux)\n  public var linux: Int { 1 }\n  #endif\n"
        "  public private(set) var count = 0\n"
        "}\n"
    )
    assert [m.name for m in decls[0].members] == [
        "init(_:label:)",
        "subscript(_:)",
        "+(_:_:)",
        "f(_:b:)",
        "linux",
        "count",
    ]
    assert decls[0].members[3].returns == "[T]"


@FUZZ
@given(
    st.text(
        alphabet='/*"#\\(){}[]<>@;=,.:`\n abpublicstructfuncvarletextensioncase-Parameter',
        max_size=400,
    )
)
def test_reader_never_fails_on_any_text(text: str) -> None:
    toks = tokens(text)
    assert all(a.start <= b.start for a, b in zip(toks, toks[1:], strict=False))
    page = swift_to_markdown("Sources/M/A.swift", "public struct A {\n" + text)
    assert isinstance(page.text, str)
    done = docc_to_markdown("M.docc/A.md", text)
    assert done.text.count("\n") == text.count("\n")


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            [
                '"a{"',
                '"\\(x["}"])"',
                "/* { /* } */ */",
                "// {\n",
                '"""\n{\n"""',
                '#"}"#',
                "{",
                "}",
                "x",
            ]
        ),
        max_size=40,
    )
)
def test_literals_and_comments_hide_their_brackets(parts: list[str]) -> None:
    toks = tokens("".join(parts))
    expected = sum(p in ("{", "}") for p in parts)
    assert sum(t.kind in ("open", "close") for t in toks) == expected


def test_hostile_input_ends() -> None:
    deep = "public struct A {\n" * 3000 + "/// x\npublic func f() {}\n" + "}\n" * 3000
    assert isinstance(swift_to_markdown("Sources/M/A.swift", deep).text, str)
    tokens('"\\(' * 20000)
    tokens("/*" * 20000 + '"""' * 5000)
    assert isinstance(docc_to_markdown("M.docc/a.md", "@Row {\n" * 5000).text, str)
    assert isinstance(docc_to_markdown("M.docc/a.md", "@Code(\n" + "(x\n" * 20000).text, str)
