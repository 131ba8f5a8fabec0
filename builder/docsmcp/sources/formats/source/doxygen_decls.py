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

`plain` (a header documented without Doxygen, packages/c_headers.py): every comment documents
(c_lex.py), attached as such headers attach them: a comment after the declaration on its line
(raylib), else the comments right above it (no blank line between: cJSON), else a comment
starting on the next line and followed by a blank line (zlib's comment after each prototype).
A prototype written at the top of a comment (zlib's `deflateInit`, a macro) is that
function's declaration. sqlite's `CAPI3REF: Title` comment opens a group (its text the
group's) holding the declarations up to the next one. The comments above the first
declaration, less licenses, are the file's comment (stb's and raylib's documentation). The
header is read up to its implementation (`#ifdef STB_IMAGE_IMPLEMENTATION`); an export macro
around the return type (`CJSON_PUBLIC(cJSON *) cJSON_Parse(…)`) is not the name, and the export
macros most functions carry (doxygen_plain.export_macros) are left out of the code shown.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from docsmcp.sources.formats.source.c_lex import Comment, scan
from docsmcp.sources.formats.source.c_words import (
    KEYWORDS,
    TOKEN,
    bases,
    brace_kind,
    clean,
    forward,
    named,
    type_name,
)
from docsmcp.sources.formats.source.doxygen_plain import (
    export_macros,
    prototype,
    sqlite_text,
    unwrapped,
    without_exports,
    without_implementation,
    without_license,
)

MAX_DECLS = 20_000  # declarations of one header, at most (a generated header can hold more)
MAX_DEPTH = 32  # scopes (namespaces, classes) nested in one another, at most
_DEFINE = re.compile(r"#\s*define\s+([A-Za-z_]\w*)(\([^)]*\))?\s*(.*)")
_ACCESS = re.compile(r"\b(public|private|protected)\s*:(?!:)")
_CAPI = re.compile(r"CAPI3REF:[ \t]*([^\n]*)")
_CAPI_FIELDS = re.compile(r"^(?:KEYWORDS|METHOD|METHODS|CONSTRUCTOR|DESTRUCTOR):.*\n?", re.M)


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
    def __init__(
        self,
        text: str,
        hidden_words: frozenset[str],
        pages_only: bool = False,
        plain: bool = False,
    ) -> None:
        if plain:
            text = without_implementation(text)
        s = scan(text, nested=pages_only, plain=plain)
        self.plain = plain
        self.attached: set[int] = set()  # (plain: comments that document a declaration)
        self.pages_only = pages_only
        self.text = text
        self.code = s.code
        self.hidden_words = hidden_words
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.docs = [c for c in s.comments if c.doc]
        self.doc_ends = [c.end for c in self.docs]
        self.doc_starts = [c.start for c in self.docs]
        self.directives = {d.start: d for d in s.directives}
        self.dir_starts = sorted(self.directives)
        self.tokens = [(m.start(), m.group()) for m in TOKEN.finditer(s.code)]
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
        capi = _CAPI.match(text) if self.plain else None
        if capi:  # (sqlite: a group up to the next such comment)
            if self.group_stack:
                self.group_stack.pop()
            title = capi.group(1).strip() or "API"
            name = re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-").lower() or "api"
            rest = sqlite_text(_CAPI_FIELDS.sub("", text[capi.end() :].lstrip("\n")))
            self.header.groups.append(Group(name, title, rest.strip("\n"), self.line(c.start)))
            self.group_stack.append(name)
            return True
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
        if self.plain:
            self._plain_extras()
        self.header.pages.sort(key=lambda page: page[2])
        self.header.groups.sort(key=lambda group: group.line)
        return self.header

    def _plain_extras(self) -> None:
        """Prototypes written in comments, and the file's comment (see the module's docstring)."""
        # (the file's comment may follow the version macros: zlib's)
        first = min(
            (d.line for d in self.header.decls if d.kind != "macro"),
            default=len(self.line_starts),
        )
        intro: list[str] = []
        found: list[Decl] = []
        names = {d.name: d for d in self.header.decls}
        replaced: set[int] = set()  # (the undocumented macro a commented prototype shows)
        for c in self.docs:
            if c.after or c.start in self.attached or self.used_structural.get(c.start):
                continue
            proto = prototype(c.text)
            known = names.get(proto[1]) if proto is not None else None
            if known is not None and not known.doc:
                replaced.add(id(known))
                known = None
            if proto is not None and known is None:
                code, name, params, doc = proto
                line = self.line(c.start)
                group = next((g.name for g in reversed(self.header.groups) if g.line <= line), "")
                found.append(
                    Decl("function", name, code, line, doc or None, line, group, params=params)
                )
                names[name] = found[-1]
            elif self.line(c.start) < first and self.header.file_doc is None:
                said = without_license(c.text)
                if said.count("\n") >= 2:
                    intro.append(said)
        for d in self.header.decls:  # (a struct whose fields are documented: zlib's z_stream)
            if not d.doc and any(m.doc for m in d.members):
                d.doc = " "
        if found:
            kept = [d for d in self.header.decls if id(d) not in replaced]
            self.header.decls = sorted([*kept, *found], key=lambda d: d.line)
        if intro and self.header.file_doc is None:
            self.header.file_doc = "\n\n".join(intro)
            self.header.file_line = 0
        # (the export macros shown as the generators show them: `int sqlite3_open(…)`)
        decls = self.header.decls
        words, wrappers = export_macros([(d.code, d.name) for d in decls if d.kind == "function"])
        for d in decls if words or wrappers else ():
            if d.kind in ("function", "variable"):
                d.code = without_exports(d.code, d.name, words, wrappers)
        if words or wrappers:  # (their own `#define`s are the build's plumbing, not the API)
            hidden = words | wrappers
            self.header.decls = [d for d in decls if d.kind != "macro" or d.name not in hidden]

    def _heading(self, c: Comment) -> Comment | None:
        """raylib's `// Window-related functions` above prototypes that carry their own
        comments: a group's title, up to the next such line (None: it documents nothing)."""
        title = c.text.strip()
        if "\n" in title or len(title) > 80:
            return c
        if self.group_stack and self.group_stack[-1].startswith("heading:"):
            self.group_stack.pop()
        slug = re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-").lower() or "functions"
        self.header.groups.append(Group(slug, title, "", self.line(c.start)))
        self.group_stack.append("heading:" + slug)
        return None

    def _plain_doc(self, prev_end: int, start: int, attach: bool = True) -> Comment | None:
        """The comments right above the declaration at `start` (no blank line between);
        `attach`: whether they document it (else only their groups are read)."""
        run: list[Comment] = []
        for c in self.docs_between(prev_end, start):
            if c.after or self.structural(c):
                run = []
                continue
            if run and self.line(c.start) > self.line(run[-1].end - 1) + 1:
                run = []
            run.append(c)
        if not attach or not run or self.line(run[-1].end - 1) + 1 < self.line(start):
            return None
        if self.code[run[-1].end : start].count("\n") > 1:
            return None
        self.attached.update(c.start for c in run)
        if len(run) == 1:
            return run[0]
        return Comment(run[0].start, run[-1].end, "\n".join(c.text for c in run), True, False)

    def _trailing_doc(self, end: int) -> Comment | None:
        """zlib's comment after a prototype: starting on the line after the declaration's `;`
        at `end` and followed by a blank line (else it is the next declaration's)."""
        k = bisect.bisect_right(self.doc_starts, end)
        if k >= len(self.docs):
            return None
        c = self.docs[k]
        if c.after or self.text[end + 1 : c.start].strip():
            return None
        if self.text.count("\n", end, c.start) != 1:
            return None
        nl = self.text.find("\n", c.end)
        if nl >= 0:
            nxt = self.text.find("\n", nl + 1)
            following = self.text[nl + 1 : nxt if nxt >= 0 else len(self.text)].strip()
            if following and not following.startswith(("#", "}")):
                return None
        if self.structural(c):
            return None
        self.attached.add(c.start)
        return c

    def _doc_for(self, prev_end: int, start: int) -> Comment | None:
        if self.plain:
            return self._plain_doc(prev_end, start)
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
            m = _DEFINE.match(d.text)
            guard = (
                k > 0 and self.directives[self.dir_starts[k - 1]].text == f"#ifndef {m.group(1)}"
                if m
                else False
            )
            shown = m and not (guard and not m.group(3)) and m.group(1) not in self.hidden_words
            if self.plain:  # (a comment above `#include` or a guard documents nothing)
                doc = self._plain_doc(prev_end, d.start, attach=bool(shown))
            else:
                doc = self._doc_for(prev_end, d.start)
            after = self._after_doc(d.start, d.end)
            if m and shown:
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
            d.group = self.group_stack[-1].removeprefix("heading:")
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
                kind = brace_kind(words)
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
                    name = type_name(words, trailing)
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
                            d.bases = bases(words, kind)
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
                if self.plain and after is None and doc is None:
                    after = self._trailing_doc(toks[j][0])
                elif self.plain and after is not None and doc is not None and into is None:
                    doc = self._heading(doc)
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
        if forward(words):
            return
        code = clean(text, self.hidden_words)
        kind, name, params = named(unwrapped(words) if self.plain else words)
        if not name or name in KEYWORDS or name in self.hidden_words:
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


def read_header(
    text: str,
    hidden_words: frozenset[str] = frozenset(),
    pages_only: bool = False,
    plain: bool = False,
) -> Header:
    """The declarations, groups and file comment of a header (see the module's docstring);
    `pages_only`: a `.dox` file, comments that nest and no code (Doxygen reads no declarations
    there); `plain`: a header documented in plain comments."""
    return _Reader(text, hidden_words, pages_only, plain).read()
