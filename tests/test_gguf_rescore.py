"""A GGUF file as the rescoring model (issue 29): `docsmcp build --rescore-model FILE.gguf`
embeds the chunks with llama.cpp, the bundle names the file by sha256 (`rescore.encoder.kind`
"gguf", `requires` "rescore-gguf"), and the runtime finds it through $DOCSMCP_RESCORE_MODEL.

The model is the packaged all-MiniLM-L6-v2 written as GGUF (gguf_minilm.py), so its rescored
ranking can be held against the ONNX export of the same model (`--rescore-model DIR`).
Tolerance, measured over QUERIES on the example docs: the same top-5 set and order for every
query (query vectors agree to cosine >= 0.9999, test_gguf_provider.py; the documents' vectors
differ only for chunks past MiniLM's 256-token window, which the GGUF side reads whole).

Needs llama-cpp-python (builds llama.cpp from source, ~35 min: CI does not install it), the
`gguf` package and the packaged MiniLM; each missing piece skips with a reason. What a user
without llama-cpp-python sees when building is tested everywhere, with the package hidden.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import (
    EXAMPLE_DOCS,
    GGUF_MINILM_NAME,
    REPO,
    build_bundle,
    build_without_llama,
    with_float16_impacts,
    with_wide_index,
)
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.format import METADATA_FILE
from docsmcp_runtime.format.jsonread import MetadataError
from docsmcp_runtime.format.rescore import GgufEncoder, Rescore, RescoreModel
from docsmcp_runtime.search.embedding import packaged_model_dir
from docsmcp_runtime.search.engine import Searcher
from docsmcp_runtime.search.options import SearchOptions

NAME = GGUF_MINILM_NAME
ENV = "DOCSMCP_RESCORE_MODEL"
QUESTION = "how do I give a customer their money back after a payment"
QUERIES = [
    QUESTION,
    "what happens when a request is sent too often",
    "how should I authenticate my calls to the API",
    "how do I go through every page of a long list of payments",
    "what should I install before using the SDK in TypeScript",
]
# The last commit whose reader knows no GGUF rescoring encoder: the "older reader".
OLDER_READER = "14bfd47db3b04dd9d660c33230d3d0664719e40d"


def test_the_encoder_kind_round_trips_and_bad_values_are_refused() -> None:
    model = RescoreModel(NAME, "a" * 64, 384, "", "", 512)
    spec = Rescore(model, GgufEncoder(NAME, "a" * 64))
    assert Rescore.from_json(json.loads(json.dumps(spec.to_json()))) == spec
    assert spec.files == () and spec.required_features == ("rescore-gguf",)
    onnx = Rescore.from_json({**spec.to_json(), "encoder": {"model": "m.onnx", "tokenizer": "t",
                              "weights": "f32", "output": "o"}})  # fmt: skip
    assert onnx.required_features == ()  # no kind: an ONNX encoder, as before
    for key, value in (("kind", "safetensors"), ("file", "../m.gguf"), ("sha256", "abc")):
        data = spec.to_json()
        data["encoder"][key] = value
        with pytest.raises(MetadataError, match=f"rescore/encoder/{key}"):
            Rescore.from_json(data)


@pytest.fixture(scope="module")
def bundle(model_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gguf-rescore") / "idx"
    return build_bundle(
        EXAMPLE_DOCS, out, "--rescore-model", model_file, "--embedding-threads", "1"
    )


def _searcher(path: Path, **options) -> Searcher:
    searcher = Searcher(open_bundle(path), options=SearchOptions(**options))
    if searcher.rescorer is not None:
        assert searcher.rescorer.wait(60)
    return searcher


def _ids(searcher: Searcher, query: str, limit: int = 10) -> list[str]:
    page = searcher.search(query, {}, 0, limit)
    return [searcher.bundle.id(row) for row in page.rows]


@pytest.mark.extras
def test_the_bundle_names_the_file_and_requires_the_feature(bundle: Path, model_file: Path) -> None:
    meta = json.loads((bundle / METADATA_FILE).read_text("utf-8"))
    digest = hashlib.sha256(model_file.read_bytes()).hexdigest()
    assert meta["rescore"]["encoder"] == {"kind": "gguf", "file": NAME, "sha256": digest}
    model = meta["rescore"]["model"]
    assert (model["name"], model["content_sha256"], model["dimensions"]) == (NAME, digest, 384)
    assert model["max_tokens"] == 512  # MiniLM's trained positions: llama.cpp's window
    assert "rescore-gguf" in meta["requires"]
    # the weights stay out of the bundle: no encoder files, only the document vectors
    assert "rescore_vectors.bin" in meta["files"]
    assert not [n for n in meta["files"] if n.startswith("rescore_") and n != "rescore_vectors.bin"]
    assert str(model_file.parent) not in json.dumps(meta)
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed")
    schema = json.loads((REPO / "schemas" / "bundle-metadata.schema.json").read_text())
    jsonschema.validate(meta, schema)


@pytest.mark.extras
def test_the_runtime_reorders_with_the_file(
    bundle: Path, model_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _searcher(bundle, rescore=False)
    monkeypatch.setenv(ENV, str(model_file.parent))  # a folder holding the bundle's file name
    second = _searcher(bundle)
    assert second.rescorer.error is None
    page = second.search(QUESTION, {}, 0, 20)
    assert page.notes == []
    assert page.rows != first.search(QUESTION, {}, 0, 20).rows  # the model's cosines weigh in
    assert set(page.rows[:5]) <= set(first.search(QUESTION, {}, 0, 30).rows)  # no recall: reorder


@pytest.mark.extras
def test_the_ranking_matches_the_onnx_export_of_the_same_model(
    bundle: Path, model_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("sentence_transformers", reason="needs docsmcp[sentence-transformers]")
    pytest.importorskip("onnxruntime", reason="needs docsmcp-runtime[onnx]")
    onnx = build_bundle(
        EXAMPLE_DOCS, tmp_path / "onnx", "--rescore-model", packaged_model_dir(), "--rescore-f32"
    )
    monkeypatch.setenv(ENV, str(model_file))
    by_gguf, by_onnx = _searcher(bundle), _searcher(onnx)
    assert by_gguf.rescorer.error is None and by_onnx.rescorer.error is None
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed")
    schema = json.loads((REPO / "schemas" / "bundle-metadata.schema.json").read_text())
    jsonschema.validate(json.loads((onnx / METADATA_FILE).read_text("utf-8")), schema)
    first = _searcher(bundle, rescore=False)
    moved = 0
    for query in QUERIES:
        gguf, onnx_ids = _ids(by_gguf, query, 5), _ids(by_onnx, query, 5)
        assert gguf == onnx_ids, query
        moved += gguf != _ids(first, query, 5)
    assert moved >= 2  # the comparison is of the model's order, not of the first stage's


@pytest.mark.extras
def test_another_file_is_refused_in_one_line(
    bundle: Path, model_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gguf_minilm import write_minilm_gguf

    first = _ids(_searcher(bundle, rescore=False), QUESTION)
    # The same weights under another name in its metadata: a different file, so refused.
    other = write_minilm_gguf(packaged_model_dir(), tmp_path / NAME, name="another model")
    monkeypatch.setenv(ENV, str(other))
    searcher = _searcher(bundle)
    assert searcher.rescorer.error == (
        f"{other} is not the '{NAME}' model the bundle was built with (sha256 differs); "
        f"set {ENV} to that file"
    )
    page = searcher.search(QUESTION, {}, 0, 10)
    assert [searcher.bundle.id(r) for r in page.rows] == first  # the first stage answers
    assert page.notes == [
        f"The rescoring model is unavailable ({searcher.rescorer.error}); first-stage order."
    ]
    # The hybrid provider's variable is not the rescoring model's: never taken for it.
    monkeypatch.delenv(ENV)
    monkeypatch.setenv("DOCSMCP_GGUF_MODEL", str(model_file))
    unset = _searcher(bundle).rescorer.error
    assert unset == f"set {ENV} to the '{NAME}' GGUF file the bundle was built with"


@pytest.mark.extras
def test_without_llama_cpp_the_runtime_serves_the_first_stage(
    bundle: Path, model_file: Path, hidden_llama: Path
) -> None:
    env = {**os.environ, ENV: str(model_file)}
    env["PYTHONPATH"] = os.pathsep.join([str(hidden_llama), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(bundle), "search", QUESTION,
         "--json"],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert [h["chunk_id"] for h in result["hits"]] == _ids(
        _searcher(bundle, rescore=False), QUESTION, len(result["hits"])
    )
    assert result["notes"] == [
        "The rescoring model is unavailable (llama-cpp-python is not installed beside "
        "docsmcp-runtime (pip install 'docsmcp-runtime[gguf]')); first-stage order."
    ]


@pytest.mark.extras
def test_an_older_reader_refuses_the_bundle_naming_the_feature(
    bundle: Path, tmp_path: Path
) -> None:
    """The runtime of the last commit before GGUF encoders, run on this bundle: it parses
    `rescore.encoder` strictly, so without the feature it would refuse with a line about a
    missing `encoder/model`; `requires` makes it name what it lacks. (Its index arrays are
    written wide and its impacts float16 for it: that reader predates narrow arrays and impact
    codes, and checks file entries before `requires`, which this reader no longer does.)"""
    if shutil.which("git") is None:
        pytest.skip("git is not installed (it checks out the older reader)")
    old = tmp_path / "old"
    old.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", OLDER_READER, "runtime"], capture_output=True
    )
    if archive.returncode != 0:
        pytest.skip(f"commit {OLDER_READER} (the older reader) is not in this checkout")
    subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
    wide = shutil.copytree(bundle, tmp_path / "wide")
    with_float16_impacts(wide)
    assert "rescore-gguf" in with_wide_index(wide)["requires"]
    env = {**os.environ, "PYTHONPATH": str(old / "runtime")}
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(wide), "search", "refund"],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "rescore-gguf" in proc.stderr and "upgrade docsmcp-runtime" in proc.stderr


def test_without_llama_cpp_the_build_says_what_to_install(
    tmp_path: Path, hidden_llama: Path
) -> None:
    assert build_without_llama(hidden_llama, tmp_path, "--rescore-model", "FILE.gguf") == [
        "docsmcp: error: --rescore-model FILE.gguf needs llama-cpp-python: pip install "
        "'docsmcp[gguf]' (it builds llama.cpp from source, ~35 minutes on 2 cores); nothing "
        "was written"
    ]


@pytest.mark.extras
def test_http_workers_rescore_with_the_file_loaded_before_the_fork(
    bundle: Path, model_file: Path
) -> None:
    """With --workers the model loads before the fork, as the ONNX encoder does: every worker
    answers with it from its first request, in the order the in-process searcher gives."""
    from test_http import answers_from_workers

    os.environ[ENV] = str(model_file)
    try:
        expected = _ids(_searcher(bundle), QUESTION, 5)
    finally:
        del os.environ[ENV]
    for result in answers_from_workers(bundle, QUESTION, env={ENV: str(model_file)}):
        assert result.get("notes", []) == []
        assert [hit["chunk_id"] for hit in result["hits"]] == expected


@pytest.mark.extras
def test_prompt_flags_and_matryoshka_cut_reach_both_sides(
    model_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--rescore-query-prompt/--rescore-document-prompt (MiniLM is no known prompted model)
    and --rescore-dimensions are recorded, and the runtime's query vector is the file's output
    for the prompted query, cut and renormalised."""
    import numpy as np
    from docsmcp_runtime.search.gguf_model import GgufModel

    idx = build_bundle(
        EXAMPLE_DOCS, tmp_path / "idx", "--rescore-model", model_file, "--rescore-dimensions",
        "128", "--rescore-query-prompt", "query: ", "--rescore-document-prompt", "passage: ",
    )  # fmt: skip
    model = json.loads((idx / METADATA_FILE).read_text("utf-8"))["rescore"]["model"]
    assert (model["dimensions"], model["query_prompt"], model["document_prompt"]) == (
        128,
        "query: ",
        "passage: ",
    )
    monkeypatch.setenv(ENV, str(model_file))
    rescorer = _searcher(idx).rescorer
    assert rescorer.error is None
    vector = rescorer.encoder.embed("refund a payment")
    full = GgufModel(model_file, 1, "").embed(["query: refund a payment"])[0]
    assert np.allclose(vector, full[:128] / np.linalg.norm(full[:128]), atol=1e-6)
    stored = np.fromfile(idx / "rescore_vectors.bin", dtype="<f2").reshape(-1, 128)
    assert np.allclose(np.linalg.norm(stored.astype(np.float32), axis=1), 1.0, atol=1e-2)
