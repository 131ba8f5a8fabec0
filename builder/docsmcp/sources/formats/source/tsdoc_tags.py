"""A TSDoc/JSDoc comment read as TypeDoc shows it: its text, then its block tags.

TypeDoc renders a comment's summary (TSDoc) or description (JSDoc, also `@description`) as
markdown, `{@link X}` as a link named `X` (`{@link X | text}` and `{@link X text}` as the
text), and the block tags under their own labels: `@param` beside each parameter, `@returns`,
`@throws`, `@example` (a fenced block as written, or the text as code where JSDoc wrote none),
`@deprecated`, `@remarks`, `@see`, `@since`, `@defaultValue`. Modifier tags decide what is
shown: `@internal`, `@hidden`, `@ignore` and `@private` hide the declaration, as TypeDoc's
`excludeInternal`/`@hidden` do. Tags TypeDoc uses for its own layout (`@category`, `@group`,
`@name`, `@summary` in date-fns' style, `@typeParam`) are read or dropped, never shown as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docsmcp.sources.formats.markdown.fences import fence_for

# `{@link Foo}`, `{@link Foo | text}`, `{@linkcode Foo.bar}`, `{@link https://x text}`
_INLINE_LINK = re.compile(r"\{@(link|linkcode|linkplain)\s+([^\s}|]+)(?:\s*\|\s*|\s+)?([^}]*)\}")
_INLINE_OTHER = re.compile(r"\{@(?:inheritDoc|label)[^}]*\}")
_TAG = re.compile(r"^\s*@([A-Za-z][\w-]*)\b[ \t]?(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
# `@param name - text`, `@param {Type} name text`, `@param [name=1] text`, `@param opts.x`
_PARAM = re.compile(
    r"^(?:\{(?P<type>[^}]*)\}\s*)?(?P<name>\[[^\]]*\]|[\w$.\[\]]+)\s*(?:-\s*)?(?P<text>.*)$",
    re.DOTALL,
)
_RETURNS_TYPE = re.compile(r"^\{([^}]*)\}\s*(.*)$", re.DOTALL)
HIDING_TAGS = frozenset({"internal", "hidden", "ignore", "private"})
# Tags whose text is no part of the page (TypeDoc lays the page out by them).
_LAYOUT_TAGS = frozenset(
    {
        "category",
        "group",
        "name",
        "typeparam",
        "template",
        "module",
        "packagedocumentation",
        "public",
        "alpha",
        "beta",
        "experimental",
        "readonly",
        "virtual",
        "override",
        "sealed",
        "eventproperty",
        "function",
        "kind",
        "memberof",
        "type",
        "typedef",
        "callback",
        "class",
        "constructor",
        "interface",
        "enum",
        "namespace",
        "property",
        "prop",
        "overload",
        "expand",
        "inline",
        "import",
        "privateremarks",
        "showcategories",
        "hidecategories",
        "sortstrategy",
        "primaryexport",
        "mergemodulewith",
        "document",
        "license",
        "author",
    }
)


@dataclass(frozen=True)
class DocComment:
    text: str  # the summary and description, markdown
    params: tuple[tuple[str, str, str], ...]  # (name, type from `{T}` or "", text)
    returns: str  # the `@returns` text ("" if none)
    returns_type: str  # `@returns {T}`'s type, JSDoc's ("" if none)
    examples: tuple[str, ...]  # each `@example` as markdown (fenced)
    deprecated: str | None  # the `@deprecated` text ("" when given without one), or None
    blocks: tuple[tuple[str, str], ...]  # (label, text) of remarks, throws, see, since, default
    hidden: bool  # an `@internal`/`@hidden`/`@ignore`/`@private` modifier
    module: str | None  # `@module Name` / `@packageDocumentation`'s name ("" without one)
    summary: str  # date-fns' `@summary` one-liner ("" if none)


def inline(text: str) -> str:
    """`{@link X}` as `X` in code (its text where given), other inline tags dropped."""

    def link(m: re.Match[str]) -> str:
        target, label = m.group(2), m.group(3).strip()
        if label:
            return label
        return target if target.startswith(("http://", "https://")) else f"`{target}`"

    return _INLINE_OTHER.sub("", _INLINE_LINK.sub(link, text))


def _example(text: str) -> str:
    """An `@example`: TSDoc writes a title line and a fenced block; JSDoc writes the code bare,
    which TypeDoc shows as code."""
    lines = text.split("\n")
    if any(_FENCE.match(line) for line in lines):
        return inline(text).strip("\n")
    code = [line for line in lines]
    while code and not code[0].strip():
        code.pop(0)
    while code and not code[-1].strip():
        code.pop()
    if not code:
        return ""
    fence = fence_for(code)
    return "\n".join([f"{fence}ts", *code, fence])


_LABELS = {
    "remarks": "Remarks",
    "throws": "Throws",
    "exception": "Throws",
    "see": "See also",
    "since": "Since",
    "default": "Default",
    "defaultvalue": "Default",
    "note": "Note",
}


def parse_comment(text: str) -> DocComment:
    """The comment `text` (ts_scan.doc_text's) as its parts; fenced code is never read for
    tags (an `@decorator` in an example stays code)."""
    parts: list[tuple[str, list[str]]] = [("", [])]
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        m = None if fenced else _TAG.match(line)
        if m is not None and not (parts[-1][0] == "example" and _FENCE.match(line)):
            parts.append((m.group(1).lower(), [m.group(2)]))
        else:
            parts[-1][1].append(line)
    body: list[str] = []
    params: list[tuple[str, str, str]] = []
    returns = returns_type = summary = ""
    examples: list[str] = []
    deprecated: str | None = None
    blocks: list[tuple[str, str]] = []
    hidden = False
    module: str | None = None
    for tag, lines in parts:
        value = "\n".join(lines).strip("\n")
        if tag in ("", "description", "desc"):
            if value.strip():
                body.append(inline(value.strip()))
        elif tag in ("param", "arg", "argument"):
            if m := _PARAM.match(value.strip()):
                name = m.group("name").strip("[]").split("=")[0].strip()
                params.append((name, (m.group("type") or "").strip(), inline(m.group("text"))))
        elif tag in ("returns", "return"):
            if m := _RETURNS_TYPE.match(value.strip()):
                returns_type, value = m.group(1).strip(), m.group(2)
            # (`@return {ServerResponse} - Returns itself`: the hyphen is JSDoc's separator)
            returns = inline(re.sub(r"^-\s+", "", value.strip()))
        elif tag == "example":
            if shown := _example(value):
                examples.append(shown)
        elif tag == "deprecated":
            deprecated = inline(value.strip())
        elif tag in HIDING_TAGS:
            hidden = True
        elif tag in ("module", "packagedocumentation"):
            module = value.split("\n")[0].strip()
            rest = "\n".join(value.split("\n")[1:]).strip()
            if rest:
                body.append(inline(rest))
        elif tag == "summary":
            summary = inline(value.strip())
        elif tag in _LABELS:
            if value.strip():
                blocks.append((_LABELS[tag], inline(value.strip())))
        elif tag.lower() not in _LAYOUT_TAGS and value.strip() and tag not in ("typeparam",):
            blocks.append((tag.capitalize(), inline(value.strip())))
    return DocComment(
        "\n\n".join(body),
        tuple(params),
        returns,
        returns_type,
        tuple(examples),
        deprecated,
        tuple(blocks),
        hidden,
        module,
        summary,
    )
