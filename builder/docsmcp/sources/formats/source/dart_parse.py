"""The declarations of a Dart library file, as dartdoc documents them (dartdoc.py): its
directives (`library`, `export … show/hide`, `part`), classes, mixins, enums (their values),
extensions, extension types, typedefs, top-level functions and variables, and each type's
constructors (`Client.new`, `Response.bytes`), methods, operators, getters, setters and fields,
each with the doc comment above it, its annotations and its parameters (positional, optional
`[…]`, named `{…}` with `required`).

A declaration's header runs to its body (`{`), its `=>`, its initializer (`=`) or its `;` at
bracket depth 0; bodies and initializers are skipped whole, brackets counted on the lexer's
tokens (dart_lex.py), so strings and comments never unbalance them. At most MAX_DECLS
declarations a file and MAX_NESTING levels of braces are read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docsmcp.sources.formats.source.dart_lex import tokens
from docsmcp.sources.formats.source.token_groups import Token

MAX_DECLS = 5_000
MAX_NESTING = 64  # bracket depth at which a declaration's text stops being read

TYPE_KINDS = frozenset({"class", "mixin", "enum", "extension", "extension type"})
_TYPE_MODIFIERS = frozenset(
    {"abstract", "base", "final", "interface", "sealed", "mixin", "augment", "macro"}
)
_MEMBER_MODIFIERS = frozenset(
    {"static", "final", "const", "late", "external", "abstract", "covariant", "factory", "var"}
)
_DIRECTIVES = frozenset({"import", "export", "library", "part"})
_LOOSE = re.compile(r"[(\[{] |\s[)\]}]|,[)\]}]")
_INNER_SPACE = re.compile(r"([(\[{])\s+|\s+(?=[)\]}])()")
_TRAILING_COMMA = re.compile(r",\s*([)\]}])")


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    kind: str  # "positional" | "optional" ([…]) | "named" ({…})
    required: bool
    default: str


@dataclass(frozen=True)
class Decl:
    kind: str  # a TYPE_KINDS kind, "typedef", "function", "variable", "constructor",
    # "method", "operator", "getter", "setter", "field", "value" (an enum's)
    name: str  # `Client`, `get`, `Response.bytes` (a named constructor), `new`
    signature: str  # the header as written, whitespace collapsed
    doc: str | None
    annotations: tuple[str, ...]
    params: tuple[Param, ...]
    returns: str
    line: int  # 0-based
    members: tuple[Decl, ...] = ()
    static: bool = False


@dataclass(frozen=True)
class Export:
    uri: str
    show: tuple[str, ...]
    hide: tuple[str, ...]


@dataclass(frozen=True)
class Unit:
    """A file: its library directive's name and doc, exports, parts and declarations."""

    library: str | None  # `library foo.bar;` -> "foo.bar"; `library;` -> ""; none: None
    library_doc: str | None
    exports: tuple[Export, ...]
    parts: tuple[str, ...]
    decls: tuple[Decl, ...]
    part_of: bool


def parse(source: str) -> Unit:
    """The declarations of `source` (see the module's docstring)."""
    return _Parser(source, tokens(source)).unit()


def _uri(text: str) -> str:
    body = text[1:] if text.startswith("r") else text
    for q in ("'''", '"""', "'", '"'):
        if body.startswith(q):
            return body[len(q) : len(body) - len(q)] if body.endswith(q) else body[len(q) :]
    return body


class _Parser:
    def __init__(self, source: str, toks: list[Token]) -> None:
        self.src = source
        self.t = toks
        self.count = 0

    def unit(self) -> Unit:
        library: str | None = None
        library_doc: str | None = None
        exports: list[Export] = []
        parts: list[str] = []
        part_of = False
        decls: list[Decl] = []
        i, n = 0, len(self.t)
        while i < n and self.count < MAX_DECLS:
            doc, annots, i = self._lead(i, n)
            if i >= n:
                break
            word = self.t[i].text if self.t[i].kind == "word" else ""
            if word in _DIRECTIVES and self._is_directive(i):
                end = self._to(i, n, ";")
                words = [x for x in self.t[i + 1 : end] if x.kind in ("word", "str")]
                if word == "library":
                    library = "".join(x.text for x in self.t[i + 1 : end] if x.kind != "str")
                    library_doc = doc
                elif word == "export":
                    exports.append(self._export(i + 1, end))
                elif word == "part" and words and words[0].text == "of":
                    part_of = True
                elif word == "part" and words and words[0].kind == "str":
                    parts.append(_uri(words[0].text))
                i = end + 1
                continue
            i = self._decl(i, n, doc, annots, "", decls)
        return Unit(library, library_doc, tuple(exports), tuple(parts), tuple(decls), part_of)

    def _is_directive(self, i: int) -> bool:
        nxt = self.t[i + 1] if i + 1 < len(self.t) else None
        if nxt is None:
            return False
        if self.t[i].text == "library":
            return nxt.kind == "word" or nxt.text == ";"
        return nxt.kind == "str" or (self.t[i].text == "part" and nxt.text == "of")

    def _export(self, i: int, end: int) -> Export:
        uri = ""
        show: list[str] = []
        hide: list[str] = []
        mode = ""
        depth = 0
        for tok in self.t[i:end]:
            if tok.kind == "open":
                depth += 1
            elif tok.kind == "close":
                depth -= 1
            elif tok.kind == "str" and not uri and depth == 0:
                uri = _uri(tok.text)  # (a conditional export's default: its first URI)
            elif tok.kind == "word" and tok.text in ("show", "hide") and depth == 0:
                mode = tok.text
            elif tok.kind == "word" and mode == "show":
                show.append(tok.text)
            elif tok.kind == "word" and mode == "hide":
                hide.append(tok.text)
        return Export(uri, tuple(show), tuple(hide))

    def _lead(self, i: int, n: int, semis: bool = True) -> tuple[str | None, list[str], int]:
        """The doc comment and annotations before the declaration at `i` (the last doc);
        `semis`: whether empty declarations (`;`) are passed over too."""
        doc: str | None = None
        annots: list[str] = []
        while i < n and (self.t[i].kind in ("doc", "annot") or (semis and self.t[i].text == ";")):
            if self.t[i].kind == "doc":
                doc = self.t[i].text
            elif self.t[i].kind == "annot":
                annots.append(self.t[i].text)
            i += 1
        return doc, annots, i

    def _to(self, i: int, n: int, stop: str) -> int:
        """The index of `stop` at depth 0 from `i` (`n` when none)."""
        depth = 0
        n = min(n, len(self.t))
        while i < n:
            tok = self.t[i]
            if tok.kind == "open":
                depth += 1
            elif tok.kind == "close":
                if depth == 0:
                    return i
                depth -= 1
            elif depth == 0 and tok.text == stop:
                return i
            i += 1
        return n

    def _close(self, i: int, n: int) -> int:
        """The index just after the bracket group opening at `i`."""
        depth = 0
        n = min(n, len(self.t))
        while i < n:
            kind = self.t[i].kind
            if kind == "open":
                depth += 1
            elif kind == "close":
                depth -= 1
                if depth <= 0:
                    return i + 1
            i += 1
        return n

    def _text(self, a: int, b: int) -> str:
        """The source of tokens `a`..`b` on one line, as dartdoc shows a declaration: no space
        inside brackets, no trailing comma (`on<E>(EventHandler<E, State> handler, {…})`)."""
        if a >= b:
            return ""
        text = " ".join(self.src[self.t[a].start : self.t[b - 1].end].split())
        if not _LOOSE.search(text):
            return text
        return _TRAILING_COMMA.sub(r"\1", _INNER_SPACE.sub(r"\1\2", text))

    def _decl(
        self, i: int, n: int, doc: str | None, annots: list[str], owner: str, out: list[Decl]
    ) -> int:
        """Reads the declaration at `i` into `out`; the index after it."""
        start = i
        j = i
        while j < n and self.t[j].kind == "word" and self.t[j].text in _TYPE_MODIFIERS:
            if self.t[j].text == "mixin" and not (j + 1 < n and self.t[j + 1].text == "class"):
                break  # (`mixin M on A`: the declaration's keyword, not `mixin class`'s)
            j += 1
        word = self.t[j].text if j < n and self.t[j].kind == "word" else ""
        if word in ("class", "mixin", "enum", "extension") and j + 1 < n:
            return self._type(start, j, n, doc, annots, out)
        if word == "typedef":
            end = self._to(j, n, ";")
            head = self.t[j + 1 : end]
            name = ""
            eq = next((k for k, x in enumerate(head) if x.text == "="), None)
            if eq is not None:
                name = head[0].text if head and head[0].kind == "word" else ""
                params: tuple[Param, ...] = ()
            else:
                paren = next((k for k, x in enumerate(head) if x.text == "("), None)
                name = head[paren - 1].text if paren else ""
                params = self._params(j + 1 + paren, n) if paren is not None else ()
            self._add(out, Decl("typedef", name, self._text(start, end), doc, tuple(annots),
                                params, "", self.t[start].line))  # fmt: skip
            return end + 1
        return self._member(start, n, doc, annots, owner, out)

    def _add(self, out: list[Decl], decl: Decl) -> None:
        if decl.name and self.count < MAX_DECLS:
            self.count += 1
            out.append(decl)

    def _type(
        self, start: int, j: int, n: int, doc: str | None, annots: list[str], out: list[Decl]
    ) -> int:
        kind = self.t[j].text
        k = j + 1
        if kind == "extension" and k < n and self.t[k].text == "type":
            kind, k = "extension type", k + 1
            while k < n and self.t[k].text == "const":
                k += 1
        name = self.t[k].text if k < n and self.t[k].kind == "word" else ""
        if kind == "extension" and name == "on":
            name = ""  # (an unnamed extension: dartdoc shows none)
        # the header: to the body's `{` (a class alias `class A = B with C;` ends at `;`)
        h = k
        while h < n and self.t[h].text not in ("{", ";"):
            h = self._close(h, n) if self.t[h].kind == "open" and self.t[h].text != "{" else h + 1
        signature = self._text(start, h)
        members: list[Decl] = []
        end = h + 1
        if h < n and self.t[h].text == "{":
            end = self._close(h, n)
            self._body(h + 1, end - 1, name, kind == "enum", members)
        params: tuple[Param, ...] = ()
        if kind == "extension type" and k + 1 < n and self.t[k + 1].text == "(":
            params = self._params(k + 1, n)
        self._add(out, Decl(kind, name, signature, doc, tuple(annots), params, "",
                            self.t[start].line, tuple(members)))  # fmt: skip
        return end

    def _body(self, i: int, n: int, owner: str, enum: bool, out: list[Decl]) -> None:
        if enum:
            while i < n:
                doc, annots, i = self._lead(i, n, semis=False)
                if i >= n or self.t[i].text == ";":
                    i += 1
                    break
                end = i + 1
                while end < n and self.t[end].text not in (",", ";") and self.t[end].text != "}":
                    end = self._close(end, n) if self.t[end].kind == "open" else end + 1
                if self.t[i].kind == "word":
                    self._add(out, Decl("value", self.t[i].text, self._text(i, end), doc,
                                        tuple(annots), (), "", self.t[i].line))  # fmt: skip
                i = end + 1 if end < n and self.t[end].text == "," else end
                if end < n and self.t[end].text == ";":
                    i = end + 1
                    break
        while i < n and self.count < MAX_DECLS:
            doc, annots, i = self._lead(i, n)
            if i >= n:
                break
            i = self._member(i, n, doc, annots, owner, out)

    def _member(
        self, start: int, n: int, doc: str | None, annots: list[str], owner: str, out: list[Decl]
    ) -> int:
        """A function, variable, constructor, method, getter, setter, operator or field."""
        i = start
        depth = 0
        stop = n
        while i < n:
            tok = self.t[i]
            if depth == 0 and tok.text == "operator":
                i += 1  # (`operator ==`, `operator []=`: the operator is no `=`)
                while i < n and self.t[i].text not in ("(",):
                    i += 1
                continue
            if tok.kind == "open":
                if tok.text == "{" and depth == 0:
                    stop = i
                    break
                depth += 1
            elif tok.kind == "close":
                if depth == 0:
                    stop = i
                    break
                depth -= 1
            elif depth == 0 and tok.text in (";", "=>", "="):
                stop = i
                break
            i += 1
        head = self.t[start:stop]
        end = stop
        if stop < n:
            if self.t[stop].text == "{":
                end = self._close(stop, n)
            elif self.t[stop].text in ("=>", "="):
                end = self._to(stop, n, ";") + 1
            elif self.t[stop].text == ";":
                end = stop + 1
            else:
                end = stop + 1  # (a stray closing bracket)
        if not head:
            return max(end, start + 1)
        decl = self._classify(start, stop, head, owner, doc, annots)
        if decl is not None:
            self._add(out, decl)
        return max(end, start + 1)

    def _classify(
        self,
        start: int,
        stop: int,
        head: list[Token],
        owner: str,
        doc: str | None,
        annots: list[str],
    ) -> Decl | None:
        words = [x.text for x in head]
        static = "static" in words[:3]
        line = head[0].line
        signature = self._text(start, stop)
        # the parameter list: the first `(` at depth 0 outside type arguments, not a
        # function type's (`void Function(int) f`)
        angle = 0
        paren = None
        skip = words.index("operator") + 2 if "operator" in words else 0  # (`operator <(…)`)
        for k, x in enumerate(head):
            if k < skip:
                continue
            if x.text == "<":
                angle += 1
            elif x.text == ">" and angle:
                angle -= 1
            elif x.text == "(" and angle == 0 and (k == 0 or head[k - 1].text != "Function"):
                paren = k
                break
        lead = words[: paren if paren is not None else len(words)]
        kind_word = ""
        for w in ("get", "set", "operator"):
            if w in lead[:-1] or (w == "operator" and w in lead):
                kind_word = w  # (a keyword, not a method named `get`: a name follows it)
        if paren is None:
            if kind_word == "get":
                name = words[-1]
                ret = self._type_of(head[: lead.index("get")])
                return Decl("getter", name, signature, doc, tuple(annots), (), ret, line,
                            static=static)  # fmt: skip
            name = next((x.text for x in reversed(head) if x.kind == "word"), "")
            if name in _MEMBER_MODIFIERS or not name:
                return None
            ret = self._type_of(head[:-1])
            kind = "field" if owner else "variable"
            return Decl(kind, name, signature, doc, tuple(annots), (), ret, line, static=static)
        params = self._params(start + paren, start + len(head) + 1)
        # (shown to its parameter list's end: no `async`, initializer list or redirection)
        signature = self._text(start, min(self._close(start + paren, stop), stop))
        if kind_word == "operator":
            at = lead.index("operator")
            name = "operator " + "".join(lead[at + 1 :])
            ret = self._type_of(head[:at])
            return Decl("operator", name, signature, doc, tuple(annots), params, ret, line)
        if kind_word == "set":
            at = lead.index("set")
            name = "".join(lead[at + 1 :])
            return Decl("setter", name, signature, doc, tuple(annots), params, "", line,
                        static=static)  # fmt: skip
        # the name: `Foo`, `Foo.named`, `get`; type arguments of a generic function dropped
        k = paren - 1
        if k >= 0 and words[k] == ">":
            nest = 0
            while k >= 0:
                nest += words[k] == ">"
                nest -= words[k] == "<"
                k -= 1
                if nest == 0:
                    break
        if k < 0 or head[k].kind != "word":
            return None
        name = words[k]
        prefix: list[str] = self._strip(words[:k])
        if owner and (name == owner or (len(prefix) >= 2 and prefix[-1] == "." and
                                        prefix[-2] == owner)):  # fmt: skip
            ctor = "new" if name == owner else name
            return Decl("constructor", f"{owner}.{ctor}", signature, doc, tuple(annots), params,
                        "", line)  # fmt: skip
        if not owner and len(prefix) >= 2 and prefix[-1] == ".":
            return None  # (an extension type's or class's constructor outside it: malformed)
        kind = "method" if owner else "function"
        returns = self._type_of(head[:k])
        return Decl(kind, name, signature, doc, tuple(annots), params, returns, line,
                    static=static)  # fmt: skip

    def _type_of(self, toks: list[Token]) -> str:
        """The type written before a name, its modifiers left out."""
        k = 0
        while k < len(toks) and toks[k].text in _MEMBER_MODIFIERS:
            k += 1
        return self._text_of(toks[k:])

    @staticmethod
    def _strip(words: list[str]) -> list[str]:
        return [w for w in words if w not in _MEMBER_MODIFIERS]

    def _params(self, i: int, n: int) -> tuple[Param, ...]:
        """The parameters of the list whose `(` is at `i`."""
        end = min(self._close(i, n), n) - 1
        out: list[Param] = []
        kind = "positional"
        cur: list[Token] = []
        depth = 0
        for tok in self.t[i + 1 : end]:
            if depth == 0 and tok.text in ("[", "{") and not cur:
                kind = "optional" if tok.text == "[" else "named"
                continue
            if depth == 0 and tok.text in ("]", "}"):
                continue
            if tok.kind == "open" or tok.text == "<":
                depth += 1  # (`Map<String, int> m`: a type's commas separate no parameters)
            elif tok.kind == "close" or (tok.text == ">" and depth > 0):
                depth -= 1
            if depth == 0 and tok.text == ",":
                out.extend(self._param(cur, kind))
                cur = []
                continue
            if depth > MAX_NESTING:
                break
            cur.append(tok)
        out.extend(self._param(cur, kind))
        return tuple(out[:256])

    def _param(self, toks: list[Token], kind: str) -> list[Param]:
        toks = [x for x in toks if x.kind != "annot"]
        if not toks:
            return []
        default = ""
        depth = 0
        for k, x in enumerate(toks):
            if x.kind == "open":
                depth += 1
            elif x.kind == "close":
                depth -= 1
            elif depth == 0 and x.text in ("=", ":"):
                default = self._text_of(toks[k + 1 :])
                toks = toks[:k]
                break
        required = kind == "positional"
        if toks and toks[0].text == "required":
            required, toks = True, toks[1:]
        toks = [x for x in toks if x.text not in ("covariant", "final", "var")]
        # a function-typed parameter (`void onData(T event)`): its name before its `(`
        paren = next(
            (
                k
                for k, x in enumerate(toks)
                if x.text == "(" and k and toks[k - 1].kind == "word"
                and toks[k - 1].text != "Function"
            ),
            None,
        )  # fmt: skip
        if paren is not None:
            name = toks[paren - 1].text
            typ = self._text_of(toks[: paren - 1] + toks[paren:])
        else:
            words = [k for k, x in enumerate(toks) if x.kind == "word"]
            if not words:
                return []
            at = words[-1]
            name = toks[at].text
            typ = self._text_of(toks[:at])
            if typ.endswith(("this.", "super.")):
                typ = ""
        return [Param(name, typ.strip(), kind, required, default)]

    def _text_of(self, toks: list[Token]) -> str:
        if not toks:
            return ""
        return " ".join(self.src[toks[0].start : toks[-1].end].split())
