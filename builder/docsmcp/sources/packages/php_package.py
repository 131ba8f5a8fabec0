"""PHP libraries: which `.php` files are the pages phpDocumentor publishes from their PHPDoc
(formats/source/phpdoc.py writes a file's page).

A `.php` file is a page only where the library says which folders are its source:

- **phpdoc.xml** (`phpdoc.dist.xml`, `phpdoc.xml.dist`) in the docs folder: phpDocumentor 3's
  `<version><api><source dsn="."><path>src</path></source>` and its `<ignore><path>`, or
  phpDocumentor 2's `<files><directory>src</directory><file>…</file>` and `<ignore>`
  (PHPMailer's), paths from the file's folder.
- **Else a Doctum configuration** (`doctum.php`, `doctum.conf.php`, `.doctum.php`,
  `doctum-config.php`, at the top or in `config/`, `scripts/`, `docs/` or `doc/`: PHP that
  builds a Symfony Finder): its `->in(…)` folders (`'src'`, `['src']`, `__DIR__ . '/../src'`)
  less its `->exclude(…)` folders.
- **Else composer.json** in the docs folder: its `autoload`'s `psr-4` and `psr-0` folders,
  `classmap` folders and files, and `files` (Guzzle's `src/functions.php`), less
  `exclude-from-classmap` (Symfony's `/Tests/`); a component whose `psr-4` folder is `""` is
  its whole folder (symfony/console).

Inside those folders, tests, fixtures, stubs and `vendor/` are left out by folder name, PHPUnit
tests beside the code by theirs (`*Test.php`, Flysystem's adapters), as is
a file that declares no class, interface, trait, enum or function (a template, a bootstrap
script). Every other `.php` file is code, no page: a tree without either file has no PHP pages.
"""

from __future__ import annotations

import json
import logging
import os
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.sources.files import PHP_SUFFIXES
from docsmcp.sources.globs import GlobError, glob_match
from docsmcp.sources.settings import read_page_text

log = logging.getLogger("docsmcp.sources.packages.php_package")

PHPDOC_FILES = ("phpdoc.xml", "phpdoc.dist.xml", "phpdoc.xml.dist")
COMPOSER_JSON = "composer.json"
_NOT_SOURCE = frozenset(
    {"tests", "fixtures", "fixture", "stubs", "vendor", "node_modules", "benchmarks"}
)
_TEST_FILE = "Test.php"  # PHPUnit's default suffix of a test case's file
_DECLARES = re.compile(
    r"^[ \t]*(?:(?:abstract|final|readonly)\s+)*(?:class|interface|trait|enum|function)\s+&?\w",
    re.M | re.I,
)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_BLOCK = re.compile(r"<(files|source|ignore)\b[^>]*>(.*?)</\1\s*>", re.S | re.I)
_ITEM = re.compile(r"<(directory|file|path)\b[^>]*>([^<]*)</\1\s*>", re.I)
_DOCTUM_NAME = re.compile(r"^\.?doctum[\w.-]*\.php$", re.I)
_DOCTUM_FOLDERS = ("", "config", "scripts", "docs", "doc")
_FINDER_CALL = re.compile(r"->\s*(in|exclude)\s*\(\s*(.*?)\)\s*(?=->|;|\)|$)", re.S)
_PHP_STRING = re.compile(r"(__DIR__\s*\.\s*)?(?:'([^']*)'|\"([^\"]*)\")|(__DIR__)")
_DSN = re.compile(r"<source\b[^>]*\bdsn\s*=\s*\"([^\"]*)\"", re.I)


@dataclass(frozen=True)
class Sources:
    """A library's source: folders and files (from the docs folder), and globs left out."""

    config: str  # the file that named them
    folders: tuple[str, ...]
    files: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()

    def names(self, path: str) -> bool:
        if path in self.files:
            return True
        if not any(f == "" or path.startswith(f"{f}/") for f in self.folders):
            return False
        if any(part.lower() in _NOT_SOURCE for part in path.split("/")[:-1]):
            return False
        if path.endswith(_TEST_FILE):  # (PHPUnit's tests beside the code: Flysystem's adapters)
            return False
        return not any(_excluded(x, path) for x in self.excluded)


def _excluded(pattern: str, path: str) -> bool:
    """composer's `exclude-from-classmap` and phpdoc's `<ignore>`: a glob on the path, a
    folder when it has no wildcard (`/Tests/`)."""
    pattern = pattern.strip().strip("/")
    if not pattern:
        return False
    if not any(c in pattern for c in "*?["):
        return path == pattern or path.startswith(f"{pattern}/") or f"/{pattern}/" in f"/{path}"
    try:
        return glob_match(pattern, path) or glob_match(f"{pattern}/**", path)
    except GlobError:
        return False


def _norm(base: str, rel: str) -> str | None:
    """`rel` (a config's path) from `base`, inside the docs folder, else None."""
    rel = rel.strip().replace("\\", "/")
    if not rel or rel.startswith("/"):
        rel = rel.lstrip("/")
    path = posixpath.normpath(posixpath.join(base, rel)) if (base or rel) else ""
    path = "" if path == "." else path
    return None if path == ".." or path.startswith("../") else path


def from_phpdoc(text: str, config: str) -> Sources:
    """The source folders a phpdoc.xml names (phpDocumentor 3's and 2's shapes)."""
    text = _COMMENT.sub("", text)
    base = posixpath.dirname(config)
    folders: list[str] = []
    files: list[str] = []
    excluded: list[str] = []
    for block in _BLOCK.finditer(text):
        kind = block.group(1).lower()
        root = base
        if kind == "source" and (dsn := _DSN.search(block.group(0))):
            value = dsn.group(1)
            if "://" not in value:
                root = _norm(base, value) or ""
        for item in _ITEM.finditer(block.group(2)):
            value = item.group(2).strip()
            if kind == "ignore":
                excluded.append(value)
                continue
            path = _norm(root, value)
            if path is None:
                log.warning("%s names %s outside the docs folder; it is not read", config, value)
                continue
            (files if item.group(1).lower() == "file" else folders).append(path)
    return Sources(config, tuple(folders), tuple(files), tuple(excluded))


def from_doctum(text: str, config: str) -> Sources:
    """The folders a Doctum configuration's Finder reads: `->in(…)` less `->exclude(…)`. A
    path with `__DIR__` is from the file's folder, a bare one from the docs folder (where
    Doctum is run)."""
    base = posixpath.dirname(config)
    folders: list[str] = []
    excluded: list[str] = []
    for call in _FINDER_CALL.finditer(text):
        for m in _PHP_STRING.finditer(call.group(2)):
            value = m.group(2) if m.group(2) is not None else (m.group(3) or "")
            if call.group(1) == "exclude":
                excluded.append(value)
                continue
            path = _norm(base if (m.group(1) or m.group(4)) else "", value)
            if path is None:
                log.warning("%s names %s outside the docs folder; it is not read", config, value)
            else:
                folders.append(path)
    return Sources(config, tuple(dict.fromkeys(folders)), (), tuple(excluded))


def _doctum_config(docs_dir: Path) -> str | None:
    for folder in _DOCTUM_FOLDERS:
        try:
            names = sorted(e.name for e in os.scandir(docs_dir / folder) if e.is_file())
        except OSError:
            continue
        for name in names:
            if _DOCTUM_NAME.match(name):
                return posixpath.join(folder, name) if folder else name
    return None


def from_composer(text: str, config: str) -> Sources | None:
    """The folders composer.json's `autoload` names; None when it is no JSON object."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        log.warning("%s: not JSON (%s); its PHP API is not read", config, exc)
        return None
    autoload = data.get("autoload") if isinstance(data, dict) else None
    if not isinstance(autoload, dict):
        return None
    base = posixpath.dirname(config)
    folders: list[str] = []
    files: list[str] = []
    for key in ("psr-4", "psr-0"):
        mapping = autoload.get(key)
        for value in mapping.values() if isinstance(mapping, dict) else []:
            for rel in value if isinstance(value, list) else [value]:
                if isinstance(rel, str) and (path := _norm(base, rel)) is not None:
                    folders.append(path)
    for key in ("classmap", "files"):
        items = autoload.get(key)
        for rel in items if isinstance(items, list) else []:
            if not isinstance(rel, str) or (path := _norm(base, rel)) is None:
                continue
            (files if path.lower().endswith(PHP_SUFFIXES) else folders).append(path)
    excluded = autoload.get("exclude-from-classmap")
    excluded = [x for x in excluded if isinstance(x, str)] if isinstance(excluded, list) else []
    return Sources(config, tuple(dict.fromkeys(folders)), tuple(files), tuple(excluded))


def sources(docs_dir: Path, roots: Sequence[Path]) -> Sources | None:
    """The library's source as its docs folder's phpdoc.xml, else its Doctum configuration,
    else composer.json, names it."""
    doctum = _doctum_config(docs_dir)
    for name in (*PHPDOC_FILES, *([doctum] if doctum else []), COMPOSER_JSON):
        if not (docs_dir / name).is_file():
            continue
        text, problem = read_page_text(docs_dir, name, roots)
        if text is None:
            log.warning("%s", problem or f"{name}: unreadable; its PHP API is not read")
            continue
        if name == COMPOSER_JSON:
            return from_composer(text, name)
        found = from_doctum(text, name) if name == doctum else from_phpdoc(text, name)
        if found.folders or found.files:
            return found
    return None


def no_pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The `.php` files of the listing that are no page (see the module's docstring)."""
    php = [p for p in listed if p.lower().endswith(PHP_SUFFIXES)]
    if not php:
        return set()
    found = sources(docs_dir, roots)
    if found is None:
        return set(php)
    out = set()
    for path in php:
        if not found.names(path):
            out.add(path)
            continue
        text, _ = read_page_text(docs_dir, path, roots)
        if text is not None and not _DECLARES.search(text):
            out.add(path)  # (unreadable: the read says why, once)
    return out
