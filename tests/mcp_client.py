"""A synchronous handle on a real `docsmcp_runtime` process driven by the official `mcp` SDK.

The SDK client is async and built on anyio task groups, whose enter and exit must run in the
same task. anyio's blocking portal runs an event loop in a helper thread and enters/exits the
client there, so plain (sync) pytest tests and module-scoped fixtures can share one live
session without an async pytest plugin.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters, types

READ_TIMEOUT = 30.0


def server_command(bundle: Path | list[Path]) -> list[str]:
    """The server of one bundle, or of several (served as libraries)."""
    bundles = bundle if isinstance(bundle, list) else [bundle]
    # `python -m` rather than the console script: it works without the venv on PATH.
    return [
        sys.executable,
        "-m",
        "docsmcp_runtime",
        *(a for b in bundles for a in ("--bundle", str(b))),
    ]


class McpSession:
    """One MCP client session over real stdio pipes to `python -m docsmcp_runtime`."""

    def __init__(
        self,
        bundle: Path | list[Path],
        *,
        mode: str = "legacy",
        env: Mapping[str, str | None] | None = None,
        argv: list[str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        """`argv` (run in `cwd`) replaces the server command of `bundle`: e.g. a README
        command run by bash, exactly as written."""
        self.bundle = bundle
        # The SDK launches servers with a minimal allow-listed environment; hand over ours so
        # the child imports the same (editable) packages. `None` values remove a variable.
        environ = dict(os.environ)
        for key, value in (env or {}).items():
            if value is None:
                environ.pop(key, None)
            else:
                environ[key] = value
        command, *args = argv or server_command(bundle)
        params = StdioServerParameters(command=command, args=args, env=environ, cwd=cwd)
        self._stack = ExitStack()
        try:
            self._portal = self._stack.enter_context(start_blocking_portal())
            client = Client(params, mode=mode, read_timeout_seconds=READ_TIMEOUT)
            self.client: Client = self._stack.enter_context(
                self._portal.wrap_async_context_manager(client)
            )
        except BaseException:
            self._stack.close()
            raise

    def close(self) -> None:
        self._stack.close()

    def __enter__(self) -> McpSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- raw SDK calls ----------------------------------------------------------------------

    @property
    def instructions(self) -> str | None:
        return self.client.instructions

    def list_tools(self) -> list[types.Tool]:
        return self._portal.call(self.client.list_tools).tools

    def argument(self, tool: str, name: str) -> dict[str, Any]:
        """The JSON schema of argument `name` of `tool`, as tools/list gives it."""
        (found,) = [t for t in self.list_tools() if t.name == tool]
        return found.input_schema["properties"][name]

    def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        return self._portal.call(self.client.call_tool, name, arguments)

    # -- conveniences asserting the tool-level outcome ---------------------------------------

    def search(self, **arguments: Any) -> dict[str, Any]:
        """A successful search_docs result's structuredContent (checked against its text)."""
        result = self.call("search_docs", arguments)
        assert not result.is_error, f"search_docs {arguments} failed: {text_of(result)}"
        assert result.structured_content is not None
        # The text block is the same result for clients that ignore structuredContent.
        assert json.loads(text_of(result)) == result.structured_content
        return result.structured_content

    def get_doc(self, chunk_id: str, context: int | None = None) -> str:
        arguments: dict[str, Any] = {"chunk_id": chunk_id}
        if context is not None:
            arguments["context"] = context
        result = self.call("get_doc", arguments)
        assert not result.is_error, f"get_doc {arguments} failed: {text_of(result)}"
        return text_of(result)

    def tool_error(self, name: str, arguments: dict[str, Any]) -> str:
        """The message of a call that must fail as an isError tool result (not a protocol error)."""
        result = self.call(name, arguments)
        assert result.is_error, f"{name} {arguments} unexpectedly succeeded: {text_of(result)}"
        return text_of(result)


def text_of(result: types.CallToolResult) -> str:
    """The text of a result that must consist of exactly one text content block."""
    assert len(result.content) == 1, result.content
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text
