"""The `openai` embedding provider and query embedder against a local OpenAI-compatible server.

The stub (tests/openai_stub.py) is a real HTTP server; everything of ours runs for real.
Backoff is shortened through `EmbeddingOptions.extra` so retry tests take milliseconds.
"""

from __future__ import annotations

import email.message
import email.utils
import logging
import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import pytest
from docsmcp.common.logs import configure as configure_logs
from docsmcp.embeddings.embed import EmbeddingOptions, ProviderError
from docsmcp.embeddings.providers_openai import OpenAIProvider
from docsmcp_runtime.format import OpenAIOptions
from docsmcp_runtime.search.embedding import EmbeddingError, normalise
from docsmcp_runtime.search.openai_client import (
    DEFAULT_BASE_URL,
    OpenAIError,
    OpenAIQueryEmbedder,
    parse_retry_after,
    post_embeddings,
)
from openai_stub import Fault, OpenAIStub, stub_vector

KEY_ENV = "DOCSMCP_TEST_OPENAI_KEY"
KEY = "sk-test-123"
DIMS = 8
FAST_RETRIES = {"backoff_base": 0.01, "backoff_cap": 0.05, "timeout": 5.0}


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.delenv("DOCSMCP_EMBEDDING_BASE_URL", raising=False)
    monkeypatch.delenv("DOCSMCP_EMBEDDING_TIMEOUT", raising=False)
    with OpenAIStub(api_key=KEY) as server:
        yield server


@pytest.fixture(autouse=True)
def builder_logs() -> Iterator[None]:
    """The builder's stderr lines as the CLI shows them (after capsys swapped sys.stderr)."""
    configure_logs()
    yield
    logging.getLogger("docsmcp").handlers.clear()


def make_provider(stub: OpenAIStub, extra: dict | None = None, **options) -> OpenAIProvider:
    options.setdefault("dimensions", DIMS)
    return OpenAIProvider(
        EmbeddingOptions(
            provider="openai",
            base_url=stub.base_url,
            api_key_env=KEY_ENV,
            extra={**FAST_RETRIES, **(extra or {})},
            **options,
        )
    )


def expected(texts: list[str], dims: int = DIMS) -> np.ndarray:
    return normalise(np.stack([stub_vector(t, dims) for t in texts]))


def texts_and_ids(n: int) -> tuple[list[str], list[str]]:
    return [f"text number {i}" for i in range(n)], [f"doc.md#section-{i}" for i in range(n)]


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


# -- vectors, batching, concurrency --------------------------------------------------------


def test_vectors_come_back_in_input_order_even_when_shuffled(stub: OpenAIStub) -> None:
    texts, ids = texts_and_ids(5)
    stub.faults.append(Fault(shuffle=True))
    vectors = make_provider(stub).embed_documents(texts, ids)
    assert vectors.dtype == np.float32 and vectors.shape == (5, DIMS)
    np.testing.assert_allclose(vectors, expected(texts), atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    (request,) = stub.requests
    assert request.fault == Fault(shuffle=True)
    assert request.inputs == texts
    assert request.model == "text-embedding-3-small"
    assert request.dimensions == DIMS
    assert request.authorization == f"Bearer {KEY}"


def test_batches_of_batch_size(stub: OpenAIStub) -> None:
    texts, ids = texts_and_ids(10)
    vectors = make_provider(stub, batch_size=3, concurrency=2).embed_documents(texts, ids)
    np.testing.assert_allclose(vectors, expected(texts), atol=1e-6)
    assert sorted(len(r.inputs) for r in stub.requests) == [1, 3, 3, 3]
    assert sorted(t for r in stub.requests for t in r.inputs) == sorted(texts)


def test_batches_really_run_in_parallel(stub: OpenAIStub) -> None:
    stub.delay = 0.2
    texts, ids = texts_and_ids(8)
    provider = make_provider(stub, batch_size=1, concurrency=4)
    started = time.monotonic()
    vectors = provider.embed_documents(texts, ids)
    elapsed = time.monotonic() - started
    np.testing.assert_allclose(vectors, expected(texts), atol=1e-6)
    assert len(stub.requests) == 8
    assert stub.max_in_flight == 4
    assert 0.38 <= elapsed < 0.9, elapsed  # two waves of 0.2 s, not eight


# -- retries and failures ------------------------------------------------------------------


@pytest.mark.slow
def test_429_retry_after_is_honoured(stub: OpenAIStub) -> None:
    stub.faults.append(Fault(status=429, retry_after="1"))
    texts, ids = texts_and_ids(2)
    started = time.monotonic()
    vectors = make_provider(stub).embed_documents(texts, ids)
    assert time.monotonic() - started >= 1.0
    np.testing.assert_allclose(vectors, expected(texts), atol=1e-6)
    assert len(stub.requests) == 2
    assert stub.requests[1].arrived - stub.requests[0].arrived >= 1.0


def test_server_errors_are_retried_until_success(stub: OpenAIStub) -> None:
    stub.faults += [Fault(status=500), Fault(status=502), Fault(status=503)]
    texts, ids = texts_and_ids(3)
    vectors = make_provider(stub).embed_documents(texts, ids)
    np.testing.assert_allclose(vectors, expected(texts), atol=1e-6)
    assert len(stub.requests) == 4


def test_permanent_500_fails_naming_the_chunk_within_bounded_time(stub: OpenAIStub) -> None:
    stub.always = Fault(status=500)
    texts, ids = texts_and_ids(3)
    started = time.monotonic()
    with pytest.raises(ProviderError) as caught:
        make_provider(stub).embed_documents(texts, ids)
    assert time.monotonic() - started < 2.0
    message = str(caught.value)
    assert "doc.md#section-0" in message and "6 attempt" in message and "HTTP 500" in message
    assert len(stub.requests) == 6


def test_one_failing_batch_stops_the_others(stub: OpenAIStub) -> None:
    stub.always = Fault(status=503)
    texts, ids = texts_and_ids(40)
    provider = make_provider(stub, batch_size=1, concurrency=4, extra={"backoff_base": 0.2})
    started = time.monotonic()
    with pytest.raises(ProviderError, match="doc.md#section-"):
        provider.embed_documents(texts, ids)
    # 40 batches x 6 attempts would be 240 requests; the first fatal error cancels the rest.
    assert len(stub.requests) < 60
    assert time.monotonic() - started < 5.0


def test_timeouts_are_retried(stub: OpenAIStub) -> None:
    stub.faults.append(Fault(delay=2.0))
    texts, ids = texts_and_ids(2)
    started = time.monotonic()
    vectors = make_provider(stub, extra={"timeout": 0.3}).embed_documents(texts, ids)
    assert time.monotonic() - started < 1.5
    np.testing.assert_allclose(vectors, expected(texts), atol=1e-6)
    assert len(stub.requests) == 2


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        (Fault(malformed=True), "not JSON"),
        (Fault(drop_vector=True), "1 vectors for 2 inputs"),
        (Fault(status=400), "HTTP 400"),
    ],
)
def test_bad_answers_fail_at_once(stub: OpenAIStub, fault: Fault, message: str) -> None:
    stub.always = fault
    texts, ids = texts_and_ids(2)
    with pytest.raises(ProviderError, match=message) as caught:
        make_provider(stub).embed_documents(texts, ids)
    assert "doc.md#section-0" in str(caught.value)
    assert len(stub.requests) == 1  # not retryable: the same request would fail the same way


def test_wrong_api_key_is_reported_not_retried(stub: OpenAIStub, monkeypatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-wrong")
    with pytest.raises(ProviderError, match="HTTP 401.*Incorrect API key"):
        make_provider(stub).embed_documents(["a"], ["a.md#a"])


def test_wrong_dimensions_are_reported(stub: OpenAIStub) -> None:
    # The server answers with its native 1536 values where 8 were expected.
    with pytest.raises(OpenAIError, match="vector 0 has 1536 dimensions, expected 8"):
        post_embeddings(stub.base_url, KEY, "m", ["a"], None, 5.0, expect_dimensions=8)


def test_rate_limit_error_carries_status_and_retry_after(stub: OpenAIStub) -> None:
    stub.faults.append(Fault(status=429, retry_after="7"))
    with pytest.raises(OpenAIError) as caught:
        post_embeddings(stub.base_url, KEY, "m", ["a"], DIMS, 5.0)
    assert (caught.value.status, caught.value.retry_after, caught.value.retryable) == (429, 7, True)


def test_retry_after_as_http_date() -> None:
    headers = email.message.Message()
    headers["Retry-After"] = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 28 <= parse_retry_after(headers) <= 30
    headers.replace_header("Retry-After", email.utils.formatdate(time.time() - 30, usegmt=True))
    assert parse_retry_after(headers) == 0.0


# -- inputs, messages, configuration -------------------------------------------------------


def test_overlong_input_is_cut_with_one_warning_naming_the_chunk(stub: OpenAIStub, capsys) -> None:
    # A 10-token context: without tiktoken inputs are cut at 3 characters per token.
    provider = make_provider(stub, extra={"context_tokens": 10})
    long_text = "word " * 40
    provider.embed_documents(["short", long_text], ["a.md#short", "guide.md#long-one"])
    err = capsys.readouterr().err
    assert err.count("warning") == 1
    assert "guide.md#long-one" in err and "a.md#short" not in err
    assert stub.requests[0].inputs == ["short", long_text[:30]]


def test_cost_estimate_and_final_line(stub: OpenAIStub, capsys) -> None:
    texts, ids = texts_and_ids(3)
    make_provider(stub).embed_documents(texts, ids)
    err = capsys.readouterr().err
    assert "~12 tokens, est. < $0.01 with text-embedding-3-small" in err
    assert "embedded 3 chunks in 1 batches" in err
    assert err.index("est.") < err.index("embedded")


@pytest.mark.slow
def test_progress_at_most_once_a_second(stub: OpenAIStub, capsys) -> None:
    stub.delay = 0.6
    texts, ids = texts_and_ids(3)
    make_provider(stub, batch_size=1, concurrency=1).embed_documents(texts, ids)
    progress = [line for line in capsys.readouterr().err.splitlines() if "embedding " in line]
    assert progress == ["docsmcp: embedding 1/3 chunks (batch 1/3)"]


def test_missing_api_key_for_a_remote_url(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ProviderError, match="set OPENAI_API_KEY") as caught:
        OpenAIProvider(EmbeddingOptions(provider="openai", base_url="https://api.openai.com/v1"))
    assert "\n" not in str(caught.value)


def test_local_server_needs_no_key(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with OpenAIStub() as server:
        options = EmbeddingOptions(provider="openai", base_url=server.base_url, dimensions=DIMS)
        vectors = OpenAIProvider(options).embed_documents(["hi"], ["a.md#hi"])
        np.testing.assert_allclose(vectors, expected(["hi"]), atol=1e-6)
        assert server.requests[0].authorization is None


def test_model_table_and_dimensions(stub: OpenAIStub) -> None:
    default = make_provider(stub, dimensions=None)
    assert (default.model, default.dimensions, default.context_tokens) == (
        "text-embedding-3-small",
        1536,
        8191,
    )
    assert not default.send_dimensions  # the native size needs no parameter
    large = make_provider(stub, model="text-embedding-3-large", dimensions=256)
    assert (large.dimensions, large.send_dimensions) == (256, True)
    with pytest.raises(ProviderError, match="always gives 1536"):
        make_provider(stub, model="text-embedding-ada-002", dimensions=256)
    with pytest.raises(ProviderError, match="--embedding-dimensions"):
        make_provider(stub, model="nomic-embed-text", dimensions=None)
    local = make_provider(stub, model="nomic-embed-text", dimensions=768)
    assert (local.dimensions, local.send_dimensions) == (768, False)


def test_fingerprint_and_bundle_spec(stub: OpenAIStub) -> None:
    provider = make_provider(stub)
    moved = OpenAIProvider(
        EmbeddingOptions(
            provider="openai", base_url="http://localhost:1/v1", dimensions=DIMS, api_key_env="X"
        )
    )
    assert provider.fingerprint() == moved.fingerprint()
    assert provider.fingerprint() != make_provider(stub, dimensions=16).fingerprint()
    assert provider.bundle_spec().to_json() == {
        "base_url": stub.base_url,
        "model": "text-embedding-3-small",
        "dimensions": DIMS,
        "send_dimensions": True,
        "api_key_env": KEY_ENV,
    }
    assert KEY not in repr(provider.bundle_spec())
    assert provider.bundle_files() == {}


# -- query side ----------------------------------------------------------------------------


def query_spec(stub: OpenAIStub) -> OpenAIOptions:
    """metadata.json's `embedding.options` as the builder writes them."""
    return make_provider(stub).bundle_spec()


def test_query_vector_matches_the_documents_vector(stub: OpenAIStub) -> None:
    document = make_provider(stub).embed_documents(["retry with backoff"], ["a.md#r"])[0]
    query = OpenAIQueryEmbedder(query_spec(stub)).embed("retry with backoff")
    assert query.dtype == np.float32 and query.shape == (DIMS,)
    np.testing.assert_array_equal(query, document)
    assert stub.requests[-1].dimensions == DIMS


def test_query_vectors_are_cached(stub: OpenAIStub) -> None:
    embedder = OpenAIQueryEmbedder(query_spec(stub))
    first = embedder.embed("links upsert")
    assert len(stub.requests) == 1
    again = embedder.embed("links upsert")
    assert len(stub.requests) == 1
    np.testing.assert_array_equal(first, again)
    embedder.embed("something else")
    assert len(stub.requests) == 2


@pytest.mark.slow
def test_query_cache_is_thread_safe_and_bounded(stub: OpenAIStub) -> None:
    embedder = OpenAIQueryEmbedder(query_spec(stub))
    queries = [f"query {i % 300}" for i in range(600)]
    with ThreadPoolExecutor(8) as pool:
        vectors = list(pool.map(embedder.embed, queries))
    np.testing.assert_allclose(np.stack(vectors), expected(queries), atol=1e-6)
    requests = len(stub.requests)
    embedder.embed("query 299")  # recent: cached
    assert len(stub.requests) == requests
    embedder.embed("query 0")  # long evicted (256 entries)
    assert len(stub.requests) == requests + 1


def test_query_fails_fast_when_server_is_down(stub: OpenAIStub) -> None:
    spec = replace(query_spec(stub), base_url=closed_port_url())
    started = time.monotonic()
    with pytest.raises(EmbeddingError, match="connection failed"):
        OpenAIQueryEmbedder(spec).embed("anything")
    assert time.monotonic() - started < 1.0


def test_query_times_out_without_retrying(stub: OpenAIStub, monkeypatch) -> None:
    monkeypatch.setenv("DOCSMCP_EMBEDDING_TIMEOUT", "0.3")
    stub.always = Fault(delay=3.0)
    started = time.monotonic()
    with pytest.raises(EmbeddingError, match="timed out"):
        OpenAIQueryEmbedder(query_spec(stub)).embed("anything")
    assert time.monotonic() - started < 1.5
    assert len(stub.requests) == 1  # no retry at query time


def test_query_base_url_from_environment(stub: OpenAIStub, monkeypatch) -> None:
    spec = replace(query_spec(stub), base_url=closed_port_url())
    monkeypatch.setenv("DOCSMCP_EMBEDDING_BASE_URL", stub.base_url)
    vector = OpenAIQueryEmbedder(spec).embed("hello")
    np.testing.assert_allclose(vector, expected(["hello"])[0], atol=1e-6)


def test_query_embedder_needs_a_key_for_a_remote_url(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("DOCSMCP_EMBEDDING_BASE_URL", raising=False)
    spec = OpenAIOptions(DEFAULT_BASE_URL, "text-embedding-3-small", 1536)
    with pytest.raises(EmbeddingError, match="OPENAI_API_KEY is not set"):
        OpenAIQueryEmbedder(spec)
