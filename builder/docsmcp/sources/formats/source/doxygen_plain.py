"""What the Doxygen reader's plain mode (doxygen_decls.py, packages/c_headers.py) reads in a
header documented without Doxygen: where a single-header library's implementation starts, a
comment's license, sqlite's comment markup, an export macro around a return type, and a
prototype written at the top of a comment (zlib's)."""

from __future__ import annotations

import re

from docsmcp.sources.formats.source.c_words import KEYWORDS, TOKEN, clean, named

# A single-header library's implementation, which the header's reader stops at.
_IMPLEMENTATION = re.compile(
    r"^[ \t]*#[ \t]*if(?:def[ \t]+|[ \t]+defined[ \t]*\(?[ \t]*)\w*IMPLEMENTATION\b", re.M
)
_LICENSE = re.compile(
    r"^[ \t]*(?:copyright\b|\(c\)|licen[sc]e\b|spdx-license|permission is hereby granted|"
    r"this software is provided|the author disclaims copyright|redistribution and use|"
    r"all rights reserved)",
    re.I | re.M,
)
_LICENSE_MORE = re.compile(
    r"see end of file|permission is granted|must not be misrepresented|"
    r"this notice may not be removed",
    re.I,
)
_MACRO_WORD = re.compile(r"[A-Z][A-Z0-9_]*")


_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|endif|else|elif)\b", re.M)


def implementation_blocks(text: str) -> list[tuple[int, int, int]]:
    """The (start, end, depth: 0 outside the include guard, else 1) of a single-header
    library's implementation blocks: each `#ifdef X_IMPLEMENTATION` … `#endif` outside any
    other `#if` but the include guard (stb_truetype has a small one above its declarations and
    the large one below them; stb_divide's is outside its guard, stb_image_resize2's inside).
    One with an `#else` is a switch of settings (raymath's `RMAPI`), no implementation."""
    out: list[tuple[int, int, int]] = []
    depth = 0
    opened = -1
    at = 0  # (the depth the open block started at)
    for m in _DIRECTIVE.finditer(text):
        if m.group(1) in ("else", "elif"):
            if opened >= 0 and depth == at + 1:  # (a switch of settings: raymath's RMAPI)
                opened = -1
            continue
        if m.group(1) == "endif":
            depth = max(0, depth - 1)
            if depth == at and opened >= 0:
                nl = text.find("\n", m.end())
                out.append((opened, len(text) if nl < 0 else nl, at))
                opened = -1
            continue
        if opened < 0 and depth <= 1 and _IMPLEMENTATION.match(text, m.start()):
            opened, at = m.start(), depth
        depth += 1
    if opened >= 0:  # (unclosed: to the end)
        out.append((opened, len(text), at))
    return out


def without_implementation(text: str) -> str:
    """`text` with its implementation blocks blanked, their newlines kept (lines stay lines);
    the last one, where it lies outside the include guard, to the end of the text
    (stb_divide's implementation runs on past its `#endif`)."""
    blocks = implementation_blocks(text)
    if not blocks:
        return text
    if blocks[-1][2] == 0:
        blocks[-1] = (blocks[-1][0], len(text), 0)
    parts: list[str] = []
    last = 0
    for start, end, _ in blocks:
        parts.append(text[last:start])
        parts.append("\n" * text.count("\n", start, end))
        last = end
    parts.append(text[last:])
    return "".join(parts)


def without_license(text: str) -> str:
    """A comment's text without its license: the paragraphs from one that names a license or
    copyright through those that continue it (raylib's `LICENSE: zlib/libpng` and the zlib
    license's numbered clauses; stb's `LICENSE` / `See end of file`), the rest kept."""
    out: list[str] = []
    inside = False
    for para in re.split(r"\n[ \t]*\n", text):
        if _LICENSE.search(para) or _LICENSE_MORE.search(para):
            inside = True
            continue
        if inside and (re.match(r"\s*\d+\.\s", para) or ("@" in para and para.count("\n") < 3)):
            continue
        inside = False
        out.append(para)
    return "\n\n".join(out).strip("\n")


def sqlite_text(text: str) -> str:
    """sqlite's comment markup as its site shows it: `^` (a tested requirement) dropped,
    `[sqlite3_step()]` a name, `[parameter | host parameter]` its text."""
    text = re.sub(r"(?<![\w^])\^(?=\S)", "", text)
    text = re.sub(r"\[([^\[\]|\n]{1,80})\|[ \t]*([^\[\]\n]{1,80})\]", r"\2", text)
    text = re.sub(r"\[(\w+\(\)|[A-Z][A-Z0-9_]+)\]", r"`\1`", text)
    return re.sub(r"\[([^\[\]\n]{1,80})\](?!\()", r"\1", text)


def unwrapped(words: list[str]) -> list[str]:
    """`CJSON_PUBLIC ( cJSON * ) cJSON_Parse (`: the export macro's parentheses dropped, so the
    name is the one before the parameter list."""
    if len(words) < 4 or not _MACRO_WORD.fullmatch(words[0]) or words[1] != "(":
        return words
    depth, k = 0, 1
    while k < len(words):
        depth += words[k] == "("
        depth -= words[k] == ")"
        if depth == 0:
            break
        k += 1
    rest = words[k + 1 :]
    if "(" not in rest or not re.fullmatch(r"[A-Za-z_]\w*", rest[0]):
        return words
    return [*words[2:k], *rest]


def prototype(text: str) -> tuple[str, str, str, str] | None:
    """(code, name, parameters, the rest) of a comment that starts with a function's
    prototype (zlib's `ZEXTERN int ZEXPORT deflateInit(z_streamp strm, int level);`)."""
    head = text[:600]
    end = head.find(";")
    if end < 0 or "(" not in head[:end] or "\n\n" in head[:end]:
        return None
    code = head[: end + 1]
    if not re.fullmatch(r"[\w \t\n*&(),\[\].]+;", code):
        return None
    words = TOKEN.findall(code[:-1])
    if not words or words[-1] != ")" or len(words) < 4:
        return None
    kind, name, params = named(unwrapped(words))
    if kind != "function" or not name or name in KEYWORDS:
        return None
    return clean(code, frozenset()), name, params, text[end + 1 :].strip("\n")


# An export macro's name: capitals, digits and `_`, three characters at least (`RLAPI`,
# `SQLITE_API`, `ZEXTERN`, `CJSON_PUBLIC`).
_EXPORT_WORD = re.compile(r"[A-Z][A-Z0-9_]{2,}")
_IDENT = re.compile(r"[A-Za-z_]\w*")
# A word is an export macro when this many of the header's functions, and half of them at
# least, carry it before their name: a return type (`FILE`, `BOOL`) is seldom that common, and
# one that is stays (the declaration keeps a type, `_head_without`).
MIN_EXPORTED = 3
_QUALIFIERS = frozenset(("const", "volatile", "static", "inline", "extern"))


def _head(d_code: str, name: str) -> int:
    """Where the declared name starts in a function's code (-1: not found): the text before it
    is the return type and what decorates it."""
    short = name.rsplit("::", 1)[-1]
    m = re.search(r"(?<![\w~])" + re.escape(short) + r"\s*\(", d_code)
    return m.start() if m else -1


def _wrapper(head: str) -> tuple[str, str, int] | None:
    """(macro, what it wraps, where the wrapper ends) of a head `CJSON_PUBLIC(cJSON *) `."""
    m = re.match(r"\s*([A-Z][A-Z0-9_]{2,})\s*\(", head)
    if m is None:
        return None
    close = head.find(")", m.end())
    if close < 0 or "(" in head[m.end() : close]:
        return None
    return m.group(1), head[m.end() : close].strip(), close + 1


def export_macros(functions: list[tuple[str, str]]) -> tuple[frozenset[str], frozenset[str]]:
    """The words and the wrappers (`CJSON_PUBLIC(type)`) a header writes before its functions'
    names to export them, as the generators hide them (sqlite.org shows `int
    sqlite3_open(…)`, zlib's manual `int deflate(…)`, raylib's cheatsheet `void
    InitWindow(…)`): of (code, name) pairs, those on at least MIN_EXPORTED and half of them."""
    words: dict[str, int] = {}
    wrappers: dict[str, int] = {}
    for code, name in functions:
        at = _head(code, name)
        if at < 0:
            continue
        head = code[:at]
        wrapped = _wrapper(head)
        if wrapped is not None:
            wrappers[wrapped[0]] = wrappers.get(wrapped[0], 0) + 1
            head = head[wrapped[2] :]
        for word in dict.fromkeys(_IDENT.findall(head)):
            if _EXPORT_WORD.fullmatch(word):
                words[word] = words.get(word, 0) + 1
    least = max(MIN_EXPORTED, (len(functions) + 1) // 2)
    return (
        frozenset(w for w, n in words.items() if n >= least),
        frozenset(w for w, n in wrappers.items() if n >= least),
    )


def without_exports(code: str, name: str, words: frozenset[str], wrappers: frozenset[str]) -> str:
    """A declaration's code without the export macros before its name, as long as a type is
    left (`BOOL Foo(…)` keeps its `BOOL` however common); anything else unchanged."""
    if not words and not wrappers:
        return code
    wrapped = _wrapper(code)
    if wrapped is not None and wrapped[0] in wrappers and wrapped[1]:
        code = wrapped[1] + " " + code[wrapped[2] :].lstrip()
    at = _head(code, name)
    if at < 0:  # (a variable: the name is the last word before `;`, `[` or `=`)
        m = re.search(r"(?<!\w)" + re.escape(name.rsplit("::", 1)[-1]) + r"\s*(?:[\[;=]|$)", code)
        at = m.start() if m else -1
    if at < 0:  # (a function pointer, `SQLITE_API void (*xFn)(int);`, whose head runs to its
        # first parenthesis)
        at = code.find("(")
        if at < 0:
            return code
        head = code[:at]
        new = " ".join(w for w in head.split() if w not in words)
        spacer = " " if head[-1:].isspace() else ""
        return f"{new}{spacer}{code[at:]}" if _typed(new) else code
    head, rest = code[:at], code[at:]
    kept = [w for w in head.split() if w not in words]
    if _decoration(kept):  # (zlib's `int ZEXPORTVA gzprintf(`, on two functions only)
        kept.pop()
    new = " ".join(kept)
    if not _typed(new):
        return code  # (no type would be left)
    # (`cJSON *` + `cJSON_Parse(…)` as written together; `cJSON*` keeps its space)
    # (`void (*signal(…))(int)`: nothing between the group and the name)
    together = re.search(r"\s\*+$", new) or not head[-1:].isspace()
    return f"{new}{rest}" if together else f"{new} {rest}"


# Words after which a capital word is still a type: `const FOO f(`, `struct FOO f(`.
_BEFORE_TYPE = _QUALIFIERS | frozenset(
    ("struct", "union", "enum", "unsigned", "signed", "long", "short")
)


def _decoration(head: list[str]) -> bool:
    """Whether the head's last word is a macro between the return type and the name, however
    rare (zlib's `int ZEXPORTVA gzprintf(`, Windows' `BOOL WINAPI Show(`): C puts no second
    type after a type, so a capital word there decorates (a calling convention, an export)."""
    return (
        len(head) >= 2
        and _EXPORT_WORD.fullmatch(head[-1]) is not None
        and _IDENT.fullmatch(head[-2]) is not None
        and head[-2] not in _BEFORE_TYPE
    )


def _typed(head: str) -> bool:
    """Whether what is left before a name still holds a type (not only qualifiers)."""
    return any(w not in _QUALIFIERS for w in _IDENT.findall(head))
