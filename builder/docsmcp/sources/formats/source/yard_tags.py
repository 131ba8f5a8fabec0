"""A YARD docstring (the `#` comment block above a Ruby definition) read as YARD renders it:
the text, then its tags (`@param [Type] name text`, `@option opts [Type] :key (default) text`,
`@return`, `@raise`, `@yield`, `@yieldparam`, `@yieldreturn`, `@example Title` with its code,
`@see`, `@deprecated`, `@note`, `@since`, `@overload sig` with tags of its own).

The text is RDoc (YARD's default markup) or markdown (`--markup markdown`): both are read the
same way, since RDoc's marks do not clash with markdown's in comments. RDoc's `+code+` becomes a
code span, `== Heading` a heading, a labelled list (`[:+body+:] text`, `label:: text`) a list
of bold labels, and text indented below a paragraph a `ruby` block, as RDoc shows it. `{Foo#bar}`
and `{Foo#bar text}` links become code spans (their targets are `names`, object references
yard.py records), `{file:docs/x.md Title}` and `{https://… Title}` links.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docsmcp.sources.formats.markdown.fences import fence_for

_TAG = re.compile(r"^@(\w+)(?:\s+(.*))?$")
_TYPES = re.compile(r"^\[([^\]]*)\]\s*")
_NAME = re.compile(r"^([&*]{0,2}[A-Za-z_]\w*[?!]?)\s*")
_OPTION_KEY = re.compile(r"^(:?[\w\[\]:]+)\s*(?:\(([^)]*)\))?\s*")
# RDoc's inline HTML: `<tt>x</tt>`, `<code>`, `<b>`, `<em>`/`<i>`
_HTML_CODE = re.compile(r"<(?:tt|code)>([^<>`]+)</(?:tt|code)>")
_HTML_BOLD = re.compile(r"<(?:b|strong)>([^<>]+)</(?:b|strong)>")
_HTML_EM = re.compile(r"<(?:em|i)>([^<>]+)</(?:em|i)>")
_CODE_PLUS = re.compile(r"(?<![\w+`])\+([\w.:#@$?!=\[\]/-]+)\+(?![\w+])")
_RDOC_HEADING = re.compile(r"^(={1,6})\s+(\S.*)$")
_LABEL = re.compile(r"^\[([^\]]+)\]\s+(.*)$")
_LABEL_COLONS = re.compile(r"^(\S[^:]*?)::\s+(.*)$")
# RDoc's `{text}[https://…]` and `word[https://…]` links
_RDOC_LINK = re.compile(
    r"\{([^{}]+)\}\[((?:https?|mailto|rdoc-ref):[^\]\s]+)\]|(?<![\w\[])(\w+)\[(https?://[^\]\s]+)\]"
)
_LINK = re.compile(r"(?<![\w\\$#])\{(?!\s)([^{}\s]+)(?:\s+([^{}]+))?\}")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_FENCE = re.compile(r"^\s*(```|~~~)")
_OBJECT = re.compile(r"^(?:::)?(?:[A-Z]\w*(?:::[A-Z]\w*)*)?(?:[#.][^\s#.{}]+)?$")
MAX_OVERLOAD_DEPTH = 2


@dataclass(frozen=True)
class Param:
    name: str
    types: str
    text: str


@dataclass
class Doc:
    text: list[tuple[int, str]] = field(default_factory=list)  # (source line, markdown)
    params: list[tuple[int, Param]] = field(default_factory=list)
    options: list[tuple[int, Param]] = field(default_factory=list)  # name: `opts[:key]`
    returns: list[tuple[int, Param]] = field(default_factory=list)
    sections: list[tuple[int, str]] = field(default_factory=list)  # the tags, as markdown
    names: list[tuple[int, str]] = field(default_factory=list)  # (line, `{Foo#bar}` target)
    deprecated: str | None = None
    summary: str = ""  # the first paragraph, plain


def _dedent(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    widths = [len(t) - len(t.lstrip()) for _, t in lines if t.strip()]
    cut = min(widths) if widths else 0
    return [(n, t[cut:].rstrip()) for n, t in lines]


def inline(text: str, names: list[str], links: bool = True) -> str:
    """RDoc's `+code+` and `{text}[url]` and YARD's `{…}` links of one line outside code spans,
    as markdown; object links' targets are appended to `names`."""
    parts = text.split("`")
    for k in range(0, len(parts), 2):  # (even parts are outside code spans)
        part = _RDOC_LINK.sub(_rdoc_link, _CODE_PLUS.sub(r"`\1`", parts[k]))
        part = _HTML_CODE.sub(r"`\1`", _HTML_BOLD.sub(r"**\1**", _HTML_EM.sub(r"*\1*", part)))
        parts[k] = _LINK.sub(lambda m: _link(m, names), part) if links else part
    return "`".join(parts)


def _rdoc_link(m: re.Match[str]) -> str:
    text, url = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    return f"[{text}]({url.removeprefix('rdoc-ref:')})"


def _link(m: re.Match[str], names: list[str]) -> str:
    target, title = m.group(1), (m.group(2) or "").strip()
    if target.startswith(("http://", "https://")):
        return f"[{title or target}]({target})"
    if target.startswith("file:"):
        path = target[5:]
        return f"[{title or path.rsplit('/', 1)[-1]}]({path})"
    if _OBJECT.match(target) and any(c.isalpha() for c in target):
        names.append(target)
        return title if title else f"`{target}`"
    return m.group(0)


def _types(text: str) -> tuple[str, str]:
    m = _TYPES.match(text)
    return (m.group(1).strip(), text[m.end() :]) if m else ("", text)


def _param(text: str) -> Param:
    """`[Type] name text` or `name [Type] text` (both orders occur: Faraday uses the second)."""
    types, rest = _types(text)
    m = _NAME.match(rest)
    name = m.group(1) if m else ""
    rest = rest[m.end() :] if m else rest
    if not types:
        types, rest = _types(rest)
    return Param(name, types, rest.strip())


def parse_doc(lines: list[tuple[int, str]], depth: int = 0) -> Doc:
    """The docstring of comment `lines` ((source line, text after `#`))."""
    doc = Doc()
    lines = [(n, t) for n, t in _dedent(_visible(lines)) if not t.strip().startswith("@!")]
    names: list[str] = []
    k = 0
    body: list[tuple[int, str]] = []
    while k < len(lines):
        n, t = lines[k]
        m = _TAG.match(t)
        if m is None:
            body.append((n, t))
            k += 1
            continue
        # the tag's text: its line and the lines indented under it (blank lines within)
        j = k + 1
        while j < len(lines) and (not lines[j][1].strip() or lines[j][1][:1] in " \t"):
            j += 1
        while j > k + 1 and not lines[j - 1][1].strip():
            j -= 1
        _tag(doc, n, m.group(1), m.group(2) or "", lines[k + 1 : j], names, depth)
        k = j
    doc.text = _markup(body, names)
    doc.summary = _summary(doc.text)
    doc.names += [(lines[0][0] if lines else 0, name) for name in names]
    return doc


def _visible(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """`lines` without RDoc's hidden parts: from a `--` line up to a `++` line (or the end)."""
    out: list[tuple[int, str]] = []
    hidden = False
    for n, t in lines:
        if t.strip() in ("--", "++"):
            hidden = t.strip() == "--"
        elif not hidden:
            out.append((n, t))
    return out


def _summary(text: list[tuple[int, str]]) -> str:
    out: list[str] = []
    for _, t in text:
        if not t.strip():
            if out:
                break
            continue
        if t.startswith(("#", "```", "~~~")):
            if out:
                break
            continue
        out.append(t.strip())
    return " ".join(out)


def _tag(
    doc: Doc,
    n: int,
    tag: str,
    text: str,
    more: list[tuple[int, str]],
    names: list[str],
    depth: int,
) -> None:
    joined = " ".join([text.strip(), *(t.strip() for _, t in more if t.strip())]).strip()
    joined = inline(joined, names)
    if tag == "param":
        doc.params.append((n, _param(joined)))
    elif tag == "option":
        hash_name, _, rest = joined.partition(" ")
        types, rest = _types(rest.strip())
        m = _OPTION_KEY.match(rest)
        key, default = (m.group(1), m.group(2)) if m else ("", None)
        rest = rest[m.end() :] if m else rest
        extra = f" (default: `{default}`)" if default else ""
        name = f"{hash_name}[{key if key.startswith(':') else ':' + key}]"
        doc.options.append((n, Param(name, types, rest.strip() + extra)))
    elif tag in ("return", "yieldreturn"):
        types, rest = _types(joined)
        doc.returns.append((n, Param(tag, types, rest.strip())))
    elif tag in ("raise", "yield", "yieldparam", "see", "note", "since", "deprecated", "todo"):
        label = {
            "raise": "Raises",
            "yield": "Yields",
            "yieldparam": "Yield parameter",
            "see": "See also",
            "note": "Note",
            "since": "Since",
            "deprecated": "Deprecated",
            "todo": "Todo",
        }[tag]
        if tag == "deprecated":
            doc.deprecated = joined or "Deprecated."
        if tag in ("raise", "yield"):
            types, rest = _types(joined)
            joined = (f"`{types}` " if types else "") + rest
        elif tag == "yieldparam":
            p = _param(joined)
            joined = f"`{p.name}`" + (f" (`{p.types}`)" if p.types else "") + f" — {p.text}"
        elif tag == "see" and re.match(r"^[A-Z#]\S*$", text.strip().split(" ")[0] or "-"):
            first, _, rest = joined.partition(" ")
            if not first.startswith("`"):
                names.append(first)
                first = f"`{first}`"
            joined = f"{first} {rest}".strip()
        doc.sections.append((n, f"**{label}:** {joined}"))
    elif tag == "example":
        code = _dedent(more)
        while code and not code[0][1].strip():
            code.pop(0)
        title = text.strip()
        fence = fence_for([t for _, t in code])
        doc.sections.append(
            (n, f"**Example:** {inline(title, names)}" if title else "**Example:**")
        )
        doc.sections.append((n, fence + "ruby"))
        doc.sections += code
        doc.sections.append((more[-1][0] if more else n, fence))
    elif tag == "overload" and depth < MAX_OVERLOAD_DEPTH:
        inner = parse_doc(list(more), depth + 1)
        doc.sections.append((n, f"**Overload:** `{text.strip()}`"))
        doc.sections += inner.text
        doc.params += inner.params
        doc.options += inner.options
        for m, r in inner.returns:  # (under its overload, as YARD shows them)
            types = f"`{r.types}`" if r.types else ""
            label = "Returns" if r.name == "return" else "Block returns"
            doc.sections.append(
                (m, f"**{label}:** {types}{' — ' if types and r.text else ''}{r.text}")
            )
        doc.sections += inner.sections
        doc.names += inner.names
    elif tag in ("api", "private", "author", "abstract", "attr", "visibility"):
        if tag == "abstract":
            doc.sections.append((n, f"**Abstract:** {joined}".rstrip()))
    else:
        doc.sections.append((n, f"**{tag.capitalize()}:** {joined}".rstrip()))


def rdoc_markup(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """An RDoc file's (source line, text) lines as markdown; its `{Foo}` braces stay text."""
    return _markup(lines, [], links=False)


def _markup(
    lines: list[tuple[int, str]], names: list[str], links: bool = True
) -> list[tuple[int, str]]:
    """RDoc/markdown text as markdown (see the module docstring)."""
    out: list[tuple[int, str]] = []
    fence: str | None = None
    verbatim: list[tuple[int, str]] = []
    in_list = 0  # the indent of the open list item's text (0: none)

    def flush() -> None:
        if verbatim:
            while verbatim and not verbatim[-1][1].strip():
                verbatim.pop()
            block = _dedent(verbatim)
            verbatim.clear()
            if not block:
                return
            mark = fence_for([t for _, t in block])
            out.append((block[0][0], mark + "ruby"))
            out.extend(block)
            out.append((block[-1][0], mark))
            verbatim.clear()

    for n, t in lines:
        if fence is not None:
            out.append((n, t))
            if t.strip().startswith(fence):
                fence = None
            continue
        if m := _FENCE.match(t):
            flush()
            fence = m.group(1)
            out.append((n, t))
            continue
        indent = len(t) - len(t.lstrip())
        indented = bool(t.strip()) and (indent >= 2 or t[:1] == "\t")
        if verbatim and (indented or not t.strip()):
            verbatim.append((n, t))
            continue
        # RDoc's verbatim text: indented after a blank line or below a line ending in `:`
        # ("For a query:"); a list item's continuation (as indented as the item's text) is no
        # code, nor is a list item, nor a paragraph's hanging indent (markdown's)
        after = not out or not out[-1][1].strip() or out[-1][1].rstrip().endswith(":")
        if indented and after and not _ITEM.match(t) and not (in_list and indent >= in_list):
            verbatim.append((n, t))
            continue
        flush()
        if t.strip():
            item = _ITEM.match(t) or _LABEL.match(t) or _LABEL_COLONS.match(t)
            if item is not None:  # (the column its text starts at)
                in_list = item.start(2) if item.re is not _ITEM else item.end()
            elif not indented:
                in_list = 0
        if m := _RDOC_HEADING.match(t):
            out.append((n, "#" * len(m.group(1)) + " " + inline(m.group(2), names, links)))
        elif (m := _LABEL.match(t)) or (m := _LABEL_COLONS.match(t)):
            label = inline(m.group(1).strip(":"), names, links)
            out.append((n, f"- **{label}** {inline(m.group(2), names, links)}"))
        else:
            out.append((n, inline(t, names, links)))
    flush()
    return out
