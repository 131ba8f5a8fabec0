"""The pages of a bundle: the tree `list_sections` shows and the lookup `get_page` does.

Read from `pages.parquet` (bundle-spec.md, *Browse tables*); a bundle built before that table
existed still gets a page list derived from its chunk table (titles from first headings, no
descriptions or frontmatter), so the browse tools serve what an older bundle can.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath

import numpy as np

from ..bundle.reader import Bundle
from ..format import PAGES_FILE
from ..records import record

_EXTENSIONS = (".md", ".mdx", ".markdown", ".pdf")
# Folder pages that stand for their folder (`docs/guide/` is `docs/guide/index.md`).
_INDEX_STEMS = ("index", "readme", "_index")
# What names a page rather than a topic: a folder separator or a document suffix. Such a query
# that names no page is an error with the closest paths, never the search fallback's best page
# (which may be 100k characters an agent did not ask for).
_PATH_LIKE = re.compile(r"/|\.(?:md|mdx|markdown|rst|txt|html?|pdf|ipynb)$", re.IGNORECASE)
_WORD = re.compile(r"[0-9a-z]+")


@record
class PageMatch:
    index: int | None  # the page found, or None
    matched_by: str  # "path", "path-suffix", "title" or "search"
    runners_up: tuple[int, ...] = ()  # other candidates, when the match is not certain


def _stem_path(path: str) -> str:
    lowered = path.lower()
    for ext in _EXTENSIONS:
        if lowered.endswith(ext):
            path = path[: -len(ext)]
            break
    return path


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


class PageIndex:
    """Pages in byte order of path, each with its rows `first_row .. first_row + count`."""

    def __init__(self, bundle: Bundle) -> None:
        table = bundle.table(PAGES_FILE)
        if table is not None:
            self.paths: list[str] = table.column("path").to_pylist()
            self.titles: list[str] = table.column("title").to_pylist()
            self.descriptions: list[str] = table.column("description").to_pylist()
            self._frontmatter: list[str] = table.column("frontmatter").to_pylist()
            self.first_rows = table.column("first_row").to_numpy().astype(np.int64)
            self.counts = table.column("chunk_count").to_numpy().astype(np.int64)
            self.line_counts = table.column("line_count").to_numpy().astype(np.int64)
        else:  # an older bundle: what the chunk table tells
            firsts = np.flatnonzero(bundle.positions == 0)
            self.paths = bundle.paths.take(firsts).to_pylist()
            self.titles = bundle.headings.take(firsts).to_pylist()
            self.descriptions = [""] * len(firsts)
            self._frontmatter = ["{}"] * len(firsts)
            self.first_rows = firsts.astype(np.int64)
            self.counts = np.asarray(bundle.file_counts[firsts], dtype=np.int64)
            ends = self.first_rows + self.counts - 1
            self.line_counts = np.asarray(bundle.line_ends[ends], dtype=np.int64)
        # The site's navigation order (page_order.bin, checked with the pages table: a wrong
        # shape never gets here): each page's rank, PAGE_UNORDERED for those it does not name.
        order = bundle.arrays.get("page_order") if table is not None else None
        self._ranks: list[int] | None = None if order is None else order.tolist()
        self._keys = [p.encode() for p in self.paths]
        by_stem: dict[str, int] = {}
        by_lower: dict[str, int] = {}
        for i, path in enumerate(self.paths):
            by_lower.setdefault(path.lower(), i)
            stem = _stem_path(path)
            by_stem.setdefault(stem.lower(), i)
            folder, _, name = stem.rpartition("/")
            if name.lower() in _INDEX_STEMS:
                by_stem.setdefault(folder.lower(), i)
        self._by_lower = by_lower
        self._by_stem = by_stem
        self._folder_names: dict[str, str] | None = None
        self._folder_paths: list[str] | None = None

    def __len__(self) -> int:
        return len(self.paths)

    def site_order(self, indices: Iterable[int]) -> list[int]:
        """`indices` (pages, in path order) in the site's navigation order where the bundle has
        one, the pages it does not name after them in path order; else as given."""
        ranks = self._ranks
        if ranks is None:
            return list(indices)
        return sorted(indices, key=lambda i: (ranks[i], i))

    def frontmatter(self, i: int) -> dict:
        return json.loads(self._frontmatter[i])

    def page_of_row(self, row: int) -> int:
        return int(np.searchsorted(self.first_rows, row, side="right")) - 1

    def under(self, prefix: str) -> range:
        """Indices of the pages whose path starts with `prefix` (a contiguous range)."""
        key = prefix.encode()
        lo = bisect.bisect_left(self._keys, key)
        hi = bisect.bisect_left(self._keys, key + b"\xff")
        return range(lo, hi)

    def folder(self, name: str) -> str | None:
        """The shallowest folder called `name` (or the folder path `name` itself), as a prefix
        ending in '/'; ties go to byte order. Case-insensitive."""
        wanted = name.strip("/")
        if not wanted:
            return None
        if self.under(wanted + "/"):
            return wanted + "/"
        lowered = wanted.lower()
        found = self._folders().get(lowered)
        if found is None and "/" in lowered:  # a folder path's tail: `protocol/app-layer`
            tails = [f for key, f in self._folders().items() if key.endswith("/" + lowered)]
            found = min(tails, key=lambda f: (f.count("/"), f.encode()), default=None)
        return found + "/" if found else None

    def folder_paths(self) -> list[str]:
        """Every folder that holds a page, at any depth, sorted (without the final '/')."""
        self._folders()
        assert self._folder_paths is not None
        return self._folder_paths

    def _folders(self) -> dict[str, str]:
        """Folder name and folder path (lower case) → the shallowest such folder, built once
        (with `folder_paths`)."""
        if self._folder_names is None:
            best: dict[str, str] = {}
            every: set[str] = set()
            for path in self.paths:
                parts = path.split("/")[:-1]
                for depth in range(len(parts)):
                    folder = "/".join(parts[: depth + 1])
                    every.add(folder)
                    for key in (parts[depth].lower(), folder.lower()):
                        known = best.get(key)
                        if known is None or (folder.count("/"), folder.encode()) < (
                            known.count("/"),
                            known.encode(),
                        ):
                            best[key] = folder
            self._folder_names = best
            self._folder_paths = sorted(every)
        return self._folder_names

    def find(self, query: str, search: Callable[[str], list[int]]) -> PageMatch:
        """Exact path (with or without extension, or a folder's index page), then a unique path
        suffix, then a title, then the pages of the best full-text hits (`search` maps a query
        to ranked chunk rows); a path-like query that names no page finds nothing."""
        wanted = query.strip().removeprefix("./").lstrip("/")
        lowered = wanted.lower()
        exact = self._by_lower.get(lowered)
        if exact is None:
            exact = self._by_stem.get(_stem_path(lowered).rstrip("/"))
        if exact is not None:
            return PageMatch(exact, "path")
        stem = _stem_path(lowered).rstrip("/")
        if stem:
            suffix = [
                i
                for i, p in enumerate(self.paths)
                if _stem_path(p.lower()).endswith("/" + stem)
                or _stem_path(p.lower()).endswith("/" + stem + "/index")
            ]
            if suffix:
                suffix.sort(key=lambda i: (self.paths[i].count("/"), self._keys[i]))
                return PageMatch(suffix[0], "path-suffix", tuple(suffix[1:5]))
        titled = [i for i, t in enumerate(self.titles) if t.strip().lower() == lowered]
        if titled:
            return PageMatch(titled[0], "title", tuple(titled[1:5]))
        if _PATH_LIKE.search(wanted):
            return PageMatch(None, "path")
        ranked: list[int] = []
        for row in search(wanted):
            page = self.page_of_row(row)
            if page not in ranked:
                ranked.append(page)
        if not ranked:
            return PageMatch(None, "search")
        # Among the pages the search found, prefer one whose title or path holds every word.
        words = _words(wanted)
        named = [
            i for i in ranked if words and words <= _words(self.titles[i] + " " + self.paths[i])
        ]
        best = named[0] if named else ranked[0]
        others = tuple(i for i in ranked if i != best)[:4]
        return PageMatch(best, "search", others)

    def entry(self, i: int, metadata: dict[str, str] | None = None) -> dict:
        out = {"path": self.paths[i], "title": self.titles[i]}
        if self.descriptions[i]:
            out["description"] = self.descriptions[i]
        if metadata:
            out["metadata"] = metadata
        return out


def tree(pages: PageIndex, indices: list[int], root: str, depth: int) -> list[dict]:
    """Pages under `root` down to `depth` folder levels, in the site's navigation order where
    the bundle has one (then the pages it does not name), else in path order; deeper pages fold
    into one entry for their folder at that depth (where its first page would be), with how
    many pages it holds."""
    out: list[dict] = []
    folded: dict[str, dict] = {}
    for i in pages.site_order(indices):
        rest = pages.paths[i][len(root) :]
        parts = rest.split("/")
        level = len(parts) - 1  # folders between the root and the page
        if level < depth:
            entry = pages.entry(i)
            entry["depth"] = level
            out.append(entry)
            continue
        folder = root + "/".join(parts[:depth]) + "/"
        entry = folded.get(folder)
        if entry is None:
            entry = {"folder": folder, "pages": 0, "depth": depth}
            folded[folder] = entry
            out.append(entry)
        entry["pages"] += 1
    return out


def folder_title(path: str) -> str:
    return PurePosixPath(path.rstrip("/")).name
