"""`docsmcp-runtime config`: the snippet or command that registers a bundle's server in an MCP
client. Standard library only; the bundle is never opened (only its metadata.json is read, for
the default name).

Formats, as the clients document them:

* Claude Code (https://code.claude.com/docs/en/mcp): `claude mcp add [options] <name> --
  <command> [args...]` for a local stdio server (options go before the name, `--` separates
  the server's own command line); `claude mcp add --transport http <name> <url>` for HTTP.
* Claude Desktop (modelcontextprotocol.io quickstart, "claude_desktop_config.json"): an
  `mcpServers` object of `{"command": ..., "args": [...]}` entries; its config file starts
  local (stdio) servers only, remote servers are added as connectors in the app's settings.
* Cursor (https://cursor.com/docs/mcp): `.cursor/mcp.json` (project) or `~/.cursor/mcp.json`,
  an `mcpServers` object of `{"command", "args"}` entries, or `{"url"}` for a remote server.
* VS Code (https://code.visualstudio.com/docs/copilot/reference/mcp-configuration):
  `.vscode/mcp.json`, a `servers` object whose entries have `"type": "stdio"` with `command`
  and `args`, or `"type": "http"` with `url`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import urlsplit

from ..distribution.specs import is_remote
from ..format.layout import METADATA_FILE
from ..records import record
from .parser import CLIENTS, PROG

# metadata.json is small; a name is looked up only in its first this many bytes.
_METADATA_READ_LIMIT = 4 << 20


class ConfigError(ValueError):
    """A one-line reason the snippet cannot be made."""


@record
class ClientConfig:
    client: str
    name: str
    where: str  # where the snippet goes, for the reader
    text: str  # the exact command line or JSON document
    is_json: bool


def _is_oci(spec: str) -> bool:
    # registry.py (and the archive module it needs) only for OCI references: this command
    # reads at most one metadata.json.
    return spec.startswith("oci://")


def _oci_reference(spec: str):  # noqa: ANN202 - registry.Reference, imported only here
    from ..distribution.registry import parse_reference

    try:
        reference = parse_reference(spec)
    except ValueError as exc:
        raise ConfigError(f"--bundle {exc}") from None
    return reference


def bundle_argument(spec: str) -> str:
    """The --bundle value made absolute: a directory or archive path, or `LAYOUT:TAG`; an
    `oci://` reference is kept as written once it parses, a URL as it is (with its `#sha256=`
    pin)."""
    if _is_oci(spec):
        return "oci://" + str(_oci_reference(spec))
    if is_remote(spec):
        return spec
    path = Path(spec)
    if not path.exists():
        layout, sep, tag = spec.rpartition(":")
        if sep and layout and "/" not in tag and Path(layout).is_dir():
            return f"{os.path.abspath(layout)}:{tag}"
        raise ConfigError(f"--bundle {spec}: no such bundle directory, archive or OCI layout")
    return os.path.abspath(path)


def default_name(spec: str) -> str:
    """The bundle's own name (metadata.json `name`) for a bundle directory; for an archive or
    OCI layout, its file name without `.tar.gz` or `:TAG`; for a URL, its last path segment."""
    if _is_oci(spec):
        # The repository's last component: oci://ghcr.io/acme/docs-bundle:1.2 -> docs-bundle
        return _oci_reference(spec).repository.rpartition("/")[2]
    path = Path(spec)
    if is_remote(spec):
        path = Path(urlsplit(spec).path.rstrip("/") or "/")
    if path.is_dir() and (path / METADATA_FILE).is_file():
        try:
            with open(path / METADATA_FILE, "rb") as f:
                data = json.loads(f.read(_METADATA_READ_LIMIT))
        except (OSError, ValueError) as exc:
            raise ConfigError(
                f"{path / METADATA_FILE}: cannot read the bundle's name: {exc}"
            ) from None
        name = data.get("name") if isinstance(data, dict) else None
        if isinstance(name, str) and name.strip():
            return name.strip()
        raise ConfigError(f"{path / METADATA_FILE}: no name; pass --name")
    if is_remote(spec):
        base = path.name
    else:
        base = Path(bundle_argument(spec).rpartition(":")[0] if not path.exists() else spec).name
    for suffix in (".tar.gz", ".tgz"):
        base = base.removesuffix(suffix)
    if not base:
        raise ConfigError("cannot derive a server name from --bundle; pass --name")
    return base


def make(
    client: str,
    bundle: str | list[str],
    name: str | None = None,
    transport: str = "stdio",
    url: str | None = None,
    command: str = PROG,
) -> ClientConfig:
    """The registration of ``bundle`` (one, or several served as libraries) for ``client``;
    ConfigError for what cannot be done."""
    bundles = [bundle] if isinstance(bundle, str) else list(bundle)
    if client not in CLIENTS:
        raise ConfigError(f"unknown client {client!r}; one of {', '.join(CLIENTS)}")
    if transport == "http" and not url:
        raise ConfigError("--transport http needs --url (where docsmcp-runtime serves /mcp)")
    if transport == "stdio" and url:
        raise ConfigError("--url applies to --transport http only")
    args = [word for spec in bundles for word in ("--bundle", bundle_argument(spec))]
    if name is None and len(bundles) > 1:
        name = "docs"  # several libraries: no one bundle's name fits
    name = (name if name is not None else default_name(bundles[0])).strip()
    if not name:
        raise ConfigError("--name must not be empty")
    if client == "claude-code":
        if transport == "http":
            words = ["claude", "mcp", "add", "--transport", "http", name, str(url)]
        else:
            words = ["claude", "mcp", "add", name, "--", command, *args]
        import shlex  # this module is imported by every server start (the CLI's choices)

        return ClientConfig(client, name, "run in a terminal", shlex.join(words), False)
    if client == "claude-desktop":
        if transport == "http":
            raise ConfigError(
                "claude_desktop_config.json starts local (stdio) servers only; add "
                f"{url} in Claude Desktop under Settings > Connectors instead"
            )
        entry: dict = {"command": command, "args": args}
        doc = {"mcpServers": {name: entry}}
        where = "claude_desktop_config.json (Settings > Developer > Edit Config), then restart"
    elif client == "cursor":
        entry = {"url": url} if transport == "http" else {"command": command, "args": args}
        doc = {"mcpServers": {name: entry}}
        where = ".cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project)"
    else:
        entry = (
            {"type": "http", "url": url}
            if transport == "http"
            else {"type": "stdio", "command": command, "args": args}
        )
        doc = {"servers": {name: entry}}
        where = ".vscode/mcp.json in the workspace"
    return ClientConfig(client, name, where, json.dumps(doc, indent=2) + "\n", True)


def run(args) -> int:  # noqa: ANN001 - the argparse.Namespace of `docsmcp-runtime config`
    """Print the snippet (stdout) and where it goes (stderr); 2 with one line on error."""
    import sys

    try:
        config = make(
            args.client,
            args.bundle,
            name=args.name,
            transport=getattr(args, "transport", "stdio"),
            url=args.url,
            command=args.command_name,
        )
    except ConfigError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        out = {"client": config.client, "name": config.name, "where": config.where}
        out["config" if config.is_json else "command"] = (
            json.loads(config.text) if config.is_json else config.text
        )
        print(json.dumps(out, indent=2))
        return 0
    print(f"# {config.where}", file=sys.stderr)
    sys.stdout.write(config.text if config.text.endswith("\n") else config.text + "\n")
    return 0
