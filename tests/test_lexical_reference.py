"""Full-text impacts and scores against a BM25F computed independently from bundle-spec.md.

The chunks of the tiny fixture corpus come from the builder (`collect`) and the index from
`build_index`, exactly as `docsmcp build` makes them. The reference below re-derives every
impact from the spec's *Full-text index* formula in plain Python float64: its own field texts,
line-by-line term counting, field lengths, averages, df and idf, the heading discount of headings
shared by several pages. It borrows only the tokeniser (`docsmcp_runtime.search.analyzer.analyze`,
one line in, terms and bigram terms out), which test_chunk.py and the analyzer's own tests cover,
each page's `page` and `lead` texts (`pagefield`, which tests/test_page_field.py covers), and
the names of the API entries each chunk defines (the bundle's `api.parquet`, tests/test_apiref.py);
whether a query's words' coordination factor applies (`wants_every_word`: identifiers or a
choice, tests/test_ranking_intent.py).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import TINY_DOCS, defined_names, page_fields
from docsmcp.indexing.lexical import LexicalIndex, LexicalParams, build_index
from docsmcp.pipeline.collect import BuildOptions, collect
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.search.analyzer import AnalyzerConfig, analyze
from docsmcp_runtime.search.entry_names import kind_named, named_terms
from docsmcp_runtime.search.intent import CHOICE_WORDS, wants_every_word
from docsmcp_runtime.search.lexical import Lexicon, query_terms, score
from docsmcp_runtime.search.options import SearchOptions
from docsmcp_runtime.tools.app import DocsApp
from hypothesis import given, settings
from hypothesis import strategies as st
from spec_reader import inflection_stem

CONFIG = AnalyzerConfig(names=True)  # as the builder analyses (pipeline/collect.py)
# A name (bundle-spec.md, *Terms*, step 7) holds one of these: no other term does.
NAME = re.compile(r"[!%&*+<=>?^|~]|\.\.\.|\x01")
# What an entry-name term starts with (*Full-text index*): the names a reader types for an API
# entry the chunk defines, added to its anchors field as they are.
ENTRY = "\x01"
PARAMS = LexicalParams()
FIELDS = ("heading", "trail", "body", "context", "page", "lead", "anchors")

QUERIES = [
    "create widget",
    "the createWidget function",
    "createWidget retryPolicy",
    "client.widgets.create_widget",
    "会话密钥",
    "exponential backoff retries",
    "HTTPServer errors",
    "retries vs backoff",
    "createWidget or deleteWidget",
    "page_size pageToken",
    "WidgetNotFoundError 404",
    "global-guide",
    "how do I delete a widget?",
    "widgets\nlist",  # two lines: no bigram across them
    "typescript",
    "python",
    "zzexcludedword",  # only in a file the manifest excludes
    "retrying created widgets",  # other inflections: stem variants (bundle-spec.md)
]


# --------------------------------------------------------------------------- the reference


def line_terms(text: str) -> list[str]:
    """A field's terms with repetition: each LF-separated line analysed on its own, its terms
    then its bigram terms (so bigrams never span two lines)."""
    out: list[str] = []
    for line in text.split("\n"):
        if line.startswith(ENTRY):  # an entry-name term: a term as it is
            out.append(line)
            continue
        analysis = analyze(line, CONFIG)
        out.extend(analysis.terms)
        out.extend(analysis.bigrams)
    return out


def field_texts(chunk, pages: dict[str, tuple[str, str]], anchors: list[str]) -> dict[str, str]:
    """heading: the last line of the heading trail; trail: the lines above it; body: the
    searchable text; context: the path
    and then each metadata value on its own line; page and lead: the page's, the same on each
    of its chunks; anchors: the texts of links to the chunk, then the names of the API entries
    it defines, one per line (the tiny corpus has no links)."""
    values = [value for _, value in chunk.metadata]
    lines = chunk.heading_text.split("\n")
    return {
        "heading": lines[-1],
        "trail": "\n".join(lines[:-1]),
        "body": chunk.search_text,
        "context": "\n".join([chunk.path, *values]),
        "page": pages.get(chunk.path, ("", ""))[0],
        "lead": pages.get(chunk.path, ("", ""))[1],
        "anchors": "\n".join(anchors),
    }


def heading_discounts(chunks: list, alpha: float) -> list[float]:
    """Per chunk, 1 / (1 + alpha · ln n): n the distinct pages (a page is its path without its
    suffix and the folders its metadata values name) with a chunk of the same own heading
    (case-folded, whitespace collapsed); 1 without a heading."""

    def key(chunk) -> str:
        return re.sub(r"\s+", " ", chunk.heading).strip().casefold()

    paths: dict[str, set[str]] = {}
    for chunk in chunks:
        values = {value for _, value in chunk.metadata}
        *folders, name = chunk.path.split("/")
        stem = name.rsplit(".", 1)[0] or name
        page = "/".join([*(f for f in folders if f not in values), stem]).casefold()
        paths.setdefault(key(chunk), set()).add(page)
    return [
        1.0 if not key(c) else 1.0 / (1.0 + alpha * math.log(len(paths[key(c)]))) for c in chunks
    ]


class ReferenceBM25F:
    def __init__(
        self,
        chunks: list,
        params: dict,
        pages: dict[str, tuple[str, str]],
        anchors: list[list[str]],
    ) -> None:
        k1, b = params["k1"], params["b"]
        weights = params["field_weights"]
        discount = heading_discounts(chunks, params["heading_informativeness"])
        self.n = len(chunks)
        # counts[term][row][field] = tf; lengths[row][field] = the field's term count
        counts: dict[str, dict[int, dict[str, int]]] = {}
        lengths: list[dict[str, int]] = []
        for row, chunk in enumerate(chunks):
            lengths.append({})
            for name, text in field_texts(chunk, pages, anchors[row]).items():
                terms = line_terms(text)
                # a field's length: its terms and bigrams, not its names
                lengths[row][name] = sum(1 for t in terms if not NAME.search(t))
                for term in terms:
                    per_field = counts.setdefault(term, {}).setdefault(row, {})
                    per_field[name] = per_field.get(name, 0) + 1
        avglen = {f: sum(lens[f] for lens in lengths) / self.n for f in FIELDS}
        self.impacts: dict[str, dict[int, float]] = {}
        for term, rows in counts.items():
            df = len(rows)
            idf = math.log(1.0 + (self.n - df + 0.5) / (df + 0.5))
            for row, tfs in rows.items():
                pseudo = 0.0
                for name, tf in tfs.items():
                    norm = 1.0 - b + b * lengths[row][name] / avglen[name]
                    weight = weights[name] * (discount[row] if name == "heading" else 1.0)
                    pseudo += weight * tf / norm
                impact = idf * pseudo * (k1 + 1.0) / (k1 + pseudo)
                self.impacts.setdefault(term, {})[row] = impact
        self.counts = counts
        # the largest stored (float16) impact, the top of the impact levels
        # (of the terms that are not names: a name's larger impact takes the last code)
        self.top = max(
            float(np.float16(i))
            for term, rows in self.impacts.items()
            if not NAME.search(term)
            for i in rows.values()
        )

    def query(self, text: str) -> tuple[list[str], list[str]]:
        """Distinct terms and distinct bigram terms of all lines, in first-seen order; the
        terms `vs` and `versus` only when the query has no other (docs/search.md)."""
        terms: list[str] = []
        bigrams: list[str] = []
        for line in text.split("\n"):
            analysis = analyze(line, CONFIG)
            for seen, new in ((terms, analysis.terms), (bigrams, analysis.bigrams)):
                for term in new:
                    if term not in seen:
                        seen.append(term)
        sides = [t for t in terms if t not in ("vs", "versus")]
        return sides or terms, bigrams

    def coded(self, impact: float) -> np.float32:
        """bundle-spec.md, *Impact codes*: the level of the impact's code, `top` the largest
        float16 impact, code = rint(sqrt(x) * (255 / sqrt(top))), at least 1."""
        x, top = float(np.float16(impact)), self.top
        code = min(255, max(1, int(np.rint(math.sqrt(x) * (255 / math.sqrt(top))))))
        return np.float32((code / 255 * math.sqrt(top)) ** 2)

    def sum32(self, terms: list[str], coded: bool = False) -> np.ndarray:
        """Per row, the stored impacts of `terms` added in float32 in query order: float16
        values (the index as built), or the levels of their codes (`coded`: the bundle)."""
        out = np.zeros(self.n, dtype=np.float32)
        for term in terms:
            for row, impact in self.impacts.get(term, {}).items():
                stored = self.coded(impact) if coded else np.float32(np.float16(impact))
                out[row] = np.float32(out[row] + stored)
        return out

    def coordination32(self, query: str) -> np.ndarray:
        """docs/search.md: for a query of identifiers or a choice, each row's term sum is
        multiplied by ((1 + m) / (1 + w))², w counting the query's words (each one's longest
        term; not the words that only ask to compare) that the index holds and m those the row
        holds; else 1."""
        out = np.ones(self.n, dtype=np.float32)
        if not wants_every_word(query):
            return out
        longest = [max(analyze(w, CONFIG).terms, key=len, default="") for w in query.split()]
        sides = [t for t in dict.fromkeys(longest) if t and t not in CHOICE_WORDS]
        words = [t for t in sides if t in self.counts]
        if len(words) < 2:
            return out
        for row in range(self.n):
            held = sum(row in self.counts[t] for t in words)
            out[row] = (np.float32(1 + held) / np.float32(1 + len(words))) ** 2
        return out

    def _group(self, term: str) -> list[str]:
        """The dictionary's words with `term`'s inflection stem (the spec reader's, written from
        bundle-spec.md), in byte order, from `term` on around."""
        stem = inflection_stem(term)
        group = sorted(
            (t for t in self.counts if _word(t) and inflection_stem(t) == stem), key=str.encode
        )
        at = group.index(term)
        return group[at:] + group[:at]

    def variants(self, term: str) -> list[str]:
        """bundle-spec.md, *Stem variants*: a word's other inflections in the dictionary; for a
        word it lacks, the whole group of its first form the dictionary has."""
        if not _word(term):
            return []
        if term in self.counts:
            return self._group(term)[1:33]
        stem = inflection_stem(term)
        for form in (stem, stem + "e", *([stem[:-1] + "y"] if stem.endswith("i") else [])):
            same = inflection_stem(form) == stem or form == stem + "e"
            if form != term and form in self.counts and _word(form) and same:
                return self._group(form)[:33]
        return []

    def score32(self, query: str, phrase_weight: float, stem_weight: float = 0.0) -> np.ndarray:
        """A bundle's full-text score of each row (its impacts coded): the terms' impacts, then
        their variants' at `stem_weight`, in float32."""
        named = [t for t in named_terms(query) if t in self.impacts]
        name = kind_named(query)
        # a name with kind words, where the bundle names an entry so: the name's words alone
        terms, bigrams = self.query(name if name is not None and named else query)
        # and the entry-name terms of the entry the query names, where the bundle has them
        # (*Full-text index*: one name, a name and kind words, plain words written apart)
        terms = terms + named
        lexical = self.sum32(terms, coded=True)
        if stem_weight:
            w = np.float32(stem_weight)
            for variant in (v for t in terms for v in self.variants(t)):
                for row, impact in self.impacts[variant].items():
                    lexical[row] = np.float32(lexical[row] + np.float32(self.coded(impact) * w))
        lexical *= self.coordination32(query)
        return lexical + self.sum32(bigrams, coded=True) * np.float32(phrase_weight)


def _word(term: str) -> bool:
    """bundle-spec.md, *Stem variants*: three or more characters, all ASCII lower-case letters."""
    return len(term) >= 3 and all("a" <= c <= "z" for c in term)


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def chunks() -> list:
    collected = collect(BuildOptions(docs_dir=TINY_DOCS))
    assert collected.problems == []
    return collected.chunks


@pytest.fixture(scope="module")
def pages() -> dict[str, tuple[str, str]]:
    """Each page's `page` field, from the file as the build parses it."""
    return page_fields(TINY_DOCS)


@pytest.fixture(scope="module")
def anchors(tiny_bundle: Path, chunks: list) -> list[list[str]]:
    """The names of the API entries each chunk defines, from the built bundle's api.parquet."""
    found = defined_names(tiny_bundle, len(chunks))
    assert any(found)
    return found


@pytest.fixture(scope="module")
def index(
    chunks: list, pages: dict[str, tuple[str, str]], anchors: list[list[str]]
) -> LexicalIndex:
    return build_index(chunks, CONFIG, PARAMS, anchors=anchors, pages=pages)


@pytest.fixture(scope="module")
def reference(
    chunks: list, pages: dict[str, tuple[str, str]], anchors: list[list[str]]
) -> ReferenceBM25F:
    return ReferenceBM25F(chunks, PARAMS.to_json(), pages, anchors)


def lexicon_of(index: LexicalIndex) -> Lexicon:
    return Lexicon(
        {
            "terms": np.frombuffer(index.terms, dtype=np.uint8),
            "term_offsets": index.term_offsets,
            "postings_offsets": index.postings_offsets,
            "postings_docs": index.postings_docs,
            "postings_impacts": index.postings_impacts,
        }
    )


def dictionary(index: LexicalIndex) -> list[str]:
    offsets = index.term_offsets.tolist()
    return [index.terms[a:b].decode("utf-8") for a, b in zip(offsets, offsets[1:], strict=False)]


# --------------------------------------------------------------------------- tests


def test_the_tiny_corpus_exercises_every_kind_of_term(
    reference: ReferenceBM25F, chunks: list
) -> None:
    terms = reference.counts
    # identifiers: whole forms and sub-words of snake_case, camelCase and dotted names
    assert {"create_widget", "createwidget", "create", "widget", "retry_policy"} <= terms.keys()
    assert {"client.widgets.createwidget", "httpserver", "http", "server"} <= terms.keys()
    assert {"会话", "话密", "密钥"} <= terms.keys()  # CJK bigram grams
    assert "exponential backoff" in terms and "global-guide" in terms
    assert "zzexcludedword" not in terms  # NOTES.md is excluded by the manifest
    # repetition within a field, a term in several fields of one chunk, terms in many chunks
    assert any(tf > 1 for rows in terms.values() for f in rows.values() for tf in f.values())
    assert any(len(f) >= 3 for rows in terms.values() for f in rows.values())
    # the page field on every chunk; "Widgets" heads python/widgets.md and
    # typescript/widgets.mdx, one page in two language folders: not discounted
    assert all("lead" in f for f in terms["manage"].values())
    assert heading_discounts(chunks, PARAMS.heading_informativeness) == [1.0] * len(chunks)
    assert max(len(rows) for rows in terms.values()) >= len(chunks) // 2
    assert len(chunks) == 13


def test_dictionary_and_postings_rows_match_the_reference(
    index: LexicalIndex, reference: ReferenceBM25F
) -> None:
    words = dictionary(index)
    assert words == sorted(reference.impacts, key=lambda t: t.encode("utf-8"))
    offsets = index.postings_offsets.tolist()
    for i, term in enumerate(words):
        rows = index.postings_docs[offsets[i] : offsets[i + 1]].tolist()
        assert rows == sorted(reference.impacts[term]), term


def test_every_impact_is_the_reference_bm25f_in_float16(
    index: LexicalIndex, reference: ReferenceBM25F
) -> None:
    offsets = index.postings_offsets.tolist()
    assert index.postings_impacts.dtype == np.float16
    checked = exact = 0
    for i, term in enumerate(dictionary(index)):
        rows = index.postings_docs[offsets[i] : offsets[i + 1]].tolist()
        stored = index.postings_impacts[offsets[i] : offsets[i + 1]]
        for row, value in zip(rows, stored, strict=True):
            expected = reference.impacts[term][row]
            assert expected > 0
            checked += 1
            if value == np.float16(expected):
                exact += 1
                continue
            # float64 summation order may differ in the last bit: then the stored value must
            # still be within half a float16 step of the exact impact.
            half_step = float(np.spacing(value)) / 2
            assert abs(float(value) - expected) <= half_step * (1 + 1e-6), (term, row)
    assert checked == len(index.postings_docs) > 300
    assert exact >= checked * 0.99, f"only {exact} of {checked} impacts round identically"


@pytest.mark.parametrize("query", QUERIES)
def test_runtime_score_sums_the_reference_impacts(
    index: LexicalIndex, reference: ReferenceBM25F, query: str
) -> None:
    terms, bigrams = reference.query(query)
    assert query_terms(query, CONFIG) == (terms, bigrams)
    lexicon = lexicon_of(index)
    rows = range(reference.n)
    for group in (terms, bigrams):
        got = score(lexicon, reference.n, group)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, reference.sum32(group))
        # and against the unrounded float64 impacts: float16 keeps ~3 significant digits
        exact = [sum(reference.impacts.get(t, {}).get(row, 0.0) for t in group) for row in rows]
        np.testing.assert_allclose(got, exact, rtol=2e-3, atol=1e-6)
    if query == "zzexcludedword":
        assert not score(lexicon, reference.n, terms).any()


@pytest.fixture(scope="module")
def tiny_app(tiny_bundle: Path) -> DocsApp:
    # The stored scores alone: the runtime's boost of a language the query names ("python")
    # multiplies them on top (tests/test_ranking_intent.py).
    return DocsApp(open_bundle(tiny_bundle), SearchOptions(name_boost=0.0))


def search_rows(app: DocsApp, chunks: list, query: str) -> tuple[list[int], list[float]]:
    result = app.call_tool("search_docs", {"query": query, "limit": 50})
    assert not result.get("isError"), result
    hits = result["structuredContent"]["hits"]
    row_of = {c.id: row for row, c in enumerate(chunks)}
    return [row_of[h["chunk_id"]] for h in hits], [h["score"] for h in hits]


@pytest.mark.parametrize("query", QUERIES)
def test_ranking_is_by_reference_score_then_row(
    tiny_app: DocsApp, chunks: list, reference: ReferenceBM25F, query: str
) -> None:
    scores = reference.score32(query, PARAMS.phrase_weight, PARAMS.stem_weight)
    matching = [row for row in range(reference.n) if scores[row] > 0]
    expected = sorted(matching, key=lambda row: (-scores[row], headings(chunks[row]), row))
    rows, shown = search_rows(tiny_app, chunks, query)
    assert rows == expected
    assert shown == pytest.approx([float(scores[r]) for r in rows], abs=1e-5)


def headings(chunk) -> int:  # type: ignore[no-untyped-def]
    """The tie-break's key: the characters of the breadcrumb less the path (engine.py)."""
    return len(chunk.breadcrumb.partition(" > ")[2])


def test_equal_scores_rank_shorter_headings_then_row_order(
    tiny_app: DocsApp, chunks: list, reference: ReferenceBM25F
) -> None:
    # "global-guide" is only in the context field of the six guide chunks, whose contexts have
    # equal length (guides/errors.md, guides/sessions.md): six equal scores.
    rows, shown = search_rows(tiny_app, chunks, "global-guide")
    assert len(rows) == 6 and len(set(shown)) == 1
    assert rows == sorted(rows, key=lambda r: (headings(chunks[r]), r))
    assert rows != sorted(rows)  # the tie-break moved some
    assert all(chunks[r].path.startswith("guides/") for r in rows)
    # "python": one chunk says it in its body, three more only in their context; those three
    # tie below the first, shorter headings first, then in row order
    scores = reference.score32("python", PARAMS.phrase_weight, PARAMS.stem_weight)
    rows, _ = search_rows(tiny_app, chunks, "python")
    tied = [r for r in rows if sum(scores[x] == scores[r] for x in rows) > 1]
    assert len(rows) == 4 and tied == rows[1:]
    key = [(-scores[r], headings(chunks[r]), r) for r in rows]
    assert key == sorted(key)


@settings(max_examples=200, deadline=None)
@given(
    terms=st.sets(st.binary(min_size=1, max_size=12), max_size=300),
    probes=st.lists(st.binary(max_size=13), max_size=40),
)
def test_dictionary_lookup_finds_each_term_and_nothing_else(
    terms: set[bytes], probes: list[bytes]
) -> None:
    """Lexicon.lookup over a dictionary of any size and any bytes (the sampled strides and their
    edges included) gives each term's index, and None for anything else."""
    ordered = sorted(terms)
    offsets = np.zeros(len(ordered) + 1, dtype=np.uint64)
    offsets[1:] = np.cumsum([len(t) for t in ordered]) if ordered else []
    blob = np.frombuffer(b"".join(ordered), dtype=np.uint8)
    lexicon = Lexicon(
        {
            "terms": blob,
            "term_offsets": offsets,
            "postings_offsets": np.zeros(len(ordered) + 1, dtype=np.uint64),
            "postings_docs": np.zeros(0, dtype=np.uint32),
            "postings_impacts": np.zeros(0, dtype=np.float16),
        }
    )
    index = {t: i for i, t in enumerate(ordered)}
    for probe in [
        *ordered,
        *probes,
        *(t + b"\x00" for t in ordered[:20]),
        *(t[:-1] for t in ordered[:20]),
    ]:
        try:
            text = probe.decode()
        except UnicodeDecodeError:
            continue  # queries are text: a key is always valid UTF-8
        assert lexicon.lookup(text) == index.get(probe), probe
