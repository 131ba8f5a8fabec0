"""The declarations of a PHP file, read from php_lex.py's tokens without running anything: what
phpDocumentor lists of a file (phpdoc.py writes its page).

- `namespace X;` (or `namespace X { … }`) names the types and functions after it; `use`
  imports (`use A\\B as C;`, `use A\\{B, C};`, `use function …`) give the names a file's types
  resolve to.
- Types: `class` (`abstract`, `final`, `readonly`), `interface`, `trait` and `enum` (with its
  backing type), their `extends`/`implements`, and their members: constants (typed or not),
  enum cases, properties (`public int $a = 1, $b;`, PHP 8.4's hooks skipped), methods (by
  reference, variadic and promoted constructor parameters, defaults as written) and the
  traits a type uses. Functions declared in a namespace (Guzzle's `functions.php`).
- Each declaration keeps the `/** */` comment just above it (attributes between are allowed)
  and its line; anonymous classes and closures are no declarations.

At most MAX_DECLS declarations a file are kept; input that is no PHP yields what it can.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docsmcp.sources.formats.source.php_lex import Token, tokens

MAX_DECLS = 5_000
TYPE_KINDS = ("class", "interface", "trait", "enum")
_MODIFIERS = frozenset(
    {"public", "protected", "private", "static", "abstract", "final", "readonly", "var"}
)
_OPENERS = {"(": ")", "[": "]", "{": "}"}
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Param:
    name: str  # `$options`
    type: str  # as written (`array`, `?string`, `int|float`), "" when none
    default: str  # as written, "" when none
    variadic: bool = False
    by_ref: bool = False
    promoted: tuple[str, ...] = ()  # a constructor's `public readonly` (a property too)


@dataclass(frozen=True)
class Decl:
    kind: str  # class, interface, trait, enum, function, method, const, case, property
    name: str  # a type's or function's qualified name (no leading `\\`); a member's own
    line: int  # 0-based line of the declaration
    doc: str = ""  # the `/** */` comment above it, whole
    doc_line: int = 0
    modifiers: tuple[str, ...] = ()
    params: tuple[Param, ...] = ()
    returns: str = ""  # a function's return type as written
    type: str = ""  # a property's or typed constant's type; an enum's backing type
    value: str = ""  # a constant's, case's or property's value as written
    extends: tuple[str, ...] = ()
    implements: tuple[str, ...] = ()
    traits: tuple[str, ...] = ()
    members: tuple[Decl, ...] = ()
    by_ref: bool = False  # `function &name()`


@dataclass(frozen=True)
class Unit:
    decls: tuple[Decl, ...]  # types and functions, in file order
    uses: dict[str, str]  # an imported name's alias -> its qualified name


def parse(text: str) -> Unit:
    """The declarations of the PHP file `text`."""
    return _Parser(text).run()


def clean(text: str) -> str:
    """Source text on one line: runs of whitespace as one space."""
    return _SPACE.sub(" ", text).strip()


def _variable(
    kind: str, name: Token, doc: Token | None, mods: tuple[str, ...], type_: str, value: str
) -> Decl:
    """A constant, case or property named by the token `name`: its type and value as written,
    the comment above its statement (each of `const A = 1, B = 2;` shares it)."""
    doc_text, doc_line = (doc.text, doc.line) if doc else ("", name.line)
    return Decl(kind, name.text, name.line, doc_text, doc_line, mods, type=type_, value=value)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks: list[Token] = [t for t in tokens(text) if t.kind != "html"]
        self.i = 0
        self.namespace = ""
        self.uses: dict[str, str] = {}
        self.count = 0

    # -- tokens --------------------------------------------------------------------------------

    def peek(self, k: int = 0) -> Token | None:
        j = self.i + k
        return self.toks[j] if 0 <= j < len(self.toks) else None

    def word(self, k: int = 0) -> str:
        """The lower-cased text of the `k`th token ahead when it is a name, else ""."""
        t = self.peek(k)
        return t.text.lower() if t is not None and t.kind == "name" else ""

    def is_op(self, text: str, k: int = 0) -> bool:
        t = self.peek(k)
        return t is not None and t.kind == "op" and t.text == text

    def source(self, first: int, end: int) -> str:
        """The source text of tokens `first` to `end` (exclusive), on one line."""
        if end <= first:
            return ""
        last = self.toks[end - 1]
        return clean(self.text[self.toks[first].start : last.start + len(last.text)])

    def skip_balanced(self) -> None:
        """Past the bracket group opening at the current token."""
        stack: list[str] = []
        while (t := self.peek()) is not None:
            self.i += 1
            if t.kind != "op":
                continue
            if t.text in _OPENERS:
                stack.append(_OPENERS[t.text])
            elif stack and t.text == stack[-1]:
                stack.pop()
                if not stack:
                    return

    def until(self, stops: str) -> int:
        """Past tokens to the first of `stops` outside brackets (returned, not consumed)."""
        depth = 0
        while (t := self.peek()) is not None:
            if t.kind == "op":
                if depth == 0 and t.text in stops:
                    return self.i
                if t.text in _OPENERS:
                    depth += 1
                elif t.text in (")", "]", "}"):
                    if depth == 0:
                        return self.i
                    depth -= 1
            self.i += 1
        return self.i

    # -- the file ------------------------------------------------------------------------------

    def run(self) -> Unit:
        out: list[Decl] = []
        doc: Token | None = None
        mods: list[str] = []
        while (t := self.peek()) is not None:
            w = t.text.lower() if t.kind == "name" else ""
            if t.kind == "doc":
                doc, mods = t, []
                self.i += 1
            elif t.kind == "attr":
                self.i += 1
            elif w == "namespace" and self.peek(1) is not None and self.peek(1).kind == "name":
                self.namespace = self.peek(1).text.lstrip("\\")
                self.uses = {}
                self.i += 2
                doc = None
            elif w == "use" and not mods:
                self.read_use()
                doc = None
            elif w in ("abstract", "final", "readonly"):
                mods.append(w)
                self.i += 1
            elif w == "class" and self.word(-1) == "new":  # (an anonymous class: its body)
                while (t := self.peek()) is not None and not (t.kind == "op" and t.text == "{"):
                    if t.kind == "op" and t.text == "(":
                        self.skip_balanced()
                    else:
                        self.i += 1
                self.skip_balanced()
            elif w in TYPE_KINDS and self.starts_type():
                decl = self.read_type(w, doc, tuple(mods))
                if decl is not None and len(out) < MAX_DECLS:
                    out.append(decl)
                doc, mods = None, []
            elif w == "function" and self.word(1) and not self.is_op("::", -1):
                decl = self.read_function("function", doc, (), self.namespace)
                if len(out) < MAX_DECLS:
                    out.append(decl)
                doc, mods = None, []
            else:
                if t.kind == "op" and t.text in ";{}":
                    doc = None
                mods = []
                self.i += 1
        return Unit(tuple(out), dict(self.uses))

    def starts_type(self) -> bool:
        """Whether the type keyword here declares a named type (not `new class`, `Foo::class`,
        nor an `enum(…)` call)."""
        before = self.peek(-1) if self.i > 0 else None
        if before is not None and (
            (before.kind == "op" and before.text in ("::", "->", "?->"))
            or (before.kind == "name" and before.text.lower() == "new")
        ):
            return False
        after, then = self.peek(1), self.peek(2)
        if after is None or after.kind != "name" or "\\" in after.text:
            return False
        if self.word() == "enum":
            return then is not None and (
                (then.kind == "op" and then.text in ("{", ":"))
                or (then.kind == "name" and then.text.lower() == "implements")
            )
        return True

    def read_use(self) -> None:
        """`use A\\B;`, `use A\\B as C, D;`, `use function A\\f;`, `use A\\{B, C as D};`."""
        self.i += 1
        if self.word() in ("function", "const"):
            self.i += 1
        prefix = ""
        while (t := self.peek()) is not None:
            if t.kind == "op" and t.text == ";":
                self.i += 1
                return
            if t.kind == "op" and t.text == "}":
                prefix = ""
            elif t.kind == "name" and t.text.lower() not in ("as", "function", "const"):
                if self.is_op("\\", 1) and self.is_op("{", 2):  # (`use A\{B, C};`)
                    prefix = t.text.strip("\\")
                    self.i += 3
                    continue
                name = t.text.strip("\\")
                full = f"{prefix}\\{name}" if prefix else name
                alias = full.rsplit("\\", 1)[-1]
                if self.word(1) == "as" and self.peek(2) is not None:
                    alias = self.peek(2).text
                    self.i += 2
                self.uses[alias] = full
            elif t.kind != "op" or t.text not in ",{":
                return  # (a closure's `use (…)`: not an import)
            self.i += 1

    def qualify(self, name: str) -> str:
        return f"{self.namespace}\\{name}" if self.namespace else name

    def names(self, stops: tuple[str, ...]) -> tuple[str, ...]:
        """Comma-separated names up to a stop word or `{`."""
        out: list[str] = []
        while (t := self.peek()) is not None:
            if (t.kind == "op" and t.text in "{;") or self.word() in stops:
                break
            if t.kind == "name":
                out.append(t.text)
            self.i += 1
        return tuple(out)

    # -- types ---------------------------------------------------------------------------------

    def read_type(self, kind: str, doc: Token | None, mods: tuple[str, ...]) -> Decl | None:
        line = self.peek().line
        name = self.qualify(self.peek(1).text)
        self.i += 2
        extends: tuple[str, ...] = ()
        implements: tuple[str, ...] = ()
        backing = ""
        while (t := self.peek()) is not None and not (t.kind == "op" and t.text in "{;"):
            w = self.word()
            self.i += 1
            if w == "extends":
                extends = self.names(("implements",))
            elif w == "implements":
                implements = self.names(("extends",))
            elif kind == "enum" and t.kind == "op" and t.text == ":" and self.peek() is not None:
                backing = self.peek().text
                self.i += 1
        if not self.is_op("{"):
            return None
        self.i += 1
        members, traits = self.read_members(kind)
        return Decl(
            kind,
            name,
            line,
            doc.text if doc else "",
            doc.line if doc else line,
            mods,
            type=backing,
            extends=extends,
            implements=implements,
            traits=traits,
            members=members,
        )

    def read_members(self, owner_kind: str) -> tuple[tuple[Decl, ...], tuple[str, ...]]:
        """The members of a type body up to its `}` (consumed)."""
        out: list[Decl] = []
        traits: list[str] = []
        doc: Token | None = None
        mods: list[str] = []
        while (t := self.peek()) is not None:
            w = t.text.lower() if t.kind == "name" else ""
            if t.kind == "op" and t.text == "}":
                self.i += 1
                break
            if t.kind == "doc":
                doc, mods = t, []
                self.i += 1
            elif t.kind == "attr":
                self.i += 1
            elif w in _MODIFIERS:
                mods.append(w)
                self.i += 1
            elif w == "use":
                self.i += 1
                traits += self.names(())
                if self.is_op("{"):
                    self.skip_balanced()
                elif self.is_op(";"):
                    self.i += 1
                doc, mods = None, []
            elif w == "function":
                got = self.read_function("method", doc, tuple(mods), "")
                if self.count < MAX_DECLS:
                    out.append(got)
                doc, mods = None, []
            elif w in ("const", "case"):
                self.i += 1
                out += self.read_constants(w if w == "case" else "const", doc, tuple(mods))
                doc, mods = None, []
            elif t.kind in ("name", "var") or (t.kind == "op" and t.text == "?"):
                out += self.read_properties(doc, tuple(mods))
                doc, mods = None, []
            elif t.kind == "op" and t.text in _OPENERS:
                self.skip_balanced()
                doc, mods = None, []
            else:
                self.i += 1
                if t.kind == "op" and t.text == ";":
                    doc, mods = None, []
        self.count += len(out)
        return tuple(out[:MAX_DECLS]), tuple(traits)

    def read_constants(self, kind: str, doc: Token | None, mods: tuple[str, ...]) -> list[Decl]:
        """`const [T] A = 1, B = 2;` or an enum's `case A [= 'a'];`."""
        out: list[Decl] = []
        while self.peek() is not None:
            first = self.i
            end = self.until("=,;")
            words = [x for x in self.toks[first:end] if x.kind == "name"]
            type_ = self.source(first, end - 1) if len(words) > 1 else ""
            value = ""
            if self.is_op("="):
                self.i += 1
                at = self.i
                value = self.source(at, self.until(",;"))
            if words:
                name = words[-1]
                out.append(_variable(kind, name, doc, mods, type_, value))
            if not self.is_op(","):
                break
            self.i += 1
        if self.is_op(";"):
            self.i += 1
        return out

    def read_properties(self, doc: Token | None, mods: tuple[str, ...]) -> list[Decl]:
        """`[T] $a [= v], $b;` (a hook block `{ get => …; }` skipped)."""
        out: list[Decl] = []
        first = self.i
        while (t := self.peek()) is not None and t.kind != "var":
            if t.kind == "op" and t.text in ";{}":
                self.i += t.text == ";"
                return out
            self.i += 1
        type_ = self.source(first, self.i)
        while (t := self.peek()) is not None and t.kind == "var":
            self.i += 1
            value = ""
            if self.is_op("="):
                self.i += 1
                at = self.i
                value = self.source(at, self.until(",;{"))
            out.append(_variable("property", t, doc, mods, type_, value))
            if not self.is_op(","):
                break
            self.i += 1
        if self.is_op("{"):
            self.skip_balanced()
        elif self.is_op(";"):
            self.i += 1
        return out

    # -- functions -----------------------------------------------------------------------------

    def read_function(
        self, kind: str, doc: Token | None, mods: tuple[str, ...], namespace: str
    ) -> Decl:
        line = self.peek().line
        self.i += 1
        by_ref = self.is_op("&")
        if by_ref:
            self.i += 1
        t = self.peek()
        name = t.text if t is not None and t.kind == "name" else "function"
        self.i += 1
        params = self.read_params() if self.is_op("(") else ()
        returns = ""
        if self.is_op(":"):
            self.i += 1
            at = self.i
            returns = self.source(at, self.until("{;"))
        if self.is_op("{"):
            self.skip_balanced()
        elif self.is_op(";"):
            self.i += 1
        qualified = f"{namespace}\\{name}" if namespace else name
        return Decl(
            kind,
            qualified,
            line,
            doc.text if doc else "",
            doc.line if doc else line,
            mods,
            params=params,
            returns=returns,
            by_ref=by_ref,
        )

    def read_params(self) -> tuple[Param, ...]:
        """The parameters between `(` (current) and its `)` (consumed)."""
        self.i += 1
        out: list[Param] = []
        while (t := self.peek()) is not None:
            if t.kind == "op" and t.text == ")":
                self.i += 1
                break
            first = self.i
            end = self.until(",)")
            out.append(self.param(first, end))
            if self.is_op(","):
                self.i += 1
        return tuple(out)

    def param(self, first: int, end: int) -> Param:
        toks = [t for t in self.toks[first:end] if t.kind not in ("attr", "doc")]
        var = next((k for k, t in enumerate(toks) if t.kind == "var"), None)
        if var is None:
            return Param("$" + clean(" ".join(t.text for t in toks)), "", "")
        promoted = tuple(
            t.text.lower() for t in toks[:var] if t.kind == "name" and t.text.lower() in _MODIFIERS
        )
        head = [t for t in toks[:var] if not (t.kind == "name" and t.text.lower() in _MODIFIERS)]
        variadic = bool(head) and head[-1].text == "..."
        head = head[:-1] if variadic else head
        by_ref = bool(head) and head[-1].text == "&"
        head = head[:-1] if by_ref else head
        type_ = ""
        if head:
            a, b = head[0], head[-1]
            type_ = clean(self.text[a.start : b.start + len(b.text)])
        default = ""
        rest = toks[var + 1 :]
        if rest and rest[0].text == "=" and len(rest) > 1:
            a, b = rest[1], rest[-1]
            default = clean(self.text[a.start : b.start + len(b.text)])
        return Param(toks[var].text, type_, default, variadic, by_ref, promoted)
