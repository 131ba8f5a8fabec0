"""What the Kotlin reader (kotlin_parse.py, kdoc.py) knows of a declaration besides walking
tokens: the `Decl` and `Unit` records, a declaration's tokens as one line of source (`joined`),
a class header's supertypes, and the modifiers Kotlin has.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from docsmcp.sources.formats.source.token_groups import Token

MODIFIERS = frozenset(
    "public protected private internal open final abstract sealed data inline value "
    "annotation enum override lateinit const suspend operator infix tailrec external expect "
    "actual companion inner noinline crossinline reified vararg".split()
)
VISIBILITY = ("public", "protected", "private", "internal")
_NO_SPACE_BEFORE = frozenset(")],.;?:")
_NO_SPACE_AFTER = frozenset("([.@!")


@dataclass
class Decl:
    # class, interface, object, enum, annotation, typealias; function, property, constructor, entry
    kind: str
    name: str
    line: int  # 0-based line of the declaration's first token (an annotation, a modifier)
    doc: str | None = None  # the KDoc comment's content
    doc_line: int = 0  # 0-based line where the doc comment starts
    modifiers: frozenset[str] = frozenset()
    annotations: tuple[tuple[str, str], ...] = ()  # (name, its source: `@Deprecated("x")`)
    declaration: str = ""  # one line, without body or initializer
    receiver: str = ""  # an extension's receiver type (`String`, `List<T>`)
    # (name, type, default) of a function's or constructor's parameters
    params: tuple[tuple[str, str, str], ...] = ()
    returns: str = ""  # a function's return type, a property's type
    members: list[Decl] = field(default_factory=list)
    supertypes: tuple[str, ...] = ()  # a class's, as written (`Call.Factory`, `Closeable`)
    expression: str = ""  # the first word of a function's expression body (`apply`)
    in_header: bool = False  # a property declared by a primary constructor's `val`/`var`
    body: tuple[int, int] = (0, 0)  # a function's block body: offsets inside its braces


@dataclass
class Unit:
    package: str = ""
    package_line: int = 0
    imports: dict[str, str] = field(default_factory=dict)  # simple name (or alias) -> qualified
    declarations: list[Decl] = field(default_factory=list)
    file_annotations: tuple[str, ...] = ()  # `@file:JvmName("Foo")`: the names


def is_type(decl: Decl) -> bool:
    return decl.kind in ("class", "interface", "object", "enum", "annotation")


def joined(toks: list[Token]) -> str:
    """Tokens as one line of Kotlin, spaced as people write it (`fun <T> List<T>.x(a: Int): T?`,
    `class A : B()`)."""
    out: list[str] = []
    prev = before = ""
    for k, t in enumerate(toks):
        s = " ".join(t.text.split()) if t.kind == "str" else t.text
        if s == "," and k + 1 < len(toks) and toks[k + 1].text in (")", "]", ">"):
            continue  # (a trailing comma)
        space = bool(out) and not (
            s in _NO_SPACE_BEFORE
            or prev in _NO_SPACE_AFTER
            or (s == "(" and prev not in (",", "=", ":", "->") and not _keyword(prev))
            or (s in "<>" and prev not in ("fun", ",", ":", "=", "->") and prev != ">")
            or (prev == "<" and toks[k - 1].kind == "punct")
            or s == "?."
        )
        if s == ":" and k > 0 and _type_colon(toks, k):
            space = True  # (`class A : B`, `where T : X`: a supertype's colon is spaced)
        if (s == ">" and prev == "-") or (
            prev in ("-", "+") and before in ("", "=", "(", "{", ",", ":", "return")
        ):
            space = False  # (`->`, a sign: `port: Int = -1`)
        out.append(" " if space else "")
        out.append(s)
        prev, before = s, prev
    return "".join(out)


def _keyword(word: str) -> bool:
    return word in ("if", "when", "while", "for", "catch", "init", "return")


def _type_colon(toks: list[Token], k: int) -> bool:
    """Whether the `:` at `toks[k]` introduces supertypes (after a class header's name or
    parameters) rather than a type."""
    depth = 0
    for j in range(k - 1, -1, -1):
        kind = toks[j].kind
        if kind == "close":
            depth += 1
        elif kind == "open":
            if depth == 0:
                return False
            depth -= 1
        elif depth == 0 and toks[j].text in ("class", "interface", "object", "where"):
            return True
        elif depth == 0 and toks[j].text in ("fun", "val", "var", ","):
            return False
    return False


def supertypes(toks: list[Token]) -> tuple[str, ...]:
    """`Call.Factory, WebSocket.Factory` of `: Call.Factory, WebSocket.Factory` (a call's
    arguments and generics left out, `where` clauses too)."""
    names: list[str] = []
    current = ""
    depth = 0
    skip = False
    for t in toks:
        if t.text == "where" and depth == 0:
            break
        if t.text == "<":
            depth += 1
        elif t.text == ">":
            depth -= 1
        elif depth == 0 and t.text == ",":
            names.append(current)
            current, skip = "", False
        elif depth == 0 and t.kind == "open":
            skip = True
        elif depth == 0 and not skip and (t.kind == "ident" or t.text == "."):
            current += t.text
    names.append(current)
    return tuple(n for n in names if n and n != "by")
