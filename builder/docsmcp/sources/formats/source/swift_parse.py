"""The declarations of a Swift file (swift_lex.py's tokens), as DocC's symbol graph names them,
for the DocC reader of Swift sources (swiftdoc.py).

A declaration is read from its attributes and modifiers to its body's `{` (or the end of its
statement: a `;`, or a new line that does not continue it), so a signature over several lines
is one. Types (`class`, `struct`, `enum`, `protocol`, `actor`, `extension`) are read with
their members; the bodies of functions, initializers, subscripts and computed properties are
skipped whole (their braces counted: strings and comments are single tokens). Names are DocC's:
`run()`, `parse(_:)`, `init(name:help:)`, `subscript(_:)`, `+(_:_:)`, an enum case's name.

Nothing is compiled: a declaration is what its keyword says. At most MAX_DECLS declarations a
file and MAX_NESTING types deep; what is beyond is not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docsmcp.sources.formats.source.swift_lex import Token, tokens

MAX_DECLS = 5_000
MAX_NESTING = 12
TYPE_KEYWORDS = frozenset({"class", "struct", "enum", "protocol", "actor", "extension"})
MEMBER_KEYWORDS = frozenset(
    {"func", "init", "subscript", "var", "let", "case", "typealias", "associatedtype", "macro"}
)
_SKIPPED_KEYWORDS = frozenset({"deinit", "import", "operator", "precedencegroup"})
MODIFIERS = frozenset(
    "public open internal private fileprivate package static class final override mutating "
    "nonmutating convenience required lazy weak unowned dynamic optional indirect nonisolated "
    "consuming borrowing distributed prefix postfix infix isolated".split()
)
# A token that goes on the statement of the line above (`-> Int`, `where T: P`, `, b: Int`).
_GOES_ON = frozenset({"->", "throws", "rethrows", "async", "where", ":", ",", "=", ".", "&", "?"})
_ENDS_WITH = frozenset({",", ":", "->", "=", "(", "[", "&", "where"})


@dataclass
class Decl:
    kind: str  # a keyword: struct, class, enum, protocol, actor, extension, func, init, ...
    name: str  # DocC's: `Option`, `run()`, `init(name:help:)`, `wrappedValue`
    modifiers: frozenset[str]
    attributes: tuple[str, ...]
    declaration: str  # the source of the declaration, white space collapsed
    doc: str | None
    line: int  # 0-based line of its doc comment (else of the declaration)
    params: tuple[tuple[str, str, str], ...] = ()  # (label, name, type) of a function's
    returns: str = ""  # a function's `-> T`, a property's type
    members: list[Decl] = field(default_factory=list)
    end_line: int = 0  # 0-based line of its end


@dataclass
class _Reader:
    source: str
    toks: list[Token]
    count: int = 0


def parse(source: str) -> list[Decl]:
    """The top-level declarations of `source`, with their members."""
    r = _Reader(source, tokens(source))
    decls, _ = _body(r, 0, 0)
    return decls


def _skip_group(toks: list[Token], i: int) -> int:
    """The index after the bracketed group opening at `i` (to the end when unclosed)."""
    depth = 0
    n = len(toks)
    while i < n:
        k = toks[i].kind
        if k == "open":
            depth += 1
        elif k == "close":
            depth -= 1
            if depth <= 0:
                return i + 1
        i += 1
    return n


def _body(r: _Reader, i: int, nesting: int) -> tuple[list[Decl], int]:
    """The declarations from `i` up to the `}` closing the body (or the end); the index
    after that `}`."""
    toks = r.toks
    n = len(toks)
    out: list[Decl] = []
    doc: Token | None = None
    while i < n:
        t = toks[i]
        if t.kind == "doc":
            doc = t
            i += 1
            continue
        if t.kind == "close":
            if t.text == "}":
                return out, i + 1
            i += 1  # (a stray `)` or `]`: never the body's end)
            continue
        start = i
        attrs: list[str] = []
        mods: set[str] = set()
        while i < n:
            t = toks[i]
            if t.kind == "attr":
                attrs.append(t.text)
            elif t.kind == "word" and t.text in MODIFIERS and not _is_keyword_here(toks, i):
                mods.add(t.text)
                if i + 1 < n and toks[i + 1].text == "(":  # `private(set)`
                    i = _skip_group(toks, i + 1) - 1
            else:
                break
            i += 1
        if i >= n:
            break
        t = toks[i]
        if t.kind == "word" and (t.text in TYPE_KEYWORDS or t.text in MEMBER_KEYWORDS):
            if r.count >= MAX_DECLS:
                return out, n
            head_end = _statement_end(toks, i + 1)
            decl = _declaration(r, start, i, head_end, attrs, mods, doc)
            i = head_end
            if i < n and toks[i].text == "{":
                if t.text in TYPE_KEYWORDS and nesting < MAX_NESTING:
                    decl.members, i = _body(r, i + 1, nesting + 1)
                else:
                    accessors = _accessors(toks, i)
                    if accessors and t.text in ("var", "subscript"):
                        decl.declaration += f" {{ {accessors} }}"
                    i = _skip_group(toks, i)
            decl.end_line = toks[min(i, n) - 1].line
            for d in _split_cases(decl) if t.text == "case" else [decl]:
                r.count += 1
                out.append(d)
            doc = None
            continue
        doc = None
        if t.kind == "word" and t.text in _SKIPPED_KEYWORDS:
            i = _statement_end(toks, i + 1)
            if i < n and toks[i].text == "{":
                i = _skip_group(toks, i)
            continue
        if t.kind == "open":  # (`#if os(Linux)`, a statement's call: skipped whole)
            i = _skip_group(toks, i)
            continue
        i = max(i, start) + 1 if i == start else i
    return out, n


def _is_keyword_here(toks: list[Token], i: int) -> bool:
    """Whether the modifier-looking word at `i` is the declaration's keyword: `class Foo`
    (a type), not `class func` / `class var`."""
    t = toks[i]
    if t.text != "class":
        return False
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    return nxt is None or not (
        nxt.kind == "word" and (nxt.text in MODIFIERS or nxt.text in MEMBER_KEYWORDS)
    )


def _statement_end(toks: list[Token], i: int) -> int:
    """The index of the `{` opening a declaration's body, or of the token after its end."""
    n = len(toks)
    depth = 0
    prev = toks[i - 1].text if i > 0 else ""
    while i < n:
        t = toks[i]
        if t.kind == "doc":
            return i
        if depth == 0:
            if t.text == "{" or t.text == ";" or t.kind == "close":
                return i if t.text != ";" else i + 1
            if t.first and t.text not in _GOES_ON and prev not in _ENDS_WITH:
                return i
        if t.kind == "open":
            depth += 1
        elif t.kind == "close":
            depth -= 1
        prev = t.text
        i += 1
    return n


def _accessors(toks: list[Token], i: int) -> str:
    """`get set` of a protocol's `{ get set }` (or ``), read from the `{` at `i`."""
    words = []
    for t in toks[i + 1 : i + 8]:
        if t.text == "}":
            return " ".join(words)
        if t.text not in ("get", "set", "async", "throws", "mutating", "nonmutating"):
            return ""
        words.append(t.text)
    return ""


def _declaration(
    r: _Reader,
    start: int,
    at: int,
    end: int,
    attrs: list[str],
    mods: set[str],
    doc: Token | None,
) -> Decl:
    toks = r.toks
    kw = toks[at].text
    last = toks[end - 1] if end - 1 > at else toks[at]
    source_end = last.start + len(last.text)
    text = " ".join(r.source[toks[start].start : source_end].split())
    line = doc.line if doc is not None else toks[start].line
    head = toks[at + 1 : end]
    name, params, returns = _name(kw, head)
    return Decl(
        kind=kw,
        name=name,
        modifiers=frozenset(mods),
        attributes=tuple(attrs),
        declaration=text,
        doc=doc.text if doc is not None else None,
        line=line,
        params=params,
        returns=returns,
        end_line=last.line,
    )


def _name(kw: str, head: list[Token]) -> tuple[str, tuple[tuple[str, str, str], ...], str]:
    """DocC's name of a declaration from the tokens after its keyword, its parameters and its
    return (or property) type."""
    if kw in ("init", "subscript"):
        base, k = kw, 0
        if head and head[0].text in ("?", "!"):
            k = 1
    elif kw == "func":
        k = 0
        parts = []
        operator = bool(head) and head[0].kind == "punct"
        while k < len(head) and head[k].text != "(" and (operator or head[k].text != "<"):
            if operator and parts and head[k].start != head[k - 1].start + len(head[k - 1].text):
                break  # (`static func == <T>(…)`: the operator ends at a space)
            parts.append(head[k].text)
            k += 1
        base = "".join(parts)
    else:
        word = next((t.text for t in head if t.kind == "word"), "")
        if kw in TYPE_KEYWORDS:  # (`extension Foo.Bar where …`: the dotted name)
            dotted: list[str] = []
            for t in head:
                want_word = not dotted or dotted[-1] == "."
                if (t.kind == "word") if want_word else (t.text == "."):
                    dotted.append(t.text)
                else:
                    break
            word = "".join(dotted) or word
        returns = ""
        if kw in ("var", "let") and len(head) > 2 and head[1].text == ":":
            returns = _type_text(head[2:])
        return word.strip("`"), (), returns
    if k < len(head) and head[k].text == "<":
        k = _skip_angles(head, k)
    if k >= len(head) or head[k].text != "(":
        return base, (), ""
    close = k + _skip_group(head[k:], 0)
    params = _params(head[k + 1 : close - 1], kw)
    if kw == "func" and base and not (base[0].isalpha() or base[0] in "_`"):
        params = tuple(("_", n, t) for _, n, t in params)  # (an operator's take no labels)
    rest = head[close:]
    returns = ""
    for j, t in enumerate(rest):
        if t.text == "->":
            returns = _type_text(rest[j + 1 :], stop=("where",))
            break
    labels = "".join(f"{p[0]}:" for p in params)
    return f"{base}({labels})", params, returns


def _skip_angles(head: list[Token], k: int) -> int:
    depth = 0
    while k < len(head):
        if head[k].text == "<":
            depth += 1
        elif head[k].text == ">":
            depth -= 1
            if depth == 0:
                return k + 1
        elif head[k].text == "->":  # (`->` is one token: never an angle)
            pass
        k += 1
    return k


def _params(toks: list[Token], kw: str) -> tuple[tuple[str, str, str], ...]:
    out = []
    for part in _split(toks, ","):
        colon = next((j for j, t in enumerate(part) if t.text == ":"), None)
        if colon is None:
            continue
        words = [t.text.strip("`") for t in part[:colon] if t.kind == "word"]
        if not words:
            continue
        if len(words) >= 2:
            label, name = words[0], words[1]
        else:
            label, name = ("_" if kw == "subscript" else words[0]), words[0]
        out.append((label, name, _type_text(part[colon + 1 :])))
    return tuple(out)


def _split(toks: list[Token], sep: str) -> list[list[Token]]:
    parts: list[list[Token]] = [[]]
    depth = 0
    for t in toks:
        if t.kind == "open" or t.text == "<":
            depth += 1
        elif t.kind == "close" or t.text == ">":
            depth -= 1
        if t.text == sep and depth == 0:
            parts.append([])
        else:
            parts[-1].append(t)
    return [p for p in parts if p]


_SPACED = re.compile(r"\s*([,:])\s*")


def _type_text(toks: list[Token], stop: tuple[str, ...] = ()) -> str:
    """A type written by its tokens, up to a default value (`= …`) or `stop`."""
    words = []
    depth = 0
    for t in toks:
        if depth == 0 and (t.text == "=" or t.text in stop):
            break
        if t.kind == "open":
            depth += 1
        elif t.kind == "close":
            depth -= 1
        words.append(t.text)
    text = " ".join(words)
    text = re.sub(r"\s*([<>\[\]().?!])\s*", r"\1", text)
    text = _SPACED.sub(lambda m: m.group(1) + " ", text).replace(" -> ", "->")
    return text.replace("->", " -> ").strip()


def _split_cases(decl: Decl) -> list[Decl]:
    """`case a, b(Int)`: one declaration per case."""
    text = decl.declaration
    at = text.find("case ")
    if at < 0:
        return [decl]
    prefix, body = text[: at + 5], text[at + 5 :]
    parts, depth, cur = [], 0, ""
    for c in body:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
    parts.append(cur.strip())
    out = []
    for k, p in enumerate(p for p in parts if p):
        name = re.match(r"`?(\w+)`?", p)
        if name is None:
            continue
        label = name.group(1)
        params: tuple[tuple[str, str, str], ...] = ()
        if "(" in p:  # (`case failure(error: Error)`: DocC names it `failure(error:)`)
            inner = p[p.index("(") + 1 : p.rindex(")") if ")" in p else len(p)]
            labels = []
            for q in re.split(r",(?![^(\[]*[)\]])", inner):
                lm = re.match(r"\s*(\w+)\s*:", q)
                labels.append(lm.group(1) if lm else "_")
                params += ((labels[-1], labels[-1], q.split(":", 1)[-1].strip()),)
            label += "(" + "".join(f"{x}:" for x in labels) + ")"
        out.append(
            Decl(
                kind="case",
                name=label,
                modifiers=decl.modifiers,
                attributes=decl.attributes,
                declaration=prefix + p,
                doc=decl.doc if k == 0 else None,
                line=decl.line,
                params=params,
                end_line=decl.end_line,
            )
        )
    return out or [decl]
