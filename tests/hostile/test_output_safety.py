"""`docsmcp build --out DIR` never loses a user's directory and never leaves DIR missing.

- Only an empty folder or a real bundle (format marker, nothing but its listed files) is
  replaced; anything that merely looks like one is refused in one line and left untouched.
- A builder killed at any step of writing and swapping leaves DIR holding the old bundle or the
  new one; the next build, and the runtime opening DIR, restore or clean what it left.

Crashes are real process deaths (`os._exit` at an exact step, in a child process), injected by
wrapping the writer's steps: its contents writer, the atomic exchange, each rename and each
recursive delete.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLE_DOCS, TEST_CACHE, build_bundle, run_docsmcp
from docsmcp.common.cache import output_key
from hostile import CRASH_PREAMBLE

pytestmark = pytest.mark.slow  # dozens of builds and runtime starts in child processes

# -- look-alikes are refused ---------------------------------------------------------------------


def _lookalikes(root: Path, real_bundle: Path) -> dict[str, Path]:
    cases: dict[str, Path] = {}

    def case(name: str) -> Path:
        path = root / name
        path.mkdir()
        cases[name] = path
        return path

    p = case("metadata-only-marker")  # the reproduction
    (p / "metadata.json").write_text("{}")
    (p / "src").mkdir()
    (p / "src" / "main.py").write_text("x")
    p = case("marker-and-a-project")
    (p / "metadata.json").write_text(json.dumps({"format": "docsmcp-bundle", "files": {}}))
    (p / "README.md").write_text("mine")
    p = case("bundle-plus-notes")
    shutil.copytree(real_bundle, p, dirs_exist_ok=True)
    (p / "notes.txt").write_text("keep me")
    p = case("bundle-plus-folder")
    shutil.copytree(real_bundle, p, dirs_exist_ok=True)
    (p / "drafts").mkdir()
    p = case("bundle-with-linked-file")
    shutil.copytree(real_bundle, p, dirs_exist_ok=True)
    (p / "terms.bin").unlink()
    (p / "terms.bin").symlink_to(real_bundle / "terms.bin")
    p = case("unreadable-metadata")
    (p / "metadata.json").write_bytes(b"\xff\xfe{")
    (p / "data.csv").write_text("1,2")
    file = root / "a-file"
    file.write_text("not a folder")
    cases["a-file"] = file
    return cases


def _snapshot(path: Path) -> dict[str, bytes | str]:
    if path.is_file():
        return {"": path.read_bytes()}
    out: dict[str, bytes | str] = {}
    for item in sorted(path.rglob("*")):
        rel = str(item.relative_to(path))
        if item.is_symlink():
            out[rel] = f"-> {item.readlink()}"
        elif item.is_file():
            out[rel] = item.read_bytes()
        else:
            out[rel] = "dir"
    return out


def test_only_bundles_and_empty_folders_are_replaced(example_bundle: Path, tmp_path: Path) -> None:
    for name, target in _lookalikes(tmp_path, example_bundle).items():
        before = _snapshot(target)
        proc = run_docsmcp("build", "--docs-dir", EXAMPLE_DOCS, "--out", target, check=False)
        assert proc.returncode == 2, (name, proc.stderr)
        assert proc.stderr.count("\n") == 1 and "refusing to replace" in proc.stderr, name
        assert "Traceback" not in proc.stderr
        assert _snapshot(target) == before, name
    empty = tmp_path / "empty"
    empty.mkdir()
    build_bundle(EXAMPLE_DOCS, empty)
    old = shutil.copytree(example_bundle, tmp_path / "old-bundle")
    build_bundle(EXAMPLE_DOCS, old)  # a real bundle is replaced
    assert (old / "metadata.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


# -- crashes at every step ---------------------------------------------------------------------

CRASHING_BUILD = (
    CRASH_PREAMBLE
    + """
import docsmcp.bundle.write as write
import docsmcp_runtime.distribution.swap as swap

exchange = sys.argv[2] == "exchange"
swap.os = crashing_os
crash_around(write, "_write_contents")
crash_around(swap.shutil, "rmtree")
if exchange:
    crash_around(swap, "exchange")
else:  # a filesystem without RENAME_EXCHANGE: the two-rename path
    swap.exchange = lambda a, b: False
from docsmcp.cli import main
main(sys.argv[3:])
print("FINISHED")
"""
)


def _crashing_build(docs: Path, out: Path, crash_at: int, mode: str) -> bool:
    """Run a build that dies at its `crash_at`-th step; True if it finished instead."""
    proc = subprocess.run(
        [sys.executable, "-c", CRASHING_BUILD, str(crash_at), mode,
         "build", "--docs-dir", str(docs), "--out", str(out), "--quiet"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode in (0, 137), proc.stderr
    return "FINISHED" in proc.stdout


def _served_ids(bundle: Path) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(bundle),
         "search", "webhook signature", "--json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return [h["chunk_id"] for h in json.loads(proc.stdout)["hits"]]


@pytest.mark.parametrize("mode", ["exchange", "two-renames"])
def test_a_build_killed_at_any_step_leaves_a_bundle(tmp_path: Path, mode: str) -> None:
    docs = shutil.copytree(EXAMPLE_DOCS, tmp_path / "docs")
    new_page = docs / "python" / "webhooks.md"
    new_page.write_text("# Webhooks\n\n## Verify\n\nCheck the webhook signature.\n")
    old_ids, new_ids = [], ["python/webhooks.md#webhooks/verify"]
    crash_at = 1
    while True:
        work = tmp_path / f"run{crash_at}"
        work.mkdir()
        out = build_bundle(EXAMPLE_DOCS, work / "idx")  # the old bundle: no webhook page
        finished = _crashing_build(docs, out, crash_at, mode)
        # Whatever the step, the runtime serves a complete bundle, old or new...
        assert _served_ids(out) in (old_ids, new_ids), crash_at
        # ...and the next build cleans up after the dead one.
        build_bundle(docs, out)
        assert _served_ids(out) == new_ids
        assert sorted(p.name for p in work.iterdir()) == ["idx"], crash_at
        key = output_key(out)  # its parse cache, in the cache root: one file, no temp leftovers
        cached = [p.name for p in (TEST_CACHE / "parsed").iterdir() if key in p.name]
        assert len(cached) == 1 and cached[0].startswith(key), (crash_at, cached)
        if finished:
            break
        crash_at += 1
    assert crash_at >= 6  # the crash points really were visited


def test_the_runtime_restores_a_bundle_parked_by_a_dead_build(
    example_bundle: Path, tmp_path: Path
) -> None:
    """Two-rename mode, killed between the renames: no idx, only .idx.old-PID."""
    out = tmp_path / "idx"
    parked = tmp_path / ".idx.old-999999"  # a PID that does not exist
    shutil.copytree(example_bundle, parked)
    assert _served_ids(out) == []  # served from the restored bundle (no such page there)
    assert out.is_dir() and not parked.exists()
    proc = run_docsmcp("verify", out)
    assert proc.stdout.startswith("ok: ")
