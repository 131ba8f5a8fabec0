"""A C# XML doc comment (`/// <summary>…`) read as docfx renders it, in markdown.

The comment is read as tags and text by a tolerant scanner, not an XML parser: real comments
hold a bare `&` or `<` (`a < b`), unclosed `<para>` and stray closing tags, which docfx shows
as text. Sections: `<summary>`, `<remarks>`, `<returns>`, `<value>`, `<param name>`,
`<typeparam name>`, `<exception cref>`, `<example>`, `<seealso>`, `<inheritdoc/>` (the rest of
a tag's kind is shown in the summary). Inside them: `<see cref/>` (a link the page resolves,
`Type.Member` shown as docfx shows it), `<see langword="null"/>` (`null`), `<see href>` and
`<a href>` (links), `<paramref>`/`<typeparamref>` and `<c>` (code spans), `<code>` (a `csharp`
block, dedented), `<para>` (a paragraph), `<list type="bullet|number|table">` (a list; a table's
rows a line each), `<br/>`, `<b>`/`<i>`; unknown tags show their text, entities are decoded.

Every loop consumes input, and nesting is bounded (MAX_DEPTH), so no comment can make it hang.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from docsmcp.model.api import OBJECT_ANCHOR

MAX_DEPTH = 40
_TAG = re.compile(r"<(/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(/?)>")
_ATTR = re.compile(r"([\w:.-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_SECTIONS = frozenset(
    "summary remarks returns value param typeparam exception example seealso inheritdoc "
    "include permission threadsafety".split()
)
_BLOCKS = frozenset({"para", "p", "code", "list", "example", "remarks", "summary"})


@dataclass
class Node:
    tag: str  # "" for text
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)
    text: str = ""


@dataclass(frozen=True)
class XmlDoc:
    summary: tuple[str, ...] = ()
    remarks: tuple[str, ...] = ()
    returns: str = ""
    value: str = ""
    params: tuple[tuple[str, str], ...] = ()  # (name, text on one line)
    typeparams: tuple[tuple[str, str], ...] = ()
    exceptions: tuple[tuple[str, str], ...] = ()  # (shown type, text)
    examples: tuple[tuple[str, ...], ...] = ()
    seealso: tuple[str, ...] = ()
    inheritdoc: str | None = None  # None: no `<inheritdoc/>`; "" or its cref


def parse_tags(text: str) -> Node:
    """The comment as a tree of tags and text (see the module's docstring)."""
    root = Node("doc")
    stack = [root]
    pos = 0
    for m in _TAG.finditer(text):
        if m.start() > pos:
            stack[-1].children.append(Node("", text=text[pos : m.start()]))
        pos = m.end()
        closing, name, attrs, empty = m.group(1), m.group(2).lower(), m.group(3), m.group(4)
        if closing:
            names = [n.tag for n in stack]
            if name in names[1:]:
                while stack[-1].tag != name:
                    stack.pop()
                stack.pop()
            continue
        node = Node(name, {a.lower(): (b or c) for a, b, c in _ATTR.findall(attrs)})
        stack[-1].children.append(node)
        if not empty and name not in ("br", "see", "paramref", "typeparamref", "inheritdoc"):
            if len(stack) < MAX_DEPTH:
                stack.append(node)
        elif not empty and name == "see":  # (`<see cref="X">label</see>`)
            stack.append(node)
    if pos < len(text):
        stack[-1].children.append(Node("", text=text[pos:]))
    return root


def cref_name(cref: str) -> str:
    """A cref as docfx shows it: `T:Polly.Policy` -> `Polly.Policy`, `Handle{T}(Func{T})` ->
    `Handle<T>`, `M:X.Y.Z``1` -> `X.Y.Z`."""
    name = re.sub(r"^[A-Z]:", "", cref.strip())
    name = name.split("(", 1)[0]
    name = re.sub(r"``?\d+", "", name)
    return name.replace("{", "<").replace("}", ">")


_ALIASES = {
    "string": "String", "int": "Int32", "bool": "Boolean", "object": "Object", "long": "Int64",
    "short": "Int16", "byte": "Byte", "sbyte": "SByte", "uint": "UInt32", "ulong": "UInt64",
    "ushort": "UInt16", "double": "Double", "float": "Single", "decimal": "Decimal",
    "char": "Char", "void": "Void", "nint": "IntPtr", "nuint": "UIntPtr",
}  # fmt: skip
_MODIFIERS = re.compile(r"^(?:(?:this|ref|out|in|params|scoped|readonly)\s+)+")


def type_key(type_name: str) -> str:
    """A parameter type as both a declaration and a cref write it, to compare them:
    simple names, C# keywords as their System types, no nullable marks, `ref`/`@` gone
    (`System.String` and `string?` -> `String`; `IDictionary{TKey,TValue}` ->
    `IDictionary<TKey,TValue>`; a cref's method type parameter ``` ``0 ``` -> `*`)."""
    t = _MODIFIERS.sub("", type_name.strip()[:300]).replace("global::", "")
    t = t.replace("{", "<").replace("}", ">").replace("?", "").replace("@", "")
    t = re.sub(r"``?\d+", "*", "".join(t.split()))
    return re.sub(r"[\w.]+", _simple_name, t)


def _simple_name(m: re.Match[str]) -> str:
    word = m.group().rpartition(".")[2]
    return _ALIASES.get(word, word)


def cref_params(cref: str) -> tuple[str, ...] | None:
    """The parameter types a cref names (`M:X.Write(System.String,System.Int32)`), as
    `type_key`s; None when it names none (no parentheses)."""
    if "(" not in cref or not cref.rstrip().endswith(")"):
        return None
    inner = cref[cref.index("(") + 1 : cref.rstrip().rindex(")")]
    parts, depth, current = [], 0, []
    for ch in inner[:2000]:
        depth += {"{": 1, "<": 1, "}": -1, ">": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return tuple(type_key(p) for p in parts if p.strip())


def types_match(a: Sequence[str], b: Sequence[str], wild: frozenset[str] = frozenset()) -> bool:
    """Whether two parameter lists of `type_key`s name the same types; a type parameter of
    `wild` (or a cref's `*`) stands for any one name."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        tx, ty = re.findall(r"\w+|\S", x), re.findall(r"\w+|\S", y)
        if len(tx) != len(ty) or not all(
            p == q or p in wild or q in wild or "*" in (p, q) for p, q in zip(tx, ty, strict=True)
        ):
            return False
    return True


def uid_object(xref: str) -> str:
    """The `object:` anchor a docfx uid names (csharpdoc.py's sections carry them):
    `xref:Polly.Policy.Handle``1(System.Func{``0,bool})` -> `object:Polly.Policy.Handle`; an
    overload group's `*` goes."""
    return OBJECT_ANCHOR + re.sub(r"``?\d+|\*$", "", cref_name(xref.removeprefix("xref:")))


@dataclass
class _Writer:
    link: Callable[[str, str], str]  # (cref, label) -> markdown
    # `<code source region>`'s code, by "source#region" as written (packages/dotnet_merge.py)
    regions: Mapping[str, str] = field(default_factory=dict)

    def inline(self, nodes: list[Node]) -> str:
        out: list[str] = []
        for n in nodes:
            out.append(self.one(n))
        return "".join(out)

    def one(self, n: Node) -> str:
        tag = n.tag
        if not tag:
            return html.unescape(_escape_text(n.text))
        inner = self.inline(n.children)
        if tag == "see" or tag == "seealso":
            if "langword" in n.attrs:
                return f"`{n.attrs['langword']}`"
            if "href" in n.attrs:
                label = " ".join(inner.split()) or n.attrs["href"]
                return f"[{label}]({n.attrs['href']})"
            if "cref" in n.attrs:
                return self.link(n.attrs["cref"], " ".join(inner.split()))
            return inner
        if tag in ("paramref", "typeparamref"):
            return f"`{n.attrs.get('name', '')}`"
        if tag == "c":
            text = " ".join(_plain(n).split())
            return f"`{text}`" if text else ""
        if tag == "a" and "href" in n.attrs:
            return f"[{' '.join(inner.split())}]({n.attrs['href']})"
        if tag in ("b", "strong"):
            return f"**{inner.strip()}**" if inner.strip() else ""
        if tag in ("i", "em"):
            return f"*{inner.strip()}*" if inner.strip() else ""
        if tag == "br":
            return "\n"
        if tag in ("para", "p"):
            return f"\n\n{inner.strip()}\n\n"
        if tag == "code":
            lang = n.attrs.get("language") or n.attrs.get("lang", "")
            if not _plain(n).strip():  # (`<code source="…" region="…"/>`: another file's)
                title = n.attrs.get("title", "")
                said = f"\n\n*{title}*\n\n" if title else ""
                region = f"{n.attrs.get('source', '')}#{n.attrs.get('region', '')}"
                if region in self.regions:  # (the file's region, read by the build)
                    return said + "\n".join(_code(self.regions[region], lang)) + "\n\n"
                return said
            return "\n\n" + "\n".join(_code(_plain(n), lang)) + "\n\n"
        if tag == "list":
            return "\n\n" + "\n".join(self.list_lines(n)) + "\n\n"
        return inner

    def list_lines(self, n: Node) -> list[str]:
        kind = n.attrs.get("type", "bullet")
        out: list[str] = []
        k = 0
        for item in n.children:
            if item.tag not in ("item", "listheader"):
                continue
            term = next((c for c in item.children if c.tag == "term"), None)
            desc = next((c for c in item.children if c.tag == "description"), None)
            parts = [_one_line(self.inline(x.children)) for x in (term, desc) if x is not None]
            if term is None and desc is None:
                parts = [_one_line(self.inline(item.children))]
            if kind == "table":
                out.append(" | ".join(parts))
                continue
            if item.tag == "listheader":
                continue
            k += 1
            mark = f"{k}." if kind == "number" else "-"
            out.append(f"{mark} " + " - ".join(p for p in parts if p))
        return out

    def block(self, nodes: list[Node]) -> tuple[str, ...]:
        """Text of a section as markdown lines: paragraphs, code blocks and lists."""
        text = self.inline(nodes)
        lines: list[str] = []
        in_code = False
        for raw in text.split("\n"):
            if raw.startswith("```"):
                in_code = not in_code
                lines.append(raw)
                continue
            if in_code:
                lines.append(raw)
                continue
            line = raw.strip()
            if not line:
                if lines and lines[-1]:
                    lines.append("")
                continue
            lines.append(line)
        while lines and not lines[-1]:
            lines.pop()
        while lines and not lines[0]:
            lines.pop(0)
        return tuple(lines)


def read(
    text: str, link: Callable[[str, str], str], regions: Mapping[str, str] | None = None
) -> XmlDoc:
    """The sections of the doc comment `text`; `link(cref, label)` writes a cref's link;
    `regions`: the code of the `<code source region>` files the build read."""
    root = parse_tags(text)
    w = _Writer(link, regions or {})
    summary: list[str] = []
    remarks: tuple[str, ...] = ()
    returns = value = ""
    params: list[tuple[str, str]] = []
    typeparams: list[tuple[str, str]] = []
    exceptions: list[tuple[str, str]] = []
    examples: list[tuple[str, ...]] = []
    seealso: list[str] = []
    inheritdoc: str | None = None
    loose: list[Node] = []
    for n in root.children:
        tag = n.tag
        if tag == "summary":
            summary += [*([""] if summary else []), *w.block(n.children)]
        elif tag == "remarks":
            remarks = w.block(n.children)
        elif tag == "returns":
            returns = _one_line(" ".join(w.block(n.children)))
        elif tag == "value":
            value = _one_line(" ".join(w.block(n.children)))
        elif tag == "param":
            params.append((n.attrs.get("name", ""), _one_line(" ".join(w.block(n.children)))))
        elif tag == "typeparam":
            typeparams.append((n.attrs.get("name", ""), _one_line(" ".join(w.block(n.children)))))
        elif tag == "exception":
            shown = cref_name(n.attrs.get("cref", "")).rsplit(".", 1)[-1]  # (as docfx: its name)
            exceptions.append((shown, _one_line(" ".join(w.block(n.children)))))
        elif tag == "example":
            examples.append(_example(w, n))
        elif tag == "seealso":
            seealso.append(w.one(n))
        elif tag == "inheritdoc":
            inheritdoc = n.attrs.get("cref", "")
        elif tag in ("include", "permission", "threadsafety", "filterpriority"):
            continue
        else:
            loose.append(n)
    if loose and not summary and any(x.tag or x.text.strip() for x in loose):
        summary = list(w.block(loose))  # (a comment without tags: its text is the summary)
    return XmlDoc(
        tuple(summary),
        remarks,
        returns,
        value,
        tuple(params),
        tuple(typeparams),
        tuple(exceptions),
        tuple(examples),
        tuple(seealso),
        inheritdoc,
    )


def _example(w: _Writer, n: Node) -> tuple[str, ...]:
    """An `<example>`: its text, or (code written without `<code>`, lines ending in `;`) a
    `csharp` block, as it reads on docfx's page."""
    if not any(c.tag for c in n.children):
        text = _plain(n).strip("\n")
        if re.search(r"[;)]\s*$", text, re.M) and not re.search(r"[.!?:]\s*$", text.split("\n")[0]):
            return tuple(_code(text, ""))
    return w.block(n.children)


def _plain(n: Node) -> str:
    if not n.tag:
        return html.unescape(n.text)
    return "".join(_plain(c) for c in n.children)


def _code(text: str, language: str) -> list[str]:
    from docsmcp.sources.formats.markdown.fences import code_block

    lines = _dedent(text.strip("\n").split("\n"))
    lang = {"c#": "csharp", "cs": "csharp", "vb": "vb", "": "csharp"}.get(
        language.lower(), language
    )
    return code_block("", lang, lines)


def _dedent(lines: list[str]) -> list[str]:
    indents = [len(x) - len(x.lstrip()) for x in lines if x.strip() and not x.startswith("```")]
    cut = min(indents, default=0)
    return [x[cut:] if not x.startswith("```") else x for x in lines]


def _escape_text(text: str) -> str:
    """Prose that would read as markdown structure at a line's start stays prose."""
    return re.sub(r"(?m)^(\s*)([#>]|[-+*] |\d+\. )", r"\1\\\2", text)


def _one_line(text: str) -> str:
    return " ".join(text.split())
