"""The taxonomy of a corpus: the keys its manifests declare (merged, with a problem where two
disagree) and the keys its pages carry, with the version and variant folders the layout found
(`corpus_taxonomy`, used by corpus.load_corpus)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from docsmcp.model.source import Manifest, Problem, SourceFile, TaxonomyKey
from docsmcp.sources.layout import value_folders
from docsmcp.sources.layout.variants import Variants
from docsmcp.sources.layout.versions import DESCRIPTION as VERSION_DESCRIPTION
from docsmcp.sources.layout.versions import KEY as VERSION_KEY
from docsmcp.sources.layout.versions import Layout
from docsmcp.sources.manifest import _quote


def corpus_taxonomy(
    manifests: Sequence[Manifest],
    files: Sequence[SourceFile],
    layout: Layout,
    variants: Variants,
) -> tuple[dict[str, TaxonomyKey], list[Problem]]:
    """The taxonomy keys of `manifests` (in path order) and `files`, with the version key's
    latest and the variant key's default where the layout gave them, and the folders holding
    each value of a key that has either."""
    taxonomy, problems = _taxonomy(manifests, files)
    if layout.folders and VERSION_KEY in taxonomy:
        taxonomy[VERSION_KEY] = TaxonomyKey(VERSION_DESCRIPTION, latest=layout.latest)
    if variants.key is not None and variants.key in taxonomy:
        taxonomy[variants.key] = TaxonomyKey(variants.description(), default=variants.default)
    for key, entry in taxonomy.items():  # (the folders holding each value of these keys)
        if entry.latest is not None or entry.default is not None:
            found = {
                **(layout.folders if key == VERSION_KEY else {}),
                **(variants.folders if key == variants.key else {}),
                **value_folders.from_manifests(manifests, key),
            }
            taxonomy[key] = replace(entry, folders=found)
    return taxonomy, problems


def _taxonomy(
    manifests: Sequence[Manifest], files: Sequence[SourceFile]
) -> tuple[dict[str, TaxonomyKey], list[Problem]]:
    merged: dict[str, TaxonomyKey] = {}
    described_in: dict[str, str] = {}  # key -> manifest that gave its description
    problems = []
    for manifest in manifests:
        for key, cfg in manifest.taxonomy.items():
            prev = merged.get(key, TaxonomyKey())
            description = prev.description
            if cfg.description is not None:
                if description is None:
                    description = cfg.description
                    described_in[key] = manifest.path
                elif cfg.description != description:
                    problems.append(
                        Problem(
                            manifest.path,
                            None,
                            f"taxonomy key {key!r}: description {_quote(cfg.description)} "
                            f"conflicts with {_quote(description)} in {described_in[key]}",
                        )
                    )
            include = prev.auto_include
            if cfg.auto_include is not None:  # declarations merge, value lists included
                include = dict(include or {})
                for other, values in cfg.auto_include.items():
                    include[other] = tuple(dict.fromkeys((*include.get(other, ()), *values)))
            one = {
                name: _one_value(key, name, getattr(prev, name), getattr(cfg, name), manifest)
                for name in ("latest", "default")
            }
            problems.extend(p for _, p in one.values() if p is not None)
            merged[key] = TaxonomyKey(
                description,
                prev.vector_collapse or cfg.vector_collapse,
                include,
                one["latest"][0],
                one["default"][0],
            )
    for source in files:
        for key, _ in source.metadata:
            merged.setdefault(key, TaxonomyKey())
    return dict(sorted(merged.items())), problems


def _one_value(
    key: str, name: str, before: str | None, given: str | None, manifest: Manifest
) -> tuple[str | None, Problem | None]:
    """A key's `latest` or `default` across manifests: the first one given, and a problem when
    another manifest gives a different one."""
    if given is not None and before is not None and given != before:
        return before, Problem(
            manifest.path,
            None,
            f"taxonomy key {key!r}: {name} {_quote(given)} conflicts with {_quote(before)} "
            "in another manifest",
        )
    return (before if before is not None else given), None
