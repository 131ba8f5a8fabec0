"""GNU Texinfo manuals (`.texi`) read as the HTML manual shows them, in markdown.

One `.texi` file (with the files it `@include`s, resolved before: texinfo_includes.py) is one
page: `@top` (or `@settitle`) its title, `@chapter`/`@unnumbered`/`@appendix` h2,
`@section` h3, `@subsection` h4, `@subsubsection` h5, `@heading` and friends alike; each
heading carries the id makeinfo gives its `@node` (texinfo_inline.node_id) as an anchor, so
`@xref{Node}` links resolve. `@example`/`@smallexample`/`@lisp`/`@verbatim` are code blocks;
`@itemize`/`@enumerate` lists; a `@table` a list of its terms (`@item`/`@itemx`, in the
table's format: `@table @code`), each followed by its text; `@multitable` a table;
`@deffn`/`@defun`/`@defvr`/`@deftypefn`... a definition line and its text, and an entry of the
API registry. As `makeinfo --html` does: `@iftex`/`@tex`/`@ifinfo`/`@ifdocbook`/`@ifxml`/
`@ifplaintext`/`@ifnothtml`/`@titlepage`/`@ignore`/`@menu`/`@direntry`/`@macro` show nothing,
`@ifhtml`/`@ifnottex`/`@ifnotinfo` show their text, `@ifset`/`@ifclear` follow `@set`/`@clear`,
`@copying` shows where `@insertcopying` stands; index entries (`@cindex`, `@findex`, a manual's
own `@btindex`), `@c` comments and layout commands (`@page`, `@sp`, `@noindent`) show nothing.

The parse is one pass over the lines with an explicit stack of open blocks (no recursion), and
each paragraph's inline commands are read by texinfo_inline (a stack as well).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docsmcp.common.logs import warn_once
from docsmcp.model.api import ApiEntry
from docsmcp.model.source import Converted
from docsmcp.sources.formats.linemap import line_mark, strip_mark_char, take_lines
from docsmcp.sources.formats.markdown.fences import code_block
from docsmcp.sources.formats.texinfo.texinfo_defs import DEF, entry, kind_of, parts, prose
from docsmcp.sources.formats.texinfo.texinfo_inline import inline, node_id

_LEVELS = {
    "top": 1,
    "chapter": 2,
    "unnumbered": 2,
    "appendix": 2,
    "majorheading": 2,
    "chapheading": 2,
    "section": 3,
    "unnumberedsec": 3,
    "appendixsec": 3,
    "appendixsection": 3,
    "heading": 3,
    "subsection": 4,
    "unnumberedsubsec": 4,
    "appendixsubsec": 4,
    "subheading": 4,
    "subsubsection": 5,
    "unnumberedsubsubsec": 5,
    "appendixsubsubsec": 5,
    "subsubheading": 5,
}
_CODE_BLOCKS = frozenset("example smallexample lisp smalllisp verbatim".split())
# Blocks the HTML manual does not show (their lines are skipped, nested ones of the same name
# counted).
_HIDDEN = frozenset(
    "ignore iftex tex ifinfo ifdocbook docbook ifxml xml ifplaintext ifnothtml titlepage menu"
    " direntry macro rmacro html documentdescription latex iflatex detailmenu".split()
)
# Blocks whose text shows as written around them (their own lines show nothing).
_SHOWN = frozenset(
    "ifhtml ifnottex ifnotinfo ifnotplaintext ifnotdocbook ifnotxml ifnotlatex group cartouche"
    " float quotation smallquotation indentedblock smallindentedblock display smalldisplay"
    " format smallformat flushleft flushright raggedright center".split()
)
_LISTS = frozenset("itemize enumerate table ftable vtable multitable".split())
# Line commands that show nothing (their line is dropped).
_QUIET = frozenset(
    "setfilename settitle setchapternewpage paragraphindent firstparagraphindent footnotestyle"
    " documentencoding documentlanguage finalout page sp need vskip noindent indent bye"
    " contents shortcontents summarycontents dircategory exampleindent headings everyheading"
    " evenheading oddheading everyfooting evenfooting oddfooting frenchspacing allowcodebreaks"
    " codequoteundirected codequotebacktick deftypefnnewline kbdinputstyle urefbreakstyle"
    " xrefautomaticsectiontitle printindex synindex syncodeindex defindex defcodeindex title"
    " subtitle author shorttitlepage include setcontentsaftertitlepage novalidate refill"
    " smallbook afourpaper afivepaper pagesizes cropmarks hyphenation clickstyle"
    " documentdescription validatemenus sectionpagebreak centerchap alias definfoenclose"
    " tab vtab lowersections raisesections insertcopying".split()
)
_LINE = re.compile(r"^@([A-Za-z]+)(?:[ \t]+(.*?))?[ \t]*$")
_COMMENT = re.compile(r"(?:^|(?<=[^@]))@(?:c|comment)(?:[ \t].*)?$")


@dataclass
class _Open:
    name: str  # the block command
    line: int  # its source line, 0-based
    arg: str = ""  # its argument (a table's format, a deffn's definition line)
    indent: str = ""  # the indent of the text of its items
    count: int = 0  # items so far
    rows: list[list[str]] = field(default_factory=list)  # a multitable's rows
    start: int = 0  # its first markdown line (a definition's entry)
    # a table item's names in a code index (`@item break` `@btindex break`), its signature
    # and first markdown line: an entry of the API registry (_close_item)
    entry: tuple[tuple[str, ...], str, int] | None = None


class _Writer:
    """The markdown, with line marks (linemap) and anchor marks (`\\x00id\\x00`)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.anchors: list[tuple[int, str]] = []

    def blank(self) -> None:
        if self.lines and self.lines[-1].strip():
            self.lines.append("")

    def add(self, line: int, rows: list[str], indent: str = "") -> None:
        rows = [r.rstrip() for r in rows]
        if rows:
            self.lines.append(indent + line_mark(line) + rows[0])
            self.lines += [(indent + r) if r.strip() else "" for r in rows[1:]]


class _Parser:
    def __init__(self, path: str, lines: list[str]) -> None:
        self.path = path
        self.src = lines
        self.values: dict[str, str] = {}
        self.out = _Writer()
        self.stack: list[_Open] = []
        self.title: str | None = None
        self.settitle: str | None = None
        self.node: str | None = None  # the last `@node`, for the next heading
        self.heading = ""  # the text of the last heading (a definition's category)
        self.copying: list[int] = []  # the lines of `@copying`
        self.para: list[str] = []  # the paragraph being read
        self.para_line = 0
        self.term: list[str] = []  # a table item's terms (`@item`, `@itemx`)
        self.marker: tuple[str, str, int] | None = None  # a list item's, before its text
        self.api: list[ApiEntry] = []
        self.code_indexes = {"findex"}  # indexes of functions (`@defcodeindex bt`: btindex)
        self.names: list[str] = []  # the code index entries of the table item being read

    # -- lines ---------------------------------------------------------------------------

    def run(self) -> None:
        work = list(range(len(self.src)))  # line numbers still to read, reversed below
        work.reverse()
        while work:
            number = work.pop()
            if number < 0:  # (an `@insertcopying`: the copying text's lines come next)
                continue
            line = self.src[number]
            if "@c" in line:
                line = _COMMENT.sub("", line)
                if not line.strip() and self.src[number].strip():
                    continue
            m = _LINE.match(line)
            name = m.group(1) if m else ""
            arg = (m.group(2) or "") if m else ""
            if name == "insertcopying":
                work.extend(reversed(self.copying))
            elif name in _HIDDEN or name == "copying" or self._false_condition(name, arg):
                kept = self._skip(work, name)
                if name == "copying":
                    self.copying = kept
            elif name in _CODE_BLOCKS:
                self._code(work, name, number)
            elif name == "end":
                self._end(arg.split()[0] if arg.split() else "", number)
            else:
                self._line(name, arg, line, number)
        self._flush()
        while self.stack:
            self._end(self.stack[-1].name, len(self.src) - 1)

    def _false_condition(self, name: str, arg: str) -> bool:
        if name not in ("ifset", "ifclear"):
            return False
        held = arg.split()[0] in self.values if arg.split() else False
        return held != (name == "ifset")

    def _skip(self, work: list[int], name: str) -> list[int]:
        """Skips a hidden block's lines, to its `@end` (nested ones of its name counted)."""
        depth = 1
        kept: list[int] = []
        opening = re.compile(rf"^@{name}\b")
        while work:
            number = work.pop()
            line = self.src[number].strip()
            if line.startswith("@end") and line[4:].split()[:1] == [name]:
                depth -= 1
                if depth == 0:
                    break
            elif opening.match(line):
                depth += 1
            kept.append(number)
        return kept

    def _code(self, work: list[int], name: str, number: int) -> None:
        """A code block: its lines to `@end NAME`, commands read as text (not in `@verbatim`)."""
        self._flush()
        rows: list[str] = []
        while work:
            n = work.pop()
            line = self.src[n]
            if line.strip() == f"@end {name}":
                break
            if name != "verbatim":
                if line.startswith("@") and (m := _LINE.match(line)) and _in_code_quiet(m):
                    continue  # (`@group`, `@end group`, an index entry, a comment)
                line = _COMMENT.sub("", line) if "@c" in line else line
                line = inline(line, self.values, code=True)[1]
            rows.append(line)
        while rows and not rows[-1].strip():
            rows.pop()
        while rows and not rows[0].strip():
            rows.pop(0)
        if rows:
            if not self._marker():
                self.out.blank()
            self.out.add(number, code_block("", _language(name), rows), self._indent())
            self.out.blank()

    def _line(self, name: str, arg: str, line: str, number: int) -> None:
        top = self.stack[-1] if self.stack else None
        going_on = name not in ("item", "headitem", "node", *_LEVELS) and line.strip()
        if top is not None and top.name == "multitable" and top.rows and going_on:
            top.rows[-1][0] += " " + line.strip()  # (a row goes on: `@tab b` on its line)
            return
        if line.startswith("@anchor{"):  # (the text after it goes on)
            self.out.anchors.append((len(self.out.lines), node_id(_braced(line))))
            line = line.partition("}")[2]
            if not line.strip():
                return  # (alone on its line: a paragraph goes on around it)
        if not name:
            if not line.strip():
                self._flush()
            else:
                self._text(line, number)
            return
        if name == "node":
            self._flush()
            self._node_here()
            self.node = arg.split(",")[0].strip()
        elif name in _LEVELS:
            self._heading(_LEVELS[name], arg, number)
        elif name == "settitle":
            self.settitle = inline(arg, self.values)[1].strip() or None
        elif name == "set":
            key, _, value = arg.partition(" ")
            self.values[key] = value.strip()
        elif name == "clear":
            self.values.pop(arg.strip(), None)
        elif name in _QUIET or name.endswith("index"):
            # (an index entry or a layout command: a paragraph goes on around it)
            if name == "defcodeindex" and arg.split():
                self.code_indexes.add(arg.split()[0] + "index")
            elif name in self.code_indexes and self.term:
                self.names.append(inline(arg, self.values)[1].strip())
        elif name in ("item", "itemx", "headitem") and self.stack and self.stack[-1].name in _LISTS:
            self._item(name, arg, number)
        elif name in _LISTS or DEF.match(name):
            self._open(name, arg, number)
        elif name in _SHOWN:
            self._flush()
            self.stack.append(_Open(name, number, indent=self._indent()))
        elif name == "center":
            self._flush()
            self._text(arg, number)
            self._flush()
        else:
            self._text(line, number)

    def _node_here(self) -> None:
        """The anchor of a `@node` no heading follows, where its text starts."""
        if self.node:
            self.out.anchors.append((len(self.out.lines), node_id(self.node)))
            self.node = None

    def _text(self, line: str, number: int) -> None:
        self._node_here()
        if not self.para:
            self.para_line = number
        self.para.append(line)

    def _indent(self) -> str:
        return self.stack[-1].indent if self.stack else ""

    def _flush(self) -> None:
        """Writes the paragraph read so far (its inline commands read)."""
        if self.term:
            self._write_term()
        if not self.para:
            return
        md = inline("\n".join(self.para), self.values)[0]
        self.para = []
        rows = [r.strip() for r in md.split("\n") if r.strip()]
        if not rows:
            return
        # a line markdown would read as a heading, quote, list or fence is text here
        rows = [
            ("\\" + r if r[0] in "#>+|" or r.startswith(("```", "- ", "* ")) else r) for r in rows
        ]
        self.out.blank()
        if self.marker is not None:
            marker, base, _ = self.marker
            self.marker = None
            self.out.add(self.para_line, [f"{marker} {rows[0]}"], base)
            self.out.add(self.para_line + 1, rows[1:], self._indent()) if rows[1:] else None
        else:
            self.out.add(self.para_line, rows, self._indent())
        self.out.blank()

    def _marker(self) -> bool:
        """Writes a list item's marker with no text after it (a code block, a list follows)."""
        if self.marker is None:
            return False
        marker, base, number = self.marker
        self.marker = None
        self.out.blank()
        self.out.add(number, [marker], base)
        return True

    def _heading(self, level: int, arg: str, number: int) -> None:
        self._flush()
        md, plain = inline(arg, self.values)
        text = " ".join(md.split()) or self.node or "Section"
        if level == 1:
            self.title = self.title or " ".join(plain.split()) or None
        self.heading = " ".join(plain.split())
        self.out.blank()
        anchor = f"\x00{node_id(self.node)}\x00" if self.node else ""
        self.out.add(number, [f"{'#' * level} {text}{anchor}"])
        self.out.blank()
        self.node = None

    # -- blocks ------------------------------------------------------------------------------

    def _open(self, name: str, arg: str, number: int) -> None:
        self._flush()
        self._marker()
        indent = self._indent()
        top = self.stack[-1] if self.stack else None
        if DEF.match(name) and name.endswith("x") and top is not None and top.name == name[:-1]:
            self._definition(top, name, arg, number)  # (`@deffnx`: one more line)
            return
        opened = _Open(name, number, arg, indent, start=len(self.out.lines))
        self.stack.append(opened)
        if DEF.match(name):
            self._definition(opened, name, arg, number)

    def _definition(self, block: _Open, name: str, arg: str, number: int) -> None:
        """The line of a `@deffn`-like definition: its category in bold, then the name and
        arguments as code (makeinfo's `Command: make args`)."""
        category, type_, words = parts(name, arg)
        ident = inline(words[0], self.values)[1].strip() if words else ""
        plain = inline(" ".join(([type_] if type_ else []) + words), self.values)[1].strip()
        cat = inline(category, self.values)[1].strip()
        if not block.arg.startswith("\x01"):
            block.arg = "\x01" + "\x02".join([cat, ident, plain])
            block.start = len(self.out.lines)
        self.out.blank()
        self.out.add(number, [f"**{cat}:** `{plain}`" if cat else f"`{plain}`"], block.indent)
        self.out.blank()
        block.count = len(self.out.lines)  # (its text starts here)

    def _item(self, name: str, arg: str, number: int) -> None:
        block = self.stack[-1]
        if block.name == "multitable":
            block.rows.append([arg])  # (its cells are split at `@tab` once it is read: _table)
            return
        if name == "itemx" and self.term:
            self.term.append(arg)
            return
        self._flush()
        self._close_item(block)
        block.count += 1
        if block.name in ("table", "ftable", "vtable"):
            self.term = [arg]
            if block.name == "ftable" and arg.split():
                self.names.append(inline(arg, self.values)[1].split()[0])
            self.para_line = number
            block.indent = ""
            return
        marker = f"{block.count}." if block.name == "enumerate" else "-"
        base = self._outer_indent()
        block.indent = base + " " * (len(marker) + 1)
        self.marker = (marker, base, number)
        if arg.strip():
            self._text(arg, number)

    def _outer_indent(self) -> str:
        return self.stack[-2].indent if len(self.stack) > 1 else ""

    def _write_term(self) -> None:
        block = self.stack[-1]
        fmt = block.arg.strip().lstrip("@").split()
        cmd = fmt[0] if fmt else "asis"
        terms = []
        for t in self.term:
            # (`@item : @r{(a colon)}`: the roman part is no code)
            t, roman, rest = t.partition("@r{")
            source = t if cmd in ("asis", "") else f"@{cmd}{{{t.strip()}}}"
            terms.append(inline(source + (" " + roman + rest if roman else ""), self.values)[0])
        if self.names:
            plain = ", ".join(inline(t, self.values)[1].strip() for t in self.term)
            block.entry = (
                tuple(dict.fromkeys(x for x in self.names if x)),
                plain,
                len(self.out.lines),
            )
            self.names = []
        base = self._outer_indent()
        self.out.blank()
        self.out.add(self.para_line, [f"- {', '.join(x for x in terms if x)}"], base)
        self.out.blank()
        block.indent = base + "  "
        self.term = []

    def _end(self, name: str, number: int) -> None:
        self._flush()
        self._marker()
        if not self.stack or name not in {b.name for b in self.stack}:
            return  # (an `@end` of nothing open)
        while self.stack:
            block = self.stack.pop()
            self._close_item(block)
            if block.name == "multitable":
                self._table(block)
            elif DEF.match(block.name) and block.arg.startswith("\x01"):
                self._entry(block, number)
            if block.name == name:
                break
        self.out.blank()

    def _table(self, block: _Open) -> None:
        split = [
            [inline(c, self.values)[0].strip() for c in r[0].split("@tab")] for r in block.rows
        ]
        rows = [r for r in split if any(c.strip() for c in r)]
        if not rows:
            return
        width = max(len(r) for r in rows)
        cells = [[c.replace("|", "\\|") for c in r] + [""] * (width - len(r)) for r in rows]
        self.out.blank()
        lines = ["| " + " | ".join(cells[0]) + " |", "|" + " --- |" * width]
        lines += ["| " + " | ".join(r) + " |" for r in cells[1:]]
        self.out.add(block.line, lines, block.indent)

    def _close_item(self, block: _Open) -> None:
        """The registry entries of a table item whose names a code index holds (Bash's
        builtins, Make's functions): its signature the first line of the example that opens
        its text, else its term."""
        if block.entry is None:
            return
        names, signature, start = block.entry
        block.entry = None
        for name in names:
            lines = self.out.lines[start + 1 :]
            # (its signature: the example's first line, else the term)
            signature = prose(lines)[0] or signature
            span = (start, len(self.out.lines))
            self.api.append(
                entry(self.path, name, (self.heading, "method"), signature, lines, span)
            )

    def _entry(self, block: _Open, number: int) -> None:
        category, name, signature = block.arg[1:].split("\x02", 2)
        if not name:
            return
        lines = self.out.lines[block.count :]
        where = (self.heading or category, kind_of(category))
        span = (block.start, len(self.out.lines))
        self.api.append(entry(self.path, name, where, signature, lines, span))


def _in_code_quiet(m: re.Match[str]) -> bool:
    name, arg = m.group(1), (m.group(2) or "")
    return (
        name in ("group", "c", "comment", "noindent", "need", "sp", "page")
        or name.endswith("index")
        or (name == "end" and arg.strip() == "group")
    )


def _braced(line: str) -> str:
    m = re.search(r"\{([^}]*)\}", line)
    return m.group(1).strip() if m else ""


def _language(name: str) -> str:
    return "lisp" if "lisp" in name else ""


def texinfo_to_markdown(path: str, raw: str) -> Converted:
    source = strip_mark_char(raw).replace("\x00", "")
    lines = source.split("\n")
    if lines and lines[0].startswith("\\input"):
        lines[0] = ""
    parser = _Parser(path, lines)
    parser.run()
    if not any(_LINE.match(x) for x in lines[:400] if x.startswith("@")):
        warn_once(f"texinfo:{path}", "%s: no Texinfo commands: read as text", path)
    title = parser.title or parser.settitle
    text = "\n".join(parser.out.lines).rstrip("\n")
    # anchors of `@anchor`: marks on the line they stand before
    if parser.out.anchors:
        rows = text.split("\n")
        for at, ident in parser.out.anchors:
            at = min(at, len(rows) - 1)
            rows[at] += f"\x00{ident}\x00"
        text = "\n".join(rows)
    text, line_map = take_lines(text, len(lines))
    body, anchors = _take_anchors(text)
    return Converted(body, title, anchors, line_map, tuple(parser.api))


def _take_anchors(text: str) -> tuple[str, tuple[tuple[int, str], ...]]:
    rows = text.split("\n")
    anchors: list[tuple[int, str]] = []
    for i, row in enumerate(rows):
        if "\x00" in row:
            anchors.extend((i, m) for m in re.findall("\x00([^\x00]*)\x00", row) if m)
            rows[i] = re.sub("\x00[^\x00]*\x00", "", row).rstrip()
    return "\n".join(rows), tuple(anchors)
