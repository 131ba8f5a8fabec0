"""A small Ruby lexer: each line of a `.rb` file as its code (literals blanked, comment cut) and
its comment, which is all yard.py needs to find `class`/`module`/`def`/`end` and the comment
block above each.

Ruby's literals hide keywords and `#` in ways a line regex cannot see: heredocs (`<<~EOS`,
`<<-'SQL'`, several on one line), `%w[]`/`%i()`/`%q{}`/`%r{}` with nested brackets, string
interpolation `#{…}` holding strings of its own, `=begin`/`=end` blocks, `?c` character
literals, regex literals (`/end/` after an operator), `__END__`. One pass over the text, each
character looked at a bounded number of times; interpolation nests at most `MAX_NESTING` deep
(deeper text is read as string). A blanked literal keeps its delimiters (`""`, `%w[]`) so the
code's shape (`=`, `(`) stays, and never contains a keyword.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_NESTING = 32  # interpolations inside strings inside interpolations, at most
_PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}
# Characters after which a `/`, `?` or `<<` starts a literal rather than being an operator.
_OPERAND_AFTER = set("(,=!~|&{[;:?+-*%<>^") | {""}
_KEYWORDS_BEFORE_OPERAND = frozenset(
    "if unless when while until and or not return puts p in then else elsif case".split()
)
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


@dataclass(frozen=True)
class Line:
    code: str  # the line's code: literals' contents removed, comment cut off
    comment: str | None  # the `#` comment's text after `#`, None when there is none
    literal: bool  # the line starts inside a literal (a heredoc's or a string's body)


@dataclass
class _Str:
    close: str  # the closing delimiter
    open: str  # the opening one where brackets nest ("" else)
    interpolate: bool
    depth: int = 0  # nested open brackets
    regex: bool = False


def lex(text: str) -> list[Line]:
    """The lines of `text` (split on "\\n"), each with its code and comment."""
    out: list[Line] = []
    code: list[str] = []
    comment: str | None = None
    # The stack: _Str frames (inside a literal) and ints (inside `#{`: the open braces count).
    stack: list[_Str | int] = []
    heredocs: list[tuple[str, bool]] = []  # (terminator, indented) waiting for the next line
    in_heredoc: tuple[str, bool] | None = None
    started_literal = False
    interp: list[str] = []  # the code inside the innermost `#{…}`
    n = len(text)
    i = 0
    at_line_start = True
    while i <= n:
        if at_line_start:
            end = text.find("\n", i)
            end = n if end < 0 else end
            line = text[i:end]
            if in_heredoc is not None:
                term, indented = in_heredoc
                if (line.strip() if indented else line.rstrip("\r")) == term:
                    in_heredoc = heredocs.pop(0) if heredocs else None
                out.append(Line("", None, True))
                i = end + 1
                if i > n:
                    break
                continue
            if not stack and line.startswith("=begin") and (len(line) == 6 or line[6] in " \t\r"):
                out.append(Line("", None, True))
                i = end + 1
                while i <= n:  # up to and with the `=end` line
                    end = text.find("\n", i)
                    end = n if end < 0 else end
                    out.append(Line("", None, True))
                    done = text.startswith("=end", i)
                    i = end + 1
                    if done:
                        break
                continue
            if not stack and line.rstrip("\r") == "__END__":
                break
            started_literal = bool(stack) and isinstance(stack[-1], _Str)
            at_line_start = False
        if i >= n or text[i] == "\n":
            out.append(Line("".join(code).rstrip(), comment, started_literal))
            code, comment = [], None
            interp.clear()
            at_line_start = True
            if heredocs and in_heredoc is None:
                in_heredoc = heredocs.pop(0)
            i += 1
            if i > n:
                break
            continue
        c = text[i]
        top = stack[-1] if stack else None
        if isinstance(top, _Str):
            i = _in_string(text, i, top, stack, code)
            continue
        # code (top level or inside `#{…}`: its code is no code of the line)
        sink = code if not stack else interp
        if c == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            if not stack:
                comment = text[i + 1 : end].rstrip("\r")
            i = end
            continue
        if c == "}" and isinstance(top, int):
            if top == 0:
                stack.pop()  # back into the string
                i += 1
                continue
            stack[-1] = top - 1
        elif c == "{" and isinstance(top, int):
            stack[-1] = top + 1
        if c in "\"'`":
            stack.append(_Str(c, "", c != "'"))
            sink.append(c + c)
            i += 1
            continue
        if c == ":" and i + 1 < n and text[i + 1] in "\"'" and _prev(sink) != ":":
            stack.append(_Str(text[i + 1], "", text[i + 1] == '"'))
            sink.append(":" + text[i + 1] * 2)
            i += 2
            continue
        if c == "$" and i + 1 < n:  # `$'`, `$"`, `$/`: global variables, no literals
            sink.append(text[i : i + 2])
            i += 2
            continue
        if c == "%" and _operand(sink) and i + 1 < n:
            m = _percent(text, i)
            if m is not None:
                j, frame, shown = m
                stack.append(frame)
                sink.append(shown)
                i = j
                continue
        if c == "/" and _regex_here(sink, text, i):
            stack.append(_Str("/", "", True, regex=True))
            sink.append("//")
            i += 1
            continue
        if c == "?" and _operand(sink) and i + 2 <= n:
            j = i + 2 if text[i + 1] != "\\" else i + 3
            if i + 1 < n and text[i + 1] not in " \t\n" and (j >= n or text[j] not in _WORD):
                sink.append("?c")
                i = min(j, n)
                continue
        if c == "<" and text.startswith("<<", i) and _operand(sink, heredoc=True):
            m = _heredoc(text, i)
            if m is not None:
                j, term, indented = m
                heredocs.append((term, indented))
                sink.append('""')
                i = j
                continue
        sink.append(c)
        i += 1
    return out


def _in_string(text: str, i: int, top: _Str, stack: list[_Str | int], code: list[str]) -> int:
    """One step inside a literal: the next index."""
    c = text[i]
    if c == "\\":
        return i + 2 if i + 1 < len(text) and text[i + 1] != "\n" else i + 1
    if top.interpolate and c == "#" and text.startswith("#{", i) and len(stack) < MAX_NESTING:
        stack.append(0)
        return i + 2
    if top.open and c == top.open:
        top.depth += 1
    elif c == top.close:
        if top.depth:
            top.depth -= 1
        else:
            stack.pop()
            if top.regex:  # flags: /x/imx
                j = i + 1
                while j < len(text) and text[j] in "imxounse":
                    j += 1
                return j
            return i + 1
    return i + 1


def _prev(code: list[str]) -> str:
    """The last non-blank character of the code so far on this line ("" at its start)."""
    for piece in reversed(code):
        s = piece.rstrip()
        if s:
            return s[-1]
    return ""


def _last_word(code: list[str]) -> str:
    tail = "".join(code[-24:]).rstrip()
    k = len(tail)
    while k and tail[k - 1] in _WORD:
        k -= 1
    return tail[k:]


def _operand(code: list[str], heredoc: bool = False) -> bool:
    """Whether a literal may start here: after an operator, `(`, `,`, a keyword, the line's
    start, or (`puts <<~EOS`, `foo %w[a]`) a method name followed by a space."""
    p = _prev(code)
    if p in _OPERAND_AFTER:
        return True
    word = _last_word(code)
    if word in _KEYWORDS_BEFORE_OPERAND:
        return True
    # `foo %w[a]`, `raise <<~EOS`: a bare name, then a space, then the literal
    return bool(code) and code[-1] == " " and bool(word) and word[0].islower()


def _regex_here(code: list[str], text: str, i: int) -> bool:
    if not _operand(code):
        return False
    # `a / b` after a name is division; `split /,/` (no space after) a regex
    if _prev(code) not in _OPERAND_AFTER and _last_word(code) not in _KEYWORDS_BEFORE_OPERAND:
        return i + 1 < len(text) and text[i + 1] not in " \t=\n"
    return True


def _percent(text: str, i: int) -> tuple[int, _Str, str] | None:
    """`%w[`, `%q{`, `%(`… at `i`: (index after the opener, frame, the code shown)."""
    j = i + 1
    kind = ""
    if text[j].isalpha():
        kind = text[j]
        if kind not in "qQwWiIrsx":
            return None
        j += 1
    if j >= len(text):
        return None
    opener = text[j]
    if opener.isalnum() or opener in " \t\n=" or (not kind and opener not in _PAIRS):
        return None
    close = _PAIRS.get(opener, opener)
    nesting = opener if opener in _PAIRS else ""
    interpolate = kind in "QWIrx" or not kind
    return j + 1, _Str(close, nesting, interpolate, regex=kind == "r"), f"%{kind}{opener}{close}"


def _heredoc(text: str, i: int) -> tuple[int, str, bool] | None:
    """`<<~EOS`, `<<-'EOS'`, `<<EOS` at `i`: (index after it, terminator, indented end)."""
    j = i + 2
    indented = j < len(text) and text[j] in "~-"
    if indented:
        j += 1
    if j >= len(text):
        return None
    quote = text[j] if text[j] in "'\"`" else ""
    if quote:
        end = text.find(quote, j + 1)
        if end < 0 or "\n" in text[j + 1 : end]:
            return None
        return end + 1, text[j + 1 : end], indented
    k = j
    while k < len(text) and text[k] in _WORD:
        k += 1
    term = text[j:k]
    if not term or term[0].isdigit() or (not indented and not term[0].isupper()):
        return None
    return k, term, indented
