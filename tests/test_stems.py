"""Stem variants (bundle-spec.md, *Stem variants*; search/stems.py): a query word reaches the
other inflections of its word at `lexical.stem_weight`, `stem_rings.bin` groups them and is
checked at open, and a bundle without it ranks by the words as written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import build_bundle, write_tree
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.errors import BundleError
from docsmcp_runtime.format import METADATA_FILE, bundle_id, sha256_file
from docsmcp_runtime.search.stems import MAX_VARIANTS, StemRings
from docsmcp_runtime.tools.app import DocsApp
from hypothesis import given, settings
from hypothesis import strategies as st

DOCS = {
    "guides/configure.md": (
        "# Configure the client\n\nConfigure the client with an API key and a region.\n"
    ),
    "guides/lists.md": (
        "# Rendering lists\n\nRendering a list of items takes one key per item.\n\n"
        "## Keys\n\nEach rendered item needs a key that stays the same.\n"
    ),
    "guides/conditions.md": (
        "# Conditions\n\nShow one of two views depending on a flag: render nothing with null, "
        "render the view with the flag. A list of flags is kept in the store.\n"
    ),
}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("stems")
    return build_bundle(write_tree(root / "docs", DOCS), root / "idx")


def _meta(bundle: Path) -> dict[str, Any]:
    return json.loads((bundle / METADATA_FILE).read_text(encoding="utf-8"))


def _reseal(bundle: Path, meta: dict[str, Any]) -> None:
    """Every file's size and sha256 as on disk, the bundle id recomputed."""
    for name, entry in meta["files"].items():
        entry.update(bytes=(bundle / name).stat().st_size, sha256=sha256_file(bundle / name))
    meta["bundle_id"] = bundle_id({n: e["sha256"] for n, e in meta["files"].items()})
    (bundle / METADATA_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")


def _files(app: DocsApp, query: str) -> list[str]:
    result = app.call_tool("search_docs", {"query": query, "limit": 5})
    return list(dict.fromkeys(h["filepath"] for h in result["structuredContent"]["hits"]))


def _terms(bundle: Path) -> list[str]:
    blob = np.fromfile(bundle / "terms.bin", dtype=np.uint8).tobytes()
    entry = _meta(bundle)["files"]["term_offsets.bin"]
    offsets = np.fromfile(bundle / "term_offsets.bin", dtype=entry["dtype"]).tolist()
    return [blob[a:b].decode() for a, b in zip(offsets, offsets[1:], strict=False)]


def test_a_word_the_docs_write_otherwise_finds_the_page(bundle: Path) -> None:
    """ "configuring" is in no chunk: it reaches `configure` through its stem's forms (the stem
    `configur` + e), as "renders" reaches `render`."""
    app = DocsApp(open_bundle(bundle))
    assert _files(app, "configuring")[:1] == ["guides/configure.md"]
    assert _files(app, "configuring a region")[:1] == ["guides/configure.md"]


def test_the_other_inflections_match_below_the_word_as_written(bundle: Path) -> None:
    """ "rendering": lists.md writes it (first, at full weight); conditions.md writes only
    "render", which now matches too, at stem_weight (it matched nothing before)."""
    app = DocsApp(open_bundle(bundle))
    assert _files(app, "rendering") == ["guides/lists.md", "guides/conditions.md"]
    ids = ["guides/conditions.md#conditions", "guides/lists.md#rendering-lists/keys"]
    parts = app.explain({"query": "rendering", "chunk_ids": ids})
    conditions, keys = parts[ids[0]], parts[ids[1]]
    assert conditions["terms"] == {} and set(conditions["stem_variants"]) == {"render"}
    assert conditions["lexical"] == pytest.approx(conditions["stem_variants"]["render"], abs=1e-3)
    # the Keys section: the page's title gives "rendering", its own text "rendered"
    assert keys["terms"]["rendering"] > 0 and set(keys["stem_variants"]) == {"rendered"}


def test_rings_group_the_inflections_of_a_word(bundle: Path) -> None:
    meta = _meta(bundle)
    assert meta["lexical"]["stem_weight"] == 0.3
    entry = meta["files"]["stem_rings.bin"]
    assert entry["dtype"] == "<u4" and entry["shape"][1] == 2
    rings = np.fromfile(bundle / "stem_rings.bin", dtype="<u4").reshape(entry["shape"])
    terms = _terms(bundle)
    ids = rings[:, 0].tolist()
    assert ids == sorted(set(ids))
    groups = []
    for start in range(len(rings)):
        group, row = [ids[start]], int(rings[start, 1])
        while row != start:
            group.append(ids[row])
            row = int(rings[row, 1])
        groups.append(sorted(terms[t] for t in group))
    assert ["render", "rendered", "rendering"] in groups
    assert all(len(g) > 1 for g in groups)
    assert not any("configure" in g for g in groups)  # one form only: no ring


def test_a_bundle_without_rings_searches_the_words_as_written(bundle: Path, tmp_path: Path) -> None:
    """As a builder before stem variants wrote it: no stem_rings.bin, no stem_weight."""
    older = shutil.copytree(bundle, tmp_path / "older")
    meta = _meta(older)
    del meta["files"]["stem_rings.bin"]
    del meta["lexical"]["stem_weight"]
    (older / "stem_rings.bin").unlink()
    _reseal(older, meta)
    opened = open_bundle(older)
    assert opened.metadata.lexical.stem_weight == 0.0
    assert _files(DocsApp(opened), "configuring") == []


def _damaged(bundle: Path, tmp_path: Path, rings: np.ndarray) -> Path:
    copy = shutil.copytree(bundle, tmp_path / "damaged")
    rings.astype("<u4").tofile(copy / "stem_rings.bin")
    meta = _meta(copy)
    meta["files"]["stem_rings.bin"]["shape"] = list(rings.shape)
    _reseal(copy, meta)
    return copy


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ("descending", "term ids are not strictly ascending"),
        ("beyond", "beyond the"),
        ("next", "next row"),
        ("shape", "expected [m, 2]"),
    ],
)
def test_a_damaged_ring_file_is_refused_in_one_line(
    bundle: Path, tmp_path: Path, change: str, expected: str
) -> None:
    entry = _meta(bundle)["files"]["stem_rings.bin"]
    rings = np.fromfile(bundle / "stem_rings.bin", dtype="<u4").reshape(entry["shape"])
    rings = rings.copy()
    if change == "descending":
        rings[[0, 1], 0] = rings[[1, 0], 0]
    elif change == "beyond":
        rings[-1, 0] = 10**8
    elif change == "next":
        rings[0, 1] = len(rings)
    else:
        rings = np.concatenate([rings, rings[:, :1]], axis=1)
    damaged = _damaged(bundle, tmp_path, rings)
    with pytest.raises(BundleError) as caught:
        open_bundle(damaged)
    message = str(caught.value)
    assert "\n" not in message and "stem_rings.bin" in message and expected in message, message


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=40), st.integers(0, 40))
def test_a_walk_ends_whatever_the_next_rows_say(nexts: list[int], start: int) -> None:
    """Rings that pass the open checks but loop without coming back (a hostile file) still
    give at most MAX_VARIANTS + 1 ids, the term itself first."""
    m = len(nexts)
    rings = np.array([[2 * i, n % m] for i, n in enumerate(nexts)], dtype="<u4")
    tid = 2 * (start % m)
    group = StemRings(rings).group(tid)
    assert group[0] == tid and 1 <= len(group) <= MAX_VARIANTS + 1
    assert StemRings(rings).group(tid + 1) == [tid + 1]  # not in the file: alone
