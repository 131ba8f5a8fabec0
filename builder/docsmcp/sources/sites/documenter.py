"""Documenter.jl pages (Julia's documentation generator) read as its built site shows them.

A Documenter page is CommonMark with blocks of its own, fences whose info starts with `@`:

- ```` ```@docs ```` names symbols (`makedocs`, `DocMeta.getdocmeta`, `push!(::DataFrame,
  ::Any)`), one a line; the site shows each one's docstrings under a header naming it. They are
  read from the package's Julia source (julia_source.py) when a source root holds it: a heading
  per symbol, one level under the page's heading above the block (its id the binding, as
  Documenter's anchors are), then the docstrings, whose own headings go one level further and
  whose indented code is Julia code, as Julia's markdown reads it. ```` ```@autodocs ```` shows
  every docstring of its `Modules`, limited by `Pages`, `Public`, `Private`. Without the
  source, a block is one line naming its symbols, and the build's summary asks for
  `--api-source` (include_report.py).
- ```` ```@example ````, ```` ```@repl ```` are Julia code the site runs and shows (lines
  ending in `# hide` are not shown); `jldoctest` blocks too.
- ```` ```@meta ```` (its `CurrentModule` qualifies the symbols after it), ```` ```@setup ````,
  ```` ```@eval ```` (the site shows its result, not the code), ```` ```@contents ````,
  ```` ```@index ```` (lists of links), ```` ```@raw ```` (HTML or LaTeX drawn, not read) and
  the blocks of Documenter's plugins (DocumenterCitations' `@bibliography`) show no text: blank
  lines keep the page's line count. A fence of another `@` word is a code block as written.
- A heading `## [Title](@id anchor)` is `## Title {#anchor}`.

A fence inside another fence (a manual page showing a `@docs` block) is an example, left as it
is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from docsmcp.sources.formats.markdown.dialects import ATX
from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.sites.julia_source import Docstring, Library

_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})[ \t]*(.*)$")
_BLOCK = re.compile(r"^@(\w+)")
_ID_HEADING = re.compile(r"^(#{1,6})[ \t]+\[(.+)\]\(@id[ \t]+([^()\s]+)\)[ \t]*$")
_OPTION = re.compile(r"^[ \t]*(\w+)[ \t]*=[ \t]*(.+?)[ \t]*$")
_QUOTED = re.compile(r'"([^"]*)"')
_HIDE = re.compile(r"#[ \t]*hide[ \t]*$")
_DOC_HEADING = re.compile(r"^(#{1,6})([ \t]+\S.*)$")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+")
_REF = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])+)\]\(@ref(?:[ \t]+([^()]+?))?[ \t]*\)")
_OPEN_REF = re.compile(r"\]\(@ref(?:[ \t)])")  # one `_references` left (its `[` above)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_ONE_CODE = re.compile(r"^`([^`]+)`$")
_ISSUE = re.compile(r"^#\d+$")
_SYMBOL = re.compile(r"^@?[A-Za-z_][\w!.]*(?:\(.*\))?$")
_UNSAFE = re.compile(r"[()\s<>\[\]]+")
_CODE_KINDS = ("example", "repl")
_KINDS = frozenset(
    "docs autodocs meta setup example repl eval contents index raw bibliography".split()
)
_FILTER = re.compile(
    r"^\w+[ \t]*->[ \t]*(!\()?\w+[ \t]*(∉|∈|in|!in)[ \t]*[(\[]([\w., \t]*)[)\]]\)?$"
)
_ABBREVIATION = re.compile(r"^[ \t]*\$\(([A-Z]+)\)[ \t]*$")  # DocStringExtensions' `$(SIGNATURES)`
_INTERPOLATED = re.compile(r"\$(?:\(([A-Za-z_]\w*)\)|([A-Za-z_]\w*))")
_DECLARING = frozenset({"SIGNATURES", "TYPEDSIGNATURES", "TYPEDEF"})
_ORDER = {"Module": 0, "Constant": 1, "Type": 2, "Function": 3, "Macro": 4, "Binding": 5}


@dataclass(frozen=True)
class Block:
    """One `@` block: its kind (`docs`, `meta`, ...), info after it, and its lines (between
    the fences)."""

    kind: str
    info: str
    body: list[str]


def may_hold(body: str) -> bool:
    """Whether a page's text may hold Documenter markup (a substring test)."""
    return (
        "```@" in body
        or "~~~@" in body
        or "(@id " in body
        or "(@ref" in body
        or "jldoctest" in body
    )


def expand(
    lines: list[str], library: Callable[[], Library | None], missing: list[str]
) -> tuple[list[str], list[int]]:
    """The page's lines as its site shows them, and for each the page line it comes from;
    `library` gives the package's docstrings (None: not read), `missing` gets one entry per
    symbol no docstring was found for (`@docs name`)."""
    out: list[str] = []
    line_map: list[int] = []
    current = ""  # the page's `CurrentModule`
    used: dict[str, int] = {}  # the heading ids given to docstrings, and how often
    level = 1  # the level of the last heading
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence is None:
            heading = _ID_HEADING.match(line)
            if heading:
                line = f"{heading.group(1)} {heading.group(2)} {{#{heading.group(3)}}}"
            if "(@ref" in line:
                line = _references(line, library, current)
                if _OPEN_REF.search(line) and out and line_map[-1] == i - 1 and out[-1].strip():
                    # a link's text over two lines: `[Data\nmanipulation frameworks](@ref)`
                    joined = _references(f"{out[-1]}\n{line}", library, current)
                    out[-1], _, line = joined.partition("\n")
            if m := ATX.match(line):
                level = len(m.group(1))
            out.append(line)
            line_map.append(i)
            i += 1
            continue
        indent, marks, info = fence.groups()
        end = _closing(lines, i, marks)
        block = _BLOCK.match(info)
        if block is None or block.group(1) not in _KINDS:  # (`@babel/core`: another site's)
            if info.startswith("jldoctest"):  # Julia code, however the doctest is set up
                lines_out = [f"{indent}{marks}julia", *lines[i + 1 : end + 1]]
            else:
                lines_out = lines[i : end + 1]
            out.extend(lines_out)
            line_map.extend(range(i, i + len(lines_out)))
            i = end + 1
            continue
        kind = block.group(1)
        body = lines[i + 1 : end] if end < len(lines) and end > i else lines[i + 1 :]
        if kind == "meta":
            for b in body:
                if (o := _OPTION.match(b)) and o.group(1) == "CurrentModule":
                    current = o.group(2)
        if kind in _CODE_KINDS:
            shown = [
                b if not _HIDE.search(b) else None for b in [f"{indent}{marks}julia", *body]
            ] + [f"{indent}{marks}"]
            rendered = [b for b in shown if b is not None]
        elif kind in ("docs", "autodocs"):
            rendered = _docs(Block(kind, info, body), library, current, level, missing, used)
            fenced = fenced_lines(rendered)
            rendered = [
                _references(x, library, current) if "(@ref" in x and not fenced[k] else x
                for k, x in enumerate(rendered)
            ]
        else:
            rendered = []
        span = end + 1 - i
        rendered = rendered or [""]
        out.extend(rendered)
        line_map.extend(_spread(i, span, len(rendered)))
        i = end + 1
    return out, line_map


def _references(line: str, library: Callable[[], Library | None], current: str) -> str:
    """`line` with Documenter's cross references as links `@ref#KEY`, which xref_resolve.py
    looks up among the anchors of every page (Documenter's are global): `[`f`](@ref)` names the
    docstring of `f` (its binding, `Documenter.makedocs`, when the source is read), `[Title](@ref)`
    the heading of that text, `[text](@ref target)` a heading's `@id`, its text or a symbol.
    An issue reference, `[#921](@ref)`, is its text (the site links to the repository's
    issue). A reference shown inside a code span stays as written."""
    spans = [(m.start(), m.end()) for m in _CODE_SPAN.finditer(line)]

    def link(m: re.Match[str]) -> str:
        if any(a <= m.start() < b for a, b in spans):
            return m.group(0)
        text, target = m.group(1), (m.group(2) or "").strip()
        if not target and _ISSUE.match(text):
            return text
        code = _ONE_CODE.match(text)
        key = target.strip("`") or (code.group(1) if code else _plain(text))
        lib = library() if (code or target) else None
        found = lib.lookup(key, current) if lib and _SYMBOL.match(key) else []
        if found:
            key = anchor(found[0].binding)
        return f"[{text}](@ref#{_UNSAFE.sub('-', key.strip())})"

    return _REF.sub(link, line)


def anchor(binding: str) -> str:
    """A docstring's heading id: its binding, with what links compare as nothing spelled out
    (xref compares letters and digits: `Base.sort!` and `Base.sort` were one anchor, a macro
    `@docs` and a function `docs` too)."""
    return binding.replace("!", "-bang").replace("@", "at-")


def _plain(text: str) -> str:
    """A link text as the heading text it names: code and emphasis marks off."""
    return re.sub(r"[`*_]", "", text).strip()


def _closing(lines: list[str], i: int, marks: str) -> int:
    """The line closing the fence opened at `i` (the last line when none does)."""
    for j in range(i + 1, len(lines)):
        stripped = lines[j].strip()
        if stripped.startswith(marks[0] * len(marks)) and set(stripped) == {marks[0]}:
            return j
    return len(lines) - 1


def _spread(first: int, span: int, count: int) -> list[int]:
    """Page lines for `count` lines standing for the `span` lines from `first`."""
    return [first + min(k, span - 1) for k in range(count)]


def _names(body: list[str]) -> list[str]:
    return [b.strip() for b in body if b.strip() and not b.strip().startswith("#")]


def _docs(
    block: Block,
    library: Callable[[], Library | None],
    current: str,
    level: int,
    missing: list[str],
    used: dict[str, int],
) -> list[str]:
    lib = library()
    if block.kind == "docs":
        names = _names(block.body)
        groups = [(name, lib.lookup(name, current) if lib else []) for name in names]
    else:
        options = _options(block.body)
        modules = [m.strip() for m in options.get("Modules", "").strip("[] ").split(",")]
        modules = [m for m in modules if m]
        names = [f"@autodocs {', '.join(modules)}"] if modules else []
        found = (
            lib.in_modules(
                modules,
                _QUOTED.findall(options.get("Pages", "")),
                options.get("Public", "true").strip() != "false",
                options.get("Private", "true").strip() != "false",
            )
            if lib and modules
            else []
        )
        kept = _filter(options.get("Filter", ""))
        bindings: dict[str, list[Docstring]] = {}
        for d in sorted(found, key=lambda d: _ORDER.get(d.kind, 9)):
            if kept is not None and kept[1] != (d.binding.rpartition(".")[2] in kept[0]):
                continue
            bindings.setdefault(d.binding, []).append(d)
        groups = list(bindings.items())
        if not groups and names:
            groups = [(names[0], [])]
    out: list[str] = []
    unread = [name for name, found in groups if not found]
    missing.extend(f"@docs {name}" if block.kind == "docs" else name for name in unread)
    if unread:
        listed = ", ".join(f"`{n}`" for n in unread[:20]) + (" …" if len(unread) > 20 else "")
        out += [
            f"API reference of {listed} (docstrings in the package's Julia source, "
            "shown by Documenter).",
            "",
        ]
    depth = min(level + 1, 6)
    for _, found in groups:
        if not found:
            continue
        binding = found[0].binding
        key = anchor(binding)
        used[key] = used.get(key, -1) + 1  # (a page showing a binding twice: `-1`, as Documenter)
        key = f"{key}-{used[key]}" if used[key] else key
        out += [f"{'#' * depth} `{binding}` — {found[0].kind} {{#{key}}}", ""]
        for d in found:
            out += [*_docstring(d, depth, dict(lib.strings) if lib else {}), ""]
    return out


def _filter(text: str) -> tuple[frozenset[str], bool] | None:
    """An `@autodocs` `Filter` that keeps or leaves out named objects, as (names, kept):
    `t -> t ∉ (asset, RawHTMLHeadContent)` (Documenter's own), `t -> !(t in [a, b])`,
    `t -> t in (a, b)`. Any other function (it is code) keeps everything."""
    m = _FILTER.match(text.strip())
    if m is None:
        return None
    names = frozenset(n.strip().rpartition(".")[2] for n in m.group(3).split(",") if n.strip())
    return names, not (m.group(1) or m.group(2) in ("∉", "!in"))


def _options(body: list[str]) -> dict[str, str]:
    """An `@autodocs` block's `Key = value` options; a value may run over lines (a list of
    modules one a line)."""
    options: dict[str, str] = {}
    key = ""
    for line in body:
        if o := _OPTION.match(line):
            key = o.group(1)
            options[key] = o.group(2)
        elif key and line.strip():
            options[key] += " " + line.strip()
    return options


def _docstring(d: Docstring, depth: int, strings: dict[str, str]) -> list[str]:
    """A docstring's markdown as a page section under a heading of level `depth`: its headings
    one level deeper, indented code (outside lists and admonitions) and `jldoctest` fences as
    Julia code.
    DocStringExtensions' `$(SIGNATURES)`, `$(TYPEDSIGNATURES)` and `$(TYPEDEF)` show the
    declaration; its other abbreviations (`$(EXPORTS)`, `$(FIELDS)`, ...) nothing. A docstring
    that opens with no code gets its declaration first, in a Julia block: what an agent asks the
    API registry for (apiref.py takes it as the entry's signature)."""
    text = d.text
    for _ in range(3):  # `$TABLEMETA_EXAMPLE`: a string constant of the package (which may
        if "$" not in text or not strings:  # interpolate another: DataFrames' INSERTION_COMMON)
            break
        text = _INTERPOLATED.sub(lambda m: strings.get(m.group(1) or m.group(2), m.group(0)), text)
    lines = text.split("\n")
    declared = ["```julia", d.definition, "```", ""] if d.definition else []
    first = next((x for x in lines if x.strip()), "")
    opens_with_code = first.startswith("    ") or bool(_FENCE.match(first))
    out: list[str] = [] if opens_with_code or _ABBREVIATION.match(first) else list(declared)
    in_fence = ""
    in_list = False
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if in_fence:
            out.append(line)
            if (
                line.strip()
                and set(line.strip()) == {in_fence[0]}
                and len(line.strip()) >= len(in_fence)
            ):
                in_fence = ""
            i += 1
            continue
        if fence:
            in_fence = fence.group(2)
            info = fence.group(3)
            out.append(f"{fence.group(1)}{in_fence}julia" if info.startswith("jldoctest") else line)
            i += 1
            continue
        if line.strip() and not line.startswith("    "):
            # (an admonition's body is indented as a list item's is: text, not code)
            in_list = bool(_LIST_ITEM.match(line) or line.startswith("!!! ")) or (
                in_list and line.startswith(" ")
            )
        previous_blank = i == 0 or not lines[i - 1].strip()
        if line.startswith("    ") and previous_blank and not in_list:
            block = []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                block.append(lines[i][4:])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            out += ["```julia", *block, "```", ""]
            continue
        if m := _ABBREVIATION.match(line):
            out += declared if m.group(1) in _DECLARING else []
            i += 1
            continue
        heading = _DOC_HEADING.match(line)
        if heading:
            line = "#" * min(depth + len(heading.group(1)), 6) + heading.group(2)
        out.append(line)
        i += 1
    if in_fence:  # (a block the docstring leaves open would swallow the page after it)
        out.append(in_fence)
    return out
