"""The `gguf` embedding provider (issue 29): a GGUF file run by llama.cpp on both sides.

The model is the packaged all-MiniLM-L6-v2 written as GGUF (gguf_minilm.py), so its vectors can
be held against sentence-transformers' for the same model. Tolerance, measured: llama.cpp's f32
BERT gives the same vectors as sentence-transformers to cosine >= 0.9999 for queries and short
chunks (the test asks 0.999); chunks longer than MiniLM's 256-token window differ by design (the
GGUF window is the model's 512 trained positions), so the comparison takes the short ones.

Needs llama-cpp-python (builds llama.cpp from source, ~35 min: CI does not install it), the
`gguf` package and the packaged MiniLM; each missing piece skips with a reason. What a user
without llama-cpp-python sees is tested everywhere, with the package hidden where it is installed.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import EXAMPLE_DOCS, GGUF_MINILM_NAME, build_bundle, build_without_llama, run_docsmcp
from docsmcp.embeddings.embed import embedding_input
from docsmcp.embeddings.providers_gguf import known_prompts
from docsmcp.pipeline.collect import BuildOptions, collect
from docsmcp_runtime.search.embedding import packaged_model_dir

PY_REFUND = "python/payments.md#payments/refund"
TS_REFUND = "typescript/payments.md#payments/refund"
QUERY = "give the money back to the buyer"  # no word of it occurs in the example corpus
QUERIES = [QUERY, "refund a payment", "how do I paginate a list", "install the SDK", "retry"]
NAME = GGUF_MINILM_NAME


@pytest.fixture(scope="module")
def bundle(model_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gguf-bundle") / "idx"
    return build_bundle(
        EXAMPLE_DOCS, out, "--embedding-provider", "gguf", "--embedding-model", model_file,
        "--embedding-threads", "1",
    )  # fmt: skip


def search(bundle: Path, model: Path | str | None, *env_hide: Path) -> tuple[dict, str]:
    """The runtime's `search --json` for QUERY, vectors alone ranking: (result, stderr)."""
    env = {k: v for k, v in os.environ.items() if k != "DOCSMCP_GGUF_MODEL"}
    if model is not None:
        env["DOCSMCP_GGUF_MODEL"] = str(model)
    if env_hide:
        env["PYTHONPATH"] = os.pathsep.join([*map(str, env_hide), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(bundle),
         "--fusion-weights", "lexical=0,vector=1", "search", QUERY, "--json"],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


@pytest.mark.extras
def test_a_gguf_build_is_hybrid_and_names_the_file_by_content(
    bundle: Path, model_file: Path
) -> None:
    text = (bundle / "metadata.json").read_text()
    emb = json.loads(text)["embedding"]
    assert (emb["provider"], emb["model"], emb["dimensions"]) == ("gguf", NAME, 384)
    assert emb["context_tokens"] == 512  # MiniLM's trained positions
    assert emb["options"] == {
        "model_name": NAME,
        "sha256": hashlib.sha256(model_file.read_bytes()).hexdigest(),
        "model_dimensions": 384,
        "query_prompt": "",  # MiniLM is no known prompted model
        "document_prompt": "",
    }
    assert str(model_file.parent) not in text
    assert (bundle / "vectors.bin").stat().st_size == 384 * 2 * json.loads(text)["stats"]["chunks"]


@pytest.mark.extras
def test_vectors_agree_with_sentence_transformers(bundle: Path, model_file: Path) -> None:
    st = pytest.importorskip("sentence_transformers", reason="sentence-transformers is missing")
    import pyarrow.parquet as pq
    from docsmcp_runtime.search.gguf_model import GgufModel

    reference = st.SentenceTransformer(str(packaged_model_dir()), device="cpu")
    model = GgufModel(model_file, 1, "llama-cpp-python is not installed")
    mine, theirs = model.embed(QUERIES), reference.encode(QUERIES, normalize_embeddings=True)
    assert np.min(np.sum(mine * theirs, axis=1)) >= 0.999

    inputs = {c.id: embedding_input(c) for c in collect(BuildOptions(docs_dir=EXAMPLE_DOCS)).chunks}
    ids = pq.read_table(bundle / "chunks.parquet", columns=["id"]).column("id").to_pylist()
    stored = np.fromfile(bundle / "vectors.bin", dtype="<f2").reshape(len(ids), -1)
    # Short chunks only: within MiniLM's 256-token window in sentence-transformers too.
    short = [i for i, chunk in enumerate(ids) if len(reference.tokenize([inputs[chunk]])
             ["input_ids"][0]) < reference.max_seq_length]  # fmt: skip
    assert len(short) >= 10
    expected = reference.encode([inputs[ids[i]] for i in short], normalize_embeddings=True)
    cosines = np.sum(stored[short].astype(np.float32) * expected, axis=1)
    assert cosines.min() >= 0.999  # float16 storage included


@pytest.mark.extras
def test_the_runtime_answers_hybrid_with_the_same_file(bundle: Path, model_file: Path) -> None:
    result, _ = search(bundle, model_file)
    assert "degraded" not in result
    assert result["hits"][0]["chunk_id"] in (PY_REFUND, TS_REFUND)  # by meaning: no shared word
    # A folder holding the bundle's file name finds it too.
    result, _ = search(bundle, model_file.parent)
    assert "degraded" not in result and result["hits"]


@pytest.mark.extras
def test_another_file_is_refused_in_one_line(bundle: Path, model_file: Path, tmp_path) -> None:
    from gguf_minilm import write_minilm_gguf

    # The same weights under another name in its metadata: a different file, so refused.
    other = write_minilm_gguf(packaged_model_dir(), tmp_path / NAME, name="another model")
    result, stderr = search(bundle, other)
    assert "hits" in result
    assert result["degraded"] == (
        f"Semantic search was unavailable ({other} is not the '{NAME}' model the bundle was "
        "built with (sha256 differs); set DOCSMCP_GGUF_MODEL to that file); results are "
        "full-text only."
    )
    warnings = [line for line in stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "searching full-text only" in warnings[0]

    result, _ = search(bundle, None)
    assert f"set DOCSMCP_GGUF_MODEL to the '{NAME}' GGUF file" in result["degraded"]


@pytest.mark.extras
def test_without_the_extra_the_runtime_serves_full_text(
    bundle: Path, model_file: Path, hidden_llama: Path
) -> None:
    result, _ = search(bundle, model_file, hidden_llama)
    assert result["hits"]  # full text still answers
    assert "llama-cpp-python is not installed beside docsmcp-runtime" in result["degraded"]
    assert "pip install 'docsmcp-runtime[gguf]'" in result["degraded"]


def test_without_llama_cpp_the_build_says_what_to_install(
    tmp_path: Path, hidden_llama: Path
) -> None:
    flags = ("--embedding-provider", "gguf", "--embedding-model", "FILE.gguf")
    assert build_without_llama(hidden_llama, tmp_path, *flags) == [
        "docsmcp: error: --embedding-provider gguf needs llama-cpp-python: pip install "
        "'docsmcp[gguf]' (it builds llama.cpp from source, ~35 minutes on 2 cores); nothing "
        "was written"
    ]


@pytest.mark.extras
def test_prompts_and_matryoshka_cut(model_file: Path, tmp_path: Path) -> None:
    """Prompts from the flags (else the known-model table) go before every chunk and query, and
    --embedding-dimensions keeps the first values, renormalised; the embedding cache serves a
    rebuild with the same settings."""
    from docsmcp_runtime.bundle.reader import open_bundle
    from docsmcp_runtime.search.gguf_model import GgufModel, gguf_embedder

    flags = (
        "build", "--docs-dir", EXAMPLE_DOCS, "--out", tmp_path / "idx", "--embedding-provider",
        "gguf", "--embedding-model", model_file, "--embedding-dimensions", "128",
        "--embedding-query-prompt", "query: ", "--embedding-document-prompt", "passage: ",
    )  # fmt: skip
    run_docsmcp(*flags)
    idx = tmp_path / "idx"
    emb = json.loads((idx / "metadata.json").read_text())["embedding"]
    assert emb["dimensions"] == 128 and emb["options"]["model_dimensions"] == 384
    assert (emb["options"]["query_prompt"], emb["options"]["document_prompt"]) == (
        "query: ",
        "passage: ",
    )
    os.environ["DOCSMCP_GGUF_MODEL"] = str(model_file)
    try:
        vector = gguf_embedder(open_bundle(idx).metadata.embedding, idx).embed("refund a payment")
    finally:
        del os.environ["DOCSMCP_GGUF_MODEL"]
    full = GgufModel(model_file, 1, "").embed(["query: refund a payment"])[0]
    assert np.allclose(vector, full[:128] / np.linalg.norm(full[:128]), atol=1e-6)

    again = run_docsmcp(*flags)  # not --quiet: the summary says what was embedded
    chunks = json.loads((idx / "metadata.json").read_text())["stats"]["chunks"]
    assert f"embedded 0 of {chunks} chunks" in again.stderr


def test_known_models_bring_their_prompts() -> None:
    nomic = known_prompts(["nomic-embed-text-v1.5", "", "nomic-embed-text-v1.5.f16.gguf"])
    assert (nomic.query, nomic.document) == ("search_query: ", "search_document: ")
    assert known_prompts(["", "E5 Large V2", "model.gguf"]).query == "query: "
    assert known_prompts(["MiniLM L6 H384 Uncased", NAME]) == known_prompts([])
