"""Serving a bundle shipped as a `.tar.gz` archive or an OCI image layout (bundle-spec.md,
*Archives and OCI artifacts*).

An archive is checked against its digest, unpacked once into a cache keyed by that digest and
reused by every later start (`resolve_bundle`, in resolve.py, picks this module for archives and
layouts). An OCI layout's media types, manifests and blob checks are oci_layout.py's. Standard
library only: the runtime depends on numpy and pyarrow and nothing else.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import stat
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ..bundle.reader import open_bundle
from ..errors import BundleError
from ..format import (
    MAX_FILES,
    MAX_METADATA_BYTES,
    MAX_METADATA_DEPTH,
    METADATA_FILE,
    MetadataError,
    sha256_file,
)
from ..format.files import file_entry
from ..format.jsonread import loads
from ..records import record
from .oci_layout import (
    HEX64,
    OCI_INDEX_FILE,
    OCI_LAYOUT_VERSION,
    bundle_layer,
    checked_blob,
    pick_manifest,
    read_json,
)
from .specs import MAX_BUNDLES, OCI_LAYOUT_FILE, is_remote
from .swap import remove_stale_temporaries, staged_files

if TYPE_CHECKING:
    import tarfile

log = logging.getLogger(__name__)

# Anything far beyond a bundle's files is not a bundle; refusing early bounds the work a hostile
# archive can cause.
MAX_MEMBERS = MAX_FILES

# What an archive may expand to: bundles built here unpack to 1.4-2.1 times their .tar.gz
# (float16 vectors and zstd tables barely compress), so more than MAX_EXPANSION times, beyond
# EXPANSION_FLOOR bytes, is data made to compress (a 1.6 MB archive declared 55 MB of zeros):
# refused before anything is written.
MAX_EXPANSION = 16
EXPANSION_FLOOR = 16 << 20
# A bundle member is a plain file name: no directories, no hidden or special names.
_MEMBER_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


@record
class ArchiveSource:
    """A bundle archive whose bytes match `digest` (hex sha256), ready to unpack."""

    archive: Path
    digest: str
    label: str  # how to name it in messages: the path, or "LAYOUT:tag"


def is_oci_layout(path: Path) -> bool:
    return path.is_dir() and (path / OCI_LAYOUT_FILE).is_file()


def locate_archive(spec: str | Path) -> ArchiveSource | None:
    """The verified archive behind `spec`, or None when `spec` is a plain directory.

    `spec` is a `.tar.gz` file (checked against `FILE.sha256` when that exists), an OCI layout
    directory (the layer is checked against the manifest's digest), or `LAYOUT:TAG` to pick a
    tag of a layout that holds several. Raises BundleError with a one-line reason.
    """
    path = Path(spec)
    tag = None
    if not path.exists():
        # `layout:tag`, as oras spells it; only when the part before the colon is a layout.
        head, sep, tail = str(spec).rpartition(":")
        if sep and head and is_oci_layout(Path(head)):
            path, tag = Path(head), tail
        else:
            raise BundleError(f"bundle not found: {spec}")
    if path.is_dir():
        if is_oci_layout(path):
            return _locate_oci(path, tag)
        return None
    if not path.is_file():
        raise BundleError(f"{path}: not a bundle directory, archive or OCI layout")
    try:
        digest = sha256_file(path)
    except OSError as exc:
        raise BundleError(f"{path}: cannot read archive ({exc.strerror or exc})") from None
    expected = _digest_file(path)
    if expected is not None and expected != digest and not _finish_publish(path, digest):
        raise BundleError(
            f"{path}: sha256 {digest} does not match {path.name}.sha256 ({expected}); "
            "the archive is corrupt or was altered"
        )
    return ArchiveSource(path, digest, str(path))


def sidecar_path(archive: Path) -> Path:
    """`ARCHIVE.sha256`, the digest `docsmcp pack` writes beside an archive."""
    return archive.with_name(archive.name + ".sha256")


def _finish_publish(archive: Path, digest: str) -> bool:
    """Whether a pack that was publishing `archive` vouches for `digest`, finishing its work.

    `docsmcp pack` stages the new sidecar as `.ARCHIVE.sha256.tmp-PID`, renames the new
    archive into place, then the sidecar: a pack killed between the two renames leaves the new
    archive beside the old sidecar. The staged sidecar recording this archive's digest is the
    publish's missing half; it is renamed into place once its writer is gone (a live writer
    does that itself; a read-only folder keeps it where it is)."""
    sidecar = sidecar_path(archive)
    for staged, writer_gone in staged_files(sidecar):
        try:
            with open(staged, "rb") as fh:
                text = fh.read(4096).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if parse_sha256sum(text) != digest:
            continue
        if writer_gone:
            try:
                os.replace(staged, sidecar)
                log.warning(
                    "%s: finished an interrupted pack (its new %s was staged as %s)",
                    archive,
                    sidecar.name,
                    staged.name,
                )
            except OSError:
                pass
        return True
    return False


def _digest_file(archive: Path) -> str | None:
    """The hex digest recorded in `ARCHIVE.sha256` (sha256sum format), if that file exists."""
    sidecar = sidecar_path(archive)
    if not sidecar.is_file():
        return None
    try:
        text = sidecar.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BundleError(f"{sidecar}: unreadable digest file ({exc})") from None
    value = parse_sha256sum(text)
    if value is None:
        raise BundleError(f"{sidecar}: not a sha256sum line (expected 64 hex digits first)")
    return value


def parse_sha256sum(text: str) -> str | None:
    """The lower-case hex digest that starts a `sha256sum` line (`HEX  NAME`, or `sha256:HEX`),
    or None when the text does not start with one."""
    first = text.split(maxsplit=1)
    value = first[0].lower().removeprefix("sha256:") if first else ""
    return value if HEX64.fullmatch(value) else None


def _locate_oci(layout: Path, tag: str | None) -> ArchiveSource:
    marker = read_json(layout / OCI_LAYOUT_FILE, "oci-layout file")
    if marker.get("imageLayoutVersion") != OCI_LAYOUT_VERSION:
        raise BundleError(
            f"{layout / OCI_LAYOUT_FILE}: unsupported imageLayoutVersion "
            f"{marker.get('imageLayoutVersion')!r}"
        )
    index = read_json(layout / OCI_INDEX_FILE, "OCI index")
    manifests = index.get("manifests")
    if not isinstance(manifests, list) or not manifests:
        raise BundleError(f"{layout / OCI_INDEX_FILE}: lists no manifests")
    descriptor = pick_manifest(layout, manifests, tag)
    label = f"{layout}:{tag}" if tag else str(layout)
    manifest_blob, _ = checked_blob(layout, descriptor, "manifest")
    manifest = read_json(manifest_blob, "manifest")
    _, layer = bundle_layer(manifest, label)
    blob, hexdigest = checked_blob(layout, layer, "layer")
    return ArchiveSource(blob, hexdigest, label)


def check_room(label: str, folder: Path, needed: int, doing: str) -> None:
    """Refuse in one line `doing` what needs `needed` bytes in `folder` when its disk has less
    free (unpacking, downloading a layer or an https archive); a disk whose usage cannot be read
    is not refused."""
    import shutil  # (the archive modules are imported on use: a local bundle never needs them)

    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return
    if needed > free:
        raise BundleError(f"{label}: {doing} needs {needed} bytes, {folder} has {free} free")


def extract_archive(source: ArchiveSource, dest: Path) -> list[str]:
    """Unpack the bundle files of `source` into the existing empty directory `dest`.

    Only regular files with plain names at the top level are accepted; anything else (absolute
    or `..` paths, subdirectories, links, devices, duplicates) refuses the whole archive. Paths
    are built from the checked names, never by tarfile, so nothing is written outside `dest`.
    Nothing is written before a first pass has checked every member's size against the
    `metadata.json` inside (so a small archive cannot fill the disk with data it does not
    declare) and that the disk has room for them. Returns the member names in archive order.
    The caller removes `dest` on failure.
    """
    import tarfile

    sizes, digests = _declared_sizes(source)
    total = sum(sizes.values())
    packed = source.archive.stat().st_size
    if total > EXPANSION_FLOOR and total > MAX_EXPANSION * packed:
        raise BundleError(
            f"{source.label}: its files take {total} bytes, {total / max(packed, 1):.0f} times "
            f"the archive; a bundle archive expands at most {MAX_EXPANSION} times (built ones "
            "about 2), so it is not unpacked"
        )
    check_room(source.label, dest, total, "unpacking")
    names: list[str] = []
    with _reading(source, "cannot unpack"), tarfile.open(source.archive, mode="r|gz") as tar:
        for member in tar:
            name = member.name
            # Checked by the first pass; the same archive must show the same members now.
            if not member.isreg() or sizes.get(name) != member.size or name in names:
                raise BundleError(f"{source.label}: member {name!r} changed while unpacking")
            fh = tar.extractfile(member)
            assert fh is not None  # regular file
            digest = hashlib.sha256()
            # O_EXCL: nothing existing is ever replaced. Names are checked plain file names.
            with (dest / name).open("xb") as out:
                while block := fh.read(1 << 20):
                    digest.update(block)
                    out.write(block)
                out.flush()
                os.fsync(out.fileno())
            # Each file is checked as it arrives: a forged one stops the unpack there.
            if name in digests and digest.hexdigest() != digests[name]:
                raise BundleError(
                    f"{source.label}: member {name!r} does not match its sha256 in "
                    f"{METADATA_FILE} (corrupt or forged archive)"
                )
            os.chmod(dest / name, 0o644)
            names.append(name)
    return names


@contextlib.contextmanager
def _reading(source: ArchiveSource, failure: str) -> Iterator[None]:
    """Turn what reading a damaged or unreadable archive raises into one-line BundleErrors."""
    import gzip
    import tarfile

    try:
        yield
    except BundleError:
        raise
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise BundleError(
            f"{source.label}: not a readable .tar.gz bundle archive ({exc or type(exc).__name__})"
        ) from None
    except OSError as exc:
        raise BundleError(f"{source.label}: {failure} ({exc.strerror or exc})") from None


def _declared_sizes(source: ArchiveSource) -> tuple[dict[str, int], dict[str, str]]:
    """First pass, reading without writing: every member a plain regular file listed in the
    archive's metadata.json with exactly the size it declares. Returns (name -> size, name ->
    the sha256 metadata.json declares)."""
    import tarfile

    sizes: dict[str, int] = {}
    metadata: bytes | None = None
    with _reading(source, "cannot read"), tarfile.open(source.archive, mode="r|gz") as tar:
        for member in tar:
            name = member.name
            if not member.isreg():
                raise BundleError(f"{source.label}: refusing {_kind(member)} member {name!r}")
            if not _MEMBER_NAME.fullmatch(name):
                raise BundleError(
                    f"{source.label}: refusing member {name!r} (bundle archives hold only "
                    "plain file names at the top level)"
                )
            if name in sizes:
                raise BundleError(f"{source.label}: duplicate member {name!r}")
            if len(sizes) >= MAX_MEMBERS:
                raise BundleError(f"{source.label}: too many members for a bundle")
            sizes[name] = member.size
            if name == METADATA_FILE:
                if member.size > MAX_METADATA_BYTES:
                    raise BundleError(
                        f"{source.label}: {METADATA_FILE} of {member.size} bytes is over "
                        f"the {MAX_METADATA_BYTES}-byte limit"
                    )
                fh = tar.extractfile(member)
                assert fh is not None
                metadata = fh.read()
    if metadata is None:
        raise BundleError(f"{source.label}: archive holds no {METADATA_FILE}; not a bundle")
    declared = _declared_files(source, metadata)
    absent = sorted(set(declared) - set(sizes))
    if absent:
        # tarfile's stream reader takes a gzip stream cut short for its end: an archive cut
        # between members lists fewer of them, and nothing else says it was cut.
        if not _gzip_ends(source.archive):
            raise BundleError(
                f"{source.label}: not a readable .tar.gz bundle archive (its gzip stream "
                "ends early: a truncated file)"
            )
        raise BundleError(f"{source.label}: {absent[0]}: missing (listed in {METADATA_FILE})")
    for name, size in sizes.items():
        if name == METADATA_FILE:
            continue
        if name not in declared:
            raise BundleError(f"{source.label}: files not listed in {METADATA_FILE}: {name}")
        if declared[name][0] != size:
            raise BundleError(
                f"{source.label}: member {name!r} has {size} bytes, {METADATA_FILE} declares "
                f"{declared[name][0]}"
            )
    return sizes, {name: sha for name, (_, sha) in declared.items()}


def _gzip_ends(path: Path) -> bool:
    """Whether the gzip file's first stream reaches its end marker (read once more, in 1 MiB
    blocks: only on the path of a damaged archive)."""
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    with path.open("rb") as fh:
        while not inflate.eof and (block := fh.read(1 << 20)):
            try:
                inflate.decompress(block, 1 << 20)
                while inflate.unconsumed_tail and not inflate.eof:
                    inflate.decompress(inflate.unconsumed_tail, 1 << 20)
            except zlib.error:
                return False
    return inflate.eof


def _declared_files(source: ArchiveSource, metadata: bytes) -> dict[str, tuple[int, str]]:
    """name -> (bytes, sha256) of the `files` of an archived metadata.json (fully checked after
    unpacking)."""
    try:
        meta = loads(metadata.decode("utf-8"), MAX_METADATA_DEPTH)
        files = meta["files"]
        entries = {name: file_entry(name, entry) for name, entry in files.items()}
        return {name: (e.bytes, e.sha256) for name, e in entries.items()}
    except (UnicodeDecodeError, MetadataError, KeyError, TypeError, AttributeError) as exc:
        raise BundleError(f"{source.label}: unusable {METADATA_FILE} ({exc})") from None


def _kind(member: tarfile.TarInfo) -> str:
    if member.isdir():
        return "directory"
    if member.issym():
        return "symlink"
    if member.islnk():
        return "hard link"
    if member.isdev():
        return "device"
    return "non-regular"


def cached_bundle(cache_dir: Path, digest: str | None) -> Path | None:
    """The unpacked bundle of the archive with hex sha256 `digest`, if the cache holds it (None
    for no digest or anything but 64 hex digits: never a path outside `bundles/`)."""
    if not digest or not HEX64.fullmatch(digest):
        return None
    final = cache_dir / "bundles" / digest
    return final if (final / METADATA_FILE).is_file() else None


def unpack_to_cache(source: ArchiveSource, cache_dir: Path) -> Path:
    """`CACHE/bundles/<digest>/`, unpacked from `source` and verified unless already there."""
    bundles = cache_dir / "bundles"
    final = bundles / source.digest
    if (final / METADATA_FILE).is_file():
        return final
    import shutil
    import tempfile

    try:
        bundles.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(bundles)  # what killed unpacks and pulls left behind
        prefix = f".{source.digest[:16]}.tmp-{os.getpid()}-"
        tmp = Path(tempfile.mkdtemp(prefix=prefix, dir=bundles))
    except OSError as exc:
        raise BundleError(
            f"cannot create cache directory {bundles} ({exc.strerror or exc}); "
            "set DOCSMCP_CACHE_DIR to a writable directory"
        ) from None
    try:
        names = extract_archive(source, tmp)
        try:
            bundle = open_bundle(tmp, verify=True)
            bundle.ready()  # every file, large ones too, before the copy enters the cache
        except BundleError as exc:
            # Name the archive, not the temporary directory that is about to disappear.
            raise BundleError(str(exc).replace(str(tmp), f"{source.label} (unpacked)")) from None
        stray = sorted(set(names) - {METADATA_FILE, *bundle.metadata.files})
        del bundle  # drop its memory maps before the rename
        if stray:
            raise BundleError(
                f"{source.label}: files not listed in {METADATA_FILE}: {', '.join(stray)}"
            )
        os.chmod(tmp, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
        try:
            os.rename(tmp, final)
        except OSError:
            # Lost a race with another starter: its copy is identical (same digest).
            if not (final / METADATA_FILE).is_file():
                raise
    except OSError as exc:
        raise BundleError(f"cannot write cache {final} ({exc.strerror or exc})") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final


def _is_bundle(path: Path) -> bool:
    if path.is_dir():
        return (path / METADATA_FILE).is_file() or is_oci_layout(path)
    return path.is_file() and path.name.endswith(".tar.gz")


def expand_bundles(specs: list[str] | tuple[str, ...]) -> list[str]:
    """The bundles named by `--bundle` values, in order: a bundle (directory, archive, OCI
    layout, `LAYOUT:TAG`) stands for itself; a directory that is none of these but holds
    bundles stands for them, sorted by name (hidden entries skipped). BundleError otherwise."""
    out: list[str] = []
    for spec in specs:
        path = Path(spec)
        if not is_remote(spec) and path.is_dir() and not _is_bundle(path):
            try:
                children = sorted(
                    (c for c in path.iterdir() if not c.name.startswith(".") and _is_bundle(c)),
                    key=lambda c: c.name.encode(),
                )
            except OSError as exc:
                raise BundleError(f"{path}: cannot list ({exc.strerror or exc})") from None
            if not children:
                raise BundleError(
                    f"{path}: neither a bundle (no {METADATA_FILE}) nor a directory of bundles; "
                    "build one with: docsmcp build --docs-dir DOCS --out DIR"
                )
            out.extend(str(c) for c in children)
        else:
            out.append(str(spec))
    if len(out) > MAX_BUNDLES:
        raise BundleError(f"{len(out)} bundles given; one server serves at most {MAX_BUNDLES}")
    return out
