"""A page with its includes resolved (`Expanded`, includes.expand's result), and what a build's
includes could not read, said once for the whole build (one summary line per kind) instead of
once per page: files missing, files outside the source roots (naming the `--source-root` that
reads them), mkdocstrings/autodoc objects without source (naming the `--api-source`), and which
MDX partials each page inlined (corpus._with_partials).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from docsmcp.common.limits import MAX_FILE_BYTES
from docsmcp.sources.formats.source import apidoc

log = logging.getLogger("docsmcp.sources.inclusion.includes")

# How type_tables.py says a file it needed was outside the source roots (counted here).
OUTSIDE = "is outside the source roots"


@dataclass(frozen=True)
class Expanded:
    body: str
    line_map: tuple[int, ...]  # new line -> original line (0-based); () when nothing changed
    warning: str | None  # one line about what could not be included (other than below)
    # Included files that were not found (as written), and those found outside the source roots
    # (as written, real path): said once for the whole build (Unresolved), not once per page.
    missing: tuple[str, ...] = ()
    outside: tuple[tuple[str, str], ...] = ()
    api_missing: tuple[str, ...] = ()  # mkdocstrings objects whose source was not found
    partials: tuple[str, ...] = ()  # MDX partials inlined (mdx_partials.py), docs_dir-relative
    types_missing: tuple[str, ...] = ()  # why `<auto-type-table>` tags showed no table


class Failures:
    """What one page's includes could not read: files that exist and cannot be read (said for
    the page), files missing and files outside the source roots (said for the build)."""

    def __init__(self) -> None:
        self.count = 0
        self.first = ""
        self.missing: list[str] = []
        self.outside: list[tuple[str, str]] = []

    def add(self, what: str) -> None:
        self.count += 1
        self.first = self.first or what


def finished(
    path: str,
    body: str,
    lines: list[str],
    out: list[str],
    line_map: list[int],
    failures: Failures,
    size: int,
    api_missing: Sequence[str],
    partials: Sequence[str],
    types_missing: Sequence[str],
) -> Expanded:
    """The Expanded page of lines `out` (and their page lines: `body` is the page, `lines` its
    lines; `size` the bytes read), with what failed."""
    if size > MAX_FILE_BYTES:
        return Expanded(
            body,
            (),
            f"{path}: includes make the page over {MAX_FILE_BYTES:,} bytes; "
            "they were left unresolved",
        )
    warnings = []
    if failures.count:
        more = f" ({failures.count} includes left as written)" if failures.count > 1 else ""
        warnings.append(f"{path}: include not resolved: {failures.first}{more}")
    missing, outside = tuple(failures.missing), tuple(failures.outside)
    api, types = tuple(api_missing), tuple(types_missing)
    warning = "\n".join(warnings) or None
    if out == lines:
        return Expanded(body, (), warning, missing, outside, api, (), types)
    joined = "\n".join(out)
    return Expanded(joined, tuple(line_map), warning, missing, outside, api, tuple(partials), types)


def julia_package(docs_dir: Path) -> Path | None:
    """The Julia package a Documenter docs folder documents: the folder above it (`docs/src`
    is two levels down) holding `Project.toml` and `src/*.jl`."""
    here = Path(docs_dir).resolve()
    folders = [here.parent, here.parent.parent]
    make = here.parent / "make.jl"  # (init's overlay links the entries beside the docs folder)
    if make.is_symlink():
        folders.append(make.resolve().parent.parent)
    for folder in folders:
        if (folder / "Project.toml").is_file() and any((folder / "src").glob("*.jl")):
            return folder
    return None


@dataclass
class _Tally:
    """One kind of unresolved include over a build: the first one of each page, and how many."""

    first: dict[str, str] = field(default_factory=dict)  # page -> its first one
    count: int = 0

    def add(self, page: str, items: Sequence[str]) -> None:
        if items:
            self.first.setdefault(page, items[0])
            self.count += len(items)

    def example(self) -> tuple[str, str]:
        """(page, its first one) of the first page."""
        return next(iter(self.first.items()))

    def pages(self) -> str:
        n = len(self.first)
        return f"{n} page" if n == 1 else f"{n} pages"


class Unresolved:
    """The includes of a whole build that are missing or outside the source roots: one summary
    line each (FastAPI's `{* ../../docs_src/… *}` from a docs folder built alone gave 113
    warning lines, one per page, and no hint at the fix)."""

    def __init__(self, docs_dir: Path | None = None, roots: Sequence[Path] = ()) -> None:
        self.docs_dir = docs_dir  # where to look for a package to name (apidoc.package_folder)
        self.roots = roots  # the source roots (is the package in them already?)
        self.missing = _Tally()
        self.outside = _Tally()
        self.outside_paths: list[str] = []  # their real paths (the folder to name)
        self.api = _Tally()  # mkdocstrings objects without source
        self.julia = _Tally()  # symbols of Documenter's `@docs`/`@autodocs` without docstring
        self.types = _Tally()  # Fumadocs' `<auto-type-table>` tags whose type was not read
        self.types_outside = _Tally()  # those whose file is outside the source roots
        # MDX partials inlined (not missing ones) -> the pages that inlined them.
        self.partials: dict[str, set[str]] = {}
        self.importers: set[str] = set()  # the pages that inlined one

    def add(self, page: str, expanded: Expanded) -> None:
        for partial in expanded.partials:
            self.partials.setdefault(partial, set()).add(page)
            self.importers.add(page)
        self.missing.add(page, expanded.missing)
        self.outside.add(page, [spec for spec, _ in expanded.outside])
        self.outside_paths.extend(real for _, real in expanded.outside)
        self.api.add(page, [x for x in expanded.api_missing if not x.startswith("@")])
        self.julia.add(page, [x for x in expanded.api_missing if x.startswith("@")])
        self.types.add(page, expanded.types_missing)
        self.types_outside.add(page, [x for x in expanded.types_missing if OUTSIDE in x])

    def _held(self, names: Sequence[str]) -> str | None:
        """The top-level package of `names` when the source roots beyond the docs hold it."""
        if self.docs_dir is None or len(self.roots) < 2:
            return None
        sources = apidoc.Sources(self.docs_dir, self.roots)
        # (a name relative to the page's module, `ndarray.sum`, names no package)
        tops = dict.fromkeys(n.split(".")[0].split("(")[0] for n in names if n[:1].isalpha())
        held = [top for top in tops if sources.module(top) is not None]
        return held[0] if len(held) == 1 else None

    def lines(self) -> list[str]:
        out = []
        if self.outside.count:
            page, first = self.outside.example()
            folder = os.path.commonpath([os.path.dirname(p) for p in self.outside_paths])
            out.append(
                f"{self.outside.count} includes in {self.outside.pages()} read files "
                f"outside the source roots (first: {first}, from {page}); add --source-root "
                f"{folder} to include them"
            )
        if self.missing.count:
            page, first = self.missing.example()
            out.append(
                f"{self.missing.count} includes in {self.missing.pages()} name files that "
                f"do not exist (first: {first}, from {page}); they are left as written (a "
                "folder beside the docs? copy it along, or name it with --source-root)"
            )
        if self.api.count:
            page, first = self.api.example()
            names = [x.rpartition(" ")[2] for x in self.api.first.values()]
            if (held := self._held(names)) is not None:
                # (NumPy's `numpy.generic`, `ndarray.sum`: C code, with --api-source given)
                out.append(
                    f"{self.api.pages()} generated by autodoc or mkdocstrings name "
                    f"{self.api.count} Python objects that the package {held} in the source "
                    f"roots does not define in Python (first: {first}, from {page}): written "
                    "in C or made at run time, they show their name only"
                )
                names = []
            found = apidoc.package_folder(self.docs_dir, names) if self.docs_dir else None
            folder = (
                f"--api-source {found}" if found else "the package's folder with --api-source DIR"
            )
            if names:
                out.append(
                    f"{self.api.pages()} generated by mkdocstrings or autodoc document "
                    f"{self.api.count} Python objects whose source is in no source root (first: "
                    f"{first}, from {page}); give {folder}"
                )
        if self.julia.count:
            page, first = self.julia.example()
            found = julia_package(self.docs_dir) if self.docs_dir else None
            folder = (
                f"--api-source {found} (another package's symbols: its folder)"
                if found
                else "--api-source with the package's folder"
            )
            out.append(
                f"{self.julia.pages()} of Documenter blocks (@docs, @autodocs) name "
                f"{self.julia.count} Julia symbols whose docstrings were not found in the source "
                f"roots (first: {first}, from {page}); they show one line naming them: give "
                f"{folder}"
            )
        if self.types.count:
            page, first = self.types.example()
            out.append(
                f"{self.types.count} type tables (<auto-type-table>) in {self.types.pages()} "
                f"show the type's name, not its members (first: {first}, from {page}): only a "
                "top-level `interface X {…}` or `type X = {…}` inside the source roots is read, "
                "through imports and re-exports (type_tables.py)"
            )
        if self.types_outside.count:
            page, first = self.types_outside.example()
            out.append(
                f"{self.types_outside.count} of those type tables, in "
                f"{self.types_outside.pages()}, name files outside the source roots (first: "
                f"{first}, from {page}); add the folder holding them with --source-root"
            )
        return out

    def log(self) -> None:
        for line in self.lines():
            log.warning("%s", line)
