"""`docsmcp push` and `docsmcp-runtime --bundle oci://...` against the real reference registry
(Debian's `docker-registry`, started on 127.0.0.1 by tests/oci_registry.py): anonymous, Basic
(htpasswd) and Bearer (a local token server) flows; push twice, re-tag, pinned digests, serving
from the cache with the registry stopped, a corrupted blob in the registry's storage, wrong
credentials. The runtime runs as real processes: the MCP SDK over stdio for serving, the
`search` command where its stderr is checked. Fuzz tests cover the two parsers."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import oci_registry
import pytest
from conftest import FUZZ, run_docsmcp
from docsmcp_runtime.distribution.registry import (
    Challenge,
    Reference,
    parse_challenges,
    parse_reference,
    scheme_for,
)
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession
from oci_registry import PASSWORD, USER, Registry

needs_registry = pytest.mark.skipif(
    oci_registry.missing() is not None, reason=str(oci_registry.missing())
)


def push(bundle: Path, reference: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run_docsmcp("push", bundle, reference, "--json", check=check)


def pushed(bundle: Path, reference: str) -> dict:
    return json.loads(push(bundle, reference).stdout)


def runtime_search(
    bundle: str,
    cache: Path,
    query: str = "widget session errors",
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`docsmcp-runtime --bundle BUNDLE search QUERY --json` in a fresh process."""
    environ = {**os.environ, "DOCSMCP_CACHE_DIR": str(cache), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", bundle, "search", query, "--json"],
        capture_output=True,
        text=True,
        env=environ,
        timeout=120,
    )


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    """The failure of a runtime or builder process: exit code not 0, one stderr line, no
    traceback."""
    assert proc.returncode != 0, proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0]


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory):
    if oci_registry.missing():
        pytest.skip(oci_registry.missing())
    reg = Registry(tmp_path_factory.mktemp("registry")).start()
    yield reg
    reg.close()


# -- push --------------------------------------------------------------------------------------


@needs_registry
def test_push_is_the_pack_artifact_and_twice_is_a_no_op(
    registry: Registry, tiny_bundle: Path, tmp_path: Path
) -> None:
    ref = f"{registry.host}/docs/tiny:v1"
    first = pushed(tiny_bundle, ref)
    assert first["reference"] == ref
    assert len(first["uploaded"]) == 2 and first["tagged"]
    # Exactly the artifact `pack --oci` writes: same manifest and layer digests.
    run_docsmcp("pack", tiny_bundle, "--oci", tmp_path / "layout", "--tag", "v1")
    index = json.loads((tmp_path / "layout" / "index.json").read_text())
    assert index["manifests"][0]["digest"] == first["digest"]
    manifest = json.loads(
        (tmp_path / "layout/blobs/sha256" / first["digest"].removeprefix("sha256:")).read_bytes()
    )
    assert manifest["layers"][0]["digest"] == first["layer"]
    meta = json.loads((tiny_bundle / "metadata.json").read_text())
    annotations = manifest["annotations"]
    assert annotations["org.opencontainers.image.title"] == meta["name"]
    assert annotations["dev.docsmcp.bundle_id"] == meta["bundle_id"]
    assert annotations["dev.docsmcp.format_version"] == str(meta["format_version"])
    # The registry holds the same bytes.
    assert (
        registry.blob_data(first["layer"]).read_bytes()
        == (tmp_path / "layout/blobs/sha256" / first["layer"].removeprefix("sha256:")).read_bytes()
    )
    # Again: nothing uploaded, the tag left as it was, the same digest.
    again = pushed(tiny_bundle, ref)
    assert again["digest"] == first["digest"]
    assert again["uploaded"] == [] and not again["tagged"]
    # The plain output is the pinned reference, on stdout alone.
    plain = run_docsmcp("push", tiny_bundle, ref)
    assert plain.stdout.strip() == f"{ref}@{first['digest']}"


@needs_registry
def test_push_an_archive_or_layout_gives_the_same_digest(
    registry: Registry, tiny_bundle: Path, tmp_path: Path
) -> None:
    run_docsmcp("pack", tiny_bundle, "-o", tmp_path / "idx.tar.gz", "--oci", tmp_path / "oci")
    from_dir = pushed(tiny_bundle, f"{registry.host}/docs/forms:dir")
    from_archive = pushed(tmp_path / "idx.tar.gz", f"{registry.host}/docs/forms:archive")
    from_layout = pushed(tmp_path / "oci", f"{registry.host}/docs/forms:layout")
    assert from_dir["digest"] == from_archive["digest"] == from_layout["digest"]
    assert from_archive["uploaded"] == from_layout["uploaded"] == []


@needs_registry
def test_push_refuses_bad_input_in_one_line(
    registry: Registry, tiny_bundle: Path, tmp_path: Path
) -> None:
    digest = "sha256:" + "0" * 64
    for args, expected in [
        ((tiny_bundle, f"{registry.host}/docs/x@{digest}"), "push to a tag"),
        ((tiny_bundle, "docs/x:v1"), "not a registry host"),
        ((tiny_bundle, f"{registry.host}/Docs/x:v1"), "invalid repository"),
        ((tmp_path / "nope", f"{registry.host}/docs/x:v1"), "bundle not found"),
        ((tiny_bundle, f"127.0.0.1:{oci_registry.free_port()}/docs/x:v1"), "cannot reach"),
    ]:
        line = one_line_error(run_docsmcp("push", *args, check=False))
        assert expected in line, line


# -- pull and serve ----------------------------------------------------------------------------


@needs_registry
def test_pull_serves_over_mcp_like_the_directory(
    registry: Registry, tiny_bundle: Path, tmp_path: Path
) -> None:
    ref = f"{registry.host}/docs/served:v1"
    done = pushed(tiny_bundle, ref)
    cache = tmp_path / "cache"
    with (
        McpSession(f"oci://{ref}", env={"DOCSMCP_CACHE_DIR": str(cache)}) as pulled,
        McpSession(tiny_bundle) as local,
    ):
        for query in ("widget", "session errors", "retries backoff"):
            assert pulled.search(query=query) == local.search(query=query)
    # Cached by the layer digest in the archive cache, with the tag's record beside it.
    layer = done["layer"].removeprefix("sha256:")
    assert (cache / "bundles" / layer / "metadata.json").is_file()
    assert [p.name for p in (cache / "bundles").iterdir()] == [layer]
    assert len(list((cache / "oci").glob("*.json"))) == 1
    shown = json.loads(run_docsmcp("cache", "info", "--cache-dir", cache, "--json").stdout)
    assert shown["kinds"]["oci"]["entries"] == shown["kinds"]["bundles"]["entries"] == 1
    # The terminal readers resolve --bundle the same way (here from the cache just filled).
    toc = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "toc", "--bundle", f"oci://{ref}"],
        capture_output=True,
        text=True,
        env={**os.environ, "DOCSMCP_CACHE_DIR": str(cache)},
        timeout=120,
    )
    assert toc.returncode == 0 and "guides/errors.md" in toc.stdout, toc.stderr


@needs_registry
def test_several_bundles_and_pinned_digests(
    registry: Registry, tiny_bundle: Path, example_bundle: Path, tmp_path: Path
) -> None:
    ref = f"{registry.host}/docs/moving:v1"
    first = pushed(tiny_bundle, ref)
    cache = tmp_path / "cache"
    pinned = f"oci://{registry.host}/docs/moving@{first['digest']}"
    # The tag moves to another bundle; the pinned digest keeps serving the first.
    second = pushed(example_bundle, ref)
    assert second["digest"] != first["digest"] and second["tagged"]
    served = {b: runtime_search(b, cache) for b in (pinned, f"oci://{ref}")}
    for proc in served.values():
        assert proc.returncode == 0, proc.stderr
    assert served[pinned].stdout == runtime_search(str(tiny_bundle), cache).stdout
    assert served[f"oci://{ref}"].stdout == runtime_search(str(example_bundle), cache).stdout
    # Both at once, as two libraries of one server.
    names = {
        json.loads((b / "metadata.json").read_text())["name"] for b in (tiny_bundle, example_bundle)
    }
    with McpSession([pinned, f"oci://{ref}"], env={"DOCSMCP_CACHE_DIR": str(cache)}) as session:
        hits = session.search(query="widget session errors payments", limit=20)["hits"]
        assert {h["chunk_id"].split(":", 1)[0] for h in hits} == names
    # A pinned digest already pulled is served without asking the registry.
    registry.stop()
    try:
        proc = runtime_search(pinned, cache)
        assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
        assert proc.stdout == served[pinned].stdout
    finally:
        registry.start()


@needs_registry
def test_registry_down_serves_the_cached_copy_and_says_so(
    registry: Registry, tiny_bundle: Path, tmp_path: Path
) -> None:
    ref = f"{registry.host}/docs/offline:v1"
    done = pushed(tiny_bundle, ref)
    cache = tmp_path / "cache"
    online = runtime_search(f"oci://{ref}", cache)
    assert online.returncode == 0, online.stderr
    registry.stop()
    try:
        offline = runtime_search(f"oci://{ref}", cache)
        assert offline.returncode == 0, offline.stderr
        assert json.loads(offline.stdout) == json.loads(online.stdout)
        warning = [line for line in offline.stderr.splitlines() if "warning" in line]
        assert warning == [
            f"docsmcp-runtime: warning: cannot reach {registry.host} (Connection refused); "
            f"serving the cached copy of {ref} (manifest {done['digest']})"
        ]
        # Nothing cached for another reference: one line, no traceback.
        line = one_line_error(runtime_search(f"oci://{ref}", tmp_path / "empty-cache"))
        assert line == (
            f"docsmcp-runtime: error: cannot reach {registry.host} (Connection refused); "
            f"no cached copy of {ref} to serve"
        )
    finally:
        registry.start()


@needs_registry
def test_corrupted_blob_in_the_registry_is_refused(
    registry: Registry, tiny_bundle: Path, example_bundle: Path, tmp_path: Path
) -> None:
    done = pushed(example_bundle, f"{registry.host}/docs/corrupt:v1")
    data = registry.blob_data(done["layer"])
    original = data.read_bytes()
    flipped = bytearray(original)
    flipped[len(flipped) // 2] ^= 0xFF
    data.write_bytes(bytes(flipped))
    cache = tmp_path / "cache"
    try:
        line = one_line_error(runtime_search(f"oci://{registry.host}/docs/corrupt:v1", cache))
    finally:
        data.write_bytes(original)
    assert line.startswith("docsmcp-runtime: error: "), line
    assert f"blob {done['layer']} arrived with sha256" in line and "refusing it" in line
    # Nothing half-written stays in the cache.
    assert list((cache / "bundles").iterdir()) == []
    assert not (cache / "oci").exists()


@needs_registry
def test_an_image_that_is_not_a_bundle_is_refused(registry: Registry, tmp_path: Path) -> None:
    """A manifest of another artifact type under the tag: refused in one line, nothing cached."""
    import hashlib

    from docsmcp_runtime.distribution.registry import EMPTY_CONFIG
    from docsmcp_runtime.distribution.registry_client import Session

    ref = parse_reference(f"{registry.host}/docs/not-a-bundle:v1")
    session = Session(ref, actions="pull,push")
    layer = b"just some bytes"
    for data in (EMPTY_CONFIG, layer):
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        session.upload_blob(digest, len(data), data)
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "artifactType": "application/vnd.example.other.v1",
        "config": {
            "mediaType": "application/vnd.oci.empty.v1+json",
            "digest": "sha256:" + hashlib.sha256(EMPTY_CONFIG).hexdigest(),
            "size": 2,
        },
        "layers": [
            {
                "mediaType": "application/octet-stream",
                "digest": "sha256:" + hashlib.sha256(layer).hexdigest(),
                "size": len(layer),
            }
        ],
    }
    session.put_manifest("v1", json.dumps(manifest).encode())
    cache = tmp_path / "cache"
    line = one_line_error(runtime_search(f"oci://{ref}", cache))
    assert "artifactType is 'application/vnd.example.other.v1', not a docsmcp bundle" in line
    assert not (cache / "bundles").exists() and not (cache / "oci").exists()


@needs_registry
def test_reference_errors_are_one_line(registry: Registry, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    line = one_line_error(runtime_search(f"oci://{registry.host}/docs/absent:v9", cache))
    assert line.endswith(f"{registry.host}/docs/absent:v9: not found in {registry.host}")
    line = one_line_error(runtime_search("oci://docs/absent", cache))
    assert "not a registry host" in line


# -- authentication ----------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["basic", "token"])
def private_registry(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    if oci_registry.missing():
        pytest.skip(oci_registry.missing())
    reg = Registry(tmp_path_factory.mktemp(f"registry-{request.param}"), auth=request.param)
    try:
        reg.start()
    except (OSError, subprocess.CalledProcessError, RuntimeError) as exc:
        pytest.skip(f"cannot start a registry with {request.param} auth here: {exc}")
    yield reg
    reg.close()


@needs_registry
def test_credentials_from_env_and_docker_config(
    private_registry: Registry,
    tiny_bundle: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ref = f"{private_registry.host}/docs/private:v1"
    monkeypatch.setenv("DOCKER_CONFIG", str(tmp_path / "no-docker"))
    monkeypatch.delenv("DOCSMCP_REGISTRY_USERNAME", raising=False)
    monkeypatch.delenv("DOCSMCP_REGISTRY_PASSWORD", raising=False)
    # No credentials at all.
    line = one_line_error(push(tiny_bundle, ref, check=False))
    assert f"{private_registry.host} requires credentials; set DOCSMCP_REGISTRY_USERNAME" in line
    # Wrong ones.
    monkeypatch.setenv("DOCSMCP_REGISTRY_USERNAME", USER)
    monkeypatch.setenv("DOCSMCP_REGISTRY_PASSWORD", "wrong")
    line = one_line_error(push(tiny_bundle, ref, check=False))
    assert f"credentials for {private_registry.host} rejected" in line, line
    # Right ones from the environment: push.
    monkeypatch.setenv("DOCSMCP_REGISTRY_PASSWORD", PASSWORD)
    done = pushed(tiny_bundle, ref)
    assert done["tagged"]
    # Pull with the docker config file (docker login's `auths`), through the MCP SDK.
    monkeypatch.delenv("DOCSMCP_REGISTRY_USERNAME")
    monkeypatch.delenv("DOCSMCP_REGISTRY_PASSWORD")
    import base64

    docker = tmp_path / "docker"
    docker.mkdir()
    auth = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    (docker / "config.json").write_text(
        json.dumps({"auths": {f"http://{private_registry.host}": {"auth": auth}}})
    )
    cache = tmp_path / "cache"
    with McpSession(
        f"oci://{ref}", env={"DOCSMCP_CACHE_DIR": str(cache), "DOCKER_CONFIG": str(docker)}
    ) as session:
        assert session.search(query="widget session errors")["hits"]
    # A wrong password in the config file: one line naming where it came from.
    bad = base64.b64encode(f"{USER}:nope".encode()).decode()
    (docker / "config.json").write_text(
        json.dumps({"auths": {private_registry.host: {"auth": bad}}})
    )
    line = one_line_error(
        runtime_search(f"oci://{ref}", tmp_path / "cache2", env={"DOCKER_CONFIG": str(docker)})
    )
    assert (
        f"credentials for {private_registry.host} rejected (from {docker / 'config.json'})" in line
    )
    if private_registry.token_server is not None:
        # The bearer flow really went through the token server, asking for the push scope.
        assert any("push" in r for r in private_registry.token_server.requests)


# -- registries that misbehave (local stand-ins: what the reference registry never does) -------


class _Misbehaving:
    """A local HTTP server for /v2/ paths: `silent` accepts and never answers; `huge` answers a
    manifest request with more bytes than any manifest may have."""

    def __init__(self, mode: str) -> None:
        import socket
        import threading

        self.mode, self.sock = mode, socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.host = f"127.0.0.1:{self.sock.getsockname()[1]}"
        self.held: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)
            if self.mode == "huge":
                conn.recv(65536)
                body_size = 5 << 20
                head = (
                    "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.oci.image.manifest.v1+json"
                    f"\r\nContent-Length: {body_size}\r\n\r\n"
                )
                with contextlib.suppress(OSError):
                    conn.sendall(head.encode() + b" " * body_size)

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


def test_a_silent_registry_times_out_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docsmcp_runtime.distribution.resolve import resolve_bundle
    from docsmcp_runtime.errors import BundleError

    monkeypatch.setenv("DOCSMCP_REGISTRY_TIMEOUT", "0.5")
    server = _Misbehaving("silent")
    try:
        with pytest.raises(BundleError) as caught:
            resolve_bundle(f"oci://{server.host}/docs/x:v1", tmp_path / "cache")
    finally:
        server.close()
    assert str(caught.value) == (
        f"cannot reach {server.host} (timed out); no cached copy of {server.host}/docs/x:v1 "
        "to serve"
    )


def test_an_oversized_manifest_is_refused(tmp_path: Path) -> None:
    from docsmcp_runtime.distribution.resolve import resolve_bundle
    from docsmcp_runtime.errors import BundleError

    server = _Misbehaving("huge")
    try:
        with pytest.raises(BundleError, match="manifest is larger than 4194304 bytes; refusing"):
            resolve_bundle(f"oci://{server.host}/docs/x:v1", tmp_path / "cache")
    finally:
        server.close()


def test_manifest_annotations_name_the_docs(tiny_bundle: Path) -> None:
    """Standard OCI keys for name, description, version and commit; nothing time-dependent."""
    import dataclasses

    from docsmcp.pack import oci_manifest
    from docsmcp_runtime.bundle.reader import open_bundle
    from docsmcp_runtime.format.metadata import Source

    metadata = open_bundle(tiny_bundle, verify=False).metadata
    dated = dataclasses.replace(
        metadata, version="2.1.0", source=Source(commit="0123abc", commit_date="2026-01-02")
    )
    manifest = json.loads(oci_manifest("ab" * 32, 123, dated))
    assert manifest["annotations"] == {
        "dev.docsmcp.bundle_id": metadata.bundle_id,
        "dev.docsmcp.format_version": str(metadata.format_version),
        "org.opencontainers.image.title": metadata.name,
        "org.opencontainers.image.description": metadata.description,
        "org.opencontainers.image.version": "2.1.0",
        "org.opencontainers.image.revision": "0123abc",
    }
    assert oci_manifest("ab" * 32, 123, dated) == oci_manifest("ab" * 32, 123, dated)


def test_client_config_keeps_the_reference() -> None:
    from docsmcp_runtime.commands.clientconfig import ConfigError, make

    config = make("claude-code", "oci://ghcr.io/acme/docs-bundle:1.2.0")
    assert config.name == "docs-bundle"
    assert "--bundle oci://ghcr.io/acme/docs-bundle:1.2.0" in config.text
    with pytest.raises(ConfigError, match="invalid repository"):
        make("claude-code", "oci://ghcr.io/Acme/docs")


# -- parsers (fuzz) ----------------------------------------------------------------------------

_component = st.from_regex(r"[a-z0-9]{1,6}(?:[._-][a-z0-9]{1,4}){0,2}", fullmatch=True)
_references = st.builds(
    Reference,
    registry=st.sampled_from(["localhost:5000", "127.0.0.1:5000", "ghcr.io", "r.example.com:443"]),
    repository=st.lists(_component, min_size=1, max_size=3).map("/".join),
    tag=st.one_of(st.none(), st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,20}", fullmatch=True)),
    digest=st.one_of(st.none(), st.from_regex(r"sha256:[0-9a-f]{64}", fullmatch=True)),
).filter(lambda r: r.tag is not None or r.digest is not None)


@FUZZ
@given(_references, st.booleans())
def test_reference_round_trip(ref: Reference, scheme: bool) -> None:
    text = ("oci://" if scheme else "") + str(ref)
    assert parse_reference(text) == ref


@FUZZ
@given(st.text(max_size=80))
def test_reference_parser_never_crashes(text: str) -> None:
    try:
        ref = parse_reference(text)
    except ValueError as exc:
        assert "\n" not in str(exc)
    else:
        assert parse_reference(str(ref)) == ref


def test_reference_defaults_and_schemes(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_reference("oci://localhost:5000/docs/acme") == Reference(
        "localhost:5000", "docs/acme", "latest", None
    )
    for bad in [
        "oci://",
        "oci://ghcr.io",
        "oci://ghcr.io/",
        "ghcr.io/a:b:c",
        "ghcr.io/a@sha256:00",
    ]:
        with pytest.raises(ValueError):
            parse_reference(bad)
    assert scheme_for("localhost:5000") == scheme_for("127.0.0.1:5000") == "http"
    assert scheme_for("ghcr.io") == "https"
    monkeypatch.setenv("DOCSMCP_REGISTRY_PLAIN_HTTP", "registry.lan:5000, other.lan")
    assert scheme_for("registry.lan:5000") == scheme_for("other.lan:80") == "http"
    assert scheme_for("registry.lan:6000") == "https"


_token = st.from_regex(r"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,10}", fullmatch=True)
_challenges = st.lists(
    st.builds(
        Challenge,
        scheme=_token.map(str.lower),
        params=st.dictionaries(_token.map(str.lower), st.text(max_size=20), max_size=4),
    ),
    min_size=1,
    max_size=3,
)


def _header(challenges: list[Challenge]) -> str:
    def quote(value: str) -> str:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'

    return ", ".join(
        " ".join(
            [c.scheme.capitalize()]
            + ([",".join(f"{k}={quote(v)}" for k, v in c.params.items())] if c.params else [])
        )
        for c in challenges
    )


@FUZZ
@given(_challenges)
def test_challenge_round_trip(challenges: list[Challenge]) -> None:
    assert parse_challenges(_header(challenges)) == challenges


@FUZZ
@given(st.text(max_size=120))
def test_challenge_parser_never_crashes(text: str) -> None:
    try:
        parse_challenges(text)
    except ValueError as exc:
        assert "\n" not in str(exc)


def test_real_challenges() -> None:
    header = (
        'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",'
        'scope="repository:library/ubuntu:pull"'
    )
    assert parse_challenges(header) == [
        Challenge(
            "bearer",
            {
                "realm": "https://auth.docker.io/token",
                "service": "registry.docker.io",
                "scope": "repository:library/ubuntu:pull",
            },
        )
    ]
    assert parse_challenges('Basic realm="docsmcp-test"') == [
        Challenge("basic", {"realm": "docsmcp-test"})
    ]
    assert parse_challenges("Basic realm=x, Bearer realm=y") == [
        Challenge("basic", {"realm": "x"}),
        Challenge("bearer", {"realm": "y"}),
    ]
    for bad in ['Bearer realm="unterminated', "=x", "Basic realm="]:
        with pytest.raises(ValueError):
            parse_challenges(bad)
