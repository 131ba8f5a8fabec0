"""The bundle format (bundle-spec.md) in one place: file names, dtypes and limits
(`layout`), `metadata.json` as typed sections with every default (`metadata`, with `ranking`
and `files`), the embedding providers (`providers`, imported on first use: only bundles
with vectors need them), and the invariant checks shared by the
runtime and `docsmcp verify` (`checks`, with `problems` and `deep`). The writer, the reader and
the verifier all use this package; no other module spells a file name, a dtype or a default of
the format. The Arrow schemas of the Parquet tables are `schemas`'s, imported by what reads or
writes a table: importing this package does not import pyarrow (the search path never needs it).
"""

from .checks import EAGER_COLUMNS, Inspection, check
from .features import AUTO_INCLUDE as FEATURE_AUTO_INCLUDE
from .features import KNOWN_FEATURES
from .files import FileEntry
from .jsonread import MetadataError
from .layout import (
    ALL_ARRAYS,
    API_FILE,
    ARRAY_BY_FILE,
    ARRAYS,
    CHUNK_COMPRESSION,
    CHUNKS_FILE,
    CODE_FILE,
    DICTIONARY_ARRAYS,
    DISPLAY_ARRAYS,
    DISPLAY_BLOCK_ROWS,
    DISPLAY_BOUNDS_DTYPE,
    FORMAT,
    FORMAT_VERSION,
    IVF_ARRAYS,
    MAX_CHUNKS,
    MAX_FILES,
    MAX_METADATA_BYTES,
    MAX_METADATA_DEPTH,
    MAX_TAXONOMY_VALUES,
    METADATA_FILE,
    ORDER_ARRAYS,
    PAGE_UNORDERED,
    PAGES_FILE,
    Q8_ARRAYS,
    REQUIRED_FILES,
    ROW_GROUP_SIZE,
    SECTIONS_FILE,
    STEM_ARRAYS,
    TABLE_FILES,
    TABLE_ROW_GROUP_SIZE,
    VECTOR_ARRAYS,
    ArraySpec,
    bundle_id,
    is_plain_name,
    sha256_file,
)
from .metadata import (
    URL_PLACEHOLDERS,
    Metadata,
    Source,
    Stats,
    TaxonomyKey,
    ToolTexts,
    check_url_template,
)
from .problems import Problem
from .ranking import (
    ANALYZER_NAME,
    DEFAULT_STOPWORDS,
    EMBEDDING_INPUT,
    FUSION_LISTS,
    AnalyzerConfig,
    Embedding,
    Fusion,
    FusionWeights,
    LexicalParams,
    VectorIndexSpec,
)

# Imported on first use (PEP 562): a full-text bundle never needs the embedding providers' option
# classes, and creating them was ~5 ms of every start (issue 30).
_PROVIDER_NAMES = (
    "PROVIDERS",
    "STATIC_TABLE_FILE",
    "STATIC_VOCAB_FILE",
    "GgufOptions",
    "NoOptions",
    "OpenAIOptions",
    "ProviderInfo",
    "ProviderOptions",
    "RawOptions",
    "SearchDefaults",
    "SentenceTransformersOptions",
    "StaticOptions",
    "TokenizerOptions",
)

__all__ = [
    *_PROVIDER_NAMES,
    "ALL_ARRAYS",
    "API_FILE",
    "CODE_FILE",
    "ORDER_ARRAYS",
    "STEM_ARRAYS",
    "PAGE_UNORDERED",
    "PAGES_FILE",
    "Q8_ARRAYS",
    "SECTIONS_FILE",
    "TABLE_FILES",
    "DICTIONARY_ARRAYS",
    "DISPLAY_ARRAYS",
    "DISPLAY_BLOCK_ROWS",
    "DISPLAY_BOUNDS_DTYPE",
    "TABLE_ROW_GROUP_SIZE",
    "ANALYZER_NAME",
    "ARRAYS",
    "ARRAY_BY_FILE",
    "CHUNKS_FILE",
    "CHUNK_COMPRESSION",
    "DEFAULT_STOPWORDS",
    "EAGER_COLUMNS",
    "EMBEDDING_INPUT",
    "FEATURE_AUTO_INCLUDE",
    "FORMAT",
    "FORMAT_VERSION",
    "FUSION_LISTS",
    "IVF_ARRAYS",
    "KNOWN_FEATURES",
    "MAX_CHUNKS",
    "MAX_FILES",
    "MAX_METADATA_BYTES",
    "MAX_METADATA_DEPTH",
    "MAX_TAXONOMY_VALUES",
    "METADATA_FILE",
    "REQUIRED_FILES",
    "ROW_GROUP_SIZE",
    "VECTOR_ARRAYS",
    "AnalyzerConfig",
    "ArraySpec",
    "Embedding",
    "FileEntry",
    "Fusion",
    "FusionWeights",
    "Inspection",
    "LexicalParams",
    "Metadata",
    "Source",
    "URL_PLACEHOLDERS",
    "check_url_template",
    "MetadataError",
    "Problem",
    "Stats",
    "TaxonomyKey",
    "ToolTexts",
    "VectorIndexSpec",
    "bundle_id",
    "check",
    "is_plain_name",
    "sha256_file",
]


def __getattr__(name: str) -> object:
    if name not in _PROVIDER_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import providers

    return getattr(providers, name)
