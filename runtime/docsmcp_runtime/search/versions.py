"""Which version (and which variant: a framework, a platform) a search answers from, in a bundle
whose taxonomy records a default value for the key (bundle-spec.md, *Versions and variants*):
`version`'s `latest` release, or another key's `default` (TanStack's `framework`: react).

- No filter on the key and no value of it named in the query: the default value and the rows
  without a value for the key (a blog, community pages, proposals; pages every framework
  shares) are searched.
- A query that names values ("2025-03-26 HTTP+SSE transport", `intent.named_versions`; "useQuery
  in vue", a word that is a value): those values and the rows without one.
- A filter on the key: the filter alone decides (engine.mask), as in any bundle.
The same section under other values (its chunk id with the value's folder taken out) is listed
in the hit's `also_in` instead of taking a place of its own, and a note says what was assumed.
A key without a recorded default is searched as before: every value, no note.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..bundle.reader import Bundle
from ..bundle.versions import VERSION_KEY
from ..format import TaxonomyKey
from .intent import Named, named_versions

# Prefix of a Docusaurus version folder (`versioned_docs/version-0.5.x`).
_VERSION_PREFIX = re.compile(r"^version[-_]?", re.IGNORECASE)
_VERSIONED = re.compile(r"^versioned[-_]")
_WORD = re.compile(r"[\w.+#-]+")


@dataclass(frozen=True)
class Scoped:
    """The values of one key a search reaches besides the rows without a value for it."""

    key: str
    values: tuple[str, ...]
    codes: np.ndarray


@dataclass(frozen=True)
class Scope:
    """What one search reaches, key by key (empty: all), and what the notes say of it."""

    keys: tuple[Scoped, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def values(self) -> tuple[str, ...]:
        """Every scoped value (empty when the search reaches every row)."""
        return tuple(v for k in self.keys for v in k.values)


UNSCOPED = Scope()


def unversioned_id(chunk_id: str, value: str) -> str:
    """`chunk_id` without the folder of its version (or variant) `value`
    (`docs/2025-06-18/a.mdx#x` -> `docs/a.mdx#x`; `versioned_docs/version-0.5.x/a.md#x` ->
    `docs/a.md#x`, the current docs' id; `framework/vue/a.md#x` -> `framework/a.md#x`), so one
    section's copies share it."""
    path, hash_, anchor = chunk_id.partition("#")
    parts = path.split("/")
    for i, part in enumerate(parts[:-1]):
        if part == value or _VERSION_PREFIX.sub("", part) == value:
            del parts[i]
            if i and _VERSIONED.match(parts[i - 1]):
                parts[i - 1] = _VERSIONED.sub("", parts[i - 1])
            break
    return "/".join(parts) + hash_ + anchor


def named_variants(query: str, values: tuple[str, ...]) -> list[str]:
    """Values of a variant key that `query` names as a word, case aside (`vue`, `React`)."""
    lows = {v.lower(): v for v in values}
    found: list[str] = []
    for word in _WORD.findall(query):
        value = lows.get(word.lower())
        if value is not None and value not in found:
            found.append(value)
    return found


class _Key:
    """One key with a default value: how a query names its values and how notes say it."""

    def __init__(
        self, bundle: Bundle, key: str, entry: TaxonomyKey, column: Callable[[], np.ndarray]
    ) -> None:
        self.bundle = bundle
        self.key = key
        self.entry = entry
        self.column = column  # the contiguous facet codes (engine.Searcher._column)
        self._copies: dict[int, list[int]] | None = None  # row -> rows of its other values
        if key == VERSION_KEY:
            self.default = str(entry.latest)
            self.said = "latest release"
            self.without = "unversioned pages"
        else:
            self.default = str(entry.default)
            self.said = "the default"
            self.without = f"pages without a {key}"

    def named(self, query: str) -> list[str]:
        if self.key == VERSION_KEY:
            return named_versions(query, self.entry.values)
        return named_variants(query, self.entry.values)

    def copies(self) -> dict[int, list[int]]:
        """row -> every row (itself included) with its id less the key's folder, for rows with
        a value; made once per bundle and key, on the first search that folds."""
        if self._copies is None:
            groups: dict[str, list[int]] = {}
            codes = self.column().tolist()
            values = self.entry.values
            for row, chunk_id in enumerate(self.bundle.chunk_ids()):
                if codes[row]:
                    key = unversioned_id(chunk_id, values[codes[row] - 1])
                    groups.setdefault(key, []).append(row)
            self._copies = {r: rows for rows in groups.values() if len(rows) > 1 for r in rows}
        return self._copies


class Versions:
    """The default version and variants of one bundle's searches (none without a recorded
    default)."""

    def __init__(
        self, bundle: Bundle, taxonomy: dict[str, TaxonomyKey], column: Callable[[str], np.ndarray]
    ):
        self.keys = [
            _Key(bundle, key, entry, lambda key=key: column(key))
            for key, entry in taxonomy.items()
            if key in bundle.taxonomy_keys
            and (entry.latest if key == VERSION_KEY else entry.default) is not None
        ]

    def scope(
        self, query: str, named: list[Named], filters: dict[str, str]
    ) -> tuple[list[Named], Scope]:
        """The scope of a search and the named values left to boost (a named version or
        variant is searched, not boosted)."""
        scoped: list[Scoped] = []
        notes: list[str] = []
        for k in self.keys:
            if k.key in filters:
                continue
            named = [n for n in named if n.key != k.key]
            values = tuple(k.named(query))
            if values:
                said = f"{', '.join(values)} (named in the query)"
            else:
                values = (k.default,)
                said = f"{k.default} ({k.said})"
            notes.append(f"Searched {k.key} {said} and {k.without}; pass {k.key}=… for another.")
            codes = np.asarray([k.entry.code(v) for v in values], dtype=np.int64)
            scoped.append(Scoped(k.key, values, codes))
        return named, Scope(tuple(scoped), tuple(notes))

    def restrict(self, scope: Scope, mask: np.ndarray) -> None:
        """Keep, in `mask`, only the rows of the scope's values and those without one."""
        for scoped, k in self._scoped(scope):
            searched = np.zeros(len(k.entry.values) + 1, dtype=bool)  # by facet code
            searched[0] = True
            searched[scoped.codes] = True
            mask &= searched[k.column()]

    def filters(self, scope: Scope, filters: dict[str, str]) -> dict[str, str]:
        """`filters` with the scope as filters (for the empty page's suggestions)."""
        return {**filters, **{s.key: s.values[0] for s in scope.keys}}

    def fold(
        self, scope: Scope, rows: list[int] | np.ndarray, also_in: list[dict[str, list[str]]]
    ) -> list[dict[str, list[str]]]:
        """Each row's `also_in` with the other versions (variants) holding the same section."""
        rows = np.asarray(rows).tolist()
        for _, k in self._scoped(scope):
            copies = k.copies()
            column = k.column()
            values = k.entry.values
            out = []
            for row, also in zip(rows, also_in, strict=True):
                own = int(column[row])
                others = {
                    values[c - 1] for r in copies.get(row, ()) if (c := int(column[r])) != own
                }
                if others:
                    also = {**also, k.key: sorted(others | set(also.get(k.key, ())))}
                out.append(also)
            also_in = out
        return also_in

    def _scoped(self, scope: Scope) -> list[tuple[Scoped, _Key]]:
        by_key = {k.key: k for k in self.keys}
        return [(s, by_key[s.key]) for s in scope.keys]
