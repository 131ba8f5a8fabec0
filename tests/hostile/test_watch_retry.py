"""`--watch` that meets a bundle still being copied tries again when the copy goes on, and says
which bundle it keeps serving meanwhile."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest
from conftest import EXAMPLE_DOCS, build_bundle
from test_http import call, start

pytestmark = pytest.mark.slow  # a real HTTP server process


def test_watch_retries_a_half_copied_bundle(example_bundle: Path, tmp_path: Path) -> None:
    docs = shutil.copytree(EXAMPLE_DOCS, tmp_path / "docs")
    (docs / "python" / "webhooks.md").write_text("# Webhooks\n\nVerify signatures.\n")
    second = build_bundle(docs, tmp_path / "built")
    second_id = json.loads((second / "metadata.json").read_text())["bundle_id"]
    first_id = json.loads((example_bundle / "metadata.json").read_text())["bundle_id"]
    current = tmp_path / "current"
    current.symlink_to(example_bundle)
    copy = tmp_path / "copy"
    copy.mkdir()
    # The deployment switches to a copy whose metadata.json has arrived but nothing else yet.
    shutil.copy2(second / "metadata.json", copy / "metadata.json")
    srv = start(current, "--watch", "--watch-interval", "0.1")
    try:
        link = tmp_path / "next"
        link.symlink_to(copy)
        os.replace(link, current)
        failed = srv.wait_for_log(lambda e: e.get("event") == "bundle_reload_failed", 15)
        assert failed["bundle_id"] == first_id and first_id in failed["message"]
        assert call(srv.port, "GET", "/healthz").json()["bundle_id"] == first_id
        for item in sorted(second.iterdir()):  # the copy goes on, file by file
            if item.name != "metadata.json":
                shutil.copy2(item, copy / item.name)
        deadline = time.monotonic() + 15
        while call(srv.port, "GET", "/healthz").json()["bundle_id"] != second_id:
            assert time.monotonic() < deadline, "\n".join(srv.stderr)
            time.sleep(0.05)
        reloaded = srv.wait_for_log(lambda e: e.get("event") == "bundle_reloaded", 5)
        assert reloaded["bundle_id"] == second_id
    finally:
        assert srv.stop() == 0
