"""The peers of bench_engines.py (issue 30): tantivy and bm25s indexes of a docsmcp bundle's chunks,
and an app that `docsmcp eval`'s `evaluate` can judge exactly as it judges docsmcp.

What is indexed, the way a plain user would: one text per chunk row of `chunks.parquet`,
`heading + "\\n" + breadcrumb + "\\n" + text`.
- tantivy: field `body` with the default tokenizer (split on non-alphanumerics, lowercased, no
  stemming, no stop words), stored, so the index holds the text; `facet` (`KEY=VALUE` of each
  metadata value, raw tokenizer) for filters; `hit`, the hit fields (`chunk_id`, `filepath`,
  `heading`, `breadcrumb`, `metadata`) as JSON bytes, stored and not indexed (the leanest
  index that can answer with them). One writer thread (so one segment, and ties in the same
  order every run), otherwise default settings, committed once.
- bm25s: `bm25s.tokenize` defaults (lowercase, `\\w\\w+` tokens, English stop words, no stemmer),
  `BM25()` defaults (Lucene variant, k1 1.5, b 0.75); saved with the hit fields of each row as
  its corpus (not the text) for the hit lists.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

from engines_serve import BODY, ENGINES, FACET, HIT

PEERS = tuple(ENGINES)


def missing(name: str) -> str | None:
    """Why a peer cannot be measured here (its package is not installed), else None."""
    if importlib.util.find_spec(name) is None:
        return f"{name} is not installed (pip install 'docsmcp[bench]')"
    return None


@dataclass(frozen=True)
class Chunks:
    ids: list[str]
    paths: list[str]
    headings: list[str]
    breadcrumbs: list[str]
    metadata: list[str]  # JSON, as in the table
    texts: list[str]

    def __len__(self) -> int:
        return len(self.ids)

    def indexed(self, row: int) -> str:
        return f"{self.headings[row]}\n{self.breadcrumbs[row]}\n{self.texts[row]}"

    def hit_fields(self, row: int) -> dict:
        return {
            "chunk_id": self.ids[row],
            "filepath": self.paths[row],
            "heading": self.headings[row],
            "breadcrumb": self.breadcrumbs[row],
            "metadata": json.loads(self.metadata[row] or "{}"),
        }


def load_chunks(bundle: Path) -> Chunks:
    import pyarrow.parquet as pq

    columns = ["id", "path", "heading", "breadcrumb", "metadata", "text"]
    table = pq.read_table(bundle / "chunks.parquet", columns=columns)
    lists = {c: [v or "" for v in table.column(c).to_pylist()] for c in columns}
    return Chunks(
        lists["id"],
        lists["path"],
        lists["heading"],
        lists["breadcrumb"],
        lists["metadata"],
        lists["text"],
    )


def build_tantivy(chunks: Chunks, out: Path) -> None:
    import tantivy

    sb = tantivy.SchemaBuilder()
    sb.add_text_field(BODY, stored=True)
    sb.add_text_field(FACET, tokenizer_name="raw", index_option="basic")
    sb.add_bytes_field(HIT, stored=True)
    out.mkdir(parents=True)
    index = tantivy.Index(sb.build(), path=str(out))
    writer = index.writer(num_threads=1)  # one segment: the same ranking, ties included, every run
    for row in range(len(chunks)):
        hit = chunks.hit_fields(row)
        writer.add_document(
            tantivy.Document(
                body=chunks.indexed(row),
                facet=[f"{k}={v}" for k, v in sorted(hit["metadata"].items())],
                hit=json.dumps(hit).encode(),
            )
        )
    writer.commit()
    writer.wait_merging_threads()


def build_bm25s(chunks: Chunks, out: Path) -> None:
    import bm25s

    texts = [chunks.indexed(row) for row in range(len(chunks))]
    model = bm25s.BM25()
    model.index(bm25s.tokenize(texts, show_progress=False), show_progress=False)
    corpus = [chunks.hit_fields(row) for row in range(len(chunks))]
    model.save(str(out), corpus=corpus, show_progress=False)


BUILDERS = {"tantivy": build_tantivy, "bm25s": build_bm25s}


class PeerApp:
    """The two tool calls `evaluate` makes, answered by a peer engine: `search_docs` (its hit
    list) and `get_doc` (the chunk's text from the table, judged for its heading lines)."""

    def __init__(self, engine: object, chunks: Chunks) -> None:
        self.engine = engine
        self.text = dict(zip(chunks.ids, chunks.texts, strict=True))

    def call_tool(self, name: str, arguments: dict) -> dict:
        if name == "get_doc":
            return {"content": [{"type": "text", "text": self.text[arguments["chunk_id"]]}]}
        args = dict(arguments)
        query, limit = args.pop("query"), args.pop("limit", 10)
        return {"structuredContent": {"hits": self.engine.hits(query, args, limit)}}


def dir_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
