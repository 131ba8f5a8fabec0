"""A Swift type declared in one file and extended in others is one symbol, as DocC shows it:
the declaring file's section is the type's only API entry and link target and lists what the
other files add; the extending files' members are the type's (`OrderedSet.append(_:)`), and
every line stays in its own file. The fixture is written in the shape of apple/swift-collections
(`OrderedSet.swift` declaring the type, `OrderedSet+Insertions.swift` and
`OrderedSet+Partial RangeReplaceableCollection.swift` extending it, `extension Array` of a type
no page declares)."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.formats.source.swift_merge import Merge, split
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

PACKAGE = """// swift-tools-version:5.9
import PackageDescription

let package = Package(
  name: "swift-sets",
  products: [
    .library(name: "OrderedSets", targets: ["OrderedSets"]),
  ],
  targets: [
    .target(name: "OrderedSets"),
    .testTarget(name: "OrderedSetsTests", dependencies: ["OrderedSets"]),
  ]
)
"""

DECLARED = """/// An ordered collection of unique elements.
///
/// Similar to the standard `Set`, ordered sets ensure that each element appears
/// only once in the collection.
@frozen
public struct OrderedSet<Element> where Element: Hashable {
  @usableFromInline
  internal var _elements: [Element]

  /// The number of elements in the set.
  public var count: Int { _elements.count }
}
"""

INSERTIONS = """extension OrderedSet {
  /// Append a new member to the end of the set, if the set doesn't
  /// already contain it.
  ///
  /// - Parameter item: The element to add to the set.
  ///
  /// - Returns: A pair `(inserted, index)`.
  @inlinable
  @discardableResult
  public mutating func append(_ item: Element) -> (inserted: Bool, index: Int) {
    (true, 0)
  }
}
"""

REMOVALS = """extension OrderedSet {
  /// Removes all members from the set.
  public mutating func removeAll(keepingCapacity keepCapacity: Bool = false) {
  }
}

extension Array {
  /// An array of the set's elements.
  public init(_ set: OrderedSet<Element>) {
    self = []
  }
}
"""


def test_a_type_over_several_files_is_one_symbol(tmp_path: Path) -> None:
    folder = "Sources/OrderedSets/OrderedSet/"
    root = write_tree(
        tmp_path / "sets",
        {
            "Package.swift": PACKAGE,
            folder + "OrderedSet.swift": DECLARED,
            folder + "OrderedSet+Insertions.swift": INSERTIONS,
            folder + "OrderedSet+Partial RangeReplaceableCollection.swift": REMOVALS,
        },
    )
    out = build_bundle(root, tmp_path / "idx")
    pages = page_texts(out)
    api = ApiRegistry(open_bundle(out))
    # The type is one entry, where it is declared.
    (entry,) = [api.spec(i) for i in api.lookup("OrderedSet")]
    assert entry["description"] == "An ordered collection of unique elements."
    # The extensions' members are the type's, found by its name.
    (append,) = [api.spec(i) for i in api.lookup("OrderedSet.append(_:)")]
    assert append["returns"].startswith("(inserted: Bool, index: Int)")
    assert len(api.lookup("OrderedSet.removeAll")) == 1
    # The type's section lists them, with a link to each file.
    declared = pages[folder + "OrderedSet.swift"]
    assert "## Extensions in other files" in declared
    assert "- [OrderedSet+Insertions.swift](OrderedSet+Insertions.swift): `append(_:)`" in declared
    assert (
        "(OrderedSet+Partial%20RangeReplaceableCollection.swift): `removeAll(keepingCapacity:)`"
        in declared
    )
    # An extending file says where its type is; its text stays its own.
    insertions = pages[folder + "OrderedSet+Insertions.swift"]
    assert insertions.startswith("# extension OrderedSet\n") or (
        "# extension OrderedSet\n" in insertions
    )
    assert "Extends [`OrderedSet`](OrderedSet.swift)." in insertions
    assert "## OrderedSet.append(\\_:)" in insertions
    # An extension of a type no page declares is as before.
    removals = pages[folder + "OrderedSet+Partial RangeReplaceableCollection.swift"]
    assert "## Array" in removals and "Extends [`Array`]" not in removals
    assert len(api.lookup("Array.init(_:)")) == 1


@given(st.text(max_size=200), st.text(max_size=200))
@FUZZ
def test_merge_line_round_trips_and_never_fails(a: str, b: str) -> None:
    merge = Merge({a: b}, {b: ((a, (a, b)),)})
    body, read = split("struct A {}\n" + merge.encode())
    assert body == "struct A {}" and read == merge
    split(a)


def test_many_extension_files_end(tmp_path: Path) -> None:
    """200 files extending one type: one entry of it, a line per file."""
    files = {"Package.swift": PACKAGE, "Sources/OrderedSets/T.swift": "public struct T {}\n"}
    for k in range(200):
        members = "\n".join(f"  public func f{k}_{j}() {{}}" for j in range(5))
        files[f"Sources/OrderedSets/T+{k}.swift"] = f"extension T {{\n{members}\n}}\n"
    out = build_bundle(write_tree(tmp_path / "many", files), tmp_path / "idx")
    api = ApiRegistry(open_bundle(out))
    assert len(api.lookup("T")) == 1
    assert page_texts(out)["Sources/OrderedSets/T.swift"].count("- [T+") == 200
