"""roff's escapes and font changes as markdown text, in one left-to-right pass.

Special characters (`\\(em`, `\\[aq]`, `\\[u2014]`) are their Unicode characters; `\\-`, `\\e`,
`\\&`, `\\|` are what `man` prints for them; size, motion and drawing escapes (`\\s`, `\\h'…'`,
`\\v'…'`, `\\w'…'`) print nothing. Font escapes (`\\fB`, `\\fI`, `\\fR`, `\\fP`, `\\f[CB]`,
`\\f(CW`) become markdown emphasis, code for the constant-width fonts; the font carries from one
line to the next as in roff, each markdown line closing what it opened. Strings (`\\*(lq`,
`\\*[name]`) come from the page's `.ds` definitions or groff's predefined ones.
"""

from __future__ import annotations

import re

# groff_char(7)'s names, the ones manual pages use.
SPECIAL = {
    "em": "—", "en": "–", "hy": "-", "aq": "'", "dq": '"', "lq": "“", "rq": "”", "oq": "‘",
    "cq": "’", "bu": "•", "co": "©", "rg": "®", "tm": "™", "ti": "~", "ha": "^", "rs": "\\",
    "sl": "/", "ga": "`", "ac": "´", "ua": "↑", "da": "↓", "->": "→", "<-": "←", "<>": "↔",
    "=>": "⇒", "<=": "≤", ">=": "≥", "!=": "≠", "==": "≡", "mu": "×", "di": "÷", "+-": "±",
    "de": "°", "pl": "+", "mi": "-", "eq": "=", "lB": "[", "rB": "]", "lC": "{", "rC": "}",
    "la": "⟨", "ra": "⟩", "ba": "|", "or": "|", "br": "│", "ul": "_", "ru": "_", "sq": "□",
    "Fo": "«", "Fc": "»", "fo": "‹", "fc": "›", "ss": "ß", "aa": "´", "at": "@", "sh": "#",
    "Do": "$", "ct": "¢", "Po": "£", "Ye": "¥", "Eu": "€", "eu": "€", "ps": "¶", "sc": "§",
    "dg": "†", "dd": "‡", "ff": "ff", "fi": "fi", "fl": "fl", "12": "½", "14": "¼", "34": "¾",
    "OK": "✓", "tno": "~", "radicalex": "", "pc": "·", "ci": "○", "if": "∞", "aq_": "'",
    "a-": "¯", "a^": "^", "a~": "~", "'a": "á", "'e": "é", ":u": "ü", ":o": "ö", ":a": "ä",
}  # fmt: skip
# groff's predefined strings (an(7), mdoc's tmac) a page may name without defining.
STRINGS = {"lq": "“", "rq": "”", "Tm": "™", "R": "®", "S": "", "HF": "B", "Lq": "“",
           "Rq": "”", "ua": "↑", "aa": "´", "ga": "`", "q": '"', "Pi": "π", "Ne": "≠",
           "Le": "≤", "Ge": "≥", "Lt": "<", "Gt": ">", "Pm": "±", "If": "∞", "Am": "&",
           "Ba": "|", "Na": "NaN"}  # fmt: skip
# Escapes followed by one argument in quotes (or another delimiter) that print nothing.
_DELIMITED = frozenset("hvwoblLDXZxRSHNC")
# Escapes followed by a one-character, `(xx` or `[name]` argument that print nothing.
_NAMED = frozenset("ngkmMFVYz*$")
_CODE_FONTS = frozenset({"C", "CW", "CR", "CB", "CI", "CBI", "L", "CS", "CO"})
_MD_SPECIAL = re.compile(r"([\\`*])")
_LINE_START = re.compile(
    r"^(\s*)(?:[-+*](?=\s|$)|#{1,6}(?=\s|$)|>|=+\s*$|-+\s*$|\||[0-9]{1,9}[.)](?=\s|$))"
)
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def font_of(name: str, previous: str, current: str) -> str:
    """The font a font escape or `.ft` selects: "B", "I", "C" (code), "" (roman); `P` the
    previous one."""
    name = name.strip()
    if name in ("P", ""):
        return previous
    if name in ("R", "1"):
        return ""
    if name in _CODE_FONTS:
        return "C"
    if name in ("B", "3", "BI", "4", "HB", "TB", "SB"):
        return "B"
    if name in ("I", "2", "HI", "TI"):
        return "I"
    return current if name.startswith("+") else ""


def escape_md(text: str) -> str:
    """Plain text as markdown text: the characters markdown would read as markup escaped (an
    underscore only where it could open or close emphasis, a `<` only before a tag)."""
    text = _MD_SPECIAL.sub(r"\\\1", text)
    if "_" in text:
        text = _UNDERSCORE.sub(r"\\_", text)
    if "<" in text:
        text = _TAG_START.sub(r"\\<", text)
    return text


def guard_line(line: str) -> str:
    """A line of filled text that markdown must not read as a block's start (a heading, a list
    item, a quote, a table, a setext underline): its first character escaped."""
    m = _LINE_START.match(line)
    if not m:
        return line
    return f"{m.group(1)}\\{line[m.end(1) :]}"


class Fonts:
    """The current and previous font of a page: roff keeps them from line to line."""

    def __init__(self) -> None:
        self.font = ""
        self.previous = ""

    def set(self, name: str) -> None:
        new = font_of(name, self.previous, self.font)
        self.previous, self.font = self.font, new


def _arg(text: str, i: int) -> tuple[str, int]:
    """The name after an escape at `i`: `(xx`, `[name]` or one character; and the index after."""
    if i >= len(text):
        return "", i
    c = text[i]
    if c == "(":
        return text[i + 1 : i + 3], min(i + 3, len(text))
    if c == "[":
        end = text.find("]", i + 1)
        if end < 0:
            return text[i + 1 :], len(text)
        return text[i + 1 : end], end + 1
    return c, i + 1


def _delimited(text: str, i: int) -> int:
    """The index after an escape's delimited argument starting at `i` (`'…'`)."""
    if i >= len(text):
        return i
    end = text.find(text[i], i + 1)
    return len(text) if end < 0 else end + 1


def special(name: str) -> str:
    """The character a `\\(xx` or `\\[name]` escape names ("" when unknown)."""
    if name in SPECIAL:
        return SPECIAL[name]
    if name.startswith("u") and 4 <= len(name) <= 7:
        try:
            return chr(int(name[1:].split("_")[0], 16))
        except (ValueError, OverflowError):
            return ""
    if name.startswith("char") and name[4:].isdigit() and len(name) <= 7:
        return chr(int(name[4:]))
    return ""


def runs(text: str, fonts: Fonts, strings: dict[str, str]) -> list[tuple[str, str]]:
    """`text` (one line, escapes and all) as (font, plain text) runs; `fonts` follows its font
    escapes. Linear: each escape is read once, a string's value is not read for escapes again
    (the page's `.ds` values were decoded when defined)."""
    out: list[tuple[str, str]] = []
    buf: list[str] = []

    def flush() -> None:
        if buf:
            out.append((fonts.font, "".join(buf)))
            buf.clear()

    i, n = 0, len(text)
    while i < n:
        j = text.find("\\", i)
        if j < 0:
            buf.append(text[i:])
            break
        buf.append(text[i:j])
        if j + 1 >= n:
            break
        c = text[j + 1]
        i = j + 2
        if c == "f":
            name, i = _arg(text, i)
            flush()
            fonts.set(name)
        elif c in "-e\\E":
            buf.append("-" if c == "-" else "\\")
        elif c in "&|^%:)acdprtuz{}":
            if c == "t":
                buf.append("\t")
        elif c in " ~0":
            buf.append(" ")
        elif c == "(" or c == "[":
            name, i = _arg(text, j + 1)
            buf.append(special(name))
        elif c == "*":
            name, i = _arg(text, i)
            buf.append(strings.get(name, STRINGS.get(name, "")))
        elif c == '"' or c == "#":
            break
        elif c == "s":
            if i < n and text[i] in "+-":
                i += 1
            if i < n and text[i] in "([":
                _, i = _arg(text, i)
            elif i < n and text[i] == "'":
                i = _delimited(text, i)
            else:
                while i < n and text[i].isdigit() and i < j + 5:
                    i += 1
        elif c == "N":
            start = i
            i = _delimited(text, i)
            code = text[start + 1 : i - 1]
            if code.isdigit() and len(code) < 7 and int(code) < 0x110000:
                buf.append(chr(int(code)))
        elif c in _DELIMITED:
            i = _delimited(text, i)
        elif c in _NAMED:
            _, i = _arg(text, i)
        elif c in "'`":
            buf.append("'" if c == "'" else "`")
        else:
            buf.append(c)  # (`\.`, `\e`'s kin: the character itself)
    flush()
    return [(f, t) for f, t in out if t]


def plain(text: str, strings: dict[str, str] | None = None) -> str:
    """`text` with its escapes decoded and its fonts dropped."""
    return "".join(t for _, t in runs(text, Fonts(), strings or {}))


def markdown(parts: list[tuple[str, str]], heading: bool = False) -> str:
    """Runs as markdown: bold `**…**`, italic `*…*`, code fonts as code spans; whitespace
    kept outside the marks, so emphasis always closes. In a heading bold is plain."""
    merged: list[tuple[str, str]] = []
    for font, text in parts:  # (`\fBa\fR\fBb`: one bold run, not `**a****b**`)
        if merged and merged[-1][0] == font:
            merged[-1] = (font, merged[-1][1] + text)
        else:
            merged.append((font, text))
    out: list[str] = []
    for font, text in merged:
        core = text.strip()
        if not core:
            out.append(text)
            continue
        lead = text[: len(text) - len(text.lstrip())]
        trail = text[len(text.rstrip()) :]
        if font == "L":  # (markdown written by a macro: `.Lk`'s link)
            shown = core
        elif font == "C" and "`" not in core:
            shown = f"`{core}`"
        elif font == "I":
            shown = f"*{escape_md(core)}*"
        elif font == "B" and not heading:
            shown = f"**{escape_md(core)}**"
        else:
            shown = escape_md(core)
        out.append(lead + shown + trail)
    return "".join(out).replace("\t", " ")


def alternate(name: str, args: tuple[str, ...], strings: dict[str, str]) -> str:
    """man(7)'s `.BR`, `.IR`, `.RB`…: the arguments in the macro's two fonts in turn, without
    spaces between them."""
    fonts = (name[0], name[1])
    parts: list[tuple[str, str]] = []
    for k, a in enumerate(args):
        f = font_of(fonts[k % 2], "", "")
        parts += [(f or font, t) for font, t in runs(a, Fonts(), strings)]
    return markdown(parts)


def unmark(md: str) -> str:
    """Markdown text as the plain text a summary holds."""
    return re.sub(r"\\(.)", r"\1", md.replace("**", "").replace("`", "")).replace("*", "")
