"""`docsmcp push BUNDLE|ARCHIVE|LAYOUT REGISTRY/REPO:TAG`: publish a bundle as an OCI artifact.

The artifact is exactly what `docsmcp pack --oci` writes (`pack.oci_manifest`, the same
reproducible archive as its one layer), so the digests are the same whichever way a bundle
travels. Blobs the registry already holds are skipped (HEAD), and a tag already pointing at the
same manifest is left alone: pushing the same bundle twice uploads nothing. The HTTP client is
the runtime's (`docsmcp_runtime.distribution.registry_client`), standard library only.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.distribution.archive import locate_archive, unpack_to_cache
from docsmcp_runtime.distribution.registry import EMPTY_CONFIG, parse_reference
from docsmcp_runtime.distribution.registry_client import Session
from docsmcp_runtime.errors import BundleError
from docsmcp_runtime.format import Metadata, sha256_file

from .cache import cache_root
from .pack import PackError, bundle_members, oci_manifest, source_date_epoch, write_tar_gz
from .progress import Progress


@dataclass(frozen=True)
class Pushed:
    reference: str  # REGISTRY/REPO:TAG
    digest: str  # "sha256:..." of the manifest
    layer_digest: str  # hex sha256 of the bundle archive
    layer_size: int
    uploaded: tuple[str, ...]  # digests of the blobs sent (empty when the registry had them)
    tagged: bool  # False when the tag already named this manifest

    @property
    def pinned(self) -> str:
        return f"{self.reference}@{self.digest}"


def push(
    source: Path,
    reference: str,
    progress: Callable[[str, int], Progress] | None = None,
) -> Pushed:
    """Push the bundle directory, archive or OCI layout at `source` to `reference`.
    Raises PackError (the bundle) or BundleError (the registry) with one line."""
    try:
        ref = parse_reference(reference)
    except ValueError as exc:
        raise PackError(str(exc)) from None
    if ref.digest is not None:
        raise PackError(f"push to a tag, not a digest: {reference}")
    assert ref.tag is not None
    with tempfile.TemporaryDirectory(prefix="docsmcp-push-") as tmp:
        layer, metadata = _layer(source, Path(tmp), progress)
        digest = sha256_file(layer)
        size = layer.stat().st_size
        manifest = oci_manifest(digest, size, metadata)
        manifest_digest = "sha256:" + hashlib.sha256(manifest).hexdigest()
        session = Session(ref, actions="pull,push")
        uploaded = []
        blobs = (
            ("sha256:" + hashlib.sha256(EMPTY_CONFIG).hexdigest(), len(EMPTY_CONFIG), EMPTY_CONFIG),
            (f"sha256:{digest}", size, lambda: layer.open("rb")),
        )
        for blob_digest, blob_size, body in blobs:
            if not session.blob_exists(blob_digest):
                session.upload_blob(blob_digest, blob_size, body)
                uploaded.append(blob_digest)
        tagged = session.manifest_digest(ref.tag) != manifest_digest
        if tagged:
            session.put_manifest(ref.tag, manifest)
    return Pushed(str(ref), manifest_digest, digest, size, tuple(uploaded), tagged)


def _layer(
    source: Path, tmp: Path, progress: Callable[[str, int], Progress] | None
) -> tuple[Path, Metadata]:
    """(the bundle archive, its metadata): packed from a directory exactly as `pack` does, or
    an existing archive / OCI layer after checking it fully (digest, members, checksums)."""
    if not source.exists():
        raise PackError(f"bundle not found: {source}")
    try:
        archive = locate_archive(source)
    except BundleError as exc:
        raise PackError(str(exc)) from None
    if archive is None:
        metadata, names = bundle_members(source)
        layer = tmp / "bundle.tar.gz"
        write_tar_gz(source, names, layer, source_date_epoch(), progress)
        return layer, metadata
    # Unpacking into the cache checks every member and checksum; a later pull of the same
    # digest then needs no unpacking on this machine.
    try:
        bundle = open_bundle(unpack_to_cache(archive, cache_root(None)), verify=False)
    except BundleError as exc:
        raise PackError(f"not a valid bundle: {exc}") from None
    return archive.archive, bundle.metadata
