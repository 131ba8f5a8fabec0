"""A hostile bundle archive is refused before it writes anything to the cache: every member's
size is checked against the archived metadata.json in a first, read-only pass."""

from __future__ import annotations

import io
import json
import resource
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from docsmcp_runtime.distribution.resolve import resolve_bundle
from docsmcp_runtime.errors import BundleError

pytestmark = pytest.mark.slow  # gzips tens of MiB

ZEROS = 64 << 20  # 64 MiB of zeros: about 64 KB gzipped
# The unpacking runs in a child that may not write files over 8 MiB (RLIMIT_FSIZE): writing the
# zeros before checking them would fail there with "File too large" instead of being refused.
UNPACK = """
import sys
from pathlib import Path
from docsmcp_runtime.distribution.resolve import resolve_bundle
from docsmcp_runtime.errors import BundleError
try:
    resolve_bundle(sys.argv[1], cache_dir=Path(sys.argv[2]))
except BundleError as exc:
    print(exc)
"""


def _unpack_with_small_files(archive: Path, cache: Path) -> str:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (8 << 20, 8 << 20))

    proc = subprocess.run(
        [sys.executable, "-c", UNPACK, str(archive), str(cache)],
        capture_output=True, text=True, timeout=120, preexec_fn=limit,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


class _Zeros(io.RawIOBase):
    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n


def _archive(bundle: Path, out: Path, swap: dict[str, int] | None = None, extra: int = 0) -> Path:
    """The bundle as a .tar.gz, with members in `swap` replaced by that many zero bytes and an
    `extra` unlisted member of zeros."""
    swap = swap or {}
    with tarfile.open(out, "w:gz") as tar:
        for path in sorted(bundle.iterdir()):
            info = tar.gettarinfo(str(path), arcname=path.name)
            if path.name in swap:
                info.size = swap[path.name]
                tar.addfile(info, io.BufferedReader(_Zeros(info.size)))
            else:
                with path.open("rb") as fh:
                    tar.addfile(info, fh)
        if extra:
            info = tarfile.TarInfo("zeros.bin")
            info.size = extra
            tar.addfile(info, io.BufferedReader(_Zeros(extra)))
    return out


def _cache_bytes(cache: Path) -> int:
    return sum(p.stat().st_size for p in cache.rglob("*") if p.is_file())


@pytest.mark.parametrize("attack", ["oversized member", "unlisted member"])
def test_an_archive_cannot_write_what_it_does_not_declare(
    example_bundle: Path, tmp_path: Path, attack: str
) -> None:
    if attack == "oversized member":
        archive = _archive(example_bundle, tmp_path / "a.tar.gz", swap={"terms.bin": ZEROS})
        expected = "member 'terms.bin' has 67108864 bytes, metadata.json declares"
    else:
        archive = _archive(example_bundle, tmp_path / "a.tar.gz", extra=ZEROS)
        expected = "files not listed in metadata.json: zeros.bin"
    assert archive.stat().st_size < 1 << 20
    cache = tmp_path / "cache"
    assert expected in _unpack_with_small_files(archive, cache)
    assert _cache_bytes(cache) == 0  # nothing was unpacked


def test_metadata_json_is_bounded_before_it_is_read(example_bundle: Path, tmp_path: Path) -> None:
    archive = _archive(example_bundle, tmp_path / "a.tar.gz", swap={"metadata.json": ZEROS})
    with pytest.raises(BundleError, match="over the"):
        resolve_bundle(archive, cache_dir=tmp_path / "cache")


def test_an_honest_archive_still_unpacks(example_bundle: Path, tmp_path: Path) -> None:
    archive = _archive(example_bundle, tmp_path / "a.tar.gz")
    unpacked = resolve_bundle(archive, cache_dir=tmp_path / "cache")
    meta = json.loads((unpacked / "metadata.json").read_text())
    assert sorted(p.name for p in unpacked.iterdir()) == sorted(["metadata.json", *meta["files"]])


def _declaring(bundle: Path, out: Path, extra: dict[str, bytes | int]) -> Path:
    """A copy of `bundle` whose metadata.json also lists `extra` files (bytes, or that many
    zero bytes), with their true sizes and sha256, resealed: consistent in every way."""
    import hashlib
    import shutil

    from docsmcp_runtime.format import bundle_id

    shutil.copytree(bundle, out)
    meta = json.loads((out / "metadata.json").read_text())
    for name, body in extra.items():
        data = bytes(body) if isinstance(body, int) else body
        (out / name).write_bytes(data)
        meta["files"][name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    meta["bundle_id"] = bundle_id({n: e["sha256"] for n, e in meta["files"].items()})
    (out / "metadata.json").write_text(json.dumps(meta))
    return out


def test_an_archive_expanding_far_beyond_its_size_is_refused(
    example_bundle: Path, tmp_path: Path
) -> None:
    """Issue 31: a 1.6 MB archive declaring 55 MB of zeros (listed, sized and hashed, so every
    other check passes) was unpacked in full. Built archives expand about 2 times."""
    bundle = _declaring(example_bundle, tmp_path / "b", {"zeros.bin": 40 << 20})
    archive = _archive(bundle, tmp_path / "a.tar.gz")
    assert archive.stat().st_size < 1 << 20
    cache = tmp_path / "cache"
    message = _unpack_with_small_files(archive, cache)
    assert "times the archive; a bundle archive expands at most 16 times" in message
    assert _cache_bytes(cache) == 0


def test_a_forged_member_stops_the_unpack_where_it_arrives(
    example_bundle: Path, tmp_path: Path
) -> None:
    """Sizes right, content not: the member is refused as it is unpacked, by its sha256, and
    nothing stays in the cache."""
    bundle = tmp_path / "b"
    import shutil

    shutil.copytree(example_bundle, bundle)
    terms = bundle / "terms.bin"
    data = bytearray(terms.read_bytes())
    data[0] ^= 0xFF
    terms.write_bytes(bytes(data))
    archive = _archive(bundle, tmp_path / "a.tar.gz")
    cache = tmp_path / "cache"
    with pytest.raises(BundleError, match=r"member 'terms.bin' does not match its sha256"):
        resolve_bundle(archive, cache_dir=cache)
    assert _cache_bytes(cache) == 0
