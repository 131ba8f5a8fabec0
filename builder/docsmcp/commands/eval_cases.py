"""Labelled cases for `docsmcp eval` (format: shared/eval/README.md) and the judging of a hit.

A hit is relevant to a case's `relevant` entry when its filepath equals the entry's file and
either the entry's heading is null, or the heading text (casefolded, whitespace-collapsed) equals
the hit's heading or one of its breadcrumb's parts, or the chunk's content (from `get_doc`) has
that heading as a markdown ATX heading line outside code fences. Comparing whole breadcrumb parts
rather than substrings keeps a short heading such as "create" or "Q" from matching "create_many"
or every breadcrumb that contains a q; the content rule keeps the judgement independent of how
the builder chunks (a merged or whole-file chunk still counts), and the mean hit size reported
beside the scores is what catches returning whole files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docsmcp.sources.formats.markdown.fences import fenced_lines

DEFAULT_CATEGORY = "uncategorized"
# A relevant entry's `grade` (page-level judging): 3 the canonical answer, 2 closely related,
# 1 peripheral; an entry without one counts as 1 (every older case file is binary).
GRADES = (1, 2, 3)
DEFAULT_GRADE = 1

# An ATX heading line: up to 3 spaces, 1-6 #s, then a space and the text, optional closing #s.
_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_DELIMITER = re.compile(r"^--- Chunk: .* ---$")


class CaseError(ValueError):
    """A cases file cannot be read or a line is malformed; the message names file:line."""


# --------------------------------------------------------------------------- cases


def load_cases(path: str | Path) -> list[dict]:
    """Read a JSONL cases file into normalised dicts (`category` and `filters` defaulted).

    Raises CaseError "FILE:LINE: reason" for the first malformed line, so a typo in a
    hand-written case is found at once instead of silently scoring as a miss.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise CaseError(f"{path}: cannot read cases file: {reason}") from None
    cases: list[dict] = []
    seen: dict[str, int] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CaseError(f"{where}: invalid JSON: {exc.msg} (column {exc.colno})") from None
        case = _check_case(raw, where)
        if case["id"] in seen:
            raise CaseError(
                f"{where}: duplicate case id {case['id']!r} (first on line {seen[case['id']]})"
            )
        seen[case["id"]] = lineno
        cases.append(case)
    return cases


def _check_case(raw: Any, where: str) -> dict:
    def fail(reason: str) -> CaseError:
        return CaseError(f"{where}: {reason}")

    if not isinstance(raw, dict):
        raise fail("a case must be a JSON object")
    for key in ("id", "corpus", "query"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise fail(f"'{key}' must be a non-empty string")
    category = raw.get("category", DEFAULT_CATEGORY)
    if not isinstance(category, str) or not category.strip():
        raise fail("'category' must be a non-empty string")
    filters = raw.get("filters", {})
    if not isinstance(filters, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in filters.items()
    ):
        raise fail("'filters' must be an object of string values")
    relevant = raw.get("relevant")
    if not isinstance(relevant, list):
        raise fail("'relevant' must be a list (empty when the case has no answer)")
    for i, entry in enumerate(relevant):
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            raise fail(f"relevant[{i}] must be an object with a string 'file'")
        if "heading" not in entry or not (
            entry["heading"] is None or isinstance(entry["heading"], str)
        ):
            raise fail(f"relevant[{i}].heading must be a string or null")
        grade = entry.get("grade", DEFAULT_GRADE)
        if isinstance(grade, bool) or grade not in GRADES:
            raise fail(f"relevant[{i}].grade must be 1, 2 or 3 (3: the canonical answer)")
    return {**raw, "category": category, "filters": dict(filters)}


# --------------------------------------------------------------------------- judging


def normalize(text: str) -> str:
    """Casefolded and whitespace-collapsed, the comparison the README prescribes, without the
    backticks of code spans: they are markup, not the heading's text (a judged heading is
    written as in the markdown source, "The `non_exhaustive` attribute", where a hit's heading
    and breadcrumb hold the text a reader sees, "The non_exhaustive attribute")."""
    return " ".join(text.replace("`", "").split()).casefold()


def heading_lines(content: str) -> set[str]:
    """Normalised texts of the ATX heading lines of markdown, ignoring fenced code
    (a `# comment` in a shell or Python block is not a heading)."""
    found: set[str] = set()
    lines = content.splitlines()
    for line, code in zip(lines, fenced_lines(lines), strict=True):
        if code:
            continue
        h = _ATX.match(line)
        if h and h.group(1):
            found.add(normalize(h.group(1)))
    return found


def chunk_content(get_doc_result: dict) -> str:
    """The chunk's markdown from a get_doc result, without the `--- Chunk: ... ---` line."""
    if get_doc_result.get("isError"):
        return ""
    text = "".join(c.get("text", "") for c in get_doc_result.get("content", []))
    first, sep, rest = text.partition("\n")
    return rest if sep and _DELIMITER.match(first) else text


@dataclass(frozen=True)
class Entry:
    """One deduplicated relevant location: a file and a normalised heading (None: whole file)."""

    file: str
    heading: str | None
    label: str | None = field(default=None, compare=False)  # the heading as written, for output


def relevant_entries(case: dict) -> tuple[Entry, ...]:
    seen: dict[Entry, None] = {}
    for r in case["relevant"]:
        heading = r["heading"]
        entry = Entry(r["file"], None if heading is None else normalize(heading), heading)
        seen.setdefault(entry, None)
    return tuple(seen)


def satisfies(hit: dict, entry: Entry, headings: set[str]) -> bool:
    """Whether a hit is relevant to an entry; `headings` are the chunk content's heading lines."""
    if hit.get("filepath") != entry.file:
        return False
    if entry.heading is None:
        return True
    if normalize(hit.get("heading", "")) == entry.heading:
        return True
    # whole breadcrumb parts (" > " separated), also when a heading itself contains " > "
    if f" > {entry.heading} > " in f" > {normalize(hit.get('breadcrumb', ''))} > ":
        return True
    return entry.heading in headings


def in_filters(hit: dict, filters: dict[str, str]) -> bool:
    metadata = hit.get("metadata") or {}
    return all(metadata.get(key) == value for key, value in filters.items())
