"""Scala libraries read as the pages Scaladoc publishes (scala_project.py, scaladoc.py): which
files of an sbt or Mill build are pages, what a page shows, what Scaladoc hides, the entries
as users name them, and a reader that ends on any text."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.formats.source.scala_lex import tokenize
from docsmcp.sources.formats.source.scala_parse import parse
from docsmcp.sources.formats.source.scaladoc import scala_to_markdown
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.tools.app import DocsApp
from hypothesis import given
from hypothesis import strategies as st

_FUNCTOR = """\
package cats

import cats.data.Nested

/**
 * Functor.
 *
 * The name is short for "covariant functor". Must obey the laws of [[cats.laws.FunctorLaws]].
 *
 * =Laws=
 * '''Identity''' and ''composition'', see [[Functor.lift]] and [[Nested]].
 *  - `map(fa)(identity) == fa`
 *
 * @define tc Functor
 */
trait Functor[F[_]] extends Invariant[F] { self =>

  /** Maps over the $tc's values. */
  def map[A, B](fa: F[A])(f: A => B): F[B]

  /**
   * Lift a function f to operate on Functors
   *
   * @tparam A the input
   * @param f the function
   * @return the lifted function
   * @example {{{
   * scala> Functor[Option].lift((x: Int) => x + 10)(Option(42))
   * res0: Option[Int] = Some(52)
   * }}}
   * @see [[https://typelevel.org/cats/typeclasses/functor.html the guide]]
   * @since 1.0.0
   */
  def lift[A, B](f: A => B): F[A] => F[B] = map(_)(f)

  @deprecated("use void", "2.0.0")
  def discard[A](fa: F[A]): F[Unit] = void(fa)

  final def void[A](fa: F[A]): F[Unit] =
    map(fa)(_ => ())

  override def composeFunctor: Int = 1

  private def secret: Int = 1
  private[cats] def internal: Int = 2
  protected[this] def mine: Int = 3
}

object Functor {
  /** Summons the instance. */
  def apply[F[_]](implicit instance: Functor[F]): Functor[F] = instance
}
"""

_INVARIANT = """\
package cats

/** Must obey the laws of invariant functors. */
trait Invariant[F[_]] {
  /** Transform an `F[A]` into an `F[B]` given two functions. */
  def imap[A, B](fa: F[A])(f: A => B)(g: B => A): F[B]

  /** Composes two invariant functors. */
  def composeFunctor: Int = 0
}
"""

_SCALA3 = """\
package io.circe.derivation

/** How to name what derivation writes. */
enum Naming:
  /** As written. */
  case Identity
  case Snake, Kebab

/** The configuration of derived codecs.
 * @param useDefaults whether to read default values
 */
case class Configuration(useDefaults: Boolean = false):
  /** Member names in snake_case. */
  def withSnakeCaseMemberNames: Configuration = this

object Configuration:
  val default: Configuration = Configuration()

/** The default instance. */
given Configuration = Configuration.default

extension (c: Configuration)
  /** Whether defaults are read. */
  def readsDefaults: Boolean = c.useDefaults
"""

_BUILD = """\
lazy val core = crossProject(JVMPlatform, JSPlatform)
  .in(file("modules/core"))

lazy val tests = project
  .in(file("modules/tests"))
  .enablePlugins(NoPublishPlugin)

lazy val bench = project.enablePlugins(NoPublishPlugin)
"""


def _project(root: Path) -> Path:
    return write_tree(
        root,
        {
            "README.md": "# catty\n\nFunctional abstractions.\n",
            "build.sbt": _BUILD,
            "project/Build.scala": "object Build { /** Build code. */ def x = 1 }\n",
            "core/src/main/scala/cats/Functor.scala": _FUNCTOR,
            "core/src/main/scala/cats/Invariant.scala": _INVARIANT,
            # (a package object inheriting a trait: `cats.syntax.all` as users import it)
            "core/src/main/scala/cats/syntax/package.scala": (
                "package cats\n\n/** Syntax. */\npackage object syntax extends AllSyntax\n"
            ),
            "core/src/main/scala/cats/AllSyntax.scala": (
                "package cats\n\ntrait AllSyntax {\n  /** Shows anything. */\n"
                "  def show(x: Any): String = x.toString\n}\n"
            ),
            "core/src/test/scala/cats/FunctorSuite.scala": "/** Tests. */\nclass FunctorSuite\n",
            # (one file in two version folders: the newest Scala's is the page)
            "modules/core/shared/src/main/scala-3/io/circe/derivation/Configuration.scala": (
                _SCALA3
            ),
            "modules/core/shared/src/main/scala-2/io/circe/derivation/Configuration.scala": (
                "package io.circe.derivation\n/** Scala 2's. */\nclass Configuration\n"
            ),
            "modules/tests/src/main/scala/Fixtures.scala": "/** A fixture. */\nclass Fixtures\n",
            "bench/src/main/scala/Bench.scala": "/** A benchmark. */\nclass Bench\n",
        },
    )


def test_project_reads_as_scaladoc_shows_it(tmp_path: Path) -> None:
    out = build_bundle(_project(tmp_path / "catty"), tmp_path / "idx")
    pages = page_texts(out)
    # Main sources of published modules only: no tests, benchmarks, NoPublish modules, build
    # code, nor the Scala 2 copy of a file its Scala 3 folder holds.
    assert set(pages) == {
        "README.md",
        "core/src/main/scala/cats/Functor.scala",
        "core/src/main/scala/cats/Invariant.scala",
        "core/src/main/scala/cats/syntax/package.scala",
        "core/src/main/scala/cats/AllSyntax.scala",
        "modules/core/shared/src/main/scala-3/io/circe/derivation/Configuration.scala",
    }
    functor = pages["core/src/main/scala/cats/Functor.scala"]
    assert "# cats.Functor" in functor
    assert "```scala\ntrait Functor[F[_]] extends Invariant[F]\n```" in functor
    # Wiki syntax: bold, italic, a heading below the type's, links to sections of the page.
    assert "**Identity** and *composition*, see [`Functor.lift`](#Functor.lift)" in functor
    assert "## Laws" in functor or "### Laws" in functor
    # A $macro from the class's @define; the tags as their sections.
    assert "Maps over the Functor's values." in functor
    assert "**Type parameters:**\n\n- `A` - the input" in functor
    assert "- `f` - the function" in functor and "**Returns:** the lifted function" in functor
    assert "```scala\nscala> Functor[Option].lift" in functor
    assert "[the guide](https://typelevel.org/cats/typeclasses/functor.html)" in functor
    assert "**Since:** 1.0.0" in functor
    assert "**Deprecated.** use void (since 2.0.0)" in functor
    # The companion's members are the class's page; what Scaladoc hides is hidden.
    assert "Summons the instance." in functor
    for hidden in ("secret", "internal", "mine"):
        assert hidden not in functor, hidden
    # What it inherits from a type of another page: a line naming each member (a reference),
    # and an override without a comment shows its parent's.
    assert "**Inherited from `Invariant`:** `imap`" in functor
    assert "```scala\noverride def composeFunctor: Int\n```\n\nComposes two invariant" in functor
    # Not a body: the declaration ends where its body starts.
    assert "final def void[A](fa: F[A]): F[Unit]\n```" in functor
    syntax = pages["core/src/main/scala/cats/syntax/package.scala"]
    assert "# package cats.syntax" in syntax and "**Inherited from `AllSyntax`:** `show`" in syntax
    scala3 = pages["modules/core/shared/src/main/scala-3/io/circe/derivation/Configuration.scala"]
    assert "Scala 2's" not in scala3
    assert "case Snake" in scala3 and "As written." in scala3
    assert "val useDefaults: Boolean" in scala3 and "whether to read default values" in scala3
    assert "given Configuration" in scala3
    assert "extension (c: Configuration) def readsDefaults: Boolean" in scala3

    api = ApiRegistry(open_bundle(out))
    names = set(api.names)
    assert {
        "cats.Functor",
        "cats.Functor.map",
        "cats.Functor.lift",
        "cats.Functor.apply",
        "cats.Invariant.imap",
        "cats.Functor.imap",  # (inherited)
        "cats.syntax.show",  # (a package object's, inherited)
        "io.circe.derivation.Naming.Snake",
        "io.circe.derivation.Configuration.withSnakeCaseMemberNames",
        "io.circe.derivation.Configuration.default",
        "io.circe.derivation.Configuration.useDefaults",
        "io.circe.derivation.given_Configuration",
        "io.circe.derivation.readsDefaults",
    } <= names
    assert not {n for n in names if n.endswith((".secret", ".internal", ".mine"))}
    # The entry users name is found first, by its short name too.
    found = api.spec(api.lookup("cats.Functor")[0])
    assert found["kind"] == "type" and found["signature"].startswith("trait Functor")
    lift = api.spec(api.lookup("Functor.lift")[0])
    assert lift["name"] == "cats.Functor.lift"
    assert [(p["name"], p["type"]) for p in lift["parameters"]] == [("f", "A => B")]
    assert lift["returns"].startswith("F[A] => F[B]")


def test_runtime_answers_from_the_scaladoc_page(tmp_path: Path) -> None:
    app = DocsApp(open_bundle(build_bundle(_project(tmp_path / "catty"), tmp_path / "idx")))
    hits = app.call_tool("search_docs", {"query": "lift a function to operate on functors",
                                         "limit": 3})["structuredContent"]["hits"]  # fmt: skip
    assert hits[0]["chunk_id"].startswith("core/src/main/scala/cats/Functor.scala#")
    assert hits[0]["heading"] == "Functor.lift"
    found = app.call_tool("get_api_reference", {"method": "cats.Functor.map"})
    assert not found["isError"], found
    assert "def map[A, B](fa: F[A])(f: A => B): F[B]" in json.dumps(found["structuredContent"])
    missing = app.call_tool("get_api_reference", {"method": "cats.Functor.secret"})
    assert "def secret" not in json.dumps(missing.get("structuredContent") or {})


def test_file_read_alone() -> None:
    page = scala_to_markdown("core/src/main/scala/cats/Functor.scala", _FUNCTOR)
    assert page.title == "cats.Functor"
    # An undocumented override shows the overridden member's comment from a type of the
    # page; a reference to another page is recorded for the build.
    refs = {t for _, t in page.refs}
    assert "cats.laws.FunctorLaws" in refs and "cats.data.Nested" in refs
    other = scala_to_markdown(
        "x/A.scala",
        "package x\ntrait A { /** Doc of f. */ def f: Int }\nclass B extends A { def f = 1 }\n",
    )
    assert other.text.count("Doc of f.") == 2
    assert other.title == "x (A.scala)"


def test_lexer_reads_literals_and_comments_whole() -> None:
    src = 's"a${f("}")}b" """q"" """ \'{\' \'sym `a b` x_= /* /* } */ { */ y'
    toks = [(t.kind, t.text) for t in tokenize(src)]
    assert toks == [
        ("str", 's"a${f("}")}b"'),
        ("str", '"""q"" """'),
        ("str", "'{'"),
        ("op", "'"),
        ("id", "sym"),
        ("id", "`a b`"),
        ("id", "x_="),
        ("id", "y"),
    ]


def test_declarations_are_parsed_as_scala_declares_them() -> None:
    unit = parse(
        "package a\npackage b\n\nobject O:\n  def f(x: Int)(using y: Y): Int =\n    x\n"
        "  val v = 1\n  end O\n\nclass C[A](val a: A)\n    extends D\n    with E {\n"
        "  type T <: A\n}\npackage object p { type Id[A] = A }\n"
    )
    assert unit.package == "a.b"
    kinds = [(d.kind, d.name) for d in unit.decls]
    assert kinds == [("object", "O"), ("class", "C"), ("package", "p")]
    o = unit.decls[0]
    assert [(m.kind, m.name) for m in o.members] == [("def", "f"), ("val", "v")]
    assert o.members[0].params == (("x", "Int"), ("y", "Y"))
    c = unit.decls[1]
    assert c.parents == ("D", "E") and c.tparams == ("A",)
    assert [m.name for m in c.members] == ["T"]


@FUZZ
@given(
    st.text(
        alphabet="/*'\"$s\\(){}[]<>@;=,.:`\n abclassobjecttraitdefvalgivenextensionenumcase",
        max_size=400,
    )
)
def test_reader_never_fails_on_any_text(text: str) -> None:
    toks = tokenize(text)
    assert all(a.end <= b.start for a, b in zip(toks, toks[1:], strict=False))
    page = scala_to_markdown("src/main/scala/A.scala", "/** A. */\nclass A {\n" + text)
    assert isinstance(page.text, str)


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            [
                '"{"',
                's"${x("}")}"',
                '"""\n{\n"""',
                "'}'",
                "/* { /* } */ */",
                "// {\n",
                "{",
                "}",
                "x",
                "'s",
            ]  # fmt: skip
        ),
        max_size=40,
    )
)
def test_literals_and_comments_hide_their_brackets(parts: list[str]) -> None:
    toks = tokenize(" ".join(parts))
    expected = sum(p in ("{", "}") for p in parts)
    assert sum(t.kind in ("open", "close") for t in toks) == expected


def test_hostile_input_ends() -> None:
    deep = "class A {\n" * 3000 + "/** x */\ndef f = 1\n" + "}\n" * 3000
    assert isinstance(scala_to_markdown("src/main/scala/A.scala", deep).text, str)
    tokenize('s"${' * 20000)
    tokenize('s"""' + "${}" * 20000)
    tokenize("/*" * 20000)
    for chained in ("package a.b\n" * 3000, "package x {\n" * 3000, "class A:\n" * 3000):
        assert isinstance(scala_to_markdown("src/main/scala/A.scala", chained).text, str)
    # (one name declared over and over: anchors -2, -3… counted, not searched from -2)
    same = scala_to_markdown("src/main/scala/A.scala", "object A:\n" + "  def f = 1\n" * 3000)
    assert "{#A.f-3000}" in same.text
    many = "".join(f"/** $m{k} [[x{k}]] '''b''' */\ndef f{k} = 1\n" for k in range(3000))
    assert isinstance(scala_to_markdown("src/main/scala/A.scala", many).text, str)
