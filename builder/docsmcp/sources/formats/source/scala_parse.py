"""The declarations of a Scala file as Scaladoc lists them, from its tokens (scala_lex.py).

A declaration is read from its annotations and modifiers to the start of its body: classes,
case classes, traits, objects, package objects, Scala 3 enums and their cases, `def`, `val`,
`var`, `type`, `given` and the methods of an `extension`. Bodies are skipped, except a template's
(`{ … }`, or Scala 3's `:`/`with` at a line's end and the lines indented below), whose
declarations are the type's members. Where a declaration or an expression ends is told by the
brackets, `;`, and indentation: a line starting at or left of the declaration's column ends it
unless it continues the header (`extends`, `with`, `derives`, `:`, `=`, or after `,`/`=>`).

Everything is bounded by the token list: each token is looked at a fixed number of times, and a
bracket's match comes from one table (an unclosed bracket runs to the end of the file).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from docsmcp.sources.formats.source.scala_lex import Token, tokenize

MODIFIERS = frozenset(
    "private protected final sealed abstract implicit lazy override inline opaque open "
    "transparent infix erased".split()
)
_TYPE_KINDS = frozenset({"class", "trait", "object", "enum"})
_MEMBER_KINDS = frozenset({"def", "val", "var", "type", "given"})
_CONTINUE_NEXT = frozenset({"extends", "with", "derives", ":", "=", "<:", ">:", "|", "&"})
_CONTINUE_PREV = frozenset({",", ":", "=>", "<:", ">:", "extends", "with", "|", "&", "?=>", "="})
MAX_DEPTH = 24  # templates read inside templates, at most


@dataclass
class Decl:
    kind: str  # class, trait, object, enum, case (an enum's), def, val, var, type, given, package
    name: str
    signature: str
    line: int  # 0-based line of the keyword
    col: int
    doc: str | None = None
    doc_line: int = -1
    modifiers: tuple[str, ...] = ()  # `case`, `implicit`, `private[x]`, …
    annotations: tuple[str, ...] = ()  # as written, without the `@`
    params: tuple[tuple[str, str], ...] = ()  # (name, type) of the value parameters
    tparams: tuple[str, ...] = ()
    returns: str = ""
    parents: tuple[str, ...] = ()  # the types after `extends`/`with`, without arguments
    members: list[Decl] = field(default_factory=list)
    extension: str = ""  # `extension (x: A)` of an extension method
    end_line: int = 0

    @property
    def hidden(self) -> bool:
        """What Scaladoc does not show: private members, `private[x]`, `protected[this]`."""
        return any(m.startswith("private") or m == "protected[this]" for m in self.modifiers)

    @property
    def is_type(self) -> bool:
        return self.kind in _TYPE_KINDS or self.kind == "package"


@dataclass
class Unit:
    package: str = ""
    package_line: int = 0
    decls: list[Decl] = field(default_factory=list)
    imports: dict[str, str] = field(default_factory=dict)  # simple name -> qualified


def _matches(toks: list[Token]) -> list[int]:
    """For each opening bracket, the index of its closing one (len(toks) when unclosed)."""
    out = [-1] * len(toks)
    stack: list[int] = []
    for k, t in enumerate(toks):
        if t.kind == "open":
            stack.append(k)
        elif t.kind == "close" and stack:
            out[stack.pop()] = k
    for k in stack:
        out[k] = len(toks)
    return out


class _Parser:
    def __init__(self, toks: list[Token]) -> None:
        self.toks = toks
        self.match = _matches(toks)
        self.unit = Unit()

    # --- moving over tokens -----------------------------------------------------------
    def after(self, k: int) -> int:
        """The index after the token at `k`, a bracket group taken whole."""
        if self.toks[k].kind == "open":
            return self.match[k] + 1
        return k + 1

    def ends_at(self, k: int, end: int, col: int) -> bool:
        """Whether a statement started at column `col` ends before token `k`: the scope's end,
        `;`, or a new line at or left of `col`."""
        if k >= end:
            return True
        t = self.toks[k]
        return t.text == ";" or t.kind == "close" or (t.first and t.col <= col)

    def skip_expr(self, k: int, end: int, col: int) -> int:
        """The index after the expression (or statement) starting at `k`."""
        while not self.ends_at(k, end, col):
            k = self.after(k)
        return min(k, end)

    def text(self, start: int, stop: int) -> str:
        """The tokens `start`..`stop` as one line, a space where the source had space."""
        parts: list[str] = []
        for k in range(start, min(stop, len(self.toks))):
            t = self.toks[k]
            if parts and t.start > self.toks[k - 1].end:
                parts.append(" ")
            parts.append(t.text)
        return "".join(parts)

    # --- scopes -----------------------------------------------------------------------
    def scope(self, k: int, end: int, package: str, depth: int, enum: bool = False) -> list[Decl]:
        out: list[Decl] = []
        toks = self.toks
        while k < end:
            t = toks[k]
            if t.kind == "close" or t.text == ";":
                k += 1
                continue
            col = t.col
            doc, doc_line = t.doc, t.doc_line
            annotations: list[str] = []
            modifiers: list[str] = []
            while k < end:
                t = toks[k]
                if t.text == "@" and k + 1 < end and toks[k + 1].kind in ("id", "kw"):
                    a = k + 1
                    k += 2
                    while k + 1 < end and toks[k].text == "." and toks[k + 1].kind == "id":
                        k += 2
                    while k < end and toks[k].text in ("(", "[") and not toks[k].first:
                        k = self.after(k)
                    annotations.append(self.text(a, k))
                elif t.text in MODIFIERS and (t.kind == "kw" or self.soft(k, end)):
                    k += 1
                    if t.text in ("private", "protected") and k < end and toks[k].text == "[":
                        modifiers.append(t.text + self.text(k, self.after(k)).replace(" ", ""))
                        k = self.after(k)
                    else:
                        modifiers.append(t.text)
                else:
                    break
            if k >= end:
                break
            t = toks[k]
            word = t.text
            if word == "package" and t.kind == "kw":
                k, clause = self.package(k, end, package, depth, out)
                if clause is not None:  # (a `package a.b` clause: the rest of the scope is in it)
                    package = clause
                continue
            if word == "case" and k + 1 < end and toks[k + 1].text in ("class", "object"):
                modifiers.append("case")
                k += 1
                word = toks[k].text
            decl: Decl | None = None
            if word in _TYPE_KINDS and toks[k].kind in ("kw", "id") and self.declares(k, end):
                decl, k = self.type_decl(k, end, col, package, depth)
            elif word in _MEMBER_KINDS and toks[k].kind in ("kw", "id") and self.declares(k, end):
                decl, k = self.member(k, end, col)
            elif word == "case" and enum:
                decls, k = self.enum_cases(k, end, col)
                for d in decls:
                    d.doc, d.doc_line = doc, doc_line
                    d.annotations = tuple(annotations)
                out += decls
                continue
            elif word == "extension" and k + 1 < end and toks[k + 1].text in ("(", "["):
                decls, k = self.extension(k, end, col, depth)
                out += decls
                continue
            else:
                k = self.skip_expr(self.after(k), end, col)
                continue
            if decl is None:
                continue
            decl.doc, decl.doc_line = doc, doc_line if doc is not None else decl.line
            decl.modifiers = tuple(modifiers)
            decl.annotations = tuple(annotations)
            if modifiers:
                decl.signature = " ".join(modifiers) + " " + decl.signature
            out.append(decl)
        return out

    def soft(self, k: int, end: int) -> bool:
        """Whether a soft modifier (`inline`, `opaque`, `open`…) is one: another modifier or a
        declaration's keyword follows it."""
        if k + 1 >= end:
            return False
        nxt = self.toks[k + 1].text
        return nxt in MODIFIERS or nxt in _TYPE_KINDS or nxt in _MEMBER_KINDS or nxt == "case"

    def declares(self, k: int, end: int) -> bool:
        """Whether the keyword at `k` starts a declaration (a name or, for `given`, a type
        follows it)."""
        if k + 1 >= end:
            return False
        nxt = self.toks[k + 1]
        if self.toks[k].text == "given":
            return nxt.kind in ("id", "open") or nxt.text == "["
        return nxt.kind == "id"

    def package(
        self, k: int, end: int, package: str, depth: int, out: list[Decl]
    ) -> tuple[int, str | None]:
        """Reads the package object, `package a { … }` block or `package a.b` clause at `k`:
        where the scope goes on, and for a clause the package the rest of the scope is in."""
        toks = self.toks
        if k + 1 < end and toks[k + 1].text == "object":
            decl, j = self.type_decl(k + 1, end, toks[k].col, package, depth, is_package=True)
            if decl is not None:
                decl.doc, decl.doc_line = toks[k].doc, toks[k].doc_line
                out.append(decl)
            return j, None
        j = k + 1
        names: list[str] = []
        while j < end and toks[j].kind in ("id", "kw"):
            names.append(toks[j].text.strip("`"))
            j += 1
            if j + 1 < end and toks[j].text == ".":
                j += 1
                continue
            break
        inner = ".".join([p for p in (package, ".".join(names)) if p])
        if j < end and toks[j].text == "{":
            close = min(self.match[j], end)
            if depth < MAX_DEPTH:
                out += self.scope(j + 1, close, inner, depth + 1)
            return close + 1, None
        if j < end and toks[j].text == ":" and j + 1 < end and toks[j + 1].first:
            stop = self.skip_expr(j + 1, end, toks[k].col)
            if depth < MAX_DEPTH:
                out += self.scope(j + 1, stop, inner, depth + 1)
            return stop, None
        if not self.unit.package or package == self.unit.package:
            self.unit.package = inner
            self.unit.package_line = toks[k].line
        return max(j, k + 1), inner

    # --- declarations -----------------------------------------------------------------
    def header_end(self, k: int, end: int, col: int, stops: frozenset[str],
                   template: bool = False) -> int:  # fmt: skip
        """The index of the token ending a header starting at `k`: one of `stops` at depth 0,
        a template's `{` (or with `template`, Scala 3's `:`/`with` ending a line above an
        indented body), or where the statement ends."""
        toks = self.toks
        while k < end:
            t = toks[k]
            if (t.text in stops and t.kind != "str") or t.text in (";", "{") or t.kind == "close":
                return k
            nxt = self.after(k)
            if nxt >= end:
                return end
            n = toks[nxt]
            if not n.first:
                k = nxt
                continue
            if template and t.text in (":", "with") and n.col > col:
                return k
            if n.text in _CONTINUE_NEXT or t.text in _CONTINUE_PREV:
                k = nxt
                continue
            return nxt
        return end

    def type_decl(self, k: int, end: int, col: int, package: str, depth: int,
                  is_package: bool = False) -> tuple[Decl | None, int]:  # fmt: skip
        toks = self.toks
        kind = toks[k].text
        j = k + 1
        if is_package:  # (`package object NAME`: `k` is `object`)
            kind = "package"
        if j >= end:
            return None, end
        name = toks[j].text.strip("`")
        stop = self.header_end(j + 1, end, col, frozenset(), template=True)
        body_at = stop if stop < end and toks[stop].text in (":", "with") else -1
        sig = self.text(k if not is_package else k - 1, stop)
        decl = Decl(kind, name, sig, toks[k].line, col)
        self.header(decl, j + 1, stop)
        nxt = stop
        if depth < MAX_DEPTH:
            if body_at >= 0:
                body_end = self.skip_expr(body_at + 1, end, col)
                decl.members = self.scope(body_at + 1, body_end, package, depth + 1,
                                          enum=kind == "enum")  # fmt: skip
                nxt = body_end
            elif stop < end and toks[stop].text == "{":
                close = min(self.match[stop], end)
                first = self.self_type(stop + 1, close)
                decl.members = self.scope(first, close, package, depth + 1, enum=kind == "enum")
                nxt = close + 1
        elif stop < end and toks[stop].text == "{":
            nxt = self.match[stop] + 1
        decl.end_line = toks[min(nxt, len(toks)) - 1].line if nxt > 0 else decl.line
        return decl, min(nxt, end) if nxt <= end else end

    def self_type(self, k: int, close: int) -> int:
        """The index after a template's self type (`self =>`, `self: T =>`), else `k`."""
        toks = self.toks
        if k >= close or toks[k].text not in ("this", "_") and toks[k].kind != "id":
            return k
        j = k + 1
        if j < close and toks[j].text == "=>":
            return j + 1
        if j < close and toks[j].text == ":":
            j += 1
            while j < close and toks[j].line == toks[k].line:
                if toks[j].text == "=>":
                    return j + 1
                j = self.after(j)
        return k

    def header(self, decl: Decl, k: int, stop: int) -> None:
        """Type parameters, the first value parameters and the parents of a type's header."""
        toks = self.toks
        if k < stop and toks[k].text == "[":
            decl.tparams = self._tparams(k)
            k = self.after(k)
        while k < stop and toks[k].kind != "open" and toks[k].text != "extends":
            k += 1  # (modifiers of a constructor: `private`, annotations)
        params: list[tuple[str, str]] = []
        while k < stop and toks[k].text == "(":
            params += self.params(k)
            k = self.after(k)
        decl.params = tuple(params)
        parents: list[str] = []
        while k < stop:
            if toks[k].text in ("extends", "with") and k + 1 < stop and toks[k + 1].kind == "id":
                j = k + 1
                name = toks[j].text
                while j + 2 < stop and toks[j + 1].text == "." and toks[j + 2].kind == "id":
                    j += 2
                    name += "." + toks[j].text
                parents.append(name)
                k = j + 1
                continue
            if toks[k].text == "," and parents and k + 1 < stop and toks[k + 1].kind == "id":
                parents.append(toks[k + 1].text)  # (Scala 3: `extends A, B`)
            k = self.after(k)
        decl.parents = tuple(parents)

    def _tparams(self, k: int) -> tuple[str, ...]:
        out: list[str] = []
        expect = True
        for j in range(k + 1, self.match[k]):
            t = self.toks[j]
            if t.kind == "open":
                expect = False
            if t.text == "," and self.depth_in(k, j) == 0:
                expect = True
            elif expect and t.kind == "id" and t.text not in ("+", "-"):
                out.append(t.text)
                expect = False
        return tuple(out)

    def depth_in(self, k: int, j: int) -> int:
        depth = 0
        for s in range(k + 1, j):
            depth += {"open": 1, "close": -1}.get(self.toks[s].kind, 0)
        return depth

    def params(self, k: int) -> list[tuple[str, str]]:
        """(name, type) of the parameters in the group opened at `k`."""
        toks = self.toks
        close = min(self.match[k], len(toks))
        out: list[tuple[str, str]] = []
        j = k + 1
        while j < close:
            start = j
            while j < close and toks[j].text != ",":
                j = self.after(j)
            parts = [s for s in range(start, min(j, close))]
            j += 1
            words = [s for s in parts if toks[s].text not in MODIFIERS | {"val", "var", "using"}]
            while words and toks[words[0]].text == "@":
                words = words[2:]
            if not words:
                continue
            colon = next((s for s in words if toks[s].text == ":"), -1)
            if colon < 0:  # (`using Ord[T]`: a type without a name)
                out.append(("", self.text(words[0], words[-1] + 1)))
                continue
            default = next((s for s in words if toks[s].text == "=" and s > colon), -1)
            type_end = default if default >= 0 else words[-1] + 1
            out.append((toks[words[0]].text.strip("`"), self.text(colon + 1, type_end)))
        return out

    def member(self, k: int, end: int, col: int) -> tuple[Decl | None, int]:
        toks = self.toks
        kind = toks[k].text
        if kind == "given":
            return self.given(k, end, col)
        j = k + 1
        if j >= end:
            return None, end
        if toks[j].kind != "id":  # (`val (a, b) = …`: a pattern, no member Scaladoc lists)
            return None, self.skip_expr(j, end, col)
        name = toks[j].text.strip("`")
        if kind in ("val", "var") and j + 1 < end and toks[j + 1].text == ",":
            return self.several(k, end, col)  # (`val a, b: Int`)
        stops = frozenset({"="}) if kind != "type" else frozenset()
        sig_stop = self.header_end(j + 1, end, col, stops)
        decl = Decl(kind, name, self.text(k, sig_stop), toks[k].line, col)
        m = j + 1
        if m < sig_stop and toks[m].text == "[":
            decl.tparams = self._tparams(m)
            m = self.after(m)
        params: list[tuple[str, str]] = []
        while m < sig_stop and toks[m].text == "(":
            params += self.params(m)
            m = self.after(m)
        decl.params = tuple(params)
        if m < sig_stop and toks[m].text == ":":
            decl.returns = self.text(m + 1, sig_stop)
        nxt = sig_stop
        if nxt < end and toks[nxt].text == "=":
            nxt = self.skip_expr(nxt + 1, end, col)
        elif nxt < end and toks[nxt].text == "{" and kind == "def":  # (procedure syntax)
            nxt = self.match[nxt] + 1
        decl.end_line = toks[min(nxt, len(toks)) - 1].line
        return decl, min(nxt, end)

    def several(self, k: int, end: int, col: int) -> tuple[Decl | None, int]:
        """`val a, b: Int = …`: the first name stands for all (the others are rare)."""
        toks = self.toks
        names = []
        j = k + 1
        while j < end and toks[j].kind == "id":
            names.append(toks[j].text)
            if j + 1 < end and toks[j + 1].text == ",":
                j += 2
                continue
            break
        stop = self.header_end(j + 1, end, col, frozenset({"="}))
        decl = Decl(toks[k].text, names[0] if names else "", self.text(k, stop), toks[k].line, col)
        if stop < end and toks[stop].text == "=":
            stop = self.skip_expr(stop + 1, end, col)
        decl.end_line = toks[max(stop - 1, 0)].line
        return decl, min(stop, end)

    def given(self, k: int, end: int, col: int) -> tuple[Decl | None, int]:
        """`given name: T with { … }`, `given T = …`, `given [A](using B): T with`: its name
        (written, or Scala 3's `given_T`), its header to `=`, `with`'s template or the end."""
        toks = self.toks
        stop = self.header_end(k + 1, end, col, frozenset({"=", "with"}))
        colon = next((s for s in range(k + 1, stop) if toks[s].text == ":"
                      and self.depth_in(k, s) == 0), -1)  # fmt: skip
        named = toks[k + 1].kind == "id" and (
            colon == k + 2 or colon > k + 2 and toks[k + 2].text in ("[", "(")
        )
        if named:  # (`given name: T`, `given name[A](using B): T`)
            name = toks[k + 1].text.strip("`")
            type_at = colon + 1
        else:
            type_at = colon + 1 if colon >= 0 else k + 1
            while type_at < stop and toks[type_at].text in ("[", "("):
                type_at = self.after(type_at)
            words = [t.text for t in toks[type_at:stop] if t.kind == "id"]
            name = "given_" + "_".join(words) if words else "given"
        decl = Decl("given", name, self.text(k, stop), toks[k].line, col)
        decl.returns = self.text(type_at, stop)
        nxt = stop
        if nxt < end and toks[nxt].text == "=":
            nxt = self.skip_expr(nxt + 1, end, col)
        elif nxt < end and toks[nxt].text == "with":
            if nxt + 1 < end and toks[nxt + 1].text == "{":
                nxt = self.match[nxt + 1] + 1
            else:
                nxt = self.skip_expr(nxt + 1, end, col)
        decl.end_line = toks[min(nxt, len(toks)) - 1].line
        return decl, min(nxt, end)

    def enum_cases(self, k: int, end: int, col: int) -> tuple[list[Decl], int]:
        """`case A, B` or `case C(x: Int) extends E(…)`: one declaration each."""
        toks = self.toks
        stop = self.skip_expr(k + 1, end, col)
        out: list[Decl] = []
        j = k + 1
        while j < stop and toks[j].kind == "id":
            d = Decl("case", toks[j].text.strip("`"), "", toks[j].line, col)
            s = j + 1
            while s < stop and toks[s].text in ("[", "("):
                if toks[s].text == "(":
                    d.params += tuple(self.params(s))
                s = self.after(s)
            if s < stop and toks[s].text == "extends":
                d.signature = self.text(k, stop) if not out else f"case {self.text(j, stop)}"
                d.end_line = toks[stop - 1].line
                out.append(d)
                break
            d.signature = f"case {self.text(j, s)}"
            d.end_line = toks[max(s - 1, j)].line
            out.append(d)
            if s < stop and toks[s].text == ",":
                j = s + 1
                continue
            break
        return out, stop

    def extension(self, k: int, end: int, col: int, depth: int) -> tuple[list[Decl], int]:
        """An `extension (x: A)` and the methods it holds (one, a `{ }` or an indented block),
        each with the clause."""
        toks = self.toks
        j = k + 1
        while j < end and toks[j].text in ("(", "["):
            j = self.after(j)
        clause = self.text(k, j)
        if j < end and toks[j].text == ":" and j + 1 < end and toks[j + 1].first:
            j += 1
        if j < end and toks[j].text == "{":
            close = min(self.match[j], end)
            decls = self.scope(j + 1, close, "", depth + 1)
            nxt = close + 1
        elif j < end and toks[j].first and toks[j].col > col:
            nxt = self.skip_expr(j, end, col)
            decls = self.scope(j, nxt, "", depth + 1)
        else:
            nxt = self.skip_expr(j, end, col) if j < end else end
            decls = self.scope(j, nxt, "", depth + 1)
        for d in decls:
            d.extension = clause
            d.signature = f"{clause} {d.signature}"
        return [d for d in decls if d.kind == "def"], min(nxt, end)

    def imports(self) -> None:
        """The file's `import a.b.C`, `import a.b.{C, D => E}` as simple name -> qualified."""
        toks = self.toks
        for k, t in enumerate(toks):
            if t.text != "import" or t.kind != "kw":
                continue
            parts: list[str] = []
            j = k + 1
            while j < len(toks) and toks[j].kind in ("id", "kw") and toks[j].line == t.line:
                parts.append(toks[j].text)
                if j + 1 < len(toks) and toks[j + 1].text == ".":
                    j += 2
                    continue
                break
            if len(parts) > 1 and parts[-1][:1].isupper():
                self.unit.imports.setdefault(parts[-1], ".".join(parts))
            elif j + 1 < len(toks) and toks[j + 1].text == "{" and parts:
                close = min(self.match[j + 1], len(toks))
                for s in range(j + 2, close):
                    if toks[s].kind == "id" and toks[s - 1].text in ("{", ","):
                        self.unit.imports.setdefault(toks[s].text, ".".join([*parts, toks[s].text]))


def parse(src: str) -> Unit:
    """The declarations of the Scala source `src` (see the module's docstring)."""
    toks = tokenize(src)
    p = _Parser(toks)
    p.unit.decls = p.scope(0, len(toks), "", 0)
    p.imports()
    return p.unit
