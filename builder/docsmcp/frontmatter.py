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
from .limits import MAX_YAML_DEPTH, MAX_YAML_NODES

# An HTML comment, so renderers hide it; the payload is JSON, e.g. {"chunk_by": "h3"}. The
# opener is a regex, the end a plain search for the first "-->" after it (see find_inline_hints).
_HINT_OPEN = re.compile(r"<!--\s*mcp_chunking_hint\s*:\s*")
_COMMENT_END = "-->"
# libyaml is ~20x faster, which matters on 50k-file corpora where every file has frontmatter.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# Every YAML collection needs one of these characters: `[`, `{`, a `- ` entry, a `key:` or
# `? key`. Text with fewer of them than MAX_YAML_DEPTH cannot nest deeper.
_NESTING_CHARS = "[{-?:"
_COLLECTION_START = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_COLLECTION_END = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


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
        if problem := _too_deep(yaml_text):
            return Frontmatter({}, body, None, (problem,))
        data = yaml.load(yaml_text, Loader=_LOADER)  # a safe loader, C or Python
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        # Clamped to the last YAML line: libyaml puts end-of-input errors on the closing line.
        line = min(mark.line + 2, end) if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return Frontmatter({}, body, yaml_text, ((line, f"invalid YAML frontmatter: {problem}"),))
    except Exception as exc:  # what yaml.load raises is a property of the text
        # PyYAML's safe constructors fail with plain Python errors on some scalars: a date such
        # as 2024-13-45 (ValueError), an integer of over 4,300 digits (ValueError), `!!int ''`
        # (IndexError).
        detail = (str(exc).splitlines() or [""])[0] or type(exc).__name__
        return Frontmatter({}, body, None, ((1, f"invalid YAML frontmatter: {detail}"),))
    if data is None:  # an empty block
        return Frontmatter({}, body, yaml_text)
    if not isinstance(data, dict):
        message = f"frontmatter must be a mapping, got {type(data).__name__}"
        return Frontmatter({}, body, yaml_text, ((1, message),))
    if _may_be_big(yaml_text) and (message := _too_big(data)):
        return Frontmatter({}, body, None, ((1, f"YAML frontmatter {message}"),))
    return Frontmatter(data, body, yaml_text)


def _too_deep(yaml_text: str) -> tuple[int, str] | None:
    """(line, problem) if the YAML nests collections deeper than MAX_YAML_DEPTH.

    Measured on the event stream, which libyaml produces without recursion, before the text
    reaches the composer, which recurses once per level and crashes the process (a C stack
    overflow, no exception) some 10,000 levels down. Raises yaml.YAMLError on invalid YAML."""
    if sum(yaml_text.count(c) for c in _NESTING_CHARS) <= MAX_YAML_DEPTH:
        return None  # the fast path: too few indicators to nest that deep
    depth = 0
    for event in yaml.parse(yaml_text, Loader=_LOADER):
        if isinstance(event, _COLLECTION_START):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                message = f"YAML frontmatter nests deeper than {MAX_YAML_DEPTH} levels"
                return event.start_mark.line + 2, message  # +2: the YAML starts on line 2
        elif isinstance(event, _COLLECTION_END):
            depth -= 1
    return None


def _may_be_big(yaml_text: str) -> bool:
    """Whether YAML could load into more than MAX_YAML_NODES values or through aliases: only
    an alias (`*name`) can share or repeat a node, and without one every value but a null
    entry after `-`/`?`/`:` takes at least a character, so the count is at most 2·len + 1
    (depth is checked on the text by `_too_deep`). Most frontmatter skips the graph walk."""
    return "*" in yaml_text or 2 * len(yaml_text) + 1 > MAX_YAML_NODES


def _too_big(data: Any) -> str | None:
    """Why loaded YAML is too large to use, counting every alias as a copy of its node, or None.

    Aliases make a graph: `b: [*a, *a]`, `c: [*b, *b]`, ... doubles at each step ("billion
    laughs"), and `&a [*a]` is a cycle. Anything that walks the data (schema validation, repr
    in a message) would take exponential time or never end, so the graph is measured first,
    iteratively and with each shared node counted once per use but visited once."""
    sizes: dict[int, tuple[int, int]] = {}  # id -> (nodes, depth) of a finished collection
    active: set[int] = set()  # collections on the current path: a cycle if met again
    stack: list[tuple[Any, bool]] = [(data, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        children = _children(node)
        if finished:
            active.discard(key)
            total, depth = 1, 0
            for child in children:
                n, d = sizes.get(id(child), (1, 0))
                total, depth = total + n, max(depth, d)
            sizes[key] = (total, depth + 1)
            if total > MAX_YAML_NODES:
                return f"has more than {MAX_YAML_NODES} values (aliases counted in full)"
            if depth + 1 > MAX_YAML_DEPTH:
                return f"nests deeper than {MAX_YAML_DEPTH} levels (through aliases)"
            continue
        if key in sizes:
            continue
        active.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in active:
                return "contains a recursive alias (a node inside itself)"
            if isinstance(child, (dict, list, set)):
                stack.append((child, False))
    return None


def _children(node: Any) -> list[Any]:
    if isinstance(node, dict):
        return [*node.keys(), *node.values()]
    if isinstance(node, (list, set)):
        return list(node)
    return []


def find_inline_hints(body: str) -> list[tuple[int, str]]:
    """(1-based line, raw payload) of every ``<!-- mcp_chunking_hint: ... -->`` outside fences."""
    if "mcp_chunking_hint" not in body:  # fast path: almost no file has one
        return []
    fenced = fenced_lines(body.split("\n"))
    hints = []
    line, counted = 1, 0  # line numbers are counted forward once, not from the start per hint
    pos = 0
    while (m := _HINT_OPEN.search(body, pos)) is not None:
        # The comment ends at the first "-->"; if there is none, no later opener can end
        # either. (A lazy regex would rescan to the end of the text for every opener.)
        end = body.find(_COMMENT_END, m.end())
        if end < 0:
            break
        line += body.count("\n", counted, m.start())
        counted = m.start()
        if not fenced[line - 1]:
            hints.append((line, body[m.end() : end].rstrip()))
        pos = end + len(_COMMENT_END)
    return hints
