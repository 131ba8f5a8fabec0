"""The declarations of a C# file as records (`Decl`), and how one member is read from its
head, the tokens from its first word after the modifiers to its body, `;`, `=>` or `=`
(csharp_parse.py finds the heads): its kind, name, parameters and return type; a declaration
shown as one line of code (`render`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docsmcp.sources.formats.source.token_groups import Token

TYPE_KINDS = frozenset({"class", "struct", "interface", "enum", "record", "delegate"})
_NO_SPACE_BEFORE = frozenset(",;)]>.?[(<")
_NO_SPACE_AFTER = frozenset("([<.")


@dataclass
class Decl:
    kind: str  # a TYPE_KINDS word, or constructor, method, property, indexer, field, event,
    # operator, value (an enum's)
    name: str  # `AddRetry`, `Handle<TException>` (a generic method with its type parameters)
    line: int  # 0-based line of the declaration
    modifiers: tuple[str, ...] = ()
    declaration: str = ""  # as written: `public static T Handle<T>(Func<T, bool> p)`
    doc: str = ""  # the XML doc comment, without its `///` margins
    doc_line: int = 0
    params: tuple[tuple[str, str], ...] = ()  # (type, name)
    returns: str = ""  # a method's return type, a property's or field's type
    optional: tuple[str, ...] = ()  # parameters with a default value, or `params`
    obsolete: bool = False
    members: list[Decl] = field(default_factory=list)


@dataclass
class Unit:
    types: list[Decl]  # (qualified names: `Decl.name` of a top-level type holds its namespace)
    namespaces: tuple[str, ...] = ()  # (file-scoped or block, in order)
    usings: tuple[str, ...] = ()


def is_type(decl: Decl) -> bool:
    return decl.kind in TYPE_KINDS


def render(toks: list[Token]) -> str:
    """Tokens as one line of code, spaced as C# is written: `Func<T, bool> p`, `a.b(c)`."""
    out: list[str] = []
    prev, prev_end = "", -1
    for t in toks:
        if t.kind in ("pp", "doc"):
            continue
        text = t.text
        punct = t.kind == "punct"
        joined = punct and prev and t.start == prev_end and t.start > 0  # (`++`, `==`, `>>`)
        if (
            out
            and not joined
            and not (punct and text in _NO_SPACE_BEFORE)
            and (prev not in _NO_SPACE_AFTER)
        ):
            out.append(" ")
        out.append(text)
        prev, prev_end = (text if punct else ""), t.end
    return "".join(out)


_OPERATORS = frozenset("implicit explicit".split())


def optional(head: list[Token]) -> tuple[str, ...]:
    """The parameters of the head's first parameter list that have a default or are `params`."""
    texts = [t.text for t in head]
    if "(" not in texts:
        return ()
    out = []
    for part in _split_params(group(head, texts.index("("))[1:-1]):
        words = [t.text for t in part]
        if "=" in words and words.index("=") > 0:
            out.append(words[words.index("=") - 1].lstrip("@"))
        elif words and words[0] == "params":
            out.append(words[-1].lstrip("@"))
    return tuple(out)


def group(head: list[Token], at: int) -> list[Token]:
    """The tokens from the bracket at `at` to the one closing it (a `where` clause after it
    is no parameter)."""
    depth = 0
    for k in range(at, len(head)):
        if head[k].kind == "punct" and head[k].text in "([":
            depth += 1
        elif head[k].kind == "punct" and head[k].text in ")]":
            depth -= 1
            if depth == 0:
                return head[at : k + 1]
    return head[at:]


def code_words(text: str) -> list[Token]:
    """Tokens of a few words of code written here (a property's `{ get; }`), spaced apart."""
    return [
        Token("punct" if w in "{};" else "ident", w, 0, 0, 0) for k, w in enumerate(text.split())
    ]


def _split_params(toks: list[Token]) -> list[list[Token]]:
    """The tokens inside the parentheses, split at commas at depth 0."""
    out: list[list[Token]] = [[]]
    depth = 0
    for t in toks:
        if t.kind == "punct" and t.text in "(<[{":
            depth += 1
        elif t.kind == "punct" and t.text in ")>]}":
            depth -= 1
        elif t.kind == "punct" and t.text == "," and depth == 0:
            out.append([])
            continue
        out[-1].append(t)
    return [p for p in out if p]


def read_params(toks: list[Token]) -> tuple[tuple[str, str], ...]:
    """(type, name) of a parameter list `( … )` (with or without its parentheses)."""
    if toks and toks[0].text in ("(", "["):
        toks = toks[1:]
    if toks and toks[-1].text in (")", "]"):
        toks = toks[:-1]
    out = []
    for part in _split_params(toks):
        k = 0
        while k < len(part) and part[k].text == "[":  # (a parameter's attributes)
            depth = 0
            while k < len(part):
                depth += part[k].text == "["
                depth -= part[k].text == "]"
                k += 1
                if depth == 0:
                    break
        part = part[k:]
        eq = next((x for x, t in enumerate(part) if t.text == "=" and t.kind == "punct"), None)
        if eq is not None:
            part = part[:eq]
        if not part:
            continue
        if len(part) == 1:
            out.append((render(part), ""))
            continue
        out.append((render(part[:-1]), part[-1].text.lstrip("@")))
    return tuple(out)


def member(head: list[Token], modifiers: list[str], owner: Decl | None, line: int) -> Decl | None:
    """The member whose head (modifiers taken off) is `head`: `Task<T> Run<T>(Func<T> f)`."""
    texts = [t.text for t in head]
    mods = tuple(modifiers)
    if texts[0] == "delegate":
        open_at = texts.index("(") if "(" in texts else len(texts)
        name_at = open_at - 1
        name = texts[name_at] if name_at > 0 else ""
        if name == ">":  # (`delegate T D<T>(…)`)
            k = name_at
            while k > 0 and texts[k] != "<":
                k -= 1
            name = texts[k - 1] + render(head[k:open_at])
            ret = render(head[1 : k - 1])
        else:
            ret = render(head[1:name_at])
        return Decl(
            "delegate",
            name.lstrip("@"),
            line,
            mods,
            "",
            "",
            0,
            read_params(group(head, open_at)),
            ret,
        )
    if texts[0] == "~":  # (a finalizer: docfx lists none)
        return None
    if "operator" in texts:
        at = texts.index("operator")
        open_at = texts.index("(", at) if "(" in texts[at:] else len(texts)
        symbol = "".join(texts[at + 1 : open_at])
        if symbol in ("implicit", "explicit") or (at > 0 and texts[at - 1] in _OPERATORS):
            name = (
                f"{texts[at - 1] if at else ''} operator {render(head[at + 1 : open_at])}".strip()
            )
        else:
            name = f"operator {symbol}"
        return Decl(
            "operator",
            name,
            line,
            mods,
            params=read_params(group(head, open_at)),
            returns=render(head[:at]),
        )
    event = texts[0] == "event"
    if event:
        head, texts = head[1:], texts[1:]
    if "(" in texts and not event:
        open_at = texts.index("(")
        name_end = open_at
        generic = ""
        if open_at > 0 and texts[open_at - 1] == ">":
            k, angle = open_at - 1, 0
            while k >= 0:
                if texts[k] == ">":
                    angle += 1
                elif texts[k] == "<":
                    angle -= 1
                    if angle == 0:
                        break
                k -= 1
            generic = render(head[k:open_at])
            name_end = k
        if name_end < 1 and not (owner is not None and name_end == 0):
            return None
        name = texts[name_end - 1] if name_end >= 1 else ""
        if (
            name_end == 1
            and owner is not None
            and name == owner.name.split("<")[0].rsplit(".", 1)[-1]
        ):
            return Decl("constructor", name, line, mods, params=read_params(group(head, open_at)))
        if name_end == 0:
            return None
        if "." in texts[: name_end - 1] and texts[name_end - 2] == ".":  # (`void IFoo.Bar()`)
            return None
        ret = render(head[: name_end - 1])
        if not ret:
            return None
        return Decl(
            "method",
            name.lstrip("@") + generic,
            line,
            mods,
            params=read_params(group(head, open_at)),
            returns=ret,
        )
    if "this" in texts and "[" in texts:  # an indexer: `T this[int index]`
        at = texts.index("this")
        return Decl(
            "indexer",
            "this[]",
            line,
            mods,
            params=read_params(head[at + 1 :]),
            returns=render(head[:at]),
        )
    # a property, field or event: `Type Name`, `Type A, B`
    if len(head) < 2:
        return None
    parts = _split_params(head)
    first = parts[0]
    if len(first) < 2:
        return None
    if len(first) >= 3 and first[-2].text == ".":  # (an explicit interface member)
        return None
    kind = "event" if event else "field"
    ret = render(first[:-1])
    decl = Decl(
        kind, first[-1].text.lstrip("@"), line, (*mods, *(["event"] if event else [])), returns=ret
    )
    for extra in parts[1:]:  # (`int a, b;`)
        decl.members.append(
            Decl(kind, extra[-1].text.lstrip("@"), line, decl.modifiers, returns=ret)
        )
    return decl


_GENERIC = re.compile(r"<[^<>]*>")


def bare_name(name: str) -> str:
    """A name without its type parameters: `Handle<TException>` -> `Handle`,
    `ResiliencePipeline<T>.Empty` -> `ResiliencePipeline.Empty`."""
    while "<" in name:
        shorter = _GENERIC.sub("", name)
        if shorter == name:
            return name.split("<", 1)[0]
        name = shorter
    return name
