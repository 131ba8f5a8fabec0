"""The objects YARD documents in a Ruby file: its classes and modules (full names, superclass),
their public methods (`#get` on an instance, `.get` on the class: `def self.get`,
`class << self`, `module_function`), `attr_*` attributes, documented constants, and the
`@!method`/`@!attribute` directives, each with the comment block right above it.

Read from ruby_lex.py's lines, statement by statement: `class`/`module`/`def` open a frame and
so do `do`, `begin`, `case` and a statement-leading `if`/`unless`/`while`/`until`/`for`; `end`
closes one (`x.end`, `end:` are no keyword; an endless `def x = 1` opens none). What YARD leaves
out is marked hidden: `private`/`protected` methods (a section, `private def`, `private :name`,
`private_class_method`), `# :nodoc:`, `@api private`, `@private`, `@!visibility private`.
Bounded: at most `MAX_OBJECTS` objects and `MAX_DEPTH` open frames (deeper code is skipped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docsmcp.sources.formats.source.ruby_lex import Line

MAX_OBJECTS = 5000
MAX_DEPTH = 64
MAX_SIGNATURE_LINES = 24

_TOKEN = re.compile(r"[A-Za-z_]\w*[?!]?|::|\S")
_NS = re.compile(r"^(class|module)\s+(::)?([A-Z]\w*(?:::[A-Z]\w*)*)(?:\s*<\s*(::)?([A-Z][\w:]*))?")
_SCLASS = re.compile(r"^class\s*<<\s*self\b")
_DEF = re.compile(
    r"^(?:(private|protected|public|private_class_method|module_function)\s+)?def\s+"
    r"(self\.|[A-Z]\w*\.)?"
    r"([A-Za-z_]\w*[?!=]?|\[\]=?|===?|=~|<=>|[-+*/%<>!~^&|]+@?|\*\*)"
)
_ATTR = re.compile(r"^attr_(reader|writer|accessor)\b\s*\(?\s*(.*)$")
_SYMBOLS = re.compile(r":([A-Za-z_]\w*[?!=]?)")
_VISIBILITY = re.compile(
    r"^(private|protected|public|module_function|private_class_method)\b\s*(.*)$"
)
_CONSTANT = re.compile(r"^([A-Z][A-Z0-9_]*)\s*=[^=~]")
# `Request = Struct.new(:a, :b) do … end`, `Point = Data.define(:x)`, `Error = Class.new(Base)`:
# a class YARD names `Outer::Request` (superclass Struct/Data/Base, the members its attributes,
# the block its body), not members of the enclosing namespace.
_CLASS_CALL = re.compile(
    r"^([A-Z]\w*)\s*=\s*(?:::)?(Struct\.new|Data\.define|Class\.new)\b\s*(?:\(\s*(?:::)?([A-Z][\w:]*)?)?"
)
_MIXIN = re.compile(r"^(include|extend)\s*\(?\s*((?:::)?[A-Z][\w:]*(?:\s*,\s*(?:::)?[A-Z][\w:]*)*)")
_METHOD_NAME = r"[A-Za-z_]\w*[?!=]?|\[\]=?|===?|=~|<=>|<<|[-+*/%<>!~^&|]+@?"
_ALIAS = re.compile(rf"^alias\s+:?({_METHOD_NAME})\s+:?({_METHOD_NAME})\s*$")
_ALIAS_METHOD = re.compile(
    rf"^alias_method\s*\(?\s*:({_METHOD_NAME})\s*,\s*:({_METHOD_NAME})\s*\)?\s*$"
)
_DIRECTIVE = re.compile(r"^\s*@!(method|attribute)\b\s*(?:\[(\w+)\])?\s*(.*)$")
# Magic comments and linters' directives: no documentation.
_MAGIC = re.compile(
    r"^\s*(?:frozen_string_literal:|encoding:|coding[:=]|-\*-|rubocop:|typed:|warn_indent:)"
)
# Methods Ruby makes private whatever the section says (`initialize` YARD shows: the constructor)
_ALWAYS_PRIVATE = frozenset(
    "initialize_copy initialize_dup initialize_clone respond_to_missing? method_missing".split()
)
_OPENERS = frozenset({"do", "begin", "case"})
_LEADING = frozenset({"if", "unless", "while", "until", "for"})
_LOOPS = frozenset({"while", "until", "for"})
# Tokens after which `if`/`while`… start an expression that needs an `end`.
_STARTS = frozenset("= ( ; || && ! [ { , ? : << return not and or then else when".split()) | {""}


@dataclass
class RubyObject:
    kind: str  # "class" | "module" | "method" | "attribute" | "constant"
    name: str  # a namespace's full name (`Faraday::Connection`); a member's own (`get`)
    namespace: str  # a member's namespace ("" for a namespace)
    scope: str = "instance"  # "instance" | "class"
    signature: str = ""  # as written, one line (`def get(url = nil)`)
    doc: list[tuple[int, str]] = field(default_factory=list)  # (0-based line, comment text)
    line: int = 0  # 0-based line of the definition
    superclass: str = ""
    access: str = ""  # an attribute's "r", "w" or "rw"
    hidden: bool = False
    # A namespace's mixins as written, in order (`include Helpers`, `extend Registry`)
    includes: list[str] = field(default_factory=list)
    extends: list[str] = field(default_factory=list)
    alias_of: str = ""  # a method `alias`/`alias_method` names: the method it is another name of

    @property
    def path(self) -> str:
        """YARD's path: `Faraday::Connection`, `Faraday::Connection#get`, `HTTParty.get`."""
        if not self.namespace:
            return self.name
        if self.kind == "constant":
            return f"{self.namespace}::{self.name}"
        return self.namespace + ("." if self.scope == "class" else "#") + self.name


@dataclass
class _Frame:
    kind: str  # "ns" | "sclass" | "def" | "block"
    name: str = ""  # the namespace's full name
    visibility: str = "public"
    module_function: bool = False
    hidden: bool = False


def _comment(text: str) -> str:
    """A comment's text as YARD reads it: without the further `#`s of `## text` (a `# # Title`
    keeps its heading)."""
    return text.lstrip("#")


def _hidden_doc(doc: list[tuple[int, str]]) -> bool:
    for _, text in doc:
        s = text.strip()
        if s.startswith((":nodoc:", "@private", "@!visibility private")) or re.match(
            r"@api\s+private\b", s
        ):
            return True
    return False


def parse(lines: list[Line]) -> list[RubyObject]:
    """The objects of a lexed file, namespaces and members, in file order."""
    objects: list[RubyObject] = []
    namespaces: dict[str, RubyObject] = {}
    stack: list[_Frame] = []
    pending: list[tuple[int, str]] = []
    blank = False
    index: dict[tuple[str, str], list[RubyObject]] = {}
    indexed = 0  # objects[:indexed] are in `index`
    i = 0
    while i < len(lines) and len(objects) < MAX_OBJECTS:
        line = lines[i]
        code = line.code.strip()
        if not code:
            if line.comment is not None and not line.literal:
                if _MAGIC.match(line.comment):
                    pass  # (no text of the block it sits in)
                elif blank:  # (a comment block after a blank line: a new block)
                    _directives(pending, stack, objects)
                    pending, blank = [(i, _comment(line.comment))], False
                else:
                    pending.append((i, _comment(line.comment)))
            elif blank or line.literal:  # (two blank lines: the block belongs to nothing)
                _directives(pending, stack, objects)
                pending, blank = [], False
            else:
                blank = True  # (YARD reads a comment one blank line above a definition)
            i += 1
            continue
        blank = False
        made = _CLASS_CALL.match(code) if _in_body(stack) else None
        doc = _directives(pending, stack, objects, _made_name(made, stack))
        pending = []
        if line.comment is not None and ":nodoc:" in line.comment:
            doc = [*doc, (i, ":nodoc:")]
        # a `def` whose parameters run over lines: read them as one statement
        end = i
        if made or re.match(r"^(?:\w+\s+)?def\b", code):
            while end + 1 < len(lines) and end - i < MAX_SIGNATURE_LINES and open_parens(code):
                end += 1
                code += " " + lines[end].code.strip()
        for k, statement in enumerate(code.split(";")):
            _statement(
                statement.strip(), doc if k == 0 else [], i, stack, objects, namespaces, index
            )
            for obj in objects[indexed:]:  # (the latest definition of each name: `private :x`)
                index[(obj.namespace, obj.name)] = [obj]
            indexed = len(objects)
        i = end + 1
    return objects


def open_parens(code: str) -> bool:
    """Whether `code`'s parentheses are still open (a signature continues)."""
    return code.count("(") > code.count(")")


def _namespace(stack: list[_Frame]) -> _Frame | None:
    for frame in reversed(stack):
        if frame.kind == "ns":
            return frame
    return None


def _in_body(stack: list[_Frame]) -> bool:
    return not stack or stack[-1].kind in ("ns", "sclass")


def _made_name(m: re.Match[str] | None, stack: list[_Frame]) -> str | None:
    """The full name of the class a `Name = Struct.new(…)` statement makes."""
    if m is None:
        return None
    ns = _namespace(stack)
    return f"{ns.name}::{m.group(1)}" if ns else m.group(1)


def _directives(
    doc: list[tuple[int, str]],
    stack: list[_Frame],
    objects: list[RubyObject],
    into: str | None = None,
) -> list[tuple[int, str]]:
    """`doc` less its `@!method`/`@!attribute` directives, each made an object of the current
    namespace (or of `into`, the class the statement makes) with the text that follows it (up to
    the next directive)."""
    starts = [k for k, (_, text) in enumerate(doc) if _DIRECTIVE.match(text)]
    if not starts:
        return doc
    ns = _namespace(stack)
    if into is not None:
        ns = _Frame("ns", into, hidden=bool(ns and ns.hidden))
    for n, k in enumerate(starts):
        part = doc[k : starts[n + 1] if n + 1 < len(starts) else len(doc)]
        m = _DIRECTIVE.match(part[0][1])
        if ns is None or m is None or not m.group(3).strip() or len(objects) >= MAX_OBJECTS:
            continue
        kind, access, sig = m.group(1), m.group(2) or "rw", m.group(3).strip()
        name = re.match(r"[^\s(]+", sig)
        body = part[1:]
        scope = "class" if any(t.strip() == "@!scope class" for _, t in body) else "instance"
        obj = RubyObject(
            "method" if kind == "method" else "attribute",
            name.group(0) if name else sig,
            ns.name,
            scope,
            f"def {sig}" if kind == "method" else "",
            body,
            part[0][0],
            access=access if kind == "attribute" else "",
            hidden=ns.hidden or _hidden_doc(body),
        )
        objects.append(obj)
    return doc[: starts[0]]


def _statement(
    code: str,
    doc: list[tuple[int, str]],
    line: int,
    stack: list[_Frame],
    objects: list[RubyObject],
    namespaces: dict[str, RubyObject],
    index: dict[tuple[str, str], list[RubyObject]],
) -> None:
    if not code:
        return
    top = stack[-1] if stack else None
    in_body = top is None or top.kind in ("ns", "sclass")
    ns = _namespace(stack)
    skip = 0  # tokens already read as the statement's opener
    if in_body and (m := _SCLASS.match(code)):
        stack.append(_Frame("sclass", hidden=bool(ns and ns.hidden)))
        skip = 3
    elif in_body and (m := _NS.match(code)):
        name = m.group(3) if m.group(2) or ns is None else f"{ns.name}::{m.group(3)}"
        hidden = bool(ns and ns.hidden) or _hidden_doc(doc)
        obj = namespaces.get(name)
        if obj is None:
            obj = RubyObject(m.group(1), name, "", line=line, superclass=m.group(5) or "")
            namespaces[name] = obj
            objects.append(obj)
        if doc and not obj.doc:
            obj.doc, obj.line = doc, line
        obj.hidden = obj.hidden or hidden
        stack.append(_Frame("ns", name, hidden=hidden))
        skip = 2
    elif in_body and (m := _CLASS_CALL.match(code)):
        code, skip = _class_call(code, m, doc, line, stack, objects, namespaces), 0
    elif in_body and (m := _DEF.match(code)):
        _def(code, m, doc, line, stack, objects)
        rest = code[m.end() :]
        endless = re.match(r"^\s*(\([^)]*\))?\s*=(?![=~>])", rest)
        if not endless:
            stack.append(_Frame("def"))
        code, skip = rest, 0
    elif in_body and ns is not None:
        _body_statement(code, doc, line, stack, ns, objects, index)
        if stack[-1].kind == "ns" and (m := _MIXIN.match(code)) and ns.name in namespaces:
            names = [n.strip() for n in m.group(2).split(",")]
            found = namespaces[ns.name]
            (found.includes if m.group(1) == "include" else found.extends).extend(names)
    if len(stack) > MAX_DEPTH:
        del stack[MAX_DEPTH:]
    _count(code, skip, stack)


def _class_call(
    code: str,
    m: re.Match[str],
    doc: list[tuple[int, str]],
    line: int,
    stack: list[_Frame],
    objects: list[RubyObject],
    namespaces: dict[str, RubyObject],
) -> str:
    """Makes the class of `Name = Struct.new(:a, :b) do`; returns the code left to count (after
    the block's `do`, whose frame is the class's body)."""
    ns = _namespace(stack)
    name = _made_name(m, stack) or m.group(1)
    call = m.group(2)
    hidden = bool(ns and ns.hidden) or _hidden_doc(doc)
    superclass = {"Struct.new": "Struct", "Data.define": "Data"}.get(call) or m.group(3) or ""
    obj = namespaces.get(name)
    if obj is None:
        obj = RubyObject("class", name, "", line=line, superclass=superclass, doc=doc)
        namespaces[name] = obj
        objects.append(obj)
    obj.hidden = obj.hidden or hidden
    block = re.search(r"\bdo\s*(\|[^|]*\|)?\s*$", code)
    args = code[m.end() : block.start() if block else len(code)]
    if call != "Class.new":  # (the members: Struct's accessors, Data's readers)
        have = {(o.namespace, o.name) for o in objects[-MAX_OBJECTS:] if o.kind == "attribute"}
        for member in _SYMBOLS.findall(args):
            if (name, member) not in have and len(objects) < MAX_OBJECTS:
                access = "r" if call == "Data.define" else "rw"
                objects.append(RubyObject("attribute", member, name, "instance", "", [], line,
                                          access=access, hidden=hidden))  # fmt: skip
    if block is None:
        return ""
    stack.append(_Frame("ns", name, hidden=hidden))
    return code[block.end() :]


def _def(
    code: str,
    m: re.Match[str],
    doc: list[tuple[int, str]],
    line: int,
    stack: list[_Frame],
    objects: list[RubyObject],
) -> None:
    ns = _namespace(stack)
    top = stack[-1] if stack else None
    if ns is None:
        return  # (a top-level method: a script's, no library's)
    modifier, receiver, name = m.group(1), m.group(2), m.group(3)
    singleton = bool(receiver) or (top is not None and top.kind == "sclass")
    frame = top if top is not None and top.kind == "sclass" else ns
    private = frame.visibility != "public" or modifier in ("private", "protected")
    private = private or name in _ALWAYS_PRIVATE
    if modifier == "private_class_method":
        private = True
    signature = "def " + code[len(modifier or "") :].strip().removeprefix("def ").strip()
    signature = "def " + re.sub(r"\s*=\s*$", "", signature[4:]).strip()
    scope = (
        "class" if singleton or ns.module_function or modifier == "module_function" else "instance"
    )
    objects.append(
        RubyObject(
            "method",
            name,
            ns.name,
            scope,
            signature[:400],
            doc,
            line,
            hidden=ns.hidden or (private and not ns.module_function) or _hidden_doc(doc),
        )
    )


def _body_statement(
    code: str,
    doc: list[tuple[int, str]],
    line: int,
    stack: list[_Frame],
    ns: _Frame,
    objects: list[RubyObject],
    index: dict[tuple[str, str], list[RubyObject]],
) -> None:
    """`attr_*`, `private`/`protected`/`public`/`module_function`, constants."""
    frame = stack[-1]
    if m := _ATTR.match(code):
        access = {"reader": "r", "writer": "w", "accessor": "rw"}[m.group(1)]
        hidden = ns.hidden or frame.visibility != "public" or _hidden_doc(doc)
        scope = "class" if frame.kind == "sclass" else "instance"  # (`class << self`)
        for name in _SYMBOLS.findall(m.group(2)):
            objects.append(RubyObject("attribute", name, ns.name, scope, "", doc, line,
                                      access=access, hidden=hidden))  # fmt: skip
        return
    if m := _VISIBILITY.match(code):
        word, rest = m.group(1), m.group(2).strip()
        names = set(_SYMBOLS.findall(rest))
        if not rest:
            if word == "module_function":
                frame.module_function = True
            elif word in ("private", "protected", "public"):
                frame.visibility = word
        # (the objects named, by an index: a file of many `private :x` stays linear)
        named = [o for n in sorted(names) for o in index.get((ns.name, n), ())]
        if word in ("private", "protected", "private_class_method"):
            for obj in named:
                obj.hidden = obj.hidden or obj.kind != "constant"
        elif word == "private_constant":
            for obj in named:
                obj.hidden = obj.hidden or obj.kind == "constant"
        elif word == "module_function":
            for obj in named:
                obj.scope = "class"
        return
    if m := _ALIAS.match(code) or _ALIAS_METHOD.match(code):
        scope = "class" if frame.kind == "sclass" else "instance"
        word = "alias" if code.startswith("alias ") else "alias_method"
        sig = f"alias {m.group(1)} {m.group(2)}" if word == "alias" else code[:200]
        objects.append(RubyObject("method", m.group(1), ns.name, scope, sig, doc, line,
                                  hidden=ns.hidden or frame.visibility != "public",
                                  alias_of=m.group(2)))  # fmt: skip
        return
    if doc and frame.kind == "ns" and (m := _CONSTANT.match(code)):
        objects.append(RubyObject("constant", m.group(1), ns.name, "class", code[:200], doc,
                                  line, hidden=ns.hidden or _hidden_doc(doc)))  # fmt: skip


def _count(code: str, skip: int, stack: list[_Frame]) -> None:
    """Opens and closes the frames the keywords of `code` (after `skip` tokens) open and close."""
    tokens = _TOKEN.findall(code)
    loop = False
    for k in range(skip, len(tokens)):
        t = tokens[k]
        if t[0] not in "bcdefiuw":
            continue
        prev = tokens[k - 1] if k else ""
        if prev in (".", "::", "&") or (k + 1 < len(tokens) and tokens[k + 1] == ":"):
            continue  # (`x.end`, `Foo::end`, `end: 1`, `&.end`)
        if t == "end":
            if stack:
                stack.pop()
        elif t in _OPENERS:
            if t == "do" and loop:
                loop = False  # (`while x do`: the loop's own `do`)
                continue
            stack.append(_Frame("block"))
        elif t in _LEADING and (k == skip or prev in _STARTS):
            stack.append(_Frame("block"))
            loop = t in _LOOPS
        elif t in ("def", "class", "module") and k > skip and prev in _STARTS:
            stack.append(_Frame("block"))  # (`x = class Foo … end`, a def inside a block)
