"""A heading per option: the items of a manual page's option and command lists as the sections
mandoc's HTML makes addressable (each `<dt id="L">` an anchor), so a hit on `ssh -L` or
`tmux new-session` is headed by the option it documents, not by `DESCRIPTION`.

An entry's item (roff_entries.py: a tagged list directly in a section) becomes a heading one
level below its section's, titled by its tag as man shows it (`-L [bind_address:]port:host:
hostport`), with mandoc's id, its first name less leading hyphens (`{#L}`, `{#new-session}`,
`{#ProxyJump}`), its text below it. Text after an item that is no item of
the run (ssh.1's paragraph after its options, an item that is no entry) would fall under that
option's heading: the section's heading is written again above it, at the options' level
(`### DESCRIPTION`), on the blank line that precedes it, so it reads as its section's.
Where no blank line precedes it, the items before it stay list rows under the section
heading, as before (the entries still point at them). Lines are only rewritten, never added:
the line map and the entries' lines stay as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docsmcp.sources.formats.roff.roff_entries import Item
from docsmcp.sources.formats.roff.roff_text import escape_md

# An id usable as a chunk id's last part as it is (chunk.py's _ANCHOR_ID).
_ANCHOR = re.compile(r"[A-Za-z0-9][\w.:-]*")
_HEADING = re.compile(r"#{1,6} (.+)$")


@dataclass(frozen=True)
class Head:
    line: int  # output line of the item's tag
    end: int  # output line after the item
    level: int  # the heading level it takes: its section's, plus one
    title: str  # its tag, plain
    anchor: str  # mandoc's id ("" where the name makes none)
    width: int  # the indent of its text below the tag


def anchor_of(name: str) -> str:
    """mandoc's id of an item named `name`: without leading hyphens (`-L` `L`, `--delete`
    `delete`); "" where that is no plain id (`-?`)."""
    bare = name.lstrip("-")
    return bare if _ANCHOR.fullmatch(bare) else ""


def head_of(item: Item, name: str, end: int, level: int) -> Head:
    """The heading an entry's item named `name` may take (`end`: the output line after it;
    `level`: its section's heading level)."""
    tag = " ".join(" ".join(item.head_plain).split()).replace(" , ", ", ")
    return Head(item.line, end, level + 1, tag, anchor_of(name), item.width)


def headed(out: list[tuple[int, str]], run: list[Head]) -> list[Head]:
    """Make the items of `run` (in order, all in the section now ending at the end of `out`)
    headings, in place (see the module's docstring); no run left (the next section's starts
    empty)."""
    keep: list[Head] = []
    resumes: list[int] = []  # blank lines that become the section's heading again
    for k, h in enumerate(run):
        after = run[k + 1].line if k + 1 < len(run) else len(out)
        gap = out[h.end : after] if h.end <= after else [(0, "x")]
        if any(t.strip() for _, t in gap):
            if gap[0][1].strip() or h.end >= len(out):
                keep, resumes = [], []  # (no line to head the text after it: rows)
                continue
            resumes.append(h.end)
        keep.append(h)
    title = _section_title(out, run[0].line) if keep else None
    if title is None:
        return []
    for h in keep:
        at, _ = out[h.line]
        anchor = f" {{#{h.anchor}}}" if h.anchor else ""
        out[h.line] = (at, f"{'#' * min(6, h.level)} {escape_md(h.title)}{anchor}")
        cut = " " * h.width
        for k in range(h.line + 1, h.end):
            src, text = out[k]
            if text.startswith(cut):
                out[k] = (src, text[h.width :])
    for k in resumes:
        out[k] = (out[k][0], f"{'#' * min(6, keep[0].level)} {title}")
    return []


def _section_title(out: list[tuple[int, str]], line: int) -> str | None:
    """The markdown title of the heading above output line `line` (None: none)."""
    for k in range(line - 1, -1, -1):
        m = _HEADING.match(out[k][1])
        if m:
            return m.group(1)
    return None
