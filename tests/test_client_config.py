"""`docsmcp-runtime config`: what registers a bundle's server in each MCP client."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest
from docsmcp_runtime.cli import main

RUNTIME = [sys.executable, "-m", "docsmcp_runtime"]


def _config(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*RUNTIME, "config", *args], capture_output=True, text=True, cwd=cwd, timeout=60
    )


def test_claude_code_command_is_as_documented(example_bundle, tmp_path):
    # https://code.claude.com/docs/en/mcp: claude mcp add [options] <name> -- <command> [args...]
    out = _config("--client", "claude-code", "--bundle", str(example_bundle))
    assert out.returncode == 0, out.stderr
    line = out.stdout.strip()
    assert line == shlex.join(
        ["claude", "mcp", "add", "acme-sdk", "--", "docsmcp-runtime", "--bundle",
         str(example_bundle.resolve())]
    )  # fmt: skip
    assert out.stdout.count("\n") == 1


def test_relative_bundle_becomes_absolute(example_bundle):
    out = _config("--client", "cursor", "--bundle", example_bundle.name, cwd=example_bundle.parent)
    assert out.returncode == 0, out.stderr
    entry = json.loads(out.stdout)["mcpServers"]["acme-sdk"]
    assert entry == {"command": "docsmcp-runtime", "args": ["--bundle", str(example_bundle)]}


@pytest.mark.parametrize(
    ("client", "top", "extra"),
    [
        ("claude-desktop", "mcpServers", {}),
        ("cursor", "mcpServers", {}),
        ("vscode", "servers", {"type": "stdio"}),
    ],
)
def test_json_clients(example_bundle, client, top, extra):
    out = _config("--client", client, "--bundle", str(example_bundle), "--name", "acme docs")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert list(doc) == [top]
    entry = doc[top]["acme docs"]
    assert entry == {
        **extra,
        "command": "docsmcp-runtime",
        "args": ["--bundle", str(example_bundle.resolve())],
    }
    assert out.stderr.startswith("# ")  # where the snippet goes


@pytest.mark.slow  # 5 runtime processes
def test_http_transport(example_bundle):
    url = "http://127.0.0.1:20310/mcp"
    vscode = _config("--client", "vscode", "--bundle", str(example_bundle), "--transport", "http",
                     "--url", url)  # fmt: skip
    assert json.loads(vscode.stdout) == {"servers": {"acme-sdk": {"type": "http", "url": url}}}
    cursor = _config("--client", "cursor", "--bundle", str(example_bundle), "--transport", "http",
                     "--url", url)  # fmt: skip
    assert json.loads(cursor.stdout) == {"mcpServers": {"acme-sdk": {"url": url}}}
    code = _config("--client", "claude-code", "--bundle", str(example_bundle), "--transport",
                   "http", "--url", url)  # fmt: skip
    assert code.stdout.strip() == f"claude mcp add --transport http acme-sdk {url}"
    desktop = _config("--client", "claude-desktop", "--bundle", str(example_bundle),
                      "--transport", "http", "--url", url)  # fmt: skip
    assert desktop.returncode == 2 and "Connectors" in desktop.stderr
    no_url = _config("--client", "vscode", "--bundle", str(example_bundle), "--transport", "http")
    assert no_url.returncode == 2 and "--url" in no_url.stderr


def test_json_output_and_command(example_bundle, capsys):
    code = main(
        ["config", "--client", "claude-code", "--bundle", str(example_bundle), "--json",
         "--command", "/opt/venv/bin/docsmcp-runtime"]
    )  # fmt: skip
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["name"] == "acme-sdk"
    assert data["command"].endswith(f"-- /opt/venv/bin/docsmcp-runtime --bundle {example_bundle}")


@pytest.mark.slow  # 3 runtime processes
def test_bundle_is_required_and_not_opened(tmp_path, example_bundle):
    missing = _config("--client", "vscode")
    assert missing.returncode == 2 and "--bundle" in missing.stderr
    nowhere = _config("--client", "vscode", "--bundle", str(tmp_path / "nope"))
    assert nowhere.returncode == 2 and len(nowhere.stderr.strip().splitlines()) == 1
    # Only metadata.json is read: a bundle whose other files are missing still gets a snippet.
    partial = tmp_path / "partial"
    partial.mkdir()
    (partial / "metadata.json").write_bytes((example_bundle / "metadata.json").read_bytes())
    out = _config("--client", "vscode", "--bundle", str(partial))
    assert out.returncode == 0, out.stderr
    assert "acme-sdk" in json.loads(out.stdout)["servers"]
