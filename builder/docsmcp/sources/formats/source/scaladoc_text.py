"""A Scaladoc comment as the markdown a Scaladoc page shows (scaladoc.py reads the comments).

Scaladoc's wiki syntax, not markdown (the comment's margins are gone: c_comments.block_doc_text):

- `{{{ code }}}` (one line or several) is a code block, as is HTML's `<pre>`;
- `[[cats.Functor]]`, `[[map]]`, `[[cats.Functor.map the map method]]` link to an entity: what
  the page's `link` callback makes of it (a link to a section of the page, or the name in code
  with the name recorded for the build to resolve); `[[https://… text]]` is a markdown link;
  Scaladoc 2's spellings of a member or object (`Foo#bar`, `Foo$`, `Foo!`, `bar(x:Int)*`) name
  the same entity;
- `'''bold'''`, `''italic''`, `__underline__` (shown as emphasis), `` `mono` ``;
  `=Heading=` lines (`==H==` a level below) are headings below the declaration's;
- lists (` - item`, ` 1. item`) are markdown already; HTML's `<code>`, `<b>`, `<i>`, `<p>`,
  `<br>` become their markdown;
- `$name`/`${name}` is the text of the `@define name …` tag of the comment or of an enclosing
  declaration's (`defines`);
- block tags (`@param`, `@tparam`, `@return`, `@throws`, `@example`, `@see`, `@note`, `@since`,
  `@deprecated`, `@constructor`, …) start at a line's start outside code blocks and are kept
  apart as `Tag`s; `@group`, `@author` and the like are shown by no one.

Every pattern is linear: a hostile comment renders in time proportional to its size.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# (target as normalised, label or "") -> markdown
Link = Callable[[str, str], str]

_TAG = re.compile(r"^\s*@(\w+)\b[ \t]*(.*)$")
_ARG_TAGS = frozenset({"param", "tparam", "throws", "define"})
_CODE_OPEN = re.compile(r"\{\{\{|<pre>", re.I)
_ENTITY = re.compile(r"\[\[([^\[\]\n]+)\]\]")
_BOLD = re.compile(r"'''([^'\n]+)'''")
_ITALIC = re.compile(r"''([^'\n]+)''")
_UNDERLINE = re.compile(r"(?<![\w_])__([^_\n]+)__(?![\w_])")
_HEADING = re.compile(r"^\s*(=+)([^=\n]+)=+\s*$")
_MACRO = re.compile(r"\$\{(\w+)\}|\$(\w+)")
_HTML_CODE = re.compile(r"<(code|tt)>([^<]*)</\1>", re.I)
_HTML_BOLD = re.compile(r"<(b|strong)>([^<]*)</\1>", re.I)
_HTML_ITALIC = re.compile(r"<(i|em)>([^<]*)</\1>", re.I)
_HTML_DROP = re.compile(r"</?(?:p|br|div|span)\s*/?>", re.I)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"^(?:https?|ftp|mailto):", re.I)
_MEMBER_ARGS = re.compile(r"\([^()]*\)[^.]*$")
MAX_EXPANSIONS = 64  # macros expanded in one comment, at most (a macro may name another)


@dataclass(frozen=True)
class Tag:
    name: str
    arg: str  # the parameter's, type parameter's, exception's or macro's name; else ""
    text: str


@dataclass(frozen=True)
class Doc:
    lines: tuple[str, ...]
    tags: tuple[Tag, ...]

    def first(self, name: str) -> Tag | None:
        return next((t for t in self.tags if t.name == name), None)

    def all(self, name: str) -> list[Tag]:
        return [t for t in self.tags if t.name == name]


def defines(raw: str) -> dict[str, str]:
    """The `@define name text` macros of a comment."""
    out: dict[str, str] = {}
    for t in _split(_code_blocks(raw))[1]:
        if t.name == "define" and t.arg:
            out[t.arg] = t.text.strip()
    return out


def expand(raw: str, table: dict[str, str]) -> str:
    """`raw` with its `$name` macros replaced by their text (unknown ones left as written)."""
    if not table or "$" not in raw:
        return raw
    count = [0]

    def one(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        if name in table and count[0] < MAX_EXPANSIONS:
            count[0] += 1
            return table[name]
        return m.group()

    for _ in range(3):  # (a macro's text may use another)
        done = _MACRO.sub(one, raw)
        if done == raw:
            break
        raw = done
    return raw


def _code_blocks(raw: str) -> list[tuple[bool, str]]:
    """The comment as (is code, text) pieces: `{{{ … }}}` and `<pre>…</pre>` apart."""
    out: list[tuple[bool, str]] = []
    pos = 0
    while True:
        m = _CODE_OPEN.search(raw, pos)
        if m is None:
            out.append((False, raw[pos:]))
            return out
        close = "}}}" if m.group() == "{{{" else "</pre>"
        end = raw.find(close, m.end()) if close == "}}}" else raw.lower().find(close, m.end())
        out.append((False, raw[pos : m.start()]))
        if end < 0:
            out.append((True, raw[m.end() :]))
            return out
        out.append((True, raw[m.end() : end]))
        pos = end + len(close)


def _fence(code: str) -> list[str]:
    lines = code.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    indents = [len(x) - len(x.lstrip()) for x in lines if x.strip()]
    cut = min(indents) if indents else 0
    body = [x[cut:].rstrip() for x in lines]
    ticks = "```"
    while any(x.lstrip().startswith(ticks) for x in body):
        ticks += "`"
    return ["", ticks + "scala", *body, ticks, ""]


def _split(pieces: list[tuple[bool, str]]) -> tuple[list[str], list[Tag]]:
    """The description's lines (code blocks fenced) and the block tags after it."""
    main: list[str] = []
    tags: list[tuple[str, str, list[str]]] = []
    for is_code, text in pieces:
        if is_code:
            lines = _fence(text)
            (tags[-1][2] if tags else main).extend(lines)
            continue
        for k, line in enumerate(text.split("\n")):
            m = _TAG.match(line) if k > 0 or not (tags or main) or _ends_line(main, tags) else None
            if m is not None:
                name, rest = m.group(1), m.group(2)
                arg = ""
                if name in _ARG_TAGS:
                    arg, _, rest = rest.partition(" ")
                    arg = arg.strip("[]")
                tags.append((name, arg, [rest]))
            elif tags:
                if k == 0 and tags[-1][2]:
                    tags[-1][2][-1] += line
                else:
                    tags[-1][2].append(line)
            elif k == 0 and main:
                main[-1] += line
            else:
                main.append(line)
    return main, [Tag(n, a, "\n".join(x).strip("\n")) for n, a, x in tags]


def _ends_line(main: list[str], tags: list[tuple[str, str, list[str]]]) -> bool:
    """Whether the text before a piece ended with a line end (its first line may be a tag)."""
    last = tags[-1][2] if tags else main
    return not last or last[-1] == ""


def _inline(line: str, link: Link) -> str:
    """One prose line's wiki markup as markdown, code spans left as they are (an entity
    link's label may be one: `[[Functor `Functor`]]`)."""
    line = _ENTITY.sub(lambda m: _entity(m.group(1), link), line)
    out: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(line):
        out.append(_markup(line[pos : m.start()], link))
        out.append(m.group())
        pos = m.end()
    out.append(_markup(line[pos:], link))
    return "".join(out)


def _markup(text: str, link: Link) -> str:
    text = _BOLD.sub(r"**\1**", text)
    text = _ITALIC.sub(r"*\1*", text)
    text = _UNDERLINE.sub(r"*\1*", text)
    text = _HTML_CODE.sub(r"`\2`", text)
    text = _HTML_BOLD.sub(r"**\2**", text)
    text = _HTML_ITALIC.sub(r"*\2*", text)
    return _HTML_DROP.sub("", text)


def normalise(target: str) -> str:
    """An entity link's target as the name code writes (`Foo#bar` -> `Foo.bar`, `Foo$`,
    `Foo!`, `bar(x:Int)*` -> `bar`, escaped dots plain)."""
    t = target.replace("\\.", ".").replace("\\#", "#").replace("#", ".")
    t = _MEMBER_ARGS.sub("", t) if "(" in t else t
    t = t.rstrip("!$*").replace("$.", ".").replace("!.", ".")
    return t.strip(".")


def _entity(body: str, link: Link) -> str:
    target, _, label = body.strip().partition(" ")
    label = label.strip()
    if _URL.match(target):
        return f"[{label or target}]({target})"
    return link(normalise(target), label)


def render(raw: str, link: Link, table: dict[str, str], shift: int) -> Doc:
    """The comment `raw` as a Doc: its description's markdown lines (its `=Heading=`s `shift`
    levels down) and its tags, macros of `table` expanded, entity links made by `link`."""
    main, tags = _split(_code_blocks(expand(raw, table)))
    return Doc(tuple(_prose(main, link, shift)), tuple(
        Tag(t.name, t.arg, "\n".join(_prose(t.text.split("\n"), link, shift))) for t in tags
    ))  # fmt: skip


def _prose(lines: list[str], link: Link, shift: int) -> list[str]:
    out: list[str] = []
    fence = ""
    for line in lines:
        stripped = line.lstrip()
        if fence:
            out.append(line)
            if stripped.startswith(fence) and not stripped[len(fence) :].strip():
                fence = ""
            continue
        if stripped.startswith("```"):
            fence = stripped[: len(stripped) - len(stripped.lstrip("`"))]
            out.append(line)
            continue
        m = _HEADING.match(line)
        if m is not None:
            level = min(6, len(m.group(1)) + shift)
            out += ["", f"{'#' * level} {_inline(m.group(2).strip(), link)}", ""]
            continue
        out.append(_inline(line.rstrip(), link))
    # (at most one blank line in a row, none at the ends)
    kept: list[str] = []
    for x in out:
        if x or (kept and kept[-1]):
            kept.append(x)
    while kept and not kept[-1]:
        kept.pop()
    return kept
