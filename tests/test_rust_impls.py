"""Rust `impl` blocks of a type defined in another file, named as docs.rs shows them
(rust_reexports.foreign_impls): tokio's `impl RngSeed` in `util/rand/rt_unstable.rs` (the type
in `util/rand.rs`, re-exported as `tokio::runtime::RngSeed`) made `tokio::RngSeed::from_bytes`,
a path that does not exist; tokio-util's `impl Either` in `net/mod.rs` made
`tokio_util::net::Either::accept`."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle
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
