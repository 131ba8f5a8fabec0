"""A KDoc comment as the markdown a Dokka page shows (kdoc.py reads the comments).

KDoc is markdown: the comment's lines lose their leading `*`s (javadoc_text.comment_lines) and
are split into the description and the block tags at the first line starting with a tag
outside a code fence (javadoc_text.split_tags). What Dokka renders differently from markdown:

- a link to a declaration, `[Foo]`, `[Foo.bar]`, `[bar]`, `[the text][Foo.bar]`, is what the
  page's `link` callback makes of it (a link to the member's section, or the name in code with
  the name recorded for the build to resolve); outside code spans and fences only, and never
  a markdown link (`[a](b)`) or a reference definition (`[a]: b`);
- `@param name` (or `@param [name]`), `@property`, `@throws`/`@exception Type`, `@receiver`,
  `@return`, `@constructor`, `@sample`, `@see`, `@since` are kept apart as `Tag`s; `@author`
  and unknown tags are kept too and shown by no one; `@suppress` hides the declaration.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.formats.source.javadoc_text import Doc, Tag, comment_lines, split_tags

# `[label][target]` or `[target]`, not `[a](b)`, `[a]: b`, `![img]`, nor `[a][b]`'s second part
_LINK = re.compile(r"(?<![\]\\!])\[([^\[\]\n]+)\](?:\[([^\[\]\n]+)\])?(?![(\[])")
_NAME = re.compile(r"^`?[A-Za-z_][\w]*`?(?:\.`?[A-Za-z_][\w]*`?)*$")
_CODE_SPAN = re.compile(r"(`+)[^`]*?\1|`+")
_TAGGED = frozenset({"param", "property", "throws", "exception"})
# (target as written, label or "") -> markdown; None leaves the brackets as written
Link = Callable[[str, str], "str | None"]


def _links(line: str, link: Link) -> str:
    """`line` with its KDoc links replaced, outside code spans."""
    out: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(line):
        out.append(_LINK.sub(lambda x: _one(x, link), line[pos : m.start()]))
        out.append(m.group())
        pos = m.end()
    out.append(_LINK.sub(lambda x: _one(x, link), line[pos:]))
    return "".join(out)


def _one(m: re.Match[str], link: Link) -> str:
    label, target = m.group(1), m.group(2)
    ref = (target or label).strip()
    definition = m.string[m.end() : m.end() + 1] == ":" and not m.string[: m.start()].strip()
    if not _NAME.match(ref) or definition:  # (`[a]: https://…` at a line's start)
        return m.group()
    done = link(ref.replace("`", ""), label.strip() if target else "")
    return m.group() if done is None else done


def render_lines(lines: list[str], link: Link) -> list[str]:
    """Markdown lines with their KDoc links replaced (code fences left as they are)."""
    code = fenced_lines(lines)
    return [x if code[k] else _links(x, link) for k, x in enumerate(lines)]


def render(raw: str, link: Link) -> Doc:
    """The KDoc comment `raw` (its content, without `/**` and `*/`) as its description's
    markdown lines and its block tags (see the module's docstring)."""
    lines = comment_lines(raw, False)
    # (the `*`s gone, the lines are markdown: split_tags then keeps a fence's `@` lines in it)
    main, tags = split_tags(comment_lines("\n".join(lines), True), True)
    while main and not main[0].strip():
        main.pop(0)
    while main and not main[-1].strip():
        main.pop()
    out: list[Tag] = []
    for name, text in tags:
        name = "throws" if name == "exception" else name
        arg = ""
        if name in _TAGGED or name in ("sample", "see"):
            stripped = text.strip()
            if stripped.startswith("["):  # (`@param [name] text`)
                arg, _, text = stripped[1:].partition("]")
            else:
                arg, _, text = stripped.partition(" ") if " " in stripped else (stripped, "", "")
                if "\n" in arg:
                    arg, _, more = arg.partition("\n")
                    text = more + text
            arg = arg.strip()
        body = render_lines(comment_lines(text, True), link)
        out.append(Tag(name, arg, "\n".join(body).strip()))
    return Doc(tuple(render_lines(main, link)), tuple(out))


def suppressed(raw: str | None) -> bool:
    """Whether a KDoc comment says `@suppress` (Dokka leaves the declaration out)."""
    return bool(raw) and re.search(r"(?m)^[\s*]*@suppress\b", raw or "") is not None
