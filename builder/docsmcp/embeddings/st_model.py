"""A local sentence-transformers model directory, as every builder step that reads one loads it
(the `sentence-transformers` embedding provider, the rescoring model, the ONNX export): one
place for the failures as one line, the dimension getter that sentence-transformers 6 renamed,
and the model's own prompts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docsmcp.embeddings.embed import ProviderError


def load_model(folder: Path, label: str, missing: str) -> Any:
    """The model in `folder` on the CPU, from local files only. `missing`: the message when
    sentence-transformers is not installed; `label` names the model in a load failure."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise ProviderError(missing) from None
    try:
        return SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    except Exception as exc:  # the library raises many kinds for a bad directory
        raise ProviderError(f"cannot load {label} {folder}: {exc}") from None


def dimensions_of(model: Any) -> int:
    """The length of the model's vectors."""
    # Renamed in sentence-transformers 6; older releases only have the long name.
    dimension_of = getattr(model, "get_embedding_dimension", None)
    if dimension_of is None:
        dimension_of = model.get_sentence_embedding_dimension
    return int(dimension_of())


@dataclass(frozen=True)
class Prompts:
    """What the model's config (config_sentence_transformers.json) prepends to each side."""

    query: str
    document: str


def prompts_of(model: Any) -> Prompts:
    prompts = dict(getattr(model, "prompts", None) or {})
    document = prompts.get("document", prompts.get("passage", ""))
    return Prompts(query=str(prompts.get("query", "")), document=str(document))
