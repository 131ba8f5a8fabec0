"""Optional reranking of search_docs candidates by an OpenAI-compatible chat endpoint (issue 16,
direction 5): the top `depth` fused candidates (heading trail + the start of each section) go to
the model in one request, which answers with their numbers, best first; the page is cut from that
order. Off unless `docsmcp-runtime --rerank-url` names an endpoint.

Failing is never an error: a timeout, an HTTP error or a reply that names no candidate keeps the
fused order and the result says so in a note. Rankings are cached by (query, filters, candidates)
so the pages of one search agree and repeated queries cost nothing. Standard library only.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
from collections import OrderedDict
from dataclasses import replace

from ..records import record

log = logging.getLogger(__name__)

DEFAULT_DEPTH = 30
MAX_DEPTH = 50
DEFAULT_TIMEOUT = 5.0
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
CACHE_SIZE = 512
# Characters of a section shown to the model: enough to judge it, small enough that 50
# candidates stay well inside a small model's context.
CANDIDATE_CHARS = 600
SYSTEM_PROMPT = (
    "You rank sections of software documentation for a developer's search query. "
    'Reply with JSON only, of the form {"ranking": [3, 1, 2]}: the numbers of the sections '
    "that help answer the query, most useful first. Leave out sections that do not help."
)
_NUMBER = re.compile(r"\d+")


@record
class RerankOptions:
    base_url: str  # e.g. http://localhost:8080/v1
    model: str = "gpt-4o-mini"
    api_key_env: str = DEFAULT_API_KEY_ENV
    depth: int = DEFAULT_DEPTH  # candidates sent (the fused top)
    timeout: float = DEFAULT_TIMEOUT  # seconds for the whole request


@record
class Candidate:
    row: int
    title: str  # the heading trail
    text: str


class RerankError(Exception):
    """The endpoint could not rank (message goes into the result's note)."""


def prompt(query: str, candidates: list[Candidate]) -> str:
    parts = [f"Query: {query}", "", "Sections:"]
    for i, c in enumerate(candidates, 1):
        body = " ".join(c.text.split())[:CANDIDATE_CHARS]
        parts.append(f"[{i}] {c.title}\n{body}\n")
    return "\n".join(parts)


def parse_ranking(content: str, count: int) -> list[int]:
    """0-based candidate positions named by the reply, best first, each once. The JSON form
    is preferred; a reply that wraps it in prose or fences is searched for its list."""
    numbers: list = []
    match = re.search(r"\{.*\}", content, re.S)
    if match:
        try:
            value = json.loads(match.group(0)).get("ranking")
            if isinstance(value, list):
                numbers = value
        except (ValueError, AttributeError):
            numbers = []
    if not numbers:
        bracket = re.search(r"\[([\d\s,]*)\]", content)
        numbers = _NUMBER.findall(bracket.group(1)) if bracket else []
    order: list[int] = []
    for n in numbers:
        try:
            i = int(n) - 1
        except (TypeError, ValueError):
            continue
        if 0 <= i < count and i not in order:
            order.append(i)
    if not order:
        raise RerankError("the reply named no candidate")
    return order


class ChatReranker:
    def __init__(self, options: RerankOptions) -> None:
        self.options = options
        self.depth = max(1, min(MAX_DEPTH, options.depth))
        self._cache: OrderedDict[str, list[int]] = OrderedDict()
        self._lock = threading.Lock()

    def _post(self, query: str, candidates: list[Candidate]) -> str:
        # Imported on the first rerank: the HTTP stack (urllib, http.client, email, ssl) is
        # ~10 % of the runtime's cold start and most servers never rerank.
        import urllib.error
        import urllib.request

        from .openai_client import _api_message, _opener

        o = self.options
        url = o.base_url.rstrip("/") + "/chat/completions"
        payload = {
            "model": o.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": prompt(query, candidates)},
            ],
        }
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(o.api_key_env)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        request = urllib.request.Request(
            url, data=json.dumps(payload).encode(), headers=headers, method="POST"
        )
        try:
            with _opener(url).open(request, timeout=o.timeout) as response:
                body = response.read()
        except urllib.error.HTTPError as err:
            try:
                detail = _api_message(err.read())
            except OSError:
                detail = "(unreadable body)"
            raise RerankError(f"HTTP {err.code}: {detail}") from None
        except urllib.error.URLError as err:
            raise RerankError(f"{url}: {err.reason}") from None
        except (TimeoutError, OSError) as err:
            raise RerankError(f"{url}: {err!r}") from None
        try:
            return json.loads(body)["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise RerankError("malformed chat completion") from None

    def rerank(self, query: str, filters: dict, candidates: list[Candidate]) -> list[int]:
        """Rows of `candidates` in the model's order (unnamed ones after, in their order).
        Raises RerankError; the caller keeps its order then."""
        key = hashlib.sha256(
            json.dumps([query, sorted(filters.items()), [c.row for c in candidates]]).encode()
        ).hexdigest()
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        order = parse_ranking(self._post(query, candidates), len(candidates))
        rest = [i for i in range(len(candidates)) if i not in order]
        rows = [candidates[i].row for i in order + rest]
        with self._lock:
            self._cache[key] = rows
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return rows


def reranked_page(reranker, bundle, query: str, filters: dict, page, offset: int, limit: int):
    """`page` (a search.Page from rank 0, at least `reranker.depth` deep when there are that many)
    with its top reordered by the model, cut to [offset, offset + limit). A failed rerank keeps
    the fused order and adds a note."""
    top = page.rows[: reranker.depth]
    notes = list(page.notes)
    rows, scores, also = list(page.rows), list(page.scores), list(page.also_in)
    if len(top) > 1:
        candidates = [
            Candidate(r, bundle.cell(r, "breadcrumb") or bundle.cell(r, "path"), bundle.text(r))
            for r in top
        ]
        try:
            order = reranker.rerank(query, filters, candidates)
        except RerankError as exc:
            log.warning("rerank failed, fused order kept: %s", exc)
            notes.append(f"Reranking was skipped ({exc}); hits are in search order.")
        else:
            position = {r: i for i, r in enumerate(rows)}
            moved = [position[r] for r in order]
            rows[: len(top)] = [rows[i] for i in moved]
            scores[: len(top)] = [scores[i] for i in moved]
            if also:
                also[: len(top)] = [also[i] for i in moved]
    end = offset + limit
    return replace(
        page,
        rows=rows[offset:end],
        scores=scores[offset:end],
        also_in=also[offset:end] if also else also,
        notes=notes,
        reached_by={r: p for r, p in page.reached_by.items() if r in rows[offset:end]},
    )
