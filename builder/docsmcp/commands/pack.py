"""`docsmcp pack`: a bundle directory as a reproducible `.tar.gz` and/or an OCI image layout
(bundle-spec.md, *Archives and OCI artifacts*).

Reproducible means the same bundle gives the same bytes on any machine and at any time: entries
sorted by name, fixed owner/mode/mtime, a gzip header without name or time. The digest of the
archive is then a stable name for the bundle's content, which is what the runtime's cache and
an OCI registry key it by.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import shutil
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.distribution.archive import is_oci_layout, sidecar_path
from docsmcp_runtime.distribution.oci_layout import (
    ANNOTATION_BUNDLE_ID,
    ANNOTATION_FORMAT_VERSION,
    ARTIFACT_TYPE,
    LAYER_MEDIA_TYPE,
    LAYER_TITLE,
    OCI_EMPTY_MEDIA_TYPE,
    OCI_INDEX_FILE,
    OCI_INDEX_MEDIA_TYPE,
    OCI_LAYOUT_VERSION,
    OCI_MANIFEST_MEDIA_TYPE,
    OCI_REF_NAME,
    OCI_TITLE,
)
from docsmcp_runtime.distribution.registry import EMPTY_CONFIG, TAG_PATTERN
from docsmcp_runtime.distribution.specs import OCI_LAYOUT_FILE
from docsmcp_runtime.distribution.swap import (
    remove_stale_temporaries,
    staging_path,
    swap_dir,
)
from docsmcp_runtime.errors import BundleError
from docsmcp_runtime.format import (
    METADATA_FILE,
    Metadata,
    sha256_file,
)

from docsmcp.commands.console import PROG, _err
from docsmcp.common.progress import Progress

DEFAULT_TAG = "latest"


class PackError(Exception):
    """The bundle cannot be packed, or the output cannot be written; the message is one line."""


@dataclass(frozen=True)
class PackResult:
    bundle_id: str
    digest: str  # hex sha256 of the .tar.gz (= the OCI layer)
    size: int
    archive: Path | None
    oci_dir: Path | None
    manifest_digest: str | None  # "sha256:..." of the OCI manifest
    tag: str | None


def source_date_epoch() -> int:
    """Entry mtime: `$SOURCE_DATE_EPOCH` (the reproducible-builds convention) or 0."""
    value = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not value:
        return 0
    if not value.isdigit() or int(value) >= 8**11:  # ustar stores 11 octal digits
        raise PackError(f"SOURCE_DATE_EPOCH={value!r} is not a valid Unix time")
    return int(value)


def bundle_members(bundle_dir: Path) -> tuple[Metadata, list[str]]:
    """(metadata, member names in archive order) of a valid bundle; PackError otherwise.

    An archive must hold exactly one bundle and nothing else, so besides the checks of
    `open_bundle` (sizes, sha256, shapes) the directory may hold no stray entries.
    """
    try:
        bundle = open_bundle(bundle_dir, verify=True)
    except BundleError as exc:
        raise PackError(f"not a valid bundle: {exc}") from None
    metadata = bundle.metadata
    del bundle
    names = sorted({METADATA_FILE, *metadata.files}, key=lambda n: n.encode())
    stray = sorted(p.name for p in bundle_dir.iterdir() if p.name not in names)
    if stray:
        raise PackError(
            f"not a valid bundle: {bundle_dir} holds files that are not part of it: "
            f"{', '.join(stray)}"
        )
    return metadata, names


class _Counted:
    """A file read through: every MiB read advances `counter` (compressing is the slow part)."""

    def __init__(self, counter: Progress) -> None:
        self.counter, self.pending = counter, 0  # bytes read since the last whole MiB
        self.fh: BinaryIO | None = None

    def over(self, fh: BinaryIO) -> _Counted:
        """Read `fh` next (the count carries on across files)."""
        self.fh = fh
        return self

    def read(self, size: int = -1) -> bytes:
        assert self.fh is not None
        data = self.fh.read(size)
        self.pending += len(data)
        if self.pending >= MIB:
            self.counter.advance(self.pending // MIB)
            self.pending %= MIB
        return data


MIB = 1 << 20


def write_tar_gz(
    bundle_dir: Path,
    names: list[str],
    out: Path,
    mtime: int,
    progress: Callable[[str, int], Progress] | None = None,
) -> None:
    """Write the reproducible archive of `names` (already in byte order) to `out`; `progress`
    makes a counter of the MiB compressed."""
    sizes = [(bundle_dir / name).stat().st_size for name in names]
    counter = progress("packing MiB", sum(sizes) // MIB) if progress else None
    counted = _Counted(counter) if counter is not None else None
    with out.open("wb") as raw:
        # filename="" and mtime=0 keep the name and time out of the gzip header; Python always
        # writes OS=255, so the header is fixed and the bytes depend only on the content.
        with (
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as gz,
            tarfile.open(fileobj=gz, mode="w", format=tarfile.USTAR_FORMAT) as tar,
        ):
            for name in names:
                path = bundle_dir / name
                info = tarfile.TarInfo(name)
                info.size = path.stat().st_size
                info.mtime = mtime
                info.mode = 0o644
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                with path.open("rb") as fh:
                    tar.addfile(info, counted.over(fh) if counted is not None else fh)
        if counter is not None:
            counter.close()
        raw.flush()
        os.fsync(raw.fileno())


def _json_bytes(obj: dict) -> bytes:
    # Sorted keys and no whitespace: the manifest digest depends only on its content.
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _put_blob(blobs: Path, data: bytes) -> dict:
    descriptor = _descriptor(data)
    (blobs / descriptor["digest"].removeprefix("sha256:")).write_bytes(data)
    return descriptor


# Standard keys (OCI image-spec annotations.md) where one fits; docsmcp's own beside them.
ANNOTATION_TITLE = "org.opencontainers.image.title"
ANNOTATION_DESCRIPTION = "org.opencontainers.image.description"
ANNOTATION_VERSION = "org.opencontainers.image.version"
ANNOTATION_REVISION = "org.opencontainers.image.revision"


def manifest_annotations(metadata: Metadata) -> dict[str, str]:
    """The manifest's annotations: name, description, version and source commit of the docs
    when known, bundle id and format version. No creation time: the same bundle must give the
    same manifest digest whenever it is packed or pushed."""
    annotations = {
        ANNOTATION_BUNDLE_ID: metadata.bundle_id,
        ANNOTATION_FORMAT_VERSION: str(metadata.format_version),
        ANNOTATION_TITLE: metadata.name,
    }
    if metadata.description:
        annotations[ANNOTATION_DESCRIPTION] = metadata.description
    if metadata.version:
        annotations[ANNOTATION_VERSION] = metadata.version
    if metadata.source.commit:
        annotations[ANNOTATION_REVISION] = metadata.source.commit
    return annotations


def oci_manifest(digest: str, size: int, metadata: Metadata) -> bytes:
    """The OCI manifest of a bundle whose archive (the one layer) has hex sha256 `digest`:
    the same bytes for `pack --oci` and `push`."""
    config = {"mediaType": OCI_EMPTY_MEDIA_TYPE, **_descriptor(EMPTY_CONFIG), "data": "e30="}
    manifest = {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST_MEDIA_TYPE,
        "artifactType": ARTIFACT_TYPE,
        "config": config,
        "layers": [
            {
                "mediaType": LAYER_MEDIA_TYPE,
                "digest": f"sha256:{digest}",
                "size": size,
                "annotations": {
                    OCI_TITLE: LAYER_TITLE,
                    ANNOTATION_BUNDLE_ID: metadata.bundle_id,
                    ANNOTATION_FORMAT_VERSION: str(metadata.format_version),
                },
            }
        ],
        "annotations": manifest_annotations(metadata),
    }
    return _json_bytes(manifest)


def _descriptor(data: bytes) -> dict:
    return {"digest": f"sha256:{hashlib.sha256(data).hexdigest()}", "size": len(data)}


def write_oci_layout(layer: Path, digest: str, metadata: Metadata, dest: Path, tag: str) -> str:
    """Fill the empty directory `dest` with an OCI image layout holding one manifest whose only
    layer is `layer` (a bundle .tar.gz with hex sha256 `digest`). Returns the manifest digest."""
    blobs = dest / "blobs" / "sha256"
    blobs.mkdir(parents=True)
    shutil.copyfile(layer, blobs / digest)
    _put_blob(blobs, EMPTY_CONFIG)
    manifest_desc = _put_blob(blobs, oci_manifest(digest, layer.stat().st_size, metadata))
    index = {
        "schemaVersion": 2,
        "mediaType": OCI_INDEX_MEDIA_TYPE,
        "manifests": [
            {
                "mediaType": OCI_MANIFEST_MEDIA_TYPE,
                "artifactType": ARTIFACT_TYPE,
                **manifest_desc,
                "annotations": {OCI_REF_NAME: tag},
            }
        ],
    }
    (dest / OCI_INDEX_FILE).write_bytes(_json_bytes(index))
    (dest / OCI_LAYOUT_FILE).write_bytes(_json_bytes({"imageLayoutVersion": OCI_LAYOUT_VERSION}))
    return manifest_desc["digest"]


def _check_replaceable_layout(dest: Path) -> None:
    if dest.exists() and not dest.is_dir():
        raise PackError(f"refusing to replace {dest}: it is a file, not an OCI layout directory")
    if dest.is_dir() and not is_oci_layout(dest) and any(dest.iterdir()):
        raise PackError(
            f"refusing to replace {dest}: it is a non-empty directory that is not an OCI layout"
        )


def pack(
    bundle_dir: Path,
    archive: Path | None = None,
    oci_dir: Path | None = None,
    tag: str = DEFAULT_TAG,
    progress: Callable[[str, int], Progress] | None = None,
) -> PackResult:
    """Write the bundle at `bundle_dir` as `archive` (plus `archive.sha256`) and/or as an OCI
    layout at `oci_dir`. Every output is written beside its destination and renamed into place:
    on failure nothing is left half-written. Raises PackError."""
    if archive is None and oci_dir is None:
        raise PackError("nothing to write: give -o ARCHIVE and/or --oci DIR")
    if not TAG_PATTERN.fullmatch(tag):
        raise PackError(f"invalid tag {tag!r} (letters, digits, '_', '.', '-'; at most 128)")
    if not bundle_dir.is_dir():
        raise PackError(f"bundle directory not found: {bundle_dir}")
    mtime = source_date_epoch()
    metadata, names = bundle_members(bundle_dir)
    if oci_dir is not None:
        oci_dir = oci_dir.resolve()
        _check_replaceable_layout(oci_dir)
    if archive is not None:
        archive = archive.resolve()
        if archive.is_dir():
            raise PackError(f"refusing to write {archive}: it is a directory")
    pid = os.getpid()
    staged: list[Path] = []
    for dest in (archive, oci_dir):  # what killed packs of these outputs left behind
        if dest is not None:
            remove_stale_temporaries(dest.parent, f".{dest.name}.")
    try:
        # The archive's bytes are made once and copied: the layer is the same file.
        if archive is not None:
            archive.parent.mkdir(parents=True, exist_ok=True)
            tar_path = archive.parent / f".{archive.name}.tmp-{pid}"
        else:
            assert oci_dir is not None
            oci_dir.parent.mkdir(parents=True, exist_ok=True)
            tar_path = oci_dir.parent / f".{oci_dir.name}.tar.gz.tmp-{pid}"
        staged.append(tar_path)
        write_tar_gz(bundle_dir, names, tar_path, mtime, progress)
        digest = sha256_file(tar_path)
        size = tar_path.stat().st_size
        manifest_digest = None
        if oci_dir is not None:
            oci_tmp = oci_dir.parent / f".{oci_dir.name}.tmp-{pid}"
            shutil.rmtree(oci_tmp, ignore_errors=True)
            staged.append(oci_tmp)
            manifest_digest = write_oci_layout(tar_path, digest, metadata, oci_tmp, tag)
        if archive is not None:
            # Archive first, then sidecar: a pack killed between the two renames leaves the
            # staged sidecar, with which readers finish the publish (archive._finish_publish).
            sidecar = sidecar_path(archive)
            sidecar_tmp = staging_path(sidecar, pid=pid)
            staged.append(sidecar_tmp)
            sidecar_tmp.write_text(f"{digest}  {archive.name}\n", encoding="utf-8")
            os.replace(tar_path, archive)
            os.replace(sidecar_tmp, sidecar)
        if oci_dir is not None:
            swap_dir(oci_tmp, oci_dir)
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        raise PackError(f"cannot write{where}: {exc.strerror or exc}") from None
    finally:
        for path in staged:
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
    return PackResult(
        bundle_id=metadata.bundle_id,
        digest=digest,
        size=size,
        archive=archive,
        oci_dir=oci_dir,
        manifest_digest=manifest_digest,
        tag=tag if oci_dir is not None else None,
    )


def _pack(args: argparse.Namespace) -> int:
    if args.output is None and args.oci is None:
        _err("error: pack needs -o ARCHIVE and/or --oci DIR")
        return 2
    try:
        result = pack(
            args.bundle,
            archive=args.output,
            oci_dir=args.oci,
            tag=args.tag,
            progress=lambda label, total: Progress(PROG, label, total),
        )
    except PackError as exc:
        _err(f"error: {exc}")
        return 1
    if result.archive is not None:
        # sha256sum format, the same line as ARCHIVE.sha256
        print(f"{result.digest}  {args.output}")
    if result.oci_dir is not None:
        print(
            f"oci layout {args.oci}:{result.tag}: manifest {result.manifest_digest}, "
            f"layer sha256:{result.digest} ({result.size} bytes)"
        )
    return 0
