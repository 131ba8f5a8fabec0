"""Items a file's own `macro_rules!` makes, read as docs.rs shows them (rust_macros.py): axum's
`top_level_handler_fn!(get, GET);` is `axum::routing::get`, which had no entry at all."""

from __future__ import annotations

from conftest import FUZZ
from docsmcp.sources.formats.source.rust_lex import tokens
from docsmcp.sources.formats.source.rust_macros import definitions, expand
from docsmcp.sources.formats.source.rustdoc import header, rust_to_markdown
from hypothesis import given
from hypothesis import strategies as st

# axum's shape: an arm per method giving the docs, a last arm making the function from them;
# `concat!`/`stringify!` docs; the same for methods inside `impl`; a call no arm matches.
METHOD_ROUTING = """//! Route to handlers by method.
macro_rules! top_level_handler_fn {
    (
        $name:ident, GET
    ) => {
        top_level_handler_fn!(
            /// Route `GET` requests to the given handler.
            ///
            /// # Example
            ///
            /// ```rust
            /// let app = Router::new().route("/", get(handler));
            /// ```
            $name,
            GET
        );
    };

    (
        $name:ident, $method:ident
    ) => {
        top_level_handler_fn!(
            #[doc = concat!("Route `", stringify!($method) ,"` requests to the given handler.")]
            $name,
            $method
        );
    };

    (
        $(#[$m:meta])+
        $name:ident, $method:ident
    ) => {
        $(#[$m])+
        pub fn $name<H, T, S>(handler: H) -> MethodRouter<S, Infallible>
        where
            H: Handler<T, S>,
        {
            on(MethodFilter::$method, handler)
        }
    };
}

macro_rules! chained_handler_fn {
    ($name:ident, $method:ident) => {
        #[doc = concat!("Chain a handler that accepts `", stringify!($method), "` requests.")]
        pub fn $name<H, T>(self, handler: H) -> Self {
            self.on(MethodFilter::$method, handler)
        }
    };
}

top_level_handler_fn!(get, GET);
top_level_handler_fn!(delete, DELETE);
top_level_handler_fn!();

/// A router by method.
pub struct MethodRouter;

impl MethodRouter {
    chained_handler_fn!(post, POST);
}
"""


def test_a_file_s_macros_make_its_items() -> None:
    text = header("web", ["routing"], ["routing"]) + "\n" + METHOD_ROUTING
    converted = rust_to_markdown("src/routing.rs", text)
    api = {e.name: e for e in converted.api}
    get = api["web::routing::get"]
    assert get.description == "Route `GET` requests to the given handler."
    assert get.signature.startswith(
        "pub fn get<H, T, S>(handler: H) -> MethodRouter<S, Infallible>"
    )
    assert get.examples and 'route("/", get(handler))' in get.examples[0].code
    assert (
        api["web::routing::delete"].description == "Route `DELETE` requests to the given handler."
    )
    post = api["web::routing::MethodRouter::post"]
    assert post.description == "Chain a handler that accepts `POST` requests."
    assert "### Example" in converted.text and "## Function get" in converted.text
    # placed at the call's line
    call = text.split("\n").index("top_level_handler_fn!(get, GET);")
    assert converted.line_map[get.line_start] == call
    assert not {n for n in api if "top_level" in n or "chained" in n}


def test_expansion_matches_as_macro_rules_does() -> None:
    toks = tokens(METHOD_ROUTING)
    macros = definitions(toks)
    assert [len(macros[n]) for n in ("top_level_handler_fn", "chained_handler_fn")] == [3, 1]
    call = tokens("/// Docs.\n/// More.\nput, PUT")
    made = expand(macros, "top_level_handler_fn", call)
    assert made is not None
    assert made.startswith('#[doc = " Docs."] #[doc = " More."] pub fn put<H, T, S>(handler: H)')
    assert expand(macros, "top_level_handler_fn", tokens("1 + 2")) is None
    assert expand(macros, "unknown", call) is None


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            ["$", "(", ")", "{", "}", "x", "$x", ":ident", ":ty", "*", "+", "?", ",", "=>", ";"]
        ),
        max_size=40,
    ),
    st.lists(st.sampled_from(["a", ",", "(", ")", "/// d", "1", "#", "[", "]"]), max_size=20),
)
def test_expansion_never_fails(pattern: list[str], call: list[str]) -> None:
    """Any definition and any call: an expansion or None, bounded, never an error."""
    body = " ".join(pattern)
    text = f"macro_rules! m {{ ({body}) => {{ m!({body}); pub fn f() {{}} }}; }}\n"
    macros = definitions(tokens(text))
    made = expand(macros, "m", tokens("\n".join(call)))
    assert made is None or len(made) < 1_000_000
    rust_to_markdown("src/lib.rs", text + "m!(" + " ".join(call) + ");\n")


def test_nested_repetitions_expand_run_by_run() -> None:
    """tokio's shape: a repetition inside a repetition, and a name used outside its own."""
    text = """macro_rules! each {
    ($($name:ident: $($ty:ident),*);*) => {
        $( $(#[doc = stringify!($ty)] pub fn $name() {})* )*
        pub fn all() { $($name)* }
    };
}
"""
    macros = definitions(tokens(text))
    made = expand(macros, "each", tokens("read: U8, I8; write: U16"))
    assert made is not None
    assert made.count("pub fn read()") == 2 and made.count("pub fn write()") == 1
    assert '#[doc = "U8"]' in made and '#[doc = "U16"]' in made
    assert made.endswith("pub fn all() { read write }")


def test_a_macro_calling_itself_many_times_ends() -> None:
    text = "macro_rules! m { () => { m!(); m!(); m!(); m!(); m!(); pub fn f() {} }; }\nm!();\n"
    converted = rust_to_markdown("src/lib.rs", text)
    assert len(converted.text) < 2_000_000
