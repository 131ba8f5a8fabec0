"""Load a docs folder into a `Corpus`: every selected file (markdown, llms-full.txt pages, PDFs,
converted pages) with its settings, the taxonomy, instructions, and all problems at once
(`load_corpus`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from pathlib import Path

from docsmcp.model.source import Manifest, Problem, SourceFile, TaxonomyKey
from docsmcp.sources import site_passes
from docsmcp.sources.discover import Entry, glob_problem, matches_any, scan, selected
from docsmcp.sources.files import is_llms_full, shown, source_roots
from docsmcp.sources.formats import openapi, openapi_docs
from docsmcp.sources.formats.llms_full import split_llms_full
from docsmcp.sources.formats.markdown import home_page, link_titles
from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.inclusion import includes
from docsmcp.sources.inclusion.mdx_partials import is_partial_page
from docsmcp.sources.layout.translations import Translations
from docsmcp.sources.layout.translations import detect as detect_translations
from docsmcp.sources.layout.variants import Variants
from docsmcp.sources.layout.variants import detect as detect_variants
from docsmcp.sources.layout.versions import KEY as VERSION_KEY
from docsmcp.sources.layout.versions import Layout
from docsmcp.sources.layout.versions import detect as detect_versions
from docsmcp.sources.manifest import _governing, _quote, _relative_to, load_manifest
from docsmcp.sources.navigation.navfiles import Nav, read_nav
from docsmcp.sources.packages import rust_reexports
from docsmcp.sources.pdf.extract import PdfOptions, PdfSummary, is_pdf
from docsmcp.sources.pdf.source import load_pdf
from docsmcp.sources.settings import configure_file, load_file, read_page_text
from docsmcp.sources.site_build import unbuilt
from docsmcp.sources.sites import autosummary_pages, hugo_site
from docsmcp.sources.taxonomy_keys import corpus_taxonomy

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Corpus:
    files: tuple[SourceFile, ...]  # sorted by path
    taxonomy: dict[str, TaxonomyKey]  # keys sorted
    instructions: str | None
    problems: tuple[Problem, ...]
    pdfs: tuple[PdfSummary, ...] = ()  # the PDFs read, for the build summary
    # What the site's navigation files say (navfiles.py): titles, order, files read and not.
    nav: Nav = field(default_factory=lambda: Nav({}, {}))
    # Translated pages left out (docs without a manifest: sources/layout/translations.py).
    translations: Translations = field(default_factory=Translations)
    # Pages the site does not publish (frontmatter `draft: true` or `published: false`: Hugo,
    # Docusaurus, Starlight, Jekyll), left out: their paths.
    drafts: tuple[str, ...] = ()
    # Pages that only send the reader to another (a refresh, `redirect_to`), left out.
    redirects: tuple[str, ...] = ()
    # Pages the site's own build leaves out (site_build.unbuilt), left out, and its rule.
    site_excluded: tuple[str, ...] = ()
    site_rule: str = ""
    # Pages whose front matter says Hugo never renders them (hugo_site.unrendered), left out.
    unrendered: tuple[str, ...] = ()
    # A Hugo configuration that would leave pages out, outside the source roots (hugo_site.py).
    unread_config: Path | None = None
    # Pages read outside the docs folder: folder -> its path from the docs (api_sources.url_paths)
    url_paths: tuple[tuple[str, str | None], ...] = ()

    def unpublished_line(self) -> str:
        """The build summary's lines on the pages left out as the site does not publish them
        (drafts, redirects, what its own build leaves out); "" when none."""
        lines = []
        if self.drafts:
            lines.append(
                f"drafts: {len(self.drafts)} pages marked `draft: true` (or `published: false`) "
                f"left out, as the site does not publish them ({_first(self.drafts)})"
            )
        if self.redirects:
            lines.append(
                f"redirects: {len(self.redirects)} pages that only send the reader to another "
                f"(a refresh, `redirect_to` or `redirect_url`) left out ({_first(self.redirects)})"
            )
        if self.site_excluded:
            lines.append(
                f"{self.site_rule}: {len(self.site_excluded)} pages left out, as the site's "
                f"build does ({_first(self.site_excluded)}); a manifest decides instead"
            )
        if self.unrendered:
            lines.append(
                f"Hugo's headless pages: {len(self.unrendered)} pages whose front matter says the"
                " site never renders them (`_build: {render: never, list: never}`, a headless"
                f" bundle) left out ({_first(self.unrendered)})"
            )
        if self.unread_config is not None:
            root = self.unread_config.parent
            root = root.parent.parent if root.name == "_default" else root
            lines.append(
                f"{self.unread_config} leaves pages out of the site (`build: {{render: never}}`);"
                f" it is outside the source roots: add --source-root {root}"
            )
        return "\n  ".join(lines)


# --- corpus ----------------------------------------------------------------------------------


def _refuse(entry: Entry, problems: list[Problem]) -> None:
    """A Problem for a refused entry; a warning for one skipped (a FIFO, socket or device is
    not documentation, but never worth failing a build)."""
    if entry.skip:
        log.warning("%s: skipped, it is %s", shown(entry.path), entry.skip)
    elif entry.refusal:
        problems.append(Problem(shown(entry.path), None, entry.refusal))


def _instructions(manifests: Sequence[Manifest]) -> str | None:
    root = next((m for m in manifests if m.folder == ""), None)
    if root is not None and root.instructions is not None:
        return root.instructions
    return next((m.instructions for m in manifests if m.instructions is not None), None)


def _flag_problems(include: Sequence[str], exclude: Sequence[str]) -> list[Problem]:
    return [
        Problem(".", None, f"{flag} {_quote(pattern)} {msg}")
        for flag, patterns in (("--include", include), ("--exclude", exclude))
        for pattern in patterns
        if (msg := glob_problem(pattern))
    ]


def _left_out(
    path: str, manifests: Mapping[str, Manifest], include: Sequence[str], exclude: Sequence[str]
) -> bool:
    """Whether the globs (the flags', then the governing manifest's) leave a file out."""
    if not selected(path, include, exclude):
        return True
    manifest = _governing(manifests, path)
    relative = _relative_to(path, manifest.folder) if manifest else path
    return manifest is not None and not selected(relative, manifest.include, manifest.exclude)


# A name no file can have: an exclude glob that matches `folder/<it>` (`folder/**`,
# `folder/*`) matches whatever the folder holds.
_ANY_CHILD = "\x00"


def _folder_left_out(path: str, manifests: Mapping[str, Manifest], exclude: Sequence[str]) -> bool:
    """Whether exclude globs (the flags', the governing manifest's) leave out all of a folder."""
    manifest = _governing(manifests, path)
    relative = _relative_to(path, manifest.folder) if manifest else path
    globs = [(exclude, path)]
    if manifest is not None:
        globs.append((manifest.exclude, relative))
    return any(
        matches_any(patterns, folder) or matches_any(patterns, f"{folder}/{_ANY_CHILD}")
        for patterns, folder in globs
    )


def _load_llms_full(
    docs_dir: Path,
    path: str,
    roots: Sequence[Path],
    manifests: Mapping[str, Manifest],
    include: Sequence[str],
    exclude: Sequence[str],
) -> tuple[list[SourceFile], list[Problem]]:
    """The pages of an llms-full.txt (read under the limits of any markdown file), each at
    ``path/NAME`` (formats/llms_full.py), configured like a file there and selected by the globs."""
    text, problem = read_page_text(docs_dir, path, roots)
    if text is None:
        return [], [problem] if problem else []
    files, problems = [], []
    for page in split_llms_full(text):
        page_path = f"{path}/{page.name}"
        if _left_out(page_path, manifests, include, exclude):
            continue
        source, found = configure_file(
            page_path,
            page.text,
            _governing(manifests, page_path),
            frontmatter=False,
            title=page.title,
        )
        files.append(source)
        problems.extend(found)
    return files, problems


def _first(paths: Sequence[str]) -> str:
    return ", ".join(paths[:3]) + (", ..." if len(paths) > 3 else "")


_REFRESH = re.compile(r":http-equiv=refresh:|<meta[^>]*http-equiv=[\"']?refresh", re.IGNORECASE)
_CODE_SPAN = re.compile(r"(`+)[^`]+?\1")


def _redirects(source: SourceFile) -> bool:
    """Whether the page only sends its reader to another: a Sphinx stub's `.. meta::` refresh
    (pip's 15 "This page has moved" pages answered queries), an HTML refresh, Jekyll's
    `redirect_to`, docfx's `redirect_url` (docfx's own docs: 13 stubs)."""
    if "redirect_to" in source.frontmatter or "redirect_url" in source.frontmatter:
        return True
    head = source.body[:2000]
    if "refresh" not in head.lower() or _REFRESH.search(head) is None:
        return False
    # A tag shown as code is no refresh (MDN's pages on the Refresh header and the 511 status
    # were left out): the lines outside fences, without their code spans.
    lines = head.split("\n")
    shown = (x for x, code in zip(lines, fenced_lines(lines), strict=True) if not code)
    return _REFRESH.search(_CODE_SPAN.sub("", "\n".join(shown))) is not None


def _is_draft(source: SourceFile) -> bool:
    """Whether the page's frontmatter says the site does not publish it."""
    data = source.frontmatter_with("draft", "published")
    return data.get("draft") is True or data.get("published") is False


def _names(manifests: Mapping[str, Manifest], key: str) -> bool:
    """Whether a manifest says anything about `key` (then no folder is detected for it)."""
    return any(
        key in m.taxonomy or key in m.metadata or any(key in o.metadata for o in m.overrides)
        for m in manifests.values()
    )


def _size(docs_dir: Path) -> Callable[[str], int]:
    """A file's size in bytes by its path under `docs_dir` (0 when it cannot be read)."""

    def size(path: str) -> int:
        try:
            return (docs_dir / path).stat().st_size
        except OSError:
            return 0

    return size


class _Versioned:
    """The governing manifest of a file in a version (or variant) folder, with the folder's
    value as manifest-wide metadata (the weakest setting: overrides and frontmatter still win).
    One object per (manifest, values), so known_files.py digests each once, and a changed
    layout changes the digest (the file is read again)."""

    def __init__(self, layout: Layout, variants: Variants) -> None:
        self.found = [(VERSION_KEY, layout.value_of)]
        if variants.key is not None:
            self.found.append((variants.key, variants.value_of))
        self._made: dict[tuple[str | None, tuple[tuple[str, str], ...]], Manifest] = {}

    def manifest(self, governing: Manifest | None, path: str) -> Manifest | None:
        values = tuple((k, v) for k, value_of in self.found if (v := value_of(path)) is not None)
        if not values:
            return governing
        key = (governing.path if governing else None, values)
        if key not in self._made:
            base = governing or Manifest(path="", folder="")
            self._made[key] = replace(base, metadata={**base.metadata, **dict(values)})
        return self._made[key]


def _finish(
    docs_dir: Path,
    source: SourceFile,
    roots: Sequence[Path],
    unresolved: includes.Unresolved,
    shared: Set[str] = frozenset(),
) -> SourceFile:
    """A page read, with its includes and OpenAPI operations in (`shared`: includes.resolve)."""
    source = includes.resolve(docs_dir, source, roots, unresolved, shared)
    source = openapi.with_operation(docs_dir, source, roots)
    source = openapi.with_gitbook_blocks(docs_dir, source, roots)
    source = openapi_docs.with_api_operation(source)
    source = home_page.with_home_text(source)
    labels = link_titles.defined(source)  # (what an include brought is the page's, as in Sphinx)
    anchors = source.anchors or link_titles.myst_anchors(source)
    return replace(source, labels=labels, anchors=anchors) if labels or anchors else source


def _with_partials(
    docs_dir: Path,
    files: list[SourceFile],
    roots: Sequence[Path],
    unresolved: includes.Unresolved,
    unexpanded: Mapping[str, SourceFile],
    unserved: Set[str] = frozenset(),
) -> list[SourceFile]:
    """`files` once MDX partials are settled (mdx_partials.py). A partial one page inlines is
    part of that page, and no page of its own (is_partial_page). One that several pages inline
    is template text (Drizzle's 50 get-started pages each inlined the same "apply changes" steps,
    which took the first five hits from the migrations guide): it stays a page of its own, found
    once, and those pages are read again without it. But a fragment among the docs that is no
    page (`unserved`: the docs' `_` files, what site_build.unbuilt or a manifest leaves out,
    Rspress' `fragments/`) is shown where it is imported, however many pages do: its text is
    no page's else (Rspress' "Routing convention" section was empty in both its pages)."""
    partials = unresolved.partials
    # A partial page inlined by at most one page that stays is dropped; the pages it inlines
    # into count no more (a partial's own partial is its importer's). To a fixpoint: dropping
    # only lowers the counts.
    dropped: set[str] = set()
    while (
        grown := {
            p
            for p, pages in partials.items()
            if p in unserved or (is_partial_page(p) and len(pages - dropped) <= 1)
        }
        - dropped
    ):
        dropped |= grown
    shared = {p for p, pages in partials.items() if p not in unserved and len(pages - dropped) > 1}
    again = {page for p in shared for page in partials[p]} - dropped
    quiet = includes.Unresolved(docs_dir)  # (what they miss was said the first time)
    return [
        _finish(docs_dir, unexpanded[f.path], roots, quiet, shared) if f.path in again else f
        for f in files
        if f.path not in dropped
    ]


def load_corpus(
    docs_dir: Path,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    extra_roots: Sequence[Path] = (),
    pdf: PdfOptions | None = None,
    reuse: Callable[[str, Manifest | None], SourceFile | None] | None = None,
    api_sources: Sequence[Path] = (),
) -> Corpus:
    """Discover, read and configure every markdown file under ``docs_dir``.

    ``reuse(path, governing manifest)`` may give a file as an earlier build read it (without
    its text: known_files.py), which is then not read.

    ``include``/``exclude`` are globs relative to docs_dir. Files are read only inside the
    source roots: docs_dir and ``extra_roots``. ``api_sources`` (among ``extra_roots``) are the
    folders `--api-source` names: a Go module among them is read as pages (go_source.py).
    Raises FileNotFoundError only if docs_dir is not a directory; everything else ends up in
    ``Corpus.problems``.
    """
    docs_dir = Path(docs_dir)
    if not docs_dir.is_dir():
        raise FileNotFoundError(f"docs directory not found (or not a directory): {docs_dir}")
    problems = _flag_problems(include, exclude)
    if problems:
        return Corpus((), {}, None, tuple(problems))
    roots = source_roots(docs_dir, extra_roots)
    listing = scan(docs_dir, extra_roots)
    manifests: dict[str, Manifest] = {}
    for entry in listing.manifests:
        if entry.skip or entry.refusal:
            _refuse(entry, problems)
            continue
        manifest, found = load_manifest(docs_dir, entry.path, roots)
        manifests[manifest.folder] = manifest
        problems.extend(found)
    for entry in listing.folders:
        if not _folder_left_out(entry.path, manifests, exclude):
            _refuse(entry, problems)
    files = []
    drafts: list[str] = []
    redirects: list[str] = []
    pdfs: list[PdfSummary] = []
    unresolved = includes.Unresolved(docs_dir, roots)
    unexpanded: dict[str, SourceFile] = {}  # pages that inlined MDX partials, as read
    nav = read_nav(docs_dir, roots, [e.path for e in listing.markdown])
    # The files that are no page of their own (a generator's partials, a package's other files).
    no_pages = site_passes.parts(docs_dir, roots, listing.markdown, api_sources)
    parts, go, rust = no_pages.paths, no_pages.go, no_pages.rust
    titles = nav.titles
    layout = Layout()
    paths = [
        e.path for e in listing.markdown if not e.skip and not e.refusal and e.path not in parts
    ]
    selected_paths = [p for p in paths if not _left_out(p, manifests, include, exclude)]
    # Docs without a manifest answer in their default language (a manifest decides otherwise).
    translations = detect_translations(selected_paths) if not manifests else Translations()
    # What the site's own build leaves out (mkdocs `exclude_docs`, Quarto's `_` files, ...),
    # unless a manifest decides.
    site_rule, site_excludes = ("", ()) if manifests else unbuilt(docs_dir, roots, paths)
    unbuilt_paths = (
        {p for p in selected_paths if matches_any(site_excludes, p)} if site_excludes else set()
    )
    not_built = translations.files | unbuilt_paths
    if not _names(manifests, VERSION_KEY):  # version folders as users lay them out
        built = (p for p in selected_paths if p not in not_built)
        layout = detect_versions(docs_dir, built, no_pages.versions)
    variants = detect_variants(
        (p for p in selected_paths if p not in not_built),
        _size(docs_dir),
        layout.folders,
        mirrors=not manifests,
    )
    if variants.key is not None and _names(manifests, variants.key):
        variants = Variants()  # the manifest decides
    versioned = _Versioned(layout, variants)
    # (then the pages of Go modules outside the docs folder: go_source.with_api_sources)
    for entry in (*listing.markdown, *(Entry(path) for path in go.outside)):
        if listing.unread(entry.path) or entry.path in parts:
            continue
        if _left_out(entry.path, manifests, include, exclude) or entry.path in not_built:
            continue
        if entry.skip or entry.refusal:
            _refuse(entry, problems)
            continue
        governing = _governing(manifests, entry.path)
        configured = versioned.manifest(governing, entry.path)
        if is_pdf(entry.path):
            source, found, summary = load_pdf(docs_dir, entry.path, configured, roots, pdf)
            if source is not None and governing is None:
                source = replace(source, manifest=None)  # the version came from no manifest
            problems.extend(found)
            if summary is not None:
                pdfs.append(summary)
            if source is not None:
                files.append(source)
            continue
        if is_llms_full(entry.path):
            pages, found = _load_llms_full(docs_dir, entry.path, roots, manifests, include, exclude)
            problems.extend(found)
            files.extend(pages)
            continue
        # A page a nav file titles is read again (the record of known files has no nav title).
        title = titles.get(entry.path, "")
        if reuse is not None and not title and (known := reuse(entry.path, configured)) is not None:
            if _is_draft(known):
                drafts.append(known.path)
            else:
                files.append(known)
            continue
        if entry.path in go.packages:  # (read by the scan, with the package's other files)
            source, found = go.page(entry.path, configured)
        else:
            source, found = load_file(docs_dir, entry.path, configured, roots)
        problems.extend(found)
        if source is not None and _is_draft(source):
            drafts.append(source.path)
            continue
        if source is not None and _redirects(source):
            redirects.append(source.path)
            continue
        if source is not None and governing is None:
            source = replace(source, manifest=None)  # the version came from no manifest
        if source is not None:
            source = replace(source, nav_title=title) if title else source
            if source.path in go.packages:
                files.append(go.gathered(source))
                continue
            if source.path in no_pages.typescript.extra:  # (bases, referenced types)
                source = no_pages.typescript.gathered(source)
            source_read = _finish(docs_dir, source, roots, unresolved)
            files.append(rust_reexports.with_uses(source_read, rust) if rust else source_read)
            if source.path in unresolved.importers:
                unexpanded[source.path] = source
    # The API pages of packages --api-source names outside the docs folder (api_sources.py)
    files += no_pages.api.read(
        roots,
        files,
        problems,
        lambda p: _governing(manifests, p),
        versioned.manifest,
        lambda p: not _left_out(p, manifests, include, exclude),
        lambda top, source: _finish(top, source, roots, unresolved),
    )
    # The pages Sphinx's autosummary generates from the source (NumPy's `generated/`)
    generated = autosummary_pages.stubs(files, docs_dir, roots)
    for stub in generated.stubs:
        if not _left_out(stub.path, manifests, include, exclude):
            governing = _governing(manifests, stub.path)
            source, found = configure_file(
                stub.path, stub.text, governing, frontmatter=False, title=stub.title
            )
            problems.extend(found)
            files.append(_finish(docs_dir, source, roots, unresolved))
    unresolved.log()
    # Fragments among the docs that are no pages (the site never serves them, a manifest
    # leaves them out, `_` files): shown where they are imported (_with_partials).
    kept = {f.path for f in files}
    unserved = {p for p in paths if p not in kept or is_partial_page(p)}
    files = _with_partials(docs_dir, files, roots, unresolved, unexpanded, unserved)

    def reread(path: str) -> SourceFile | None:
        configured = versioned.manifest(_governing(manifests, path), path)
        source, _ = load_file(docs_dir, path, configured, roots)
        return None if source is None else _finish(docs_dir, source, roots, unresolved)

    files = site_passes.after_reading(files, docs_dir, roots, reread, generated)
    # Pages Hugo never renders by their own front matter, read until here for the shortcodes
    # that show them (Kubernetes' feature gates): no pages.
    unrendered = hugo_site.unrendered(files)
    files = [f for f in files if f.path not in unrendered] if unrendered else files
    ordered = sorted(manifests.values(), key=lambda m: m.path)
    taxonomy, found = corpus_taxonomy(ordered, files, layout, variants)
    problems.extend(found)
    # Stable sort: a file's problems stay in the order they were found within one line.
    problems.sort(key=lambda p: (p.path, p.line or 0))
    return Corpus(
        files=tuple(files),
        taxonomy=taxonomy,
        instructions=_instructions(ordered),
        problems=tuple(problems),
        pdfs=tuple(pdfs),
        nav=nav,
        translations=translations,
        drafts=tuple(sorted(drafts)),
        redirects=tuple(sorted(redirects)),
        site_excluded=tuple(sorted(unbuilt_paths)),
        unrendered=tuple(sorted(unrendered)),
        site_rule=site_rule,
        unread_config=None if manifests or site_rule else hugo_site.outside_config(docs_dir, roots),
        url_paths=no_pages.url_paths(f.path for f in files) if no_pages.mounts else (),
    )
