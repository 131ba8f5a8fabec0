"""Which Perl files of a docs tree are pages: what metacpan shows of a CPAN distribution
(formats/source/pod.py makes the pages).

A distribution is a folder holding a `Makefile.PL`, `Build.PL`, `dist.ini`, `cpanfile` or
`META.json`/`META.yml`. Its modules are the `.pm` (and `.pod`) files under its `lib/`, its
commands the `.pl` scripts under `bin/`, `script/` or `scripts/`; a `.pod` file anywhere is
documentation (Moose's `CONTRIBUTING.pod`). Tests and what the build makes or vendors
(`t/`, `xt/`, `inc/`, `blib/`, `local/`, `_build/`) are no pages, and neither is any other
`.pm`/`.pl` (examples, a skeleton's templates under `share/`, benchmarks, author tools).
In a tree without a distribution, the `.pm` files of a `lib/` folder (or of a docs folder
that is one: `--docs-dir lib`) are modules; other Perl there (a C project's build scripts) is
code. A page of a module without POD is no page: pod.py writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from docsmcp.sources.files import PERL_MODULE_SUFFIXES, PERL_SCRIPT_SUFFIXES, POD_SUFFIXES
from docsmcp.sources.packages.project_files import folders_above, nearest_folder
from docsmcp.sources.perl_command import MARKERS as MARKERS

NOT_PAGES = frozenset(("t", "xt", "inc", "blib", "local", "_build", ".build"))
_PERL = POD_SUFFIXES + PERL_MODULE_SUFFIXES + PERL_SCRIPT_SUFFIXES
MAX_FOLDERS = 2000  # folders looked at for a distribution's marker in one tree


def _dists(docs_dir: Path, perl: list[str]) -> set[str]:
    """The folders of the tree (relative, "" for the docs dir) that hold a distribution."""
    out: set[str] = set()
    for folder in folders_above(perl)[:MAX_FOLDERS]:
        base = docs_dir / folder if folder else docs_dir
        if any((base / m).is_file() for m in MARKERS):
            out.add(folder)
    return out


def is_page(path: str, dists: set[str], loose: bool = False) -> bool:
    """Whether `path` is a page, given the tree's distributions; `loose`: the docs folder is a
    `lib/` folder itself."""
    parts = path.split("/")
    if NOT_PAGES & set(parts[:-1]):
        return False
    if path.endswith(POD_SUFFIXES):
        return True
    dist = nearest_folder(path, dists)
    if dist is not None:
        inner = parts[len(dist.split("/")) if dist else 0 : -1]
        if path.endswith(PERL_MODULE_SUFFIXES):
            return inner[:1] == ["lib"]
        return inner[:1] in (["bin"], ["script"], ["scripts"]) and len(inner) == 1
    # (no distribution: a `lib/` folder of modules built on its own, `--docs-dir lib`)
    return not dists and path.endswith(PERL_MODULE_SUFFIXES) and (loose or "lib" in parts[:-1])


def no_pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The Perl files of `listed` that are no page (tests, examples, other code)."""
    perl = [p for p in listed if p.endswith(_PERL)]
    if not perl:
        return set()
    dists = _dists(Path(docs_dir), perl)
    loose = Path(docs_dir).name == "lib"
    return {p for p in perl if not is_page(p, dists, loose)}
