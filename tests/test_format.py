"""The bundle format's one home (docsmcp_runtime/format): metadata.json read strictly for the keys
a reader knows, unknown keys ignored, `requires` honoured, legacy bundles still read, and every
damaged metadata.json refused in one line instead of a traceback or a wrong answer.

Bundles are real builds of the repo's example corpus; damage is done to copies on disk, then the
runtime opens them as it would in production (in-process `open_bundle`, or the CLI).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import (
    EXAMPLE_DOCS,
    FUZZ_EXAMPLES,
    build_bundle,
    with_float16_impacts,
    with_wide_index,
)
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.errors import BundleError
from docsmcp_runtime.format import (
    DEFAULT_STOPWORDS,
    METADATA_FILE,
    PROVIDERS,
    FusionWeights,
    Inspection,
    Metadata,
    bundle_id,
    sha256_file,
)
from docsmcp_runtime.format.providers import load
from docsmcp_runtime.search.embedding import model_fingerprint
from docsmcp_runtime.tools.app import DocsApp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

QUERIES = ["create a payment", "RateLimitError", "retry with backoff", "refund"]
# The index arrays a small bundle stores narrow (bundle-spec.md, *Narrow index arrays*), and
# their wide dtypes.
NARROW = {"postings_docs.bin": "<u2", "term_offsets.bin": "<u4", "postings_offsets.bin": "<u4"}
WIDE = {"postings_docs.bin": "<u4", "term_offsets.bin": "<u8", "postings_offsets.bin": "<u8"}


def _meta(bundle: Path) -> dict[str, Any]:
    return json.loads((bundle / METADATA_FILE).read_text(encoding="utf-8"))


def _write_meta(bundle: Path, meta: dict[str, Any]) -> None:
    (bundle / METADATA_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")


def _ranking(bundle: Path, **filters: str) -> list[list[tuple[str, float]]]:
    app = DocsApp(open_bundle(bundle))
    out = []
    for query in QUERIES:
        result = app.call_tool("search_docs", {"query": query, "limit": 10, **filters})
        hits = result["structuredContent"]["hits"]
        out.append([(h["chunk_id"], h["score"]) for h in hits])
    return out


@pytest.fixture
def copy_of(example_bundle: Path, tmp_path: Path) -> Callable[[], Path]:
    def make() -> Path:
        target = tmp_path / f"idx{len(list(tmp_path.iterdir()))}"
        shutil.copytree(example_bundle, target)
        return target

    return make


# -- one home ---------------------------------------------------------------------------------


def test_metadata_round_trips_byte_for_byte(example_bundle: Path, tmp_path: Path) -> None:
    """The dataclasses are the file: parsing then writing gives the builder's exact bytes."""
    static = build_bundle(EXAMPLE_DOCS, tmp_path / "static", "--embedding-provider", "static")
    for bundle in (example_bundle, static):
        text = (bundle / METADATA_FILE).read_text(encoding="utf-8")
        meta = Metadata.from_json(json.loads(text))
        assert json.dumps(meta.to_json(), indent=2, ensure_ascii=False) + "\n" == text


def test_file_names_and_dtypes_live_only_in_the_format_package() -> None:
    """No module outside docsmcp_runtime/format spells a bundle file name or array dtype."""
    from conftest import REPO

    names = ['"chunks.parquet"', '"terms.bin"', '"postings_docs.bin"', '"facets.bin"',
             '"vectors.bin"', '"metadata.json"', '"<u8"', '"<f2"', '"<u4"', '"<u2"']  # fmt: skip
    offenders = []
    for path in [*REPO.glob("runtime/docsmcp_runtime/**/*.py"), *REPO.glob("builder/**/*.py")]:
        if "format" in path.relative_to(REPO).parts or path.name == "static_table.py":
            continue  # static_table.py reads model files (safetensors), not bundles
        text = path.read_text(encoding="utf-8")
        offenders += [f"{path.relative_to(REPO)}: {n}" for n in names if n in text]
    assert offenders == []


def test_provider_registry_resolves_both_halves() -> None:
    for info in PROVIDERS.values():
        assert callable(load(info.builder)) and callable(load(info.embedder))
        d = info.defaults
        assert 0 <= d.vector_weight <= 1 and -1 <= d.similarity_floor <= 1
    from docsmcp.embeddings.embed import PROVIDER_CHOICES

    assert ("none", *PROVIDERS) == PROVIDER_CHOICES


def test_model_fingerprint_names_content_not_location(tmp_path: Path) -> None:
    """sentence-transformers bundles record this, not a path: two checkouts, one bundle."""
    a = tmp_path / "a" / "model"
    (a / "1_Pooling").mkdir(parents=True)
    (a / "config.json").write_text('{"hidden": 384}')
    (a / "1_Pooling" / "config.json").write_text("{}")
    (a / "model.safetensors").write_bytes(bytes(range(256)) * 10)
    b = Path(shutil.copytree(a, tmp_path / "elsewhere" / "model"))
    (b / ".cache").mkdir()  # tool caches beside the model are not the model
    (b / ".cache" / "lock").write_text("x")
    assert model_fingerprint(a) == model_fingerprint(b)
    (b / "model.safetensors").write_bytes(bytes(range(256)) * 9)
    assert model_fingerprint(a) != model_fingerprint(b)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", FusionWeights()),
        ("vector=0.2", FusionWeights(vector=0.2)),
        (" lexical = 1 , proximity=0.5,", FusionWeights(lexical=1.0, proximity=0.5)),
    ],
)
def test_fusion_weights_parse(text: str, expected: FusionWeights) -> None:
    assert FusionWeights.parse(text) == expected


@pytest.mark.parametrize("text", ["vector", "speed=1", "vector=-1", "vector=nan", "vector=inf",
                                  "vector=x"])  # fmt: skip
def test_fusion_weights_refuse_nonsense(text: str) -> None:
    with pytest.raises(ValueError, match="vector|speed"):
        FusionWeights.parse(text)


# -- compatibility ----------------------------------------------------------------------------


def test_unknown_keys_and_files_are_ignored(
    example_bundle: Path, copy_of: Callable[[], Path]
) -> None:
    """What a newer builder adds, an older reader skips: same hits, same scores."""
    bundle = copy_of()
    meta = _meta(bundle)
    meta["sections_table"] = {"rows": 3}
    meta["taxonomy"]["language"]["display"] = "Language"
    meta["analyzer"]["unicode"] = "15.1"
    meta["lexical"]["field_weights"]["title"] = 2.0
    meta["stats"]["sections"] = 12
    (bundle / "future.bin").write_bytes(b"\x01\x02")
    meta["files"]["future.bin"] = {
        "bytes": 2, "sha256": sha256_file(bundle / "future.bin"), "layout": "v9",
    }  # fmt: skip
    meta["files"]["terms.bin"]["compression"] = None
    meta["bundle_id"] = bundle_id({n: f["sha256"] for n, f in meta["files"].items()})
    _write_meta(bundle, meta)
    assert _ranking(bundle) == _ranking(example_bundle)
    assert [str(p) for p in Inspection(bundle, deep=True).problems()] == []


def test_a_required_feature_the_reader_lacks_is_refused_in_one_line(
    copy_of: Callable[[], Path],
) -> None:
    bundle = copy_of()
    meta = _meta(bundle)
    # The example corpus uses the rule, and its index fits the narrow arrays.
    assert meta["requires"] == ["auto-include", "impact-codes", "narrow-index"]
    meta["requires"].append("time-travel")
    _write_meta(bundle, meta)
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(bundle), "search", "refund"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "time-travel" in proc.stderr and "upgrade docsmcp-runtime" in proc.stderr


def test_wide_index_arrays_read_the_same(example_bundle: Path, copy_of: Callable[[], Path]) -> None:
    """A bundle written before narrow index arrays ranks exactly as its narrow build: same
    hits, same scores; a deep check finds nothing."""
    bundle = copy_of()
    meta = _meta(bundle)
    assert {n: meta["files"][n]["dtype"] for n in WIDE} == NARROW
    assert with_wide_index(bundle)["requires"] == ["auto-include", "impact-codes"]
    assert {n: _meta(bundle)["files"][n]["dtype"] for n in WIDE} == WIDE
    assert _ranking(bundle) == _ranking(example_bundle)
    assert _ranking(bundle, language="python") == _ranking(example_bundle, language="python")
    assert [str(p) for p in Inspection(bundle, deep=True).problems()] == []


def test_requires_is_checked_before_the_files_it_may_change(
    copy_of: Callable[[], Path],
) -> None:
    """A newer feature may change what files holds (a narrow dtype did): a reader that does
    not know it names the feature, not the first file entry it would misjudge."""
    bundle = copy_of()
    meta = _meta(bundle)
    meta["requires"].append("packed-postings")
    meta["files"]["postings_docs.bin"]["dtype"] = "|u1"  # what that feature might write
    _write_meta(bundle, meta)
    with pytest.raises(BundleError) as caught:
        open_bundle(bundle)
    message = str(caught.value)
    assert "packed-postings" in message and "upgrade docsmcp-runtime" in message, message
    assert "dtype" not in message
    problems = [str(p) for p in Inspection(bundle, deep=True).problems()]
    assert len(problems) == 1 and "packed-postings" in problems[0], problems


def test_float16_impacts_read_as_their_values(
    example_bundle: Path, copy_of: Callable[[], Path]
) -> None:
    """A bundle written before *Impact codes* (float16 impacts, no impact_levels.bin) serves:
    the same hits in the same order, scores within float16's rounding of the levels."""
    bundle = copy_of()
    assert with_float16_impacts(bundle)["requires"] == ["auto-include", "narrow-index"]
    assert not (bundle / "impact_levels.bin").exists()
    for old, new in zip(_ranking(bundle), _ranking(example_bundle), strict=True):
        assert [c for c, _ in old] == [c for c, _ in new]
        assert [s for _, s in old] == pytest.approx([s for _, s in new], rel=2e-3)
    assert [str(p) for p in Inspection(bundle, deep=True).problems()] == []


def test_legacy_metadata_reads_the_same(copy_of: Callable[[], Path]) -> None:
    """Bundles written before `requires` and the stored stop list rank exactly as before."""
    bundle, before = copy_of(), copy_of()
    for older in (bundle, before):  # as builders of that time wrote the files
        with_float16_impacts(older)
        meta = with_wide_index(older)
    del meta["requires"]
    meta["analyzer"]["stopwords"] = True
    _write_meta(bundle, meta)
    opened = open_bundle(bundle)
    assert opened.metadata.analyzer.stopwords == DEFAULT_STOPWORDS
    assert _ranking(bundle, language="python") == _ranking(before, language="python")
    meta["analyzer"]["stopwords"] = False
    _write_meta(bundle, meta)
    assert open_bundle(bundle).metadata.analyzer.stopwords == ()


# -- damaged metadata: one line, naming the key --------------------------------------------------


def _set(path: str, value: Any) -> Callable[[dict], None]:
    def apply(meta: dict) -> None:
        *parents, last = path.split("/")
        node = meta
        for key in parents:
            node = node[key]
        node[last] = value

    return apply


def _delete(key: str) -> Callable[[dict], None]:
    return lambda meta: meta.pop(key)


def _add_file(name: str) -> Callable[[dict], None]:
    def apply(meta: dict) -> None:
        meta["files"][name] = {"bytes": 1, "sha256": "0" * 64}

    return apply


def _reverse_values(meta: dict) -> None:
    meta["taxonomy"]["language"]["values"].reverse()


DAMAGE: dict[str, tuple[Callable[[dict], None], str]] = {
    "version as float": (_set("format_version", 1.0), "format version 1.0"),
    "version as bool": (_set("format_version", True), "format version True"),
    "forged bundle_id": (_set("bundle_id", "0" * 32), "bundle_id"),
    "stem as string": (_set("analyzer/stem", "yes"), "analyzer/stem"),
    "unknown analyzer": (_set("analyzer/name", "bm42"), "analyzer/name"),
    "huge weight": (_set("lexical/phrase_weight", 1e308), "lexical/phrase_weight"),
    "negative b": (_set("lexical/b", -0.5), "lexical/b"),
    "reversed values": (_reverse_values, "taxonomy/language/values"),
    "values not a list": (_set("taxonomy/language/values", "python"), "taxonomy/language/values"),
    "files as list": (_set("files", []), "files"),
    "files as null": (_set("files", None), "files"),
    "file outside the bundle": (
        _add_file("../etc/passwd"),
        "invalid file name '../etc/passwd'",
    ),  # fmt: skip
    "missing bundle_id": (_delete("bundle_id"), "bundle_id"),
    "missing tools": (_delete("tools"), "tools"),
    "missing lexical": (_delete("lexical"), "lexical"),
    "auto_include to nowhere": (
        _set("taxonomy/language/auto_include", {"nope": ["x"]}),
        "auto_include/nope",
    ),  # fmt: skip
    "bad taxonomy key": (
        _set("taxonomy/z z", {"description": "", "vector_collapse": False, "values": []}),
        "taxonomy/z z",
    ),  # fmt: skip
    "latest not a value": (_set("taxonomy/language/latest", "cobol"), "language/latest"),
    "latest not a string": (_set("taxonomy/language/latest", ["go"]), "language/latest"),
    "latest empty": (_set("taxonomy/language/latest", ""), "language/latest"),
    "requires not a list": (_set("requires", "auto-include"), "requires"),
    "facets dtype": (_set("files/facets.bin/dtype", "<u4"), "facets.bin dtype"),
    "postings dtype": (_set("files/postings_docs.bin/dtype", "|u1"), "postings_docs.bin dtype"),
    # A narrow array that `requires` does not announce: an older reader would not know to
    # refuse it by the feature's name.
    "narrow unannounced": (
        lambda meta: meta["requires"].remove("narrow-index"),
        "postings_docs.bin is stored as <u2, which needs 'narrow-index' in requires",
    ),
    # Impact codes (bundle-spec.md): announced, and never without their levels.
    "codes unannounced": (
        lambda meta: meta["requires"].remove("impact-codes"),
        "postings_impacts.bin is stored as |u1 codes, which needs 'impact-codes' in requires",
    ),
    "codes without levels": (
        lambda meta: meta["files"].pop("impact_levels.bin"),
        "postings_impacts.bin holds codes, but impact_levels.bin is missing",
    ),
    "levels dtype": (_set("files/impact_levels.bin/dtype", "<f2"), "impact_levels.bin dtype"),
}


def _levels(bundle: Path, levels: np.ndarray) -> None:
    """Write impact_levels.bin and reseal its entry and the bundle id."""
    path = bundle / "impact_levels.bin"
    levels.astype("<f4").tofile(path)
    meta = _meta(bundle)
    meta["files"]["impact_levels.bin"].update(
        bytes=path.stat().st_size, sha256=sha256_file(path), shape=[len(levels)]
    )
    meta["bundle_id"] = bundle_id({n: f["sha256"] for n, f in meta["files"].items()})
    _write_meta(bundle, meta)


def test_impact_levels_of_the_wrong_count_are_refused_and_bad_values_fail_verify(
    copy_of: Callable[[], Path],
) -> None:
    bundle = copy_of()
    levels = np.fromfile(bundle / "impact_levels.bin", dtype="<f4")
    _levels(bundle, levels[:255])
    with pytest.raises(BundleError, match="impact_levels.bin: 255 levels, expected 256"):
        open_bundle(bundle)
    levels[7] = np.nan
    _levels(bundle, levels)
    open_bundle(bundle)  # the runtime trusts the values; `docsmcp verify` checks them
    problems = [str(p) for p in Inspection(bundle, deep=True).problems()]
    assert problems == ["impact_levels.bin: 1 level(s) negative, infinite or NaN"]


@pytest.mark.parametrize("name", list(DAMAGE))
def test_damaged_metadata_is_refused_in_one_line(copy_of: Callable[[], Path], name: str) -> None:
    bundle = copy_of()
    meta = _meta(bundle)
    damage, expected = DAMAGE[name]
    damage(meta)
    _write_meta(bundle, meta)
    with pytest.raises(BundleError) as caught:
        open_bundle(bundle)
    message = str(caught.value)
    assert "\n" not in message and expected in message, message
    assert message.startswith(str(bundle / METADATA_FILE))


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"format": "docsmcp-bundle", "format_version": 1, "x": NaN}', "NaN"),
        ('{"format": "docsmcp-bundle", "x": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested"),
        ('{"format": "docsmcp-bundle", "format_version": 1, "x": ' + "7" * 5000 + "}", "JSON"),
        ("\ufeff{}", "JSON"),
        ("[]", "not a JSON object"),
        ('{"format": "docsmcp-bundle", "format_version": 1}', "files"),
    ],
    ids=["nan", "deep", "huge-int", "bom", "list", "empty"],
)
def test_malformed_metadata_json_is_one_line(
    copy_of: Callable[[], Path], raw: str, expected: str
) -> None:
    bundle = copy_of()
    (bundle / METADATA_FILE).write_text(raw, encoding="utf-8")
    with pytest.raises(BundleError) as caught:
        open_bundle(bundle)
    assert "\n" not in str(caught.value) and expected in str(caught.value), str(caught.value)


def test_runtime_and_verify_share_one_check(copy_of: Callable[[], Path]) -> None:
    """A facet code beyond its key's values, behind valid checksums: the runtime refuses with
    the same sentence `docsmcp verify` lists."""
    import numpy as np

    bundle = copy_of()
    facets = np.fromfile(bundle / "facets.bin", dtype="<u2")
    facets[0] = 999
    facets.tofile(bundle / "facets.bin")
    meta = _meta(bundle)
    meta["files"]["facets.bin"]["sha256"] = sha256_file(bundle / "facets.bin")
    meta["bundle_id"] = bundle_id({n: f["sha256"] for n, f in meta["files"].items()})
    _write_meta(bundle, meta)
    with pytest.raises(BundleError) as caught:
        open_bundle(bundle)
    runtime = str(caught.value).removeprefix(f"{bundle}/")
    assert runtime.startswith("facets.bin: 1 code(s) for 'language' exceed")
    assert runtime in [str(p) for p in Inspection(bundle, deep=True).problems()]


def test_files_are_hashed_in_order_whoever_hashes_them(tmp_path: Path) -> None:
    """More than PARALLEL_HASH_BYTES in all: two threads share the files by size; each digest
    still lands at its file's place, and a file that cannot be read raises here."""
    import hashlib
    import random

    from docsmcp_runtime.format.layout import PARALLEL_HASH_BYTES, sha256_files

    rng = random.Random(7)
    sizes = [PARALLEL_HASH_BYTES // 2, 10, PARALLEL_HASH_BYTES, 0, 4096, PARALLEL_HASH_BYTES // 3]
    paths = []
    for i, size in enumerate(sizes):
        path = tmp_path / f"f{i}.bin"
        path.write_bytes(rng.randbytes(size))
        paths.append(path)
    expected = [hashlib.sha256(p.read_bytes()).hexdigest() for p in paths]
    assert sha256_files(paths) == expected
    assert sha256_files(paths[1:2]) == expected[1:2] and sha256_files([]) == []
    with pytest.raises(FileNotFoundError):
        sha256_files([*paths, tmp_path / "gone.bin"])


def test_several_damaged_files_are_reported_in_name_order(copy_of: Callable[[], Path]) -> None:
    bundle = copy_of()
    for name in ("terms.bin", "chunks.parquet"):
        data = bytearray((bundle / name).read_bytes())
        data[-1] ^= 0xFF
        (bundle / name).write_bytes(bytes(data))
    problems = [str(p) for p in Inspection(bundle, deep=True).problems()]
    damaged = [p.split(":")[0] for p in problems if "sha256" in p]
    assert damaged == ["chunks.parquet", "terms.bin"], problems


# -- fuzz: any change to metadata.json gives a bundle or a one-line refusal -----------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _paths(value, (*prefix, i))
    return out


@pytest.fixture(scope="module")
def fuzz_bundle(example_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(shutil.copytree(example_bundle, tmp_path_factory.mktemp("fuzz") / "idx"))


@pytest.mark.slow  # fuzz, ~2 s
@settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_fuzzed_metadata_opens_or_is_refused_in_one_line(fuzz_bundle: Path, data: Any) -> None:
    meta = _meta(fuzz_bundle)  # restored after every example
    path = data.draw(st.sampled_from(_paths(meta)[1:]))
    action = data.draw(st.sampled_from(["replace", "delete", "add"]))
    *parents, last = path
    node = meta
    for key in parents:
        node = node[key]
    if action == "delete" and isinstance(node, dict):
        del node[last]
    elif action == "add" and isinstance(node[last], dict):
        node[last][data.draw(st.text(max_size=8))] = data.draw(JSON_VALUES)
    else:
        node[last] = data.draw(JSON_VALUES)
    saved = (fuzz_bundle / METADATA_FILE).read_bytes()
    try:
        _write_meta(fuzz_bundle, meta)
        try:
            open_bundle(fuzz_bundle, verify=False)
        except BundleError as exc:
            assert "\n" not in str(exc)
    finally:
        (fuzz_bundle / METADATA_FILE).write_bytes(saved)


def test_a_shape_beyond_int64_is_refused_in_one_line(example_bundle: Path, tmp_path: Path) -> None:
    """Found by the fuzz test above: a shape of 2**64 overflowed numpy's int64 (a traceback)."""
    bundle = tmp_path / "idx"
    shutil.copytree(example_bundle, bundle)
    meta = json.loads((bundle / "metadata.json").read_text())
    meta["files"]["terms.bin"]["shape"] = [2**64]
    (bundle / "metadata.json").write_text(json.dumps(meta))
    with pytest.raises(BundleError, match=r"terms\.bin shape \[18446744073709551616\]"):
        open_bundle(bundle, verify=False)
