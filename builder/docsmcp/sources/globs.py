"""Globs over the paths of a docs folder (moved out of discover.py, which re-exports them).

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
import re
from collections.abc import Iterable, Sequence

from docsmcp.common.limits import MAX_GLOB_ALTERNATIVES, MAX_GLOB_CHARS


class GlobError(ValueError):
    """A glob that cannot be used (too long, too many alternatives, a bad ``[...]`` range);
    the message completes the sentence "glob 'PATTERN' ..."."""


# --- globs -------------------------------------------------------------------------------------


def _first_group(pattern: str) -> tuple[int, list[int], int] | None:
    """(start, comma positions, end) of the first top-level ``{a,b}`` group, or None."""
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
                return start, commas, i
            # A "{x}" group without a comma is literal, as in a shell: keep scanning.
        elif ch == "," and depth == 1:
            commas.append(i)
        i += 1
    return None


def _expand_braces(pattern: str) -> list[str]:
    """Every ``{a,b}`` alternative of ``pattern`` (nestable), like a shell expands them.

    Iterative, and stopped as soon as the count passes MAX_GLOB_ALTERNATIVES: each group
    multiplies the count, so expanding first and counting after could take forever."""
    done: list[str] = []
    todo = [pattern]
    while todo:
        current = todo.pop()
        group = _first_group(current)
        if group is None:
            done.append(current)
            continue
        start, commas, end = group
        head, tail = current[:start], current[end + 1 :]
        bounds = [start, *commas, end]
        alternatives = [current[a + 1 : b] for a, b in zip(bounds, bounds[1:], strict=False)]
        todo.extend(head + alt + tail for alt in reversed(alternatives))
        # Every pattern still to expand yields at least one: a lower bound of the total.
        if len(done) + len(todo) > MAX_GLOB_ALTERNATIVES:
            raise GlobError(
                f"has {{a,b}} groups standing for more than {MAX_GLOB_ALTERNATIVES} alternatives"
            )
    return done


# A star within a path segment, in the token lists of _segment_tokens.
_STAR = None


def _segment_tokens(segment: str) -> list[str | None]:
    """One path segment (no ``/``) as regex tokens of one character each, or _STAR."""
    out: list[str | None] = []
    i = 0
    n = len(segment)
    while i < n:
        ch = segment[i]
        if ch == "*":
            while i < n and segment[i] == "*":
                i += 1
            out.append(_STAR)
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
            j = segment.find("]", j)  # str.find, not a scan per '[': "[[[[..." stays linear
            if j < 0:
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
    return out


def _segment_regex(segment: str) -> str:
    """Regex of one segment. Stars split it into fixed-width pieces; each middle piece is found
    by a committed (atomic) left-most search. Left-most is always a best choice, since a star
    absorbs whatever a later piece skips, and committing keeps `*a*a*a*b` from backtracking
    through every way of placing its pieces (exponential in the number of stars)."""
    pieces: list[list[str]] = [[]]
    for token in _segment_tokens(segment):
        if token is _STAR:
            pieces.append([])
        else:
            pieces[-1].append(token)
    texts = ["".join(p) for p in pieces]
    if len(texts) == 1:
        return texts[0]
    head, *middle, tail = texts
    return head + "".join(f"(?>[^/]*?{m})" for m in middle) + "[^/]*" + tail


def _translate_one(pattern: str) -> str:
    """Regex of one brace-free glob, without the trailing "and everything under it".

    A ``**/`` is ``(?:.*/)?`` (zero or more whole folders). What follows it up to the next
    ``**`` spans a fixed number of segments, so its left-most occurrence is always a best
    choice: it is found by a committed search, which keeps several ``**`` from backtracking
    through every way of splitting the path (polynomial in its length, per ``**``)."""
    while pattern.startswith("./"):
        pattern = pattern[2:]
    anchored = "/" in pattern.rstrip("/")
    segments = [s for s in pattern.strip("/").split("/") if s and s != "."]
    parts: list[str] = []
    run: list[str] = []  # segments since the last **
    # Whether `run` follows a ** (else it is anchored at the start). A pattern without / matches
    # at any depth: as if it began with **/.
    searched = not anchored

    def close(at_end: bool) -> None:
        if run and searched:
            # At the end the last segment must end at a '/' or the end of the path.
            boundary = "(?=/|\\Z)" if at_end else ""
            parts.append(f"(?>(?:[^/]*/)*?{''.join(run)}{boundary})")
        elif searched and at_end:
            parts.append("(?:.*/)?")  # nothing follows it: no backtracking to fear
        else:
            parts.extend(run)
        run.clear()

    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if seg != "**":
            run.append(_segment_regex(seg) + ("" if last else "/"))
            continue
        close(at_end=False)
        searched = not last
        if last:
            parts.append(".*")
    close(at_end=True)
    return "".join(parts)


def glob_to_regex(pattern: str) -> str:
    """A regex (for ``re.fullmatch`` with DOTALL) of the POSIX relative paths that ``pattern``
    selects. Raises GlobError for a pattern over the limits."""
    if len(pattern) > MAX_GLOB_CHARS:
        raise GlobError(
            f"is {len(pattern):,} characters long; at most {MAX_GLOB_CHARS:,} are allowed"
        )
    alternatives = sorted(set(_translate_one(p) for p in _expand_braces(pattern)))
    return "(?:" + "|".join(alternatives) + ")(?:/.*)?"


@functools.lru_cache(maxsize=4096)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """The compiled glob; GlobError if it cannot be used."""
    try:
        return re.compile(glob_to_regex(pattern), re.DOTALL)
    except re.error as exc:  # e.g. a reversed range: [z-a]
        raise GlobError(f"is invalid: {exc.msg}") from None


def glob_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be used as a glob, or None."""
    try:
        compile_glob(pattern)
    except GlobError as exc:
        return str(exc)
    return None


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
