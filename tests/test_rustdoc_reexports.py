"""What docs.rs shows of a crate's re-exports beyond their paths (test_rustdoc.py): a module's
*Re-exports* list, and `impl` blocks of a type defined in another file named by the type's path
(rust_reexports.foreign_impls): tokio's `impl RngSeed` in `util/rand/rt_unstable.rs` (the type
in `util/rand.rs`, re-exported as `tokio::runtime::RngSeed`) made `tokio::RngSeed::from_bytes`,
a path that does not exist; tokio-util's `impl Either` in `net/mod.rs` made
`tokio_util::net::Either::accept`."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, run_docsmcp
from docsmcp.sources.formats.source.rust_uses import scan
from docsmcp.sources.packages.rust_reexports import _inherent_owners
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

CRATE = {
    "Cargo.toml": '[package]\nname = "spinner"\ndescription = "A runtime"\n',
    "src/lib.rs": "//! A runtime.\npub mod either;\npub mod net;\npub mod runtime;\nmod util;\n",
    "src/runtime/mod.rs": "//! The runtime.\npub use crate::util::rand::RngSeed;\n",
    "src/util/mod.rs": "pub(crate) mod rand;\n",
    "src/util/rand.rs": """/// A seed for the runtime's random numbers.
pub struct RngSeed {
    s: u32,
}

cfg_unstable! {
    mod rt_unstable;
}
""",
    "src/util/rand/rt_unstable.rs": """use super::RngSeed;

impl RngSeed {
    /// Generates a seed from the provided byte slice.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        todo!()
    }
}

impl std::fmt::Display for RngSeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        todo!()
    }
}
""",
    "src/either.rs": "//! Either.\n/// One of two.\npub enum Either<L, R> {\n    Left(L),\n}\n",
    "src/net.rs": """//! Networking.
use crate::either::*;

impl<L, R> Either<L, R>
where
    L: Clone,
{
    /// Accepts a connection from either listener.
    pub async fn accept(&mut self) -> Option<L> {
        todo!()
    }
}
""",
}


def _crate(root: Path) -> Path:
    for name, text in CRATE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_methods_of_an_impl_in_another_file_are_named_by_their_type(tmp_path: Path) -> None:
    api = ApiRegistry(open_bundle(build_bundle(_crate(tmp_path / "spinner"), tmp_path / "idx")))
    names = set(api.names)
    assert {
        "spinner::runtime::RngSeed",
        "spinner::runtime::RngSeed::from_bytes",  # (through `use super::RngSeed`)
        "spinner::either::Either::accept",  # (through `use crate::either::*`)
    } <= names, sorted(names)
    assert "spinner::RngSeed::from_bytes" not in names
    assert "spinner::net::Either::accept" not in names
    assert not {n for n in names if n.endswith("::fmt")}  # (a trait impl: listed apart)
    found = api.lookup("RngSeed::from_bytes")
    assert [api.names[i] for i in found] == ["spinner::runtime::RngSeed::from_bytes"]
    assert api.spec(found[0])["description"] == "Generates a seed from the provided byte slice."


def test_inherent_impl_owners() -> None:
    text = (
        "impl<T: Into<Vec<u8>>> Foo<T> where T: Clone {}\n"
        "unsafe impl Send for Bar {}\n"
        "impl<'a> fmt::Display for Baz<'a> {}\n"
        "impl crate::x::Qux {}\n"
        "pub struct Local;\nimpl Local {}\n"
    )
    assert _inherent_owners(text) == {"Foo", "Qux"}


@FUZZ
@given(st.text(alphabet="impl<>{}; forwhere:&'a\nTFoo", max_size=200))
def test_impl_owners_never_fail(text: str) -> None:
    assert all(o.isidentifier() for o in _inherent_owners(text))


# axum's shape: `#[doc(no_inline)] pub use http;` (another crate, never inlined), an item of a
# private module re-exported at the root (inlined: no line), `#[doc(inline)]` (no line), and a
# public module's items re-exported by its parent (lines, as docs.rs lists axum::routing's `get`).
WEB = {
    "Cargo.toml": '[package]\nname = "web"\ndescription = "A web framework"\n',
    "src/lib.rs": """//! A web framework.
pub mod extract;
mod json;
pub mod routing;

#[doc(no_inline)]
pub use http;
pub use self::json::Json;
#[doc(inline)]
pub use self::routing::Router;
""",
    "src/json.rs": "/// JSON extractor and response.\npub struct Json;\n",
    "src/extract/mod.rs": "//! Extractors.\npub use crate::Json;\n",
    "src/routing/mod.rs": """//! Routing.
pub mod method_routing;

pub use self::method_routing::{get, MethodRouter as Method};

/// The router.
pub struct Router;
""",
    "src/routing/method_routing.rs": "pub fn get() {}\n/// A router.\npub struct MethodRouter;\n",
}


def test_a_module_lists_the_re_exports_docs_rs_does_not_inline(tmp_path: Path) -> None:
    root = tmp_path / "web"
    for name, text in WEB.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    texts = page_texts(build_bundle(root, tmp_path / "idx"))
    lib = texts["src/lib.rs"]
    assert "## Re-exports" in lib and "`pub use http;`" in lib
    assert "pub use self::json::Json" not in lib and "pub use self::routing::Router" not in lib
    routing = texts["src/routing/mod.rs"]
    assert "`pub use self::method_routing::get;`" in routing
    assert "`pub use self::method_routing::MethodRouter as Method;`" in routing
    assert routing.index("## Re-exports") < routing.index("## Struct Router")
    assert "`pub use crate::Json;`" in texts["src/extract/mod.rs"]
    # each line links to its item's section
    built = run_docsmcp("build", "--docs-dir", root, "--out", tmp_path / "i2", "--json")
    refs = json.loads(built.stdout)["references"]
    assert refs["resolved"] == refs["found"] == 3, refs


def test_doc_inline_attributes_are_read() -> None:
    uses = scan(
        "#[doc(inline)]\npub use a::B;\n#[doc(no_inline)]\npub use c;\npub use d::E;\n"
    ).uses
    assert [(u.name, u.inline) for u in uses] == [("B", "inline"), ("c", "no_inline"), ("E", "")]
