"""NestJS's docs (docs.nestjs.com), whose own renderer (`tools/transforms`: marked with renderers
of its own, the pages then compiled as Angular templates) shows some markdown otherwise than
CommonMark. Line by line, as its reader sees it (dialects.rewrite calls `read`):

- a code block opening with `@@filename(cats.controller)` shows the file's name above the code
  (`cats.controller.ts`; `@@filename()` shows none), and `@@switch` splits the block into the
  TypeScript code and its JavaScript translation behind a TS/JS toggle that shows TypeScript.
  The name becomes the line before the block (the opening fence moves down onto the marker's
  line) and the block ends at `@@switch`: its JavaScript lines and the old closing fence are
  left blank. The reader sees the TypeScript; a copy of every example in a second language
  (214 of them) would only repeat its names. (These are the lines inside fences a dialect
  changes: the markers are no code.) 630 markers showed in the site's chunks;
- a quote opening with a class word before its bold label (`> info **Hint** ...`, `> warning
  **Warning**`: 578) is a coloured box showing `Hint ...`: the word goes;
- an Angular interpolation of a brace as a string literal, `{{ '{' }}` (how the pages write a
  brace the template compiler would otherwise read: `@Res({{ '{' }} passthrough: true {{ '}'
  }})`, 87), shows the brace. Lines inside fences keep theirs: a page about templates shows
  `{{ '{{' }}` as code, and which of NestJS's 20 in code its reader sees resolved is unsure.
"""

from __future__ import annotations

import re

_FILENAME = re.compile(r"[ \t]*@@filename\(([^)]*)\)[ \t]*")
_SWITCH = "@@switch"
_FENCE = re.compile(r"([ \t]*)(`{3,}|~{3,})")
# The class words of its stylesheet, lower-case as it writes them: prose never opens a quote
# with "info" before a bold word, so other sites' quotes keep theirs.
_CLASS_WORD = re.compile(r"^([ \t]*>[ \t]*)(?:info|warning|warn|error)[ \t]+(?=\*\*)", re.M)
# Only literals of template delimiters (`{`, `}}`, `${{`): the escape every template language
# (Angular, Jinja, Liquid, Nunjucks) reads as the characters, where a page about templates may
# well show `{{ 'name' }}` as the code it is.
_LITERAL = re.compile(r"""\{\{[ \t]*(?:'([{}$%#]+)'|"([{}$%#]+)")[ \t]*\}\}""")


def may_hold(text: str) -> bool:
    """Whether `read` could change a file's `text` (substring tests: most files hold none)."""
    return (
        "@@filename(" in text
        or _SWITCH in text
        or ("{{" in text and _LITERAL.search(text) is not None)
        or ("**" in text and _CLASS_WORD.search(text) is not None)
    )


def read(lines: list[str], code: list[bool]) -> list[str]:
    """`lines` as NestJS's reader sees them (as many lines); `code`: fenced_lines(lines)."""
    out = list(lines)
    i = 0
    while i < len(lines):
        if not code[i]:
            if ">" in lines[i] and "**" in lines[i]:
                out[i] = _CLASS_WORD.sub(r"\1", out[i])
            if "{{" in lines[i]:
                out[i] = _LITERAL.sub(lambda m: m[1] if m[1] is not None else m[2], out[i])
            i += 1
            continue
        end = i + 1  # one past the block: the opening fence, its lines, the closing fence
        while end < len(lines) and code[end]:
            end += 1
            if _closes(lines, i, end - 1):
                break
        _block(lines, out, i, end)
        i = end
    return out


def _closes(lines: list[str], start: int, j: int) -> bool:
    """Whether line `j` closes the block opened at `start`."""
    opener, closer = _FENCE.match(lines[start]), _FENCE.match(lines[j])
    return (
        opener is not None
        and closer is not None
        and closer[2][0] == opener[2][0]
        and len(closer[2]) >= len(opener[2])
        and not lines[j][closer.end() :].strip()
    )


def _block(lines: list[str], out: list[str], start: int, end: int) -> None:
    """Rewrites the fenced block `lines[start:end]` into `out`, where it holds the markers."""
    opener = _FENCE.match(lines[start])
    if opener is None:
        return
    first = start + 1
    if first < end and (m := _FILENAME.fullmatch(lines[first])):
        out[start] = f"{opener[1]}{m[1].strip()}.ts" if m[1].strip() else ""
        out[first] = lines[start]
    switch = next((j for j in range(first, end) if lines[j].strip() == _SWITCH), None)
    if switch is not None:
        out[switch] = opener[1] + opener[2]
        for j in range(switch + 1, end):
            out[j] = ""
