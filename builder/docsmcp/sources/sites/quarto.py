"""Quarto projects (`_quarto.yml`, pages in `.qmd` and `.md`): what the builder needs to know
of them beyond their markdown.

- `{{< include _file.qmd >}}` on a line of its own inserts the file where it stands, relative to
  the page, or to the project (the folder of `_quarto.yml`) for `/docs/x.qmd` (Quarto's own
  docs: 388 includes). shortcode_includes.py reads it like any include.
- Files and folders whose name starts with `_` are never rendered (Quarto uses them for
  includes and metadata): no pages (`EXCLUDES`, applied by a build without a manifest and
  proposed by init when the docs are a Quarto project).
- Pandoc's fenced divs, `::: {.callout-note}` … `:::`, are markdown syntax of Quarto and
  R Markdown alike: formats/markdown/fenced_divs.py reads them.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Sequence
from pathlib import Path

from docsmcp.sources.site_config import QUARTO_CONFIG, QUARTO_EXCLUDES, config_above

CONFIG = QUARTO_CONFIG
INCLUDE = re.compile(r"^([ \t]*)\{\{<[ \t]*include[ \t]+([^\s>]+)[ \t]*>\}\}[ \t]*$")
EXCLUDES = QUARTO_EXCLUDES


def project(docs_dir: Path, roots: Sequence[Path] = ()) -> Path | None:
    """The folder of the `_quarto.yml` at or above `docs_dir` (up to the outermost source root
    holding it), or None: the docs are no Quarto project."""
    config = config_above(docs_dir, (docs_dir, *roots), (CONFIG,))
    return config.parent if config is not None else None


def include_candidates(page: str, spec: str, docs_dir: Path, roots: Sequence[Path]) -> list[str]:
    """Where `{{< include spec >}}` of `page` is, relative to docs_dir."""
    if spec.startswith("/"):
        base = project(docs_dir, roots) or docs_dir
        return [posixpath.normpath(os.path.relpath(os.path.join(base, spec.lstrip("/")), docs_dir))]
    return [posixpath.normpath(posixpath.join(posixpath.dirname(page), spec))]
