"""The part of an included file a directive selects (includes.py): a pymdownx section, reST's
`:lines:`/`:start-after:`/... options, an mdBook anchor or line range, FastAPI's `ln[...]`."""

from __future__ import annotations

import re

SNIPPET_SECTION = re.compile(r"-{1,}8<-{1,}[ \t]+\[(start|end):([\w-]+)\]")
MDBOOK_ANCHOR = re.compile(r"\bANCHOR(?:_END)?:[ \t]*([\w-]+)")


def select_section(lines: list[str], name: str) -> list[str]:
    """The lines between `--8<-- [start:name]` and `--8<-- [end:name]`."""
    out: list[str] = []
    inside = False
    for line in lines:
        m = SNIPPET_SECTION.search(line)
        if m and m.group(2) == name:
            inside = m.group(1) == "start"
            continue
        if inside:
            out.append(line)
    return out


def select_rst(lines: list[str], options: dict[str, str]) -> list[str]:
    """The lines of an included file that a reST include's options keep."""
    if lines and lines[-1] == "":
        lines = lines[:-1]
    if (after := options.get("start-after")) and (
        at := next((k for k, x in enumerate(lines) if after in x), None)
    ) is not None:
        lines = lines[at + 1 :]
    if (before := options.get("end-before")) and (
        at := next((k for k, x in enumerate(lines) if before in x), None)
    ) is not None:
        lines = lines[:at]
    first, last = (_int(options.get(k, "")) for k in ("start-line", "end-line"))
    lines = lines[first:last]  # 0-based, as docutils reads them
    if wanted := options.get("lines"):
        lines = select_line_ranges(lines, wanted.replace("-", ":"))
    if (dedent := options.get("dedent", "")).isdigit():
        lines = [x[int(dedent) :] if x[: int(dedent)].strip() == "" else x.lstrip() for x in lines]
    return lines


def _int(text: str) -> int | None:
    return int(text) if text.strip().lstrip("-").isdigit() else None


def select_mdbook(lines: list[str], selector: str) -> list[str]:
    """mdBook's `:10`, `:10:20`, `::20`, `:name` selections (1-based, inclusive)."""
    if not selector:
        return lines
    parts = selector.split(":")
    if all(p.isdigit() or not p for p in parts) and len(parts) <= 2:
        start = int(parts[0]) if parts[0] else 1
        end = int(parts[1]) if len(parts) == 2 and parts[1] else None
        if len(parts) == 1:
            return lines[start - 1 :]
        return lines[start - 1 : end]
    out: list[str] = []
    inside = False
    for line in lines:
        m = MDBOOK_ANCHOR.search(line)
        if m and m.group(1) == selector:
            inside = "ANCHOR_END" not in line
            continue
        if inside:
            out.append(line)
    return out


def select_line_ranges(lines: list[str], spec: str, gap: str = "") -> list[str]:
    """FastAPI's `ln[1:5,8]`: those lines (1-based, inclusive), in order; `gap` (FastAPI's
    "# Code here omitted 👈") between two ranges that do not meet, as the site shows it (a
    variable defined in the lines left out read as undefined: SQLModel's 29 such includes)."""
    keep: list[int] = []
    for part in spec.split(","):
        a, _, b = part.strip().partition(":")
        if not a.strip().isdigit():
            continue
        first = int(a)
        last = int(b) if b.strip().isdigit() else (len(lines) if b == "" and ":" in part else first)
        keep.extend(range(first, min(last, len(lines)) + 1))
    kept = [k for k in dict.fromkeys(keep) if 0 < k <= len(lines)]
    if not kept:
        return lines
    out = [lines[kept[0] - 1]]
    for before, k in zip(kept, kept[1:], strict=False):
        if gap and k != before + 1:
            out.append(gap)
        out.append(lines[k - 1])
    return out
