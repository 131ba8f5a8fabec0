"""The pages Sphinx's autosummary generates: one per object an `.. autosummary::` with
`:toctree:` names, rendered from the Python source as autodoc would (formats/rst/autodoc.py).

NumPy's reference is 238 autosummary tables (`routines.linalg.rst`: `.. autosummary::
:toctree: generated/` over `linalg.svd`, `einsum`, ...); Sphinx writes `generated/numpy.einsum.rst`
for each name (`.. autofunction:: numpy.einsum`) and the docstring is the whole reference. Read as
the page alone, the table was a list of names: "np.einsum" found three release notes and
`get_api_reference("numpy.einsum")` nothing. Here each name whose source the source roots hold
(`--api-source`) becomes that page, `FOLDER/FULLNAME.rst` beside the page naming it, titled by
its full name, its text the `py:` description autodoc renders (an API entry like any other).
Names qualify as Sphinx's autosummary does: by the page's `.. currentmodule::` first, else as
written. Objects in no source root (NumPy's C functions, `ndarray` methods) get no page, as
before; a name listed in several tables gets one page (the first).
"""

from __future__ import annotations

import ast
import dataclasses
import posixpath
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.model.source import SourceFile
from docsmcp.sources.formats.rst import autodoc
from docsmcp.sources.formats.rst.autodoc import INDENT
from docsmcp.sources.formats.rst.rst_objects import CATEGORY_OPTION
from docsmcp.sources.formats.rst.rst_suffixes import is_rst
from docsmcp.sources.formats.source import apidoc

_AUTOSUMMARY = re.compile(r"^([ \t]*)\.\.[ \t]+autosummary::[ \t]*$")
_OPTION = re.compile(r"^[ \t]+:([\w-]+):(?:[ \t]+(.*?))?[ \t]*$")
_NAME = re.compile(r"^~?([A-Za-z_][\w.]*)")
_UNDERLINES = frozenset("=-~^\"'`#*+_.:<>")
# The key of a table name's generated page in the listing page's link titles.
LINK = "autosummary"
# Pages generated at most (NumPy: 1,150 of its 1,900 names have Python source).
MAX_PAGES = 20_000


@dataclass(frozen=True)
class Stub:
    """A page autosummary generates: its path, title (the full name) and reST text."""

    path: str
    title: str
    text: str


@dataclass(frozen=True)
class _Listed:
    page: str  # the page whose table names it
    folder: str  # the `:toctree:` folder, relative to the docs folder
    module: str  # the page's current module where the table stands
    name: str  # as written, without `~`
    section: str = ""  # the title of the section holding the table (the entry's category)


@dataclass(frozen=True)
class Generated:
    """The generated pages, and (listing page, name as written, page) for each table entry
    that has one: the table's names link to them, as on Sphinx's site."""

    stubs: list[Stub]
    links: list[tuple[str, str, str]]


def stubs(files: Sequence[SourceFile], docs_dir: Path, roots: Sequence[Path]) -> Generated:
    """The pages autosummary generates for the reST `files`, for names whose source is found;
    none where no page has an autosummary table with `:toctree:` (nothing is read then)."""
    listed = [x for f in files if is_rst(f.path) for x in _tables(f.path, f.body)]
    if not listed:
        return Generated([], [])
    sources = apidoc.Sources(docs_dir, roots)
    taken = {f.path for f in files}
    out: list[Stub] = []
    made: set[str] = set()
    links: list[tuple[str, str, str]] = []
    for item in listed:
        found = _resolve(item, sources)
        if found is None:
            continue
        full, kind, module = found
        path = posixpath.normpath(posixpath.join(item.folder, full + ".rst"))
        if path in made:
            links.append((item.page, item.name, path))
        if path in taken or path.startswith("../"):
            continue
        # As NumPy's template: the object's module current, the object named in it, so its
        # entry is `numpy.linalg.svd` (a method: `numpy.ma.MaskedArray.all`).
        target = full[len(module) + 1 :] if kind != "module" else full
        page = [full, "=" * len(full), "", f".. currentmodule:: {module}", ""]
        page += [f".. auto{kind}:: {target}"]
        lines, _ = autodoc.expand(page, sources, missing := [])
        if missing:
            continue
        at = next((k for k, x in enumerate(lines) if x.startswith(".. py:")), None)
        if item.section and at is not None:  # (its category: the table's section, not its page)
            lines.insert(at + 1, f"{INDENT}:{CATEGORY_OPTION}: {item.section}")
        if kind == "method":  # (autodoc names a method by its own name, in its class)
            short = target.rpartition(".")[2]
            lines = [
                x.replace(f".. py:method:: {short}", f".. py:method:: {target}", 1) for x in lines
            ]
        taken.add(path)
        made.add(path)
        links.append((item.page, item.name, path))
        out.append(Stub(path, full, "\n".join(lines) + "\n"))
        if len(out) >= MAX_PAGES:
            break
    return Generated(out, links)


def with_links(
    files: Sequence[SourceFile], links: Sequence[tuple[str, str, str]]
) -> list[SourceFile]:
    """`files` with each listing page's links to its generated pages in its link titles
    (`autosummary:NAME` -> the page, relative to it), which the table reads
    (rst_directives._Autosummary)."""
    by_page: dict[str, dict[str, str]] = {}
    for page, name, path in links:
        href = posixpath.relpath(path, posixpath.dirname(page) or ".")
        by_page.setdefault(page, {}).setdefault(f"{LINK}:{name}", href)
    if not by_page:
        return list(files)
    out = []
    for sf in files:
        if (found := by_page.get(sf.path)) is not None:
            sf = dataclasses.replace(sf, link_titles=tuple((dict(sf.link_titles) | found).items()))
        out.append(sf)
    return out


def _tables(path: str, body: str) -> Iterator[_Listed]:
    """The names of `body`'s autosummary tables that have a `:toctree:` option."""
    if "autosummary::" not in body:
        return
    lines = body.split("\n")
    folder_of_page = posixpath.dirname(path)
    module = section = ""
    i = 0
    while i < len(lines):
        if m := autodoc.MODULE.match(lines[i]):
            module = "" if m.group(1) == "None" else m.group(1)
        if i + 1 < len(lines) and _is_heading(lines[i], lines[i + 1]):
            section = lines[i].strip()
        m = _AUTOSUMMARY.match(lines[i])
        i += 1
        if m is None:
            continue
        width = len(m.group(1).expandtabs())
        options: dict[str, str] = {}
        while i < len(lines) and (o := _OPTION.match(lines[i])):
            options[o.group(1)] = o.group(2) or ""
            i += 1
        names: list[str] = []
        while i < len(lines) and (
            not lines[i].strip() or len(lines[i].expandtabs()) - len(lines[i].lstrip()) > width
        ):
            if n := _NAME.match(lines[i].strip()):
                names.append(n.group(1))  # (Sphinx: the first word; NumPy's "x (Array API)")
            i += 1
        if "toctree" not in options:
            continue
        folder = posixpath.normpath(posixpath.join(folder_of_page, options["toctree"].strip()))
        for name in names:
            yield _Listed(path, "" if folder == "." else folder, module, name, section)


def _is_heading(text: str, under: str) -> bool:
    """Whether `text` over `under` is a reST section title: text at the margin, underlined by
    one punctuation character repeated at least as long."""
    under = under.rstrip()
    return (
        bool(text.strip())
        and not text[:1].isspace()
        and len(under) >= max(len(text.rstrip()), 3)
        and under[0] in _UNDERLINES
        and under == under[0] * len(under)
    )


def _resolve(item: _Listed, sources: apidoc.Sources) -> tuple[str, str, str] | None:
    """(full name, autodoc kind, module) of a listed name, qualified as Sphinx's autosummary
    does: in the current module first, else as written."""
    candidates = [f"{item.module}.{item.name}"] if item.module else []
    candidates.append(item.name)
    for full in candidates:
        found = sources.find(full)
        if found is None:
            continue
        _, node = found
        parent = full.rpartition(".")[0]
        if isinstance(node, ast.Module):
            return full, "module", full
        if isinstance(node, ast.ClassDef):
            return full, "class", parent
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        holder = sources.find(parent) if parent else None
        if holder is not None and isinstance(holder[1], ast.ClassDef):
            return full, "method", parent.rpartition(".")[0]
        return full, "function", parent
    return None
