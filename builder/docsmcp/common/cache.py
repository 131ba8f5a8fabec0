"""The cache root (`../shared/DECISIONS.md`, *Caches*): one folder, `--cache-dir` or else the
runtime's default (`$DOCSMCP_CACHE_DIR`, `$XDG_CACHE_HOME/docsmcp`, `~/.cache/docsmcp`), with one
subfolder per kind, each bounded with least-recently-used eviction (modification time is the
use time: readers touch what they use). Bundles never depend on it; `docsmcp cache info|clean`.

    parsed/       parse cache, one file per output bundle (parse_cache.py)
    embeddings/   embedding cache, one file per output bundle and provider (embed_cache.py)
    pdf/          PDF extractions by the PDF's sha256 (sources/pdf/cached.py)
    git/          git checkouts, one per repository (gitsource.py)
    bundles/      archives and OCI layouts the runtime unpacked
                  (docsmcp_runtime.distribution.archive)
    oci/          what each pulled oci:// reference resolved to
                  (docsmcp_runtime.distribution.registry_pull)
    downloads/    https:// bundles: partial downloads, and which sha256 each URL served last
                  (docsmcp_runtime.distribution.remote)
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from docsmcp_runtime.distribution.specs import default_cache_dir
from docsmcp_runtime.distribution.swap import stale_temporaries


@dataclass(frozen=True)
class Kind:
    name: str
    what: str
    max_bytes: int | None  # None: bounded by its owner another way (git: by count)


GIB = 1 << 30
KINDS = (
    Kind("parsed", "parsed and chunked files, per output bundle", 1 * GIB),
    Kind("embeddings", "section vectors, per output bundle and provider", 2 * GIB),
    Kind("pdf", "text extracted from PDFs, by content hash", 1 * GIB),
    Kind("git", "git checkouts (at most 16 repositories)", None),
    Kind("bundles", "archives, OCI layouts, pulls and downloads unpacked by the runtime", None),
    Kind("oci", "oci:// references and the digests they last resolved to (at most 1,000)", None),
    # One partial file per URL at most, deleted once unpacked into bundles/; records are tiny.
    Kind("downloads", "https:// bundle downloads in progress and their URL records", None),
)
KIND_NAMES = tuple(k.name for k in KINDS)


def max_bytes(kind: str) -> int:
    """The size bound of a kind that has one (parsed, embeddings, pdf)."""
    bound = next(k.max_bytes for k in KINDS if k.name == kind)
    assert bound is not None, f"{kind} is not bounded by size"
    return bound


def cache_root(given: Path | None) -> Path:
    """`--cache-dir` when given, else the default root shared with the runtime."""
    return Path(given) if given is not None else default_cache_dir()


def output_key(out: Path) -> str:
    """Names an output bundle's own files in the shared kinds: rebuilding OUT finds its cache,
    and two bundles never prune each other's."""
    return hashlib.sha256(str(Path(out).resolve()).encode()).hexdigest()[:16]


def touch(path: Path) -> None:
    """Mark a cache file as just used (eviction goes by modification time)."""
    with contextlib.suppress(OSError):
        os.utime(path)


def _size(path: Path) -> int:
    if path.is_symlink() or not path.is_dir():
        try:
            return path.lstat().st_size
        except OSError:
            return 0
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += (Path(folder) / name).lstat().st_size
    return total


def _entries(folder: Path) -> list[Path]:
    """The entries of a kind folder (temporary files of live writers included)."""
    try:
        return sorted(folder.iterdir())
    except OSError:
        return []


def evict(folder: Path, max_bytes: int, keep: tuple[Path, ...] = ()) -> int:
    """Remove the least recently used entries of `folder` until it holds at most `max_bytes`
    (never those in `keep`); returns the bytes freed."""
    entries = [(e.lstat().st_mtime, e) for e in _entries(folder) if not e.name.startswith(".")]
    sizes = {e: _size(e) for _, e in entries}
    total = sum(sizes.values())
    freed = 0
    for _, entry in sorted(entries, key=lambda t: (t[0], t[1].name)):
        if total - freed <= max_bytes:
            break
        if entry in keep:
            continue
        _remove(entry)
        freed += sizes[entry]
    return freed


def _remove(entry: Path) -> None:
    if entry.is_dir() and not entry.is_symlink():
        shutil.rmtree(entry, ignore_errors=True)
    else:
        entry.unlink(missing_ok=True)


@dataclass(frozen=True)
class KindInfo:
    kind: Kind
    path: Path
    entries: int
    bytes: int
    # Temporary entries whose writer is gone (a killed unpack, pull or pack): counted apart,
    # removed by the next writer of that folder or by `clean`.
    stale: int = 0
    stale_bytes: int = 0


def info(root: Path) -> list[KindInfo]:
    out = []
    for kind in KINDS:
        folder = root / kind.name
        # Lock files (git checkouts in use) and temporary files are not entries of their own.
        entries = [
            e
            for e in _entries(folder)
            if not e.name.startswith(".") and not e.name.endswith(".lock")
        ]
        stale = stale_temporaries(folder)
        size = sum(_size(e) for e in entries)
        out.append(
            KindInfo(kind, folder, len(entries), size, len(stale), sum(_size(e) for e in stale))
        )
    return out


def clean(root: Path, kinds: tuple[str, ...] = KIND_NAMES) -> int:
    """Empty the folders of `kinds` under `root` (nothing else is touched); bytes freed."""
    freed = 0
    for name in kinds:
        folder = root / name
        for entry in _entries(folder):
            freed += _size(entry)
            _remove(entry)
    return freed
