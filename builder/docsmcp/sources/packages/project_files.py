"""Where a project of the tree is, for the package readers: a project is the folder holding its
marker file (a gemspec, a .cabal file, a build script, go.mod), and a source file belongs to
the nearest such folder from its own up. One home for the walks up the tree that Ruby, Haskell,
Perl, Protocol Buffers, Solidity, Kotlin, Java, Scala, Go, C and Dokka's include files each
wrote, and for reading the files a reader looks into (Ruby, Haskell, Dart, Swift and Java each
had the same `_text`).
"""

from __future__ import annotations

import logging
import os
import posixpath
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

from docsmcp.sources.settings import read_page_text

log = logging.getLogger(__name__)


def folders_above(paths: Iterable[str]) -> list[str]:
    """Every folder holding one of `paths` and every folder above it ("" for the docs folder),
    shallowest first (then by name): where a project's marker file can stand."""
    folders: set[str] = set()
    for p in paths:
        parts = p.split("/")[:-1]
        folders.update("/".join(parts[:k]) for k in range(len(parts) + 1))
    return sorted(folders, key=lambda f: (f.count("/"), f))


def nearest_folder(path: str, folders: Collection[str]) -> str | None:
    """The nearest of `folders` holding the file `path`: its own folder, else each one above
    it up to the docs folder (""); None when none holds it."""
    parts = path.split("/")[:-1]
    for k in range(len(parts), -1, -1):
        folder = "/".join(parts[:k])
        if folder in folders:
            return folder
    return None


def marked_folder(
    docs_dir: Path, folder: str, names: Sequence[str], seen: dict[str, str | None] | None = None
) -> str | None:
    """The nearest folder from `folder` up (inside the docs folder) holding a file named one of
    `names`, None when none does. `seen` (folder -> its answer) spares the walk for the
    folders a tree's files share: every folder walked through is written to it."""
    chain: list[str] = []
    found: str | None = None
    while True:
        if seen is not None and folder in seen:
            found = seen[folder]
            break
        chain.append(folder)
        if any(os.path.isfile(Path(docs_dir) / folder / name) for name in names):
            found = folder
            break
        if not folder:
            break
        folder = posixpath.dirname(folder)
    if seen is not None:
        for f in chain:
            seen[f] = found
    return found


def read_project_file(docs_dir: Path, roots: Sequence[Path], path: str) -> str | None:
    """The text of `path`, a file a package reader looks into (a manifest, a build script, a
    source file an export or template names), newlines as `\n`; None when there is no such
    file, and None with a warning naming it when it cannot be read."""
    if not (Path(docs_dir) / path).is_file():
        return None
    text, problem = read_page_text(docs_dir, path, roots)
    if problem is not None:
        log.warning("%s", problem)
    return text
