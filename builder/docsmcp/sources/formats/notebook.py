"""Jupyter notebooks (`.ipynb`, nbformat 4) as the markdown page a docs site shows of them.

Docs sites render notebooks as pages (mkdocs-jupyter, myst-nb, nbsphinx: LangGraph's and
many data libraries' tutorials are notebooks); a folder of them used to build to nothing, with
the advice to export them first. A notebook now reads as markdown: its markdown cells as
written, its code cells as fenced blocks in the notebook's language (`metadata.kernelspec.
language`, else `metadata.language_info.name`, else Python), raw cells and outputs left out
(outputs are results, images and logs, not the page's text). Each line maps to the line of the
notebook's JSON where its cell starts, so hits point into the file. A file that is not a
notebook (not JSON, no `cells` list) gives an empty page and one warning.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from docsmcp.common.logs import warn_once

_CELL = re.compile(r'"cell_type"\s*:')
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})", re.MULTILINE)


@dataclass(frozen=True)
class Notebook:
    text: str  # markdown
    line_map: tuple[int, ...]  # for each line of `text`, the 0-based line of the file


def notebook_to_markdown(path: str, raw: str) -> Notebook:
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        data = None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        warn_once(f"notebook:{path}", "%s: not a Jupyter notebook (no cells): left empty", path)
        return Notebook("", (0,))
    language = _language(data.get("metadata"))
    starts = _cell_lines(raw, len(cells))
    lines: list[str] = []
    line_map: list[int] = []
    for k, cell in enumerate(cells):
        if not isinstance(cell, dict):
            continue
        source = cell.get("source")
        text = (
            "".join(x for x in source if isinstance(x, str))
            if isinstance(source, list)
            else (source if isinstance(source, str) else "")
        )
        if not text.strip():
            continue
        kind = cell.get("cell_type")
        if kind == "markdown":
            block = text.rstrip("\n").split("\n")
        elif kind == "code":
            # a longer fence than any the code holds at a line's start (a cell printing one)
            fence = "`" * max([3, *(len(m.group(1)) + 1 for m in _FENCE.finditer(text))])
            block = [fence + language, *text.rstrip("\n").split("\n"), fence]
        else:
            continue  # raw cells: for the exporter, not the reader
        if lines:
            lines.append("")
            line_map.append(starts[k])
        lines += block
        line_map += [starts[k]] * len(block)
    return Notebook("\n".join(lines), tuple(line_map) or (0,))


def _language(metadata: object) -> str:
    if not isinstance(metadata, dict):
        return "python"
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        value = metadata.get(key)
        name = value.get(field) if isinstance(value, dict) else None
        if isinstance(name, str) and re.fullmatch(r"[\w+#.-]{1,40}", name):
            return name.lower()
    return "python"


def _cell_lines(raw: str, n: int) -> list[int]:
    """The 0-based line of the file where each of the `n` cells starts (its `"cell_type"` key,
    in order; 0 for all when the keys cannot be told apart, as in a one-line notebook)."""
    found: list[int] = []
    line, at = 0, 0
    for m in _CELL.finditer(raw):
        line += raw.count("\n", at, m.start())
        at = m.start()
        found.append(line)
    return found if len(found) == n else [0] * n
