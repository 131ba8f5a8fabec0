"""The suffixes a Sphinx project's `conf.py` names for its reST pages besides `.rst`, and the
templates folders it reads no page from.

Django writes its docs as `.txt` files (`source_suffix = ".txt"`): 598 pages, a million words, of
which the builder read none (the build said "5 files", three of them diagrams in PDF). A `.txt`
page the listing holds is reST wherever a path decides the format (formats/rst/rst_suffixes.py),
and only the listing needs the project's word: `read` takes `source_suffix` and `exclude_patterns`
from the docs folder's `conf.py` (as literals, with `ast`, never run), and `SphinxSuffixes.admits`
says which `.txt` files are pages (Django's `requirements.txt` and `_theme/**/LICENSE.txt` are
excluded by its patterns; a folder whose name starts with `_` or `.` never holds pages here, as
Sphinx's `_build`, `_static`, `_templates` and `_theme` do not). Its `templates_path` folders hold
no page of any suffix (Sphinx leaves them out): NumPy's `_templates/autosummary/*.rst` are Jinja
templates and were read as 7 pages of `{{ fullname }}`, whose autodoc lines the build counted as
objects without source.
"""

from __future__ import annotations

import ast
import fnmatch
import logging
from dataclasses import dataclass
from pathlib import Path

from docsmcp.sources.files import is_llms_full
from docsmcp.sources.formats.rst.rst_suffixes import EXTRA_RST_SUFFIXES

log = logging.getLogger(__name__)

# A conf.py larger than this is not read for its suffixes (Django's: 12 kB).
MAX_CONF_BYTES = 512 * 1024


@dataclass(frozen=True)
class SphinxSuffixes:
    """The extra reST suffixes (`.txt`) a project's conf.py names, and its exclude patterns."""

    suffixes: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    templates: tuple[str, ...] = ()  # `templates_path` folders: Sphinx reads no page there
    project: bool = False  # a conf.py was found: a Sphinx project, whose PDFs are no pages

    def figure(self, path: str) -> bool:
        """Whether `path` is a PDF of a Sphinx project: a figure or a download (Django's
        `_images/middleware.pdf`, NumPy's `figures/dtype-hierarchy.pdf`), never a page Sphinx
        reads; read as pages they were chunks of diagram labels ("stopped status")."""
        return self.project and path.lower().endswith(".pdf")

    def skips(self, folder: str) -> bool:
        """Whether `folder` (POSIX, relative to the docs folder) is a templates folder, which
        Sphinx never reads pages from (NumPy's `_templates/autosummary/*.rst` are Jinja)."""
        return folder in self.templates

    def admits(self, path: str) -> bool:
        """Whether `path` (POSIX, relative to the docs folder) is a page of an extra suffix."""
        lower = path.lower()
        if not self.suffixes or not lower.endswith(self.suffixes) or is_llms_full(lower):
            return False
        parts = path.split("/")
        if any(p.startswith(("_", ".")) for p in parts[:-1]):
            return False
        return not any(_matches(path, pattern) for pattern in self.excluded)


def read(docs_dir: Path) -> SphinxSuffixes:
    """What `docs_dir/conf.py` says of its suffixes; empty without one, or when it names only
    `.rst` and markdown."""
    values = conf_values(docs_dir, ("source_suffix", "exclude_patterns", "templates_path"))
    suffixes = tuple(
        s for s in _suffixes(values.get("source_suffix")) if s.lower() in EXTRA_RST_SUFFIXES
    )
    excluded = values.get("exclude_patterns")
    listed = excluded if isinstance(excluded, list | tuple) else ()
    patterns = tuple(p for p in listed if isinstance(p, str))
    paths = values.get("templates_path")
    listed = paths if isinstance(paths, list | tuple) else ()
    templates = tuple(p.strip("/").removeprefix("./") for p in listed if isinstance(p, str))
    return SphinxSuffixes(
        tuple(dict.fromkeys(s.lower() for s in suffixes)),
        patterns,
        tuple(t for t in templates if t),
        (Path(docs_dir) / "conf.py").is_file(),
    )


def conf_values(docs_dir: Path, names: tuple[str, ...]) -> dict[str, object]:
    """The literal values `docs_dir/conf.py` gives `names` at its top level (read with `ast`,
    never run); empty without a conf.py, or one that does not parse."""
    conf = Path(docs_dir) / "conf.py"
    try:
        if not conf.is_file() or conf.stat().st_size > MAX_CONF_BYTES:
            return {}
        tree = ast.parse(conf.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        log.debug("%s: not read: %s", conf, exc)
        return {}
    return literals(tree, names)


def literals(tree: ast.Module, names: tuple[str, ...]) -> dict[str, object]:
    """The literal values top-level assignments give `names` (the last one wins, as run)."""
    found: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id in names:
            try:
                found[target.id] = ast.literal_eval(value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue  # (computed: not a literal we can read)
    return found


def _suffixes(value: object) -> list[str]:
    """The reST suffixes of a `source_suffix` value: a string, a list, or a mapping of suffix to
    parser (`{".txt": "restructuredtext", ".md": "markdown"}`)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [x for x in value if isinstance(x, str)]
    if isinstance(value, dict):
        rst = ("restructuredtext", None)
        return [k for k, v in value.items() if isinstance(k, str) and v in rst]
    return []


def _matches(path: str, pattern: str) -> bool:
    """Sphinx's exclude pattern: the path, or a folder above it, matches the glob."""
    pattern = pattern.strip("/")
    parts = path.split("/")
    return any(fnmatch.fnmatchcase("/".join(parts[:n]), pattern) for n in range(1, len(parts) + 1))
