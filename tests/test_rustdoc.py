"""Rust crates read as docs.rs shows them: a library crate's modules (`src/**/*.rs` beside
`src/lib.rs`) are pages built from their `//!` and `///` doc comments, each public item an API
entry named by its rustdoc path, intra-doc links resolved to the item's section. The fixture is
a small workspace in the shape of axum (a crate whose `src/docs/*.md` are included with
`#[doc = include_str!]`, a private module re-exported at the root, an `examples/` folder) and
clap (a guide module, `_tutorial.rs`, including example code)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, page_texts, run_docsmcp
from docsmcp.sources.formats.source.rust_lex import tokens
from docsmcp.sources.formats.source.rustdoc import header, rust_to_markdown
from docsmcp.sources.formats.source.rustdoc_text import doc_markdown
from docsmcp.sources.packages import rust_crate
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

CARGO = """[package]
name = "webkit-core"
version = "0.1.0"
edition = "2021"
description = "A web framework"
license = "MIT"
"""

LIB_RS = """//! `webkit` is a web framework.
//!
//! # Routing
//!
//! Build a [`Router`] and [nest](Router::nest) routers; see [`routing`].
#![doc = include_str!("docs/intro.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod json;
pub mod routing;
#[doc(hidden)]
pub mod __private;
#[cfg(test)]
mod tests;

pub use self::json::Json;
pub use self::routing::Router;

/// Serve the app.
///
/// [`Router`]: crate::routing::Router
pub async fn serve(app: Router, port: u16) -> Result<(), Error> {
    todo!()
}

cfg_json! {
    /// Parse JSON (behind a feature, as tokio's `cfg_rt!` gates).
    pub fn parse_json() {}
}

pin_project_lite::pin_project! {
    /// A body read from a stream.
    pub struct StreamBody<S> {
        #[pin]
        stream: S,
    }
}

impl<S> StreamBody<S> {
    /// Create a body.
    pub fn new(stream: S) -> Self {
        todo!()
    }
}

/// Make a route from a handler.
#[macro_export]
macro_rules! route {
    ($h:expr) => { $crate::routing::Router::new() };
}

macro_rules! internal {
    () => {};
}

/// Errors of the framework.
#[derive(Debug)]
pub enum Error {
    /// The port was taken.
    Bind(std::io::Error),
    /// The handler panicked.
    Panic { message: String },
}
"""

ROUTING_RS = """//! Routing between handlers.

use crate::Json;

/// The router type for composing handlers.
///
/// See [`Router::with_state`] and [`Json`].
#[must_use]
pub struct Router<S = ()> {
    inner: Vec<S>,
    /// The prefix all routes share.
    pub prefix: String,
}

impl<S> Router<S>
where
    S: Clone,
{
    /// Create a new `Router`.
    pub fn new() -> Self {
        let s = "}{ not a brace";
        let c = '}';
        Self { inner: Vec::new(), prefix: String::new() }
    }

    #[doc = include_str!("../docs/nest.md")]
    #[track_caller]
    pub fn nest(self, path: &str, router: Self) -> Self {
        self
    }

    /// Provide the state.
    pub fn with_state<S2>(self, state: S) -> Router<S2> {
        todo!()
    }

    fn private_helper(&self) {}

    pub(crate) fn crate_only(&self) {}
}

impl<S> Clone for Router<S> {
    /// Not shown: a trait impl.
    fn clone(&self) -> Self {
        todo!()
    }
}

pub(crate) struct RouteId(usize);

impl RouteId {
    /// Not shown: the type is not public.
    pub fn next(&self) -> Self {
        todo!()
    }
}

/// Handlers of requests.
pub trait Handler<T>: Clone {
    /// Call the handler.
    fn call(self, req: Request) -> Response;
}
"""

JSON_RS = """/// JSON extractor and response.
///
/// ```rust
/// # use webkit::Json;
/// # fn main() {
/// let body = Json(42);
/// ## not hidden: a `#` line
/// # }
/// ```
pub struct Json<T>(pub T);
"""

NEST_MD = """Nest a [`Router`] at some path.

# Panics

If the path is empty.

# Example

```
# use webkit::Router;
let app = Router::new().nest("/api", Router::new());
```
"""

TUTORIAL_RS = """//! ## Tutorial for the builder API
//!
//! First, add the crate:
//! ```console
//! $ cargo add webkit
//! ```
//! ```rust
#![doc = include_str!("../examples/tutorial/01_quick.rs")]
//! ```
"""


def _crate(root: Path) -> Path:
    """A workspace in axum's and clap's shape."""
    root.mkdir(parents=True)
    (root / "Cargo.toml").write_text('[workspace]\nmembers = ["webkit"]\n')
    (root / "README.md").write_text("# webkit workspace\n\nThe repository's README.\n")
    crate = root / "webkit"
    (crate / "src/routing").mkdir(parents=True)
    (crate / "src/docs").mkdir()
    (crate / "examples/tutorial").mkdir(parents=True)
    (crate / "Cargo.toml").write_text(CARGO + '\n[lib]\nname = "webkit"\n')
    (crate / "src/lib.rs").write_text(LIB_RS)
    (crate / "src/routing/mod.rs").write_text(ROUTING_RS)
    (crate / "src/json.rs").write_text(JSON_RS)
    (crate / "src/__private.rs").write_text("/// Hidden.\npub fn secret() {}\n")
    (crate / "src/tests.rs").write_text("/// A test.\npub fn test_it() {}\n")
    (crate / "src/docs/intro.md").write_text("Read the [guide](https://example.com).\n")
    (crate / "src/docs/nest.md").write_text(NEST_MD)
    (crate / "src/_tutorial.rs").write_text(TUTORIAL_RS)
    with (crate / "src/lib.rs").open("a") as f:
        f.write("\n/// The tutorial.\npub mod _tutorial;\n")
    (crate / "examples/tutorial/01_quick.rs").write_text('fn main() {\n    println!("hi");\n}\n')
    (crate / "examples/demo.rs").write_text("/// An example, no page.\npub fn demo() {}\n")
    (crate / "src/main.rs").write_text("//! A binary.\nfn main() {}\n")
    # A workspace's example crate (publish = false) and a book's listing (no description):
    # code, no docs.rs pages.
    for folder, toml in (
        ("examples/chat", '[package]\nname = "chat"\npublish = false\ndescription = "x"\n'),
        ("listings/ch01", '[package]\nname = "hello"\nversion = "0.1.0"\n'),
    ):
        (root / folder / "src").mkdir(parents=True)
        (root / folder / "Cargo.toml").write_text(toml)
        (root / folder / "src/lib.rs").write_text("//! Example code.\n/// Run.\npub fn run() {}\n")
    return root


def test_crate_reads_as_docs_rs_shows_it(tmp_path: Path) -> None:
    out = build_bundle(_crate(tmp_path / "ws"), tmp_path / "idx")
    texts = page_texts(out)
    # Module files are pages; examples, the binary, tests, hidden modules and the included
    # markdown are not (the README of the workspace is).
    assert sorted(texts) == [
        "README.md",
        "webkit/src/_tutorial.rs",
        "webkit/src/json.rs",
        "webkit/src/lib.rs",
        "webkit/src/routing/mod.rs",
    ]
    lib = texts["webkit/src/lib.rs"]
    assert "`webkit` is a web framework." in lib
    assert "Read the [guide](https://example.com)." in lib  # (include_str! inlined)
    assert "pub async fn serve(app: Router, port: u16) -> Result<(), Error>" in lib
    assert "Make a route from a handler." in lib and "internal" not in lib
    assert "## Struct StreamBody" in lib and "## impl StreamBody" not in lib
    assert "### Error::Bind\n\n```rust\nBind(std::io::Error)\n```\n\nThe port was taken." in lib
    routing = texts["webkit/src/routing/mod.rs"]
    assert "Nest a `Router` at some path." in routing  # (the method's include_str!)
    assert 'let app = Router::new().nest("/api", Router::new());' in routing
    assert "# use webkit::Router;" not in routing  # a hidden line
    assert "private_helper" not in routing and "crate_only" not in routing
    assert "Not shown" not in routing  # (a trait impl's method, a crate-private type's)
    assert "`prefix`: The prefix all routes share." in routing and "`inner`" not in routing
    json_page = texts["webkit/src/json.rs"]
    assert "let body = Json(42);" in json_page and "# not hidden: a `#` line" in json_page
    assert "# fn main() {" not in json_page
    tutorial = texts["webkit/src/_tutorial.rs"]
    # (the included example keeps its indent, the guide's text loses the comment's space)
    assert 'fn main() {\n    println!("hi");\n}' in tutorial
    assert "\n$ cargo add webkit" in tutorial

    b = open_bundle(out)
    api = ApiRegistry(b)
    names = set(api.names)
    assert {
        "webkit",
        "webkit::routing",
        "webkit::routing::Router",
        "webkit::routing::Router::new",
        "webkit::routing::Router::nest",
        "webkit::routing::Handler",
        "webkit::routing::Handler::call",
        "webkit::serve",
        "webkit::route",
        "webkit::Error",
        "webkit::Json",  # (defined in the private `json` module, re-exported at the root)
        "webkit::Error::Panic",
        "webkit::parse_json",
        "webkit::StreamBody::new",
    } <= names
    assert not {n for n in names if "private_helper" in n or "secret" in n or "test_it" in n}
    assert "webkit::json" not in names  # (a private module: no page on docs.rs)
    nest = api.spec(api.lookup("Router::nest")[0])
    assert nest["name"] == "webkit::routing::Router::nest"
    assert nest["signature"] == "pub fn nest(self, path: &str, router: Self) -> Self"
    assert nest["parameters"][0]["name"] == "path"
    assert nest["examples"][0]["language"] == "rust"
    assert api.lookup("webkit::Router::nest") == api.lookup("Router::nest")
    # re-exported at the crate's root (`pub use self::routing::Router`): the crate's own item
    assert [api.names[i] for i in api.lookup("webkit::Router")] == ["webkit::routing::Router"]

    # The doc's own headings sit under the item's heading.
    chunks = pq.read_table(out / "chunks.parquet", columns=["path", "text"]).to_pylist()
    assert any("#### Panics" in c["text"] for c in chunks)
    # Intra-doc links resolve to the item's section, on another page too: lib.rs' `Router`,
    # `Router::nest`, `routing`, `Router` (defined); routing's `Router::with_state`, `Json`;
    # nest.md's `Router`.
    built = run_docsmcp(
        "build", "--docs-dir", tmp_path / "ws", "--out", tmp_path / "idx2", "--json"
    )
    refs = json.loads(built.stdout)["references"]
    assert refs["resolved"] >= 6, refs


def test_hidden_lines_and_links() -> None:
    lines, links = doc_markdown(
        [
            " See [`Router::nest`], [the router](crate::routing::Router) and [text][`serve`].",
            " Also [a page](https://example.com) and [default: 3].",
            "",
            " [`serve`]: crate::serve()",
            "",
            " ```no_run",
            " # use x::y;",
            " let a = 1;",
            " ```",
            " ```toml",
            " # a comment",
            " ```",
            " # Examples",
        ],
        2,
    )
    assert lines[0] == "See `Router::nest`, the router and text."
    assert lines[1] == "Also [a page](https://example.com) and [default: 3]."
    assert "```rust" in lines and "# use x::y;" not in lines and "let a = 1;" in lines
    assert "# a comment" in lines  # (TOML's comment: not a Rust block)
    assert "### Examples" in lines
    targets = {link.target for link in links}
    assert targets == {"Router::nest", "crate::routing::Router", "crate::serve"}


def test_module_without_docs_or_items_is_no_page() -> None:
    page = rust_to_markdown("src/util.rs", header("x", ["util"], []) + "\nfn helper() {}\n")
    assert page.text == ""


@FUZZ
@given(st.text(alphabet="/*!#[](){}<>'\"r#bpubfnstructimplmod;:= \n\\x_`", max_size=400))
def test_reader_never_fails_on_any_text(text: str) -> None:
    tokens(text)
    page = rust_to_markdown("src/lib.rs", header("c", [], []) + "\n" + text)
    assert isinstance(page.text, str)


def test_hostile_nesting_ends(tmp_path: Path) -> None:
    deep = "pub mod a {\n" * 5000 + "/// x\npub fn f() {}\n" + "}\n" * 5000
    page = rust_to_markdown("src/lib.rs", header("c", [], []) + "\n" + deep)
    assert isinstance(page.text, str)
    gates = "cfg_x! {\n" * 5000 + "pub fn f() {}\n" + "}\n" * 5000
    rust_to_markdown("src/lib.rs", header("c", [], []) + "\n" + gates)
    comments = "/*" * 20000 + "*/" * 19999
    rust_to_markdown("src/lib.rs", comments)


def test_included_file_keeps_its_indent() -> None:
    # rust_crate.expand writes an included file's lines as `//! line`: the space goes, the
    # file's own indent stays (clap's tutorials include example code inside a ```rust block).
    text = (
        header("c", ["_tutorial"], ["_tutorial"])
        + "\n"
        + "\n".join(
            [
                "//! Tutorial:",
                "//! ```rust",
                "//! fn main() {",
                "//!     run();",
                "//! }",
                "//! ```",
            ]
        )
    )
    page = rust_to_markdown("src/_tutorial.rs", text)
    assert "Tutorial:\n```rust\nfn main() {\n    run();\n}\n```" in page.text


def test_the_docs_folder_as_a_crate_is_read_without_a_description(tmp_path: Path) -> None:
    # A user's own crate (never published: no description) is what they asked to read.
    crate = tmp_path / "mycrate"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "my-crate"\nversion = "0.1.0"\n')
    (crate / "src/lib.rs").write_text("//! My crate.\n\n/// Add two numbers.\npub fn add() {}\n")
    b = open_bundle(build_bundle(crate, tmp_path / "idx"))
    assert ApiRegistry(b).names == ["my_crate", "my_crate::add"]


@FUZZ
@given(st.text(alphabet='#[]()pubmodcfgtestdochidden;{}! \n/*"', max_size=300))
def test_module_declarations_never_fail(text: str) -> None:
    assert isinstance(rust_crate._declared(text), dict)
