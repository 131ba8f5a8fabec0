"""The declarations of a C or C++ header and the doc comment of each, as Doxygen pairs them.

The header is scanned (c_lex.py), then read statement by statement: a statement runs to a `;`
or a `{` outside parentheses, and a doc comment between the previous statement and this one is
its documentation (a `/**<` one after a member is that member's). What a `{` opens decides
what follows: `namespace N {` and `extern "C" {` are scopes read the same way (names inside
are `N::name`), `class`/`struct`/`union X … {` a scope whose members are the class's (access
kept: `private:`/`protected:` members are left out, as with EXTRACT_PRIVATE off), `enum … {`
its enumerators, any other `{` a body that is skipped (an inline function's). A `#define` line
is a statement of its own; other preprocessor lines are none.

Doc comments holding `@defgroup`/`@addtogroup` (or `@name`) with `@{` open a group that the
declarations up to the matching `@}` belong to (Doxygen's member groups); a declaration's own
`@ingroup` wins. Only the names are read, not the types' meaning: a declaration is shown as
written (comments and the `GLFWAPI`-like words the Doxyfile's EXCLUDE_SYMBOLS or PREDEFINED
empty out removed), its name the identifier before its parameter list, its `[`, `=`, `:`,
or its end.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from docsmcp.sources.formats.source.c_lex import Comment, scan

MAX_DECLS = 20_000  # declarations of one header, at most (a generated header can hold more)
MAX_DEPTH = 32  # scopes (namespaces, classes) nested in one another, at most
_TOKEN = re.compile(r"[A-Za-z_]\w*|::|->|\d[\w.']*|\S")
_DEFINE = re.compile(r"#\s*define\s+([A-Za-z_]\w*)(\([^)]*\))?\s*(.*)")
_KEYWORDS = frozenset(
    "if else for while do switch return sizeof typeof decltype alignof static_assert "
    "operator template typename".split()
)
_ACCESS = re.compile(r"\b(public|private|protected)\s*:(?!:)")


@dataclass
class Decl:
    kind: (
        str  # function, macro, typedef, enum, enumerator, struct, class, union, variable, namespace
    )
    name: str  # qualified: `tinyxml2::XMLElement::Attribute`
    code: str  # the declaration as written (one or more lines), comments removed
    line: int  # 0-based line of the declaration's start
    doc: str | None  # its doc comment's text, None when undocumented
    doc_line: int  # 0-based line of the doc comment (else the declaration's)
    group: str = ""  # the member group (`@{`) it stands in
    members: list[Decl] = field(default_factory=list)  # enumerators, a class's members
    params: str = ""  # the text between the parameter list's parentheses
    bases: tuple[str, ...] = ()  # a class's public base classes, as written (`sf::Window`)


@dataclass(frozen=True)
class Group:
    name: str
    title: str
    doc: str
    line: int


@dataclass
class Header:
    decls: list[Decl]
    groups: list[Group]  # in order of definition
    file_doc: str | None  # the `@file` comment's text
    file_line: int
    pages: list[tuple[str, str, int]]  # (comment text, command, line) of `@page`/`@mainpage`


class _Reader:
    def __init__(self, text: str, hidden_words: frozenset[str], pages_only: bool = False) -> None:
        s = scan(text, nested=pages_only)
        self.pages_only = pages_only
        self.text = text
        self.code = s.code
        self.hidden_words = hidden_words
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.docs = [c for c in s.comments if c.doc]
        self.doc_ends = [c.end for c in self.docs]
        self.directives = {d.start: d for d in s.directives}
        self.dir_starts = sorted(self.directives)
        self.tokens = [(m.start(), m.group()) for m in _TOKEN.finditer(s.code)]
        self.used: set[int] = set()  # doc comments read
        self.used_structural: dict[int, bool] = {}
        self.header = Header([], [], None, 0, [])
        self.group_stack: list[str] = []

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset) - 1

    def docs_between(self, start: int, end: int) -> list[Comment]:
        lo = bisect.bisect_left(self.doc_ends, start + 1)
        hi = bisect.bisect_right(self.doc_ends, end)
        return self.docs[lo:hi]

    def structural(self, c: Comment) -> bool:
        """Reads a comment's group/file/page commands (once); True when it documents no
        declaration."""
        text = c.text
        if c.start in self.used:
            return self.used_structural.get(c.start, False)
        self.used.add(c.start)
        self.used_structural[c.start] = found = self._structural(c, text)
        return found

    def _structural(self, c: Comment, text: str) -> bool:
        m = re.search(r"[@\\](defgroup|addtogroup|weakgroup)\s+(\w+)[ \t]*([^\n]*)", text)
        opens = re.search(r"[@\\]\{", text) is not None
        closes = re.search(r"[@\\]\}", text) is not None
        if m:
            if m.group(1) == "defgroup" or not any(
                g.name == m.group(2) for g in self.header.groups
            ):
                rest = text[m.end() :]
                self.header.groups.append(
                    Group(m.group(2), m.group(3).strip() or m.group(2), rest, self.line(c.start))
                )
            if opens:
                self.group_stack.append(m.group(2))
        elif opens:  # (`@name` member groups, `@{` alone: the group above continues)
            self.group_stack.append(self.group_stack[-1] if self.group_stack else "")
        if closes and not opens and self.group_stack:
            self.group_stack.pop()
        f = re.search(r"[@\\]file\b", text)
        if f and self.header.file_doc is None:
            self.header.file_doc = text
            self.header.file_line = self.line(c.start)
        p = re.search(r"[@\\](mainpage|page)\b", text)
        if p:
            self.header.pages.append((text, p.group(1), self.line(c.start)))
        return bool(m or f or p or (opens and not text.strip("@\\{} \n")) or closes)

    def read(self) -> Header:
        if not self.pages_only:
            self.statements(0, len(self.tokens), "", None, 0)
        # Comments no declaration follows (a header of pages only, mbedtls'
        # `doxygen/input/doc_mainpage.h`; a `@page` after the last declaration) are read for
        # their pages and groups too, then everything is put back in the file's order.
        for c in self.docs:
            if c.start not in self.used and not c.after:
                self.structural(c)
        self.header.pages.sort(key=lambda page: page[2])
        self.header.groups.sort(key=lambda group: group.line)
        return self.header

    def _doc_for(self, prev_end: int, start: int) -> Comment | None:
        found = None
        for c in self.docs_between(prev_end, start):
            if c.after:
                continue
            if self.structural(c) and not re.search(r"[@\\](fn|def|var|typedef)\b", c.text):
                found = None
                continue
            found = c
        return found

    def _flush_directives(self, lo: int, hi: int, scope: str, prev_end: int) -> int:
        """The `#define`s between offsets lo and hi, in order; returns the last one's end."""
        k = bisect.bisect_left(self.dir_starts, lo)
        while k < len(self.dir_starts) and self.dir_starts[k] < hi:
            d = self.directives[self.dir_starts[k]]
            doc = self._doc_for(prev_end, d.start)
            m = _DEFINE.match(d.text)
            after = self._after_doc(d.start, d.end)
            guard = (
                k > 0 and self.directives[self.dir_starts[k - 1]].text == f"#ifndef {m.group(1)}"
                if m
                else False
            )
            if m and not (guard and not m.group(3)) and m.group(1) not in self.hidden_words:
                self.add(
                    Decl(
                        "macro",
                        m.group(1),
                        d.text,
                        self.line(d.start),
                        (after or doc).text if (after or doc) else None,
                        self.line((after or doc).start) if (after or doc) else self.line(d.start),
                        params=(m.group(2) or "")[1:-1],
                    ),
                    None,
                )
            prev_end = d.end
            k += 1
        return prev_end

    def _after_doc(self, start: int, end: int) -> Comment | None:
        for c in self.docs_between(start, end + 1):
            if c.after and c.start >= start:
                return c
        return None

    def add(self, d: Decl, into: list[Decl] | None) -> None:
        if len(self.header.decls) >= MAX_DECLS:
            return
        if not d.group and self.group_stack:
            d.group = self.group_stack[-1]
        (self.header.decls if into is None else into).append(d)

    def statements(
        self, lo: int, hi: int, scope: str, into: list[Decl] | None, prev: int, nesting: int = 0
    ) -> None:
        """Reads tokens[lo:hi] (a file or a scope's body) as statements under `scope`; scopes
        nested deeper than MAX_DEPTH are skipped (no header nests so, and recursion is bounded)."""
        if nesting > MAX_DEPTH:
            return
        toks = self.tokens
        k = lo
        access_private = False
        prev_end = prev
        while k < hi:
            start_tok = k
            start = toks[k][0]
            prev_end = self._flush_directives(prev_end, start, scope, prev_end)
            # Access specifiers of a class body.
            access = into is not None and toks[k][1] in ("public", "private", "protected")
            if access and k + 1 < hi and toks[k + 1][1] == ":":
                access_private = toks[k][1] != "public"
                prev_end = toks[k + 1][0] + 1
                k += 2
                continue
            depth = 0
            j = k
            while j < hi:
                t = toks[j][1]
                if t in "([":
                    depth += 1
                elif t in ")]":
                    depth -= 1
                elif depth <= 0 and t in (";", "{", "}"):
                    break
                j += 1
            if j >= hi:
                break
            words = [t for _, t in toks[k:j]]
            end_char = toks[j][1]
            if end_char == "}":  # (a stray close: skip it)
                prev_end = toks[j][0] + 1
                k = j + 1
                continue
            doc = self._doc_for(prev_end, start)
            decl_text = self.code[start : toks[j][0]]
            if end_char == "{":
                close = self._match(j, hi)
                body_end = toks[close][0] if close < len(toks) else len(self.code)
                kind = _brace_kind(words)
                if kind == "namespace":
                    name = words[1] if len(words) > 1 and words[1] != "{" else ""
                    inner = f"{scope}{name}::" if name else scope
                    self.statements(j + 1, close, inner, into, toks[j][0] + 1, nesting + 1)
                    prev_end = body_end + 1
                    k = close + 1
                    continue
                if kind == "extern":
                    self.statements(j + 1, close, scope, into, toks[j][0] + 1, nesting + 1)
                    prev_end = body_end + 1
                    k = close + 1
                    continue
                # What follows the body up to its `;` (`typedef struct {…} Name;`, `} x;`).
                tail = close + 1
                if kind in ("class", "struct", "union", "enum"):
                    while tail < hi and toks[tail][1] != ";":
                        tail += 1
                    trailing = [t for _, t in toks[close + 1 : tail]]
                    name = _type_name(words, trailing)
                    if name and not (into is not None and access_private):
                        members: list[Decl] = []
                        qualified = scope + name
                        head = " ".join(decl_text.split())
                        d = Decl(
                            kind if words[0] != "typedef" else "typedef",
                            qualified,
                            f"{head} {{ … }}" + (f" {' '.join(trailing)};" if trailing else ";"),
                            self.line(start),
                            doc.text if doc else None,
                            self.line(doc.start) if doc else self.line(start),
                        )
                        if kind == "enum":
                            self.enumerators(j + 1, close, scope, members)
                        else:
                            self.statements(
                                j + 1, close, qualified + "::", members, toks[j][0] + 1, nesting + 1
                            )
                        d.members = members
                        if kind in ("class", "struct"):
                            d.bases = _bases(words, kind)
                        self.add(d, into)
                    end = toks[tail][0] + 1 if tail < len(toks) else len(self.code)
                    prev_end = end
                    k = tail + 1
                    continue
                # A function's body (or an initializer): the declaration is what precedes it.
                if not (into is not None and access_private):
                    self.declaration(words, decl_text, start, doc, scope, into)
                prev_end = body_end + 1
                k = close + 1
                if k < hi and toks[k][1] == ";":
                    k += 1
                continue
            if not (into is not None and access_private):
                after = self._after_doc(toks[j][0], self._line_end(toks[j][0]))
                self.declaration(words, decl_text, start, after or doc, scope, into)
            prev_end = toks[j][0] + 1
            k = j + 1
            if k == start_tok:
                k += 1
        self._flush_directives(
            prev_end, toks[hi][0] if hi < len(toks) else len(self.code) + 1, scope, prev_end
        )

    def _line_end(self, offset: int) -> int:
        nl = self.text.find("\n", offset)
        return len(self.text) if nl < 0 else nl

    def _match(self, j: int, hi: int) -> int:
        depth = 0
        toks = self.tokens
        limit = len(toks)
        while j < limit:
            t = toks[j][1]
            if t == "{":
                depth += 1
            elif t == "}":
                depth -= 1
                if depth == 0:
                    return j
            j += 1
        return limit

    def enumerators(self, lo: int, hi: int, scope: str, members: list[Decl]) -> None:
        toks = self.tokens
        k = lo
        prev_end = toks[lo - 1][0] + 1
        while k < hi:
            j = k
            depth = 0
            while j < hi and not (depth == 0 and toks[j][1] == ","):
                depth += toks[j][1] in "([{"
                depth -= toks[j][1] in ")]}"
                j += 1
            words = [t for _, t in toks[k:j]]
            if words and re.fullmatch(r"[A-Za-z_]\w*", words[0]):
                start = toks[k][0]
                end = toks[j][0] if j < len(toks) else len(self.code)
                doc = self._doc_for(prev_end, start)
                after = self._after_doc(start, self._line_end(end if j < hi else start))
                use = after or doc
                code = " ".join(self.code[start:end].split())
                members.append(
                    Decl(
                        "enumerator",
                        scope + words[0],
                        code,
                        self.line(start),
                        use.text if use else None,
                        self.line(use.start) if use else self.line(start),
                    )
                )
            prev_end = (toks[j][0] + 1) if j < len(toks) else len(self.code)
            k = j + 1

    def declaration(
        self,
        words: list[str],
        text: str,
        start: int,
        doc: Comment | None,
        scope: str,
        into: list[Decl] | None,
    ) -> None:
        words = [w for w in words if w not in self.hidden_words]
        if not words or words[0] in ("using", "friend", "static_assert", "return", "template"):
            if not words or words[0] != "template":
                return
            # `template <…> declaration`: the declaration after the parameter list.
            depth, k = 0, 1
            while k < len(words):
                depth += words[k] == "<"
                depth -= words[k] == ">"
                k += 1
                if depth == 0:
                    break
            words = words[k:]
            if not words:
                return
        if _forward(words):
            return
        code = _clean(text, self.hidden_words)
        kind, name, params = _named(words)
        if not name or name in _KEYWORDS or name in self.hidden_words:
            return
        self.add(
            Decl(
                kind,
                scope + name,
                code,
                self.line(start),
                doc.text if doc else None,
                self.line(doc.start) if doc else self.line(start),
                params=params,
            ),
            into,
        )


def _brace_kind(words: list[str]) -> str:
    if not words:
        return "block"
    if words[0] == "namespace" or (words[0] == "inline" and words[1:2] == ["namespace"]):
        return "namespace"
    if words[0] == "extern" and all(w in ('"', "'") for w in words[1:]):  # extern "C" {
        return "extern"
    if "(" in words:
        return "function"
    for w in words:
        if w in ("class", "struct", "union", "enum"):
            return w
    return "block"


def _type_name(words: list[str], trailing: list[str]) -> str:
    """The name of `struct X {`, `typedef struct X {…} Y;` (Y), `enum class E : int {`."""
    if words and words[0] == "typedef" and trailing:
        names = [t for t in trailing if re.fullmatch(r"[A-Za-z_]\w*", t)]
        if names:
            return names[-1]
    after = False
    for k, w in enumerate(words):
        if w in ("class", "struct", "union", "enum"):
            after = True
            continue
        if after and w in ("class", "struct"):
            continue
        if after and re.fullmatch(r"[A-Za-z_]\w*", w) and w not in ("final", "alignas"):
            # (`class API_EXPORT Name`: the last identifier before `:` or the end)
            rest = words[k + 1 :]
            if rest and re.fullmatch(r"[A-Za-z_]\w*", rest[0]) and rest[0] != "final":
                continue
            return w
        if after and w == ":":
            break
    return ""


def _forward(words: list[str]) -> bool:
    """`class Window;`, `struct GlContext;`: a forward declaration, which Doxygen documents as
    nothing (the class is where it is defined)."""
    tags = ("class", "struct", "union", "enum")
    return words[0] in tags and len([w for w in words if w not in tags and w != ":"]) <= 1


def _bases(words: list[str], kind: str) -> tuple[str, ...]:
    """The public base classes of `class X : public A, private B, C` (a struct's bases are
    public unless said otherwise, a class's private), without template arguments."""
    try:
        colon = words.index(":")
    except ValueError:
        return ()
    out: list[str] = []
    depth = 0
    access = "public" if kind == "struct" else "private"
    name: list[str] = []
    for w in [*words[colon + 1 :], ","]:
        if w == "<":
            depth += 1
        elif w == ">":
            depth -= 1
        elif depth > 0:
            continue
        elif w == ",":
            if name and access == "public":
                out.append("".join(name))
            access, name = ("public" if kind == "struct" else "private"), []
        elif w in ("public", "protected", "private"):
            access = w
        elif w != "virtual" and (w == "::" or re.fullmatch(r"[A-Za-z_]\w*", w)):
            name.append(w)
    return tuple(out)


def _named(words: list[str]) -> tuple[str, str, str]:
    """(kind, name, parameters) of a declaration's words."""
    typedef = words[0] == "typedef"
    # A function pointer: `typedef void (* GLFWerrorfun)(int, const char*)`.
    for k in range(len(words) - 2):
        if words[k] == "(" and words[k + 1] in ("*", "&", "^"):
            j = k + 2
            while j < len(words) and words[j] in ("*", "const"):
                j += 1
            if j < len(words) and re.fullmatch(r"[A-Za-z_]\w*", words[j]):
                params = _params(words, j + 2)
                return ("typedef" if typedef else "variable"), words[j], params
    if "(" in words and not typedef:
        k = words.index("(")
        # `operator()`, `operator==`: named `operator` (overloads of it, `Class::operator-2`).
        if "operator" in words[: k + 1]:
            at = words.index("operator")
            if words[at + 1 : at + 2] == ["("]:  # (`operator()(…)`: its own parameter list)
                k = words.index("(", at + 3)
            return "function", _qualified(words, at), _params(words, k + 1)
        if k > 0 and re.fullmatch(r"~?[A-Za-z_]\w*", words[k - 1]):
            if k > 1 and words[k - 2] == "~":  # (a destructor: `~` and the name are two tokens)
                scope = _qualified(words, k - 2)[:-1]  # (`Window::` of `Window::~Window`)
                return "function", f"{scope}~{words[k - 1]}", _params(words, k + 1)
            return "function", _qualified(words, k - 1), _params(words, k + 1)
        return "", "", ""
    stop = len(words)
    for k, w in enumerate(words):
        if w in ("[", "=", ":", ","):
            stop = k
            break
    names = [w for w in words[:stop] if re.fullmatch(r"[A-Za-z_]\w*", w)]
    if len(names) < 2 and not typedef:
        return "", "", ""
    return ("typedef" if typedef else "variable"), names[-1] if names else "", ""


def _qualified(words: list[str], k: int) -> str:
    """The name ending at words[k] with the `A::B::` written before it."""
    name = words[k]
    while k >= 2 and words[k - 1] == "::" and re.fullmatch(r"[A-Za-z_]\w*", words[k - 2]):
        name = f"{words[k - 2]}::{name}"
        k -= 2
    return name


def _params(words: list[str], k: int) -> str:
    depth = 1
    out: list[str] = []
    while k < len(words):
        w = words[k]
        depth += w == "("
        depth -= w == ")"
        if depth == 0:
            break
        out.append(w)
        k += 1
    return " ".join(out)


def _clean(text: str, hidden: frozenset[str]) -> str:
    lines = [" ".join(x.split()) for x in text.split("\n")]
    code = " ".join(x for x in lines if x)
    if hidden:
        code = " ".join(w for w in code.split(" ") if w not in hidden)
    code = re.sub(r"\s+([,)])", r"\1", code)
    # (`extern` is linkage, which Doxygen's declarations leave out: SDL's every function)
    return re.sub(r"\(\s+", "(", code).strip().removeprefix("extern ")


def read_header(
    text: str, hidden_words: frozenset[str] = frozenset(), pages_only: bool = False
) -> Header:
    """The declarations, groups and file comment of a header (see the module's docstring);
    `pages_only`: a `.dox` file, comments that nest and no code (Doxygen reads no declarations
    there)."""
    return _Reader(text, hidden_words, pages_only).read()
