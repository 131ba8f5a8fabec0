"""A MyST page's Sphinx API blocks read as the reST reader reads them: ```` ```{eval-rst} ````
blocks (their body is reST) and MyST's own form of Sphinx's domain and autodoc directives
(```` ```{py:function} name(args) ````, ```` ```{autoclass} click.Command ````,
```` ```{currentmodule} click ````), so their objects reach the API registry with the names,
anchors, signatures and fields Sphinx renders (rst.py, rst_objects.py).

- Include time (`expand_autodoc`, inclusion/includes.py): each such block that holds an autodoc
  directive becomes an `eval-rst` block of reST with the directive rendered from the Python
  source (rst/autodoc.py), as on a `.rst` page.
- Convert time (`myst_to_markdown`, convert.py): each block is converted by rst.py and its
  markdown replaces the block; the rest of the page stays as written (myst.py reads it later).

A MyST directive's body is markdown: its roles become reST roles, its code fences
`code-block`s, a nested directive a nested reST directive; option lines (`:noindex:`, a `---`
block of `key: value`) become the directive's options. The current module carries over from
one block to the next, as Sphinx's does over the page. Code fences (and code directives) are
passed over: a directive shown as an example stays an example.
"""

from __future__ import annotations

import dataclasses
import re

from docsmcp.model.source import Converted

OPEN = re.compile(r"^([ ]{0,3})(`{3,}|:{3,})\{([\w:.-]+)\}[ \t]*(.*?)[ \t]*$")
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})[ \t]*([\w+-]*)")
_OPTION = re.compile(r"^[ \t]*:([\w-]+):(?:[ \t]+(.*?))?[ \t]*$")
_YAML_OPTION = re.compile(r"^[ \t]*([\w-]+)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$")
_ROLE = re.compile(r"(?<![^\s(\[\"'])\{([a-z][\w:.+-]*)\}`")
_HEADING = re.compile(r"^[ ]{0,3}#{1,6}[ \t]+(.*?)[ \t#]*$")
_MODULE = re.compile(r"^[ \t]*\.\.[ \t]+(?:py:)?(?:module|currentmodule|automodule)::[ \t]+(\S+)")
_DOMAINS = ("py:", "c:", "cpp:", "js:", "std:", "rst:")
# Sphinx's directives a MyST page may name without a domain (the default domain, Python's, and
# the standard domain's); the others only with their domain (`{c:macro}`), since a site's own
# directive may be called `{setting}` or `{type}`.
_BARE = frozenset(
    "function class method attribute data exception decorator classmethod staticmethod "
    "property module currentmodule program option envvar confval describe".split()
)
_DOMAIN_KINDS = frozenset(
    "function class method attribute data exception decorator classmethod staticmethod "
    "property type option envvar describe object cmdoption confval event setting directive "
    "directive:option role struct union var alias concept enum enumerator macro member module "
    "currentmodule program namespace namespace-push namespace-pop".split()
)
_INDENT = "   "
MAX_DEPTH = 8  # nested directives read; deeper ones stay text


def is_api(kind: str) -> bool:
    """Whether MyST directive `kind` is one the reST reader reads (eval-rst, domain, autodoc)."""
    kind = kind.lower()
    if kind == "eval-rst" or kind in _BARE:
        return True
    if kind.startswith(("auto", "py:auto")):
        return kind.removeprefix("py:")[4:] in _AUTO
    domain, _, name = kind.partition(":")
    return bool(name) and f"{domain}:" in _DOMAINS and name in _DOMAIN_KINDS


_AUTO = frozenset(
    "function class method attribute data exception decorator property module".split()
)


def may_hold(text: str) -> bool:
    """Whether `text` may hold a block read here (a cheap test)."""
    return "```{" in text or ":::{" in text


def has_autodoc(text: str) -> bool:
    return "{auto" in text or ("{eval-rst}" in text and ".. auto" in text)


def _closes(line: str, marker: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and set(stripped) == {marker[0]} and len(stripped) >= len(marker)


def _roles(line: str) -> str:
    return _ROLE.sub(lambda m: f":{m.group(1)}:`", line) if "}`" in line else line


def _directive(lines: list[str], i: int, depth: int) -> tuple[list[str], list[int], int] | None:
    """The reST lines (and each one's page line) of the MyST directive opened at line `i`,
    and the line after its closing fence; None when it is not closed."""
    m = OPEN.match(lines[i])
    if m is None:
        return None
    marker, kind, argument = m.group(2), m.group(3).lower(), m.group(4)
    j = i + 1
    if kind == "eval-rst":
        out: list[str] = []
        while j < len(lines) and not _closes(lines[j], marker):
            out.append(lines[j])
            j += 1
        return (out, list(range(i + 1, j)), j + 1) if j < len(lines) else None
    out = [f".. {kind}::{' ' + argument if argument else ''}"]
    origin = [i]
    # Options: `:key: value` lines, or a `---` block of `key: value` lines.
    if j < len(lines) and lines[j].strip() == "---":
        k = j + 1
        while k < len(lines) and lines[k].strip() != "---" and not _closes(lines[k], marker):
            if o := _YAML_OPTION.match(lines[k]):
                out.append(f"{_INDENT}:{o.group(1)}: {o.group(2) or ''}".rstrip())
                origin.append(k)
            k += 1
        j = k + 1 if k < len(lines) and lines[k].strip() == "---" else j
    while j < len(lines) and (o := _OPTION.match(lines[j])):
        out.append(f"{_INDENT}:{o.group(1)}: {o.group(2) or ''}".rstrip())
        origin.append(j)
        j += 1
    out.append("")
    origin.append(i)
    while j < len(lines) and not _closes(lines[j], marker):
        line = lines[j]
        inner = OPEN.match(line) if depth < MAX_DEPTH else None
        if inner is not None:
            got = _directive(lines, j, depth + 1)
            if got is None:
                return None
            out += [_INDENT + x if x else x for x in got[0]] + [""]
            origin += got[1] + [got[2] - 1]
            j = got[2]
            continue
        f = _FENCE.match(line)
        if f is not None:  # a code fence: a code-block of its language
            out += [f"{_INDENT}.. code-block:: {f.group(2) or 'text'}", ""]
            origin += [j, j]
            k = j + 1
            while k < len(lines) and not _closes(lines[k], f.group(1)):
                out.append(_INDENT * 2 + lines[k] if lines[k].strip() else "")
                origin.append(k)
                k += 1
            out.append("")
            origin.append(min(k, len(lines) - 1))
            j = k + 1
            continue
        out.append(_INDENT + _roles(line) if line.strip() else "")
        origin.append(j)
        j += 1
    return (out, origin, j + 1) if j < len(lines) else None


def _is_code(kind: str) -> bool:
    from docsmcp.sources.formats.markdown.myst import is_code_kind

    return is_code_kind(kind)


def blocks(lines: list[str]) -> list[tuple[int, int, list[str], list[int]]]:
    """The page's API blocks: (first line, line after it, its reST lines, their page lines)."""
    found: list[tuple[int, int, list[str], list[int]]] = []
    fence: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if fence is not None:
            fence = None if _closes(line, fence) else fence
            i += 1
            continue
        m = OPEN.match(line)
        if m is not None and is_api(m.group(3)):
            got = _directive(lines, i, 0)
            if got is not None:
                found.append((i, got[2], got[0], got[1]))
                i = got[2]
                continue
        if m is not None and _is_code(m.group(3).lower()):
            fence = m.group(2)
        elif m is None and (f := _FENCE.match(line)):
            fence = f.group(1)
        i += 1
    return found


def _module_after(rst: list[str], module: str) -> str:
    for line in rst:
        if m := _MODULE.match(line):
            module = "" if m.group(1) == "None" else m.group(1)
    return module


def _scoped(rst: list[str], origin: list[int], module: str) -> tuple[list[str], list[int]]:
    """The block's lines after a `currentmodule` line naming the page's current module."""
    if not module or not origin:
        return rst, origin
    return [f".. currentmodule:: {module}", "", *rst], [origin[0], origin[0], *origin]


def expand_autodoc(lines: list[str], sources, missing: list[str]) -> tuple[list[str], list[int]]:
    """The page's lines with each API block holding autodoc directives as an `eval-rst` block
    of reST, rendered from the source (autodoc.py); each line's line of `lines`."""
    from docsmcp.sources.formats.rst import autodoc

    out: list[str] = []
    line_map: list[int] = []
    done = 0
    module = ""
    for start, end, rst, origin in blocks(lines):
        before = module
        module = _module_after(rst, module)
        if not any(autodoc.DIRECTIVE.match(x) for x in rst):
            continue
        out += lines[done:start]
        line_map += range(done, start)
        rst, origin = _scoped(rst, origin, before)
        expanded, inner = autodoc.expand(rst, sources, missing)
        out += ["```{eval-rst}", *expanded, "```"]
        line_map += [start, *(origin[k] for k in inner), end - 1]
        done = end
    out += lines[done:]
    line_map += range(done, len(lines))
    return out, line_map


def myst_to_markdown(path: str, text: str) -> Converted | None:
    """The page's markdown with its API blocks converted by the reST reader and their objects
    (None when it has none)."""
    from docsmcp.sources.formats.rst.rst import rst_to_markdown

    lines = text.split("\n")
    found = blocks(lines)
    if not found:
        return None
    out: list[str] = []
    line_map: list[int] = []
    anchors: list[tuple[int, str]] = []
    refs: list[tuple[int, str]] = []
    api = []
    done = 0
    module = ""
    heading = ""
    for start, end, rst, origin in found:
        for k in range(done, start):
            if h := _HEADING.match(lines[k]):
                heading = h.group(1)
        out += lines[done:start]
        line_map += range(done, start)
        rst, origin = _scoped(rst, origin, module)
        module = _module_after(rst, module)
        conv = rst_to_markdown(path, "\n".join(rst))
        base = len(out)
        body = conv.text.removesuffix("\n").split("\n") if conv.text else [""]
        top = len(origin) - 1
        page_lines = [origin[min(x, top)] if origin else start for x in conv.line_map]
        page_lines += [start] * (len(body) - len(page_lines))
        out += body
        line_map += page_lines[: len(body)]
        anchors += [(base + line, a) for line, a in conv.anchors]
        refs += [(base + line, r) for line, r in conv.refs]
        api += [
            dataclasses.replace(
                e,
                line_start=e.line_start + base,
                line_end=e.line_end + base,
                category=e.category or heading,
            )
            for e in conv.api
        ]
        done = end
    out += lines[done:]
    line_map += range(done, len(lines))
    # (a reader writing out of order: lines never step back, as linemap.monotone says)
    for k in range(1, len(line_map)):
        line_map[k] = max(line_map[k], line_map[k - 1])
    return Converted("\n".join(out), None, tuple(anchors), tuple(line_map), tuple(api), tuple(refs))
