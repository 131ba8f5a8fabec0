"""The records of the sources stage: a file's chunking `Strategy`, a taxonomy key, a `Manifest`
with its overrides, a `SourceFile` ready to parse, the `Converted` page a reader makes of a
file that is not markdown, and a `Problem` (one line an author can act on).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from docsmcp.model.api import ApiEntry


@dataclass(frozen=True)
class Strategy:
    chunk_by: str = "h2"  # "h1" | "h2" | "h3" | "file"
    # Characters; None = the build's default: 2,500 (chunk.DEFAULT_MAX_CHUNK_SIZE), or less
    # when an embedding provider's context window is smaller (so chunks are not cut when
    # embedded).
    max_chunk_size: int | None = None
    min_chunk_size: int = 0  # 0 = no merging of tiny chunks


# Today's behaviour of the docs-mcp contract, as data: filtering `language` keeps the pages that
# apply to every language visible. Applies when no manifest declares `auto_include` for the key.
DEFAULT_AUTO_INCLUDE: dict[str, dict[str, tuple[str, ...]]] = {
    "language": {"scope": ("global-guide",)}
}


@dataclass(frozen=True)
class TaxonomyKey:
    description: str | None = None
    vector_collapse: bool = False
    # Other key -> values kept visible when this key is filtered; None = not declared.
    auto_include: Mapping[str, tuple[str, ...]] | None = None
    # `version` only: the latest released value (sources/layout/versions.py); None = not declared.
    latest: str | None = None
    # Any other key: the value searched by default (layout/variants.py); None = not declared.
    default: str | None = None
    # folder -> value: the folders the build gave a value of this key (a version layout,
    # variant folders, a manifest's `FOLDER/**` overrides), the bundle's record of each value's
    # folders once the pages agree (sources/layout/value_folders.py). Never read from a manifest.
    folders: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Problem:
    path: str  # POSIX path relative to the docs dir (a file or a manifest)
    line: int | None  # 1-based, when known
    message: str

    def __str__(self) -> str:
        if not self.path:  # about the build as a whole (no files found)
            return self.message
        if self.line is None:
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(frozen=True)
class SourceFile:
    path: str  # POSIX relative path from the docs dir
    text: str  # full text, UTF-8, newlines normalised to \n, no BOM
    body: str  # text with the frontmatter blanked (same line count)
    strategy: Strategy
    metadata: tuple[tuple[str, str], ...]  # sorted (key, value) pairs
    title: str | None  # frontmatter title
    manifest: str | None  # relative path of the governing manifest
    # The frontmatter as canonical JSON (sorted keys; dates and other YAML scalars as strings),
    # shown by get_page: kept as text so the dataclass stays hashable and the bundle exact.
    frontmatter: str = "{}"
    # Where includes (includes.py) made `body` longer: for each line of `body`, the line of
    # `text` it comes from (0-based). Empty: `body` has the lines of `text`.
    line_map: tuple[int, ...] = ()
    # A PDF's text (sources/pdf/): the first line (0-based) of each page, so chunks get page ranges,
    # and the section numbers taken off its headings, (heading line, number). Empty for markdown.
    page_starts: tuple[int, ...] = ()
    section_numbers: tuple[tuple[int, str], ...] = ()
    # Anchors of a converted page (convert.py) that are no heading of its markdown, e.g. the
    # ids of a saved HTML page's API entries: (0-based line, id), for links to resolve.
    anchors: tuple[tuple[int, str], ...] = ()
    # A reST page's Sphinx object descriptions as API entries (lines of `body`, no chunk yet),
    # and the objects its code roles name, (0-based line, name), for xref (rst_objects.py).
    api: tuple[ApiEntry, ...] = ()
    object_refs: tuple[tuple[int, str], ...] = ()
    # The title (or group label) the site's navigation file gives the page (navfiles.py), "" when
    # none does: page-level evidence of the full-text index (indexing/pagefield.py).
    nav_title: str = ""
    # Sphinx labels and the page's title as other pages name them (formats/markdown/link_titles.py):
    # (`label:NAME` or `doc`, title); and the titles of what this page names without a title,
    # (`ref:label` or `doc:path` as written, title), set once every page is read.
    labels: tuple[tuple[str, str], ...] = ()
    link_titles: tuple[tuple[str, str], ...] = ()

    def frontmatter_with(self, *keys: str) -> dict:
        """The frontmatter as a mapping when it holds one of `keys` at its top (a substring
        test first: most pages hold none, and this runs on every page), else {}."""
        if not any(f'"{key}"' in self.frontmatter for key in keys):
            return {}
        try:
            data = json.loads(self.frontmatter)
        except ValueError:
            return {}
        return data if isinstance(data, dict) and any(k in data for k in keys) else {}

    def frontmatter_line(self, key: str) -> int:
        """The line (0-based) of the frontmatter's top-level `key:`, 0 when none is found: the
        line a page's text comes from when a key makes it show another page's."""
        for k, line in enumerate(self.text.split("\n", 100)[:100]):
            if line.startswith(f"{key}:"):
                return k
        return 0


@dataclass(frozen=True)
class Override:
    pattern: str
    strategy: Strategy | None
    metadata: dict[str, str]


@dataclass(frozen=True)
class Manifest:
    """One parsed manifest; an invalid one governs its files with an empty configuration."""

    path: str
    folder: str  # "" for the docs-dir root
    strategy: Strategy = Strategy()
    metadata: dict[str, str] = field(default_factory=dict)
    overrides: tuple[Override, ...] = ()
    taxonomy: dict[str, TaxonomyKey] = field(default_factory=dict)
    instructions: str | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class Converted:
    """What a reader makes of a file that is not markdown (convert.py runs it): the markdown the
    chunker reads and what the file itself says beside it."""

    text: str  # markdown
    title: str | None  # the page title found in the file, if any
    anchors: tuple[tuple[int, str], ...] = ()  # (0-based line of `text`, element id)
    # For each line of `text`, the 0-based line of the source file it comes from (linemap.py).
    line_map: tuple[int, ...] = ()
    api: tuple[ApiEntry, ...] = ()  # objects the page describes (lines of `text`)
    refs: tuple[tuple[int, str], ...] = ()  # (0-based line of `text`, object a role names)
    # The page's own description (AsciiDoc's `:description:`): joins the frontmatter JSON where
    # it has none, where get_page and the page table read it (as MDX exports' does).
    description: str | None = None
