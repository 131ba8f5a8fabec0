"""A package named with `--api-source` outside the docs folder is read as one inside it
(packages/api_sources.py), and `--source-url` links its pages into the repository.

Shapes: Rocket's (an mdBook-like guide in `site/guide/` of the repository whose crate is
`core/lib/`), serde's (the book in a repository of its own beside the crate's workspace), a
Maven project with its docs site in `docs/`, and a Doxygen project (a Doxyfile at the top naming
`include/`) with a markdown site beside. Before, each gave 0 API entries and one warning."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, page_texts, run_docsmcp, write_tree
from docsmcp_runtime.format.metadata import Source, without_dot_segments
from hypothesis import given
from hypothesis import strategies as st

LIB_RS = """\
//! Rocket-like: a web framework.
//!
//! Start with [`Request`].

pub mod request;

pub use crate::request::Request;
"""

REQUEST_RS = """\
//! Types for requests.

/// The request a handler receives.
pub struct Request {
    uri: String,
}

impl Request {
    /// The request's URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }
}

/// Derives a value from a request: a request guard.
pub trait FromRequest: Sized {
    /// Derives it.
    fn from_request(request: &Request) -> Option<Self>;
}
"""

CARGO = '[package]\nname = "rocket"\nversion = "0.5.0"\ndescription = "Web framework."\n'


def _rocket(root: Path) -> Path:
    """Rocket's shape: the workspace, its crate in `core/lib/`, the guide in `site/guide/`."""
    return write_tree(
        root,
        {
            "Cargo.toml": '[workspace]\nmembers = ["core/lib"]\n',
            "core/lib/Cargo.toml": CARGO,
            "core/lib/src/lib.rs": LIB_RS,
            "core/lib/src/request/mod.rs": REQUEST_RS,
            "core/lib/tests/guards.rs": "#[test]\nfn guards() {}\n",
            "core/lib/build.rs": "fn main() {}\n",
            "examples/hello/src/main.rs": "fn main() {}\n",
            "site/guide/index.md": "# The Rocket Guide\n\nRead [requests](requests.md).\n",
            "site/guide/requests.md": "# Requests\n\nA request guard implements `FromRequest`.\n",
        },
    )


def _names(out: Path) -> set[str]:
    return set(pq.read_table(out / "api.parquet").column("name").to_pylist())


def _build(docs: Path, out: Path, *extra: str | Path) -> str:
    return run_docsmcp("build", "--docs-dir", docs, "--out", out, *extra).stderr


def test_a_crate_beside_the_guide_is_read_as_its_module_pages(tmp_path: Path) -> None:
    repo = _rocket(tmp_path / "Rocket")
    out = tmp_path / "idx"
    stderr = _build(repo / "site/guide", out, "--api-source", repo / "core/lib")
    assert "warning" not in stderr  # (before: "a Rust crate, whose API pages are read only…")
    texts = page_texts(out)
    # the crate's modules, in a folder named as the crate's folder; tests, build.rs: no pages
    assert set(texts) == {"index.md", "requests.md", "lib/src/lib.rs", "lib/src/request/mod.rs"}
    assert "The request a handler receives." in texts["lib/src/request/mod.rs"]
    names = _names(out)
    assert {
        "rocket::Request",
        "rocket::request::Request::uri",
        "rocket::request::FromRequest",
    } <= names


def test_the_repository_as_api_source_skips_the_docs_folder_inside_it(tmp_path: Path) -> None:
    repo = _rocket(tmp_path / "Rocket")
    out = tmp_path / "idx"
    _build(repo / "site/guide", out, "--api-source", repo)
    # (the guide is not read again from the repository; the example binary is no page)
    assert set(page_texts(out)) == {
        "index.md",
        "requests.md",
        "Rocket/core/lib/src/lib.rs",
        "Rocket/core/lib/src/request/mod.rs",
    }


def test_a_package_inside_another_is_read_once_under_its_own_name(tmp_path: Path) -> None:
    repo = _rocket(tmp_path / "Rocket")
    out = tmp_path / "idx"
    _build(repo / "site/guide", out, "--api-source", repo, "--api-source", repo / "core/lib")
    assert set(page_texts(out)) == {
        "index.md",
        "requests.md",
        "lib/src/lib.rs",
        "lib/src/request/mod.rs",
    }


def _git(folder: Path) -> None:
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
    ):
        subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True)


def _links(out: Path) -> dict[str, str | None]:
    """Each page's link of its first line, as the runtime makes it."""
    source = Source.from_json(json.loads((out / "metadata.json").read_text())["source"])
    paths = set(pq.read_table(out / "chunks.parquet").column("path").to_pylist())
    return {p: source.link(p, 1, 2, "") for p in sorted(paths)}


def test_source_url_links_a_page_from_outside_the_docs_folder_into_the_repository(
    tmp_path: Path,
) -> None:
    repo = _rocket(tmp_path / "Rocket")
    _git(repo)
    out = tmp_path / "idx"
    template = "https://github.com/o/r/blob/{commit}/site/guide/{path}#L{line_start}"
    _build(repo / "site/guide", out, "--api-source", repo / "core/lib", "--source-url", template)
    links = _links(out)
    commit = json.loads((out / "metadata.json").read_text())["source"]["commit"]
    base = f"https://github.com/o/r/blob/{commit}/"
    assert links["requests.md"] == base + "site/guide/requests.md#L1"
    # (before: …/site/guide/lib/src/request/mod.rs, a file that does not exist)
    assert links["lib/src/request/mod.rs"] == base + "core/lib/src/request/mod.rs#L1"


def test_a_package_in_another_repository_gets_no_link(tmp_path: Path) -> None:
    """serde's shape: the book's repository beside the crate's; a template written for the
    book cannot point into the crate's repository: no link rather than a wrong one."""
    crate = write_tree(
        tmp_path / "serde",
        {
            "Cargo.toml": '[workspace]\nmembers = ["serde"]\n',
            "serde/Cargo.toml": CARGO.replace("rocket", "serde"),
            "serde/src/lib.rs": LIB_RS,
            "serde/src/request/mod.rs": REQUEST_RS,
        },
    )
    site = write_tree(tmp_path / "serde-rs.github.io", {"_src/index.md": "# Serde\n\nIntro.\n"})
    _git(crate)
    _git(site)
    out = tmp_path / "idx"
    template = "https://github.com/serde-rs/serde-rs.github.io/blob/{commit}/_src/{path}"
    _build(site / "_src", out, "--api-source", crate, "--source-url", template)
    links = _links(out)
    assert "serde::request::Request::uri" in _names(out)
    assert links["index.md"] is not None and links["index.md"].endswith("/_src/index.md")
    assert links["serde/serde/src/lib.rs"] is None


def test_a_build_without_api_source_has_no_paths(tmp_path: Path) -> None:
    repo = _rocket(tmp_path / "Rocket")
    out = tmp_path / "idx"
    _build(repo / "site/guide", out, "--source-url", "https://x.test/{path}")
    assert "paths" not in json.loads((out / "metadata.json").read_text())["source"]


POM = """<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>htmlkit</artifactId>
  <description>Parse HTML.</description>
</project>
"""

PARSER = """\
package com.example.htmlkit;

/** Parses HTML into a document. */
public class Parser {
    /**
     * Parses the text.
     * @param html the text
     * @return the document's title
     */
    public static String parse(String html) { return html; }
}
"""


def test_a_java_project_holding_the_docs_site_is_read_as_javadoc_shows_it(tmp_path: Path) -> None:
    """A Maven project whose docs site is its `docs/` folder, built with `--api-source .`."""
    repo = write_tree(
        tmp_path / "htmlkit",
        {
            "pom.xml": POM,
            "src/main/java/com/example/htmlkit/Parser.java": PARSER,
            "src/test/java/com/example/htmlkit/ParserTest.java": PARSER.replace("Parser", "T"),
            "docs/index.md": "# htmlkit\n\nCall `Parser.parse`.\n",
        },
    )
    out = tmp_path / "idx"
    stderr = _build(repo / "docs", out, "--api-source", repo)
    assert "warning" not in stderr
    assert set(page_texts(out)) == {
        "index.md",
        "htmlkit/src/main/java/com/example/htmlkit/Parser.java",
    }
    assert "com.example.htmlkit.Parser.parse" in _names(out)


DOXYFILE = "PROJECT_NAME = Lib\nINPUT = include\nRECURSIVE = YES\n"

LIB_H = """\
/** @file lib.h
 *  @brief The library's API.
 */

/** @brief Opens a window.
 *  @param title Its title.
 *  @return 1 on success.
 */
int lib_open(const char *title);
"""


def test_a_doxygen_project_beside_the_docs_folder_is_read(tmp_path: Path) -> None:
    repo = write_tree(
        tmp_path / "lib",
        {
            "Doxyfile": DOXYFILE,
            "include/lib.h": LIB_H,
            "src/internal.h": "int hidden(void);\n",
            "site/index.md": "# Lib\n\nOpen a window with `lib_open`.\n",
        },
    )
    out = tmp_path / "idx"
    _build(repo / "site", out, "--api-source", repo)
    texts = page_texts(out)
    assert set(texts) == {"index.md", "lib/include/lib.h"}  # (src/internal.h: not in INPUT)
    assert "lib_open" in _names(out)


def test_the_guides_of_a_doxygen_project_link_to_its_headers(tmp_path: Path) -> None:
    """GLFW's shape: `docs/` holds the Doxyfile (INPUT = ../include) and the guides, whose
    `@ref`s name the headers' symbols; built with `--docs-dir docs --api-source .`."""
    repo = write_tree(
        tmp_path / "glfw",
        {
            "docs/Doxyfile": "PROJECT_NAME = Lib\nINPUT = ../include\nRECURSIVE = YES\n",
            "docs/window.md": "# Window guide {#window_guide}\n\nOpen one with @ref lib_open.\n",
            "include/lib.h": LIB_H.replace("@return 1 on success.", "@sa @ref window_guide"),
        },
    )
    out = tmp_path / "idx"
    _build(repo / "docs", out, "--api-source", repo)
    texts = page_texts(out)
    assert set(texts) == {"window.md", "glfw/include/lib.h"}
    # (before: "@ref lib_open" as written, and no header page at all)
    assert "[lib_open](glfw/include/lib.h#lib_open)" in texts["window.md"]
    # and the header's references to the guide are links to its page
    assert "[Window guide](../../window.md#window_guide)" in texts["glfw/include/lib.h"]


SWIFT_PACKAGE = """// swift-tools-version:5.9
import PackageDescription

let package = Package(
  name: "vapor",
  products: [.library(name: "Vapor", targets: ["Vapor"])],
  targets: [
    .target(name: "Vapor"),
    .testTarget(name: "VaporTests", dependencies: ["Vapor"]),
  ]
)
"""

ROUTES_SWIFT = """\
/// Registers routes.
public struct Routes {
    /// Adds a route for the given path.
    /// - Parameter path: The path to match.
    public func add(_ path: String) {}
}
"""


def test_a_swift_package_in_another_repository_is_read_with_its_articles(tmp_path: Path) -> None:
    """Vapor's shape: the docs site (`vapor/docs`) and the package are two repositories; the
    package's symbols and its DocC catalog's articles are read (session 17, helper p: before,
    the articles were named in one warning)."""
    package = write_tree(
        tmp_path / "vapor",
        {
            "Package.swift": SWIFT_PACKAGE,
            "Sources/Vapor/Routing/Routes.swift": ROUTES_SWIFT,
            "Sources/Vapor/Docs.docc/index.md": "# ``Vapor``\n\nA web framework.\n",
            "Tests/VaporTests/RoutesTests.swift": "import XCTest\n",
        },
    )
    docs = write_tree(tmp_path / "docs", {"index.md": "# Vapor\n\nRoutes are registered.\n"})
    out = tmp_path / "idx"
    stderr = _build(docs, out, "--api-source", package)
    assert set(page_texts(out)) == {
        "index.md",
        "vapor/Sources/Vapor/Routing/Routes.swift",
        "vapor/Sources/Vapor/Docs.docc/index.md",
    }
    assert {"Vapor.Routes", "Vapor.Routes.add(_:)"} <= _names(out)
    assert "warning" not in stderr


def test_a_dotnet_library_holding_the_docs_folder_is_read(tmp_path: Path) -> None:
    """Polly's shape: `docs/docfx.json` names `../src`'s projects; with `--api-source .` they
    are read, and the warning that they are outside the docs folder is not given."""
    repo = write_tree(
        tmp_path / "Polly",
        {
            "docs/docfx.json": '{"metadata": [{"src": [{"src": "../src", "files": '
            '["**/*.csproj"]}], "dest": "api"}]}',
            "docs/index.md": "# Polly\n\nRetry with `Retry.Execute`.\n",
            "src/Polly/Polly.csproj": '<Project Sdk="Microsoft.NET.Sdk"></Project>\n',
            "src/Polly/Retry.cs": "namespace Polly;\n\n/// <summary>Retries an action.</summary>\n"
            "public class Retry\n{\n    /// <summary>Runs it.</summary>\n"
            "    public void Execute(int times) { }\n}\n",
        },
    )
    out = tmp_path / "idx"
    stderr = _build(repo / "docs", out, "--api-source", repo)
    assert "warning" not in stderr
    assert set(page_texts(out)) == {"index.md", "Polly/src/Polly/Retry.cs"}
    assert any(n.endswith("Retry.Execute") or "Retry.Execute(" in n for n in _names(out))


def test_init_counts_the_entries_of_a_package_outside_the_docs_folder(tmp_path: Path) -> None:
    repo = _rocket(tmp_path / "Rocket")
    done = run_docsmcp("init", "--docs-dir", repo / "site/guide", "--api-source", repo / "core/lib")
    assert "validate: ok: 4 files" in done.stderr  # (before: 2 files, the guide's)
    assert "api: 0 entries" not in done.stderr


def test_dot_segments_are_removed_from_the_path_only() -> None:
    assert (
        without_dot_segments("https://h.test/o/r/blob/c/site/guide/../../core/x.rs#L1-L2")
        == "https://h.test/o/r/blob/c/core/x.rs#L1-L2"
    )
    assert without_dot_segments("https://h.test/a/./b/../../../c?x=../y") == (
        "https://h.test/c?x=../y"
    )


@FUZZ
@given(st.lists(st.sampled_from(["..", ".", "a", "b", ""]), max_size=12))
def test_dot_segments_never_stay(segments: list[str]) -> None:
    url = without_dot_segments("https://h.test/" + "/".join(segments) + "#L1")
    path = url.removeprefix("https://h.test").removesuffix("#L1")
    assert path.startswith("/") or path == ""
    assert not {".", ".."} & set(path.split("/"))
    assert without_dot_segments(url) == url
