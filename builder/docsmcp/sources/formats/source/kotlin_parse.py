"""The declarations of a Kotlin file, as Dokka reads them, from its tokens (kotlin_lex.py): the
package, the imports, and each declaration (class, interface, object, enum class, typealias,
function, property; in a class body also constructors, companion objects, enum entries and
nested types) with its KDoc comment, modifiers, annotations, receiver (`fun String.toX()`) and
declaration as one line of source (`fun readTimeout(timeout: Long, unit: TimeUnit): Builder`,
without bodies or initializers, but a `const`'s value).

Kotlin has no semicolons: a declaration ends at a line break outside brackets unless the line
plainly continues (it ends in an operator or `,`, or the next starts with `.`, `?:`, `&&`…).
Bodies (functions', initializers, lambdas, getters) are skipped as bracket groups, so only
declarations are read. The walk always advances, types nest at most MAX_DEPTH deep and at most
MAX_MEMBERS declarations are read: broken or hostile code ends in time, giving what was read.
"""

from __future__ import annotations

from docsmcp.sources.formats.source.kotlin_lex import tokens
from docsmcp.sources.formats.source.kotlin_syntax import (
    MODIFIERS,
    VISIBILITY,
    Decl,
    Unit,
    joined,
    supertypes,
)
from docsmcp.sources.formats.source.token_groups import Token, group_end

MAX_DEPTH = 12  # types nested in types, at most
MAX_MEMBERS = 5000  # declarations read from one file, at most
# A line ending in one of these goes on; a line starting with one of these continues the last.
_GOES_ON = frozenset("= . , : + - * / % && || ?: ?. -> == != <= >= as is in ..".split())
_CONTINUES = frozenset(". ?. ?: && || : , = -> as is .. where".split()) | {"as?"}
_DECL_KEYWORDS = frozenset({"class", "interface", "object", "fun", "val", "var", "typealias"})


class _Parser:
    def __init__(self, source: str) -> None:
        self.toks = tokens(source)
        self.count = 0

    # --- ends --------------------------------------------------------------------------
    def statement_end(self, i: int, end: int) -> int:
        """The index after the expression or header starting at `i`: it runs over bracket
        groups and lines that plainly go on, to a line break or a `;` at its level, or to a
        closer of an outer group (`end` at most)."""
        toks = self.toks
        if (
            0 < i < end
            and toks[i].line > toks[i - 1].line  # (a line break right before it)
            and not (toks[i - 1].text in _GOES_ON or toks[i].text in _CONTINUES)
        ):
            return i
        k = i
        while k < end:
            t = toks[k]
            if t.kind == "open":
                k = group_end(toks, k, end)
                t = toks[k - 1]  # (the group's closer: a line break after it may end it)
            elif t.kind == "close" or t.text == ";":
                return k
            else:
                k += 1
            if k < end and toks[k].line > t.line:
                nxt = toks[k]
                if not (t.text in _GOES_ON or nxt.text in _CONTINUES):
                    return k
        return end

    def angle_end(self, i: int, end: int) -> int:
        """The index after the `>` closing the type parameters opening at `toks[i]` (`<`)."""
        toks = self.toks
        depth = 0
        k = i
        while k < end:
            t = toks[k]
            if t.kind == "open":
                k = group_end(toks, k, end)
                continue
            if t.text == "<":
                depth += 1
            elif t.text == ">":
                depth -= 1
                if depth <= 0:
                    return k + 1
            elif t.kind == "close" or t.text in ("{", "=", ";"):
                return k
            k += 1
        return end

    # --- reading -----------------------------------------------------------------------
    def annotation(self, i: int, end: int) -> tuple[str, int]:
        """The annotation at `i` (`@` then a name, a use-site target, arguments): its name and
        the index after it. `@[A B]` is read whole."""
        toks = self.toks
        j = i + 1
        if j < end and toks[j].text == "[":
            return "", group_end(toks, j, end)
        name = toks[j].text if j < end else ""
        j += 1
        if j + 1 < end and toks[j].text == ":" and toks[j + 1].kind == "ident":
            name = toks[j + 1].text  # (`@file:JvmName`, `@get:JvmStatic`)
            j += 2
        while j + 1 < end and toks[j].text == "." and toks[j + 1].kind == "ident":
            name += "." + toks[j + 1].text
            j += 2
        if j < end and toks[j].text == "<":
            j = self.angle_end(j, end)
        if j < end and toks[j].text == "(" and toks[j].line == toks[j - 1].line:
            j = group_end(toks, j, end)
        return name, j

    def body(self, start: int, end: int, depth: int, owner: str = "") -> list[Decl]:
        """The declarations between `start` and `end` (a file, or a class body's inside)."""
        toks = self.toks
        out: list[Decl] = []
        i = start
        doc: Token | None = None
        if owner == "enum":
            i, entries = self.enum_entries(i, end)
            out += entries
        while i < end and self.count < MAX_MEMBERS:
            t = toks[i]
            if t.kind == "doc":
                doc = t
                i += 1
                continue
            first = i
            annotations: list[tuple[str, str]] = []
            modifiers: set[str] = set()
            while i < end:
                t = toks[i]
                if t.text == "@" and i + 1 < end and toks[i + 1].kind in ("ident", "open"):
                    name, after = self.annotation(i, end)
                    annotations.append((name, joined(toks[i:after])))
                    i = after
                elif (
                    t.kind == "ident"
                    and t.text in MODIFIERS
                    and i + 1 < end
                    and (toks[i + 1].kind == "ident" or toks[i + 1].text in ("@", "<"))
                ):
                    modifiers.add(t.text)
                    i += 1
                elif t.text == "fun" and i + 1 < end and toks[i + 1].text == "interface":
                    modifiers.add("fun")
                    i += 1
                elif t.kind == "doc":  # (a comment after annotations: Dokka reads it)
                    doc = t
                    i += 1
                else:
                    break
            if i >= end:
                break
            t = toks[i]
            decl: Decl | None = None
            if t.text == "package" and depth == 0:
                i = self.skip_line(i, end)
                doc = None
                continue
            if t.text == "import" and depth == 0:
                i = self.skip_line(i, end)
                doc = None
                continue
            if t.text in ("class", "interface") or (t.text == "object" and i + 1 < end):
                decl, i = self.type_decl(first, i, end, depth, modifiers)
            elif t.text == "fun":
                decl, i = self.function(first, i, end, owner)
            elif t.text in ("val", "var"):
                decl, i = self.property(first, i, end)
            elif t.text == "constructor":
                decl, i = self.constructor(first, i, end)
            elif t.text == "typealias":
                decl, i = self.typealias(first, i, end)
            elif t.kind == "open":
                i = group_end(toks, i, end)  # (`init { }`, a stray block)
            else:
                i += 1
            if decl is None:
                if i == first:
                    i += 1
                if t.text not in ("init",):
                    doc = None
                continue
            decl.modifiers = frozenset(modifiers)
            decl.annotations = tuple(annotations)
            decl.line = toks[first].line
            if doc is not None:
                decl.doc, decl.doc_line = doc.text, doc.line
            else:
                decl.doc_line = decl.line
            doc = None
            self.count += 1
            out.append(decl)
        return out

    def skip_line(self, i: int, end: int) -> int:
        line = self.toks[i].line
        while i < end and self.toks[i].line == line:
            i += 1
        return i

    def header(self, first: int, i: int, stop: int) -> str:
        """A declaration's source `first`..`stop` as one line, without its annotations."""
        toks = self.toks
        shown: list[Token] = []
        k = first
        while k < stop:
            if toks[k].text == "@" and k + 1 < stop and toks[k + 1].kind in ("ident", "open"):
                k = self.annotation(k, stop)[1]
                continue
            if toks[k].kind != "doc":
                shown.append(toks[k])
            k += 1
        return joined(shown)

    def params(self, i: int, end: int) -> list[tuple[str, str, str, frozenset[str]]]:
        """The parameters of the group opening at `toks[i]` (`(`): (name, type, default, the
        words before the name: `val`, `private`, `vararg`) each."""
        toks = self.toks
        close = group_end(toks, i, end) - 1
        out: list[tuple[str, str, str, frozenset[str]]] = []
        k = i + 1
        while k < close:
            words: set[str] = set()
            while k < close:
                t = toks[k]
                if t.text == "@" and k + 1 < close and toks[k + 1].kind in ("ident", "open"):
                    k = self.annotation(k, close)[1]
                elif t.kind == "doc":
                    k += 1
                elif (
                    t.kind == "ident"
                    and (t.text in MODIFIERS or t.text in ("val", "var"))
                    and k + 1 < close
                    and toks[k + 1].kind == "ident"
                ):
                    words.add(t.text)
                    k += 1
                else:
                    break
            name_at, colon, eq, depth = k, -1, -1, 0
            while k < close and not (toks[k].text == "," and depth == 0):
                t = toks[k]
                if t.kind == "open":
                    k = group_end(toks, k, close)
                    continue
                if eq < 0 and t.text == "<":
                    depth += 1
                elif eq < 0 and t.text == ">" and depth:
                    depth -= 1
                elif t.text == ":" and colon < 0 and depth == 0:
                    colon = k
                elif t.text == "=" and eq < 0 and depth == 0:
                    eq = k
                k += 1
            if name_at < k and toks[name_at].kind == "ident":
                typed = colon == name_at + 1
                ptype = joined(toks[colon + 1 : eq if eq >= 0 else k]) if typed else ""
                default = joined(toks[eq + 1 : k]) if eq >= 0 else ""
                out.append((toks[name_at].text, ptype, default, frozenset(words)))
            k += 1
        return out

    def type_decl(
        self, first: int, i: int, end: int, depth: int, modifiers: set[str]
    ) -> tuple[Decl | None, int]:
        toks = self.toks
        keyword = toks[i].text
        k = i + 1
        if keyword == "object" and (k >= end or toks[k].kind != "ident"):
            name = "Companion" if "companion" in modifiers else ""
        else:
            name = toks[k].text if k < end and toks[k].kind == "ident" else ""
            k += 1
        if not name:  # (an object expression)
            return None, k
        kind = keyword
        if "enum" in modifiers:
            kind = "enum"
        elif "annotation" in modifiers:
            kind = "annotation"
        decl = Decl(kind, name, toks[first].line)
        if k < end and toks[k].text == "<":
            k = self.angle_end(k, end)
        ctor_doc: Token | None = None
        if k + 1 < end and toks[k].kind == "doc":  # (kotlinx': the constructor's own KDoc)
            j = k + 1
            while j < end and (toks[j].text in VISIBILITY or toks[j].text in MODIFIERS):
                j += 1
            if j < end and toks[j].text == "constructor":
                ctor_doc, k = toks[k], k + 1
        head_end = k
        # the primary constructor: `internal constructor(…)`, `(val a: Int)`
        while (
            k < end
            and toks[k].kind == "ident"
            and (toks[k].text in VISIBILITY or toks[k].text in ("constructor", "actual", "expect"))
        ):
            k += 1
        while k < end and toks[k].text == "@":
            k = self.annotation(k, end)[1]
            if k < end and toks[k].text == "constructor":
                k += 1
        ctor_visibility = {toks[x].text for x in range(head_end, k)} & set(VISIBILITY)
        if k < end and toks[k].text == "(" and toks[k].line == toks[k - 1].line:
            params = self.params(k, end)
            ctor = Decl("constructor", name, toks[first].line)
            ctor.params = tuple((n, t, d) for n, t, d, _ in params)
            ctor.modifiers = frozenset(ctor_visibility)
            shown = ", ".join(f"{n}: {t}" + (f" = {d}" if d else "") for n, t, d in ctor.params)
            ctor.declaration = f"constructor({shown})"
            ctor.doc_line = ctor.line
            if ctor_doc is not None:
                ctor.doc, ctor.doc_line = ctor_doc.text, ctor_doc.line
            decl.members.append(ctor)
            for pname, ptype, _, words in params:
                if "val" in words or "var" in words:  # (a property declared in the header)
                    prop = Decl("property", pname, toks[first].line, returns=ptype)
                    prop.modifiers = frozenset(w for w in words if w in MODIFIERS)
                    keyword_ = "var" if "var" in words else "val"
                    prop.declaration = f"{keyword_} {pname}: {ptype}"
                    prop.doc_line = prop.line
                    prop.in_header = True
                    decl.members.append(prop)
            k = group_end(toks, k, end)
        # supertypes and `where`, to the body or the end of the header
        stop = self.statement_end(k, end)
        body = -1
        x = k
        while x < min(stop + 1, end):
            if toks[x].text == "{" and toks[x].kind == "open":
                body = x
                break
            if toks[x].kind == "open":
                x = group_end(toks, x, end)
                continue
            x += 1
        head_stop = body if body >= 0 else stop
        if k < head_stop and toks[k].text == ":":
            decl.supertypes = supertypes(toks[k + 1 : head_stop])
        decl.declaration = self.header(first, i, head_stop)
        if body < 0:
            return decl, max(head_stop, i + 1)
        close = group_end(toks, body, end)
        if depth < MAX_DEPTH:
            decl.members += self.body(body + 1, close - 1, depth + 1, kind)
        return decl, close

    def enum_entries(self, i: int, end: int) -> tuple[int, list[Decl]]:
        """An enum class's entries (`A, B("b") { … }, C;`): the index after them and each entry."""
        toks = self.toks
        out: list[Decl] = []
        doc: Token | None = None
        while i < end:
            t = toks[i]
            if t.kind == "doc":
                doc = t
                i += 1
                continue
            if t.text == "@":
                i = self.annotation(i, end)[1]
                continue
            if t.kind != "ident" or t.text in _DECL_KEYWORDS or t.text in MODIFIERS:
                break
            entry = Decl("entry", t.text, t.line, declaration=t.text)
            if doc is not None:
                entry.doc, entry.doc_line = doc.text, doc.line
            else:
                entry.doc_line = t.line
            doc = None
            out.append(entry)
            i += 1
            if i < end and toks[i].text == "(":
                i = group_end(toks, i, end)
            if i < end and toks[i].text == "{":
                i = group_end(toks, i, end)
            if i < end and toks[i].text == ",":
                i += 1
                continue
            if i < end and toks[i].text == ";":
                i += 1
            break
        return i, out

    def receiver_and_name(self, k: int, stop: int) -> tuple[str, str, int]:
        """`Receiver.name` (or `name`) of a function or property from `k`: the receiver as
        written, the name, and the index after the name."""
        toks = self.toks
        last = -1
        x = k
        depth = 0
        while x < stop:
            t = toks[x]
            if t.kind == "open" and t.text != "(":
                break
            if (
                t.text == "("
                and depth == 0
                and x > k
                and toks[x - 1].kind == "ident"
                and (x - 2 < k or toks[x - 2].text in (".", "fun") or x - 1 == k)
            ):
                break
            if t.kind == "open":
                x = group_end(toks, x, stop)
                continue
            if t.text == "<":
                depth += 1
            elif t.text == ">":
                depth -= 1
            elif depth == 0 and t.text in (":", "=", "by"):
                break
            elif depth == 0 and t.kind == "ident":
                last = x
            x += 1
        if last < 0:
            return "", "", x
        receiver = joined(toks[k : last - 1]) if last - 1 > k and toks[last - 1].text == "." else ""
        return receiver, toks[last].text, last + 1

    def function(self, first: int, i: int, end: int, owner: str) -> tuple[Decl | None, int]:
        toks = self.toks
        k = i + 1
        if k < end and toks[k].text == "<":
            k = self.angle_end(k, end)
        receiver, name, k = self.receiver_and_name(k, self.statement_end(k, end))
        if not name or k >= end or toks[k].text != "(":
            return None, max(k, i + 1)
        params = tuple((n, t, d) for n, t, d, _ in self.params(k, end))
        k = group_end(toks, k, end)
        stop = self.statement_end(k, end)
        # the declaration runs to the body (`{` or `=`) of the function
        x = k
        returns = ""
        body_at = stop
        while x < stop:
            t = toks[x]
            if t.text in ("=", "{"):
                body_at = x
                break
            if t.kind == "open":
                x = group_end(toks, x, stop)
                continue
            x += 1
        if k < body_at and toks[k].text == ":":
            tail = toks[k + 1 : body_at]
            where = next((j for j, t in enumerate(tail) if t.text == "where"), len(tail))
            returns = joined(tail[:where])
        decl = Decl("function", name, toks[first].line, receiver=receiver, params=params)
        decl.returns = returns
        decl.declaration = self.header(first, i, body_at)
        if body_at + 1 < stop and toks[body_at].text == "=":
            decl.expression = toks[body_at + 1].text
        if body_at < end and toks[body_at].text == "{":
            close = group_end(toks, body_at, end)
            decl.body = (toks[body_at].end, toks[close - 1].start if close - 1 > body_at else 0)
            return decl, close
        return decl, max(stop, i + 1)

    def property(self, first: int, i: int, end: int) -> tuple[Decl | None, int]:
        toks = self.toks
        k = i + 1
        if k < end and toks[k].text == "<":
            k = self.angle_end(k, end)
        if k < end and toks[k].text == "(":  # (a destructuring declaration)
            return None, self.statement_end(k, end)
        receiver, name, k = self.receiver_and_name(k, self.statement_end(k, end))
        if not name:
            return None, max(k, i + 1)
        stop = self.statement_end(k, end)
        x = k
        init = stop
        while x < stop:
            if (
                toks[x].text in ("=", "by")
                or toks[x].text == "{"
                or (
                    toks[x].text in ("get", "set")
                    and x + 1 < stop
                    and toks[x + 1].text in ("(", "=")
                )
            ):
                init = x
                break
            if toks[x].kind == "open":
                x = group_end(toks, x, stop)
                continue
            x += 1
        returns = joined(toks[k + 1 : init]) if k < init and toks[k].text == ":" else ""
        decl = Decl("property", name, toks[first].line, receiver=receiver, returns=returns)
        head = self.header(first, i, init)
        const = any(toks[x].text == "const" for x in range(first, i))
        if const and init < stop and toks[init].text == "=":
            head += " = " + joined(toks[init + 1 : stop])
        decl.declaration = head
        i = max(stop, i + 1)
        return decl, self.accessors(i, end)

    def accessors(self, i: int, end: int) -> int:
        """The index after a property's getter and setter lines (`get() = …`, `private set`)."""
        toks = self.toks
        while i < end:
            k = i
            while k < end and (toks[k].text in MODIFIERS or toks[k].text == "@"):
                k = self.annotation(k, end)[1] if toks[k].text == "@" else k + 1
            if (
                k < end
                and toks[k].text in ("get", "set")
                and (
                    k + 1 >= end
                    or toks[k + 1].text in ("(", "=", "{")
                    or toks[k + 1].line > toks[k].line
                )
            ):
                i = self.statement_end(k + 1, end) if k + 1 < end else end
                if i < end and toks[i].text == "{":
                    i = group_end(toks, i, end)
                continue
            return i
        return i

    def constructor(self, first: int, i: int, end: int) -> tuple[Decl | None, int]:
        toks = self.toks
        k = i + 1
        if k >= end or toks[k].text != "(":
            return None, k
        params = tuple((n, t, d) for n, t, d, _ in self.params(k, end))
        close = group_end(toks, k, end)
        decl = Decl("constructor", "", toks[first].line, params=params)
        decl.declaration = self.header(first, i, close)
        stop = self.statement_end(close, end)
        x = close
        while x < stop and toks[x].text != "{":
            x = group_end(toks, x, stop) if toks[x].kind == "open" else x + 1
        if x < end and toks[x].text == "{":
            return decl, group_end(toks, x, end)
        return decl, max(stop, i + 1)

    def typealias(self, first: int, i: int, end: int) -> tuple[Decl | None, int]:
        toks = self.toks
        if i + 1 >= end or toks[i + 1].kind != "ident":
            return None, i + 1
        stop = self.statement_end(i + 1, end)
        decl = Decl("typealias", toks[i + 1].text, toks[first].line)
        decl.declaration = self.header(first, i, stop)
        return decl, max(stop, i + 1)


def parse(source: str) -> Unit:
    """The declarations of the Kotlin file `source` (see the module's docstring)."""
    p = _Parser(source)
    toks = p.toks
    unit = Unit()
    file_annotations: list[str] = []
    for k, t in enumerate(toks[:4000]):  # (the header: annotations, package, imports)
        if t.text == "@" and k + 2 < len(toks) and toks[k + 1].text == "file":
            if toks[k + 2].text == ":" and k + 3 < len(toks):
                file_annotations.append(toks[k + 3].text)
        elif t.text == "package" and k + 1 < len(toks) and toks[k + 1].kind == "ident":
            names = [toks[k + 1].text]
            j = k + 2
            while j + 1 < len(toks) and toks[j].text == "." and toks[j].line == t.line:
                names.append(toks[j + 1].text)
                j += 2
            unit.package, unit.package_line = ".".join(names), t.line
        elif t.text == "import" and k + 1 < len(toks) and toks[k + 1].kind == "ident":
            names = [toks[k + 1].text]
            j = k + 2
            while j + 1 < len(toks) and toks[j].text == "." and toks[j].line == t.line:
                names.append(toks[j + 1].text)
                j += 2
            alias = names[-1]
            if j + 1 < len(toks) and toks[j].text == "as" and toks[j].line == t.line:
                alias = toks[j + 1].text
            if alias != "*":
                unit.imports[alias] = ".".join(names)
        elif t.text in _DECL_KEYWORDS:  # (no package or import comes after a declaration)
            break
    unit.file_annotations = tuple(file_annotations)
    unit.declarations = p.body(0, len(toks), 0)
    return unit
