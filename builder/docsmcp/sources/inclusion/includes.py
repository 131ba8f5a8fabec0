"""File includes of three dialects, resolved into a page's text before it is parsed:

- pymdownx snippets (mkdocs-material): a line `--8<-- "path"` (optionally `path:START:END` lines,
  or `path:name` for the lines between `--8<-- [start:name]` and `--8<-- [end:name]`), or a
  block of paths between two `--8<--` lines; a path is looked up beside the page, then in the
  docs folder, then in each source root (`--source-root`), as pymdownx's `base_path` does; an
  `.svg` file included so is a picture, which leaves nothing;
- mdBook: `{{#include path}}`, `{{#include path:ANCHOR}}` (the lines between `ANCHOR: name`
  and `ANCHOR_END: name` comments), `{{#include path:START:END}}`, and `{{#rustdoc_include …}}`
  alike, relative to the page; lines naming anchors are dropped from what is included;
- FastAPI: `{* ../../docs_src/app/tutorial001.py hl[3] ln[1:5] *}`, relative to the page,
  included as a fenced code block in the file's language (`ln[...]` keeps those lines);
- reST (`.rst` pages): `.. literalinclude:: path` and `.. include:: path` (rst_includes.py).
  A path starting with `/` is relative to the docs folder, as Sphinx reads it.
  (rst.py itself never reads a file: docutils' own `include` is off.)
- MDX partials: `import Setup from './_setup.mdx'`, then a line `<Setup />`: mdx_partials.py;
- Quarto: `{{< include _file.qmd >}}` on a line of its own (quarto.py);
- Hugo: `{{% include "file.md" %}}`, looked up as the site's include shortcode does, from the
  page up its sections (hugo_includes.py);
- markdown-include: `{!path!}` on a line of its own, the file's text where it stands
  (these three double-brace lines: shortcode_includes.py);
- MyST: ```` ```{include} path ```` and `{literalinclude}` with their options (myst_includes.py);
- Fumadocs: `<include>path</include>`, a page (or its `#section`) or a code file
  (include_tags.py); `<auto-type-table path name />`, a type's props table (type_tables.py);
- AsciiDoc: `include::path[tag=x]`, Antora's `include::partial$x.adoc[]` (asciidoc_includes.py);
- Markdoc: `{% partial file="x.md" /%}` on a line of its own (markdoc_partials.py);
- Rspress: an empty code block naming a file, ```` ```ts file="./x.ts" ```` (file_fences.py);
- Writerside: `{src=…}` code blocks, `<include from element-id/>`, `%var%` (writerside.py);
- DocFX: `[!INCLUDE [t](path)]`, `[!code-lang[](file#region)]`, `:::code:::` (docfx_includes.py);
- Texinfo: `@include file.texi` on a line of its own (texinfo_includes.py).

The tags among these that span lines (a component's `code` prop, `<auto-type-table>`, Rspress'
file fences, dumi's demos, Writerside's `{src=…}` blocks) are found and, but for the type
tables, read by include_spans.py, before the page's line-by-line pass.

Every file is read through `files.read_file`, so only inside the source roots: a path outside
them, missing or unreadable leaves the directive as it was. An unreadable file gets its page one
warning line naming the first such path and how many there were; missing files and files
outside the source roots are summed up for the whole build in one line each (`Unresolved`),
the latter naming the `--source-root` that would include them. Included markdown may include
in turn, up to `MAX_DEPTH` levels; a page may grow to `limits.MAX_FILE_BYTES`.

The page's lines change number, so the result carries `line_map`: for each line of the new text,
the line of the original file it came from (an included line maps to its directive's line), so
chunks still report source line ranges of the file itself.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from docsmcp.common.limits import MAX_FILE_BYTES
from docsmcp.sources.files import ASCIIDOC_SUFFIXES, TEXINFO_SUFFIXES
from docsmcp.sources.formats.markdown import myst_rst, writerside_md
from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.formats.rst import autodoc
from docsmcp.sources.formats.rst.rst_suffixes import is_rst
from docsmcp.sources.formats.source import apidoc, mkdocstrings_options
from docsmcp.sources.inclusion import (
    asciidoc_includes,
    docfx_includes,
    dumi_demos,
    file_fences,
    include_spans,
    include_tags,
    markdoc_partials,
    mdx_partials,
    myst_includes,
    rst_includes,
    shortcode_includes,
    texinfo_includes,
    type_tables,
)
from docsmcp.sources.inclusion.include_files import FileReading
from docsmcp.sources.inclusion.include_ranges import SNIPPET_SECTION
from docsmcp.sources.inclusion.include_report import Expanded, Failures, Unresolved, finished
from docsmcp.sources.inclusion.snippet_includes import (
    FASTAPI,
    MDBOOK,
    SNIPPET,
    SNIPPET_BLOCK,
    Files,
    fastapi,
    mdbook,
    snippet,
)
from docsmcp.sources.packages import java_project, kotlin_project, python_package, rust_crate
from docsmcp.sources.site_config import config_above
from docsmcp.sources.sites import documenter, julia_source, writerside

if TYPE_CHECKING:
    from docsmcp.model.source import SourceFile

log = logging.getLogger("docsmcp.sources.inclusion.includes")

MAX_DEPTH = 5


def has_directive(body: str) -> bool:
    """Whether `body` may hold an include directive (of any dialect handled here)."""
    # The two `{` forms only where a `{` is (a one-character scan; win32: 0.71 -> 0.46 s).
    return (
        ":::" in body
        or "8<-" in body
        or ("{" in body and ("{{#" in body or "{*" in body or "{!" in body or "{{< incl" in body))
        or (("{{%" in body or "{{<" in body) and "include" in body)  # (Hugo's, with `-` trims)
        or "include::" in body
        or "include}" in body  # (MyST's ```{include}, {literalinclude})
        or "<include" in body  # (Fumadocs)
        or type_tables.TAG_START in body  # (Fumadocs' props tables: type_tables.py)
        or ":include" in body  # (docsify's embeds)
        or ".. auto" in body  # (reST pages, MyST's `eval-rst`: autodoc.py, myst_rst.py)
        or "{auto" in body  # (MyST's ```{autofunction}: myst_rst.py)
        or mdx_partials.may_import(body)
        or markdoc_partials.may_hold(body)
        or file_fences.may_hold(body)
        or dumi_demos.may_hold(body)
        or docfx_includes.may_hold(body)
    )


def expand(
    docs_dir: Path, path: str, body: str, roots: Sequence[Path], shared: Set[str] = frozenset()
) -> Expanded:
    """`body` of the page at `path` (relative to docs_dir) with its includes resolved, but for
    the MDX partials in `shared` (left as written)."""
    if path.endswith(rust_crate.RUST_SUFFIX):  # a crate's module: its context, include_str!
        return Expanded(*rust_crate.expand(docs_dir, path, body, roots))
    if path.endswith(java_project.JAVA_SUFFIX):  # a class: its supertypes (comments, methods)
        return Expanded(*java_project.expand(docs_dir, path, body, roots))
    if path.endswith(kotlin_project.KOTLIN_SUFFIX):  # its `@sample`s' files (no markdown includes)
        return Expanded(*kotlin_project.expand(docs_dir, path, body, roots))
    if path.endswith(python_package.PY_SUFFIX):  # a distribution's module: its name, re-exports
        return Expanded(*python_package.expand(docs_dir, path, body, roots))
    asciidoc = path.lower().endswith(ASCIIDOC_SUFFIXES)  # (its component's attributes: always)
    julia = not (is_rst(path) or path.lower().endswith(ASCIIDOC_SUFFIXES)) and (
        documenter.may_hold(body)
    )
    wants_project = writerside.may_need(path, body)  # (its variables and code files: writerside.py)
    texinfo = path.lower().endswith(TEXINFO_SUFFIXES) and "@include" in body
    if not (has_directive(body) or asciidoc or julia or wants_project or texinfo):
        return Expanded(body, (), None)
    failures = Failures()
    reader = _Reader(docs_dir, roots, failures)
    reader.shared = shared
    lines = page = body.split("\n")
    shown: list[int] | None = None  # Documenter's blocks read (documenter.py): their lines
    if julia:
        lines, shown = documenter.expand(lines, reader.julia, reader.api_missing)
    elif not (asciidoc or is_rst(path)) and myst_rst.has_autodoc(body) and myst_rst.may_hold(body):
        lines, shown = myst_rst.expand_autodoc(lines, reader.sources(), reader.api_missing)
    if is_rst(path):
        out, line_map = reader.rst(path, lines, 0)
        if ".. auto" in body or any(".. auto" in x for x in out):
            out, inner = autodoc.expand(out, reader.sources(), reader.api_missing)
            line_map = [line_map[k] for k in inner]
        return _finish(path, body, lines, out, line_map, failures, reader)
    if texinfo:  # (Texinfo's `@include`: texinfo_includes.py)
        read, found = reader._read_first, lambda: reader._found
        at = reader._candidates
        out, line_map = texinfo_includes.expand(path, lines, MAX_DEPTH, read, found, at)
        return _finish(path, body, lines, out, line_map, failures, reader)
    if asciidoc:
        out, line_map = reader.asciidoc(path, lines)
        return _finish(path, body, lines, out, line_map, failures, reader)
    if wants_project and (project := writerside.find(docs_dir, list(roots))) is not None:
        reader.writerside = project
        if path.lower().endswith(writerside.TOPIC):
            read = writerside.reader(project, path, docs_dir, reader._read_first)
            out, line_map = writerside.topic(lines, project, read)
            if shown is not None:
                line_map = [shown[k] for k in line_map]
            return _finish(path, body, page, out, line_map, failures, reader)
        lines, scopes = writerside.substituted(lines, project.variables)
        lines = writerside_md.markdown_lines(lines)
        reader.writerside_refs = writerside.element_refs(lines, scopes) if scopes else {}
    code = fenced_lines(lines)  # a `::: object` shown in a code block is an example
    # A page that closes containers (a bare `:::` line: VitePress, Docusaurus) writes `::: tabs`
    # for a container, not for mkdocstrings' `::: module` (vitest's docs warned of "tabs").
    reader.containers = any(
        not code[i] and line.strip() and set(line.strip()) == {":"} for i, line in enumerate(lines)
    )
    reader.names = mdx_partials.imports(lines, code) if mdx_partials.may_import(body) else {}
    # A MyST directive is a fence of its own: its opening line is no code (one inside another
    # block, an example, is).
    directives = {
        i
        for i, line in enumerate(lines)
        if "include}" in line and (i == 0 or not code[i - 1]) and myst_includes.OPEN.match(line)
    }
    out: list[str] = []
    line_map: list[int] = []
    # (the page's Writerside element includes: lines of this page, none of an included file)
    tags = {
        **include_spans.spanning(body, lines, code, reader.names, reader.writerside),
        **reader.writerside_refs,
    }
    last = -1  # the last line of a tag read
    for number, line in enumerate(lines):
        if number <= last:
            continue
        in_code = code[number] and number not in directives
        if number in tags:
            last = tags[number].end
            pieces: list[str] | None = reader.span(path, tags[number], 0)
        else:
            pieces = reader.line(path, line, 0, in_code) if reader.wants(line) else None
        if pieces is None:
            out.append(line)
            line_map.append(number)
            continue
        pieces = pieces or [""]  # a marker or block line gone: a blank line keeps the page's shape
        out.extend(pieces)
        line_map.extend([number] * len(pieces))
        if reader.size > MAX_FILE_BYTES:
            return Expanded(
                body,
                (),
                f"{path}: includes make the page over {MAX_FILE_BYTES:,} bytes; "
                "they were left unresolved",
            )
    if reader.block is not None or reader.tag is not None:  # an unclosed block or tag: none
        return Expanded(body, (), None)
    if shown is not None:
        line_map = [shown[k] for k in line_map]
    return _finish(path, body, page, out, line_map, failures, reader)


def _finish(
    path: str,
    body: str,
    lines: list[str],
    out: list[str],
    line_map: list[int],
    failures: Failures,
    reader: _Reader,
) -> Expanded:
    """The Expanded page of lines `out` (include_report.finished), with what the reader met."""
    met = (reader.api_missing, reader.partials, reader.types_missing)
    return finished(path, body, lines, out, line_map, failures, reader.size, *met)


class _Reader(FileReading):
    def __init__(self, docs_dir: Path, roots: Sequence[Path], failures: Failures) -> None:
        super().__init__(docs_dir, roots, failures)
        self.block: list[str] | None = None  # paths of an open `--8<--` block
        self.options = False  # inside the indented options of a `::: object` directive
        self.api_missing: list[str] = []  # mkdocstrings objects whose source was not found
        self.containers = False  # the page closes `:::` containers: a bare `::: word` is one
        self._sources: apidoc.Sources | None = None
        self._julia: julia_source.Library | None = None
        self.names: dict[str, str] = {}  # the MDX partials the page being read imports
        self.partials: list[str] = []  # those inlined (docs_dir-relative paths)
        self.shared: Set[str] = frozenset()  # partials left as written (resolve)
        self.myst: myst_includes.Pending | None = None  # a MyST include directive being read
        self.tag: include_tags.Tag | None = None  # a three-line `<include>` being read
        self._sites = shortcode_includes.Sites(docs_dir, roots)  # Quarto's, Hugo's (first use)
        self.types_missing: list[str] = []  # why `<auto-type-table>` tags showed no table
        self.writerside: writerside.Project | None = None  # the page's Writerside project
        self.writerside_refs: dict[int, writerside.ElementRef] = {}  # its element includes

    @property
    def files(self) -> Files:
        """This reader's way to files for snippet_includes (made per call: kept, it would tie
        the reader into a reference cycle, which the build's collection leaves uncollected)."""
        return Files(self._read_first, self._candidates, self._inline, lambda: self._found)

    # -- one line of a page -----------------------------------------------------------------

    def wants(self, line: str) -> bool:
        """Whether `line` may be a directive, or a line of one under way (`line` reads it)."""
        return (
            self.block is not None
            or self.myst is not None
            or self.tag is not None
            or self.options
            or has_directive(line)
            or bool(self.names and "/>" in line)
        )

    def line(self, page: str, line: str, depth: int, in_code: bool = False) -> list[str] | None:
        """What `line` of `page` becomes (None: itself)."""
        if self.options:
            if line[:1] in (" ", "\t") and line.strip():
                return []  # `    options:` and what follows, for mkdocstrings
            self.options = False
        if (
            not in_code
            and line.startswith(":::")
            and (identifier := apidoc.directive(line))
            and not (self.containers and "." not in identifier)
        ):
            self.options = True
            return self._api(identifier)
        if self.myst is not None or ("include}" in line and not in_code):
            if self.myst is None:
                self.myst = myst_includes.opening(line)
                return [] if self.myst is not None else None
            if not self.myst.read(line):
                return []
            pending, self.myst = self.myst, None
            text = self._read_first(self._candidates(page, pending.name), pending.name)
            if text is None:
                return []  # (as MyST shows it; the build's warning names the file)
            return myst_includes.included(
                pending, text, lambda lines: self._inline(self._found, lines, depth)
            )
        if (
            not in_code
            and ("[!" in line or ":::code" in line)
            and (docfx := docfx_includes.directive(line)) is not None
        ):
            return self._docfx(page, docfx, depth)
        if self.tag is not None or (not in_code and ("<include" in line or ":include" in line)):
            self.tag, lines = include_tags.resolve(self, self.tag, page, line, depth)
            return lines
        if self.names and not in_code and (use := mdx_partials.use(line, self.names)):
            return self._partial(page, *use, depth)
        if "{%" in line and not in_code and (call := markdoc_partials.call(line)):
            found = markdoc_partials.candidates(page, call.file, self.docs_dir, self.roots)
            text = self._read_first(found, call.file)
            if text is None:
                return None  # (the summary names the missing file; the line reads as nothing)
            self.partials.append(self._found)  # (one page's partial is no page: mdx_partials)
            return self._inline(self._found, markdoc_partials.included(call, text), depth)
        if self.block is not None:
            if SNIPPET_BLOCK.match(line):
                paths, self.block = self.block, None
                return [x for p in paths for x in snippet(self.files, page, p, "", depth)]
            if line.strip() and not line.lstrip().startswith(";"):
                self.block.append(line.strip())
            return []
        if SNIPPET_BLOCK.match(line):
            self.block = []
            return []
        if m := SNIPPET.match(line):
            return snippet(self.files, page, m.group(3), m.group(1), depth)
        if SNIPPET_SECTION.search(line):
            return []  # a section marker of a file included elsewhere
        if m := FASTAPI.match(line):
            return fastapi(self.files, page, m.group(2), m.group(3), m.group(1))
        if "{{#" in line and MDBOOK.search(line):
            return mdbook(self.files, page, line, depth)
        if shortcode_includes.may_hold(line):  # (Hugo's, Quarto's, markdown-include's)
            return shortcode_includes.line(self.files, self._sites, page, line, depth)
        return None

    # -- reST --------------------------------------------------------------------------------

    def rst(self, page: str, lines: list[str], depth: int) -> tuple[list[str], list[int]]:
        """A reST page's lines with its include directives resolved (rst_includes.py), and each
        line's line of `lines` (an included line: its directive's)."""
        return rst_includes.expand(
            lines, lambda *directive: self._rst_include(page, *directive, depth)
        )

    def _rst_include(
        self, page: str, kind: str, name: str, options: dict[str, str], indent: str, depth: int
    ) -> list[str] | None:
        """The lines an include directive stands for, or None (left as written)."""
        if name.startswith("<"):
            return None  # `.. include:: <isonum.txt>`: docutils' own substitution sets
        target = name.lstrip("/") if name.startswith("/") else name
        candidates = [target] if name.startswith("/") else self._candidates(page, name)
        text = self._read_first(candidates, name)
        if text is None:
            return None
        nested = (
            (lambda path, lines: self.rst(path, lines, depth + 1)[0])
            if depth + 1 < MAX_DEPTH
            else None
        )
        return rst_includes.block(page, kind, name, options, indent, text, nested)

    def asciidoc(self, page: str, lines: list[str]) -> tuple[list[str], list[int]]:
        """An AsciiDoc page's lines with its includes resolved (asciidoc_includes.py), after
        its Antora component's attribute entries (mapped to its first line)."""
        entries = asciidoc_includes.component_entries(self.docs_dir, page)
        out, line_map = asciidoc_includes.expand(
            page, lines, 0, MAX_DEPTH, self._read_first, lambda: self._found
        )
        return [*entries, *out], [0] * len(entries) + line_map

    # -- dialects ---------------------------------------------------------------------------

    def _partial(
        self, page: str, indent: str, spec: str, props: dict[str, str], depth: int
    ) -> list[str] | None:
        roots = list(self.roots)
        text = self._read_first(mdx_partials.candidates(page, spec, self.docs_dir, roots), spec)
        if text is None or depth + 1 >= MAX_DEPTH or self._found in self.shared:
            return None
        if not mdx_partials.only_examples(text):  # (an example is shown wherever it stands)
            self.partials.append(self._found)
        return mdx_partials.inline(self._found, indent, props, text, self._imported(depth))

    def _imported(self, depth: int) -> Callable[[str, list[str]], list[str]]:
        """What reads an imported markdown file's lines (as a page at its path, one level
        deeper): its own includes, partials and code tags, under its own imports."""

        def nested(path: str, lines: list[str]) -> list[str]:
            saved, self.names = self.names, mdx_partials.page_imports(lines)
            try:
                return self._nested(path, lines, depth + 1)
            finally:
                self.names = saved

        return nested

    def _docfx(self, page: str, d: docfx_includes.Directive, depth: int) -> list[str] | None:
        """A DocFX include (docfx_includes.py); a file not found leaves the line as written."""
        project = config_above(self.docs_dir, self.roots, ("docfx.json",))
        base = os.path.relpath(project.parent, self.docs_dir) if project else None
        found = docfx_includes.candidates(page, d.path, base, self._candidates)
        text = self._read_first(found, d.path)
        if text is None:
            return None
        return docfx_includes.render(d, text, lambda x: self._inline(self._found, x, depth))

    def sources(self) -> apidoc.Sources:
        """The Python sources of the source roots (mkdocstrings, autodoc), made on first use."""
        if self._sources is None:
            self._sources = apidoc.Sources(self.docs_dir, self.roots)
        return self._sources

    def julia(self) -> julia_source.Library:
        """The Julia docstrings of the source roots (Documenter's blocks), read on first use."""
        if self._julia is None:
            self._julia = julia_source.load(self.docs_dir, self.roots)
        return self._julia

    def _api(self, identifier: str, options: Mapping[str, object] | None = None) -> list[str]:
        lines = apidoc.render(identifier, self.sources(), options)
        if lines is None:
            self.api_missing.append(f"::: {identifier}")
            return [f"API reference of `{identifier}` (generated from its source by mkdocstrings)."]
        self.size += sum(len(x) + 1 for x in lines)
        return lines

    def _inline(self, path: str, lines: list[str], depth: int) -> list[str]:
        """Included markdown (the file at `path`) with its own includes resolved, up to
        MAX_DEPTH levels: a page that includes itself stops there."""
        return self._nested(path, lines, depth + 1) if depth + 1 < MAX_DEPTH else lines

    def _nested(self, page: str, lines: list[str], depth: int) -> list[str]:
        out: list[str] = []
        spans = any(
            type_tables.TAG_START in x or dumi_demos.TAG_START in x or x.startswith(":::")
            for x in lines
        )
        code = fenced_lines(lines) if self.names or spans else None
        joined = "\n".join(lines) if spans else ""
        tags = include_spans.spanning(joined, lines, code, self.names, self.writerside)
        last = -1  # the last line of a tag read
        for k, line in enumerate(lines):
            if k <= last:
                continue
            if k in tags:
                last = tags[k].end
                out.extend(self.span(page, tags[k], depth))
                continue
            pieces = (
                self.line(page, line, depth, bool(code and code[k])) if self.wants(line) else None
            )
            out.extend([line] if pieces is None else pieces)
        return out

    def span(self, page: str, tag: include_spans.Span, depth: int) -> list[str]:
        """What a tag of include_spans.spanning stands for (include_spans.py reads all but
        Fumadocs' type tables)."""
        files, docs = self.files, self.docs_dir
        if isinstance(tag, mdx_partials.CodeTag):
            nested = self._imported(depth) if depth + 1 < MAX_DEPTH else None
            return include_spans.code_tag(files, docs, self.roots, self.names, page, tag, nested)
        if isinstance(tag, dumi_demos.Demo):
            return include_spans.demo(files, docs, page, tag, depth)
        if isinstance(tag, writerside.CodeRef | writerside.ElementRef) and self.writerside:
            return include_spans.writerside_tag(files, self.writerside, docs, page, tag, depth)
        if isinstance(tag, file_fences.FileFence):
            return include_spans.file_fence(files, docs, self.roots, page, tag)
        if isinstance(tag, mkdocstrings_options.Directive):  # (`::: x` + its `options:`)
            if self.containers and "." not in tag.identifier:
                return list(tag.lines)
            return self._api(tag.identifier, tag.options)
        lines, why = type_tables.render(page, tag, type_tables.Files(docs, tuple(self.roots)))
        self.size += sum(len(x) + 1 for x in lines)
        if why:
            self.types_missing.append(why)
        return lines


def resolve(
    docs_dir: Path,
    source: SourceFile,
    roots: Sequence[Path],
    unresolved: Unresolved | None = None,
    shared: Set[str] = frozenset(),
) -> SourceFile:
    """`source` with its includes resolved (its `body` and `line_map`), but for the MDX partials
    in `shared`; warns in one line about what could not be read, and adds what was missing or
    outside the source roots to `unresolved` (the build's summary; None: warned here too)."""
    expanded = expand(docs_dir, source.path, source.body, roots, shared)
    for line in (expanded.warning or "").splitlines():
        log.warning("%s", line)
    if unresolved is not None:
        unresolved.add(source.path, expanded)
    elif expanded.missing or expanded.outside or expanded.api_missing:
        alone = Unresolved()
        alone.add(source.path, expanded)
        alone.log()
    if not expanded.line_map:
        return source
    return replace(source, body=expanded.body, line_map=expanded.line_map)
