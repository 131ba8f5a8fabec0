"""How a bundle ranks: the `analyzer`, `lexical`, `fusion`, `vector_index` and `embedding` sections
of `metadata.json` (bundle-spec.md), with their defaults.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..records import record
from . import jsonread as j
from .jsonread import MetadataError

if TYPE_CHECKING:
    from .providers import ProviderOptions

ANALYZER_NAME = "docsmcp-1"


# Question words and glue, measured on the dev set (dropping them helped every corpus). Bundles
# store the list they were built with; legacy bundles say `"stopwords": true` for this list.
DEFAULT_STOPWORDS = tuple(
    sorted(
        "a an and are as at be by can do does for from how i in is it me my of on or that the "
        "this to was we what when where which with you your".split()
    )
)


# Weights and scoring parameters beyond this are not a tuning but damage: 1e308 would overflow
# every score to infinity.
MAX_WEIGHT = 1e6


# What a chunk's vector is computed from (bundle-spec.md, *Vectors*).
EMBEDDING_INPUT = "Document: {headings}. Content: {text}"


@record
class AnalyzerConfig:
    """`analyzer`: options that change which terms text yields (bundle-spec.md, *Terms*)."""

    stem: bool = True
    stopwords: tuple[str, ...] = DEFAULT_STOPWORDS  # sorted; () for none
    # Names the words alone lose (bundle-spec.md, *Terms*, step 7): `for...in`, `??=`, `<<`.
    # Off unless the bundle says so: a bundle built before them is searched as it was built.
    # The builder turns them on (pipeline/collect.py, BUILD_ANALYZER).
    names: bool = False

    def to_json(self) -> dict:
        data = {"name": ANALYZER_NAME, "stem": self.stem, "stopwords": list(self.stopwords)}
        if self.names:  # absent means false: an older bundle's bytes and meaning
            data["names"] = True
        return data

    @classmethod
    def from_json(cls, value: object, path: str = "analyzer") -> AnalyzerConfig:
        data = j.obj(value, path)
        name = j.field(data, "name", path, j.string)
        if name != ANALYZER_NAME:
            raise MetadataError(
                j.join(path, "name"), f"unknown analyzer {name!r}, expected {ANALYZER_NAME!r}"
            )
        raw = data.get("stopwords")
        where = j.join(path, "stopwords")
        if isinstance(raw, bool):  # bundles written before the list was stored
            stopwords = DEFAULT_STOPWORDS if raw else ()
        else:
            stopwords = j.sorted_unique(j.field(data, "stopwords", path, j.strings), where)
        names = j.field(data, "names", path, j.boolean) if "names" in data else False
        stem = j.field(data, "stem", path, j.boolean)
        return cls(stem=stem, stopwords=stopwords, names=names)


@record
class LexicalParams:
    """`lexical`: how impacts were computed, and the query-time weight of bigram terms."""

    # Chosen on the dev set: b=0.5 beat 0.75 and 0.9 on every corpus; bigrams at a quarter of a
    # term's weight kept hit@5 best while not drowning single terms.
    k1: float = 1.2
    b: float = 0.5
    heading_weight: float = 3.0
    # The headings above a chunk's own (the page's title, the sections it is in), weighed as
    # headings but never discounted as a repeated heading is (heading_informativeness): the
    # discount of "Usage" on every Hono middleware page fell on the title "Bearer Auth
    # Middleware" above it too, and Combine's usage, calling `bearerAuth` three times, ranked
    # first for "bearerAuth". Measured on the 40 judged sites (page MRR 0.861 -> 0.865, nDCG@5
    # 0.785 -> 0.788) and the four dev sets (one mcp case 1 -> 2): docs/search.md, *How
    # results are ranked*.
    trail_weight: float = 3.0
    body_weight: float = 1.0
    context_weight: float = 0.5
    # The page a chunk is on (its title, description, keywords and lead paragraph, on every
    # chunk of the page) and the texts of links to a chunk from other chunks (bundle-spec.md,
    # *Full-text index*): words that name the chunk rather than discuss it. Anchors weigh like
    # headings (dev sets: weight 3 won one case on each of speakeasy-sdks and yellow-docs over
    # weight 1, lost none). The page field (title, description, keywords) and the lead field
    # (the page's lead paragraph) are on every chunk of a page (issue 27); a lead says less
    # about each section than a title: in one field at 1.5, the lead of an overview page
    # (`docs/building.md`) lifted all its sections above the page that answers
    # (tests/test_docs_corpus.py); page 1.5 and lead 0.5 beat page 1, 1.5, 2, 3 with the lead
    # inside, and lead 1.0, on the four dev sets.
    page_weight: float = 1.5
    lead_weight: float = 0.5
    anchors_weight: float = 3.0
    phrase_weight: float = 0.25
    # A chunk's heading field is weighted 1 / (1 + heading_informativeness · ln n), n the pages
    # with a chunk of the same own heading ("Fields" on 2,000 model pages says little). 0.5
    # beat 0 and 1 on the dev sets when it came; measured again with 427 judged queries over 38
    # real sites (session 7), 1.0 gains there (page MRR 0.883 -> 0.885), on dev-cases (+0.001)
    # and dev-cases-mcp (0.812 -> 0.826, comparison 0.575 -> 0.658), nl and pdf the same; 0.75
    # misses the mcp gain, 1.5 equals 1.0; one site case (vue "provide inject") falls 2 -> 3.
    heading_informativeness: float = 1.0
    # The weight of a query word's other inflections (search/stems.py: the terms of its group
    # in `stem_rings.bin`) beside its own at 1. Measured on the four dev sets and 240 judged
    # queries over 24 real sites (bench/sites, session 8; docs/search.md): 0.3 lifts the sites
    # (page MRR 0.836 -> 0.849, nDCG@5 0.752 -> 0.764), nl (0.500 -> 0.514), pdf (0.694 ->
    # 0.722) and mcp's page level (MRR 0.929 -> 0.947); dev-cases is equal and mcp's section
    # level loses one case a rank (a sibling section of the same page). 0.5 gives the same,
    # 0.7 loses on the sites; 0.15 of the whole Porter2 stem gained half as much.
    stem_weight: float = 0.3

    def to_json(self) -> dict:
        return {
            "scoring": "bm25f",
            "k1": self.k1,
            "b": self.b,
            "phrase_weight": self.phrase_weight,
            "heading_informativeness": self.heading_informativeness,
            "stem_weight": self.stem_weight,
            "field_weights": {
                "heading": self.heading_weight,
                "trail": self.trail_weight,
                "body": self.body_weight,
                "context": self.context_weight,
                "page": self.page_weight,
                "lead": self.lead_weight,
                "anchors": self.anchors_weight,
            },
        }

    @classmethod
    def from_json(cls, value: object, path: str = "lexical") -> LexicalParams:
        data = j.obj(value, path)
        scoring = j.field(data, "scoring", path, j.string)
        if scoring != "bm25f":
            raise MetadataError(j.join(path, "scoring"), f"unknown scoring {scoring!r}")
        weights_path = j.join(path, "field_weights")
        weights = j.field(data, "field_weights", path, j.obj)

        def weight(name: str) -> float:
            return j.field(weights, name, weights_path, _nonnegative)

        return cls(
            k1=j.field(data, "k1", path, _nonnegative),
            b=j.field(data, "b", path, lambda v, p: j.number(v, p, 0.0, 1.0)),
            heading_weight=weight("heading"),
            body_weight=weight("body"),
            context_weight=weight("context"),
            # Bundles from before these fields were indexed do not have them: weight 0.
            page_weight=j.optional(weights, "page", weights_path, _nonnegative, 0.0),
            anchors_weight=j.optional(weights, "anchors", weights_path, _nonnegative, 0.0),
            lead_weight=j.optional(weights, "lead", weights_path, _nonnegative, 0.0),
            # Bundles from before the trail had its own field (it was in `heading`): none.
            trail_weight=j.optional(weights, "trail", weights_path, _nonnegative, 0.0),
            phrase_weight=j.field(data, "phrase_weight", path, _nonnegative),
            # Bundles from before the heading discount: none.
            heading_informativeness=j.optional(
                data, "heading_informativeness", path, _nonnegative, 0.0
            ),
            # Bundles from before stem variants: none.
            stem_weight=j.optional(data, "stem_weight", path, _nonnegative, 0.0),
        )


FUSION_LISTS = ("lexical", "proximity", "vector")


@record
class FusionWeights:
    """Weights given on a command line or in the environment (`lexical=1,vector=0.5`); None
    keeps the bundle's (runtime) or the provider's default (builder)."""

    lexical: float | None = None
    proximity: float | None = None
    vector: float | None = None

    @classmethod
    def parse(cls, text: str | None) -> FusionWeights:
        """`lexical=1,vector=0.5` → FusionWeights(1.0, None, 0.5); ValueError when malformed."""
        found: dict[str, float] = {}
        for item in (text or "").split(","):
            if not item.strip():
                continue
            name, sep, raw = item.partition("=")
            name = name.strip()
            if not sep or name not in FUSION_LISTS:
                raise ValueError(
                    f"expected {', '.join(f'{n}=W' for n in FUSION_LISTS)}, got {item.strip()!r}"
                )
            try:
                value = float(raw)
            except ValueError:
                raise ValueError(f"weight {name} must be a number, got {raw.strip()!r}") from None
            if not 0 <= value < float("inf"):
                raise ValueError(f"weight {name} must be a finite number >= 0")
            found[name] = value
        return cls(**found)

    def given(self) -> dict[str, float]:
        return {n: getattr(self, n) for n in FUSION_LISTS if getattr(self, n) is not None}


@record
class Fusion:
    """`embedding.fusion`: weighted Reciprocal Rank Fusion of the three ranked lists."""

    vector: float  # per provider (SearchDefaults.vector_weight): no format-wide default
    lexical: float = 1.0
    # Bigrams already count inside the full-text list (lexical.phrase_weight), so the separate
    # proximity list starts at 0: at 0.5 the dev-set MRR fell 0.634 -> 0.577 (static).
    proximity: float = 0.0
    k: float = 60

    def with_weights(self, weights: FusionWeights) -> Fusion:
        return replace(self, **weights.given())

    def to_json(self) -> dict:
        return {
            "k": self.k,
            "weights": {
                "lexical": self.lexical,
                "proximity": self.proximity,
                "vector": self.vector,
            },
        }

    @classmethod
    def from_json(cls, value: object, path: str) -> Fusion:
        data = j.obj(value, path)
        where = j.join(path, "weights")
        weights = j.field(data, "weights", path, j.obj)
        k = j.field(data, "k", path, _nonnegative)
        if not k > 0:
            raise MetadataError(j.join(path, "k"), "must be > 0")
        read = {n: j.field(weights, n, where, _nonnegative) for n in FUSION_LISTS}
        return cls(k=k, **read)


@record
class VectorIndexSpec:
    """`embedding.index`: exact search, or IVF lists of which `probe` are read per query."""

    type: str = "exact"
    lists: int = 0
    probe: int = 0

    @property
    def ivf(self) -> bool:
        return self.type == "ivf"

    def to_json(self) -> dict:
        if not self.ivf:
            return {"type": "exact"}
        return {"type": "ivf", "lists": self.lists, "probe": self.probe}

    @classmethod
    def from_json(cls, value: object, path: str) -> VectorIndexSpec:
        data = j.obj(value, path)
        kind = j.field(data, "type", path, j.string)
        if kind == "exact":
            return cls()
        if kind != "ivf":
            raise MetadataError(j.join(path, "type"), f"unknown index type {kind!r}")
        lists = j.field(data, "lists", path, lambda v, p: j.integer(v, p, 1))
        probe = j.field(data, "probe", path, lambda v, p: j.integer(v, p, 1, lists))
        return cls("ivf", lists, probe)


@record
class Embedding:
    """`embedding`: how chunks were embedded and how the runtime searches the vectors."""

    provider: str
    model: str
    dimensions: int
    context_tokens: int
    fingerprint: str
    fusion: Fusion
    options: ProviderOptions
    similarity_floor: float
    collapse_similarity: float
    index: VectorIndexSpec = VectorIndexSpec()
    input: str = EMBEDDING_INPUT

    def to_json(self) -> dict:
        return {
            "provider": self.provider,
            "model": self.model,
            "dimensions": self.dimensions,
            "context_tokens": self.context_tokens,
            "fingerprint": self.fingerprint,
            "input": self.input,
            "index": self.index.to_json(),
            "similarity_floor": self.similarity_floor,
            "collapse_similarity": self.collapse_similarity,
            "fusion": self.fusion.to_json(),
            "options": self.options.to_json(),
        }

    @classmethod
    def from_json(cls, value: object, path: str = "embedding") -> Embedding:
        # The providers' option classes are imported here, by bundles that have vectors: a
        # full-text start never creates them (issue 30: class creation is most of an import).
        from .providers import PROVIDERS, RawOptions

        data = j.obj(value, path)
        provider = j.field(data, "provider", path, j.nonempty)
        info = PROVIDERS.get(provider)
        options_path = j.join(path, "options")
        raw_options = j.field(data, "options", path, j.obj)
        # A provider this reader does not know keeps its options raw: search degrades to
        # full-text with a message instead of refusing the bundle.
        options = (
            info.options.from_json(raw_options, options_path)
            if info is not None
            else RawOptions(dict(raw_options))
        )

        def cosine(v: object, p: str) -> float:
            return j.number(v, p, -1.0, 1.0)

        return cls(
            provider=provider,
            model=j.field(data, "model", path, j.string),
            dimensions=j.field(data, "dimensions", path, lambda v, p: j.integer(v, p, 1)),
            context_tokens=j.field(data, "context_tokens", path, lambda v, p: j.integer(v, p, 1)),
            fingerprint=j.field(data, "fingerprint", path, j.string),
            input=j.field(data, "input", path, j.string),
            index=j.field(data, "index", path, VectorIndexSpec.from_json),
            similarity_floor=j.field(data, "similarity_floor", path, cosine),
            collapse_similarity=j.field(data, "collapse_similarity", path, cosine),
            fusion=j.field(data, "fusion", path, Fusion.from_json),
            options=options,
        )


def _nonnegative(value: object, path: str) -> float:
    """A weight or scoring parameter: finite, >= 0 and at most MAX_WEIGHT."""
    return j.number(value, path, 0.0, MAX_WEIGHT)
