"""What a tool answers: a text or a structured (JSON) result, and the not-found error that names
the closest matches."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..search.budget import encode_json
from .arguments import ToolInputError

# Names offered when an argument names nothing that exists.
CLOSE_MATCHES = 5


def text_result(text: str, is_error: bool = False) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def json_result(
    result: dict[str, Any], notes: list[str] | None = None, encoded: dict[str, str] | None = None
) -> dict:
    """A structured result: the same object as JSON text (for clients without
    structuredContent) and as structuredContent. The text is compact JSON: fewer tokens for the
    model, and the C encoder (`indent` takes json's pure-Python path: ~20 % of a search).
    `encoded`: the JSON of some of the result's values, already made (search_docs' hits, each
    encoded once to count its tokens); the text is the same as if encoded here."""
    if notes:
        result["notes"] = notes
    if encoded:
        text = (
            "{"
            + ",".join(
                f"{encode_json(key)}:{encoded[key] if key in encoded else encode_json(value)}"
                for key, value in result.items()
            )
            + "}"
        )
    else:
        text = encode_json(result)
    return {
        "content": [{"type": "text", "text": text}],
        "structuredContent": result,
        "isError": False,
    }


def close_matches(word: str, candidates: Iterable[str], n: int = CLOSE_MATCHES) -> list[str]:
    """The candidates nearest to `word` (containment first, then edit similarity)."""
    import difflib  # only on the error path: keep it out of start-up

    pool = sorted(set(candidates))
    lowered = word.lower()
    containing = [c for c in pool if lowered in c.lower()]
    containing.sort(key=lambda c: (len(c), c))
    fuzzy = difflib.get_close_matches(word, pool, n=n, cutoff=0.5)
    out: list[str] = []
    for c in [*containing, *fuzzy]:
        if c not in out:
            out.append(c)
    return out[:n]


def not_found(what: str, closest: list[str], hint: str) -> ToolInputError:
    message = f"{what} not found."
    if closest:
        message += " Closest: " + ", ".join(closest) + "."
    return ToolInputError(f"{message} {hint}")
