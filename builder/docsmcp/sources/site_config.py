"""What a docs site's own configuration says about it: the small, well-known files a site
generator reads (Mintlify `docs.json`, mkdocs `mkdocs.yml`, Docusaurus `docusaurus.config.*`,
VitePress `.vitepress/config.*`, mdBook `book.toml`, Sphinx `conf.py`), read for one field
each and never indexed.

`corpus_name` gives the bundle a name a person would use when the docs folder's own name says
nothing (`docs/en/docs` was library "en" for FastAPI): the site's title, else the git
repository's name, else the nearest folder with a telling name. It looks in the docs folder and
in the folders above it up to the repository's root (where mkdocs.yml and conf.py usually sit),
at most `MAX_LEVELS` up; only those file names, each at most `MAX_CONFIG_BYTES`.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

# Site configuration files read, at most this many bytes each.
MAX_CONFIG_BYTES = 4 * 1024 * 1024
# Folders above the docs folder searched for a site configuration (without a git repository).
MAX_LEVELS = 3
# Folder names that say nothing about the docs in them (and two-letter language codes).
GENERIC_FOLDERS = frozenset(
    {
        "docs", "doc", "documentation", "src", "site", "content", "contents", "pages", "md",
        "source", "sources", "website", "www", "manual", "guide", "guides", "book", "mdx",
        "markdown", "public", "static", "_build", "build", "html", "tmp", "temp",
    }
)  # fmt: skip
# Translations as sites lay them out (`docs/en/docs`, `i18n/zh-cn`, `page.ja.mdx`): the
# languages docs sites are translated into most (and `cn`, `jp`, `kr`, `tw`, which sites use for
# them), so that a short project name (`vt`, `go`) is not taken for one (translations.py).
LANGUAGE = re.compile(
    r"^(?:en|de|fr|es|it|pt|nl|pl|ru|uk|tr|ja|ko|zh|vi|id|fa|ar|he|hi|cs|sv|da|fi|no|el|hu|ro|th"
    r"|cn|jp|kr|tw)(?:[-_][a-zA-Z]{2,4})?$"
)
# One field of each configuration: the file, the field, and how its title is written.
_SITE_NAME = re.compile(r"""^site_name\s*:\s*['"]?([^'"#\n]+?)['"]?\s*(?:#.*)?$""", re.M)
# (a template string's text before its first `${`: VitePress' `Vite${additionalTitle}`)
_DOCUSAURUS_TITLE = re.compile(r"""^\s{0,4}title\s*:\s*['"`]([^'"`$\n]+)""", re.M)
_TITLES = (
    ("mkdocs.yml", "site_name", _SITE_NAME),
    ("mkdocs.yaml", "site_name", _SITE_NAME),
    ("book.toml", "title", re.compile(r"""^title\s*=\s*['"]([^'"\n]+)['"]""", re.M)),
    ("conf.py", "project", re.compile(r"""^project\s*=\s*['"]([^'"\n]+)['"]""", re.M)),
    *((f"docusaurus.config.{x}", "title", _DOCUSAURUS_TITLE) for x in ("js", "ts", "mjs")),
    *((f".vitepress/config.{x}", "title", _DOCUSAURUS_TITLE) for x in ("js", "ts", "mjs", "mts")),
)


def read_text(path: Path) -> str:
    """A configuration file's text, or "" (missing, too big, unreadable)."""
    try:
        if path.is_file() and path.stat().st_size <= MAX_CONFIG_BYTES:
            return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        pass
    return ""


def read_json(path: Path) -> object:
    """A JSON configuration file's value, or None."""
    try:
        return json.loads(read_text(path) or "null")
    except (ValueError, RecursionError):  # (nesting deeper than Python's stack: not config)
        return None


def generic(name: str) -> bool:
    """Whether a folder name says nothing about the docs in it."""
    return name.lower() in GENERIC_FOLDERS or bool(LANGUAGE.match(name))


def slug(title: str) -> str:
    """A title as a library name: lower case, runs of other characters as one `-`."""
    return re.sub(r"[^a-z0-9._]+", "-", title.lower()).strip("-._")[:64]


def site_title(folder: Path) -> tuple[str, str] | None:
    """(title, where it was found) of the site configured in `folder`, or None."""
    for name in ("docs.json", "mint.json"):
        data = read_json(folder / name)
        if isinstance(data, dict) and isinstance(data.get("name"), str) and data["name"].strip():
            return data["name"].strip(), f"{name} name"
    for name, field, pattern in _TITLES:
        if (m := pattern.search(read_text(folder / name))) and m.group(1).strip():
            return m.group(1).strip(), f"{name} {field}"
    return None


def _git(folder: Path, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


@dataclass(frozen=True)
class CorpusName:
    """A bundle's name (a library id), its title as the site writes it (for descriptions), and
    where both come from (said in the build summary)."""

    name: str
    title: str
    source: str


def corpus_name(docs_dir: Path) -> CorpusName:
    """The bundle's name when none is given."""
    folder = Path(docs_dir).resolve()
    if not generic(folder.name):
        return CorpusName(folder.name, folder.name, "the docs folder's name")
    top = _git(folder, "rev-parse", "--show-toplevel")
    root = Path(top).resolve() if top else None
    here = folder
    for _ in range(MAX_LEVELS + 1):  # up to the repository's root, when there is one
        found = site_title(here)
        if found is not None and slug(found[0]):
            return CorpusName(slug(found[0]), found[0], found[1])
        if here == root or here.parent == here:
            break
        here = here.parent
    if root is not None:
        remote = _git(root, "config", "--get", "remote.origin.url")
        name = re.sub(r"\.git$", "", remote.rstrip("/")).rsplit("/", 1)[-1].rsplit(":", 1)[-1]
        if slug(name):
            return CorpusName(slug(name), name, "the git remote's repository name")
    while generic(folder.name) and folder.parent != folder:
        folder = folder.parent
    name = folder.name or "docs"
    return CorpusName(name, name, "the nearest folder with a telling name")
