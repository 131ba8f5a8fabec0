"""`metadata.json` as frozen dataclasses, one per section, each with `from_json`/`to_json`
(bundle-spec.md, *`metadata.json`*). Every default of the format lives here.

Reading is strict for the keys this version knows (types, finite numbers, sorted lists, the
bundle id formula) and ignores keys it does not know, so a newer builder may add keys that older
readers skip. A feature a reader must understand to serve correct results is named in
`requires`; a reader refuses a bundle requiring a feature it does not know.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any
from urllib.parse import quote

import numpy as np

from . import jsonread as j
from .jsonread import MetadataError
from .layout import (
    ARRAY_BY_FILE,
    FORMAT,
    FORMAT_VERSION,
    MAX_FILES,
    MAX_TAXONOMY_VALUES,
    REQUIRED_FILES,
    bundle_id,
    is_plain_name,
)
from .providers import PROVIDERS, ProviderOptions, RawOptions

# Features a reader must understand (bundle-spec.md, *Compatibility*). This reader knows these.
FEATURE_AUTO_INCLUDE = "auto-include"
# A taxonomy key whose filter also keeps the rows without a value (`include_unset`).
FEATURE_INCLUDE_UNSET = "include-unset"
KNOWN_FEATURES = frozenset({FEATURE_AUTO_INCLUDE, FEATURE_INCLUDE_UNSET})

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

# Taxonomy keys and values (as in manifests): keys are filters, so they stay identifier-like.
TAXONOMY_KEY = re.compile(r"[A-Za-z0-9_.-]{1,64}")
MAX_VALUE_CHARS = 128


# -- sections -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolTexts:
    """`tools`: the description of each tool, by tool name."""

    descriptions: Mapping[str, str]

    REQUIRED = ("search_docs", "get_doc")

    @classmethod
    def defaults(cls, corpus_description: str) -> ToolTexts:
        """What the builder writes unless told otherwise (`--tool-description-*`)."""
        return cls(
            {
                "search_docs": (
                    f"Search {corpus_description}: the authoritative reference for this "
                    "documentation set, with API docs, code examples and guides. Use exact "
                    "identifiers (method, class, error names) or describe the task in a few "
                    "words; apply the filters to narrow results. Returns ranked sections; read "
                    "one in full with get_doc."
                ),
                "get_doc": (
                    "Retrieve the full markdown of a documentation section by its chunk_id (as "
                    "returned by search_docs). Sections are self-contained: leave context at 0 "
                    "on the first read; use context 1-3 only when the section refers to "
                    "adjacent ones."
                ),
            }
        )

    def to_json(self) -> dict:
        return {name: {"description": text} for name, text in self.descriptions.items()}

    @classmethod
    def from_json(cls, value: object, path: str = "tools") -> ToolTexts:
        data = j.obj(value, path)
        out = {}
        for name, entry in data.items():
            where = j.join(path, name)
            out[name] = j.field(j.obj(entry, where), "description", where, j.nonempty)
        for name in cls.REQUIRED:
            if name not in out:
                raise MetadataError(path, f"missing key {name!r}")
        return cls(out)


@dataclass(frozen=True)
class TaxonomyKey:
    """One filterable metadata key.

    `auto_include` maps other keys to values that stay visible when this key is filtered and
    the other key is not (e.g. filtering `language` keeps `scope = global-guide` pages).
    `include_unset`: a filter on this key also keeps the rows without a value for it (a corpus
    whose only `language` values are its code tabs: the other pages apply to every language).
    """

    description: str
    vector_collapse: bool = False
    values: tuple[str, ...] = ()
    auto_include: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    include_unset: bool = False

    def code(self, value: str) -> int:
        """The facet code of `value` (1-based; 0 means no value); ValueError if unknown."""
        return self.values.index(value) + 1

    def to_json(self) -> dict:
        out: dict[str, Any] = {
            "description": self.description,
            "vector_collapse": self.vector_collapse,
            "values": list(self.values),
        }
        if self.auto_include:  # written only when used, so other bundles keep their bytes
            out["auto_include"] = {k: list(v) for k, v in self.auto_include.items()}
        if self.include_unset:
            out["include_unset"] = True
        return out

    @classmethod
    def from_json(cls, value: object, path: str) -> TaxonomyKey:
        data = j.obj(value, path)
        values = j.sorted_unique(j.field(data, "values", path, j.strings), j.join(path, "values"))
        if len(values) > MAX_TAXONOMY_VALUES:
            raise MetadataError(
                j.join(path, "values"), f"more than {MAX_TAXONOMY_VALUES} values (facet codes)"
            )
        for i, v in enumerate(values):
            if not v or len(v) > MAX_VALUE_CHARS:
                raise MetadataError(
                    j.join(j.join(path, "values"), i), f"must be 1 to {MAX_VALUE_CHARS} characters"
                )
        include = j.obj(data.get("auto_include", {}), j.join(path, "auto_include"))
        auto = {
            key: j.sorted_unique(
                j.strings(vals, j.join(j.join(path, "auto_include"), key)),
                j.join(j.join(path, "auto_include"), key),
            )
            for key, vals in include.items()
        }
        return cls(
            description=j.field(data, "description", path, j.string),
            vector_collapse=j.field(data, "vector_collapse", path, j.boolean),
            values=values,
            auto_include=auto,
            include_unset=j.boolean(
                data.get("include_unset", False), j.join(path, "include_unset")
            ),
        )


@dataclass(frozen=True)
class AnalyzerConfig:
    """`analyzer`: options that change which terms text yields (bundle-spec.md, *Terms*)."""

    stem: bool = True
    stopwords: tuple[str, ...] = DEFAULT_STOPWORDS  # sorted; () for none

    def to_json(self) -> dict:
        return {"name": ANALYZER_NAME, "stem": self.stem, "stopwords": list(self.stopwords)}

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
        return cls(stem=j.field(data, "stem", path, j.boolean), stopwords=stopwords)


@dataclass(frozen=True)
class LexicalParams:
    """`lexical`: how impacts were computed, and the query-time weight of bigram terms."""

    # Chosen on the dev set: b=0.5 beat 0.75 and 0.9 on every corpus; bigrams at a quarter of a
    # term's weight kept hit@5 best while not drowning single terms.
    k1: float = 1.2
    b: float = 0.5
    heading_weight: float = 3.0
    body_weight: float = 1.0
    context_weight: float = 0.5
    # Frontmatter description and keywords of a page, on its first chunk, and the texts of
    # links to a chunk from other chunks (bundle-spec.md, *Full-text index*): words that name
    # the chunk rather than discuss it, weighted like its headings (dev sets: weight 3 won one
    # case on each of speakeasy-sdks and yellow-docs over weight 1, lost none).
    page_weight: float = 3.0
    anchors_weight: float = 3.0
    phrase_weight: float = 0.25

    def to_json(self) -> dict:
        return {
            "scoring": "bm25f",
            "k1": self.k1,
            "b": self.b,
            "phrase_weight": self.phrase_weight,
            "field_weights": {
                "heading": self.heading_weight,
                "body": self.body_weight,
                "context": self.context_weight,
                "page": self.page_weight,
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
            phrase_weight=j.field(data, "phrase_weight", path, _nonnegative),
        )


FUSION_LISTS = ("lexical", "proximity", "vector")


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Stats:
    files: int = 0
    chunks: int = 0
    corpus_bytes: int = 0
    terms: int = 0
    postings: int = 0

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, value: object, path: str = "stats") -> Stats:
        data = j.obj(value, path)
        return cls(**{f.name: j.field(data, f.name, path, j.integer) for f in fields(cls)})


@dataclass(frozen=True)
class FileEntry:
    """One entry of `files`: size and sha256, plus dtype and shape for raw arrays."""

    bytes: int
    sha256: str
    dtype: str | None = None
    shape: tuple[int, ...] | None = None

    def to_json(self) -> dict:
        out: dict[str, Any] = {}
        if self.dtype is not None:
            out["dtype"] = self.dtype
            out["shape"] = list(self.shape or ())
        out["bytes"] = self.bytes
        out["sha256"] = self.sha256
        return out

    @classmethod
    def from_json(cls, value: object, path: str, array: bool) -> FileEntry:
        data = j.obj(value, path)
        digest = j.field(data, "sha256", path, j.string)
        if not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise MetadataError(j.join(path, "sha256"), "expected 64 lower-case hex digits")
        size = j.field(data, "bytes", path, j.integer)
        if not array:
            return cls(size, digest)
        dtype = j.field(data, "dtype", path, j.string)
        shape = j.field(data, "shape", path, _shape)
        return cls(size, digest, dtype, shape)


# -- provenance ---------------------------------------------------------------------------------

# The placeholders a source URL template may use (bundle-spec.md, *`metadata.json`*).
URL_PLACEHOLDERS = ("commit", "path", "path_noext", "line_start", "line_end", "anchor")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def check_url_template(template: str) -> str:
    """`template` if it names only known placeholders; ValueError naming the first unknown."""
    for name in _PLACEHOLDER.findall(template):
        if name not in URL_PLACEHOLDERS:
            known = ", ".join("{" + p + "}" for p in URL_PLACEHOLDERS)
            raise ValueError(f"unknown placeholder {{{name}}}; use {known}")
    if "{" in _PLACEHOLDER.sub("", template) or "}" in _PLACEHOLDER.sub("", template):
        raise ValueError("unbalanced { or }")
    return template


@dataclass(frozen=True)
class Source:
    """`source`: where the docs came from. `commit` and `commit_date` come from git at build
    time (never the clock); `url` is a template a hit's link is made from."""

    commit: str | None = None
    commit_date: str | None = None  # ISO 8601 committer date of `commit`
    url: str | None = None

    def to_json(self) -> dict:
        return {"commit": self.commit, "commit_date": self.commit_date, "url": self.url}

    @classmethod
    def from_json(cls, value: object, path: str = "source") -> Source:
        data = j.obj(value, path)
        url = j.optional(data, "url", path, j.string_or_null, None)
        if url is not None:
            try:
                check_url_template(url)
            except ValueError as exc:
                raise MetadataError(j.join(path, "url"), str(exc)) from None
        return cls(
            commit=j.field(data, "commit", path, j.string_or_null),
            commit_date=j.optional(data, "commit_date", path, j.string_or_null, None),
            url=url,
        )

    def link(self, file: str, line_start: int, line_end: int, anchor: str) -> str | None:
        """The URL of one place in the docs, or None without a template (or without the commit
        a template asks for)."""
        if self.url is None or ("{commit}" in self.url and self.commit is None):
            return None
        stem = file.rsplit(".", 1)[0] if "." in file.rsplit("/", 1)[-1] else file
        values = {
            "commit": self.commit or "",
            "path": quote(file, safe="/"),
            "path_noext": quote(stem, safe="/"),
            "line_start": str(line_start),
            "line_end": str(line_end),
            "anchor": quote(anchor, safe=""),
        }
        return _PLACEHOLDER.sub(lambda m: values[m.group(1)], self.url)


# -- the whole file -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Metadata:
    """The parsed `metadata.json`. The builder fills `bundle_id` and `files` last (write.py)."""

    name: str
    description: str
    instructions: str | None
    tools: ToolTexts
    taxonomy: Mapping[str, TaxonomyKey]  # keys in byte order
    analyzer: AnalyzerConfig
    lexical: LexicalParams
    embedding: Embedding | None
    stats: Stats
    source: Source = Source()
    version: str | None = None  # the corpus version (`--corpus-version`)
    builder: str = ""
    bundle_id: str = ""
    files: Mapping[str, FileEntry] = field(default_factory=dict)
    requires: tuple[str, ...] = ()
    format_version: int = FORMAT_VERSION

    def required_features(self) -> tuple[str, ...]:
        """The `requires` list this content calls for (the builder writes it)."""
        features = set()
        if any(key.auto_include for key in self.taxonomy.values()):
            features.add(FEATURE_AUTO_INCLUDE)
        if any(key.include_unset for key in self.taxonomy.values()):
            features.add(FEATURE_INCLUDE_UNSET)
        return tuple(sorted(features))

    def file_digests(self) -> dict[str, str]:
        return {name: entry.sha256 for name, entry in self.files.items()}

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "format_version": self.format_version,
            "requires": list(self.requires),
            "bundle_id": self.bundle_id,
            "name": self.name,
            "description": self.description,
            "instructions": self.instructions,
            "tools": self.tools.to_json(),
            "taxonomy": {k: v.to_json() for k, v in self.taxonomy.items()},
            "analyzer": self.analyzer.to_json(),
            "lexical": self.lexical.to_json(),
            "embedding": self.embedding.to_json() if self.embedding else None,
            "version": self.version,
            "source": self.source.to_json(),
            "build": {"builder": self.builder},
            "stats": self.stats.to_json(),
            "files": {name: self.files[name].to_json() for name in sorted(self.files)},
        }

    @classmethod
    def from_json(cls, value: object) -> Metadata:
        """Parse and check a decoded metadata.json; raises MetadataError naming the key."""
        data = j.obj(value, "")
        marker = data.get("format")
        if marker != FORMAT:
            raise MetadataError("format", f"not a docsmcp bundle (format is not {FORMAT!r})")
        version = data.get("format_version")
        if version != FORMAT_VERSION or isinstance(version, bool) or not isinstance(version, int):
            raise MetadataError(
                "format_version",
                f"unsupported bundle format version {version!r}; this reader reads version "
                f"{FORMAT_VERSION} (upgrade docsmcp-runtime or rebuild the bundle)",
            )
        requires = j.optional(data, "requires", "", j.strings, ())
        unknown = [f for f in requires if f not in KNOWN_FEATURES]
        if unknown:
            raise MetadataError(
                "requires",
                f"the bundle requires feature(s) this reader does not know: {', '.join(unknown)} "
                "(upgrade docsmcp-runtime)",
            )
        taxonomy = _taxonomy(j.field(data, "taxonomy", "", j.obj))
        embedding = j.field(data, "embedding", "", _embedding_or_null)
        files = parse_files(j.field(data, "files", "", j.obj))
        build = j.field(data, "build", "", j.obj)
        meta = cls(
            requires=requires,
            bundle_id=j.field(data, "bundle_id", "", j.string),
            name=j.field(data, "name", "", j.nonempty),
            description=j.field(data, "description", "", j.string),
            instructions=j.field(data, "instructions", "", j.string_or_null),
            tools=j.field(data, "tools", "", ToolTexts.from_json),
            taxonomy=taxonomy,
            analyzer=j.field(data, "analyzer", "", AnalyzerConfig.from_json),
            lexical=j.field(data, "lexical", "", LexicalParams.from_json),
            embedding=embedding,
            source=j.field(data, "source", "", Source.from_json),
            version=j.optional(data, "version", "", j.string_or_null, None),
            builder=j.field(build, "builder", "build", j.string),
            stats=j.field(data, "stats", "", Stats.from_json),
            files=files,
        )
        expected = bundle_id(meta.file_digests())
        if meta.bundle_id != expected:
            raise MetadataError(
                "bundle_id",
                f"{meta.bundle_id!r} is not the hash of the files' sha256 ({expected}); "
                "metadata.json was altered",
            )
        return meta


# -- helpers --------------------------------------------------------------------------------------


def _nonnegative(value: object, path: str) -> float:
    """A weight or scoring parameter: finite, >= 0 and at most MAX_WEIGHT."""
    return j.number(value, path, 0.0, MAX_WEIGHT)


def _shape(value: object, path: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not 1 <= len(value) <= 2:
        raise MetadataError(path, "expected a list of 1 or 2 integers")
    return tuple(j.integer(v, j.join(path, i)) for i, v in enumerate(value))


def _taxonomy(data: Mapping[str, Any]) -> dict[str, TaxonomyKey]:
    keys = list(data)
    j.sorted_unique(tuple(keys), "taxonomy")
    out = {}
    for key in keys:
        if not TAXONOMY_KEY.fullmatch(key):
            raise MetadataError(j.join("taxonomy", key), "invalid key name")
        out[key] = TaxonomyKey.from_json(data[key], j.join("taxonomy", key))
    for key, entry in out.items():
        for other, values in entry.auto_include.items():
            where = f"taxonomy/{key}/auto_include/{other}"
            if other == key or other not in out:
                raise MetadataError(where, "must name another taxonomy key")
            missing = [v for v in values if v not in out[other].values]
            if missing:
                raise MetadataError(where, f"values not in taxonomy/{other}: {missing}")
    return out


def _embedding_or_null(value: object, path: str) -> Embedding | None:
    return None if value is None else Embedding.from_json(value, path)


def file_entry(name: str, value: object) -> FileEntry:
    """One entry of `files`, with an array's dtype, shape and size checked against each other;
    raises MetadataError."""
    where = j.join("files", name)
    if not is_plain_name(name):
        raise MetadataError("files", f"invalid file name {name!r}")
    spec = ARRAY_BY_FILE.get(name)
    entry = FileEntry.from_json(value, where, array=spec is not None)
    if spec is None:
        return entry
    if entry.dtype != spec.dtype:
        raise MetadataError(where, f"{name} dtype is {entry.dtype!r}, not {spec.dtype!r}")
    shape = list(entry.shape or ())
    if len(shape) != spec.ndim:
        raise MetadataError(where, f"{name} shape {shape} is not {spec.ndim}-dimensional")
    # Python integers: a hostile shape (2**64) must be refused, not overflow numpy's int64.
    need = math.prod(shape) * np.dtype(spec.dtype).itemsize
    if need != entry.bytes:
        raise MetadataError(
            where,
            f"{name} shape {shape} of {spec.dtype} takes {need} bytes, files says {entry.bytes}",
        )
    return entry


def check_file_count(data: Mapping[str, Any]) -> None:
    if len(data) > MAX_FILES:
        raise MetadataError("files", f"lists {len(data)} files; a bundle has at most {MAX_FILES}")


def parse_files(data: Mapping[str, Any]) -> dict[str, FileEntry]:
    check_file_count(data)
    out = {name: file_entry(name, entry) for name, entry in data.items()}
    for name in REQUIRED_FILES:
        if name not in out:
            raise MetadataError("files", f"missing {name}")
    return out
