"""AsciiDoc's inline markup reduced to the markdown a reader of the rendered page sees
(asciidoc.py reads the blocks).

What is substituted, in Asciidoctor's order where it matters: passthroughs (`+text+`,
`++text++`, `+++text+++`, `pass:[text]`) and backslash escapes are kept as written; attribute
references (`{name}`) take the document's value (an unknown one stays as written, as
Asciidoctor leaves it with its default `attribute-missing`); `` `mono` `` becomes a code span;
macros become what they show: `xref:page.adoc#id[text]`, `<<id,text>>`, `link:url[text]`
and `https://url[text]` links (xrefs to the target page's path, so the build's link
resolution reaches them), `image:x.png[alt]` its alt text, `kbd:[Ctrl+C]` a code span,
`btn:[Save]` and `menu:File[Save]` their words, `footnote:[text]` a `[n]` mark whose text the
page lists at its end, index terms their visible term, inline anchors an anchor of their line;
then `*strong*`, `_emphasis_` (constrained and unconstrained) become markdown emphasis and
`#mark#`, `^sup^`, `~sub~` their text. Plain text keeps `*` and `_` that would read as
emphasis escaped. Every regex is bounded (spans of at most `SPAN` characters), so a hostile
line costs linear time.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from docsmcp.sources.formats.markdown.fences import code_span
from docsmcp.sources.formats.markdown.link_titles import title_of

# The longest quoted span or macro text read: Asciidoctor has no bound, but one of a hundred
# words is already rare, and without one a line of 100,000 `*a` is quadratic.
SPAN = 600
_STASH_OPEN, _STASH_CLOSE = "\x02", "\x03"


def _rx(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`pattern` compiled, each `@` in it the bound SPAN."""
    return re.compile(pattern.replace("@", str(SPAN)), flags)


_STRONG, _EMPH = "\x04", "\x05"
CONTROL = str.maketrans("", "", "\x00\x01\x02\x03\x04\x05")

# Asciidoctor's built-in character attributes (document attributes in every document).
BUILTIN = {
    "empty": "",
    "blank": "",
    "sp": " ",
    "nbsp": " ",
    "zwsp": "",
    "wj": "",
    "apos": "'",
    "quot": '"',
    "lsquo": "‘",
    "rsquo": "’",
    "ldquo": "“",
    "rdquo": "”",
    "deg": "°",
    "plus": "+",
    "brvbar": "¦",
    "vbar": "|",
    "amp": "&",
    "lt": "<",
    "gt": ">",
    "startsb": "[",
    "endsb": "]",
    "caret": "^",
    "asterisk": "*",
    "tilde": "~",
    "backslash": "\\",
    "backtick": "`",
    "two-colons": "::",
    "two-semicolons": ";;",
    "cpp": "C++",
    "pp": "++",
}

ATTRIBUTE_REF = _rx(r"(\\)?\{([A-Za-z0-9_][\w-]{0,100})\}")
_PASS_MACRO = _rx(r"\bpass:[a-z,]*\[((?:\\\]|[^\]]){0,@})\]")
_PASS_TRIPLE = _rx(r"\+\+\+(.{1,@}?)\+\+\+")
_PASS_DOUBLE = _rx(r"\+\+(.{1,@}?)\+\+")
_PASS_SINGLE = _rx(r"(?<![\w+])\+(\S|\S.{0,@}?\S)\+(?![\w+])")
_ESCAPE = re.compile(
    r"\\(\\?(?:xref|link|image|kbd|btn|menu|footnote|pass|icon|https?|ftp|irc|mailto)"
    r":|<<|\[\[|\*\*|__|``|##|=>|->|<=|<-|--|\.\.\.|\((?:C|R|TM)\)|[*_`#+^~])"
)
# Curved quotes ("`text`", '`text`') and the curved apostrophe (`Asciidoctor`'s`).
_CURVED = _rx(r"([\"'])`(\S|\S.{0,@}?\S)`\1")
_APOSTROPHE = _rx(r"(?<=\w)`'(?=\w|$)")
_MONO_DOUBLE = _rx(r"``(.{1,@}?)``")
_MONO = _rx(r"(?<![\w;:\"'`}])(?:\[[^\]\n]{0,100}\])?`(\S|\S.{0,@}?\S)`(?![\w\"'`])")
_XREF_SHORT = _rx(r"<<([^<>,\n]{1,@}?)(?:,\s*([^\n]{0,@}?))?>>")
# A link whose URL is an attribute the page does not define (Antora's playbook defines
# `{url-org}`): the site shows its text.
_UNKNOWN_LINK = _rx(
    r"(?<![^\s(>])\{[A-Za-z0-9_][\w-]{0,100}\}[^\s\[\]]{0,@}\[((?:\\\]|[^\]\n]){0,@})\]"
)
_XREF = _rx(r"\bxref:([^\s\[\]]{1,@})\[((?:\\\]|[^\]]){0,@})\]")
_LINK = _rx(r"\blink:(?:\+\+)?([^\s\[\]]{1,@}?)(?:\+\+)?\[((?:\\\]|[^\]]){0,@})\]")
_MAILTO = _rx(r"\bmailto:([^\s\[\]]{1,@})\[((?:\\\]|[^\]]){0,@})\]")
_URL = _rx(
    r"(?<![^\s>()\[\];\"'])((?:https?|ftp|irc)://[^\s\[\]<>\"]{1,@}?)"
    r"(?:\[((?:\\\]|[^\]]){0,@})\]|(?=[.,;:!?)]*(?:\s|$)))"
)
_ANGLE_URL = _rx(r"<((?:https?|ftp)://[^\s<>]{1,@})>")
_IMAGE = _rx(r"\bimage:([^\s:\[][^\s\[]{0,@})\[([^\]\n]{0,@})\]")
_KBD = _rx(r"kbd:\[((?:\\\]|[^\]]){0,@})\]")
_BTN = _rx(r"btn:\[([^\]\n]{0,@})\]")
_MENU = _rx(r"\bmenu:([^\s\[]{1,@})\[([^\]\n]{0,@})\]")
_FOOTNOTE = _rx(r"footnote(?:ref)?:([\w-]*)\[((?:\\\]|[^\]]){0,@})\]")
_ICON = _rx(r"\bicon:[\w-]{1,100}\[[^\]\n]{0,@}\]")
_STEM = _rx(r"\b(?:stem|latexmath|asciimath):\[((?:\\\]|[^\]]){0,@})\]")
_INDEX_HIDDEN = _rx(r"\(\(\((.{1,@}?)\)\)\)|\bindexterm:\[[^\]\n]{0,@}\]")
_INDEX_SHOWN = _rx(r"\(\((.{1,@}?)\)\)|\bindexterm2:\[([^\]\n]{0,@})\]")
_ANCHOR = _rx(r"\[\[([A-Za-z_:][\w:.-]{0,200})(?:,\s*[^\]\n]{0,@})?\]\]")
_ANCHOR_MACRO = _rx(r"\banchor:([A-Za-z_:][\w:.-]{0,200})\[[^\]\n]{0,@}\]")
_STRONG_DOUBLE = _rx(r"(?:\[[^\]\n]{0,100}\])?\*\*(.{1,@}?)\*\*")
_STRONG_ONE = _rx(r"(?<![\w;:}\\*])(?:\[[^\]\n]{0,100}\])?\*(\S|\S.{0,@}?\S)\*(?![\w*])")
_EMPH_DOUBLE = _rx(r"(?:\[[^\]\n]{0,100}\])?__(.{1,@}?)__")
_EMPH_ONE = _rx(r"(?<![\w;:}\\_])(?:\[[^\]\n]{0,100}\])?_(\S|\S.{0,@}?\S)_(?![\w_])")
_MARK_DOUBLE = _rx(r"(?:\[[^\]\n]{0,100}\])?##(.{1,@}?)##")
_MARK_ONE = _rx(r"(?<![\w;:}\\#])(?:\[[^\]\n]{0,100}\])?#(\S|\S.{0,@}?\S)#(?![\w#])")
_SUPER = _rx(r"\^(\S{1,@}?)\^")
_SUB = _rx(r"(?<![\w~])~(\S{1,@}?)~(?![\w~])")
_HARD_BREAK = _rx(r"[ \t]\+$", re.MULTILINE)
# A run of `_` or `*` starting a word of plain text (`__init__`, `*args`): markdown would read
# it as emphasis, so it is escaped (as rst.py does).
_EMPHASIS_OPENER = _rx(r"(?<![\w\\])[_*]+(?=\w)")
_TAG_LIKE = re.compile(r"<(?=[A-Za-z/!?])")
_STASHED = re.compile("\x02([0-9]+)\x03")


@dataclass
class Inline:
    """What inline markup of one page needs: its attributes (they change as the page is read),
    where a cross reference points (`href`), and the footnotes seen."""

    attributes: dict[str, str]
    href: Callable[[str], str | None]  # an xref target (`page.adoc#id`, `#id`) -> link
    footnotes: list[str] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)  # the page's section ids -> titles
    _named: dict[str, int] = field(default_factory=dict)  # footnote ids -> their number


def substitute(text: str, attributes: dict[str, str]) -> str:
    """`text` with its attribute references replaced; an unknown one, or one escaped
    (`\\{name}`), stays as written (the escape removed)."""
    if "{" not in text:
        return text

    def one(m: re.Match[str]) -> str:
        if m.group(1):
            return m.group(0)[1:]
        name = m.group(2).lower()
        value = attributes.get(name)
        if value is None:
            value = BUILTIN.get(name)
        return m.group(0) if value is None else value

    return ATTRIBUTE_REF.sub(one, text)


def _unescape_brackets(text: str) -> str:
    return text.replace("\\]", "]")


def _link_text(text: str) -> str:
    """A macro's text (`[Getting started^,window=_blank]`): its first positional attribute."""
    text = _unescape_brackets(text).strip()
    if text.startswith('"') and '"' in text[1:]:
        return text[1 : text.index('"', 1)]
    if "=" in text.split(",", 1)[0] and not text.startswith("'"):
        return ""  # only named attributes
    head = text.split(",", 1)[0] if "," in text and "=" in text else text
    return head.rstrip("^").strip()


def _link(label: str, href: str) -> str:
    label = label.replace("[", "\\[").replace("]", "\\]")
    return f"[{label}]({href.replace(' ', '%20').replace('(', '%28').replace(')', '%29')})"


def xref_label(target: str) -> str:
    """What an xref without text shows: Asciidoctor shows the target's title, which link
    resolution does not know here; the target's words are the nearest."""
    page, _, fragment = target.partition("#")
    if fragment:
        return fragment.replace("_", " ").replace("-", " ").strip() or fragment
    name = posixpath.basename(page.split("$")[-1].split(":")[-1])
    return posixpath.splitext(name)[0].replace("-", " ").replace("_", " ").strip() or page


class _Stash:
    """Pieces already written, kept out of the later substitutions as `\\x02N\\x03`: each
    with the raw text (what a code span shows of it) and its markdown."""

    def __init__(self) -> None:
        self.raw: list[str] = []
        self.markdown: list[str] = []

    def put(self, raw: str, markdown: str) -> str:
        self.raw.append(raw)
        self.markdown.append(markdown)
        return f"{_STASH_OPEN}{len(self.raw) - 1}{_STASH_CLOSE}"

    def restore(self, text: str, raw: bool = False) -> str:
        pieces = self.raw if raw else self.markdown
        for _ in range(8):  # (pieces nest: a link's text holds a code span)
            if _STASH_OPEN not in text:
                break
            text = _STASHED.sub(lambda m: pieces[int(m.group(1))], text)
        return text


def reduce(text: str, ctx: Inline, anchors: list[str] | None = None) -> str:
    """The markdown of AsciiDoc inline `text` (one paragraph, lines kept); inline anchors'
    ids go to `anchors`."""
    stash = _Stash()
    text = _protect(text, stash)
    text = substitute(text, ctx.attributes)
    text = _protect(text, stash) if "+" in text or "\\" in text else text
    if "`" in text:
        text = _CURVED.sub(lambda m: ("“%s”" if m.group(1) == '"' else "‘%s’") % m.group(2), text)
        text = _APOSTROPHE.sub("’", text)
    text = _MONO_DOUBLE.sub(
        lambda m: stash.put(m.group(1), code_span(stash.restore(m.group(1), True))), text
    )
    text = _MONO.sub(
        lambda m: stash.put(m.group(1), code_span(stash.restore(m.group(1), True))), text
    )
    if "{" in text and "[" in text:
        text = _UNKNOWN_LINK.sub(lambda m: _link_text(m.group(1)), text)
    text = _macros(text, ctx, stash, anchors)
    text = text.replace("\\]", "]").replace("\\[", "[") if "\\" in text else text
    text = _quotes(text)
    if "<" in text:  # (AsciiDoc's `<n>` is text; markdown would read a tag, and a heading
        text = _TAG_LIKE.sub(r"\\<", text)  # `== <side>` had no words)
    text = _HARD_BREAK.sub("\\\\", text)
    text = _EMPHASIS_OPENER.sub(lambda m: "".join("\\" + c for c in m.group()), text)
    text = text.replace(_STRONG, "**").replace(_EMPH, "*")
    return stash.restore(text)


def plain(text: str, ctx: Inline) -> str:
    """`text` reduced, without markdown emphasis: a heading's or a term's words."""
    out = reduce(text, ctx)
    return re.sub(r"(?<!\\)\*\*?|\\(?=[*_])", "", out)


def _protect(text: str, stash: _Stash) -> str:
    """Passthroughs and escaped markup, kept as written."""
    if "pass:" in text:
        text = _PASS_MACRO.sub(
            lambda m: stash.put(m.group(1), _unescape_brackets(m.group(1))), text
        )
    if "+" in text:
        for rx in (_PASS_TRIPLE, _PASS_DOUBLE, _PASS_SINGLE):
            text = rx.sub(lambda m: stash.put(m.group(1), _literal(m.group(1))), text)
    if "\\" in text:
        text = _ESCAPE.sub(lambda m: stash.put(m.group(1), _literal(m.group(1))), text)
    return text


def _literal(text: str) -> str:
    """Text shown as written: markdown's emphasis characters escaped."""
    return re.sub(r"([*_`\[\]])", r"\\\1", text)


def _macros(text: str, ctx: Inline, stash: _Stash, anchors: list[str] | None) -> str:
    if "[[" in text or "anchor:" in text:

        def anchor(m: re.Match[str]) -> str:
            if anchors is not None:
                anchors.append(m.group(1))
            return ""

        text = _ANCHOR.sub(anchor, text)
        text = _ANCHOR_MACRO.sub(anchor, text)
    if "(((" in text or "indexterm" in text or "((" in text:
        text = _INDEX_HIDDEN.sub("", text)
        text = _INDEX_SHOWN.sub(lambda m: m.group(1) or m.group(2) or "", text)
    if ":" in text:
        if "image:" in text:
            text = _IMAGE.sub(lambda m: _link_text(m.group(2)), text)
        if "icon:" in text:
            text = _ICON.sub("", text)
        if "kbd:" in text:
            text = _KBD.sub(
                lambda m: stash.put(m.group(1), code_span(_unescape_brackets(m.group(1)))), text
            )
        if "btn:" in text:
            text = _BTN.sub(lambda m: m.group(1), text)
        if "menu:" in text:
            text = _MENU.sub(
                lambda m: " > ".join(
                    x.strip() for x in [m.group(1), *m.group(2).split(">")] if x.strip()
                ),
                text,
            )
        if "stem:" in text or "math:" in text:
            text = _STEM.sub(
                lambda m: stash.put(m.group(1), code_span(_unescape_brackets(m.group(1)))), text
            )
        if "footnote" in text:
            text = _FOOTNOTE.sub(lambda m: _footnote(m, ctx, stash), text)
        if "xref:" in text:
            text = _XREF.sub(lambda m: _xref(m.group(1), _link_text(m.group(2)), ctx, stash), text)
        if "link:" in text:
            text = _LINK.sub(lambda m: _url(m.group(1), m.group(2), stash), text)
        if "mailto:" in text:
            text = _MAILTO.sub(
                lambda m: _url("mailto:" + m.group(1), m.group(2) or m.group(1), stash), text
            )
        if "://" in text:
            text = _ANGLE_URL.sub(lambda m: _url(m.group(1), None, stash), text)
            text = _URL.sub(lambda m: _url(m.group(1), m.group(2), stash), text)
    if "<<" in text:
        text = _XREF_SHORT.sub(
            lambda m: _xref(m.group(1).strip(), (m.group(2) or "").strip(), ctx, stash), text
        )
    return text


def _url(url: str, label: str | None, stash: _Stash) -> str:
    shown = _link_text(label) if label is not None else ""
    if not shown:
        return stash.put(url, url)
    return stash.put(shown, _link(stash.restore(shown), url))


def _xref(target: str, label: str, ctx: Inline, stash: _Stash) -> str:
    """A cross reference as a markdown link (its text when the target cannot be placed)."""
    target = target.strip()
    if (
        "#" not in target
        and not target.lower().endswith((".adoc", ".asciidoc"))
        and ("$" not in target and ":" not in target and "." not in target)
    ):
        target = "#" + target  # `<<install>>`: an id (or a section's title) of this page
    href = ctx.href(target)
    titled = title_of("doc", target) if not label and "#" not in target else None
    if not label and target.startswith("#"):
        titled = ctx.titles.get(target[1:])  # (`<<install>>` shows that section's title)
    if titled:  # (the page's title, link_titles.py)
        label = " ".join(plain(titled, ctx).split())
    shown = stash.restore(label) if label else xref_label(target)
    if not href:
        return stash.put(shown, shown)
    return stash.put(shown, _link(shown, href))


def _footnote(m: re.Match[str], ctx: Inline, stash: _Stash) -> str:
    """A footnote's number, its text kept for the page's end (a repeated id: its number)."""
    name, body = m.group(1), _unescape_brackets(m.group(2)).strip()
    if m.group(0).startswith("footnoteref:"):
        name, _, body = body.partition(",")
        body = body.strip()
    if name and name in ctx._named and not body:
        return stash.put("", f"[{ctx._named[name]}]")
    if not body:
        return ""
    ctx.footnotes.append(body)
    number = len(ctx.footnotes)
    if name:
        ctx._named[name] = number
    return stash.put(f"[{number}]", f"\\[{number}\\]")


def _quotes(text: str) -> str:
    if "*" in text:
        text = _STRONG_DOUBLE.sub(lambda m: _wrap(_STRONG, m.group(1)), text)
        text = _STRONG_ONE.sub(lambda m: _wrap(_STRONG, m.group(1)), text)
    if "_" in text:
        text = _EMPH_DOUBLE.sub(lambda m: _wrap(_EMPH, m.group(1)), text)
        text = _EMPH_ONE.sub(lambda m: _wrap(_EMPH, m.group(1)), text)
    if "#" in text:
        text = _MARK_DOUBLE.sub(lambda m: m.group(1), text)
        text = _MARK_ONE.sub(lambda m: m.group(1), text)
    if "^" in text:
        text = _SUPER.sub(lambda m: m.group(1), text)
    if "~" in text:
        text = _SUB.sub(lambda m: m.group(1), text)
    return text


def _wrap(mark: str, inner: str) -> str:
    inner = inner.strip()
    return f"{mark}{inner}{mark}" if inner else ""
