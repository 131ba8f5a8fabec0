"""A JavaScript or TypeScript configuration file read as data, never run: the object literal it
exports (Docusaurus `sidebars.js`/`sidebars.ts`), when that literal holds only data.

`exported_literal(text)` finds what `module.exports =` or `export default` assigns, or the
`const|let|var NAME (: Type)? =` of the NAME they export (else the first such assignment), and
converts it to JSON: strings in any quotes (template strings without `${}`), numbers,
`true`/`false`/`null`, arrays and objects with bare or quoted keys, comments and trailing
commas. A spread element (`...(env.X ? [extra] : [])`, tRPC's optional API pages) is left out:
what it adds depends on code, the rest is data. Anything else in the literal (a variable, a
function call, `require(...)`, a computed key) makes it code: the result is None, and the file
gives nothing, as a nav file that does not parse gives nothing.

Linear in the text and bounded by its size (site_config.MAX_CONFIG_BYTES) and nesting
(MAX_DEPTH): no recursion.

`loose=True` reads a file whose literal mixes data with a little code, as Nextra's `_meta.tsx`
files do (`title: <ExternalLink>page.jsx</ExternalLink>`, `{ items: FILE_CONVENTIONS }`): a JSX
element reads as its text, a name of a `const` literal of the same file as that literal (each
name read once, at most MAX_NAMES_DEEP names within names, and the names' data at most
NAMES_GROWTH times the file's size: a file of names repeating names grows no further), any
other expression as null; the literal's keys, and their order, are data whatever their values
are. The exported literal is then the one
`export default` or `module.exports` assigns, before any other.
"""

from __future__ import annotations

import html
import json
import re

MAX_DEPTH = 64
# A loose literal's names resolved within names (`A = { items: B }`, `B = {...}`) at most this
# deep: a name met deeper (or in a cycle) reads as null.
MAX_NAMES_DEEP = 8
NAMES_GROWTH = 4
_START = re.compile(
    r"(?:module\.exports\s*=|export\s+default|(?:const|let|var)\s+[A-Za-z_$][\w$]*"
    r"(?:\s*:\s*[A-Za-z_$][\w$.<>, ]*)?\s*=)\s*(?=[{\[])"
)
_TOKEN = re.compile(
    r"""\s+|//[^\n]*|/\*.*?\*/"""  # blanks and comments
    r"""|(?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\$]|\\.|\$(?!\{))*`)"""
    r"""|(?P<num>-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"""
    r"""|(?P<word>(?:[^\W\d]|\$)[\w$]*)"""  # (identifiers: Unicode letters too)
    r"""|(?P<punct>[{}\[\],:])""",
    re.DOTALL,
)
_WORDS = {"true": "true", "false": "false", "null": "null"}
# `export default NAME;` / `module.exports = NAME;`: the literal is NAME's assignment.
_EXPORTED_NAME = re.compile(
    r"(?:module\.exports\s*=|export\s+default)\s*([A-Za-z_$][\w$]*)\s*;?\s*$", re.M
)
_QUOTES = frozenset("\"'`")
_CLOSE = {"(": ")", "[": "]", "{": "}"}


_DIRECT_EXPORT = re.compile(r"(?:module\.exports\s*=|export\s+default)\s*(?=[{\[])")
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_JSX_DROPPED = re.compile(r"\{[^{}]*\}|<[^<>]*>")


def _start(text: str, loose: bool = False) -> re.Match[str] | None:
    """Where the exported literal begins: the assignment of the exported NAME, else the first
    (loose: a literal `export default` or `module.exports` assigns comes before both)."""
    direct = _DIRECT_EXPORT.search(text) if loose else None
    if direct is not None:
        return direct
    named = _EXPORTED_NAME.search(text)
    if named is not None:
        name = re.escape(named.group(1))
        own = re.search(
            rf"(?:const|let|var)\s+{name}(?:\s*:\s*[A-Za-z_$][\w$.<>, ]*)?\s*=\s*(?=[{{\[])", text
        )
        if own is not None:
            return own
    return _START.search(text)


def _past_spread(text: str, pos: int) -> int | None:
    """The position after a spread element's expression starting at `pos` (just past `...`):
    at the `,` or closing bracket that ends it; None when the text ends first or its brackets
    do not match."""
    stack: list[str] = []
    n = len(text)
    while pos < n:
        c = text[pos]
        if c in _QUOTES:
            end = pos + 1
            while end < n and text[end] != c:
                end += 2 if text[end] == "\\" else 1
            pos = end + 1
            continue
        if c in _CLOSE:
            if len(stack) >= MAX_DEPTH:
                return None
            stack.append(_CLOSE[c])
        elif c in ")]}":
            if not stack:
                return pos if c != ")" else None
            if stack.pop() != c:
                return None
        elif c == "," and not stack:
            return pos
        pos += 1
    return None


def _assigned(text: str, name: str) -> int | None:
    """Where the literal a `const|let|var NAME (: Type)? =` assigns begins, if one does."""
    own = re.search(
        rf"(?:const|let|var)\s+{re.escape(name)}(?:\s*:\s*[A-Za-z_$][\w$.<>, ]*)?\s*=\s*(?=[{{\[])",
        text,
    )
    return None if own is None else own.end()


def _jsx_end(text: str, pos: int) -> int | None:
    """The position after the JSX element (or fragment) opening at `pos`, None when it does not
    close: tags nest, `{...}` expressions and quoted attribute values are passed over."""
    depth = 0
    n = len(text)
    while pos < n:
        c = text[pos]
        if c == "{":
            end = _past_spread(text, pos + 1)
            if end is None or text[end] != "}":
                return None
            pos = end + 1
            continue
        if c != "<":
            pos += 1
            continue
        closing = text.startswith("</", pos)
        end = pos + 1
        while end < n and text[end] != ">":
            if text[end] in _QUOTES:
                quote = text.index(text[end], end + 1) if text[end] in text[end + 1 :] else n
                end = quote
            elif text[end] == "{":
                inner = _past_spread(text, end + 1)
                end = n if inner is None else inner
            end += 1
        if end >= n:
            return None
        if closing:
            depth -= 1
        elif text[end - 1] != "/":
            depth += 1
            if depth > MAX_DEPTH:
                return None
        pos = end + 1
        if depth <= 0:
            return pos
    return None


def _jsx_text(element: str) -> str:
    """What a JSX element shows: its text, without tags, `{...}` expressions and entities."""
    previous = None
    while previous != element:  # (inner expressions and tags first)
        previous, element = element, _JSX_DROPPED.sub(" ", element)
    return " ".join(html.unescape(element).split())


class _Names:
    """The const literals a loose literal's names were read as, and the characters of data they
    may still add (NAMES_GROWTH times the file's)."""

    def __init__(self, text: str) -> None:
        self.read: dict[str, object] = {}
        self.left = NAMES_GROWTH * len(text)

    def value(self, text: str, name: str, deep: int) -> object:
        if name not in self.read:
            at = _assigned(text, name)
            self.read[name] = None  # (while it is read: a name within itself is null)
            if at is not None and deep < MAX_NAMES_DEEP:
                self.read[name] = _literal(text, at, self, deep + 1)
        value = self.read[name]
        self.left -= len(json.dumps(value))
        return value if self.left >= 0 else None


def _loose_value(text: str, pos: int, names: _Names, deep: int) -> tuple[object, int] | None:
    """The value of the expression at `pos` in a loose literal, and where it ends: a JSX
    element's text, a const literal's data, else null (None when its brackets do not match or
    the text ends)."""
    if pos >= len(text):
        return None
    if text[pos] == "<":
        end = _jsx_end(text, pos)
        return None if end is None else (_jsx_text(text[pos:end]), end)
    name = _NAME.match(text, pos)
    if name is not None:
        after = len(text) - len(text[name.end() :].lstrip())
        if text[after : after + 1] in (",", "}", "]"):
            return names.value(text, name.group(), deep), after
    end = _past_spread(text, pos)
    return None if end is None else (None, end)


def exported_literal(text: str, *, loose: bool = False) -> object | None:
    """The data the file's exported (or first assigned) literal holds, or None when there is
    no such literal or it holds code (loose: the module docstring)."""
    start = _start(text, loose)
    if start is None:
        return None
    return _literal(text, start.end(), _Names(text) if loose else None, 0)


def _literal(text: str, pos: int, names: _Names | None, deep: int) -> object | None:
    """The data of the literal opening at `pos` (see exported_literal); `names`: the loose
    reading's names (None: a strict reading), `deep` names within names."""
    out: list[str] = []
    stack: list[str] = []  # the open brackets
    expect_key = False  # just after `{` or `,` inside an object: a key comes next
    while True:
        if text.startswith("...", pos) and stack and (expect_key or out[-1] in "[,"):
            end = _past_spread(text, pos + 3)
            if end is None:
                return None
            pos = end
            if text[pos] == ",":
                pos += 1  # the element and its comma leave nothing
            continue
        m = _TOKEN.match(text, pos)
        loose_value = names is not None and stack and not expect_key and out[-1] in "[,:"
        if loose_value and (m is None or (m.lastgroup == "word" and m.group() not in _WORDS)):
            found = _loose_value(text, pos, names, deep)
            if found is None:
                return None
            out.append(json.dumps(found[0]))
            pos = found[1]
            continue
        if m is None:
            return None  # something that is not data (a spread, an operator, a call)
        pos = m.end()
        kind = m.lastgroup
        if kind is None:
            continue  # blanks and comments
        token = m.group(kind)
        if kind == "punct":
            if token in "{[":
                if len(stack) >= MAX_DEPTH or expect_key:
                    return None  # too deep, or a computed key `[x]: ...`
                stack.append(token)
                expect_key = token == "{"
            elif token in "}]":
                if not stack or {"}": "{", "]": "["}[token] != stack.pop():
                    return None
                if out and out[-1] == ",":
                    out.pop()  # a trailing comma
                expect_key = False
            elif token == ",":
                expect_key = bool(stack) and stack[-1] == "{"
            else:  # ":"
                expect_key = False
            out.append(token)
            if not stack:
                break
            continue
        if kind == "str":
            value = _string(token)
            if value is None:
                return None
            out.append(json.dumps(value))
        elif kind == "num":
            if expect_key:
                return None
            out.append(token)
        elif expect_key:  # a bare key
            out.append(json.dumps(token))
        elif token in _WORDS:
            out.append(_WORDS[token])
        else:
            return None  # a variable or a call: code
        expect_key = False
    try:
        return json.loads("".join(out))
    except ValueError:
        return None


def _string(token: str) -> str | None:
    """A JavaScript string literal's value (the escapes JSON also knows, and `\\'`)."""
    body = token[1:-1]
    if "\\" not in body:
        return body
    body = body.replace("\\'", "'").replace("\\`", "`")
    if token[0] != '"':
        body = body.replace('"', '\\"')
    try:
        value = json.loads(f'"{body}"')
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def named_leaves(text: str, pos: int = 0) -> tuple[list[tuple[tuple[str, ...], str]], int] | None:
    """The leaves of the object literal opening at `text[pos]` (a `{`) whose values are
    identifiers (`key: Name`, or the shorthand `name`) or such objects: each leaf's keys and
    identifier, in order, and the position after the literal. Ionic's `<Playground code={{
    javascript, angular: { files: { 'src/app/x.html': angular_x_html } } }} />` names its
    imported examples so. Strings, numbers, `true`/`false`/`null` are data beside them, no
    leaves. None when the literal holds anything else (a call, a spread, an array: what it
    shows depends on code) or is deeper than MAX_DEPTH."""
    leaves: list[tuple[tuple[str, ...], str]] = []
    keys: list[str | None] = []  # per open object: the key whose value comes next
    key: str | None = None
    expect_key = False
    while True:
        m = _TOKEN.match(text, pos)
        if m is None:
            return None
        pos = m.end()
        kind = m.lastgroup
        if kind is None:
            continue  # blanks and comments
        token = m.group(kind)
        if token == "{":
            if (keys and key is None) or len(keys) >= MAX_DEPTH:
                return None  # an object where a key belongs, or too deep
            keys.append(key)
            key, expect_key = None, True
        elif token in ",}":
            if key is not None:  # the shorthand `name,`: its own key and value
                if not expect_key:
                    return None
                leaves.append(((*_path(keys), key), key))
            key, expect_key = None, True
            if token == "}":
                if not keys:
                    return None
                keys.pop()
                if not keys:
                    return leaves, pos
                expect_key = False
        elif token == ":" and key is not None and expect_key:
            expect_key = False
        elif expect_key and key is None and kind in ("word", "str"):
            key = _string(token) if kind == "str" else token
            if key is None:
                return None
        elif not expect_key and key is not None and kind == "word" and token not in _WORDS:
            leaves.append(((*_path(keys), key), token))
            key = None
        elif not expect_key and key is not None and kind in ("str", "num", "word"):
            key = None  # data beside the names (Ionic's `dependencies: {'@maskito/core': '^3'}`)
        else:
            return None  # a value that is not a name or an object


def _path(keys: list[str | None]) -> tuple[str, ...]:
    """The keys leading to the innermost open object (the outermost has none)."""
    return tuple(k for k in keys if k is not None)
