"""Reading docs from a terminal (issue 12, item 3): `docsmcp-runtime get`, `toc` and readable
`search`, with options before or after the command, run as the real console entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def runtime(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow  # 4 runtime processes
def test_get_prints_a_chunk_with_context_or_a_whole_page(example_bundle: Path) -> None:
    chunk = runtime("--bundle", example_bundle, "get", "python/payments.md#payments/create")
    assert chunk.returncode == 0, chunk.stderr
    assert chunk.stdout.startswith("--- Chunk: python/payments.md#payments/create (Chunk 1 of ")
    around = runtime(
        "get", "python/payments.md#payments/refund", "--context", "1", "--bundle", example_bundle
    )
    assert around.returncode == 0 and "(Context: -1)" in around.stdout
    page = runtime("--bundle", example_bundle, "get", "python/payments")
    assert page.returncode == 0
    assert page.stdout.startswith("=== python/payments.md: Payments ===\n")
    assert "## create" in page.stdout and "## refund" in page.stdout
    as_json = json.loads(
        runtime("--bundle", example_bundle, "get", "python/payments.md", "--json").stdout
    )
    assert as_json["path"] == "python/payments.md" and as_json["matched_by"] == "path"


def test_get_of_nothing_is_one_line(example_bundle: Path) -> None:
    missing = runtime("--bundle", example_bundle, "get", "python/payments.md#nope")
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1
    assert "not found" in missing.stderr


@pytest.mark.slow  # several runtime processes
def test_toc_prints_the_page_tree(example_bundle: Path) -> None:
    toc = runtime("--bundle", example_bundle, "toc")
    assert toc.returncode == 0, toc.stderr
    lines = toc.stdout.splitlines()
    assert lines[0] == "(all pages)  6 entries"
    assert "    python/payments.md: Payments" in lines
    guides = runtime("toc", "guides", "--bundle", example_bundle).stdout.splitlines()
    assert guides[0] == "guides/  2 entries"
    assert guides[1:] == ["  authentication.md: Authentication", "  errors.mdx: Error handling"]
    tree = json.loads(runtime("--bundle", example_bundle, "toc", "--json").stdout)
    assert tree["total"] == 6 and len(tree["entries"]) == 6


@pytest.mark.slow  # several runtime processes
def test_search_prints_the_cursor_only_when_asked(example_bundle: Path) -> None:
    plain = runtime("search", "payment", "--limit", "2", "--bundle", example_bundle)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.rstrip().endswith(
        "more hits: raise --limit, or add --show-cursor for the next page"
    )
    assert "--cursor" not in plain.stdout.replace("--show-cursor", "")
    shown = runtime(
        "--bundle", example_bundle, "search", "payment", "--limit", "2", "--show-cursor"
    )
    cursor = shown.stdout.rstrip().splitlines()[-1].removeprefix("more: --cursor ")
    following = runtime(
        "--bundle", example_bundle, "search", "payment", "--limit", "2", "--cursor", cursor
    )
    assert following.returncode == 0 and following.stdout.startswith(" 1. ")


@pytest.mark.parametrize("command", ["search", "get", "toc"])
def test_every_command_has_a_description_and_examples(command: str) -> None:
    helped = runtime(command, "--help")
    assert helped.returncode == 0
    assert "examples:" in helped.stdout and "--bundle" in helped.stdout


def test_no_bundle_is_one_clear_error() -> None:
    proc = runtime("toc")
    assert proc.returncode == 2
    assert (
        proc.stderr.strip()
        .splitlines()[-1]
        .endswith("the following arguments are required: --bundle")
    )
