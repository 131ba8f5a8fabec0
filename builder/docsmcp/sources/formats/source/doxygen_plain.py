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
