"""What a Solidity contract inherits from contracts of the tree, and the text `@inheritdoc`
copies, as the reader (soldoc.py) writes them, by the rule every language's pages follow (helper
i, session 17): in the contract's own section, a line per base, nearest first, naming the
members it inherits (`**Inherited from `ERC20`:** `transfer`, `approve`, …`), each a link where
the base is on the page, else a reference the build resolves to the base's section; and each an
API entry named as the child's (`ERC20Burnable.transfer`) with the base's declaration and
summary, whose section is the base member's own when the page shows it, else the line. Never a
copy of the text.

The page converts alone, so a tree-wide pass (packages/solidity_inherit.py) appends one line
after a marker (`MARKER`): a JSON object of each contract's bases and their members
(`inherits`), and the members of the contracts its `@inheritdoc` tags name (`docs`).
"""

from __future__ import annotations

from typing import Any

from docsmcp.model.api import Parameter
from docsmcp.sources.formats.markdown.fences import code_span
from docsmcp.sources.formats.source import natspec, pass_line
from docsmcp.sources.formats.source.inherit_walk import alias_entries, inherited_line, linked

MARKER = "\n//@docsmcp-sol-inherit "  # the line the pass appends to a page


def encode(inherits: dict[str, list[Any]], docs: dict[str, dict[str, list[Any]]]) -> str:
    data = {"docs": docs, "inherits": inherits}
    return pass_line.encode(MARKER, data)


def split(text: str) -> tuple[str, dict[str, list[Any]], dict[str, dict[str, list[Any]]]]:
    """`text` without the pass's line, and what it says (nothing when none or broken)."""
    head, (inherits, docs) = pass_line.split(text, MARKER, _read, lambda: ({}, {}))
    return head, inherits, docs


def _read(data: Any) -> tuple[dict[str, list[Any]], dict[str, dict[str, list[Any]]]]:
    inherits = {str(k): list(v) for k, v in data.get("inherits", {}).items()}
    return inherits, {str(k): dict(v) for k, v in data.get("docs", {}).items()}


def member_names(bases: list[Any]) -> dict[str, str]:
    """Each inherited member's name -> the base that declares it (the nearest)."""
    out: dict[str, str] = {}
    for base in bases:
        if isinstance(base, dict):
            for m in base.get("members", ()):
                if isinstance(m, dict) and m.get("name"):
                    out.setdefault(str(m["name"]), str(base.get("name", "")))
    return out


def write(page: Any, contract: str, line: int, bases: list[Any]) -> None:
    """The lines of what `contract` inherits (soldoc._Page `page`), at source line `line`;
    its entries are made once the page is written (`entries`: a base may come after)."""
    for base in bases:
        if not isinstance(base, dict):
            continue
        name = str(base.get("name", ""))
        members = [m for m in base.get("members", ()) if isinstance(m, dict) and m.get("name")]
        shown: list[str] = []
        targets: list[str] = []
        seen: set[str] = set()
        for m in members:
            member = str(m["name"])
            if member in seen:  # (overloads: the line names a member once)
                continue
            seen.add(member)
            anchor = page.local.get(f"{name}.{member}")
            shown.append(linked(code_span(member), anchor))
            if anchor is None:
                targets.append(f"{name}.{member}")
        if not shown:
            continue
        base_anchor = page.local.get(name)
        label = linked(code_span(name), base_anchor)
        if base_anchor is None:
            targets.insert(0, name)
        at = inherited_line(page, line, label, shown, targets)
        for m in members:
            page.aliases.append((f"{contract}.{m['name']}", f"{name}.{m['name']}", m, at))


def entries(page: Any) -> None:
    """The inherited members' entries: the base member's own under the child's name where the
    page shows it, else one at the line."""

    def new_entry(m: dict[str, Any], child: str, at: int) -> None:
        doc = natspec.read(str(m.get("doc", "")))
        params = tuple(
            Parameter(str(p[1]), str(p[0]), True, doc.param(str(p[1])))
            for p in m.get("params", ())
            if isinstance(p, list) and len(p) == 2
        )
        page.entry(
            child,
            str(m.get("kind", "function")),
            str(m.get("signature", "")),
            doc.summary,
            at,
            params,
            str(m.get("returns", "")),
        )

    alias_entries(page, lambda name: name, new_entry, ends_at_line=True)
