"""Archives and OCI layouts of real bundles: `docsmcp pack`, `docsmcp verify` (real child
processes) and the runtime's `resolve_bundle` (called directly; the runtime CLI wiring is
tested elsewhere)."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import numpy as np
import pytest
from conftest import EXAMPLE_DOCS, build_bundle, run_docsmcp
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.distribution.resolve import resolve_bundle
from docsmcp_runtime.errors import BundleError
from docsmcp_runtime.tools.app import DocsApp

QUERIES = [
    {"query": "retry with backoff"},
    {"query": "create payment", "language": "python"},
    {"query": "pagination cursor", "limit": 3},
]


def pack(bundle: Path, *args: str | Path, check: bool = True) -> subprocess.CompletedProcess:
    return run_docsmcp("pack", bundle, *args, check=check)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def flip_byte(path: Path, at: int | None = None) -> None:
    data = bytearray(path.read_bytes())
    i = len(data) // 2 if at is None else at
    data[i] ^= 0xFF
    path.write_bytes(bytes(data))


def search_all(bundle_dir: Path) -> list[dict]:
    app = DocsApp(open_bundle(bundle_dir, verify=True))
    return [app.call_tool("search_docs", dict(q)) for q in QUERIES]


def cache_entries(cache: Path) -> list[str]:
    """Everything in the cache's bundles folder, temporary directories included."""
    bundles = cache / "bundles"
    return sorted(p.name for p in bundles.iterdir()) if bundles.exists() else []


@pytest.fixture(scope="module")
def packed(example_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("packed")
    pack(example_bundle, "-o", out / "idx.tar.gz", "--oci", out / "oci", "--tag", "v1")
    return {"archive": out / "idx.tar.gz", "oci": out / "oci"}


# -- pack: reproducible bytes -------------------------------------------------------------------


def test_pack_is_reproducible(example_bundle: Path, tmp_path: Path) -> None:
    first = pack(example_bundle, "-o", tmp_path / "a.tar.gz")
    pack(example_bundle, "-o", tmp_path / "b" / "b.tar.gz")
    digest = sha256(tmp_path / "a.tar.gz")
    assert sha256(tmp_path / "b" / "b.tar.gz") == digest
    # Two separate builds of the same docs, in other places with other file times. (Not compared
    # with the session fixture: that was built earlier, possibly by another builder revision.)
    rebuilt = [build_bundle(EXAMPLE_DOCS, tmp_path / name) for name in ("one", "two")]
    os.utime(rebuilt[1] / "metadata.json", (1, 1))
    for i, bundle in enumerate(rebuilt):
        pack(bundle, "-o", tmp_path / f"rebuilt{i}.tar.gz")
    assert sha256(tmp_path / "rebuilt0.tar.gz") == sha256(tmp_path / "rebuilt1.tar.gz")
    assert first.stdout == f"{digest}  {tmp_path / 'a.tar.gz'}\n"
    assert (tmp_path / "a.tar.gz.sha256").read_text() == f"{digest}  a.tar.gz\n"
    # `sha256sum -c` accepts the digest file as written.
    if shutil.which("sha256sum"):
        check = subprocess.run(
            ["sha256sum", "-c", "a.tar.gz.sha256"], cwd=tmp_path, capture_output=True, text=True
        )
        assert check.returncode == 0, check.stderr


def test_archive_entries_are_normalised(packed: dict[str, Path], example_bundle: Path) -> None:
    raw = packed["archive"].read_bytes()
    # gzip header: no FNAME flag, mtime 0.
    assert raw[:3] == b"\x1f\x8b\x08" and raw[3] == 0 and raw[4:8] == b"\0\0\0\0"
    with tarfile.open(packed["archive"]) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert names == sorted(names, key=str.encode)
    assert set(names) == {p.name for p in example_bundle.iterdir()}
    for m in members:
        assert m.isreg() and m.mode == 0o644 and m.mtime == 0
        assert (m.uid, m.gid, m.uname, m.gname) == (0, 0, "", "")


@pytest.mark.slow
def test_source_date_epoch_sets_entry_mtime(example_bundle: Path, tmp_path: Path) -> None:
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    cmd = [sys.executable, "-m", "docsmcp.cli", "pack", str(example_bundle)]
    for name in ("a.tar.gz", "b.tar.gz"):
        subprocess.run([*cmd, "-o", str(tmp_path / name)], env=env, check=True)
    assert sha256(tmp_path / "a.tar.gz") == sha256(tmp_path / "b.tar.gz")
    with tarfile.open(tmp_path / "a.tar.gz") as tar:
        assert {m.mtime for m in tar.getmembers()} == {1700000000}


def test_pack_refuses_non_bundles(example_bundle: Path, tmp_path: Path) -> None:
    cases = {}
    cases["not a bundle"] = EXAMPLE_DOCS
    cases["missing"] = tmp_path / "nowhere"
    corrupt = tmp_path / "corrupt"
    shutil.copytree(example_bundle, corrupt)
    flip_byte(corrupt / "postings_docs.bin")
    cases["corrupt"] = corrupt
    stray = tmp_path / "stray"
    shutil.copytree(example_bundle, stray)
    (stray / "notes.txt").write_text("hi")
    cases["stray"] = stray
    for what, source in cases.items():
        out = tmp_path / f"{what}.tar.gz"
        proc = pack(source, "-o", out, "--oci", tmp_path / f"{what}-oci", check=False)
        assert proc.returncode in (1, 2), what
        assert len(proc.stderr.strip().splitlines()) == 1, (what, proc.stderr)
        assert "Traceback" not in proc.stderr
        assert not out.exists() and not (tmp_path / f"{what}-oci").exists(), what
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp leftovers
    proc = pack(example_bundle, check=False)
    assert proc.returncode == 2 and "-o ARCHIVE" in proc.stderr


# -- resolve_bundle: archives -------------------------------------------------------------------


def test_resolved_archive_searches_like_the_directory(
    packed: dict[str, Path], example_bundle: Path, tmp_path: Path
) -> None:
    resolved = resolve_bundle(packed["archive"], cache_dir=tmp_path / "cache")
    assert resolved == tmp_path / "cache" / "bundles" / sha256(packed["archive"])
    assert search_all(resolved) == search_all(example_bundle)
    assert any(r["structuredContent"]["hits"] for r in search_all(resolved))
    assert resolve_bundle(example_bundle, cache_dir=tmp_path / "cache") == example_bundle


def test_second_resolve_reuses_the_cache(packed: dict[str, Path], tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = resolve_bundle(str(packed["archive"]), cache_dir=cache)
    before = [(p.name, p.stat().st_ino, p.stat().st_mtime_ns) for p in [first, *first.iterdir()]]
    second = resolve_bundle(packed["archive"], cache_dir=cache)
    after = [(p.name, p.stat().st_ino, p.stat().st_mtime_ns) for p in [second, *second.iterdir()]]
    assert first == second and before == after
    assert cache_entries(cache) == [first.name]  # no temporary directories left behind


@pytest.mark.slow
def test_default_cache_dir_from_environment(packed: dict[str, Path], tmp_path: Path) -> None:
    code = (
        "import sys; from docsmcp_runtime.distribution.resolve import resolve_bundle; "
        "print(resolve_bundle(sys.argv[1]))"
    )
    cases = {
        "DOCSMCP_CACHE_DIR": tmp_path / "explicit",
        "XDG_CACHE_HOME": tmp_path / "xdg" / "docsmcp",
        "HOME": tmp_path / "home" / ".cache" / "docsmcp",
    }
    for var, root in cases.items():
        env = {k: v for k, v in os.environ.items() if k not in cases}
        env[var] = str(root if var == "DOCSMCP_CACHE_DIR" else tmp_path / var.lower())
        if var == "XDG_CACHE_HOME":
            env[var] = str(tmp_path / "xdg")
        if var == "HOME":
            env[var] = str(tmp_path / "home")
        out = subprocess.run(
            [sys.executable, "-c", code, str(packed["archive"])],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert Path(out) == root / "bundles" / sha256(packed["archive"]), var


@pytest.mark.slow
def test_concurrent_starters_share_one_copy(packed: dict[str, Path], tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    code = (
        "import sys; from pathlib import Path;"
        " from docsmcp_runtime.distribution.resolve import resolve_bundle;"
        " print(resolve_bundle(sys.argv[1], Path(sys.argv[2])))"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(packed["archive"]), str(cache)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    outputs = {p.communicate(timeout=60)[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs)
    assert outputs == {str(cache / "bundles" / sha256(packed["archive"]))}
    assert cache_entries(cache) == [sha256(packed["archive"])]


def test_tampered_archive_is_refused(packed: dict[str, Path], tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with_sidecar = tmp_path / "signed" / "idx.tar.gz"
    with_sidecar.parent.mkdir()
    shutil.copy(packed["archive"], with_sidecar)
    shutil.copy(packed["archive"].with_name("idx.tar.gz.sha256"), with_sidecar.parent)
    flip_byte(with_sidecar)
    with pytest.raises(BundleError, match=r"does not match idx\.tar\.gz\.sha256"):
        resolve_bundle(with_sidecar, cache_dir=cache)
    # Without a digest file the damage is found while unpacking or by the bundle checksums.
    bare = tmp_path / "bare.tar.gz"
    shutil.copy(with_sidecar, bare)
    with pytest.raises(BundleError) as info:
        resolve_bundle(bare, cache_dir=cache)
    assert "\n" not in str(info.value) and str(bare) in str(info.value)
    truncated = tmp_path / "truncated.tar.gz"
    truncated.write_bytes(packed["archive"].read_bytes()[:-5000])
    with pytest.raises(BundleError, match="not a readable .tar.gz"):
        resolve_bundle(truncated, cache_dir=cache)
    not_gzip = tmp_path / "plain.tar.gz"
    not_gzip.write_text("hello")
    with pytest.raises(BundleError, match="not a readable .tar.gz"):
        resolve_bundle(not_gzip, cache_dir=cache)
    assert cache_entries(cache) == []  # nothing half-written


def _evil_archive(path: Path, example_bundle: Path, member: tarfile.TarInfo, data: bytes) -> None:
    with tarfile.open(path, "w:gz") as tar:
        for f in sorted(example_bundle.iterdir()):
            tar.add(f, arcname=f.name)
        tar.addfile(member, io.BytesIO(data) if member.isreg() else None)


@pytest.mark.parametrize(
    "kind", ["dotdot", "absolute", "subdir", "symlink", "hardlink", "device", "directory"]
)
def test_unsafe_members_are_refused(example_bundle: Path, tmp_path: Path, kind: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    names = {"dotdot": "../evil", "absolute": str(tmp_path / "evil"), "subdir": "sub/evil"}
    member = tarfile.TarInfo(names.get(kind, "evil"))
    data = b"pwned"
    member.size = len(data)
    if kind == "symlink":
        member.type, member.linkname, member.size = tarfile.SYMTYPE, "/etc/passwd", 0
    elif kind == "hardlink":
        member.type, member.linkname, member.size = tarfile.LNKTYPE, "metadata.json", 0
    elif kind == "device":
        member.type, member.devmajor, member.devminor, member.size = tarfile.CHRTYPE, 1, 3, 0
    elif kind == "directory":
        member.type, member.size = tarfile.DIRTYPE, 0
    archive = work / "evil.tar.gz"
    _evil_archive(archive, example_bundle, member, data)
    cache = work / "cache"
    with pytest.raises(BundleError, match="refusing"):
        resolve_bundle(archive, cache_dir=cache)
    assert not (tmp_path / "evil").exists() and not (work / "evil").exists()
    assert cache_entries(cache) == []
    proc = run_docsmcp("verify", archive, check=False)
    assert proc.returncode == 1 and "refusing" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_archive_with_stray_member_is_refused(example_bundle: Path, tmp_path: Path) -> None:
    member = tarfile.TarInfo("notes.txt")
    member.size = 2
    archive = tmp_path / "stray.tar.gz"
    _evil_archive(archive, example_bundle, member, b"hi")
    with pytest.raises(BundleError, match="not listed in metadata.json: notes.txt"):
        resolve_bundle(archive, cache_dir=tmp_path / "cache")
    assert cache_entries(tmp_path / "cache") == []


# -- OCI layout ---------------------------------------------------------------------------------


def _blob(layout: Path, digest: str) -> Path:
    algo, _, hexdigest = digest.partition(":")
    assert algo == "sha256"
    return layout / "blobs" / "sha256" / hexdigest


def test_oci_layout_structure(packed: dict[str, Path], example_bundle: Path) -> None:
    layout = packed["oci"]
    assert json.loads((layout / "oci-layout").read_text()) == {"imageLayoutVersion": "1.0.0"}
    index = json.loads((layout / "index.json").read_text())
    assert index["schemaVersion"] == 2
    (desc,) = index["manifests"]
    assert desc["mediaType"] == "application/vnd.oci.image.manifest.v1+json"
    assert desc["annotations"] == {"org.opencontainers.image.ref.name": "v1"}
    manifest_blob = _blob(layout, desc["digest"])
    assert sha256(manifest_blob) == desc["digest"].split(":")[1]
    assert manifest_blob.stat().st_size == desc["size"]
    manifest = json.loads(manifest_blob.read_text())
    assert manifest["schemaVersion"] == 2
    assert manifest["mediaType"] == "application/vnd.oci.image.manifest.v1+json"
    assert manifest["artifactType"] == "application/vnd.docsmcp.bundle.v1"
    config = manifest["config"]
    assert config["mediaType"] == "application/vnd.oci.empty.v1+json" and config["size"] == 2
    assert _blob(layout, config["digest"]).read_bytes() == b"{}"
    (layer,) = manifest["layers"]
    assert layer["mediaType"] == "application/vnd.docsmcp.bundle.layer.v1.tar+gzip"
    layer_blob = _blob(layout, layer["digest"])
    assert sha256(layer_blob) == layer["digest"].split(":")[1] == sha256(packed["archive"])
    assert layer_blob.read_bytes() == packed["archive"].read_bytes()
    assert layer["size"] == layer_blob.stat().st_size
    meta = json.loads((example_bundle / "metadata.json").read_text())
    assert layer["annotations"] == {
        "org.opencontainers.image.title": "bundle.tar.gz",
        "dev.docsmcp.bundle_id": meta["bundle_id"],
        "dev.docsmcp.format_version": "1",
    }
    blobs = {p.name for p in (layout / "blobs" / "sha256").iterdir()}
    assert blobs == {h.split(":")[1] for h in (desc["digest"], config["digest"], layer["digest"])}


def test_oci_layout_is_reproducible_and_resolves(
    packed: dict[str, Path], example_bundle: Path, tmp_path: Path
) -> None:
    pack(example_bundle, "--oci", tmp_path / "oci", "--tag", "v1")  # OCI only, no archive
    pack(example_bundle, "--oci", tmp_path / "oci", "--tag", "v1")  # replaces it in place

    def tree(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}

    assert tree(tmp_path / "oci") == tree(packed["oci"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["oci"]  # no archive, no temp files
    cache = tmp_path / "cache"
    resolved = resolve_bundle(tmp_path / "oci", cache_dir=cache)
    assert resolved.name == sha256(packed["archive"])
    assert resolve_bundle(f"{tmp_path / 'oci'}:v1", cache_dir=cache) == resolved
    assert search_all(resolved) == search_all(example_bundle)
    with pytest.raises(BundleError, match="no manifest tagged 'latest'"):
        resolve_bundle(f"{tmp_path / 'oci'}:latest", cache_dir=cache)


def test_tampered_oci_layout_is_refused(packed: dict[str, Path], tmp_path: Path) -> None:
    layout = tmp_path / "oci"
    shutil.copytree(packed["oci"], layout)
    index = json.loads((layout / "index.json").read_text())
    manifest_blob = _blob(layout, index["manifests"][0]["digest"])
    layer = json.loads(manifest_blob.read_text())["layers"][0]
    flip_byte(_blob(layout, layer["digest"]))
    cache = tmp_path / "cache"
    with pytest.raises(BundleError, match=r"layer blob sha256 .*\(corrupt or altered\)"):
        resolve_bundle(layout, cache_dir=cache)
    # An edited manifest no longer matches the digest index.json names it by.
    shutil.rmtree(layout)
    shutil.copytree(packed["oci"], layout)
    manifest_blob.write_text(manifest_blob.read_text().replace("bundle.v1", "bundle.v2"))
    with pytest.raises(BundleError, match="manifest blob sha256"):
        resolve_bundle(layout, cache_dir=cache)
    assert cache_entries(cache) == []


# -- verify -------------------------------------------------------------------------------------


def test_verify_accepts_good_bundles(example_bundle: Path, packed: dict[str, Path]) -> None:
    for target in (example_bundle, packed["archive"], packed["oci"]):
        proc = run_docsmcp("verify", target)
        assert proc.stdout.startswith(f"ok: {target}: bundle "), proc.stdout
        assert len(proc.stdout.splitlines()) == 1


def test_verify_accepts_yellow_bundle(yellow_bundle: Path) -> None:
    assert run_docsmcp("verify", yellow_bundle).stdout.startswith("ok: ")


def _verify_fails(target: Path) -> list[str]:
    proc = run_docsmcp("verify", target, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines[-1].startswith("docsmcp: ") and "problem(s) found" in lines[-1]
    return lines[:-1]


def test_verify_reports_every_problem(example_bundle: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(example_bundle, bad)
    flip_byte(bad / "postings_impacts.bin", at=0)
    meta = json.loads((bad / "metadata.json").read_text())
    meta["files"]["facets.bin"]["shape"] = [3, 3]
    (bad / "metadata.json").write_text(json.dumps(meta))
    (bad / "terms.bin").unlink()
    (bad / "extra.bin").write_bytes(b"\0")
    problems = _verify_fails(bad)
    text = "\n".join(problems)
    assert "postings_impacts.bin: sha256" in text
    assert "facets.bin shape [3, 3]" in text
    assert "terms.bin: missing" in text
    assert "extra.bin: stray entry" in text
    assert len(problems) >= 4


@pytest.mark.parametrize("corruption", ["sha256", "shape", "deleted", "stray"])
def test_verify_archive_of_corrupt_bundle(
    example_bundle: Path, tmp_path: Path, corruption: str
) -> None:
    """One corruption at a time, shipped in an archive that is itself intact."""
    bad = tmp_path / "bad"
    shutil.copytree(example_bundle, bad)
    if corruption == "sha256":
        flip_byte(bad / "postings_impacts.bin", at=0)
    elif corruption == "shape":
        meta = json.loads((bad / "metadata.json").read_text())
        meta["files"]["postings_docs.bin"]["shape"] = [1]
        (bad / "metadata.json").write_text(json.dumps(meta))
    elif corruption == "deleted":
        (bad / "facets.bin").unlink()
    else:
        (bad / "README").write_text("stray")
    archive = tmp_path / "bad.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for f in sorted(bad.iterdir()):
            tar.add(f, arcname=f.name)
    for target in (bad, archive):
        text = "\n".join(_verify_fails(target))
        expected = {
            # An archive's members are checked against their sha256 as they are unpacked.
            "sha256": "postings_impacts.bin: sha256"
            if target == bad
            else "member 'postings_impacts.bin' does not match its sha256",
            "shape": "postings_docs.bin shape [1]",
            "deleted": "facets.bin: missing",
            # An archive is refused before anything is unpacked.
            "stray": "README: stray entry" if target == bad else "not listed in metadata.json",
        }[corruption]
        assert expected in text, text


def _reseal(root: Path) -> None:
    """Recompute sizes, sha256 and bundle_id after an edit, so only the invariants are off."""
    meta = json.loads((root / "metadata.json").read_text())
    digest = hashlib.sha256()
    for name in sorted(meta["files"]):
        info = meta["files"][name]
        info["bytes"] = (root / name).stat().st_size
        info["sha256"] = sha256(root / name)
        digest.update(f"{name}\0{info['sha256']}\n".encode())
    meta["bundle_id"] = digest.hexdigest()[:32]
    (root / "metadata.json").write_text(json.dumps(meta, indent=2))


def test_verify_checks_invariants_behind_valid_checksums(
    example_bundle: Path, tmp_path: Path
) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(example_bundle, bad)
    meta = json.loads((bad / "metadata.json").read_text())
    # Swap two postings of the longest list: rows no longer ascending within that term.
    dtypes = {name: entry.get("dtype") for name, entry in meta["files"].items()}
    off = np.fromfile(bad / "postings_offsets.bin", dtype=dtypes["postings_offsets.bin"])
    off = off.astype(np.int64)
    longest = int(np.argmax(np.diff(off)))
    docs = np.fromfile(bad / "postings_docs.bin", dtype=dtypes["postings_docs.bin"])
    s = off[longest]
    docs[s], docs[s + 1] = docs[s + 1], docs[s]
    docs.tofile(bad / "postings_docs.bin")
    # Move the first term past the second: the dictionary is no longer sorted.
    terms = bytearray((bad / "terms.bin").read_bytes())
    terms[0] = ord("~")
    (bad / "terms.bin").write_bytes(bytes(terms))
    # A facet code beyond its key's values.
    facets = np.fromfile(bad / "facets.bin", dtype="<u2")
    assert len(meta["taxonomy"]) and len(facets)
    facets[0] = 999
    facets.tofile(bad / "facets.bin")
    _reseal(bad)
    text = "\n".join(_verify_fails(bad))
    assert "postings_docs.bin: rows not strictly ascending within a term" in text
    assert "terms.bin: dictionary not strictly ascending" in text
    assert "facets.bin: 1 code(s)" in text and "exceed" in text
    assert "facets.bin: 1 row(s) disagree with the chunk metadata" in text


def test_verify_validates_metadata_schema(example_bundle: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(example_bundle, bad)
    meta = json.loads((bad / "metadata.json").read_text())
    meta["analyzer"]["stem"] = "yes"
    meta["surprise"] = 1
    (bad / "metadata.json").write_text(json.dumps(meta))
    text = "\n".join(_verify_fails(bad))
    assert "metadata.json: analyzer/stem: 'yes' is not of type 'boolean' (schema)" in text
    assert "metadata.json: analyzer/stem: expected true or false" in text
    # Unknown keys are a newer builder's additions: readers ignore them (bundle-spec.md).
    assert "surprise" not in text
    (bad / "metadata.json").write_text("{not json")
    assert _verify_fails(bad) == [
        next(line for line in _verify_fails(bad) if line.startswith("metadata.json: not valid"))
    ]


def test_verify_missing_target(tmp_path: Path) -> None:
    proc = run_docsmcp("verify", tmp_path / "nowhere", check=False)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1


def test_resolved_archive_is_gzip_of_the_bundle(packed: dict[str, Path]) -> None:
    """The archive is a plain tar.gz any tool can read (`tar xzf`)."""
    with gzip.open(packed["archive"]) as gz, tarfile.open(fileobj=gz, mode="r|") as tar:
        assert "metadata.json" in [m.name for m in tar]


@pytest.mark.slow
def test_runtime_cli_serves_archives_and_oci_layouts(
    packed: dict[str, Path], example_bundle: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "DOCSMCP_CACHE_DIR": str(tmp_path / "cache")}

    def hits(bundle: str) -> list[str]:
        proc = subprocess.run(
            [sys.executable, "-m", "docsmcp_runtime", "--bundle", bundle, "search", "refund",
             "--json"],
            capture_output=True, text=True, timeout=60, env=env,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        return [h["chunk_id"] for h in json.loads(proc.stdout)["hits"]]

    expected = hits(str(example_bundle))
    assert hits(str(packed["archive"])) == expected
    assert hits(str(packed["oci"])) == expected
    assert hits(f"{packed['oci']}:v1") == expected


def test_pack_counts_the_mib_it_compresses(speakeasy_bundle: Path, tmp_path: Path) -> None:
    from docsmcp.commands.pack import MIB, pack
    from docsmcp.common.progress import Progress

    seen: list[Progress] = []

    def reporter(label: str, total: int) -> Progress:
        seen.append(Progress("docsmcp", label, total, enabled=False))
        return seen[-1]

    pack(speakeasy_bundle, archive=tmp_path / "a.tar.gz", progress=reporter)
    quiet = pack(speakeasy_bundle, archive=tmp_path / "b.tar.gz")
    size = sum(p.stat().st_size for p in speakeasy_bundle.iterdir() if p.is_file())
    (counter,) = seen
    assert counter.label == "packing MiB" and counter.total == size // MIB >= 5
    assert counter.total <= counter.done <= counter.total + 1
    # counting reads changes nothing in the archive
    assert (tmp_path / "a.tar.gz").read_bytes() == (tmp_path / "b.tar.gz").read_bytes()
    assert quiet.size == (tmp_path / "a.tar.gz").stat().st_size
