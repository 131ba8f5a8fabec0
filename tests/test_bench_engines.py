"""bench/engines_peers.py (issue 30): the tantivy and bm25s indexes of a bundle's chunks answer
with the hit fields `docsmcp eval` judges, honour filters and drop rows no query term matched.
Skipped, with the reason, where the bench extra (`pip install 'docsmcp[bench]'`) is missing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from docsmcp.commands.evaluate import evaluate  # noqa: E402
from engines_peers import BUILDERS, Chunks, PeerApp  # noqa: E402
from engines_serve import ENGINES  # noqa: E402

ROWS = [
    ("a.md#paginate", "a.md", "Paginate", "a.md > Guide > Paginate", "python",
     "## Paginate\nUse the cursor to paginate results."),
    ("b.md#paginate", "b.md", "Paginate", "b.md > Guide > Paginate", "go",
     "## Paginate\nCall Next to paginate results in Go."),
    ("c.md#retry", "c.md", "Retries", "c.md > Retries", "go",
     "## Retries\nRetry with exponential backoff."),
]  # fmt: skip


def chunks() -> Chunks:
    ids, paths, headings, crumbs, langs, texts = zip(*ROWS, strict=True)
    metadata = [json.dumps({"language": lang}) for lang in langs]
    return Chunks(list(ids), list(paths), list(headings), list(crumbs), metadata, list(texts))


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_peer_answers_like_search_docs(name: str, tmp_path: Path) -> None:
    pytest.importorskip(name, reason=f"{name} is not installed (the bench extra)")
    BUILDERS[name](chunks(), tmp_path / name)
    engine = ENGINES[name](str(tmp_path / name))
    hits = engine.hits("exponential backoff", {})
    assert [h["chunk_id"] for h in hits] == ["c.md#retry"]  # no 0-score rows
    assert hits[0]["metadata"] == {"language": "go"} and hits[0]["heading"] == "Retries"
    assert {h["chunk_id"] for h in engine.hits("paginate results", {})} == {
        "a.md#paginate",
        "b.md#paginate",
    }
    filtered = engine.hits("paginate results", {"language": "go"})
    assert [h["chunk_id"] for h in filtered] == ["b.md#paginate"]
    assert engine.hits("nothing matches zzz", {}) == []
    case = {
        "id": "t1",
        "corpus": "tiny",
        "category": "natural-language",
        "query": "paginate",
        "filters": {"language": "python"},
        "relevant": [{"file": "a.md", "heading": "Paginate"}],
    }
    report = evaluate({"tiny": PeerApp(engine, chunks())}, [case], k=5)
    assert report.overall.mrr == 1.0 and report.overall.facet_precision == 1.0
