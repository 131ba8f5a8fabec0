"""A roff file as the requests and text lines a formatter reads, with the page's own
definitions applied.

Comments (`.\\"`, `\\"` to the end of a line, `\\#`) and continuation lines (`\\` at a line's end)
go first. Conditionals (`.if`, `.ie`/`.el`, their `\\{ … \\}` blocks) are decided as nroff
decides them for a terminal (`n` true, `t` false; what cannot be decided is false), so a page's
typesetter-only branches are skipped (blocks 16 deep at most). `.de`/`.am` define macros the
page then calls: a call runs the body with its arguments (`\\$1`, `\\$*`, `\\$@`), at most 8
deep and within a budget of lines proportional to the file, so a page's macros cannot make the
reading non-linear; `.ig`
blocks are skipped; `.ds`/`.as` define strings. Lines between `.TS` and `.TE` pass as text.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from docsmcp.sources.formats.roff.roff_text import plain

MAX_DEPTH = 8
# Conditional blocks read inside one another at most (each level reads its block's lines once).
MAX_NEST = 16
# Requests that change nothing a reader sees (page layout, hyphenation, traps, registers).
IGNORED = frozenset(
    "ad na hy nh ne ta ll in ti fl ps vs bp so pl po ns rs ch wh it nr rr cc c2 ec eo lf "
    "pc mk rt sv os ev hc hw lt nm nn pn tc tl tm ab ex em cu ul uf lg ss cs bd fam fp "
    "ftr mso do pso open close write writec char fchar schar rchar pev pm pnr ptr ce rj "
    "kern warn hla hlm hym hys shc opena rm rn als tr trin trnt chop substring length "
    "blm lsm asciify unformat cflags sty fspecial nroff troff color defcolor gcolor fcolor "
    "box boxa di da break continue return shift while mc Dd Os Bk Ek Tg".split()
)  # fmt: skip


@dataclass(frozen=True)
class Line:
    at: int  # 0-based source line
    name: str  # the request or macro ("" for a text line)
    args: tuple[str, ...]  # its arguments, quotes removed (a request's)
    text: str  # the line as written (a text line's text; a request's argument text)


def split_args(text: str) -> tuple[str, ...]:
    """A request's arguments: space-separated, `"…"` quoting spaces, `""` a quote inside."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            break
        if text[i] == '"':
            i += 1
            buf: list[str] = []
            while i < n:
                if text[i] == '"':
                    if i + 1 < n and text[i + 1] == '"':
                        buf.append('"')
                        i += 2
                        continue
                    i += 1
                    break
                if text[i] == "\\" and i + 1 < n:
                    buf.append(text[i : i + 2])
                    i += 2
                    continue
                buf.append(text[i])
                i += 1
            out.append("".join(buf))
        else:
            start = i
            while i < n and text[i] not in " \t":
                i += 2 if text[i] == "\\" else 1
            out.append(text[start:i])
    return tuple(out)


def _uncomment(text: str) -> str:
    """`text` without its `\\"` or `\\#` comment (an escaped backslash is no comment's start)."""
    i = text.find("\\")
    while 0 <= i < len(text) - 1:
        if text[i + 1] in '"#':
            return text[:i].rstrip() if text[i + 1] == '"' else text[:i]
        i = text.find("\\", i + 2)
    return text


def physical_lines(text: str) -> list[tuple[int, str]]:
    """The file's lines, comments removed and continuation lines joined, with their line. Each
    line is scanned once (a continued line's parts are joined when it ends)."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for at, raw in enumerate(text.split("\n")):
        raw = raw.rstrip("\r")
        if not pending:
            start = at
            if raw.startswith(('.\\"', "'\\\"", '\\"')) or raw in (".", "'"):
                continue
        line = _uncomment(raw)
        if line.endswith("\\") and (len(line) - len(line.rstrip("\\"))) % 2 == 1:
            pending.append(line[:-1])
            continue
        if pending:
            pending.append(line)
            line, pending = "".join(pending), []
        elif line != raw and not line.strip() and raw.lstrip()[:1] in (".", "'"):
            continue
        out.append((start, line))
    if pending:
        out.append((start, "".join(pending)))
    return out


def _condition(text: str, strings: dict[str, str], macros: dict) -> tuple[bool, str]:
    """(whether the condition at the start of `text` holds for nroff, the rest: the body)."""
    text = text.lstrip()
    negate = text.startswith("!")
    if negate:
        text = text[1:]
    if not text:
        return False, ""
    c = text[0]
    if c in "nteov" and (len(text) == 1 or not text[1].isalnum()):
        value, rest = c in "no", text[1:]
    elif c in "dr" and len(text) > 1 and text[1] in " \t":
        name, _, rest = text[2:].lstrip().partition(" ")
        value = c == "d" and (name in strings or name in macros)
    elif c in "'\"/|":
        end1 = text.find(c, 1)
        end2 = text.find(c, end1 + 1) if end1 > 0 else -1
        if end2 < 0:
            return False, ""
        value = plain(text[1:end1], strings) == plain(text[end1 + 1 : end2], strings)
        rest = text[end2 + 1 :]
    elif c == "\\" and text[1:3] in ("n(", "n["):
        end = text.find(" ")
        expr, rest = (text, "") if end < 0 else (text[:end], text[end:])
        value = ".g" in expr[:6] and not any(op in expr for op in "<>=")
    else:
        end = 0
        while end < len(text) and text[end] not in " \t":
            end += 1
        expr, rest = text[:end], text[end:]
        value = expr.isdigit() and int(expr) > 0
    return value != negate, rest.lstrip()


@dataclass
class _State:
    strings: dict[str, str]
    macros: dict[str, list[str]]
    budget: int
    last_if: bool = False


def _block(body: str, source: Iterator[tuple[int, str]], at: int) -> list[tuple[int, str]]:
    """The lines of a conditional's body: one line, or a `\\{ … \\}` block read from `source`
    (braces counted, so nested blocks end where they end)."""
    if not body.startswith("\\{"):
        return [(at, body)] if body else []
    depth = 1
    lines: list[tuple[int, str]] = []
    current, current_at = body[2:], at
    while True:
        depth += current.count("\\{") - current.count("\\}")
        if depth <= 0:
            cut = current.replace("\\}", "").strip()
            if cut:
                lines.append((current_at, cut))
            return lines
        if current.strip():
            lines.append((current_at, current.replace("\\{", "").lstrip()))
        nxt = next(source, None)
        if nxt is None:
            return lines
        current_at, current = nxt


def lines(text: str) -> tuple[list[Line], dict[str, str]]:
    """The page's requests and text lines, definitions applied (see the module docstring), and
    the strings it defines (`.ds`), decoded."""
    physical = physical_lines(text)
    state = _State({}, {}, budget=4 * len(physical) + 20_000)
    out: list[Line] = []
    _run(iter(physical), state, out, 0, ())
    return out, state.strings


def _run(
    source: Iterator[tuple[int, str]],
    state: _State,
    out: list[Line],
    depth: int,
    args: tuple[str, ...],
    nest: int = 0,
) -> None:
    in_table = False
    for at, line in source:
        state.budget -= 1
        if state.budget < 0:
            return
        if depth and "\\$" in line:
            line = _substitute(line, args)
        if depth and "\\\\" in line:
            line = line.replace("\\\\", "\\")
        if in_table:
            if line.startswith((".TE", "'TE")):
                in_table = False
                out.append(Line(at, "TE", (), ""))
            else:
                out.append(Line(at, "", (), line))
            continue
        if not line.startswith((".", "'")):
            out.append(Line(at, "", (), line))
            continue
        body = line[1:].lstrip(" \t")
        end = 0
        while end < len(body) and body[end] not in " \t":
            end += 1
        name, rest = body[:end], body[end:].lstrip(" \t")
        if not name:
            continue
        if name in ("de", "de1", "am", "am1", "ig"):
            parts = rest.split()
            terminator = "." + (parts[1] if len(parts) > 1 else ("." if name != "ig" else "."))
            if name == "ig":
                terminator = "." + (parts[0] if parts else ".")
            body_lines = []
            for _, raw in source:
                if raw.strip() == terminator or raw.startswith(terminator + " "):
                    break
                body_lines.append(raw)
            if name != "ig" and parts:
                if name.startswith("am"):
                    state.macros.setdefault(parts[0], []).extend(body_lines)
                else:
                    state.macros[parts[0]] = body_lines
            continue
        if name in ("ds", "ds1", "as", "as1"):
            key, _, value = rest.partition(" ")
            value = value.lstrip()
            value = plain(value[1:] if value.startswith('"') else value, state.strings)
            if name.startswith("as"):
                value = state.strings.get(key, "") + value
            state.strings[key] = value
            continue
        if name in ("if", "ie", "el"):
            if name == "el":
                holds, rest = not state.last_if, rest
            else:
                holds, rest = _condition(rest, state.strings, state.macros)
                if name == "ie":
                    state.last_if = holds
            block = _block(rest, source, at)
            if holds and block and nest < MAX_NEST:
                _run(iter(block), state, out, depth, args, nest + 1)
            continue
        if name in state.macros:
            if depth < MAX_DEPTH:
                body_lines = state.macros[name]
                state.budget -= len(body_lines)
                call = split_args(rest)
                _run(iter([(at, x) for x in body_lines]), state, out, depth + 1, call, nest)
            continue
        if name in IGNORED:
            continue
        if name == "TS":
            in_table = True
        out.append(Line(at, name, split_args(rest), rest))


def _substitute(line: str, args: tuple[str, ...]) -> str:
    """A macro body's line with its arguments in place (`\\$1`…`\\$9`, `\\$*`, `\\$@`)."""
    out: list[str] = []
    i = 0
    while True:
        j = line.find("\\$", i)
        if j < 0:
            out.append(line[i:])
            break
        # `\\$1` in a body read raw is written `\\$1`: the doubled backslash is one.
        start = j - 1 if j > 0 and line[j - 1] == "\\" else j
        out.append(line[i:start])
        c = line[j + 2] if j + 2 < len(line) else ""
        if c.isdigit():
            k = int(c)
            out.append(args[k - 1] if 0 < k <= len(args) else "")
            i = j + 3
        elif c in "*@":
            out.append(" ".join(args) if c == "*" else " ".join(f'"{a}"' for a in args))
            i = j + 3
        else:
            out.append("\\$")
            i = j + 2
    return "".join(out)
