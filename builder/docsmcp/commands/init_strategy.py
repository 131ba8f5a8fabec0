"""The chunking strategy `docsmcp init` proposes: the heading level to cut at and
max_chunk_size, measured on the docs (init.py's module docstring, *strategy*, has the rule)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence

from docsmcp.chunking.levels import structural_levels
from docsmcp.common.budget import TooSlow, memory_limit, parse_megabytes, parse_seconds, time_limit
from docsmcp.sources.formats.fences import fenced_lines

# The typical section size init aims for, in characters (about 1,000 tokens): "half of the
# text lies in sections of at most this size".
TARGET_SECTION_CHARS = 4000
# Bytes of reST/HTML files converted to measure their sections (the rest are sampled).
CONVERT_SAMPLE_BYTES = 4 << 20
# A deeper heading level must shrink the typical section by at least this factor to be chosen.
DEEPER_GAIN = 0.75
# ... and leave it at least this long: sections of a few lines lose their context.
MIN_SECTION_CHARS = 1000
MAX_CHUNK_FLOOR = 4000
MAX_CHUNK_CEILING = 20000
LEVELS = ("h1", "h2", "h3")

_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")


def sections(body: str, level: int) -> list[int]:
    """Character sizes of the sections a file splits into at headings of ``level`` or
    shallower (outside code fences; their structural level, as the chunker splits:
    chunking/levels.py), the text before the first one included."""
    lines = body.split("\n")
    fenced = fenced_lines(lines)
    written = [
        (i, len(m.group(1)))
        for i, (line, in_fence) in enumerate(zip(lines, fenced, strict=True))
        if not in_fence and (m := _HEADING.match(line)) is not None
    ]
    starts = {
        i
        for (i, _), lv in zip(written, structural_levels(w for _, w in written), strict=True)
        if lv <= level
    }
    sizes: list[int] = []
    current = 0
    for i, line in enumerate(lines):
        if i in starts:
            if current:
                sizes.append(current)
            current = 0
        current += len(line) + 1
    if body.strip():
        sizes.append(max(current, 1))
    return [s for s in sizes if s > 1]


def _weighted(sizes: Sequence[int], share: float) -> int:
    """The smallest size S such that ``share`` of all the characters lie in sections of at
    most S characters (``sizes`` sorted); 0 for no sections."""
    total = sum(sizes)
    running = 0
    for size in sizes:
        running += size
        if running >= share * total:
            return size
    return 0


def strategy(bodies: Iterable[str]) -> tuple[str, dict[str, int], int]:
    """(chunk_by, the typical section size of each level, max_chunk_size); see init.py's module
    docstring for the rule."""
    per_level: dict[str, list[int]] = {lv: [] for lv in LEVELS}
    for body in bodies:
        for n, lv in enumerate(LEVELS, start=1):
            per_level[lv].extend(sections(body, n))
    for sizes in per_level.values():
        sizes.sort()
    typical = {lv: _weighted(sizes, 0.5) for lv, sizes in per_level.items()}
    if not per_level["h1"]:
        return "h2", typical, MAX_CHUNK_CEILING

    def distance(lv: str) -> float:
        return abs(math.log(max(typical[lv], 1) / TARGET_SECTION_CHARS))

    level = LEVELS[0]
    for deeper in LEVELS[1:]:
        # Too long a section is worse than too short a one (a hit of a whole page costs the
        # agent its tokens and ranks by everything on it): deeper while over the target.
        wanted = typical[level] > TARGET_SECTION_CHARS or distance(deeper) < distance(level)
        shrinks = MIN_SECTION_CHARS <= typical[deeper] <= DEEPER_GAIN * typical[level]
        if not (wanted and shrinks):
            break
        level = deeper
    p90 = _weighted(per_level[level], 0.9)
    max_size = min(MAX_CHUNK_CEILING, max(MAX_CHUNK_FLOOR, math.ceil(p90 / 1000) * 1000))
    return level, typical, max_size


def as_markdown(bodies: Mapping[str, str]) -> list[str]:
    """The texts the strategy measures: markdown as it is, and the other formats (reST, saved
    HTML) as the builder converts them, since their headings are not `#` lines (a Sphinx
    project was measured as one section per page and proposed h1). Converting costs ~35 ms a
    reST page: past CONVERT_SAMPLE_BYTES of such files, an evenly spaced sample of them (in path
    order, so the proposal is the same every run) is converted."""
    from docsmcp.sources.convert import converter_for

    out = [body for path, body in bodies.items() if converter_for(path) is None]
    other = sorted(path for path in bodies if converter_for(path) is not None)
    total = sum(len(bodies[path]) for path in other)
    step = max(1, math.ceil(total / CONVERT_SAMPLE_BYTES))
    seconds, megabytes = parse_seconds(), parse_megabytes()
    for path in other[::step]:
        convert = converter_for(path)
        assert convert is not None
        try:  # under the build's own budgets: a file past them is plain text there
            with time_limit(seconds), memory_limit(megabytes):
                out.append(convert(path, bodies[path]).text)
        except (TooSlow, MemoryError):
            continue
    return out
