"""The declarations of a Solidity file, as solidity-docgen and forge doc read them from solc's
AST: contracts, interfaces, libraries and abstract contracts with what they inherit (`is A,
B(args)`), and their functions, constructors, modifiers, events, errors, structs, enums, state
variables and user-defined value types; and the same at file level (free functions, constants,
structs, errors, events, `type X is uint256`).

Each declaration keeps its signature as written (the source's tokens up to its body or `;`,
whitespace collapsed, comments out), its parameters and return variables, its visibility and
the NatSpec comment solc attaches to its first token (solidity_lex.py). Bodies are skipped by
bracket matching, so nothing in a function's code is read; a brace inside parentheses (`S({a:
1})`) opens no body, and `import {A} from …;` and `using {f} for T;` are read to their `;`.

Linear: each token is looked at a bounded number of times; an unbalanced file ends at its end.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from docsmcp.sources.formats.source.solidity_lex import Token, lex

CONTRACT_KINDS = ("contract", "interface", "library")
FUNCTION_KINDS = ("function", "constructor", "fallback", "receive")
VISIBILITY = ("public", "external", "internal", "private")
_LOCATIONS = frozenset(("memory", "storage", "calldata", "transient"))
# Words of a parameter that are no name: its data location, `indexed`, `payable` after address.
_NO_NAME = _LOCATIONS | {"indexed", "payable"}
_FLAGS = frozenset(
    "view pure payable nonpayable constant immutable virtual override transient".split()
)
_OPEN = {"(": ")", "[": "]", "{": "}"}
MAX_DECLS = 20_000  # declarations read from one file, at most


@dataclass(frozen=True)
class Param:
    type: str  # as written, data location out (`string`, `mapping(address => uint256)`)
    name: str = ""
    location: str = ""  # memory, storage, calldata
    indexed: bool = False

    def written(self) -> str:
        words = [self.type, *(["indexed"] if self.indexed else [])]
        words += [self.location] if self.location else []
        return " ".join([*words, self.name] if self.name else words)


@dataclass
class Member:
    # function constructor fallback receive modifier event error struct enum variable type
    kind: str
    name: str
    signature: str
    line: int  # 0-based line of its first token
    end_line: int
    doc: str | None = None
    doc_line: int = -1
    params: tuple[Param, ...] = ()
    returns: tuple[Param, ...] = ()
    visibility: str = ""  # as written ("" where none: a state variable's default, internal)
    flags: tuple[str, ...] = ()  # view pure payable constant immutable virtual override
    fields: tuple[tuple[Param, str | None], ...] = ()  # a struct's members, with their comments
    values: tuple[tuple[str, str | None], ...] = ()  # an enum's values, with their comments
    value: str = ""  # a constant's or variable's initializer, as written
    type: str = ""  # a variable's type; a user-defined value type's underlying type


@dataclass
class Contract:
    kind: str  # contract interface library
    name: str
    signature: str
    line: int
    end_line: int
    doc: str | None = None
    doc_line: int = -1
    abstract: bool = False
    bases: tuple[str, ...] = ()  # as written, arguments out (`IERC20`, `Lib.Base`)
    members: list[Member] = field(default_factory=list)


@dataclass
class Unit:
    contracts: list[Contract] = field(default_factory=list)
    free: list[Member] = field(default_factory=list)  # file-level declarations
    imports: list[str] = field(default_factory=list)  # the paths imported, as written


def _match(tokens: list[Token], k: int, stop: int) -> int:
    """The index after the bracket that closes the one at `k` (or `stop`)."""
    depth = 0
    while k < stop:
        t = tokens[k].text
        if t in _OPEN and tokens[k].kind == "punct":
            depth += 1
        elif t in (")", "]", "}") and tokens[k].kind == "punct":
            depth -= 1
            if depth <= 0:
                return k + 1
        k += 1
    return stop


def _statements(tokens: list[Token], k: int, stop: int) -> list[tuple[int, int, int]]:
    """The statements of tokens[k:stop]: (start, header end, end); a statement ends at a `;`
    outside brackets, or after the body `{…}` it opens outside parentheses (header end: where
    that body starts; else the `;`)."""
    out: list[tuple[int, int, int]] = []
    start = k
    while k < stop:
        tok = tokens[k]
        text = tok.text if tok.kind == "punct" else ""
        if text in ("(", "["):
            k = _match(tokens, k, stop)
            continue
        if text == ";":
            if k > start:
                out.append((start, k, k + 1))
            k += 1
            start = k
            continue
        if text == "{":
            first = tokens[start].text if start < k else ""
            end = _match(tokens, k, stop)
            if first in ("import", "using"):  # (`import {A} from "x";`: no body)
                k = end
                continue
            out.append((start, k, end))
            k = start = end
            continue
        if text == "}":  # (a stray closing brace: skipped)
            k += 1
            start = k
            continue
        k += 1
    if start < stop:
        out.append((start, stop, stop))
    return out


def written(tokens: list[Token], k: int, stop: int) -> str:
    """tokens[k:stop] as the source writes them, whitespace and comments between them one
    space, none after an opening bracket or before a closing one or a comma."""
    out: list[str] = []
    for i in range(k, stop):
        t = tokens[i]
        gap = out and t.start > tokens[i - 1].end
        if gap and t.text not in (")", "]", ",", ";") and out[-1] not in ("(", "["):
            out.append(" ")
        out.append(t.text)
    return "".join(out)


def _split_commas(tokens: list[Token], k: int, stop: int) -> list[tuple[int, int]]:
    parts: list[tuple[int, int]] = []
    start = k
    while k < stop:
        t = tokens[k]
        if t.kind == "punct" and t.text in _OPEN:
            k = _match(tokens, k, stop)
            continue
        if t.kind == "punct" and t.text == ",":
            parts.append((start, k))
            start = k + 1
        k += 1
    if start < stop:
        parts.append((start, stop))
    return [(a, b) for a, b in parts if a < b]


def _param(tokens: list[Token], k: int, stop: int) -> Param:
    words = list(range(k, stop))
    name = ""
    last = tokens[stop - 1]
    if (
        len(words) >= 2
        and last.kind == "ident"
        and last.text not in _NO_NAME
        and tokens[stop - 2].text not in (".", "=>")
    ):
        name, stop = last.text, stop - 1
    location = ""
    indexed = False
    type_end = stop
    while type_end > k + 1 and tokens[type_end - 1].text in _NO_NAME - {"payable"}:
        word = tokens[type_end - 1].text
        if word == "indexed":
            indexed = True
        else:
            location = word
        type_end -= 1
    return Param(written(tokens, k, type_end), name, location, indexed)


def _params(tokens: list[Token], open_at: int, stop: int) -> tuple[tuple[Param, ...], int]:
    """The parameters in the parentheses opening at `open_at`, and the index after them."""
    if open_at >= stop or tokens[open_at].text != "(":
        return (), open_at
    end = _match(tokens, open_at, stop)
    inner = _split_commas(tokens, open_at + 1, end - 1)
    return tuple(_param(tokens, a, b) for a, b in inner), end


def _function(tokens: list[Token], k: int, head: int, end: int, kind: str) -> Member:
    first = tokens[k]
    name = kind if kind != "function" else ""
    at = k + 1
    if kind == "function" and at < head and tokens[at].kind == "ident":
        name, at = tokens[at].text, at + 1
    elif kind == "function":
        name = "fallback"  # (Solidity before 0.6: `function() external payable`)
    params, at = _params(tokens, at, head)
    returns: tuple[Param, ...] = ()
    visibility = ""
    flags: list[str] = []
    while at < head:
        t = tokens[at]
        if t.text == "returns":
            returns, at = _params(tokens, at + 1, head)
            continue
        if t.text in VISIBILITY:
            visibility = t.text
        elif t.text in _FLAGS:
            flags.append(t.text)
        at += 1
        if at < head and tokens[at].text == "(":  # (a modifier's or override's arguments)
            at = _match(tokens, at, head)
    return Member(
        kind,
        name,
        written(tokens, k, head),
        first.line,
        tokens[end - 1].line,
        first.doc,
        first.doc_line,
        params,
        returns,
        visibility,
        tuple(flags),
    )


def _struct_fields(
    tokens: list[Token], body: int, end: int
) -> tuple[tuple[Param, str | None], ...]:
    out = []
    for a, b, _ in _statements(tokens, body + 1, end - 1):
        out.append((_param(tokens, a, b), tokens[a].doc))
    return tuple(out)


def _enum_values(tokens: list[Token], body: int, end: int) -> tuple[tuple[str, str | None], ...]:
    parts = _split_commas(tokens, body + 1, end - 1)
    return tuple((written(tokens, a, b), tokens[a].doc) for a, b in parts)


def _variable(tokens: list[Token], k: int, head: int) -> Member | None:
    """A state variable or constant `T [visibility] [constant|immutable] name [= value]`."""
    eq = next((i for i in range(k, head) if tokens[i].text == "="), head)
    stop = eq
    while stop > k and tokens[stop - 1].kind != "ident":
        stop -= 1
    if stop <= k + 1:
        return None
    name = tokens[stop - 1].text
    type_end = stop - 1
    visibility = ""
    flags: list[str] = []
    while type_end > k + 1 and (
        tokens[type_end - 1].text in VISIBILITY or tokens[type_end - 1].text in _FLAGS
    ):
        word = tokens[type_end - 1].text
        if word in VISIBILITY:
            visibility = word
        else:
            flags.append(word)
        type_end -= 1
    value = written(tokens, eq + 1, head) if eq < head else ""
    first = tokens[k]
    return Member(
        "variable",
        name,
        written(tokens, k, head),
        first.line,
        tokens[head - 1].line,
        first.doc,
        first.doc_line,
        visibility=visibility,
        flags=tuple(reversed(flags)),
        value=value,
        type=written(tokens, k, type_end),
    )


def _member(tokens: list[Token], k: int, head: int, end: int) -> Member | None:
    first = tokens[k]
    word = first.text
    if first.kind != "ident" or word in ("pragma", "import", "using"):
        return None
    if word in FUNCTION_KINDS:
        if word == "function" and head > k + 1 and tokens[k + 1].text == "(" and end <= head + 1:
            return _variable(tokens, k, head)  # (a function-type state variable)
        return _function(tokens, k, head, end, word)
    if word in ("modifier", "event", "error") and k + 1 < head:
        name = tokens[k + 1].text
        params, after = _params(tokens, k + 2, head)
        flags = tuple(
            t.text for t in tokens[after:head] if t.text in ("virtual", "override", "anonymous")
        )
        return Member(
            word,
            name,
            written(tokens, k, head),
            first.line,
            tokens[end - 1].line,
            first.doc,
            first.doc_line,
            params,
            flags=flags,
        )
    if word in ("struct", "enum") and k + 1 < head:
        member = Member(
            word,
            tokens[k + 1].text,
            written(tokens, k, head),
            first.line,
            tokens[end - 1].line if end > k else first.line,
            first.doc,
            first.doc_line,
        )
        if head < end and tokens[head].text == "{":
            if word == "struct":
                member.fields = _struct_fields(tokens, head, end)
            else:
                member.values = _enum_values(tokens, head, end)
        return member
    if word == "type" and k + 3 < head + 1 and tokens[k + 2].text == "is":
        return Member(
            "type",
            tokens[k + 1].text,
            written(tokens, k, head),
            first.line,
            tokens[head - 1].line,
            first.doc,
            first.doc_line,
            type=written(tokens, k + 3, head),
        )
    return _variable(tokens, k, head)


def _bases(tokens: list[Token], k: int, head: int) -> tuple[str, ...]:
    """What `is A, B(args), L.C` names, arguments out."""
    out = []
    for a, b in _split_commas(tokens, k, head):
        stop = next((i for i in range(a, b) if tokens[i].text == "("), b)
        out.append(written(tokens, a, stop).replace(" ", ""))
    return tuple(x for x in out if x)


def _contract(tokens: list[Token], k: int, head: int, end: int) -> Contract | None:
    first = tokens[k]
    abstract = first.text == "abstract"
    at = k + 1 if abstract else k
    if at + 1 >= head or tokens[at].text not in CONTRACT_KINDS:
        return None
    name = tokens[at + 1].text
    is_at = next((i for i in range(at + 2, head) if tokens[i].text == "is"), head)
    # (solc >= 0.8.29's `layout at …` after the bases is no base)
    stop = next((i for i in range(is_at, head) if tokens[i].text == "layout"), head)
    bases = _bases(tokens, is_at + 1, stop) if is_at < head else ()
    contract = Contract(
        tokens[at].text,
        name,
        written(tokens, k, head),
        first.line,
        tokens[end - 1].line if end > k else first.line,
        first.doc,
        first.doc_line,
        abstract,
        bases,
    )
    if head < end and tokens[head].text == "{":
        for a, h, e in _statements(tokens, head + 1, end - 1):
            if len(contract.members) >= MAX_DECLS:
                break
            m = _member(tokens, a, h, e)
            if m is not None:
                contract.members.append(m)
    return contract


def parse(text: str) -> Unit:
    """The declarations of a Solidity text (see the module's docstring)."""
    tokens = lex(text)
    unit = Unit()
    count = 0
    for k, head, end in _statements(tokens, 0, len(tokens)):
        if count >= MAX_DECLS:
            break
        word = tokens[k].text
        if word == "import":
            unit.imports += [t.text[1:-1] for t in tokens[k:head] if t.kind == "string"][:1]
            continue
        if word in CONTRACT_KINDS or word == "abstract":
            found = _contract(tokens, k, head, end)
            if found is not None:
                unit.contracts.append(found)
                count += 1 + len(found.members)
            continue
        m = _member(tokens, k, head, end)
        if m is not None:
            unit.free.append(m)
            count += 1
    return unit
