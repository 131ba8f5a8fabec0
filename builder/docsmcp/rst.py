"""A reStructuredText page (a Sphinx project's source) as markdown, parsed by docutils.

docutils parses the page into a document tree (never reading other files: `include`, `raw` and
file options are disabled), which is written as markdown the chunker reads: sections as `#`
headings by depth, `code-block`/`code`/literal blocks as fenced code with their language,
admonitions as a `Note:`-style label line (`:::` admonitions get the same), tables as pipe
rows, field and definition lists, `:doc:` references as links to the `.rst` page (resolved by
xref like markdown links), `:ref:` references as links to the heading when the label is in the
same page (else its text), and code roles (`:func:`, `:class:`, ...) as code spans.

docutils alone knows none of Sphinx's directives and roles: they are registered here (toctree,
code-block, versionadded, the Python domain, autodoc's `auto*` stubs, `seealso`, ...).
Directives still unknown are kept as text (their content parsed as reST) with one warning per
directive name and process. Each block carries its source line (linemap.py), so chunks name
lines of the .rst file. Same text, same markdown: deterministic.
"""

from __future__ import annotations

import contextvars
import logging
import posixpath
import re
from dataclasses import dataclass

from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Directive, Parser, directives, roles
from docutils.parsers.rst.languages import en as _ENGLISH  # directive and role names
from docutils.utils import new_document, unescape

from .chunk import slugify
from .htmlpage import take_marks
from .limits import MAX_RST_EXPLICIT_MARKUP
from .linemap import line_mark, mark_first, strip_mark_char, take_lines, without_marks
from .logs import warn_once

log = logging.getLogger(__name__)

# The page being converted (its POSIX path), for roles that link relative to it.
_PAGE: contextvars.ContextVar[str] = contextvars.ContextVar("rst_page", default="")
_SETTINGS = {
    "file_insertion_enabled": False,  # `include`, `csv-table :file:`: never read other files
    "raw_enabled": False,
    "report_level": 5,  # no messages on stderr: problems stay in the tree, and are skipped
    "halt_level": 5,
    "syntax_highlight": "none",
    "warning_stream": False,
    "line_length_limit": 10_000_000,  # the file limits (limits.py) bound lines already
}
_PARSER = Parser()

# Roles whose text is code (Sphinx's Python, C, JS domains and standard roles).
_CODE_ROLES = frozenset(
    "func meth class mod attr data exc obj const var envvar option program file samp kbd "
    "command makevar mailheader regexp token keyword member macro type struct union enum "
    "enumerator expr texpr cpp:func any".split()
)
_ADMONITIONS = {
    "attention": "Attention",
    "caution": "Caution",
    "danger": "Danger",
    "error": "Error",
    "hint": "Hint",
    "important": "Important",
    "note": "Note",
    "tip": "Tip",
    "warning": "Warning",
    "seealso": "See also",
    "todo": "Todo",
}
_DIRECTIVE = re.compile(r"^[ \t]*\.\.[ \t]+([A-Za-z][\w:.+-]*)::", re.MULTILINE)
_EXPLICIT_LINE = re.compile(r"^[ \t]*\.\.[ \t]", re.MULTILINE)
_ROLE = re.compile(r"(?<![\w`]):([A-Za-z][\w:.+-]*):`")
_EXPLICIT = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.DOTALL)


class _AnyOptions(dict):
    """An option_spec accepting every option (Sphinx directives have many)."""

    def __contains__(self, key: object) -> bool:
        return True

    def __bool__(self) -> bool:  # docutils parses options only when option_spec is truthy
        return True

    def __missing__(self, key: str):
        return directives.unchanged


class _Generic(Directive):
    """A directive docutils does not know: its argument as a label line and its content parsed
    as reST, so nothing of the page is lost."""

    has_content = True
    optional_arguments = 50
    final_argument_whitespace = True
    option_spec = _AnyOptions()
    label = ""

    def run(self) -> list[nodes.Node]:
        box = nodes.container(classes=["generic", self.name])
        box.line = self.lineno
        label = self.label or " ".join(self.arguments)
        if label:
            box += nodes.paragraph(text=label, classes=["label"])
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, box)
        return [box]


class _Unknown(_Generic):
    def run(self) -> list[nodes.Node]:
        warn_once(
            f"rst-directive {self.name}",
            "%s:%d: unknown reST directive %r: its content is kept as text "
            "(one warning per directive name)",
            _PAGE.get(),
            self.lineno,
            self.name,
        )
        return super().run()


class _Code(Directive):
    """`code-block`, `sourcecode`, `code`: a literal block with its language."""

    has_content = True
    optional_arguments = 1
    option_spec = _AnyOptions()

    def run(self) -> list[nodes.Node]:
        text = "\n".join(self.content)
        block = nodes.literal_block(text, text)
        block["language"] = self.arguments[0] if self.arguments else ""
        block.line = self.lineno
        return [block]


class _Toctree(Directive):
    """The page's table of contents: a list of links to the pages it names."""

    has_content = True
    option_spec = _AnyOptions()

    def run(self) -> list[nodes.Node]:
        items = nodes.bullet_list()
        items.line = self.lineno
        for line in self.content:
            entry = line.strip()
            if not entry or entry == "self" or "*" in entry:
                continue
            title, target = _explicit(entry)
            if re.match(r"^[a-z]+://", target):
                ref = nodes.reference(title or target, title or target, refuri=target)
            else:
                href = _doc_href(target)
                ref = nodes.reference(title or target, title or target, refuri=href)
            items += nodes.list_item("", nodes.paragraph("", "", ref))
        return [items] if len(items) else []


class _Version(Directive):
    """`versionadded 2.0`: "Added in version 2.0." and its text."""

    has_content = True
    required_arguments = 1
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec = _AnyOptions()
    words = {
        "versionadded": "Added in version",
        "versionchanged": "Changed in version",
        "deprecated": "Deprecated since version",
        "versionremoved": "Removed in version",
        "version-added": "Added in version",  # Sphinx 7.3's spellings
        "version-changed": "Changed in version",
        "version-deprecated": "Deprecated since version",
        "version-removed": "Removed in version",
    }

    def run(self) -> list[nodes.Node]:
        version = self.arguments[0]
        text = f"{self.words.get(self.name, 'Version')} {version}"
        # As Sphinx writes it: "Changed in version 2.0: Renamed." or "... 2.0."
        text += f": {self.arguments[1]}" if len(self.arguments) > 1 else "."
        para = nodes.paragraph(text=text)
        para.line = self.lineno
        out: list[nodes.Node] = [para]
        if self.content:
            box = nodes.container()
            self.state.nested_parse(self.content, self.content_offset, box)
            out.extend(box.children)
        return out


class _Described(Directive):
    """An object description (`py:function`, `class`, `autofunction`, ...): its signature as a
    code line and its content. autodoc's `auto*` stubs say that their text comes from the code."""

    has_content = True
    optional_arguments = 50
    final_argument_whitespace = True
    option_spec = _AnyOptions()

    def run(self) -> list[nodes.Node]:
        signature = " ".join(self.arguments).strip()
        box = nodes.container(classes=["described"])
        box.line = self.lineno
        if signature:
            para = nodes.paragraph()
            para += nodes.literal(signature, signature)
            if self.name.rpartition(":")[2].startswith("auto"):
                para += nodes.Text(" (API reference generated from the code by autodoc)")
            box += para
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, box)
        return [box]


class _Silent(Directive):
    """Directives that produce no documentation text (`index`, `highlight`, ...)."""

    has_content = True
    optional_arguments = 50
    final_argument_whitespace = True
    option_spec = _AnyOptions()

    def run(self) -> list[nodes.Node]:
        return []


class _Admonition(_Generic):
    optional_arguments = 0  # `.. note:: text`: the text is the body, as in docutils

    def run(self) -> list[nodes.Node]:
        box = nodes.container(classes=["admonition-box"])
        box.line = self.lineno
        label = _ADMONITIONS.get(self.name, self.name.capitalize())
        if self.arguments:
            label += ": " + " ".join(self.arguments)
        box += nodes.paragraph(text=label, classes=["label"])
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, box)
        return [box]


_SILENT = (
    "index highlight currentmodule module default-domain tabularcolumns sectionauthor "
    "codeauthor moduleauthor rst-class cssclass todolist autosummary inheritance-diagram "
    "graphviz digraph plot literalinclude testsetup testcleanup ifconfig"
).split()
_DESCRIBED = (
    "function class method attribute data exception decorator classmethod staticmethod "
    "property type option envvar describe object program cmdoption confval event setting "
    "autofunction autoclass automodule autoattribute automethod autodata autoexception "
    "autodecorator autoproperty autonewtypedata directive directive:option role struct union "
    "var alias concept enumerator macro member namespace namespace-push namespace-pop"
).split()
_CONTAINERS = (
    "tabs tab group-tab code-tab tab-set tab-item grid grid-item grid-item-card card "
    "dropdown container only glossary hlist centered rubric-like productionlist doctest "
    "testcode testoutput jupyter-execute ipython"
).split()


def _register() -> None:
    for name in ("code-block", "sourcecode", "code"):
        directives.register_directive(name, _Code)
    directives.register_directive("toctree", _Toctree)
    for name in _Version.words:
        directives.register_directive(name, _Version)
    for name in _ADMONITIONS:
        directives.register_directive(name, _Admonition)
    for name in _SILENT:
        directives.register_directive(name, _Silent)
    for name in _DESCRIBED:
        directives.register_directive(name, _Described)
        for domain in ("py", "c", "cpp", "js", "std", "rst"):
            directives.register_directive(f"{domain}:{name}", _Described)
    for name in _CONTAINERS:
        directives.register_directive(name, _Generic)
    for name in ("py:module", "py:currentmodule"):
        directives.register_directive(name, _Silent)
    for name in ("ref", "doc", "term", "abbr", "guilabel", "menuselection", "numref"):
        roles.register_local_role(name, _role)
    for name in _CODE_ROLES:
        roles.register_local_role(name, _role)


def _explicit(text: str) -> tuple[str, str]:
    """(title, target) of `Title <target>`, else ("", text)."""
    m = _EXPLICIT.match(text)
    return (m.group(1).strip(), m.group(2).strip()) if m else ("", text.strip())


def _doc_href(target: str) -> str:
    """The link from the current page to the page `target` names (`/x` from the docs root,
    else relative to the page's folder), as the `.rst` file xref resolves."""
    page = _PAGE.get()
    target = target.strip()
    if target.startswith("/"):
        path = target.lstrip("/")
        rel = posixpath.relpath(path, posixpath.dirname(page) or ".")
    else:
        rel = target
    return rel if rel.endswith(".rst") else rel + ".rst"


def _role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """Sphinx roles: `:doc:` and same-page `:ref:` as links, code roles as code spans, the rest
    as their text."""
    text = unescape(text)
    base = name.rpartition(":")[2]
    title, target = _explicit(text)
    if base == "doc":
        href = _doc_href(target)
        label = title or target.rstrip("/").rpartition("/")[2]
        return [nodes.reference(rawtext, label, refuri=href)], []
    if base in ("ref", "numref"):
        ref = nodes.reference(rawtext, title or target.replace("-", " "), refname_label=target)
        return [ref], []
    if base == "abbr":
        return [nodes.Text(title or target)], []
    if base in _CODE_ROLES or name in _CODE_ROLES:
        shown = title or target
        if not title:  # Sphinx: `!x` no link, `~a.b.c` shows c, `.x` a relative lookup
            shown = shown.lstrip("!")
            if shown.startswith("~"):
                shown = shown[1:].rpartition(".")[2]
            shown = shown.lstrip(".") or shown
        return [nodes.literal(rawtext, shown)], []
    return [nodes.Text(title or target)], []


def _generic_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """A role docutils and this module do not know (`:issue:`, extlinks): its text."""
    title, target = _explicit(unescape(text))
    return [nodes.Text(title or target)], []


def _prepare(text: str) -> None:
    """Register every directive and role of `text` that no one knows yet, generically."""
    # docutils' own registries: what it knows (loaded lazily) and what was registered.
    known_directives = (
        directives._directive_registry.keys()
        | directives._directives.keys()
        | _ENGLISH.directives.keys()
    )
    for name in set(_DIRECTIVE.findall(text)):
        if name.lower() not in known_directives:
            directives.register_directive(name, _Unknown)
    known_roles = roles._role_registry.keys() | roles._roles.keys() | _ENGLISH.roles.keys()
    for name in set(_ROLE.findall(text)):
        if name.rpartition(":")[2] in _CODE_ROLES:
            roles.register_local_role(name, _role)
        elif name.lower() not in known_roles:
            roles.register_local_role(name, _generic_role)


# --- writing markdown --------------------------------------------------------------------------


@dataclass(frozen=True)
class Converted:
    text: str
    title: str | None
    anchors: tuple[tuple[int, str], ...] = ()  # (0-based line, label)
    line_map: tuple[int, ...] = ()  # per line of `text`: its 0-based line in the page


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
        if isinstance(node, nodes.Text):
            return node.astext().replace("\n", " \n").replace(" \n", "\n")
        if isinstance(node, (nodes.system_message, nodes.Invisible, nodes.raw, nodes.comment)):
            return ""
        if isinstance(node, (nodes.literal, nodes.title_reference)):
            return _code_span(node.astext())
        if isinstance(node, nodes.math):
            return _code_span(node.astext())
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


def _code_span(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return ""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


_register()


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
    return document


def rst_to_markdown(path: str, text: str) -> Converted:
    """The markdown of the reST page at `path` (its POSIX path in the docs, for links), and
    the page's line each of its lines comes from."""
    token = _PAGE.set(path)
    text = strip_mark_char(text)  # the line marks' character (linemap.py)
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
        body, anchors = take_marks(body)
        return Converted(body, writer.title, anchors, line_map)
    finally:
        _PAGE.reset(token)


def _plain(text: str, count: int) -> Converted:
    """The page as one fenced block of reST (line i of the page is line i + 1 of it)."""
    body, line_map = take_lines(_fence(line_mark(0) + text, "rst") + "\n", count)
    return Converted(body, None, (), line_map)
