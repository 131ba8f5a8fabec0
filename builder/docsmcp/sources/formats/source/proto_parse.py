"""A `.proto` file's declarations as protoc reads them: its package, and each message (fields,
oneofs, maps, nested messages and enums, extensions), enum (values) and service (RPCs, streaming
marked), with the comments protoc attaches (proto_lex.py) and the options a reader is shown
(`deprecated = true`, an RPC's `option (google.api.http) = {…}`).

proto2, proto3 and editions files parse alike (`required`, `group`, `optional`, `features.*`
options). Nothing is checked: what does not parse is skipped to the end of its statement (its
`;`, or its balanced `{…}`), so any text gives declarations, never an error. Nesting deeper than
MAX_DEPTH is skipped whole (bounded recursion).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from docsmcp.sources.formats.source.proto_lex import Token, lex

MAX_DEPTH = 32  # messages inside messages read, at most (protoc allows more; none is written)
SCALARS = frozenset(
    """double float int32 int64 uint32 uint64 sint32 sint64 fixed32 fixed64 sfixed32 sfixed64
    bool string bytes""".split()
)
_LABELS = frozenset({"repeated", "optional", "required"})
_CLOSE = frozenset("}])")


@dataclass
class Field:
    name: str
    type: str  # as written: `opentelemetry.proto.common.v1.KeyValue`, `map<string, Foo>`
    number: str
    label: str = ""  # "repeated", "optional", "required", or ""
    options: str = ""  # the `[…]` options as one line, without the brackets
    oneof: str = ""  # the oneof it belongs to
    doc: str = ""
    trailing: str = ""
    line: int = 0  # 0-based line of its first token
    deprecated: bool = False
    types: tuple[str, ...] = ()  # the message or enum types it names (a map's value too)


@dataclass
class Value:
    name: str
    number: str
    options: str = ""
    doc: str = ""
    trailing: str = ""
    line: int = 0
    deprecated: bool = False


@dataclass
class Rpc:
    name: str
    request: str
    response: str
    client_streaming: bool = False
    server_streaming: bool = False
    options: list[tuple[int, int]] = field(default_factory=list)  # (start, end) offsets
    doc: str = ""
    trailing: str = ""
    line: int = 0
    deprecated: bool = False


@dataclass
class Oneof:
    name: str
    doc: str = ""
    line: int = 0


@dataclass
class Decl:
    """A message, enum, service, or an `extend` block (`name` is the extended type)."""

    kind: str  # "message", "enum", "service", "extend"
    name: str
    doc: str = ""
    trailing: str = ""
    line: int = 0
    deprecated: bool = False
    fields: list[Field] = field(default_factory=list)
    values: list[Value] = field(default_factory=list)
    rpcs: list[Rpc] = field(default_factory=list)
    oneofs: list[Oneof] = field(default_factory=list)
    nested: list[Decl] = field(default_factory=list)


@dataclass
class ProtoFile:
    syntax: str = ""  # "proto2", "proto3", or "edition 2023"
    package: str = ""
    doc: str = ""  # the comment attached to `syntax` (or to `package` when it leads)
    deprecated: bool = False
    # `(udpa.annotations.file_status).package_version_status = FROZEN`: a package version
    # Envoy's and xDS's docs no longer publish (v2 beside v3)
    frozen: bool = False
    imports: list[str] = field(default_factory=list)
    options: dict[str, str] = field(default_factory=dict)  # file options of one plain value
    decls: list[Decl] = field(default_factory=list)


def _unquote(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text[0] in "\"'" and text[-1] == text[0] else text


class _Parser:
    def __init__(self, text: str, tokens: list[Token]) -> None:
        self.text = text
        self.t = tokens
        self.k = 0

    def peek(self, n: int = 0) -> str:
        k = self.k + n
        return self.t[k].text if k < len(self.t) else ""

    def next(self) -> Token | None:
        if self.k >= len(self.t):
            return None
        tok = self.t[self.k]
        self.k += 1
        return tok

    def eat(self, text: str) -> bool:
        if self.peek() == text:
            self.k += 1
            return True
        return False

    def skip_balanced(self) -> list[Token]:
        """The bracketed group opening at the current token, consumed (to its end when
        unclosed); a closing bracket that is not its own ends it too."""
        start = self.k
        depth = 0
        while self.k < len(self.t):
            text = self.t[self.k].text
            self.k += 1
            if text in "{[(":
                depth += 1
            elif text in _CLOSE:
                depth -= 1
                if depth <= 0:
                    break
        return self.t[start : self.k]

    def skip_statement(self) -> list[Token]:
        """Up to and with the statement's `;` or its `{…}` block; a `}` closing the scope is
        left for the scope."""
        start = self.k
        while self.k < len(self.t):
            text = self.peek()
            if text == ";":
                self.k += 1
                break
            if text == "}":
                break
            if text in "{[(":
                block = text == "{"
                self.skip_balanced()
                if block:
                    break
                continue
            self.k += 1
        return self.t[start : self.k]

    def type_name(self) -> str:
        parts = []
        if self.peek() == ".":
            parts.append(".")
            self.k += 1
        while self.k < len(self.t) and self.t[self.k].kind == "ident":
            parts.append(self.t[self.k].text)
            self.k += 1
            if (
                self.peek() == "."
                and self.k + 1 < len(self.t)
                and self.t[self.k + 1].kind == "ident"
            ):
                parts.append(".")
                self.k += 1
            else:
                break
        return "".join(parts)

    def options(self) -> tuple[str, bool]:
        """A `[…]` option list at the current token (consumed): its text and whether it says
        `deprecated = true`."""
        if self.peek() != "[":
            return "", False
        group = self.skip_balanced()
        inner = group[1:-1] if group[-1].text == "]" else group[1:]
        if not inner:
            return "", False
        # (as written, on one line: `(validate.rules).duration = {gt {}}`)
        return " ".join(self.text[inner[0].start : inner[-1].end].split()), _deprecated(inner)

    def statement_end(self) -> Token | None:
        """The `;` ending a declaration (consumed), or None where something else follows."""
        if self.peek() == ";":
            return self.next()
        return None

    # -- declarations ------------------------------------------------------------------

    def body(self, decl: Decl, depth: int) -> None:
        """The declarations of `decl` up to its `}` (consumed)."""
        while self.k < len(self.t):
            word = self.peek()
            if word == "}":
                self.k += 1
                return
            self.member(decl, depth)

    def member(self, decl: Decl, depth: int, oneof: str = "") -> None:
        first = self.t[self.k]
        word = first.text
        if word == ";":
            self.k += 1
        elif word == "option":
            stmt = self.skip_statement()
            if _deprecated(stmt[1:]):
                decl.deprecated = True
        elif word in ("message", "enum", "service", "extend") and (
            self.k + 1 < len(self.t) and self.t[self.k + 1].kind == "ident" or self.peek(1) == "."
        ):
            nested = self.declaration(depth + 1)
            if nested is not None:
                decl.nested.append(nested)
        elif word == "oneof" and decl.kind == "message" and self.peek(2) == "{":
            self.k += 1
            name = self.next()
            self.k += 1  # {
            one = Oneof(name.text if name else "", first.leading or "", first.line)
            decl.oneofs.append(one)
            while self.k < len(self.t) and self.peek() != "}":
                self.member(decl, depth, one.name)
            self.eat("}")
        elif word in ("reserved", "extensions") or decl.kind == "service" and word != "rpc":
            self.skip_statement()
        elif decl.kind == "enum":
            self.value(decl)
        elif decl.kind == "service":
            self.rpc(decl)
        else:
            self.field(decl, depth, oneof)

    def declaration(self, depth: int) -> Decl | None:
        first = self.next()
        assert first is not None
        name = self.type_name() if first.text == "extend" else (self.next() or first).text
        if self.peek() != "{" or depth > MAX_DEPTH:
            self.skip_statement()
            return None
        brace = self.next()
        assert brace is not None
        decl = Decl(first.text, name, first.leading or "", brace.trailing or "", first.line)
        self.body(decl, depth)
        return decl

    def value(self, decl: Decl) -> None:
        first = self.t[self.k]
        if first.kind != "ident" or self.peek(1) != "=":
            self.skip_statement()
            return
        self.k += 2
        number = ""
        if self.peek() == "-":
            number = "-"
            self.k += 1
        tok = self.next()
        number += tok.text if tok else ""
        options, deprecated = self.options()
        end = self.statement_end()
        if end is None:
            self.skip_statement()
        trailing = (end.trailing if end else None) or ""
        decl.values.append(
            Value(
                first.text, number, options, first.leading or "", trailing, first.line, deprecated
            )
        )

    def rpc(self, decl: Decl) -> None:
        first = self.next()
        assert first is not None
        name = self.next()
        sides: list[tuple[bool, str]] = []
        for _ in range(2):
            if sides and not self.eat("returns"):
                break
            if not self.eat("("):
                break
            stream = self.peek() == "stream" and self.peek(1) not in (")", ".")
            if stream:
                self.k += 1
            sides.append((stream, self.type_name()))
            if not self.eat(")"):
                break
        if name is None or name.kind != "ident" or len(sides) < 2:
            self.skip_statement()
            return
        rpc = Rpc(name.text, sides[0][1], sides[1][1], sides[0][0], sides[1][0])
        rpc.doc, rpc.line = first.leading or "", first.line
        if self.peek() == "{":
            brace = self.next()
            rpc.trailing = (brace.trailing if brace else "") or ""
            while self.k < len(self.t) and self.peek() != "}":
                start = self.t[self.k]
                stmt = self.skip_statement()
                if start.text == "option" and stmt:
                    rpc.options.append((start.start, stmt[-1].end))
                    rpc.deprecated = rpc.deprecated or _deprecated(stmt[1:])
                elif not stmt:
                    self.k += 1  # (a stray closing bracket)
            self.eat("}")
            self.eat(";")
        else:
            end = self.statement_end()
            rpc.trailing = ((end.trailing if end else None) or "") if end else ""
        decl.rpcs.append(rpc)

    def field(self, decl: Decl, depth: int, oneof: str) -> None:
        k0 = self.k
        first = self.t[self.k]
        label = ""
        if first.text in _LABELS and self.peek(1) not in ("=", ";"):
            label = first.text
            self.k += 1
        types: tuple[str, ...]
        if self.peek() == "group" and self.peek(2) == "=":  # proto2: a group is a message
            self.k += 1
            gname = self.next()
            group = Decl(
                "message", gname.text if gname else "", first.leading or "", "", first.line
            )
            self.k += 1  # =
            number = self.next()
            options, deprecated = self.options()
            if self.peek() == "{" and gname is not None and depth < MAX_DEPTH:
                self.k += 1
                self.body(group, depth + 1)
                decl.nested.append(group)
                name = gname.text.lower()
                decl.fields.append(
                    Field(name, gname.text, number.text if number else "", label, options,
                          oneof, first.leading or "", "", first.line, deprecated, (gname.text,))
                )  # fmt: skip
            else:
                self.skip_statement()
            return
        if self.peek() == "map" and self.peek(1) == "<":
            self.k += 2
            key = self.type_name()
            self.eat(",")
            value = self.type_name()
            self.eat(">")
            type_, types = f"map<{key}, {value}>", ((value,) if value not in SCALARS else ())
        else:
            type_ = self.type_name()
            types = (type_,) if type_ and type_ not in SCALARS else ()
        name = self.next()
        if not type_ or name is None or name.kind != "ident" or not self.eat("="):
            if not type_:
                self.k = k0  # (no type: the statement from its start, brackets balanced)
            elif name is not None and name.text == "}":
                self.k -= 1  # (the scope's end)
            self.skip_statement()
            if self.k == k0:
                self.k += 1
            return
        number = self.next()
        options, deprecated = self.options()
        end = self.statement_end()
        if end is None:
            self.skip_statement()
        decl.fields.append(
            Field(name.text, type_, number.text if number else "", label, options, oneof,
                  first.leading or "", (end.trailing if end else None) or "", first.line,
                  deprecated, types)
        )  # fmt: skip


def _deprecated(tokens: list[Token]) -> bool:
    """Whether an option list or statement (without `option`) sets `deprecated = true`."""
    texts = [t.text for t in tokens]
    for k in range(len(texts) - 2):
        if texts[k : k + 3] == ["deprecated", "=", "true"] and (k == 0 or texts[k - 1] in ",["):
            return True
    return False


def parse(text: str) -> ProtoFile:
    """The declarations of a `.proto` text (see the module docstring)."""
    text = text.removeprefix("\ufeff")
    p = _Parser(text, lex(text))
    out = ProtoFile()
    top = Decl("file", "")
    while p.k < len(p.t):
        first = p.t[p.k]
        word = first.text
        if word in ("syntax", "edition") and p.peek(1) == "=":
            stmt = p.skip_statement()
            value = _unquote(stmt[2].text) if len(stmt) > 2 else ""
            out.syntax = value if word == "syntax" else f"edition {value}"
            out.doc = out.doc or first.leading or ""
        elif word == "package":
            stmt = p.skip_statement()
            out.package = "".join(t.text for t in stmt[1:] if t.text != ";")
            out.doc = out.doc or (first.leading or "" if not out.syntax else "")
        elif word == "import":
            stmt = p.skip_statement()
            out.imports += [_unquote(t.text) for t in stmt if t.kind == "string"][:1]
        elif word == "option":
            stmt = p.skip_statement()
            inner = [t for t in stmt[1:] if t.text != ";"]
            if _deprecated(inner):
                out.deprecated = True
            texts = [t.text for t in inner]
            if "package_version_status" in texts and texts[-1:] == ["FROZEN"]:
                out.frozen = True
            if len(inner) == 3 and inner[1].text == "=" and inner[0].kind == "ident":
                out.options[inner[0].text] = _unquote(inner[2].text)
        elif word in ("message", "enum", "service", "extend"):
            decl = p.declaration(1)
            if decl is not None:
                out.decls.append(decl)
        elif word in "}])":
            p.k += 1  # (a stray closing bracket)
        else:
            p.member(top, 0) if word == ";" else p.skip_statement()
    return out
