"""Which version a search answers from, in a bundle whose `version` key records its latest
release (bundle-spec.md, *`metadata.json`*, taxonomy `latest`).

- No `version` filter and no version named in the query: the latest release and the rows
  without a version (a blog, community pages, proposals) are searched.
- A query that names versions ("2025-03-26 HTTP+SSE transport", `intent.named_versions`):
  those versions and the rows without a version.
- A `version` filter: the filter alone decides (engine.mask), as in any bundle.
The same section in other versions (its chunk id with the version folder taken out) is listed
in the hit's `also_in` instead of taking a place of its own, and a note says what was assumed.
A bundle without `latest` is searched as before: every version, no note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..bundle.reader import Bundle
from ..bundle.versions import VERSION_KEY
from ..format import TaxonomyKey
from .intent import Named, named_versions

# Prefix of a Docusaurus version folder (`versioned_docs/version-0.5.x`).
_VERSION_PREFIX = re.compile(r"^version[-_]?", re.IGNORECASE)
_VERSIONED = re.compile(r"^versioned[-_]")


@dataclass(frozen=True)
class Scope:
    """The versions one search reaches besides the rows without a version (empty: all)."""

    values: tuple[str, ...] = ()
    codes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    notes: tuple[str, ...] = ()


UNSCOPED = Scope()


def unversioned_id(chunk_id: str, value: str) -> str:
    """`chunk_id` without the folder of its version `value` (`docs/2025-06-18/a.mdx#x` ->
    `docs/a.mdx#x`; `versioned_docs/version-0.5.x/a.md#x` -> `docs/a.md#x`, the current
    docs' id), so one section's copies in several versions share it."""
    path, hash_, anchor = chunk_id.partition("#")
    parts = path.split("/")
    for i, part in enumerate(parts[:-1]):
        if part == value or _VERSION_PREFIX.sub("", part) == value:
            del parts[i]
            if i and _VERSIONED.match(parts[i - 1]):
                parts[i - 1] = _VERSIONED.sub("", parts[i - 1])
            break
    return "/".join(parts) + hash_ + anchor


class Versions:
    """The default version of one bundle's searches (none without a recorded latest)."""

    def __init__(self, bundle: Bundle, taxonomy: dict[str, TaxonomyKey], facets: np.ndarray):
        entry = taxonomy.get(VERSION_KEY)
        self.bundle = bundle
        self.entry = entry if entry is not None and entry.latest is not None else None
        self.column = (
            facets[:, bundle.taxonomy_keys.index(VERSION_KEY)] if self.entry is not None else None
        )
        self._copies: dict[int, list[int]] | None = None  # row -> rows of its other versions

    def scope(
        self, query: str, named: list[Named], filters: dict[str, str]
    ) -> tuple[list[Named], Scope]:
        """The scope of a search and the named values left to boost (a named version is
        searched, not boosted)."""
        entry = self.entry
        if entry is None or VERSION_KEY in filters:
            return named, UNSCOPED
        rest = [n for n in named if n.key != VERSION_KEY]
        values = tuple(named_versions(query, entry.values))
        if values:
            said = f"{', '.join(values)} (named in the query)"
        else:
            values = (str(entry.latest),)
            said = f"{entry.latest} (latest release)"
        note = f"Searched version {said} and unversioned pages; pass version=… for another."
        codes = np.asarray([entry.code(v) for v in values], dtype=np.int64)
        return rest, Scope(values, codes, (note,))

    def restrict(self, scope: Scope, mask: np.ndarray) -> None:
        """Keep, in `mask`, only the rows of the scope's versions and those without one."""
        if scope.values and self.column is not None and self.entry is not None:
            searched = np.zeros(len(self.entry.values) + 1, dtype=bool)  # by facet code
            searched[0] = True
            searched[scope.codes] = True
            mask &= searched[self.column]

    def filters(self, scope: Scope, filters: dict[str, str]) -> dict[str, str]:
        """`filters` with the scope as a version filter (for the empty page's suggestions)."""
        return {**filters, VERSION_KEY: scope.values[0]} if scope.values else filters

    def fold(
        self, scope: Scope, rows: list[int] | np.ndarray, also_in: list[dict[str, list[str]]]
    ) -> list[dict[str, list[str]]]:
        """Each row's `also_in` with the other versions holding the same section."""
        if not scope.values or self.entry is None or self.column is None:
            return also_in
        copies = self._copy_rows()
        values = self.entry.values
        out = []
        for row, also in zip(np.asarray(rows).tolist(), also_in, strict=True):
            own = int(self.column[row])
            others = {
                values[c - 1] for r in copies.get(row, ()) if (c := int(self.column[r])) != own
            }
            if others:
                also = {**also, VERSION_KEY: sorted(others | set(also.get(VERSION_KEY, ())))}
            out.append(also)
        return out

    def _copy_rows(self) -> dict[int, list[int]]:
        """row -> every row (itself included) with its unversioned id, for rows with a
        version; made once per bundle, on the first search that folds."""
        if self._copies is None:
            assert self.entry is not None and self.column is not None
            groups: dict[str, list[int]] = {}
            codes = self.column.tolist()
            values = self.entry.values
            for row, chunk_id in enumerate(self.bundle.chunk_ids()):
                if codes[row]:
                    key = unversioned_id(chunk_id, values[codes[row] - 1])
                    groups.setdefault(key, []).append(row)
            self._copies = {r: rows for rows in groups.values() if len(rows) > 1 for r in rows}
        return self._copies
