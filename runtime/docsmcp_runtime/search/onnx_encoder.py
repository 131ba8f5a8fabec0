"""Query embeddings from an ONNX export of a sentence-transformers model, without torch.

The builder exports the query side of a model (transformer, pooling, dense layers, normalise) as
one `.onnx` file plus the model's `tokenizer.json` (`docsmcp.embeddings.onnx_export`). Here
`onnxruntime` runs that graph and `tokenizers` tokenises, both from the runtime's optional extra
`onnx` (`pip install 'docsmcp-runtime[onnx]'`) and imported on first use, so a runtime without
the extra imports nothing new and serves full-text search as before.

One query is one batch of one sequence: no padding (a padded row would cost compute and change
nothing), truncation to the model's window, one thread by default (a server answers one query at
a time per request and should not take every core). `load_in_background` starts loading at once
so the server answers full-text queries while the session (hundreds of MB for a 300M model)
comes up.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..records import record
from .embedding import EmbeddingError

log = logging.getLogger(__name__)

# The token-level inputs a transformer export may declare; each is fed only if declared.
TOKEN_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
EXTRA_HINT = "pip install 'docsmcp-runtime[onnx]'"


@record
class EncoderSpec:
    query_prompt: str  # prepended to the query text before tokenising ("" for none)
    max_tokens: int  # tokenizer truncation, special tokens included
    dimensions: int  # the output is cut to its first `dimensions` values, then L2-normalised
    output: str  # name of the ONNX graph output holding the pooled sentence vector


class EncoderError(EmbeddingError):
    """The encoder cannot be loaded or run: missing extra, unreadable file, bad graph.

    The message is one line. An EmbeddingError, so search degrades to full text."""


class EncoderNotReady(EncoderError):
    """The encoder is still loading in the background."""


def _line(exc: BaseException) -> str:
    """The first line of an exception's message (onnxruntime's run several lines long)."""
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0].strip()


def _import_extra() -> tuple[Any, Any]:
    try:
        import onnxruntime
        import tokenizers
    except ImportError as exc:
        raise EncoderError(
            f"the ONNX query encoder needs {exc.name or 'onnxruntime and tokenizers'}: {EXTRA_HINT}"
        ) from None
    return onnxruntime, tokenizers


class OnnxQueryEncoder:
    """Text -> float32[dimensions], unit length. Thread-safe: onnxruntime sessions and
    `tokenizers` encoders may be called from several threads at once."""

    def __init__(
        self,
        model: Path,
        tokenizer: Path,
        spec: EncoderSpec,
        threads: int = 1,
        settle: Callable[[], None] | None = None,
    ) -> None:
        """`settle` runs between the session's load and the tokenizer's parse (which holds the
        GIL): a background load waits there for a quiet moment (BackgroundEncoder)."""
        if spec.dimensions <= 0 or spec.max_tokens <= 0:
            raise EncoderError(
                f"bad encoder spec: dimensions {spec.dimensions}, max_tokens {spec.max_tokens}"
            )
        ort, tokenizers = _import_extra()
        self.spec = spec
        # The session first: it releases the GIL while it loads. Parsing tokenizer.json holds
        # it (~1.1 s for EmbeddingGemma's 33 MB), so it comes last, once a server starting
        # beside it has most likely answered its first requests.
        self._session = _load_session(ort, Path(model), max(1, int(threads)))
        self._inputs = _check_graph(self._session, Path(model).name, spec)
        if settle is not None:
            settle()
        self._tokenizer = _load_tokenizer(tokenizers, Path(tokenizer), spec.max_tokens)

    @property
    def threads(self) -> int:
        """The session's intra-op thread count, as onnxruntime holds it."""
        return int(self._session.get_session_options().intra_op_num_threads)

    @property
    def inputs(self) -> tuple[str, ...]:
        """The token inputs the graph declares, the only ones fed."""
        return self._inputs

    def embed(self, text: str) -> np.ndarray:
        encoding = self._tokenizer.encode(self.spec.query_prompt + text)
        dims = self.spec.dimensions
        if not encoding.ids:  # a tokenizer without special tokens, and an empty text
            return np.zeros(dims, dtype=np.float32)
        columns = {
            "input_ids": encoding.ids,
            "attention_mask": encoding.attention_mask,
            "token_type_ids": encoding.type_ids,
        }
        feed = {name: np.asarray([columns[name]], dtype=np.int64) for name in self._inputs}
        try:
            (output,) = self._session.run([self.spec.output], feed)
        except Exception as exc:  # onnxruntime raises its own exception types
            raise EncoderError(f"the ONNX query encoder failed: {_line(exc)}") from None
        vector = np.asarray(output, dtype=np.float32).reshape(-1)[:dims]
        norm = float(np.linalg.norm(vector))
        # Matryoshka truncation: the first `dims` values renormalised are the smaller vector.
        return vector / norm if norm > 0 else vector


def _load_tokenizer(tokenizers: Any, path: Path, max_tokens: int) -> Any:
    try:
        # Read here rather than by Tokenizer.from_file: the same JSON, read without holding the
        # GIL, so a slow disk never stalls the server's other threads. Parsing it does hold the
        # GIL (both from_str and from_file): ~1.1 s for EmbeddingGemma's 33 MB tokenizer.json,
        # ~20 ms for MiniLM's; the caller decides when a background load may start.
        tokenizer = tokenizers.Tokenizer.from_str(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise EncoderError(f"cannot read tokenizer {path.name}: {_line(exc)}") from None
    except Exception as exc:  # tokenizers raises a bare Exception for a malformed file
        raise EncoderError(f"bad tokenizer {path.name}: {_line(exc)}") from None
    # Padding a single query only adds tokens the mask hides; model files often configure it.
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_tokens)
    return tokenizer


def _load_session(ort: Any, path: Path, threads: int) -> Any:
    if not path.is_file():
        raise EncoderError(f"cannot read ONNX model {path.name}: no such file")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = threads
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3  # errors only: its warnings would go to stderr (MCP stdio)
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise EncoderError(f"cannot load ONNX model {path.name}: {_line(exc)}") from None


def _check_graph(session: Any, name: str, spec: EncoderSpec) -> tuple[str, ...]:
    declared = [i.name for i in session.get_inputs()]
    unknown = [n for n in declared if n not in TOKEN_INPUTS]
    if "input_ids" not in declared or unknown:
        raise EncoderError(
            f"ONNX model {name} has inputs {declared}; expected input_ids and optionally "
            "attention_mask, token_type_ids"
        )
    outputs = {o.name: o for o in session.get_outputs()}
    if spec.output not in outputs:
        raise EncoderError(f"ONNX model {name} has no output {spec.output!r}: {sorted(outputs)}")
    shape = outputs[spec.output].shape
    width = shape[-1] if shape else None
    if len(shape) != 2 or (isinstance(width, int) and width < spec.dimensions):
        raise EncoderError(
            f"ONNX model {name}: output {spec.output!r} has shape {shape}, "
            f"expected [batch, >= {spec.dimensions}]"
        )
    return tuple(n for n in TOKEN_INPUTS if n in declared)


# A background load parses the tokenizer (holding the GIL: ~1.1 s for EmbeddingGemma, during
# which the server answers nothing) once no search has used the encoder for QUIET_SECONDS, or
# at the latest MAX_SETTLE_SECONDS after it could have: an agent's searches come in bursts
# with its model's thinking between them, and the parse falls in such a gap.
QUIET_SECONDS = 0.5
MAX_SETTLE_SECONDS = 10.0


class QueryEncoder(Protocol):
    """What a background load makes: text -> float32[dimensions], unit length."""

    def embed(self, text: str) -> np.ndarray: ...


class BackgroundEncoder:
    """A query encoder loading on a daemon thread; `embed` raises EncoderNotReady until it has
    loaded, then embeds, or raises EncoderError with the load failure's line for good.
    Searches `touch` it, so the GIL-holding part of the load waits for a quiet moment.

    `load(settle)` makes the encoder (an OnnxQueryEncoder, or the GGUF one of
    search/gguf_model.py) and calls `settle` before any part of its load that holds the GIL;
    `what` names it in messages ("the ONNX query encoder")."""

    def __init__(
        self,
        load: Callable[[Callable[[], None]], QueryEncoder],
        what: str,
        before: Callable[[], None] | None = None,
    ) -> None:
        self._before = before
        self._what = what
        self._last_use = 0.0  # time.monotonic() of the last `touch`
        self._loaded = threading.Event()
        self._encoder: QueryEncoder | None = None
        self._error: str | None = None
        self._thread = threading.Thread(
            target=self._load,
            args=(load,),
            name="docsmcp-query-encoder",
            daemon=True,  # never keeps a stopping server alive
        )
        self._thread.start()

    def _load(self, load: Callable[[Callable[[], None]], QueryEncoder]) -> None:
        started = time.perf_counter()
        try:
            if self._before is not None:
                self._before()
            self._encoder = load(self._settle)
            log.info("%s loaded in %.2f s", self._what, time.perf_counter() - started)
        except EmbeddingError as exc:  # EncoderError, and the GGUF model's GgufError
            self._error = str(exc)
        except Exception as exc:  # a thread's exception would otherwise vanish
            self._error = f"cannot load {self._what}: {_line(exc)}"
        finally:
            if self._error:
                log.warning("%s", self._error)
            self._loaded.set()  # after the fields: Event.set orders the writes for readers

    def touch(self) -> None:
        """A search used (or would have used) the encoder now."""
        self._last_use = time.monotonic()

    def _settle(self) -> None:
        give_up = time.monotonic() + MAX_SETTLE_SECONDS
        while time.monotonic() < give_up and time.monotonic() - self._last_use < QUIET_SECONDS:
            time.sleep(0.05)

    def ready(self) -> bool:
        return self._loaded.is_set() and self._encoder is not None

    @property
    def error(self) -> str | None:
        return self._error if self._loaded.is_set() else None

    def wait(self, timeout: float | None = None) -> bool:
        """True once loading has finished (loaded or failed)."""
        return self._loaded.wait(timeout)

    def embed(self, text: str) -> np.ndarray:
        if not self._loaded.is_set():
            raise EncoderNotReady(f"{self._what} is still loading")
        if self._encoder is None:
            raise EncoderError(self._error or f"{self._what} did not load")
        return self._encoder.embed(text)


def load_in_background(
    model: Path,
    tokenizer: Path,
    spec: EncoderSpec,
    threads: int = 1,
    before: Callable[[], None] | None = None,
) -> BackgroundEncoder:
    """An ONNX query encoder loading in the background. `before` runs first on the loading
    thread (e.g. the files' sha256 check); an EncoderError it raises is the load's failure."""
    model, tokenizer = Path(model), Path(tokenizer)

    def load(settle: Callable[[], None]) -> QueryEncoder:
        return OnnxQueryEncoder(model, tokenizer, spec, threads, settle)

    return BackgroundEncoder(load, "the ONNX query encoder", before)
