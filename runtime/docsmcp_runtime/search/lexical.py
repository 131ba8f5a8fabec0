"""Full-text scoring over the bundle's impact-ordered CSR postings."""

from __future__ import annotations

import bisect
import re
import time

import numpy as np

from ..errors import SearchTimeout
from .analyzer import AnalyzerConfig, analyze
from .entry_names import is_entry_term
from .half import widen
from .intent import CHOICE_WORDS, OPERATORS, left_behind
from .stems import StemRings

# Every SAMPLE_STRIDE-th term of the dictionary is held as bytes (Lexicon._samples), so a lookup
# bisects that list in C, then reads the one stride of terms the key can be in as one bytes
# object and finds the key in it (`bytes.find`, then a C bisect of the offsets to check that the
# match is a whole term): reading terms one by one from the mapped dictionary (two numpy scalar
# reads and a copy each, ~6 per lookup) was a quarter of a speakeasy-sdks ranking, and with a
# binary search of the stride in Python a lookup took 2.4 us (now 1.5; a long question makes
# 30-50 of them). The list costs 1/32 of the dictionary's terms (~3,500 short bytes objects
# there), made on the first lookup.
SAMPLE_STRIDE = 32


# Postings fewer than this (a query's, together) take numpy's own float16 cast, within the
# concatenation, instead of widen's seven calls: below it the calls' fixed cost, not the
# per-element work, is the time (numpy 2.4 on AVX-512: equal at ~8,000, widen 1.7x cheaper at
# 32,000, the cast 3x cheaper at 2,000).
SHORT_LIST = 8192


# A query naming several identifiers (`REprintf Rvprintf`) or asking to choose (`IG vs WG`,
# `resource or tool?`) asks for the section that names them all (intent.wants_every_word): a row
# holding m of the query's w words keeps ((1 + m) / (1 + w)) ** 2 of its term score. BM25 alone
# put a section repeating one of two names four times (in code) above the section that defines
# both; the power is the smallest whole one that fixes it (1 does not). Measured on every dev
# set: docs/search.md, *How results are ranked*.
COORDINATION_POWER = 2
# Words of one query counted (each costs a lookup and a pass over its postings).
MAX_COORDINATED = 16


# Words whose other forms (Lexicon.variants) one opened bundle remembers.
VARIANT_CACHE = 4096
# Names a query of stop words alone may search (Lexicon.qualified): Hugo's `collections.where`
# for "where"; a word that ends hundreds of names is no name to search for.
MAX_QUALIFIED = 16


# Postings gathered before one add (bounds the copies a query of many common terms makes on a
# million-chunk bundle to ~1.5 MB).
BATCH_POSTINGS = 1 << 18


def _native(array: np.ndarray) -> np.ndarray:
    """`array` in the host's byte order (a view where it already is)."""
    return np.asarray(array, dtype=array.dtype.newbyteorder("="))


class Lexicon:
    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.terms = arrays["terms"]
        self.term_offsets = arrays["term_offsets"]
        self.postings_offsets = arrays["postings_offsets"]
        self.docs = arrays["postings_docs"]
        self.impacts = arrays["postings_impacts"]
        # Impacts stored as uint8 codes into float32 levels (bundle-spec.md, *Impact codes*),
        # else float16 values (levels None). A copy (1 KB) in numpy's own float32: add.at took
        # 55 us instead of 2.6 for 1,270 values taken from a view in a dtype equal to it but
        # made by newbyteorder (its fast path wants the canonical type).
        levels = arrays.get("impact_levels")
        self.levels = None if levels is None else np.array(levels, dtype=np.float32)
        rings = arrays.get("stem_rings")
        self.stems = StemRings(rings) if rings is not None and len(rings) else None
        # A word's other forms, remembered per term (queries repeat words; a miss costs a few
        # lookups), up to VARIANT_CACHE words: a dict, not an lru_cache of a bound method, which
        # would tie the Lexicon (and its mapped files) into a reference cycle.
        self._variant_cache: dict[str, tuple[int, ...]] = {}
        # Stop words' qualified names: a scan of the whole dictionary each, so kept (a stop
        # list is short, so is this).
        self._qualified_cache: dict[str, list[str]] = {}
        self.n_terms = len(self.term_offsets) - 1
        self._sampled: list[bytes] | None = None
        # Python ints by index without numpy scalars, and a C bisect over them; a
        # non-native byte order (a big-endian host) gets a native copy. Offsets are uint64 or
        # uint32 (a narrow index, bundle-spec.md): either width is kept.
        self._offsets = memoryview(_native(self.term_offsets))
        self._blob = memoryview(np.asarray(self.terms, dtype=np.uint8))
        self._postings_at = memoryview(_native(self.postings_offsets))

    def _term(self, i: int) -> bytes:
        return self._blob[self._offsets[i] : self._offsets[i + 1]].tobytes()

    def term(self, i: int) -> str:
        """The text of term `i`."""
        return self._term(i).decode()

    def _samples(self) -> list[bytes]:
        if self._sampled is None:
            self._sampled = [self._term(i) for i in range(0, self.n_terms, SAMPLE_STRIDE)]
        return self._sampled

    def lookup(self, term: str) -> int | None:
        """The term's index in the UTF-8-sorted dictionary, or None: a bisect of the sampled
        terms, then the key found within the stride they leave, read at once, where a match
        that starts and ends on term boundaries is the term (terms are distinct)."""
        key = term.encode()
        block = bisect.bisect_right(self._samples(), key)  # samples[block - 1] <= key
        if block == 0:
            return None  # below the first term
        lo = (block - 1) * SAMPLE_STRIDE
        hi = min(block * SAMPLE_STRIDE, self.n_terms)
        offsets = self._offsets
        base = offsets[lo]
        stride = self._blob[base : offsets[hi]].tobytes()
        at = stride.find(key)
        while at != -1:
            i = bisect.bisect_left(offsets, base + at, lo, hi)
            if i < hi and offsets[i] == base + at and offsets[i + 1] - offsets[i] == len(key):
                return i
            at = stride.find(key, at + 1)
        return None

    def qualified(self, word: str) -> list[str]:
        """The terms that are qualified names ending in `word` (`collections.where`,
        `select.where`), in dictionary order; none when more than MAX_QUALIFIED do. What a query
        of stop words alone searches (stop words are no terms: engine.Searcher.searched). A scan
        of the whole dictionary, once per word."""
        found = self._qualified_cache.get(word)
        if found is None:
            found = self._qualified_cache[word] = self._scan_qualified(word)
        return list(found)

    def _scan_qualified(self, word: str) -> list[str]:
        needle = re.compile(rb"[.:]" + re.escape(word.encode()))
        offsets, found = self._offsets, []
        for m in needle.finditer(self._blob):
            i = bisect.bisect_left(offsets, m.end())  # the term ending where the match does
            if i <= self.n_terms and offsets[i] == m.end() and offsets[i - 1] <= m.start():
                found.append(self.term(i - 1))
                if len(found) > MAX_QUALIFIED:
                    return []
        return found

    def variants(self, term: str) -> tuple[int, ...]:
        """The ids of the other forms of `term` in the dictionary (stems.StemRings.variants;
        none without `stem_rings.bin`)."""
        if self.stems is None:
            return ()
        found = self._variant_cache.get(term)
        if found is None:
            found = tuple(self.stems.variants(term, self.lookup(term), self.lookup))
            if len(self._variant_cache) < VARIANT_CACHE:
                self._variant_cache[term] = found
        return found

    def postings(self, term_id: int) -> tuple[np.ndarray, np.ndarray]:
        """The term's rows and their stored impacts (float16 values or uint8 codes: values)."""
        a, b = self._postings_at[term_id], self._postings_at[term_id + 1]
        return self.docs[a:b], self.impacts[a:b]

    def values(self, impacts: list[np.ndarray]) -> np.ndarray:
        """Stored impacts (postings' slices, in order) as one float32 array: each code's level,
        or each float16 value widened, bit for bit the cast numpy makes."""
        if self.levels is not None:
            return self.levels.take(np.concatenate(impacts))
        if sum(len(i) for i in impacts) < SHORT_LIST:
            return np.concatenate(impacts, dtype=np.float32)
        # widen: numpy's float16 cast, bit for bit, at about two thirds of its CPU time.
        half = np.concatenate(impacts)
        return widen(half, np.empty(len(half), np.float32), np.empty(len(half), np.uint32))


def query_terms(
    query: str, config: AnalyzerConfig, operators: bool = False
) -> tuple[list[str], list[str]]:
    """The distinct terms and distinct bigrams of a query, in first-seen order; each line is
    analysed on its own, as document lines are (bigrams never cross a line). `vs` and `versus`
    are left out of the terms (kept as bigrams) unless nothing else is left or `operators`."""
    terms: dict[str, None] = {}
    bigrams: dict[str, None] = {}
    for line in query.split("\n"):
        a = analyze(line, config)
        terms.update(dict.fromkeys(a.terms))
        bigrams.update(dict.fromkeys(a.bigrams))
    kept = [] if operators else [t for t in terms if t not in OPERATORS]
    return kept or list(terms), list(bigrams)


def stop_words(query: str, config: AnalyzerConfig) -> list[str]:
    """The distinct words of `query` (lower-cased) that are stop words, in order."""
    stop = config.stopwords
    return list(dict.fromkeys(w for w in re.findall(r"\w+", query.lower()) if w in stop))


# Nouns after which a stop word is a name ("where function", "with statement", "as expression"),
# in a query of at most NAMED_STOP_WORDS words: Lexicon.qualified then finds its names.
NAME_KINDS = frozenset(
    "function functions func method methods operator operators statement "
    "statements clause clauses filter filters tag tags directive directives expression "
    "expressions macro macros command commands keyword keywords".split()
)
NAMED_STOP_WORDS = 4


def named_stop_words(query: str, config: AnalyzerConfig) -> list[str]:
    """The stop words `query` uses as names: in backticks (`` `where` ``), or before a kind of
    name in a short query ("where function", "with statement", "this keyword"). Stop words are
    no terms (but where a line gives one alone, a title `this`: analyzer.py), so these search
    that name and the qualified names ending in them (Lexicon.qualified)."""
    stop, lower = config.stopwords, query.lower()
    quoted = [w for w in re.findall(r"`(\w+)`", lower) if w in stop] if "`" in lower else []
    words = lower.split(None, NAMED_STOP_WORDS)
    before_kind = []
    if len(words) <= NAMED_STOP_WORDS:
        words = re.findall(r"\w+", lower)
        pairs = zip(words, words[1:], strict=False)
        before_kind = [w for w, n in pairs if w in stop and n in NAME_KINDS]
    return list(dict.fromkeys(quoted + before_kind))


def stop_words_note(stops: list[str], names: list[str]) -> str:
    """What a search of stop words alone did (engine.Searcher._searched)."""
    said = ", ".join(f"'{w}'" for w in stops)
    if not names:
        return f"The query's words ({said}) are stop words, not indexed: add a word the docs use."
    shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
    return f"{said}: stop words, not indexed; searched the names ending in them: {shown}."


def without_left_behind(
    query: str, terms: list[str], bigrams: list[str], config: AnalyzerConfig
) -> tuple[list[str], list[str]]:
    """`terms` and `bigrams` less what only the versions the query moves away from give
    (intent.left_behind: `4` in "migrate from svelte 4 to 5"), and the bigrams holding it; a
    term the rest of the query also gives stays (`v` of "from v10 to v11")."""
    behind = left_behind(query)
    if not behind:
        return terms, bigrams
    rest = re.sub(
        "|".join(rf"(?<![\w.]){re.escape(w)}(?![\w])" for w in behind), " ", query, flags=re.I
    )
    kept = set(query_terms(rest, config, operators=True)[0])
    gone = {t for w in behind for t in analyze(w, config).terms if t not in kept}
    if not gone:
        return terms, bigrams
    return [t for t in terms if t not in gone], [
        b for b in bigrams if gone.isdisjoint(b.split(" "))
    ]


def score(
    lexicon: Lexicon,
    n_docs: int,
    terms: list[str],
    deadline: float | None = None,
    out: np.ndarray | None = None,
    stem_weight: float = 0.0,
) -> np.ndarray:
    """Sum of the stored impacts of `terms` per row (float32), into `out` when given (any
    float32 array of `n_docs`, overwritten); with `stem_weight`, plus that share of the impacts
    of each term's other forms (Lexicon.variants), added after every term's own. Past
    `deadline` (a time.monotonic() value) it raises SearchTimeout between terms."""
    scores = np.zeros(n_docs, dtype=np.float32) if out is None else out
    if out is not None:
        scores.fill(0)
    own: list[tuple[np.ndarray, np.ndarray]] = []
    others: list[tuple[np.ndarray, np.ndarray]] = []
    held = 0
    for term in terms:
        if deadline is not None and time.monotonic() > deadline:
            raise SearchTimeout
        tid = lexicon.lookup(term)
        if stem_weight > 0 and not is_entry_term(term):
            others.extend(map(lexicon.postings, lexicon.variants(term)))
        if tid is None:
            continue
        docs, impacts = lexicon.postings(tid)
        if held and held + len(docs) > BATCH_POSTINGS:
            _add(scores, own, lexicon)
            own, held = [], 0
        own.append((docs, impacts))
        held += len(docs)
    if not others:
        if own:
            _add(scores, own, lexicon)
        return scores
    weight = np.float32(stem_weight)
    if held + sum(len(d) for d, _ in others) <= BATCH_POSTINGS:
        # the usual case: one pass, the terms' own impacts first (the sums' order)
        _add(scores, own + others, lexicon, weight, len(own))
        return scores
    if own:
        _add(scores, own, lexicon)
    batch, held = [], 0
    for docs, impacts in others:
        if held and held + len(docs) > BATCH_POSTINGS:
            _add(scores, batch, lexicon, weight, 0)
            batch, held = [], 0
        batch.append((docs, impacts))
        held += len(docs)
    _add(scores, batch, lexicon, weight, 0)
    return scores


def _add(
    scores: np.ndarray,
    batch: list[tuple[np.ndarray, np.ndarray]],
    lexicon: Lexicon,
    weight: np.float32 | None = None,
    weighted_from: int = 0,
) -> None:
    """Add the impacts of several terms' postings, in term order, in one pass; with `weight`,
    the impacts of the postings from `weighted_from` on are first multiplied by it (float32).

    Doc ids are unique within a posting list, so each row gets one float32 addition per term,
    in the order of the terms, as one `add.at` per term did (same sums, bit for bit): a long
    query's 50 terms and bigrams cost 3 numpy calls instead of 150. add.at adds in place,
    without the index casts and temporaries of `scores[docs] += wide`."""
    # Row ids as intp, add.at's own index type, within the concatenation: add.at converts
    # uint32 ids itself, at a cost (a speakeasy-sdks query's adds: 19.4 -> 15.5 us).
    docs = np.concatenate([d for d, _ in batch], dtype=np.intp)
    values = lexicon.values([i for _, i in batch])
    if weight is not None:
        start = sum(len(d) for d, _ in batch[:weighted_from])
        values[start:] *= weight
    np.add.at(scores, docs, values)


def named_words(query: str, config: AnalyzerConfig) -> list[str]:
    """Each whitespace-separated word of `query` as its longest term (`REprintf` → `reprintf`,
    not its pieces `r`, `eprintf`), distinct, in order; stopwords and the words that only ask
    to compare (`vs`, `which`) give none."""
    words: dict[str, None] = {}
    stop = config.stopwords
    for word in query.split():
        # (a stop word alone is a name, analyzer.py, but no word to coordinate: "or", "for")
        found = [t for t in analyze(word, config).terms if t not in stop]
        if found:
            words.setdefault(max(found, key=len))
    return [w for w in words if w not in CHOICE_WORDS][:MAX_COORDINATED]


def coordination(
    lexicon: Lexicon, words: list[str], n_docs: int, out: np.ndarray | None = None
) -> tuple[np.ndarray, int] | None:
    """Per row, ((1 + m) / (1 + w)) ** COORDINATION_POWER as float32 (into `out` when given),
    where w of `words` are in the index and the row holds m of them; and w. None when w < 2."""
    postings = [lexicon.postings(t)[0] for t in map(lexicon.lookup, words) if t is not None]
    if len(postings) < 2:
        return None
    factor = np.empty(n_docs, np.float32) if out is None else out
    # Words per row, in one add.at of the concatenated postings (doc ids are unique within a
    # posting list), then the factor in place: a million-row bundle's coordinated queries paid
    # ~7 ms more than without it with a bincount and a table lookup, a fancy-index increment
    # per word costs more still.
    factor.fill(1)
    docs = np.concatenate(postings)
    np.add.at(factor, docs, np.ones(len(docs), np.float32))
    factor /= np.float32(1 + len(postings))
    np.power(factor, COORDINATION_POWER, out=factor)
    return factor, len(postings)
