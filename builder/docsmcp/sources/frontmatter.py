"""In-file configuration syntax: the YAML (or TOML) frontmatter block and inline chunking hints.

This module only finds and parses; settings.py decides what the values mean, so that all
precedence rules live in one place.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass, field
from typing import Any

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover (the requirement's marker installs tomli there)
    import tomli as tomllib

from docsmcp.common.limits import MAX_YAML_DEPTH, MAX_YAML_NODES
from docsmcp.sources.formats.markdown.fences import fenced_lines

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
# The flat frontmatter most sites write (`key: value` lines, `key:` then `- value` lines), read
# without libyaml: PyYAML's Python constructor and resolver were ~3 s of the 10 s win32's 48k
# files took to read, before any worker could start (`_flat`, fuzzed against yaml.load).
# A key: ASCII letters, digits, `_`, `.`, `-`, starting with a letter or `_`.
_FLAT_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*):(?: +(.*))?")
_FLAT_ITEM = re.compile(r"( *)- +(.*)")
# A plain scalar read as written starts with none of YAML's indicators or a space, holds no
# `: ` or ` #` (a mapping, a comment), and only characters YAML reads as printable within one
# line (no tab; NEL, LS and PS break lines in YAML 1.1, CR ends one; a BOM is left out).
_NOT_FIRST = frozenset("-?:,[]{}#&*!|>'\"%@` ")
_NOT_PRINTABLE = re.compile(
    r"[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_NOT_PLAIN = re.compile(_NOT_PRINTABLE.pattern + "|: | #")
# The tags of plain scalars `_flat` makes itself (PyYAML's own constructors): a timestamp, `<<`
# or `=` goes to PyYAML.
_STR = "tag:yaml.org,2002:str"
_FLAT_TAGS = frozenset(f"tag:yaml.org,2002:{t}" for t in ("str", "bool", "int", "float", "null"))
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

    def written(self, key: str) -> str | None:
        """The value of top-level `key` as written on its line (quotes left out), or None when
        the line has none: `title: {let/const ...}` is text to the site that wrote it (Svelte),
        a mapping to YAML."""
        for line in (self.yaml_text or "").split("\n"):
            if (m := _FLAT_KEY.fullmatch(line)) is not None and m[1] == key:
                return _unquoted(m[2].strip(" ")) if m[2] and m[2].strip(" ") else None
        return None


# Blank lines before a frontmatter block that Astro and gray-matter accept (Biome's getting
# started page: its YAML was its title and first chunk).
MAX_BLANK_LEAD = 3


def _after_blank_lines(text: str, lines: list[str]) -> Frontmatter:
    """The frontmatter after up to MAX_BLANK_LEAD blank lines, when it reads cleanly as a
    mapping (else none: `---` there may be a thematic break)."""
    lead = next((i for i, line in enumerate(lines[: MAX_BLANK_LEAD + 1]) if line.strip()), None)
    if not lead or lines[lead].rstrip() != "---":
        return Frontmatter({}, text)
    inner = split_frontmatter("\n".join(lines[lead:]))
    if not inner.data or inner.problems:
        return Frontmatter({}, text)
    return Frontmatter(inner.data, "\n" * lead + inner.body, inner.yaml_text)


def _toml(text: str, lines: list[str]) -> Frontmatter:
    """A leading `+++` … `+++` TOML block (Hugo, Zola): its values, the block blanked."""
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "+++"), None)
    if end is None:
        return Frontmatter(
            {}, text, problems=((1, "unterminated frontmatter: no closing '+++' line"),)
        )
    body = "\n".join([""] * (end + 1) + lines[end + 1 :])
    try:
        data = tomllib.loads("\n".join(lines[1:end]))
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+)", str(exc))
        line = min(int(found.group(1)) + 1, end) if found else 1
        detail = re.sub(r"\s*\(at line.*$", "", str(exc).splitlines()[0])
        return Frontmatter({}, body, None, ((line, f"invalid TOML frontmatter: {detail}"),))
    except RecursionError:
        return Frontmatter({}, body, None, ((1, "TOML frontmatter nests too deep"),))
    if message := _too_big(data, aliases=False):
        return Frontmatter({}, body, None, ((1, f"TOML frontmatter {message}"),))
    return Frontmatter(data, body)


def split_frontmatter(text: str) -> Frontmatter:
    """Split a leading ``---`` ... ``---``/``...`` YAML block (or ``+++`` ... ``+++`` TOML,
    Hugo's and Zola's other form) from ``text`` and parse it."""
    lines = text.split("\n")
    if lines[0].rstrip() == "+++":
        return _toml(text, lines)
    if lines[0].rstrip() != "---":
        return _after_blank_lines(text, lines)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        return Frontmatter(
            {}, text, problems=((1, "unterminated frontmatter: no closing '---' line"),)
        )
    yaml_text = "\n".join(lines[1:end])
    body = "\n".join([""] * (end + 1) + lines[end + 1 :])
    try:
        # Flat text is read without PyYAML, to the same values; it nests two levels at most.
        data = _flat(yaml_text)
        if data is None:
            if problem := _too_deep(yaml_text):
                return Frontmatter({}, body, None, (problem,))
            data = yaml.load(yaml_text, Loader=_LOADER)  # a safe loader, C or Python
    except yaml.YAMLError as exc:
        if (written := _lines(yaml_text)) is not None:
            return Frontmatter(written, body, yaml_text)
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
        if m := re.search(r"integer string conversion: value has (\d+) digits", detail):
            # (Python's own words name sys.set_int_max_str_digits(), no use to a docs author)
            detail = (
                f"an integer of {int(m.group(1)):,} digits (at most "
                f"{sys.get_int_max_str_digits():,}); quote it to keep it as text"
            )
        return Frontmatter({}, body, None, ((1, f"invalid YAML frontmatter: {detail}"),))
    if data is None:  # an empty block
        return Frontmatter({}, body, yaml_text)
    if not isinstance(data, dict):
        message = f"frontmatter must be a mapping, got {type(data).__name__}"
        return Frontmatter({}, body, yaml_text, ((1, message),))
    if _may_be_big(yaml_text) and (message := _too_big(data)):
        return Frontmatter({}, body, None, ((1, f"YAML frontmatter {message}"),))
    return Frontmatter(data, body, yaml_text)


def _lines(yaml_text: str) -> dict[str, str] | None:
    """The block as `key: value` lines, each value text as written (quotes left out), where
    every line is one (or blank, or a comment); else None. For blocks YAML refuses: some sites'
    own tools read frontmatter this way, not as YAML (Svelte's docs: `title: {#if ...}`,
    `title: bind:`), and refusing them failed the build of the whole site.

    Two more shapes generated provider docs write (Terraform's): an HTML comment on a line of
    its own (cdktf's `<!-- Please do not edit this file, it is generated. -->`, 14 of
    terraform-provider-random's pages) is skipped as a comment, and a block scalar (`key: |-`)
    takes the lines under it, indented or not (`description: |-` then its text at the margin:
    two of terraform-provider-github's pages), up to the next `key:` line."""
    data: dict[str, str] = {}
    block: tuple[str, str, list[str]] | None = None  # (key, indicator, its lines)
    for line in yaml_text.split("\n"):
        if _HTML_COMMENT_LINE.fullmatch(line):
            continue
        m = _FLAT_KEY.fullmatch(line)
        if block is not None and m is None:
            block[2].append(line.strip(" "))
            continue
        if block is not None:
            data[block[0]] = _block_text(block[1], block[2])
            block = None
        if line.lstrip(" ")[:1] in ("", "#"):
            continue
        value = (m[2] or "").strip(" ") if m is not None else ""
        if m is not None and _BLOCK_INDICATOR.fullmatch(value):
            block = (m[1], value, [])
            continue
        if not value or not _text_like(value):
            return None
        data[m[1]] = _unquoted(value)
    if block is not None:
        data[block[0]] = _block_text(block[1], block[2])
    return data or None


# A line holding only an HTML comment, and a block scalar's indicator (`|`, `>-`, `|+`).
_HTML_COMMENT_LINE = re.compile(r"[ \t]*<!--.*-->[ \t]*")
_BLOCK_INDICATOR = re.compile(r"[|>][-+]?")


def _block_text(indicator: str, lines: list[str]) -> str:
    """A block scalar's text from its lines: kept as lines (`|`) or folded into one (`>`)."""
    text = "\n".join(lines).strip("\n")
    return text if indicator[0] == "|" else re.sub(r"(?<!\n)\n(?!\n)", " ", text)


# What starts a YAML construct no site writes as text: a flow sequence, a tag, an anchor or
# alias, a block scalar, a directive. These stay YAML's problem (a hostile 50,000-deep `[`).
_YAML_ONLY_FIRST = frozenset("[!&*|>%")


def _text_like(value: str) -> bool:
    """Whether a value YAML refused reads as text a site meant: not a YAML-only construct,
    and a `{` only as Svelte's tags are written (`{#if ...}`), not a flow mapping (`{a: b}`,
    `{{`)."""
    if value[0] in _YAML_ONLY_FIRST:
        return False
    return value[0] != "{" or (": " not in value and value[1:2] not in ("{", "["))


def _unquoted(value: str) -> str:
    """`value` less one pair of surrounding quotes."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _flat(yaml_text: str) -> dict[str, Any] | None:
    """`yaml.load(yaml_text)` when the text is only `key: value` lines and `key:` lines each
    followed by `- value` items or by nothing (null), every key a plain scalar PyYAML reads as
    a string and every value one it reads as a string, number, boolean or null; else None (the
    text goes to PyYAML)."""
    data: dict[str, Any] = {}
    items: list[Any] | None = None  # the list being filled
    bare = None  # the last key, if it had no value on its line (null unless items follow)
    indent = -1  # the items' indentation
    for line in yaml_text.split("\n"):
        if (m := _FLAT_KEY.fullmatch(line)) is not None:
            key, value = m[1], (m[2] or "").rstrip(" ")
            if not _key_is_str(key):
                return None
            items, bare = None, None
            if not value:
                data[key], bare = None, key
                continue
            data[key] = _scalar(value)
            if data[key] is _NOT_FLAT:
                return None
        elif (m := _FLAT_ITEM.fullmatch(line)) is not None and (
            bare is not None or items is not None
        ):
            if bare is not None:
                items, indent = [], len(m[1])
                data[bare], bare = items, None
            elif len(m[1]) != indent:
                return None
            value = m[2].rstrip(" ")
            item = _scalar(value) if value else _NOT_FLAT
            if item is _NOT_FLAT:
                return None
            assert items is not None
            items.append(item)
        elif line.lstrip(" ")[:1] not in ("", "#"):  # (a blank or comment line is nothing)
            return None
    return data or None


# `_scalar` of text it cannot read as PyYAML does.
_NOT_FLAT = object()


def _scalar(plain: str) -> Any:
    """The value of the plain or quoted scalar `plain` (non-empty, no surrounding spaces) as
    PyYAML loads it, else _NOT_FLAT."""
    if plain[0] == "'":  # single-quoted: a doubled quote inside is one quote
        quoted = plain[1:-1]
        if len(plain) < 2 or plain[-1] != "'" or "'" in quoted.replace("''", ""):
            return _NOT_FLAT
        return _NOT_FLAT if _NOT_PRINTABLE.search(quoted) else quoted.replace("''", "'")
    if plain[0] == '"':  # double-quoted, taken only without escapes
        quoted = plain[1:-1]
        if len(plain) < 2 or plain[-1] != '"' or '"' in quoted or "\\" in quoted:
            return _NOT_FLAT
        return _NOT_FLAT if _NOT_PRINTABLE.search(quoted) else quoted
    if plain[0] in _NOT_FIRST or plain[-1] == ":" or _NOT_PLAIN.search(plain):
        return _NOT_FLAT
    tag = _tag(plain)
    if tag == _STR:
        return plain
    if tag not in _FLAT_TAGS:
        return _NOT_FLAT
    try:
        return _CONSTRUCTOR.yaml_constructors[tag](_CONSTRUCTOR, yaml.ScalarNode(tag, plain))
    except Exception:  # noqa: BLE001 (PyYAML decides what is wrong with it)
        return _NOT_FLAT


_CONSTRUCTOR = yaml.constructor.SafeConstructor()


def _tag(plain: str) -> str:
    """The tag PyYAML's implicit resolvers (keyed by first character) give a plain scalar."""
    for tag, regexp in _resolvers(plain[0]):
        if regexp.match(plain):
            return tag
    return _STR


@functools.cache
def _resolvers(first: str) -> tuple[tuple[str, re.Pattern], ...]:
    table = _LOADER.yaml_implicit_resolvers
    return (*table.get(first, ()), *table.get(None, ()))


@functools.lru_cache(maxsize=1024)
def _key_is_str(key: str) -> bool:
    """`_tag(key) == _STR`, remembered: a corpus's files repeat a few keys."""
    return _tag(key) == _STR


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


def _too_big(data: Any, aliases: bool = True) -> str | None:
    """Why loaded YAML is too large to use, counting every alias as a copy of its node, or None
    (`aliases`: whether the format has them, for the message; TOML has none).

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
                said = " (aliases counted in full)" if aliases else ""
                return f"has more than {MAX_YAML_NODES} values{said}"
            if depth + 1 > MAX_YAML_DEPTH:
                said = " (through aliases)" if aliases else ""
                return f"nests deeper than {MAX_YAML_DEPTH} levels{said}"
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
