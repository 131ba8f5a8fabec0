"""What an API entry's code says (apiref.py reads the sections): the call of a name in a code
block (`_call_line`, cut at the call's end, its assignment dropped), the line declaring a type
(`_declaration`: `interface Name {`, `type Name struct`), and a declaration written as text at
the start of a paragraph (`_text_declaration`: TypeDoc's HTML signature)."""

from __future__ import annotations

import re

from docsmcp_runtime.search.languages import normalise_language

from docsmcp.model.api import Parameter
from docsmcp.model.api_fields import (
    _DECL_PREFIX,
    _FENCE,
    MAX_PARAM_DESCRIPTION_CHARS,
    MAX_SIGNATURE_CHARS,
)
from docsmcp.model.chunk import Block
from docsmcp.model.text import truncate


def _fence_language(lines: list[str], block: Block) -> str:
    if block.start >= len(lines):
        return ""
    m = _FENCE.match(lines[block.start])
    return normalise_language(m.group(2)) if m else ""


def _is_ident_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_$"


def _mentions(code: str, word: str, start: int = 0) -> int:
    """Offset of the first whole-word occurrence of `word` in `code` at or after `start`, or -1.
    (String search, not a regex per identifier: that would overflow the regex cache.)"""
    n = len(word)
    while True:
        at = code.find(word, start)
        if at < 0:
            return -1
        end = at + n
        if (at == 0 or not _is_ident_char(code[at - 1])) and (
            end >= len(code) or not _is_ident_char(code[end])
        ):
            return at
        start = at + 1


def _call_at(code: str, word: str) -> tuple[int, int]:
    """(offset of `word`, offset of its opening parenthesis) of the first call `word(`, or
    (-1, -1)."""
    at = _mentions(code, word)
    while at >= 0:
        k = at + len(word)
        while k < len(code) and code[k] in " \t":
            k += 1
        if k < len(code) and code[k] == "(":
            return at, k
        at = _mentions(code, word, at + 1)
    return -1, -1


def _call_line(code: str, segment: str) -> tuple[str, bool] | None:
    """(the line of `code` that calls or declares `segment(`, declared with `new`), cleaned
    of its assignment and cut at the call's end."""
    found, paren = _call_at(code, segment)
    if found < 0:
        return None
    start = code.rfind("\n", 0, found) + 1
    end = code.find("\n", paren)
    line = code[start : end if end >= 0 else len(code)]
    at = found - start
    before = line[:at]
    constructed = bool(re.search(r"\bnew\s+[\w$.\\:]*$", before))
    # Drop an assignment (`const x = await `, `res, err := `, `$r = `) before the call.
    eq = max(before.rfind("= "), before.rfind("=\t"))
    if eq >= 0 and before.count("(") == before.count(")"):
        before = before[eq + 1 :]
    before = re.sub(r"^\s*(?:(?:return|await|yield|const|let|var)\s+)+", "", before)
    before = re.sub(r"(?:^|\s)(?:await|return)\s+", " ", before).lstrip()
    call = line[at:]
    depth = 0
    last_comma = -1
    for k, ch in enumerate(call):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                tail = re.split(r"\{|=>|//|#\s", call[k + 1 :], maxsplit=1)[0]
                tail = tail.strip().rstrip(";").strip()
                text = f"{before}{call[: k + 1]} {tail}".strip()
                return truncate(text, MAX_SIGNATURE_CHARS), constructed
        elif ch == "," and depth == 1:
            last_comma = k
    cut = last_comma if last_comma > 0 else call.index("(") + 1
    call = call[:cut] + (", …)" if last_comma > 0 else "…)")
    return truncate((before + call).strip(), MAX_SIGNATURE_CHARS), constructed


def _declaration(code: str, segment: str) -> str:
    """The line declaring `segment` as a type (`interface Name {`, `type Name struct`)."""
    at = _mentions(code, segment)
    while at >= 0:
        start = code.rfind("\n", 0, at) + 1
        if _DECL_PREFIX.match(code, start, at):
            end = code.find("\n", at)
            line = code[start : end if end >= 0 else len(code)]
            return truncate(line.strip().rstrip("{").rstrip(), MAX_SIGNATURE_CHARS)
        at = _mentions(code, segment, at + 1)
    return ""


# A member line of a declaration (`  content: ContentBlock[];`, `  isError?: boolean;`).
_MEMBER = re.compile(r"^\s+([A-Za-z_$][\w$]*)(\?)?:\s*(.+?);?\s*$")


def _text_declaration(text: str, segment: str) -> tuple[str, list[Parameter], str] | None:
    """A declaration written as text, not fenced, at the start of a paragraph: TypeDoc's HTML
    (`<div class="tsd-signature">interface CallToolResult {<br/>…`, the MCP schema) reads as
    `interface CallToolResult {`, a member per line, `}`, then the description and each
    member's own paragraphs (`content: ContentBlock[]` then what it holds). Gives the
    declaration (one line, members and all), the members, and the first paragraph after it."""
    head, _, body = text.partition("\n")
    declared = _declaration(head, segment)
    if not declared or not text.startswith(declared.split(None, 1)[0]):
        return None
    lines = body.split("\n")
    end = next((i for i, line in enumerate(lines) if line.strip() in ("}", "};")), -1)
    if end < 0:
        return truncate(declared, MAX_SIGNATURE_CHARS), [], ""
    members = [m for line in lines[:end] if (m := _MEMBER.match(line))]
    after = "\n".join(lines[end + 1 :]).strip()
    paragraphs = [" ".join(p.split()) for p in after.split("\n\n") if p.strip()]
    params = []
    for m in members:
        name, optional, kind = m.group(1), m.group(2), m.group(3)
        own = f"{name}{optional or ''}: {kind}"
        at = paragraphs.index(own) if own in paragraphs else -1
        said = paragraphs[at + 1] if 0 <= at < len(paragraphs) - 1 else ""
        if said.startswith(("Inherited from", "Overrides")) or said in {
            f"{n.group(1)}{n.group(2) or ''}: {n.group(3)}" for n in members
        }:
            said = ""
        params.append(
            Parameter(name, kind, not optional, truncate(said, MAX_PARAM_DESCRIPTION_CHARS))
        )
    shown = " ".join([head.strip(), *(line.strip() for line in lines[: end + 1])])
    rest = paragraphs[0] if paragraphs else ""
    return truncate(shown, MAX_SIGNATURE_CHARS), params, rest
