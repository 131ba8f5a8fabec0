"""A mkdocstrings directive's own options, read as the Python handler reads them::

    ::: pydantic.fields
        options:
          members:
            - Field
            - FieldInfo
          heading_level: 3
          docstring_style: numpy

The indented YAML block under `::: identifier` (`options:`, and the older `selection:` and
`rendering:` keys) overrides the site's options (mkdocs.yml's `handlers: python: options:`)
for that directive. apidoc.py honours what changes which objects are shown and how:

- `members`: a list names the root object's members to show, in that order, whatever their
  name (`__init__`, an attribute such as `model_config`); `false` or `[]` none; unset or
  `true`: the default selection. Only the root's, as the handler applies it.
- `filters`: regular expressions on member names, `!` to exclude (`["!^_[^_]"]` is the
  handler's default), or `public`; ignored where `members` lists names, as the handler does.
  Where filters choose, a member without a docstring is shown only with
  `show_if_no_docstring: true` (without filters the members stay those shown before);
- `heading_level`: the root object's heading level (2 by default), its members one below.
- `docstring_style`, `docstring_section_style`, `merge_init_into_class`,
  `docstring_options` (docstring_md.options_from).

`show_root_heading` is read but the root heading is always written: it is the heading the
object's API entry and its anchor hang on (the handler's default, false, would leave a module
page without one). A block that is no YAML mapping is left out, as before: the directive is
rendered with the site's options.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass

log = logging.getLogger("docsmcp.sources.formats.source.mkdocstrings_options")

DEFAULT_FILTERS = (("^_[^_]", True),)  # the handler's `["!^_[^_]"]`
MAX_OPTION_LINES = 400  # lines of one directive's options block, at most
_MAX_LEVEL = 6


@dataclass(frozen=True)
class Directive:
    """A `::: identifier` line followed by its indented options block (to line `end`), the
    options it sets (`options`, `selection`, `rendering` merged) and its lines as written."""

    identifier: str
    options: Mapping[str, object]
    end: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Selection:
    """What a directive's options say of the objects shown (see the module docstring)."""

    heading_level: int = 2
    members: tuple[str, ...] | None = None  # None: the default selection; (): none
    filters: tuple[tuple[str, bool], ...] | None = None  # None: apidoc's default rule
    public_only: bool = False  # filters: public
    undocumented: bool = False  # show_if_no_docstring (where filters choose the members)


def block(lines: list[str], start: int) -> tuple[int, Mapping[str, object]] | None:
    """(last line, options) of the indented block under the directive at `start`, or None
    when no indented line follows or the block is no YAML mapping of options."""
    end = start
    for k in range(start + 1, min(len(lines), start + 1 + MAX_OPTION_LINES)):
        line = lines[k]
        if line[:1] in (" ", "\t") and line.strip():
            end = k
        elif line.strip():
            break
    if end == start:
        return None
    text = "\n".join(lines[start + 1 : end + 1])
    import yaml  # (the builder's YAML reader; only for pages with such a block)

    try:
        data = yaml.safe_load(_dedented(text))
    except (yaml.YAMLError, RecursionError, ValueError):
        log.info("mkdocstrings options under line %d: not YAML; the site's options", start + 1)
        return end, {}
    if not isinstance(data, dict):
        return end, {}
    merged: dict[str, object] = {}
    for key in ("selection", "rendering", "options"):  # (mkdocstrings' older keys first)
        value = data.get(key)
        if isinstance(value, dict):
            merged.update({str(k): v for k, v in value.items()})
    return end, merged


def _dedented(text: str) -> str:
    lines = text.split("\n")
    depth = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return "\n".join(x[depth:] for x in lines)


def selection(options: Mapping[str, object]) -> Selection:
    """The Selection of a mapping of the handler's options (a site's merged with a
    directive's)."""
    level = options.get("heading_level", 2)
    level = level if isinstance(level, int) and not isinstance(level, bool) else 2
    raw = options.get("members")
    members: tuple[str, ...] | None = None
    if raw is False:
        members = ()
    elif isinstance(raw, list):
        members = tuple(str(x) for x in raw if isinstance(x, str))
    filters: tuple[tuple[str, bool], ...] | None = None
    public_only = False
    found = options.get("filters")
    if found == "public":
        public_only = True
    elif isinstance(found, list):
        pairs = []
        for item in found:
            if not isinstance(item, str):
                continue
            pattern, exclude = (item[1:], True) if item.startswith("!") else (item, False)
            try:
                re.compile(pattern)
            except re.error:
                log.info("mkdocstrings filter %r is no regular expression; left out", item)
                continue
            pairs.append((pattern, exclude))
        filters = tuple(pairs)
    undocumented = options.get("show_if_no_docstring") is True
    return Selection(min(max(level, 1), _MAX_LEVEL), members, filters, public_only, undocumented)


def keep(name: str, filters: tuple[tuple[str, bool], ...]) -> bool:
    """Whether the handler's `filters` keep member `name`: the last matching rule decides; no
    match keeps it unless every rule includes (mkdocstrings-python's `_keep_object`)."""
    kept: bool | None = None
    rules: set[bool] = set()
    for pattern, exclude in filters:
        rules.add(exclude)
        if re.search(pattern, name):
            kept = not exclude
    if kept is None:
        return rules != {False}
    return kept
