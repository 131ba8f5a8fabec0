"""Shared fixtures: real bundles built once per test session from the repo's example corpus and
the real corpora in ../shared/corpora (read-only; builds only read them)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_DOCS = REPO / "examples" / "acme-sdk"
SHARED = Path(os.environ.get("DOCSMCP_SHARED", REPO.parent / "shared"))
CORPORA = SHARED / "corpora"
EVAL_CASES = SHARED / "eval" / "dev-cases.jsonl"


def run_docsmcp(*args: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the builder CLI in a child process, exactly as a user would."""
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"docsmcp {args} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


def build_bundle(docs_dir: Path, out: Path, *extra: str) -> Path:
    run_docsmcp("build", "--docs-dir", docs_dir, "--out", out, "--quiet", *extra)
    return out


def corpus(name: str) -> Path:
    path = CORPORA / name
    if not path.is_dir():
        pytest.fail(f"shared corpus missing: {path}")
    return path


@pytest.fixture(scope="session")
def example_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(EXAMPLE_DOCS, tmp_path_factory.mktemp("example") / "idx")


@pytest.fixture(scope="session")
def yellow_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(corpus("yellow-docs"), tmp_path_factory.mktemp("yellow") / "idx")


@pytest.fixture(scope="session")
def speakeasy_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(corpus("speakeasy-sdks"), tmp_path_factory.mktemp("speakeasy") / "idx")


@pytest.fixture(scope="session")
def rust_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(corpus("rust-reference"), tmp_path_factory.mktemp("rust") / "idx")
