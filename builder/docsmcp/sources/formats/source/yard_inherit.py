"""What a Ruby class or module gets from the modules it includes or extends and from its
superclass, as YARD lists it on rubydoc.info ("Methods included from Rack::Request::Helpers",
"Methods inherited from Faraday::Middleware"), by the rule the other languages' pages follow
(helper i, session 17): in the namespace's own section, a line per module or superclass of the
tree, nearest first, naming the methods and attributes it gives (`**Included from
`Rack::Request::Helpers`:** `#params`, …`; an `extend`ed module's methods are the class's
class methods, `.register_middleware`), each a reference the build resolves to its section (a
link when that is earlier on the page); and each an API entry named as the namespace's
(`Rack::Request#params`) with the giver's definition and summary, whose section is the giver's
own when that is on the page, else the line. Never a copy of the text.

The page converts alone, so a tree-wide pass (packages/ruby_inherit.py) appends one line after a
marker (`MARKER`): a JSON object of each namespace's givers and their members.
"""

from __future__ import annotations

from typing import Any

from docsmcp.sources.formats.markdown.fences import code_span
from docsmcp.sources.formats.source import pass_line
from docsmcp.sources.formats.source.doc_entries import source_entry
from docsmcp.sources.formats.source.inherit_walk import alias_entries, inherited_line, linked

MARKER = "\n#@docsmcp-ruby-inherit "  # the line the pass appends to a page
WORDS = {"include": "Included from", "extend": "Extended by", "superclass": "Inherited from"}


def encode(inherits: dict[str, list[dict[str, Any]]]) -> str:
    return pass_line.encode(MARKER, dict(sorted(inherits.items())))


def split(text: str) -> tuple[str, dict[str, list[Any]]]:
    """`text` without the pass's line, and what it says (nothing when none or broken)."""
    return pass_line.split(
        text, MARKER, lambda data: {str(k): list(v) for k, v in data.items()}, dict
    )


def write(page: Any, name: str, line: int, bases: list[Any]) -> None:
    """The lines of what the namespace `name` gets (yard._Page `page`, at source `line`)."""
    for base in bases:
        if not isinstance(base, dict):
            continue
        members = [m for m in base.get("members", ()) if isinstance(m, dict) and m.get("name")]
        key = str(base.get("key", ""))
        shown: list[str] = []
        targets: list[str] = []
        named: list[tuple[str, str, dict[str, Any]]] = []
        for m in members:
            sep = "." if m.get("scope") == "class" else "#"
            source = f"{key}{'.' if m.get('from_scope') == 'class' else '#'}{m['name']}"
            anchor = page.local.get(source)
            shown.append(linked(code_span(sep + str(m["name"])), anchor))
            if anchor is None:
                targets.append(source)
            named.append((f"{name}{sep}{m['name']}", source, m))
        if not shown:
            continue
        word = WORDS.get(str(base.get("via")), "Inherited from")
        at = inherited_line(page, line, code_span(key), shown, targets, word)
        page.aliases += [(child, source, m, at) for child, source, m in named]


def entries(page: Any) -> None:
    """The entries of the members the lines name (`page.aliases`), and of the names `alias`
    gives a method of the page (member None: only where the method has its entry)."""

    def new_entry(m: dict[str, Any] | None, child: str, at: int) -> None:
        if m is None:
            return
        namespace = child.rsplit("." if m.get("scope") == "class" else "#", 1)[0]
        page.api.append(
            source_entry(
                name=child,
                category=namespace,
                kind="method",
                signature=str(m.get("signature", "")),
                description=str(m.get("summary", "")),
                parameters=(),
                returns=str(m.get("returns", "")),
                path=page.path,
                line_start=at + 1,
                line_end=at + 1,
            )
        )

    alias_entries(page, lambda name: name, new_entry, first_only=True, ends_at_line=True)
