"""The `openai` embedding provider: OpenAI or any OpenAI-compatible `/embeddings` endpoint.

Batches go out in parallel (the API is latency-bound, not CPU-bound), each retried on rate limits
and transient failures, so a corpus of tens of thousands of chunks embeds in minutes.
"""

from __future__ import annotations

import logging
import math
import os
import random
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import numpy as np
from docsmcp_runtime.format import OpenAIOptions
from docsmcp_runtime.search.embedding import normalise
from docsmcp_runtime.search.openai_client import (
    DEFAULT_BASE_URL,
    OpenAIError,
    is_local_url,
    post_embeddings,
)

from docsmcp.embeddings.embed import EmbeddingOptions, ProviderError, fingerprint_of, warn

DEFAULT_MODEL = "text-embedding-3-small"
DEFAULT_CONTEXT_TOKENS = 8191  # for models not in the table; override with extra["context_tokens"]
MAX_RETRY_AFTER = 300.0  # a bogus Retry-After must not stall a build for hours
PROGRESS_INTERVAL = 1.0

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModelInfo:
    dimensions: int  # native vector size
    context_tokens: int
    usd_per_million_tokens: float
    flexible_dimensions: bool  # accepts the `dimensions` request parameter (v3 models)


KNOWN_MODELS = {
    "text-embedding-3-small": ModelInfo(1536, 8191, 0.02, True),
    "text-embedding-3-large": ModelInfo(3072, 8191, 0.13, True),
    "text-embedding-ada-002": ModelInfo(1536, 8191, 0.10, False),
}


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    backoff_base: float = 0.5
    backoff_cap: float = 20.0
    timeout: float = 60.0  # per socket operation of one request

    def backoff(self, attempt: int) -> float:
        """Full jitter: uniform in [0, min(cap, base * 2^(attempt-1))], spreading out retries."""
        return random.uniform(0.0, min(self.backoff_cap, self.backoff_base * 2 ** (attempt - 1)))


def _estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def _load_tokenizer(model: str) -> Any:
    """tiktoken's encoding for the model when it is installed and its data is at hand, else None.

    Optional on purpose: it is a heavy dependency and downloads its tables on first use.
    """
    try:
        import tiktoken  # type: ignore[import-not-found]

        try:
            return tiktoken.encoding_for_model(model)
        except KeyError:
            return tiktoken.get_encoding("cl100k_base")
    except Exception:  # not installed, or no network to fetch the encoding
        return None


class OpenAIProvider:
    name = "openai"

    def __init__(self, options: EmbeddingOptions) -> None:
        extra = options.extra or {}
        self.model = options.model or DEFAULT_MODEL
        self.base_url = (options.base_url or DEFAULT_BASE_URL).rstrip("/")
        self.api_key_env = options.api_key_env or OpenAIOptions.api_key_env
        info = KNOWN_MODELS.get(self.model)
        self.price = info.usd_per_million_tokens if info else None
        self.context_tokens = int(
            extra.get("context_tokens") or (info.context_tokens if info else DEFAULT_CONTEXT_TOKENS)
        )
        self.dimensions, self.send_dimensions = self._dimensions(options, info, extra)
        self.batch_size = max(1, options.batch_size)
        self.concurrency = max(1, options.concurrency)
        self.retry = RetryPolicy(
            max_attempts=int(extra.get("max_attempts", RetryPolicy.max_attempts)),
            backoff_base=float(extra.get("backoff_base", RetryPolicy.backoff_base)),
            backoff_cap=float(extra.get("backoff_cap", RetryPolicy.backoff_cap)),
            timeout=float(extra.get("timeout", RetryPolicy.timeout)),
        )
        self.api_key = os.environ.get(self.api_key_env) or None
        if self.api_key is None and not is_local_url(self.base_url):
            raise ProviderError(
                f"embedding provider openai needs an API key: set {self.api_key_env} "
                f"(or point --embedding-base-url at a local server) to use {self.base_url}"
            )
        self._tokenizer = _load_tokenizer(self.model)

    def _dimensions(
        self, options: EmbeddingOptions, info: ModelInfo | None, extra: dict
    ) -> tuple[int, bool]:
        """(vector size, whether to send it to the API)."""
        wanted = options.dimensions
        if info is None:
            if wanted is None:
                raise ProviderError(
                    f"unknown embedding model {self.model!r}: pass --embedding-dimensions "
                    "with the size of its vectors"
                )
            # Compatible servers often reject `dimensions` for fixed-size models; opt in.
            return wanted, bool(extra.get("send_dimensions", False))
        if wanted is None or wanted == info.dimensions:
            return info.dimensions, wanted is not None and info.flexible_dimensions
        if not info.flexible_dimensions:
            raise ProviderError(
                f"{self.model} always gives {info.dimensions}-dimensional vectors; "
                "drop --embedding-dimensions or use a text-embedding-3 model"
            )
        if not 1 <= wanted <= info.dimensions:
            raise ProviderError(
                f"--embedding-dimensions for {self.model} must be between 1 and {info.dimensions}"
            )
        return wanted, True

    # -- the provider interface ------------------------------------------------------------

    def fingerprint(self) -> str:
        # The base URL is left out: mirrors and proxies of one API give the same vectors.
        return fingerprint_of(
            {"provider": "openai", "model": self.model, "dimensions": self.dimensions, "v": 1}
        )

    def bundle_spec(self) -> OpenAIOptions:
        return OpenAIOptions(
            base_url=self.base_url,
            model=self.model,
            dimensions=self.dimensions,
            send_dimensions=self.send_dimensions,
            api_key_env=self.api_key_env,
        )

    def bundle_files(self) -> dict[str, bytes]:
        return {}

    def embed_documents(self, texts: list[str], ids: list[str]) -> np.ndarray:
        inputs = [self._fit(text, chunk_id) for text, chunk_id in zip(texts, ids, strict=True)]
        out = np.zeros((len(inputs), self.dimensions), dtype=np.float32)
        if not inputs:
            return out
        self._say(self._cost_line(inputs))
        starts = list(range(0, len(inputs), self.batch_size))
        stop = threading.Event()  # set on a fatal error so other workers quit their backoff
        started = time.monotonic()
        last_report = started
        done_chunks = 0
        with ThreadPoolExecutor(self.concurrency, thread_name_prefix="docsmcp-embed") as pool:
            futures = {
                pool.submit(
                    self._embed_batch,
                    inputs[s : s + self.batch_size],
                    ids[s : s + self.batch_size],
                    stop,
                ): s
                for s in starts
            }
            pending = set(futures)
            try:
                while pending:
                    finished, pending = wait(
                        pending, timeout=PROGRESS_INTERVAL, return_when=FIRST_EXCEPTION
                    )
                    for future in finished:
                        vectors = future.result()  # re-raises the batch's ProviderError
                        start = futures[future]
                        out[start : start + len(vectors)] = vectors
                        done_chunks += len(vectors)
                    now = time.monotonic()
                    if pending and now - last_report >= PROGRESS_INTERVAL:
                        last_report = now
                        batches_done = len(starts) - len(pending)
                        self._say(
                            f"embedding {done_chunks}/{len(inputs)} chunks "
                            f"(batch {batches_done}/{len(starts)})"
                        )
            except BaseException:
                stop.set()
                for future in pending:
                    future.cancel()
                raise
        self._say(
            f"embedded {len(inputs)} chunks in {len(starts)} batches "
            f"({time.monotonic() - started:.1f} s)"
        )
        return out

    # -- helpers ---------------------------------------------------------------------------

    def _embed_batch(self, texts: list[str], ids: list[str], stop: threading.Event) -> np.ndarray:
        for attempt in range(1, self.retry.max_attempts + 1):
            if stop.is_set():
                raise ProviderError("embedding stopped after another batch failed")
            try:
                vectors = post_embeddings(
                    self.base_url,
                    self.api_key,
                    self.model,
                    texts,
                    self.dimensions if self.send_dimensions else None,
                    self.retry.timeout,
                    expect_dimensions=self.dimensions,
                )
            except OpenAIError as err:
                if not err.retryable or attempt == self.retry.max_attempts:
                    raise ProviderError(
                        f"embedding the batch starting at chunk {ids[0]!r} failed after "
                        f"{attempt} attempt(s): {err}"
                    ) from err
                delay = (
                    min(err.retry_after, MAX_RETRY_AFTER)
                    if err.retry_after is not None
                    else self.retry.backoff(attempt)
                )
                stop.wait(delay)
                continue
            matrix = np.asarray(vectors, dtype=np.float32)
            if not np.all(np.isfinite(matrix)):
                raise ProviderError(
                    f"the batch starting at chunk {ids[0]!r} came back with non-finite values"
                )
            return normalise(matrix)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _fit(self, text: str, chunk_id: str) -> str:
        """The input cut to the model's context window, with one warning when it had to be cut."""
        if not text:
            return " "  # the API rejects empty strings
        if self._tokenizer is not None:
            tokens = self._tokenizer.encode(text, disallowed_special=())
            if len(tokens) <= self.context_tokens:
                return text
            cut = self._tokenizer.decode(tokens[: self.context_tokens])
        else:
            # Without a tokenizer, cut at 3 characters per token rather than the usual ~4: code
            # and non-English text run denser, and an over-long input fails the whole batch.
            limit = self.context_tokens * 3
            if len(text) <= limit:
                return text
            cut = text[:limit]
        warn(
            f"chunk {chunk_id} is longer than the {self.context_tokens}-token context of "
            f"{self.model}; only its first {len(cut)} of {len(text)} characters are embedded"
        )
        return cut

    def _count_tokens(self, text: str) -> int:
        if self._tokenizer is not None:
            return len(self._tokenizer.encode(text, disallowed_special=()))
        return _estimate_tokens(text)

    def _cost_line(self, inputs: list[str]) -> str:
        tokens = sum(self._count_tokens(text) for text in inputs)
        if tokens >= 1_000_000:
            amount = f"~{tokens / 1_000_000:.1f}M tokens"
        elif tokens >= 1_000:
            amount = f"~{tokens / 1_000:.1f}k tokens"
        else:
            amount = f"~{tokens} tokens"
        if self.price is None:
            return f"{amount} to embed with {self.model} (price unknown)"
        cost = tokens / 1_000_000 * self.price
        price = "< $0.01" if cost < 0.005 else f"${cost:.2f}"
        return f"{amount}, est. {price} with {self.model}"

    def _say(self, line: str) -> None:
        log.info("%s", line)
