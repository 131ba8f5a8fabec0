"""A local OpenAI-compatible `/v1/embeddings` (and `/v1/chat/completions`) server for tests
(this machine has no internet).

Real HTTP on 127.0.0.1 in a background thread. The vector of an input is a pseudo-random vector
seeded by the input's hash, so identical inputs always get identical vectors. Faults are
scripted: each request takes the next fault from `faults` (then `always`, if set):

    with OpenAIStub(api_key="k") as stub:
        stub.faults += [Fault(status=429, retry_after="1"), Fault(shuffle=True)]
        ... point a client at stub.base_url ...
        assert stub.requests[0].inputs == [...]

Chat completions (the reranker's protocol) answer with `chat(messages)`, by default the numbered
candidates (`[N] ...` lines of the last message) in reverse order as `{"ranking": [...]}`; the
same faults apply, and `chats` records each request's messages.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np


class _Server(ThreadingHTTPServer):
    # Tests open more concurrent connections than the default backlog of 5.
    request_queue_size = 64


@dataclass(frozen=True)
class Fault:
    status: int | None = None  # answer with this HTTP status and an OpenAI-style error body
    retry_after: str | None = None  # `Retry-After` header sent with `status`
    delay: float = 0.0  # sleep before answering (longer than a client's timeout: a timeout)
    shuffle: bool = False  # reverse the order of `data` (indexes stay correct)
    malformed: bool = False  # a body that is not JSON
    drop_vector: bool = False  # one vector fewer than inputs


@dataclass
class Request:
    inputs: list[str]
    model: str
    dimensions: int | None
    authorization: str | None
    arrived: float  # time.monotonic() when the request came in
    fault: Fault | None


def stub_vector(text: str, dimensions: int) -> np.ndarray:
    """The stub's (unnormalised) vector for `text`: deterministic, distinct per text."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    return np.random.default_rng(seed).standard_normal(dimensions) * 3.0


@dataclass
class OpenAIStub:
    api_key: str | None = None  # when set, requests need `Authorization: Bearer <api_key>`
    dimensions: int = 1536  # when the request has no `dimensions`
    delay: float = 0.0  # added to every response (to observe concurrency)
    faults: list[Fault] = field(default_factory=list)
    always: Fault | None = None
    requests: list[Request] = field(default_factory=list)
    max_in_flight: int = 0
    # Embed a text as if it were another one: scripted "meaning", e.g. a paraphrase that
    # shares no word with the section it should find.
    same_as: dict[str, str] = field(default_factory=dict)
    port: int = 0  # 0: a free port (see base_url); a fixed one for commands that name it
    # The assistant's reply to a chat request (its messages); default: reverse_ranking.
    chat: Callable[[list[dict]], str] | None = None
    chats: list[list[dict]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._in_flight = 0
        self._closing = threading.Event()  # cuts sleeps short when the stub shuts down
        self._server = _Server(("127.0.0.1", self.port), _handler_for(self))
        self._server.daemon_threads = True
        # A short poll interval makes shutdown() (every test's teardown) quick.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> OpenAIStub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- called by the handler threads -----------------------------------------------------

    def _begin(self) -> Fault | None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            return self.faults.pop(0) if self.faults else self.always

    def _end(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _answer(self, headers, body: bytes) -> tuple[int, dict[str, str], bytes]:
        fault = self._begin()
        try:
            return self._respond(headers, body, fault)
        finally:
            self._end()

    def _answer_chat(self, body: bytes) -> tuple[int, dict[str, str], bytes]:
        fault = self._begin()
        try:
            try:
                messages = json.loads(body)["messages"]
                assert isinstance(messages, list) and messages
            except (ValueError, KeyError, TypeError, AssertionError):
                return _error(400, "'messages' must be a non-empty list.")
            with self._lock:
                self.chats.append(messages)
            if self.delay or (fault and fault.delay):
                self._closing.wait(self.delay + (fault.delay if fault else 0.0))
            if fault and fault.status:
                return _error(fault.status, f"scripted {fault.status}")
            if fault and fault.malformed:
                return 200, {}, b'{"choices": [ this is not json'
            content = (self.chat or reverse_ranking)(messages)
            reply = {
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
            }
            return 200, {}, json.dumps(reply).encode()
        finally:
            self._end()

    def _respond(self, headers, body: bytes, fault: Fault | None):
        if self.api_key and headers.get("Authorization") != f"Bearer {self.api_key}":
            return _error(401, "Incorrect API key provided.")
        try:
            payload = json.loads(body)
            inputs = payload["input"]
            inputs = [inputs] if isinstance(inputs, str) else inputs
            model = payload["model"]
            dims = payload.get("dimensions")
            assert isinstance(inputs, list) and inputs
            assert all(isinstance(text, str) and text for text in inputs)
        except (ValueError, KeyError, TypeError, AssertionError):
            return _error(400, "'input' must be a non-empty string or list of strings.")
        with self._lock:  # recorded on arrival, so requests that time out are counted too
            self.requests.append(
                Request(inputs, model, dims, headers.get("Authorization"), time.monotonic(), fault)
            )
        if self.delay or (fault and fault.delay):
            self._closing.wait(self.delay + (fault.delay if fault else 0.0))
        if fault and fault.status:
            extra = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            return _error(fault.status, f"scripted {fault.status}", extra)
        if fault and fault.malformed:
            return 200, {}, b'{"data": [ this is not json'
        data = [
            {
                "object": "embedding",
                "index": i,
                "embedding": stub_vector(
                    self.same_as.get(text, text), dims or self.dimensions
                ).tolist(),
            }
            for i, text in enumerate(inputs)
        ]
        if fault and fault.shuffle:
            random.Random(len(data)).shuffle(data)
            if len(data) > 1 and data[0]["index"] == 0:
                data.reverse()  # never "shuffled" into the original order
        if fault and fault.drop_vector:
            data.pop()
        document = {"object": "list", "data": data, "model": model, "usage": {}}
        return 200, {}, json.dumps(document).encode()


def reverse_ranking(messages: list[dict]) -> str:
    """The candidates numbered in the last message, last first: an order no search makes."""
    numbers = [int(n) for n in re.findall(r"^\[(\d+)\]", messages[-1]["content"], re.M)]
    return json.dumps({"ranking": numbers[::-1]})


def _error(status: int, message: str, headers: dict[str, str] | None = None):
    body = {"error": {"message": message, "type": "stub_error", "code": status}}
    return status, headers or {}, json.dumps(body).encode()


def _handler_for(stub: OpenAIStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            route = self.path.rstrip("/")
            if route == "/v1/embeddings":
                status, headers, payload = stub._answer(self.headers, body)
            elif route == "/v1/chat/completions":
                status, headers, payload = stub._answer_chat(body)
            else:
                status, headers, payload = _error(404, f"no route {self.path}")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
            except OSError:
                pass  # the client gave up (timed out) before the answer

        def log_message(self, format: str, *args: object) -> None:
            pass  # keep test output clean

    return Handler
