"""The tags of a page that span lines and stand for what they name, for includes.py's reader
(which reads them before any line of theirs, and reads Fumadocs' type tables itself,
type_tables.py):

- a component whose `code` prop names imported files (mdx_partials.py);
- Fumadocs' `<auto-type-table>` (type_tables.py);
- Rspress' empty code block naming a file, ```` ```ts file="./x.ts" ```` (file_fences.py);
- dumi's demos, `<code src="./demo.tsx">`, one line but the level of the heading above
  (dumi_demos.py);
- Writerside's code blocks of a file (`{src=…}` under an empty fence) and the elements another
  topic includes (writerside.py);
- a mkdocstrings directive followed by its own indented `options:` block
  (mkdocstrings_options.py), rendered with those options by `_Reader._api`.

Each file is found and read as every include is (`snippet_includes.Files`: the source roots
only), included markdown through `_Reader._inline` (the one depth bound).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from docsmcp.sources.formats.source import apidoc, mkdocstrings_options
from docsmcp.sources.inclusion import dumi_demos, file_fences, mdx_partials, type_tables
from docsmcp.sources.inclusion.snippet_includes import Files
from docsmcp.sources.sites import writerside

# A tag `spanning` finds.
Span = (
    mdx_partials.CodeTag
    | type_tables.Tag
    | dumi_demos.Demo
    | file_fences.FileFence
    | writerside.CodeRef
    | writerside.ElementRef
    | mkdocstrings_options.Directive
)


def spanning(
    body: str,
    lines: list[str],
    code: list[bool] | None,
    names: dict[str, str],
    project: writerside.Project | None,
) -> dict[int, Span]:
    """The tags of `lines` that span lines and stand for what they name, by first line:
    components whose `code` prop names imports (`names`: the page's imports), Fumadocs'
    `<auto-type-table>`, Rspress' code blocks of a file, dumi's demos (which take one line, but
    the level of the heading above), Writerside's code blocks of a file (`{src=…}` under an
    empty fence, in a Writerside `project`)."""
    if code is None:
        return {}
    found: dict[int, Span] = {}
    if file_fences.may_hold(body):
        found.update(file_fences.fences(lines))
    if names:
        found.update(mdx_partials.code_tags(lines, code, names))
    if type_tables.TAG_START in body:
        found.update(type_tables.tags(lines, code))
    if dumi_demos.may_hold(body):
        found.update(dumi_demos.tags(lines, code))
    if project is not None and "{src=" in body:
        found.update(writerside.code_refs(lines))
    if ":::" in body:  # (a mkdocstrings directive with its own `options:` block)
        found.update(apidoc.directives(lines, code))
    return found


def file_fence(
    files: Files, docs_dir: Path, roots: Sequence[Path], page: str, tag: file_fences.FileFence
) -> list[str]:
    """An Rspress code block of a file (file_fences.py); the block as written when it is
    missing."""
    found = file_fences.candidates(page, tag.path, docs_dir, roots)
    text = files.read_first(found, tag.path)
    return list(tag.lines) if text is None else file_fences.block(tag, text)


def demo(files: Files, docs_dir: Path, page: str, demo: dumi_demos.Demo, depth: int) -> list[str]:
    """A dumi demo's title, description and code (dumi_demos.py); its tag as written when
    its file is missing."""
    if demo.hidden:
        return []
    text = files.read_first(dumi_demos.candidates(page, demo.src), demo.src)
    if text is None:
        return [demo.line]
    found = files.found()
    beside = dumi_demos.description_path(found)
    about = None
    if beside != found and (docs_dir / beside).is_file():
        described = files.read_first([beside], beside)
        about = None if described is None else (beside, described)
    inline = lambda path, lines: files.inline(path, lines, depth)  # noqa: E731
    return dumi_demos.render(page, demo, (found, text), about, inline)


def writerside_tag(
    files: Files,
    project: writerside.Project,
    docs_dir: Path,
    page: str,
    tag: writerside.CodeRef | writerside.ElementRef,
    depth: int,
) -> list[str]:
    """A Writerside code block's file, or the element another topic includes."""
    read = writerside.reader(project, page, docs_dir, files.read_first)
    if isinstance(tag, writerside.CodeRef):
        return writerside.block(tag, read("snippet", tag.src), project.variables)
    lines = writerside.element(tag, read("topic", tag.source))
    return files.inline(files.found(), lines, depth) if lines else []


def code_tag(
    files: Files,
    docs_dir: Path,
    roots: Sequence[Path],
    names: dict[str, str],
    page: str,
    tag: mdx_partials.CodeTag,
    nested: Callable[[str, list[str]], list[str]] | None,
) -> list[str]:
    """The imported files a component's `code` prop names (mdx_partials.examples), read as
    pages by `nested` (None: beyond the depth bound)."""

    def read(spec: str) -> tuple[str, str] | None:
        found = mdx_partials.candidates(page, spec, docs_dir, list(roots))
        text = files.read_first(found, spec)
        return None if text is None else (files.found(), text)

    return mdx_partials.examples(tag, names, read, nested)
