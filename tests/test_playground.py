"""The playground (`docsmcp-runtime playground`, `--playground`): the page in a real headless
Chromium against a real server on 127.0.0.1 — load, the corpus in the header, search by keyboard,
hit cards titled by heading, why each hit ranks (by the words typed), filter, page with the
cursor, open a hit (rendered markdown: tables, code blocks), hostile markdown kept as text,
keyboard navigation, browse, the MCP exchange shown, phone width — and its HTTP surface without a
browser (headers, the explain and about endpoints, the same checks as /mcp).

Screenshots go to test-artifacts/playground/ (or $DOCSMCP_ARTIFACTS/playground/)."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from cdp import Browser, chromium
from conftest import build_bundle
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


def _explain(port: int, query: str, chunk_id: str) -> tuple[int, dict]:
    """The playground's *Why this rank* for one chunk, as its page asks for it."""
    body = json.dumps({"query": query, "chunk_ids": [chunk_id]}).encode()
    return _post(port, "/playground/explain", body)


def test_page_headers_and_explain_endpoint(server) -> None:
    page = call(server.port, "GET", "/playground")
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'sha256-" in policy
    assert b"://" not in page.body  # no CDN, no external resource: works offline
    assert b'src="http' not in page.body and b'href="http' not in page.body  # nothing external
    status, parts = _explain(server.port, "retry backoff", "guides/errors.mdx#error-handling")
    assert status == 200
    why = parts["guides/errors.mdx#error-handling"]
    assert why["full_text"] == pytest.approx(why["lexical"] + why["proximity"], abs=1e-3)
    assert set(why["terms"]) <= {"retry", "backoff"}
    # each term is paired with the word typed, in query order: OAuth2-like words read as typed
    status, parts = _explain(server.port, "RetryConfig", "guides/errors.mdx#error-handling/retries")
    typed = parts["guides/errors.mdx#error-handling/retries"]["typed"]
    assert typed[0] == ["retryconfig", "RetryConfig"]
    assert {w for _, w in typed} == {"RetryConfig"} and ["retry", "RetryConfig"] in typed
    # a choice: the words' part is scaled by how many of the query's words the section holds
    status, parts = _explain(
        server.port, "retry or refund", "guides/errors.mdx#error-handling/retries"
    )
    why = parts["guides/errors.mdx#error-handling/retries"]
    assert why["coordination"]["words"] == 2 and 0 < why["coordination"]["factor"] < 1
    assert why["full_text"] == pytest.approx(
        why["lexical"] * why["coordination"]["factor"] + why["proximity"], abs=1e-3
    )
    about = call(server.port, "GET", "/playground/about").json()["libraries"]
    assert [(a["name"], a["pages"], a["chunks"]) for a in about] == [("acme-sdk", 6, 19)]
    assert about[0]["description"]
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
        assert call(srv.port, "GET", "/playground/about").status == 401
        about = call(srv.port, "GET", "/playground/about", None, {"Authorization": "Bearer s3cret"})
        assert about.status == 200 and about.json()["libraries"][0]["name"] == "acme-sdk"
    finally:
        assert srv.stop() == 0


READY = "document.getElementById('status').textContent.includes('Type a query')"
HITS = "document.querySelectorAll('#hits li.hit')"


def _browser_or_skip() -> str:
    executable = chromium()
    if executable is None:
        pytest.skip("chromium is not installed (.ci/run installs Debian's chromium with apt)")
    return executable


def test_in_a_real_browser(server, tmp_path: Path) -> None:
    shots = ARTIFACTS / "playground"
    with Browser(_browser_or_skip(), tmp_path / "profile") as b:
        b.goto(f"http://127.0.0.1:{server.port}/playground")
        b.wait(READY)
        # the header names the corpus and its size, as a docs site would
        assert b.js("document.getElementById('corpus').textContent") == "acme-sdk"
        assert b.js("document.getElementById('size').textContent") == "6 pages · 19 sections"
        assert b.js("document.title").startswith("acme-sdk docs")
        assert b.js("document.querySelectorAll('#filters select').length") >= 1
        # search by keyboard: / focuses the box, type, Enter
        b.key("/", 191)
        assert b.js("document.activeElement.id") == "query"
        b.type("sdk")
        b.key("Enter", 13)
        b.wait(HITS + ".length === 10")
        # a card is titled by its heading, under its breadcrumb; the chunk id is not the title
        sent = b.js("JSON.parse(document.getElementById('resp').textContent)")
        first = sent["result"]["structuredContent"]["hits"][0]
        title = b.js("document.querySelector('#hits li .open').textContent")
        assert title == first["heading"] and "#" not in title
        assert b.js("document.querySelector('#hits li').dataset.chunkId") == first["chunk_id"]
        assert b.js("document.querySelector('#hits li .copy').title") == first["chunk_id"]
        crumbs = b.js("document.querySelector('#hits li .crumbs').textContent")
        assert first["filepath"] not in crumbs  # folders and headings, not the raw breadcrumb
        # why each hit ranks, by the word typed
        b.wait("document.querySelectorAll('#hits details.why').length === 10")
        why = b.js("document.querySelector('#hits details.why').textContent")
        assert "as typed" in why and "sdk" in why and "full-text score" in why
        assert '"tools/call"' in b.js("document.getElementById('req').textContent")
        b.js("document.querySelector('#hits details.why').open = true")
        b.screenshot(shots / "results-1280x800.png")
        # page with the cursor: the rest of the hits, none repeated
        b.js("document.getElementById('more').click()")
        b.wait(HITS + ".length > 10")
        ids = b.js(f"[...{HITS}].map(e => e.dataset.chunkId)")
        assert len(ids) == len(set(ids)) == 12
        assert b.js("document.getElementById('more').classList.contains('hidden')")
        assert b.js("document.getElementById('status').textContent") == "12 hits shown"
        # a filter narrows the hits
        b.js(
            "const s = document.getElementById('filter-language'); s.value = 'python';"
            "document.getElementById('go').click()"
        )
        b.wait("document.getElementById('status').textContent.startsWith('6 hits')")
        ids = b.js(f"[...{HITS}].map(e => e.dataset.chunkId)")
        assert ids and all(i.startswith("python/") for i in ids)
        # open a hit: the chunk rendered, its neighbours dimmed; the raw result in the agent panel
        b.js("document.querySelector('#hits li .open').click()")
        b.wait("!!document.querySelector('#reader .section.target')")
        assert b.js("document.querySelector('#reader .section.target').dataset.chunkId") == ids[0]
        assert "--- Chunk: " + ids[0] in b.js("document.getElementById('resp').textContent")
        assert "(Target)" not in b.js("document.getElementById('reader').textContent")
        # browse the page tree and open a page; the results' count stays with the results
        b.js("document.getElementById('tab-tree').click()")
        b.wait("document.querySelectorAll('#tree button').length > 0")
        # (the language filter applies: guides/ and python/)
        assert b.js("document.getElementById('tree-status').textContent") == "2 folders"
        assert b.js("document.getElementById('status').offsetParent") is None  # hidden
        b.js("document.querySelector('#tree button').click()")  # a folder opens in place
        page = "document.querySelector('#tree ul button.page')"
        b.wait("!!" + page)
        assert "(2 pages)" not in b.js("document.getElementById('tree').textContent")
        assert "2 pages" in b.js("document.getElementById('tree').textContent")
        b.js(page + ".click()")
        b.wait("document.getElementById('reader-title').textContent.length > 0")
        b.wait("document.querySelectorAll('#reader h1, #reader h2, #reader p').length > 0")
        b.screenshot(shots / "browse-1280x800.png")
        # phone width: one column, nothing wider than the screen
        b.size(390, 844, mobile=True)
        b.js("document.getElementById('tab-hits').click()")
        assert b.js("document.documentElement.scrollWidth <= window.innerWidth + 1")
        b.screenshot(shots / "search-390x844.png")
        # a choice: why each hit ranks says whether it holds every word asked for
        b.js(
            "document.getElementById('query').value = 'refund or create';"
            "document.getElementById('go').click()"
        )
        b.wait("document.querySelectorAll('#hits details.why').length > 0")
        why = b.js("document.querySelector('#hits details.why').textContent")
        assert "words of the query are here" in why and "full-text score" in why
    for name in ("results-1280x800.png", "browse-1280x800.png", "search-390x844.png"):
        assert (shots / name).stat().st_size > 5000


def test_reader_renders_markdown_and_keys_move_through_hits(server, tmp_path: Path) -> None:
    shots = ARTIFACTS / "playground"
    with Browser(_browser_or_skip(), tmp_path / "profile") as b:
        b.goto(f"http://127.0.0.1:{server.port}/playground")
        b.wait(READY)
        b.key("/", 191)
        b.type("retries backoff")
        b.key("Enter", 13)
        b.wait(HITS + ".length > 2")
        ids = b.js(f"[...{HITS}].map(e => e.dataset.chunkId)")
        # ↓ from the search box selects the first hit, ↓ the second, ↑ back; Enter opens it
        b.key("ArrowDown", 40)
        b.key("ArrowDown", 40)
        b.key("ArrowUp", 38)
        b.key("ArrowDown", 40)
        selected = "document.querySelector('#hits li[aria-selected=true]')"
        assert b.js(selected + ".dataset.chunkId") == ids[1]
        assert b.js("document.activeElement.dataset.chunkId") == ids[1]
        b.key("Enter", 13)
        target = "document.querySelector('#reader .section.target')"
        b.wait(f"!!{target} && {target}.dataset.chunkId === {json.dumps(ids[1])}")
        # Esc closes the reader and gives the focus back to the hit
        b.key("Escape", 27)
        b.wait("!!document.getElementById('reader-empty')")
        assert b.js("document.activeElement.dataset.chunkId") == ids[1]
        # the error-handling section: a table and a code block as elements, not markdown text
        retries = "guides/errors.mdx#error-handling/retries"
        assert retries in ids
        b.js(
            f"[...{HITS}].find(e => e.dataset.chunkId === {json.dumps(retries)})"
            ".querySelector('.open').click()"
        )
        b.wait("document.querySelectorAll('#reader table').length > 0")
        heads = b.js("[...document.querySelectorAll('#reader table th')].map(e => e.textContent)")
        assert heads == ["Error", "Status", "Retry?"]
        assert b.js("document.querySelector('#reader table td code').textContent") == (
            "BadRequestError"
        )
        block = "document.querySelector('#reader .codeblock')"
        assert b.js(block + ".dataset.lang") == "python"
        assert b.js(block + ".querySelector('pre code').textContent").startswith("client = Acme(")
        text = b.js("document.getElementById('reader').textContent")
        assert "```" not in text and "| --- |" not in text and "|---|" not in text
        assert b.js("document.getElementById('reader-title').textContent") == "Retries"
        assert "guides/errors.mdx:23" in b.js("document.getElementById('reader-where').textContent")
        b.screenshot(shots / "reader-1280x800.png")
        # why this rank: an identifier typed once, explained as the word and its parts
        b.js(
            "document.getElementById('query').value = 'RetryConfig backoff';"
            "document.getElementById('go').click()"
        )
        b.wait("document.querySelectorAll('#hits details.why').length > 0")
        b.js("document.querySelector('#hits details.why').open = true")
        rows = b.js(
            "[...document.querySelector('#hits table.why').rows].map(r => r.cells[0].textContent)"
        )
        assert rows[1:3] == ["RetryConfig", "backoff"]
        assert "part config" in b.js("document.querySelector('#hits table.why').textContent")
        b.screenshot(shots / "why-this-rank-1280x800.png")


HOSTILE = """---
title: Hostile page
---
# Hostile page <img src=x onerror="window.pwned = 1">

Zorblax text <script>window.pwned = 2</script> and <b onclick="window.pwned = 3">bold</b>.

<img src=x onerror="window.pwned = 4">

A [link](javascript:window.pwned=5) and an
<abbr title="Application Programming Interface">API</abbr>.

See [the other page](other.md#other).

| cell | other |
|---|---|
| <script>window.pwned = 6</script> | `<img src=x onerror=alert(1)>` |
"""


def test_hostile_markdown_stays_text(tmp_path: Path) -> None:
    """A page with script, event handlers and a javascript: link shows them as text; the same
    bundle, built with a version and a link template, shows both (header, source link)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "hostile.md").write_text(HOSTILE, encoding="utf-8")
    (docs / "other.md").write_text("# Other\n\nNothing to see.\n", encoding="utf-8")
    template = "https://code.example/docs/{path}#L{line_start}-L{line_end}"
    bundle = build_bundle(
        docs, tmp_path / "idx", "--corpus-version", "2.1", "--source-url", template
    )
    srv = start(bundle, "--playground")
    try:
        with Browser(_browser_or_skip(), tmp_path / "profile") as b:
            b.goto(f"http://127.0.0.1:{srv.port}/playground")
            b.wait(READY)
            b.key("/", 191)
            b.type("zorblax")
            b.key("Enter", 13)
            b.wait(HITS + ".length > 0")
            assert b.js("document.getElementById('version').textContent") == "v2.1"
            source = b.js("document.querySelector('#hits li a.source').href")
            assert source.startswith("https://code.example/docs/hostile.md#L")
            b.js("document.querySelector('#hits li .open').click()")
            b.wait("!!document.querySelector('#reader .section.target')")
            b.js("document.querySelector('#reader-actions button').click()")  # the whole page
            b.wait("document.getElementById('reader-title').textContent === 'Hostile page'")
            b.wait("document.querySelectorAll('#reader table').length === 1")
            made = b.js(
                "document.querySelectorAll('#reader script, #reader img, #reader b, "
                "#hits script, #hits img, #reader [onerror], #reader [onclick]').length"
            )
            assert made == 0
            assert b.js("typeof window.pwned") == "undefined"
            text = b.js("document.getElementById('reader').textContent")
            # The builder reduces markup to what a reader sees (formats/markdown/readable.py): the
            # script and the image tag are gone from the text; what stays is shown as text.
            assert "window.pwned" not in text
            assert "<img src=x onerror=alert(1)>" in text
            links = b.js("[...document.querySelectorAll('#reader a')].map(a => a.href)")
            assert not [h for h in links if h.startswith("javascript")]
            assert "<abbr" not in text and "API" in text  # reduced to its text by the builder
            b.screenshot(ARTIFACTS / "playground" / "hostile-1280x800.png")
            # a relative link opens that page of the docs in the reader
            b.js(
                "[...document.querySelectorAll('#reader a')].find(a => a.textContent === "
                "'the other page').click()"
            )
            b.wait("document.getElementById('reader-title').textContent === 'Other'")
            assert "Nothing to see." in b.js("document.getElementById('reader').textContent")
    finally:
        assert srv.stop() == 0


def test_several_libraries_in_a_real_browser(
    example_bundle: Path, tiny_bundle: Path, tmp_path: Path
) -> None:
    executable = _browser_or_skip()
    srv = start(example_bundle, "--bundle", str(tiny_bundle), "--playground")
    try:
        with Browser(executable, tmp_path / "profile") as b:
            b.goto(f"http://127.0.0.1:{srv.port}/playground")
            b.wait(READY)
            assert b.js("document.getElementById('corpus').textContent") == ("acme-sdk · tiny-docs")
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
