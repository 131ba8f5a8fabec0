"""A JavaScript or TypeScript configuration file read as data, never run: the object literal it
exports (Docusaurus `sidebars.js`/`sidebars.ts`), when that literal holds only data.

`exported_literal(text)` finds what `module.exports =`, `export default` or the first
`const|let|var NAME (: Type)? =` assigns, and converts it to JSON: strings in any quotes
(template strings without `${}`), numbers, `true`/`false`/`null`, arrays and objects with bare
or quoted keys, comments and trailing commas. Anything else in the literal (a variable, a
function call, `require(...)`, a spread, a computed key) makes it code: the result is None, and
the file gives nothing, as a nav file that does not parse gives nothing.

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


def exported_literal(text: str) -> object | None:
    """The data the file's exported (or first assigned) literal holds, or None when there is
    no such literal or it holds code."""
    start = _START.search(text)
    if start is None:
        return None
    out: list[str] = []
    stack: list[str] = []  # the open brackets
    expect_key = False  # just after `{` or `,` inside an object: a key comes next
    pos = start.end()
    while True:
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
