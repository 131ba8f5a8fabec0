"""Sphinx autodoc directives (`.. autofunction:: attrs.define`, `.. autoclass:: Flask`,
`.. automodule:: requests :members:`) rendered from the Python source with `ast`, as reST.

A Sphinx project's API pages are mostly these directives: the reference text lives in the
docstrings, and the page source holds one line per object (attrs: 59 of them, Flask's and
requests' `api.rst` alike). They read as the reST Sphinx itself generates: a Python domain
description (`.. py:function:: define(maybe_cls=None, *, these=None, ...)`) holding the
docstring, which rst.py then converts and rst_objects.py registers in the API registry like
any hand-written `.. py:function::`. The source is found as for mkdocstrings (apidoc.py: the
source roots, `src/` layouts, re-exports followed), never imported.

- A name is qualified by the page's `.. module::` / `.. currentmodule::` (and, for a member,
  by the class an enclosing `autoclass` documents: `.. automethod:: open` under
  `.. autoclass:: Flask`).
- `:members:` (empty: the public members with a docstring, all of them with
  `:undoc-members:`; else the members it lists) documents a class's methods or a module's
  functions and classes; without it an `autoclass` is the class alone, as Sphinx's default
  (an `automodule` is its docstring alone, unless the project's `conf.py` makes `members` an
  `autodoc_default_options`; it sets the current module for the directives after it).
- The directive's own content follows the docstring, as in Sphinx.
- An object whose source is in no source root is left as written (rst_directives.py shows it
  as a stub) and counted for the build's warning (includes.Unresolved).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from docsmcp.sources.formats.rst import napoleon, numpydoc
from docsmcp.sources.formats.source.apidoc import (
    Sources,
    all_names,
    decorated,
    defs,
    docstring_lines,
    signature,
)

DIRECTIVE = re.compile(
    r"^([ \t]*)\.\.[ \t]+(?:py:)?auto(function|decorator|class|exception|method|attribute"
    r"|property|data|module)::[ \t]+(\S.*?)[ \t]*$"
)
MODULE = re.compile(r"^[ \t]*\.\.[ \t]+(?:py:)?(?:module|currentmodule)::[ \t]+(\S+)[ \t]*$")
_OPTION = re.compile(r"^([ \t]+):([\w-]+):(?:[ \t]+(.*?))?[ \t]*$")
INDENT = "   "


@dataclass(frozen=True)
class Directive:
    """One autodoc directive: `kind` (`function`, `class`, ...), its target as written, its
    options and the lines of its own content (dedented)."""

    indent: str
    kind: str
    target: str
    options: dict[str, str]
    content: list[str]
    end: int  # the line after the directive


def parse(lines: list[str], i: int) -> Directive | None:
    """The autodoc directive starting at line `i`, else None."""
    m = DIRECTIVE.match(lines[i])
    if m is None:
        return None
    indent = m.group(1)
    width = len(indent.expandtabs())
    options: dict[str, str] = {}
    end = i + 1
    while end < len(lines) and (o := _OPTION.match(lines[end])):
        if len(o.group(1).expandtabs()) <= width:
            break
        options[o.group(2)] = o.group(3) or ""
        end += 1
    content: list[str] = []
    while end < len(lines) and (
        not lines[end].strip() or len(lines[end].expandtabs()) - len(lines[end].lstrip()) > width
    ):
        content.append(lines[end])
        end += 1
    while content and not content[-1].strip():  # blank lines after it belong to the page
        content.pop()
        end -= 1
    depth = min((len(x) - len(x.lstrip()) for x in content if x.strip()), default=0)
    return Directive(indent, m.group(2), m.group(3), options, [x[depth:] for x in content], end)


def expand(
    lines: list[str], sources: Sources, missing: list[str], klass: str = "", module: str = ""
) -> tuple[list[str], list[int]]:
    """`lines` of a reST page with its autodoc directives rendered, each line's line of
    `lines` (a rendered line: its directive's), the directives whose source was not found
    appended to `missing` (as written). `klass`: the class an enclosing autoclass documents."""
    out: list[str] = []
    line_map: list[int] = []
    i = 0
    while i < len(lines):
        if m := MODULE.match(lines[i]):
            module = "" if m.group(1) == "None" else m.group(1)
        d = parse(lines, i) if "auto" in lines[i] else None
        if d is None:
            out.append(lines[i])
            line_map.append(i)
            i += 1
            continue
        inner = d.target.split("(", 1)[0].strip() if d.kind in ("class", "exception") else klass
        content, _ = expand(d.content, sources, missing, inner.rsplit(".", 1)[-1], module)
        rendered = render(Directive(d.indent, d.kind, d.target, d.options, content, d.end),
                          module, klass, sources)  # fmt: skip
        if rendered is None:
            missing.append(f".. auto{d.kind}:: {d.target.split('(', 1)[0].strip()}")
            rendered = lines[i : d.end]
        out.extend(rendered)
        line_map.extend([i] * len(rendered))
        if d.kind == "module":  # (Sphinx's automodule sets the current module, as `module::`)
            module = d.target.split("(", 1)[0].strip()
        i = d.end
    return out, line_map


def render(d: Directive, module: str, klass: str, sources: Sources) -> list[str] | None:
    """The reST lines standing for directive `d` (names qualified by the current `module` and
    the class `klass` an enclosing autoclass documents), or None when its source is not found."""
    target = d.target.split("(", 1)[0].strip()  # `autofunction:: f(a, b)`: a signature given
    found = None
    for prefix in _prefixes(d.kind, target, module, klass):
        found = sources.find(prefix + target)
        if found is not None:
            break
    if found is None and d.kind in ("data", "attribute") and (module or "." in target):
        # An assignment (`NOTHING = ...`), no definition the source shows: its name and the
        # directive's own content, where the module is found.
        holder = target.rpartition(".")[0] if "." in target else module
        if sources.find(holder) is None:
            return None
        out = [f".. py:{d.kind}:: {target}"]
        if d.content:
            out += ["", *(INDENT + x if x else x for x in d.content)]
        return [d.indent + x if x else x for x in out]
    if found is None:
        return None
    _, node = found
    if d.kind == "module":
        if not isinstance(node, ast.Module):
            return None
        out = [f".. py:module:: {target}", ""]
        body = numpydoc.to_rest(docstring_lines(node), known_only=True)  # (its own headings)
        out += napoleon.to_rest(body, google_settings(sources))
        # Members with `:members:` (or the project's `autodoc_default_options`), as Sphinx:
        # Werkzeug's exceptions page got every class twice; NumPy's `:no-members:` pages, every
        # function under the docstring's last heading.
        listed = "members" in d.options or default_members(sources)
        google = google_settings(sources)
        special = special_members(sources, d.options)
        for member in (
            _members(node, d.options, True) if listed and "no-members" not in d.options else []
        ):
            out += ["", *describe(member, "", method=False, google=google)]
            # A class's own documented members too, as Sphinx documents a module's members
            # with all of theirs (`generate(all_members=True)`), special ones as the options
            # say (Litestar's `automodule:: litestar.app` showed `Litestar` without its
            # methods and the `__init__` whose `Args:` hold its parameters).
            if isinstance(member, ast.ClassDef):
                inner_options = {k: v for k, v in d.options.items() if k != "members"}
                for inner in _members(member, inner_options, module=False, special=special):
                    described = describe(inner, "", method=True, google=google)
                    out += ["", *(INDENT + x if x else x for x in described)]
    else:
        in_class = d.kind in ("method", "attribute", "property")
        name = target.rsplit(".", 1)[-1] if in_class else target
        google = google_settings(sources)
        out = describe(node, name, d.kind in ("method", "property"), d.kind, google)
        if isinstance(node, ast.ClassDef) and "members" in d.options:
            special = special_members(sources, d.options)
            for member in _members(node, d.options, module=False, special=special):
                described = describe(member, "", method=True, google=google)
                out += ["", *(INDENT + x if x else x for x in described)]
    if d.content:
        out += ["", *(INDENT + x if x else x for x in d.content)]
    return [d.indent + x if x else x for x in out]


_DEFAULT_MEMBERS = re.compile(
    r"autodoc_default_(?:options|flags)\s*=\s*[{\[][^}\]]*['\"]members['\"]"
)


def default_members(sources: Sources) -> bool:
    """Whether the project's `conf.py` (in the docs folder) makes `:members:` the default."""
    if sources.default_members is None:
        try:
            text = (sources.docs_dir / "conf.py").read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        sources.default_members = _DEFAULT_MEMBERS.search(text[:200_000]) is not None
    return sources.default_members


_SPECIAL_MEMBERS = re.compile(
    r"autodoc_default_options\s*=\s*\{[^}]*['\"]special-members['\"]\s*:\s*(?:['\"]([^'\"]*)['\"]|True)"
)


def special_members(sources: Sources, options: dict[str, str]) -> frozenset[str] | None:
    """The special members (`__init__`) to document: the directive's `:special-members:`, else
    the project's `autodoc_default_options` (an empty set: all of them); None: none."""
    if "special-members" in options:
        return frozenset(x.strip() for x in options["special-members"].split(",") if x.strip())
    if sources.special_members is None:  # (read once: a 1-tuple, its value None for none)
        try:
            text = (sources.docs_dir / "conf.py").read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        m = _SPECIAL_MEMBERS.search(text[:200_000])
        names = (m.group(1) or "").split(",") if m else []
        sources.special_members = (frozenset(x.strip() for x in names if x.strip()) if m else None,)
    return sources.special_members[0]


def _prefixes(kind: str, target: str, module: str, klass: str) -> list[str]:
    """Where `target` may be: as written, in the current class (a member), in the module."""
    out = [""]
    if kind in ("method", "attribute", "property") and klass and "." not in target:
        out.insert(0, f"{klass}.")
    if module and not target.startswith(module + "."):
        out.append(f"{module}.")
        if klass and kind in ("method", "attribute", "property"):
            out.insert(0, f"{module}.{klass}.")
    return out


def _members(
    node: ast.ClassDef | ast.Module,
    options: dict[str, str],
    module: bool,
    special: frozenset[str] | None = None,
) -> list:
    listed = [m.strip() for m in options.get("members", "").split(",") if m.strip()]
    found = defs(node)
    if listed:
        by_name = {d.name: d for d in found}
        return [by_name[n] for n in listed if n in by_name]
    if module and (names := all_names(node)) is not None:
        return [d for d in found if d.name in names]
    keep = "undoc-members" in options
    return [
        d
        for d in found
        if (keep or ast.get_docstring(d))
        and (not d.name.startswith("_") or _is_special(d.name, special))
    ]


def _is_special(name: str, special: frozenset[str] | None) -> bool:
    """Whether `name` is a special member (`__init__`) that `special` asks for."""
    dunder = len(name) > 4 and name.startswith("__") and name.endswith("__")
    return dunder and special is not None and (not special or name in special)


def google_settings(sources: Sources) -> napoleon.Settings:
    """The project's napoleon settings (its `conf.py`), read once."""
    if sources.napoleon is None:
        sources.napoleon = napoleon.settings(sources.docs_dir)
    return sources.napoleon


def describe(
    node: ast.AST,
    name: str,
    method: bool,
    kind: str = "",
    google: napoleon.Settings | None = None,
) -> list[str]:
    """`.. py:KIND:: name(signature)` and the docstring (its NumPy- and Google-style sections
    as numpydoc and napoleon render them, the latter as `google` says), indented under it."""
    if isinstance(node, ast.ClassDef):
        kind = kind if kind in ("class", "exception") else "class"
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        # (`@property`, `@cached_property`: Sphinx shows `property data: bytes`, and Werkzeug's
        # `data() -> bytes` told an agent to call it)
        property_ = method and decorated(node, "property", "cached_property")
        kind = kind or ("property" if property_ else "")
        kind = kind or ("method" if method else "function")
    else:
        return []
    title = name or node.name
    line = f".. py:{kind}:: {title}"
    # numpydoc's signature line and sections, as Sphinx renders them (numpydoc.py)
    written, body = numpydoc.split_signature(docstring_lines(node), node.name)
    body = numpydoc.to_rest(body)
    if google is not None:  # (a class's own methods and properties: napoleon.to_rest)
        defined = frozenset(d.name for d in defs(node)) if isinstance(node, ast.ClassDef) else None
        body = napoleon.to_rest(body, google, defined or frozenset())
    if kind not in ("attribute", "property", "data"):
        code = signature(node, drop_self=method or isinstance(node, ast.ClassDef))
        # (the code's return annotation stays: Scrapy's `join()` line over `-> Generator`)
        returned = code[code.rindex(")") + 1 :] if written and ")" in code else ""
        line += written + (returned if "->" not in written else "") if written else code
    typed = []
    if kind == "property" and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        typed = [f"{INDENT}:type: {ast.unparse(node.returns)}"] if node.returns else []
    return [line, *typed, "", *(INDENT + x if x else x for x in body)]
