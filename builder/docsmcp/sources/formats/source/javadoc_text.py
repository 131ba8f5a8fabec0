"""A Javadoc comment as the markdown a Javadoc page shows (javadoc.py reads the comments):

- the comment's lines lose their leading white space and `*`s; the main description runs to
  the first line starting with a block tag (`@param`, `@return`, `@throws`, …) outside
  `<pre>` and outside an inline tag's braces, and each block tag is returned apart (`Tag`);
- inline tags read as javadoc renders them: `{@code x}` a code span, `{@literal x}` the text,
  `{@link Elements#first() first}`/`{@linkplain …}` what the page's `link` callback makes of
  it (a link to the member's section, or its name in code: javadoc.py), `{@value #X}` the
  constant's name, `{@inheritDoc}` and `{@docRoot}` nothing, `{@snippet : …}` a code block;
- Javadoc's HTML reduced to markdown: `<p>` a paragraph, `<pre>` (with `{@code …}` inside, the
  usual idiom) a `java` code block, `<ul>`/`<ol>`/`<li>` a list, `<b>`/`<strong>` bold,
  `<i>`/`<em>` italic, `<code>`/`<tt>` a code span, `<a href>` a link, `<hN>` a heading
  `shift` levels down, `<dl>` terms in bold, a `<table>`'s rows one line each; other tags go
  and their text stays, entities are decoded, and text that would read as markdown structure
  at a line's start (`#`, `- `, `1. `) is escaped. A `///` comment (Java 23) is markdown
  already: only its inline tags and `[Name#member]` reference links are read.

Every loop consumes its input; inline tags nest at most MAX_NESTING deep.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass

from docsmcp.common.brackets import closing
from docsmcp.sources.formats.markdown.fences import code_block, code_span, fenced_lines

MAX_NESTING = 8  # inline tags inside inline tags, at most
_LEADING = re.compile(r"^[ \t]*\*+ ?")
_BLOCK_TAG = re.compile(r"^@([A-Za-z][\w.-]*)(?:\s+|$)")
_INLINE_OPEN = re.compile(r"\{@([A-Za-z][\w.-]*)")
_PRE = re.compile(r"<pre\b[^>]*>(.*?)(?:</pre\s*>|$)", re.S | re.I)
_TAG = re.compile(r"<(/?)([A-Za-z][\w-]*)((?:[^<>\"']|\"[^\"]*\"|'[^']*')*)/?>|<!--.*?-->", re.S)
_HREF = re.compile(r"""\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)
_ALT = re.compile(r"""\balt\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
_WRITTEN = "\x01"  # starts a line whose markdown structure the reduction wrote (`- `, `## `)
_MARK = "\x00"  # placeholders: \x00N\x00 (the N-th piece kept apart from the HTML reduction)
_PLACEHOLDER = re.compile("\x00(\\d+)\x00")
_STRUCTURE = re.compile(r"^(#|>|[-+*](?=\s|$)|\d{1,9}[.)](?=\s|$)|={3,}|-{3,})")
_REF_LINK = re.compile(r"(?<![\]\\])\[([^\[\]\n]+)\](?:\[([^\[\]\n]*)\])?(?![(:\[])")
_JAVA_REF = re.compile(r"^[A-Za-z_$][\w$.]*(?:#[\w$]+(?:\([^()]*\))?)?$|^#[\w$]+(?:\([^()]*\))?$")
_BLOCKS = frozenset(
    "p div ul ol li dl dt dd table tr thead tbody tfoot blockquote hr h1 h2 h3 h4 h5 h6 "
    "center section article caption".split()
)
# Block tags shown with a label, in javadoc's order; the others (`@author`, `@version`,
# `@serial…`, `@hidden`, unknown custom tags) are not shown.
LABELS = {
    "apiNote": "API Note",
    "implSpec": "Implementation Requirements",
    "implNote": "Implementation Note",
}

Link = Callable[[str, str], str]  # (reference as written, label or "") -> markdown


@dataclass(frozen=True)
class Tag:
    name: str  # `param`, `return`, `throws` (`exception` read as it), `see`, …
    arg: str  # the parameter's or exception's name; "" for other tags
    text: str  # the tag's markdown (one or more lines)


@dataclass(frozen=True)
class Doc:
    lines: tuple[str, ...]  # the main description's markdown
    tags: tuple[Tag, ...]

    def first(self, name: str) -> Tag | None:
        return next((t for t in self.tags if t.name == name), None)


def comment_lines(raw: str, markdown: bool) -> list[str]:
    """A comment's content as lines, without the leading `*`s (`/** */`) or the indent the
    lines share (`///`)."""
    lines = raw.split("\n")
    if not markdown:
        lines = [_LEADING.sub("", x, count=1) if _LEADING.match(x) else x for x in lines]
    indents = [len(x) - len(x.lstrip()) for x in lines if x.strip()]
    cut = min(indents) if indents else 0
    return [x[cut:].rstrip() if x.strip() else "" for x in lines]


def split_tags(lines: list[str], markdown: bool) -> tuple[list[str], list[tuple[str, str]]]:
    """The main description's lines and the block tags (name, text) after it."""
    main: list[str] = []
    tags: list[tuple[str, list[str]]] = []
    pre = braces = 0
    fenced = False
    for line in lines:
        stripped = line.lstrip()
        m = _BLOCK_TAG.match(stripped)
        if m and pre <= 0 and braces <= 0 and not fenced:
            tags.append((m.group(1), [stripped[m.end() :]]))
        elif tags:
            tags[-1][1].append(line)
        else:
            main.append(line)
        low = line.lower()
        pre += low.count("<pre") - low.count("</pre")
        braces = max(0, braces + line.count("{") - line.count("}")) if "{@" in line or braces else 0
        if markdown and stripped.startswith(("```", "~~~")):
            fenced = not fenced
    return main, [(name, "\n".join(text)) for name, text in tags]


class _Renderer:
    def __init__(self, link: Link, markdown: bool, shift: int) -> None:
        self.link = link
        self.markdown = markdown
        self.shift = shift
        self.kept: list[str] = []  # placeholders' markdown

    def keep(self, markdown: str) -> str:
        self.kept.append(markdown)
        return f"{_MARK}{len(self.kept) - 1}{_MARK}"

    def inline_tags(self, text: str, depth: int = 0) -> str:
        """`text` with its inline tags replaced by placeholders of their markdown."""
        out: list[str] = []
        pos = 0
        while (m := _INLINE_OPEN.search(text, pos)) is not None:
            out.append(text[pos : m.start()])
            # (the `{` opening the tag is m.start(); braces inside it balanced)
            end = closing(text, m.start(), "{", "}")
            end = end if end >= 0 else len(text)
            body = text[m.end() : end]
            body = body[1:] if body[:1] in (" ", "\t", "\n") else body
            out.append(self.inline(m.group(1), body, depth))
            pos = end + 1
        out.append(text[pos:])
        return "".join(out)

    def inline(self, name: str, body: str, depth: int) -> str:
        if name in ("code", "literal"):
            if name == "code":
                return self.keep(code_span(body)) if body.strip() else ""
            return self.keep(" ".join(body.split()) if "\n" not in body.strip() else body)
        if name in ("link", "linkplain", "see"):
            ref, _, label = body.strip().partition(" ")
            ref, label = _reference(ref, label)
            label = self.text(label, depth + 1) if label and depth < MAX_NESTING else label
            return self.keep(self.link(ref, label))
        if name == "value":
            ref = body.strip()
            return self.keep(code_span(ref.lstrip("#").replace("#", ".")) if ref else "")
        if name in ("inheritDoc", "docRoot"):
            return ""
        if name == "snippet":
            code = body.partition(":")[2] if ":" in body.split("\n", 1)[0] else ""
            lines = comment_lines(code.strip("\n"), True)
            return self.keep("\n\n" + "\n".join(code_block("", "java", lines)) + "\n\n")
        if depth < MAX_NESTING:  # `{@summary …}`, `{@index word}`, `{@systemProperty x}`
            inner = body.split("\n")[0].split()[0] if name == "index" and body.strip() else body
            return self.inline_tags(inner, depth + 1)
        return body

    def text(self, text: str, depth: int = 0) -> str:
        """One piece of text (a link's label) rendered on one line."""
        sub = _Renderer(self.link, self.markdown, self.shift)
        sub.kept = self.kept
        return " ".join(sub.render(text, depth).split())

    def render(self, text: str, depth: int = 0) -> str:
        """`text` (a description) as markdown."""
        if self.markdown:
            text = _REF_LINK.sub(self.ref_link, text)
            return self.restore(self.inline_tags(text, depth))
        text = _PRE.sub(self.pre, text)
        text = self.inline_tags(text, depth)
        return self.restore(self.reduce(text))

    def ref_link(self, m: re.Match[str]) -> str:
        label, target = m.group(1), m.group(2)
        ref = (target or label).strip().strip("`")
        # (`[String]`, `[Shape#area()]`, `[java.util.List]`: not `[e.g.]` or `[x]`)
        last = ref.partition("#")[0].rpartition(".")[2]
        if not _JAVA_REF.match(ref) or not ("#" in ref or last[:1].isupper()):
            return m.group()
        shown = label if target else ""
        return self.keep(self.link(ref, shown.strip("`") if shown else ""))

    def pre(self, m: re.Match[str]) -> str:
        body = m.group(1)
        code = re.match(r"^\s*\{@code\b\s?(.*)\}\s*$", body, re.S)
        if code:
            body = code.group(1)
        else:
            body = _PLACEHOLDER.sub("", self.inline_tags(body))
            body = html.unescape(_TAG.sub("", body))
        lines = body.split("\n")
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        if not lines:
            return ""
        lines = comment_lines("\n".join(lines), True)
        return self.keep("\n\n" + "\n".join(code_block("", "java", lines)) + "\n\n")

    def restore(self, text: str) -> str:
        for _ in range(MAX_NESTING):
            if _MARK not in text:
                break
            text = _PLACEHOLDER.sub(lambda m: self.kept[int(m.group(1))], text)
        return text

    def reduce(self, text: str) -> str:
        """Javadoc's HTML as markdown (placeholders kept as they are)."""
        out: list[str] = []
        lists: list[str] = []  # the open lists: "ul" / "ol"
        numbers: list[int] = []
        href: list[str | None] = []
        link_start: list[int] = []
        pos = 0
        for m in _TAG.finditer(text):
            out.append(_words(text[pos : m.start()]))
            pos = m.end()
            if m.group(2) is None:
                continue  # a comment
            closing, name, attrs = m.group(1) == "/", m.group(2).lower(), m.group(3) or ""
            if name in ("b", "strong"):
                out.append("**")
            elif name in ("i", "em", "cite", "dfn", "var"):
                out.append("*")
            elif name in ("code", "tt", "kbd", "samp"):
                out.append("`")
            elif name == "br":
                out.append("\n")
            elif name == "img":
                alt = _ALT.search(attrs)
                out.append(next((g for g in alt.groups() if g), "") if alt else "")
            elif name == "a":
                if not closing:
                    h = _HREF.search(attrs)
                    href.append(next((g for g in h.groups() if g is not None), "") if h else None)
                    link_start.append(len(out))
                elif href:
                    target, at = href.pop(), link_start.pop()
                    label = "".join(out[at:]).strip()
                    del out[at:]
                    out.append(f"[{label}]({target})" if target and label else label)
            elif name in ("ul", "ol"):
                if closing:
                    if lists:
                        lists.pop()
                        numbers.pop()
                else:
                    lists.append(name)
                    numbers.append(0)
                out.append("\n\n")
            elif name == "li" and not closing:
                indent = "  " * max(0, len(lists) - 1)
                if lists and lists[-1] == "ol":
                    numbers[-1] += 1
                    out.append(f"\n{_WRITTEN}{indent}{numbers[-1]}. ")
                else:
                    out.append(f"\n{_WRITTEN}{indent}- ")
            elif name == "dt":
                out.append("\n\n**" if not closing else "**")
            elif name in ("td", "th") and not closing:
                out.append(" | ")
            elif name == "tr":
                out.append("\n")
            elif name[:1] == "h" and name[1:].isdigit():
                level = min(6, max(1, int(name[1:]) - 1) + self.shift)
                out.append("\n\n" if closing else f"\n\n{_WRITTEN}" + "#" * level + " ")
            elif name in _BLOCKS and not (name == "li" and closing):
                out.append("\n\n")
        out.append(_words(text[pos:]))
        return _paragraphs("".join(out))


def _words(text: str) -> str:
    """HTML text: runs of white space one space, entities decoded."""
    return html.unescape(re.sub(r"\s+", " ", text))


def _paragraphs(text: str) -> str:
    """Lines stripped, blank lines at most one in a row, markdown structure escaped at the
    start of a prose line (list items and headings the reduction wrote stay)."""
    out: list[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(_WRITTEN):
            line = stripped[1:].rstrip()
        else:
            line = "\\" + stripped if _STRUCTURE.match(stripped) else stripped
        if line.strip() or (out and out[-1].strip()):
            out.append(line.rstrip())
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out)


def _single_blanks(lines: list[str]) -> list[str]:
    """`lines` without a blank line after another (a code block kept apart by placeholders
    came with blank lines of its own), outside code blocks."""
    code = fenced_lines(lines)
    return [
        x if code[k] else x[1:].rstrip() if x.startswith(" ") and x[1:2] != " " else x.rstrip()
        for k, x in enumerate(lines)
        if code[k] or x.strip() or k == 0 or lines[k - 1].strip()
    ]


def _reference(ref: str, label: str) -> tuple[str, str]:
    """A `{@link}` reference whose parameter list holds spaces (`#of(int, int)`) whole."""
    if "(" in ref and ")" not in ref and ")" in label:
        rest, _, label = label.partition(")")
        ref = f"{ref} {' '.join(rest.split())})"
        label = label.strip()
    return ref, label.strip()


def render(raw: str, markdown: bool, link: Link, shift: int = 2) -> Doc:
    """The doc comment `raw` (its content) as a `Doc`: its description's markdown lines (HTML
    headings `shift` levels below `<h1>`) and its block tags."""
    main, tags = split_tags(comment_lines(raw, markdown), markdown)
    r = _Renderer(link, markdown, shift)
    body = _single_blanks(r.render("\n".join(main)).strip("\n").split("\n"))
    out: list[Tag] = []
    for name, text in tags:
        name = "throws" if name == "exception" else name
        arg = ""
        if name in ("param", "throws"):
            arg, _, text = text.strip().partition(" ") if " " in text.strip() else (text, "", "")
            arg = arg.strip()
            if "\n" in arg:
                arg, _, more = arg.partition("\n")
                text = more + text
        if name == "see":
            stripped = text.strip()
            if stripped.startswith(("<", '"')):
                shown = r.render(stripped.strip('"') if stripped.startswith('"') else stripped)
            else:
                ref, _, label = stripped.partition(" ")
                ref, label = _reference(ref, label)
                shown = r.restore(r.keep(link(ref, r.text(label) if label else "")))
            out.append(Tag(name, "", shown.strip()))
            continue
        rendered = r.render(text).strip()
        out.append(Tag(name, arg, rendered))
    return Doc(tuple(x for x in body), tuple(out))
