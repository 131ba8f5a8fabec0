"""The runtime's ONNX query encoder (issue 29) against a real ONNX graph, with no torch.

The graph is the shipped static model written in ONNX with `onnx.helper`: Gather the table rows
of the input ids, a masked mean over the tokens, L2 normalisation, output `sentence_embedding`.
The tokenizer is a real `tokenizers` BERT WordPiece pipeline over the shipped vocabulary, with
[CLS]/[SEP] added the way every BERT `tokenizer.json` adds them. The static model never pools
bracketed special tokens, so the graph gives those rows weight zero (a per-row "pooled" flag),
which makes the two models the same function; the encoder is then checked against
`StaticModel.embed`, which the rest of the suite checks against the `tokenizers` reference.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from docsmcp_runtime.search.onnx_encoder import (
    QUIET_SECONDS,
    EncoderError,
    EncoderNotReady,
    EncoderSpec,
    OnnxQueryEncoder,
    load_in_background,
)
from docsmcp_runtime.search.static_model import StaticModel

onnx = pytest.importorskip("onnx", reason="`onnx` is not installed (the test extra has it)")
pytest.importorskip("onnxruntime", reason="`onnxruntime` is not installed (the test extra has it)")
tokenizers = pytest.importorskip("tokenizers", reason="`tokenizers` is not installed")
from onnx_static import shipped_static_model, tokenizer_json, write_graph  # noqa: E402

SPEC = EncoderSpec(query_prompt="", max_tokens=512, dimensions=256, output="sentence_embedding")
QUERIES = [
    "how do I create a short link with a custom domain?",
    "RetryConfig backoff jitter",
    "Café naïve résumé",  # accents stripped
    "client.links.create(url=..., domain='acme.dev')",
    "住所 と 電話番号",  # CJK: each ideograph a word, most [UNK]
    "x",
    "pagination cursor next_page_token returns None at the end",
    "ERROR 429 Too Many Requests: rate limit exceeded, what now",
    "   leading and trailing spaces   ",
    "emoji 🚀 and tabs\tand\nnewlines",
]


@pytest.fixture(scope="module")
def static() -> StaticModel:
    return shipped_static_model()


@pytest.fixture(scope="module")
def files(static: StaticModel, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("onnx-static")
    write_graph(folder / "model.onnx", static)
    (folder / "tokenizer.json").write_text(tokenizer_json(), "utf-8")
    return folder / "model.onnx", folder / "tokenizer.json"


@pytest.fixture(scope="module")
def encoder(files: tuple[Path, Path]) -> OnnxQueryEncoder:
    return OnnxQueryEncoder(*files, SPEC)


def test_encoder_equals_the_static_model(encoder: OnnxQueryEncoder, static: StaticModel) -> None:
    for query in QUERIES:
        got, expected = encoder.embed(query), static.embed(query)
        assert got.dtype == np.float32 and got.shape == (256,)
        assert np.allclose(got, expected, atol=1e-3), query
        if expected.any():
            assert abs(float(np.linalg.norm(got)) - 1.0) < 1e-5
    # Only special tokens ([CLS] [UNK] [SEP]): nothing pooled, a zero vector on both sides.
    assert not static.embed("住").any() and not encoder.embed("住").any()
    assert encoder.inputs == ("input_ids", "attention_mask")


def test_only_declared_inputs_are_fed(static: StaticModel, files, tmp_path: Path) -> None:
    """A graph without attention_mask, and one that also declares token_type_ids."""
    for inputs in [("input_ids",), ("input_ids", "attention_mask", "token_type_ids")]:
        write_graph(tmp_path / "m.onnx", static, inputs=inputs)
        encoder = OnnxQueryEncoder(tmp_path / "m.onnx", files[1], SPEC)
        assert encoder.inputs == inputs
        assert np.allclose(encoder.embed(QUERIES[0]), static.embed(QUERIES[0]), atol=1e-3)


def test_prompt_and_truncation(files, static: StaticModel) -> None:
    prompted = OnnxQueryEncoder(*files, EncoderSpec("search query: ", 512, 256, SPEC.output))
    assert np.allclose(prompted.embed("retries"), static.embed("search query: retries"), atol=1e-3)
    # 5 tokens with [CLS] and [SEP]: three words survive.
    short = OnnxQueryEncoder(*files, EncoderSpec("", 5, 256, SPEC.output))
    got = short.embed("alpha beta gamma delta epsilon")
    assert np.allclose(got, static.embed("alpha beta gamma"), atol=1e-3)


def test_dimensions_truncate_then_renormalise(files, static: StaticModel) -> None:
    encoder = OnnxQueryEncoder(*files, EncoderSpec("", 512, 64, SPEC.output))
    got = encoder.embed(QUERIES[0])
    head = static.embed(QUERIES[0])[:64]
    assert got.shape == (64,)
    assert abs(float(np.linalg.norm(got)) - 1.0) < 1e-5
    assert np.allclose(got, head / np.linalg.norm(head), atol=1e-3)


def test_threads(files) -> None:
    assert OnnxQueryEncoder(*files, SPEC).threads == 1  # the default: one thread
    assert OnnxQueryEncoder(*files, SPEC, threads=2).threads == 2


def test_concurrent_queries_agree(encoder: OnnxQueryEncoder) -> None:
    expected = [encoder.embed(q) for q in QUERIES]
    results: dict[int, list[np.ndarray]] = {}

    def run(k: int) -> None:
        results[k] = [encoder.embed(q) for q in QUERIES]

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got in results.values():
        assert all(np.array_equal(a, b) for a, b in zip(got, expected, strict=True))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_background_loading_reports_not_ready_then_ready(files, tmp_path: Path) -> None:
    """The tokenizer comes through a named pipe, so loading waits until the test writes it."""
    pipe = tmp_path / "tokenizer.json"
    os.mkfifo(pipe)
    background = load_in_background(files[0], pipe, SPEC)
    assert not background.ready() and background.error is None
    with pytest.raises(EncoderNotReady, match="still loading"):
        background.embed("retries")
    pipe.write_text(files[1].read_text("utf-8"), "utf-8")  # blocks until the loader reads
    assert background.wait(30)
    assert background.ready() and background.error is None
    assert background.embed("retries").shape == (256,)


def test_a_background_load_parses_the_tokenizer_in_a_quiet_moment(files) -> None:
    """Parsing the tokenizer holds the GIL (~1.1 s for EmbeddingGemma: a search waiting on it
    took 1.9 s); while searches keep touching the encoder the load waits, and it finishes once
    none came for QUIET_SECONDS."""
    go = threading.Event()
    background = load_in_background(files[0], files[1], SPEC, before=go.wait)
    background.touch()
    go.set()
    until = time.monotonic() + 1.0
    while time.monotonic() < until:  # a burst of searches
        background.touch()
        assert not background.ready()
        time.sleep(0.05)
    last = time.monotonic()
    assert background.wait(30) and background.ready()
    assert time.monotonic() - last >= QUIET_SECONDS - 0.05


def _one_line_error(make) -> str:
    with pytest.raises(EncoderError) as info:
        make()
    message = str(info.value)
    assert message and "\n" not in message and not isinstance(info.value, EncoderNotReady)
    return message


def test_bad_files_give_one_line(files, static: StaticModel, tmp_path: Path) -> None:
    model, tok = files
    missing = _one_line_error(lambda: OnnxQueryEncoder(tmp_path / "nope.onnx", tok, SPEC))
    assert "nope.onnx" in missing
    corrupt = tmp_path / "corrupt.onnx"
    corrupt.write_bytes(model.read_bytes()[:5000])
    assert "corrupt.onnx" in _one_line_error(lambda: OnnxQueryEncoder(corrupt, tok, SPEC))
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"\x00not a model\xff" * 100)
    assert "garbage.onnx" in _one_line_error(lambda: OnnxQueryEncoder(garbage, tok, SPEC))
    assert "tokenizer" in _one_line_error(
        lambda: OnnxQueryEncoder(model, tmp_path / "none.json", SPEC)
    )
    bad_tok = tmp_path / "bad.json"
    bad_tok.write_text('{"model": 3}')
    assert "bad.json" in _one_line_error(lambda: OnnxQueryEncoder(model, bad_tok, SPEC))
    # A graph whose output is not the one the spec names, or is too narrow.
    renamed = tmp_path / "renamed.onnx"
    write_graph(renamed, static, output="last_hidden_state")
    assert "sentence_embedding" in _one_line_error(lambda: OnnxQueryEncoder(renamed, tok, SPEC))
    wide = EncoderSpec("", 512, 1024, SPEC.output)
    assert "1024" in _one_line_error(lambda: OnnxQueryEncoder(model, tok, wide))


def test_background_load_failure_is_reported(files, tmp_path: Path) -> None:
    background = load_in_background(tmp_path / "absent.onnx", files[1], SPEC)
    assert background.wait(30)
    assert not background.ready()
    assert background.error and "absent.onnx" in background.error
    with pytest.raises(EncoderError) as info:
        background.embed("retries")
    assert not isinstance(info.value, EncoderNotReady)
    assert str(info.value) == background.error
