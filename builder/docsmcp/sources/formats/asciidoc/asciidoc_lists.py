"""AsciiDoc lists (asciidoc.py reads the rest of a page): unordered (`*`, `-`), ordered (`.`,
`1.`, `a.`), description (`term::`, `;;`) and callout (`<1>`) lists, nested by marker as
Asciidoctor nests them (a marker not among the open lists' opens a list inside the item, blank
lines or not), with their `+` continuations and attached literal paragraphs. An item becomes a
markdown list item whose text and attached blocks are read as blocks (`ListReader.blocks`) and
indented under its marker; a description list item is `- **term**: text`.
"""

from __future__ import annotations

import re

from docsmcp.sources.formats.asciidoc.asciidoc_inline import Inline, plain, reduce
from docsmcp.sources.formats.asciidoc.asciidoc_lines import Attributes, kind, list_marker
from docsmcp.sources.formats.linemap import line_mark

Line = tuple[str, int]  # a line of the page and its 0-based line in the text converted
LIST_KINDS = ("list", "dlist", "callout")


class ListReader:
    """The list part of asciidoc._Reader (which gives `blocks`, `ctx` and `nesting`)."""

    ctx: Inline
    nesting: int

    def blocks(
        self, lines: list[Line], in_list: bool = False, stack: tuple[str, ...] = ()
    ) -> list[str]:
        raise NotImplementedError

    def _list(
        self, lines: list[Line], i: int, attributes: Attributes, stack: tuple[str, ...]
    ) -> tuple[list[str], int]:
        first = list_marker(lines[i][0])
        assert first is not None
        marker = first[0]
        start = attributes.named.get("start", "1")
        number = int(start) if start.isdigit() else 1
        items: list[str] = []
        while i < len(lines):
            found = list_marker(lines[i][0]) if kind(lines[i][0]) in LIST_KINDS else None
            if found is None or found[0] != marker:
                break
            end = self._item_end(lines, i, (*stack, marker))
            items.append(
                self._item(found, lines[i][1], lines[i + 1 : end], number, (*stack, marker))
            )
            number += 1
            i = end
            j = i
            while j < len(lines) and not lines[j][0].strip():
                j += 1
            if j < len(lines) and kind(lines[j][0]) in LIST_KINDS:
                nxt = list_marker(lines[j][0])
                if nxt is not None and nxt[0] == marker:
                    i = j
                    continue
            break
        return ["\n".join(items)], i

    def _item(
        self,
        found: tuple[str, str, str],
        number_line: int,
        rest: list[Line],
        n: int,
        stack: tuple[str, ...],
    ) -> str:
        marker, written, text = found
        head = ""
        if "\x00" in text:  # a description list's term
            term, _, text = text.partition("\x00")
            head = f"**{' '.join(reduce(term, self.ctx).split())}**"
        segment = ([(text, number_line)] if text.strip() else []) + rest
        self.nesting += 1
        try:
            inner = self.blocks(segment, in_list=True, stack=stack)
        finally:
            self.nesting -= 1
        if head:
            if inner and not re.match(r"^(\x01\d+\x01)?(`{3,}|[-|>*]|\d+\.)", inner[0]):
                head = f"{line_mark(number_line)}{head}: {inner[0]}"
                inner = inner[1:]
            else:
                head = line_mark(number_line) + head
            inner = [head, *inner]
        if marker == "<1>":
            bullet = f"{written if written != '.' else n}. "
        elif marker in ("1.", "a.", "i)") or marker.startswith("."):
            bullet = f"{n}. "
        else:
            bullet = "- "
        return _indent(bullet, "\n\n".join(inner))

    def tabs(self, lines: list[Line]) -> list[str] | None:
        """Asciidoctor Tabs (`[tabs]` on an example block of `Label::` items: Spring's,
        Couchbase's Java/Kotlin and Maven/Gradle tabs) as pymdownx content tabs (`=== "Java"`,
        the tab's blocks indented four columns), which dialects.py reads as tabs: a tab named
        for a language gets a chunk of its own. None when the block holds no such list."""
        i = next((k for k, (x, _) in enumerate(lines) if x.strip()), len(lines))
        first = (
            list_marker(lines[i][0]) if i < len(lines) and kind(lines[i][0]) == "dlist" else None
        )
        if first is None:
            return None
        marker = first[0]
        out: list[str] = []
        while i < len(lines):
            line, number = lines[i]
            found = list_marker(line) if kind(line) == "dlist" else None
            if found is None or found[0] != marker:
                if line.strip():
                    break
                i += 1
                continue
            end = self._item_end(lines, i, (marker,))
            term, _, text = found[2].partition("\x00")
            segment = ([(text, number)] if text.strip() else []) + lines[i + 1 : end]
            self.nesting += 1
            try:
                inner = self.blocks(segment, in_list=True, stack=(marker,))
            finally:
                self.nesting -= 1
            label = " ".join(plain(term, self.ctx).split()).replace('"', "'")
            body = "\n".join(f"    {x}" if x else "" for x in "\n\n".join(inner).split("\n"))
            out.append(f'{line_mark(number)}=== "{label}"\n\n{body}'.rstrip())
            i = end
        if i < len(lines):
            self.nesting += 1
            try:
                out.extend(self.blocks(lines[i:]))
            finally:
                self.nesting -= 1
        return out

    def _item_end(self, lines: list[Line], i: int, ancestors: tuple[str, ...]) -> int:
        """The line after the last one of the list item at `i` (its text, attached blocks and
        nested lists)."""
        j, in_text, attach = i + 1, True, False
        while j < len(lines):
            line = lines[j][0]
            k = kind(line)
            if k == "blank":
                in_text = False
                j += 1
            elif k in LIST_KINDS:
                found = list_marker(line)
                if found is not None and found[0] in ancestors:
                    return j
                if not (in_text or attach) and k == "dlist" and not _after_list(lines, j):
                    return j
                in_text, attach = True, False
                j += 1
            elif k == "continuation":
                attach, in_text = True, False
                j += 1
            elif in_text and k not in ("delimiter", "attributes"):
                j += 1
            elif attach or (k == "text" and line[:1] in " \t"):
                j = _block_end(lines, j)
                attach = False
            else:
                return j
        return j


def _after_list(lines: list[Line], j: int) -> bool:
    """Whether the line before `j` (past blank ones) is a list item or its text."""
    k = j - 1
    while k >= 0 and not lines[k][0].strip():
        k -= 1
    return k >= 0 and kind(lines[k][0]) in LIST_KINDS


def _block_end(lines: list[Line], j: int) -> int:
    """The line after the block starting at `j` (its attribute and title lines first)."""
    while j < len(lines) and kind(lines[j][0]) in ("attributes", "anchor", "title"):
        j += 1
    start = j
    if j < len(lines) and kind(lines[j][0]) == "delimiter":
        opening = lines[j][0].rstrip()
        close = "```" if opening.startswith("```") else opening
        j += 1
        while j < len(lines) and lines[j][0].rstrip() != close:
            j += 1
        return min(j + 1, len(lines))
    while j < len(lines) and lines[j][0].strip():
        if j > start and kind(lines[j][0]) in ("continuation", *LIST_KINDS):
            break  # (a paragraph in a list ends at the next item)
        j += 1
    return j


def _indent(marker: str, body: str) -> str:
    pad = " " * len(marker)
    lines = body.split("\n") if body else [""]
    return (marker + lines[0]).rstrip() + "".join(
        "\n" + (pad + line if line else "") for line in lines[1:]
    )
