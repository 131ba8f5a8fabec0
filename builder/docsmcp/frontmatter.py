"""In-file configuration syntax: the YAML frontmatter block and inline chunking hints.

This module only finds and parses; manifest.py decides what the values mean, so that all
precedence rules live in one place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from .fences import fenced_lines

# An HTML comment, so renderers hide it; the payload is JSON, e.g. {"chunk_by": "h3"}.
_HINT_RE = re.compile(r"<!--\s*mcp_chunking_hint\s*:\s*(.*?)\s*-->", re.DOTALL)
# libyaml is ~20x faster, which matters on 50k-file corpora where every file has frontmatter.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Frontmatter:
    """The frontmatter of one file (``data`` is empty when absent or unusable)."""

    data: dict[str, Any]
    body: str  # the text with the block blanked out, so line numbers stay valid
    yaml_text: str | None = None
    problems: tuple[tuple[int, str], ...] = field(default=())  # (1-based line, message)

    def line_of(self, *keys: str) -> int:
        """Best-effort 1-based file line of a (nested) key; the block's first line if unknown."""
        if self.yaml_text is None:
            return 1
        try:
            node = yaml.compose(self.yaml_text, Loader=_LOADER)
        except yaml.YAMLError:
            return 1
        line = 1
        for key in keys:
            if not isinstance(node, yaml.MappingNode):
                break
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
                    # +2: the YAML starts on file line 2, and marks are 0-based.
                    line = key_node.start_mark.line + 2
                    node = value_node
                    break
            else:
                break
        return line


def split_frontmatter(text: str) -> Frontmatter:
    """Split a leading ``---`` ... ``---``/``...`` YAML block from ``text`` and parse it."""
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return Frontmatter({}, text)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        return Frontmatter(
            {}, text, problems=((1, "unterminated frontmatter: no closing '---' line"),)
        )
    yaml_text = "\n".join(lines[1:end])
    body = "\n".join([""] * (end + 1) + lines[end + 1 :])
    try:
        data = yaml.load(yaml_text, Loader=_LOADER)  # a safe loader, C or Python
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        # Clamped to the last YAML line: libyaml puts end-of-input errors on the closing line.
        line = min(mark.line + 2, end) if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return Frontmatter({}, body, yaml_text, ((line, f"invalid YAML frontmatter: {problem}"),))
    if data is None:  # an empty block
        return Frontmatter({}, body, yaml_text)
    if not isinstance(data, dict):
        message = f"frontmatter must be a mapping, got {type(data).__name__}"
        return Frontmatter({}, body, yaml_text, ((1, message),))
    return Frontmatter(data, body, yaml_text)


def find_inline_hints(body: str) -> list[tuple[int, str]]:
    """(1-based line, raw payload) of every ``<!-- mcp_chunking_hint: ... -->`` outside fences."""
    if "mcp_chunking_hint" not in body:  # fast path: almost no file has one
        return []
    fenced = fenced_lines(body.split("\n"))
    hints = []
    for m in _HINT_RE.finditer(body):
        line = body.count("\n", 0, m.start()) + 1
        if not fenced[line - 1]:
            hints.append((line, m.group(1)))
    return hints
