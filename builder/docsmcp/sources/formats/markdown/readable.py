"""The text a reader sees: JSX components, inline HTML and pymdownx blocks reduced to their text
before parsing (issue 27, *Index what a reader sees*).

Like every pre-parse pass (dialects.py, mdx.py) it keeps the number of lines, so markdown-it's
line maps and the chunks' `source.lines` still point at the file's own lines. It acts on the
display lines (what `get_doc`, `get_page` and snippets show) and the parse lines (what is
indexed) alike, with two differences: a line break the markup asks for (`<br>`, the end of a
`<p>` or `<div>`) becomes a newline inside the display line (a space in a table row, and in the
parse lines, whose line count markdown-it must see unchanged), and entities (`&quot;`) are
decoded in the display lines only (decoded in the parse lines, `&lt;T&gt;` would become a tag).

- JSX components (`.mdx`: any tag whose name starts with a capital or holds a dot; any file: such
  a tag written self-closing, as VitePress' Vue components are, `<Badge text="optional" />`)
  and HTML elements (every file: the known element names only, so `<your-token>` in a `.md`
  stays) lose their tags; their text children stay. String props that are prose stay as text in
  the tag's place (`title`, `description`, `label`, `alt`, `caption`, `text`, ...; a field
  component's `name`/`type`, `<ResponseField name="id" type="string" required>` ->
  `id (string, required)`,
  `<Param name="options" type="Object" optional>` -> `options (Object, optional)`);
  `className`, `style`, `href` and other attribute soup go. `<script>`, `<style>` and `<svg>`
  go with their content, comments (`<!-- -->`, `{/* */}`) too (where they end: raw_blocks.py,
  CommonMark's raw HTML blocks over blank lines included). Elements a rendered page hides
  (`hidden`, `aria-hidden="true"`, `display: none`: hiding.py) go first, with their content
  and nested elements (hidden_elements.py).
- JSX expressions `{...}` in `.mdx` text go, except a string literal (`{' '}`, `{"x"}`).
- Lines inside a component are dedented relative to its outermost tag: MDX does not read
  indentation as code, markdown-it would (component_indent.py).
- pymdownx blocks: `/// note | Title` becomes the label `Note: Title` (as `!!! note` does in
  dialects.py), `/// tab | Python 3.10+` the label `Python 3.10+`; `///` closers and the block's
  indented option lines (`    type: warning`) become blank.

Fenced code and inline code spans are never touched. Every scan is bounded: a tag, expression or
comment that does not close within `MAX_SPAN` characters is left as text.
"""

from __future__ import annotations

import bisect
import html
import re
from dataclasses import dataclass
from itertools import accumulate

from docsmcp.sources.formats.html.html_table import TAGS as TABLE_TAGS
from docsmcp.sources.formats.html.html_table import Rows
from docsmcp.sources.formats.markdown.component_indent import dedent_components, width
from docsmcp.sources.formats.markdown.component_props import HTML_ELEMENTS, props_text
from docsmcp.sources.formats.markdown.dialects import EXPLICIT_ID, HEADING
from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.formats.markdown.hidden_elements import drop_hidden
from docsmcp.sources.formats.markdown.hiding import UNSEEN_CONTENT
from docsmcp.sources.formats.markdown.inline_tags import (
    MAX_SPAN,
    STRING_EXPR,
    close_brace,
    parse_tag,
)
from docsmcp.sources.formats.markdown.pymdownx_blocks import block_labels
from docsmcp.sources.formats.markdown.raw_blocks import RAW_BLOCK, closing_tag, raw_block_end

_FAIL_BUDGET = 1_000_000  # characters failed searches may read in a file (beyond 4 per char)
_BREAK = "\x1e"  # a line break the markup asks for, inside one line (a newline at the end)
_TRIGGER = re.compile(r"[<`{&]")
_MD_TRIGGER = re.compile(r"[<&]")
_MDX_TRIGGER = re.compile(r"[<&{]")
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_BLANK = re.compile(r"[ \t]*")
# The end of a custom element, or of a component a `.md` page closes (dumi's and VitePress'
# `<Badge>2.2.0+</Badge>` in headings: a placeholder `<Name>` is never closed either).
_CUSTOM_CLOSE = re.compile(r"</([a-z][a-z0-9]*(?:-[a-z0-9]*)+|[A-Z][A-Za-z0-9]*)\s*>")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_HEADING_AT = re.compile(r"[ ]{0,3}#{1,6}[ \t]")
_HEADING_SPACES = re.compile(r"([ ]{0,3}#{1,6})[ \t]{2,}")
_SPACES = re.compile(r"(?<=\S)[ \t]{2,}(?=\S)")

_VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
# Elements whose end (or start) is a line break to a reader.
_BLOCK = frozenset(
    """address article aside blockquote body caption center details dialog div dl dd dt fieldset
    figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary
    table tbody tfoot thead tr ul""".split()
)
# A `<template>` with a Vue directive (`<template #title>`, `v-slot:lead`, `v-if`) is slot
# content Vue renders (VitePress pages), not HTML's inert `<template>`: its text is kept.
_VUE_DIRECTIVE = re.compile(r"#|v-(?:slot|if|else|else-if|for)\b")


def _rendered_template(name: str, props: dict[str, str | None]) -> bool:
    return name == "template" and any(_VUE_DIRECTIVE.match(key) for key in props)


def _is_component(
    name: str, mdx: bool, self_closing: bool = False, closed: frozenset[str] = frozenset()
) -> bool:
    """Whether the tag `name` is markup to reduce (not a placeholder like `<your-token>`): an
    HTML element, a component of an MDX file, or a self-closing capitalised tag anywhere
    (`<Badge type="info" text="optional" />`, the Vue components of VitePress' `.md` pages: a
    placeholder is never written `<Name ... />`), or a custom element the file closes
    (`closed`: React Router's `<docs-info>…</docs-info>` callouts, 108 tags on 49 pages; a
    placeholder is never closed)."""
    if name.lower() in HTML_ELEMENTS or name in closed:
        return True
    return (mdx or self_closing) and (name[0].isupper() or "." in name)


class _Scan:
    """One run of non-code lines, reduced: `out` keeps every newline of the input, so it splits
    into as many lines."""

    def __init__(
        self,
        text: str,
        mdx: bool,
        first_line: int,
        stack: list[tuple[str, int]],
        depth_at: dict[int, int],
        tag_lines: set[int],
        budget: list[int],
        markup: list[tuple[int, str, str]],
        closed: frozenset[str] = frozenset(),
    ) -> None:
        self.s = text
        self.closed = closed  # the custom elements the file closes (_custom_closed)
        # Characters that failed searches (an unclosed tag, brace or comment) may still read
        # in this file, shared by its runs: past it, `<`, `{` and backticks are plain text, so
        # tag soup costs linear time, not one bounded search per `<`.
        self.budget = budget
        self.markup = markup  # (line, "href" | "id" | "name", value) of the tags dropped
        self.line_start = 0  # where the line of the last position asked about starts
        self.seen = 0  # that position
        self.mdx = mdx
        self.out: list[str] = []
        self.line = first_line
        # Open components, (name, line), across the file's runs of non-code lines.
        self.stack = stack
        self.depth_at = depth_at  # line -> the line of the outermost component open at it
        self.tag_lines = tag_lines  # lines starting with a tag
        self.unclosed: dict[str, int] = {}  # backtick run -> where no closer was found after
        self.rows = Rows(_BREAK)  # HTML tables as pipe rows (html_table.py)
        # Newlines inside a table, put after it (NestJS writes a `<td>` a line: rows read `|`,
        # `get()`, `|`); a blank line ends an HTML block, and so the deferring.
        self.deferred = 0

    def emit_skipped(self, a: int, b: int) -> None:
        n = self.s.count("\n", a, b)
        if n:
            self._newlines(n, _BLANK_LINE.search(self.s, a, b) is not None)
            self._lines(n)

    def _newlines(self, n: int, blank: bool) -> None:
        """Emits `n` newlines, after an open table's end unless a blank line is among them."""
        if self.rows.tables and not blank:
            self.deferred += n
            self.out.append(" ")
            return
        self.out.append("\n" * (n + self.deferred))
        self.deferred = 0

    def _lines(self, n: int) -> None:
        for _ in range(n):
            self.line += 1
            if self.stack:
                self.depth_at[self.line] = self.stack[0][1]

    def at_line_start(self, i: int) -> bool:
        """Whether only blanks precede `i` on its line (positions asked about only grow, so
        each character is searched for a newline once)."""
        s = self.s
        start = self.seen if i >= self.seen else 0
        nl = s.rfind("\n", start, i)
        if nl >= 0 or start == 0:
            self.line_start = nl + 1
        self.seen = i
        return _BLANK.fullmatch(s, self.line_start, i) is not None

    def failed(self, i: int, reached: int) -> int:
        """Charge a search that read from `i` to `reached` in vain; `s[i]` reads as text."""
        self.budget[0] -= max(1, reached - i)
        return self._literal(i)

    def run(self) -> str:
        s = self.s
        i = 0
        n = len(s)
        while i < n:
            m = _TRIGGER.search(s, i)
            if m is None:
                self._text(s[i:])
                break
            k = m.start()
            if k > i:
                self._text(s[i:k])
            i = self._special(k)
            if self.deferred and not self.rows.tables:
                self.out.append("\n" * self.deferred)  # (after the table that closed)
                self.deferred = 0
        self.out.append("\n" * self.deferred)
        return "".join(self.out)

    def _text(self, t: str) -> None:
        nl = t.count("\n")
        if nl and self.rows.tables and not _BLANK_LINE.search(t):
            self.out.append(t.replace("\n", " "))
            self.deferred += nl
        else:
            self.out.append(t)
            if nl and self.deferred:
                self.out.append("\n" * self.deferred)
                self.deferred = 0
        if nl:
            self._lines(nl)

    def _special(self, i: int) -> int:
        """Handle the trigger character at `i`; returns where to go on."""
        s = self.s
        c = s[i]
        if self.budget[0] <= 0 and c != "&":
            return self._literal(i)
        if c == "`":
            j = i
            while j < len(s) and s[j] == "`":
                j += 1
            run = j - i
            if self.unclosed.get(s[i:j], len(s)) > i:
                close = self._code_close(j, run)
                if close >= 0:
                    self._text(s[i:close])
                    return close
                self.unclosed[s[i:j]] = i
                self.budget[0] -= min(len(s), j + MAX_SPAN) - j
            self._text(s[i:j])
            return j
        if c == "&":
            e = _ENTITY.match(s, i)
            if e is None:
                self._text("&")
                return i + 1
            self.out.append(e.group(0))  # decoded in the display lines later
            return e.end()
        if c == "{":
            return self._expression(i) if self.mdx else self._literal(i)
        return self._tag(i)

    def _literal(self, i: int) -> int:
        self._text(self.s[i])
        return i + 1

    def _code_close(self, j: int, run: int) -> int:
        """End of the backtick run of exactly `run` closing a code span opened before `j`."""
        s = self.s
        k = j
        limit = min(len(s), j + MAX_SPAN)
        while True:
            k = s.find("`" * run, k, limit)
            if k < 0:
                return -1
            e = k + run
            if (k == 0 or s[k - 1] != "`") and (e >= len(s) or s[e] != "`"):
                return e
            while k < len(s) and s[k] == "`":
                k += 1

    def _expression(self, i: int) -> int:
        s = self.s
        end = close_brace(s, i)
        if end < 0:
            return self.failed(i, -1 - end)
        if EXPLICIT_ID.fullmatch(s, i, end) and self._ends_heading(i, end):
            # `## Install {#setup}` (dialects.py writes `{/*setup*/}` and `{ #setup }` so too):
            # an MDX heading keeps its id, though other `{...}` in MDX text are expressions.
            self._text(s[i:end])
            return end
        lit = STRING_EXPR.fullmatch(s, i, end)
        if lit:
            self._text(next(g for g in lit.groups() if g is not None))
        else:
            self.emit_skipped(i, end)
        return end

    def _ends_heading(self, i: int, end: int) -> bool:
        """Whether `s[i:end]` ends a line that is an ATX heading."""
        s = self.s
        stop = s.find("\n", end)
        stop = len(s) if stop < 0 else stop
        return (
            not s[end:stop].strip() and HEADING.match(s[s.rfind("\n", 0, i) + 1 : stop]) is not None
        )

    def _tag(self, i: int) -> int:
        s = self.s
        for opener, closer in (("<!--", "-->"), ("<?", "?>")):  # a comment, an instruction
            if s.startswith(opener, i):
                end = s.find(closer, i + len(opener), i + MAX_SPAN)
                if end < 0:
                    return self.failed(i, min(len(s), i + MAX_SPAN))
                self.emit_skipped(i, end + len(closer))
                return end + len(closer)
        tag = parse_tag(s, i)
        if isinstance(tag, int):
            return self.failed(i, tag)
        end, name, closing, self_closing, props, _ = tag
        if name and not _is_component(name, self.mdx, self_closing, self.closed):
            return self._literal(i)
        low = name.lower()
        if self.at_line_start(i):
            self.tag_lines.add(self.line)
        unseen = name in UNSEEN_CONTENT and not _rendered_template(name, props or {})
        if unseen and not closing and not self_closing:
            close = closing_tag(name).search(s, end, i + MAX_SPAN)
            if close is not None:
                self.emit_skipped(i, close.end())
                return close.end()
            self.budget[0] -= min(len(s), i + MAX_SPAN) - end
        text = "" if closing else props_text(name, props)
        if text and self_closing and not self.mdx and low not in HTML_ELEMENTS:
            # A Vue component in a heading (`### <Badge text="required" /> username`): VitePress
            # leaves it out of the heading's anchor and outline, and so does the id here.
            text = "" if _HEADING_AT.match(s, self.line_start) else text
        for key in ("href", "id", "name") if props and not closing else ():
            value = props.get(key)
            if value and (key != "name" or name == "a"):  # (a field's name is no anchor)
                # (the line its text shows on: a table's first, its newlines deferred)
                self.markup.append((self.line - self.deferred, key, value))
        if text and end < len(s) and not s[end].isspace():
            text += " "  # `<Card title="X">Body` reads `X Body`
        table = self.rows.tag(low, closing) if low in TABLE_TAGS else None
        if table is not None:
            text = table
        elif self.rows.in_cell() and (name in ("br", "li") or name in _BLOCK):
            text = " "  # (the cell's row stays one line)
        elif name == "li" and not closing:
            text = _BREAK + "- " + text
        elif name == "br" or name in _BLOCK:
            text = _BREAK + text if not closing else text + _BREAK
        elif name in ("td", "th") and closing:
            text = " "  # `<td>a</td><td>b</td>` reads `a b`
        if (
            text
            and table is None
            and not closing
            and not self.at_line_start(i)
            and s[i - 1 : i] not in (" ", "")
        ):
            text = " " + text if text[0] != _BREAK else text
        self.out.append(text)
        self.emit_skipped(i, end)
        if name and low not in _VOID and not self_closing:
            if closing:
                names = [n for n, _ in self.stack]
                if name in names:
                    del self.stack[len(names) - 1 - names[::-1].index(name) :]
            elif len(self.stack) < 200:
                self.stack.append((name, self.line))
        return end


def _finish(line: str, display: bool) -> str:
    """A reduced line's breaks: newlines in a display line (a space in a table row and in the
    parse lines), blank runs collapsed; entities decoded in display lines."""
    if display and "&" in line:
        line = _ENTITY.sub(lambda m: html.unescape(m.group(0)).replace("\xa0", " "), line)
    if _BREAK not in line:
        return line
    if not display or line.lstrip(" \t").startswith("|"):
        parts = line.split(_BREAK)  # (str methods: a regex with `[ \t]*` first is quadratic)
        last = len(parts) - 1
        return " ".join(
            p.strip(" \t") if 0 < k < last else p.rstrip(" \t") if k == 0 else p.lstrip(" \t")
            for k, p in enumerate(parts)
            if p.strip(" \t") or k in (0, last)
        ).rstrip()
    # (a table's row starts at the margin, whatever blanks its tags had before them; a line of
    # a union type, `  | JSONRPCRequest` in the MCP schema, keeps its indent: no `|` ends it)
    parts = [p.strip() if _is_row(p) else p.rstrip() for p in line.split(_BREAK)]
    out: list[str] = []
    for p in parts:
        if p.strip() or (out and out[-1]):
            out.append(p if p.strip() else "")
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)


def _is_row(part: str) -> bool:
    """Whether a display line's part is a pipe row of a table (html_table.py writes `| a | b |`)."""
    stripped = part.strip()
    return len(stripped) > 1 and stripped[0] == "|" and stripped[-1] == "|"


def reduce(
    display: list[str], parse: list[str], mdx: bool
) -> tuple[list[str], list[str], tuple[tuple[int, str, str], ...]]:
    """The display and parse lines of a file with markup reduced to its text (same count), and
    the links and anchors of the tags dropped from the parse lines: (line, `href`, target) and
    (line, `id` or `name`, anchor), which the cross-references read (xref.py)."""
    shown = _reduce(display, mdx)
    # Mostly the same lines (they differ at explicit ids and admonition labels): read once.
    parsed = shown if parse == display else _reduce(parse, mdx)
    out = list(shown.lines)
    for k in shown.finish:
        out[k] = _finish(out[k], True)
    indexed = list(parsed.lines)
    for k in parsed.finish:
        indexed[k] = _finish(indexed[k], False)
    for i in parsed.labels:
        # A label ends its line within the paragraph that follows (no lines may be added).
        if indexed[i] and i + 1 < len(indexed) and indexed[i + 1].strip():
            indexed[i] += "\\"
    return out, indexed, parsed.markup


@dataclass(frozen=True)
class _Reduced:
    lines: list[str]  # the lines, markup gone, breaks still `_BREAK`, entities not decoded
    finish: list[int]  # the lines `_finish` must still see
    labels: tuple[int, ...]  # lines that became a block's label
    markup: tuple[tuple[int, str, str], ...] = ()  # links and anchors of dropped tags


def _reduce(lines: list[str], mdx: bool) -> _Reduced:
    text = "\n".join(lines)
    if not ("<" in text or "&" in text or "///" in text or (mdx and "{" in text)):
        return _Reduced(lines, [], ())  # most files of a reference site: nothing to reduce
    # Elements a rendered page hides go first, with their content (issue 31).
    visible, markup = drop_hidden(lines, mdx)
    if visible is not lines:
        lines, text = visible, "\n".join(visible)
    code = fenced_lines(lines)
    out = list(lines)
    labels = block_labels(lines, code) if "///" in text else {}
    for i, label in labels.items():
        out[i] = label
    depth_at: dict[int, int] = {}
    tag_lines: set[int] = set()
    stack: list[tuple[str, int]] = []
    budget = [_FAIL_BUDGET + 4 * len(text)]
    read: list[tuple[int, int]] = []  # the lines scans read
    starts = [0, *accumulate(len(line) + 1 for line in lines)]
    trigger = _MDX_TRIGGER if mdx else _MD_TRIGGER
    closed = _custom_closed(text)
    i = 0
    n = len(out)
    while i < n:
        if not stack:
            # Outside components, go straight to the next line holding markup (most lines of
            # a reference site hold none) and back to the start of its paragraph or run.
            m = trigger.search(text, starts[i])
            if m is None:
                break
            k = bisect.bisect_right(starts, m.start()) - 1
            if code[k]:
                while k < n and code[k]:
                    k += 1
                i = k
                continue
            while k > i and not code[k - 1] and (mdx or out[k - 1].strip()):
                k -= 1
            i = k
        # What one scan reads: a run of non-code lines; in a .md file a paragraph (no tag or
        # code span crosses a blank line there).
        if code[i] or (not mdx and not out[i].strip()):
            if stack:  # a code block inside a component is dedented with it
                depth_at[i] = stack[0][1]
            i += 1
            continue
        j = i
        while j < n and not code[j] and (mdx or out[j].strip()):
            j += 1
        k = i
        while not mdx and k < j:
            # CommonMark's raw HTML blocks run to their closing tag, blank lines and all
            # (VitePress' `<script setup>` holds a page's imports and code; a comment), also
            # one opening within the paragraph (OpenTelemetry's benchmark pages: two
            # `<script src>` lines, then a 6 KB script shown as text)
            if out[k].lstrip(" ")[:1] == "<" and (m := RAW_BLOCK.match(out[k])):
                j = raw_block_end(out, code, k, m.group(1).lower(), j)
            k += 1
        run = "\n".join(out[i:j])
        if stack or _may_reduce(run, mdx):
            scan = _Scan(run, mdx, i, stack, depth_at, tag_lines, budget, markup, closed)
            if stack:
                depth_at[i] = stack[0][1]
            reduced = scan.run().split("\n")
            assert len(reduced) == j - i  # every newline of the input is kept
            out[i:j] = reduced
            read.append((i, j))
        i = j
    if depth_at:
        dedent_components(lines, out, code, depth_at, tag_lines)
        read = [(0, n)]  # dedented lines may be anywhere
    finish: list[int] = []
    for k in (k for a, b in read for k in range(a, b)):
        line = out[k]
        if code[k] or (line == lines[k] and "&" not in line):
            continue
        if line != lines[k]:
            if k in tag_lines and (k in depth_at or width(lines[k]) < 4):
                line = line.lstrip(" \t")  # what stood in a tag's place starts the line
            if "`" not in line:
                line = _SPACES.sub(" ", line)  # where dropped markup stood between words
            elif m := _HEADING_SPACES.match(line):  # (`###  name`: a heading's first tag gone)
                line = m.group(1) + " " + line[m.end() :]
            out[k] = line.rstrip()
        finish.append(k)
    return _Reduced(out, finish, tuple(labels), tuple(markup))


def _custom_closed(text: str) -> frozenset[str]:
    """The custom elements (HTML's valid names: a lower-case letter first, a hyphen within)
    and components (a capital first) that `text` closes somewhere: their tags are markup,
    `<your-token>` alone stays text."""
    if "</" not in text:
        return frozenset()
    return frozenset(m.group(1) for m in _CUSTOM_CLOSE.finditer(text))


def _may_reduce(text: str, mdx: bool) -> bool:
    return "<" in text or "&" in text or (mdx and "{" in text)
