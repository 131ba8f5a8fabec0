"""`--bundle oci://REGISTRY/REPO:TAG`: the manifest and the bundle layer pulled, every digest
checked, the layer unpacked through the archive cache; a record per reference
(`CACHE/oci/<key>.json`) so that a registry that cannot be reached later still serves the copy
it last gave.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

from ..errors import BundleError
from ..records import record
from .archive import ArchiveSource, cached_bundle, check_room, unpack_to_cache
from .oci_layout import HEX64, bundle_layer
from .registry import (
    _DIGEST,
    EMPTY_CONFIG,
    MAX_LAYER_BYTES,
    MAX_RECORDS,
    MAX_SMALL_BYTES,
    Reference,
    RegistryError,
    Unreachable,
    parse_reference,
)
from .registry_client import Session
from .specs import OCI_SCHEME as SCHEME
from .swap import remove_stale_temporaries, replace_file

_log = logging.getLogger(__name__)


@record
class Record:
    """What a reference resolved to when it was last pulled (CACHE/oci/<key>.json)."""

    reference: str
    manifest: str  # "sha256:..."
    layer: str  # hex sha256 of the bundle archive = the bundles/ cache entry


def record_path(cache_dir: Path, reference: Reference) -> Path:
    key = hashlib.sha256(_record_key(reference).encode()).hexdigest()[:32]
    return cache_dir / "oci" / f"{key}.json"


def _record_key(reference: Reference) -> str:
    # A pinned reference is the digest whatever tag is written beside it.
    if reference.digest is not None:
        return f"{reference.registry}/{reference.repository}@{reference.digest}"
    return str(reference)


def read_record(cache_dir: Path, reference: Reference) -> Record | None:
    path = record_path(cache_dir, reference)
    try:
        data = json.loads(path.read_bytes()[:MAX_SMALL_BYTES])
        record = Record(str(data["reference"]), str(data["manifest"]), str(data["layer"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if (
        record.reference != _record_key(reference)
        or not _DIGEST.fullmatch(record.manifest)
        or not HEX64.fullmatch(record.layer)
        or (reference.digest is not None and record.manifest != reference.digest)
    ):
        return None
    return record


def _write_record(cache_dir: Path, reference: Reference, manifest: str, layer: str) -> None:
    """Best effort: a cache that cannot record only loses the offline fallback."""
    path = record_path(cache_dir, reference)
    data = {"reference": _record_key(reference), "manifest": manifest, "layer": layer}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, json.dumps(data, sort_keys=True).encode())
        records = sorted(
            (p for p in path.parent.glob("*.json")), key=lambda p: p.stat().st_mtime, reverse=True
        )
        for old in records[MAX_RECORDS:]:
            old.unlink(missing_ok=True)
    except OSError as exc:
        _log.warning("cannot record %s in %s (%s)", reference, path.parent, exc.strerror or exc)


def pull_bundle(spec: str, cache_dir: Path) -> Path:
    """The unpacked, verified bundle directory for `oci://...`; BundleError with one line."""
    try:
        reference = parse_reference(spec)
    except ValueError as exc:
        raise BundleError(str(exc)) from None
    record = read_record(cache_dir, reference)
    if reference.digest is not None and record is not None:
        cached = cached_bundle(cache_dir, record.layer)
        if cached is not None:
            # A manifest digest names its content forever: no need to ask the registry.
            return cached
    session = Session(reference)
    try:
        body, manifest_digest = session.get_manifest()
    except Unreachable as exc:
        cached = cached_bundle(cache_dir, record.layer) if record is not None else None
        if record is None or cached is None:
            raise RegistryError(f"{exc}; no cached copy of {reference} to serve") from None
        _log.warning(
            "%s; serving the cached copy of %s (manifest %s)", exc, reference, record.manifest
        )
        return cached
    label = SCHEME + str(reference)
    try:
        manifest = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise RegistryError(f"{label}: the manifest is not JSON") from None
    config, layer = bundle_layer(manifest, label)
    config_digest, config_size = config
    if config_digest == "sha256:" + hashlib.sha256(EMPTY_CONFIG).hexdigest():
        if config_size != len(EMPTY_CONFIG):
            raise RegistryError(f"{label}: the empty config's size is {config_size}, not 2")
    else:
        data = session.get_blob(config_digest, min(config_size, MAX_SMALL_BYTES), "config blob")
        if "sha256:" + hashlib.sha256(data).hexdigest() != config_digest:
            raise RegistryError(f"{label}: config blob does not match its digest; refusing it")
    layer_digest, layer_size = layer["digest"], layer["size"]
    hexdigest = layer_digest.removeprefix("sha256:")
    cached = cached_bundle(cache_dir, hexdigest)
    if cached is None:
        cached = _download_layer(session, cache_dir, label, layer_digest, layer_size)
    _write_record(cache_dir, reference, manifest_digest, hexdigest)
    if record is None or record.manifest != manifest_digest:
        _log.info("pulled %s (manifest %s, %d bytes)", reference, manifest_digest, layer_size)
    return cached


def _download_layer(session: Session, cache_dir: Path, label: str, digest: str, size: int) -> Path:
    if size > MAX_LAYER_BYTES:
        raise RegistryError(f"{label}: bundle layer of {size} bytes is over {MAX_LAYER_BYTES}")
    bundles = cache_dir / "bundles"
    try:
        bundles.mkdir(parents=True, exist_ok=True)
        check_room(label, bundles, size, "downloading the layer")  # before a file is open
        remove_stale_temporaries(bundles)  # what killed pulls and unpacks left behind
        fd, name = tempfile.mkstemp(prefix=f".{digest[7:23]}.pull-{os.getpid()}-", dir=bundles)
    except OSError as exc:
        raise RegistryError(
            f"cannot create cache directory {bundles} ({exc.strerror or exc}); "
            "set DOCSMCP_CACHE_DIR to a writable directory"
        ) from None
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as out:
            session.download_blob(digest, size, out)
        return unpack_to_cache(ArchiveSource(tmp, digest.removeprefix("sha256:"), label), cache_dir)
    except OSError as exc:
        raise RegistryError(f"cannot write {tmp} ({exc.strerror or exc})") from None
    finally:
        tmp.unlink(missing_ok=True)
