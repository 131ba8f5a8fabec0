"""Rd macros (rd_parse.py) written as the markdown of the page pkgdown shows (rd.py).

Block macros (`\\itemize`, `\\enumerate`, `\\describe`, `\\tabular`, `\\preformatted`,
`\\subsection`, `\\deqn`) end the paragraph they stand in; every other macro reads as inline
text. Nesting deeper than `_MAX_DEPTH` reads as plain text (no recursion limit to meet).
"""

from __future__ import annotations

import re

from docsmcp.sources.formats.linemap import line_mark
from docsmcp.sources.formats.markdown.fences import code_block, code_span
from docsmcp.sources.formats.r.rd_parse import Macro, Node, Text, plain

_MAX_DEPTH = 40
_CODE = frozenset({"code", "verb", "samp", "kbd", "command", "option", "env", "file", "sQuote"})
_CODE -= {"sQuote"}
_EMPH = frozenset({"emph", "dfn", "cite", "var"})
_STRONG = frozenset({"strong", "bold"})
_TEXT = frozenset({"pkg", "acronym", "abbr", "special", "dontdiff", "donttest", "CRANpkg"})
_GONE = frozenset(
    {"keyword", "concept", "alias", "docType", "encoding", "Rdversion", "RdOpts", "testonly"}
    | {"newcommand", "renewcommand", "dontshow", "out", "name", "title"}
)
BLOCKS = frozenset({"itemize", "enumerate", "describe", "tabular", "preformatted", "subsection"})
BLOCKS |= {"deqn", "section"}
_SOURCE_CODE = re.compile(r"""<div class=["']sourceCode ([\w+-]+)["']""")
_ALT = re.compile(r"""alt=(?:'([^']*)'|"([^"]*)")""")
_BADGE = re.compile(r"""badge\(\s*["'](\w+)["']""")
_PARAGRAPH = re.compile(r"\n[ \t]*\n")


class Writer:
    """Markdown lines with the marks of the Rd lines they come from (linemap.take_lines)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.listing = False  # the last line written is a list item

    def count(self) -> int:
        return len(self.lines)

    def text(self) -> str:
        return "\n".join(self.lines)

    def _open(self) -> None:
        if self.lines and self.lines[-1] != "":
            self.lines.append("")
        self.listing = False

    def heading(self, level: int, text: str, line: int) -> None:
        self._open()
        self.lines += [f"{line_mark(line)}{'#' * min(level, 6)} {text}", ""]

    def para(self, text: str, line: int) -> None:
        rows = [row.strip() for row in text.strip().split("\n") if row.strip()]
        if not rows:
            return
        self._open()
        # a line that markdown would read as a heading, fence or list is text in Rd
        rows = [("\\" + r if r[0] in "#>+=|" or r.startswith("```") else r) for r in rows]
        self.lines += [line_mark(line) + rows[0], *rows[1:]]

    def item(self, text: str, line: int, marker: str = "-") -> None:
        if not self.listing:
            self._open()
        rows = text.strip().split("\n") or [""]
        self.lines += [f"{line_mark(line)}{marker} {rows[0]}", *("  " + r for r in rows[1:])]
        self.listing = True

    def code(self, language: str, text: str, line: int) -> None:
        body = text.strip("\n").split("\n")
        while body and not body[-1].strip():
            body.pop()
        if not any(b.strip() for b in body):
            return
        self._open()
        block = code_block("", language, _dedent(body))
        self.lines += [line_mark(line) + block[0], *block[1:]]

    def table(self, rows: list[list[str]], line: int) -> None:
        rows = [r for r in rows if any(c.strip() for c in r)]
        if not rows:
            return
        self._open()
        width = max(len(r) for r in rows)
        cells = [[c.replace("|", "\\|").strip() for c in r] + [""] * (width - len(r)) for r in rows]
        self.lines.append(line_mark(line) + "| " + " | ".join(cells[0]) + " |")
        self.lines.append("|" + " --- |" * width)
        self.lines += ["| " + " | ".join(r) + " |" for r in cells[1:]]


def _dedent(lines: list[str]) -> list[str]:
    indents = [len(x) - len(x.lstrip()) for x in lines if x.strip()]
    cut = min(indents, default=0)
    return [x[cut:] for x in lines]


def inline(nodes: tuple[Node, ...], markup: bool = True, depth: int = 0) -> str:
    """`nodes` as one run of inline markdown (plain text when `markup` is False)."""
    if depth > _MAX_DEPTH:
        return plain(nodes)
    out: list[str] = []
    for node in nodes:
        if isinstance(node, Text):
            out.append(node.text)
            continue
        out.append(_inline_macro(node, markup, depth + 1))
    return "".join(out)


def _arg(node: Macro, k: int, markup: bool, depth: int) -> str:
    return inline(node.args[k], markup, depth) if len(node.args) > k else ""


def _inline_macro(node: Macro, markup: bool, depth: int) -> str:
    name = node.name
    if name in ("dots", "ldots"):
        return "..."
    if name == "R":
        return "R"
    if name in ("cr",):
        return "\n"
    if name == "tab":
        return " "
    if name in _GONE:
        return ""
    if name in _CODE:
        text = " ".join(code_text(node.args[0]).split()) if node.args else ""
        return code_span(text) if markup else text
    if name in _EMPH or name in _STRONG:
        text = _arg(node, 0, markup, depth)
        mark = ("*" if name in _EMPH else "**") if markup and text.strip() else ""
        return f"{mark}{text}{mark}"
    if name == "sQuote":
        return f"‘{_arg(node, 0, markup, depth)}’"
    if name == "dQuote":
        return f"“{_arg(node, 0, markup, depth)}”"
    if name in ("href", "url", "email"):
        url = plain(node.args[0]).strip() if node.args else ""
        text = _arg(node, 1, markup, depth) if name == "href" else url
        badge = text.startswith("[") and text.endswith("]")  # a lifecycle badge's alt text
        if name == "email" or not markup or not url or " " in url or badge:
            return text
        return f"[{text}]({url})"
    if name == "doi":
        doi = plain(node.args[0]).strip() if node.args else ""
        return f"[doi:{doi}](https://doi.org/{doi})" if markup and doi else doi
    if name in ("eqn", "deqn"):
        if len(node.args) > 1:
            return plain(node.args[1])
        tex = plain(node.args[0]).strip() if node.args else ""
        return f"${tex}$" if markup and tex else tex
    if name == "enc":
        return _arg(node, 0, markup, depth)
    if name == "figure":
        options = plain(node.args[1]) if len(node.args) > 1 else ""
        alt = _ALT.search(options)
        return (alt.group(1) or alt.group(2) or "") if alt else options.strip()
    if name == "if":
        formats = plain(node.args[0]) if node.args else ""
        return _arg(node, 1, markup, depth) if _html(formats) else ""
    if name == "ifelse":
        formats = plain(node.args[0]) if node.args else ""
        return _arg(node, 1 if _html(formats) else 2, markup, depth)
    if name == "Sexpr":
        badge = _BADGE.search(plain(node.args[0])) if node.args else None
        return f"[{badge.group(1).capitalize()}]" if badge else ""
    if name == "lifecycle":
        stage = plain(node.args[0]).strip() if node.args else ""
        return f"[{stage.capitalize()}]" if stage else ""
    if name in ("method", "S3method", "S4method"):
        return _arg(node, 0, False, depth)
    if name in ("itemize", "enumerate", "describe") and markup:  # a list inside a list item
        rows = _items(name, node.args[-1] if node.args else (), depth)
        return "".join("\n" + row for row in rows) + "\n"
    if name == "item":  # outside a list: its parts
        return " ".join(_arg(node, k, markup, depth) for k in range(len(node.args)))
    if name in ("preformatted", "dontrun"):
        return code_text(node.args[0]) if node.args else ""
    # \link, \linkS4class, \pkg, unknown macros and bare groups: their text
    return "".join(inline(arg, markup, depth) for arg in node.args)


def _html(formats: str) -> bool:
    """Whether `\\if{formats}` shows in HTML (`html`, `html,text`, `!latex`)."""
    names = [f.strip() for f in formats.split(",")]
    if any(f.startswith("!") for f in names):
        return "!html" not in names
    return "html" in names


def code_text(nodes: tuple[Node, ...], examples: bool = False, depth: int = 0) -> str:
    """R code as written (usage, examples, `\\code`): macros read as the code they stand for
    (`\\method{print}{tbl}` as `print` under pkgdown's `# S3 method` comment, `\\dontrun{x}`
    as `if (FALSE) {x}`, `\\dontshow{x}` as nothing)."""
    if depth > _MAX_DEPTH:
        return plain(nodes)
    out: list[str] = []
    for node in nodes:
        if isinstance(node, Text):
            out.append(node.text)
            continue
        name = node.name
        first = code_text(node.args[0], examples, depth + 1) if node.args else ""
        if name in ("method", "S3method", "S4method"):
            cls = plain(node.args[1]).strip() if len(node.args) > 1 else ""
            kind = "S4" if name == "S4method" else "S3"
            out.append(f"# {kind} method for class '{cls}'\n{first}" if cls else first)
        elif name == "dontrun" and examples:
            out.append("if (FALSE) {" + first.rstrip() + "\n}")
        elif name in ("dontshow", "testonly"):
            continue
        elif name in ("dots", "ldots"):
            out.append("...")
        elif name == "R":
            out.append("R")
        elif name == "":
            out.append("{" + first + "}")
        elif name in ("if", "ifelse", "Sexpr", "out", "enc", "eqn", "figure", "href"):
            out.append(inline((node,), markup=False, depth=depth + 1))
        else:  # \link, \code, \var, \donttest, \dontdiff ...: their text
            out.append("".join(code_text(a, examples, depth + 1) for a in node.args))
    return "".join(out)


def render_blocks(out: Writer, nodes: tuple[Node, ...], depth: int) -> None:
    """A section's body: paragraphs, lists, tables, code blocks and subsections."""
    para: list[str] = []
    para_line = nodes[0].line if nodes else 0
    language = ""  # the language roxygen2's `<div class="sourceCode r">` gives the next block

    def flush() -> None:
        nonlocal para
        text = "".join(para)
        for k, piece in enumerate(_PARAGRAPH.split(text)):
            out.para(piece, para_line + (0 if k == 0 else text[: text.find(piece)].count("\n")))
        para = []

    for node in nodes:
        if isinstance(node, Text):
            if not para:
                para_line = node.line
            para.append(node.text)
            continue
        name = node.name
        if name == "if" and len(node.args) > 1 and _html(plain(node.args[0])):
            found = _SOURCE_CODE.search(plain(node.args[1]))
            if found:
                language = found.group(1)
                continue
            if any(isinstance(n, Macro) and n.name in BLOCKS for n in node.args[1]):
                flush()
                render_blocks(out, node.args[1], depth)
                continue
        if name not in BLOCKS or depth > _MAX_DEPTH // 4:
            if not para:
                para_line = node.line
            para.append(_inline_macro(node, True, 0))
            continue
        flush()
        body = node.args[-1] if node.args else ()
        if name == "preformatted":
            out.code(language, code_text(body), node.line)
            language = ""
        elif name in ("subsection", "section"):
            title = " ".join(inline(node.args[0]).split()) if node.args else ""
            out.heading(depth + 1, title or "Section", node.line)
            render_blocks(out, node.args[1] if len(node.args) > 1 else (), depth + 1)
        elif name == "deqn":
            tex = plain(node.args[-1] if len(node.args) > 1 else body).strip()
            out.para(f"$${tex}$$" if len(node.args) == 1 else tex, node.line)
        elif name == "tabular":
            _tabular(out, body, node.line)
        else:
            _list(out, name, body, node.line, depth)
    flush()


def _items(name: str, body: tuple[Node, ...], depth: int) -> list[str]:
    """The items of `\\itemize`/`\\enumerate` (`\\item text`) or `\\describe`
    (`\\item{label}{text}`), each on one line with its marker."""
    items: list[list[Node]] = []
    for node in body:
        if isinstance(node, Macro) and node.name == "item":
            if name == "describe" and node.args:
                label = " ".join(inline(node.args[0], True, depth).split())
                text = _arg(node, 1, True, depth)
                items.append([Text(f"**{label}**: " if label else "", node.line), Text(text, 0)])
            else:
                items.append([Text(_arg(node, 0, True, depth), node.line)])
        elif items:
            items[-1].append(node)
    texts = [" ".join(inline(tuple(parts), True, depth).split()) for parts in items]
    return [f"{f'{k + 1}.' if name == 'enumerate' else '-'} {t}" for k, t in enumerate(texts)]


def _list(out: Writer, name: str, body: tuple[Node, ...], line: int, depth: int) -> None:
    for text in _items(name, body, depth):
        marker, _, rest = text.partition(" ")
        out.item(rest, line, marker)


def _tabular(out: Writer, body: tuple[Node, ...], line: int) -> None:
    rows: list[list[str]] = [[]]
    cell: list[Node] = []
    for node in body:
        if isinstance(node, Macro) and node.name in ("tab", "cr"):
            rows[-1].append(" ".join(inline(tuple(cell)).split()))
            cell = []
            if node.name == "cr":
                rows.append([])
        else:
            cell.append(node)
    if any(isinstance(n, Text) and n.text.strip() or isinstance(n, Macro) for n in cell):
        rows[-1].append(" ".join(inline(tuple(cell)).split()))
    out.table(rows, line)
