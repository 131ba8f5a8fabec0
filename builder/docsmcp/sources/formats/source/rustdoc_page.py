"""The page rustdoc.py makes of a Rust module: each item a section (`## Struct Router`, a
method `### Router::nest` under its type) over its declaration and docs, with docs.rs' anchor
and an `object:` anchor for every tail of its rustdoc path (what intra-doc links resolve to),
and an API entry (name, signature, first paragraph, parameters, return type, examples)."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from docsmcp.model.api import OBJECT_ANCHOR, ApiEntry, Example, Parameter
from docsmcp.model.api_fields import (
    MAX_DESCRIPTION_CHARS,
    MAX_EXAMPLE_CHARS,
    MAX_EXAMPLES,
    MAX_RETURNS_CHARS,
    MAX_SIGNATURE_CHARS,
)
from docsmcp.model.source import Converted
from docsmcp.model.text import truncate
from docsmcp.sources.formats.linemap import monotone
from docsmcp.sources.formats.markdown.fences import fence_for
from docsmcp.sources.formats.source.rustdoc_text import (
    Link,
    doc_markdown,
    examples,
    first_paragraph,
)

# docs.rs' anchor of a member: `variant.Set`, `method.nest`, `associatedtype.Output`
MEMBER_ANCHOR = {
    "Variant": "variant",
    "Associated Type": "associatedtype",
    "Associated Constant": "associatedconstant",
}
ANCHOR_KIND = {
    "Struct": "struct",
    "Union": "union",
    "Enum": "enum",
    "Trait": "trait",
    "Function": "fn",
    "Type Alias": "type",
    "Constant": "constant",
    "Static": "static",
    "Module": "mod",
    "Macro": "macro",
}


@dataclass
class Item:
    kind: str  # docs.rs' word: "Struct", "Function", "Method", "Macro"…
    name: str
    path: str  # the rustdoc path: `axum::routing::Router`
    signature: str
    doc: list[str]
    line: int  # 0-based source line of the declaration
    members: list[Item] = field(default_factory=list)
    fields: list[tuple[str, str, int]] = field(default_factory=list)  # (name, summary, line)
    owner: str = ""  # a method's type (`Router`)
    aliases: list[str] = field(default_factory=list)  # other paths re-exports give it


class Page:
    def __init__(self, path: str, crate: str, module: str, public: str = "") -> None:
        self.path = path
        self.crate = crate
        self.module = module
        self.public = public or module  # (the docs.rs page its items are on: `.html` links)
        # (the crate's root page, `src/lib.rs` of the folder above the page's `src/`)
        root = ("/" + path).rfind("/src/")
        lib = path[:root] + ("/" if root > 0 else "") + "src/lib.rs"
        self.crate_page = (
            posixpath.relpath(lib, posixpath.dirname(path) or ".") if root >= 0 else ""
        )
        self.out: list[tuple[int, str]] = []
        self.anchors: list[tuple[int, str]] = []
        self.refs: list[tuple[int, str]] = []
        self.entries: list[ApiEntry] = []

    def add(self, line: int, text: str) -> None:
        self.out.append((line, text))

    def doc(self, doc: list[str], line: int, shift: int) -> list[str]:
        """Adds the doc's markdown (headings `shift` down) and its links; returns its lines."""
        converted, links = doc_markdown(doc, shift, self.crate_page, self.public)
        base = len(self.out)
        for text in converted:
            self.out.append((line, text))
        self.refs += [(base + link.line, _target(link, self.crate, self.module)) for link in links]
        return converted

    def item(self, item: Item, level: int) -> None:
        if item.kind == "impl":
            heading = f"impl {item.name}"
        elif item.kind in ("Method", "Associated Type", "Associated Constant", "Variant"):
            heading = f"{item.owner}::{item.name}"
        else:
            heading = f"{item.kind} {item.name}"
        self.add(item.line, "")
        at = len(self.out)
        self.add(item.line, f"{'#' * min(level, 6)} {heading}")
        if item.kind != "impl":
            short = ANCHOR_KIND.get(item.kind) or MEMBER_ANCHOR.get(item.kind, "method")
            own = f"{short}.{item.owner}.{item.name}" if item.owner else f"{short}.{item.name}"
            self.anchors.append((at, own))
            names = tails(item.path)
            for alias in item.aliases:  # (`clap::Command` links to clap_builder's section)
                names += [t for t in tails(alias) if t not in names]
            self.anchors += [(at, OBJECT_ANCHOR + t) for t in names]
            if item.signature:
                code = [item.signature]
                fence = fence_for(code)
                self.add(item.line, "")
                self.out += [(item.line, f"{fence}rust"), (item.line, code[0])]
                self.add(item.line, fence)
            if any(x.strip() for x in item.doc):
                self.add(item.line, "")
                self.doc(item.doc, item.line, level)
            if item.fields:
                self.add(item.line, "")
                self.add(item.line, "Fields:")
                self.add(item.line, "")
                for name, summary, line in item.fields:
                    # (`ArgAction::Append` links to its variant's line)
                    at_field = len(self.out)
                    field_tails = tails(f"{item.path}::{name}")[:-1]  # (not the bare name)
                    self.anchors += [(at_field, OBJECT_ANCHOR + t) for t in field_tails]
                    self.add(line, f"- `{name}`" + (f": {summary}" if summary else ""))
        sub = level + 1 if item.kind != "Module" else level
        for member in item.members:
            self.item(member, sub)
        if item.kind != "impl":
            doc = doc_markdown(item.doc, 0)[0]
            sig = item.signature
            last = len(self.out) - 1
            self.entries.append(api_entry(self.path, item.path, item.kind, sig, doc, at, last))
            for alias in item.aliases:  # (the same section, under the path users type)
                self.entries.append(api_entry(self.path, alias, item.kind, sig, doc, at, last))

    def result(self, title: str) -> Converted:
        lines = [t for _, t in self.out]
        return Converted(
            "\n".join(lines),
            title,
            tuple(self.anchors),
            monotone([n for n, _ in self.out]),
            tuple(self.entries),
            tuple(self.refs),
        )


def _target(link: Link, crate: str, module: str) -> str:
    """The name an intra-doc link is resolved by: its path without `crate::`, `self::`,
    `super::`, `Self::` or the page's own crate name (the `object:` anchors hold every tail of
    an item's path: `axum::extract::State` on an axum page is `extract::State`, wherever it is
    defined); `crate` alone is the crate, `self` the module."""
    parts = link.target.split("::")
    if parts == ["crate"] or parts == ["self"]:
        return crate if parts[0] == "crate" else module
    if len(parts) > 1 and parts[0] == crate:
        parts = parts[1:]
    parts = [p for p in parts if p not in ("crate", "self", "super", "Self")]
    return "::".join(parts)  # (xref.py puts OBJECT_ANCHOR before it)


def tails(path: str) -> list[str]:
    parts = path.split("::")
    return ["::".join(parts[k:]) for k in range(len(parts))]


def api_entry(
    path: str, name: str, kind: str, sig: str, doc: list[str], first: int, last: int
) -> ApiEntry:
    method = kind in ("Function", "Method", "Macro")
    params: tuple[Parameter, ...] = ()
    returns = ""
    if kind in ("Function", "Method"):
        params, returns = _parameters(sig)
    shown = [
        Example(lang or "rust", truncate(code, MAX_EXAMPLE_CHARS)) for lang, code in examples(doc)
    ][:MAX_EXAMPLES]
    members = ("Method", "Associated Type", "Associated Constant", "Variant")
    category = name.rsplit("::", 2 if kind in members else 1)[0]
    return ApiEntry(
        name=name,
        category=category if "::" in name else name,
        kind="method" if method else "type",
        signature=truncate(sig, MAX_SIGNATURE_CHARS),
        description=truncate(first_paragraph(doc), MAX_DESCRIPTION_CHARS),
        parameters=params,
        returns=truncate(returns, MAX_RETURNS_CHARS),
        examples=tuple(shown),
        chunk_id="",
        path=path,
        line_start=first + 1,
        line_end=max(first, last) + 1,
    )


def _parameters(sig: str) -> tuple[tuple[Parameter, ...], str]:
    """A function's parameters (`name: Type`, `self` left out) and its return type."""
    open_at = sig.find("(")
    if open_at < 0:
        return (), ""
    depth = 0
    pieces: list[str] = []
    current = ""
    close_at = len(sig)
    for k in range(open_at + 1, len(sig)):
        ch = sig[k]
        if ch in "([<{":
            depth += 1
        elif ch in ")]>}" and not (ch == ">" and sig[k - 1] == "-"):
            if depth == 0 and ch == ")":
                close_at = k
                break
            depth -= 1
        if ch == "," and depth == 0:
            pieces.append(current)
            current = ""
        else:
            current += ch
    pieces.append(current)
    params = []
    for piece in pieces:
        name, colon, typ = piece.partition(":")
        name = name.strip().removeprefix("mut ").strip()
        if colon and name and "self" not in name:
            params.append(Parameter(name, typ.strip(), True, ""))
    rest = sig[close_at + 1 :]
    returns = rest.split("->", 1)[1] if "->" in rest else ""
    return tuple(params), returns.split(" where ")[0].strip()
