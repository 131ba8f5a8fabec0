"""Include lines written in double braces, each on a line of its own, read as includes.py reads
every include (`snippet_includes.Files`: the source roots only, included markdown through
`_Reader._inline`, the one depth bound):

- Hugo's include shortcode, `{{% include "file.md" %}}`, found as the site's shortcode finds it
  (hugo_includes.py, in the Hugo site around the docs: hugo_site.py), and the shortcodes that
  show a file as code (Kubernetes' `{{% code_sample file="x.yaml" %}}`, Docsy's `readfile`);
- Quarto's `{{< include _file.qmd >}}` (quarto.py): in a Quarto project a `{{< include >}}`
  line is Quarto's, elsewhere Hugo's;
- markdown-include's `{!path!}` (SQLModel, Typer): the file's text where it stands.

`Sites` looks for the Quarto project and the Hugo site once per page, on the first line that
needs them (most pages include nothing of either).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from docsmcp.sources.formats.markdown.fences import code_block
from docsmcp.sources.inclusion import hugo_includes
from docsmcp.sources.inclusion.snippet_includes import Files, indented
from docsmcp.sources.sites import hugo_site, quarto

# markdown-include's `{!path!}` (SQLModel, Typer): the file's text where it stands.
_MD_INCLUDE = re.compile(r"\{!\s*([^!{}\n]+?)\s*!\}")


class Sites:
    """The Quarto project and the Hugo site around the docs, each looked for on first use."""

    def __init__(self, docs_dir: Path, roots: Sequence[Path]) -> None:
        self.docs_dir = docs_dir
        self.roots = roots
        self._quarto: bool | None = None  # the docs are a Quarto project (found on first use)
        self._hugo: tuple[hugo_site.Site | None] | None = None  # the Hugo site around the docs

    def hugo_call(self, line: str) -> hugo_includes.Call | None:
        """Hugo's include shortcode on `line`; a `{{< include >}}` of a Quarto project is
        Quarto's."""
        if self._quarto is None:
            self._quarto = quarto.project(self.docs_dir, self.roots) is not None
        return None if self._quarto and "{{<" in line else hugo_includes.call(line)

    def hugo_candidates(self, page: str, spec: str) -> list[str]:
        return hugo_includes.candidates(page, spec, self.docs_dir, self._site())

    def hugo_code_candidates(self, page: str, spec: str) -> list[str]:
        return hugo_includes.code_candidates(page, spec, self.docs_dir, self._site())

    def _site(self) -> hugo_site.Site | None:
        if self._hugo is None:
            self._hugo = (hugo_site.find(self.docs_dir, self.roots),)
        return self._hugo[0]


def may_hold(line: str) -> bool:
    """Whether `line` may hold one of these includes (`line` reads it)."""
    return "{{" in line or "{!" in line


def line(files: Files, sites: Sites, page: str, text: str, depth: int) -> list[str] | None:
    """What the line `text` of `page` becomes when it is one of these includes (None: itself,
    also where its file is missing: the build's summary names the file)."""
    if ("{{%" in text or "{{<" in text) and (call := sites.hugo_call(text)) is not None:
        found = files.read_first(sites.hugo_candidates(page, call.path), call.path)
        if found is not None:
            included = files.inline(files.found(), hugo_includes.included(call, found), depth)
            return indented(call.indent, included + ([call.after] if call.after else []))
        return None  # (the summary names the missing file; the line reads as nothing)
    if "{{<" in text and (tab := hugo_includes.tab_call(text)) is not None:
        call, label = tab
        found = files.read_first(sites.hugo_candidates(page, call.path), call.path)
        if found is None:
            return None
        included = files.inline(files.found(), hugo_includes.included(call, found), depth)
        return indented(call.indent, [label, "", *included])
    if ("{{%" in text or "{{<" in text) and (code := hugo_includes.code_call(text)) is not None:
        found = files.read_first(sites.hugo_code_candidates(page, code.path), code.path)
        if found is None:
            return None
        lines = found.rstrip("\n").split("\n")
        if not code.code:  # (readfile's markdown: read as the page's)
            return indented(code.indent, files.inline(files.found(), lines, depth))
        # The file's name over its block, as the site shows it (a download link).
        return [f"{code.indent}`{code.path}`", *code_block(code.indent, code.language, lines)]
    if "{{<" in text and (m := quarto.INCLUDE.match(text)):
        candidates = quarto.include_candidates(page, m.group(2), sites.docs_dir, sites.roots)
        found = files.read_first(candidates, m.group(2))
        if found is not None:
            lines = indented(m.group(1), found.rstrip("\n").split("\n"))
            return files.inline(files.found(), lines, depth)
    if "{!" in text and (m := _MD_INCLUDE.fullmatch(text.strip())):
        found = files.read_first(files.candidates(page, m.group(1)), m.group(1))
        if found is not None:
            indent = text[: len(text) - len(text.lstrip())]
            return indented(indent, found.rstrip("\n").split("\n"))
    return None
