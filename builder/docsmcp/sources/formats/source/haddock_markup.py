"""Haddock's markup as markdown, for the Haddock reader (haddock.py).

Blocks: a paragraph that is `@…@` is a code block, as are bird tracks (`> code`); `>>>`
lines with the result lines below them are an example block; `= Heading` (`==`, …) are
headings, moved below the declaration's own; `*`/`-` items, `(1)`/`1.` numbered items and
`[term]: text` definitions are lists; `@since 1.2` is a *Since* line. Inline: `'ident'` and
`` `ident` `` are code and references to the identifier, `"Module.Name"` a reference to the
module, `/emphasis/`, `__bold__`, `@code@`, `<url label>`, `<<image>>`, markdown's
`[label](url)`, `#anchor#` dropped, `\\` escapes. One pass over each line: linear time.
"""

from __future__ import annotations

import re

from docsmcp.sources.formats.markdown.fences import code_block

_IDENT = re.compile(r"'((?:[A-Z][\w']*\.)*(?:[\w][\w']*|[!#$%&*+./<=>?@\\^|~:-]+))'")
_BACKTICK = re.compile(r"`((?:[A-Z][\w']*\.)*[\w][\w']*)`")
_MODULE = re.compile(r'"([A-Z][\w\']*(?:\.[A-Z][\w\']*)*)(?:#[\w\'-]*)?"')
_URL = re.compile(r"<((?:https?|ftp|mailto|file):[^\s>]+)(?:\s+([^>]*))?>")
_IMAGE = re.compile(r"<<([^\s>]+)(?:\s+([^>]*))?>>")
_EMPH = re.compile(r"(?<![\w/\\:])/([^/\s](?:[^/\n]{0,200}?[^/\s])?)/(?![\w/])")
_BOLD = re.compile(r"__([^_\s](?:[^\n]{0,200}?[^_\s])?)__")
_CODE = re.compile(r"@([^@\n]{1,400})@")
_ANCHOR = re.compile(r"#[\w'-]+#")
_HEADING = re.compile(r"^(={1,6})\s+(.*)$")
_ITEM = re.compile(r"^(\s*)(?:[*-]|\(\d+\)|\d+\.)\s+")
_DEF = re.compile(r"^\s*\[([^\]\n]+)\]:?\s*(.*)$")
_SINCE = re.compile(r"^\s*@since\s+(\S+)\s*$")
_MATH = re.compile(r"\\\((.{0,400}?)\\\)")


def inline(text: str, refs: list[str]) -> str:
    """One line of Haddock's inline markup as markdown; the names it links go to `refs`."""
    spans: list[str] = []

    def keep(md: str) -> str:
        spans.append(md)
        return f"\x00{len(spans) - 1}\x00"

    def ident(m: re.Match[str]) -> str:
        refs.append(m.group(1))
        return keep(f"`{m.group(1)}`")

    def module(m: re.Match[str]) -> str:
        refs.append(m.group(1))
        return keep(f"`{m.group(1)}`")

    text = text.replace("\x00", "")
    text = _CODE.sub(lambda m: keep(f"`{_strip_inline(m.group(1))}`"), text)
    text = _MATH.sub(lambda m: keep(f"\\({m.group(1)}\\)"), text)
    text = _IDENT.sub(ident, text)
    text = _BACKTICK.sub(ident, text)
    text = _MODULE.sub(module, text)
    text = _IMAGE.sub(lambda m: keep(f"![{m.group(2) or ''}]({m.group(1)})"), text)
    text = _URL.sub(lambda m: keep(f"[{m.group(2) or m.group(1)}]({m.group(1)})"), text)
    text = _ANCHOR.sub("", text)
    text = _BOLD.sub(r"**\1**", text)
    text = _EMPH.sub(r"*\1*", text)
    return re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m.group(1))], text)


def _strip_inline(text: str) -> str:
    """Code's text without Haddock's marks inside it (`'Map'` in `@'Map' k v@`)."""
    text = _IDENT.sub(r"\1", text)
    return _MODULE.sub(r"\1", text)


def markdown(lines: list[tuple[int, str]], level: int, refs: list[str]) -> list[tuple[int, str]]:
    """A comment's lines (`(source line, text)`) as markdown lines; its headings start below
    `level`."""
    out: list[tuple[int, str]] = []
    k = 0
    n = len(lines)

    def blank(at: int) -> None:
        if out and out[-1][1]:
            out.append((at, ""))

    while k < n:
        at, text = lines[k]
        stripped = text.strip()
        if not stripped:
            blank(at)
            k += 1
            continue
        if stripped.startswith(">>>"):
            block: list[str] = []
            while k < n and lines[k][1].strip():
                block.append(lines[k][1].strip())
                k += 1
            blank(at)
            out += [(at, x) for x in code_block("", "haskell", block)]
            continue
        if stripped.startswith(">") and (stripped == ">" or stripped[1:2] in " \t"):
            block = []
            while k < n and lines[k][1].strip().startswith(">"):
                block.append(lines[k][1].strip()[2:])
                k += 1
            blank(at)
            out += [(at, x) for x in code_block("", "haskell", block)]
            continue
        if stripped.startswith("@") and not _SINCE.match(stripped) and not _CODE.match(stripped):
            block = [stripped[1:]] if stripped[1:].strip() else []
            k += 1
            closed = False
            while k < n:
                row = lines[k][1]
                k += 1
                if row.strip().endswith("@") and not row.strip().endswith("\\@"):
                    tail = row.rstrip()[:-1]
                    if tail.strip():
                        block.append(tail)
                    closed = True
                    break
                block.append(row)
            if not closed and not block:
                continue
            block = [re.sub(r"\\(.)", r"\1", _strip_inline(x)) for x in block]
            margin = min((len(x) - len(x.lstrip()) for x in block if x.strip()), default=0)
            blank(at)
            out += [(at, x) for x in code_block("", "haskell", [x[margin:] for x in block])]
            continue
        if m := _SINCE.match(text):
            blank(at)
            out.append((at, f"*Since: {m.group(1)}*"))
            k += 1
            continue
        if m := _HEADING.match(stripped):
            blank(at)
            depth = min(6, level + len(m.group(1)))
            out.append((at, f"{'#' * depth} {inline(m.group(2), refs)}"))
            out.append((at, ""))
            k += 1
            continue
        if m := _DEF.match(text):
            out.append((at, f"- **{inline(m.group(1), refs)}**: {inline(m.group(2), refs)}"))
            k += 1
            continue
        if m := _ITEM.match(text):
            body = text[m.end() :]
            num = re.match(r"\s*\(?(\d+)[).]", text)
            mark = f"{num.group(1)}." if num else "-"
            out.append((at, f"{m.group(1)}{mark} {inline(body, refs)}"))
            k += 1
            continue
        out.append((at, inline(text.rstrip(), refs)))
        k += 1
    while out and not out[-1][1]:
        out.pop()
    return out


def summary(lines: list[tuple[int, str]]) -> str:
    """The comment's first paragraph as plain text (the entry's description)."""
    para: list[str] = []
    for _, text in lines:
        s = text.strip()
        if not s:
            if para:
                break
            continue
        if s.startswith((">", "@", "=")):
            if para:
                break
            continue
        para.append(_strip_inline(s))
    text = " ".join(para)
    text = _URL.sub(lambda m: m.group(2) or m.group(1), text)
    return re.sub(r"(?<!\w)/([^/\s][^/]*?)/(?!\w)", r"\1", text.replace("__", ""))
