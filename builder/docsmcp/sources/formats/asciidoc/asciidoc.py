"""An AsciiDoc page (Asciidoctor, Antora) as markdown, read line by line.

What a reader of the rendered page sees is written as markdown the chunker reads: the document
title (`= Title`) and sections (`==` ... `======`, or `#` ...) as `#` headings, an explicit id
(`[[id]]`, `[#id]`) as the heading's `{#id}` (as for markdown's explicit anchors), else
Asciidoctor's generated id (`_install_ruby`, by the document's `idprefix`/`idseparator`) as an
anchor of the heading line, so `<<_install_ruby>>` from any page resolves; paragraphs; block
titles (`.Title`) as a bold line; admonitions (`NOTE: text`, `[TIP]` on a block) as a `Note:`
label line; lists (`*`, `-`, `.`, numbered, nested by marker, `term::` description lists,
`+` continuations and attached literal paragraphs, callout lists); delimited blocks: listing
(`----`, `[source,lang]`, a ```` ``` ```` fence) and literal (`....`, an indented paragraph) as
fenced code with their language, example, sidebar, open and quote blocks as their content,
comments and passthroughs dropped (a `[stem]` one kept as math); tables (`|===`, `,===`,
`:===`) as pipe rows (asciidoc_tables.py). Attribute entries (`:name: value`) set what `{name}`
shows further down; conditionals are the preprocessor's (asciidoc_lines.py); inline markup is
asciidoc_inline.py's. Includes are resolved before (asciidoc_includes.py).

Each block carries its source line (linemap.py), so chunks name lines of the .adoc file. A
pure function of (path, text), bounded: nesting deeper than MAX_NESTING reads as text, regexes
are bounded (asciidoc_inline.SPAN), and every scan moves forward.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from docsmcp.model.source import Converted
from docsmcp.model.text import slugify
from docsmcp.sources.files import ASCIIDOC_SUFFIXES
from docsmcp.sources.formats.asciidoc.asciidoc_inline import (
    CONTROL,
    Inline,
    plain,
    reduce,
    substitute,
)
from docsmcp.sources.formats.asciidoc.asciidoc_lines import (
    ADMONITION_PARAGRAPH,
    ADMONITIONS,
    ANCHOR_LINE,
    ATTRIBUTE_ENTRY,
    BLOCK_MACRO,
    BLOCK_TITLE,
    SECTION,
    Attributes,
    kind,
    parse_attributes,
    preprocess,
    set_attribute,
)
from docsmcp.sources.formats.asciidoc.asciidoc_lists import LIST_KINDS, ListReader
from docsmcp.sources.formats.asciidoc.asciidoc_tables import table
from docsmcp.sources.formats.asciidoc.resource_ids import place, relative_href, resource
from docsmcp.sources.formats.html.htmlpage import take_marks
from docsmcp.sources.formats.linemap import line_mark, strip_mark_char, take_lines
from docsmcp.sources.formats.markdown.fences import fence_for

Line = tuple[str, int]  # a line of the page and its 0-based line in the text converted

# Blocks nested deeper than this (an example in a sidebar in a list item ...) read as text.
MAX_NESTING = 24
# Asciidoctor's defaults for generated section ids; Antora sets `env-site` and friends.
DEFAULT_ATTRIBUTES = {"idprefix": "_", "idseparator": "_", "sectids": ""}
SITE_ATTRIBUTES = {"env": "site", "env-site": "", "site-gen": "antora", "site-gen-antora": ""}
_CODE_STYLES = ("source", "listing")
_CALLOUT_AUTO = re.compile(r"<\.>")
_INVALID_ID = re.compile(r"<[^>]+>|&(?:[a-z][a-z]+\d{0,2}|#\d\d\d{0,4}|#x[\da-f]{3,5});|[^ \w.-]+")
# An explicit id usable as a heading's slug (chunking.chunk._ANCHOR_ID's grammar).
_SLUG_ID = re.compile(r"[A-Za-z0-9][\w.:-]*")
_MARKUP_START = re.compile(r"^([#>]|[-+*](?=\s)|\d{1,9}[.)](?=\s)|```|~~~|=+$|-+$)")
_DELIMITER_ROW = re.compile(r"[ \t]*[-:|][-:| \t]*")


@dataclass
class _Meta:
    """What the lines above a block say of it: attributes, title, id."""

    attributes: Attributes = field(default_factory=Attributes)
    title: str = ""
    title_line: int | None = None

    @property
    def style(self) -> str:
        return self.attributes.style.lower()


def asciidoc_to_markdown(path: str, text: str) -> Converted:
    """The markdown of the AsciiDoc page at `path` (its POSIX path in the docs, for links),
    and the page's line each of its lines comes from."""
    text = strip_mark_char(text).translate(CONTROL)
    raw = text.split("\n")
    attributes = dict(DEFAULT_ATTRIBUTES)
    if place(path) is not None:
        attributes.update(SITE_ATTRIBUTES)
    stem = posixpath.splitext(posixpath.basename(path))[0]
    attributes.update(docname=stem, docfilesuffix=posixpath.splitext(path)[1])
    lines = preprocess(raw, dict(attributes))
    reader = _Reader(path, attributes)
    reader.ctx.titles.update(_section_ids(lines))
    blocks = reader.document(lines)
    if reader.ctx.footnotes:
        blocks.append("\n".join(f"\\[{k}\\] {n}" for k, n in enumerate(reader.ctx.footnotes, 1)))
    described = " ".join(attributes.get("description", "").split()) or None
    if not blocks:
        return Converted("", reader.title, (), (0,), description=described)
    body, line_map = take_lines("\n\n".join(blocks) + "\n", len(raw))
    body, anchors = take_marks(body)
    return Converted(body, reader.title, anchors, line_map, description=described)


class _Reader(ListReader):
    def __init__(self, path: str, attributes: dict[str, str]) -> None:
        self.path = path
        self.attributes = attributes
        self.ctx = Inline(attributes, self._href)
        self.title: str | None = None
        self.ids: set[str] = set()
        self.nesting = 0

    # -- the document ------------------------------------------------------------------------

    def document(self, lines: list[Line]) -> list[str]:
        """The page's blocks: its header (title, author and revision lines, entries) first."""
        i = 0
        while i < len(lines):
            line = lines[i][0]
            if not line.strip() or kind(line) == "comment":
                i += 1
            elif line.startswith(":") and (m := ATTRIBUTE_ENTRY.match(line)):
                set_attribute(self.attributes, m)
                i += 1
            else:
                break
        out: list[str] = []
        if i < len(lines) and (m := SECTION.match(lines[i][0])) and m.group(1) in ("=", "#"):
            title, number = m.group(2), lines[i][1]
            i += 1
            header_lines = 0
            while i < len(lines) and lines[i][0].strip():
                line = lines[i][0]
                if line.startswith(":") and (e := ATTRIBUTE_ENTRY.match(line)):
                    set_attribute(self.attributes, e)
                elif kind(line) != "comment" and header_lines < 2:
                    _author_or_revision(line, header_lines, self.attributes)
                    header_lines += 1
                elif kind(line) != "comment":
                    break
                i += 1
            # (the title shows the header's attributes, those below it too)
            out.append(self._heading(title, 1, number, _Meta()))
        return out + self.blocks(lines[i:])

    def blocks(
        self, lines: list[Line], in_list: bool = False, stack: tuple[str, ...] = ()
    ) -> list[str]:
        out: list[str] = []
        meta = _Meta()
        i = 0
        while i < len(lines):
            line, number = lines[i]
            k = kind(line)
            if k in ("blank", "continuation", "comment", "break"):
                i += 1
                continue
            if k == "attributes":
                parse_attributes(substitute(line.strip()[1:-1], self.attributes), meta.attributes)
                i += 1
                continue
            if k == "anchor":
                meta.attributes.id = ANCHOR_LINE.match(line).group(1)  # type: ignore[union-attr]
                i += 1
                continue
            if k == "title":
                meta.title = BLOCK_TITLE.match(line).group(1)  # type: ignore[union-attr]
                meta.title_line = number
                i += 1
                continue
            if line.startswith(":") and (m := ATTRIBUTE_ENTRY.match(line)):
                set_attribute(self.attributes, m)
                i += 1
                continue
            if k == "section" and self.nesting == 0:
                m = SECTION.match(line)
                assert m is not None
                out.append(self._heading(m.group(2), len(m.group(1)), number, meta))
                i += 1
            elif k == "section":  # (a discrete heading inside a block: a bold line)
                m = SECTION.match(line)
                assert m is not None
                text = " ".join(reduce(m.group(2), self.ctx).split())
                out.append(f"{line_mark(number)}**{text}**")
                i += 1
            elif k == "delimiter" and self.nesting < MAX_NESTING:
                found, i = self._delimited(lines, i, meta)
                out.extend(self._titled(found, meta))
            elif k in LIST_KINDS and self.nesting < MAX_NESTING:
                found, i = self._list(lines, i, meta.attributes, stack)
                out.extend(self._titled(found, meta))
            elif k == "macro":
                out.extend(self._titled(self._macro(line, number), meta))
                i += 1
            else:
                found, i = self._paragraph(lines, i, meta, in_list)
                out.extend(self._titled(found, meta))
            meta = _Meta()
        return [b for b in out if b.strip("\x00\x01 \n0123456789")]

    def _titled(self, blocks: list[str], meta: _Meta) -> list[str]:
        """`blocks` after the block's title (a bold line) and with its id as an anchor."""
        if not blocks:
            return blocks
        head = []
        anchor = f"\x00{meta.attributes.id}\x00" if meta.attributes.id else ""
        if meta.title:
            title = " ".join(reduce(meta.title, self.ctx).split())
            head = [f"{line_mark(meta.title_line)}**{title}**{anchor}"]
        elif anchor:
            blocks = [anchor + blocks[0], *blocks[1:]]
        return head + blocks

    # -- sections ----------------------------------------------------------------------------

    def _heading(self, source: str, level: int, number: int, meta: _Meta) -> str:
        offset = self.attributes.get("leveloffset", "0").strip()
        if re.fullmatch(r"[+-]?\d{1,2}", offset):
            level += int(offset)
        level = min(max(level, 1), 6)
        anchors: list[str] = []
        text = " ".join(reduce(source, self.ctx, anchors).split())
        words = " ".join(plain(source, self.ctx).split())
        if level == 1 and self.title is None:
            self.title = words
            self.attributes.setdefault("doctitle", words)
        explicit = meta.attributes.id or (anchors[0] if anchors else "")
        heading = f"{line_mark(number)}{'#' * level} {text}"
        if explicit:
            self.ids.add(explicit)
            if _SLUG_ID.fullmatch(explicit):
                return f"{heading} {{#{explicit}}}"
            # (`[[_setup]]`: no id a chunk id can hold; the title's slug, the id an anchor)
            return f"{heading}\x00{explicit}\x00"
        if "sectids" in self.attributes and level > 1:
            return f"{heading}\x00{self._generated_id(words)}\x00"
        return heading

    def _generated_id(self, title: str) -> str:
        """Asciidoctor's id of a section without one (Section.generate_id)."""
        prefix = self.attributes.get("idprefix", "_")
        sep = self.attributes.get("idseparator", "_")[:1]
        gen = prefix + _INVALID_ID.sub("", title.lower())
        if sep:
            gen = (
                re.sub(f"[ {re.escape(sep)}.-]+", sep, gen)
                if sep not in "-."
                else re.sub(r"[ .-]+", sep, gen)
            )
            gen = gen[:-1] if gen.endswith(sep) else gen
            if not prefix and gen.startswith(sep):
                gen = gen[1:]
        else:
            gen = gen.replace(" ", "")
        unique, count = gen, 2
        while unique in self.ids:
            unique, count = f"{gen}{sep}{count}", count + 1
        self.ids.add(unique)
        return unique

    # -- paragraphs --------------------------------------------------------------------------

    def _paragraph(
        self, lines: list[Line], i: int, meta: _Meta, in_list: bool
    ) -> tuple[list[str], int]:
        start = i
        first = lines[i][0]
        literal = first[:1] in (" ", "\t") and meta.style not in ("normal", "verse", "quote")
        taken: list[Line] = []
        while i < len(lines):
            line = lines[i][0]
            if not line.strip():
                break
            if i > start:
                k = kind(line)
                if k in ("delimiter", "attributes") or (
                    in_list and (k in LIST_KINDS or k == "continuation")
                ):
                    break
                if k == "comment":
                    i += 1
                    continue
            taken.append(lines[i])
            i += 1
        number = lines[start][1]
        style = meta.style
        if style in ("comment", "pass"):
            return [], i
        if literal or style in (*_CODE_STYLES, "literal"):
            return [self._code(taken, meta, number, literal=not style or style == "literal")], i
        if style == "stem" or style in ("latexmath", "asciimath"):
            return [self._fence([x for x, _ in taken], "math", number)], i
        if style == "verse" or style == "quote":
            return [self._quote(self._text(taken), meta, verse=style == "verse")], i
        label = ADMONITIONS.get(style.upper()) if style else None
        if label:
            return [f"{line_mark(number)}{label}: {self._text(taken).lstrip(chr(1))}"], i
        m = ADMONITION_PARAGRAPH.match(first)
        if m:
            rest = [(m.group(2), number), *taken[1:]]
            return [f"{line_mark(number)}{ADMONITIONS[m.group(1)]}: {self._text(rest)}"], i
        return [line_mark(number) + self._text(taken)], i

    def _text(self, taken: list[Line]) -> str:
        """Lines of a paragraph as markdown (lines kept, markup a line would start escaped)."""
        anchors: list[str] = []
        text = reduce("\n".join(x.strip() for x, _ in taken), self.ctx, anchors)
        lines = [_escape_line(x.strip()) for x in text.split("\n")]
        marks = "".join(f"\x00{a}\x00" for a in anchors)
        return "\n".join(x for x in lines if x) + marks

    def _quote(self, text: str, meta: _Meta, verse: bool = False) -> str:
        if verse:
            text = "\\\n".join(x for x in text.split("\n") if x)
        who = [x for x in meta.attributes.positional[1:3] if x]
        if who:
            text += "\n\n— " + ", ".join(substitute(x, self.attributes) for x in who)
        return "\n".join(f"> {x}" if x else ">" for x in text.split("\n"))

    # -- code --------------------------------------------------------------------------------

    def _language(self, meta: _Meta) -> str:
        attrs = meta.attributes
        lang = attrs.named.get("language", "")
        if not lang and len(attrs.positional) > 1 and (attrs.style in ("", "source")):
            lang = attrs.positional[1]
        if not lang and attrs.style == "source":
            lang = self.attributes.get("source-language", "")
        return re.sub(r"[^\w+#.-]", "", lang)

    def _code(self, taken: list[Line], meta: _Meta, number: int, literal: bool = False) -> str:
        code = [x for x, _ in taken]
        if literal and code:
            indent = min((len(x) - len(x.lstrip()) for x in code if x.strip()), default=0)
            code = [x[indent:] for x in code]
        if "attributes" in meta.attributes.named.get("subs", ""):
            code = [substitute(x, self.attributes) for x in code]
        count = iter(range(1, 10_000))
        code = [
            _CALLOUT_AUTO.sub(lambda _m: f"<{next(count)}>", x) if "<.>" in x else x for x in code
        ]
        return self._fence(code, "" if literal else self._language(meta), number)

    @staticmethod
    def _fence(code: list[str], lang: str, number: int) -> str:
        while code and not code[-1].strip():
            code = code[:-1]
        fence = fence_for(code)
        return "\n".join([f"{line_mark(number)}{fence}{lang}", *code, fence])

    # -- delimited blocks --------------------------------------------------------------------

    def _delimited(self, lines: list[Line], i: int, meta: _Meta) -> tuple[list[str], int]:
        opening, number = lines[i][0].rstrip(), lines[i][1]
        close = "```" if opening.startswith("```") else opening
        end = i + 1
        while end < len(lines) and lines[end][0].rstrip() != close:
            end += 1
        content = lines[i + 1 : end]
        after = min(end + 1, len(lines))
        char, style = opening[0], meta.style
        if char == "/" or style == "comment":
            return [], after
        if char == "`":
            meta.attributes.positional[1:] = [opening.strip("` \t").split(" ")[0]]
            return [self._code(content, meta, number)], after
        if char in "|,:!":
            return table(content, char, meta.attributes, self._cell, number), after
        if char == "+":
            if style in ("stem", "latexmath", "asciimath"):
                return [self._fence([x for x, _ in content], "math", number)], after
            return [], after  # raw HTML or DocBook: nothing a reader of the page reads as text
        if char == "." or (char == "-" and opening != "--") or style in _CODE_STYLES:
            literal = char == "." and style not in _CODE_STYLES
            return [self._code(content, meta, number, literal=literal)], after
        if style in ("verse", "quote") or (char == "_" and style != "verse"):
            inner = self._nested(content)
            return [self._quote("\n\n".join(inner), meta, verse=style == "verse")], after
        if style == "verse":
            return [self._quote(self._text(content), meta, verse=True)], after
        if style == "tabs" and (tabbed := self.tabs(content)) is not None:
            return tabbed, after
        inner = self._nested(content)
        label = ADMONITIONS.get(style.upper()) if style else None
        if label:
            title = " ".join(reduce(meta.title, self.ctx).split()) if meta.title else ""
            meta.title = ""
            return [f"{line_mark(number)}{label}:{' ' + title if title else ''}", *inner], after
        return inner, after

    def _nested(self, content: list[Line]) -> list[str]:
        self.nesting += 1
        try:
            return self.blocks(content)
        finally:
            self.nesting -= 1

    def _cell(self, text: str, asciidoc: bool) -> str:
        """A table cell's text on one line (an `a` cell read as AsciiDoc blocks, its code
        blocks as code spans)."""
        if asciidoc and self.nesting < MAX_NESTING:
            blocks = self._nested([(x, 0) for x in text.split("\n")])
            text = " ".join(_one_line(re.sub("\x01[0-9]+\x01", "", b)) for b in blocks)
            return " ".join(text.split())
        return _one_line(reduce(text.strip(), self.ctx))

    # -- block macros ------------------------------------------------------------------------

    def _macro(self, line: str, number: int) -> list[str]:
        m = BLOCK_MACRO.match(line)
        if m is None:
            return []
        name = m.group(1)
        if name == "image":
            attrs = parse_attributes(substitute(m.group(3), self.attributes))
            alt = attrs.named.get("alt") or attrs.style
            return [line_mark(number) + _escape_line(alt)] if alt else []
        return []  # toc, video, audio, an unresolved include, an extension's block

    def _href(self, target: str) -> str | None:
        page, _, fragment = target.partition("#")
        if " " in fragment.strip():  # `<<Install Ruby>>`: a section by its title, our slug
            fragment = slugify(fragment)
        if not page:
            return f"#{fragment}" if fragment else None
        if not posixpath.splitext(page)[1] and "$" not in page:
            page += ".adoc"
        elif not page.lower().endswith(ASCIIDOC_SUFFIXES) and "$" not in page:
            return None
        resolved = resource(self.path, page, "pages")
        if resolved is None:
            return None
        href = relative_href(self.path, resolved)
        return f"{href}#{fragment}" if fragment else href


def _author_or_revision(line: str, index: int, attributes: dict[str, str]) -> None:
    """The author line (`Doc Writer <doc@example.org>`) or revision line (`v1.0, 2024-01-01:
    remark`) of a document header, as the attributes they set (`{author}`, `{revnumber}`)."""
    line = line.strip()
    if index == 0 and not re.match(r"^v?\d[\w.]*,", line):
        name, _, email = line.partition("<")
        first = name.split(";")[0].strip()
        attributes.setdefault("author", first)
        attributes.setdefault("authors", name.strip())
        if email:
            attributes.setdefault("email", email.split(">")[0].strip())
        return
    number, _, rest = line.partition(",")
    attributes.setdefault("revnumber", number.strip().lstrip("v"))
    date, _, remark = rest.partition(":")
    if date.strip():
        attributes.setdefault("revdate", date.strip())
    if remark.strip():
        attributes.setdefault("revremark", remark.strip())


def _section_ids(lines: list[Line]) -> dict[str, str]:
    """The explicit ids of the page's sections (`[[id]]`, `[#id]` on the line above): what
    `<<id>>` without text shows."""
    out: dict[str, str] = {}
    for k in range(1, len(lines)):
        line = lines[k][0]
        if line[:1] not in "=#" or not (m := SECTION.match(line)):
            continue
        above = lines[k - 1][0]
        if above.startswith("[[") and (a := ANCHOR_LINE.match(above)):
            out.setdefault(a.group(1), m.group(2))
        elif above.startswith("[#") and kind(above) == "attributes":
            found = parse_attributes(above.strip()[1:-1]).id
            if found:
                out.setdefault(found, m.group(2))
    return out


def _one_line(block: str) -> str:
    """A block on one line, for a table cell: a code block as a code span, hard breaks as
    spaces."""
    lines = block.split("\n")
    if len(lines) >= 2 and lines[0].lstrip().startswith("```"):
        code = " ".join(x.strip() for x in lines[1:-1] if x.strip())
        ticks = "``" if "`" in code else "`"
        return f"{ticks}{code}{ticks}" if code else ""
    return " ".join(x.rstrip("\\") for x in lines)


def _escape_line(line: str) -> str:
    if "|" in line and _DELIMITER_ROW.fullmatch(line):
        line = line.replace("|", "\\|")
    return _MARKUP_START.sub(r"\\\1", line) if line else line
