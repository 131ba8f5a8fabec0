"""What a manual page's lists register: the API entries of its options, commands, keywords
and variables, and the pages it names (`ssh(1)`).

An item is an entry when it is an item of a tagged list directly in a section (not inside
another item), outside the sections that list no such names (SEE ALSO, EXIT STATUS, FILES…),
and its tag's first word reads as one: an option (`-L`, `--delete`, `-a, --archive`: each
name), or a word written in a font or by a macro that names things (`new-session`,
`ProxyJump`, `PROMPT_COMMAND`, `declare`). Its kind: `command` for mdoc's `Ic` or an item of a
commands or builtins section, `option` for the rest (bundle-spec's kind of options,
configuration keywords and environment variables).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from docsmcp.model.api import ApiEntry
from docsmcp.sources.formats.source.doc_entries import source_entry

_OPTION = re.compile(r"^--?[\w?@#.][\w.+=:-]*$")
_WORD = re.compile(r"^[A-Za-z_][\w.+:-]*$")
_NOT_ENTRIES = frozenset({
    "NAME", "SYNOPSIS", "SEE ALSO", "EXIT STATUS", "RETURN VALUES", "RETURN VALUE", "FILES",
    "AUTHORS", "AUTHOR", "HISTORY", "BUGS", "STANDARDS", "CAVEATS", "EXAMPLES", "EXAMPLE",
    "COPYRIGHT", "REPORTING BUGS", "DIAGNOSTICS", "ERRORS", "LICENSE", "SECURITY",
})  # fmt: skip
# A name written `name(N)`: bold or italic in man(7) (`\fBssh\fR(1)`), plain in SEE ALSO.
_MARKED_REF = re.compile(r"(?:\*\*|\*)([A-Za-z0-9][\w.:+-]*)(?:\*\*|\*)\\?\(([0-9][a-z]*)\\?\)")
_PLAIN_REF = re.compile(r"(?<![\w.-])([A-Za-z0-9][\w.:+-]*)\\?\(([0-9][a-z]*)\\?\)")
MAX_NAMES = 4
# mdoc macros that name an option, command, keyword or variable when a tag starts with one.
_NAMING = frozenset({"Fl", "Cm", "Ic", "Ev", "Va", "Dv", "Er", "Sy", "Li", "Nm", "Fn", "Fo"})


@dataclass
class Item:
    at: int  # source line of the item's macro
    line: int  # output line of its head
    width: int  # its marker's width (its text's indent)
    tagged: bool
    section: str
    subsection: str
    head: list[str] = field(default_factory=list)  # markdown of the tag
    head_plain: list[str] = field(default_factory=list)
    body: list[str] = field(default_factory=list)  # first lines of its text, plain
    macro: str = ""  # the mdoc macro its tag starts with (`Fl`, `Ic`, `Cm`, `Ev`)


def _names(tag: str) -> list[str]:
    """The names a tag gives: each option of `-a, --archive`, else its first word."""
    parts = [p.strip() for p in tag.split(",")]
    options = [p.split()[0].split("=")[0].split("[")[0] for p in parts if p.startswith("-")]
    options = [o for o in options if _OPTION.match(o)]
    if options:
        return list(dict.fromkeys(options))[:MAX_NAMES]
    first = tag.split()[0] if tag.split() else ""
    first = first.rstrip(",:;")
    return [first] if _WORD.match(first) and len(first) <= 64 else []


def _kind(item: Item, name: str) -> str:
    """`command` for a program's subcommand or a shell's builtin, else `option` (bundle-spec's
    kind of command-line options, configuration keywords and environment variables)."""
    where = f"{item.section} {item.subsection}".upper()
    if name.startswith("-") or "OPTION" in where or "VARIABLE" in where:
        return "option"
    if item.macro == "Ic" or "COMMANDS" in where or "BUILTIN" in where:
        return "command"
    return "option"


def entries_for(path: str, item: Item, end: int, depth: int) -> list[ApiEntry]:
    """The entries of a closed list item (`end`: the output line after it): one per name."""
    if not item.tagged or depth != 1 or item.section in _NOT_ENTRIES:
        return []
    tag = " ".join(" ".join(item.head_plain).split()).replace(" , ", ", ")
    head = " ".join(item.head).strip()
    # A name is written in a font or by a macro (bold, italic, code), or is an option.
    named = tag.startswith("-") or head.startswith(("*", "`")) or item.macro in _NAMING
    if not tag or not named:
        return []
    description = " ".join(" ".join(item.body).split())
    return [
        source_entry(
            name=name,
            category="",
            kind=_kind(item, name),
            signature=tag,
            description=description,
            parameters=(),
            returns="",
            path=path,
            line_start=item.line + 1,
            line_end=max(end, item.line + 1),
        )
        for name in _names(tag)
    ]


def ref_names(md: str, see_also: bool) -> list[str]:
    """The pages a line of markdown names (`**ssh**(1)`; in SEE ALSO also `ssh(1)`)."""
    if "(" not in md:
        return []
    found = [f"{m.group(1)}({m.group(2)})" for m in _MARKED_REF.finditer(md)]
    if see_also:
        found += [f"{m.group(1)}({m.group(2)})" for m in _PLAIN_REF.finditer(md)]
    return list(dict.fromkeys(found))


def named_with(entry: ApiEntry, program: str) -> ApiEntry:
    """An entry named with the page's program, as users write it (`ssh -L`)."""
    if not program:
        return entry
    return dataclasses.replace(entry, name=f"{program} {entry.name}", category=program)
