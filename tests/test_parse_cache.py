"""The parse cache (issue 14, "incremental"): a rebuild parses only the files that changed, and
its bundle is byte-identical to a clean build; a damaged or planted cache is ignored with one
warning and never executed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import EXAMPLE_DOCS, TEST_CACHE, bundle_differences, run_docsmcp
from docsmcp.common.cache import output_key


def _build(docs: Path, out: Path, *extra: str) -> dict:
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", out, "--json", *extra)
    return json.loads(proc.stdout)


def _cache_files(out: Path) -> list[Path]:
    """The parse cache files of the bundle at `out`, in the cache root's `parsed/` folder."""
    return list((TEST_CACHE / "parsed").glob(f"{output_key(out)}-*.marshal"))


def test_rebuild_parses_only_what_changed_and_matches_a_clean_build(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    out = tmp_path / "idx"
    assert _build(docs, out)["cached_files"] == 0
    assert _cache_files(out)
    assert _build(docs, out)["cached_files"] == 6
    page = docs / "python" / "payments.md"
    page.write_text(page.read_text() + "\n## Disputes\n\nOpen a dispute with `disputes.create`.\n")
    rebuilt = _build(docs, out)
    assert rebuilt["cached_files"] == 5  # only the edited page was parsed again
    clean = _build(docs, tmp_path / "clean", "--no-cache")
    assert clean["cached_files"] == 0 and not _cache_files(tmp_path / "clean")
    assert not bundle_differences(out, tmp_path / "clean")
    (docs / "guides" / "authentication.md").unlink()  # deleted pages leave the cache
    assert _build(docs, out)["cached_files"] == 5


def test_a_damaged_or_planted_cache_is_ignored_with_one_warning(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    out = tmp_path / "idx"
    _build(docs, out)
    (cache_file,) = _cache_files(out)
    for payload in (b"garbage", cache_file.read_bytes()[:100]):
        cache_file.write_bytes(payload)
        proc = run_docsmcp("build", "--docs-dir", docs, "--out", out, "--json")
        assert json.loads(proc.stdout)["cached_files"] == 0
        assert proc.stderr.count("\n") == 1 and "ignoring the parse cache" in proc.stderr
    _build(docs, tmp_path / "clean", "--no-cache")
    assert not bundle_differences(out, tmp_path / "clean")


def test_a_killed_writer_s_temp_file_is_removed(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    out = tmp_path / "idx"
    _build(docs, out)
    leftover = TEST_CACHE / "parsed" / f".{output_key(out)}-0123456789abcdef.marshal.tmp-999999999"
    leftover.write_bytes(b"half written")
    (docs / "python" / "payments.md").write_text("# Payments\n\n## create\n\nChanged.\n")
    _build(docs, out)  # the cache changes, so it is written, and the dead writer's file goes
    assert not leftover.exists()


def test_bundles_share_the_cache_root_and_keep_their_own_entries(tmp_path: Path) -> None:
    """Two bundles built with one --cache-dir each find their own cache on rebuild; `docsmcp
    cache info` counts them, `clean --kind parsed` empties only that kind."""
    root = tmp_path / "cache"
    docs = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, docs)
    for out in (tmp_path / "a", tmp_path / "b"):
        assert _build(docs, out, "--cache-dir", root)["cached_files"] == 0
    for out in (tmp_path / "a", tmp_path / "b"):
        assert _build(docs, out, "--cache-dir", root)["cached_files"] == 6
    shown = json.loads(run_docsmcp("cache", "info", "--cache-dir", root, "--json").stdout)
    assert shown["kinds"]["parsed"]["entries"] == 2 and shown["kinds"]["parsed"]["bytes"] > 0
    (root / "pdf").mkdir()
    (root / "pdf" / "x.marshal.z").write_bytes(b"x")
    text = run_docsmcp("cache", "clean", "--kind", "parsed", "--cache-dir", root).stdout
    assert "removed parsed" in text
    assert not list((root / "parsed").iterdir()) and (root / "pdf" / "x.marshal.z").exists()
    assert _build(docs, tmp_path / "a", "--cache-dir", root)["cached_files"] == 0


def test_least_recently_used_entries_go_first(tmp_path: Path) -> None:
    import os

    from docsmcp.common.cache import evict

    for i, name in enumerate(("old", "mid", "new")):
        path = tmp_path / name
        path.write_bytes(b"x" * 100)
        os.utime(path, (1000 + i, 1000 + i))
    freed = evict(tmp_path, 150, keep=(tmp_path / "old",))
    assert freed == 200 and sorted(p.name for p in tmp_path.iterdir()) == ["old"]
