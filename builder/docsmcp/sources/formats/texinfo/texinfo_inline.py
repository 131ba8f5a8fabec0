"""Texinfo's inline commands (`@code{x}`, `@xref{Node}`, `@value{name}`, `@@`) read as the HTML
manual shows them, in markdown: code-like commands as code spans, `@emph`/`@strong` as
emphasis, `@uref`/`@email` as links, `@xref{Node}`/`@pxref`/`@ref` as links to the node's
anchor (`node_id`, makeinfo's HTML id of a node name), glyphs (`@dots{}`, `@result{}`) as
their characters. Braces nest to any depth without recursion: each open command is a frame on
a stack that holds its markdown and its plain text (a code span shows the plain text of what it
holds: `@code{@var{file}}` is `` `file` ``). An unclosed brace ends with the text it holds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

# Commands whose text is code (a span of its plain text).
_CODE = frozenset("code samp verb t command option env file kbd key indicateurl".split())
_EMPHASIS = frozenset("emph i slanted dfn cite sansserif".split())
_STRONG = frozenset("strong b".split())
# Commands written with empty braces that stand for a character or a word.
_GLYPHS = {
    "dots": "...",
    "enddots": "...",
    "minus": "-",
    "copyright": "©",
    "registeredsymbol": "®",
    "bullet": "•",
    "result": "⇒",
    "expansion": "→",
    "print": "-|",
    "error": "error→",
    "equiv": "≡",
    "point": "∗",
    "arrow": "→",
    "click": "→",
    "TeX": "TeX",
    "LaTeX": "LaTeX",
    "tie": " ",
    "comma": ",",
    "atchar": "@",
    "lbracechar": "{",
    "rbracechar": "}",
    "backslashchar": "\\",
    "hashchar": "#",
    "textdegree": "°",
    "euro": "€",
    "pounds": "£",
    "geq": "≥",
    "leq": "≤",
    "exclamdown": "¡",
    "questiondown": "¿",
    "ss": "ß",
    "today": "",
}
# Commands left out with what they hold (an index entry inside a line, an image).
_DROPPED = frozenset("anchor image footnotestyle errormsg".split())
# Commands whose arguments are split at top-level commas.
_MULTI = frozenset("xref pxref ref inforef uref url email acronym abbr".split())
# A one-character command: `@@` `@{` `@}` and the punctuation ones.
_CHAR = {"@": "@", "{": "{", "}": "}", ",": ",", "*": "\n", "-": "", "/": "", ":": ""}
_CHAR |= {".": ".", "!": "!", "?": "?", " ": " ", "\t": " ", "\n": " ", "&": "&", "=": "", "'": ""}
_CHAR |= {'"': "", "^": "", "`": "", "~": ""}
_VALUE = re.compile(r"@value\{([^{}\s]+)\}")
_TOKEN = re.compile(r"@([A-Za-z][A-Za-z0-9]*|.|\n)|[{},]", re.DOTALL)


@dataclass
class _Frame:
    name: str  # the command ("" for a bare brace group)
    args: list[tuple[list[str], list[str]]] = field(default_factory=lambda: [([], [])])

    def add(self, md: str, plain: str) -> None:
        self.args[-1][0].append(md)
        self.args[-1][1].append(plain)


def node_id(name: str) -> str:
    """makeinfo's HTML id of a node (or anchor) name: letters and digits as they are, each run
    of spaces one `-`, any other character `_` and its four hex digits (`Rule Syntax` ->
    `Rule-Syntax`, `make Deletes` as written, `$(...)` -> `_0024_0028_002e...`)."""
    out: list[str] = []
    for word in " ".join(name.split()).split(" "):
        out.append("".join(c if c.isascii() and c.isalnum() else f"_{ord(c):04x}" for c in word))
    return "-".join(out)


def inline(text: str, values: Mapping[str, str], code: bool = False) -> tuple[str, str]:
    """`text` with its inline commands read: (markdown, plain text). In `code` (an example)
    the markdown is the plain text."""
    # `@value{name}` is text put in place first, as makeinfo does: a value may hold commands
    # (sed's `@set SSED GNU @command{sed}`); a value naming values is read a few times at most.
    for _ in range(4):
        if "@value{" not in text:
            break
        text = _VALUE.sub(lambda m: values.get(m.group(1), ""), text)
    stack = [_Frame("")]
    pos = 0
    named = ""  # a command just read whose brace comes next
    for m in _TOKEN.finditer(text):
        if m.start() > pos:
            _words(stack, text[pos : m.start()], code)
        pos = m.end()
        token = m.group(0)
        name = m.group(1)
        if name and name[0].isalpha() and text.startswith("{", pos):
            named = name  # (the brace of `@code{` is the next token)
        elif token == "{":
            stack.append(_Frame(named))
            named = ""
        elif token == "}":
            if len(stack) > 1:
                done = stack.pop()
                stack[-1].add(*_render(done, values, code))
            else:
                stack[-1].add("}", "}")
        elif token == ",":
            if len(stack) > 1 and stack[-1].name in _MULTI:
                stack[-1].args.append(([], []))
            else:
                stack[-1].add(",", ",")
        elif name in _CHAR:
            stack[-1].add(_CHAR[name], _CHAR[name])
        elif name is not None:
            glyph = _GLYPHS.get(name)  # (`@dots` without braces, as old manuals write)
            stack[-1].add(glyph or "", glyph or "")
    if pos < len(text):
        _words(stack, text[pos:], code)
    while len(stack) > 1:  # unclosed braces: their text as it is
        done = stack.pop()
        md, plain = _joined(done)
        stack[-1].add(md, plain)
    md, plain = _joined(stack[0])
    return (plain if code else md), plain


def _words(stack: list[_Frame], text: str, code: bool) -> None:
    """Adds text outside commands: in prose, ``` ``quoted'' ``` and dashes as makeinfo's HTML
    shows them."""
    if not code and any(c in text for c in "`'-*") and not any(f.name in _CODE for f in stack):
        shown = text.replace("``", "“").replace("''", "”").replace("---", "—").replace("--", "–")
        # (a literal `*` in prose, `$@{!@var{prefix}*@}`, is no emphasis)
        stack[-1].add(shown.replace("*", "\\*"), text)  # (plain text keeps `--`: options)
    else:
        stack[-1].add(text, text)


def _joined(frame: _Frame) -> tuple[str, str]:
    return "".join(frame.args[0][0]), "".join(frame.args[0][1])


def _render(frame: _Frame, values: Mapping[str, str], code: bool) -> tuple[str, str]:
    """The markdown and plain text of a closed command."""
    name = frame.name
    args = [("".join(md).strip(), "".join(plain).strip()) for md, plain in frame.args]
    md, plain = args[0] if name in _MULTI else _joined(frame)
    if name == "":
        return md, plain
    if name in _GLYPHS:
        return _GLYPHS[name], _GLYPHS[name]
    if name == "value":
        found = values.get(plain.strip(), "")
        return found, found
    if name in _DROPPED or name.endswith("index") or name == "footnote" and not md.strip():
        return "", ""
    if name in _CODE:
        flat = " ".join(plain.split("\n"))
        if code or not flat.strip():
            return flat, flat
        ticks = "``" if "`" in flat else "`"
        pad = " " if flat.startswith("`") or flat.endswith("`") else ""
        return f"{ticks}{pad}{flat}{pad}{ticks}", flat
    if name == "var":
        return (plain if code else f"*{plain}*" if plain.strip() else ""), plain
    if name in _EMPHASIS and md.strip() and not code:
        return f"*{md.strip()}*", plain
    if name in _STRONG and md.strip() and not code:
        return f"**{md.strip()}**", plain
    if name == "sc":  # (small caps, which makeinfo's HTML writes as capitals)
        return md.upper(), plain.upper()
    if name == "footnote":
        return f" ({md.strip()})", f" ({plain.strip()})"
    if name in ("uref", "url"):
        url = args[0][1]
        label = args[2] if len(args) > 2 and args[2][1] else args[1] if len(args) > 1 else None
        if label and label[1]:
            return (label[1] if code else f"[{label[0]}]({url})"), label[1]
        return (url if code else f"<{url}>" if "://" in url else f"`{url}`"), url
    if name == "email":
        address = args[0][1]
        label = args[1][1] if len(args) > 1 and args[1][1] else address
        return (label if code else f"[{label}](mailto:{address})"), label
    if name in ("xref", "pxref", "ref", "inforef"):
        return _xref(name, args, code)
    if name in ("acronym", "abbr"):
        word = args[0][0]
        return (f"{word} ({args[1][0]})" if len(args) > 1 and args[1][0] else word), args[0][1]
    return md, plain  # (`@r`, `@w`, `@math`, accents and unknown commands: their text)


def _xref(name: str, args: list[tuple[str, str]], code: bool) -> tuple[str, str]:
    """`@xref{node, entry, title, info-file, manual}`: a link to the node in this manual, or
    the title and the manual it is in."""
    node = args[0][1]
    title = " ".join(((args[2][0] if len(args) > 2 and args[2][0] else "") or node).split())
    manual = next((a[0] for a in reversed(args[3:]) if a[0]), "")
    lead = {"xref": "See ", "pxref": "see ", "ref": "", "inforef": "See "}[name]
    if manual:
        text = f"{lead}{title} in {manual}" if code else f"{lead}*{title}* in *{manual}*"
        return text, f"{lead}{title} in {manual}"
    if code or not node:
        return f"{lead}{title}", f"{lead}{title}"
    return f"{lead}[{title}](#{node_id(node)})", f"{lead}{title}"
