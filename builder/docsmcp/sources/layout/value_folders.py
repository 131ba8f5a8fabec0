"""The folders holding each value of a version or variant key, which the bundle records
(metadata.json's taxonomy `folders`, bundle-spec.md *Versions and variants*) so that search
finds one section's copies across values whose folders are not named as the value: Jest's
unreleased docs (`next`) are `docs/`, its 30.4 `website/versioned_docs/version-30.4/`; an
Antora checkout `asciidoctor-main/` is version 2.1. The runtime takes the recorded folder out of
a chunk id to group copies (docsmcp_runtime.search.versions.copy_id).

The candidates are the folders the builder gave values to: the version layout and the variant
folders it detected (versions.py, variants.py, antora.py), or, under a manifest, the overrides
`FOLDER/**` that set the key (what `docsmcp init` writes for each such folder) and a manifest
below the docs folder whose metadata sets it. A candidate is recorded when the pages it holds
(those no deeper candidate holds) all have its value, so a page's own frontmatter or a later
override never makes a folder say what its pages are not.
"""

from __future__ import annotations

import logging
import posixpath
from collections import defaultdict
from collections.abc import Iterable, Mapping

from docsmcp_runtime.format.metadata import MAX_VALUE_FOLDERS, is_value_folder

from docsmcp.model.source import Manifest
from docsmcp.sources.layout.versions import holding_folder

log = logging.getLogger(__name__)

_GLOB = frozenset("*?[]{}!")


def from_manifests(manifests: Iterable[Manifest], key: str) -> dict[str, str]:
    """folder -> value of `key`, as the manifests set it for a whole folder: an override whose
    pattern is `FOLDER/**` (Jest's `website/versioned_docs/version-30.4/**` -> 30.4), and a
    manifest below the docs folder whose own metadata sets the key (that manifest's folder)."""
    out: dict[str, str] = {}
    for manifest in sorted(manifests, key=lambda m: m.path):
        if manifest.folder and manifest.metadata.get(key):
            out[manifest.folder] = manifest.metadata[key]
        for override in manifest.overrides:
            value = override.metadata.get(key)
            folder = override.pattern.removesuffix("/**").strip("/")
            if value and override.pattern.endswith("/**") and folder and not _GLOB & set(folder):
                out[posixpath.join(manifest.folder, folder)] = value
    return out


def recorded(
    candidates: Mapping[str, str], pages: Iterable[tuple[str, str | None]]
) -> dict[str, tuple[str, ...]]:
    """value -> its folders (sorted), among `candidates` (folder -> value): those whose pages
    (`pages`: path and the page's value of the key; a page counts for the deepest candidate
    holding it) all have the folder's value, at least one of them. Empty when a value would
    have more than MAX_VALUE_FOLDERS folders (the runtime then groups copies as before)."""
    candidates = {f: v for f, v in candidates.items() if is_value_folder(f)}
    agrees: dict[str, bool] = {}
    for path, value in pages:
        folder = holding_folder(candidates, path)
        if folder is not None and value is not None:
            agrees[folder] = agrees.get(folder, True) and value == candidates[folder]
    out: dict[str, list[str]] = defaultdict(list)
    for folder, agreed in agrees.items():
        if agreed:
            out[candidates[folder]].append(folder)
        else:
            log.debug("folder %s holds pages of another value than %s", folder, candidates[folder])
    if any(len(folders) > MAX_VALUE_FOLDERS for folders in out.values()):
        log.debug("a value has more than %d folders: none recorded", MAX_VALUE_FOLDERS)
        return {}
    return {v: tuple(sorted(out[v], key=str.encode)) for v in sorted(out, key=str.encode)}
