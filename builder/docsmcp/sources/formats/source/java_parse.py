"""The declarations of a Java compilation unit, as javadoc reads them, from its tokens
(java_lex.py): the package (and its doc comment, in `package-info.java`), the imports, and each
type (class, interface, enum, record, annotation type) with its members (fields, enum
constants, constructors, methods, annotation elements, nested types), each with its doc
comment, modifiers, annotations and declaration as one line of source.

Bodies (of methods, initializers, lambdas, anonymous classes) are skipped as bracket groups, so
only declarations are read. The walk always advances, nesting is bounded by MAX_DEPTH and the
members read by MAX_MEMBERS: broken or hostile code ends in time, giving what was read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from docsmcp.sources.formats.source.java_lex import tokens
from docsmcp.sources.formats.source.token_groups import Token, group_end

MAX_DEPTH = 12  # types nested in types, at most
MAX_MEMBERS = 5000  # declarations read from one file, at most
MODIFIERS = frozenset(
    "public protected private static final abstract native synchronized transient volatile "
    "strictfp default sealed".split()
)
TYPE_KEYWORDS = {"class": "class", "interface": "interface", "enum": "enum", "record": "record"}
# Annotations javadoc does not show in a declaration (they are not @Documented).
HIDDEN_ANNOTATIONS = frozenset({"Override", "SuppressWarnings", "java.lang.Override"})
_NO_SPACE_BEFORE = frozenset(")],.;>[")
_NO_SPACE_AFTER = frozenset("([.<@")


@dataclass
class Decl:
    kind: str  # class, interface, enum, record, annotation; field, constant, constructor, method
    name: str
    line: int  # 0-based line of the declaration's first token (an annotation, a modifier)
    doc: str | None = None  # the doc comment's content
    markdown: bool = False  # a `///` comment (markdown) rather than `/** */` (HTML)
    doc_line: int = 0  # 0-based line where the doc comment starts
    modifiers: frozenset[str] = frozenset()
    annotations: tuple[str, ...] = ()
    declaration: str = ""  # `public Elements select(String cssQuery)`, one line
    params: tuple[tuple[str, str], ...] = ()  # (type, name) of a method's parameters
    returns: str = ""  # a method's return type, a field's type
    members: list[Decl] = field(default_factory=list)
    components: tuple[tuple[str, str], ...] = ()  # a record's (type, name)


@dataclass
class Unit:
    package: str = ""
    package_doc: str | None = None
    package_markdown: bool = False
    package_line: int = 0
    imports: dict[str, str] = field(default_factory=dict)  # simple name -> qualified name
    star_imports: tuple[str, ...] = ()  # `import org.jsoup.nodes.*;`: the packages
    types: list[Decl] = field(default_factory=list)


def joined(toks: list[Token]) -> str:
    """Tokens as one line of Java, spaced as people write it (`Map<String, List<T>> m`,
    `String... args`, `@Nullable String`)."""
    out: list[str] = []
    prev = before = ""
    for t in toks:
        s = t.text
        if t.kind == "str" and "\n" in s:
            s = " ".join(s.split())
        if out and not (
            s in _NO_SPACE_BEFORE
            or s == "..."
            or (s == "(" and prev not in ("&", "|", "=", ","))
            or prev in _NO_SPACE_AFTER
            or (s == "<" and prev not in MODIFIERS and prev not in ("&", ",") and before != "@")
            or (prev == "?" and s in ">,")
        ):
            out.append(" ")
        out.append(s)
        prev, before = s, prev
    return "".join(out)


class _Parser:
    def __init__(self, source: str) -> None:
        self.toks = tokens(source)
        self.count = 0

    def annotation(self, i: int, end: int) -> tuple[str, int]:
        """The annotation at `i` (`@` then a name): its name and the index after it."""
        toks = self.toks
        j = i + 1
        name = toks[j].text
        j += 1
        while j + 1 < end and toks[j].text == "." and toks[j + 1].kind == "ident":
            name += "." + toks[j + 1].text
            j += 2
        if j < end and toks[j].text == "(":
            j = group_end(toks, j, end)
        return name, j

    def is_annotation(self, i: int, end: int) -> bool:
        toks = self.toks
        return (
            toks[i].text == "@"
            and i + 1 < end
            and toks[i + 1].kind == "ident"
            and toks[i + 1].text != "interface"
        )

    def shown(self, a: int, b: int) -> list[Token]:
        """Tokens a..b without the annotations javadoc does not show (`@Override`)."""
        toks = self.toks
        out: list[Token] = []
        k = a
        while k < b:
            if self.is_annotation(k, b):
                name, after = self.annotation(k, b)
                if name not in HIDDEN_ANNOTATIONS:
                    out += toks[k:after]
                k = after
                continue
            out.append(toks[k])
            k += 1
        return out

    def scan(self, i: int, end: int, stops: str) -> int:
        """The index of the first token in `stops` at bracket depth 0, annotations skipped."""
        toks = self.toks
        while i < end:
            t = toks[i]
            if t.text in stops and t.kind != "str":
                return i
            if self.is_annotation(i, end):
                i = self.annotation(i, end)[1]
            elif t.kind == "open":
                i = group_end(toks, i, end)
            else:
                i += 1
        return end

    def unit(self) -> Unit:
        toks = self.toks
        unit = Unit()
        end = len(toks)
        doc: Token | None = None
        imports: dict[str, str] = {}
        stars: list[str] = []
        i = 0
        while i < end and toks[i].kind in ("doc", "mdoc") or (i < end and toks[i].text == "@"):
            if toks[i].kind in ("doc", "mdoc"):
                doc = toks[i]
                i += 1
            elif self.is_annotation(i, end):
                i = self.annotation(i, end)[1]
            else:
                break
        if i < end and toks[i].text == "package":
            close = self.scan(i, end, ";")
            unit.package = "".join(t.text for t in toks[i + 1 : close])
            unit.package_line = toks[i].line
            if doc is not None:
                unit.package_doc, unit.package_markdown = doc.text, doc.kind == "mdoc"
            i = close + 1
            doc = None
        while i < end and toks[i].text in ("import", ";"):
            if toks[i].text == ";":
                i += 1
                continue
            close = self.scan(i, end, ";")
            words = [t.text for t in toks[i + 1 : close]]
            if words[:1] == ["static"]:
                words = words[1:]
            name = "".join(words)
            if name.endswith(".*"):
                stars.append(name[:-2])
            elif name:
                imports[name.rpartition(".")[2]] = name
            i = close + 1
        unit.imports, unit.star_imports = imports, tuple(stars)
        unit.types = [d for d in self.members(i, end, "", 0) if d.kind in _TYPES]
        return unit

    def members(self, i: int, end: int, owner: str, depth: int) -> list[Decl]:
        """The declarations from token i to end (a type's body without its braces)."""
        toks = self.toks
        out: list[Decl] = []
        if owner == "enum":
            i = self.constants(i, end, out)
        doc: Token | None = None
        while i < end and self.count < MAX_MEMBERS:
            t = toks[i]
            if t.kind in ("doc", "mdoc"):
                doc = t
                i += 1
                continue
            if t.text == ";" or t.kind == "close":
                doc = None
                i += 1
                continue
            start = i
            annotations: list[str] = []
            modifiers: set[str] = set()
            while i < end:
                if self.is_annotation(i, end):
                    name, i = self.annotation(i, end)
                    annotations.append(name)
                elif toks[i].kind == "ident" and toks[i].text in MODIFIERS:
                    modifiers.add(toks[i].text)
                    i += 1
                elif (
                    toks[i].text == "non"
                    and i + 2 < end
                    and toks[i + 1].text == "-"
                    and toks[i + 2].text == "sealed"
                ):
                    i += 3
                else:
                    break
            if i >= end:
                break
            self.count += 1
            decl, i = self.member(start, i, end, owner, depth)
            if decl is not None:
                decl.modifiers = frozenset(modifiers)
                decl.annotations = tuple(annotations)
                if doc is not None:
                    decl.doc, decl.markdown = doc.text, doc.kind == "mdoc"
                    decl.doc_line = doc.line
                else:
                    decl.doc_line = decl.line
                if decl.kind == "field":  # (`int a, b;`: the others share its modifiers
                    for extra in decl.members:  # and, as javadoc copies it, its comment)
                        extra.modifiers, extra.annotations = decl.modifiers, decl.annotations
                        extra.doc, extra.markdown = decl.doc, decl.markdown
                        extra.doc_line = decl.doc_line
                out.append(decl)
            doc = None
        return out

    def member(
        self, start: int, i: int, end: int, owner: str, depth: int
    ) -> tuple[Decl | None, int]:
        """The declaration whose modifiers and annotations run from `start` to `i`, and the
        index after it (None for an initializer block, or code that declares nothing)."""
        toks = self.toks
        t = toks[i]
        line = toks[start].line
        if t.kind == "open":  # an initializer block (`static { … }`) or a stray group
            return None, group_end(toks, i, end)
        kind = TYPE_KEYWORDS.get(t.text) if t.kind == "ident" else None
        if t.text == "@" and i + 1 < end and toks[i + 1].text == "interface":
            kind, i = "annotation", i + 1
        if kind == "record" and not (i + 2 < end and toks[i + 2].text in ("(", "<")):
            kind = None  # (`record` as a type's or a field's name)
        if kind is not None:
            if i + 1 >= end or toks[i + 1].kind != "ident":
                return None, i + 1
            name = toks[i + 1].text
            brace = self.scan(i + 2, end, "{;")
            decl = Decl(kind, name, line)
            decl.declaration = joined(self.shown(start, brace))
            if kind == "record":
                paren = self.scan(i + 2, brace, "(")
                if paren < brace:
                    decl.components = self.params(paren + 1, group_end(toks, paren, end) - 1)
            if brace >= end or toks[brace].text == ";":
                return decl, brace + 1
            close = group_end(toks, brace, end)
            if depth < MAX_DEPTH:
                decl.members = self.members(brace + 1, close - 1, kind, depth + 1)
            return decl, close
        stop = self.scan(i, end, "(=;{")
        if stop >= end:
            return None, end
        s = toks[stop].text
        if s == "(" and stop > i and toks[stop - 1].kind == "ident":
            name = toks[stop - 1].text
            close = group_end(toks, stop, end)
            head = toks[i : stop - 1]
            if head and head[0].text == "<":  # type parameters: `<T> T get(Class<T> c)`
                k = 0
                angle = 0
                while k < len(head):
                    angle += {"<": 1, ">": -1}.get(head[k].text, 0)
                    k += 1
                    if angle == 0:
                        break
                head = head[k:]
            kind = "method" if head else "constructor"
            after = self.scan(close, end, "{;=") if owner != "annotation" else end
            if owner == "annotation" or (after < end and toks[after].text == "="):
                after = self.scan(close, end, ";")  # (an element's `default {…}` value)
            shown_end = after
            for k in range(close, after):
                if toks[k].text == "default" and owner == "annotation":
                    shown_end = k
                    break
            decl = Decl(kind, name, line)
            decl.declaration = joined(self.shown(start, shown_end))
            decl.params = self.params(stop + 1, close - 1)
            decl.returns = joined(self.shown(i, stop - 1)) if kind == "method" else ""
            if decl.returns.startswith("<"):
                decl.returns = joined(head)
            if after < end and toks[after].text == "{":
                return decl, group_end(toks, after, end)
            return decl, after + 1
        if s in "=;" and stop > i and toks[stop - 1].kind in ("ident", "close"):
            semi = self.scan(stop, end, ";")
            names = self.declarators(i, stop, semi)
            if not names:
                return None, semi + 1
            type_end = names[0][1]
            decl = Decl("field", names[0][0], line)
            decl.returns = joined(self.shown(i, type_end))
            base = joined(self.shown(start, type_end))
            words = set(base.split())
            constant = owner in ("interface", "annotation") or {"static", "final"} <= words
            decl.declaration = f"{base} {names[0][0]}" + (
                self.constant_value(names[0][1], semi) if constant else ""
            )
            out = decl
            # (`int a, b;`: javadoc shows each: the others are returned as the decl's members)
            for other, at in names[1:]:
                value = self.constant_value(at, semi) if constant else ""
                extra = Decl("field", other, line, declaration=f"{base} {other}{value}")
                extra.returns = decl.returns
                out.members.append(extra)
            return out, semi + 1
        if s == "{":  # a record's compact constructor (`public Point { … }`), or broken code
            return None, group_end(toks, stop, end)
        return None, stop + 1

    def constant_value(self, name_at: int, semi: int) -> str:
        """` = 10` of a constant whose initializer after the name at `name_at` is one literal
        (a number, a string, a character, `true`/`false`, a negative number), as javadoc's
        Constant Field Values page shows it; "" for any other initializer."""
        toks = self.toks
        k = name_at + 1
        if k >= semi or toks[k].text != "=":
            return ""
        value = toks[k + 1 : min(k + 3, semi)]
        if value and value[0].text == "-" and len(value) > 1 and value[1].kind == "num":
            value = value[:2]
        else:
            value = value[:1]
        after = k + 1 + len(value)
        if not value or (after < semi and toks[after].text != ","):
            return ""
        last = value[-1]
        shown = "".join(t.text for t in value)
        if len(shown) > 200 or "\n" in shown or shown.startswith('"""'):
            return ""  # (a text block or a long string: javadoc's value page, not a signature)
        if last.kind in ("num", "str") or last.text in ("true", "false"):
            return " = " + shown
        return ""

    def declarators(self, i: int, stop: int, semi: int) -> list[tuple[str, int]]:
        """The names a field declaration declares, with the index of the first one's name."""
        toks = self.toks
        k = stop - 1
        while k > i and toks[k].kind == "close":  # `String names[]`
            k -= 2
        if k <= i or toks[k].kind != "ident":
            return []
        found = [(toks[k].text, k)]
        j = stop
        while j < semi and len(found) < 100:
            j = self.scan(j, semi, ",")
            if j >= semi:
                break
            if j + 1 < semi and toks[j + 1].kind == "ident":
                found.append((toks[j + 1].text, j + 1))
            j += 1
        return found

    def params(self, a: int, b: int) -> tuple[tuple[str, str], ...]:
        """A parameter list's (type, name) pairs (tokens a..b, without the parentheses)."""
        out: list[tuple[str, str]] = []
        k = a
        while k < b:
            comma = min(self.scan_angles(k, b), b)
            part = self.shown(k, comma)
            part = [t for t in part if t.text != "final"]
            while part and part[0].text == "@":  # (an annotation on the parameter)
                j = 2
                while j + 1 < len(part) and part[j].text == "." and part[j + 1].kind == "ident":
                    j += 2
                if j < len(part) and part[j].text == "(":
                    depth = 0
                    while j < len(part):
                        depth += {"(": 1, ")": -1}.get(part[j].text, 0)
                        j += 1
                        if depth == 0:
                            break
                part = part[j:]
            if part:
                name = part[-1].text if part[-1].kind == "ident" and len(part) > 1 else ""
                out.append((joined(part[:-1] if name else part), name))
            k = comma + 1
        return tuple(out)

    def scan_angles(self, i: int, end: int) -> int:
        """The next `,` outside brackets and angle brackets (`Map<K, V> m, int n`)."""
        toks = self.toks
        angle = 0
        while i < end:
            t = toks[i]
            if t.kind == "open":
                i = group_end(toks, i, end)
                continue
            if t.text == "<":
                angle += 1
            elif t.text == ">":
                angle = max(0, angle - 1)
            elif t.text == "," and angle == 0:
                return i
            i += 1
        return end

    def constants(self, i: int, end: int, out: list[Decl]) -> int:
        """An enum's constants (`A, B(1) { … }, C;`) into `out`; the index after them."""
        toks = self.toks
        doc: Token | None = None
        while i < end and self.count < MAX_MEMBERS:
            t = toks[i]
            if t.kind in ("doc", "mdoc"):
                doc = t
                i += 1
                continue
            if t.text == ";":
                return i + 1
            if t.text == ",":
                i += 1
                continue
            start = i
            annotations = []
            while self.is_annotation(i, end):
                name, i = self.annotation(i, end)
                annotations.append(name)
            if i >= end or toks[i].kind != "ident":
                return start  # (no constant: the members begin)
            self.count += 1
            decl = Decl("constant", toks[i].text, toks[start].line)
            decl.annotations = tuple(annotations)
            decl.modifiers = frozenset({"public", "static", "final"})
            if doc is not None:
                decl.doc, decl.markdown, decl.doc_line = doc.text, doc.kind == "mdoc", doc.line
            else:
                decl.doc_line = decl.line
            decl.declaration = toks[i].text
            out.append(decl)
            i += 1
            if i < end and toks[i].text == "(":
                i = group_end(toks, i, end)
            if i < end and toks[i].text == "{":
                i = group_end(toks, i, end)
            doc = None
            if i < end and toks[i].text not in (",", ";"):
                return i
        return i


_TYPES = frozenset({"class", "interface", "enum", "record", "annotation"})


def parse(source: str) -> Unit:
    """The package, imports and types of the Java compilation unit `source`."""
    return _Parser(source).unit()


def is_type(decl: Decl) -> bool:
    return decl.kind in _TYPES
