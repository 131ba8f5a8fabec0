"""Which version (and which variant: a framework, a platform) a search answers from, in a bundle
whose taxonomy records a default value for the key (bundle-spec.md, *Versions and variants*):
`version`'s `latest` release, or another key's `default` (TanStack's `framework`: react).

- Versions, with no filter on the key and no version named in the query: the latest release
  and the rows without a version (a blog, community pages, proposals) are searched.
- Variants, likewise: every variant is searched and each section shown once (`fold_variants`):
  where several variants' copies of a section rank, the first takes its place, shown as the
  default's copy when that one ranked too, and the others are listed in `also_in`. Variants are
  parallel docs, not releases: Ionic documents `isPlatform` for react and vue only, and a
  search scoped to the default (angular) did not show it.
- A query that names values ("2025-03-26 HTTP+SSE transport", `intent.named_versions`; "useQuery
  in vue", a word that is a value): those values and the rows without one.
- A filter on the key: the filter alone decides (engine.mask), as in any bundle.
The same section under other values (its chunk id with the value's folder taken out: `copy_id`)
is listed in the hit's `also_in` instead of taking a place of its own, and a note says what was
assumed.
A key without a recorded default is searched as before: every value, no note.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

import numpy as np

from ..bundle.reader import Bundle
from ..bundle.versions import VERSION_KEY
from ..format import TaxonomyKey
from ..records import record
from .intent import Named, named_versions
from .selection import sorted_unique

# The share of its score a section of a variant other than the default keeps when variants are
# folded (fold_variants): TanStack's vue and solid pages are short adaptations of react's that
# outranked it on length; Ionic's `isPlatform` sections (react and vue only) still rank.
OTHER_VARIANT = 0.8

# Prefix of a Docusaurus version folder (`versioned_docs/version-0.5.x`).
_VERSION_PREFIX = re.compile(r"^version[-_]?", re.IGNORECASE)
_VERSIONED = re.compile(r"^versioned[-_]")
_WORD = re.compile(r"[\w.+#-]+")
# An ordering prefix of a file or folder name (Next.js: `02-app/`, `05-next-config-js.mdx`);
# a date (`2025-06-18/`) has none.
_ORDER = re.compile(r"^\d+-(?=[^\W\d])")


@record
class Scoped:
    """The values of one key a search reaches besides the rows without a value for it."""

    key: str
    values: tuple[str, ...]
    codes: np.ndarray
    note: str  # what a search says of it (one of Scope.notes)


@record
class Scope:
    """What one search reaches, key by key (empty: all), and what the notes say of it."""

    keys: tuple[Scoped, ...] = ()
    notes: tuple[str, ...] = ()
    folded: tuple[str, ...] = ()  # variant keys searched whole, each section shown once

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


def copy_id(chunk_id: str, value: str, folders: Mapping[str, str], ordered: bool = False) -> str:
    """`chunk_id` with the folder holding its value `value` put in its place (`folders`: the
    value's recorded folders, each to its place: `folder_places`), the deepest that holds it
    (Jest's `next` is `docs/`, its 30.4 `website/versioned_docs/version-30.4/`; an Antora
    checkout `asciidoctor-main/` is 2.1), else without the folder named as the value
    (`unversioned_id`: bundles that record no folders, and a value set on a page outside
    them), so one section's copies share it. `ordered` (`orders_by_prefix`): the ordering
    prefixes of the path below the folder are dropped too (Next.js' `02-app/…/05-next-config-js/`
    and `03-pages/…/03-next-config-js/` hold one page)."""
    path = chunk_id.partition("#")[0]
    held = [f for f in folders if path.startswith(f + "/")]
    if not held:
        return unversioned_id(chunk_id, value)
    folder = max(held, key=len)
    place = folders[folder]
    rest = chunk_id[len(folder) + 1 :]
    if ordered:
        below, hash_, anchor = rest.partition("#")
        rest = "/".join(_ORDER.sub("", part) for part in below.split("/")) + hash_ + anchor
    return f"{place}/{rest}" if place else rest


def without_name(copy: str, value: str) -> str:
    """A copy's id without the variant's name as a word of its file names and headings
    (TanStack Table: `sorting.md#sorting-react-guide/…` and `#sorting-alpine-guide/…`, each
    page's title naming its framework, are one section)."""
    if len(value) < 2 or value.lower() not in copy.lower():
        return copy
    return re.sub(
        rf"(?<![A-Za-z0-9]){re.escape(value)}-|-{re.escape(value)}(?![A-Za-z0-9])",
        "",
        copy,
        flags=re.IGNORECASE,
    )


def orders_by_prefix(folders: Mapping[str, tuple[str, ...]]) -> bool:
    """Whether the recorded folders say the site orders its pages by a number before the name:
    every folder's own name has one (Next.js: `docs/02-app`, `docs/03-pages`)."""
    names = [f.rpartition("/")[2] for held in folders.values() for f in held]
    return bool(names) and all(_ORDER.match(n) for n in names)


def folder_places(folders: Mapping[str, tuple[str, ...]]) -> dict[str, dict[str, str]]:
    """value -> its recorded folders, each to the place its pages take in a copy's id: one
    place for all when each value has one folder (Jest's `docs` and
    `website/versioned_docs/version-30.4`), else each folder less the part named as the value
    (Express: `api/4x` and `api/5x` are `api`, `docs/en/4x` and `docs/en/5x` are `docs/en`:
    the API and the guides are not copies of each other)."""
    if all(len(held) == 1 for held in folders.values()):
        return {value: {held[0]: ""} for value, held in folders.items()}
    return {
        value: {f: unversioned_id(f + "/_", value).rpartition("/")[0] for f in held}
        for value, held in folders.items()
    }


# Names a query gives a variant that its folder spells otherwise (Drizzle's `pg/` for
# "postgres"): each group is one variant, whichever of its names the folder has.
VARIANT_NAMES = (
    ("pg", "postgres", "postgresql"),
    ("mssql", "sqlserver"),
    ("cockroach", "cockroachdb"),
    ("mongodb", "mongo"),
    ("solid", "solidjs"),
    ("nextjs", "next.js"),
    ("vue", "vuejs", "vue.js"),
)
_SAME_VARIANT = {name: group for group in VARIANT_NAMES for name in group}


def named_variants(query: str, values: tuple[str, ...]) -> list[str]:
    """Values of a variant key that `query` names as a word, case aside (`vue`, `React`), or
    by another name of the same variant (VARIANT_NAMES: "postgres" for `pg`)."""
    lows = {v.lower(): v for v in values}
    found: list[str] = []
    for word in _WORD.findall(query):
        low = word.lower()
        value = next((lows[n] for n in _SAME_VARIANT.get(low, (low,)) if n in lows), None)
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
        self._groups: np.ndarray | None = None  # row -> its group of copies (groups())
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

    def groups(self) -> np.ndarray:
        """Per row, the index of its group of copies (`copies`); a row with no other copy is a
        group of its own."""
        self._index()
        assert self._groups is not None
        return self._groups

    def copies(self) -> dict[int, list[int]]:
        """row -> every row (itself included) with its id less the key's folder, for rows with
        a value and another copy."""
        self._index()
        assert self._copies is not None
        return self._copies

    def _index(self) -> None:
        """`copies` and `groups`, made together once per bundle and key, on the first search
        that folds."""
        if self._copies is not None:
            return
        by_id: dict[str, list[tuple[int, str, str]]] = {}
        codes = self.column().tolist()
        values, folders = self.entry.values, folder_places(self.entry.folders)
        ordered = orders_by_prefix(self.entry.folders)
        for row, chunk_id in enumerate(self.bundle.chunk_ids()):
            if codes[row]:
                value = values[codes[row] - 1]
                copy = copy_id(chunk_id, value, folders.get(value, {}), ordered)
                key = copy if self.key == VERSION_KEY else without_name(copy, value)
                by_id.setdefault(key, []).append((row, value, copy))
        groups = np.arange(self.bundle.n_chunks, dtype=np.int64)
        copies: dict[int, list[int]] = {}
        for found in by_id.values():
            if len({value for _, value, _ in found}) < len(found):  # (two of one value: not
                # copies of one section once the name is out; grouped by their ids alone)
                alike: dict[str, list[int]] = {}
                for row, _, copy in found:
                    alike.setdefault(copy, []).append(row)
                groupings = list(alike.values())
            else:
                groupings = [[row for row, _, _ in found]]
            for rows in groupings:
                if len(rows) > 1:
                    groups[rows] = rows[0]
                    copies.update(dict.fromkeys(rows, rows))
        self._copies, self._groups = copies, groups

    def listed(self, row: int, also: dict[str, list[str]]) -> dict[str, list[str]]:
        """`also` (a hit's `also_in`) with the other values holding `row`'s section."""
        column, values = self.column(), self.entry.values
        own = int(column[row])
        others = {values[c - 1] for r in self.copies().get(row, ()) if (c := int(column[r])) != own}
        if not others:
            return also
        return {**also, self.key: sorted(others | set(also.get(self.key, ())))}


class Versions:
    """The default version and variants of one bundle's searches (none without a recorded
    default)."""

    def __init__(
        self, bundle: Bundle, taxonomy: dict[str, TaxonomyKey], column: Callable[[str], np.ndarray]
    ):
        self.keys = {
            key: _Key(bundle, key, entry, lambda key=key: column(key))
            for key, entry in taxonomy.items()
            if key in bundle.taxonomy_keys
            and (entry.latest if key == VERSION_KEY else entry.default) is not None
        }

    def scope(
        self, query: str, named: list[Named], filters: dict[str, str]
    ) -> tuple[list[Named], Scope]:
        """The scope of a search and the named values left to boost (a named version or
        variant is searched, not boosted)."""
        scoped: list[Scoped] = []
        notes: list[str] = []
        folded: list[str] = []
        for k in self.keys.values():
            if k.key in filters:
                continue
            named = [n for n in named if n.key != k.key]
            values = tuple(k.named(query))
            if values:
                said = f"{', '.join(values)} (named in the query)"
            elif k.key != VERSION_KEY:
                folded.append(k.key)
                notes.append(
                    f"Each section is shown once, as its {k.default} copy where there is one, "
                    f"the other {k.key}s in also_in; pass {k.key}=… for one."
                )
                continue
            else:
                values = (k.default,)
                said = f"{k.default} ({k.said})"
            note = f"Searched {k.key} {said} and {k.without}; pass {k.key}=… for another."
            notes.append(note)
            codes = np.asarray([k.entry.code(v) for v in values], dtype=np.int64)
            scoped.append(Scoped(k.key, values, codes, note))
        return named, Scope(tuple(scoped), tuple(notes), tuple(folded))

    def fold_variants(
        self,
        scope: Scope,
        rows: np.ndarray,
        scores: np.ndarray,
        also_in: list[dict[str, list[str]]],
        allowed: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, list[dict[str, list[str]]]]:
        """`rows` (best first, with their `scores` and `also_in`) with each section of a folded
        variant key once: a group's first row keeps its place and score, shown as the default's
        copy of the section when there is one that the search may show (`allowed`: the
        filters' mask), listing the other values that hold it."""
        for key in scope.folded:
            k = self.keys[key]
            groups, column, default = k.groups(), k.column(), k.entry.code(k.default)
            # The other variants' sections weigh OTHER_VARIANT of their score: a section only
            # they have still ranks, their copies of the default's sections come after it.
            rows, scores = np.asarray(rows, dtype=np.int64), np.asarray(scores, dtype=np.float64)
            codes = column[rows]
            weighted = np.where((codes != 0) & (codes != default), OTHER_VARIANT, 1.0) * scores
            order = np.argsort(-weighted, kind="stable")
            rows, scores, codes = rows[order], weighted[order], codes[order]
            copies = k.copies()
            kept: list[int] = []  # positions in `rows` whose place and score stay
            shown: list[int] = []  # the row shown at each kept place
            seen: set[int] = set()  # groups shown
            for i, (row, g, code) in enumerate(
                zip(rows.tolist(), groups[rows].tolist(), codes.tolist(), strict=True)
            ):
                if code and g in seen:
                    continue
                seen.add(g)
                kept.append(i)
                # the default's copy of the section, when there is one, stands for it
                if code and code != default:
                    row = next(
                        (r for r in copies.get(row, ()) if column[r] == default and allowed[r]),
                        row,
                    )
                shown.append(row)
            # every value holding the section, ranked or not, as versions list theirs
            also_in = [k.listed(row, also_in[order[i]]) for i, row in zip(kept, shown, strict=True)]
            rows = np.asarray(shown, dtype=np.int64)
            scores = scores[np.asarray(kept, dtype=np.int64)]
        return rows, scores, also_in

    def room(self, scope: Scope) -> int:
        """How many rows to rank per place asked for: 1, or with folded variant keys one more
        than their values (every copy of a shown section may rank before the next section)."""
        return 1 + sum(len(self.keys[key].entry.values) for key in scope.folded)

    def distinct(self, scope: Scope, rows: np.ndarray) -> int:
        """How many sections `rows` hold once a folded key's copies count as one."""
        if not scope.folded:
            return len(rows)
        ids = np.asarray(rows, dtype=np.int64)
        for key in scope.folded:
            ids = self.keys[key].groups()[ids]
        return len(sorted_unique(ids))

    def reached(self, scope: Scope, n_rows: int) -> np.ndarray:
        """Per row, whether a search of `scope` reaches it (a filter set aside)."""
        reached = np.ones(n_rows, dtype=bool)
        self.restrict(scope, reached)
        return reached

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
            also_in = [k.listed(row, also) for row, also in zip(rows, also_in, strict=True)]
        return also_in

    def _scoped(self, scope: Scope) -> list[tuple[Scoped, _Key]]:
        return [(s, self.keys[s.key]) for s in scope.keys]
