"""The exported declarations of a TypeScript file (`.ts`, `.tsx`, `.mts`, `.cts`, `.d.ts`),
with their doc comments and members, read from the text as TypeDoc would list them (never
compiled or run).

Declarations are found by their lines in the blanked code (ts_scan.py): a line at brace depth
0 (or inside an exported `namespace`/`declare module` body) starting with a declaration
keyword, exported by `export` or by a later `export { name }`; members are the lines one
level inside a class, interface, enum or object type. A declaration's header runs to its
body's `{`, its `;` or the end of its statement, bracket by bracket, each walk bounded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docsmcp.sources.formats.source.ts_scan import Doc, Scanned, blank, closing

MAX_DECLARATIONS = 3000  # per file (a generated file of declarations stops here)
MAX_MEMBERS = 400  # per class, interface or enum
MAX_HEADER = 4000  # characters a header (signature) is read over
MAX_STATEMENT_LINES = 60  # lines a type alias or a property's type is read over
MAX_NESTING = 4  # namespaces inside namespaces

_DECL = re.compile(
    r"(?P<export>export\s+)?(?P<default>default\s+)?(?:declare\s+)?(?:abstract\s+)?"
    r"(?:async\s+)?(?P<kind>function\s*\*?|class|interface|type|const\s+enum|enum|const|let|var"
    r"|namespace|module)\s+(?P<name>[A-Za-z_$][\w$.]*)"
)
_MEMBER = re.compile(
    r"(?P<mods>(?:(?:public|private|protected|static|readonly|abstract|async|override|declare"
    r"|accessor)\s+)*)(?P<accessor>(?:get|set)\s+)?\*?(?P<name>#?[A-Za-z_$][\w$]*)"
    r"(?P<optional>\?)?!?\s*(?P<next>[(<:=;,]|$)"
)
# `declare module "x" { … }`: an ambient module of a declaration file (its name is a string)
_AMBIENT_MODULE = re.compile(r"(?:export\s+)?declare\s+module\s+[\"']")
_ENUM_MEMBER = re.compile(r"(?P<name>[A-Za-z_$][\w$]*)\s*(?:=|,|$)")
_EXPORT_LIST = re.compile(r"^\s*export\s+(?:type\s+)?\{([^}]*)\}\s*(?:;|$)", re.MULTILINE)
_EXPORT_DEFAULT = re.compile(r"^\s*export\s+default\s+([A-Za-z_$][\w$]*)\s*;?\s*$", re.MULTILINE)
_EXPORT_EQUALS = re.compile(r"^\s*export\s*=\s*([A-Za-z_$][\w$]*)\s*;?\s*$", re.MULTILINE)
_HAS_EXPORT = re.compile(r"^\s*export\b", re.MULTILINE)
_TYPE_START = set(":|&<(,=?")  # a `{` after these opens a type, not a body


@dataclass(frozen=True)
class Member:
    name: str
    kind: str  # "method" | "property" | "constructor" | "accessor" | "member" (an enum's)
    signatures: tuple[str, ...]  # as written, one line each (a method's overloads)
    type: str  # a property's type ("" for methods)
    optional: bool
    static: bool
    doc: Doc | None
    line: int  # 0-based


@dataclass(frozen=True)
class Declaration:
    name: str  # `addDays`, `OpenAI.Chat` inside a namespace
    kind: str  # "function" | "class" | "interface" | "type" | "enum" | "variable"
    signatures: tuple[str, ...]  # the header(s) as written, one line each
    doc: Doc | None
    members: tuple[Member, ...]
    line: int  # 0-based
    last_line: int  # 0-based, the end of its statement or body


_OPENED = re.compile(r"([(<\[])\s+")
_CLOSED = re.compile(r",?\s+([)\]])|,\s+(>)")


def _squash(text: str) -> str:
    """A header on one line as Prettier prints a short one: `f<T>(a: A): R`, not `f< T, >(`."""
    return _CLOSED.sub(r"\1\2", _OPENED.sub(r"\1", " ".join(text.split())))


_MODIFIERS = re.compile(r"^(?:(?:export|default|declare)\s+)+")


def _shown(header: str) -> str:
    """A header as TypeDoc shows it: without `export`, `default`, `declare`."""
    return _MODIFIERS.sub("", header)


def _skip_space(code: str, k: int, limit: int) -> int:
    while k < limit and code[k] in " \t\r\n":
        k += 1
    return k


def _prev_char(code: str, k: int) -> str:
    j = k - 1
    while j >= 0 and code[j] in " \t\r\n":
        j -= 1
    if j >= 1 and code[j] == ">" and code[j - 1] == "=":
        return "=>"
    return code[j] if j >= 0 else ""


def header_end(code: str, start: int, limit: int, stop_at_newline: bool) -> tuple[int, str]:
    """(offset, what ends it) of a header from `start`: the `{` of a body (one after `:`,
    `|`, `&`, `<`, `(`, `,`, `=`, `?` or `=>` opens a type and is skipped), a `;`, an `=`
    (not `=>`, `==`) at depth 0, or, with `stop_at_newline`, a line end whose next line does
    not continue the statement."""
    k = start
    limit = min(limit, start + MAX_HEADER)
    while k < limit:
        ch = code[k]
        if ch in "([<":
            k = closing(code, k, limit) + 1
            continue
        if ch == "{":
            prev = _prev_char(code, k)
            if prev in _TYPE_START or prev == "=>":
                k = closing(code, k, limit) + 1
                continue
            return k, "{"
        if ch == ";" or ch == "}":
            return k, ch
        if ch == "=" and code[k + 1 : k + 2] not in (">", "=") and code[k - 1 : k] not in "!=<>":
            return k, "="
        if ch == "\n" and stop_at_newline:
            nxt = _skip_space(code, k, limit)
            prev = _prev_char(code, k)
            # (a line ending in a generic's `>` ends there: zustand's `setState: Set<T>`
            # followed by `getState: () => T` on the next line, no `;` between)
            if nxt >= limit or (code[nxt] not in "|&?:.=>)" and prev not in _CONTINUED):
                return k, "\n"
        k += 1
    return limit, ""


_CONTINUED = (",", "|", "&", ":", "?", "=", "(", "<", "=>")  # a line ending so goes on


def statement_end(code: str, start: int, limit: int) -> int:
    """The offset ending a statement from `start` (a type alias's, a property's, a const's):
    its `;`, or a line end the next line does not continue; brackets skipped whole."""
    k = start
    limit = min(limit, start + MAX_HEADER * 4)
    while k < limit:
        ch = code[k]
        if ch in "([{":
            k = closing(code, k, limit) + 1
            continue
        if ch == ";" or ch == "}" or ch == ",":
            return k
        if ch == "\n":
            nxt = _skip_space(code, k, limit)
            prev = _prev_char(code, k)
            # (a line ending in a generic's `>` ends there: zustand's `setState: Set<T>`
            # followed by `getState: () => T` on the next line, no `;` between)
            if nxt >= limit or (code[nxt] not in "|&?:.=>)" and prev not in _CONTINUED):
                return k
        k += 1
    return limit


def _line_of(scanned: Scanned, offset: int) -> int:
    lo, hi = 0, len(scanned.line_starts) - 1
    while lo < hi:  # the last line starting at or before offset
        mid = (lo + hi + 1) // 2
        if scanned.line_starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.s = blank(text)
        self.code = self.s.code
        # The doc comment each line follows (only blank lines, decorators between them).
        self.doc_before: dict[int, Doc] = {}
        for doc in self.s.docs:
            line = _line_of(self.s, doc.end) + 1
            tail = self.code[doc.end : self.s.line_starts[line - 1] + self._len(line - 1)]
            if tail.strip():  # code after the comment on its line: `/** x */ foo: T;`
                self.doc_before[line - 1] = doc
                continue
            while line < len(self.s.line_starts) and self._blank_or_decorator(line):
                line += 1
            self.doc_before[line] = doc

    def _len(self, line: int) -> int:
        starts = self.s.line_starts
        end = starts[line + 1] - 1 if line + 1 < len(starts) else len(self.code)
        return end - starts[line]

    def line_text(self, line: int) -> str:
        start = self.s.line_starts[line]
        return self.code[start : start + self._len(line)]

    def _blank_or_decorator(self, line: int) -> bool:
        stripped = self.line_text(line).strip()
        return not stripped or stripped.startswith("@")

    def doc_for(self, line: int, offset: int) -> Doc | None:
        doc = self.doc_before.get(line)
        return doc if doc is not None and doc.end <= offset else None

    def lines_at(self, first: int, last: int, depth: int) -> range:
        return range(first, min(last, len(self.s.line_starts) - 1) + 1)

    def text_of(self, a: int, b: int) -> str:
        """The original text between offsets, on one line (strings as written)."""
        return _squash(self.text[a:b])


def _exported_names(code: str) -> set[str]:
    names: set[str] = set()
    for m in _EXPORT_LIST.finditer(code):
        for part in m.group(1).split(","):
            local = part.strip().removeprefix("type ").split(" as ")[0].strip()
            if local:
                names.add(local)
    names.update(m.group(1) for m in _EXPORT_DEFAULT.finditer(code))
    names.update(m.group(1) for m in _EXPORT_EQUALS.finditer(code))  # `export = foo` (CommonJS)
    return names


def declarations(text: str, ambient: bool = False) -> list[Declaration]:
    """The exported declarations of the TypeScript file `text` in order; `ambient`: a `.d.ts`
    file, where a `declare module` body's declarations are exported without `export`."""
    return [d for d, exported in every_declaration(text, ambient) if exported]


def every_declaration(text: str, ambient: bool = False) -> list[tuple[Declaration, bool]]:
    """Every declaration of `text` (a base class may be one the module keeps to itself), each
    with whether the module exports it."""
    r = _Reader(text)
    listed = _exported_names(r.code)
    out: list[tuple[Declaration, bool]] = []
    _read_level(r, 0, len(r.s.line_starts) - 1, 0, "", listed, ambient, out, 0)
    return out


def _read_level(
    r: _Reader,
    first: int,
    last: int,
    depth: int,
    prefix: str,
    listed: set[str],
    everything: bool,
    out: list[tuple[Declaration, bool]],
    nesting: int,
) -> None:
    code, s = r.code, r.s
    line = first
    while line <= last and len(out) < MAX_DECLARATIONS:
        if s.depth[line] != depth:
            line += 1
            continue
        raw = r.line_text(line)
        indent = len(raw) - len(raw.lstrip())
        if nesting < MAX_NESTING and (a := _AMBIENT_MODULE.match(raw, indent)):
            # TypeDoc documents what the module declares (all of it, unless the body says
            # `export`), under the names its importers use: no prefix
            end, what = header_end(code, s.line_starts[line] + a.end() + 1, len(code), False)
            if what == "{":
                close = closing(code, end, len(code))
                inner_first, inner_last = _line_of(s, end) + 1, _line_of(s, close)
                body = code[end:close]
                every = not _HAS_EXPORT.search(body)
                inner = _exported_names(body)
                _read_level(
                    r, inner_first, inner_last, depth + 1, prefix, inner, every, out, nesting + 1
                )
                line = max(inner_last, line) + 1
                continue
        m = _DECL.match(raw, indent)
        if m is None:
            line += 1
            continue
        start = s.line_starts[line] + indent
        kind = m.group("kind").split()[0].rstrip("*")
        name = m.group("name")
        exported = bool(m.group("export")) or everything or name in listed
        limit = len(code)
        if kind in ("namespace", "module"):
            end, what = header_end(code, start + m.end() - indent, limit, False)
            if what != "{":
                line += 1
                continue
            close = closing(code, end, limit)
            inner_first, inner_last = _line_of(s, end) + 1, _line_of(s, close)
            if exported and nesting < MAX_NESTING:
                # `export declare namespace OpenAI { export { Chat } }`: its own `export`s; an
                # ambient namespace (`declare namespace foo`) exports all it declares
                body = code[end:close]
                ambient = everything or ("declare" in m.group(0) and not _HAS_EXPORT.search(body))
                inner = _exported_names(body)
                inside = f"{prefix}{name}."
                _read_level(
                    r, inner_first, inner_last, depth + 1, inside, inner, ambient, out, nesting + 1
                )
            line = max(inner_last, line) + 1
            continue
        doc = r.doc_for(line, start)
        decl, next_line = _declaration(r, line, start, m, kind, prefix + name, doc, indent)
        if decl is not None:
            out.append((decl, exported))
        line = max(next_line, line + 1)


def _declaration(
    r: _Reader,
    line: int,
    start: int,
    m: re.Match[str],
    kind: str,
    name: str,
    doc: Doc | None,
    indent: int,
) -> tuple[Declaration | None, int]:
    code, s = r.code, r.s
    limit = len(code)
    after_name = start + (m.end() - indent)
    if kind == "function":
        end, what = header_end(code, after_name, limit, True)
        if what == "{":
            close = closing(code, end, limit)
            last = _line_of(s, close)
        else:
            last = _line_of(s, end)
        sig = _shown(r.text_of(start, end))
        return Declaration(name, "function", (sig,), doc, (), line, last), last + 1
    if kind in ("class", "interface", "enum"):
        end, what = header_end(code, after_name, limit, False)
        sig = _shown(r.text_of(start, end))
        if what != "{":
            return Declaration(name, kind, (sig,), doc, (), line, line), line + 1
        close = closing(code, end, limit)
        members = _members(r, end, close, kind)
        last = _line_of(s, close)
        return Declaration(name, kind, (sig,), doc, members, line, last), last + 1
    if kind == "type":
        eq = header_end(code, after_name, limit, False)
        if eq[1] != "=":
            return None, line + 1
        value = _skip_space(code, eq[0] + 1, limit)
        if value < limit and code[value] == "{":  # an object type: its members as an interface's
            close = closing(code, value, limit)
            members = _members(r, value, close, "interface")
            last = _line_of(s, close)
            sig = _shown(r.text_of(start, eq[0]))
            return Declaration(name, "type", (sig,), doc, members, line, last), last + 1
        end = statement_end(code, value, limit)
        last = min(_line_of(s, end), line + MAX_STATEMENT_LINES)
        sig = r.text_of(start, min(end, s.line_starts[last] + r._len(last)))
        sig = _shown(sig)
        return Declaration(name, "type", (sig,), doc, (), line, last), last + 1
    # const / let / var: a function when its value is an arrow function or function expression
    head, what = header_end(code, after_name, limit, True)
    sig = _shown(r.text_of(start, head))
    last = _line_of(s, head)
    if what == "=":
        value = _skip_space(code, head + 1, limit)
        arrow = _arrow_signature(r, value, limit)
        end = statement_end(code, value, limit)
        last = _line_of(s, end)
        if arrow:
            shown = f"{sig} = {arrow}"
            return Declaration(name, "function", (shown,), doc, (), line, last), last + 1
    return Declaration(name, "variable", (sig,), doc, (), line, last), last + 1


_ARROW_HEAD = re.compile(r"(?:async\s+)?(?:function\b[\s*]*[\w$]*\s*)?(?=[(<])")


def _arrow_signature(r: _Reader, value: int, limit: int) -> str:
    """`(a: string): number =>` of an arrow function (or a function expression's head), else
    "" (a value that is no function)."""
    code = r.code
    m = _ARROW_HEAD.match(code, value)
    if m is None:
        return ""
    k = m.end()
    if code[k] == "<":
        k = _skip_space(code, closing(code, k, limit) + 1, limit)
    if k >= limit or code[k] != "(":
        return ""
    params_end = closing(code, k, limit)
    end, what = header_end(code, params_end + 1, limit, False)
    is_function = code[value : m.end()].lstrip().startswith(("function", "async function"))
    if what == "=" or is_function and what == "{":
        text = r.text_of(value, end if what == "{" else end)
        return text if is_function else text + (" =>" if not text.endswith("=>") else "")
    if code.startswith("=>", end - 1) or "=>" in code[params_end:end]:
        return r.text_of(value, end).split("=>")[0].strip() + " =>"
    return ""


def _members(r: _Reader, open_: int, close: int, kind: str) -> tuple[Member, ...]:
    code, s = r.code, r.s
    first, last = _line_of(s, open_) + 1, _line_of(s, close)
    depth = s.depth[first] if first < len(s.depth) else 0
    found: dict[str, Member] = {}
    order: list[str] = []
    line = first
    if _line_of(s, open_) == _line_of(s, close):  # `{ a: string; b: number }` on one line
        return ()
    while line <= last and len(order) < MAX_MEMBERS:
        if s.depth[line] != depth:
            line += 1
            continue
        raw = r.line_text(line)
        indent = len(raw) - len(raw.lstrip())
        start = s.line_starts[line] + indent
        if start >= close:
            break
        doc = r.doc_for(line, start)
        if kind == "enum":
            m = _ENUM_MEMBER.match(raw, indent)
            if m:
                written = r.text_of(start, statement_end(code, start, close))
                name = m.group("name")
                order.append(name)
                found[name] = Member(name, "member", (written,), "", False, False, doc, line)
            line += 1
            continue
        m = _MEMBER.match(raw, indent)
        if m is None or m.group("name") in ("constructor",) and kind == "interface":
            line += 1
            continue
        mods = m.group("mods").split()
        name = m.group("name")
        if "private" in mods or "protected" in mods or name.startswith(("#", "_")):
            line = _member_end(r, start, close, m) + 1
            continue
        nxt = m.group("next")
        static = "static" in mods
        end_line = _member_end(r, start, close, m)
        if nxt in ("(", "<"):
            end, what = header_end(code, start + m.end("name") - indent, close, True)
            sig = r.text_of(start, end).rstrip(";")
            mkind = (
                "constructor"
                if name == "constructor"
                else ("accessor" if m.group("accessor") else "method")
            )
            if name in found and what == "{" and found[name].kind != "accessor":
                pass  # an overloaded method's implementation: TypeDoc shows the overloads
            elif name in found:
                prev = found[name]
                doc = prev.doc or doc
                sigs = prev.signatures + (sig,)
                found[name] = Member(name, mkind, sigs, "", False, static, doc, prev.line)
            else:
                order.append(name)
                found[name] = Member(name, mkind, (sig,), "", False, static, doc, line)
        elif nxt in (":", "=", ";", ",", ""):
            typ = ""
            if nxt == ":":
                colon = code.index(":", start + m.end("name") - indent)
                typ_end = statement_end(code, colon + 1, close)
                eq, what = header_end(code, colon + 1, typ_end + 1, False)
                typ = r.text_of(colon + 1, eq if what == "=" and eq < typ_end else typ_end)
            if name not in found:
                order.append(name)
                found[name] = Member(
                    name,
                    "property",
                    (),
                    typ.rstrip(";,"),
                    bool(m.group("optional")),
                    static,
                    doc,
                    line,
                )
        line = end_line + 1
    return tuple(found[n] for n in order)


def _member_end(r: _Reader, start: int, close: int, m: re.Match[str]) -> int:
    """The last line of the member at `start`: a method's body, a property's type."""
    code, s = r.code, r.s
    line = _line_of(s, start)
    if m.group("next") in ("(", "<"):
        end, what = header_end(code, start + len(m.group(0)) - 1, close, True)
        if what == "{":
            return _line_of(s, closing(code, end, close))
        return _line_of(s, end)
    end = statement_end(code, start, close)
    return max(line, _line_of(s, end))
