"""R documentation files (`man/*.Rd`) parsed into a tree of text and macros.

Rd is LaTeX-like: `\\name{filter}`, `\\item{x}{A vector}`, `\\link[=dest]{text}`. The parse
is the syntax R's `parse_Rd` reads, kept small and total:

- `%` starts a comment to the end of the line; `\\%`, `\\{`, `\\}` and `\\\\` are the
  characters.
- A macro takes the brace groups that follow it at once, up to its arity (unknown macros:
  every adjacent group), and an optional `[...]` argument where Rd has one (`\\link`,
  `\\Sexpr`).
- Verbatim arguments (`\\preformatted`, `\\verb`, `\\url`, `\\out`, `\\eqn`, ...) read
  macros as text. In R code (`\\code`, `\\usage`, `\\examples`) a quoted string is text,
  braces and all, as R's parser reads it (a string ends at its line's end at the latest).
- Unbalanced braces never raise: a stray `}` is text, an unclosed group ends at the file's
  end. The parse is iterative (no recursion), so any nesting depth is read.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Text:
    text: str
    line: int  # 0-based line of the file where the text starts


@dataclass(frozen=True)
class Macro:
    name: str  # "" for a bare `{...}` group
    opt: str | None  # the `[...]` argument (`\\link[pkg]{x}`), None when absent
    args: tuple[tuple[Node, ...], ...]
    line: int


Node = Text | Macro

# How many brace groups a macro takes (at most); unknown macros take every adjacent group.
_ARITY = {
    **dict.fromkeys(("dots", "ldots", "R", "cr", "tab", "lifecycle"), 1),  # `\\dots{}`
    **dict.fromkeys(("item", "section", "subsection", "href", "enc", "eqn", "deqn"), 2),
    **dict.fromkeys(("method", "S3method", "S4method", "figure", "tabular", "if"), 2),
    **dict.fromkeys(("newcommand", "renewcommand"), 2),
    "ifelse": 3,
}
_OPTIONAL = frozenset({"link", "Sexpr", "linkS4class", "var"})
# Macros whose arguments (all, or the first) are verbatim: macros inside are text.
_VERBATIM = frozenset(
    {"preformatted", "verb", "url", "out", "eqn", "deqn", "Sexpr", "newcommand", "renewcommand"}
)
_VERBATIM_FIRST = frozenset({"href", "figure", "if", "ifelse"})
_ESCAPES = frozenset("{}\\%")
# Macros whose arguments are R code ("R-like" text): a quoted string's braces are no groups
# (`\code{"{"}`), nor is a quote in an R comment a string (`# don't`).
_RLIKE = frozenset({"code", "usage", "examples", "dontrun", "donttest", "dontshow", "testonly"})


@dataclass
class _Frame:
    """A macro (or bare group) whose arguments are being read."""

    name: str
    opt: str | None
    line: int
    args: list[tuple[Node, ...]]
    current: list[Node]
    verbatim: bool
    rlike: bool
    text: list[str]  # characters of the text node being read
    text_line: int


def parse(text: str) -> tuple[Node, ...]:
    """The nodes of an Rd file (macros at the top level, with the text between them)."""
    top = _Frame("", None, 0, [], [], False, False, [], 0)
    comment = False  # in an R comment of R-like text, to the end of the line
    stack = [top]
    i, n, line = 0, len(text), 0

    def flush(frame: _Frame) -> None:
        if frame.text:
            frame.current.append(Text("".join(frame.text), frame.text_line))
            frame.text.clear()

    def put(frame: _Frame, chars: str) -> None:
        if not frame.text:
            frame.text_line = line
        frame.text.append(chars)

    while i < n:
        frame = stack[-1]
        ch = text[i]
        if ch == "%":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if ch == "\n":
            line += 1
            put(frame, ch)
            i += 1
            comment = False
            continue
        if frame.rlike and not frame.verbatim and not comment and ch in "\"'`":
            end = _string_end(text, i)
            put(frame, _unescape(text[i:end]))
            line += text.count("\n", i, end)
            i = end
            continue
        if frame.rlike and ch == "#":
            comment = True
        if ch == "\\" and i + 1 < n and text[i + 1] in _ESCAPES:
            put(frame, text[i + 1])
            i += 2
            continue
        if ch == "\\" and not frame.verbatim and i + 1 < n and text[i + 1].isalpha():
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            name = text[i + 1 : j]
            opt = None
            if name in _OPTIONAL and j < n and text[j] == "[":
                close = text.find("]", j)
                if close > 0 and "\n" not in text[j:close]:
                    opt = text[j + 1 : close]
                    j = close + 1
            flush(frame)
            if j < n and text[j] == "{":
                verbatim = name in _VERBATIM or name in _VERBATIM_FIRST
                rlike = frame.rlike or name in _RLIKE
                stack.append(_Frame(name, opt, line, [], [], verbatim, rlike, [], line))
                i = j + 1
            else:
                frame.current.append(Macro(name, opt, (), line))
                i = j
            continue
        if ch == "{":
            flush(frame)
            stack.append(_Frame("", None, line, [], [], frame.verbatim, frame.rlike, [], line))
            i += 1
            continue
        if ch == "}" and len(stack) > 1:
            flush(frame)
            frame.args.append(tuple(frame.current))
            frame.current = []
            i += 1
            arity = _ARITY.get(frame.name, 99)
            if frame.name and i < n and text[i] == "{" and len(frame.args) < arity:
                frame.verbatim = frame.name in _VERBATIM
                i += 1
                continue  # the next argument
            stack.pop()
            parent = stack[-1]
            if frame.name:
                parent.current.append(Macro(frame.name, frame.opt, tuple(frame.args), frame.line))
            else:
                parent.current.append(Macro("", None, tuple(frame.args), frame.line))
            continue
        put(frame, ch)
        i += 1
    # Unclosed groups end with the file.
    while len(stack) > 1:
        frame = stack.pop()
        flush(frame)
        frame.args.append(tuple(frame.current))
        stack[-1].current.append(Macro(frame.name, frame.opt, tuple(frame.args), frame.line))
    flush(top)
    return tuple(top.current)


def _string_end(text: str, start: int) -> int:
    """Where the R string opening at `start` ends: after its closing quote, else at the end of
    its line (an unclosed quote takes no more than its line)."""
    quote, k, n = text[start], start + 1, len(text)
    while k < n and text[k] != quote and text[k] != "\n":
        k += 2 if text[k] == "\\" else 1
    return min(k + 1, n) if k < n and text[k] == quote else min(k, n)


def _unescape(string: str) -> str:
    """An R string of Rd as shown: Rd's escapes (`\\{`, `\\%`, `\\\\`) are their characters."""
    out, k = [], 0
    while k < len(string):
        if string[k] == "\\" and k + 1 < len(string) and string[k + 1] in _ESCAPES:
            out.append(string[k + 1])
            k += 2
        else:
            out.append(string[k])
            k += 1
    return "".join(out)


def plain(nodes: tuple[Node, ...]) -> str:
    """The text of `nodes` with every macro's arguments inlined (names, titles, formats)."""
    out: list[str] = []
    todo: list[Node] = list(reversed(nodes))
    while todo:
        node = todo.pop()
        if isinstance(node, Text):
            out.append(node.text)
        elif node.name in ("dots", "ldots"):
            out.append("...")
        else:
            for arg in reversed(node.args):
                todo.extend(reversed(arg))
    return "".join(out)
