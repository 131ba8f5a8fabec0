"""A reStructuredText page (a Sphinx project's source) as markdown, parsed by docutils.

docutils parses the page into a document tree (never reading other files: `include`, `raw` and
file options are disabled), which is written as markdown the chunker reads: sections as `#`
headings by depth, `code-block`/`code`/literal blocks as fenced code with their language,
admonitions as a `Note:`-style label line (`:::` admonitions get the same), tables as pipe
rows, field and definition lists, `:doc:` references as links to the `.rst` page (resolved by
xref like markdown links), `:ref:` references as links to the labelled heading (`#label`, any
page's: xref), both showing the other page's title or heading when written without a title
(link_titles.py), and code roles (`:func:`, `:class:`, ...) as code spans.

docutils alone knows none of Sphinx's directives and roles: they are registered here (toctree,
code-block, versionadded, the Python domain, autodoc's `auto*` stubs, `seealso`, ...).
Directives still unknown are kept as text (their content parsed as reST) with one warning per
directive name and process. Each block carries its source line (linemap.py), so chunks name
lines of the .rst file. Same text, same markdown: deterministic.
"""

from __future__ import annotations

import logging
import re

from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document

from docsmcp.common.limits import MAX_RST_EXPLICIT_MARKUP
from docsmcp.model.source import Converted
from docsmcp.model.text import slugify
from docsmcp.sources.formats.html.htmlpage import take_marks
from docsmcp.sources.formats.linemap import (
    line_mark,
    mark_first,
    strip_mark_char,
    take_lines,
    without_marks,
)
from docsmcp.sources.formats.markdown.fences import code_span
from docsmcp.sources.formats.markdown.link_titles import title_of
from docsmcp.sources.formats.rst import rst_django
from docsmcp.sources.formats.rst.rst_declarations import attach_declarations, describe_bare_options
from docsmcp.sources.formats.rst.rst_directives import (
    _ADMONITIONS,
    _EXPLICIT_LINE,
    _PAGE,
    _PARSER,
    _SETTINGS,
    _prepare,
    _register,
    shown_name,
)
from docsmcp.sources.formats.rst.rst_objects import (
    PARAM_FIELDS,
    RAISE_FIELDS,
    REF_PREFIX,
    RETURN_FIELDS,
    STATE,
    Mark,
    PageState,
    api_entries,
    field_parts,
)

log = logging.getLogger(__name__)
# --- writing markdown --------------------------------------------------------------------------


def _section_of(node: nodes.Node) -> nodes.section | None:
    while node is not None and not isinstance(node, nodes.section):
        node = node.parent
    return node


# Source lines a code block's first line is looked for in, after the last line written.
CODE_SEARCH_LINES = 200


class _Writer:
    def __init__(self, document: nodes.document, source: list[str]) -> None:
        self.title: str | None = None
        # The page's lines (stripped) and the last source line marked, for `_line`.
        self.source = source
        self.cursor = 0
        # Literal blocks (by id()) -> the source line of their first line.
        self.code_lines: dict[int, int] = {}
        # Labels and ids of sections in this page -> the slug of their heading.
        self.anchors: dict[str, str] = {}
        # Names of hyperlink targets (`.. _Werkzeug: https://...`) -> their URL.
        self.uris: dict[str, str] = {}
        # Labels (`.. _label:`) of each section (by id()): written as anchors of its heading
        # line (convert.Converted.anchors), so `:ref:` from other pages resolves (xref).
        self.labels: dict[int, list[str]] = {}
        for section in document.findall(nodes.section):
            heading = section.next_node(nodes.title)
            if heading is None:
                continue
            slug = slugify(heading.astext())
            for name in [*section["ids"], *section["names"]]:
                self.anchors.setdefault(name, slug)
        # `.. _label:` labels the element after it in document order (docutils puts a label
        # written just before a heading at the end of the previous section): that section, or
        # the section holding that element.
        pending: list[str] = []
        for node in document.findall(nodes.Element):
            if isinstance(node, nodes.target):
                if node.get("refuri"):
                    for name in node["names"]:
                        self.uris.setdefault(name, node["refuri"])
                else:
                    pending.extend(node["names"])
                continue
            if not pending or isinstance(node, (nodes.document, nodes.Invisible)):
                continue
            section = node if isinstance(node, nodes.section) else _section_of(node)
            slug = self.anchors.get(section["ids"][0]) if section and section["ids"] else None
            for name in pending:
                if slug:
                    self.anchors.setdefault(name, slug)
            if section is not None:
                self.labels.setdefault(id(section), []).extend(pending)
            pending = []

    def blocks(self, node: nodes.Node, depth: int) -> list[str]:
        out: list[str] = []
        for child in node.children:
            out.extend(self.block(child, depth))
        return [b for b in out if without_marks(b).strip()]

    def block(self, node: nodes.Node, depth: int) -> list[str]:
        """The markdown blocks of `node`, the first marked with its source line (linemap.py)."""
        line = self._line(node) if isinstance(node, nodes.Element) else None
        if line is not None:
            self.cursor = max(self.cursor, line)
        return mark_first(self._block(node, depth), line)

    def _line(self, node: nodes.Element) -> int | None:
        """The 0-based source line `node` starts at, as far as docutils says (a title's is its
        underline; a literal block's is looked for by its first line)."""
        if isinstance(node, nodes.section):
            heading = node.next_node(nodes.title)
            return self._line(heading) if heading is not None else None
        if isinstance(node, (nodes.literal_block, nodes.doctest_block)):
            start = self._code_line(node)
            if start is None:
                return None
            self.code_lines[id(node)] = start
            return max(start - 1, 0)
        if not node.line:
            return None
        line = min(node.line - 1, len(self.source) - 1)
        if isinstance(node, nodes.title) and line >= 1 and self.source[line - 1]:
            return line - 1  # the title's text, above its underline
        return line

    def _code_line(self, node: nodes.Element) -> int | None:
        """The source line of a literal block's first non-blank line: near docutils' line (the
        line after the block for `::` blocks, the directive's for `code-block`), else the first
        line after the last one written that holds it."""
        code = node.astext().split("\n")
        skip = next((i for i, c in enumerate(code) if c.strip()), None)
        if skip is None:
            return None
        first = code[skip].strip()
        near: list[int] = []
        if node.line:
            after = node.line - 1
            near = [after - len(code) - 1 + skip, after - len(code) + skip, after - 1 + skip]
            near += range(after + 1 + skip, after + 8 + skip)
        window = range(self.cursor, min(len(self.source), self.cursor + CODE_SEARCH_LINES))
        for at in (*near, *window):
            if self.cursor <= at < len(self.source) and self.source[at] == first:
                return at - skip
        return None

    def _block(self, node: nodes.Node, depth: int) -> list[str]:
        if isinstance(node, nodes.section):
            heading = node.next_node(nodes.title)
            text = self.inline(heading) if heading is not None else ""
            text = " ".join(text.split())
            if self.title is None and text:
                self.title = heading.astext().strip()
            level = min(depth + 1, 6)
            body = [c for c in node.children if c is not heading]
            marks = "".join(f"\x00{label}\x00" for label in self.labels.get(id(node), ()))
            out = [f"{'#' * level} {text}{marks}"] if text else []
            for child in body:
                out.extend(self.block(child, depth + 1))
            return out
        if isinstance(node, (nodes.Invisible, nodes.system_message, nodes.raw, nodes.comment)):
            return []
        if isinstance(node, (nodes.title, nodes.subtitle)):
            return [f"**{' '.join(self.inline(node).split())}**"]
        if isinstance(node, nodes.paragraph):
            return [_escape_lines(self.inline(node))]
        if isinstance(node, (nodes.literal_block, nodes.doctest_block)):
            lang = node.get("language", "")
            if not lang:
                classes = [c for c in node.get("classes", []) if c not in ("code", "literal-block")]
                lang = classes[0] if classes else ""
            if isinstance(node, nodes.doctest_block):
                lang = "pycon"
            start = self.code_lines.get(id(node))
            return [_fence(line_mark(start) + node.astext(), lang)]
        if isinstance(node, (nodes.bullet_list, nodes.enumerated_list)):
            ordered = isinstance(node, nodes.enumerated_list)
            items = []
            for i, item in enumerate(node.children, start=node.get("start", 1)):
                marker = f"{i}. " if ordered else "- "
                items.append(_indent(marker, "\n\n".join(self.blocks(item, depth))))
            return ["\n".join(items)]
        if isinstance(node, nodes.definition_list):
            out = []
            for item in node.children:
                term = " ".join(self.inline(c) for c in item.children if isinstance(c, nodes.term))
                classifiers = [
                    self.inline(c) for c in item.children if isinstance(c, nodes.classifier)
                ]
                if classifiers:
                    term += " : " + " : ".join(classifiers)
                mark = line_mark(item.line - 1 if item.line else None)
                out.append(f"{mark}**{' '.join(term.split())}**")
                for c in item.children:
                    if isinstance(c, nodes.definition):
                        out.extend(self.blocks(c, depth))
            return out
        if isinstance(node, nodes.field_list):
            if isinstance(node.parent, nodes.document) and not any(
                isinstance(n, (nodes.section, nodes.paragraph, nodes.title))
                for n in node.parent[: node.parent.index(node)]
            ):
                return []  # file-wide metadata (`:orphan:`, `:tocdepth:`): Sphinx shows none
            grouped = _info_fields(self, node, depth)
            if grouped is not None:
                return grouped
            items = []
            for field in node.children:
                name = self.inline(field[0])
                body = "\n\n".join(self.blocks(field[1], depth))
                items.append(_indent("- ", f"**{name}:** {body}".rstrip()))
            return ["\n".join(items)]
        if isinstance(node, nodes.option_list):
            items = []
            for item in node.children:
                opts = ", ".join(f"`{g.astext()}`" for g in item.findall(nodes.option_group))
                desc = " ".join(self.blocks(item.next_node(nodes.description), depth))
                items.append(f"- {opts}: {desc}".rstrip())
            return ["\n".join(items)]
        if isinstance(node, nodes.table):
            return self._table(node)
        if isinstance(node, nodes.Admonition):
            if isinstance(node, nodes.admonition):
                heading = node.next_node(nodes.title)
                label = " ".join(self.inline(heading).split()) if heading is not None else ""
                rest = [c for c in node.children if c is not heading]
            else:
                label = _ADMONITIONS.get(node.tagname, node.tagname.capitalize())
                rest = list(node.children)
            out = [label] if label else []
            for child in rest:
                out.extend(self.block(child, depth))
            return out
        if isinstance(node, nodes.block_quote):
            inner = "\n\n".join(self.blocks(node, depth))
            return ["\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))]
        if isinstance(node, nodes.line_block):
            lines = [self.inline(line) for line in node.findall(nodes.line)]
            return ["\\\n".join(line for line in lines if line.strip())]
        if isinstance(node, (nodes.image,)):
            alt = node.get("alt", "")
            return [alt] if alt else []
        if isinstance(node, nodes.figure):
            return self.blocks(node, depth)
        if isinstance(node, (nodes.caption, nodes.legend, nodes.rubric)):
            return [_escape_lines(self.inline(node))]
        if isinstance(node, (nodes.footnote, nodes.citation)):
            label = node.next_node(nodes.label)
            body = " ".join(self.blocks(node, depth)[1:] if label is not None else [])
            return [f"[{label.astext() if label is not None else ''}] {body}".strip()]
        if isinstance(node, nodes.label):
            return [node.astext()]
        if isinstance(node, nodes.transition):
            return []
        if isinstance(node, nodes.math_block):
            return [_fence(node.astext(), "math")]
        if isinstance(node, nodes.Text):
            return [_escape_lines(node.astext())]
        if isinstance(node, nodes.TextElement):
            return [_escape_lines(self.inline(node))]
        return self.blocks(node, depth)  # containers, topics, sidebars, compound, ...

    def inline(self, node: nodes.Node) -> str:
        if isinstance(node, Mark):
            return node["marks"]
        if isinstance(node, nodes.Text):
            text = node.astext().replace("\n", " \n").replace(" \n", "\n")
            return _EMPHASIS_OPENER.sub(_escape_run, text) if "_" in text or "*" in text else text
        if isinstance(node, (nodes.system_message, nodes.Invisible, nodes.raw, nodes.comment)):
            return ""
        if isinstance(node, (nodes.literal, nodes.title_reference)):
            ref = node.get("object_ref")  # a code role naming an object (rst_objects.py)
            mark = f"\x00{REF_PREFIX}{ref}\x00" if ref else ""
            text = node.astext()
            if isinstance(node, nodes.title_reference) and ("~" in text or "<" in text):
                text = shown_name(text)
            return code_span(text) + mark
        if isinstance(node, nodes.math):
            return code_span(node.astext())
        if isinstance(node, nodes.substitution_reference):  # (conf.py's `|version|`)
            value = title_of("subst", node.get("refname", ""))
            if value:
                return value
        inner = "".join(self.inline(c) for c in node.children)
        if isinstance(node, nodes.strong) and inner.strip():
            return f"**{inner.strip()}**"
        if isinstance(node, nodes.emphasis) and inner.strip():
            return f"*{inner.strip()}*"
        if isinstance(node, nodes.reference):
            href = node.get("refuri")
            if href is None and node.get("refname"):
                name = node["refname"]
                href = self.uris.get(name)
                if href is None and name in self.anchors:
                    href = f"#{self.anchors[name]}"
            if href is None and node.get("refname_label"):
                label = nodes.fully_normalize_name(node["refname_label"])
                slug = self.anchors.get(label)
                # A label of another page: xref resolves `#label` from a .rst page against
                # the labels of every .rst page.
                href = f"#{slug}" if slug else f"#{label}"
            if href is None and node.get("refid"):
                slug = self.anchors.get(node["refid"])
                href = f"#{slug}" if slug else None
            label = " ".join(inner.split())
            if href and label:
                label = label.replace("[", "\\[").replace("]", "\\]")
                return f"[{label}]({href.replace(' ', '%20').replace(')', '%29')})"
            return inner
        if isinstance(node, nodes.footnote_reference):
            return f"[{node.astext()}]"
        if isinstance(node, nodes.image):
            return node.get("alt", "")
        return inner

    def _table(self, node: nodes.table) -> list[str]:
        rows: list[list[str]] = []
        for row in node.findall(nodes.row):
            cells = []
            for entry in row.children:
                text = " ".join(b.replace("\n", " ") for b in self.blocks(entry, 0))
                cells.append(" ".join(text.split()).replace("|", "\\|"))
                cells.extend([""] * min(int(entry.get("morecols", 0)), 50))
            rows.append(cells)
        if not rows:
            return []
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
        lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
        title = node.next_node(nodes.title)
        head = [f"**{' '.join(self.inline(title).split())}**"] if title is not None else []
        return head + ["\n".join(lines)]


_DELIMITER_ROW = re.compile(r"[ \t]*[-:|][-:| \t]*")
# A run of `_` or `*` starting a word of plain text (`__slots__`, `*args`): markdown would read
# it as emphasis (`__slots__` as bold "slots"), so it is escaped; inside words (`snake_case`)
# it never is.
_EMPHASIS_OPENER = re.compile(r"(?<![\w\\])[_*]+(?=\w)")


# Sphinx's info fields, as it groups them: "Parameters", "Returns", "Raises", ... (the field
# names rst_objects reads for the API registry, and those it does not), and the type fields.
_INFO_TYPES = frozenset({"type", "vartype", "rtype", "returntype", "ytype"})
_INFO_GROUPS = {
    **dict.fromkeys(PARAM_FIELDS - _INFO_TYPES, "Parameters"),
    **dict.fromkeys("var ivar cvar".split(), "Variables"),
    **dict.fromkeys(RAISE_FIELDS, "Raises"),
    **dict.fromkeys(RETURN_FIELDS - _INFO_TYPES, "Returns"),
    **dict.fromkeys("yields yield".split(), "Yields"),
}


def _info_fields(writer: _Writer, node: nodes.field_list, depth: int) -> list[str] | None:
    """A field list of Sphinx info fields (`:param x:`, `:type x:`, `:returns:`, `:raises E:`)
    as Sphinx shows it: "Parameters:" and `- **x** (int) – text` per parameter; None when some
    field is not one (Scrapy's API pages showed `**param crawler_or_spidercls:**`)."""
    fields = []
    for field in node.children:
        if not isinstance(field, nodes.field) or len(field.children) < 2:
            return None
        kind, ftype, arg = field_parts(field[0].astext())
        if kind not in _INFO_GROUPS and kind not in _INFO_TYPES:
            return None
        # (a body of several blocks, numpydoc's paragraph then a list: a blank line apart)
        blocks = [b.strip("\n") for b in writer.blocks(field[1], depth) if b.strip()]
        fields.append((kind, ftype, arg, "\n\n".join(blocks).strip()))
    types = {arg: body for kind, _, arg, body in fields if kind in _INFO_TYPES and arg}
    returned = next((body for kind, _, _, body in fields if kind in ("rtype", "returntype")), "")
    groups: dict[str, list[str]] = {}
    for kind, ftype, arg, body in fields:
        group = _INFO_GROUPS.get(kind)
        if group is None:
            continue
        if group in ("Returns", "Yields") or not arg:
            typed = f" ({returned})" if returned and group == "Returns" else ""
            groups.setdefault(group, []).append(f"{body}{typed}".strip())
            continue
        typed = ftype or types.get(arg, "")
        name = f"**{arg}**" + (f" ({typed})" if typed else "")
        body = body.replace("\n", "\n  ").replace("\n  \n", "\n\n")  # (the item's own blocks)
        groups.setdefault(group, []).append(f"- {name} – {body}" if body else f"- {name}")
    if returned and "Returns" not in groups:
        groups["Return type"] = [returned]
    out = []
    for group, items in groups.items():
        listed = without_marks(items[0]).startswith("- ")
        if not listed and "\n\n" not in items[0]:
            out.append(f"{group}: {items[0]}")
        else:  # (a list, or blocks: numpydoc's several returns, its paragraphs)
            out.append(f"{group}:\n" + ("" if listed else "\n") + "\n".join(items))
    return out


def _escape_run(m: re.Match[str]) -> str:
    return "".join("\\" + ch for ch in m.group())


_MARKUP_START = re.compile(r"^([#>]|[-+*](?=\s)|\d{1,9}[.)](?=\s)|```|~~~)", re.MULTILINE)


def _escape_lines(text: str) -> str:
    """Text whose lines markdown would read as markup (a heading, list item, fence) escaped."""
    lines = [line.strip() for line in text.split("\n")]
    lines = [
        line.replace("|", "\\|") if "|" in line and _DELIMITER_ROW.fullmatch(line) else line
        for line in lines
    ]  # a delimiter row in text would make a markdown table of the lines around it
    return "\n".join(_MARKUP_START.sub(r"\\\1", line) for line in lines if line)


def _indent(marker: str, body: str) -> str:
    pad = " " * len(marker)
    lines = body.split("\n") if body else [""]
    return (marker + lines[0]).rstrip() + "".join(
        "\n" + (pad + line if line else "") for line in lines[1:]
    )


def _fence(code: str, lang: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    ticks = "`" * max(3, longest + 1)
    lang = re.sub(r"[^\w+#.-]", "", lang)
    return f"{ticks}{lang}\n{code.rstrip()}\n{ticks}"


_register()
rst_django.register()


def _parse(path: str, text: str) -> nodes.document:
    """The document tree of `text`, parsed only: docutils' transforms (resolving references,
    substitutions, footnote numbers) are left out, since two of them are quadratic in the number
    of references (a paragraph of 20,000 `name_` references: 13 s) and the writer resolves the
    page's own targets itself."""
    settings = get_default_settings(Parser)
    for key, value in _SETTINGS.items():
        setattr(settings, key, value)
    document = new_document(path, settings)
    _PARSER.parse(text, document)
    attach_declarations(document)
    describe_bare_options(document)
    return document


def rst_to_markdown(path: str, text: str) -> Converted:
    """The markdown of the reST page at `path` (its POSIX path in the docs, for links), and
    the page's line each of its lines comes from."""
    token = _PAGE.set(path)
    state = STATE.set(PageState())
    # The line marks' character (linemap.py) and the anchor marks' (take_marks).
    text = strip_mark_char(text).replace("\x00", "").replace(REF_PREFIX, "")
    count = text.count("\n") + 1
    try:
        explicit = len(_EXPLICIT_LINE.findall(text))
        if explicit > MAX_RST_EXPLICIT_MARKUP:
            log.warning(
                "%s: %d explicit markup lines (at most %d are parsed per page); indexed as "
                "plain text",
                path,
                explicit,
                MAX_RST_EXPLICIT_MARKUP,
            )
            return _plain(text, count)
        _prepare(text)
        try:
            document = _parse(path, text)
        except Exception as exc:  # noqa: BLE001 - docutils on hostile input: keep the text
            log.warning("%s: reStructuredText not parsed (%s); indexed as plain text", path, exc)
            return _plain(text, count)
        writer = _Writer(document, [line.strip() for line in text.split("\n")])
        blocks = writer.blocks(document, 0)
        if not blocks:
            return Converted("", writer.title, (), (0,))
        body, line_map = take_lines("\n\n".join(blocks) + "\n", count)
        body, marks = take_marks(body)
        anchors = tuple(m for m in marks if not m[1].startswith(REF_PREFIX))
        refs = tuple((line, m[1:]) for line, m in marks if m.startswith(REF_PREFIX))
        found = STATE.get().found  # type: ignore[union-attr]
        sections = [
            (writer._line(sec[0]), " ".join(sec[0].astext().split()))
            for sec in (document.findall(nodes.section) if found else ())
            if sec.children and isinstance(sec[0], nodes.title)
        ]
        api = api_entries(path, found, anchors, line_map, sections, writer.title or "")
        return Converted(body, writer.title, anchors, line_map, api, refs)
    finally:
        STATE.reset(state)
        _PAGE.reset(token)


def _plain(text: str, count: int) -> Converted:
    """The page as one fenced block of reST (line i of the page is line i + 1 of it)."""
    body, line_map = take_lines(_fence(line_mark(0) + text, "rst") + "\n", count)
    return Converted(body, None, (), line_map)
