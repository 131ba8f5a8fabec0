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
"""

from __future__ import annotations

import json
import re

MAX_DEPTH = 64
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


def _start(text: str) -> re.Match[str] | None:
    """Where the exported literal begins: the assignment of the exported NAME, else the first."""
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


def exported_literal(text: str) -> object | None:
    """The data the file's exported (or first assigned) literal holds, or None when there is
    no such literal or it holds code."""
    start = _start(text)
    if start is None:
        return None
    out: list[str] = []
    stack: list[str] = []  # the open brackets
    expect_key = False  # just after `{` or `,` inside an object: a key comes next
    pos = start.end()
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
