"""Reading one inline HTML tag or JSX element tag (`<Card title="X" {...rest}>`) and one JSX
expression (`{...}`) from markdown or MDX text: the lexical part of readable.py's reduction, apart
so that every pass over a file's markup (readable.py, hidden_elements.py) reads tags alike.

Every read is bounded: a tag or expression that does not close within `MAX_SPAN` characters is
no tag (the caller reads its `<` or `{` as text and charges what the failed read cost).
"""

from __future__ import annotations

import re

MAX_SPAN = 20_000  # the longest tag, expression or comment looked for
_TAG_NAME = re.compile(r"[A-Za-z][\w.:-]*")
_ATTR_NAME = re.compile(r"[^\s=/>{}\"'<]+")
_BARE_VALUE = re.compile(r"[^\s>]+")
STRING_EXPR = re.compile(r"""\{\s*(?:"([^"\\\n]*)"|'([^'\\\n]*)')\s*\}""")


def close_brace(s: str, i: int) -> int:
    """Index after the `}` closing the `{` at `i` (strings and nesting skipped); when there is
    none, `-1 - j` where `j` is how far the search read (what the failure cost). Linear: a
    quote's search stops at its line's end."""
    depth = 0
    end = min(len(s), i + MAX_SPAN)
    j = i
    while j < end:
        c = s[j]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j + 1
        elif c in "\"'`":
            # A quoted string closes on its line; a quote that does not is JSX text's
            # apostrophe (`description: (<>it won't close</>)`: Radix's prop tables were shown
            # as source), not a string. A template literal may span lines.
            line_end = end if c == "`" else s.find("\n", j + 1, end)
            k = s.find(c, j + 1, end if line_end < 0 else line_end)
            if k < 0 and c == "`":
                return -1 - end
            j = j if k < 0 else k
        j += 1
    return -1 - end


Tag = tuple[int, str, bool, bool, dict[str, str | None], dict[str, str]]


def parse_tag(s: str, i: int) -> Tag | int:
    """The tag starting at `s[i] == "<"`: (end, name, closing, self-closing, string props, and
    expression props: a prop with no value or a non-string value maps to None in the first, the
    second holds the source of each non-string `{...}` value, braces included), else how far it
    read."""
    j = i + 1
    closing = j < len(s) and s[j] == "/"
    if closing:
        j += 1
    if j < len(s) and s[j] == ">":  # a fragment `<>` / `</>`
        return j + 1, "", closing, False, {}, {}
    m = _TAG_NAME.match(s, j)
    if m is None:
        return j
    name = m.group(0)
    j = m.end()
    if j < len(s) and not (s[j].isspace() or s[j] in "/>"):
        return j
    props: dict[str, str | None] = {}
    exprs: dict[str, str] = {}
    end = min(len(s), i + MAX_SPAN)
    while j < end:
        c = s[j]
        if c.isspace():
            j += 1
        elif c == ">":
            return j + 1, name, closing, False, props, exprs
        elif c == "/" and j + 1 < len(s) and s[j + 1] == ">":
            return j + 2, name, closing, True, props, exprs
        elif c == "{":  # `{...spread}`
            k = close_brace(s, j)
            if k < 0:
                return -1 - k
            j = k
        else:
            a = _ATTR_NAME.match(s, j)
            if a is None:
                return j
            key, value, j = a.group(0), None, a.end()
            if j < len(s) and s[j] == "=":
                j += 1
                if j >= len(s):
                    return j
                q = s[j]
                if q in "\"'":
                    k = s.find(q, j + 1, end)
                    if k < 0:
                        return end
                    value, j = s[j + 1 : k], k + 1
                elif q == "{":
                    k = close_brace(s, j)
                    if k < 0:
                        return -1 - k
                    lit = STRING_EXPR.fullmatch(s, j, k)
                    value = next((g for g in lit.groups() if g is not None), "") if lit else None
                    if lit is None:
                        exprs[key] = s[j:k]  # (`hidden={true}`, `style={{display: "none"}}`)
                    j = k
                else:
                    b = _BARE_VALUE.match(s, j)
                    if b is None:
                        return j
                    value, j = b.group(0).rstrip("/"), b.end()
                    if s[j - 1] == "/" and j < len(s) and s[j] == ">":
                        j -= 1
            props[key] = value
    return j
