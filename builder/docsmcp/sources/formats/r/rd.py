"""R documentation (`man/*.Rd`) as the reference page pkgdown and R's help show of it.

Every R package documents its functions and data sets in Rd files (roxygen2 writes them from
comments). A file reads as its rendered page: `\\title` the page title (h1), then the
description, `## Usage` (an R block), `## Arguments` (one item per argument: the name as code,
its text), `## Value`, `## Details`, each `\\section` in file order, `## References`,
`## See also`, `## Examples` (an R block) — pkgdown's order, not the file's (roxygen2 writes
`\\value` before `\\description`). Inline macros read as their text (`\\code{x}` as code,
`\\link[=dest]{text}` as its text, `\\href{url}{text}` as a link, `\\eqn{tex}{ascii}` as the
ascii form); `\\if{html}`/`\\ifelse{html}` take the HTML branch and raw `\\out{}` HTML is left
out, but for roxygen2's `<div class="sourceCode r">`, which gives the next `\\preformatted`
block its language. `\\dontrun{}` examples show as pkgdown shows them (`if (FALSE) {...}`),
`\\dontshow{}` ones not at all.

Each function the usage calls (`filter(...)`, `\\method{print}{tbl}(x, ...)`) is an entry of
the API registry, its parameters the `\\arguments` items that name them, so
`get_api_reference("left_join")` finds `mutate-joins.Rd`. A file whose text is no Rd (no
`\\name` and no `\\title`) still reads as its text, and one warning says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docsmcp.common.logs import warn_once
from docsmcp.model.api import ApiEntry, Example, Parameter
from docsmcp.model.text import split_top
from docsmcp.sources.formats.linemap import strip_mark_char, take_lines
from docsmcp.sources.formats.r.rd_parse import Macro, Node, Text, parse, plain
from docsmcp.sources.formats.r.rd_render import BLOCKS as _BLOCKS
from docsmcp.sources.formats.r.rd_render import Writer, code_text, inline, render_blocks

# pkgdown's order of the sections that are not `\section`s; the title is the page's h1.
_BEFORE = (("description", None), ("format", "Format"), ("usage", "Usage"))
_MIDDLE = (("arguments", "Arguments"), ("value", "Value"), ("details", "Details"))
_AFTER = (
    ("note", "Note"),
    ("source", "Source"),
    ("references", "References"),
    ("seealso", "See also"),
    ("author", "Author"),
)
_CALL = re.compile(r"^[ \t]*(?:#.*\n[ \t]*)?([A-Za-z.][\w.]*|`[^`\n]+`)[ \t]*\(", re.MULTILINE)
_MAX_DESCRIPTION = 500


@dataclass(frozen=True)
class RdPage:
    text: str  # markdown
    title: str | None
    line_map: tuple[int, ...]
    api: tuple[ApiEntry, ...]
    description: str | None


def rd_to_markdown(path: str, raw: str) -> RdPage:
    source = strip_mark_char(raw)
    nodes = parse(source)
    sections: dict[str, list[Macro]] = {}
    for node in nodes:
        if isinstance(node, Macro) and node.name:
            sections.setdefault(node.name, []).append(node)
    if "name" not in sections and "title" not in sections:
        warn_once(f"rd:{path}", "%s: no \\name or \\title: not an Rd file, read as text", path)
    title = _one_line(sections["title"][0]) if "title" in sections else None
    name = _one_line(sections["name"][0]) if "name" in sections else None
    out = Writer()
    if title:
        out.heading(1, title, sections["title"][0].line)
    places: dict[str, tuple[int, int]] = {}  # section -> (first, last) markdown line, 0-based
    for key, heading in (*_BEFORE, *_MIDDLE):
        for macro in sections.get(key, ()):
            start = out.count()
            _section(out, key, heading, macro)
            places.setdefault(key, (start, out.count() - 1))
    for macro in sections.get("section", ()):
        heading = _one_line_nodes(macro.args[0]) if macro.args else ""
        out.heading(2, heading or "Section", macro.line)
        render_blocks(out, macro.args[1] if len(macro.args) > 1 else (), depth=2)
    for key, heading in _AFTER:
        for macro in sections.get(key, ()):
            _section(out, key, heading, macro)
    for macro in sections.get("examples", ()):
        start = out.count()
        out.heading(2, "Examples", macro.line)
        out.code("r", code_text(macro.args[0] if macro.args else (), examples=True), macro.line)
        places.setdefault("examples", (start, out.count() - 1))
    if not sections.keys() & {"name", "title"}:
        render_blocks(out, nodes, depth=1)
    text, line_map = take_lines(out.text(), source.count("\n") + 1)
    description = _description(sections.get("description", ()))
    api = _entries(path, sections, title or name or path, description, places)
    return RdPage(text, title, line_map, api, description)


def _section(out: Writer, key: str, heading: str | None, macro: Macro) -> None:
    body = macro.args[0] if macro.args else ()
    if heading:
        out.heading(2, heading, macro.line)
    if key == "usage":
        out.code("r", code_text(body), macro.line)
    elif key == "arguments":
        _arguments(out, body)
    else:
        render_blocks(out, body, depth=2)


def _arguments(out: Writer, body: tuple[Node, ...]) -> None:
    """Each `\\item{name}{text}` as a list item: the name as code, then its text."""
    for node in body:
        if isinstance(node, Macro) and node.name == "item" and node.args:
            names = _one_line_nodes(node.args[0])
            text = inline(node.args[1]) if len(node.args) > 1 else ""
            out.item(f"`{names}`: {text}".rstrip(), node.line)
        elif isinstance(node, Text) and node.text.strip():
            out.para(node.text.strip(), node.line)


def _one_line(macro: Macro) -> str:
    return _one_line_nodes(macro.args[0]) if macro.args else ""


def _one_line_nodes(nodes: tuple[Node, ...]) -> str:
    return " ".join(plain(nodes).split())


def _description(found: list[Macro]) -> str | None:
    """The page's description: `\\description` up to its first block (a subsection, a list, a
    code block), as plain text of at most `_MAX_DESCRIPTION` characters."""
    if not found or not found[0].args:
        return None
    lead: list[Node] = []
    for node in found[0].args[0]:
        if (
            isinstance(node, Macro)
            and node.name in _BLOCKS
            and any(isinstance(n, Text) and n.text.strip() or isinstance(n, Macro) for n in lead)
        ):
            break
        lead.append(node)
    text = " ".join(inline(tuple(lead), markup=False).split())
    if len(text) > _MAX_DESCRIPTION:
        text = text[: _MAX_DESCRIPTION - 1].rsplit(" ", 1)[0] + "…"
    return text or None


def _parameters(sections: dict[str, list[Macro]]) -> dict[str, str]:
    """Each argument name of `\\arguments` with its text (`x, y` items name both)."""
    found: dict[str, str] = {}
    for macro in sections.get("arguments", ()):
        for node in macro.args[0] if macro.args else ():
            if isinstance(node, Macro) and node.name == "item" and len(node.args) > 1:
                text = " ".join(inline(node.args[1], markup=False).split())
                for name in _one_line_nodes(node.args[0]).split(","):
                    if name.strip():
                        found.setdefault(name.strip(), text)
    return found


def _split_args(inner: str) -> list[str]:
    """The argument names of a call's text between its parentheses (top-level commas)."""
    parts = (part.split("=", 1)[0].strip() for part in split_top(inner, quotes="\"'`"))
    return [part for part in parts if part]


def _calls(usage: str) -> list[tuple[str, str, list[str]]]:
    """(name, signature, argument names) of each function the usage text calls at a line's
    start, once per name, in order."""
    out: list[tuple[str, str, list[str]]] = []
    seen: set[str] = set()
    for m in _CALL.finditer(usage):
        name = m.group(1).strip("`")
        depth, k = 1, m.end()
        while k < len(usage) and depth:
            depth += {"(": 1, ")": -1}.get(usage[k], 0)
            k += 1
        if depth or name in seen:
            continue
        seen.add(name)
        signature = " ".join(usage[m.start(1) : k].split())
        out.append((name, signature, _split_args(usage[m.end() : k - 1])))
    return out


def _entries(
    path: str,
    sections: dict[str, list[Macro]],
    title: str,
    description: str | None,
    places: dict[str, tuple[int, int]],
) -> tuple[ApiEntry, ...]:
    """One registry entry per function the usage calls (a data set's page: its name)."""
    usage = sections.get("usage", ())
    text = code_text(usage[0].args[0]) if usage and usage[0].args else ""
    described = _parameters(sections)
    examples: tuple[Example, ...] = ()
    ex = sections.get("examples", ())
    if ex and ex[0].args:
        code = code_text(ex[0].args[0], examples=True).strip()
        examples = (Example("r", code),) if code else ()
    start, _ = places.get("description", places.get("usage", (0, 0)))
    last = max((end for _, end in places.values()), default=0)
    value = sections.get("value", ())
    returns = ""
    if value and value[0].args:
        returns = " ".join(inline(value[0].args[0], markup=False).split())[:_MAX_DESCRIPTION]
    calls = _calls(text)
    if not calls and "name" in sections and "docType" in sections:  # a data set, a package
        name = _one_line(sections["name"][0])
        calls = [(name, "", [])] if name else []
    out = []
    for name, signature, args in calls:
        parameters = tuple(
            Parameter(arg, "", None, described.get(arg, ""))
            for arg in args
            if arg in described or arg == "..."
        )
        out.append(
            ApiEntry(
                name=name,
                category=title,
                kind="method" if signature else "type",
                signature=signature,
                description=description or "",
                parameters=parameters,
                returns=returns,
                examples=examples,
                chunk_id="",
                path=path,
                line_start=start + 1,
                line_end=max(start, last) + 1,
            )
        )
    return tuple(out)
