"""How an include finds and reads its file, shared by every include dialect (includes.py's
reader is one): where a name may be (beside the page, in the docs folder, in pymdownx's
`base_path` folders, in each source root), and the text of the first candidate that exists,
read only inside the source roots and within the size limits. What could not be read is kept
in include_report.Failures for the page's warning and the build's summary.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.common.limits import MAX_FILE_BYTES
from docsmcp.sources.files import Refused, read_file
from docsmcp.sources.inclusion.include_report import Failures
from docsmcp.sources.site_config import snippet_bases


@dataclass(frozen=True)
class FirstFile:
    """What reading the first of several candidate files found: the path read and its text,
    else why none was (a file that could not be read, or one outside the source roots)."""

    rel: str | None = None  # the candidate read (docs_dir-relative)
    text: str = ""  # its text, newlines normalised
    reason: str | None = None  # why the last unreadable candidate could not be read
    outside: str | None = None  # the real path of the first candidate outside the roots


def read_first_file(docs_dir: Path, roots: Sequence[Path], candidates: list[str]) -> FirstFile:
    """The first of `candidates` (docs_dir-relative) that is a file, read only inside the
    source roots and within MAX_FILE_BYTES: the one home of that reading for every include
    dialect and type_tables.py."""
    reason = outside = None
    for rel in dict.fromkeys(candidates):
        if not os.path.isfile(os.path.join(docs_dir, rel)):
            continue
        try:
            raw = read_file(docs_dir, rel, roots, MAX_FILE_BYTES)
        except Refused as exc:
            if "outside" in str(exc):
                outside = outside or os.path.realpath(os.path.join(docs_dir, rel))
            else:
                reason = str(exc)
            continue
        except OSError as exc:
            reason = exc.strerror or "cannot be read"
            continue
        text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
        return FirstFile(rel, text)
    return FirstFile(reason=reason, outside=outside)


class FileReading:
    """The files a page's includes read: the reading state of includes._Reader."""

    def __init__(self, docs_dir: Path, roots: Sequence[Path], failures: Failures) -> None:
        self.docs_dir = docs_dir
        self.roots = roots
        self.failures = failures
        self.size = 0  # characters read, for the page's size limit
        self._found = ""  # the path _read_first read last
        self._bases: tuple[Path, ...] | None = None  # pymdownx.snippets' base_path (mkdocs.yml)

    def _candidates(self, page: str, name: str) -> list[str]:
        """Where `name` may be, relative to docs_dir: beside the page (mdBook), in the docs
        folder, in the folder holding it (where mkdocs.yml usually is: pymdownx's and
        FastAPI's base), in the `base_path` folders of pymdownx.snippets in mkdocs.yml (Polars':
        `docs/source/src/`), then in each source root, as written and without its leading
        `../`."""
        bare = re.sub(r"^(?:\.\./)+", "", name)
        out = [posixpath.normpath(posixpath.join(posixpath.dirname(page), name)), name]
        out.append(posixpath.normpath(posixpath.join("..", name)))
        if self._bases is None:
            self._bases = snippet_bases(self.docs_dir)
        out += [os.path.relpath(os.path.join(base, name), self.docs_dir) for base in self._bases]
        for root in self.roots:
            for n in (name, bare):
                out.append(os.path.relpath(os.path.join(root, n), self.docs_dir))
        return list(dict.fromkeys(posixpath.normpath(c) for c in out))

    def _read_first(self, candidates: list[str], spec: str) -> str | None:
        """The text of the first candidate (paths relative to docs_dir) that is a file; what
        could not be read is kept for the page's warning."""
        got = read_first_file(self.docs_dir, self.roots, candidates)
        if got.rel is not None:
            self.size += len(got.text)
            self._found = got.rel
            return got.text
        if got.reason is not None:  # a file that exists and cannot be read: said for its page
            self.failures.add(f"{spec} ({got.reason})")
        elif got.outside is not None:
            self.failures.outside.append((spec, got.outside))
        else:
            self.failures.missing.append(spec)
        return None
