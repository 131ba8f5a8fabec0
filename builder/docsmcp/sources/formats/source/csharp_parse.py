"""The declarations of a C# file, read from its tokens (csharp_lex.py) as docfx lists them: the
namespaces (block or file-scoped), the types (class, struct, interface, enum, record, delegate)
and their members (constructors, methods, properties, indexers, fields, events, operators,
enum values), each with its modifiers, its declaration as written (attributes and bodies left
out), its parameters and the XML doc comment above it.

Nothing is compiled: a member's body is skipped by counting braces (strings and comments are
single tokens, so their braces do not count). Generics are read where a declaration is written
(`Dictionary<string, List<int>>` is one type), attributes (`[Obsolete("x")]`) are skipped with
their brackets. At most MAX_DECLS declarations a file and types nested MAX_NESTING deep.
"""

from __future__ import annotations

from docsmcp.sources.formats.source.csharp_decls import (
    TYPE_KINDS,
    Decl,
    Unit,
    code_words,
    group,
    is_type,
    member,
    optional,
    read_params,
    render,
)
from docsmcp.sources.formats.source.csharp_lex import tokens
from docsmcp.sources.formats.source.token_groups import Token

__all__ = ["Decl", "Unit", "is_type", "parse", "render"]

MAX_DECLS = 5_000
MAX_NESTING = 12
_MODIFIERS = frozenset(
    "public private protected internal static abstract sealed virtual override readonly "
    "partial async extern new unsafe const volatile required file fixed".split()
)


class _Reader:
    def __init__(self, toks: list[Token]) -> None:
        self.toks = toks
        self.count = 0
        self.namespaces: list[str] = []
        self.usings: list[str] = []

    def at(self, i: int) -> str:
        return self.toks[i].text if i < len(self.toks) else ""

    def skip_balanced(self, i: int) -> int:
        """From an opening `{`, `(` or `[` at `i`, the index after its closing bracket."""
        pairs = {"{": "}", "(": ")", "[": "]"}
        stack: list[str] = []
        n = len(self.toks)
        while i < n:
            t = self.toks[i]
            if t.kind == "punct":
                if t.text in pairs:
                    stack.append(pairs[t.text])
                elif stack and t.text == stack[-1]:
                    stack.pop()
                    if not stack:
                        return i + 1
                elif t.text in ")]}" and t.text in stack:
                    # (a stray closer: closes the bracket it matches and those inside it)
                    while stack and stack[-1] != t.text:
                        stack.pop()
                    stack.pop()
                    if not stack:
                        return i + 1
            i += 1
        return n

    def skip_to_semicolon(self, i: int) -> int:
        """From `i`, the index after the `;` ending the statement (brackets skipped)."""
        n = len(self.toks)
        while i < n:
            t = self.toks[i]
            if t.kind == "punct":
                if t.text in "{([":
                    i = self.skip_balanced(i)
                    continue
                if t.text == ";":
                    return i + 1
                if t.text == "}":  # (the block ends: no `;`)
                    return i
            i += 1
        return n

    def block(self, i: int, owner: Decl | None, prefix: str, depth: int) -> tuple[list[Decl], int]:
        """The declarations from `i` to the `}` closing the block (or the end)."""
        out: list[Decl] = []
        n = len(self.toks)
        doc, doc_line = "", 0
        while i < n:
            t = self.toks[i]
            if t.kind == "doc":
                doc, doc_line = (doc + "\n" + t.text if doc else t.text), t.line
                if i + 1 < n and self.toks[i + 1].kind != "doc":
                    pass
                i += 1
                continue
            if t.kind == "pp":
                i += 1
                continue
            if t.text == "}" and t.kind == "punct":
                return out, i + 1
            if t.text == ";" and t.kind == "punct":
                i += 1
                continue
            start_line = t.line
            obsolete = False
            while self.at(i) == "[" and self.toks[i].kind == "punct":  # attributes
                j = self.skip_balanced(i)
                words = {x.text for x in self.toks[i:j] if x.kind == "ident"}
                obsolete = obsolete or "Obsolete" in words or "ObsoleteAttribute" in words
                i = j
                while i < n and self.toks[i].kind in ("pp", "doc"):
                    if self.toks[i].kind == "doc":  # (a doc comment between attributes)
                        doc, doc_line = self.toks[i].text, self.toks[i].line
                    i += 1
            if i >= n:
                break
            word = self.at(i)
            if word in ("using", "global") and owner is None:
                j = self.skip_to_semicolon(i)
                words = [x.text for x in self.toks[i:j] if x.kind in ("ident", "punct")]
                if "(" not in words and "=" not in words:
                    self.usings.append(
                        "".join(w for w in words if w not in ("global", "using", "static", ";"))
                    )
                i, doc = j, ""
                continue
            if word == "extern" and self.at(i + 1) == "alias":
                i, doc = self.skip_to_semicolon(i), ""
                continue
            if word == "namespace":
                j = i + 1
                name_parts: list[str] = []
                while j < n and self.toks[j].text not in ("{", ";"):
                    name_parts.append(self.toks[j].text)
                    j += 1
                name = "".join(name_parts)
                full = f"{prefix}.{name}" if prefix else name
                self.namespaces.append(full)
                # (file-scoped `namespace X;`: the rest of the file; else its braces)
                inner, i = self.block(j + 1, None, full, depth)
                out += inner
                doc = ""
                continue
            decl, i = self.declaration(i, owner, prefix, depth, start_line)
            if decl is not None:
                if doc:
                    decl.doc, decl.doc_line = doc, doc_line
                else:
                    decl.doc_line = decl.line
                decl.obsolete = decl.obsolete or obsolete
                if self.count < MAX_DECLS:
                    out.append(decl)
                    self.count += 1
            doc = ""
        return out, n

    def declaration(
        self, i: int, owner: Decl | None, prefix: str, depth: int, line: int
    ) -> tuple[Decl | None, int]:
        """The declaration starting at `i` (modifiers first), and the index after it."""
        n = len(self.toks)
        start = i
        modifiers: list[str] = []
        while i < n and self.toks[i].text in _MODIFIERS and self.toks[i].kind == "ident":
            # (`new()` / `fixed (` are no modifiers: rare in a declaration's head)
            modifiers.append(self.toks[i].text)
            i += 1
        if owner is not None and owner.kind == "enum":
            return self.enum_values(i, owner, line)
        word = self.at(i)
        if word == "record" and self.at(i + 1) in ("struct", "class"):
            i += 1
            word = "record"
        if word in TYPE_KINDS and self.toks[i].kind == "ident" and word != "delegate":
            return self.type_decl(start, i, word, modifiers, prefix, depth, line)
        # a member (or a delegate): its head runs to `{`, `;`, `=>` or a `=` at depth 0
        j = i
        angle = paren = 0
        operator = False  # (after `operator`, `=` is a symbol: `operator +=`, `operator ==`)
        dropped: set[int] = set()  # (attributes inside the head: `<[Attr] T>`, `([NotNull] T x)`)
        while j < n:
            t = self.toks[j]
            if t.kind == "punct":
                if (
                    t.text == "["
                    and self.at(j - 1) != "this"
                    and (j + 1 < n and self.toks[j + 1].kind == "ident")
                ):
                    after = self.skip_balanced(j)
                    dropped.update(range(j, after))
                    j = after
                    continue
                if t.text == "(":
                    paren += 1
                    operator = False
                elif t.text == ")":
                    paren -= 1
                elif t.text == "<" and paren == 0 and not operator:
                    angle += 1
                elif t.text == ">" and angle > 0 and paren == 0 and not operator:
                    angle -= 1
                elif paren == 0 and angle == 0:
                    if t.text in "{;":
                        break
                    if t.text == "=" and self.at(j + 1) == ">":
                        break
                    if t.text == "=" and not operator:
                        break
                    if t.text == "}":  # (a broken head: the block ends)
                        return None, j
            elif t.text == "operator":
                operator = True
            j += 1
        head = [
            t
            for k, t in enumerate(self.toks[i:j], i)
            if t.kind not in ("pp", "doc") and k not in dropped
        ]
        end = self.member_end(j)
        if not head:
            return None, max(end, i + 1)
        decl = member(head, modifiers, owner, line)
        if decl is None:
            return None, max(end, i + 1)
        if decl.kind == "constructor":  # (`: base(…)`, `: this(…)` is the body's, not shown)
            texts = [t.text for t in head]
            head = head[: texts.index("(") + len(group(head, texts.index("(")))]
        if decl.kind == "field" and (self.at(j) == "{" or self.at(j + 1) == ">"):
            decl.kind = "event" if "event" in decl.modifiers else "property"
        if decl.params:
            decl.optional = optional(head)
        if decl.kind in ("property", "indexer"):  # (`{ get; set; }`, `=> value;`: `{ get; }`)
            head += self.accessors(j) if self.at(j) == "{" else code_words("{ get ; }")
        if decl.kind == "delegate" and prefix and depth == 0:
            decl.name = f"{prefix}.{decl.name}"
        decl.declaration = render([*self.toks[start:i], *head])
        return decl, max(end, i + 1)

    def accessors(self, j: int) -> list[Token]:
        """`{ get; set; }` of the property whose body opens at `j`, its non-public accessors
        left out (`private set`), as docfx shows it."""
        shown: list[str] = []
        end = self.skip_balanced(j)
        k, mods = j + 1, []
        while k < end - 1:
            t = self.toks[k]
            if t.kind == "punct" and t.text in "{(":
                k = self.skip_balanced(k)
                continue
            if t.kind == "ident" and t.text in ("private", "internal", "protected"):
                mods.append(t.text)
            elif t.kind == "ident" and t.text in ("get", "set", "init"):
                if "private" not in mods and mods != ["internal"]:
                    shown += [*mods, t.text, ";"]
                mods = []
            elif t.text == ";":
                mods = []
            k += 1
        return code_words(" ".join(["{", *shown, "}"])) if shown else []

    def member_end(self, j: int) -> int:
        """The index after a member whose head ends at `j`: a body, `=> expr;`, `= value;`,
        `;`, or a property's `{ get; set; } = value;`."""
        n = len(self.toks)
        if j >= n:
            return n
        text = self.at(j)
        if text == "{":
            k = self.skip_balanced(j)
            if self.at(k) == "=" and self.at(k + 1) != ">":  # (a property's initializer)
                return self.skip_to_semicolon(k)
            return k
        if text == ";":
            return j + 1
        return self.skip_to_semicolon(j)

    def type_decl(
        self,
        start: int,
        i: int,
        word: str,
        modifiers: list[str],
        prefix: str,
        depth: int,
        line: int,
    ) -> tuple[Decl | None, int]:
        n = len(self.toks)
        j = i + 1
        name = self.at(j)
        j += 1
        if self.at(j) == "<":
            k, angle = j, 0
            while k < n:
                if self.at(k) == "<":
                    angle += 1
                elif self.at(k) == ">":
                    angle -= 1
                    if angle == 0:
                        break
                k += 1
            name += render(self.toks[j : k + 1])
            j = k + 1
        head_end = j
        while head_end < n and self.at(head_end) not in ("{", ";"):
            if self.at(head_end) == "(":
                head_end = self.skip_balanced(head_end)
                continue
            head_end += 1
        params = read_params(self.toks[j:head_end]) if self.at(j) == "(" else ()
        kind = "enum" if word == "enum" else word
        decl = Decl(
            kind,
            name.lstrip("@"),
            line,
            tuple(modifiers),
            render(self.toks[start:head_end]),
            params=params,
        )
        if head_end >= n or self.at(head_end) == ";":
            return decl, head_end + 1
        if depth >= MAX_NESTING:
            return decl, self.skip_balanced(head_end)
        decl.members, after = self.block(head_end + 1, decl, prefix, depth + 1)
        if prefix and depth == 0:
            decl.name = f"{prefix}.{decl.name}"
        return decl, after

    def enum_values(self, i: int, owner: Decl, line: int) -> tuple[Decl | None, int]:
        """One enum value (`Name = 1,`): the doc comments between values are the block's."""
        n = len(self.toks)
        if i >= n or self.toks[i].kind != "ident":
            return None, i + 1
        name = self.toks[i].text
        j = i + 1
        while j < n and self.at(j) not in (",", "}"):
            if self.at(j) in ("(", "["):
                j = self.skip_balanced(j)
                continue
            j += 1
        decl = Decl("value", name.lstrip("@"), line, (), render(self.toks[i:j]))
        return decl, j + 1 if self.at(j) == "," else j


def parse(source: str) -> Unit:
    """The declarations of the C# file `source`."""
    reader = _Reader(tokens(source))
    types, _ = reader.block(0, None, "", 0)
    return Unit(
        [d for d in types if is_type(d) or d.kind == "delegate"],
        tuple(reader.namespaces),
        tuple(reader.usings),
    )
