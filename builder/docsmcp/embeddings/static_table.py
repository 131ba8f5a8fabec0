"""Create a static embedding table from a local BERT-family sentence-transformers model.

    python -m docsmcp.embeddings.static_table --model-dir DIR --out DIR [--dims 256] \
        [--method distill]

Methods (both read only local files; nothing is ever downloaded):
- `distill` (model2vec's recipe; torch + transformers: `pip install 'docsmcp[static-distill]'`):
  every vocabulary token is embedded as a one-token sentence `[CLS] token [SEP]` by the full
  transformer with the model's mean pooling, so each row is what the model thinks the token means
  in isolation.
- `input-embeddings` (numpy only): the transformer's input word-embedding matrix, read straight
  from `model.safetensors`. Needs nothing, but those vectors were trained to be contextualised by
  the layers above them and are much weaker on their own (see the numbers in the report).
Then both: PCA to `--dims` (keeps the directions that separate tokens, drops the rest), and a
Zipf/SIF weight per row, `sif / (sif + p(rank))`, which shrinks frequent tokens ("the", ".") so the
mean of a text's rows is dominated by its rare, meaningful tokens. BERT vocabularies are roughly
ordered by frequency, so the row number stands in for the rank.

The output folder holds `static_vocab.txt` and `static_table.bin` (formats: see
docsmcp_runtime.search.static_model) and `static_meta.json` (name, dims, encoding, tokenizer
options, how the table was made).
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from docsmcp_runtime.search.static_model import (
    ENCODINGS,
    TABLE_FILE,
    VOCAB_FILE,
    TokenizerOptions,
    read_vocab,
    table_bytes,
)

META_FILE = "static_meta.json"
METHODS = ("distill", "input-embeddings")
DEFAULT_SIF = 1e-5  # model2vec uses 1e-4; 1e-5 measured better on the dev set (see report)
_SAFETENSORS_DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8"}
# Names of the input word-embedding matrix in BERT-family safetensors files.
_WORD_EMBEDDING_KEYS = (
    "embeddings.word_embeddings.weight",
    "bert.embeddings.word_embeddings.weight",
)


class TableError(Exception):
    """The model folder cannot be turned into a table (message is shown to the user)."""


@dataclass(frozen=True)
class TableFiles:
    """A table as the bundle ships it: the bytes of both files plus its description."""

    vocab: bytes
    table: bytes
    meta: dict


# -- reading the model folder -----------------------------------------------------------------


def tokenizer_options(model_dir: Path) -> TokenizerOptions:
    """BERT tokenizer settings from tokenizer_config.json (HF semantics: strip_accents=None
    follows do_lower_case); refuses tokenizers this module does not reimplement."""
    tokenizer_json = model_dir / "tokenizer.json"
    if tokenizer_json.is_file():
        model_type = json.loads(tokenizer_json.read_text("utf-8")).get("model", {}).get("type")
        if model_type not in (None, "WordPiece"):
            raise TableError(
                f"{tokenizer_json}: {model_type} tokenizer; only WordPiece is supported"
            )
    config_path = model_dir / "tokenizer_config.json"
    config = json.loads(config_path.read_text("utf-8")) if config_path.is_file() else {}
    lowercase = bool(config.get("do_lower_case", True))
    strip = config.get("strip_accents")
    return TokenizerOptions(
        lowercase=lowercase,
        strip_accents=lowercase if strip is None else bool(strip),
        cjk_chars=bool(config.get("tokenize_chinese_chars", True)),
        unk_token=str(config.get("unk_token", "[UNK]")),
    )


def model_vocab(model_dir: Path) -> list[str]:
    path = model_dir / "vocab.txt"
    if not path.is_file():
        raise TableError(f"{model_dir}: no vocab.txt (a BERT WordPiece model folder is needed)")
    return read_vocab(path.read_bytes())


def read_safetensors(path: Path, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The named tensors of a safetensors file (8-byte little-endian header size, JSON header of
    dtype/shape/data_offsets, then the raw data), read with numpy alone."""
    with open(path, "rb") as f:
        (header_size,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(header_size))
        base = 8 + header_size
        out = {}
        for name in names:
            info = header.get(name)
            if info is None:
                continue
            dtype = _SAFETENSORS_DTYPES.get(info["dtype"])
            if dtype is None:
                raise TableError(f"{path}: tensor {name} has unsupported dtype {info['dtype']}")
            start, end = info["data_offsets"]
            f.seek(base + start)
            data = np.frombuffer(f.read(end - start), dtype=dtype)
            out[name] = data.reshape(info["shape"]).astype(np.float32)
    return out


def input_embeddings(model_dir: Path) -> np.ndarray:
    path = model_dir / "model.safetensors"
    if not path.is_file():
        raise TableError(f"{model_dir}: no model.safetensors")
    tensors = read_safetensors(path, _WORD_EMBEDDING_KEYS)
    if not tensors:
        raise TableError(f"{path}: no word-embedding matrix ({', '.join(_WORD_EMBEDDING_KEYS)})")
    return next(iter(tensors.values()))


def distilled_embeddings(model_dir: Path, batch_size: int = 512) -> np.ndarray:
    """Each token's one-token-sentence embedding, mean-pooled over [CLS] token [SEP]."""
    try:
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise TableError(
            "--method distill needs torch and transformers: pip install 'docsmcp[static-distill]'"
            f" ({exc})"
        ) from exc
    vocab = model_vocab(model_dir)
    ids = {t: i for i, t in enumerate(vocab)}
    cls_id, sep_id = ids.get("[CLS]"), ids.get("[SEP]")
    if cls_id is None or sep_id is None:
        raise TableError(f"{model_dir}: vocab.txt has no [CLS]/[SEP] token")
    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True)
    model.eval()
    rows = []
    with torch.inference_mode():
        for start in range(0, len(vocab), batch_size):
            token_ids = torch.arange(start, min(start + batch_size, len(vocab)))
            batch = torch.stack(
                [torch.full_like(token_ids, cls_id), token_ids, torch.full_like(token_ids, sep_id)],
                dim=1,
            )
            hidden = model(input_ids=batch, attention_mask=torch.ones_like(batch)).last_hidden_state
            rows.append(hidden.mean(dim=1).float().numpy())
    return np.concatenate(rows)


# -- post-processing --------------------------------------------------------------------------


def pca(matrix: np.ndarray, dims: int) -> np.ndarray:
    """Project onto the top `dims` principal components (centred; no whitening, as model2vec).
    Signs are fixed (largest |loading| positive) so the same input always gives the same table."""
    if dims >= matrix.shape[1]:
        return matrix.astype(np.float32)
    centred = matrix.astype(np.float64) - matrix.mean(axis=0)
    eigvals, eigvecs = np.linalg.eigh(centred.T @ centred)
    top = eigvecs[:, np.argsort(eigvals)[::-1][:dims]]
    top *= np.sign(top[np.abs(top).argmax(axis=0), np.arange(dims)])
    return (centred @ top).astype(np.float32)


def sif_weights(n_rows: int, coefficient: float) -> np.ndarray:
    """model2vec's Zipf-estimated SIF weights: p(rank) ∝ 1 / (rank + 2)."""
    inverse_rank = 1.0 / np.arange(2, n_rows + 2, dtype=np.float64)
    proba = inverse_rank / inverse_rank.sum()
    return (coefficient / (coefficient + proba)).astype(np.float32)


def quantise_int8(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric per-row int8: row ≈ q * scale with scale = max|row| / 127."""
    scales = np.abs(matrix).max(axis=1) / 127.0
    safe = np.where(scales == 0, 1.0, scales)
    q = np.clip(np.rint(matrix / safe[:, None]), -127, 127).astype(np.int8)
    return q, scales.astype(np.float32)


def make_table(
    model_dir: Path,
    dims: int = 256,
    method: str = "distill",
    encoding: str = "f16",
    sif: float = DEFAULT_SIF,
    name: str | None = None,
) -> TableFiles:
    """`name`: the source model's name recorded in the table (default: the folder's name)."""
    model_dir = Path(model_dir)
    name = name or model_dir.resolve().name
    if method not in METHODS:
        raise TableError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if encoding not in ENCODINGS:
        raise TableError(f"unknown encoding {encoding!r}; choose one of {', '.join(ENCODINGS)}")
    vocab = model_vocab(model_dir)
    options = tokenizer_options(model_dir)
    matrix = distilled_embeddings(model_dir) if method == "distill" else input_embeddings(model_dir)
    if matrix.shape[0] != len(vocab):
        raise TableError(f"{model_dir}: {matrix.shape[0]} embedding rows, {len(vocab)} tokens")
    matrix = pca(matrix, dims)
    if sif > 0:
        matrix = matrix * sif_weights(len(vocab), sif)[:, None]
    if encoding == "i8":
        data = table_bytes(*quantise_int8(matrix))
    else:
        data = table_bytes(matrix.astype(np.float16), None)
    meta = {
        # The provider's `model`: says what the table is, whichever folder it is read from.
        "name": f"{name}-{method}-{int(matrix.shape[1])}-{encoding}",
        "dimensions": int(matrix.shape[1]),
        "encoding": encoding,
        "tokenizer": options.to_json(),
        "source": {"model": name, "method": method, "sif": sif},
    }
    return TableFiles(("\n".join(vocab) + "\n").encode("utf-8"), data, meta)


def write_table(files: TableFiles, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / VOCAB_FILE).write_bytes(files.vocab)
    (out / TABLE_FILE).write_bytes(files.table)
    (out / META_FILE).write_text(json.dumps(files.meta, indent=2, sort_keys=True) + "\n", "utf-8")


def read_table(folder: Path) -> TableFiles:
    folder = Path(folder)
    try:
        meta = json.loads((folder / META_FILE).read_text("utf-8"))
        return TableFiles(
            (folder / VOCAB_FILE).read_bytes(), (folder / TABLE_FILE).read_bytes(), meta
        )
    except (OSError, ValueError) as exc:
        raise TableError(f"{folder}: not a static table folder ({exc})") from exc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m docsmcp.embeddings.static_table",
        description="Create a static embedding table from a local sentence-transformers model.",
    )
    parser.add_argument("--model-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--dims", type=int, default=256)
    parser.add_argument("--method", choices=METHODS, default="distill")
    parser.add_argument("--encoding", choices=ENCODINGS, default="f16")
    parser.add_argument("--sif", type=float, default=DEFAULT_SIF, help="0 turns weighting off")
    parser.add_argument("--name", help="source model name recorded in the table (default: folder)")
    args = parser.parse_args(argv)
    try:
        files = make_table(
            args.model_dir, args.dims, args.method, args.encoding, args.sif, args.name
        )
    except TableError as exc:
        print(f"docsmcp: error: {exc}", file=sys.stderr)
        return 1
    write_table(files, args.out)
    print(
        f"{args.out}: {len(files.table):,} bytes, {files.meta['dimensions']} dims", file=sys.stderr
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
