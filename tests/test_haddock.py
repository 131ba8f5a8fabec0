"""Haskell packages read as Haddock (Hackage's docs) shows them: each exposed module of a cabal
library is a page in its export list's order, with its sections, named chunks and each
exported declaration's comment in Haddock's markup, entries named as users write them
(`Data.Jsonish.decode`); other-modules, `OPTIONS_HADDOCK hide`, tests, executables, benchmarks
and `Setup.hs` are no pages, unexported names are not shown. The fixture is a package in the
shape of haskell/aeson (a top module re-exporting a hidden module's class and an exposed
module, sections and `-- $chunks`) with a test suite, an executable and a second, hpack
package in the shape of a servant monorepo.
"""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.formats.source.haddock import haskell_to_markdown
from docsmcp.sources.formats.source.haskell_lex import tokens, unlit
from docsmcp.sources.formats.source.haskell_parse import parse
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

CABAL = """cabal-version: 2.2
name:          jsonish
version:       1.0

common extensions
  default-extensions: OverloadedStrings
  hs-source-dirs: src

library
  import: extensions
  exposed-modules:
    Data.Jsonish
    Data.Jsonish.Types
    Data.Jsonish.Secret
  other-modules:
    Data.Jsonish.Class
  if flag(dev)
    exposed-modules: Data.Jsonish.Dev

test-suite spec
  type: exitcode-stdio-1.0
  hs-source-dirs: tests
  main-is: Spec.hs

executable jsonish-cli
  hs-source-dirs: app
  main-is: Main.hs
"""

TOP = """{-# LANGUAGE CPP #-}
{-|
Module:      Data.Jsonish
Copyright:   (c) 2024 Someone
License:     BSD3
Description: Fast JSON values for Haskell.

Types and functions for working with JSON data.
See "Data.Jsonish.Types" for the AST.
-}
module Data.Jsonish
    (
    -- * How to use this library
    -- $use

    -- * Decoding
      decode
    , (.:)
    -- ** Core classes
    , FromJSON(..)
    -- * Re-exports
    , module Data.Jsonish.Types
    ) where

import Data.Jsonish.Class (FromJSON(..))
import Data.Jsonish.Types

-- $use
-- Define an instance, then call 'decode':
--
-- >>> decode "[1,2]" :: Maybe [Int]
-- Just [1,2]
--
-- = Strictness
--
-- Values are /fully/ forced, __always__; see <https://example.org/json the spec>.

-- | Efficiently deserialize a JSON value from a lazy 'ByteString'.
-- If this fails, 'Nothing' is returned.
--
-- @since 1.2.0
decode :: FromJSON a
       => ByteString  -- ^ the encoded JSON
       -> Maybe a
decode = undefined

-- | Retrieve the value of a key of an 'Object'.
(.:) :: FromJSON a => Object -> Key -> Parser a
(.:) = undefined

-- | Not exported: no page shows it.
unexportedHelper :: Int -> Int
unexportedHelper = id
"""

CLASS = """module Data.Jsonish.Class (FromJSON(..)) where

-- | A type that can be converted from JSON.
--
-- @
-- instance 'FromJSON' Coord where
--   parseJSON = withObject \\"Coord\\" $ \\\\v -> Coord \\<$\\> v .: \\"x\\"
-- @
class FromJSON a where
    -- | Parse a value.
    parseJSON :: Value -> Parser a

    -- | Parse a list of values.
    parseJSONList :: Value -> Parser [a]
    parseJSONList = undefined
"""

TYPES = """-- | The JSON abstract syntax tree.
module Data.Jsonish.Types where

-- | A JSON value represented as a Haskell value.
data Value
  = Object !Object   -- ^ An object.
  | Array [Value]    -- ^ An array.
  | Null
  deriving (Eq, Show)

-- | Options of the encoder.
data Options = Options
    { fieldLabelModifier :: String -> String
      -- ^ Function applied to field labels.
    , omitNothingFields :: Bool  -- ^ Leave out fields whose value is 'Nothing'.
    }

-- | A key of an object.
newtype Key = Key { unKey :: Text }

type Object = KeyMap Value
"""

SECRET = """{-# OPTIONS_HADDOCK hide #-}
-- | Hidden from Haddock.
module Data.Jsonish.Secret (secretThing) where

-- | A secret.
secretThing :: Int
secretThing = 1
"""

HPACK = """name: servantish
library:
  source-dirs: src
  other-modules:
    - Servantish.Internal
"""

SERVER = """-- | Serving an API.
module Servantish.Server (serve, Handler) where

import Servantish.Internal (Handler)

-- | 'serve' allows you to implement an API and produce a wai 'Application'.
serve :: Proxy api -> Server api -> Application
serve = undefined
"""

INTERNAL = """module Servantish.Internal where

-- | The monad every handler runs in.
newtype Handler a = Handler { runHandler' :: ExceptT ServerError IO a }
"""


def _tree(root: Path) -> Path:
    return write_tree(
        root,
        {
            "README.md": "# jsonish\n\nA JSON library.\n",
            "jsonish/jsonish.cabal": CABAL,
            "jsonish/Setup.hs": "import Distribution.Simple\nmain = defaultMain\n",
            "jsonish/src/Data/Jsonish.hs": TOP,
            "jsonish/src/Data/Jsonish/Class.hs": CLASS,
            "jsonish/src/Data/Jsonish/Types.hs": TYPES,
            "jsonish/src/Data/Jsonish/Secret.hs": SECRET,
            "jsonish/src/Data/Jsonish/Dev.hs": "-- | Dev.\nmodule Data.Jsonish.Dev where\n\n"
            "-- | On.\ndevMode :: Bool\ndevMode = True\n",
            "jsonish/tests/Spec.hs": "-- | Tests.\nmodule Main where\n\n-- | t\nmain :: IO ()\n",
            "jsonish/app/Main.hs": "-- | The CLI.\nmodule Main where\n\nmain :: IO ()\n",
            "servantish/package.yaml": HPACK,
            "servantish/src/Servantish/Server.hs": SERVER,
            "servantish/src/Servantish/Internal.hs": INTERNAL,
            "snippets/Example.hs": "-- | A snippet.\nmodule Example where\nx :: Int\n",
        },
    )


def test_package_reads_as_haddock_shows_it(tmp_path: Path) -> None:
    out = build_bundle(_tree(tmp_path / "repo"), tmp_path / "idx")
    pages = page_texts(out)
    # Exposed modules only: no other-module, no hidden module, no test, executable, Setup.hs
    # or Haskell outside a package.
    assert set(pages) == {
        "README.md",
        "jsonish/src/Data/Jsonish.hs",
        "jsonish/src/Data/Jsonish/Types.hs",
        "jsonish/src/Data/Jsonish/Dev.hs",
        "servantish/src/Servantish/Server.hs",
    }
    top = pages["jsonish/src/Data/Jsonish.hs"]
    assert "# Data.Jsonish" in top
    assert "Fast JSON values for Haskell." in top and "Copyright" not in top
    assert "See `Data.Jsonish.Types` for the AST." in top
    # The export list's order: sections, the named chunk and its markup, declarations.
    order = ["## How to use this library", "Define an instance, then call `decode`",
             "## Decoding", "### decode", "### (.:)", "### Core classes", "#### FromJSON",
             "## Re-exports"]  # fmt: skip
    at = [top.index(x) for x in order]
    assert at == sorted(at)
    assert '```haskell\n>>> decode "[1,2]" :: Maybe [Int]\nJust [1,2]\n```' in top
    assert "### Strictness" in top  # (`= Heading` below the chunk's section)
    assert "Values are *fully* forced, **always**; see [the spec](https://example.org/json)." in top
    assert "```haskell\ndecode :: FromJSON a => ByteString -> Maybe a\n```" in top
    assert "*Since: 1.2.0*" in top
    assert "- `ByteString` — the encoded JSON" in top
    # A hidden module's class is shown where it is re-exported, methods with their comments,
    # the `@` block as code without its escapes.
    assert "- `parseJSON :: Value -> Parser a` — Parse a value." in top
    assert 'parseJSON = withObject "Coord" $ \\v -> Coord <$> v .: "x"' in top
    # An exposed module re-exported whole: a link to its page, its text not copied.
    assert "- module [`Data.Jsonish.Types`](Jsonish/Types.hs)" in top
    assert "Function applied to field labels" not in top
    assert "unexportedHelper" not in top
    types = pages["jsonish/src/Data/Jsonish/Types.hs"]
    # No export list: everything top-level; constructors and fields with their `-- ^`.
    assert "## Value" in types and "- `Object !Object` — An object." in types
    assert "- `fieldLabelModifier :: String -> String` — Function applied to field labels." in (
        types
    )
    assert "- `omitNothingFields :: Bool` — Leave out fields whose value is `Nothing`." in types
    server = pages["servantish/src/Servantish/Server.hs"]
    assert "## Handler" in server and "The monad every handler runs in." in server

    with McpSession(out) as s:
        found = s.call("get_api_reference", {"method": "Data.Jsonish.decode"})
        assert not found.is_error
        entry = found.structured_content["entries"][0]
        assert entry["signature"] == "decode :: FromJSON a => ByteString -> Maybe a"
        assert entry["description"].startswith("Efficiently deserialize a JSON value")
        for name in ("Data.Jsonish.FromJSON", "Data.Jsonish.parseJSON",
                     "Data.Jsonish.Types.fieldLabelModifier", "Data.Jsonish.Types.Object",
                     "Servantish.Server.Handler", "Data.Jsonish.Types.Value"):  # fmt: skip
            got = s.call("get_api_reference", {"method": name})
            assert not got.is_error and got.structured_content["entries"], name
            assert got.structured_content["entries"][0]["name"] == name
        for hidden in ("secretThing", "unexportedHelper", "Data.Jsonish.Secret.secretThing"):
            got = s.call("get_api_reference", {"method": hidden})
            assert got.is_error or not got.structured_content.get("entries"), hidden
        hits = s.call("search_docs", {"query": "deserialize a JSON value"})
        first = hits.structured_content["hits"][0]
        assert first["filepath"] == "jsonish/src/Data/Jsonish.hs"


def test_module_read_alone() -> None:
    # A module read without its package's modules (a page of no package the pass saw):
    # its own declarations; a re-exported name it cannot see is a line.
    page = haskell_to_markdown("Top.hs", TOP)
    assert "### decode {#v:decode}" in page.text and "### (.:) {#v:-46-:}" in page.text
    assert "- `FromJSON`" in page.text
    assert [e.name for e in page.api] == ["Data.Jsonish.decode", "Data.Jsonish..:"]
    assert haskell_to_markdown("Secret.hs", SECRET).text == ""


def test_parser_reads_declarations_as_haskell_declares_them() -> None:
    mod = parse(CLASS + TYPES.replace("module Data.Jsonish.Types where", ""))
    assert mod.name == "Data.Jsonish.Class"
    assert [(e.kind, e.text, e.subs) for e in mod.exports or []] == [("name", "FromJSON", ("..",))]
    kinds = [(d.kind, d.name) for d in mod.decls]
    assert kinds == [("class", "FromJSON"), ("data", "Value"), ("data", "Options"),
                     ("newtype", "Key"), ("type", "Object")]  # fmt: skip
    cls = mod.decls[0]
    assert [(m.kind, m.name) for m in cls.children] == [
        ("method", "parseJSON"),
        ("method", "parseJSONList"),
    ]
    assert [c.name for c in mod.decls[1].children] == ["Object", "Array", "Null"]
    opts = mod.decls[2].children[0]
    assert [(f.name, (f.doc or (0, ""))[1]) for f in opts.children] == [
        ("fieldLabelModifier", "Function applied to field labels."),
        ("omitNothingFields", "Leave out fields whose value is 'Nothing'."),
    ]


def test_lexer_reads_comments_strings_and_operators() -> None:
    toks = tokens("a --> b -- c\n{- {- x -} -} \"s -- \\\"\" 'x' foldl' {-# INLINE f #-}\n")
    assert [(t.kind, t.text) for t in toks] == [
        ("name", "a"),
        ("op", "-->"),
        ("name", "b"),
        ("str", '"s -- \\""'),
        ("char", "'x'"),
        ("name", "foldl'"),
        ("pragma", "INLINE f"),
    ]
    assert unlit("text\n> x = 1\n\\begin{code}\ny = 2\n\\end{code}\n") == "\n  x = 1\n\ny = 2\n\n"


@FUZZ
@given(
    st.text(
        alphabet="-{}|^$*@'\"\\()[],=:>#\n abcXYdatanewtypeclassmodulewhereimport",
        max_size=400,
    )
)
def test_reader_never_fails_on_any_text(text: str) -> None:
    tokens(text)
    page = haskell_to_markdown("src/A.hs", "module A where\n" + text)
    assert isinstance(page.text, str)
    assert len(page.line_map) == page.text.count("\n") + 1


def test_hostile_input_ends() -> None:
    assert isinstance(haskell_to_markdown("A.hs", "{-" * 20000).text, str)
    assert isinstance(haskell_to_markdown("A.hs", "(" * 20000 + "\n" + "-- |" * 5000).text, str)
    many = "module A where\n" + "".join(f"-- | d{k}\nf{k} :: Int\n" for k in range(3000))
    assert len(haskell_to_markdown("A.hs", many).api) == 3000
