"""What a Scala class, trait or object inherits from types of the tree, as the Scaladoc reader
(scaladoc.py) writes it, by the rule the other languages' pages follow (helper i, session 17):
in the type's own section, a line per parent, nearest first, naming the members it inherits
(`**Inherited from `Invariant`:** `imap`, …`), each a reference the build resolves to the
parent's section (a link when the parent is on the page); and each an API entry named as the
child's (`cats.Functor.imap`) with the parent's declaration and summary, whose section is the
parent member's own when that is on the page, else the line. Never a copy of the text; a member
without a comment shows its parent's, as Scaladoc copies it.

The page converts alone, so a tree-wide pass (packages/scala_inherit.py) appends one line after
a marker (`MARKER`): a JSON object of each type's parents, their members and the comments.
"""

from __future__ import annotations

from typing import Any

from docsmcp.sources.formats.markdown.fences import code_span
from docsmcp.sources.formats.source import pass_line
from docsmcp.sources.formats.source.inherit_walk import alias_entries, inherited_line, linked

MARKER = "\n//@docsmcp-scala-inherit "  # the line the pass appends to a page


def encode(inherits: dict[str, Any]) -> str:
    return pass_line.encode(MARKER, dict(sorted(inherits.items())))


def split(text: str) -> tuple[str, dict[str, Any]]:
    """`text` without the pass's line, and what it says (nothing when none or broken)."""
    return pass_line.split(
        text, MARKER, lambda data: {str(k): v for k, v in data.items() if isinstance(v, dict)}, dict
    )


def docs(data: dict[str, Any]) -> dict[str, str]:
    """`Type.member` -> the comment the member takes from its nearest parent."""
    out: dict[str, str] = {}
    for below, found in data.items():
        for name, text in (found.get("docs") or {}).items():
            if isinstance(text, str):
                out[f"{below}.{name}"] = text
    return out


def write(page: Any, below: str, qualified: str, line: int) -> None:
    """The lines of what the type at `below` (its path below the package) inherits, on
    scaladoc._Page `page`; its entries come with `entries`, once the page is written."""
    package = page.unit.package
    for base in (page.inherits.get(below) or {}).get("bases", ()):
        if not isinstance(base, dict):
            continue
        members = [m for m in base.get("members", ()) if isinstance(m, dict) and m.get("name")]
        key = str(base.get("key", ""))
        local = key[len(package) + 1 :] if package and key.startswith(package + ".") else None
        shown: list[str] = []
        targets: list[str] = []
        for m in members:
            name = str(m["name"])
            anchor = page.local.get(f"{local}.{name}") if local is not None else None
            shown.append(linked(code_span(name), anchor))
            if anchor is None:
                targets.append(f"{key}.{name}")
        if not shown:
            continue
        at = inherited_line(page, line, code_span(str(base.get("name", key))), shown, targets)
        for m in members:
            page.aliases.append((f"{qualified}.{m['name']}", f"{key}.{m['name']}", m, at))


def entries(page: Any, new_entry: Any) -> None:
    """The inherited members' entries: the parent member's own under the child's name where
    the page shows it, else one at the line (`new_entry(member, child, line)`)."""
    alias_entries(page, lambda name: name, new_entry, first_only=True, ends_at_line=True)
