"""A PHPDoc comment (`/** … */`) read as phpDocumentor reads it: the summary (up to the first
blank line, or the first line ending in a full stop), the description, and the tags.

- `@param Type $name text`, `@return Type text`, `@throws Type text`, `@var Type [$name] text`
  (continuation lines join the tag's text);
- `@property[-read|-write] Type $name text` and `@method [static] Type name(params) text`:
  the magic members phpDocumentor lists with the real ones;
- `@deprecated [version] text`, `@since`, `@see target text`, `@link url text`, `@internal`,
  `@api`, `@template T [of Bound] text` (and `@psalm-`/`@phpstan-` spellings, which refine a
  type: a `@phpstan-param` gives the type where `@param` has none, never twice);
- inline tags: `{@link url text}` a link, `{@see Target}` a name the page links where it can
  (`link`, called back), `{@inheritDoc}` the inherited text's place (`inherit`).

Tags phpDocumentor shows no text for (`@author`, `@copyright`, `@license`, `@package`, …) are
dropped. A comment's `<code>` and `<pre>` blocks become fenced PHP blocks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from docsmcp.sources.formats.markdown.fences import code_span

_MARGIN = re.compile(r"^[ \t]*\*(?: ?)", re.M)
# (`@Event("…")`: a Doctrine annotation is a tag too, one phpDocumentor shows no text for)
_TAG = re.compile(r"^@([\w-]+)(?:\s+|$|(?=\())(.*)$", re.S)
_INLINE = re.compile(r"\{@(link|see|inheritDoc|inheritdoc|internal)\b\s*([^}]*)\}", re.I)
_TYPE = re.compile(r"^(\S*?(?:<[^>]*>|\{[^}]*\}|\([^)]*\))?\S*)(?:\s+|$)(.*)$", re.S)
_VAR = re.compile(r"^(&?\.{0,3}\$\w+)(?:\s+|$)(.*)$", re.S)
_CODE = re.compile(r"^\s*<(code|pre)>\s*$", re.I)
_URL = re.compile(r"^[a-z][\w+.-]*://\S+$", re.I)
_TOOL_PREFIX = re.compile(r"^(?:psalm|phpstan)-")


@dataclass(frozen=True)
class Named:
    """A `@param`, `@property` or `@var`: its type, name and text."""

    type: str
    name: str
    text: str


@dataclass(frozen=True)
class Magic:
    """A `@method` tag: `static`, return type, name, parameters as written, text."""

    static: bool
    returns: str
    name: str
    params: str
    text: str


@dataclass(frozen=True)
class DocBlock:
    summary: str = ""
    description: tuple[str, ...] = ()  # markdown lines
    params: tuple[Named, ...] = ()
    returns: tuple[str, str] | None = None  # (type, text)
    throws: tuple[tuple[str, str], ...] = ()
    var: Named | None = None
    properties: tuple[tuple[str, Named], ...] = ()  # (`property`/`property-read`/…, tag)
    methods: tuple[Magic, ...] = ()
    deprecated: str | None = None
    since: str = ""
    see: tuple[str, ...] = ()  # markdown: links or names
    templates: tuple[tuple[str, str], ...] = ()  # (name, `of Bound` text)
    internal: bool = False
    inherit: bool = False  # `{@inheritDoc}` or no text at all beside `@inheritDoc`


def comment_lines(comment: str) -> list[str]:
    """The text of a `/** */` comment without its delimiters and `*` margins."""
    body = comment[3:]
    body = body[:-2] if body.endswith("*/") else body
    return _MARGIN.sub("", body).split("\n")


def read(comment: str, link: Callable[[str, str], str]) -> DocBlock:
    """The docblock `comment`; `link(target, label)` writes a `{@see}`/`@see` name as markdown."""
    lines = comment_lines(comment)
    text: list[str] = []
    tags: list[str] = []
    in_code = False
    for raw in lines:
        line = raw.rstrip()
        stripped = line.strip()
        if not in_code and stripped.startswith("@") and _TAG.match(stripped):
            tags.append(stripped)
        elif tags and not in_code:
            tags[-1] += "\n" + line
        else:
            text.append(line)
        if _CODE.match(stripped):
            in_code = True
        elif stripped.lower() in ("</code>", "</pre>"):
            in_code = False
    inherit = False

    def inline(s: str) -> str:
        nonlocal inherit

        def one(m: re.Match[str]) -> str:
            nonlocal inherit
            kind, rest = m.group(1).lower(), m.group(2).strip()
            if kind == "inheritdoc":
                inherit = True
                return ""
            if kind == "internal":
                return ""
            target, _, label = rest.partition(" ")
            if _URL.match(target):  # (`{@see https://…}` as `{@link}`: Monolog's Level)
                return f"[{label.strip() or target}]({target})"
            return link(target, label.strip())

        return _INLINE.sub(one, s)

    def said(s: str) -> str:
        return inline(s).strip()

    summary, description = _split(_code_blocks(text))
    out: dict[str, object] = {"summary": inline(summary)}
    out["description"] = tuple(inline(x) for x in description)
    params: dict[str, Named] = {}
    refined: dict[str, str] = {}
    throws: list[tuple[str, str]] = []
    props: list[tuple[str, Named]] = []
    methods: list[Magic] = []
    see: list[str] = []
    templates: list[tuple[str, str]] = []
    returns: tuple[str, str] | None = None
    refined_return = ""
    for tag in tags:
        m = _TAG.match(tag)
        if m is None:
            continue
        name, rest = m.group(1).lower(), " ".join(m.group(2).split())
        tool = bool(_TOOL_PREFIX.match(name))
        base = _TOOL_PREFIX.sub("", name)
        if base == "param":
            p = _named(rest, said)
            if tool:
                refined.setdefault(p.name, p.type)
            elif p.name:
                params.setdefault(p.name, p)
        elif base == "return" or base == "returns":
            t, text_ = _type_and_text(rest)
            if tool:
                refined_return = refined_return or t
            elif returns is None:
                returns = (t, said(text_))
        elif base == "throws" and not tool:
            t, text_ = _type_and_text(rest)
            throws.append((t, said(text_)))
        elif base == "var" and not tool and "var" not in out:
            out["var"] = _named(rest, said)
        elif base in ("property", "property-read", "property-write") and not tool:
            props.append((base, _named(rest, said)))
        elif base == "method" and not tool:
            got = _magic(rest, said)
            if got is not None:
                methods.append(got)
        elif base == "deprecated":
            out["deprecated"] = said(rest)
        elif base == "since":
            out["since"] = rest
        elif base in ("see", "link", "uses"):
            target, _, label = rest.partition(" ")
            if _URL.match(target):
                see.append(f"[{label.strip() or target}]({target})")
            elif target:
                see.append(link(target, "") + (f" {said(label)}" if label else ""))
        elif base == "template" or base.startswith("template-"):
            t_name, _, bound = rest.partition(" ")
            if t_name and not any(t_name == x for x, _ in templates):
                templates.append((t_name, bound))
        elif base == "internal":
            out["internal"] = not tool
        elif base == "inheritdoc":
            inherit = True
    merged = []
    for p in params.values():
        merged.append(Named(p.type or refined.get(p.name, ""), p.name, p.text))
    if returns is None and refined_return:
        returns = (refined_return, "")
    elif returns is not None and not returns[0]:
        returns = (refined_return, returns[1])
    return DocBlock(
        summary=str(out["summary"]),
        description=out["description"],  # type: ignore[arg-type]
        params=tuple(merged),
        returns=returns,
        throws=tuple(throws),
        var=out.get("var"),  # type: ignore[arg-type]
        properties=tuple(props),
        methods=tuple(methods),
        deprecated=out.get("deprecated"),  # type: ignore[arg-type]
        since=str(out.get("since", "")),
        see=tuple(see),
        templates=tuple(templates),
        internal=bool(out.get("internal", False)),
        inherit=inherit,
    )


def _type_and_text(rest: str) -> tuple[str, str]:
    """`Type text` -> (Type, text); a type may hold `<…>`, `{…}` or `(…)` with spaces
    (`array<string, int>`, `array{a: int}`) when balanced on the tag's first word run."""
    depth, k = 0, 0
    for k, c in enumerate(rest):
        if c in "<({[":
            depth += 1
        elif c in ">)}]" and depth:
            depth -= 1
        elif c.isspace() and depth == 0:
            # (`int | string` is rare; a `|` ends no type)
            # (`callable(int): bool`, phpstan's callable type: its return type follows)
            if rest[k + 1 : k + 2] in ("|", "&") or rest[k - 1 : k] in ("|", "&", ":"):
                continue
            return rest[:k].strip(), rest[k:].strip()
    return rest.strip(), ""


def _named(rest: str, inline: Callable[[str], str]) -> Named:
    """`Type $name text` (or `$name Type text`, or `$name text`)."""
    m = _VAR.match(rest)
    if m:
        t, said = _type_and_text(m.group(2)) if m.group(2)[:1].isupper() else ("", m.group(2))
        return Named(t, m.group(1).lstrip("&."), inline(said))
    t, after = _type_and_text(rest)
    m = _VAR.match(after)
    if m:
        return Named(t, m.group(1).lstrip("&.").removeprefix("..."), inline(m.group(2)))
    return Named(t, "", inline(after))


def _magic(rest: str, inline: Callable[[str], str]) -> Magic | None:
    """`[static] [Type] name(params) text`."""
    static = rest.startswith("static ") and "(" in rest.split(" ", 1)[1]
    rest = rest[7:] if static else rest
    m = re.match(r"^(?:(.*?)\s+)?([A-Za-z_]\w*)\s*\(([^)]*)\)\s*(.*)$", rest, re.S)
    if m is None:
        return None
    return Magic(
        static, (m.group(1) or "").strip(), m.group(2), m.group(3).strip(), inline(m.group(4))
    )


def _code_blocks(lines: list[str]) -> list[str]:
    """`<code>`/`<pre>` blocks as fenced PHP blocks."""
    out: list[str] = []
    for line in lines:
        s = line.strip()
        if _CODE.match(line):
            out.append("```php")
        elif s.lower() in ("</code>", "</pre>"):
            out.append("```")
        else:
            out.append(line)
    return out


def _split(lines: list[str]) -> tuple[str, list[str]]:
    """(summary, description lines): the summary ends at a blank line or a line ending in a
    full stop, as phpDocumentor's does."""
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    summary: list[str] = []
    k = 0
    for k, line in enumerate(lines):
        if not line.strip() or line.startswith("```"):
            break
        summary.append(line.strip())
        if line.rstrip().endswith("."):
            k += 1
            break
    else:
        k = len(lines)
    rest = lines[k:]
    while rest and not rest[0].strip():
        rest = rest[1:]
    return " ".join(summary), rest


def type_span(text: str) -> str:
    """A type as code: `` `array<string, int>` ``."""
    return code_span(text)
