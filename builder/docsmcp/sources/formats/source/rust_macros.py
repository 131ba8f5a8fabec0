"""Items a file's own `macro_rules!` makes, for the rustdoc reader (rustdoc.py): axum's
`top_level_handler_fn!(get, GET);` is `axum::routing::get`, the function every axum app calls,
and `chained_handler_fn!(get, GET);` inside `impl MethodRouter` its method; tokio's
`read_impl!` makes `AsyncReadExt::read_u8`. rustc expands them; docs.rs shows what they make.

Here a call among the items of a macro defined in the same file is expanded as macro_rules
does, to text the reader reads as items: the first arm whose pattern matches the call's
tokens, its body with the matched fragments put in, `stringify!` and `concat!` of literals
made strings, and calls in the result expanded again (at most MAX_DEPTH deep).

What is matched: literal tokens; `$x:ident` (also `lifetime`, `literal`, `tt`: one token or
bracket group); `meta` up to its group's end; the other fragments (`ty`, `expr`, `path`…) up to
the pattern's next literal token outside brackets; `$( … ) sep op` repetitions, one level of
names each. A doc comment in a call is the attribute it stands for (`#[doc = "…"]`), so
`$(#[$m:meta])+` takes it, as rustc does. A call no arm matches expands to nothing (the reader
goes on as before). Every step consumes tokens, repetitions stop when one consumes none, and
the text made is bounded (MAX_TEXT), so hostile input ends.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from docsmcp.sources.formats.source.rust_lex import string_value, tokens
from docsmcp.sources.formats.source.token_groups import Token, group_end

MAX_DEPTH = 8  # calls expanded inside an expansion, nested, at most
MAX_TEXT = 200_000  # characters one call expands to, at most
MAX_CALLS = 256  # calls expanded for one call in the file, at most (`m!(); m!();` in m's body)
_ONE_TOKEN = frozenset({"ident", "lifetime", "literal", "tt", "vis"})


@dataclass(frozen=True)
class Arm:
    pattern: tuple[Token, ...]  # inside the pattern's brackets
    body: tuple[Token, ...]  # inside the body's brackets


Macros = dict[str, tuple[Arm, ...]]


def definitions(toks: Sequence[Token]) -> Macros:
    """Every `macro_rules! name { (pattern) => { body }; … }` of the file, by name."""
    out: Macros = {}
    for k in range(len(toks) - 3):
        if toks[k].text != "macro_rules" or toks[k + 1].text != "!":
            continue
        name, start = toks[k + 2].text, k + 3
        if toks[k + 2].kind != "ident" or toks[start].kind != "open":
            continue
        end = group_end(toks, start) - 1
        arms, i = [], start + 1
        while i < end and toks[i].kind == "open":
            close = group_end(toks, i, end)
            if close + 1 >= end or toks[close].text != "=>" or toks[close + 1].kind != "open":
                break
            after = group_end(toks, close + 1, end)
            arms.append(Arm(tuple(toks[i + 1 : close - 1]), tuple(toks[close + 2 : after - 1])))
            i = after + 1 if after < end and toks[after].text == ";" else after
        out.setdefault(name, tuple(arms))
    return out


def expand(
    macros: Macros, name: str, args: Sequence[Token], depth: int = 0, calls: list[int] | None = None
) -> str | None:
    """The text the call `name!(args)` of a macro in `macros` expands to, its own calls of
    them expanded too; None when no arm matches or a bound is passed (see the module's
    docstring). `calls`: the calls expanded so far for the file's call (one counter)."""
    calls = [0] if calls is None else calls
    calls[0] += 1
    if depth > MAX_DEPTH or name not in macros or calls[0] > MAX_CALLS:
        return None
    call = _as_attributes(args)
    for arm in macros[name]:
        bound = _match(arm.pattern, 0, len(arm.pattern), call, 0, {})
        if bound is None or bound[0] != len(call):
            continue
        text = _literals(_join(_transcribe(arm.body, bound[1])))
        if len(text) > MAX_TEXT:
            return None
        made = _inner_calls(macros, text, depth, calls)
        return made if len(made) <= MAX_TEXT else None
    return None


def _inner_calls(macros: Macros, text: str, depth: int, calls: list[int]) -> str:
    """`text` with its calls of `macros` at its top level expanded."""
    toks = tokens(text)
    parts, last, k = [], 0, 0
    while k < len(toks) - 2:
        t = toks[k]
        called = t.kind == "ident" and t.text in macros and toks[k + 1].text == "!"
        if called and toks[k + 2].kind == "open" and toks[k - 1 if k else 0].text != "macro_rules":
            end = group_end(toks, k + 2)
            inner = expand(macros, t.text, toks[k + 3 : end - 1], depth + 1, calls)
            if inner is not None:
                stop = end + 1 if end < len(toks) and toks[end].text == ";" else end
                parts += [text[last : t.start], inner]
                last = toks[stop - 1].end
                k = stop
                continue
        k = group_end(toks, k) if t.kind == "open" and t.text == "{" else k + 1
    return "".join([*parts, text[last:]])


def _as_attributes(args: Sequence[Token]) -> list[Token]:
    """The call's tokens, each doc comment as the `#[doc = "…"]` it stands for."""
    out: list[Token] = []
    for t in args:
        if t.kind != "doc":
            out.append(t)
            continue
        literal = _literal(t.text)
        out += [
            Token("punct", "#", t.start, t.start, t.line),
            Token("open", "[", t.start, t.start, t.line),
            Token("ident", "doc", t.start, t.start, t.line),
            Token("punct", "=", t.start, t.start, t.line),
            Token("str", literal, t.start, t.end, t.line),
            Token("close", "]", t.end, t.end, t.line),
        ]
    return out


Bound = dict[str, list[list[Token]] | list[Token]]


def _match(
    pat: Sequence[Token], p: int, p_end: int, call: Sequence[Token], c: int, bound: Bound
) -> tuple[int, Bound] | None:
    """Matches pat[p:p_end] against call from c: (the call's index after it, the fragments
    bound), or None."""
    while p < p_end:
        t = pat[p]
        if t.text == "$" and p + 1 < p_end and pat[p + 1].kind == "open" and pat[p + 1].text == "(":
            close = group_end(pat, p + 1, p_end)
            sep, op = _repetition(pat, close, p_end)
            inner_start, inner_end = p + 2, close - 1
            runs: list[Bound] = []
            while c < len(call) and len(runs) < len(call):
                if runs and sep is not None:
                    if call[c].text != sep.text:
                        break
                    c_try = c + 1
                else:
                    c_try = c
                got = _match(pat, inner_start, inner_end, call, c_try, {})
                if got is None or got[0] == c_try:
                    break
                c = got[0]
                runs.append(got[1])
                if op == "?":
                    break
            if op == "+" and not runs:
                return None
            names = {n for run in runs for n in run} | _names(pat[inner_start:inner_end])
            for n in names:
                bound[n] = [run.get(n, []) for run in runs]  # type: ignore[misc]
            p = close + (2 if sep is not None else 1)
            continue
        fragment = t.text == "$" and p + 3 < p_end and pat[p + 1].kind == "ident"
        if fragment and pat[p + 2].text == ":" and pat[p + 3].kind == "ident":
            stop = pat[p + 4] if p + 4 < p_end else None
            end = _fragment(call, c, pat[p + 3].text, stop)
            if end is None:
                return None
            bound[pat[p + 1].text] = list(call[c:end])
            c, p = end, p + 4
            continue
        if c >= len(call) or call[c].text != t.text:
            return None
        c, p = c + 1, p + 1
    return c, bound


def _repetition(pat: Sequence[Token], close: int, end: int) -> tuple[Token | None, str]:
    """(the separator, the operator `*`/`+`/`?`) after a repetition's group."""
    if close < end and pat[close].text in ("*", "+", "?"):
        return None, pat[close].text
    if close + 1 < end and pat[close + 1].text in ("*", "+", "?"):
        return pat[close], pat[close + 1].text
    return None, "*"


def _names(pat: Sequence[Token]) -> set[str]:
    return {pat[k + 1].text for k in range(len(pat) - 1) if pat[k].text == "$"}


def _fragment(call: Sequence[Token], c: int, kind: str, stop: Token | None) -> int | None:
    """The call's index after the fragment `kind` starting at c, or None."""
    if c >= len(call):
        return None
    if kind in _ONE_TOKEN:
        if kind == "ident" and call[c].kind != "ident":
            return None
        return group_end(call, c) if call[c].kind == "open" else c + 1
    k = c
    while k < len(call) and call[k].kind != "close":
        if stop is not None and call[k].text == stop.text:
            break
        k = group_end(call, k) if call[k].kind == "open" else k + 1
    return k if k > c else None


def _transcribe(body: Sequence[Token], bound: Bound) -> list[str]:
    """The body's tokens' texts, `$name` as what it matched; a repetition `$( … )` once per run
    of the names it uses that were repeated, each run with those names' run."""
    out: list[str] = []
    k = 0
    while k < len(body):
        t = body[k]
        if t.text == "$" and k + 1 < len(body):
            nxt = body[k + 1]
            if nxt.kind == "open" and nxt.text == "(":
                close = group_end(body, k + 1)
                sep, _ = _repetition(body, close, len(body))
                inner = body[k + 2 : close - 1]
                repeated = [n for n in _names(inner) if _runs(bound.get(n))]
                runs = min((len(bound[n]) for n in repeated), default=0)
                for i in range(runs):
                    if i and sep is not None:
                        out.append(sep.text)
                    run = {**bound, **{n: bound[n][i] for n in repeated}}
                    out += _transcribe(inner, run)  # type: ignore[arg-type]
                k = close + (2 if sep is not None else 1)
                continue
            if nxt.kind == "ident" and nxt.text in bound:
                out += [_text(x) for x in _flat(bound[nxt.text])]
                k += 2
                continue
        out.append(_text(t))
        k += 1
    return out


def _runs(value: object) -> bool:
    """Whether a bound value is a repetition's runs (lists), not one fragment's tokens."""
    return isinstance(value, list) and bool(value) and isinstance(value[0], list)


def _flat(value: list) -> list[Token]:  # type: ignore[type-arg]
    """A fragment's tokens; a name used outside the repetitions it was matched in: all runs."""
    out: list[Token] = []
    for x in value:
        out += _flat(x) if isinstance(x, list) else [x]
    return out


_TIGHT_BEFORE = frozenset({",", ";", ":", ")", "]", ".", "?", "::", "<", ">"})
_TIGHT_AFTER = frozenset({"(", "[", "::", "#", "&", "<"})


def _join(parts: list[str]) -> str:
    """Tokens' texts as code is written (`fn get<H>(handler: H)`, not `fn get < H > ( …`): the
    reader shows a declaration's text as its signature."""
    out: list[str] = []
    for x in parts:
        if out:
            last = out[-1]
            call = x in ("(", "[") and (last[-1:].isalnum() or last[-1:] in "_>")
            if not (x in _TIGHT_BEFORE or last in _TIGHT_AFTER or call):
                out.append(" ")
        out.append(x)
    return "".join(out)


def _text(t: Token) -> str:
    return f"#[doc = {_literal(t.text)}]" if t.kind == "doc" else t.text


def _literal(text: str) -> str:
    """`text` as a Rust string literal."""
    literal = json.dumps(
        text, ensure_ascii=False
    )  # (`\"`, `\\`, `\n` as Rust writes them; `\uXXXX` is `\u{XXXX}`)
    return re.sub(r"\\u([0-9a-fA-F]{4})", r"\\u{\1}", literal)


_STRINGIFY = re.compile(r"\bstringify\s*!\s*\(\s*([^()]*?)\s*\)")
_CONCAT = re.compile(r'\bconcat\s*!\s*\(\s*((?:"(?:[^"\\]|\\.)*"\s*,?\s*)+)\)')
_PIECE = re.compile(r'"(?:[^"\\]|\\.)*"')


def _literals(text: str) -> str:
    """`stringify!(GET)` as `"GET"`, then `concat!("a", "b")` of strings as `"ab"`."""
    text = _STRINGIFY.sub(lambda m: _literal(m.group(1)), text)

    def joined(m: re.Match[str]) -> str:
        pieces = [string_value(Token("str", p, 0, 0, 0)) for p in _PIECE.findall(m.group(1))]
        return _literal("".join(pieces))

    return _CONCAT.sub(joined, text)
