"""Writerside's XML topics (`.topic` files, and the `<snippet>`s other topics include) rendered as
the markdown their page shows.

A topic is `<topic title="…" id="…">` holding `<chapter title id>` sections (nested: one heading
level deeper each, with their id as the heading's `{#id}`), paragraphs `<p>`, lists `<list>`/`<li>`,
`<code-block lang>` (its text, CDATA or not, dedented), callouts `<note>`/`<tip>`/`<warning>`
(`> Note: …`), tab sets (`<tab title>`: the title a label line over its content), procedures
(`<procedure title>` of `<step>`s: a numbered list), definition lists (`<def title>`), tables,
`<compare>` (its two blocks under their titles), `<tldr>` and the start page's cards. Inline:
`<code>`, `<path>`, `<shortcut>` as code spans, `<control>`/`<b>` bold, `<emphasis>`/`<i>`
italic, `<a href anchor>` a link (`<a href="x.md"/>` shows the page's title, as MyST's empty
links do), `<img>` nothing. What only the site's chrome shows (`<link-summary>`,
`<web-summary>`, `<card-summary>`, `<show-structure>`, labels, `<seealso>` categories' names)
leaves nothing; `<var name value/>` defines a variable (substituted before: writerside.py).

Each output line carries the 0-based line of the source element it comes from. The parser is
expat (no DTD or external entity is read; the html-entities DTD's names are unescaped first);
a file that is no well-formed XML reads as its text with the tags removed, with its error.
"""

from __future__ import annotations

import html
import re
import textwrap
from dataclasses import dataclass, field
from xml.parsers import expat

# Hostile nesting is flattened at this depth (each level is one Python frame here).
MAX_DEPTH = 100
# XML's own entities stay for expat; the html-entities DTD's (`&nbsp;`, `&mdash;`) are the
# character they name, which expat would refuse as undefined.
_ENTITY = re.compile(r"&(?!(?:lt|gt|amp|quot|apos);)(#?\w+);")
_DOCTYPE = re.compile(r"<!DOCTYPE[^>\[]*(?:\[[^\]]*\])?\s*>", re.IGNORECASE)
_TAGS = re.compile(r"<[^<>]*>")

# Nothing a reader sees on the page.
_HIDDEN = frozenset(
    "link-summary web-summary card-summary show-structure primary-label secondary-label var "
    "seealso img video web-file-name title-with-alias resource".split()
)
_CODE = frozenset({"code", "path", "shortcut", "ui-path", "property", "include-code"})
_BOLD = frozenset({"control", "b", "strong", "menupath"})
_ITALIC = frozenset({"emphasis", "i", "em"})
_CALLOUTS = {"note": "Note", "tip": "Tip", "warning": "Warning"}
# Elements whose content is inline text.
_INLINE = _CODE | _BOLD | _ITALIC | {"a", "br", "sup", "sub", "u", "s", "tooltip", "span"}


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    line: int
    children: list[Node | str] = field(default_factory=list)


@dataclass(frozen=True)
class Rendered:
    lines: list[str]
    line_map: list[int]  # for each line, the 0-based source line
    title: str | None
    error: str | None = None


def parse(text: str) -> Node:
    """The element tree of `text` (raises ValueError when it is no well-formed XML)."""
    text = _DOCTYPE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    text = _ENTITY.sub(lambda m: html.escape(html.unescape(m.group(0)), quote=False), text)
    root = Node("", {}, 0)
    stack = [root]
    parser = expat.ParserCreate()
    parser.buffer_text = True

    def start(tag: str, attrs: dict[str, str]) -> None:
        node = Node(tag, attrs, parser.CurrentLineNumber - 1)
        stack[-1].children.append(node)
        if len(stack) < MAX_DEPTH:
            stack.append(node)
        else:
            stack.append(stack[-1])  # flattened: its children go to the deepest kept level

    def end(tag: str) -> None:
        stack.pop()

    def data(chunk: str) -> None:
        stack[-1].children.append(chunk)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = data
    try:
        parser.Parse(text, True)
    except expat.ExpatError as exc:
        raise ValueError(str(exc)) from None
    return root


def render_topic(text: str) -> Rendered:
    """A `.topic` file as markdown: its title an H1, its chapters sections."""
    try:
        root = parse(text)
    except ValueError as exc:
        lines = _TAGS.sub("", text).split("\n")
        return Rendered(lines, list(range(len(lines))), None, f"not well-formed XML: {exc}")
    topic = next((c for c in root.children if isinstance(c, Node)), None)
    if topic is None:
        return Rendered([], [], None)
    out = _Out()
    title = topic.attrs.get("title") or None
    if title:
        out.add(f"# {title}", topic.line)
        out.blank()
    _blocks(topic, out, 2)
    return Rendered(out.lines, out.line_map, title)


def render_element(text: str, element_id: str) -> list[str] | None:
    """The markdown of the element `element_id` of a topic (a `<snippet id>` or any element
    with that id: what `<include from element-id>` shows), None if there is none."""
    try:
        root = parse(text)
    except ValueError:
        return None
    found = _by_id(root, element_id, 0)
    if found is None:
        return None
    out = _Out()
    if found.tag == "snippet":
        _blocks(found, out, 3)
    else:
        _block(found, out, 3)
    out.trim()
    return out.lines


def _by_id(node: Node, element_id: str, depth: int) -> Node | None:
    if node.attrs.get("id") == element_id:
        return node
    for child in node.children if depth < MAX_DEPTH else ():
        if isinstance(child, Node) and (found := _by_id(child, element_id, depth + 1)):
            return found
    return None


class _Out:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.line_map: list[int] = []

    def add(self, text: str, line: int) -> None:
        self.lines.append(text)
        self.line_map.append(line)

    def trim(self) -> None:
        """Without its trailing blank lines."""
        while self.lines and not self.lines[-1].strip():
            self.lines.pop()
            self.line_map.pop()

    def blank(self) -> None:
        if self.lines and self.lines[-1].strip():
            self.add("", self.line_map[-1])


def _is_inline(child: Node | str) -> bool:
    return isinstance(child, str) or child.tag in _INLINE


def _blocks(node: Node, out: _Out, level: int, prefix: str = "") -> None:
    """The children of `node` as blocks: runs of inline content as paragraphs."""
    run: list[Node | str] = []
    for child in [*node.children, None]:
        if child is not None and _is_inline(child):
            run.append(child)
            continue
        text = _inline_all(run).strip()
        if text:
            line = next((c.line for c in run if isinstance(c, Node)), node.line)
            for piece in text.split("\n"):
                out.add(prefix + piece, line)
            out.blank()
        run = []
        if child is not None:
            _block(child, out, level, prefix)


def _block(node: Node, out: _Out, level: int, prefix: str = "") -> None:
    tag, attrs = node.tag, node.attrs
    if tag in _HIDDEN:
        return
    if tag in ("chapter", "section-starting-page", "procedure", "snippet", "tldr", "group"):
        title = attrs.get("title", "")
        if title and tag == "chapter":
            anchor = f" {{#{attrs['id']}}}" if attrs.get("id") else ""
            out.add(f"{prefix}{'#' * min(level, 6)} {title}{anchor}", node.line)
            out.blank()
        elif title:
            out.add(f"{prefix}**{title}**", node.line)
            out.blank()
        if tag == "procedure":
            _numbered(node, out, level, prefix)
            return
        _blocks(node, out, level + 1 if tag == "chapter" else level, prefix)
    elif tag == "p" or tag in ("title", "description"):
        text = _inline_all(node.children).strip()
        for piece in text.split("\n") if text else ():
            out.add(prefix + piece, node.line)
        out.blank()
    elif tag in ("list", "ul", "ol"):
        numbered = tag == "ol" or attrs.get("type") in ("decimal", "numbered", "alpha-lower")
        items = [c for c in node.children if isinstance(c, Node) and c.tag == "li"]
        for k, item in enumerate(items, 1):
            _item(item, out, level, prefix, f"{k}. " if numbered else "- ")
        out.blank()
    elif tag == "code-block":
        _code(node, out, prefix)
    elif tag in _CALLOUTS:
        inner = _Out()
        _blocks(node, inner, level)
        inner.trim()
        first = True
        for text, line in zip(inner.lines, inner.line_map, strict=True):
            label = f"{_CALLOUTS[tag]}: " if first and text.strip() else ""
            first = first and not label
            out.add(f"{prefix}> {label}{text}".rstrip(), line)
        out.blank()
    elif tag in ("tab", "def", "card", "step"):
        title = attrs.get("title", "")
        if title:
            out.add(f"{prefix}{title}:", node.line)
            out.blank()
        _blocks(node, out, level, prefix)
    elif tag == "compare":
        titles = [attrs.get("first-title", ""), attrs.get("second-title", "")]
        blocks = [c for c in node.children if isinstance(c, Node)]
        for k, child in enumerate(blocks):
            if k < 2 and titles[k]:
                out.add(f"{prefix}{titles[k]}:", child.line)
                out.blank()
            _block(child, out, level, prefix)
    elif tag == "table":
        _table(node, out, prefix)
    else:  # tabs, deflist, cards, spotlight, unknown containers: their content
        _blocks(node, out, level, prefix)


def _item(item: Node, out: _Out, level: int, prefix: str, marker: str) -> None:
    inner = _Out()
    _blocks(item, inner, level)
    inner.trim()
    pad = " " * len(marker)
    for k, (text, line) in enumerate(zip(inner.lines, inner.line_map, strict=True)):
        lead = marker if k == 0 else pad
        out.add(f"{prefix}{lead}{text}" if text else "", line)
    if not inner.lines:
        out.add(f"{prefix}{marker}".rstrip(), item.line)


def _numbered(node: Node, out: _Out, level: int, prefix: str) -> None:
    """A procedure's steps as a numbered list; what else it holds as blocks."""
    k = 0
    for child in node.children:
        if isinstance(child, Node) and child.tag == "step":
            k += 1
            _item(child, out, level, prefix, f"{k}. ")
        elif isinstance(child, Node):
            _block(child, out, level, prefix)
    out.blank()


def _code(node: Node, out: _Out, prefix: str) -> None:
    text = "".join(c for c in node.children if isinstance(c, str))
    body = textwrap.dedent(text.strip("\n")).rstrip().split("\n")
    if not any(x.strip() for x in body):
        return  # (its file was not found: writerside.py fills `src` blocks before)
    longest = max((len(r) for line in body for r in re.findall("`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    out.blank()
    out.add(f"{prefix}{fence}{node.attrs.get('lang', '').lower()}", node.line)
    for k, line in enumerate(body):
        out.add(f"{prefix}{line}" if line else "", node.line + 1 + k)
    out.add(f"{prefix}{fence}", node.line + len(body))
    out.blank()


def _table(node: Node, out: _Out, prefix: str, level: int = 3) -> None:
    rows = [c for c in _descendants(node, 0) if c.tag == "tr"]
    cells = [[c for c in r.children if isinstance(c, Node) and c.tag in ("td", "th")] for r in rows]
    if any(
        not _is_inline(c) and c.tag != "p" for row in cells for cell in row for c in cell.children
    ):
        # Cells holding code or tabs (ktor's Express-to-Ktor comparison): each cell's blocks
        # under its column's title, row by row (pipe rows would run the code together).
        titles = [_plain(c) for c in cells[0]] if cells else []
        for row in cells[1:]:
            for k, cell in enumerate(row):
                if k < len(titles) and titles[k]:
                    out.add(f"{prefix}{titles[k]}:", cell.line)
                    out.blank()
                _blocks(cell, out, level, prefix)
        return
    for k, row in enumerate(rows):
        cells = [
            _inline_all(c.children).replace("\n", " ").replace("|", "\\|").strip()
            or _plain(c).strip()
            for c in row.children
            if isinstance(c, Node) and c.tag in ("td", "th")
        ]
        out.add(f"{prefix}| {' | '.join(cells)} |", row.line)
        if k == 0:
            out.add(f"{prefix}|{'---|' * len(cells)}", row.line)
    out.blank()


def _descendants(node: Node, depth: int) -> list[Node]:
    found: list[Node] = []
    for child in node.children if depth < MAX_DEPTH else ():
        if isinstance(child, Node):
            found.append(child)
            found += _descendants(child, depth + 1)
    return found


def _plain(node: Node) -> str:
    """The text of `node` and all it holds, tags aside."""
    return " ".join(
        (c if isinstance(c, str) else _plain(c)).strip() for c in node.children if c
    ).strip()


def _inline_all(children: list[Node | str]) -> str:
    """Inline content as one paragraph's markdown (whitespace runs one space)."""
    return re.sub(r"[ \t\n]+", " ", "".join(_inline(c, 0) for c in children))


def _inline(child: Node | str, depth: int) -> str:
    if isinstance(child, str):
        return child
    tag, attrs = child.tag, child.attrs
    if tag in _HIDDEN or depth > MAX_DEPTH:
        return ""
    inner = "".join(_inline(c, depth + 1) for c in child.children)
    if tag == "br":
        return " "
    if tag in _CODE:
        text = " ".join(inner.split())
        return f"`{text}`" if text else ""
    if tag in _BOLD and inner.strip():
        return f"**{inner.strip()}**"
    if tag in _ITALIC and inner.strip():
        return f"*{inner.strip()}*"
    if tag == "a":
        target = attrs.get("href", "")
        if attrs.get("anchor"):
            target += f"#{attrs['anchor']}"
        return f"[{' '.join(inner.split())}]({target})" if target else inner
    return inner
