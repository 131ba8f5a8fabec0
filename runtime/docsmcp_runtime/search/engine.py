"""Query → ranked, filtered, paginated hits with snippets (the search_docs semantics)."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING

import numpy as np

from ..bundle.reader import Bundle
from ..errors import SearchTimeout
from ..format import Fusion
from ..records import record
from .additions import expand, pin
from .collapse import collapse_variants
from .embedding import EmbeddingError, QueryEmbedder
from .entry_names import entry_query
from .fusion import CONVEX, RRF, FusionPolicy, convex, policy_for, rrf
from .intent import QUERY_CLASSES, Named, named_values, query_class, wants_every_word
from .lexical import (
    Lexicon,
    coordination,
    named_stop_words,
    named_words,
    query_terms,
    score,
    stop_words,
    stop_words_note,
    without_left_behind,
)
from .options import SearchOptions
from .roles import (
    CHANGELOG,
    ROLE_KEY,
    RolePrior,
    asks_what_changed,
    weigh,
    without_change_words,
)
from .selection import SAMPLE_EVERY, best_rows, rank, sorted_unique, topk
from .vectors import VectorIndex, vectors_file
from .versions import Versions
from .workspace import Workspace, WorkspacePool, large_mappings, release

if TYPE_CHECKING:  # imported with the bundle's rescoring stage only
    from .rescore import Rescorer

# Candidates taken from each ranked list before fusion.
FUSION_DEPTH = 200
# Distinct terms (and, separately, distinct bigram terms) of one query that are scored; the rest
# are dropped with a note. Each costs a dictionary lookup and a pass over its postings.
MAX_QUERY_TERMS = 64
# Rows whose heading length (the tie-break of equal scores) one opened bundle remembers.
HEADING_CACHE = 65536


def _check(deadline: float) -> None:
    if time.monotonic() > deadline:
        raise SearchTimeout


@record
class Page:
    rows: list[int]
    scores: list[float]
    total: int
    suggested_filters: dict[str, list[str]]
    corpus_matches: int  # matches ignoring filters, for the zero-result hint
    also_in: list[dict[str, list[str]]] = field(default_factory=list)  # per row, collapsed variants
    degraded: str | None = None  # why vector search was skipped for this query
    notes: list[str] = field(default_factory=list)  # what was adjusted (e.g. terms dropped)
    reached_by: dict[int, int] = field(default_factory=dict)  # row → the hit that refers to it


class Searcher:
    def __init__(
        self,
        bundle: Bundle,
        embedder: QueryEmbedder | None = None,
        options: SearchOptions = SearchOptions(),
    ) -> None:
        self.bundle = bundle
        meta = bundle.metadata
        self.lexicon = Lexicon(bundle.arrays)
        self.facets = bundle.arrays["facets"]
        self._columns: dict[str, np.ndarray] = {}  # _column's copies
        self.taxonomy = meta.taxonomy
        self.keys = bundle.taxonomy_keys
        # The default version and variants, reading their columns through _column.
        self.versions = Versions(bundle, dict(self.taxonomy), self._column)
        self.phrase_weight = np.float32(meta.lexical.phrase_weight)
        self.stem_weight = meta.lexical.stem_weight  # the share of a word's other forms
        spec = meta.embedding
        self.vectors = (
            VectorIndex(bundle.arrays, spec, vectors_file(bundle), probe=options.ivf_probe)
            if spec
            else None
        )
        self.embedder = embedder
        self.fusion = spec.fusion.with_weights(options.fusion) if spec else None
        self.policy = options.policy
        if self.policy is None and spec and self.fusion:
            # Weights other than the provider's defaults, given at build or serve time
            # (--fusion-weights), select the weighted RRF of bundle-spec.md with them.
            from ..format.providers import PROVIDERS

            info = PROVIDERS.get(spec.provider)
            default = Fusion(info.defaults.vector_weight) if info else None
            if options.fusion.given() or spec.fusion != default:
                self.policy = FusionPolicy(RRF, dict.fromkeys(QUERY_CLASSES, self.fusion.vector))
            else:
                self.policy = policy_for(spec.provider)
        self.name_boost = options.name_boost
        # Page roles (roles.py), reading the role column through _column.
        self.roles = RolePrior.of(bundle, self._column) if options.role_prior else None
        self.coordination = options.coordination
        self.heading_ties = options.heading_ties
        # Row -> the characters of its headings (heading_lengths), up to HEADING_CACHE rows: a
        # fact of the bundle, read from the display store once per row.
        self._heading_lengths: dict[int, int] = {}
        # Sets: named_values asks whether a word is a value, several times a search.
        self._values = {k: frozenset(v.values) for k, v in self.taxonomy.items()}
        floor = options.similarity_floor
        self.floor = floor if floor is not None else (spec.similarity_floor if spec else 0.0)
        self.collapse_similarity = spec.collapse_similarity if spec else 0.0
        self.collapse_keys = [k for k, v in self.taxonomy.items() if v.vector_collapse]
        self.time_budget = options.time_budget
        self.expand_references = options.expand_references
        self.max_tokens = options.max_tokens
        self.rescorer = _rescorer(bundle) if options.rescore else None
        self.work = WorkspacePool(bundle.n_chunks)
        # The postings and dictionary of a large bundle are given back after each search.
        self._mapped = large_mappings(bundle.arrays, ("terms", "postings_docs", "postings_impacts"))

    def _column(self, key: str) -> np.ndarray:
        """The facet codes of `key`, one per row, as a contiguous copy made on the key's first
        use (2 bytes a row; the role prior reads `role`'s): gathering rows through the strided
        facets matrix made the boost of a query naming a value (`Dub python …`) ~50 us, a
        third of its ranking on speakeasy-sdks."""
        column = self._columns.get(key)
        if column is None:
            column = np.ascontiguousarray(self.facets[:, self.keys.index(key)])
            self._columns[key] = column
        return column

    def mask(self, filters: dict[str, str], out: np.ndarray | None = None) -> np.ndarray:
        """Rows matching every filter. A filtered key's `auto_include` keeps rows with those
        values of another key visible too, unless that key is filtered as well (bundle-spec.md,
        *Facets*): filtering `language` still shows `scope = global-guide` pages. A row with a
        value of its own for the filtered key is judged by that value only: a guide's
        TypeScript tab (`language = typescript`) is not shown to a Python filter. A key with
        `include_unset` keeps the rows without a value too. `out`: a bool array to fill."""
        mask = np.ones(self.bundle.n_chunks, dtype=bool) if out is None else out
        mask.fill(True)
        for key, value in filters.items():
            entry = self.taxonomy[key]
            column = self._column(key)
            selected = column == entry.code(value)
            for other, values in entry.auto_include.items():
                if other not in filters:
                    codes = [self.taxonomy[other].code(v) for v in values]
                    selected |= np.isin(self._column(other), codes) & (column == 0)
            if entry.include_unset:
                selected |= column == 0
            mask &= selected
        return mask

    def embed_query(self, query: str) -> tuple[np.ndarray | None, str | None]:
        """(query vector, None), or (None, reason) when this bundle's vectors cannot be used."""
        if self.vectors is None:
            return None, None
        if self.embedder is None:
            return None, "no query embedder for this bundle's provider"
        try:
            vector = self.embedder.embed(query)
        except EmbeddingError as exc:
            return None, str(exc)
        return np.asarray(vector, dtype=np.float32), None

    def search(
        self,
        query: str,
        filters: dict[str, str],
        offset: int,
        limit: int,
        references: Callable[[int], np.ndarray] | None = None,
        exclude: np.ndarray | None = None,
        pinned: Sequence[int] = (),
    ) -> Page:
        """Raises SearchTimeout when the time budget runs out. `references` (row → referenced
        rows) turns on reference expansion; `exclude` (rows) are never returned; `pinned` rows
        (a section the query names) come first when the filters keep them."""
        self.bundle.ready()  # the background check of large files (integrity.py) comes first
        try:
            with self.work.lease() as work:
                return self._search(
                    work, query, filters, offset, limit, references, exclude, pinned
                )
        finally:
            for array in self._mapped:
                release(array)

    def searched(self, query: str, filters: Mapping[str, str]) -> tuple[list[str], list[str]]:
        """The terms and bigrams searched for `query`: `vs` only as bigrams when the query's
        words are coordinated (lexical.query_terms), without the words of a version the query
        moves away from (lexical.without_left_behind), and a question about changes without its
        change words, which lifting changelogs already answers (roles.without_change_words).
        A query of stop words alone searches the qualified names they end (Hugo's
        `collections.where` for "where"), stop words being no terms."""
        return self._searched(query, filters)[:2]

    def _searched(
        self, query: str, filters: Mapping[str, str]
    ) -> tuple[list[str], list[str], list[str]]:
        """`searched`, and the query's stop words when they are all it has (else [])."""
        config = self.bundle.metadata.analyzer
        terms, bigrams = query_terms(query, config, operators=not self.coordination)
        lexicon = self.lexicon
        stop = config.stopwords
        if not bigrams and all(t in stop for t in terms):
            # Stop words alone: the names a stop word alone gives (a page titled `this`), where
            # the bundle has them, and the qualified names they end.
            stops = stop_words(query, config)
            alone = [t for t in terms if lexicon.lookup(t) is not None]
            qualified = [t for w in stops for t in lexicon.qualified(w) if t not in alone]
            return alone + qualified, [], [] if alone else stops
        named = [
            t
            for w in named_stop_words(query, config)
            for t in ([w] if config.names and lexicon.lookup(w) is not None else [])
            + lexicon.qualified(w)
        ]
        terms = terms + [t for t in dict.fromkeys(named) if t not in terms]
        terms, bigrams = without_left_behind(query, terms, bigrams, config)
        roles = self.roles
        if (
            roles is not None
            and CHANGELOG in roles.values  # the lift answers the question only where it applies
            and ROLE_KEY not in filters
            and asks_what_changed(query)
        ):
            terms, bigrams = without_change_words(terms, bigrams)
        return terms, bigrams, []

    def entry_query(self, query: str) -> tuple[str, list[str]]:
        """The query whose words are searched and the entry-name terms of the entry it names
        that the bundle holds (entry_names.entry_query: `JsonReader`, `Element.select`,
        "JsonReader class" searched as `JsonReader`, "Flag inversion" for `FlagInversion`):
        searched besides its words, so the entry named so gains its impact (none for other
        queries, and in older bundles)."""
        lookup = self.lexicon.lookup
        return entry_query(query, lambda term: lookup(term) is not None)

    def entry_named(self, query: str) -> list[str]:
        """The entry-name terms `query` searches (entry_query)."""
        return self.entry_query(query)[1]

    def without_kind_words(self, query: str) -> str:
        """A query of one name and kind words ("JsonReader class") as the name alone where the
        bundle holds an entry of that name, found as the bare name is: the kind word is no help
        there, and harm (Java's `class`, Rust's `struct` and Swift's `type` are in most of a
        reference's chunks: "X class" found gson's class first for 27 of 57 names, the bare
        name for 57). Else the query as it is (entry_query)."""
        return self.entry_query(query)[0]

    def heading_lengths(self, rows: np.ndarray) -> np.ndarray:
        """The characters of each row's headings (its breadcrumb less the path): among rows of
        equal score, the one with shorter headings first. Impact codes give one code to impacts
        ~1 % apart (bundle-spec.md, *Impact codes*), so shadcn's Dialog and Alert Dialog tied
        for "dialog", and row (path) order put Alert Dialog first; the shorter title is what
        their float impacts preferred (the trail field's length)."""
        known, shown = self._heading_lengths, self.bundle.shown
        out = np.empty(len(rows), np.int64)
        for i, row in enumerate(rows.tolist()):
            length = known.get(row)
            if length is None:
                length = len(shown(row).header["breadcrumb"].partition(" > ")[2])
                if len(known) < HEADING_CACHE:
                    known[row] = length
            out[i] = length
        return out

    def coordinated(
        self, query: str, out: np.ndarray | None = None
    ) -> tuple[np.ndarray, int] | None:
        """The coordination factor of each row for `query` and the words counted
        (lexical.coordination), when the policy is on and the query asks for it (several names,
        or a choice: intent.wants_every_word); else None. `out`: a float32 row array to fill."""
        if not (self.coordination and wants_every_word(query)):
            return None
        words = named_words(query, self.bundle.metadata.analyzer)
        return coordination(self.lexicon, words, self.bundle.n_chunks, out)

    def _search(
        self,
        work: Workspace,
        query: str,
        filters: dict[str, str],
        offset: int,
        limit: int,
        references: Callable[[int], np.ndarray] | None,
        exclude: np.ndarray | None,
        pinned: Sequence[int],
    ) -> Page:
        # Every array of one value per chunk comes from `work` (workspace.py) and is used only
        # within this call: the Page holds plain lists.
        deadline = time.monotonic() + self.time_budget
        query, named_entry = self.entry_query(query)
        terms, bigrams, stops = self._searched(query, filters)
        notes = [stop_words_note(stops, terms)] if stops else []
        terms = terms + named_entry
        if len(terms) > MAX_QUERY_TERMS or len(bigrams) > MAX_QUERY_TERMS:
            notes.append(
                f"Only the first {MAX_QUERY_TERMS} distinct words of the query were searched."
            )
            terms, bigrams = terms[:MAX_QUERY_TERMS], bigrams[:MAX_QUERY_TERMS]
        named, scope = self.versions.scope(query, self.named(query, filters), filters)
        notes.extend([*(n.note() for n in named), *scope.notes])
        n = self.bundle.n_chunks
        lexical = score(
            self.lexicon, n, terms, deadline, work.array("lexical", np.float32), self.stem_weight
        )
        found = self.coordinated(query, work.array("coordination", np.float32))
        if found is not None:
            np.multiply(lexical, found[0], out=lexical)
        proximity = score(self.lexicon, n, bigrams, deadline, work.array("proximity", np.float32))
        mask = self.mask(filters, work.array("mask", bool))
        self.versions.restrict(scope, mask)
        if exclude is not None and len(exclude):
            mask[exclude] = False
        started = time.monotonic()
        qvec, degraded = self.embed_query(query)
        # Embedding is bounded on its own (provider timeouts, a one-off model load): the budget
        # covers the work done here, over the bundle.
        deadline += time.monotonic() - started
        _check(deadline)
        end = offset + limit
        if qvec is None:
            # lexical + proximity * phrase_weight, in place (the same float32 operations).
            scores = np.multiply(proximity, self.phrase_weight, out=proximity)
            np.add(lexical, scores, out=scores)
            matched = np.greater(scores, 0, out=work.array("matched", bool))
            keep = np.logical_and(matched, mask, out=work.array("keep", bool))
            depth = self.rescorer.spec.depth if self.rescorer is not None else 0
            # Folded variants: room for every copy of the sections that can be shown.
            k = max(end, depth) * self.versions.room(scope)
            total = int(np.count_nonzero(keep))
            corpus = int(np.count_nonzero(matched))
            if scope.folded or total < 4 * SAMPLE_EVERY * k:
                # Few candidates (or all of them counted by section): named values and page
                # roles weigh only those rows (the same float32 products, row by row, as over
                # the whole bundle).
                rows = np.flatnonzero(keep)
                part = scores[rows]
                if named:
                    np.multiply(part, self.boost_factor(named, rows), out=part)
                weigh(part, self.roles, query, filters, rows)
            else:  # (keep is a subset of matched: as many rows are the same rows)
                rows, part = self._best(scores, keep, total != corpus, k, named, query, filters)
            ranked, ranked_scores = topk(
                rows, part, k, self.heading_lengths if self.heading_ties else None
            )
            also_in: list[dict[str, list[str]]] = [{} for _ in ranked]
            if scope.folded:
                ranked, ranked_scores, also_in = self.versions.fold_variants(
                    scope, ranked, ranked_scores, also_in, mask
                )
                total = self.versions.distinct(scope, rows)
            ranked_set: np.ndarray | None = keep
        else:
            fused = self._fuse(lexical, proximity, qvec, mask, query, named, work, filters)
            ranked, ranked_scores, also_in = self._collapse(*fused, filters)
            if scope.folded:
                ranked, ranked_scores, also_in = self.versions.fold_variants(
                    scope, ranked, ranked_scores, also_in, mask
                )
            matched = np.greater(lexical, 0, out=work.array("matched", bool))
            matched |= proximity > 0
            total = len(ranked)
            ranked_set = None  # the ranked rows, made below only when references need it
            corpus = int(np.count_nonzero(matched))
        if self.rescorer is not None:
            before = len(ranked)
            ranked, ranked_scores, also_in = self._rescore(
                query, ranked, ranked_scores, also_in, notes, mask
            )
            total += len(ranked) - before  # rows the model recalled
            if ranked_set is not None and len(ranked) != before:
                ranked_set[ranked] = True  # the recalled rows count as ranked for references
        unpinned = ranked
        pins = [r for r in dict.fromkeys(pinned) if 0 <= r < n and mask[r]]
        if pins:
            ranked, ranked_scores, also_in, added = pin(ranked, ranked_scores, also_in, pins)
            total += added
        reached_by: dict[int, int] = {}
        if references is not None and len(ranked):
            if ranked_set is None:
                ranked_set = work.zeros("keep", bool)
                ranked_set[unpinned] = True
            ranked, ranked_scores, also_in, reached_by = expand(
                ranked, ranked_scores, also_in, ranked_set, mask, references, end
            )
            total += len(reached_by)
        suggested: dict[str, list[str]] = {}
        if total == 0 and (filters or scope.values):
            suggested = self._suggest(matched, self.versions.filters(scope, filters))
        return Page(
            rows=np.asarray(ranked[offset:end], dtype=np.int64).tolist(),
            scores=np.asarray(ranked_scores[offset:end], dtype=np.float64).tolist(),
            total=total,
            suggested_filters=suggested,
            corpus_matches=corpus,
            also_in=self.versions.fold(scope, ranked[offset:end], also_in[offset:end]),
            degraded=degraded,
            notes=notes,
            reached_by={r: p for r, p in reached_by.items() if r in ranked[offset:end]},
        )

    def _best(
        self,
        scores: np.ndarray,
        keep: np.ndarray,
        filtered: bool,
        k: int,
        named: Sequence[Named],
        query: str,
        filters: dict[str, str],
    ) -> tuple[np.ndarray, np.ndarray]:
        """The rows of `keep` that can be among the best `k` and their scores (`filtered`: keep
        is not every matched row),
        ascending by row, `scores` weighed in place by named values and page roles over every
        row of the bundle (a vector product each, where gathering thousands of candidates'
        scores, facet codes and role weights was ~a fifth of a speakeasy-sdks ranking's
        instructions); selection.best_rows then gathers only the rows that can rank."""
        if named:
            np.multiply(scores, self.boost_factor(named), out=scores)
        weigh(scores, self.roles, query, filters)
        return best_rows(scores, keep, k, filtered)

    def _rescore(
        self,
        query: str,
        ranked: np.ndarray,
        scores: np.ndarray,
        also_in: list[dict[str, list[str]]],
        notes: list[str],
        mask: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, list[dict[str, list[str]]]]:
        """The best hits reordered by the bundle's rescoring model, with the rows it recalled
        (rescore.py); a recalled row leaves its later place in the ranking."""
        assert self.rescorer is not None
        moved, note = self.rescorer.reorder(query, scores, ranked, mask)
        if note:
            notes.append(note)
        if moved is None:
            return ranked, scores, also_in
        k = moved.replaced
        where = {int(r): i for i, r in enumerate(ranked[:k])}
        rest = np.flatnonzero(~np.isin(ranked[k:], moved.rows)) + k
        rows = np.concatenate([moved.rows, ranked[rest]]).astype(ranked.dtype, copy=False)
        tail = np.asarray(scores[rest], dtype=np.float64) * moved.tail
        head_also = [also_in[where[int(r)]] if int(r) in where else {} for r in moved.rows]
        return rows, np.concatenate([moved.scores, tail]), head_also + [also_in[i] for i in rest]

    def named(self, query: str, filters: dict[str, str]) -> list[Named]:
        """Taxonomy values the query names, for keys the call does not filter."""
        if not self.name_boost or not self._values:
            return []
        return [n for n in named_values(query, self._values) if n.key not in filters]

    def boost_factor(self, named: Sequence[Named], rows: np.ndarray | None = None) -> np.ndarray:
        """Per row (of the bundle, or of `rows`): 1 + name_boost for each key whose named
        value(s) the row has, else 1."""
        size = self.bundle.n_chunks if rows is None else len(rows)
        factor = np.ones(size, dtype=np.float32)
        boost, one = np.float32(1.0 + self.name_boost), np.float32(1.0)
        for key in dict.fromkeys(n.key for n in named):
            codes = [self.taxonomy[key].code(n.value) for n in named if n.key == key]
            column = self._column(key) if rows is None else self._column(key)[rows]
            # One value (the usual case): a comparison, a tenth of isin's fixed cost.
            has = column == codes[0] if len(codes) == 1 else np.isin(column, codes)
            # The same float32 products as multiplying the rows that have it, in one pass:
            # has * (boost - 1) + 1 is where(has, boost, 1) bit for bit (boost - 1 and its sum
            # with 1 are exact in float32) at half of np.where's instructions.
            step = has.astype(np.float32)
            step *= boost - one
            step += one
            factor *= step
        return factor

    def _fuse(
        self,
        lexical: np.ndarray,
        proximity: np.ndarray,
        qvec: np.ndarray,
        mask: np.ndarray,
        query: str = "",
        named: Sequence[Named] = (),
        work: Workspace | None = None,
        filters: Mapping[str, str] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        f, policy = self.fusion, self.policy
        work = work or Workspace(self.bundle.n_chunks)
        assert self.vectors is not None and f is not None and policy is not None
        share = policy.vector_share(query_class(query))
        vec_rows, vec_sims = self.vectors.search(qvec, mask, self.floor, FUSION_DEPTH)
        # The full-text list is the full-text-only ranking itself (terms + weighted bigrams),
        # so score margins of exact identifier matches survive the fusion.
        # lexical + proximity * phrase_weight (the same float32 operations, into `work`).
        full = np.multiply(proximity, self.phrase_weight, out=work.array("full", np.float32))
        np.add(lexical, full, out=full)
        keep = np.greater(full, 0, out=work.array("fuse_keep", bool))
        lex_rows, lex_scores = rank(full, np.logical_and(keep, mask, out=keep), FUSION_DEPTH)
        prox_rows = lex_rows[:0]
        if policy.method != CONVEX:
            keep = np.greater(proximity, 0, out=keep)
            prox_rows, _ = rank(proximity, np.logical_and(keep, mask, out=keep), FUSION_DEPTH)
        # Only rows of a list can score, so fusion works on those (ascending, as row numbers):
        # the same float64 operations per row as over every row of the bundle, without
        # zeroing, comparing and scanning arrays of a million rows (1M-chunk bundle: ~1 ms).
        rows = sorted_unique(np.concatenate([lex_rows, prox_rows, vec_rows]))
        at = functools.partial(np.searchsorted, rows)
        if policy.method == CONVEX:
            fused = convex(
                len(rows), at(lex_rows), lex_scores, at(vec_rows), vec_sims, share, self.floor,
                policy.agreement,
            )  # fmt: skip
        else:
            lists = [(f.lexical, at(lex_rows)), (f.proximity, at(prox_rows)), (share, at(vec_rows))]
            fused = rrf(len(rows), lists, f.k)
        if named:
            fused *= self.boost_factor(named, rows)
        weigh(fused, self.roles, query, filters or {}, rows)
        keep_fused = fused > 0
        return topk(rows[keep_fused], fused[keep_fused], None)

    def _collapse(
        self, rows: np.ndarray, scores: np.ndarray, filters: dict[str, str]
    ) -> tuple[np.ndarray, np.ndarray, list[dict[str, list[str]]]]:
        """Fold variants of one section that differ only in a vector_collapse key (the same
        operation documented per language) into the best-ranked one, listing the others.

        A row's leader is the best-ranked row with the same heading trail (collapse_groups)
        and the same values for every other taxonomy key; the row folds into it when its
        collapse-key values differ and their vectors are at least `collapse_similarity` alike.
        """
        keys = [k for k in self.collapse_keys if k not in filters]
        if not keys or not len(rows):
            return rows, scores, [{} for _ in rows]
        assert self.vectors is not None
        groups = self.bundle.arrays["collapse_groups"]
        taxonomy = {k: self.taxonomy[k].values for k in keys}
        return collapse_variants(
            rows, scores, keys, self.keys, self.facets, groups, self.vectors,
            self.collapse_similarity, taxonomy,
        )  # fmt: skip

    def _suggest(self, matched: np.ndarray, filters: dict[str, str]) -> dict[str, list[str]]:
        """For each active filter: the other values that would give matches, the rest kept."""
        out: dict[str, list[str]] = {}
        for key in filters:
            others = {k: v for k, v in filters.items() if k != key}
            rows = matched & self.mask(others)
            codes = np.unique(self._column(key)[rows])
            values = self.taxonomy[key].values
            found = sorted(values[c - 1] for c in codes if c > 0 and values[c - 1] != filters[key])
            if found:
                out[key] = found
        return out


def _rescorer(bundle: Bundle) -> Rescorer | None:
    """The bundle's rescoring stage, its encoder loading in the background from now on."""
    spec = bundle.metadata.rescore
    vectors = bundle.arrays.get("rescore_vectors")
    if spec is None or vectors is None:
        return None
    from .rescore import Rescorer

    files = bundle.metadata.files
    digests = {name: files[name].sha256 for name in spec.files if name in files}
    return Rescorer(bundle.path, spec, vectors, digests)
