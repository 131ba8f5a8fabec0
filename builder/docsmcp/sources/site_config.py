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
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
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
# A Docusaurus site's configuration, whichever of its names (the site's folder holds it).
DOCUSAURUS_CONFIGS = tuple(f"docusaurus.config.{x}" for x in ("js", "ts", "mjs"))
# A Quarto project's configuration (quarto.py), and what Quarto never renders: what starts
# with `_` (a file or a folder).
QUARTO_CONFIG = "_quarto.yml"
QUARTO_EXCLUDES = ("**/_*", "**/_*/**")
# One field of each configuration: the file, the field, and how its title is written.
_SITE_NAME = re.compile(r"""^site_name\s*:\s*['"]?([^'"#\n]+?)['"]?\s*(?:#.*)?$""", re.M)
# (a template string's text before its first `${`: VitePress' `Vite${additionalTitle}`)
_DOCUSAURUS_TITLE = re.compile(r"""^\s{0,4}title\s*:\s*['"`]([^'"`$\n]+)""", re.M)
_TITLES = (
    ("mkdocs.yml", "site_name", _SITE_NAME),
    ("mkdocs.yaml", "site_name", _SITE_NAME),
    ("book.toml", "title", re.compile(r"""^title\s*=\s*['"]([^'"\n]+)['"]""", re.M)),
    ("conf.py", "project", re.compile(r"""^project\s*=\s*['"]([^'"\n]+)['"]""", re.M)),
    # Zola's and Hugo's (a top-level `title = "Zola"`), Quarto's website title, Astro's
    # Starlight (`starlight({ title: 'Starlight' })`, indented like Docusaurus')
    *(
        (name, "title", re.compile(r"""^title\s*=\s*['"]([^'"\n]+)['"]""", re.M))
        for name in ("config.toml", "hugo.toml", "zola.toml")
    ),
    # An ExDoc project's `name: "Phoenix"` in its mix.exs `project` (the first one: `docs:`
    # search entries, deeper, have names too)
    ("mix.exs", "name", re.compile(r'^[ \t]{2,6}name:[ \t]*"([^"\n]+)"', re.M)),
    # An Antora component's title (`title: Asciidoctor PDF`), top-level in antora.yml
    ("antora.yml", "title", re.compile(r"""^title:[ \t]*['"]?([^'"\n]+?)['"]?[ \t]*$""", re.M)),
    (QUARTO_CONFIG, "title", re.compile(r"""^\s{2}title\s*:\s*['"]?([^'"\n]+?)['"]?\s*$""", re.M)),
    *((f"astro.config.{x}", "title", _DOCUSAURUS_TITLE) for x in ("mjs", "ts", "js")),
    *((f".vuepress/config.{x}", "title", _DOCUSAURUS_TITLE) for x in ("ts", "js", "mjs")),
    *((name, "title", _DOCUSAURUS_TITLE) for name in DOCUSAURUS_CONFIGS),
    *((f".vitepress/config.{x}", "title", _DOCUSAURUS_TITLE) for x in ("js", "ts", "mjs", "mts")),
    # (a config split in a folder: Vue Router's `.vitepress/config/shared.ts`)
    *(
        (f".vitepress/config/{n}.{x}", "title", _DOCUSAURUS_TITLE)
        for n in ("index", "shared")
        for x in ("js", "ts", "mjs", "mts")
    ),
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


def read_yaml(path: Path) -> object:
    """A YAML configuration file's value (mkdocs' custom tags, `!!python/name:…` and `!ENV`,
    read as null), or None."""
    import yaml  # (the builder's YAML reader, also used for frontmatter)

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    text = read_text(path)
    try:
        return yaml.load(text, Loader=Loader) if text else None  # noqa: S506 (safe subclass)
    except (yaml.YAMLError, RecursionError):  # (Python's loader: deep nesting is an exception)
        return None


_DOCS_DIR = re.compile(r"""^docs_dir\s*:\s*['"]?([^'"#\n]+?)['"]?\s*(?:#.*)?$""", re.M)


def mkdocs_configs(docs_dir: Path) -> list[Path]:
    """The mkdocs.yml files that may configure `docs_dir`: in it and in its parent (where one
    usually sits beside `docs/`), and one further up (MAX_LEVELS) whose `docs_dir` is this
    folder (Polars' repository root names `docs/source`)."""
    docs_dir = docs_dir.resolve()
    found = [f / n for f in (docs_dir, docs_dir.parent) for n in ("mkdocs.yml", "mkdocs.yaml")]
    out = [f for f in found if f.is_file()]
    for folder in list(docs_dir.parents)[1:MAX_LEVELS]:
        for name in ("mkdocs.yml", "mkdocs.yaml"):
            m = _DOCS_DIR.search(read_text(folder / name))
            if m and (folder / m.group(1).strip()).resolve() == docs_dir:
                return [*out, folder / name]
    return out


def snippet_bases(docs_dir: Path) -> tuple[Path, ...]:
    """The folders pymdownx.snippets' `base_path` names in the mkdocs.yml of `docs_dir`
    (relative to that file's folder, where mkdocs runs), that folder first. Kept per
    configuration file and its modification time (each page with a snippet asks)."""
    configs = mkdocs_configs(docs_dir)
    return _snippet_bases(tuple((c, c.stat().st_mtime_ns) for c in configs))


@lru_cache(maxsize=16)
def _snippet_bases(configs: tuple[tuple[Path, int], ...]) -> tuple[Path, ...]:
    for config, _ in configs:
        data = read_yaml(config)
        extensions = data.get("markdown_extensions") if isinstance(data, dict) else None
        for item in extensions if isinstance(extensions, list) else []:
            options = item.get("pymdownx.snippets") if isinstance(item, dict) else None
            if not isinstance(options, dict):
                continue
            bases = options.get("base_path", ".")
            bases = [bases] if isinstance(bases, str) else bases
            folder = config.parent
            return (folder, *(folder / b for b in bases if isinstance(b, str)))
    return ()


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


def _mkdocs_config(path: Path, depth: int = 0) -> dict:
    """A mkdocs configuration with what it `INHERIT`s (its own keys win), {} when unreadable."""
    data = read_yaml(path)
    if not isinstance(data, dict):
        return {}
    parent = data.get("INHERIT")
    if isinstance(parent, str) and depth < MAX_LEVELS:
        return {**_mkdocs_config(path.parent / parent, depth + 1), **data}
    return data


def mkdocs_excludes(docs_dir: Path, roots: Sequence[Path]) -> tuple[str, ...]:
    """The pages the site's mkdocs configuration leaves out of its build (`exclude_docs` and
    `draft_docs`, gitignore-style lines, its `INHERIT`ed file's too) as globs of the docs
    folder: a name anywhere (`_template.md` -> `**/_template.md`), a path from the docs folder
    (`/drafts/x.md`, `snippets/*`), a folder and what it holds (`snippets/`). A negation (`!x`)
    cannot be written as an exclude: it and what follows are not read. Only a configuration
    inside the source roots `roots` is read (what is built depends on it: *Reading files*)."""
    real_roots = [r.resolve() for r in roots]
    for config in mkdocs_configs(docs_dir):
        real = config.resolve()
        if not any(real == r or r in real.parents for r in real_roots):
            continue
        data = _mkdocs_config(config)
        lines = [
            line.strip()
            for key in ("exclude_docs", "draft_docs")
            if isinstance(data.get(key), str)
            for line in data[key].splitlines()
        ]
        if not lines:
            continue
        globs: list[str] = []
        for line in lines:
            if line.startswith("!"):
                break
            if not line or line.startswith("#"):
                continue
            folder = line.endswith("/")
            pattern = line.strip("/")
            if "/" not in pattern and not line.startswith("/") and not pattern.startswith("**"):
                pattern = "**/" + pattern
            globs.append(pattern + "/**" if folder else pattern)
        return tuple(dict.fromkeys(globs))
    return ()


def _ancestors(docs_dir: Path, roots: Sequence[Path]) -> list[Path]:
    """docs_dir and the folders above it, up to the outermost source root holding it."""
    here = docs_dir.resolve()
    tops = [r.resolve() for r in roots if here == r.resolve() or r.resolve() in here.parents]
    top = min(tops, key=lambda r: len(r.parts)) if tops else here
    out = [here]
    while out[-1] != top and out[-1].parent != out[-1]:
        out.append(out[-1].parent)
    return out


def config_above(docs_dir: Path, roots: Sequence[Path], names: Sequence[str]) -> Path | None:
    """The first of `names` in the nearest folder at or above docs_dir (within the roots); then
    at or above each root (init checks its proposal on a copy of the docs folder elsewhere, the
    folder itself a source root)."""
    for start in (docs_dir, *roots):
        for folder in _ancestors(start, roots):
            for name in names:
                if (folder / name).is_file():
                    return folder / name
    return None
