"""`docsmcp diff OLD NEW`: the command line of the runtime's bundle comparison
(`docsmcp_runtime.bundle.changes`, which the runtime's `compare_versions` tool shares): a
readable or JSON report of the sections added, removed, changed or moved."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from docsmcp_runtime.bundle.changes import KINDS, LISTED, SCHEMA, DiffError, Entry, Report, Section
from docsmcp_runtime.bundle.changes_report import (
    EXCERPT_CHARS,
    EXCERPT_LINE_CHARS,
    EXCERPT_LINES,
    diff_bundles,
    excerpt,
)

__all__ = [
    "EXCERPT_CHARS",
    "EXCERPT_LINES",
    "EXCERPT_LINE_CHARS",
    "KINDS",
    "SCHEMA",
    "Section",
    "diff_bundles",
    "excerpt",
    "format_report",
    "run_diff_cli",
]

PROG = "docsmcp"


# --- reporting ---------------------------------------------------------------------------------


def format_report(report: Report, limit: int | None = None) -> str:
    """The readable report: both bundles, the counts, page moves, then the entries by kind."""
    counts = report.counts
    out = [
        f"old: {report.old.location} ({report.old.name}, {len(report.old.sections)} sections)",
        f"new: {report.new.location} ({report.new.name}, {len(report.new.sections)} sections)",
        ", ".join(f"{counts[k]} {k}" for k in KINDS),
        f"pages: {len(report.pages_added)} added, {len(report.pages_removed)} removed, "
        f"{len(report.pages_moved)} moved",
    ]
    for move in report.pages_moved:
        out.append(f"  {move.old_path} -> {move.new_path} ({move.sections} sections)")
    listed = report.listed(limit)
    for kind in LISTED:
        entries = [e for e in listed if e.kind == kind]
        if not entries:
            continue
        shown = "" if len(entries) == counts[kind] else f"; {len(entries)} listed"
        out.append("")
        out.append(f"{kind} ({counts[kind]}{shown}):")
        for entry in entries:
            out.extend(_entry_lines(entry))
    omitted = len(report.listed()) - len(listed)
    if omitted:
        out.append("")
        out.append(f"... {omitted} more entries not listed (--limit {limit} per kind)")
    return "\n".join(out)


def _entry_lines(entry: Entry) -> list[str]:
    old, new = entry.old, entry.new
    if old is not None and new is not None and old.id != new.id:
        where = f"{old.id} -> {new.id}"
    else:
        where = (new or old).id  # type: ignore[union-attr]
    heading = entry.heading
    if old is not None and new is not None and old.heading != new.heading:
        heading = f"{old.heading} -> {new.heading}"
    notes = []
    if entry.kind == "moved":
        notes.append(f"by {entry.match}")
    if entry.similarity is not None and entry.similarity < 1:
        notes.append(f"similarity {entry.similarity:.2f}")
    line = f"  {where}" + (f" — {heading}" if heading else "")
    lines = [line + (f" ({', '.join(notes)})" if notes else "")]
    if entry.excerpt:
        lines.extend(f"    {row}" for row in entry.excerpt.split("\n"))
    return lines


def _error(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def run_diff_cli(args: Any) -> int:
    """`docsmcp diff`: exit 0 after printing the report (differences are not an error), 2 when a
    bundle cannot be read or an option is out of range."""
    if args.limit is not None and args.limit < 0:
        return _error(f"--limit must be 0 or more, not {args.limit}")
    if not 0 < args.min_similarity <= 1:
        return _error(f"--min-similarity must be in (0, 1], not {args.min_similarity:g}")
    try:
        report = diff_bundles(Path(args.old), Path(args.new), args.min_similarity)
    except DiffError as exc:
        return _error(str(exc))
    if args.json:
        text = json.dumps(report.to_json(args.limit), indent=2, ensure_ascii=False)
    else:
        text = format_report(report, args.limit)
    print(text, flush=True)  # a reader gone away (`| head`): cli.main
    return 0
