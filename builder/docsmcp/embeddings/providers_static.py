"""The `static` embedding provider: static token embeddings shipped inside the bundle.

Documents are embedded here by the runtime's own `StaticModel`, the code that embeds queries at
search time, so both sides agree by construction. The table (vocabulary + rows) goes into the
bundle via `bundle_files()`, so the runtime needs numpy only: no model, no network, no torch.

`--embedding-model` may name a table folder made by
`python -m docsmcp.embeddings.static_table`; without it the default table shipped with the
builder is used (distilled from all-MiniLM-L6-v2, see data/README.md), so
`--embedding-provider static` works offline on a fresh install.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from docsmcp_runtime.format import StaticOptions, TokenizerOptions
from docsmcp_runtime.search.static_model import (
    TABLE_FILE,
    VOCAB_FILE,
    StaticModel,
    StaticModelError,
    parse_table,
    read_vocab,
)

from docsmcp.embeddings.embed import EmbeddingOptions, ProviderError, fingerprint_of
from docsmcp.embeddings.static_table import TableError, TableFiles, read_table

DEFAULT_TABLE = Path(__file__).resolve().parents[1] / "data"


class StaticProvider:
    name = "static"
    # Mean pooling has no context window: a chunk of any length is embedded whole.
    context_tokens = 1_000_000

    def __init__(self, options: EmbeddingOptions) -> None:
        folder = Path(options.model).expanduser() if options.model else DEFAULT_TABLE
        try:
            self._files: TableFiles = read_table(folder)
            meta = self._files.meta
            vocab = read_vocab(self._files.vocab)
            dims = int(meta["dimensions"])
            encoding = str(meta.get("encoding", "f16"))
            table = parse_table(self._files.table, len(vocab), dims, encoding)
            self._tokenizer = TokenizerOptions.from_json(meta.get("tokenizer", {}))
            self._model = StaticModel(vocab, table, self._tokenizer)
        except (TableError, StaticModelError, KeyError, ValueError) as exc:
            raise ProviderError(f"static embedding table {folder}: {exc}") from exc
        if options.dimensions is not None and options.dimensions != dims:
            raise ProviderError(
                f"the static table {folder} has {dims} dimensions, not {options.dimensions}; "
                "make one with python -m docsmcp.embeddings.static_table --dims N"
            )
        self.dimensions = dims
        self._encoding = encoding
        self._table_sha256 = hashlib.sha256(
            self._files.vocab + b"\0" + self._files.table
        ).hexdigest()
        # Named after what the table is, not where it lies, so moving a folder changes nothing.
        self.model = str(meta.get("name") or f"static-{self._table_sha256[:12]}-{dims}-{encoding}")

    def fingerprint(self) -> str:
        return fingerprint_of(
            {
                "provider": "static",
                "table_sha256": self._table_sha256,
                "tokenizer": self._tokenizer.to_json(),
                "encoding": self._encoding,
                "dimensions": self.dimensions,
                "v": 1,
            }
        )

    def embed_documents(self, texts: list[str], ids: list[str]) -> np.ndarray:
        return self._model.embed_many(texts)

    def bundle_spec(self) -> StaticOptions:
        return StaticOptions(
            encoding=self._encoding,
            table_sha256=self._table_sha256,
            tokenizer=self._tokenizer,
            vocab_file=VOCAB_FILE,
            table_file=TABLE_FILE,
        )

    def bundle_files(self) -> dict[str, bytes]:
        return {VOCAB_FILE: self._files.vocab, TABLE_FILE: self._files.table}
