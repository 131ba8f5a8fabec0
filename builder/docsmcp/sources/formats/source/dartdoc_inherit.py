"""What a Dart class, mixin or enum inherits from the types of its library's page, as dartdoc
lists it ("Inherited" properties and methods, each marked *inherited*), by the rule the other
languages' pages follow (helper i, session 17): in the type's own section, a line per
supertype, nearest first (its mixins, the last `with` first, then what it `extends`, then
what it `implements`), naming the members it inherits, each a link to the supertype's section
(`**Inherited from `BaseClient`:** [`get`](#BaseClient.get), …`); and each an API entry named
as the child's (`http.Client.get`) whose section is the supertype member's own. Never a copy.

A library's page holds what it declares and exports, so its supertypes are on the page as a
rule. One of another library of the package (`IOClient extends BaseClient`, which the `http`
library shows) comes from the pass (packages/dart_inherit.py), which appends one line after
`SUPERS`: its members are references to that library's sections, and their entries are the
line, with the supertype member's header and summary. Another package's types add nothing.
Constructors and static members are not inherited; a name the type or a nearer supertype
declares is theirs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from docsmcp.sources.formats.markdown.fences import code_span
from docsmcp.sources.formats.source import pass_line
from docsmcp.sources.formats.source.dart_parse import Decl
from docsmcp.sources.formats.source.doc_entries import dotted_category, source_entry
from docsmcp.sources.formats.source.inherit_walk import (
    alias_entries,
    inherited_line,
    linked,
    nearest_first,
)

SUPERS = "\n// docsmcp:dart-supers "  # the line the pass appends to a page
INHERITING = frozenset({"class", "mixin", "enum"})  # (kinds whose members others inherit)
_KIND = {"method": "method", "operator": "method", "getter": "property", "setter": "property",
         "field": "property"}  # fmt: skip
_CLAUSE = re.compile(r"\b(extends|with|implements|on)\b")
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_ARGS = re.compile(r"<[^<>]*>")


def supertypes(signature: str) -> list[str]:
    """The types a class's header names, nearest first: its mixins (the last first), what it
    extends, what it implements; a mixin's `on` types are no supertypes it inherits from."""
    text = signature
    for _ in range(4):  # (type arguments nest: `Foo<Bar<Baz>>`)
        text = _ARGS.sub("", text)
    parts = _CLAUSE.split(text)
    said: dict[str, list[str]] = {}
    for word, rest in zip(parts[1::2], parts[2::2], strict=False):
        said.setdefault(word, []).extend(_NAME.findall(rest.split("{", 1)[0]))
    return [*reversed(said.get("with", [])), *said.get("extends", []), *said.get("implements", [])]


def encode(types: dict[str, Any]) -> str:
    return pass_line.encode(SUPERS, dict(sorted(types.items())))


def split(text: str) -> tuple[str, dict[str, dict[str, Any]]]:
    """`text` without the pass's line, and the types it holds (nothing when none or broken)."""
    return pass_line.split(
        text,
        SUPERS,
        lambda data: {str(k): dict(v) for k, v in data.items() if isinstance(v, dict)},
        dict,
    )


def _external(name: str, said: dict[str, Any]) -> Decl:
    """A supertype the pass describes, as a declaration without text (its members' summaries
    stay in `members`: the entries' descriptions)."""
    members = tuple(
        Decl(
            str(m.get("kind", "")),
            str(m.get("name", "")),
            str(m.get("signature", "")),
            str(m.get("summary", "")),
            (),
            (),
            str(m.get("returns", "")),
            0,
        )  # fmt: skip
        for m in said.get("members", ())
        if isinstance(m, dict) and m.get("name")
    )
    return Decl(str(said.get("kind", "class")), name, str(said.get("signature", "")), None, (),
                (), "", 0, members)  # fmt: skip


def write(
    page: Any,
    d: Decl,
    types: dict[str, Decl],
    external: dict[str, dict[str, Any]],
    members: Callable[[Decl], list[Decl]],
    member_name: Callable[[Decl], str],
    line: int,
) -> None:
    """The lines of what `d` inherits (dartdoc._Page `page`, at source `line`); `types`: the
    page's types by name, `external` the pass's, `members` a type's shown members."""

    def lookup(name: str, _: Any) -> Decl | None:
        if name in types:
            return types[name]
        return _external(name, external[name]) if name in external else None

    def inheritable(t: Decl) -> list[Decl]:
        if types.get(t.name) is not t:
            return list(t.members)  # (the pass's: already those a subtype inherits)
        return [m for m in members(t) if m.kind != "constructor" and not m.static]

    found = nearest_first(
        supertypes(d.signature),
        {member_name(m) for m in d.members},
        lookup,
        lambda t: supertypes(t.signature),
        inheritable,
        member_name,
        lambda t: t.name,
    )
    lib = f"{page.library}." if page.library else ""
    for base, ms in found:
        if base is d:
            continue
        names = [member_name(m) for m in ms]
        if types.get(base.name) is base:
            shown = [linked(code_span(n), page.symbols.get(f"{base.name}.{n}")) for n in names]
            targets, home = [], lib
        else:  # (another library's page: references to its sections)
            home = str(external[base.name].get("library", ""))
            home = f"{home}." if home else ""
            shown = [code_span(n) for n in names]
            targets = [f"{home}{base.name}.{n}" for n in names]
        at = inherited_line(page, line, code_span(base.name), shown, targets)
        page.aliases += [
            (f"{lib}{d.name}.{n}", f"{home}{base.name}.{n}", m, at)
            for n, m in zip(names, ms, strict=True)
        ]


def entries(page: Any) -> None:
    """The inherited members' entries: the supertype member's own under the child's name where
    the page shows it, else one at the line (another library's)."""

    def new_entry(m: Decl, child: str, at: int) -> None:
        page.api.append(
            source_entry(
                name=child,
                category=dotted_category(child),
                kind=_KIND.get(m.kind, "method"),
                signature=m.signature,
                description=m.doc or "",
                parameters=(),
                returns=m.returns,
                path=page.path,
                line_start=at + 1,
                line_end=at + 1,
            )
        )

    alias_entries(page, lambda name: name, new_entry, ends_at_line=True)
