"""Google-style docstrings in Sphinx autodoc read as `sphinx.ext.napoleon` renders them.

Litestar, and most projects whose `conf.py` lists napoleon, write `Args:` / `Returns:` /
`Raises:` sections; without napoleon's rewrite docutils reads `Args:` and the indented lines
under it as one definition, and the API entry got no parameter. Sections are read by
googledoc.py and written in the reST numpydoc.py writes for the same fields, so both styles
reach the registry alike:

- Args, Arguments, Parameters, Keyword Args, Other Parameters: `:param name:` / `:type name:`
  (the entry's parameters, "Parameters:" on the page);
- Returns: `:returns:` / `:rtype:`; Raises: `:raises Error:` fields;
- Attributes: an `.. attribute::` object per item (its `:type:` and text), which the page
  reads as the class's attribute entries (`Class.name`), as napoleon writes them; with
  `napoleon_use_ivar = True`, `:ivar name:` / `:vartype name:` fields;
- Yields, Receives, Warns, Methods: a rubric and a `name (type) – text` list;
- the project's own titles (`napoleon_custom_sections`): a name alone is a rubric over its
  text; `(name, "params_style")` and `(name, "returns_style")` a rubric over a list read as
  parameters or returned values; `(name, "Parameters")` (any title napoleon knows, or another
  custom one) is read as that section, under its own title;
- Examples: a rubric over its text (an "Example" box with `napoleon_use_admonition_for_examples`;
  `>>>` lines are doctest blocks, code); Notes and References likewise
  (`napoleon_use_admonition_for_notes`, `…_for_references`);
- Note, Warning, Tip, Hint, Important, Attention, Caution, Danger, Error, Todo: that box;
  See Also: a "See also" box.

Whether to read them is the project's choice: `conf.py` naming `sphinx.ext.napoleon` (or
`sphinxcontrib.napoleon`) without `napoleon_google_docstring = False`; a docs folder without
a `conf.py` reads them too (the docstrings say what they are).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace
from pathlib import Path

from docsmcp.sources.formats.rst import numpydoc
from docsmcp.sources.formats.source import googledoc

_INDENT = "   "
_SETTING = re.compile(r"^napoleon_(\w+)\s*=\s*(True|False)\b", re.M)
_ENABLED = re.compile(r"""['"](?:sphinx\.ext|sphinxcontrib)\.napoleon['"]""")
MAX_CUSTOM = 100  # custom sections read from conf.py, at most
_BOXES = frozenset(
    "attention caution danger error hint important note tip warning".split()
)  # (docutils' own admonitions)


@dataclass(frozen=True)
class Settings:
    """What conf.py says of Google-style docstrings (napoleon's defaults otherwise)."""

    google: bool = True
    admonition_for_examples: bool = False
    admonition_for_notes: bool = False
    admonition_for_references: bool = False
    # Attributes: "objects" (napoleon's `.. attribute::`), "ivar" (`napoleon_use_ivar`: fields)
    # or "list" (a rubric over a list: pdoc's pages, whose public attributes are members)
    attributes: str = "objects"
    custom: tuple[tuple[str, str], ...] = ()  # lowercased title -> googledoc kind


def settings(docs_dir: Path) -> Settings:
    """The napoleon settings of the project whose `conf.py` is in `docs_dir`."""
    try:
        text = (docs_dir / "conf.py").read_text(encoding="utf-8", errors="replace")[:200_000]
    except OSError:
        return Settings()  # (no conf.py: the docstrings say what they are)
    values = {m.group(1): m.group(2) == "True" for m in _SETTING.finditer(text)}
    return Settings(
        google=bool(_ENABLED.search(text)) and values.get("google_docstring", True),
        admonition_for_examples=values.get("use_admonition_for_examples", False),
        admonition_for_notes=values.get("use_admonition_for_notes", False),
        admonition_for_references=values.get("use_admonition_for_references", False),
        attributes="ivar" if values.get("use_ivar", False) else "objects",
        custom=custom_sections(text),
    )


def custom_sections(conf: str) -> tuple[tuple[str, str], ...]:
    """conf.py's `napoleon_custom_sections` as (lowercased title, googledoc kind) pairs: a
    string is a generic section, `(name, "params_style")` / `(name, "returns_style")` a list
    of that style, `(name, "Other Title")` the kind of that title (napoleon's or an earlier
    custom one; a generic section when neither). Read with `ast`, never run."""
    if "napoleon_custom_sections" not in conf:
        return ()
    try:
        tree = ast.parse(conf)
    except (SyntaxError, ValueError, RecursionError):
        return ()
    value: object = None
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "napoleon_custom_sections"
        ):
            try:
                value = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, RecursionError):
                value = None
    if not isinstance(value, list | tuple):
        return ()
    out: dict[str, str] = {}
    for entry in value[:MAX_CUSTOM]:
        if isinstance(entry, str) and entry.strip():
            out[" ".join(entry.lower().split())] = googledoc.GENERIC
        elif (
            isinstance(entry, list | tuple)
            and len(entry) == 2
            and all(isinstance(x, str) and x.strip() for x in entry)
        ):
            name, style = " ".join(entry[0].lower().split()), entry[1]
            if style in (googledoc.PARAMS_STYLE, googledoc.RETURNS_STYLE):
                out[name] = style
            else:
                key = " ".join(style.lower().split())
                out[name] = out.get(key) or googledoc.kind_of(style) or googledoc.GENERIC
    return tuple(out.items())


def to_rest(lines: list[str], config: Settings, members: frozenset[str] = frozenset()) -> list[str]:
    """The dedented docstring `lines` with its Google-style sections as napoleon's reST; a
    docstring without one is returned as it is. `members`: the names the class defines as
    methods or properties (autodoc describes those; an `Attributes:` item of the same name
    stays in the list, so the class has one entry of the name, the documented one)."""
    custom = dict(config.custom) if config.custom else None
    if not config.google or not googledoc.has_sections(lines, custom=custom):
        return lines
    out: list[str] = []
    for section in googledoc.parse(lines, custom=custom):
        if section.kind == googledoc.TEXT:
            out += section.body
        else:
            out += _section(section, config, members)
        out.append("")
    while out and not out[-1].strip():
        out.pop()
    return out


def _entries(section: googledoc.Section) -> list[tuple[str, str, list[str]]]:
    return [(i.name, i.type, list(i.description)) for i in section.items]


def _section(
    section: googledoc.Section, config: Settings, members: frozenset[str] = frozenset()
) -> list[str]:
    kind, title = section.kind, section.title
    if kind in (googledoc.PARAMS, googledoc.OTHER_PARAMS):
        return numpydoc.param_fields(_entries(section))
    if kind == googledoc.RETURNS:
        return numpydoc.return_fields(_entries(section))
    if kind == googledoc.RAISES:
        return numpydoc.raise_fields(_entries(section))
    if kind == googledoc.ATTRIBUTES and config.attributes != "list":
        objects = [i for i in section.items if i.name not in members]
        listed = [i for i in section.items if i.name in members]
        out = _attributes(replace(section, items=tuple(objects)), config.attributes == "ivar")
        if listed:
            rest = _entries(replace(section, items=tuple(listed)))
            out += ["", f".. rubric:: {title}", "", *numpydoc.listed(rest)]
        return out
    if kind == googledoc.GENERIC:
        return [f".. rubric:: {title}", "", *section.body]
    if section.items or kind not in (googledoc.ADMONITION, googledoc.EXAMPLES):
        return [f".. rubric:: {title}", "", *numpydoc.listed(_entries(section))]
    body = [_INDENT + x if x else "" for x in section.body]
    key = " ".join(title.lower().split())
    boxed = {
        "examples": config.admonition_for_examples,
        "example": config.admonition_for_examples,
        "notes": config.admonition_for_notes,
        "references": config.admonition_for_references,
    }
    if key in boxed:
        if boxed[key]:
            return [f".. admonition:: {title}", "", *body]
        return [f".. rubric:: {title}", "", *section.body]
    if key in ("see also", "seealso"):
        return [".. seealso::", "", *body]
    if key == "warnings":
        return [".. warning::", "", *body]
    if key in _BOXES:
        return [f".. {key}::", "", *body]
    return [f".. admonition:: {title}", "", *body]  # (Todo: napoleon's `.. todo::`)


def _attributes(section: googledoc.Section, use_ivar: bool) -> list[str]:
    """An Attributes section as napoleon writes it: an `.. attribute::` per item (nested in
    the class's description, the page's reader names it `Class.name`), or `:ivar:` fields."""
    out: list[str] = []
    for item in section.items:
        text = list(item.description)
        if use_ivar:
            first, *more = text or [""]
            out.append(f":ivar {item.name}: {first}".rstrip())
            out += [_INDENT + x if x else "" for x in more]
            if item.type:
                out.append(f":vartype {item.name}: {item.type}")
            continue
        out.append(f".. py:attribute:: {item.name}")
        if item.type:
            out.append(f"{_INDENT}:type: {item.type}")
        out.append("")
        out += [_INDENT + x if x else "" for x in text]
        out.append("")
    while out and not out[-1].strip():
        out.pop()
    return out
