"""A GraphQL document's type-system definitions (the spec's *Type System*), read tolerantly.

What a docs explorer shows of a schema: the schema definition's root operation types, and each
scalar, object, interface, union, enum, input object and directive definition with its
description, fields (arguments, types, defaults), `implements`, union members, enum values,
directive locations and the directives applied (`@deprecated(reason:)`). `extend …` definitions
are read as definitions marked `extension`; sdl_page merges them into their type. Executable
definitions (operations, fragments) are skipped: a file of nothing else holds no definition.

Any text is read without an exception and in linear time: a token no rule expects is passed
over, a body's unmatched `{` runs to the end of the file, and nothing recurses (list types and
values are read by counting brackets).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from docsmcp.sources.formats.graphql.sdl_lex import Token, iter_tokens, tokens

TYPE_KEYWORDS = frozenset({"scalar", "type", "interface", "union", "enum", "input"})
SYSTEM_KEYWORDS = TYPE_KEYWORDS | {"schema", "directive", "extend"}
EXECUTABLE_KEYWORDS = frozenset({"query", "mutation", "subscription", "fragment"})
BUILTIN_SCALARS = frozenset({"String", "Int", "Float", "Boolean", "ID"})
MAX_DESCRIPTION = 20_000  # characters of one description kept


@dataclass(frozen=True)
class Directive:
    name: str  # without `@`
    text: str  # as written, `@deprecated(reason: "Use x")`
    args: tuple[tuple[str, str], ...]  # (name, value as written; a string's value unquoted)


@dataclass(frozen=True)
class InputValue:
    """An argument or an input object's field."""

    name: str
    type: str  # as written, whitespace removed: `[String!]!`
    type_name: str  # the named type inside it
    default: str | None
    description: str | None
    directives: tuple[Directive, ...]
    line: int


@dataclass(frozen=True)
class Field:
    """An object's or interface's field (`arguments` empty for an input object's)."""

    name: str
    arguments: tuple[InputValue, ...]
    type: str
    type_name: str
    description: str | None
    directives: tuple[Directive, ...]
    line: int


@dataclass
class Definition:
    kind: str  # schema | scalar | type | interface | union | enum | input | directive
    name: str  # "" for the schema definition
    description: str | None
    line: int
    extension: bool = False
    interfaces: list[str] = field(default_factory=list)
    directives: list[Directive] = field(default_factory=list)
    fields: list[Field] = field(default_factory=list)  # enum values: fields without a type
    inputs: list[InputValue] = field(default_factory=list)  # input fields, a directive's args
    members: list[str] = field(default_factory=list)  # a union's types
    locations: list[str] = field(default_factory=list)  # a directive's
    repeatable: bool = False
    operations: dict[str, str] = field(default_factory=dict)  # schema: query -> Type


def deprecation(directives: tuple[Directive, ...] | list[Directive]) -> str | None:
    """The reason `@deprecated` gives (the spec's default when none), None when not
    deprecated."""
    for d in directives:
        if d.name == "deprecated":
            return dict(d.args).get("reason") or "No longer supported"
    return None


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = tokens(text)
        self.n = len(self.toks)
        self.i = 0

    def peek(self, k: int = 0) -> Token | None:
        j = self.i + k
        return self.toks[j] if j < self.n else None

    def at(self, value: str, kind: str = "punct") -> bool:
        t = self.peek()
        return t is not None and t.kind == kind and t.value == value

    def take(self, value: str, kind: str = "punct") -> bool:
        if self.at(value, kind):
            self.i += 1
            return True
        return False

    def name(self) -> str | None:
        t = self.peek()
        if t is not None and t.kind == "name":
            self.i += 1
            return t.value
        return None

    def description(self) -> tuple[str | None, Token | None]:
        """A string description before a definition, field or value, else the legacy comment
        above the token that starts it; with that token."""
        t = self.peek()
        if t is not None and t.kind in ("string", "block"):
            self.i += 1
            return _clip(t.value), self.peek()
        return (_clip(t.comment) if t is not None else None), t

    def span(self, first: int) -> str:
        """The source text of tokens `first`..`i - 1`, whitespace runs one space."""
        if first >= self.i:
            return ""
        a, b = self.toks[first].start, self.toks[self.i - 1].end
        return " ".join(self.text[a:b].split())

    def balanced(self) -> None:
        """Pass over one value: a token, or a bracketed `[…]`/`{…}` with what it holds."""
        depth = 0
        while self.i < self.n:
            t = self.toks[self.i]
            self.i += 1
            if t.kind == "punct" and t.value in "[{(":
                depth += 1
            elif t.kind == "punct" and t.value in "]})":
                depth -= 1
            if depth <= 0:
                return

    def value(self) -> str:
        first = self.i
        t = self.peek()
        if t is None:
            return ""
        if t.kind == "punct" and t.value == "$":
            self.i += 1
            self.name()
        elif t.kind == "punct" and t.value in "[{":
            self.balanced()
        elif t.kind in ("string", "block"):
            self.i += 1
            return t.value
        else:
            self.i += 1
        return self.span(first)

    def type_ref(self) -> tuple[str, str]:
        """A type reference (`[Name!]!`) as written without whitespace, and its named type."""
        first = self.i
        opened = 0
        while self.take("["):
            opened += 1
        named = self.name() or ""
        while opened and self.i < self.n:
            if self.take("!"):
                continue
            if self.take("]"):
                opened -= 1
                continue
            break
        self.take("!")
        return self.span(first).replace(" ", ""), named

    def directives(self) -> list[Directive]:
        out: list[Directive] = []
        while self.at("@"):
            first = self.i
            self.i += 1
            name = self.name() or ""
            args: list[tuple[str, str]] = []
            if self.take("("):
                while self.i < self.n and not self.take(")"):
                    start = self.i
                    key = self.name()
                    if key is not None and self.take(":"):
                        args.append((key, self.value()))
                    if self.i == start:
                        self.i += 1
            out.append(Directive(name, self.span(first), tuple(args)))
        return out

    def input_values(self, close: str) -> list[InputValue]:
        """Arguments (`close` = `)`) or input fields (`}`), up to and past `close`."""
        out: list[InputValue] = []
        while self.i < self.n and not self.take(close):
            start = self.i
            desc, head = self.description()
            name = self.name()
            if name is not None and self.take(":"):
                type_text, named = self.type_ref()
                default = self.value() if self.take("=") else None
                dirs = self.directives()
                line = head.line if head is not None else 0
                out.append(InputValue(name, type_text, named, default, desc, tuple(dirs), line))
            if self.i == start:
                self.i += 1
        return out

    def fields(self) -> list[Field]:
        out: list[Field] = []
        while self.i < self.n and not self.take("}"):
            start = self.i
            desc, head = self.description()
            name = self.name()
            if name is not None:
                args = self.input_values(")") if self.take("(") else []
                if self.take(":"):
                    type_text, named = self.type_ref()
                    dirs = self.directives()
                    line = head.line if head is not None else 0
                    out.append(Field(name, tuple(args), type_text, named, desc, tuple(dirs), line))
            if self.i == start:
                self.i += 1
        return out

    def enum_values(self) -> list[Field]:
        out: list[Field] = []
        while self.i < self.n and not self.take("}"):
            start = self.i
            desc, head = self.description()
            name = self.name()
            if name is not None:
                dirs = self.directives()
                line = head.line if head is not None else 0
                out.append(Field(name, (), "", "", desc, tuple(dirs), line))
            if self.i == start:
                self.i += 1
        return out

    def names_joined(self, sep: str) -> list[str]:
        """`A & B & C` (implements) or `A | B` (union members, directive locations)."""
        out: list[str] = []
        self.take(sep)
        while (name := self.name()) is not None:
            out.append(name)
            if not self.take(sep):
                break
        return out

    def definition(self, kind: str, d: Definition) -> None:
        if kind in ("type", "interface"):
            if self.take("implements", "name"):
                d.interfaces = self.names_joined("&")
            d.directives = self.directives()
            if self.take("{"):
                d.fields = self.fields()
        elif kind == "input":
            d.directives = self.directives()
            if self.take("{"):
                d.inputs = self.input_values("}")
        elif kind == "enum":
            d.directives = self.directives()
            if self.take("{"):
                d.fields = self.enum_values()
        elif kind == "union":
            d.directives = self.directives()
            if self.take("="):
                d.members = self.names_joined("|")
        elif kind == "scalar":
            d.directives = self.directives()
        elif kind == "schema":
            d.directives = self.directives()
            if self.take("{"):
                while self.i < self.n and not self.take("}"):
                    start = self.i
                    op = self.name()
                    if op is not None and self.take(":"):
                        d.operations[op] = self.name() or ""
                    if self.i == start:
                        self.i += 1
        elif kind == "directive":
            if self.take("("):
                d.inputs = self.input_values(")")
            d.repeatable = self.take("repeatable", "name")
            if self.take("on", "name"):
                d.locations = self.names_joined("|")

    def document(self) -> list[Definition]:
        out: list[Definition] = []
        while self.i < self.n:
            start = self.i
            desc, head = self.description()
            t = self.peek()
            if t is None:
                break
            extension = t.kind == "name" and t.value == "extend"
            if extension:
                self.i += 1
                t = self.peek()
            if t is not None and t.kind == "name" and t.value in SYSTEM_KEYWORDS - {"extend"}:
                self.i += 1
                kind = t.value
                name = ""
                if kind == "directive":
                    self.take("@")
                if kind != "schema":
                    name = self.name() or ""
                d = Definition(kind, name, desc, (head or t).line, extension)
                self.definition(kind, d)
                if name or kind == "schema":
                    out.append(d)
            elif t is not None and (
                (t.kind == "name" and t.value in EXECUTABLE_KEYWORDS)
                or (t.kind == "punct" and t.value == "{")
            ):
                self.i += 1
                while self.i < self.n and not self.at("{"):
                    self.i += 1
                self.balanced()
            if self.i == start:
                self.i += 1
        return out


def _clip(text: str | None) -> str | None:
    if text is None:
        return None
    return text[:MAX_DESCRIPTION] if text.strip() else None


def parse(text: str) -> list[Definition]:
    """The type-system definitions of `text`, in the order written."""
    return _Reader(text).document()


def defines_types(text: str) -> bool:
    """Whether `text` holds a type-system definition (a schema file), not only executable
    documents (a client's queries and fragments): a definition keyword outside every bracket,
    followed by a name (`schema` by `{` or `@`). Stops at the first one, so a schema file costs
    its first tokens."""
    depth = 0
    before: Token | None = None  # the token before `prev` (an operation's or fragment's name)
    prev: Token | None = None
    for t in iter_tokens(text):
        if (
            depth == 0
            and prev is not None
            and prev.kind == "name"
            and not (
                before is not None and before.kind == "name" and before.value in EXECUTABLE_KEYWORDS
            )
        ):
            if prev.value in TYPE_KEYWORDS and t.kind == "name":
                return True
            if prev.value == "directive" and t.kind == "punct" and t.value == "@":
                return True
            if prev.value == "schema" and t.kind == "punct" and t.value in "{@":
                return True
        if t.kind == "punct" and t.value in "[{(":
            depth += 1
        elif t.kind == "punct" and t.value in "]})":
            depth = max(depth - 1, 0)
        before, prev = prev, t
    return False
