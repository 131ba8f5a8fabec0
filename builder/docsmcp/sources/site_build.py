"""What a site's own build leaves out of its pages, from its configuration: the one home of
the rules `docsmcp build` applies without a manifest (and says so in its summary) and `docsmcp
init` proposes as excludes. Each generator's reading lives with that generator (mkdocs in
site_config.py, Quarto's in quarto.py, Hugo's in hugo_site.py, a sidebar page in navfiles.py,
Docusaurus' in docusaurus_site.py); the first rule that applies to a docs folder is taken.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from docsmcp.sources.navigation import navfiles
from docsmcp.sources.site_config import (
    QUARTO_CONFIG,
    QUARTO_EXCLUDES,
    config_above,
    mkdocs_excludes,
    read_text,
)
from docsmcp.sources.sites import (
    docusaurus_site,
    exdoc_site,
    gitbook_site,
    hugo_site,
    rspress_site,
    writerside,
)


def unbuilt(
    docs_dir: Path, roots: Sequence[Path], paths: Sequence[str] = ()
) -> tuple[str, tuple[str, ...]]:
    """(the rule, its globs) of what the site's own build leaves out of its pages: mkdocs'
    `exclude_docs`, a Quarto project's `_` files (quarto.py), what a Hugo site's configuration
    never renders (hugo_site.py), docsify's `_sidebar.md`, `_navbar.md` and `_coverpage.md`,
    a sidebar page (Laravel's `documentation.md`: navfiles.is_sidebar), a GitBook space's
    summary and what lies outside its root (gitbook_site.py), what an ExDoc project
    does not publish (exdoc_site.py), what an Rspress site never routes (rspress_site.py), a
    Docusaurus site's `static/`; ("", ()) when none.
    `paths`: the docs folder's files (a Hugo section's `_index.md` among them may make the
    pages below it headless; an ExDoc project's pages not in its `extras`)."""
    globs = mkdocs_excludes(docs_dir, roots)
    if globs:
        return "mkdocs exclude_docs", globs
    if config_above(docs_dir, roots, (QUARTO_CONFIG,)) is not None:
        return "Quarto's `_` files", QUARTO_EXCLUDES
    if globs := hugo_site.never_rendered(docs_dir, roots, paths):
        # OpenTelemetry's `_includes` fragments: 16 of its pages were include-only text.
        return "Hugo's headless pages (`build: {render: never, list: never}`)", globs
    if (docs_dir / "_sidebar.md").is_file() or "docsify" in read_text(docs_dir / "index.html"):
        # docsify's sidebar, navbar and cover page are parts of every page, no pages
        return "docsify's own files", DOCSIFY_PARTS
    if sidebars := tuple(
        n for n in navfiles.SIDEBAR_PAGES if navfiles.is_sidebar(read_text(docs_dir / n))
    ):
        # Laravel's `documentation.md`: its links to every page outranked the pages, and it
        # titles and orders them (navfiles.py)
        return "the site's sidebar page", sidebars
    project = writerside.find(docs_dir, roots)
    if project is not None and (globs := writerside.unbuilt(project, docs_dir, paths)):
        return "what the Writerside project does not build (topics its trees name)", globs
    space = gitbook_site.find(docs_dir, roots)
    if space is not None and (globs := gitbook_site.unbuilt(space, docs_dir, paths)):
        # its summary is the sidebar (navfiles reads it), and what lies outside its `root`
        return "what the GitBook space does not publish (.gitbook.yaml: summary, root)", globs
    # A Docusaurus site's `static/` is copied as files, never rendered: Ionic's 8,927 code
    # fragments there (imported into pages as props) were pages, 81% of the chunks. Nor is
    # markdown outside its content folders (docusaurus_site.py: Agenta's design notes).
    # An ExDoc project publishes its `extras` and its modules' pages, not CONTRIBUTING.md, its
    # installer's package or `usage-rules/` (Phoenix: 37 such pages).
    # (the docs folder's own mix.exs: the docs folder is a source root)
    if globs := exdoc_site.unpublished(read_text(docs_dir / exdoc_site.MIX_FILE), paths):
        return "what the ExDoc project does not publish (mix.exs `extras`, lib/)", globs
    if globs := rspress_site.unrouted(docs_dir, roots):
        # Rspress' own docs: 7 fragments in `fragments/` and `_` files were pages of their own
        return "what the Rspress site never routes (`route.exclude`, `_` files)", globs
    sites = docusaurus_site.sites(docs_dir)
    if sites:
        globs = [f"{f}/static/**".lstrip("/") for f, _ in sites]
        globs += [g for f, c in sites for g in docusaurus_site.unpublished(docs_dir, f, c)]
        return "what the Docusaurus site does not publish", tuple(globs)
    return "", ()


DOCSIFY_PARTS = ("**/_sidebar.md", "**/_navbar.md", "**/_coverpage.md")
