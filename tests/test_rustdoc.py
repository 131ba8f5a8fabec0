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
from docsmcp.sources.formats.source.rust_uses import Use, scan
from docsmcp.sources.formats.source.rustdoc import header, rust_to_markdown
from docsmcp.sources.formats.source.rustdoc_text import doc_markdown, html_path
from docsmcp.sources.packages import rust_crate, rust_reexports
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
    # re-exported at the crate's root (`pub use self::routing::Router`): the path users type,
    # one entry of the section (rust_reexports.py)
    assert [api.names[i] for i in api.lookup("webkit::Router")] == ["webkit::Router"]
    (router,) = api.lookup("Router")
    assert api.rows[router] == api.rows[api.lookup("webkit::Router")[0]]

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


def test_a_link_to_a_module_file_is_a_reference_to_its_page(tmp_path: Path) -> None:
    """A guide's link to a code file that the bundle shows as a page (openai-node's api.md
    links each type to `./src/resources/completions.ts`, 81 links) is a reference to that page;
    it was ignored as a link to a source file. A link to code that is no page stays ignored,
    neither a reference nor a broken link."""
    root = _crate(tmp_path / "ws")
    (root / "README.md").write_text(
        "# webkit workspace\n\nThe [JSON extractor](webkit/src/json.rs) and an "
        "[example](webkit/examples/demo.rs).\n"
    )
    out = tmp_path / "idx"
    done = run_docsmcp("build", "--docs-dir", root, "--out", out)
    assert "demo.rs" not in done.stdout + done.stderr  # (code: no broken link reported)
    ids = pq.read_table(out / "chunks.parquet", columns=["id"]).column("id").to_pylist()
    refs = pq.read_table(out / "sections.parquet").column("references").to_pylist()
    readme = [r for i, r in zip(ids, refs, strict=True) if i.startswith("README.md")]
    assert [ids[r].split("#")[0] for r in readme[0]] == ["webkit/src/json.rs"]


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


# A workspace in clap's and tokio's shape: a facade crate re-exporting its core crate with a
# glob (`pub use clap_builder::*`), a type defined in a private module and re-exported by its
# public parent and the crate root (`Command`), one whose module is `pub(crate)` re-exported a
# level up (tokio's `net::TcpListener`), a function sharing its module's name re-exported behind
# a feature gate (`tokio::spawn`).
CORE = {
    "Cargo.toml": '[package]\nname = "front-core"\ndescription = "The core"\n',
    "src/lib.rs": """//! The core of front.
pub mod builder;
pub mod net;
pub mod task;

pub use crate::builder::Command;
cfg_rt! {
    pub use task::spawn;
}
#[doc(hidden)]
pub use crate::builder::Command as HiddenCommand;
""",
    "src/builder/mod.rs": "//! Builders.\nmod command;\npub use command::Command;\n",
    "src/builder/command.rs": """/// Build a command line; [`front::Command`] is the same.
pub struct Command {
    name: String,
}

impl Command {
    /// Add an argument.
    pub fn arg(self, name: &str) -> Self {
        self
    }
}
""",
    "src/net/mod.rs": "//! Networking.\npub mod tcp;\npub use tcp::listener::TcpListener;\n",
    "src/net/tcp/mod.rs": "//! TCP.\npub(crate) mod listener;\n/// A half.\npub struct ReadHalf;\n",
    "src/net/tcp/listener.rs": """/// A TCP socket server.
pub struct TcpListener;

impl TcpListener {
    /// Bind to an address.
    pub async fn bind(addr: &str) -> TcpListener {
        todo!()
    }
}
""",
    "src/task/mod.rs": "//! Tasks.\nmod spawn;\npub use spawn::spawn;\n",
    "src/task/spawn.rs": "/// Spawn a task.\npub fn spawn() {}\n",
}
FRONT = {
    "Cargo.toml": '[package]\nname = "front"\ndescription = "The facade"\n',
    "src/lib.rs": "//! The front crate: start with [`Command`].\npub use front_core::*;\n",
}


def _workspace(root: Path) -> Path:
    for folder, files in (("front-core", CORE), ("front", FRONT)):
        for name, text in files.items():
            (root / folder / name).parent.mkdir(parents=True, exist_ok=True)
            (root / folder / name).write_text(text)
    (root / "Cargo.toml").write_text('[workspace]\nmembers = ["front", "front-core"]\n')
    return root


def test_reexported_items_are_found_where_docs_rs_shows_them(tmp_path: Path) -> None:
    out = build_bundle(_workspace(tmp_path / "ws"), tmp_path / "idx")
    api = ApiRegistry(open_bundle(out))
    names = set(api.names)
    assert {
        "front_core::builder::Command",  # (its page: the module re-exporting it)
        "front_core::builder::Command::arg",
        "front_core::Command",  # re-exported at the root
        "front::Command",  # through the facade's glob: docs.rs inlines it in front
        "front::Command::arg",
        "front_core::net::TcpListener",  # not `net::tcp::TcpListener`: no such path
        "front_core::net::TcpListener::bind",
        "front_core::task::spawn",
        "front_core::spawn",  # (behind the feature gate)
        "front::spawn",
    } <= names, sorted(names)
    assert "front_core::net::tcp::TcpListener" not in names
    assert "front_core::Command::arg" not in names  # (a Re-exports line of its own crate)
    assert not {n for n in names if "HiddenCommand" in n}
    for asked, named in (
        ("front::Command", "front::Command"),
        ("front::Command::arg", "front::Command::arg"),
        ("Command::arg", "front_core::builder::Command::arg"),
        ("front_core::net::TcpListener::bind", "front_core::net::TcpListener::bind"),
        ("front::spawn", "front::spawn"),
    ):
        found = api.lookup(asked)
        assert [api.names[i] for i in found][:1] == [named], asked
    # one entry per section, whatever path finds it
    assert len(api.lookup("Command")) == 1 and len(api.lookup("arg")) == 1
    spec = api.spec(api.lookup("front::Command::arg")[0])
    assert spec["description"] == "Add an argument."
    # no page more: the facade's glob is no page of its items
    texts = page_texts(out)
    assert sum("Add an argument." in t for t in texts.values()) == 1
    # the intra-doc link written by the re-export's path lands on the item's section
    built = run_docsmcp("build", "--docs-dir", tmp_path / "ws", "--out", tmp_path / "i2", "--json")
    refs = json.loads(built.stdout)["references"]
    # (and front_core's Re-exports: `pub use crate::builder::Command;`, `pub use task::spawn;`)
    assert refs["resolved"] == refs["found"] == 4, refs


def test_reexport_table_of_a_workspace(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    paths = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    uses = rust_reexports.table(root, [root], paths)
    assert uses["front-core/src/builder/command.rs"] == {
        "Command": ("front_core::builder::Command", "front_core::Command", "front::Command")
    }
    assert uses["front-core/src/net/tcp/listener.rs"] == {
        "TcpListener": ("front_core::net::TcpListener",)
    }
    assert uses["front-core/src/task/spawn.rs"] == {
        "spawn": ("front_core::task::spawn", "front_core::spawn", "front::spawn")
    }


def test_use_trees() -> None:
    names = scan(
        """use std::fmt;
pub use self::a::{b, c as d, e::*, f::{self, g}, h as _};
pub(crate) use crate::x::Y;
#[cfg(test)]
pub use tests::T;
pub struct S { field: u8 }
pub fn f() { pub use inner::Z; }
impl S { pub fn method(&self) {} }
pub(crate) fn hidden() {}
cfg_net! { pub mod net; pub use net::Tcp; }
macro_rules! m { () => { pub use q::R; pub struct Q; } }
"""
    )
    assert names.uses == (
        Use(("std", "fmt"), "fmt", False, False),
        Use(("self", "a", "b"), "b", False, True),
        Use(("self", "a", "c"), "d", False, True),
        Use(("self", "a", "e"), "", True, True),
        Use(("self", "a", "f"), "f", False, True),
        Use(("self", "a", "f", "g"), "g", False, True),
        Use(("crate", "x", "Y"), "Y", False, False),
        Use(("net", "Tcp"), "Tcp", False, True),
    )
    assert names.items == {"S", "f", "net"}


@FUZZ
@given(st.text(alphabet='pubusecrateself::{},*as;#[]()!cfg_rtmodstructfn \n/"', max_size=300))
def test_use_scan_never_fails(text: str) -> None:
    names = scan(text)
    assert all(u.path and (u.glob or u.name) for u in names.uses)


def test_docs_rs_page_links_name_their_items() -> None:
    # Links written before intra-doc links, to docs.rs' pages relative to the module's page
    # (tokio's `../tokio/runtime/struct.Builder.html`), read as intra-doc links; a link to an
    # item's page on docs.rs stays a link and names the item too; a heading stays a link.
    lines, links = doc_markdown(
        [
            " A [Router](struct.Router.html), [spawn](../task/fn.spawn.html#examples) and",
            " [build](../runtime/struct.Builder.html#method.build), the [net] module.",
            " See [`State`] and [the guide](index.html#routing).",
            "",
            " [net]: ../net/index.html",
            " [`State`]: https://docs.rs/axum/0.8/axum/extract/struct.State.html",
        ],
        0,
        "",
        "tokio::sync",
    )
    assert lines[0] == "A Router, spawn and"
    assert lines[1] == "build, the net module."
    assert lines[2] == "See [`State`] and [the guide](index.html#routing)."
    assert "[`State`]: https://docs.rs/axum/0.8/axum/extract/struct.State.html" in lines
    assert [link.target for link in links] == [
        "tokio::sync::Router",
        "tokio::task::spawn",
        "tokio::runtime::Builder::build",
        "tokio::net",
        "axum::extract::State",
    ]


@FUZZ
@given(st.text(alphabet="./#abcstruct.fnhtmlindex_:/docs.rs", max_size=120), st.text(max_size=20))
def test_page_links_never_fail(target: str, module: str) -> None:
    found = html_path(target, module)
    assert found is None or (found[0] and not found[0].startswith("::"))


def test_items_a_macro_body_declares_are_read() -> None:
    # axum's `define_rejection!`/`composite_rejection!` bodies are items with their docs, as
    # docs.rs shows the types they make; a macro of code or patterns stays unread.
    text = "\n".join(
        [
            header("webkit", ["extract", "rejection"], ["extract", "rejection"]),
            "define_rejection! {",
            "    #[status = UNSUPPORTED_MEDIA_TYPE]",
            '    #[body = "Expected `Content-Type: application/json`"]',
            "    /// Rejection type used if the `Content-Type` header is missing.",
            "    pub struct MissingJsonContentType;",
            "}",
            "composite_rejection! {",
            "    /// Rejection used for `Json`.",
            "    pub enum JsonRejection {",
            "        JsonDataError,",
            "        MissingJsonContentType,",
            "    }",
            "}",
            "impl_service!(Router, Request);",
            "some_macro! { $name:ident => { pub struct $name; } }",
            "assert_impl! { pub_thing: u8 }",
        ]
    )
    page = rust_to_markdown("src/extract/rejection.rs", text)
    names = [e.name for e in page.api]
    assert names == [
        "webkit::extract::rejection",
        "webkit::extract::rejection::MissingJsonContentType",
        "webkit::extract::rejection::JsonRejection::JsonDataError",
        "webkit::extract::rejection::JsonRejection::MissingJsonContentType",
        "webkit::extract::rejection::JsonRejection",
    ], names
    assert "Rejection type used if the `Content-Type` header is missing." in page.text
