"""Elements a rendered page hides, dropped with their content from markdown and MDX before
readable.py reduces the rest (issue 31: text hidden from people reaches agents verbatim).

The rule is hiding.py's, the one saved HTML pages follow: `hidden`, `aria-hidden="true"`, an
inline `display: none` / `visibility: hidden` (JSX spellings too: `hidden={true}`,
`style={{display: 'none'}}`); a tab panel stays. It applies to any tag name, HTML element,
component or custom element (`<x-note hidden>` is hidden in a browser as well).

- The element goes from its start tag to its matching end tag, same-name tags counted
  (`<div hidden><div>x</div>evil</div>` goes whole), across blank lines and code blocks (a
  `<div hidden>` HTML block holding markdown paragraphs hides them all in a browser). A void
  or self-closing element goes alone (`<img hidden alt="..">` takes its alt text with it).
- An element with no end tag hides the rest of the file: an unclosed element stays open to
  its parent's end in a browser (we do not track parents), and an MDX page with one does not
  compile. So no padding, however long, lets hidden text through; there is no span bound on
  the search, and it is linear all the same: what the search reads is dropped, and the scan
  resumes after it.
- Tags inside fenced code, inline code spans and comments (`<!-- -->`, MDX's `{/* */}`) are
  not tags: a page that shows `<div hidden>` in a fence keeps it, a `</div>` in a code span
  closes nothing, a commented-out `<div hidden>` hides nothing.
- Lines are kept (a dropped line becomes blank, dropped text inside a line goes with the
  blanks around it), so line maps still point at the file's lines. The `id` (and an `<a>`'s
  `name`) of a hidden element's start tag are kept as anchors: links to it still resolve.
- Tag reads that fail are charged to a budget like readable.py's: past it, tag soup is text.
"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate

from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.formats.markdown.hiding import UNSEEN_CONTENT, hides, tag_attrs
from docsmcp.sources.formats.markdown.inline_tags import MAX_SPAN, parse_tag

_FAIL_BUDGET = 1_000_000  # characters failed reads may cost in a file (beyond 4 per char)
# A file without these words holds no hidden element, unless they are spelled with character
# references or CSS escapes (`style="&#100;isplay:none"`, `displa\79 :none`).
_MAY_HIDE = ("hidden", "display", "visibility", "&#", "\\")
# The next `<` that may start a hidden element or a comment: most tags hide nothing, and one
# with no hiding word, no `{`, `&` or `\` and no `<`/`>` inside quotes is passed over in the
# regex engine (what a start tries stops at the next `<` or `>`: linear).
_NO_WORD = r"h(?!idden)|d(?!isplay)|v(?!isibility)"  # (a lookahead at these letters only)
_NOT = r"<>hdv&\\"  # (besides `{`, `}` and quotes outside quotes)
_QUOTED = rf"""\"(?:[^"{_NOT}]|{_NO_WORD})*"|'(?:[^'{_NOT}]|{_NO_WORD})*'"""
_PLAIN_TAG = rf"""(?:[^"'{{}}{_NOT}]|{_NO_WORD}|{_QUOTED})*>"""
_NEXT = re.compile(rf"<(?:!--|(?!{_PLAIN_TAG}))|\{{/\*", re.IGNORECASE)
_TOKEN = re.compile(r"<(?:(/?)([A-Za-z][\w.:-]*)|!--)|\{/\*")
_CLOSE_END = re.compile(r"\s*>")
_CODE_RUN = re.compile(r"`+")
_VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
Anchor = tuple[int, str, str]  # (line, "id" | "name", value), as readable.py's markup


def drop_hidden(lines: list[str], mdx: bool) -> tuple[list[str], list[Anchor]]:
    """`lines` without the elements a rendered page hides (as many lines), and the anchors of
    the elements dropped."""
    text = "\n".join(lines)
    if "<" not in text:
        return lines, []
    low = text.lower()
    if not any(word in low for word in _MAY_HIDE):
        return lines, []
    first = _NEXT.search(text)
    if first is None:  # (every tag passed over: no code to find)
        return lines, []
    starts = [0, *accumulate(len(line) + 1 for line in lines)]
    skips = _Skips(_code_ranges(text, lines, fenced_lines(lines), starts, mdx))
    walk = _Walk(text, skips, mdx)
    walk.run(first.start())
    if not walk.spans:
        return lines, []
    out = list(lines)
    cuts: dict[int, list[tuple[int, int]]] = {}  # line -> the column ranges dropped from it
    for a, b in walk.spans:
        la = bisect.bisect_right(starts, a) - 1
        lb = bisect.bisect_right(starts, b) - 1
        if la == lb:
            cuts.setdefault(la, []).append((a - starts[la], b - starts[lb]))
            continue
        cuts.setdefault(la, []).append((a - starts[la], len(lines[la])))
        out[la + 1 : lb] = [""] * (lb - la - 1)
        cuts.setdefault(lb, []).append((0, b - starts[lb]))
    for k, ranges in cuts.items():
        line, kept, prev = lines[k], [], 0
        for ca, cb in ranges:
            kept.append(line[prev:ca])
            prev = cb
        kept.append(line[prev:])
        out[k] = _rejoin(kept)
    anchors = [(bisect.bisect_right(starts, p) - 1, key, value) for p, key, value in walk.anchors]
    return out, anchors


# Comments, and the start of an element whose content no reader sees (hiding.UNSEEN_CONTENT).
_UNSEEN = re.compile(rf"<!--|\{{/\*|<({'|'.join(sorted(UNSEEN_CONTENT))})\b", re.IGNORECASE)


def drop_unseen(lines: list[str], mdx: bool) -> list[str]:
    """`lines` (as many) without hidden elements, comments (`<!-- -->`, MDX's `{/* */}`) and
    the content of the elements no reader sees (`<script>`, `<style>`, `<svg>`, ...): for a file
    indexed as plain text after its parse budget (chunk.parse_plain), whose markup readable.py
    never reduces, so that padding a page past the budget shows no agent what readers never
    see. Outside fenced code; linear (each search starts where the last ended); an unclosed
    one runs to the end of the file, as in a browser."""
    lines, _ = drop_hidden(lines, mdx)
    text = "\n".join(lines)
    if "<" not in text and "{/*" not in text:
        return lines
    fenced = fenced_lines(lines)
    starts = [0, *accumulate(len(line) + 1 for line in lines)]
    low = text.lower()
    pieces: list[str] = []
    kept = at = 0
    while (m := _UNSEEN.search(text, at)) is not None:
        line = bisect.bisect_right(starts, m.start()) - 1
        if fenced[line]:
            at = starts[line + 1]  # (the rest of a code line is code)
            continue
        name = m.group(1)
        closer = f"</{name.lower()}" if name else "-->" if m.group(0) == "<!--" else "*/}"
        end = low.find(closer, m.end())
        stop = len(text) if end < 0 else end + len(closer)
        if name and end >= 0:
            gt = text.find(">", stop)
            stop = len(text) if gt < 0 else gt + 1
        pieces += [text[kept : m.start()], "\n" * text.count("\n", m.start(), stop)]
        kept = at = stop
    pieces.append(text[kept:])
    return "".join(pieces).split("\n")


def _rejoin(kept: list[str]) -> str:
    """One line's text around the elements dropped from it (`kept`: what is left between
    them): the blanks around a run of dropped elements become one, none where neither side had
    one (`foo<b hidden>x</b>bar` reads `foobar`, as shown); the indentation before stays, the
    blanks at the end go."""
    out: list[str] = []
    cur, k, n = kept[0], 1, len(kept)
    while k < n:
        left = cur.rstrip(" \t")
        blank = len(left) != len(cur)
        seg = kept[k]
        while not seg.strip(" \t") and k + 1 < n:  # only blanks between two: one run
            blank = blank or bool(seg)
            k += 1
            seg = kept[k]
        right = seg.lstrip(" \t")
        blank = blank or len(right) != len(seg)
        if not right:
            sep = ""
        elif not left and not out:
            sep = cur  # (the indentation)
        else:
            sep = " " if blank else ""
        out += (left, sep)
        cur = right
        k += 1
    out.append(cur)
    return "".join(out)


class _Skips:
    """Sorted, disjoint character ranges that hold no tags (code); asked about positions that
    only grow, so each range is passed once."""

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        self.ranges = ranges
        self.k = 0

    def end_of(self, p: int) -> int:
        """The end of the range holding `p`, else -1."""
        r = self.ranges
        while self.k < len(r) and r[self.k][1] <= p:
            self.k += 1
        if self.k < len(r) and r[self.k][0] <= p:
            return r[self.k][1]
        return -1


def _code_ranges(
    text: str, lines: list[str], code: list[bool], starts: list[int], mdx: bool
) -> list[tuple[int, int]]:
    """Fenced code blocks and inline code spans, as character ranges. Code spans are paired
    as readable.py's scan pairs them: within a paragraph of a .md file (a run of non-code lines
    of an .mdx), a run of backticks closed by the next run of the same length."""
    out: list[tuple[int, int]] = []
    k, n = 0, len(lines)
    while k < n:
        if code[k]:
            a = k
            while k < n and code[k]:
                k += 1
            out.append((starts[a], starts[k]))
        elif not mdx and not lines[k].strip():
            k += 1
        else:
            a = k
            while k < n and not code[k] and (mdx or lines[k].strip()):
                k += 1
            out.extend(_code_spans(text, starts[a], starts[k]))
    return out


def _code_spans(text: str, a: int, b: int) -> list[tuple[int, int]]:
    runs = [(m.start(), m.end()) for m in _CODE_RUN.finditer(text, a, b)]
    if len(runs) < 2:
        return []
    following = [-1] * len(runs)  # the next run of the same length
    last: dict[int, int] = {}
    for r in range(len(runs) - 1, -1, -1):
        size = runs[r][1] - runs[r][0]
        following[r] = last.get(size, -1)
        last[size] = r
    out: list[tuple[int, int]] = []
    r = 0
    while r < len(runs):
        c = following[r]
        if c >= 0 and runs[c][0] - runs[r][1] < MAX_SPAN:
            out.append((runs[r][0], runs[c][1]))
            r = c + 1
        else:
            r += 1
    return out


class _Walk:
    """One forward pass over a file's tags: the hidden elements' spans and anchors."""

    def __init__(self, text: str, skips: _Skips, mdx: bool) -> None:
        self.s = text
        self.skips = skips
        self.mdx = mdx
        self.budget = _FAIL_BUDGET + 4 * len(text)
        self.spans: list[tuple[int, int]] = []
        self.anchors: list[tuple[int, str, str]] = []

    def run(self, i: int) -> None:
        s = self.s
        while self.budget > 0:
            m = _NEXT.search(s, i)
            if m is None:
                return
            i = m.start()
            end = self.skips.end_of(i)
            if end > i:
                i = end
            elif s.startswith(("<!--", "{/*"), i):
                i = self._comment(i)
            else:
                i = self._tag(i)

    def _comment(self, i: int) -> int:
        """Past the comment at `i`, `<!-- -->` or (in MDX) `{/* */}`; one that does not close
        within MAX_SPAN is text."""
        if self.s[i] == "{" and not self.mdx:
            return i + 1
        html = self.s[i] == "<"
        end = self.s.find("-->" if html else "*/}", i + 4 if html else i + 3, i + MAX_SPAN)
        if end < 0:
            self.budget -= min(len(self.s), i + MAX_SPAN) - i
            return i + 1
        return end + 3

    def _tag(self, i: int) -> int:
        tag = parse_tag(self.s, i)
        if isinstance(tag, int):
            self.budget -= max(1, tag - i)
            return i + 1
        end, name, closing, self_closing, props, exprs = tag
        if closing or not props or not hides(tag_attrs(props, exprs, self.mdx)):
            return end
        for key in ("id", "name") if name == "a" else ("id",):
            if props.get(key):
                self.anchors.append((i, key, props[key] or ""))
        if not (self_closing or name.lower() in _VOID):
            end = self._end_tag(end, name)
        self.spans.append((i, end))
        return end

    def _end_tag(self, i: int, name: str) -> int:
        """Past the end tag matching a start tag `name` that ends at `i` (same-name tags
        counted; in a .md file names are HTML's, case-blind), else the end of the text."""
        s = self.s
        same = name if self.mdx else name.lower()
        depth = 1
        while True:
            m = _TOKEN.search(s, i)
            if m is None:
                return len(s)
            p = m.start()
            end = self.skips.end_of(p)
            if end > p:
                i = end
                continue
            if m.group(2) is None:
                i = self._comment(p)
                continue
            i = m.end()
            is_same = (m.group(2) if self.mdx else m.group(2).lower()) == same
            if m.group(1):
                c = _CLOSE_END.match(s, i) if is_same else None
                if c is not None:
                    depth -= 1
                    if depth == 0:
                        return c.end()
                    i = c.end()
                continue
            if self.budget <= 0:
                depth += is_same  # (no reads left: an open tag as far as can be told)
                continue
            # Every start tag is read whole: a `</div>` in an attribute value closes nothing.
            tag = parse_tag(s, p)
            if isinstance(tag, int):
                self.budget -= max(1, tag - p)
            else:
                depth += is_same and not tag[3]
                i = tag[0]
