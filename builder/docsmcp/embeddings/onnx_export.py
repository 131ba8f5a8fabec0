"""Export the query side of a sentence-transformers model to one ONNX file (issue 29).

The runtime embeds queries with `docsmcp_runtime.search.onnx_encoder` (onnxruntime + tokenizers,
no torch). The exported graph is the whole sentence-transformers pipeline, so the runtime only
tokenises and runs it: (input_ids, attention_mask) -> transformer -> pooling -> dense layers ->
normalise -> `sentence_embedding`. Prompts and Matryoshka truncation stay outside the graph, in
the EncoderSpec, so one export serves every dimension.

int8 (onnxruntime dynamic quantisation: weights int8 per output channel, activations quantised
at run time; QUANT_CANDIDATES says which MatMuls stay f32) makes the file ~3x smaller and a query
~1.7x faster on one thread; it is kept only when it agrees with the f32 graph (min cosine
>= MIN_AGREEMENT over SAMPLE_QUERIES), else the f32 graph ships and the log says why. torch,
sentence-transformers, onnx and onnxruntime are imported inside the functions: the extra
`docsmcp[onnx-export]`.
"""

from __future__ import annotations

import gc
import logging
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from docsmcp_runtime.search.onnx_encoder import EncoderError, EncoderSpec, OnnxQueryEncoder

from docsmcp.embeddings.embed import ProviderError
from docsmcp.embeddings.st_model import dimensions_of, load_model, prompts_of

log = logging.getLogger(__name__)

OUTPUT = "sentence_embedding"
INPUTS = ("input_ids", "attention_mask")
OPSET = 17  # the TorchScript exporter's well-trodden opset; onnxruntime >= 1.17 runs it
MAX_QUERY_TOKENS = 512  # queries are short; a longer window only costs memory
MIN_AGREEMENT = 0.99  # min cosine int8 vs f32 over SAMPLE_QUERIES to ship int8
PROTOBUF_LIMIT = 2**31 - 1  # one ONNX file (no external data) must fit one protobuf message

# What developers type into a docs search: identifiers, errors, how-tos, short and long.
SAMPLE_QUERIES = (
    "how do I retry a failed request",
    "RetryConfig backoff jitter",
    "configure an HTTP proxy for the client",
    "what does error 429 Too Many Requests mean",
    "pagination cursor next_page_token",
    "install the SDK with pip",
    "authenticate with an API key from an environment variable",
    "upload a large file in chunks",
    "verify a webhook signature",
    "list users sorted by creation date",
    "async client vs sync client",
    "timeout",
    "set a custom base URL for a self-hosted server",
    "TypeError: 'NoneType' object is not subscriptable",
    "how to stream responses",
    "delete a resource and all its children",
    "difference between PUT and PATCH in this API",
    "rate limits per organization",
    "client.links.create(url=..., domain=...)",
    "migrate from v1 to v2",
    "why is my token expired after one hour",
    "enable debug logging",
    "serialize a model to JSON",
    "handle validation errors from the server",
    "how are dates and time zones formatted",
    "run the test suite locally",
    "where is the changelog",
    "use a custom HTTP client with connection pooling and TLS certificates",
    "generics lifetime bounds on trait objects",
    'fn main() { println!("hello"); }',
)

# int8 variants tried in order, the first that agrees ships. "down-projections f32": every MatMul
# and Gather int8 except the feed-forward down-projections, whose input (after GELU/GeGLU) has
# outliers that one dynamic activation scale per tensor flattens; they are most of the int8 error.
# Measured (issue 29), min cosine to f32 over SAMPLE_QUERIES / 50 other queries, p50 at 1 thread:
#   MiniLM-L6   all int8 0.991 / 0.987, 1.4 ms, 23 MB; down-proj f32 0.994 / 0.994, 2.9 ms, 33 MB
#   Gemma-300M  all int8 0.989 / 0.989, 19 ms, 311 MB; down-proj f32 0.996 / 0.996, 27 ms, 374 MB
#   (f32: MiniLM 4.6 ms, 90 MB; Gemma 48 ms, 1232 MB)
# "all" passes or fails the 0.99 gate by a hair and does worse on queries it was not gated on, so
# only the robust variant is tried; "all" stays available here for measurements. Weights int8 with
# a scale per output channel (one scale per tensor: 0.957 on MiniLM; uint8 weights: no better).
QUANT_CANDIDATES: tuple[str, ...] = ("down-projections f32",)


@dataclass(frozen=True)
class ExportedEncoder:
    model: bytes  # the .onnx file, ONE file (no external data), deterministic bytes
    tokenizer: bytes  # the model directory's tokenizer.json bytes
    spec: EncoderSpec  # prompt = the model's "query" prompt if it has one, else ""
    weights: str  # "int8" or "f32": what `model` holds
    agreement: float  # min cosine int8-vs-f32 over the sample queries (1.0 for f32)


def export_query_encoder(
    model_dir: Path, *, dimensions: int | None = None, quantize: bool = True
) -> ExportedEncoder:
    """The query encoder of the sentence-transformers model in `model_dir`, as ONNX bytes."""
    model_dir = Path(model_dir).expanduser()
    tokenizer_file = model_dir / "tokenizer.json"
    if not tokenizer_file.is_file():
        raise ProviderError(
            f"{model_dir} has no tokenizer.json: the ONNX query encoder needs a fast tokenizer "
            "(a sentence-transformers directory saved by transformers >= 4)"
        )
    model = _load_model(model_dir)
    native = dimensions_of(model)
    dims = dimensions or native
    if not 0 < dims <= native:
        raise ProviderError(
            f"model {model_dir.name} makes {native}-dimensional vectors: cannot truncate to {dims}"
        )
    spec = EncoderSpec(
        query_prompt=prompts_of(model).query,
        max_tokens=min(int(model.max_seq_length or MAX_QUERY_TOKENS), MAX_QUERY_TOKENS),
        dimensions=dims,
        output=OUTPUT,
    )
    tokenizer = tokenizer_file.read_bytes()
    with tempfile.TemporaryDirectory(prefix="docsmcp-onnx-") as tmp:
        folder = Path(tmp)
        f32_path = folder / "f32.onnx"
        started = time.perf_counter()
        _export(model, tokenizer_file, spec, f32_path)
        # Peak memory: torch's copy of the weights goes before quantising, and the f32 bytes are
        # read only if they ship (EmbeddingGemma, peak RSS: f32 5.6 GB; int8 6.5 GB, 9.0 before).
        del model
        gc.collect()
        log.info("exported %s to ONNX in %.1f s", model_dir.name, time.perf_counter() - started)
        int8 = _quantized(f32_path, tokenizer_file, spec) if quantize else None
        return int8 or ExportedEncoder(f32_path.read_bytes(), tokenizer, spec, "f32", 1.0)


def _load_model(model_dir: Path) -> Any:
    try:
        import torch  # noqa: F401  (the message below names what is missing)
        from sentence_transformers import SentenceTransformer  # noqa: F401
    except ImportError as exc:
        raise ProviderError(
            f"exporting an ONNX query encoder needs {exc.name}: pip install 'docsmcp[onnx-export]'"
        ) from None
    if not (model_dir / "modules.json").is_file():
        raise ProviderError(
            f"{model_dir} is not a sentence-transformers model directory (no modules.json)"
        )
    missing = "exporting an ONNX query encoder needs sentence-transformers"  # checked above
    return load_model(model_dir, "sentence-transformers model", missing).eval()


def _wrapper(model: Any) -> Any:
    import torch

    class SentenceEmbedding(torch.nn.Module):
        """(input_ids, attention_mask) -> the model's normalised sentence embedding."""

        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            features = {"input_ids": input_ids, "attention_mask": attention_mask}
            return self.inner(features)[OUTPUT]

    return SentenceEmbedding(model).eval()


def _example(tokenizer_file: Path, spec: EncoderSpec) -> tuple[Any, Any]:
    """A padded batch of two real queries of different lengths: the trace sees the mask used
    (a one-row batch without padding could let a library skip the mask while tracing)."""
    import tokenizers
    import torch

    tok = tokenizers.Tokenizer.from_file(str(tokenizer_file))
    tok.no_padding()
    tok.enable_truncation(spec.max_tokens)
    rows = [tok.encode(spec.query_prompt + q) for q in SAMPLE_QUERIES[:2]]
    length = max(len(r.ids) for r in rows)
    ids = torch.zeros((len(rows), length), dtype=torch.long)
    mask = torch.zeros((len(rows), length), dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, : len(r.ids)] = torch.tensor(r.ids)
        mask[i, : len(r.ids)] = 1
    return ids, mask


def _export(model: Any, tokenizer_file: Path, spec: EncoderSpec, out: Path) -> None:
    import warnings

    import torch

    # The TorchScript exporter: the dynamo one (torch's default since 2.9) needs onnxscript,
    # which is not installed with torch, and the traced graph is what onnxruntime quantises well.
    wrapper = _wrapper(model)
    example = _example(tokenizer_file, spec)
    axes = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}
    try:
        with torch.no_grad(), warnings.catch_warnings(), _traceable_masks():
            # Tracer warnings about Python booleans: the shapes they freeze (mask width ==
            # sequence length, no key/value cache) hold for every encoder input.
            warnings.simplefilter("ignore")
            torch.onnx.export(
                wrapper,
                example,
                str(out),
                input_names=list(INPUTS),
                output_names=[OUTPUT],
                dynamic_axes={**axes, OUTPUT: {0: "batch"}},
                opset_version=OPSET,
                do_constant_folding=True,
                dynamo=False,
                external_data=False,
            )
    except Exception as exc:
        line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        if "2GB" in line or "2 GB" in line or "protobuf" in line.lower():
            raise ProviderError(
                f"the model is too big for one ONNX file (protobuf's 2 GB limit): {line}"
            ) from None
        raise ProviderError(f"ONNX export failed: {line}") from None
    if out.stat().st_size > PROTOBUF_LIMIT:
        raise ProviderError("the model is too big for one ONNX file (protobuf's 2 GB limit)")


@contextmanager
def _traceable_masks() -> Iterator[None]:
    """Attention masks built by broadcasting instead of torch.vmap while exporting.

    transformers (>= 4.53) builds the mask of a model with a custom mask pattern (EmbeddingGemma:
    bidirectional attention, a sliding window) with torch.vmap and a getitem-rewriting torch
    function mode, which the TorchScript tracer cannot record ("unordered_map::at"). These
    pattern functions are index-based, so broadcasting the indices gives the same mask; this is
    the patch optimum-onnx applies (its model_patcher). Models without such patterns never reach
    either function."""
    try:
        from transformers import masking_utils as masks
    except ImportError:
        yield
        return
    expand = getattr(masks, "_non_vmap_expansion_sdpa", None)
    if expand is None or not hasattr(masks, "_vmap_expansion_sdpa"):
        yield
        return

    def broadcast(mask_function: Any) -> Any:
        def build(batch: Any, head: Any, q: Any, kv: Any) -> Any:
            mask = mask_function(*expand(batch, head, q, kv))
            return mask.expand(batch.shape[0], head.shape[0], q.shape[0], kv.shape[0])

        return build

    saved = masks._vmap_expansion_sdpa, getattr(masks, "TransformGetItemToIndex", None)
    masks._vmap_expansion_sdpa = broadcast
    if saved[1] is not None:
        masks.TransformGetItemToIndex = nullcontext
    try:
        yield
    finally:
        masks._vmap_expansion_sdpa = saved[0]
        if saved[1] is not None:
            masks.TransformGetItemToIndex = saved[1]


def _quantized(f32_path: Path, tokenizer_file: Path, spec: EncoderSpec) -> ExportedEncoder | None:
    """The first int8 encoding that agrees with the f32 graph, or None (f32 ships)."""
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        log.warning(
            "%s is not installed (pip install 'docsmcp[onnx-export]'): the ONNX query encoder "
            "stays f32",
            exc.name,
        )
        return None
    reference = _embed_samples(f32_path, tokenizer_file, spec)
    best = 0.0
    for number, variant in enumerate(QUANT_CANDIDATES):
        out = f32_path.with_name(f"int8-{number}.onnx")
        keep = _down_projections(f32_path) if variant != "all" else []
        started = time.perf_counter()
        with _quiet_quantizer():
            quantize_dynamic(
                f32_path,
                out,
                weight_type=QuantType.QInt8,
                per_channel=True,
                nodes_to_exclude=keep,
            )
        vectors = _embed_samples(out, tokenizer_file, spec)
        agreement = float(np.min(np.sum(vectors * reference, axis=1)))
        log.info(
            "int8 (%s) in %.1f s: min cosine to f32 %.4f",
            variant,
            time.perf_counter() - started,
            agreement,
        )
        if agreement >= MIN_AGREEMENT:
            return ExportedEncoder(
                out.read_bytes(), tokenizer_file.read_bytes(), spec, "int8", agreement
            )
        best = max(best, agreement)
    log.warning(
        "int8 weights change query vectors too much (min cosine %.4f < %.2f over %d sample "
        "queries): the ONNX query encoder ships f32",
        best,
        MIN_AGREEMENT,
        len(SAMPLE_QUERIES),
    )
    return None


class _DropQuantizerChatter(logging.Filter):
    """onnxruntime's quantiser logs a line per tensor on the root logger, and advice about
    pre-processing that does not apply to dynamic quantisation; errors still pass."""

    def filter(self, record: logging.LogRecord) -> bool:
        from_ort = "onnxruntime" in record.pathname
        return not from_ort or record.levelno >= logging.ERROR


@contextmanager
def _quiet_quantizer() -> Iterator[None]:
    root = logging.getLogger()
    chatter = _DropQuantizerChatter()
    root.addFilter(chatter)
    try:
        yield
    finally:
        root.removeFilter(chatter)


def _down_projections(model_path: Path) -> list[str]:
    """MatMul nodes that narrow an activated input: weight [k, n] with k > n, input made by a
    Mul of two computed tensors (GELU's last step, GeGLU's gate times up-projection), looking
    through scalings by a constant scalar (erf-GELU ends in "* 0.5"). A norm's output is a Mul by
    a constant weight vector, so attention projections, even narrowing ones (grouped key/value
    heads), stay int8. Read structurally, not by layer names: any architecture."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load_model(str(model_path), load_external_data=False).graph
    shapes = {t.name: tuple(t.dims) for t in graph.initializer}
    made_by = {out: node for node in graph.node for out in node.output}

    def scalar(name: str) -> bool:
        if name in shapes:
            return int(np.prod(shapes[name])) == 1
        node = made_by.get(name)
        if node is None or node.op_type != "Constant" or not node.attribute:
            return False
        return numpy_helper.to_array(node.attribute[0].t).size == 1

    def computed(name: str) -> bool:
        node = made_by.get(name)
        return name not in shapes and node is not None and node.op_type != "Constant"

    def gated(name: str) -> bool:
        node = made_by.get(name)
        for _ in range(4):  # a few scalar scalings at most
            if node is None or node.op_type != "Mul" or len(node.input) != 2:
                return False
            if all(computed(i) for i in node.input):
                return True
            rest = [i for i in node.input if not scalar(i)]
            if len(rest) != 1:
                return False
            node = made_by.get(rest[0])
        return False

    names = []
    for node in graph.node:
        if node.op_type != "MatMul" or len(node.input) != 2:
            continue
        weight = shapes.get(node.input[1], ())
        if len(weight) == 2 and weight[0] > weight[1] and gated(node.input[0]):
            names.append(node.name)
    return names


def _embed_samples(model: Path, tokenizer_file: Path, spec: EncoderSpec) -> np.ndarray:
    """SAMPLE_QUERIES through the runtime's own encoder: what will ship is what is measured."""
    try:
        encoder = OnnxQueryEncoder(model, tokenizer_file, spec, threads=1)
        return np.stack([encoder.embed(q) for q in SAMPLE_QUERIES])
    except EncoderError as exc:
        raise ProviderError(f"the exported ONNX query encoder does not run: {exc}") from None
