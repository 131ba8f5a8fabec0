"""Find the markdown files and manifests of a docs folder, and match paths against globs.

Glob semantics are gitignore-ish, relative to a base folder:

* ``*`` and ``?`` never cross ``/``; ``[...]`` (``[!...]`` or ``[^...]`` negates) is one
  character other than ``/``; ``{a,b}`` alternates (nestable, may contain ``/``).
* ``**`` as a whole path segment crosses folders: ``**/x`` (x at any depth), ``a/**``
  (everything under a), ``a/**/b`` (zero or more folders between).
* A pattern without ``/`` (ignoring a trailing one) matches at any depth, like ``.gitignore``.
* A pattern that matches a folder also matches everything under it (``drafts`` excludes
  ``drafts/x.md``).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

MANIFEST_NAME = ".docs-mcp.json"
MARKDOWN_SUFFIXES = (".md", ".mdx")


def _expand_braces(pattern: str) -> list[str]:
    """Expand the first top-level ``{a,b}`` group, recursively (like a shell does)."""
    depth = 0
    start = -1
    commas: list[int] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            if depth == 0:
                start = i
                commas = []
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0 and commas:
                head, tail = pattern[:start], pattern[i + 1 :]
                bounds = [start, *commas, i]
                alternatives = [
                    pattern[a + 1 : b] for a, b in zip(bounds, bounds[1:], strict=False)
                ]
                return [
                    expanded
                    for alt in alternatives
                    for expanded in _expand_braces(head + alt + tail)
                ]
            # A "{x}" group without a comma is literal, as in a shell: keep scanning.
        elif ch == "," and depth == 1:
            commas.append(i)
        i += 1
    return [pattern]


def _translate_segment(segment: str) -> str:
    """Translate one path segment (no ``/``) to a regex."""
    out: list[str] = []
    i = 0
    n = len(segment)
    while i < n:
        ch = segment[i]
        if ch == "*":
            while i < n and segment[i] == "*":
                i += 1
            out.append("[^/]*")
            continue
        if ch == "?":
            out.append("[^/]")
        elif ch == "[":
            j = i + 1
            negate = j < n and segment[j] in "!^"
            if negate:
                j += 1
            if j < n and segment[j] == "]":  # a leading ']' is a literal member
                j += 1
            while j < n and segment[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(ch))  # unclosed: a literal '['
            else:
                body = segment[i + 1 + negate : j]
                body = body.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
                out.append(f"[^/{body}]" if negate else f"(?!/)[{body}]")
                i = j
        elif ch == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(segment[i]))
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def _translate_one(pattern: str) -> str:
    while pattern.startswith("./"):
        pattern = pattern[2:]
    anchored = "/" in pattern.rstrip("/")
    segments = [s for s in pattern.strip("/").split("/") if s and s != "."]
    out = [] if anchored else ["(?:.*/)?"]
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if seg == "**":
            out.append(".*" if last else "(?:.*/)?")
        else:
            out.append(_translate_segment(seg) + ("" if last else "/"))
    return "".join(out)


def glob_to_regex(pattern: str) -> str:
    """A regex (for ``re.fullmatch``) of the POSIX relative paths that ``pattern`` selects."""
    alternatives = sorted(set(_translate_one(p) for p in _expand_braces(pattern)))
    return "(?:" + "|".join(alternatives) + ")(?:/.*)?"


@functools.lru_cache(maxsize=4096)
def compile_glob(pattern: str) -> re.Pattern[str]:
    return re.compile(glob_to_regex(pattern), re.DOTALL)


def glob_match(pattern: str, path: str) -> bool:
    """True if the POSIX relative ``path`` is selected by ``pattern``."""
    return compile_glob(pattern).fullmatch(path) is not None


def matches_any(patterns: Iterable[str], path: str) -> bool:
    return any(glob_match(p, path) for p in patterns)


def selected(path: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    """Include/exclude filter: empty include selects everything, exclude wins."""
    if include and not matches_any(include, path):
        return False
    return not matches_any(exclude, path)


def _walk(docs_dir: Path) -> Iterable[tuple[str, list[str]]]:
    """Yield (POSIX relative folder, file names) for every non-hidden folder."""
    for root, dirs, files in os.walk(docs_dir):
        # Prune in place so os.walk never descends into hidden folders (.git, node_modules
        # is not hidden but .devcontainer, .github, .docusaurus are).
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel = Path(root).relative_to(docs_dir).as_posix()
        yield ("" if rel == "." else rel), files


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def discover(docs_dir: Path, include: Sequence[str] = (), exclude: Sequence[str] = ()) -> list[str]:
    """Sorted POSIX paths (relative to docs_dir) of the markdown files selected by the globs."""
    docs_dir = Path(docs_dir)
    found = []
    for folder, files in _walk(docs_dir):
        for name in files:
            if name.startswith(".") or not name.lower().endswith(MARKDOWN_SUFFIXES):
                continue
            path = _join(folder, name)
            if selected(path, include, exclude):
                found.append(path)
    return sorted(found)


def find_manifests(docs_dir: Path) -> list[str]:
    """Sorted POSIX paths (relative to docs_dir) of the manifests outside hidden folders."""
    docs_dir = Path(docs_dir)
    return sorted(
        _join(folder, MANIFEST_NAME) for folder, files in _walk(docs_dir) if MANIFEST_NAME in files
    )
