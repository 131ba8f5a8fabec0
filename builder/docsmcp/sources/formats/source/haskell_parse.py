"""A Haskell module's parts that Haddock documents, from haskell_lex.py's tokens: the module
header comment and name, `OPTIONS_HADDOCK`, the export list (names, `module X`, section
headings `-- *`, named chunks `-- $x`, comments), the imports, and the top-level declarations
with their comments: type signatures, `data`/`newtype` (constructors, record fields, GADT
constructors), `class` (methods, associated types), `type`, `type family`, `data family`,
`pattern` synonyms, and the bindings without signatures. A `-- ^` comment documents what it
follows (a constructor, a field, a method, an argument of a signature).

Layout is read from columns: a top-level declaration starts at the column of the module's
body, a class's methods at the column of its first one. Instances, fixities, splices and
definitions' bodies are passed over. Every loop moves forward over the tokens: linear time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from docsmcp.sources.formats.source.haskell_lex import Token, tokens

Doc = tuple[int, str]  # (0-based line, the comment's text)
# Kinds in the namespace of values (the others are types and classes)
_VALUES = frozenset({"function", "binding", "pattern", "constructor", "field", "method"})


@dataclass
class Decl:
    kind: str  # function, data, newtype, class, type, type family, data family, pattern,
    # constructor, field, method, binding
    name: str
    signature: str
    line: int
    doc: Doc | None = None
    children: list[Decl] = field(default_factory=list)
    args: list[tuple[str, str]] = field(default_factory=list)  # (argument type, its `-- ^`)


@dataclass(frozen=True)
class Export:
    kind: str  # name, module, section, chunk, doc
    text: str  # a name (`decode`, `.:`, `Value`), a module, a heading, a chunk's name, a doc
    line: int
    subs: tuple[str, ...] = ()  # `T(A, b)`: A, b; `T(..)`: ".."
    level: int = 0  # a section's: 1 for `-- *`, 2 for `-- **`
    namespace: str = ""  # "type", "pattern" where the export says so


@dataclass(frozen=True)
class Import:
    module: str
    qualified: bool
    alias: str
    hiding: bool
    names: tuple[str, ...] | None  # None: everything


@dataclass
class Module:
    name: str = ""
    header: Doc | None = None
    options: frozenset[str] = frozenset()  # OPTIONS_HADDOCK's words (hide, not-home, prune…)
    exports: list[Export] | None = None  # None: no export list (everything top-level)
    imports: list[Import] = field(default_factory=list)
    decls: list[Decl] = field(default_factory=list)
    chunks: dict[str, Doc] = field(default_factory=dict)  # `-- $name` chunks defined


def _text(toks: list[Token]) -> str:
    """Tokens as one line of source: a space where the source had one."""
    out: list[str] = []
    prev: Token | None = None
    for t in toks:
        if t.kind in ("doc", "pragma"):
            continue
        if prev is not None and (
            t.line != prev.line or t.col > prev.col + len(prev.text.split("\n")[-1])
        ):
            out.append(" ")
        out.append(t.text)
        prev = t
    return "".join(out).strip()[:1000]


def _close(toks: list[Token], k: int) -> int:
    """The index of the bracket closing the one at `k` (len(toks) when never closed)."""
    depth = 0
    for j in range(k, len(toks)):
        t = toks[j]
        if t.kind == "special" and t.text in "([{":
            depth += 1
        elif t.kind == "special" and t.text in ")]}":
            depth -= 1
            if depth == 0:
                return j
    return len(toks)


def _op_name(toks: list[Token], k: int) -> tuple[str, int] | None:
    """`(op)` at `k` as its name and the index after it."""
    if (
        k + 2 < len(toks)
        and toks[k].text == "("
        and toks[k + 1].kind == "op"
        and toks[k + 2].text == ")"
    ):
        return toks[k + 1].text, k + 3
    return None


def parse(text: str) -> Module:
    toks = tokens(text)
    mod = Module()
    k = 0
    pending: Doc | None = None
    while k < len(toks) and not (toks[k].kind == "name" and toks[k].text == "module"):
        t = toks[k]
        if t.kind == "pragma" and t.text.upper().startswith("OPTIONS_HADDOCK"):
            words = t.text[len("OPTIONS_HADDOCK") :].replace(",", " ").split()
            mod.options = mod.options | frozenset(w.lower() for w in words)
        elif t.kind == "doc" and t.mark == "|":
            pending = (t.line, t.text)
        elif t.kind not in ("doc", "pragma"):
            break  # (no module header: a Main module, declarations from here)
        k += 1
    top_col = 0
    if k < len(toks) and toks[k].text == "module":
        mod.header = pending
        k += 1
        if k < len(toks) and toks[k].kind == "name":
            mod.name = toks[k].text
            k += 1
        while k < len(toks) and toks[k].kind == "pragma":
            k += 1
        if k < len(toks) and toks[k].text == "(":
            end = _close(toks, k)
            mod.exports = _exports(toks[k + 1 : end])
            k = end + 1
        while k < len(toks) and toks[k].text != "where":
            k += 1
        k += 1
        if k < len(toks) and toks[k].text == "{":
            k += 1
        body = [t for t in toks[k:] if t.kind != "pragma"]
        top_col = body[0].col if body else 0
    else:
        body = [t for t in toks[k:] if t.kind != "pragma"]
        k = max(0, k - (1 if pending is not None else 0))
    _top(mod, body, top_col)
    return mod


def _exports(toks: list[Token]) -> list[Export]:
    out: list[Export] = []
    item: list[Token] = []

    def flush() -> None:
        if item:
            e = _export(item)
            if e is not None:
                out.append(e)
        item.clear()

    k = 0
    while k < len(toks):
        t = toks[k]
        if t.kind == "doc":
            flush()
            if t.mark.startswith("*"):
                out.append(Export("section", t.text, t.line, level=len(t.mark)))
            elif t.mark.startswith("$"):
                out.append(Export("chunk", t.mark[1:], t.line))
            elif t.mark == "|":
                out.append(Export("doc", t.text, t.line))
            k += 1
            continue
        if t.kind == "special" and t.text == ",":
            flush()
            k += 1
            continue
        if t.kind == "special" and t.text == "(":
            end = min(_close(toks, k), len(toks) - 1)
            item.extend(toks[k : end + 1])
            k = end + 1
            continue
        item.append(t)
        k += 1
    flush()
    return out


def _export(item: list[Token]) -> Export | None:
    words = [t for t in item if t.kind != "doc"]
    if not words:
        return None
    line = words[0].line
    if words[0].text == "module" and len(words) > 1:
        return Export("module", words[1].text, line)
    namespace = ""
    if words[0].text in ("type", "pattern") and len(words) > 1:
        namespace = words[0].text
        words = words[1:]
    op = _op_name(words, 0)
    if op is not None:
        name, k = op
    elif words[0].kind in ("name", "op"):
        name, k = words[0].text, 1
    else:
        return None
    subs: list[str] = []
    if k < len(words) and words[k].text == "(":
        inner = words[k + 1 : _close(words, k)]
        j = 0
        while j < len(inner):
            o = _op_name(inner, j)
            if o is not None:
                subs.append(o[0])
                j = o[1]
                continue
            if inner[j].kind == "name" or inner[j].text == "..":
                subs.append(inner[j].text)
            j += 1
    return Export("name", name, line, tuple(subs), namespace=namespace)


def _documented(rest: list[Token]) -> Iterator[tuple[list[Token], Doc | None]]:
    """The groups of a `where` block (GADT constructors, a class's members), each with the
    `-- |` comment above it (a `-- ^` or other comment between keeps the earlier one)."""
    col = next((t.col for t in rest if t.kind != "doc"), 0)
    pending: Doc | None = None
    for sub in _groups(rest, col):
        if sub[0].kind == "doc":
            pending = (sub[0].line, sub[0].text) if sub[0].mark == "|" else pending
            continue
        yield sub, pending
        pending = None


def _groups(toks: list[Token], col: int) -> list[list[Token]]:
    """The items of a layout block whose items start at column `col`: a doc comment at that
    column (or left of it) is an item of its own."""
    groups: list[list[Token]] = []
    for t in toks:
        starts = t.col <= col and (not groups or t.line != groups[-1][-1].line or t.kind == "doc")
        if t.kind == "doc" and t.mark == "^":
            starts = False  # (it documents what it follows)
        if starts or not groups or (groups[-1][0].kind == "doc" and groups[-1][0].mark != "^"):
            groups.append([t])
        else:
            groups[-1].append(t)
    return groups


def _top(mod: Module, toks: list[Token], col: int) -> None:
    pending: Doc | None = None
    seen: set[tuple[str, str]] = set()
    for group in _groups(toks, col):
        head = group[0]
        if head.kind == "doc":
            if head.mark == "|":
                pending = (head.line, head.text)
            elif head.mark.startswith("$") and len(head.mark) > 1:
                mod.chunks.setdefault(head.mark[1:], (head.line, head.text))
            continue
        if head.kind == "name" and head.text == "import":
            mod.imports.append(_import(group))
            pending = None
            continue
        for d in _decls(group, pending):
            space = "value" if d.kind in _VALUES else "type"
            if (space, d.name) in seen:  # (a CPP branch's copy, a definition's clause)
                continue
            seen.add((space, d.name))
            mod.decls.append(d)
        pending = None


def _import(group: list[Token]) -> Import:
    words = [t for t in group if t.kind != "doc"]
    qualified = any(t.text == "qualified" for t in words[:4])
    names_at = next((j for j, t in enumerate(words) if t.text == "("), -1)
    head = words[: names_at if names_at >= 0 else len(words)]
    module = next(
        (t.text for t in head[1:] if t.kind == "name" and t.text not in ("qualified", "safe")),
        "",
    )
    module = module if module[:1].isupper() else ""
    alias = ""
    for j, t in enumerate(head):
        if t.text == "as" and j + 1 < len(head):
            alias = head[j + 1].text
    hiding = any(t.text == "hiding" for t in head)
    names: tuple[str, ...] | None = None
    if names_at >= 0:
        listed = _exports(words[names_at + 1 : _close(words, names_at)])
        found: list[str] = []
        for e in listed:
            if e.kind == "name":
                found.append(e.text)
                found.extend(x for x in e.subs if x != "..")
                if ".." in e.subs:
                    found.append(e.text + "(..)")
        names = tuple(found)
    return Import(module, qualified, alias or module, hiding, names)


def _decls(group: list[Token], doc: Doc | None) -> list[Decl]:
    head = group[0]
    if head.kind == "name" and head.text in ("import", "instance", "deriving", "foreign",
                                             "infix", "infixl", "infixr", "default"):  # fmt: skip
        return []
    words = [t.text for t in group if t.kind == "name"][:3]
    line = head.line
    if words[:1] == ["data"] and words[1:2] == ["family"]:
        return [Decl("data family", _head_name(group[2:]), _upto(group, ("where",)), line, doc)]
    if words[:1] == ["type"] and words[1:2] == ["family"]:
        return [Decl("type family", _head_name(group[2:]), _upto(group, ("where",)), line, doc)]
    if words[:1] in (["type"], ["data"], ["newtype"]) and words[1:2] == ["instance"]:
        return []
    if head.text in ("data", "newtype"):
        return [_data(group, doc)]
    if head.text == "type":
        rest = group[1:]
        if rest and rest[0].text == "role":
            return []
        return [Decl("type", _head_name(rest), _text(group), line, doc)]
    if head.text == "class":
        return [_class(group, doc)]
    if head.text == "pattern" and len(group) > 1:
        return _signature(group[1:], doc, "pattern", "pattern ")
    if head.kind == "special" and head.text == "$" or head.kind == "op":
        return []
    return _signature(group, doc, "function", "")


def _head_name(toks: list[Token]) -> str:
    """The name a declaration's head declares: the capitalised name or operator after the
    context (`(Eq a) => Name a`, `a :+: b`)."""
    depth = 0
    end = len(toks)
    for j, t in enumerate(toks):
        if t.kind == "special" and t.text in "([{":
            depth += 1
        elif t.kind == "special" and t.text in ")]}":
            depth -= 1
        elif depth <= 0 and t.text in ("=", "where", "::", "|", "deriving"):
            end = j
            break
    toks = toks[:end]
    arrow = next((j for j, t in enumerate(toks) if t.text == "=>"), -1)
    body = toks[arrow + 1 :]
    depth = 0
    for j, t in enumerate(body):
        if t.kind == "special" and t.text in "([":
            op = _op_name(body, j)
            if op is not None and depth == 0:
                return op[0]
            depth += 1
        elif t.kind == "special" and t.text in ")]":
            depth -= 1
        elif depth == 0 and t.kind == "op" and t.text not in ("'", "!", "~", "@"):
            return t.text
    for t in body:
        if t.kind == "name" and t.text[:1].isupper():
            return t.text
    return next((t.text for t in body if t.kind == "name"), "")


def _upto(group: list[Token], stops: tuple[str, ...]) -> str:
    depth = 0
    for j, t in enumerate(group):
        if t.kind == "special" and t.text in "([{":
            depth += 1
        elif t.kind == "special" and t.text in ")]}":
            depth -= 1
        elif depth <= 0 and t.text in stops and j > 0:
            return _text(group[:j])
    return _text(group)


def _signature(group: list[Token], doc: Doc | None, kind: str, prefix: str) -> list[Decl]:
    """`a, b :: T` (or `pattern P :: T`): a declaration per name; a binding (`f x = …`) of
    a name without a signature."""
    names: list[str] = []
    k = 0
    while k < len(group):
        t = group[k]
        op = _op_name(group, k)
        if op is not None:
            names.append(op[0])
            k = op[1]
        elif t.kind == "name":
            names.append(t.text)
            k += 1
        else:
            break
        if k < len(group) and group[k].text == ",":
            k += 1
            continue
        break
    if not names:
        return []
    if k < len(group) and group[k].text == "::":
        sig_toks = [t for t in group[k + 1 :] if not (t.kind == "doc" and t.mark == "^")]
        args = _args(group[k + 1 :])
        ty = _text(sig_toks)
        shown = [n if n[:1].isalpha() or n[:1] == "_" else f"({n})" for n in names]
        return [Decl(kind, n, f"{prefix}{s} :: {ty}", group[0].line, doc, args=args)
                for n, s in zip(names, shown, strict=True)]  # fmt: skip
    if kind == "pattern":
        return [
            Decl("pattern", names[0], "pattern " + _upto(group, ("<-", "=")), group[0].line, doc)
        ]
    if len(names) == 1 and names[0][:1].islower() and "." not in names[0]:
        return [Decl("binding", names[0], names[0], group[0].line, doc)]
    return []


def _args(toks: list[Token]) -> list[tuple[str, str]]:
    """A signature's arguments with their `-- ^` comments, where any has one."""
    if not any(t.kind == "doc" and t.mark == "^" for t in toks):
        return []
    out: list[tuple[str, str]] = []
    cur: list[Token] = []
    depth = 0
    for t in toks:
        if t.kind == "doc":
            if t.mark == "^":
                out.append((_text(cur), t.text))
                cur = []
            continue
        if t.kind == "special" and t.text in "([{":
            depth += 1
        elif t.kind == "special" and t.text in ")]}":
            depth -= 1
        if depth == 0 and t.text in ("->", "=>"):
            if cur and (not out or out[-1][0] != _text(cur)):
                out.append((_text(cur), ""))
            cur = []
            continue
        cur.append(t)
    if cur:
        out.append((_text(cur), ""))
    return out[:64]


def _data(group: list[Token], doc: Doc | None) -> Decl:
    kind = group[0].text
    name = _head_name(group[1:])
    d = Decl(kind, name, _upto(group, ("=", "where", "deriving")), group[0].line, doc)
    depth = 0
    eq = -1
    for j, t in enumerate(group):
        if t.kind == "special" and t.text in "([{":
            depth += 1
        elif t.kind == "special" and t.text in ")]}":
            depth -= 1
        elif depth == 0 and t.text in ("=", "where"):
            eq = j
            break
    if eq < 0:
        return d
    rest = group[eq + 1 :]
    if group[eq].text == "where":  # (GADT constructors: signatures in a block)
        for sub, pending in _documented(rest):
            if sub[0].text == "deriving":
                break
            d.children.extend(_signature(sub, pending, "constructor", ""))
        return d
    _constructors(d, rest)
    return d


def _constructors(d: Decl, rest: list[Token]) -> None:
    """`A x | B { f :: T -- ^ doc } deriving …`: constructors and fields with their docs."""
    pending: Doc | None = None
    cur: list[Token] = []

    def flush() -> None:
        nonlocal pending
        words = [t for t in cur if t.kind != "doc"]
        if not words:
            return
        forall = next((j for j, t in enumerate(words) if t.text == "=>"), -1)
        words = words[forall + 1 :] if forall >= 0 else words
        if words and words[0].text == "forall":
            dot = next((j for j, t in enumerate(words) if t.text == "."), -1)
            words = words[dot + 1 :]
        if not words:
            return
        name = _head_name(words)
        c = Decl("constructor", name, _ctor_text(words), words[0].line, pending)
        pending = None
        for t in cur:
            if t.kind == "doc" and t.mark == "^" and c.doc is None and not _in_record(cur, t):
                c.doc = (t.line, t.text)
        brace = next((j for j, t in enumerate(cur) if t.text == "{"), -1)
        if brace >= 0:
            _fields(c, cur[brace + 1 : _close(cur, brace)])
        d.children.append(c)

    depth = 0
    for t in rest:
        if t.kind == "special" and t.text in "([{":
            depth += 1
        elif t.kind == "special" and t.text in ")]}":
            depth -= 1
        if depth == 0 and t.kind == "name" and t.text == "deriving":
            break
        if depth == 0 and t.kind == "op" and t.text == "|":
            flush()
            cur = []
            continue
        if depth == 0 and t.kind == "doc" and t.mark == "|":
            if any(x.kind != "doc" for x in cur):
                flush()
                cur = []
            pending = (t.line, t.text)
            continue
        cur.append(t)
    flush()


def _in_record(cur: list[Token], doc: Token) -> bool:
    opened = next((t for t in cur if t.text == "{"), None)
    return opened is not None and (doc.line, doc.col) > (opened.line, opened.col)


def _ctor_text(words: list[Token]) -> str:
    brace = next((j for j, t in enumerate(words) if t.text == "{"), -1)
    return _text(words[:brace] if brace >= 0 else words)


def _fields(c: Decl, inner: list[Token]) -> None:
    """A record's fields (`a, b :: T`), each with its `-- |` before or `-- ^` after."""
    pending: Doc | None = None
    cur: list[Token] = []
    made: list[Decl] = []

    def flush() -> None:
        nonlocal pending, made
        made = _signature([t for t in cur if t.kind != "doc"], pending, "field", "")
        c.children.extend(made)
        pending = None

    depth = 0
    for t in inner:
        if t.kind == "special" and t.text in "([{":
            depth += 1
        elif t.kind == "special" and t.text in ")]}":
            depth -= 1
        if t.kind == "doc":
            if t.mark == "^":
                if cur:
                    flush()
                    cur = []
                for m in made:
                    m.doc = m.doc or (t.line, t.text)
            elif t.mark == "|":
                if cur:
                    flush()
                    cur = []
                pending = (t.line, t.text)
            continue
        if depth == 0 and t.text == ",":
            # (`a, b :: T`: the comma before `::` joins names)
            if not cur:
                continue
            if any(x.text == "::" for x in cur):
                flush()
                cur = []
                continue
        cur.append(t)
    if cur:
        flush()


def _class(group: list[Token], doc: Doc | None) -> Decl:
    d = Decl("class", _head_name(group[1:]), _upto(group, ("where",)), group[0].line, doc)
    where = next((j for j, t in enumerate(group) if t.text == "where"), -1)
    if where < 0:
        return d
    for sub, pending in _documented(group[where + 1 :]):
        first = sub[0].text
        if first in ("type", "data"):
            words = sub[1:]
            if words and words[0].text in ("family", "instance"):
                words = words[1:]
            if sub[1:2] and sub[1].text == "instance":
                continue
            kind = "type family" if first == "type" else "data family"
            d.children.append(Decl(kind, _head_name(words), _text(sub), sub[0].line, pending))
        elif first != "default" and not (sub[0].kind == "name" and first.startswith("infix")):
            for m in _signature(sub, pending, "method", ""):
                if m.kind == "method" and not any(c.name == m.name for c in d.children):
                    d.children.append(m)
    return d
