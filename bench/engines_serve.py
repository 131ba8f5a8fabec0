"""tantivy or bm25s answering queries over a docsmcp bundle's chunks (bench_engines.py, issue 30).

The peers' side of the comparison, as a plain user would write it, with nothing but the engine
imported (the cold start and the serving RSS measure this file as a process):

    python bench/engines_serve.py tantivy|bm25s INDEX_DIR QUERY   # one answer, then exit
    python bench/engines_serve.py tantivy|bm25s INDEX_DIR         # a loop over stdin

The loop reads one JSON line per query (`{"query": ..., "filters": {...}, "limit": 10}`) and
writes one JSON line: the hit list. A hit is a dict of the chunk row's stored fields
(`chunk_id`, `filepath`, `heading`, `breadcrumb`, `metadata`, `score`), the fields
`docsmcp eval` judges. Filters are exact matches on the chunk's metadata values.
The indexes are written by engines_peers.py.
"""

from __future__ import annotations

import json
import sys

# tantivy: the one field searched (heading, breadcrumb and text, default tokenizer, stored),
# the one holding `KEY=VALUE` of each metadata value (raw tokenizer), for filters, and the hit
# fields as JSON, stored and not indexed.
BODY = "body"
FACET = "facet"
HIT = "hit"


class TantivyEngine:
    def __init__(self, path: str) -> None:
        import tantivy

        self.tantivy = tantivy
        self.index = tantivy.Index.open(path)
        self.searcher = self.index.searcher()
        self.schema = self.index.schema

    def rank(self, query: str, filters: dict[str, str], k: int = 10) -> list:
        """[(score, DocAddress)], best first: the query parsed leniently (a user's text is not
        tantivy query syntax), each filter a required term."""
        t = self.tantivy
        parsed, _errors = self.index.parse_query_lenient(query, [BODY])
        if filters:
            must = [(t.Occur.Must, parsed)]
            for key, value in sorted(filters.items()):
                term = t.Query.term_query(self.schema, FACET, f"{key}={value}")
                must.append((t.Occur.Must, term))
            parsed = t.Query.boolean_query(must)
        return self.searcher.search(parsed, k).hits

    def hits(self, query: str, filters: dict[str, str], k: int = 10) -> list[dict]:
        doc = self.searcher.doc
        return [
            {**json.loads(doc(address).get_first(HIT)), "score": score}
            for score, address in self.rank(query, filters, k)
        ]


class Bm25sEngine:
    def __init__(self, path: str) -> None:
        import bm25s
        import numpy

        self.bm25s = bm25s
        self.numpy = numpy
        self.model = bm25s.BM25.load(path, load_corpus=True, show_progress=False)
        # the hit fields of each row (no text), kept here: with a corpus, retrieve returns
        # documents, not row numbers
        self.corpus, self.model.corpus = self.model.corpus, None
        self.masks: dict[tuple, object] = {}

    def _mask(self, filters: dict[str, str]) -> object:
        key = tuple(sorted(filters.items()))
        if key not in self.masks:
            rows = [all(doc["metadata"].get(k) == v for k, v in key) for doc in self.corpus]
            self.masks[key] = self.numpy.asarray(rows, dtype=self.numpy.float32)
        return self.masks[key]

    def rank(self, query: str, filters: dict[str, str], k: int = 10) -> list:
        """[(score, row)], best first; rows scoring 0 (no query term, or filtered out by the
        weight mask) are dropped, as bm25s returns k rows whatever they score."""
        tokens = self.bm25s.tokenize(query, show_progress=False, return_ids=False)
        rows, scores = self.model.retrieve(
            tokens,
            k=min(k, len(self.corpus)),
            show_progress=False,
            weight_mask=self._mask(filters) if filters else None,
        )
        return [(float(s), int(r)) for r, s in zip(rows[0], scores[0], strict=True) if s > 0]

    def hits(self, query: str, filters: dict[str, str], k: int = 10) -> list[dict]:
        corpus = self.corpus
        return [{**corpus[row], "score": score} for score, row in self.rank(query, filters, k)]


ENGINES = {"tantivy": TantivyEngine, "bm25s": Bm25sEngine}


def main(argv: list[str]) -> int:
    name, path, *rest = argv
    engine = ENGINES[name](path)
    if rest:
        print(json.dumps(engine.hits(rest[0], {})))
        return 0
    write, flush = sys.stdout.write, sys.stdout.flush
    for line in sys.stdin:
        req = json.loads(line)
        write(json.dumps(engine.hits(req["query"], req.get("filters") or {}, req.get("limit", 10))))
        write("\n")
        flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
