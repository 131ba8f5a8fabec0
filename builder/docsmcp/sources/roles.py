"""The role of a page (bundle-spec.md, *Page roles*): what kind of page it is, from its path,
title, frontmatter and structure, stored as the built-in taxonomy key `role` so a filter
(`role=changelog`), hit metadata and the runtime's prior (docsmcp_runtime/search/roles.py, the
home of the vocabulary) can use it.

`classify` is a pure function; the first rule that matches wins:

| # | role        | when                                                                        |
|---|-------------|-----------------------------------------------------------------------------|
| 1 | `changelog` | file name CHANGELOG*, CHANGES, HISTORY, NEWS, RELEASES, release-notes*,     |
|   |             | whats-new*, migration*/migrating*, upgrad*, breaking-changes*, a version's  |
|   |             | v5-migration-guide / 3.0-upgrade / 3.8-announcement, a release's            |
|   |             | release-2.6.0 or 1.19.0-notes; or a folder                                  |
|   |             | changelog/, changes/, release-notes/, whatsnew/, migration/, …-releases/ …; |
|   |             | or a title "Changelog", "Release notes", "What's new …", "Migrating …",     |
|   |             | "Upgrading …", "Breaking changes", "Updating to/from … N", "… migration     |
|   |             | guide", "… upgrade guide", "… v0.28.3 release" (a reST page's title is its  |
|   |             | first adorned line); not a move from another tool: a title or file name     |
|   |             | "Migrating from JavaScript", "Coming from Pandas" (no version), nor an      |
|   |             | upgrade*/migrat* file whose title speaks of no change                       |
|   |             | ("nuxt upgrade", a command): those go on to the rules below                 |
| 2 | `index`     | a folder's index/README/overview page that is mostly links (≥ 3 lines of    |
|   |             | text, at least half of them links or cards) and has no code block           |
| 3 | `proposal`  | a folder seps/, rfcs/, peps/, adr(s)/, keps/, proposals/, enhancements/;    |
|   |             | or a file name or title SEP-n / RFC-n / PEP-n / ADR-n / KEP-n; a roadmap    |
| 4 | `blog`      | a folder blog/, posts/, _posts/, announce(ments)/; a file name that starts  |
|   |             | with a date (2024-05-01-x.md) or names an announcement (x-announcement,     |
|   |             | announcing-x); or frontmatter with a date and an author(s)                  |
| 5 | `generated` | SDK model/type pages (docs/models/**, docs/errors/** as Speakeasy and other |
|   |             | generators lay them out); or a "generated … do not edit" comment on top; or |
|   |             | a Sphinx page of autodoc directives (one for every ten lines or more); a    |
|   |             | TypeScript module's page (TypeDoc's, tsdoc.py), a Java class's or           |
|   |             | package's page (Javadoc's, javadoc.py), a Python module's (pdoc's,          |
|   |             | pydoc.py) or a C/C++ header's (Doxygen's), before rule 1                    |
| 5b| the site's  | frontmatter `content_type` the Kubernetes website's layouts read:           |
|   |             | `concept` a concept, `task` and `tutorial` a guide, `reference` and         |
|   |             | `tool-reference` a reference (its other values go on to the rules below)    |
| 6 | `concept`   | a folder concepts/, explanation(s)/, architecture/, background/, topics/;  |
|   |             | a file name with "concept" or "architecture"; a title "Understanding …",    |
|   |             | "What is …", "Introduction to …", "Architecture", "… concepts"              |
| 7 | `guide`     | a folder guide(s)/, tutorial(s)/, how-to/, getting-started/, quickstart/,  |
|   |             | learn/, develop/, cookbook/, recipes/, examples/; a file name quickstart,   |
|   |             | getting-started, tutorial*, how-to*, install*, setup, usage; a title "How   |
|   |             | to …", "Getting started", "Quickstart", "Tutorial", "Build a …"; or steps   |
|   |             | (a `<Steps>` component, three "Step N" headings)                            |
| 8 | `reference` | everything else (API pages, specifications, manuals)                       |

Folder and file names are read without an ordering prefix (`7.migration/`, `03.setup.md`, as
Nuxt Content and numbered docs name them).

A manifest (top-level or override `metadata`) or the frontmatter (`metadata`/`mcp_metadata`)
may set `role` instead; its value must be one of the vocabulary (`role_problem`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from docsmcp_runtime.search.roles import (
    BLOG,
    CHANGELOG,
    CONCEPT,
    GENERATED,
    GUIDE,
    INDEX,
    PROPOSAL,
    REFERENCE,
    ROLE_KEY,
    ROLES,
)

from docsmcp.sources.files import (
    C_HEADER_SUFFIXES,
    CSHARP_SUFFIXES,
    JAVA_SUFFIXES,
    JAVASCRIPT_SUFFIXES,
    KOTLIN_SUFFIXES,
    PHP_SUFFIXES,
    PYTHON_SUFFIXES,
    SCALA_SUFFIXES,
    TYPESCRIPT_SUFFIXES,
)
from docsmcp.sources.formats.rst.rst_suffixes import is_rst

ROLE_DESCRIPTION = (
    "Filter results by the kind of page: " + ", ".join(ROLES) + ". Without it, changelogs, "
    "blog posts, proposals and generated pages rank lower unless the query asks for them."
)

# A TypeScript page is the listing TypeDoc generates from the package's TSDoc (as a Sphinx
# autodoc page is), whatever its name (`src/migration.ts` is no migration guide).
# Pages a reader makes of a package's code: TypeDoc's module pages (tsdoc.py, JSDoc's too),
# Javadoc's (javadoc.py), Doxygen's of a header, pdoc's of a Python module (pydoc.py).
_API_CODE = (
    TYPESCRIPT_SUFFIXES
    + JAVASCRIPT_SUFFIXES
    + JAVA_SUFFIXES
    + C_HEADER_SUFFIXES
    + PYTHON_SUFFIXES
    + CSHARP_SUFFIXES
    + KOTLIN_SUFFIXES  # (Dokka's, kdoc.py)
    + PHP_SUFFIXES  # (phpDocumentor's, phpdoc.py)
    + SCALA_SUFFIXES  # (Scaladoc's, scaladoc.py)
)
# The page types the Kubernetes website declares (`content_type`, which picks the page's
# layout) that are roles: its tasks (how to do one thing) and tutorials read as guides; its
# 228 concept pages were half `reference` by their folder and title alone.
_CONTENT_TYPES = {
    "concept": CONCEPT,
    "task": GUIDE,
    "tutorial": GUIDE,
    "reference": REFERENCE,
    "tool-reference": REFERENCE,
}
# CHANGES, HISTORY, NEWS, RELEASES only as the whole name ("history-design-future" is not one).
_CHANGELOG_STEM = re.compile(
    r"^(?:changes|history|news|releases?)$|"
    r"^(?:changelog|release[-_ ]?notes|what'?s[-_ ]?new|whatsnew|migration|migrating|migrate|"
    r"upgrad(?:e|ing)|breaking[-_ ]changes)(?:$|[-_ .].*)|"
    # a version's guide or announcement: `v5-migration-guide` (Svelte), `3.0-upgrade`, Django
    # REST framework's `community/3.8-announcement` (what 3.8 adds and deprecates)
    r"^v?\d+(?:[-_.]\d+)*[-_](?:migration|migrating|upgrade|upgrading|announcement)(?:$|[-_ .].*)|"
    # one release's notes or announcement: pytest's `announce/release-2.6.0.rst` (188 of them),
    # NumPy's `release/1.19.0-notes.rst` (134)
    r"^release[-_]v?\d+(?:[-_.]\d+)+(?:$|[-_ .].*)|"
    r"^v?\d+(?:[-_.]\d+)+[-_](?:notes|release[-_ ]?notes|changelog|changes)$"
)
# The bare names (CHANGES, HISTORY, NEWS, RELEASES) say a changelog only where the title does
# not say something else.
_BARE_STEM = re.compile(r"^(?:changes|history|news|releases?)$")
_CHANGE_WORDS = re.compile(
    r"\b(?:changes?|change ?log|history|news|releases?|unreleased|versions?|what'?s new|updates?)"
    r"\b|^\W*v?\d+(?:\.\d+)+",  # (or a version: `# 1.2.0` opens a CHANGES.md)
    re.I,
)
# A title's words besides the change words, and a heading naming a version (`## v1.7.0`).
_OTHER_WORDS = re.compile(r"\b(?!(?:and|of|the|notes?|log|all|latest|recent)\b)[a-z]{3,}", re.I)
_VERSION_HEADING = re.compile(r"(?m)^#{1,3}[ \t]+\W*v?\d+\.\d+")


def _lists_changes(title: str, head: str) -> bool:
    """Whether a page with a bare changelog name (RELEASES, NEWS) titled `title` lists
    changes: its title says so, and it is nothing but change words (`Release History`), or
    names a version, or versions head the page's sections. Phoenix's `releases.md`,
    "Deploying with Releases", is a guide to Elixir releases."""
    if not _CHANGE_WORDS.search(title):
        return False
    rest = _OTHER_WORDS.findall(_CHANGE_WORDS.sub(" ", title))
    return not rest or bool(re.search(r"\d", title)) or bool(_VERSION_HEADING.search(head))


# A move from another tool or language, not from an older version: a guide ("Migrating from
# JavaScript", TypeScript's handbook; "Coming from Pandas" in Polars' `migration/` folder).
_FROM_ELSEWHERE = re.compile(
    r"^(?:migrat(?:e|ing|ion)|coming|moving|switching|porting|transitioning)[-_ ]+"
    # (not "to": "Migrating to Modern Redux" is a change of the same tool, as "Migrate to
    # GitBook" is a move from others; the words do not tell which)
    r"(?:guide[-_ ]+)?from[-_ ]+(?!v?\d)[^\d]+$",
    re.IGNORECASE,
)
# A page named for upgrading or migrating whose title says something else: Nuxt's
# `commands/upgrade.md` ("nuxt upgrade", a command), pip's `upgrade-options.rst` ("Options that
# control the installation process").
_VERB_STEM = re.compile(r"^(?:upgrad(?:e|ing)|migrat(?:e|ing|ion))(?:$|[-_ .])", re.IGNORECASE)
_CHANGE_TITLE_WORDS = re.compile(
    r"^\W*(?:upgrad|migrat)|upgrading|migrating|migration|(?:upgrade|migrate) (?:to|from|guide)"
    r"|updat|breaking|deprecat|version|release|what'?s new|\d",
    re.IGNORECASE,
)
_CHANGELOG_DIRS = frozenset(
    {
        "changelog",
        "changelogs",
        "changes",
        "release-notes",
        "release_notes",
        "releasenotes",
        "releases",
        "whatsnew",
        "whats-new",
        "what-s-new",
        "migration",
        "migration-guides",
        "migrating",
        "upgrading",
        "upgrade-guides",
        "prerelease",  # Quarto: what each coming release brings
        "prereleases",
    }
)
_CHANGELOG_TITLE = re.compile(
    r"^(?:change ?log|changes\b|release notes|what'?s new|migrat(?:e|ing|ion)\b|"
    r"upgrad(?:e|ing)\b|breaking changes|version history|updat(?:e|ing) (?:to|from)\b.*\d)"
    r"|(?:release notes|changelog)$"
    # "Svelte 5 migration guide", "React 19 Upgrade Guide" (not "Migrations": a database's)
    r"|\b(?:migration|upgrade) guide\b"
    # one release's announcement: "DrizzleORM v0.28.3 release", "Vite 5.1 release"
    r"|\bv?\d+(?:\.\d+)+ release$",
    re.IGNORECASE,
)
# An ordering prefix of a folder or file name, left out before the rules read it (Nuxt Content:
# `7.migration/4.meta.md`; `01-intro.md`): a letter must follow, so a dated name stays whole.
# xref_resolve reads link routes without it too (`/docs/getting-started/installation`).
ORDER_PREFIX = re.compile(r"^\d+[._-](?=[a-z])")
_INDEX_STEMS = frozenset({"index", "_index", "readme", "overview", "summary", "home"})
_PROPOSAL_DIRS = frozenset(
    {"seps", "sep", "rfcs", "rfc", "peps", "pep", "adr", "adrs", "keps", "proposals",
     "enhancements", "decisions"}
)  # fmt: skip
_PROPOSAL_NAME = re.compile(r"^(?:sep|rfc|pep|adr|kep)(?:[-_ ]?\d+\b|$)", re.IGNORECASE)
# A roadmap says what is planned, not what the software does today: a proposal's kind of page
# (the MCP roadmap's "HTTP-native transport unification" ranked first for "stdio or remote HTTP
# transport, which to pick").
_ROADMAP = re.compile(r"^(?:(?:product|project|development)[-_ ])?roadmap$", re.IGNORECASE)
_BLOG_DIRS = frozenset({"blog", "blogs", "posts", "_posts", "announcements", "announce"})
_DATED = re.compile(r"^\d{4}-\d{2}-\d{2}[-_]")
# An announcement by name: `kickstarter-announcement`, `announcing-vite5` (not an API's
# `announcements-api`).
_ANNOUNCEMENT = re.compile(r"^announcing[-_]|^announcement$|[-_]announcement$")
_GENERATED_DIRS = frozenset({"models", "errors", "sdkerrors"})
_AUTODOC = re.compile(r"^[ \t]*\.\.[ \t]+(?:py:)?auto\w+::", re.MULTILINE)
# A comment saying the page was generated. Not tfplugindocs' `<!-- schema generated by
# tfplugindocs -->`, which marks only the argument and attribute lists of a page written by
# hand around them: every Terraform provider's resource page, the reference of its resource
# (terraform-provider-kubernetes: 110 of 121 pages were ranked as generated listings).
_GENERATED_COMMENT = re.compile(
    r"<!--[^>]*(?:auto-?generated|(?<!schema )generated by|do not edit)[^>]*-->", re.IGNORECASE
)
_CONCEPT_DIRS = frozenset(
    {"concepts", "concept", "core-concepts", "explanation", "explanations", "architecture",
     "background", "topics", "understanding", "fundamentals"}
)  # fmt: skip
_CONCEPT_TITLE = re.compile(
    r"^(?:understanding|what is|what are|introduction to|architecture|about)\b|concepts?$",
    re.IGNORECASE,
)
_GUIDE_DIRS = frozenset(
    {"guide", "guides", "tutorial", "tutorials", "how-to", "howto", "how-tos", "how-to-guides",
     "getting-started", "quickstart", "quick-start", "learn", "develop", "cookbook", "recipes",
     "examples", "walkthroughs"}
)  # fmt: skip
_GUIDE_STEM = re.compile(
    r"^(?:quick-?start|getting-started|get-started|tutorial|how-?to|install|installation|setup|"
    r"usage|walkthrough)(?:$|[-_ .].*)"
)
_GUIDE_TITLE = re.compile(
    r"^(?:how to|getting started|get started|quick ?start|tutorial|build (?:a|an|your)\b|"
    r"step[- ]by[- ]step|installing|installation)",
    re.IGNORECASE,
)
_STEP_HEADING = re.compile(r"^#{2,4}\s+step\s+\d", re.IGNORECASE | re.MULTILINE)
_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
# A reST section title: a line of text under (and maybe over) a line of one adornment character.
_RST_TITLE = re.compile(
    r"^(?![=\-~*#^\"+`:.])(\S[^\n]*?)[ \t]*\n([=\-~*#^\"+`])\2{2,}[ \t]*$", re.M
)
_LINK = re.compile(r"\]\(|<a\s|\bhref=", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(?:```|~~~)")
_TAG_ONLY = re.compile(r"^\s*</?[A-Za-z][^>]*>?\s*$")
# Only the top of a page is read for structure: a landing page says what it is early.
_STRUCTURE_CHARS = 20_000


def role_problem(key: object, value: object) -> str | None:
    """Why a metadata entry setting `role` is unacceptable (a value outside the vocabulary,
    compared case-insensitively), or None."""
    if key != ROLE_KEY or not isinstance(value, str) or value.strip().lower() in ROLES:
        return None
    return f"role {value.strip()!r} is not a page role; use one of: {', '.join(ROLES)}"


def classify(path: str, title: str | None, frontmatter: Mapping, body: str) -> str:
    """The role of the page at `path` (relative to the docs folder), with its frontmatter
    `title` (or None), parsed `frontmatter` and `body` (the text after the frontmatter)."""
    parts = [ORDER_PREFIX.sub("", part) for part in path.lower().split("/")]
    folders, name = parts[:-1], parts[-1]
    if name.endswith(_API_CODE):  # a page a reader makes of a package's code (read only there)
        return GENERATED
    stem = name.rsplit(".", 1)[0] if "." in name else name
    head = body[:_STRUCTURE_CHARS]
    if title is None and (h1 := (_RST_TITLE if is_rst(name) else _H1).search(head)):
        title = h1.group(1)
    title = (title or "").strip()
    if _FROM_ELSEWHERE.match(title) or _FROM_ELSEWHERE.match(stem):
        pass  # (a guide: the rules below)
    elif _BARE_STEM.match(stem) and title and not _lists_changes(title, head):
        pass  # `releases.mdx` titled "Sequelize Versioning Policy": its support tables
    elif _VERB_STEM.match(stem) and title and not _CHANGE_TITLE_WORDS.search(title):
        pass
    elif (
        _CHANGELOG_STEM.match(stem)
        or any(f in _CHANGELOG_DIRS or f.endswith(("-releases", "_releases")) for f in folders)
        or _CHANGELOG_TITLE.search(title)
    ):
        return CHANGELOG
    if stem in _INDEX_STEMS and _mostly_links(head):
        return INDEX
    if (
        any(f in _PROPOSAL_DIRS for f in folders)
        or _PROPOSAL_NAME.match(stem)
        or _PROPOSAL_NAME.match(title)
        or _ROADMAP.match(stem)
        or _ROADMAP.match(title)
    ):
        return PROPOSAL
    if (
        any(f in _BLOG_DIRS for f in folders)
        or _DATED.match(stem)
        or _ANNOUNCEMENT.search(stem)
        or ("date" in frontmatter and ("author" in frontmatter or "authors" in frontmatter))
    ):
        return BLOG
    if _generated(folders, body) or _GENERATED_COMMENT.search(head[:2000]) or _autodoc_page(body):
        return GENERATED
    if declared := _CONTENT_TYPES.get(str(frontmatter.get("content_type", "")).strip().lower()):
        return declared
    if (
        any(f in _CONCEPT_DIRS for f in folders)
        or "concept" in stem
        or "architecture" in stem
        or _CONCEPT_TITLE.search(title)
    ):
        return CONCEPT
    if (
        any(f in _GUIDE_DIRS for f in folders)
        or _GUIDE_STEM.match(stem)
        or _GUIDE_TITLE.match(title)
        or "<Steps>" in head
        or len(_STEP_HEADING.findall(head)) >= 3
    ):
        return GUIDE
    return REFERENCE


def _autodoc_page(body: str) -> bool:
    """A Sphinx API page written as autodoc directives, one for every ten lines or more
    (Flask's and requests' `api.rst`; not pytest's reference, mostly written by hand): its text
    is the code's docstrings, a listing of the API as SDK model pages list types."""
    if ".. auto" not in body:
        return False
    directives = len(_AUTODOC.findall(body))
    return directives >= 5 and directives * 10 >= sum(1 for x in body.splitlines() if x.strip())


# What a generated type page holds: its fields or values (Speakeasy's `## Fields`).
_TYPE_SECTION = re.compile(
    r"^#{2,3}[ \t]+(?:fields|values|supported types|properties|members)\b", re.M | re.I
)
# ... or so little that it is one (an enum of two lines).
_TYPE_PAGE_CHARS = 1000


def _generated(folders: list[str], body: str) -> bool:
    """Type pages of an SDK generator: `docs/models/...` or `docs/errors/...` holding a type's
    fields or values, or next to nothing. An ORM's guides to its models (Sequelize's
    `docs/models/defining-models.mdx`) are no such pages."""
    return any(
        folders[i] == "docs" and folders[i + 1] in _GENERATED_DIRS for i in range(len(folders) - 1)
    ) and (len(body) < _TYPE_PAGE_CHARS or _TYPE_SECTION.search(body) is not None)


def _mostly_links(text: str) -> bool:
    """Whether at least half of the text lines (not headings or tag-only lines) link
    somewhere, with three such lines at least, and no code: a landing page. (An SDK's README
    links every operation too, but shows code.)"""
    text_lines = links = 0
    for line in text.splitlines():
        if _FENCE.match(line):
            return False  # code: a page that shows how, not a list of where
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or set(stripped) <= set("|-: "):
            continue
        if _LINK.search(stripped):
            links += 1
        elif not _TAG_ONLY.match(stripped):
            text_lines += 1
    return links >= 3 and links >= text_lines
