"""mdoc(7)'s inline macros as mandoc prints them: a macro line's words, each callable macro
formatting the arguments after it (`.Op Fl c Ar shell-command` → `[-c shell-command]`), quotes
and brackets enclosing the rest of the line, delimiters (`.` `,` `)` …) attached without a space.
What a reader needs beside the text: the pages `.Xr` names (`ssh(1)`); `.Sx` names a section of
the page, a link to its heading.
"""

from __future__ import annotations

from dataclasses import dataclass

from docsmcp.model.text import slugify
from docsmcp.sources.formats.roff.roff_text import Fonts, escape_md, markdown, runs

Run = tuple[str, str]
MAX_NESTING = 32

_OPENING = frozenset({"(", "["})
_CLOSING = frozenset({".", ",", ":", ";", ")", "]", "?", "!"})
# Macros whose arguments are shown in one font (I italic, B bold, C code, "" as written).
_FONT = {
    "Ar": "I", "Fl": "B", "Cm": "B", "Ic": "B", "Sy": "B", "Fd": "B", "Ft": "I", "Fa": "I",
    "Va": "I", "Pa": "I", "Em": "I", "Ev": "", "Dv": "", "Er": "", "Li": "C", "Ql": "C",
    "Vt": "I", "Tn": "", "Ms": "", "An": "", "Mt": "", "Sx": "I", "Cd": "B", "Ad": "I",
    "Lb": "", "Bf": "", "Ot": "I", "Nm": "B", "Ux": "", "%A": "", "%B": "I", "%D": "",
    "%I": "", "%J": "I", "%N": "", "%O": "", "%P": "", "%Q": "", "%R": "", "%T": "",
    "%U": "", "%V": "",
}  # fmt: skip
_ENCLOSE = {
    "Op": ("[", "]"), "Dq": ("“", "”"), "Qq": ('"', '"'), "Sq": ("‘", "’"), "Pq": ("(", ")"),
    "Bq": ("[", "]"), "Brq": ("{", "}"), "Aq": ("<", ">"), "Ql": ("‘", "’"),
}  # fmt: skip
_OPEN = {"Oo": "[", "Do": "“", "Qo": '"', "So": "‘", "Po": "(", "Bo": "[", "Bro": "{",
         "Ao": "<", "Fo": ""}  # fmt: skip
_CLOSE = {"Oc": "]", "Dc": "”", "Qc": '"', "Sc": "’", "Pc": ")", "Bc": "]", "Brc": "}",
          "Ac": ">", "Fc": ")"}  # fmt: skip
_BSD = {"Bx": "BSD", "Ox": "OpenBSD", "Nx": "NetBSD", "Fx": "FreeBSD", "Dx": "DragonFly",
        "Bsx": "BSD/OS", "Ux": "UNIX"}  # fmt: skip
_STANDARDS = {"-p1003.1": "IEEE Std 1003.1 (“POSIX.1”)", "-p1003.2": "IEEE Std 1003.2 (“POSIX.2”)",
              "-ansiC": "ANSI X3.159-1989 (“ANSI C89”)", "-isoC": "ISO/IEC 9899:1990 (“ISO C90”)",
              "-isoC-99": "ISO/IEC 9899:1999 (“ISO C99”)", "-xpg4": "X/Open Portability Guide"
              " Issue 4 (“XPG4”)", "-susv2": "Version 2 of the Single UNIX Specification (“SUSv2”)",
              "-susv3": "Version 3 of the Single UNIX Specification (“SUSv3”)",
              "-p1003.1-2008": "IEEE Std 1003.1-2008 (“POSIX.1”)"}  # fmt: skip
CALLABLE = frozenset(
    {*_FONT, *_ENCLOSE, *_OPEN, *_CLOSE, *_BSD, "Xr", "Ns", "Pf", "No", "Ap", "Lk", "Fn",
     "St", "At", "Eo", "Ec", "Xo", "Xc", "Ta", "Sm", "Nd", "Bx", "In", "Ex", "Rv", "Dl"}
) - {"%A", "%B", "%D", "%I", "%J", "%N", "%O", "%P", "%Q", "%R", "%T", "%U", "%V"}  # fmt: skip


@dataclass
class Atom:
    runs: list[Run]
    space: bool = True  # a space before it (when spacing is on)


@dataclass
class MdocState:
    """What a page's mdoc lines share: its name (`.Nm` without arguments), the spacing mode
    (`.Sm off`), the function `.Fo` opened."""

    name: str = ""
    spacing: bool = True
    joined: bool = False  # the last macro line was read with spacing off (the next one joins it)
    in_function: int = 0  # after `.Fo`: 1, after its first `.Fa`: 2 (commas between)
    nesting: int = 0  # enclosing macros being read (`.Op Op Op …`): at most MAX_NESTING


def _text(word: str) -> list[Run]:
    return runs(word, Fonts(), {})


def _font(word: str, font: str) -> list[Run]:
    return [(font if font else f, t) for f, t in _text(word)]


def macro_line(
    name: str, args: tuple[str, ...], state: MdocState, text: bool = False
) -> tuple[str, bool]:
    """The markdown of one mdoc macro line (with `text`, its plain text), and whether it
    attaches to the text before it without a space (`.Ns`, a closing delimiter, spacing off);
    `name` "" for a list item's head (`.It`'s arguments)."""
    atoms = _parse([name, *args] if name else list(args), 0, state)[0]
    if not atoms:
        state.joined = False
        return "", False
    # (spacing off joins a line to the one before it when that one was read with spacing off:
    # `either` / `.Sm off` / `.Op Ar user No @` / `.Ar host` is "either [user@]host")
    attach = not atoms[0].space or (not state.spacing and state.joined)
    state.joined = not state.spacing
    out: list[Run] = []
    for k, atom in enumerate(atoms):
        if k and atom.space and state.spacing:
            # (inside one font when both sides have it: `.Sx CONTROL MODE` is one italic run)
            same = out and atom.runs and out[-1][0] == atom.runs[0][0]
            out.append((out[-1][0] if same else "", " "))
        out.extend(atom.runs)
    if text:
        return "".join(t for _, t in out), attach
    return markdown(out), attach


def _parse(
    words: list[str], i: int, state: MdocState, stop: bool = False
) -> tuple[list[Atom], int]:
    """Atoms of `words` from `i`: a macro formats what follows it. With `stop`, parsing ends
    before the next macro (a formatting macro's own arguments)."""
    out: list[Atom] = []
    nospace = False
    while i < len(words):
        w = words[i]
        if state.nesting > MAX_NESTING and w in _ENCLOSE:
            i += 1  # (nested past the bound: the enclosing macro's name is dropped)
            continue
        if w in CALLABLE and (i == 0 or not stop or w in _CLOSE):
            if stop and out:
                break
            atoms, i = _macro(w, words, i + 1, state)
            if w in ("Ns", "Ap") or w in _CLOSE:
                if atoms:
                    atoms[0].space = w in _CLOSE and False
                nospace = w in ("Ns",)
                if w == "Ns":
                    out.extend(atoms)
                    continue
            if atoms and nospace:
                atoms[0].space = False
                nospace = False
            out.extend(atoms)
            if w == "Pf" or w in _OPEN:
                nospace = True
            continue
        if stop and w in CALLABLE:
            break
        atom = Atom(_text(w), space=not nospace and w not in _CLOSING)
        nospace = w in _OPENING
        out.append(atom)
        i += 1
    if nospace and out:
        out.append(Atom([], space=False))
    return out, i


def _args(words: list[str], i: int) -> tuple[list[str], int]:
    """The plain arguments after a macro, up to the next macro."""
    start = i
    while i < len(words) and words[i] not in CALLABLE:
        i += 1
    return words[start:i], i


def _macro(m: str, words: list[str], i: int, state: MdocState) -> tuple[list[Atom], int]:
    if m in _ENCLOSE:
        left, right = _ENCLOSE[m]
        if m == "Ql":
            args, i = _args(words, i)
            shown = [Atom(_font(" ".join(args), "C"))] if args else []
            return [Atom([("", left)]), *_glued(shown), Atom([("", right)], False)], i
        state.nesting += 1
        inner, i = _parse(words, i, state)
        state.nesting -= 1
        trailing: list[Atom] = []
        while inner and inner[-1].runs and "".join(t for _, t in inner[-1].runs) in _CLOSING:
            trailing.insert(0, inner.pop())
        return [Atom([("", left)]), *_glued(inner), Atom([("", right)], False), *trailing], i
    if m in _OPEN:
        return ([Atom([("", _OPEN[m])])] if _OPEN[m] else []), i
    if m in _CLOSE:
        state.in_function = 0 if m == "Fc" else state.in_function
        return [Atom([("", _CLOSE[m])], False)], i
    if m in ("Ns", "Ap", "Xo", "Xc", "Ta", "Nd", "Dl"):
        return ([Atom([("", "'")], False)] if m == "Ap" else []), i
    if m == "Sm":
        args, i = _args(words, i)
        state.spacing = (args[0] == "on") if args else not state.spacing
        return [], i
    if m == "Pf":
        if i < len(words):
            return [Atom(_text(words[i]))], i + 1
        return [], i
    if m == "No":
        args, i = _args(words, i)
        return [Atom(_text(a), a not in _CLOSING) for a in args], i
    if m == "Xr":
        args, i = _args(words, i)
        if not args:
            return [], i
        page = " ".join(_plain(a) for a in args[:1])
        sec = _plain(args[1]) if len(args) > 1 else ""
        shown = [Atom([("B", page), ("", f"({sec})" if sec else "")])]
        return shown + [Atom(_text(a), a not in _CLOSING) for a in args[2:]], i
    if m == "Lk":
        args, i = _args(words, i)
        if not args:
            return [], i
        url = _plain(args[0])
        label = " ".join(_plain(a) for a in args[1:] if a not in _CLOSING) or url
        closing = [Atom(_text(a), False) for a in args[1:] if a in _CLOSING]
        return [Atom([("L", f"[{label}]({url})")]), *closing], i
    if m == "Sx":  # (a section of this page: a link to its heading, as mandoc's HTML has it)
        args, i = _args(words, i)
        title = " ".join(_plain(a) for a in args if a not in _CLOSING)
        closing = [Atom(_text(a), False) for a in args if a in _CLOSING]
        if not title:
            return closing, i
        return [Atom([("L", f"[*{escape_md(title)}*](#{slugify(title)})")]), *closing], i
    if m == "Fn":
        args, i = _args(words, i)
        if not args:
            return [], i
        call = [("B", _plain(args[0])), ("", "(")]
        for k, a in enumerate(x for x in args[1:] if x not in _CLOSING):
            call += ([("", ", ")] if k else []) + [("I", _plain(a))]
        tail = [Atom(_text(a), False) for a in args[1:] if a in _CLOSING]
        return [Atom([*call, ("", ")")]), *tail], i
    if m == "Fo":
        args, i = _args(words, i)
        state.in_function = 1
        return [Atom([("B", _plain(args[0]) if args else ""), ("", "(")])], i
    if m in _BSD or m == "At":
        args, i = _args(words, i)
        base = "AT&T UNIX" if m == "At" else _BSD[m]
        version = [a for a in args if a not in _CLOSING]
        text = f"{base} {version[0]}" if version else base
        return [Atom([("", text)]), *[Atom(_text(a), False) for a in args if a in _CLOSING]], i
    if m == "St":
        args, i = _args(words, i)
        return [Atom([("", _STANDARDS.get(a, a))], a not in _CLOSING) for a in args], i
    if m == "In":
        args, i = _args(words, i)
        return [Atom([("B", f"#include <{_plain(a)}>")]) for a in args[:1]], i
    if m == "Ex":
        args, i = _args(words, i)
        who = [a for a in args if a != "-std"] or [state.name]
        return [Atom([("", "The "), ("B", who[0]), ("", " utility exits 0 on success, and >0 "
                      "if an error occurs.")])], i  # fmt: skip
    if m == "Rv":
        args, i = _args(words, i)
        who = [a for a in args if a != "-std"] or [state.name]
        return [Atom([("", "The "), ("B", f"{who[0]}()"), ("", " function returns the value 0 if "
                      "successful; otherwise the value -1 is returned and the global variable "),
                      ("I", "errno"), ("", " is set to indicate the error.")])], i  # fmt: skip
    font = _FONT.get(m, "")
    args, i = _args(words, i)
    if m == "Nm" and all(a in _CLOSING or a in _OPENING for a in args):
        return [Atom([("B", state.name)]), *[Atom(_text(a), False) for a in args]], i
    if m == "Ar" and not args:
        return [Atom([("I", "file ...")])], i
    if m == "Fl" and not args:
        return [Atom([("B", "-")])], i
    out: list[Atom] = []
    for k, a in enumerate(args):
        if a in _CLOSING or a in _OPENING or a == "|":
            out.append(Atom(_text(a), a not in _CLOSING))
            continue
        shown = "-" + a if m == "Fl" else a
        if m == "Fa" and state.in_function and k == 0:
            out.append(Atom([("I", _plain(shown))]))
            continue
        out.append(Atom(_font(shown, font)))
    if m == "Fa" and state.in_function and out:
        out[0].space = False
        out.insert(0, Atom([("", ", ")] if state.in_function == 2 else [], False))
        state.in_function = 2
    return out, i


def _glued(atoms: list[Atom]) -> list[Atom]:
    if atoms:
        atoms[0].space = False
    return atoms


def _plain(word: str) -> str:
    return "".join(t for _, t in _text(word))
