"""`rescore` in metadata.json: a second, stronger embedding model that reorders the first
stage's best hits (bundle-spec.md, *Rescoring*).

The bundle holds the model's document vectors (`rescore_vectors.bin`) and its query encoder:
either the ONNX export of a sentence-transformers model with its tokenizer, so the runtime embeds
queries with onnxruntime and never torch, or the name and sha256 of a GGUF file that stays
outside the bundle and runs with llama.cpp (`GgufEncoder`). The section is optional and an ONNX
encoder needs no `requires` feature: a reader that ignores the section serves the first stage's
ranking, which is correct, only less well ordered. A GGUF encoder does (features.RESCORE_GGUF):
a reader from before it parses `encoder` strictly and would refuse the bundle with a line about
a missing `encoder/model`, where naming the feature tells the user to upgrade.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field

from ..records import record
from . import jsonread as j
from .features import RESCORE_GGUF
from .jsonread import MetadataError
from .layout import is_plain_name

RESCORE_ENCODER_FILE = "rescore_encoder.onnx"
RESCORE_TOKENIZER_FILE = "rescore_tokenizer.json"
ENCODER_WEIGHTS = ("f32", "int8")
GGUF_KIND = "gguf"
# Query classes (search/intent.py) and the default share of the model's cosine in the fused
# score: identifier lookups keep the first stage's order (and skip the model's cost).
QUERY_CLASSES = ("identifier", "mixed", "question")
# Measured on every dev set (issue 29 note; docs/search.md): these settings lose no dev set to
# full text with either all-MiniLM-L6-v2 or EmbeddingGemma-300M. A strong model earns more
# (EmbeddingGemma: shares 0.5 and 0.8 with 30 recalled chunks, dev-cases-nl 0.559 -> 0.627),
# a small one loses with that (MiniLM: mcp-docs 0.820 -> 0.698), so more is opt-in.
DEFAULT_DEPTH = 30
DEFAULT_RECALL = 0
DEFAULT_WEIGHTS = {"identifier": 0.0, "mixed": 0.3, "question": 0.5}
MAX_DEPTH = 1000
MAX_DIMENSIONS = 65536


@record
class RescoreModel:
    """What embedded the documents; queries must be embedded the same way."""

    name: str  # the model directory's name, for people
    content_sha256: str  # model_fingerprint() of the model directory: the model by content
    dimensions: int  # the first `dimensions` values of the model's output, renormalised
    document_prompt: str  # prepended to a chunk's embedding input
    query_prompt: str  # prepended to a query
    max_tokens: int  # inputs are cut to this many of the model's tokens

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "content_sha256": self.content_sha256,
            "dimensions": self.dimensions,
            "document_prompt": self.document_prompt,
            "query_prompt": self.query_prompt,
            "max_tokens": self.max_tokens,
        }

    @classmethod
    def from_json(cls, value: object, path: str) -> RescoreModel:
        data = j.obj(value, path)
        digest = j.field(data, "content_sha256", path, j.sha256_hex)
        return cls(
            name=j.field(data, "name", path, j.nonempty),
            content_sha256=digest,
            dimensions=j.field(
                data, "dimensions", path, lambda v, p: j.integer(v, p, 1, MAX_DIMENSIONS)
            ),
            document_prompt=j.field(data, "document_prompt", path, j.string),
            query_prompt=j.field(data, "query_prompt", path, j.string),
            max_tokens=j.field(data, "max_tokens", path, lambda v, p: j.integer(v, p, 1, 1 << 20)),
        )


@record
class RescoreEncoder:
    """The query side as ONNX: `model` maps (input_ids, attention_mask[, token_type_ids]) of one
    tokenised query to the model's pooled, normalised vector, the graph output `output`."""

    model: str = RESCORE_ENCODER_FILE
    tokenizer: str = RESCORE_TOKENIZER_FILE  # a `tokenizers` tokenizer.json
    weights: str = "f32"  # "int8": dynamically quantised weights
    output: str = "sentence_embedding"

    def to_json(self) -> dict:
        return {
            "model": self.model,
            "tokenizer": self.tokenizer,
            "weights": self.weights,
            "output": self.output,
        }

    @classmethod
    def from_json(cls, value: object, path: str) -> RescoreEncoder | GgufEncoder:
        """The encoder of its `kind`: absent (writers before GGUF encoders) is ONNX."""
        data = j.obj(value, path)
        kind = j.optional(data, "kind", path, j.nonempty, "onnx")
        if kind == GGUF_KIND:
            return GgufEncoder.from_json(data, path)
        if kind != "onnx":
            raise MetadataError(j.join(path, "kind"), f"unknown encoder kind {kind!r}")
        names = {k: j.field(data, k, path, j.string) for k in ("model", "tokenizer")}
        for key, name in names.items():
            # File names come from metadata.json: never let them point outside the bundle.
            if not is_plain_name(name):
                raise MetadataError(j.join(path, key), f"not a plain file name: {name!r}")
        weights = j.field(data, "weights", path, j.string)
        if weights not in ENCODER_WEIGHTS:
            raise MetadataError(j.join(path, "weights"), f"unknown weights {weights!r}")
        return cls(
            model=names["model"],
            tokenizer=names["tokenizer"],
            weights=weights,
            output=j.field(data, "output", path, j.nonempty),
        )


@record
class GgufEncoder:
    """The query side as a GGUF file run by llama.cpp (search/gguf_model.py), the same file that
    embedded the documents. The weights stay out of the bundle (hundreds of MB a user already
    has): the runtime finds the file by `file` name ($DOCSMCP_RESCORE_MODEL) and runs it only
    when its sha256 is `sha256`. Pooling and the window come from the file's own metadata."""

    file: str  # the GGUF file's name, for people and for finding it in a folder
    sha256: str

    def to_json(self) -> dict:
        return {"kind": GGUF_KIND, "file": self.file, "sha256": self.sha256}

    @classmethod
    def from_json(cls, value: object, path: str) -> GgufEncoder:
        data = j.obj(value, path)
        name = j.field(data, "file", path, j.nonempty)
        # Joined to a folder by the runtime: never let it point elsewhere.
        if not is_plain_name(name):
            raise MetadataError(j.join(path, "file"), f"not a plain file name: {name!r}")
        return cls(file=name, sha256=j.field(data, "sha256", path, j.sha256_hex))


@record
class Rescore:
    model: RescoreModel
    encoder: RescoreEncoder | GgufEncoder
    depth: int = DEFAULT_DEPTH  # the first stage's best hits that are rescored
    # The model's own nearest chunks (within the filters) that join them: what the first stage
    # missed for a question in a reader's own words. 0: none.
    recall: int = DEFAULT_RECALL
    # The model's share of the fused score per query class (search/rescore.py).
    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))

    @property
    def files(self) -> tuple[str, ...]:
        """Files of the bundle besides rescore_vectors.bin that the query side reads."""
        if isinstance(self.encoder, GgufEncoder):
            return ()  # the GGUF file is outside the bundle
        return (self.encoder.model, self.encoder.tokenizer)

    @property
    def required_features(self) -> tuple[str, ...]:
        """What `requires` must name for this section (none for an ONNX encoder)."""
        return (RESCORE_GGUF,) if isinstance(self.encoder, GgufEncoder) else ()

    def weight(self, query_class: str) -> float:
        return float(self.weights.get(query_class, self.weights.get("mixed", 0.0)))

    def to_json(self) -> dict:
        return {
            "model": self.model.to_json(),
            "encoder": self.encoder.to_json(),
            "depth": self.depth,
            "recall": self.recall,
            "weights": {k: self.weights[k] for k in sorted(self.weights)},
        }

    @classmethod
    def from_json(cls, value: object, path: str = "rescore") -> Rescore:
        data = j.obj(value, path)
        weights_path = j.join(path, "weights")
        raw = j.field(data, "weights", path, j.obj)
        weights = {
            k: j.number(raw[k], j.join(weights_path, k), 0.0, 1.0) for k in raw
        }  # unknown classes are kept and ignored
        return cls(
            model=j.field(data, "model", path, RescoreModel.from_json),
            encoder=j.field(data, "encoder", path, RescoreEncoder.from_json),
            depth=j.field(data, "depth", path, lambda v, p: j.integer(v, p, 1, MAX_DEPTH)),
            recall=j.optional(
                data, "recall", path, lambda v, p: j.integer(v, p, 0, MAX_DEPTH), 0
            ),  # absent: none (an older writer)
            weights=weights,
        )


def parse_weights(text: str) -> dict[str, float]:
    """`mixed=0.5,question=0.8` (classes not named keep their default); ValueError naming the
    bad part."""
    weights = dict(DEFAULT_WEIGHTS)
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        if not sep or name.strip() not in QUERY_CLASSES:
            raise ValueError(f"expected CLASS=SHARE with CLASS one of {', '.join(QUERY_CLASSES)}")
        try:
            share = float(value)
        except ValueError:
            share = -1.0
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"{part!r}: the share must be a number from 0 to 1")
        weights[name.strip()] = share
    return weights


def rescore_or_null(value: object, path: str) -> Rescore | None:
    return None if value is None else Rescore.from_json(value, path)
