"""Perl's POD (`.pod` files, the POD of `.pm` modules and of scripts; perl_dist.py says which
files are pages) read as perldoc and metacpan render it: the page is titled by `=head1 NAME`
(`Mojo::UserAgent - Non-blocking I/O HTTP and WebSocket user agent`; without one, by the
`package` and Pod::Weaver's `# ABSTRACT:`), `=headN` are headings one level below it,
`=over`/`=item`/`=back` lists (bullets, numbers, definitions), verbatim paragraphs `perl`
code blocks, formatting codes as pod_codes.py renders them; a module's code is never shown,
and a file without POD converts to no text (no page).

API entries are what a CPAN module documents as its interface: each `=head2` (or deeper
heading, or `=item`) naming a sub under a METHODS, FUNCTIONS, ATTRIBUTES, EVENTS (and the
like) `=head1`, named as Perl calls it fully qualified (`Mojo::UserAgent::get`, found as
`get`, `UserAgent::get` and `Mojo::UserAgent->get` too), plus the module itself. Its
signature is the heading's call (`Class::MOP::Class->create($package_name, %options)`) or the
usage code that opens its section (Mojo's `my $res = $ua->get('example.com');`), its
description the first paragraph. `L<Module>` and `L<Module/"section">` are object references,
resolved against every page's `object:Module` and `object:Module/section` anchors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docsmcp.model.api import OBJECT_ANCHOR, ApiEntry, Example
from docsmcp.model.source import Converted
from docsmcp.sources.formats.linemap import monotone
from docsmcp.sources.formats.markdown.fences import code_block
from docsmcp.sources.formats.source.doc_entries import source_entry
from docsmcp.sources.formats.source.page_text import PageText
from docsmcp.sources.formats.source.pod_codes import Inline, escape, escape_lines, render
from docsmcp.sources.formats.source.pod_parse import Para, abstract, package, split, woven

MAX_ENTRIES = 2000  # API entries of one file, at most
MAX_LISTS = 12  # lists nested, at most; a deeper `=over` adds no indent
MAX_PARAGRAPH = 20_000  # characters of one paragraph read for its codes; past it, plain text
_MODULE = re.compile(r"^[A-Za-z_]\w*(?:::\w+)*$")
# A `=head1` whose items are the module's interface (`METHODS`, `CLASS METHODS`, `EXPORTED
# FUNCTIONS`, `ATTRIBUTES`, Mojolicious' `EVENTS` and `HELPERS`, Dancer2's `KEYWORDS`).
_API_SECTION = re.compile(
    r"\b(?:METHODS?|FUNCTIONS?|ATTRIBUTES?|EVENTS?|SUBROUTINES?|HELPERS?|CONSTRUCTORS?|"
    r"ACCESSORS?|KEYWORDS?|EXPORTS?|OPERATORS?|HOOKS?|INTERFACE|API|DSL)\b",
    re.I,
)
# A heading or item that names a sub: `get`, `new(%args)`, `$ua->get(...)`,
# `Class::MOP::Class->create($name, %options)`, `Mojo::Util::b64_encode`, `has $name => %opts`.
_ENTRY = re.compile(
    r"^(?:[$@%]?[A-Za-z_][\w:]*\s*->\s*|->\s*|(?:[A-Za-z_]\w*::)+|&)?([A-Za-z_]\w*)\s*(.*)$", re.S
)
_ARGS = re.compile(r"^(?:$|[(\[{$@%\\=,;'\"<|&*-])")
_NOT_NAMES = frozenset(("my", "our", "local", "use", "sub", "return", "if", "the", "a"))
_KINDS = {"ATTRIBUTE": "attribute", "EVENT": "event", "FUNCTION": "function"}
_WRAPPED = re.compile(r"^(\*{1,3})([^*]+)\1$")
_NAME = re.compile(r"^\s*(.+?)\s+-+\s+(.*)$", re.S)


def idify(text: str) -> str:
    """A heading's anchor as Pod::Simple::XHTML makes it (metacpan's `#get`, `#SYNOPSIS`)."""
    t = re.sub(r"[<>&'\"]", "", text.strip())
    t = re.sub(r"^[^A-Za-z]+", "", t)
    t = re.sub(r"[^-A-Za-z0-9_:.]+", "-", t)
    return re.sub(r"[-:.]+$", "", t) or "pod"


def entry_name(plain: str) -> tuple[str, str] | None:
    """(sub name, its call's rest) a heading or item names, None for words (`Creation`)."""
    m = _ENTRY.match(" ".join(plain.split()))
    if m is None or m.group(1) in _NOT_NAMES or not _ARGS.match(m.group(2)):
        return None
    return m.group(1), m.group(2)


@dataclass
class _List:
    kind: str  # "bullet", "number", "definition", "" (no item yet: an indented block)
    indent: str  # of the items' text
    api: bool = False  # its definitions are entries, headings at the page's top level
    level: int = 0  # the level of those headings


@dataclass
class _Page(PageText):
    module: str
    lists: list[_List] = field(default_factory=list)
    marker: str = ""  # an item's marker, written before its first block
    deep: int = 0  # `=over`s open past MAX_LISTS
    level: int = 1  # of the last heading
    section: str = ""  # the `=head1` it is under, upper case
    # entries whose sections are open: (index in api, level, name, heading text, call's rest,
    # kind)
    open: list[tuple[int, int, str, str, str, str]] = field(default_factory=list)
    at: list[int] = field(default_factory=list)  # each entry's heading line (index in out)

    @property
    def indent(self) -> str:
        return self.lists[-1].indent if self.lists else ""

    def inline(self, text: str) -> Inline:
        if len(text) > MAX_PARAGRAPH:
            return Inline(escape(text), text, ())
        return render(text, self.module)

    def block(self, line: int, lines: list[str], end: int) -> None:
        """Lines of one block at the list's indent, the item's marker before the first."""
        self.blank(line)
        indent = self.indent
        for k, text in enumerate(lines):
            if k == 0 and self.marker:
                prefix = indent[: len(indent) - len(self.marker)] + self.marker
                self.marker = ""
            else:
                prefix = indent
            self.add(min(line + k, end), (prefix + text).rstrip() if text else "")

    def text(self, p: Para) -> None:
        shown = self.inline(p.text)
        at = len(self.out)
        self.block(p.line, escape_lines(shown.md).split("\n"), p.end)
        self.refs += [(at, r) for r in shown.refs]

    def verbatim(self, p: Para) -> None:
        lines = [x.expandtabs(8).rstrip() for x in p.text.split("\n")]
        cut = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
        lines = [x[cut:] for x in lines]
        if self.marker:  # (an item's code: its marker alone on the line above the fence)
            self.block(p.line, [""], p.end)
        else:
            self.blank(p.line)
        indent = self.indent
        fenced = code_block(indent, "perl", lines)
        for k, text in enumerate(fenced):
            n = p.line if k == 0 else min(p.line + k - 1, p.end)
            self.add(n, (indent + text if 0 < k < len(fenced) - 1 and text else text))

    def heading(self, level: int, p: Para, entry: tuple[str, str] | None) -> None:
        shown = self.inline(p.text)
        plain = " ".join(shown.plain.split())
        self.close(level, p.line)
        self.lists.clear()
        self.marker = ""
        self.blank(p.line)
        at = len(self.out)
        md = " ".join(shown.md.split())
        if m := _WRAPPED.match(md):  # (`=item B<< $ua->get >>`: a heading is not bold)
            md = m.group(2)
        self.add(p.line, f"{'#' * level} {md or escape(plain)}")
        self.refs += [(at, r) for r in shown.refs]
        self.level = level
        keys = {plain, idify(plain)}
        if entry is not None:
            keys.add(entry[0])
        self.anchors += [(at, f"{OBJECT_ANCHOR}{self.module}/{k}") for k in sorted(keys) if k]
        if entry is not None and len(self.api) < MAX_ENTRIES:
            kind = next((v for k, v in _KINDS.items() if k in self.section), "method")
            self.open.append((len(self.api), level, entry[0], plain, entry[1], kind))
            self.api.append(_stub())
            self.at.append(at)

    def close(self, level: int, line: int) -> None:
        """The entries whose sections end before a heading of `level` (1: all)."""
        while self.open and self.open[-1][1] >= level:
            k, _, name, plain, rest, kind = self.open.pop()
            self.api[k] = self._entry(self.at[k], name, plain, rest, kind)

    def _entry(self, at: int, name: str, plain: str, rest: str, kind: str) -> ApiEntry:
        body = [t for _, t in self.out[at + 1 :]]
        code, para = _usage(body)
        signature = plain if rest else (code.split("\n")[0] if code else name)
        return source_entry(
            name=f"{self.module}::{name}" if self.module else name,
            category=self.module or name,
            kind=kind,
            signature=signature,
            description=para,
            parameters=(),
            returns="",
            path=self.path,
            line_start=at + 1,
            line_end=len(self.out),
            examples=(Example("perl", code),) if code else (),
        )


def _stub() -> ApiEntry:
    return source_entry(
        name="", category="", kind="", signature="", description="", parameters=(),
        returns="", path="", line_start=0, line_end=0,
    )  # fmt: skip


def _usage(body: list[str]) -> tuple[str, str]:
    """(the first code block, the first paragraph's text) of a section's markdown lines, up to
    its first sub-heading."""
    code: list[str] = []
    para: list[str] = []
    k = 0
    while k < len(body) and not (code and para):
        text = body[k].strip()
        k += 1
        if text.startswith("#"):
            break
        if text.startswith("```"):
            fence = text[: len(text) - len(text.lstrip("`"))]
            block = []
            while k < len(body) and body[k].strip() != fence:
                block.append(body[k])
                k += 1
            k += 1
            if not code:
                cut = min((len(x) - len(x.lstrip()) for x in block if x.strip()), default=0)
                code = [x[cut:] for x in block]
        elif text and not para:
            para.append(text)
            while k < len(body) and body[k].strip() and not body[k].lstrip().startswith("`" * 3):
                para.append(body[k].strip())
                k += 1
    plain = re.sub(r"\\(.)", r"\1", " ".join(para)).replace("**", "").replace("`", "")
    return "\n".join(code[:12]).strip("\n"), plain


def _title(path: str, code: str, paras: list[Para]) -> tuple[str | None, str, int | None]:
    """(title, module, index of the NAME paragraph) of a page; `code`: the file's lines outside
    POD (a `package` in a POD example names nothing)."""
    for k, p in enumerate(paras):
        if p.kind == "command" and p.name == "head1" and p.text.strip().upper() == "NAME":
            nxt = paras[k + 1] if k + 1 < len(paras) else None
            if nxt is not None and nxt.kind == "text":
                line = " ".join(render(nxt.text).plain.split())
                m = _NAME.match(line)
                name = m.group(1) if m else line
                return line, name if _MODULE.match(name) else "", k
            break
    pkg = package(code)
    if pkg is None and "lib/" in path and path.endswith((".pm", ".pod")):
        pkg = path.rsplit("lib/", 1)[1].rsplit(".", 1)[0].replace("/", "::")
        pkg = pkg if _MODULE.match(pkg) else None
    if pkg is None:
        return None, "", None
    summary = abstract(code)
    return (f"{pkg} - {summary}" if summary else pkg), pkg, None


def pod_to_markdown(path: str, text: str) -> Converted:
    """The perldoc page of a Perl file (see the module docstring); no text without POD."""
    found, code = split(text)
    paras = woven(found)
    if not any(p.kind != "command" or p.name in ("head1", "head2", "item") for p in paras):
        return Converted("", None)
    title, module, name_at = _title(path, code, paras)
    page = _Page(path, module)
    if title:
        anchor = re.sub(r"[^\w.-]+", "-", module or title).strip("-") or "pod"
        first = paras[0].line if paras else 0
        page.add(first, f"# {escape(title)} {{#{anchor}}}")
        if module:
            page.anchors.append((0, OBJECT_ANCHOR + module))
        summary = title.partition(" - ")[2].strip()
        if summary:  # (NAME's abstract, below the title as metacpan shows it)
            page.blank(first)
            page.add(first, escape_lines(escape(summary)))
    api_page = path.endswith((".pm", ".pl"))
    for k, p in enumerate(paras):
        if name_at is not None and k in (name_at, name_at + 1):
            continue  # (NAME is the title)
        if p.kind == "command":
            _command(page, p)
        elif p.kind == "verbatim":
            page.verbatim(p)
        elif p.kind == "data":
            page.block(p.line, [escape_lines(escape(x.strip())) for x in p.text.split("\n")], p.end)
        else:
            page.text(p)
    page.close(1, len(text))
    api = [e for e in page.api if e.name]
    if module and (api_page or api) and len(api) < MAX_ENTRIES:
        summary = title.partition(" - ")[2] if title else ""
        api.insert(0, source_entry(
            name=module, category=module, kind="type", signature=f"package {module};",
            description=summary, parameters=(), returns="", path=path,
            line_start=1, line_end=len(page.out),
        ))  # fmt: skip
    if not any(t.strip() for _, t in page.out[1:]):
        return Converted("", None)
    return Converted(
        "\n".join(t for _, t in page.out),
        title,
        tuple(page.anchors),
        monotone([n for n, _ in page.out]),
        tuple(api),
        tuple(page.refs),
    )


def _command(page: _Page, p: Para) -> None:
    name = p.name
    if name.startswith("head") and name[4:].isdigit():
        n = int(name[4:])
        if n == 1:
            page.section = " ".join(p.text.split()).upper()
        api = n > 1 and bool(_API_SECTION.search(page.section))
        entry = entry_name(render(p.text).plain) if api else None
        page.heading(min(6, n + 1), p, entry)
    elif name == "over":
        if len(page.lists) >= MAX_LISTS:
            page.deep += 1  # (its items stay at the deepest indent kept)
        else:
            page.lists.append(_List("", page.indent, api=False))
    elif name == "back":
        if page.deep:
            page.deep -= 1
        elif page.lists:
            page.lists.pop()
        page.marker = ""
    elif name == "item":
        _item(page, p)


def _item(page: _Page, p: Para) -> None:
    if not page.lists:
        page.lists.append(_List("", page.indent))
    lst = page.lists[-1]
    outer = page.lists[-2].indent if len(page.lists) > 1 else ""
    text = p.text.strip()
    if text in ("", "*", "-", "+", "o") or text[:2] in ("* ", "- ", "o "):
        kind, rest = "bullet", (text[2:] if len(text) > 1 else "")
        marker = "- "
    elif m := re.match(r"^(\d+)\.?(?:\s+|$)", text):
        kind, rest = "number", text[m.end() :]
        marker = f"{m.group(1)}. "
    else:
        kind, rest, marker = "definition", text, "- "
    lst.kind = lst.kind or kind
    # (an item is an entry in a list right under an API section or a group heading of one,
    # not in an entry's own list: `has`'s options)
    if kind == "definition" and (lst.api or (
        len(page.lists) == 1 and not page.open and _API_SECTION.search(page.section)
    )):  # fmt: skip
        entry = entry_name(render(text).plain)
        if entry is not None or lst.api:
            lst.api = True
            lst.indent = ""
            page.lists[:] = [lst]
            lst.level = lst.level or min(6, page.level + 1)
            page.heading(lst.level, p, entry)
            page.lists[:] = [lst]
            return
    lst.indent = outer + " " * len(marker)
    page.marker = marker
    if not rest:
        return  # (the marker goes before the item's first paragraph)
    shown = page.inline(rest)
    md = " ".join(shown.md.split())
    if kind == "definition" and "**" not in md:
        md = f"**{md}**"  # (a definition's term, bold as metacpan's)
    at = len(page.out)
    page.block(p.line, [escape_lines(md)], p.end)
    page.refs += [(at, r) for r in shown.refs]
