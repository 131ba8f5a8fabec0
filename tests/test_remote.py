"""`--bundle https://...` release assets (runtime/docsmcp_runtime/distribution/remote.py), fetched
from a real HTTP server on 127.0.0.1 (tests/asset_server.py): sidecar and pins, redirects, Range
resume after dropped connections (in one start and across starts), servers that ignore Range or
changed the file, wrong sha256, size caps, timeouts, the host down with and without a cached
copy, several bundles, and the runtime serving a URL to the official MCP SDK client."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from asset_server import AssetServer
from conftest import FUZZ, build_bundle, run_docsmcp
from docsmcp_runtime.distribution.archive import parse_sha256sum
from docsmcp_runtime.distribution.remote import (
    FetchOptions,
    parse_content_range,
    parse_remote,
    pin_specs,
    sidecar_url,
)
from docsmcp_runtime.distribution.resolve import resolve_bundle
from docsmcp_runtime.errors import BundleError
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

TINY_DOCS = Path(__file__).resolve().parent / "fixtures" / "tiny-docs"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def assets(example_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of release assets: idx.tar.gz (+ .sha256), tiny.tar.gz (+ .sha256),
    bare.tar.gz (no sidecar), bad.tar.gz.sha256 naming another digest."""
    root = tmp_path_factory.mktemp("assets")
    run_docsmcp("pack", example_bundle, "-o", root / "idx.tar.gz")
    tiny = build_bundle(TINY_DOCS, tmp_path_factory.mktemp("tiny-remote") / "idx")
    run_docsmcp("pack", tiny, "-o", root / "tiny.tar.gz")
    shutil.copy(root / "idx.tar.gz", root / "bare.tar.gz")
    shutil.copy(root / "idx.tar.gz", root / "bad.tar.gz")
    (root / "bad.tar.gz.sha256").write_text("0" * 64 + "  bad.tar.gz\n")
    return root


@pytest.fixture
def server(assets: Path):
    srv = AssetServer(assets)
    yield srv
    srv.stop()


def resolve(url: str, cache: Path, **options) -> Path:
    return resolve_bundle(url, cache_dir=cache, fetch=FetchOptions(**options))


def runtime(*args: str, cache: Path, env: dict[str, str] | None = None):
    environ = {**os.environ, "DOCSMCP_CACHE_DIR": str(cache), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
    )


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("docsmcp-runtime: error:")]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


# -- verification ----------------------------------------------------------------------------


def test_sidecar_download_is_verified_unpacked_and_cached(server, assets, tmp_path):
    digest = sha256(assets / "idx.tar.gz")
    bundle = resolve(server.url("idx.tar.gz"), tmp_path)
    assert bundle == tmp_path / "bundles" / digest
    assert (bundle / "metadata.json").is_file()
    # The download is gone (the bundle directory is the cache); the URL record stays.
    assert not list((tmp_path / "downloads").glob("*.part"))
    assert [p for p, _ in server.requests] == ["/idx.tar.gz.sha256", "/idx.tar.gz"]
    # Next start: only the sidecar is asked (it names a cached bundle).
    assert resolve(server.url("idx.tar.gz"), tmp_path) == bundle
    assert [p for p, _ in server.requests][2:] == ["/idx.tar.gz.sha256"]


def test_pin_makes_cached_starts_offline(server, assets, tmp_path):
    digest = sha256(assets / "idx.tar.gz")
    url = server.url("bare.tar.gz") + "#sha256=" + digest.upper()  # no sidecar needed
    bundle = resolve(url, tmp_path)
    assert bundle.name == digest
    assert [p for p, _ in server.requests] == ["/bare.tar.gz"]
    server.stop()
    assert resolve(url, tmp_path) == bundle  # no request at all


def test_wrong_sha256_is_refused_and_leaves_nothing(server, assets, tmp_path):
    with pytest.raises(BundleError, match=r"sha256 is [0-9a-f]{64}, the sidecar says 0{64}"):
        resolve(server.url("bad.tar.gz"), tmp_path)
    wrong = "ab" * 32
    with pytest.raises(BundleError, match=f"the pin says {wrong}; refused"):
        resolve(server.url("idx.tar.gz") + "#sha256=" + wrong, tmp_path)
    assert not any((tmp_path / "bundles").iterdir()) if (tmp_path / "bundles").exists() else True
    assert not list((tmp_path / "downloads").glob("*.part*"))


def test_no_pin_and_no_sidecar_is_refused_unless_unverified(server, tmp_path, caplog):
    with pytest.raises(BundleError, match=r"sidecar .*bare.tar.gz.sha256 answered HTTP 404"):
        resolve(server.url("bare.tar.gz"), tmp_path)
    bundle = resolve(server.url("bare.tar.gz"), tmp_path, unverified=True)
    assert (bundle / "metadata.json").is_file()
    assert "was not checked (--bundle-unverified)" in caplog.text


def test_archive_checks_still_apply(server, assets, tmp_path):
    """A verified download that is not a bundle archive fails the archive checks."""
    junk = assets / "junk.tar.gz"
    junk.write_bytes(b"not a gzip file at all" * 10)
    (assets / "junk.tar.gz.sha256").write_text(sha256(junk) + "  junk.tar.gz\n")
    with pytest.raises(BundleError, match="not a readable .tar.gz bundle archive"):
        resolve(server.url("junk.tar.gz"), tmp_path)
    assert not list((tmp_path / "downloads").glob("*.part*"))


# -- redirects -------------------------------------------------------------------------------


def test_redirects_are_followed_up_to_the_limit(server, assets, tmp_path):
    server.behaviour.redirects = {
        "/r1": "/r2",
        "/r2": server.url("r3"),  # absolute and relative Locations
        "/r3": "/idx.tar.gz",
        "/r1.sha256": "/idx.tar.gz.sha256",
    }
    assert resolve(server.url("r1"), tmp_path).name == sha256(assets / "idx.tar.gz")
    loop = {f"/l{i}": f"/l{i + 1}" for i in range(10)}
    server.behaviour.redirects = loop
    digest = sha256(assets / "idx.tar.gz")
    with pytest.raises(BundleError, match="more than 5 redirects"):
        resolve(server.url("l0") + "#sha256=" + digest, tmp_path / "other")


def test_redirect_to_plain_http_elsewhere_is_refused(server, tmp_path):
    server.behaviour.redirects = {"/x.tar.gz.sha256": "http://example.com/idx.tar.gz.sha256"}
    with pytest.raises(BundleError, match="redirect to http://example.com/.* refused: plain http"):
        resolve(server.url("x.tar.gz"), tmp_path)


def test_redirect_to_a_local_file_is_refused_as_such(server, tmp_path):
    # (urllib refuses the scheme itself: that read as "more than 5 redirects")
    server.behaviour.redirects = {"/x.tar.gz.sha256": "file:///etc/passwd"}
    with pytest.raises(BundleError, match="redirect to file:///etc/passwd refused: ") as err:
        resolve(server.url("x.tar.gz"), tmp_path)
    assert "more than" not in str(err.value)


# -- resuming --------------------------------------------------------------------------------


def test_dropped_connection_resumes_with_range_in_the_same_start(server, assets, tmp_path):
    size = (assets / "idx.tar.gz").stat().st_size
    server.behaviour.drop_after, server.behaviour.drops = 5000, 2
    bundle = resolve(server.url("idx.tar.gz"), tmp_path)
    assert bundle.name == sha256(assets / "idx.tar.gz")
    asked = server.asset_requests("idx.tar.gz")
    assert [h.get("range") for h in asked] == [None, "bytes=5000-", "bytes=10000-"]
    assert asked[1]["if-range"].startswith('"')  # the strong ETag of the first response
    assert size > 10000


def test_partial_from_an_earlier_start_is_resumed(server, assets, tmp_path):
    digest = sha256(assets / "idx.tar.gz")
    server.behaviour.drop_after, server.behaviour.drops = 1000, 4
    with pytest.raises(BundleError, match="interrupted 4 times .* next start resumes"):
        resolve(server.url("idx.tar.gz"), tmp_path)
    (part,) = (tmp_path / "downloads").glob("*.part")
    assert part.stat().st_size == 4000
    server.requests.clear()
    assert resolve(server.url("idx.tar.gz"), tmp_path).name == digest
    assert [h.get("range") for h in server.asset_requests("idx.tar.gz")] == ["bytes=4000-"]


def test_resume_without_validators_checks_the_size(server, assets, tmp_path):
    server.behaviour.validators = False
    server.behaviour.drop_after, server.behaviour.drops = 3000, 1
    assert resolve(server.url("idx.tar.gz"), tmp_path).name == sha256(assets / "idx.tar.gz")
    asked = server.asset_requests("idx.tar.gz")
    assert [h.get("range") for h in asked] == [None, "bytes=3000-"]
    assert "if-range" not in asked[1]


def test_server_ignoring_range_restarts_the_download(server, assets, tmp_path):
    server.behaviour.drop_after, server.behaviour.drops = 3000, 1
    server.behaviour.ignore_range = True
    assert resolve(server.url("idx.tar.gz"), tmp_path).name == sha256(assets / "idx.tar.gz")
    assert len(server.asset_requests("idx.tar.gz")) == 2


def test_changed_file_on_the_server_restarts_not_splices(server, assets, tmp_path):
    """If-Range with the old ETag: the server sends the whole new file (200), never a splice."""
    digest = sha256(assets / "idx.tar.gz")
    server.behaviour.drop_after, server.behaviour.drops = 1000, 4
    with pytest.raises(BundleError, match="interrupted"):
        resolve(server.url("idx.tar.gz"), tmp_path)
    server.behaviour.etag_salt = "v2"
    assert resolve(server.url("idx.tar.gz"), tmp_path).name == digest
    last = server.asset_requests("idx.tar.gz")[-1]
    assert last["range"] == "bytes=4000-" and last["if-range"].startswith('"')


def test_chunked_body_dropped_midway_resumes(server, assets, tmp_path):
    server.behaviour.chunked = True
    server.behaviour.drop_after, server.behaviour.drops = 2000, 1
    assert resolve(server.url("idx.tar.gz"), tmp_path).name == sha256(assets / "idx.tar.gz")


# -- bounds ----------------------------------------------------------------------------------


def test_oversize_is_refused_before_and_while_downloading(server, tmp_path):
    with pytest.raises(BundleError, match=r"has \d+ bytes, over the 1000-byte limit"):
        resolve(server.url("idx.tar.gz"), tmp_path, max_bytes=1000)
    assert [h.get("range") for h in server.asset_requests("idx.tar.gz")] == [None]
    server.behaviour.chunked = True  # no Content-Length: counted while receiving
    with pytest.raises(BundleError, match=r"over the 1000-byte limit .*--bundle-max-bytes"):
        resolve(server.url("idx.tar.gz"), tmp_path, max_bytes=1000)
    assert not list((tmp_path / "downloads").glob("*.part"))


@pytest.mark.slow
def test_trickling_server_hits_the_deadline(server, tmp_path):
    server.behaviour.trickle = 0.02
    started = time.monotonic()
    with pytest.raises(BundleError, match="took longer than 3 s"):
        resolve(server.url("idx.tar.gz"), tmp_path, timeout=0.1)
    assert time.monotonic() - started < 10


def test_http_errors_are_one_line(server, tmp_path):
    digest = "cd" * 32
    with pytest.raises(BundleError, match=r"missing.tar.gz: HTTP 404"):
        resolve(server.url("missing.tar.gz") + "#sha256=" + digest, tmp_path)
    server.behaviour.status = 403
    with pytest.raises(BundleError, match=r"HTTP 403"):
        resolve(server.url("idx.tar.gz") + "#sha256=" + digest, tmp_path)


# -- the host down ---------------------------------------------------------------------------


@pytest.mark.slow
def test_unreachable_host_serves_the_cached_copy_and_says_so(server, assets, tmp_path):
    digest = sha256(assets / "idx.tar.gz")
    url = server.url("idx.tar.gz")
    first = runtime("--bundle", url, "search", "retry", "--limit", "1", cache=tmp_path)
    assert first.returncode == 0, first.stderr
    server.stop()
    again = runtime("--bundle", url, "search", "retry", "--limit", "1", cache=tmp_path)
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout
    assert "serving the cached copy downloaded" in again.stderr and digest in again.stderr
    # A 5xx answer counts as down too.
    other = AssetServer(assets)
    try:
        other.behaviour.status = 503
        moved = url.replace(str(server.port), str(other.port))
        none = runtime("--bundle", moved, "search", "retry", cache=tmp_path)
        assert "no copy of it is cached" in one_line_error(none)
    finally:
        other.stop()


def test_unreachable_host_without_cache_is_one_line(tmp_path):
    with socket_closed_port() as port:
        url = f"http://127.0.0.1:{port}/idx.tar.gz"
        line = one_line_error(runtime("--bundle", url, "search", "x", cache=tmp_path))
    assert "cannot reach 127.0.0.1" in line and "no copy of it is cached" in line


class socket_closed_port:  # noqa: N801 - used as a context manager
    """A port on 127.0.0.1 that nothing listens on (bound, then closed)."""

    def __enter__(self) -> int:
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]

    def __exit__(self, *exc: object) -> None:
        pass


# -- the CLI and the MCP client ---------------------------------------------------------------


def test_runtime_serves_a_url_to_the_mcp_sdk(server, assets, tmp_path):
    digest = sha256(assets / "idx.tar.gz")
    argv = [
        sys.executable,
        "-m",
        "docsmcp_runtime",
        "--bundle",
        server.url("bare.tar.gz"),
        "--bundle-sha256",
        digest,
        "--bundle",
        server.url("tiny.tar.gz"),
        "--bundle-sha256",
        sha256(assets / "tiny.tar.gz"),
    ]
    with McpSession([], argv=argv, env={"DOCSMCP_CACHE_DIR": str(tmp_path)}) as session:
        hits = session.search(query="retry backoff", limit=3)["hits"]
        assert hits and all(":" in h["chunk_id"] for h in hits)  # two libraries: prefixed ids
    assert sorted(p.name for p in (tmp_path / "bundles").iterdir()) == sorted(
        [digest, sha256(assets / "tiny.tar.gz")]
    )


@pytest.mark.slow
def test_cli_pins_and_options_are_checked(server, tmp_path):
    url = server.url("idx.tar.gz")
    line = one_line_error(
        runtime(
            "--bundle",
            url,
            "--bundle-sha256",
            "a" * 64,
            "--bundle-sha256",
            "b" * 64,
            "search",
            "x",
            cache=tmp_path,
        )
    )
    assert "--bundle-sha256 given 2 time(s) for 1 https:// --bundle" in line
    line = one_line_error(
        runtime("--bundle", url, "--bundle-sha256", "xyz", "search", "x", cache=tmp_path)
    )
    assert "64 hex digits" in line
    line = one_line_error(
        runtime("--bundle", url, "--bundle-max-bytes", "-3", "search", "x", cache=tmp_path)
    )
    assert "--bundle-max-bytes must be a positive byte count" in line
    line = one_line_error(
        runtime("--bundle", "http://example.com/a.tar.gz", "search", "x", cache=tmp_path)
    )
    assert "plain http:// is accepted only for this machine" in line


def test_config_keeps_the_pinned_url(server, assets, tmp_path):
    digest = sha256(assets / "idx.tar.gz")
    done = runtime(
        "config",
        "--client",
        "cursor",
        "--bundle",
        server.url("idx.tar.gz"),
        "--bundle-sha256",
        digest,
        cache=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert f'"{server.url("idx.tar.gz")}#sha256={digest}"' in done.stdout
    assert '"idx"' in done.stdout  # the server name from the URL's file name
    assert server.requests == []  # config opens nothing


def test_env_pin_for_asgi_hosts(server, assets, tmp_path, monkeypatch):
    from docsmcp_runtime.http.settings import settings_from_env

    digest = sha256(assets / "idx.tar.gz")
    monkeypatch.setenv("DOCSMCP_BUNDLE", server.url("idx.tar.gz"))
    monkeypatch.setenv("DOCSMCP_BUNDLE_SHA256", digest)
    assert settings_from_env().bundle == f"{server.url('idx.tar.gz')}#sha256={digest}"
    monkeypatch.setenv("DOCSMCP_BUNDLE_SHA256", "nope")
    with pytest.raises(SystemExit, match="DOCSMCP_BUNDLE_SHA256 needs 64 hex digits"):
        settings_from_env()


# -- parsers ---------------------------------------------------------------------------------


def test_parse_remote_examples():
    ref = parse_remote("HTTPS://Example.COM:8443/a/idx.tar.gz?sig=1#sha256=" + "A" * 64)
    assert ref.url == "https://example.com:8443/a/idx.tar.gz?sig=1" and ref.pin == "a" * 64
    assert parse_remote("http://[::1]:9/x").url == "http://[::1]:9/x"
    assert sidecar_url("https://h/a/idx.tar.gz?sig=1") == "https://h/a/idx.tar.gz.sha256?sig=1"
    for bad, why in [
        ("ftp://h/x", "not an https"),
        ("https:///x", "no host"),
        ("https://u:p@h/x", "credentials"),
        ("http://10.0.0.1/x", "plain http"),
        ("https://h/x#frag", "unknown URL fragment"),
        ("https://h/x#sha256=12", "64 hex digits"),
        ("https://h/a b", "spaces"),
        ("https://h:99999/x", "Port"),
    ]:
        with pytest.raises(ValueError, match=why):
            parse_remote(bad)
    assert pin_specs(["./idx", "https://h/x"], ["F" * 64]) == [
        "./idx",
        "https://h/x#sha256=" + "f" * 64,
    ]


@FUZZ
@given(st.text(max_size=300))
def test_parse_remote_fuzz(text):
    for spec in (text, "https://" + text, "http://127.0.0.1/" + text):
        try:
            ref = parse_remote(spec)
        except ValueError as exc:
            assert "\n" not in str(exc)
            continue
        assert ref.url.startswith(("https://", "http://")) and "#" not in ref.url
        assert parse_remote(ref.url).url == ref.url  # normal form is stable


@FUZZ
@given(
    st.one_of(
        st.text(max_size=60),
        st.builds(
            lambda a, b, t: f"bytes {a}-{b}/{t}",
            st.integers(0, 10**12),
            st.integers(0, 10**12),
            st.one_of(st.just("*"), st.integers(0, 10**12).map(str)),
        ),
    )
)
def test_parse_content_range_fuzz(text):
    span = parse_content_range(text)
    if span is not None:
        first, last, total = span
        assert 0 <= first <= last and (total is None or last < total)
        shown = "*" if total is None else total
        assert parse_content_range(f"bytes {first}-{last}/{shown}") == span


@FUZZ
@given(st.text(max_size=200), st.sampled_from(["", "sha256:", "SHA256:"]))
def test_parse_sha256sum_fuzz(text, prefix):
    digest = parse_sha256sum(text)
    assert digest is None or (len(digest) == 64 and digest == digest.lower())
    good = hashlib.sha256(text.encode()).hexdigest()
    assert parse_sha256sum(f"{prefix}{good.upper()}  name\n{text}") == good


def test_fetch_options_parse():
    assert FetchOptions.parse("1_000", "2.5", False) == FetchOptions(1000, 2.5, False)
    assert FetchOptions.from_env({"DOCSMCP_BUNDLE_UNVERIFIED": "1"}).unverified
    with pytest.raises(ValueError, match="DOCSMCP_BUNDLE_TIMEOUT must be seconds"):
        FetchOptions.from_env({"DOCSMCP_BUNDLE_TIMEOUT": "0"})


def test_range_beyond_a_shrunk_file_restarts(server, assets, tmp_path):
    """Without validators the server cannot tell the file changed; a Range past its new end is
    answered 416, and the download starts over from the first byte. (Unverified, so the
    expected digest stays the same; a new sidecar digest alone already restarts.)"""
    server.behaviour.validators = False
    shutil.copy(assets / "idx.tar.gz", assets / "shrinks.tar.gz")
    server.behaviour.drop_after, server.behaviour.drops = 1000, 4
    with pytest.raises(BundleError, match="interrupted"):
        resolve(server.url("shrinks.tar.gz"), tmp_path, unverified=True)
    (assets / "shrinks.tar.gz").write_bytes(b"short" * 20)
    server.requests.clear()
    with pytest.raises(BundleError, match="not a readable .tar.gz bundle archive"):
        resolve(server.url("shrinks.tar.gz"), tmp_path, unverified=True)
    asked = server.asset_requests("shrinks.tar.gz")
    assert [h.get("range") for h in asked] == ["bytes=4000-", None]
    assert not list((tmp_path / "downloads").glob("*.part"))


def test_silent_host_times_out_as_unreachable(tmp_path):
    """A host that accepts the connection and never answers: the per-read timeout ends it."""
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)  # connections queue in the backlog; nothing ever answers
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/idx.tar.gz"
        started = time.monotonic()
        with pytest.raises(BundleError, match="cannot reach 127.0.0.1:.*timed out"):
            resolve(url, tmp_path, timeout=0.5)
    assert time.monotonic() - started < 5


@pytest.mark.slow
def test_concurrent_starts_download_once(server, assets, tmp_path):
    """Two processes starting on one URL: one downloads, the other waits on the lock and then
    finds the bundle cached (only the sidecar is asked again)."""
    server.behaviour.trickle = 0.0001  # a download of a few seconds
    code = (
        "import sys; from pathlib import Path;"
        " from docsmcp_runtime.distribution.resolve import resolve_bundle;"
        " print(resolve_bundle(sys.argv[1], Path(sys.argv[2])))"
    )
    url = server.url("idx.tar.gz")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, url, str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    assert {out.strip() for out, _ in outputs} == {
        str(tmp_path / "bundles" / sha256(assets / "idx.tar.gz"))
    }
    assert len(server.asset_requests("idx.tar.gz")) == 1
    assert len(server.asset_requests("idx.tar.gz.sha256")) == 2


@pytest.mark.slow
def test_http_transport_serves_a_url(server, assets, tmp_path):
    from test_http import post, search_msg, start

    digest = sha256(assets / "idx.tar.gz")
    env = {"DOCSMCP_CACHE_DIR": str(tmp_path)}
    srv = start(server.url("bare.tar.gz"), "--bundle-sha256", digest, env=env)
    try:
        resp = post(srv.port, search_msg("retry"))
        assert resp.status == 200 and resp.json()["result"]["structuredContent"]["hits"]
    finally:
        assert srv.stop() == 0
    assert (tmp_path / "bundles" / digest).is_dir()
    assert "--watch" in one_line_error(
        runtime(
            "--bundle", server.url("bare.tar.gz"), "--transport", "http", "--watch", cache=tmp_path
        )
    )


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (openssl, as on the CI machine)."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is missing: cannot make a test certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"]
        + ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )
    return cert, key


def test_https_with_a_trusted_certificate(assets, tls_files, tmp_path, monkeypatch):
    server = AssetServer(assets, tls=tls_files)
    try:
        url = server.url("idx.tar.gz")
        assert url.startswith("https://")
        # Not trusted: refused (as unreachable, so nothing cached means one error line).
        with pytest.raises(BundleError, match="cannot reach .*CERTIFICATE_VERIFY_FAILED"):
            resolve(url, tmp_path)
        # Trusted through the standard OpenSSL variable, as a private CA would be.
        monkeypatch.setenv("SSL_CERT_FILE", str(tls_files[0]))
        server.behaviour.redirects = {"/moved.tar.gz.sha256": "/idx.tar.gz.sha256"}
        server.behaviour.redirects["/moved.tar.gz"] = "/idx.tar.gz"
        assert resolve(url, tmp_path).name == sha256(assets / "idx.tar.gz")
        assert resolve(server.url("moved.tar.gz"), tmp_path / "again").name == sha256(
            assets / "idx.tar.gz"
        )
    finally:
        server.stop()


@FUZZ
@given(st.one_of(st.none(), st.text(max_size=30)), st.one_of(st.none(), st.text(max_size=30)))
def test_fetch_options_parse_fuzz(max_bytes, timeout):
    try:
        options = FetchOptions.parse(max_bytes, timeout, False)
    except ValueError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("--bundle-")
        return
    assert options.max_bytes >= 1 and 0 < options.timeout <= 3600


def test_a_bundle_folder_start_imports_no_download_or_archive_code(
    example_bundle: Path, tmp_path: Path
) -> None:
    """A terminal search of a bundle folder (the usual start) reads only distribution/specs.py:
    the archive, download and swap modules cost ~6 ms of its ~165. An archive of the same bundle
    still opens (and imports them)."""
    code = (
        "import io, contextlib, sys\n"
        "from docsmcp_runtime.cli import main\n"
        "heavy = ['archive', 'remote', 'remote_fetch', 'resolve', 'swap']\n"
        "for spec in sys.argv[1:]:\n"
        "    out = io.StringIO()\n"
        "    with contextlib.redirect_stdout(out):\n"
        "        rc = main(['--bundle', spec, 'search', 'refund'])\n"
        "    loaded = [m for m in heavy if f'docsmcp_runtime.distribution.{m}' in sys.modules]\n"
        "    print(rc, 'refund' in out.getvalue(), ','.join(loaded) or '-')\n"
    )
    archive = tmp_path / "idx.tar.gz"
    run_docsmcp("pack", example_bundle, "--out", archive)
    env = {**os.environ, "DOCSMCP_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, "-c", code, str(example_bundle), str(archive)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    folder, packed = proc.stdout.splitlines()
    assert folder == "0 True -"
    assert packed.startswith("0 True ") and "archive" in packed
