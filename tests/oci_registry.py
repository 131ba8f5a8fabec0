"""The reference OCI registry (Debian's `docker-registry`, github.com/distribution/distribution)
run on 127.0.0.1 with a temporary storage folder, for the push/pull tests and the cold-start
bench; optionally behind htpasswd (Basic) or a small local token server (Bearer).

The token server is a stand-in that speaks the registry's real token protocol (allowed by
`../shared/DECISIONS.md`, *What counts as real in tests*): it checks Basic credentials and signs
a JWT (RS256, the certificate in the `x5c` header) with a key whose certificate the registry
trusts (`auth.token.rootcertbundle`). Keys and certificates are made with the `openssl` tool.
"""

from __future__ import annotations

import base64
import json
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REGISTRY_BIN = shutil.which("docker-registry") or "/usr/bin/docker-registry"
USER, PASSWORD = "docs-publisher", "s3cret-pass"
SERVICE, ISSUER = "docsmcp-test-registry", "docsmcp-test-issuer"


def missing() -> str | None:
    """Why the registry tests cannot run here, or None."""
    if not Path(REGISTRY_BIN).is_file():
        return (
            "docker-registry is not installed (apt-get install docker-registry; .ci/run does "
            "this where apt is available)"
        )
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class TokenServer:
    """`GET /token?service=&scope=` with Basic credentials → `{"token": JWT}`; 401 otherwise."""

    def __init__(self, folder: Path) -> None:
        if shutil.which("openssl") is None:
            raise RuntimeError("the bearer-token test needs the openssl tool")
        self.key, self.cert = folder / "token.key", folder / "token.pem"
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"]
            + ["-subj", "/CN=docsmcp-test-token", "-keyout", str(self.key)]
            + ["-out", str(self.cert)],
            check=True,
            capture_output=True,
        )
        der = subprocess.run(
            ["openssl", "x509", "-in", str(self.cert), "-outform", "DER"],
            check=True,
            capture_output=True,
        ).stdout
        self.x5c = base64.b64encode(der).decode()
        self.requests: list[str] = []
        self.port = free_port()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                server.requests.append(self.path)
                expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
                if self.headers.get("Authorization") != expected:
                    self.send_response(401)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
                body = json.dumps({"token": server.sign(query.get("scope", []))}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        # A short poll interval makes shutdown() (every test's teardown) quick.
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    @property
    def realm(self) -> str:
        return f"http://127.0.0.1:{self.port}/token"

    def sign(self, scopes: list[str]) -> str:
        access = []
        for scope in scopes:
            kind, _, rest = scope.partition(":")
            name, _, actions = rest.rpartition(":")
            access.append({"type": kind, "name": name, "actions": actions.split(",")})
        now = int(time.time())
        header = {"typ": "JWT", "alg": "RS256", "x5c": [self.x5c]}
        claims = {
            "iss": ISSUER,
            "sub": USER,
            "aud": SERVICE,
            "exp": now + 600,
            "nbf": now - 60,
            "iat": now,
            "jti": f"{now}-{len(self.requests)}",
            "access": access,
        }
        signing_input = (
            f"{_b64url(json.dumps(header).encode())}.{_b64url(json.dumps(claims).encode())}"
        )
        signature = subprocess.run(
            ["openssl", "dgst", "-sha256", "-sign", str(self.key)],
            input=signing_input.encode(),
            check=True,
            capture_output=True,
        ).stdout
        return f"{signing_input}.{_b64url(signature)}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@dataclass
class Registry:
    """One registry process; `auth` is None, "basic" or "token"."""

    folder: Path
    auth: str | None = None
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None
    token_server: TokenServer | None = None

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def storage(self) -> Path:
        return self.folder / "storage"

    def blob_data(self, digest: str) -> Path:
        """Where the registry's filesystem driver keeps a blob's bytes."""
        hexdigest = digest.removeprefix("sha256:")
        return self.storage / "docker/registry/v2/blobs/sha256" / hexdigest[:2] / hexdigest / "data"

    def _config(self) -> Path:
        lines = [
            "version: 0.1",
            "log:",
            "  level: error",
            "  accesslog:",
            "    disabled: true",
            "storage:",
            "  filesystem:",
            f"    rootdirectory: {self.storage}",
            "  delete:",
            "    enabled: true",
            "http:",
            f"  addr: {self.host}",
            "  secret: docsmcp-test-secret",
        ]
        if self.auth == "basic":
            line = subprocess.run(
                ["htpasswd", "-Bbn", USER, PASSWORD], check=True, capture_output=True, text=True
            ).stdout.strip()
            (self.folder / "htpasswd").write_text(line + "\n")
            lines += [
                "auth:",
                "  htpasswd:",
                "    realm: docsmcp-test",
                f"    path: {self.folder / 'htpasswd'}",
            ]
        elif self.auth == "token":
            if self.token_server is None:
                self.token_server = TokenServer(self.folder)
            lines += [
                "auth:",
                "  token:",
                f"    realm: {self.token_server.realm}",
                f"    service: {SERVICE}",
                f"    issuer: {ISSUER}",
                f"    rootcertbundle: {self.token_server.cert}",
            ]
        config = self.folder / "config.yml"
        config.write_text("\n".join(lines) + "\n")
        return config

    def start(self) -> Registry:
        self.folder.mkdir(parents=True, exist_ok=True)
        config = self._config()
        log = (self.folder / "registry.log").open("ab")
        self.proc = subprocess.Popen(
            [REGISTRY_BIN, "serve", str(config)], stdout=log, stderr=subprocess.STDOUT
        )
        log.close()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"docker-registry exited: {(self.folder / 'registry.log').read_text()[-2000:]}"
                )
            try:
                urllib.request.urlopen(f"http://{self.host}/v2/", timeout=1).close()
                return self
            except urllib.error.HTTPError:
                return self  # 401: up, and asking for credentials
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"docker-registry did not answer on {self.host} within 15 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def close(self) -> None:
        self.stop()
        if self.token_server is not None:
            self.token_server.close()
