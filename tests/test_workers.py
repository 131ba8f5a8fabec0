"""Parsing and chunking on every core (issue 14, "both cores"): the bundle is byte-identical
whatever the number of worker processes, and a bad `--workers` is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import bundle_differences, run_docsmcp
from docsmcp.pipeline.workers import MIN_FILES_PER_WORKER


def _corpus(root: Path, files: int) -> Path:
    docs = root / "docs"
    for i in range(files):
        page = docs / f"area{i % 7}" / f"page{i:03d}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(
            f"# Page {i}\n\nIntro of page {i}; see [the next one](page{i + 1:03d}.md#usage).\n\n"
            f"## Usage\n\nCall `thing_{i}()` as below.\n\n```py\nthing_{i}(retries={i})\n```\n\n"
            f"## 2.{i} Details\n\n| Parameter | Type | Required |\n|---|---|---|\n"
            f"| `n{i}` | int | Yes |\n",
            encoding="utf-8",
        )
    return docs


@pytest.mark.slow  # build worker pools
def test_one_and_several_workers_build_the_same_bytes(tmp_path: Path) -> None:
    docs = _corpus(tmp_path, 3 * MIN_FILES_PER_WORKER)  # enough files for a pool of 3
    outs = {}
    for workers in ("1", "2", "3"):
        outs[workers] = tmp_path / f"idx{workers}"
        run_docsmcp("build", "--docs-dir", docs, "--out", outs[workers], "--workers", workers)
    names = sorted(p.name for p in outs["1"].iterdir())
    assert "pages.parquet" in names and "sections.parquet" in names
    for workers in ("2", "3"):
        assert bundle_differences(outs["1"], outs[workers]) == [], workers


@pytest.mark.parametrize("value", ["-1", "two"])
def test_bad_workers_is_one_line(tmp_path: Path, value: str) -> None:
    docs = _corpus(tmp_path, 2)
    proc = run_docsmcp(
        "build", "--docs-dir", docs, "--out", tmp_path / "idx", "--workers", value, check=False
    )
    assert proc.returncode == 2 and not (tmp_path / "idx").exists()
    # the last line names the flag (argparse prints its usage before a type error)
    assert "--workers" in proc.stderr.strip().splitlines()[-1]


@pytest.mark.slow  # build worker pools
def test_bodies_read_back_by_the_workers_give_the_same_bytes(tmp_path: Path) -> None:
    """The pages' bodies reach the workers through a temporary file (workers.Bodies), encoded
    and decoded again: frontmatter and non-ASCII text (2-, 3- and 4-byte UTF-8) come back
    exactly, beside a reST page that keeps its own text."""
    docs = _corpus(tmp_path, 2 * MIN_FILES_PER_WORKER)
    for i, page in enumerate(sorted(docs.rglob("*.md"))):
        text = page.read_text(encoding="utf-8")
        extra = f"\n## Größe {i}\n\nÉcrit — 日本語 😀 `größe_{i}`.\n"
        front = f"---\ntitle: Page {i} 😀\ndescription: Über {i}\n---\n"
        page.write_text(front + text + extra, encoding="utf-8")
    (docs / "guide.rst").write_text(
        "Guide\n=====\n\nSee ``größe`` and the usage.\n\nUsage\n-----\n\nRun it.\n",
        encoding="utf-8",
    )
    outs = {}
    for workers in ("1", "2"):
        outs[workers] = tmp_path / f"idx{workers}"
        run_docsmcp(
            "build", "--docs-dir", docs, "--out", outs[workers], "--workers", workers, "--no-cache"
        )
    assert bundle_differences(outs["1"], outs["2"]) == []
    meta = json.loads((outs["2"] / "metadata.json").read_text(encoding="utf-8"))
    assert meta["stats"]["files"] == 2 * MIN_FILES_PER_WORKER + 1
    texts = pq.read_table(outs["2"] / "chunks.parquet", columns=["text"])["text"].to_pylist()
    for i in range(2 * MIN_FILES_PER_WORKER):
        assert sum(f"Écrit — 日本語 😀 `größe_{i}`." in t for t in texts) == 1
