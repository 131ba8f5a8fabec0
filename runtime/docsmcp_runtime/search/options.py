"""Runtime overrides of a bundle's search settings (`SearchOptions`), from command-line flags or
the environment, and the parsers of their text: each value checked, a bad one a ValueError
naming its flag."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..format import FusionWeights
from ..records import record
from .budget import MAX_TOKENS, MIN_TOKENS

if TYPE_CHECKING:
    from .fusion import FusionPolicy
    from .rerank import RerankOptions

# Seconds one search may take before it is abandoned with a tool error (never a partial result).
DEFAULT_TIME_BUDGET = 5.0
TIME_BUDGET_ENV = "DOCSMCP_SEARCH_TIMEOUT"
EXPAND_ENV = "DOCSMCP_EXPAND_REFERENCES"
MAX_TOKENS_ENV = "DOCSMCP_MAX_TOKENS"
# A taxonomy value the query names (intent.named_values) multiplies its rows' scores by
# 1 + NAME_BOOST when the call does not filter that key: a boost, never a filter.
NAME_BOOST = 1.0


# The flags SearchOptions.parse reads, in its order (the environment has its own names).
CLI_NAMES = (
    "--fusion-weights",
    "--similarity-floor",
    "--search-timeout",
    "--expand-references",
    "--max-tokens",
    "--ivf-probe",
)
# What a yes/no setting given as text (an environment variable) accepts as yes.
TRUE_WORDS = ("1", "true", "yes", "on")


@record
class SearchOptions:
    """Runtime overrides of the bundle's hybrid-search settings (flags or environment)."""

    fusion: FusionWeights = FusionWeights()
    similarity_floor: float | None = None
    time_budget: float = DEFAULT_TIME_BUDGET  # seconds per search
    # search_docs' expand_references when a call does not say (--expand-references).
    expand_references: bool = False
    # The response budget of a call that names none (--max-tokens); None: unbounded.
    max_tokens: int | None = None
    # How hybrid lists fuse; None: the provider's policy (fusion.POLICIES), or plain RRF with
    # the bundle's weights when `fusion` gives any weight (--fusion-weights).
    policy: FusionPolicy | None = None
    name_boost: float = NAME_BOOST  # 0: taxonomy values named in queries are not boosted
    role_prior: bool = True  # False: page roles do not weigh scores (search/roles.py)
    # False: rows naming every word of a query of names or a choice do not gain, and `vs` is
    # searched as a word (lexical.coordination, intent.wants_every_word).
    coordination: bool = True
    # Equal full-text scores rank shorter headings first (engine.Searcher.heading_lengths),
    # not in row order alone.
    heading_ties: bool = True
    # An OpenAI-compatible chat endpoint reranking the fused top (--rerank-url); None: off.
    rerank: RerankOptions | None = None
    # Lists an IVF search reads (--ivf-probe); None: the bundle's `index.probe`.
    ivf_probe: int | None = None
    # Reorder the best hits with the bundle's rescoring model, when it has one (--no-rescore).
    rescore: bool = True

    @classmethod
    def parse(
        cls,
        fusion_weights: str | None,
        similarity_floor: str | None,
        time_budget: str | None,
        expand_references: str | None = None,
        max_tokens: str | None = None,
        ivf_probe: str | None = None,
        names: tuple[str, ...] = CLI_NAMES,
    ) -> SearchOptions:
        """From command-line or environment text (None: not given); ValueError naming `names`."""
        parsers = (
            FusionWeights.parse,
            parse_cosine,
            parse_seconds,
            parse_flag,
            parse_max_tokens,
            parse_probe,
        )
        texts = (
            fusion_weights,
            similarity_floor,
            time_budget,
            expand_references,
            max_tokens,
            ivf_probe,
        )
        values = []
        for name, parse, text in zip(names, parsers, texts, strict=True):
            try:
                values.append(parse(text) if text is not None and text.strip() else None)
            except ValueError as exc:
                raise ValueError(f"{name}: {exc}") from None
        weights, floor, budget, expand, tokens, probe = values
        return cls(
            weights or FusionWeights(),
            floor,
            budget or DEFAULT_TIME_BUDGET,
            bool(expand),
            tokens,
            ivf_probe=probe,
        )


def parse_seconds(text: str) -> float:
    """A time budget given on a command line or in the environment: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise ValueError(f"must be a number of seconds > 0, got {text}")
    return value


def parse_flag(text: str) -> bool:
    """A yes/no setting given as text: one of TRUE_WORDS is yes, anything else no."""
    return text.strip().lower() in TRUE_WORDS


def _parse_count(text: str, unit: str, low: int, high: int | None = None) -> int:
    """An integer setting given as text, in low..high (no upper bound when `high` is None)."""
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"expected a number of {unit}, got {text!r}") from None
    if high is None and value < low:
        raise ValueError(f"must be at least {low}, got {value}")
    if high is not None and not low <= value <= high:
        raise ValueError(f"must be between {low} and {high}, got {value}")
    return value


def parse_max_tokens(text: str) -> int:
    """A server's default response budget: an integer in MIN_TOKENS..MAX_TOKENS."""
    return _parse_count(text, "tokens", MIN_TOKENS, MAX_TOKENS)


def parse_probe(text: str) -> int:
    """IVF lists read per query: an integer >= 1 (a bundle with fewer lists reads them all)."""
    return _parse_count(text, "lists", 1)


def parse_cosine(text: str) -> float:
    """A similarity given on a command line or in the environment: a number in [-1, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"expected a number, got {text!r}") from None
    if not -1.0 <= value <= 1.0:  # also refuses nan
        raise ValueError(f"must be a cosine between -1 and 1, got {text}")
    return value
