"""What a Docusaurus site publishes, and what else lies in its folder.

A Docusaurus site renders the folders its content plugins read, and nothing else: its docs
(`docs/`, or the `path` its configuration gives a docs plugin, `../docs` for Jest), their
versions (`versioned_docs/`, `<plugin>_versioned_docs/`), its blog (`blog/`) and its pages
(`src/pages/`); `static/` is copied as files. Other markdown in the site's folder is no page of
the site: Agenta's docs folder holds 600 pages of design notes, plans and drafts beside the 800
it publishes, and they outranked the published ones for "custom evaluator" and "what is a
testset"; tRPC's `README.md` ("This website is built using Docusaurus") is one.

`unpublished` gives globs of those (the build leaves them out without a manifest and says so,
init proposes the same excludes: site_build.unbuilt). The configuration is read for
`path: '…'` values naming a folder of the site: a plugin's content folder (a version's `path`
is a URL and names none). When a `path` is written as code (a variable, a template string), what
the site publishes is not known and nothing is left out; `path: '.'` publishes the whole folder.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from docsmcp.sources.site_config import DOCUSAURUS_CONFIGS, read_text

# Folders a Docusaurus site reads by default (the classic preset), relative to its folder;
# `i18n/` holds translations of them (translations.py decides about those).
PUBLISHED = ("docs", "blog", "src/pages", "versioned_docs", "versioned_sidebars", "i18n")
# A `path:` key at the start of a line: a quoted value (group 2), or code (group 3).
_PATH = re.compile(r"""^\s*path\s*:\s*(?:(['"])([^'"\n]*)\1|([^\s'"]))""", re.M)
# Versions of a docs plugin: `<plugin>_versioned_docs/`, and any `versioned_X/` (pnpm's
# `versioned_docs_archived/`), as versions.py reads them.
_VERSIONED = re.compile(r".+_versioned_(?:docs|sidebars)|versioned[-_].+")
_PAGES = (".md", ".mdx", ".markdown")
# Folders that hold no pages of the site and are left to other rules (static/: site_config).
_SKIPPED = frozenset({"static", "node_modules", "build"})
MAX_DEPTH = 3  # levels of folders looked into for a published folder inside


def sites(docs_dir: Path) -> list[tuple[str, str]]:
    """The Docusaurus sites of a docs folder, (folder, its configuration's text): itself ("")
    and each folder in it that holds a Docusaurus configuration."""
    found = [("", _config(docs_dir))]
    try:
        entries = sorted(e.name for e in os.scandir(docs_dir) if e.is_dir())
    except OSError:
        entries = []
    found += [(name, _config(docs_dir / name)) for name in entries if not name.startswith(".")]
    return [(folder, config) for folder, config in found if config]


def _config(folder: Path) -> str:
    for name in DOCUSAURUS_CONFIGS:
        if (folder / name).is_file():
            return read_text(folder / name)
    return ""


def unpublished(docs_dir: Path, site: str, config: str) -> tuple[str, ...]:
    """Globs (of the docs folder) of the markdown in the site folder `site`, whose
    configuration is `config`, that the site does not publish (see the module docstring); ()
    when that is not known."""
    folder = docs_dir / site
    published = set(PUBLISHED)
    for m in _PATH.finditer(config):
        if m.group(3) is not None:
            return ()  # a path made by code
        value = m.group(2).strip()
        if value in (".", "./"):
            return ()  # the whole folder is content
        target = posixpath.normpath(value) if value else ""
        if target and not target.startswith("..") and (folder / target).is_dir():
            published.add(target)
    globs = [f"{site}/{g}" if site else g for g in _outside(folder, "", published, 0)]
    # (a glob without `/` matches at any depth: `/README.md` is the docs folder's own)
    return tuple(g if "/" in g else f"/{g}" for g in globs)


def _outside(folder: Path, rel: str, published: set[str], depth: int) -> list[str]:
    """Globs (relative to the site folder) of what `folder` (at `rel`) holds outside the
    published folders."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    out: list[str] = []
    for entry in entries:
        path = f"{rel}{entry.name}"
        if entry.name.startswith(".") or path in published or _VERSIONED.fullmatch(path):
            continue
        if entry.is_dir(follow_symlinks=False):
            if not rel and entry.name in _SKIPPED:
                continue
            inside = [p for p in published if p.startswith(path + "/")]
            if inside and depth < MAX_DEPTH:
                out += _outside(Path(entry.path), path + "/", published, depth + 1)
            elif not inside:
                out.append(f"{path}/**")
        elif entry.name.endswith(_PAGES):
            out.append(path)
    return out
