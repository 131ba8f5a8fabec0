"""Docs read from git repositories (issue 11, item 2): real repositories made with `git init` in a
temporary folder, fetched over `file://` URLs and local paths by the real git binary; the bundle
is read back through the official `mcp` SDK client. Failures are one line each, never a hang."""

from __future__ import annotations

import fcntl
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import FUZZ, run_docsmcp
from docsmcp.sources.gitsource import GitError, wanted
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git binary")

DATE = "2026-02-03T04:05:06+00:00"


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_AUTHOR_DATE": DATE,
        "GIT_COMMITTER_DATE": DATE,
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    repo = tmp_path / "widgets.git"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _commit(
        repo,
        {
            "README.md": "# Widgets\n\nThe repository readme.\n",
            "docs/guide.md": "# Guide\n\nInstall the widget frobnicator first.\n\n"
            "## Configure\n\nSet `WIDGET_MODE` to `fast`.\n",
            "docs/api/ref.md": "# Reference\n\n## frob()\n\nFrobnicates a widget.\n",
        },
        "first",
    )
    _git(repo, "tag", "v1")
    return repo


def _build(url: str | Path, out: Path, cache: Path, *extra: str, check: bool = True):
    return run_docsmcp(
        "build", "--docs-dir", url, "--out", out, "--cache-dir", cache, *extra, check=check
    )


def _meta(out: Path) -> dict:
    return json.loads((out / "metadata.json").read_text())


def test_a_file_url_builds_with_its_commit_and_serves(origin: Path, tmp_path: Path) -> None:
    head = _git(origin, "rev-parse", "HEAD")
    out, cache = tmp_path / "idx", tmp_path / "cache"
    _build(f"file://{origin}", out, cache, "--subdir", "docs", "--quiet")
    meta = _meta(out)
    assert meta["source"]["commit"] == head
    assert meta["source"]["commit_date"] == DATE
    assert meta["name"] == "widgets"  # the repository's name, not the cache folder's
    assert meta["stats"]["files"] == 2  # docs/ only: the readme at the root is not indexed
    assert (cache / "git").is_dir()
    with McpSession(out) as s:
        hits = s.search(query="frobnicator")["hits"]
        assert hits[0]["filepath"] == "guide.md"
        assert hits[0]["source"]["commit"] == head
        assert "WIDGET_MODE" in s.get_doc("guide.md#guide/configure")


def test_a_cache_that_cannot_be_written_is_one_warning(origin: Path, tmp_path: Path) -> None:
    """The cache is optional (issue 31): a file in its way (as a full or read-only disk) was a
    traceback. The checkout goes to a temporary folder, removed when the build ends."""
    cache = tmp_path / "cache"
    cache.write_text("a file where the cache folder should be")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp.cli", "build", "--docs-dir", f"file://{origin}",
         "--subdir", "docs", "--out", tmp_path / "idx", "--cache-dir", cache],
        capture_output=True, text=True, timeout=120, env={**os.environ, "TMPDIR": str(temporary)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.splitlines()[0] == (
        f"docsmcp: warning: cannot keep git checkouts in the cache {cache}/git (Not a "
        "directory); fetching into a temporary folder (--cache-dir DIR to choose a cache)"
    )
    assert _meta(tmp_path / "idx")["stats"]["files"] == 2
    assert list(temporary.iterdir()) == []  # the checkout went with the process


@pytest.mark.slow  # git and 4 builds
def test_unchanged_tree_is_skipped_changed_tree_rebuilt(origin: Path, tmp_path: Path) -> None:
    out, cache = tmp_path / "idx", tmp_path / "cache"
    url = f"file://{origin}"
    _build(url, out, cache, "--subdir", "docs")
    first = _meta(out)["bundle_id"]
    again = _build(url, out, cache, "--subdir", "docs")
    assert "is up to date" in again.stdout and "nothing rebuilt" in again.stdout
    # A commit outside the docs folder leaves its tree unchanged: still skipped.
    _commit(origin, {"README.md": "# Widgets\n\nChanged readme.\n"}, "readme")
    assert "is up to date" in _build(url, out, cache, "--subdir", "docs").stdout
    # Other options make another bundle: built.
    other = _build(url, out, cache, "--subdir", "docs", "--exclude", "api/**")
    assert "built" in other.stdout and _meta(out)["stats"]["files"] == 1
    _build(url, out, cache, "--subdir", "docs")
    assert _meta(out)["bundle_id"] == first
    # A change of the docs: rebuilt, with the new commit.
    head = _commit(origin, {"docs/new.md": "# New page\n\nQuux.\n"}, "docs")
    rebuilt = _build(url, out, cache, "--subdir", "docs")
    assert "built" in rebuilt.stdout
    meta = _meta(out)
    assert meta["source"]["commit"] == head and meta["stats"]["files"] == 3


def test_a_bundle_changed_since_is_rebuilt(origin: Path, tmp_path: Path) -> None:
    out, cache = tmp_path / "idx", tmp_path / "cache"
    url = f"file://{origin}"
    _build(url, out, cache)
    other = tmp_path / "plain"
    other.mkdir()
    (other / "x.md").write_text("# X\n\nplain folder\n")
    run_docsmcp("build", "--docs-dir", other, "--out", out, "--quiet")  # replaces the bundle
    res = _build(url, out, cache, "--json")
    assert json.loads(res.stdout).get("skipped") is None
    assert _meta(out)["stats"]["files"] == 3


@pytest.mark.slow  # git and 4 builds
def test_refs_tags_branches_and_commits(origin: Path, tmp_path: Path) -> None:
    first = _git(origin, "rev-parse", "HEAD")
    _git(origin, "checkout", "-q", "-b", "next")
    second = _commit(origin, {"docs/guide.md": "# Guide\n\nRewritten for v2.\n"}, "v2")
    _git(origin, "checkout", "-q", "main")
    cache = tmp_path / "cache"
    for ref, commit in [("v1", first), ("next", second), (second, second), (first[:10], first)]:
        out = tmp_path / f"idx-{ref}"
        # A local path with --ref is a git source too.
        _build(origin, out, cache, "--ref", ref, "--subdir", "docs", "--quiet")
        assert _meta(out)["source"]["commit"] == commit, ref


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ref", "no-such-branch"], "ref 'no-such-branch' not found in file://"),
        (["--subdir", "nowhere"], "--subdir 'nowhere' is not a folder at commit"),
        (["--subdir", "../etc"], "--subdir '../etc' must be a folder inside the repository"),
    ],
)
def test_bad_ref_or_subdir_is_one_line(
    origin: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "idx"
    res = _build(f"file://{origin}", out, tmp_path / "cache", *args, check=False)
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and message in res.stderr, res.stderr
    assert not out.exists()


@pytest.mark.parametrize("local", [False, True], ids=["file-url", "local-path"])
@pytest.mark.parametrize(
    "ref",
    ["--upload-pack=touch {pwned};false", "-uPWNED", "main..dev", "ma in", "HEAD@{{1}}"],
)
def test_a_ref_that_is_no_ref_name_is_refused_before_git_runs(
    origin: Path, tmp_path: Path, ref: str, local: bool
) -> None:
    """Issue 31: `--ref` went to `git fetch ... origin REF` with nothing ending the options, so
    `--upload-pack=CMD` ran CMD on the builder's machine. A ref must be a ref name or an id."""
    pwned = tmp_path / "PWNED"
    ref = ref.format(pwned=pwned)
    out = tmp_path / "idx"
    url = str(origin) if local else f"file://{origin}"
    res = _build(url, out, tmp_path / "cache", f"--ref={ref}", check=False)
    assert not pwned.exists()
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1, res.stderr
    assert f"--ref {ref!r} is not a branch, tag or commit name" in res.stderr, res.stderr
    assert not out.exists()


@FUZZ
@given(st.text(st.sampled_from("ab1/.-@{}~^:?*[\\ \x00lock"), min_size=1, max_size=12))
def test_every_ref_we_accept_is_a_ref_name_git_accepts(ref: str) -> None:
    """The ref check against git's own (`git check-ref-format --allow-onelevel`), and never a
    leading `-`: what wanted() lets through, git reads as a name, not an option."""
    try:
        wanted("file:///repo.git", ref, None)
    except GitError:
        return
    assert not ref.startswith("-")
    git = subprocess.run(["git", "check-ref-format", "--allow-onelevel", ref], capture_output=True)
    assert git.returncode == 0, ref


@pytest.mark.parametrize(
    "url", ["ext::sh -c touch% {pwned}", "ext://sh -c touch% {pwned}", "fd::3", "git+ext://x"]
)
def test_a_remote_only_through_the_transports_a_user_means(tmp_path: Path, url: str) -> None:
    """`ext::` and `fd::` run commands or read descriptors: never a docs source. A URL scheme
    other than https, http, ssh, git or file is refused in one line; git itself is told the
    same (GIT_ALLOW_PROTOCOL) for whatever reaches it."""
    pwned = tmp_path / "PWNED"
    url = url.format(pwned=pwned)
    res = _build(url, tmp_path / "idx", tmp_path / "cache", "--ref", "main", check=False)
    assert not pwned.exists()
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1, res.stderr


@pytest.mark.parametrize(
    "url",
    ["file:///nonexistent/repo.git", "http://127.0.0.1:9/repo.git", "/nonexistent/repo"],
)
def test_an_unreachable_remote_is_one_line(url: str, tmp_path: Path) -> None:
    extra = ["--ref", "main"] if url.startswith("/") else []
    res = _build(url, tmp_path / "idx", tmp_path / "cache", *extra, check=False)
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1, res.stderr
    assert res.stderr.startswith(f"docsmcp: error: cannot fetch {url}: "), res.stderr


def test_a_missing_git_binary_is_one_line(
    origin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    res = _build(f"file://{origin}", tmp_path / "idx", tmp_path / "cache", check=False)
    assert res.returncode == 2
    assert res.stderr == (
        "docsmcp: error: git is not installed (or not on PATH); it is needed to read docs "
        "from a git repository (--docs-dir URL, --ref, --subdir)\n"
    )


def test_a_password_prompt_never_hangs(tmp_path: Path) -> None:
    """A remote that asks for credentials (HTTP 401, as a private repository does): with no
    terminal git fails at once instead of waiting for a password."""

    class Private(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="private"')
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Private)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/private.git"
        started = time.monotonic()
        res = run_docsmcp("validate", "--docs-dir", url, check=False)
    finally:
        server.shutdown()
    assert time.monotonic() - started < 30
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert res.stderr.startswith(f"docsmcp: error: cannot fetch {url}: "), res.stderr


def test_validate_reads_a_git_source(origin: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("DOCSMCP_CACHE_DIR", str(tmp_path / "cache"))
    res = run_docsmcp("validate", "--docs-dir", f"file://{origin}", "--subdir", "docs")
    assert res.stdout.startswith("ok: 2 files")
    assert (tmp_path / "cache" / "git").is_dir()


@pytest.mark.slow  # waits 3 s on purpose
def test_a_build_reading_a_checkout_holds_off_another(origin: Path, tmp_path: Path) -> None:
    """A build reads the work tree after the checkout: another build of the same repository
    (another ref) waits for it instead of changing the files under it."""
    from docsmcp.sources.gitsource import cache_entry, wanted

    cache = tmp_path / "cache"
    url = f"file://{origin}"
    _build(url, tmp_path / "first", cache, "--quiet")
    entry = cache_entry(cache, wanted(url, None, None))
    with open(entry.with_name(entry.name + ".lock"), "a") as reader:
        fcntl.flock(reader, fcntl.LOCK_SH)  # as a build in progress holds it
        done: list[subprocess.CompletedProcess[str]] = []
        worker = threading.Thread(
            target=lambda: done.append(_build(url, tmp_path / "second", cache, "--ref", "v1"))
        )
        worker.start()
        worker.join(timeout=3)
        assert worker.is_alive() and not done  # waiting for the lock
        fcntl.flock(reader, fcntl.LOCK_UN)
    worker.join(timeout=60)
    assert done and done[0].returncode == 0
    assert _meta(tmp_path / "second")["source"]["commit"] == _git(origin, "rev-parse", "v1")
