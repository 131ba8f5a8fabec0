"""A minimal client for OpenAI-compatible `/embeddings` endpoints, and the query-side embedder.

Standard library only: the runtime must stay installable with numpy + pyarrow, and the builder
reuses `post_embeddings` so both sides speak to the API (and read its errors) the same way.
"""

from __future__ import annotations

import email.utils
import http.client
import ipaddress
import json
import math
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..format import Embedding, OpenAIOptions
from .embedding import EmbeddingError, normalise

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_API_KEY_ENV = OpenAIOptions.api_key_env
BASE_URL_ENV = "DOCSMCP_EMBEDDING_BASE_URL"
TIMEOUT_ENV = "DOCSMCP_EMBEDDING_TIMEOUT"
QUERY_TIMEOUT = 2.0
QUERY_CACHE_SIZE = 256
_ERROR_BODY_CHARS = 300  # enough for the API's error message, not a whole HTML error page


class OpenAIError(EmbeddingError):
    """An embeddings request failed.

    `retryable` is true for rate limits, server errors, timeouts and connection errors: the same
    request may succeed later. `retry_after` is the server's requested wait in seconds, if any.
    Subclassing EmbeddingError lets the runtime treat it like any other query-embedding failure.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        self.retryable = retryable


def is_local_url(url: str) -> bool:
    """True for loopback and private-network hosts (a local server usually needs no key)."""
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def parse_retry_after(headers: http.client.HTTPMessage | None) -> float | None:
    """Seconds to wait from `retry-after-ms` / `Retry-After` (seconds or an HTTP-date)."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = (headers.get("Retry-After") or "").strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _opener(url: str) -> urllib.request.OpenerDirector:
    # A local server is reached directly even when http(s)_proxy is set for the internet.
    if is_local_url(url):
        return urllib.request.build_opener(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener()


def _api_message(body: bytes) -> str:
    """The `error.message` of an OpenAI-style error body, else the start of the body."""
    text = body.decode("utf-8", "replace")
    try:
        message = json.loads(text)["error"]["message"]
        if isinstance(message, str):
            return message
    except (ValueError, KeyError, TypeError):
        pass
    return " ".join(text.split())[:_ERROR_BODY_CHARS] or "(empty body)"


def post_embeddings(
    base_url: str,
    api_key: str | None,
    model: str,
    inputs: list[str],
    dimensions: int | None,
    timeout: float,
    *,
    expect_dimensions: int | None = None,
) -> list[list[float]]:
    """Embed `inputs` with one POST to `{base_url}/embeddings`; vectors come back in input order.

    `dimensions` is sent to the API (only v3-style models accept it); every vector must have
    `expect_dimensions` values (default: `dimensions`; if both are None, all must agree).
    `timeout` bounds each socket operation (connect, each read), as urllib does.
    Raises OpenAIError.
    """
    url = base_url.rstrip("/") + "/embeddings"
    payload: dict = {"model": model, "input": inputs, "encoding_format": "float"}
    if dimensions is not None:
        payload["dimensions"] = dimensions
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), headers=headers, method="POST"
    )
    try:
        with _opener(url).open(request, timeout=timeout) as response:
            body = response.read()
    except urllib.error.HTTPError as err:
        try:
            detail = _api_message(err.read())
        except (OSError, http.client.HTTPException):
            detail = "(unreadable body)"
        status = err.code
        raise OpenAIError(
            f"HTTP {status} from {url}: {detail}",
            status=status,
            retry_after=parse_retry_after(err.headers),
            retryable=status in (408, 409, 429) or status >= 500,
        ) from err
    except urllib.error.URLError as err:
        reason = err.reason
        kind = "timed out" if isinstance(reason, TimeoutError) else "connection failed"
        raise OpenAIError(f"{kind}: {url}: {reason}", retryable=True) from err
    except TimeoutError as err:  # raised by reads after the connection was made
        raise OpenAIError(f"timed out after {timeout:g} s: {url}", retryable=True) from err
    except (OSError, http.client.HTTPException) as err:  # reset, remote closed, bad status line
        raise OpenAIError(f"connection failed: {url}: {err!r}", retryable=True) from err
    return _parse_vectors(body, len(inputs), expect_dimensions or dimensions, url)


def _parse_vectors(body: bytes, count: int, dimensions: int | None, url: str) -> list[list[float]]:
    def malformed(why: str) -> OpenAIError:
        return OpenAIError(f"malformed embeddings response from {url}: {why}")

    try:
        document = json.loads(body)
    except ValueError as err:
        raise malformed(f"not JSON ({err}): {body[:80]!r}") from err
    data = document.get("data") if isinstance(document, dict) else None
    if not isinstance(data, list):
        raise malformed("no `data` list")
    if len(data) != count:
        raise malformed(f"{len(data)} vectors for {count} inputs")
    # The API tags each vector with the position of its input; order in `data` is not promised.
    by_index: dict[int, list[float]] = {}
    for item in data:
        index = item.get("index") if isinstance(item, dict) else None
        vector = item.get("embedding") if isinstance(item, dict) else None
        if not isinstance(index, int) or not 0 <= index < count or index in by_index:
            raise malformed(f"bad or repeated `index` {index!r}")
        if not isinstance(vector, list) or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for x in vector
        ):
            raise malformed(f"`embedding` {index} is not a list of numbers")
        by_index[index] = vector
    vectors = [by_index[i] for i in range(count)]
    expected = dimensions if dimensions is not None else len(vectors[0]) if vectors else 0
    for i, vector in enumerate(vectors):
        if len(vector) != expected:
            raise malformed(f"vector {i} has {len(vector)} dimensions, expected {expected}")
    return vectors


class OpenAIQueryEmbedder:
    """Embeds search queries like the builder embedded chunks, for bundles built with `openai`.

    No retries: a query waits at most the timeout, then search falls back to full-text.
    """

    def __init__(self, options: OpenAIOptions, environ: Mapping[str, str] | None = None) -> None:
        """`options`: the bundle's `embedding.options` (endpoint, model, dimensions)."""
        env = os.environ if environ is None else environ
        self.model = options.model
        self.dimensions = options.dimensions
        self.base_url = env.get(BASE_URL_ENV) or options.base_url or DEFAULT_BASE_URL
        # Only models that accept `dimensions` get it, exactly as the builder sent it.
        self.send_dimensions = options.send_dimensions
        key_env = options.api_key_env or DEFAULT_API_KEY_ENV
        self.api_key = env.get(key_env) or None
        if self.api_key is None and not is_local_url(self.base_url):
            raise EmbeddingError(
                f"{key_env} is not set: semantic search needs it to embed queries with "
                f"{self.model} at {self.base_url}"
            )
        try:
            self.timeout = float(env.get(TIMEOUT_ENV) or QUERY_TIMEOUT)
        except ValueError as err:
            raise EmbeddingError(f"{TIMEOUT_ENV} must be a number of seconds") from err
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, text: str) -> np.ndarray:
        with self._lock:
            cached = self._cache.get(text)
            if cached is not None:
                self._cache.move_to_end(text)
                return cached
        # The request runs outside the lock so one slow query does not hold up the others.
        try:
            (vector,) = post_embeddings(
                self.base_url,
                self.api_key,
                self.model,
                [text or " "],  # the API rejects empty input
                self.dimensions if self.send_dimensions else None,
                self.timeout,
                expect_dimensions=self.dimensions,
            )
            result = normalise(np.asarray(vector, dtype=np.float32))
        except EmbeddingError:
            raise
        except Exception as err:  # any surprise must degrade search, not crash it
            raise EmbeddingError(f"query embedding failed: {err!r}") from err
        if not np.all(np.isfinite(result)):
            raise EmbeddingError(f"query embedding from {self.base_url} has non-finite values")
        result.setflags(write=False)  # shared through the cache
        with self._lock:
            self._cache[text] = result
            self._cache.move_to_end(text)
            while len(self._cache) > QUERY_CACHE_SIZE:
                self._cache.popitem(last=False)
        return result


def openai_embedder(spec: Embedding, bundle_dir: Path) -> OpenAIQueryEmbedder:
    """The query embedder of a bundle built with the `openai` provider."""
    assert isinstance(spec.options, OpenAIOptions)
    return OpenAIQueryEmbedder(spec.options)
