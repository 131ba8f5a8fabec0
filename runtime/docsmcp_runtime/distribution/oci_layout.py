"""The OCI image layout of a docsmcp bundle (bundle-spec.md, *Archives and OCI artifacts*): its
media types and annotations (`docsmcp pack` writes them), and the checks on what a layout or a
registry gives: the index's manifests (`pick_manifest`, by tag), a manifest that is a docsmcp
bundle's (`bundle_layer`), descriptors and blobs checked against their digest and size. A
layout is located and unpacked by archive.py, pulled from a registry by registry_pull.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import BundleError
from ..format import sha256_file

OCI_INDEX_FILE = "index.json"
OCI_LAYOUT_VERSION = "1.0.0"
OCI_INDEX_MEDIA_TYPE = "application/vnd.oci.image.index.v1+json"
OCI_MANIFEST_MEDIA_TYPE = "application/vnd.oci.image.manifest.v1+json"
OCI_EMPTY_MEDIA_TYPE = "application/vnd.oci.empty.v1+json"
OCI_REF_NAME = "org.opencontainers.image.ref.name"
OCI_TITLE = "org.opencontainers.image.title"
ARTIFACT_TYPE = "application/vnd.docsmcp.bundle.v1"
LAYER_MEDIA_TYPE = "application/vnd.docsmcp.bundle.layer.v1.tar+gzip"
LAYER_TITLE = "bundle.tar.gz"
ANNOTATION_BUNDLE_ID = "dev.docsmcp.bundle_id"
ANNOTATION_FORMAT_VERSION = "dev.docsmcp.format_version"

# Manifests and index.json are a few hundred bytes; never read a huge "JSON" blob into memory.
MAX_JSON_BYTES = 1 << 20
# A sha256 in hex: archive digests, pins, cache entry names (one home for archive.py,
# registry.py and remote.py too).
HEX64 = re.compile(r"[0-9a-f]{64}")


def read_json(path: Path, what: str) -> dict:
    try:
        if path.stat().st_size > MAX_JSON_BYTES:
            raise BundleError(f"{path}: {what} is implausibly large")
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        raise BundleError(f"{path}: {what} is missing") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BundleError(f"{path}: unreadable {what} ({exc})") from None
    if not isinstance(data, dict):
        raise BundleError(f"{path}: {what} is not a JSON object")
    return data


def _blob_path(layout: Path, descriptor: object, what: str) -> tuple[Path, str, int]:
    """(blob file, hex digest, size) of a descriptor, after checking its shape."""
    digest, size = _descriptor(descriptor, str(layout), what)
    hexdigest = digest.removeprefix("sha256:")
    return layout / "blobs" / "sha256" / hexdigest, hexdigest, size


def checked_blob(layout: Path, descriptor: object, what: str) -> tuple[Path, str]:
    blob, hexdigest, size = _blob_path(layout, descriptor, what)
    if not blob.is_file():
        raise BundleError(f"{blob}: {what} blob is missing from the OCI layout")
    actual_size = blob.stat().st_size
    if actual_size != size:
        raise BundleError(
            f"{blob}: {what} blob has {actual_size} bytes, its descriptor says {size}"
        )
    actual = sha256_file(blob)
    if actual != hexdigest:
        raise BundleError(
            f"{blob}: {what} blob sha256 is {actual}, its descriptor says {hexdigest} "
            "(corrupt or altered)"
        )
    return blob, hexdigest


def _descriptor(descriptor: object, label: str, what: str) -> tuple[str, int]:
    """("sha256:<hex>", size) of a descriptor, after checking its shape."""
    if not isinstance(descriptor, dict):
        raise BundleError(f"{label}: malformed {what} descriptor")
    digest, size = descriptor.get("digest"), descriptor.get("size")
    if not isinstance(digest, str) or not isinstance(size, int) or size < 0:
        raise BundleError(f"{label}: {what} descriptor lacks a digest or size")
    algo, _, hexdigest = digest.partition(":")
    if algo != "sha256" or not HEX64.fullmatch(hexdigest):
        raise BundleError(f"{label}: unsupported {what} digest {digest!r} (need sha256)")
    return digest, size


def bundle_layer(manifest: object, label: str) -> tuple[tuple[str, int], dict]:
    """((config digest, size), layer descriptor) of a docsmcp bundle manifest (from an OCI
    layout or a registry); BundleError when it is not one."""
    if not isinstance(manifest, dict):
        raise BundleError(f"{label}: the manifest is not a JSON object")
    if manifest.get("mediaType", OCI_MANIFEST_MEDIA_TYPE) != OCI_MANIFEST_MEDIA_TYPE:
        raise BundleError(f"{label}: manifest is not an OCI image manifest")
    if manifest.get("artifactType") != ARTIFACT_TYPE:
        raise BundleError(
            f"{label}: artifactType is {manifest.get('artifactType')!r}, "
            f"not a docsmcp bundle ({ARTIFACT_TYPE})"
        )
    config = _descriptor(manifest.get("config"), label, "config")
    layers = manifest.get("layers")
    ours = [
        layer
        for layer in (layers if isinstance(layers, list) else [])
        if isinstance(layer, dict) and layer.get("mediaType") == LAYER_MEDIA_TYPE
    ]
    if len(ours) != 1:
        raise BundleError(
            f"{label}: manifest must have exactly one layer of type {LAYER_MEDIA_TYPE} "
            f"(found {len(ours)})"
        )
    _descriptor(ours[0], label, "layer")
    return config, ours[0]


def pick_manifest(layout: Path, manifests: list, tag: str | None) -> object:
    def ref(d: object) -> str | None:
        annotations = d.get("annotations") if isinstance(d, dict) else None
        return annotations.get(OCI_REF_NAME) if isinstance(annotations, dict) else None

    if tag is not None:
        tagged = [d for d in manifests if ref(d) == tag]
        if not tagged:
            known = sorted(str(ref(d)) for d in manifests if ref(d))
            raise BundleError(
                f"{layout}: no manifest tagged {tag!r} (tags: {', '.join(known) or 'none'})"
            )
        return tagged[0]
    if len(manifests) == 1:
        return manifests[0]
    latest = [d for d in manifests if ref(d) == "latest"]
    if latest:
        return latest[0]
    known = sorted(str(ref(d)) for d in manifests if ref(d))
    raise BundleError(
        f"{layout}: holds {len(manifests)} manifests; pick one as {layout}:TAG "
        f"(tags: {', '.join(known) or 'none'})"
    )
