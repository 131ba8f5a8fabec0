"""A saved HTML page (a Sphinx or mkdocs `site/` build, a saved docs page) as markdown.

The page is parsed with the standard library's `html.parser` (tolerant of real-world HTML, no
dependency) into a small tree; its main content is chosen (mkdocs-material's
`article.md-content__inner`, `[role=main]`, `<main>`, Sphinx's `div.body` / `div.document`,
`<article>`, else `<body>`), navigation, headers, footers, sidebars, scripts and Sphinx's `¶`
links are dropped, and the rest is written as markdown the chunker reads like any page:
`#` headings, fenced code with the language of `language-x` / `highlight-x` classes, tables
as pipe rows, lists, admonition titles as a `Note:` label line, and links kept as written
(relative links between pages resolve in xref like `.md` ones). Each block carries the page
line its element starts on (`getpos()`, linemap.py), so chunks name lines of the .html file.
Deterministic: the same page always gives the same text.
"""

from __future__ import annotations

import re

from docsmcp.common.limits import MAX_TABLE_CELLS
from docsmcp.model.source import Converted
from docsmcp.sources.formats.html.html_tree import _BLOCK, Node, _main_content, _walk, parse_html
from docsmcp.sources.formats.linemap import (
    line_mark,
    mark_first,
    strip_mark_char,
    take_lines,
    without_marks,
)
from docsmcp.sources.formats.markdown.hiding import hides

# Elements never holding documentation text.
_DROP_TAGS = frozenset(
    "nav header footer aside script style noscript template svg form button iframe canvas "
    "object select input textarea head title meta link".split()
)
# Classes of navigation and decoration inside the content (Sphinx, mkdocs, mkdocs-material).
_DROP_CLASSES = frozenset(
    "headerlink sphinxsidebar sphinxsidebarwrapper related md-sidebar md-header md-footer "
    "md-source-file md-content__button md-top md-dialog md-search clearer footer "
    "rst-footer-buttons wy-breadcrumbs".split()
)
# plain lines, so colspan padding cannot multiply a page's size (limits.py's table limit).
MAX_PAGE_CELLS = MAX_TABLE_CELLS
_LANG = re.compile(r"(?:^|\s)(?:language|lang|highlight|sourceCode)-([A-Za-z0-9_+#.-]+)")
_NO_LANG = frozenset({"default", "text", "none", "plain", "plaintext", "notranslate", "console"})
_SPACE = re.compile(r"\s+")
# Marks an element id in the text being written (removed, with its line recorded, at the end).
_MARK = re.compile("\x00([^\x00]*)\x00")
# A table's delimiter row (`|---|:-:|`): in a paragraph's text it would make the lines above and
# below it a markdown table.
_DELIMITER_ROW = re.compile(r"[ \t]*[-:|][-:| \t]*")
# A paragraph line markdown would read as something else (heading, quote, list item).
_MARKUP_START = re.compile(r"^([#>]|[-+*](?=\s)|\d{1,9}[.)](?=\s))")


def _text(node: Node | str) -> str:
    """Every character of the text under `node`, as written (for code)."""
    if isinstance(node, str):
        return node
    out: list[str] = []
    stack: list[Node | str] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, str):
            out.append(current)
        elif current.tag == "br":
            out.append("\n")
        elif not _dropped(current):
            stack.extend(reversed(current.children))
    return "".join(out)


def _dropped(node: Node) -> bool:
    if node.tag in _DROP_TAGS or _hidden(node):
        return True
    return any(c in _DROP_CLASSES for c in node.classes)


def _hidden(node: Node) -> bool:
    """An element no reader of the rendered page sees (hiding.py: the rule markdown's inline
    HTML follows too)."""
    return hides(node.attrs)


def _language(node: Node, ancestors: list[Node]) -> str:
    candidates = [node] + [c for c in node.children if isinstance(c, Node)] + ancestors[::-1][:3]
    for n in candidates:
        m = _LANG.search(n.attrs.get("class", ""))
        if m and m.group(1).lower() not in _NO_LANG:
            return m.group(1).lower()
    return ""


def _fence(code: str, lang: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{code.rstrip()}\n{ticks}"


def _code_span(text: str) -> str:
    text = _SPACE.sub(" ", text)
    if not text.strip():
        return text
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


class _Renderer:
    def __init__(self) -> None:
        self.ancestors: list[Node] = []
        self.first_h1: str | None = None  # the page title, when the content has an h1
        self.cells = 0  # table cells written so far (MAX_PAGE_CELLS)

    # -- inline ---------------------------------------------------------------------------------

    def inline(self, node: Node | str) -> str:
        if isinstance(node, str):
            return node.replace("\x00", "")
        if _dropped(node):
            return ""
        mark = _mark(node)
        if mark:
            return mark + self._inline(node)
        return self._inline(node)

    def _inline(self, node: Node) -> str:
        tag = node.tag
        if tag == "br":
            return "\n"
        if tag == "img":
            return node.attrs.get("alt", "")
        if tag in ("code", "tt", "kbd", "samp"):
            return _code_span(_text(node))
        inner = "".join(self.inline(c) for c in node.children)
        if tag in ("strong", "b") and inner.strip():
            return f"**{inner.strip()}**"
        if tag in ("em", "i") and inner.strip():
            return f"*{inner.strip()}*"
        if tag == "a":
            href = node.attrs.get("href", "").strip()
            label = _SPACE.sub(" ", inner).strip()
            if href and label and not href.lower().startswith("javascript:"):
                label = label.replace("[", "\\[").replace("]", "\\]")
                return f"[{label}]({href.replace(' ', '%20').replace(')', '%29')})"
        return inner

    def _paragraph(self, parts: list[Node | str]) -> str:
        text = "".join(self.inline(p) for p in parts)
        out = []
        for line in text.split("\n"):
            marks = "".join(m.group(0) for m in _MARK.finditer(line))
            line = _SPACE.sub(" ", _MARK.sub("", line)).strip()
            if _DELIMITER_ROW.fullmatch(line) and "|" in line and "-" in line:
                line = line.replace("|", "\\|")  # text, not a table (its size is unbounded)
            if line:  # ids move to the line's end, so the escape below sees its start
                out.append(_MARKUP_START.sub(r"\\\1", line) + marks)
            elif marks and out:
                out[-1] += marks
            elif marks:
                out.append(marks)
        return "\n".join(out)

    # -- blocks ---------------------------------------------------------------------------------

    def blocks(self, node: Node) -> list[str]:
        """Markdown blocks of a container's children."""
        out: list[str] = []
        run: list[Node | str] = []

        def flush() -> None:
            if run:
                text = self._paragraph(run)
                if text:
                    out.append(line_mark(_first_line(run)) + text)
                run.clear()

        self.ancestors.append(node)
        try:
            for child in node.children:
                if isinstance(child, Node) and _dropped(child):
                    continue
                if isinstance(child, Node) and (child.tag in _BLOCK or child.tag in _OWN_BLOCK):
                    flush()
                    written = mark_first(self.block(child), child.line)
                    mark = _mark(child)
                    if mark and written:
                        written[0] = _mark_first_line(written[0], mark)
                    elif mark:
                        run.append(mark)  # an empty element: its id goes with what follows
                    out.extend(written)
                else:
                    run.append(child)
            flush()
        finally:
            self.ancestors.pop()
        return out

    def block(self, node: Node) -> list[str]:
        tag = node.tag
        if any(c in _TAB_SETS for c in node.classes):
            tabs = self._tabs(node)
            if tabs is not None:
                return tabs
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            text = _SPACE.sub(" ", "".join(self.inline(c) for c in node.children)).strip()
            if tag == "h1" and text and self.first_h1 is None:
                self.first_h1 = _SPACE.sub(" ", _text(node)).strip()
            return [f"{'#' * int(tag[1])} {text}"] if text else []
        if tag == "pre":
            code = _text(node).strip("\n")
            if not code.strip():
                return []
            return [_fence(line_mark(_code_line(node)) + code, _language(node, self.ancestors))]
        if tag in ("ul", "ol"):
            return self._list(node, ordered=tag == "ol")
        if tag == "table":
            return self._table(node)
        if tag == "blockquote":
            inner = "\n\n".join(self.blocks(node))
            return ["\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))]
        if tag == "hr":
            return []
        if tag == "p" and "admonition-title" in node.classes or tag == "summary":
            return self._admonition_label(self._paragraph(node.children))
        if tag == "dt" and "sig" in node.classes:  # a Sphinx API signature: code, as written
            marks = "".join(_mark(n) for n in _walk(node) if n is not node)
            return [_code_span(_text(node)) + marks]
        if tag == "dt":
            text = self._paragraph(node.children)
            return [f"**{text}**"] if text and "\n" not in text else [text] if text else []
        return self.blocks(node)

    def _tabs(self, node: Node) -> list[str] | None:
        """Content tabs (mkdocs-material, sphinx-design, sphinx-tabs): each tab's label, then
        its panel, in order; None when labels and panels do not pair up."""
        labels: list[str] = []
        panels: list[Node] = []
        stack: list[Node] = [node]
        while stack:
            current = stack.pop()
            for child in reversed(current.children):
                if not isinstance(child, Node):
                    continue
                holder = "tabbed-content" in child.classes and any(
                    isinstance(g, Node) and "tabbed-block" in g.classes for g in child.children
                )  # mkdocs-material's alternate style: one block per tab inside it
                if not holder and (
                    any(c in _TAB_PANELS for c in child.classes)
                    or child.attrs.get("role") == "tabpanel"
                ):
                    panels.append(child)
                elif child.tag == "label" or child.attrs.get("role") == "tab":
                    labels.append(_SPACE.sub(" ", _text_all(child)).strip())
                else:
                    stack.append(child)
        labels.reverse()
        panels.reverse()
        if not panels or len(labels) != len(panels):
            return None
        out: list[str] = []
        self.ancestors.append(node)
        try:
            for label, panel in zip(labels, panels, strict=True):
                if label:
                    out.append(_MARKUP_START.sub(r"\\\1", label))
                out.extend(self.blocks(panel))
        finally:
            self.ancestors.pop()
        return out

    def _admonition_label(self, title: str) -> list[str]:
        """`Warning: Rate limits` (kind and title), like the `:::warning Rate limits` label of
        a markdown admonition; Sphinx's titles are the kind itself (`Note`)."""
        kind = ""
        for n in reversed(self.ancestors):
            if "admonition" in n.classes or n.tag == "details":
                kind = next((c for c in n.classes if c in _ADMONITION_KINDS), "")
                break
        label = title.rstrip(":").strip()
        if kind and label.lower() != kind:
            label = f"{kind.capitalize()}: {label}" if label else kind.capitalize()
        return [label] if label else []

    def _list(self, node: Node, ordered: bool) -> list[str]:
        items: list[str] = []
        number = int(node.attrs.get("start", "1")) if node.attrs.get("start", "").isdigit() else 1
        for child in node.children:
            if not isinstance(child, Node) or child.tag != "li":
                continue
            marker = f"{number}. " if ordered else "- "
            number += 1
            body = "\n\n".join(self.blocks(child)) or ""
            pad = " " * len(marker)
            lines = body.split("\n")
            text = (
                marker
                + lines[0]
                + "".join("\n" + (pad + line if line else "") for line in lines[1:])
            )
            items.append(text.rstrip())
        return ["\n".join(items)] if items else []

    def _table(self, node: Node) -> list[str]:
        rows: list[list[str]] = []
        header_rows = 0
        for n in _own_rows(node):
            cells = [c for c in n.children if isinstance(c, Node) and c.tag in ("td", "th")]
            if not cells:
                continue
            texts = []
            for cell in cells:
                text = " ".join(b.replace("\n", " ") for b in self.blocks(cell))
                text = _SPACE.sub(" ", text).strip().replace("|", "\\|")
                texts.append(text)
                span = cell.attrs.get("colspan", "1")
                texts.extend([""] * (min(int(span), 50) - 1 if span.isdigit() else 0))
            if all(c.tag == "th" for c in cells) and len(rows) == header_rows:
                header_rows += 1
            rows.append(texts)
        if not rows:
            return []
        width = max(len(r) for r in rows)
        self.cells += width * len(rows)
        if self.cells > MAX_PAGE_CELLS:
            return ["\n".join(" | ".join(c for c in r if c) for r in rows)]
        rows = [r + [""] * (width - len(r)) for r in rows]
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
        lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
        return ["\n".join(lines)]


def _own_rows(table: Node) -> list[Node]:
    """The rows of `table` itself, in order: a table nested in a cell is that cell's content,
    rendered with it, never walked again as rows of this one (which doubled the work at each
    level: 18 nested tables in a 725-byte page took 26 s and 2.1 GB)."""
    rows: list[Node] = []
    stack = [c for c in reversed(table.children) if isinstance(c, Node)]
    while stack:
        current = stack.pop()
        if current.tag == "tr":
            rows.append(current)
        elif current.tag != "table":
            stack.extend(reversed([c for c in current.children if isinstance(c, Node)]))
    return rows


# Content tab sets (mkdocs-material, sphinx-design, sphinx-tabs) and their panels.
_TAB_SETS = frozenset({"tabbed-set", "sd-tab-set", "sphinx-tabs"})
_TAB_PANELS = frozenset({"tabbed-block", "tabbed-content", "sd-tab-content"})
# Admonition kinds of Sphinx, mkdocs and mkdocs-material (the class beside `admonition`).
_ADMONITION_KINDS = frozenset(
    "note warning tip danger important hint caution attention error seealso info success "
    "question failure bug example quote abstract todo".split()
)
# Not HTML block elements, but written as blocks of their own.
_OWN_BLOCK = frozenset({"tr", "td", "th", "thead", "tbody"})


def _first_line(parts: list[Node | str]) -> int | None:
    """The page line of the first text or element of `parts` whose line is known."""
    for part in parts:
        line = getattr(part, "line", None)
        if line is not None and (not isinstance(part, str) or part.strip()):
            return line
    return None


def _code_line(pre: Node) -> int | None:
    """The page line of a `<pre>`'s first line of code: where its first text that is not
    blank starts, past the line breaks that open it."""
    stack: list[Node | str] = [pre]
    while stack:
        current = stack.pop()
        if isinstance(current, str):
            if not current.strip():
                continue
            line = getattr(current, "line", None)
            if line is None:
                return None
            return line + current[: len(current) - len(current.lstrip())].count("\n")
        if not _dropped(current):
            stack.extend(reversed(current.children))
    return None


def _mark(node: Node) -> str:
    ids = [node.attrs.get("id", ""), node.attrs.get("name", "") if node.tag == "a" else ""]
    return "".join(f"\x00{i.strip()}\x00" for i in ids if i.strip())


def _mark_first_line(block: str, mark: str) -> str:
    first, sep, rest = block.partition("\n")
    return first + mark + sep + rest


def take_marks(text: str) -> tuple[str, tuple[tuple[int, str], ...]]:
    """`text` without its id marks, and (0-based line, id) of each."""
    if "\x00" not in text:
        return text, ()
    lines = text.split("\n")
    anchors = []
    for i, line in enumerate(lines):
        if "\x00" in line:
            anchors.extend((i, m.group(1)) for m in _MARK.finditer(line))
            lines[i] = _MARK.sub("", line).replace("\x00", "").rstrip()
    return "\n".join(lines), tuple(anchors)


def html_to_markdown(text: str) -> Converted:
    """The markdown of a saved HTML page, and the page's line each of its lines comes from."""
    text = strip_mark_char(text.replace("\x00", ""))  # NUL marks ids while writing, \x01 lines
    root = parse_html(text)
    renderer = _Renderer()
    blocks = renderer.blocks(_main_content(root))
    kept = [b for b in blocks if without_marks(_MARK.sub("", b)).strip()]
    body, line_map = take_lines("\n\n".join(kept), text.count("\n") + 1)
    body, anchors = take_marks(body)
    title = renderer.first_h1
    if title is None:
        for n in _walk(root):
            if n.tag == "title":
                title = _SPACE.sub(" ", _text_all(n)).strip() or None
                break
    if not body:
        return Converted("", title, (), (0,))
    return Converted(body + "\n", title, anchors, (*line_map, line_map[-1]))


def _text_all(node: Node) -> str:
    return "".join(c if isinstance(c, str) else _text_all(c) for c in node.children)
