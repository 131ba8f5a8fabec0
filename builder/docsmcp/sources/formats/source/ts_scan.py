"""A TypeScript file's text with what is not code blanked, its doc comments, and its braces.

The TypeScript readers (tsdoc.py for declarations, typescript_site.py for the imports that
make a package's API) read declarations by their lines, as Prettier lays them out. A brace,
`;` or `export` inside a string, a template literal, a regular expression or a comment must
not count, so `blank` copies the text with those replaced by spaces (newlines kept, so
offsets and lines stay those of the file) and records each `/** ... */` doc comment. It is
one pass over the characters with a stack for template literals' `${ ... }`: linear, nothing
nests by recursion, and unclosed input ends at the end of the text.

A `/` starts a regular expression where an operand is expected (after `(`, `,`, `=`, `:`,
`[`, `!`, `&`, `|`, `?`, `{`, `}`, `;`, an operator, `return`/`typeof`/...; at the start),
else it is division: the rule tokenizers use when they cannot parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Characters after which `/` opens a regular expression (an operand is expected).
_REGEX_AFTER = frozenset("(,=:[!&|?{};+-*%<>~^")
_REGEX_WORDS = frozenset(
    {"return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do"}
)
_OPEN = {"(": ")", "[": "]", "{": "}"}


@dataclass(frozen=True)
class Doc:
    start: int  # offset of `/**`
    end: int  # offset just past `*/`
    text: str  # the comment's lines without `/**`, `*/` and the leading ` * `


@dataclass(frozen=True)
class Scanned:
    code: str  # the text, strings/templates/regexes/comments blanked (same length, same lines)
    docs: tuple[Doc, ...]  # doc comments in order
    line_starts: tuple[int, ...]  # offset of each line's first character
    depth: tuple[int, ...]  # the brace depth at each line's start ({ } only)


def _word_before(code: list[str], k: int) -> str:
    """The identifier ending just before offset k (after whitespace), "" if none."""
    j = k
    while j > 0 and code[j - 1] in " \t\r\n":
        j -= 1
    end = j
    while j > 0 and (code[j - 1].isalnum() or code[j - 1] in "_$"):
        j -= 1
    return "".join(code[j:end])


def _regex_allowed(code: list[str], k: int) -> bool:
    j = k
    while j > 0 and code[j - 1] in " \t\r\n":
        j -= 1
    if j == 0:
        return True
    prev = code[j - 1]
    if prev in _REGEX_AFTER:
        return True
    return _word_before(code, k) in _REGEX_WORDS


def doc_text(raw: str) -> str:
    """A doc comment's text: `/**`, `*/` and each line's leading `*` (and one space) gone."""
    body = raw[3:-2] if raw.endswith("*/") else raw[3:]
    lines = []
    for line in body.split("\n"):
        stripped = line.strip()
        if stripped.startswith("*"):
            stripped = line.lstrip()[1:]
            stripped = stripped[1:] if stripped.startswith(" ") else stripped
        else:
            stripped = line.rstrip()
            stripped = stripped.strip() if not lines else stripped
        lines.append(stripped.rstrip())
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


# What may open a comment, string, template or regular expression, or change the brace depth.
_SIGNIFICANT = re.compile(r"[/'\"`{}]")
_STRUCTURE = re.compile(r"[{}\n]")


def blank(text: str) -> Scanned:
    """`text` with strings, template literals (their `${}` code kept), regular expressions and
    comments blanked, and its doc comments; see the module's docstring."""
    code = list(text)
    docs: list[Doc] = []
    n = len(text)
    k = 0
    # For each open `${` of a template literal: the brace depth inside it when it opened.
    templates: list[int] = []
    braces = 0

    def wipe(a: int, b: int) -> None:
        for j in range(a, min(b, n)):
            if code[j] != "\n":
                code[j] = " "

    while k < n:
        # Only these characters change anything: jump to the next (the rest is copied as is).
        m = _SIGNIFICANT.search(text, k)
        if m is None:
            break
        k = m.start()
        ch = text[k]
        if ch == "/" and k + 1 < n and text[k + 1] == "*":
            end = text.find("*/", k + 2)
            end = n if end < 0 else end + 2
            if text.startswith("/**", k) and not text.startswith("/**/", k):
                docs.append(Doc(k, end, doc_text(text[k:end])))
            wipe(k, end)
            k = end
        elif ch == "/" and k + 1 < n and text[k + 1] == "/":
            end = text.find("\n", k)
            end = n if end < 0 else end
            wipe(k, end)
            k = end
        elif ch in "'\"":
            j = k + 1
            while j < n and text[j] != ch and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            wipe(k + 1, j)
            k = j + 1
        elif ch == "`" or (ch == "}" and templates and templates[-1] == braces):
            if ch == "}":
                templates.pop()
            j = k + 1
            while j < n and text[j] != "`":
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == "$" and j + 1 < n and text[j + 1] == "{":
                    break
                j += 1
            wipe(k + 1, j)
            if j < n and text[j] == "$":
                templates.append(braces)
                k = j + 2
            else:
                k = j + 1
        elif ch == "/" and _regex_allowed(code, k):
            j = k + 1
            klass = False
            while j < n and text[j] != "\n":
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == "[":
                    klass = True
                elif text[j] == "]":
                    klass = False
                elif text[j] == "/" and not klass:
                    break
                j += 1
            wipe(k + 1, j)
            k = j + 1
        else:
            if ch == "{":
                braces += 1
            elif ch == "}":
                braces -= 1
            k += 1
    blanked = "".join(code)
    line_starts = [0]
    depths = [0]
    depth = 0
    for m in _STRUCTURE.finditer(blanked):
        ch = m.group()
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
        else:
            line_starts.append(m.end())
            depths.append(depth)
    return Scanned(blanked, tuple(docs), tuple(line_starts), tuple(depths))


def closing(code: str, start: int, limit: int) -> int:
    """The offset of the bracket closing the one at code[start] (`(`, `[`, `{`, `<`), looked
    for up to `limit`; `limit` when it is not closed. `<` pairs only with `>` (not `=>`)."""
    opener = code[start]
    stack = [">" if opener == "<" else _OPEN[opener]]
    k = start + 1
    while k < limit:
        ch = code[k]
        if ch in _OPEN:
            stack.append(_OPEN[ch])
        elif ch == "<" and stack[-1] == ">":
            stack.append(">")
        elif ch == stack[-1] and not (ch == ">" and code[k - 1] == "="):
            stack.pop()
            if not stack:
                return k
        elif ch in ")]}" and ch != stack[-1]:
            return limit  # unbalanced: give up
        k += 1
    return limit
