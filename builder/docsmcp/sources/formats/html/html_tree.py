"""A saved HTML page parsed into a tree of `Node`s, linearly even on hostile input (tags sanitised,
nesting bounded, optional end tags closed), and its main content found; htmlpage.py renders the
tree as markdown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_BLOCK = frozenset(
    "address article blockquote dd details div dl dt figcaption figure h1 h2 h3 h4 h5 h6 hr "
    "li main ol p pre section summary table ul".split()
)
# Open elements a new one implicitly closes (HTML's optional end tags).
_CLOSES = {
    "p": {"p"},
    "li": {"li", "p"},
    "dt": {"dt", "dd", "p"},
    "dd": {"dt", "dd", "p"},
    "tr": {"tr", "td", "th", "p"},
    "td": {"td", "th", "p"},
    "th": {"td", "th", "p"},
    "thead": {"tbody", "tr", "td", "th"},
    "tbody": {"thead", "tbody", "tr", "td", "th"},
}
# Deeper nesting is flattened into the element at this depth (hostile input stays linear).
MAX_DEPTH = 200
# Open elements an end tag (or an implicitly closing start tag) looks through for its match.
SCAN = 64
# Elements whose children an implicitly closing start tag never closes beyond.
_SCOPES = frozenset({"ul", "ol", "dl", "table", "div", "section", "blockquote"})
# A complete tag at a `<`: html.parser rescans to the end of the text from every `<` that starts
# an unterminated construct (quadratic), so any other `<` is escaped first. Names and unquoted
# values exclude `<`, so a failed match stops at the next one (linear).
_TAG_AT = re.compile(
    r"""</?[A-Za-z][^\s/><"'=]*"""
    r"""(?:\s+[^\s/><"'=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>"'<=`]+))?)*\s*/?>"""
)
_RAW_TEXT = re.compile(r"<(script|style|textarea|title)\b", re.IGNORECASE)
_RAW_END = {
    t: re.compile(f"</{t}", re.IGNORECASE) for t in ("script", "style", "textarea", "title")
}
# Table cells (rows times columns) a page may write as pipe tables; tables beyond are written as


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)
    line: int | None = None  # 0-based line of the page its start tag is on

    @property
    def classes(self) -> list[str]:
        return self.attrs.get("class", "").split()


class _Data(str):
    """Text of the page with the 0-based line it starts on (for the line map)."""

    line: int


def _data(text: str, line: int) -> str:
    if not text.strip():
        return text
    out = _Data(text)
    out.line = line
    return out


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        closes = _CLOSES.get(tag, {"p"} if tag in _BLOCK else ())
        if closes:
            # Close the outermost open element this one ends implicitly (a new <tr> ends the
            # open <td> and <tr>), within the nearest list or table: a nested list's <li> does
            # not close the outer one. Looked for among the innermost SCAN elements only.
            cut = 0
            for i in range(len(self.stack) - 1, max(0, len(self.stack) - 1 - SCAN), -1):
                open_tag = self.stack[i].tag
                if open_tag in closes:
                    cut = i
                elif open_tag in _SCOPES:
                    break
            if cut:
                del self.stack[cut:]
        node = Node(tag, {k: v or "" for k, v in attrs}, line=self.getpos()[0] - 1)
        self.stack[-1].children.append(node)
        if tag not in _VOID and len(self.stack) < MAX_DEPTH:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs}, line=self.getpos()[0] - 1)
        self.stack[-1].children.append(node)

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, max(0, len(self.stack) - 1 - SCAN), -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(_data(data, self.getpos()[0] - 1))


def _sanitized(text: str) -> str:
    """`text` that html.parser reads in linear time, with the same meaning: comments,
    declarations and processing instructions removed (an unclosed comment runs to the end, as in
    browsers), and every `<` that starts no complete tag written `&lt;`. Found with `str.find`
    and anchored matches, each failing at the next `<` at the latest. What is removed leaves
    its line breaks, so lines keep the page's numbers."""
    if "<" not in text:
        return text
    out: list[str] = []
    at = 0
    n = len(text)
    no_close_after = n + 1  # no `>` at or after this position (a failed find says so)
    while at < n:
        lt = text.find("<", at)
        if lt < 0:
            break
        out.append(text[at:lt])
        if text.startswith("<!--", lt):
            end = text.find("-->", lt + 4)
            if end < 0:
                return "".join(out)
            out.append("\n" * text.count("\n", lt, end))
            at = end + 3
            continue
        if text.startswith(("<!", "<?"), lt):
            end = text.find(">", lt) if lt < no_close_after else -1
            if end < 0:
                no_close_after = min(no_close_after, lt)
                out.append("&lt;")
                at = lt + 1
            else:
                out.append("\n" * text.count("\n", lt, end))
                at = end + 1
            continue
        m = _TAG_AT.match(text, lt)
        if m is None:
            out.append("&lt;")
            at = lt + 1
            continue
        out.append(m.group(0))
        at = m.end()
        raw = _RAW_TEXT.match(m.group(0))
        if raw is not None and not m.group(0).endswith("/>"):
            # Script and style text is not markup: skip to its end tag (or the end).
            end = _RAW_END[raw.group(1).lower()].search(text, at)
            close = n if end is None else end.start()
            out.append(text[at:close].replace("<", "&lt;"))
            at = close
    out.append(text[at:])
    return "".join(out)


def parse_html(text: str) -> Node:
    builder = _TreeBuilder()
    builder.feed(_sanitized(text))
    builder.close()
    return builder.root


def _walk(node: Node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed([c for c in current.children if isinstance(c, Node)]))


def _main_content(root: Node) -> Node:
    tests = (
        lambda n: n.tag == "article" and "md-content__inner" in n.classes,
        lambda n: n.attrs.get("role") == "main",
        lambda n: n.tag == "main",
        lambda n: n.tag == "div" and "body" in n.classes,
        lambda n: n.tag == "div" and "document" in n.classes,
        lambda n: n.tag == "article",
        lambda n: n.tag == "body",
    )
    nodes = list(_walk(root))
    for test in tests:
        for n in nodes:
            if test(n):
                return n
    return root
