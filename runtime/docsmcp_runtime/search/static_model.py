"""Static token embeddings: a BERT WordPiece tokenizer and a vocabulary x dims table, numpy only.

A text's vector is the mean of the table rows of its tokens, L2-normalised (model2vec style).
The builder embeds documents and the runtime embeds queries through this one module, so both
sides tokenise and pool identically by construction.

The tokenizer reproduces the `tokenizers` crate's BERT pipeline (what `tokenizer.json` of a
BERT-family sentence-transformers model runs), without depending on it:
1. clean: drop NUL, U+FFFD and every "Other" (C*) character except tab, CR, LF; whitespace -> ' ';
2. pad CJK ideographs with spaces, so each is its own word;
3. strip accents (NFD, drop non-spacing marks), then lower-case (both optional);
4. split on whitespace, then around every punctuation character (ASCII or Unicode P*);
5. WordPiece: greedy longest match from the start of a word, continuation pieces prefixed with
   `##`; a word with an unmatched remainder, or longer than 100 characters, is [UNK].
Special tokens ([CLS], [SEP], [UNK], ...) carry no meaning in a mean, so they are never pooled.

Files (see bundle-spec.md): `static_vocab.txt`, one token per line in row order, and
`static_table.bin`, the table as raw little-endian float16 [vocab, dims] ("f16"), or int8
[vocab, dims] followed by float32 [vocab] row scales ("i8"): row = int8 row * scale.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..format import Embedding, StaticOptions, TokenizerOptions
from ..format.providers import (
    STATIC_ENCODINGS,
    STATIC_ROW_DTYPES,
    STATIC_SCALE_DTYPE,
    STATIC_TABLE_FILE,
    STATIC_VOCAB_FILE,
)
from ..records import record
from .embedding import EmbeddingError

VOCAB_FILE = STATIC_VOCAB_FILE
TABLE_FILE = STATIC_TABLE_FILE
ENCODINGS = STATIC_ENCODINGS
MAX_WORD_CHARS = 100  # the `tokenizers` WordPiece default: longer words become [UNK]
WORD_CACHE = 1 << 16  # distinct words kept tokenised; queries and docs repeat words a lot

# Characters that need the slow per-character cleaning path: anything outside printable ASCII
# and the three whitespace controls. Pure-ASCII text (most docs and queries) skips it.
_NEEDS_CLEANING = re.compile(r"[^\t\n\r\x20-\x7e]")
# ASCII punctuation per BERT: every printable non-alphanumeric character.
_ASCII_SPLIT = re.compile(r"[A-Za-z0-9]+|[^A-Za-z0-9]")
_CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


class StaticModelError(EmbeddingError):
    """The table files are missing, inconsistent or of an unknown encoding.

    An EmbeddingError, so a bundle with a broken table degrades to full-text search."""


def _is_cjk(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _clean_char(ch: str, cjk_chars: bool) -> str:
    if ch in "\t\n\r":
        return " "
    cp = ord(ch)
    if cp == 0 or cp == 0xFFFD or unicodedata.category(ch).startswith("C"):
        return ""
    if ch.isspace():
        return " "
    if cjk_chars and _is_cjk(cp):
        return f" {ch} "
    return ch


class WordPieceTokenizer:
    """Text -> token ids, with a per-word cache (tokenising a word is the expensive part)."""

    def __init__(self, vocab: list[str], options: TokenizerOptions) -> None:
        self.options = options
        self.vocab = {token: i for i, token in enumerate(vocab)}
        if options.unk_token not in self.vocab:
            raise StaticModelError(f"the vocabulary has no unknown token {options.unk_token!r}")
        self.unk_id = self.vocab[options.unk_token]
        self.word_ids = lru_cache(maxsize=WORD_CACHE)(self._word_ids)

    def _clean(self, text: str) -> str:
        if not _NEEDS_CLEANING.search(text):
            return text
        cjk = self.options.cjk_chars
        return "".join(_clean_char(ch, cjk) for ch in text)

    def _normalise_word(self, word: str) -> str:
        if self.options.strip_accents and not word.isascii():
            word = "".join(
                c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn"
            )
        return word.lower() if self.options.lowercase else word

    def _pieces(self, word: str) -> list[str]:
        """Split a normalised whitespace-free word around punctuation characters."""
        if word.isascii():
            return _ASCII_SPLIT.findall(word)
        pieces: list[str] = []
        current: list[str] = []
        for ch in word:
            if _is_punctuation(ch):
                if current:
                    pieces.append("".join(current))
                    current = []
                pieces.append(ch)
            else:
                current.append(ch)
        if current:
            pieces.append("".join(current))
        return pieces

    def _wordpiece(self, piece: str) -> list[int]:
        if len(piece) > MAX_WORD_CHARS:
            return [self.unk_id]
        vocab, prefix = self.vocab, self.options.continuation_prefix
        ids: list[int] = []
        start = 0
        while start < len(piece):
            end = len(piece)
            found = None
            while start < end:
                sub = piece[start:end] if start == 0 else prefix + piece[start:end]
                found = vocab.get(sub)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return [self.unk_id]  # BERT: one unmatched remainder makes the whole word [UNK]
            ids.append(found)
            start = end
        return ids

    def _word_ids(self, word: str) -> tuple[int, ...]:
        ids: list[int] = []
        for piece in self._pieces(self._normalise_word(word)):
            ids.extend(self._wordpiece(piece))
        return tuple(ids)

    def words(self, text: str) -> list[str]:
        """Whitespace-separated words after cleaning (before lower-casing and punctuation)."""
        return self._clean(text).split()

    def tokens(self, text: str) -> list[str]:
        """The token strings of `text`, as `tokenizers` would give them (without [CLS]/[SEP])."""
        inverse = {i: t for t, i in self.vocab.items()}
        return [inverse[i] for i in self.encode(text)]

    def encode(self, text: str) -> list[int]:
        word_ids = self.word_ids
        return [i for word in self.words(text) for i in word_ids(word)]


@record
class StaticTable:
    rows: np.ndarray  # [vocab, dims]: float16, or int8 with `scales`
    scales: np.ndarray | None  # float32 [vocab] for int8 rows, else None

    @property
    def dims(self) -> int:
        return int(self.rows.shape[1])


def table_bytes(rows: np.ndarray, scales: np.ndarray | None) -> bytes:
    """The `static_table.bin` content for float16 rows, or int8 rows plus float32 scales."""
    if scales is None:
        return np.ascontiguousarray(rows, dtype=STATIC_ROW_DTYPES["f16"]).tobytes()
    return (
        np.ascontiguousarray(rows, dtype=STATIC_ROW_DTYPES["i8"]).tobytes()
        + np.ascontiguousarray(scales, dtype=STATIC_SCALE_DTYPE).tobytes()
    )


def parse_table(data: bytes | np.ndarray, n_vocab: int, dims: int, encoding: str) -> StaticTable:
    """Interpret `static_table.bin` bytes (or a uint8 memmap of them); checks the size."""
    buf = np.frombuffer(data, dtype=np.uint8) if isinstance(data, bytes) else data
    if encoding == "f16":
        expected = n_vocab * dims * 2
        if buf.size != expected:
            raise StaticModelError(f"{TABLE_FILE}: {buf.size} bytes, expected {expected}")
        return StaticTable(buf.view(STATIC_ROW_DTYPES["f16"]).reshape(n_vocab, dims), None)
    if encoding == "i8":
        body = n_vocab * dims
        expected = body + n_vocab * 4
        if buf.size != expected:
            raise StaticModelError(f"{TABLE_FILE}: {buf.size} bytes, expected {expected}")
        rows = buf[:body].view(STATIC_ROW_DTYPES["i8"]).reshape(n_vocab, dims)
        return StaticTable(rows, buf[body:].view(STATIC_SCALE_DTYPE))
    raise StaticModelError(f"unknown static table encoding {encoding!r}; known: {ENCODINGS}")


def read_vocab(data: bytes) -> list[str]:
    text = data.decode("utf-8")
    # One token per line; the final newline ends the last line and does not start a new token.
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


class StaticModel:
    """Embeds texts with a static table; thread-safe for reads (lru_cache is)."""

    def __init__(self, vocab: list[str], table: StaticTable, options: TokenizerOptions) -> None:
        if len(vocab) != table.rows.shape[0]:
            raise StaticModelError(
                f"{VOCAB_FILE} has {len(vocab)} tokens but the table {table.rows.shape[0]} rows"
            )
        self.tokenizer = WordPieceTokenizer(vocab, options)
        self.rows = table.rows
        self.scales = table.scales
        self.dims = table.dims
        # Special tokens ([CLS], [PAD], [unused0], ...) are never pooled: they carry position or
        # padding information in a transformer, not meaning.
        special = [i for i, t in enumerate(vocab) if t.startswith("[") and t.endswith("]")]
        self._skip = np.zeros(len(vocab), dtype=bool)
        self._skip[special] = True

    @classmethod
    def load(cls, folder: Path, options: StaticOptions, dimensions: int) -> StaticModel:
        """Load from a folder holding the two files named in the bundle's options."""
        try:
            vocab = read_vocab((Path(folder) / options.vocab_file).read_bytes())
            # memmap: the table stays in the page cache, shared between runtime replicas.
            raw = np.memmap(Path(folder) / options.table_file, dtype=np.uint8, mode="r")
        except (OSError, ValueError) as exc:
            raise StaticModelError(f"cannot read static table: {exc!r}") from exc
        table = parse_table(raw, len(vocab), dimensions, options.encoding)
        return cls(vocab, table, options.tokenizer)

    def token_ids(self, text: str) -> np.ndarray:
        ids = np.fromiter(self.tokenizer.encode(text), dtype=np.int64)
        return ids[~self._skip[ids]] if ids.size else ids

    def embed(self, text: str) -> np.ndarray:
        """float32 [dims], L2-normalised; all zeros when no token of the text has a row."""
        ids = self.token_ids(text)
        if ids.size == 0:
            return np.zeros(self.dims, dtype=np.float32)
        rows = self.rows[ids].astype(np.float32)
        if self.scales is not None:
            rows *= self.scales[ids, None]
        vector = rows.mean(axis=0)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm > 0 else vector

    def embed_many(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = self.embed(text)
        return out


def static_embedder(spec: Embedding, bundle_dir: Path) -> StaticModel:
    """The query embedder of a bundle built with the `static` provider."""
    assert isinstance(spec.options, StaticOptions)
    return StaticModel.load(bundle_dir, spec.options, spec.dimensions)
