"""The `static` embedding provider, its table format and the runtime's numpy query embedder.

Everything runs on the default table shipped with the builder and on real corpus text. Nothing
is downloaded: the reference tokenizer is built from the shipped vocab.txt, and table creation is
exercised on a tiny BERT model created in a temporary folder (only when torch is installed).
Timing is not asserted here; bench/bench_static.py measures it.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import CORPORA
from docsmcp.embeddings.embed import EmbeddingOptions, ProviderError
from docsmcp.embeddings.providers_static import DEFAULT_TABLE, StaticProvider
from docsmcp.embeddings.static_table import (
    META_FILE,
    input_embeddings,
    main,
    make_table,
    read_safetensors,
    read_table,
    write_table,
)
from docsmcp_runtime.format import MetadataError, StaticOptions
from docsmcp_runtime.search.embedding import EmbeddingError
from docsmcp_runtime.search.static_model import (
    TABLE_FILE,
    VOCAB_FILE,
    StaticModel,
    StaticModelError,
    TokenizerOptions,
    WordPieceTokenizer,
    parse_table,
    read_vocab,
    table_bytes,
)

SPEAKEASY = CORPORA / "speakeasy-sdks"


@pytest.fixture(scope="module")
def provider() -> StaticProvider:
    return StaticProvider(EmbeddingOptions(provider="static"))


@pytest.fixture(scope="module")
def tokenizer() -> WordPieceTokenizer:
    return WordPieceTokenizer(
        read_vocab((DEFAULT_TABLE / VOCAB_FILE).read_bytes()), TokenizerOptions()
    )


def section(path: Path, heading: str) -> str:
    """A markdown section's text: from its heading line to the next heading of the same level."""
    lines = path.read_text("utf-8").splitlines()
    level = heading.split(" ")[0]
    start = lines.index(heading)
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].split(" ")[0] == level),
        len(lines),
    )
    return "\n".join(lines[start:end])


# -- tokenizer ------------------------------------------------------------------------------


TOKENIZER_CASES = [
    ("Create a short link", ["create", "a", "short", "link"]),
    ("links.createMany(req)", ["links", ".", "create", "##man", "##y", "(", "re", "##q", ")"]),
    ("d_client.links.create_many", ["d", "_", "client", ".", "links", ".", "create", "_", "many"]),
    ("Café NAÏVE résumé", ["cafe", "naive", "resume"]),
    ("東京に住む", ["東", "京", "に", "[UNK]", "む"]),
    ("x" * 101, ["[UNK]"]),  # longer than WordPiece's 100-character limit
    ("tab\there\x00nul\x7fdel\ufffd", ["tab", "here", "##nu", "##lde", "##l"]),
    ("a\u2028b\u00a0c", ["a", "b", "c"]),  # Unicode whitespace separates words
    ("", []),
]


@pytest.mark.parametrize(("text", "expected"), TOKENIZER_CASES)
def test_tokenizer_known_cases(
    tokenizer: WordPieceTokenizer, text: str, expected: list[str]
) -> None:
    assert tokenizer.tokens(text) == expected


def _reference_strings() -> list[str]:
    strings = [text for text, _ in TOKENIZER_CASES] + [
        "HTTPServer v2.0.1 — “quotes” ‘x’ … ½ Ⅻ ﬁ",
        "İstanbul ǅ ß Ελληνικά Русский العربية emoji 🚀",
        "foo_bar-baz/qux@x:y <T as Trait>::Output &'a mut [u8]",
    ]
    # Real documentation lines in several scripts (speakeasy SDK docs, the yellow docs, Rust).
    files = sorted(CORPORA.glob("*/**/*.md"))
    random.Random(7).shuffle(files)
    for path in files[:300]:
        strings += path.read_text("utf-8", errors="replace").splitlines()[:15]
    return strings


@pytest.mark.corpus
def test_tokenizer_matches_reference_bert_tokenizer(tokenizer: WordPieceTokenizer) -> None:
    tokenizers = pytest.importorskip("tokenizers", reason="`tokenizers` is not installed")
    reference = tokenizers.BertWordPieceTokenizer(
        str(DEFAULT_TABLE / VOCAB_FILE), lowercase=True, strip_accents=None
    )
    strings = _reference_strings()
    assert len(strings) > 1000
    for text in strings:
        expected = reference.encode(text, add_special_tokens=False).tokens
        assert tokenizer.tokens(text) == expected, text


# -- embedding ------------------------------------------------------------------------------


def test_query_embedding_deterministic_and_normalised(provider: StaticProvider) -> None:
    model = StaticModel.load(DEFAULT_TABLE, provider.bundle_spec(), provider.dimensions)
    a = model.embed("how do I create a short link with a custom domain?")
    b = model.embed("how do I create a short link with a custom domain?")
    assert a.dtype == np.float32 and a.shape == (provider.dimensions,)
    assert np.array_equal(a, b)
    assert abs(float(np.linalg.norm(a)) - 1.0) < 1e-5
    assert not model.embed("").any()  # no token: a zero vector, like `normalise` gives
    assert not model.embed("住").any()  # only [UNK]: special tokens are never pooled


def test_documents_and_queries_are_embedded_identically(
    provider: StaticProvider, tmp_path: Path
) -> None:
    """The runtime, reading only the bundle files, embeds text exactly as the builder did."""
    for name, data in provider.bundle_files().items():
        (tmp_path / name).write_bytes(data)
    # As read back from metadata.json:
    written = json.loads(json.dumps(provider.bundle_spec().to_json()))
    runtime = StaticModel.load(
        tmp_path, StaticOptions.from_json(written, "options"), provider.dimensions
    )
    texts = ["Retry with exponential backoff", "links.upsert(request)", "Überprüfung 東京"]
    docs = provider.embed_documents(texts, ["a", "b", "c"])
    assert docs.dtype == np.float32 and docs.shape == (3, provider.dimensions)
    for row, text in zip(docs, texts, strict=True):
        assert np.array_equal(row, runtime.embed(text))


@pytest.mark.corpus
def test_same_topic_is_more_similar(provider: StaticProvider) -> None:
    links = section(SPEAKEASY / "dub-python/docs/sdks/links/README.md", "## create")
    ocr = section(SPEAKEASY / "mistral-python/docs/sdks/ocr/README.md", "## process")
    query, link_doc, ocr_doc = provider.embed_documents(
        ["create a short link", links, ocr], ["q", "links", "ocr"]
    )
    assert float(query @ link_doc) > float(query @ ocr_doc) + 0.05


# Paraphrases that share no token with the query: only meaning can rank them first.
PARAPHRASES = [
    ("remove a user account", "delete a customer profile", "bake bread in the oven"),
    ("authentication token expired", "the api key is no longer valid", "rename a file on disk"),
    ("paginate results", "fetch the next page of items", "compile rust macros"),
    ("speech to text", "transcribe audio recordings", "list all workspaces"),
    ("how much does it cost", "pricing and billing plans", "thread safety of closures"),
    ("shorten a url", "create a short link", "transcribe audio recordings"),
    ("cancel a subscription", "stop recurring payments", "parse json"),
    ("car", "automobile", "banana"),
    ("physician", "doctor", "river"),
]


@pytest.mark.parametrize(("query", "related", "unrelated"), PARAPHRASES)
def test_paraphrase_beats_unrelated(
    provider: StaticProvider, query: str, related: str, unrelated: str
) -> None:
    q, r, u = provider.embed_documents([query, related, unrelated], ["q", "r", "u"])
    assert float(q @ r) > float(q @ u)


# -- provider -------------------------------------------------------------------------------


def test_provider_description(provider: StaticProvider) -> None:
    meta = read_table(DEFAULT_TABLE).meta
    assert provider.name == "static"
    assert provider.dimensions == meta["dimensions"]
    assert provider.model == meta["name"]
    spec = provider.bundle_spec()
    assert spec.files == (VOCAB_FILE, TABLE_FILE)
    assert spec.encoding == meta["encoding"]
    files = provider.bundle_files()
    assert set(files) == {VOCAB_FILE, TABLE_FILE}
    assert files[TABLE_FILE] == (DEFAULT_TABLE / TABLE_FILE).read_bytes()


def _copy_table(src: Path, dst: Path, table: bytes | None = None) -> Path:
    files = read_table(src)
    write_table(
        type(files)(files.vocab, table if table is not None else files.table, files.meta), dst
    )
    return dst


def test_fingerprint_follows_the_table_not_the_folder(
    provider: StaticProvider, tmp_path: Path
) -> None:
    same = StaticProvider(
        EmbeddingOptions(provider="static", model=str(_copy_table(DEFAULT_TABLE, tmp_path / "a")))
    )
    assert same.fingerprint() == provider.fingerprint()
    assert same.model == provider.model
    changed_bytes = bytearray((DEFAULT_TABLE / TABLE_FILE).read_bytes())
    changed_bytes[1000] ^= 0x01
    changed = StaticProvider(
        EmbeddingOptions(
            provider="static",
            model=str(_copy_table(DEFAULT_TABLE, tmp_path / "b", bytes(changed_bytes))),
        )
    )
    assert changed.fingerprint() != provider.fingerprint()


def test_provider_errors(tmp_path: Path) -> None:
    with pytest.raises(ProviderError, match="not a static table folder"):
        StaticProvider(EmbeddingOptions(provider="static", model=str(tmp_path)))
    with pytest.raises(ProviderError, match="dimensions"):
        StaticProvider(EmbeddingOptions(provider="static", dimensions=7))
    truncated = (DEFAULT_TABLE / TABLE_FILE).read_bytes()[:-4]
    folder = _copy_table(DEFAULT_TABLE, tmp_path / "short", truncated)
    with pytest.raises(ProviderError, match="bytes, expected"):
        StaticProvider(EmbeddingOptions(provider="static", model=str(folder)))


def test_runtime_refuses_broken_table_with_embedding_error(tmp_path: Path) -> None:
    (tmp_path / VOCAB_FILE).write_text("[UNK]\nhello\n", "utf-8")
    (tmp_path / TABLE_FILE).write_bytes(b"\0" * 6)
    options = {"encoding": "f16", "files": {"vocab": VOCAB_FILE, "table": TABLE_FILE}}
    spec = StaticOptions.from_json({**options, "table_sha256": "0" * 64}, "options")
    with pytest.raises(EmbeddingError):  # so search degrades to full text
        StaticModel.load(tmp_path, spec, 2)
    with pytest.raises(StaticModelError, match="cannot read"):
        StaticModel.load(tmp_path / "missing", spec, 2)
    # What metadata.json names is checked when it is read, before any file is opened.
    with pytest.raises(MetadataError, match="encoding"):
        StaticOptions.from_json({**options, "encoding": "bf16", "table_sha256": "0"}, "options")
    traversal = {**options, "files": {"vocab": VOCAB_FILE, "table": "../static_table.bin"}}
    with pytest.raises(MetadataError, match="plain file name"):
        StaticOptions.from_json({**traversal, "table_sha256": "0"}, "options")


def test_table_encodings_round_trip() -> None:
    rows = np.array([[0.5, -1.0], [0.25, 0.0], [0.0, 0.0]], dtype=np.float32)
    f16 = parse_table(table_bytes(rows.astype(np.float16), None), 3, 2, "f16")
    assert np.array_equal(f16.rows.astype(np.float32), rows) and f16.scales is None
    q = np.array([[64, -127], [127, 0], [0, 0]], dtype=np.int8)
    scales = np.array([1 / 127, 0.25 / 127, 0.0], dtype=np.float32)
    i8 = parse_table(table_bytes(q, scales), 3, 2, "i8")
    assert np.array_equal(i8.rows, q) and np.array_equal(i8.scales, scales)


def test_runtime_module_imports_numpy_only() -> None:
    code = (
        "import sys, docsmcp_runtime.search.static_model\n"
        "print(sorted({m.split('.')[0] for m in sys.modules}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    top = set(json.loads(out.stdout.replace("'", '"')))
    assert not top & {"docsmcp", "tokenizers", "torch", "transformers", "sentence_transformers"}


# -- table creation -------------------------------------------------------------------------


def _write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    header, offset, blobs = {}, 0, []
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {
            "dtype": "F32",
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        offset += len(data)
        blobs.append(data)
    raw = json.dumps(header).encode()
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + b"".join(blobs))


SMALL_VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "the",
    "link",
    "short",
    "create",
    "##s",
]


def _small_model_dir(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "vocab.txt").write_text("\n".join(SMALL_VOCAB) + "\n", "utf-8")
    (folder / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True}), "utf-8")
    return folder


def test_input_embeddings_table_without_torch(tmp_path: Path) -> None:
    model_dir = _small_model_dir(tmp_path / "model")
    matrix = np.random.default_rng(0).normal(size=(len(SMALL_VOCAB), 6)).astype(np.float32)
    _write_safetensors(
        model_dir / "model.safetensors",
        {
            "embeddings.position_embeddings.weight": np.ones((4, 6)),
            "embeddings.word_embeddings.weight": matrix,
        },
    )
    assert np.array_equal(input_embeddings(model_dir), matrix)
    out = tmp_path / "table"
    argv = ["--model-dir", str(model_dir), "--out", str(out), "--method", "input-embeddings"]
    assert main([*argv, "--dims", "4", "--encoding", "i8"]) == 0
    provider = StaticProvider(EmbeddingOptions(provider="static", model=str(out)))
    assert provider.dimensions == 4 and provider.bundle_spec().encoding == "i8"
    vectors = provider.embed_documents(["Create short links", "the"], ["a", "b"])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # Without PCA or weighting the table is the matrix itself (to float16 precision).
    plain = make_table(model_dir, dims=6, method="input-embeddings", sif=0)
    rows = np.frombuffer(plain.table, dtype="<f2").reshape(len(SMALL_VOCAB), 6)
    assert np.allclose(rows, matrix, atol=2e-3)
    assert json.loads((out / META_FILE).read_text())["source"]["method"] == "input-embeddings"


@pytest.mark.extras
def test_distilled_table_from_a_local_model_offline(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason="torch is not installed (docsmcp[static-distill])")
    transformers = pytest.importorskip("transformers", reason="transformers is not installed")
    model_dir = _small_model_dir(tmp_path / "model")
    config = transformers.BertConfig(
        vocab_size=len(SMALL_VOCAB),
        hidden_size=8,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=16,
        max_position_embeddings=16,
    )
    torch.manual_seed(0)
    transformers.BertModel(config).save_pretrained(str(model_dir))
    assert read_safetensors(model_dir / "model.safetensors", ("embeddings.word_embeddings.weight",))
    out = tmp_path / "table"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    cmd = [
        sys.executable,
        "-m",
        "docsmcp.embeddings.static_table",
        "--model-dir",
        str(model_dir),
        "--out",
        str(out),
        "--dims",
        "8",
        "--sif",
        "0",
    ]
    subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=300)
    files = read_table(out)
    assert files.meta["source"]["method"] == "distill" and files.meta["dimensions"] == 8
    # Row t is the model's mean-pooled embedding of the one-token sentence "[CLS] t [SEP]".
    model = transformers.BertModel.from_pretrained(str(model_dir), local_files_only=True).eval()
    with torch.inference_mode():
        hidden = model(input_ids=torch.tensor([[2, 7, 3]])).last_hidden_state
    expected = hidden.mean(dim=1)[0].numpy()
    rows = np.frombuffer(files.table, dtype="<f2").reshape(len(SMALL_VOCAB), 8)
    assert np.allclose(rows[7], expected, atol=5e-3)
