"""The playground (`docsmcp-runtime playground`, `--playground`): the page in a real headless
Chromium against a real server on 127.0.0.1 — load, search by keyboard, why each hit ranks,
filter, page with the cursor, open a hit, browse, the MCP exchange shown, phone width — and its
HTTP surface without a browser (headers, the explain endpoint, the same checks as /mcp).

Screenshots go to test-artifacts/playground/ (or $DOCSMCP_ARTIFACTS/playground/)."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from cdp import Browser, chromium
from test_http import call, start

pytestmark = pytest.mark.slow  # real server and browser processes

ARTIFACTS = Path(
    os.environ.get("DOCSMCP_ARTIFACTS", Path(__file__).parent.parent / "test-artifacts")
)


@pytest.fixture(scope="module")
def server(example_bundle: Path):
    srv = start(example_bundle, "--playground")
    yield srv
    assert srv.stop() == 0


def _post(port: int, path: str, body: bytes, headers: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=body, method="POST", headers=headers or {}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def test_page_headers_and_explain_endpoint(server) -> None:
    page = call(server.port, "GET", "/playground")
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'sha256-" in policy
    assert b"://" not in page.body  # no CDN, no external resource: works offline
    assert b'src="http' not in page.body and b'href="http' not in page.body  # nothing external
    status, parts = _post(
        server.port,
        "/playground/explain",
        json.dumps(
            {"query": "retry backoff", "chunk_ids": ["guides/errors.mdx#error-handling"]}
        ).encode(),
    )
    assert status == 200
    why = parts["guides/errors.mdx#error-handling"]
    assert why["full_text"] == pytest.approx(why["lexical"] + why["proximity"], abs=1e-3)
    assert set(why["terms"]) <= {"retry", "backoff"}
    status, error = _post(server.port, "/playground/explain", b"[1")
    assert status == 400 and "error" in error
    # a foreign Origin is refused as on /mcp (DNS-rebinding protection)
    status, _ = _post(server.port, "/playground/explain", b"{}", {"Origin": "http://evil.test"})
    assert status == 403


def test_without_the_flag_there_is_no_playground(example_bundle: Path) -> None:
    srv = start(example_bundle)
    try:
        assert call(srv.port, "GET", "/playground").status == 404
    finally:
        assert srv.stop() == 0


def test_token_protects_explain(example_bundle: Path) -> None:
    srv = start(example_bundle, "--playground", "--auth-token", "s3cret")
    try:
        assert call(srv.port, "GET", "/playground").status == 200  # the page holds no data
        body = json.dumps({"query": "retry", "chunk_ids": []}).encode()
        assert _post(srv.port, "/playground/explain", body)[0] == 401
        ok = _post(srv.port, "/playground/explain", body, {"Authorization": "Bearer s3cret"})
        assert ok == (200, {})
    finally:
        assert srv.stop() == 0


def test_in_a_real_browser(server, tmp_path: Path) -> None:
    executable = chromium()
    if executable is None:
        pytest.skip("chromium is not installed (.ci/run installs Debian's chromium with apt)")
    shots = ARTIFACTS / "playground"
    with Browser(executable, tmp_path / "profile") as b:
        b.goto(f"http://127.0.0.1:{server.port}/playground")
        b.wait("document.getElementById('status').textContent.includes('tools')")
        assert b.js("document.querySelectorAll('#filters select').length") >= 1
        # search by keyboard: focus, type, Enter
        b.js("document.getElementById('query').focus()")
        b.type("sdk")
        b.key("Enter", 13)
        b.wait("document.querySelectorAll('#hits li').length === 10")
        first = b.js("document.querySelector('#hits li .open').textContent")
        assert "#" in first
        # why each hit ranks
        b.wait("document.querySelectorAll('#hits details.why').length === 10")
        assert "term sdk" in b.js("document.querySelector('#hits details.why').textContent")
        assert '"tools/call"' in b.js("document.getElementById('req').textContent")
        b.screenshot(shots / "search-1280x800.png")
        # page with the cursor: the rest of the hits, none repeated
        b.js("document.getElementById('more').click()")
        b.wait("document.querySelectorAll('#hits li').length > 10")
        ids = b.js("[...document.querySelectorAll('#hits li .open')].map(e => e.textContent)")
        assert len(ids) == len(set(ids)) == 12
        assert b.js("document.getElementById('more').classList.contains('hidden')")
        # a filter narrows the hits
        b.js(
            "const s = document.getElementById('filter-language'); s.value = 'python';"
            "document.getElementById('go').click()"
        )
        b.wait("document.getElementById('status').textContent.startsWith('6 hits')")
        ids = b.js("[...document.querySelectorAll('#hits li .open')].map(e => e.textContent)")
        assert ids and all(i.startswith("python/") for i in ids)
        # open a hit: the chunk and its neighbours
        b.js("document.querySelector('#hits li .open').click()")
        b.wait("document.getElementById('reader').textContent.includes('(Target)')")
        assert "--- Chunk: " + ids[0] in b.js("document.getElementById('reader').textContent")
        # browse the page tree and open a page
        b.js("document.getElementById('tab-tree').click()")
        b.wait("document.querySelectorAll('#tree button').length > 0")
        b.js("document.querySelector('#tree button').click()")  # a folder opens in place
        page = (
            "[...document.querySelectorAll('#tree button')]"
            ".find(e => e.textContent.includes('.md'))"
        )
        b.wait("!!" + page)
        b.js(page + ".click()")
        b.wait("document.getElementById('reader-where').textContent.includes('.md:')")
        b.screenshot(shots / "browse-1280x800.png")
        # phone width: one column, nothing wider than the screen
        b.size(390, 844, mobile=True)
        b.js("document.getElementById('tab-hits').click()")
        assert b.js("document.documentElement.scrollWidth <= window.innerWidth + 1")
        b.screenshot(shots / "search-390x844.png")
    for name in ("search-1280x800.png", "browse-1280x800.png", "search-390x844.png"):
        assert (shots / name).stat().st_size > 5000


def test_several_libraries_in_a_real_browser(
    example_bundle: Path, tiny_bundle: Path, tmp_path: Path
) -> None:
    executable = chromium()
    if executable is None:
        pytest.skip("chromium is not installed (.ci/run installs Debian's chromium with apt)")
    srv = start(example_bundle, "--bundle", str(tiny_bundle), "--playground")
    try:
        with Browser(executable, tmp_path / "profile") as b:
            b.goto(f"http://127.0.0.1:{srv.port}/playground")
            b.wait("document.getElementById('status').textContent.includes('tools')")
            libraries = b.js(
                "[...document.querySelectorAll('#filter-library option')].map(o => o.value)"
            )
            assert libraries == ["", "acme-sdk", "tiny-docs"]
            b.js(
                "document.getElementById('filter-library').value = 'tiny-docs';"
                "document.getElementById('query').value = 'widget';"
                "document.getElementById('go').click()"
            )
            b.wait("document.querySelectorAll('#hits li').length > 0")
            tags = b.js("[...document.querySelectorAll('#hits .lib')].map(e => e.textContent)")
            assert tags and set(tags) == {"tiny-docs"}
            b.wait("document.querySelectorAll('#hits details.why').length > 0")
            b.js("document.getElementById('tab-tree').click()")
            b.wait("document.querySelectorAll('#tree button').length > 0")
            b.screenshot(ARTIFACTS / "playground" / "libraries-1280x800.png")
    finally:
        assert srv.stop() == 0
