"""The ranking's shortcuts give the ranking of the plain computation, bit for bit
(search/engine.py `Searcher._best` and `boost_factor`, intent.holds_any's regex prefilters):
a search ranks on speakeasy-sdks exactly as gathering every candidate's score, facet codes and
role weights did, whatever the filters, limit or named values."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.search import intent, roles
from docsmcp_runtime.search.engine import Searcher
from docsmcp_runtime.search.roles import weigh
from hypothesis import given, settings
from hypothesis import strategies as st

QUERIES = [
    "links.createMany",
    "RateLimitExceeded",
    "create_many",
    "chat.complete",
    "how to paginate results",
    "retry with exponential backoff",
    "use a custom HTTP client",
    "authenticate with an API key",
    "create a short link with a custom domain",
    "Dub python: fetch a customer using the ID",
    "Mistral TypeScript client: set exponential backoff for retries",
    "errors.RateLimitExceeded dub typescript",
    "what changed in the v2 release notes",
    "migrate from v1 to v2",
    "blog announcement of the SDK",
    "upload a file for fine-tuning",
    "ocr.process",
]
FILTERS = [{}, {"language": "python"}, {"product": "dub"}, {"language": "go", "product": "dub"}]


def _plain_boost(searcher: Searcher, named, rows: np.ndarray) -> np.ndarray:
    """boost_factor as np.where computed it."""
    factor = np.ones(len(rows), dtype=np.float32)
    boost, one = np.float32(1.0 + searcher.name_boost), np.float32(1.0)
    for key in dict.fromkeys(n.key for n in named):
        codes = [searcher.taxonomy[key].code(n.value) for n in named if n.key == key]
        has = np.isin(searcher._column(key)[rows], codes)
        np.multiply(factor, np.where(has, boost, one), out=factor)
    return factor


def _gathered(self: Searcher, scores, keep, filtered, k, named, query, filters):
    """Searcher._best as the gather of every candidate (the computation before it)."""
    rows = np.flatnonzero(keep)
    part = scores[rows]
    if named:
        np.multiply(part, _plain_boost(self, named, rows), out=part)
    weigh(part, self.roles, query, filters, rows)
    return rows, part


@pytest.mark.parametrize("limit", [1, 3, 10, 40])
def test_best_rows_rank_as_every_candidate_gathered(
    speakeasy_bundle: Path, limit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = open_bundle(speakeasy_bundle)
    searcher = Searcher(bundle)
    cases = [(q, f) for q in QUERIES for f in FILTERS]
    cut = 0  # searches where the shortcut gathered fewer rows than every candidate
    fast = []
    best = Searcher._best

    def counted(self, scores, keep, *args):
        nonlocal cut
        rows, part = best(self, scores, keep, *args)
        cut += len(rows) < np.count_nonzero(keep)
        return rows, part

    monkeypatch.setattr(Searcher, "_best", counted)
    for q, f in cases:
        page = searcher.search(q, f, 0, limit)
        fast.append((page.rows, page.scores, page.total, page.corpus_matches))
    monkeypatch.setattr(Searcher, "_best", _gathered)
    plain = Searcher(bundle)
    for (q, f), got in zip(cases, fast, strict=True):
        page = plain.search(q, f, 0, limit)
        assert got == (page.rows, page.scores, page.total, page.corpus_matches), (q, f)
    assert cut >= 10  # the shortcut was taken, not only its fallback
    assert any(got[0] for got in fast)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.floats(0.0, 64.0, width=32), st.lists(st.booleans(), min_size=1, max_size=64))
def test_boost_step_is_np_where_bit_for_bit(name_boost: float, has: list[bool]) -> None:
    mask = np.array(has)
    boost, one = np.float32(1.0 + name_boost), np.float32(1.0)
    step = mask.astype(np.float32)
    step *= boost - one
    step += one
    assert step.tobytes() == np.where(mask, boost, one).astype(np.float32).tobytes()


def _plain_weights(query: str, present) -> dict[str, float]:
    """roles.weights with every pattern searched (no holds_any prefilter)."""
    out = dict(roles.PRIOR)
    if roles.CHANGELOG in present or roles.BLOG in present:
        if roles._CHANGES.search(query):
            out[roles.CHANGELOG] = roles.LIFTED
            out[roles.BLOG] = roles.NEUTRAL
        elif roles._CHANGE_TOPIC.search(query):
            out[roles.CHANGELOG] = roles.NEUTRAL
        if roles._VERSION.search(query):
            out[roles.CHANGELOG] = max(out[roles.CHANGELOG], roles.NEUTRAL)
            out[roles.BLOG] = roles.NEUTRAL
    if roles.BLOG in present and roles._BLOG.search(query):
        out[roles.BLOG] = roles.LIFTED
    if roles.PROPOSAL in present and roles._PROPOSAL.search(query):
        out[roles.PROPOSAL] = roles.LIFTED
    if roles.GENERATED in present and intent.query_class(query) == intent.IDENTIFIER:
        out[roles.GENERATED] = roles.NEUTRAL
    return out


WORDS = [
    "what", "changed", "Changes", "in", "since", "changelog", "change log", "release notes",
    "What's new", "new in 3.12", "BREAKING", "v2", "1.2.3", "2025-06-18", "deprecated",
    "Migrating", "upgrade", "history", "blog", "Announcement", "SEP-1686", "rfc", "PEP 8",
    "ADR", "proposal", "planned", "roadmap", "from", "to", "svelte", "4", "5", "links.create",
    "ſ", "K", "ı", "İ", "é", "RELEAſE", "bloG", "x", "-", ".", " ", "\n",
]  # fmt: skip


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from(WORDS) | st.text(max_size=6), max_size=8))
def test_prefilters_decide_as_the_patterns(words: list[str]) -> None:
    query = " ".join(words)
    assert roles.weights(query) == _plain_weights(query, roles.ROLES)
    assert roles.asks_what_changed(query) == (roles._CHANGES.search(query) is not None)
    moves = intent._MOVE.findall(query[: intent.MAX_QUERY_CHARS])
    assert intent.left_behind(query) == list(
        dict.fromkeys(a.rstrip(".-") for a, b in moves if a.lower() != b.lower())
    )


def test_a_non_ascii_query_is_searched_by_the_pattern() -> None:
    # IGNORECASE matches the long s with `s`: "releaſe notes" asks what changed.
    assert re.search(r"release", "releaſe", re.IGNORECASE)
    assert roles.asks_what_changed("releaſe notes")
    assert not intent.holds_any("plain words", ("release",))
    assert intent.holds_any("plain wörds", ("release",))
