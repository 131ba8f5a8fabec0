"""`docsmcp build --watch`: an edit is rebuilt and swapped in (incrementally, from the parse
cache); a broken edit keeps the last good bundle and says why; the runtime serves each bundle."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import EXAMPLE_DOCS

pytestmark = pytest.mark.slow  # a watching builder process


def _bundle_id(out: Path) -> str | None:
    try:
        return json.loads((out / "metadata.json").read_text())["bundle_id"]
    except (OSError, ValueError, KeyError):
        return None


def _wait(predicate, timeout: float = 60.0) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the watching build did not get there in time")
        time.sleep(0.1)


def _search(out: Path, query: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", str(out), "search", query, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return [h["chunk_id"] for h in json.loads(proc.stdout)["hits"]]


def test_watch_rebuilds_on_change_and_keeps_the_last_good_bundle(tmp_path: Path) -> None:
    docs = shutil.copytree(EXAMPLE_DOCS, tmp_path / "docs")
    out = tmp_path / "idx"
    log = (tmp_path / "watch.log").open("w+")
    proc = subprocess.Popen(
        [sys.executable, "-m", "docsmcp.cli", "build", "--docs-dir", str(docs), "--out", str(out),
         "--watch", "--watch-rounds", "2"],
        stdout=log, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        _wait(
            lambda: (
                _bundle_id(out) is not None and "watching" in (tmp_path / "watch.log").read_text()
            )
        )
        first = _bundle_id(out)
        page = docs / "python" / "payments.md"
        page.write_text(
            page.read_text() + "\n## Disputes\n\nOpen a dispute with `disputes.open`.\n"
        )
        _wait(lambda: _bundle_id(out) != first)
        assert "python/payments.md#payments/disputes" in _search(out, "disputes.open")
        text = (tmp_path / "watch.log").read_text()
        assert "5 files from the parse cache" in text  # only the edited page was parsed again
        second = _bundle_id(out)
        (docs / ".docs-mcp.json").write_text('{"version": "1", "strategy": {"chunk_by": "h9"}}')
        assert proc.wait(timeout=60) == 0  # the second round: a failed rebuild, then the end
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = (tmp_path / "watch.log").read_text()
    assert "left untouched" in text and "Traceback" not in text
    assert _bundle_id(out) == second  # the last good bundle stays
