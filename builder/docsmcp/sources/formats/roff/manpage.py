"""A manual page in roff, man(7) or mdoc(7), as markdown, the way `man` and mandoc show it.

The title is the page's name, section and description (`# tmux(1) — terminal multiplexer`,
from `.TH` or `.Dt`, and the NAME section, which the title replaces); `.SH`/`.Sh` sections and
`.SS`/`.Ss` subsections are headings. Filled text keeps its source lines (so the line map is
exact) with fonts as emphasis; `.PP`/`.LP`/`.P`/`.Pp`/`.sp`/`.br` start paragraphs. Tagged and
indented paragraphs (`.TP`, `.IP`, `.TQ`, nested by `.RS`/`.RE`) and mdoc lists (`.Bl -tag`,
`-bullet`, `-enum`, `-column`, `.It`, `.El`) are markdown lists: a tagged item is its tag in a
line of its own, its text indented below; `-column` lists and tbl tables are tables.
`.nf`/`.fi`, `.EX`/`.EE`, `.Bd -literal`/`-unfilled` and `.Dl` are code blocks.

Entries (roff_entries.py): each item of a tagged list directly in a section, whose tag names an
option, command, keyword or variable (`-L`, `--delete`, `new-session`, `ProxyJump`,
`PROMPT_COMMAND`), is an API entry named with the program as users write it (`ssh -L`,
`tmux new-session`, `ssh_config ProxyJump`). A page named by `.Xr` or written `name(N)` is an
object reference; each page has the anchors `object:name(N)` of its names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docsmcp.model.api import OBJECT_ANCHOR
from docsmcp.model.source import Converted
from docsmcp.sources.formats.linemap import monotone
from docsmcp.sources.formats.markdown.fences import fence_for
from docsmcp.sources.formats.roff.mdoc_inline import CALLABLE, MdocState, macro_line
from docsmcp.sources.formats.roff.roff_entries import Item, entries_for, named_with, ref_names
from docsmcp.sources.formats.roff.roff_heads import Head, head_of, headed
from docsmcp.sources.formats.roff.roff_lines import Line, lines
from docsmcp.sources.formats.roff.roff_tbl import table
from docsmcp.sources.formats.roff.roff_text import (
    Fonts,
    alternate,
    escape_md,
    guard_line,
    markdown,
    plain,
    runs,
    unmark,
)
from docsmcp.sources.formats.source.page_text import PageText

MAX_SOURCE_CHARS = 3_000_000
# Lists and `.RS` blocks open at once, at most: one past it is read as the text of the one it is
# in (and its `.El`/`.RE` ends nothing), so a page of 20,000 `.Bl` reads in linear time.
MAX_FRAMES = 32
_ALTERNATING = {"BR": "BR", "BI": "BI", "IB": "IB", "IR": "IR", "RB": "RB", "RI": "RI"}
_PARAGRAPH = frozenset({"PP", "LP", "P", "Pp", "Lp", "HP", "sp", "br", "PD_"})
_LITERAL_BD = ("-literal", "-unfilled", "-centered")
_TAGGED = ("-tag", "-hang", "-ohang", "-inset", "-diag")


@dataclass
class _Frame:
    kind: str  # "list" (mdoc .Bl), "man" (.TP/.IP items), "rs" (.RS)
    indent: str  # the prefix of the frame's own lines (its items' markers)
    style: str = "-tag"
    count: int = 0
    item: Item | None = None  # the open item
    rows: list[list[str]] = field(default_factory=list)  # a -column list's rows


@dataclass
class _Page(PageText):
    mdoc: MdocState = field(default_factory=MdocState)
    fonts: Fonts = field(default_factory=Fonts)
    strings: dict[str, str] = field(default_factory=dict)
    frames: list[_Frame] = field(default_factory=list)
    section: str = ""
    subsection: str = ""
    level: int = 2
    para: bool = False  # a paragraph is open (its next line joins it)
    marker: str | None = None  # a list marker the next text line starts with
    code: list[str] | None = None  # the lines of an open code block
    code_at: int = 0
    code_end: str = ""
    tag_next: int = 0  # lines still to read as the open item's tag (.TP: 1)
    head_open: bool = False  # an `.It … Xo` head continues until `.Xc`
    font_next: str = ""  # `.B`/`.I` without arguments: the font of the next line
    names: list[str] = field(default_factory=list)
    sec: str = ""
    title_name: str = ""
    description: str = ""
    name_text: list[str] = field(default_factory=list)
    skipped: int = 0  # lists and `.RS` blocks not opened (MAX_FRAMES): their ends end nothing
    heads: list[Head] = field(default_factory=list)  # this section's entry items (roff_heads)

    # -- where lines go -------------------------------------------------------------

    def indent(self) -> str:
        for frame in reversed(self.frames):
            if frame.kind == "rs":
                return frame.indent
            if frame.item is not None:
                return frame.indent + " " * frame.item.width
            return frame.indent
        return ""

    def text_line(self, at: int, md: str, attach: bool = False) -> None:
        if self.tag_next or self.head_open:
            item = self.open_item()
            if item is not None:
                if attach and item.head:
                    item.head[-1] += md
                    item.head_plain[-1] += unmark(md)
                else:
                    item.head.append(md)
                    item.head_plain.append(unmark(md))
                if self.tag_next:
                    self.tag_next -= 1
                    if not self.tag_next:
                        self.write_head(at)
                return
            self.tag_next = 0
            self.head_open = False
        if not md.strip():
            return
        if self.section == "NAME":
            self.name_text.append(md)
            return
        self.collect_refs(at, md)
        if attach and self.para and self.out and self.marker is None:
            line, prev = self.out[-1]
            self.out[-1] = (line, prev + md)
            return
        if self.marker is not None:
            self.add(at, self.marker + guard_line(md))
            self.marker = None
        else:
            if not self.para:
                self.blank(at)
            self.add(at, self.indent() + guard_line(md.lstrip()))
        self.para = True
        item = self.open_item()
        if item is not None and len(item.body) < 4:
            item.body.append(unmark(md))

    def collect_refs(self, at: int, md: str) -> None:
        for name in ref_names(md, self.section == "SEE ALSO"):
            self.refs.append((len(self.out), name))

    def paragraph(self) -> None:
        self.para = False

    def open_item(self) -> Item | None:
        for frame in reversed(self.frames):
            if frame.kind == "rs":
                return None
            return frame.item
        return None

    # -- headings --------------------------------------------------------------------

    def heading(self, at: int, level: int, text: str) -> None:
        self.close_all(at)
        self.heads = headed(self.out, self.heads)
        title = " ".join(text.split())
        if level == 2:
            self.section, self.subsection = title.upper(), ""
        else:
            self.subsection = title
        self.level = level
        if self.section == "NAME":
            return
        self.blank(at)
        self.add(at, f"{'#' * level} {escape_md(title)}")
        self.blank(at)
        self.para = False

    # -- lists -----------------------------------------------------------------------

    def depth(self, frame: _Frame) -> int:
        """How many lists hold `frame`'s items, itself included (`.RS` blocks not counted)."""
        if frame in self.frames:
            upto = self.frames[: self.frames.index(frame) + 1]
        else:
            upto = [*self.frames, frame]
        return sum(1 for f in upto if f.kind != "rs")

    def close_item(self, frame: _Frame, at: int) -> None:
        depth = self.depth(frame)
        item, frame.item = frame.item, None
        if item is None:
            return
        if self.tag_next or self.head_open:
            self.tag_next, self.head_open = 0, False
            self.write_head(at, item)
        found = entries_for(self.path, item, len(self.out), depth)
        self.api += found
        if found and not frame.indent:  # (an item that may head its own section: roff_heads)
            self.heads.append(head_of(item, found[0].name, len(self.out), self.level))

    def open_frame(self, at: int, kind: str, style: str = "-tag") -> None:
        """`.RS`, `.Bl`: a block or list opens, unless MAX_FRAMES are open (then its end will
        end nothing)."""
        self.end_code(at)
        if len(self.frames) >= MAX_FRAMES:
            self.skipped += 1
        else:
            self.frames.append(_Frame(kind, self.indent(), style))
        self.paragraph()

    def close_frames(self, at: int, kind: str) -> bool:
        """`.RE`, `.El`: the frames up to the innermost of `kind` close; False, closing
        nothing, when the block or list that ends was not opened (open_frame)."""
        self.end_code(at)
        if self.skipped:
            self.skipped -= 1
            return False
        while self.frames:
            last = self.frames[-1].kind
            self.close_frame(at)
            if last == kind:
                break
        return True

    def close_frame(self, at: int) -> None:
        frame = self.frames.pop()
        self.close_item(frame, at)
        if frame.rows:
            self.blank(at)
            self.add_table(at, frame.indent, frame.rows)
        self.marker = None
        self.para = False

    def close_all(self, at: int) -> None:
        self.end_code(at)
        while self.frames:
            self.close_frame(at)

    def close_man(self, at: int) -> None:
        """`.PP` and its kin end the `.TP`/`.IP` items open at this `.RS` level."""
        while self.frames and self.frames[-1].kind == "man":
            self.close_frame(at)

    def new_item(
        self,
        at: int,
        frame: _Frame,
        head: list[str],
        tagged: bool,
        open_head: bool = False,
        tag_lines: int = 0,
    ) -> None:
        """A list item; with `open_head` its tag goes on to `.Xc` (mdoc's `.It Xo`), with
        `tag_lines` it is the next lines (`.TP`'s)."""
        self.end_code(at)
        self.close_item(frame, at)
        self.head_open = open_head
        self.tag_next = tag_lines
        frame.count += 1
        if frame.style == "-enum":
            marker = f"{frame.count}. "
        elif frame.style in ("-item",):
            marker = ""
        else:
            marker = "- "
        item = Item(at, len(self.out), len(marker) or 0, tagged, self.section, self.subsection)
        frame.item = item
        self.para = False
        if tagged:
            item.head.extend(x for x in head if x)
            item.head_plain.extend(unmark(x) for x in head if x)
            if not self.tag_next and not self.head_open:
                self.write_head(at, item)
        else:
            self.marker = frame.indent + marker if marker else None

    def write_head(self, at: int, item: Item | None = None) -> None:
        item = item or self.open_item()
        if item is None:
            return
        frame = next(f for f in reversed(self.frames) if f.kind != "rs")
        shown = " ".join(x for x in item.head if x.strip()).replace(" , ", ", ").strip() or "•"
        item.line = len(self.out)
        self.blank(at)
        item.line = len(self.out)
        self.add(at, f"{frame.indent}- {shown}")
        for name in ref_names(shown, False):
            self.refs.append((item.line, name))
        self.blank(at)
        self.para = False

    def add_table(self, at: int, indent: str, rows: list[list[str]]) -> None:
        width = max(len(r) for r in rows)
        for k, row in enumerate(rows):
            cells = [c.replace("|", "\\|").strip() or " " for c in row]
            self.add(at, indent + "| " + " | ".join(cells + [" "] * (width - len(row))) + " |")
            if k == 0:
                self.add(at, indent + "|" + "---|" * width)
        self.para = False

    # -- code ------------------------------------------------------------------------

    def start_code(self, at: int, end: str) -> None:
        self.end_code(at)
        self.code, self.code_at, self.code_end = [], at, end

    def end_code(self, at: int) -> None:
        if self.code is None:
            return
        body, self.code = self.code, None
        while body and not body[-1].strip():
            body.pop()
        while body and not body[0].strip():
            body.pop(0)
        if not body:
            return
        indent = self.marker.replace("-", " ") if self.marker else self.indent()
        if self.marker is not None:
            self.add(self.code_at, self.marker.rstrip())
            self.marker = None
        self.blank(self.code_at)
        fence = fence_for(body)
        self.add(self.code_at, indent + fence)
        for k, x in enumerate(body):
            self.add(self.code_at + k, indent + x if x else "")
        self.add(at, indent + fence)
        self.blank(at)
        self.para = False


def _inline(page: _Page, text: str) -> str:
    return markdown(runs(text, page.fonts, page.strings))


def _code_line(page: _Page, ln: Line) -> str | None:
    """A line inside a code block as its plain text (None: a request that prints nothing)."""
    if not ln.name:
        return plain(ln.text, page.strings).replace("\t", "    ")
    if ln.name in ("B", "I", "SM", "SB", "R", "CW") or ln.name in _ALTERNATING:
        return "".join(plain(a, page.strings) for a in ln.args) if ln.name in _ALTERNATING \
            else " ".join(plain(a, page.strings) for a in ln.args)  # fmt: skip
    if ln.name in ("sp", "Pp", "PP", "P", "LP"):
        return ""
    if ln.name in CALLABLE:
        return macro_line(ln.name, ln.args, page.mdoc, text=True)[0]
    if ln.name == "ft" and ln.args:
        page.fonts.set(ln.args[0])
    return None


def _man_list(page: _Page, at: int) -> _Frame:
    """The frame of `.TP`/`.IP` items at the current `.RS` level (opened when none is)."""
    if page.frames and page.frames[-1].kind == "man":
        return page.frames[-1]
    frame = _Frame("man", page.indent())
    page.frames.append(frame)
    return frame


def _request(page: _Page, ln: Line, rest: list[Line], k: int) -> int:
    """Reads request `ln` (line `k` of `rest`); the index of the next line to read."""
    name, args, at = ln.name, ln.args, ln.at
    if page.code is not None:
        if name in ("fi", "EE", "Ed", "SH", "Sh", "SS", "Ss", "TE_"):
            page.end_code(at)
            if name in ("fi", "EE", "Ed"):
                return k + 1
        else:
            shown = _code_line(page, ln)
            if shown is not None:
                page.code.append(page.indent() and shown)
            return k + 1
    if name in ("TH", "Dt"):
        page.title_name = plain(args[0], page.strings) if args else ""
        page.sec = plain(args[1], page.strings) if len(args) > 1 else ""
    elif name in ("SH", "Sh", "SS", "Ss"):
        level = 2 if name in ("SH", "Sh") else 3
        text = " ".join(plain(a, page.strings) for a in args)
        if not text and k + 1 < len(rest) and not rest[k + 1].name:
            k += 1
            text = plain(rest[k].text, page.strings)
        page.heading(at, level, text)
    elif name in _PARAGRAPH:
        if name not in ("br", "sp"):
            page.close_man(at)
        page.paragraph()
    elif name == "TP" or name == "TQ":
        frame = _man_list(page, at)
        if name == "TQ" and frame.item is not None:
            page.tag_next = 1
            return k + 1
        page.new_item(at, frame, [], True, tag_lines=1)
    elif name == "IP":
        tag = _inline(page, args[0]) if args else ""
        if not tag.strip():
            page.paragraph()
            return k + 1
        bullet = tag.strip() in ("•", "\\*", "-", "o", "\\-", "*", "\\(bu")
        frame = _man_list(page, at)
        if bullet:
            frame.style = "-bullet"
        page.new_item(at, frame, [] if bullet else [tag], not bullet)
    elif name == "RS":
        page.open_frame(at, "rs")
    elif name == "RE":
        if not page.close_frames(at, "rs"):
            return k + 1
        page.paragraph()
    elif name in ("nf", "EX"):
        page.start_code(at, "fi" if name == "nf" else "EE")
    elif name == "Bd":
        if any(a in _LITERAL_BD for a in args):
            page.start_code(at, "Ed")
        else:
            page.paragraph()
    elif name == "Ed":
        page.paragraph()
    elif name in ("Dl",):
        page.start_code(at, "")
        page.code.append(macro_line("", args, page.mdoc, text=True)[0])  # type: ignore[union-attr]
        page.end_code(at)
    elif name == "D1":
        page.paragraph()
        page.text_line(at, macro_line("", args, page.mdoc)[0])
        page.paragraph()
    elif name == "Bl":
        style = next((a for a in args if a in (*_TAGGED, "-bullet", "-dash", "-hyphen", "-item",
                                                "-enum", "-column")), "-tag")  # fmt: skip
        page.open_frame(at, "list", style)
    elif name == "It":
        frame = next((f for f in reversed(page.frames) if f.kind == "list"), None)
        if frame is None:
            return k + 1
        while page.frames[-1] is not frame:
            page.close_frame(at)
        if frame.style == "-column":
            page.close_item(frame, at)
            cells = [[]]  # type: list[list[str]]
            for a in args:
                if a == "Ta":
                    cells.append([])
                else:
                    cells[-1].append(a)
            frame.rows.append([macro_line("", tuple(c), page.mdoc)[0] for c in cells])
            return k + 1
        tagged = frame.style in _TAGGED
        head = macro_line("", args, page.mdoc)[0] if tagged and args else ""
        item = frame.item
        if tagged and item is not None and head and len(page.out) == item.line + 2:
            # (an item with no text yet: `.It` after `.It` is one more tag of it, as `.TQ`;
            # its head is written again with both)
            del page.out[item.line :]
            item.head.append(", " + head)
            item.head_plain.append(", " + unmark(head))
            page.head_open = "Xo" in args and "Xc" not in args
            if not page.head_open:
                page.write_head(at, item)
            return k + 1
        open_head = tagged and "Xo" in args and "Xc" not in args
        page.new_item(at, frame, [head] if head else [], tagged, open_head)
        if frame.item is not None:
            frame.item.macro = next((a for a in args if a != "Xo"), "")
    elif name == "El":
        if not page.close_frames(at, "list"):
            return k + 1
    elif name == "Xc" and page.head_open:
        page.head_open = False
        page.write_head(at)
    elif name == "Nm" and page.section == "NAME":
        page.names += [plain(a, page.strings) for a in args if a != ","]
    elif name == "Nd":
        page.description = " ".join(plain(a, page.strings) for a in args)
    elif name == "ft":
        page.fonts.set(args[0] if args else "P")
    elif name in ("B", "I", "SM", "SB", "CW"):
        if not args:
            page.font_next = "B" if name in ("B", "SB") else ("I" if name == "I" else "")
            return k + 1
        font = "B" if name in ("B", "SB") else ("I" if name == "I" else "")
        text = " ".join(args)
        parts = [(font or f, t) for f, t in runs(text, Fonts(), page.strings)]
        page.text_line(at, markdown(parts))
    elif name in _ALTERNATING:
        page.text_line(at, alternate(name, args, page.strings))
    elif name == "OP":
        inner = [("B", plain(args[0], page.strings))] if args else []
        if len(args) > 1:
            inner += [("", " "), ("I", plain(args[1], page.strings))]
        page.text_line(at, markdown([("", "["), *inner, ("", "]")]))
    elif name == "SY":
        page.paragraph()
        page.text_line(at, markdown([("B", " ".join(plain(a, page.strings) for a in args))]))
    elif name in ("UR", "MT"):
        page.text_line(at, escape_md(plain(args[0], page.strings)) if args else "")
    elif name == "TS":
        body: list[str] = []
        k += 1
        while k < len(rest) and rest[k].name != "TE":
            body.append(rest[k].text if not rest[k].name else "." + rest[k].name)
            k += 1
        shown = table(body, page.strings)
        if shown:
            page.end_code(at)
            page.blank(at)
            for x in shown:
                page.add(at, page.indent() + x)
            page.para = False
        return k + 1
    elif name in CALLABLE or name in ("Nm", "Fn", "Ft", "Fd", "Vt", "Rs", "Re") or name[:1] == "%":
        if name in ("Rs", "Re"):
            page.paragraph()
            return k + 1
        if page.section == "SYNOPSIS" and name in ("Nm", "Fn", "Fo", "Ft", "In", "Fd"):
            page.paragraph()
        md, attach = macro_line(name, args, page.mdoc)
        page.text_line(at, md, attach)
    return k + 1


def _text(page: _Page, ln: Line) -> None:
    if page.code is not None:
        page.code.append(plain(ln.text, page.strings).replace("\t", "    "))
        return
    text = ln.text
    if not text.strip():
        page.paragraph()
        return
    if text[:1] in " \t":
        page.paragraph()
    md = _inline(page, text)
    if page.font_next:
        md = markdown([(page.font_next, plain(text, page.strings))])
        page.font_next = ""
    page.text_line(ln.at, md)


def _title(page: _Page) -> tuple[str, str, str]:
    """(the page's title, its program name, which entries are named with, its description)."""
    names = page.names
    desc = page.description
    if not names and page.name_text:  # (man(7): `name, other \- what it is`)
        joined = " ".join(unmark(x) for x in page.name_text)
        parts = re.split(r"\s(?:-|—|–)\s", joined, maxsplit=1)
        names = [n.strip() for n in parts[0].split(",") if n.strip()]
        desc = desc or (parts[1].strip() if len(parts) > 1 else "")
    program = names[0] if names else page.title_name.lower()
    shown = ", ".join(dict.fromkeys(names)) or page.title_name.lower() or page.path
    title = f"{shown}({page.sec})" if page.sec else shown
    return (f"{title} — {desc}" if desc else title), program, desc


def man_to_markdown(path: str, text: str) -> Converted:
    """The page of a roff manual page (see the module docstring)."""
    text = text.removeprefix("\ufeff").replace("\x00", "")
    if len(text) > MAX_SOURCE_CHARS:
        return Converted(text, None)
    page = _Page(path)
    read, page.strings = lines(text)
    # The page's name first: `.Nm` without arguments shows it wherever it stands.
    for ln in read:
        if ln.name == "Nm" and ln.args:
            page.mdoc.name = plain(ln.args[0])
            break
    page.mdoc.name = page.mdoc.name or next(
        (plain(ln.args[0]).lower() for ln in read if ln.name == "TH" and ln.args), ""
    )
    page.add(0, "")  # (the title's line, written when the NAME section has been read)
    page.add(0, "")
    k = 0
    while k < len(read):
        ln = read[k]
        if ln.name:
            k = _request(page, ln, read, k)
        else:
            _text(page, ln)
            k += 1
    end = read[-1].at if read else 0
    page.close_all(end)
    headed(page.out, page.heads)
    title, program, desc = _title(page)
    page.out[0] = (0, "# " + escape_md(title))
    for name in dict.fromkeys([*page.names, program, page.mdoc.name]):
        if name and page.sec:
            page.anchors.append((0, f"{OBJECT_ANCHOR}{name}({page.sec})"))
    page.description = desc
    api = tuple(named_with(e, program) for e in page.api)
    return Converted(
        "\n".join(t for _, t in page.out),
        title,
        tuple(page.anchors),
        monotone([n for n, _ in page.out]),
        api,
        tuple(page.refs),
        description=page.description or None,
    )
