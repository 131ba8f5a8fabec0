"""Response budgets (`max_tokens`): a dependency-free token estimate and the rules that fit a
result into it (bundle-spec.md, *Response budgets*).

Tokens are estimated as characters / 4, rounded up: the usual figure for English prose and code
with BPE tokenizers, no tokenizer download, the same answer everywhere. An estimate, so budgets
are approximate by design; the result always says when something was left out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

CHARS_PER_TOKEN = 4
MIN_TOKENS = 50
MAX_TOKENS = 1_000_000
# The budget of a call that names no max_tokens, on a server started without --max-tokens: an
# agent that guesses a path or lists the root pays at most this (unbounded, get_page gave a
# 107,926-character page and list_sections ~20,000 characters at FastAPI's root). The usual
# search (10 hits) takes ~1,000.
DEFAULT_MAX_TOKENS = 5_000
# A hit that does not fit whole is shown shortened when at least this many tokens remain.
MIN_PASSAGE_TOKENS = 40
# Fields a shortened hit keeps (the rest: snippet cut to fit, references dropped).
_ESSENTIAL = ("chunk_id", "score", "heading", "breadcrumb", "filepath", "metadata", "source")


# Compact JSON, non-ASCII kept: the text of a tool's result, and what a hit costs. One encoder
# for every call (json.dumps with options builds one per call), without the circular-reference
# check (a result is a tree of fresh dicts and lists): the same text as
# json.dumps(..., ensure_ascii=False, separators=(",", ":")).
encode_json = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), check_circular=False
).encode


def approx_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def hit_tokens(hit: dict) -> int:
    """What one hit costs: its compact JSON."""
    return approx_tokens(encode_json(hit))


def cut_point(text: str, start: int, tokens: int) -> int:
    """Where to end a part of `text` that starts at `start` and holds at most `tokens`: at a line
    end (or else a space) in the last fifth of the allowance, so text is not cut mid-word."""
    limit = start + tokens * CHARS_PER_TOKEN
    if limit >= len(text):
        return len(text)
    floor = start + (limit - start) * 4 // 5
    for sep in ("\n", " "):
        at = text.rfind(sep, floor, limit)
        if at > start:
            return at + 1
    return max(limit, start + 1)


def pack_hits(hits: Iterable[dict], budget: int) -> tuple[list[dict], int, bool]:
    """The best hits that fit `budget` tokens: whole hits in rank order, then the next one
    shortened (its snippet cut, references dropped) if enough remains. Returns (hits kept, tokens
    used, whether the last kept hit was shortened). At least one hit is always kept."""
    kept, _, used, shortened = pack_encoded(hits, budget)
    return kept, used, shortened


def pack_encoded(hits: Iterable[dict], budget: int) -> tuple[list[dict], list[str], int, bool]:
    """pack_hits, with each kept hit's JSON (encode_json), the text the result is made of: a
    hit is encoded once. `hits` is consumed only up to the first that does not fit whole, so
    a lazy sequence builds no hit (and no snippet) past it."""
    kept: list[dict] = []
    texts: list[str] = []
    used = 0
    for hit in hits:
        text = encode_json(hit)
        cost = approx_tokens(text)
        if used + cost <= budget:
            kept.append(hit)
            texts.append(text)
            used += cost
            continue
        remaining = budget - used
        if remaining >= MIN_PASSAGE_TOKENS or not kept:
            short = _shorten(hit, remaining)
            text = encode_json(short)
            cost = approx_tokens(text)
            if used + cost <= budget or not kept:
                kept.append(short)
                texts.append(text)
                return kept, texts, used + cost, True
        break
    return kept, texts, used, False


def _shorten(hit: dict, tokens: int) -> dict:
    """The hit with only its essential fields and as much of its snippet (its best passage) as
    fits in `tokens`."""
    short = {k: hit[k] for k in _ESSENTIAL if k in hit}
    short["truncated"] = True
    base = hit_tokens({**short, "snippet": ""})
    room = max(0, (tokens - base) * CHARS_PER_TOKEN)
    snippet = hit.get("snippet", "")
    short["snippet"] = snippet if len(snippet) <= room else snippet[: max(0, room - 1)] + "…"
    return short


def fit_entries(entries: list[dict], budget: int) -> tuple[int, int]:
    """How many of `entries` (list items of a result, in order) fit `budget` tokens, at least
    one, and the tokens they take."""
    used = 0
    for n, entry in enumerate(entries):
        cost = hit_tokens(entry)
        if n and used + cost > budget:
            return n, used
        used += cost
    return len(entries), used


def budget_note(budget: int, kept: int, total: int, what: str, used: int) -> str:
    """What a budget left out of a list, and how to get the rest."""
    return (
        f"max_tokens {budget}: {kept} of {total} {what} fit (~{used} tokens). Continue with "
        "next_cursor, or raise max_tokens."
    )
