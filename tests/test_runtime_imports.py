"""The runtime stays lean: serving and searching a bundle imports none of the builder's stack.

A deployment installs only `docsmcp-runtime` (numpy + pyarrow); an accidental import of the
builder, the MCP SDK or a parsing/ML library would work on a dev machine and break there (or
slow start-up). Imports are observed in real child processes, since a test process has already
imported pytest, mcp and friends.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO
from docsmcp_runtime.tools.registry import ALL_TOOL_NAMES, tool

# Top-level packages the runtime must never import. `docsmcp` is the builder package; the
# runtime's own `docsmcp_runtime` has a different top-level name and is of course allowed.
FORBIDDEN = {
    "docsmcp",
    "mcp",
    "pydantic",
    "markdown_it",
    "mdit_py_plugins",
    "docutils",
    "sklearn",
    "openai",
    "yaml",
    "jsonschema",
    # The ONNX query encoder's extra and what it replaces: imported only by a bundle that has one.
    "onnxruntime",
    "tokenizers",
    "torch",
}
MARKER = "@@MODULES@@"
TIMEOUT = 60


def _forbidden(modules: set[str]) -> set[str]:
    return {m for m in modules if m.split(".")[0] in FORBIDDEN}


def _importtime_modules(stderr: str) -> set[str]:
    """Module names from `python -X importtime` output ("import time: self | cum | name")."""
    names = set()
    for line in stderr.splitlines():
        match = re.match(r"import time:\s+\d+\s+\|\s+\d+\s+\|\s+(\S+)\s*$", line)
        if match:
            names.add(match.group(1))
    return names


def test_search_path_imports(example_bundle: Path) -> None:
    code = (
        "import json, sys\n"
        "from docsmcp_runtime.cli import main\n"
        "argv = ['--bundle', sys.argv[1], 'search', 'payments create', '--language', 'python']\n"
        "rc = main(argv)\n"
        f"print({MARKER!r} + json.dumps([rc, sorted(sys.modules)]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(example_bundle)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr
    output, _, tail = proc.stdout.rpartition(MARKER)
    rc, modules = json.loads(tail)
    assert rc == 0
    assert " 1. python/payments.md#payments/create" in output  # it really searched
    modules = set(modules)
    assert {"docsmcp_runtime.search.engine", "numpy"} <= modules
    # Hits come from the display store: pyarrow (~40 ms, ~35 MB) waits for a Parquet table.
    assert "pyarrow" not in modules
    assert _forbidden(modules) == set()
    # What a full-text search of one bundle does not use is not imported (issue 30: creating
    # their classes was ~15 ms of every start): the other tools, the embedding providers'
    # options, the rescoring model's settings, the chat reranker, several-library serving.
    lazy = {
        *(f"docsmcp_runtime.tools.{name}" for name in ALL_TOOL_NAMES if name != "search_docs"),
        "docsmcp_runtime.format.providers",
        "docsmcp_runtime.format.rescore",
        "docsmcp_runtime.search.rerank",
        "docsmcp_runtime.libraries.app",
        # The parser's help texts read the HTTP defaults and the client names, not the HTTP
        # settings, the protocol or the config writer (~4 ms).
        "docsmcp_runtime.http.settings",
        "docsmcp_runtime.protocol.dispatcher",
        "docsmcp_runtime.commands.clientconfig",
        "docsmcp_runtime.browse.apiref",
        "docsmcp_runtime.browse.examples",
    }
    assert lazy & modules == set()


def test_search_cli_importtime(example_bundle: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "docsmcp_runtime"]
        + ["--bundle", str(example_bundle), "search", "refund"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr
    assert "payments.md#payments/refund" in proc.stdout
    modules = _importtime_modules(proc.stderr)
    assert {"docsmcp_runtime.cli", "numpy"} <= modules
    assert "pyarrow" not in modules
    assert _forbidden(modules) == set()


def test_stdio_server_imports(example_bundle: Path) -> None:
    """Initialize and search over raw JSON-RPC on the pipes; every import is logged to stderr."""
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "import-check", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "search_docs", "arguments": {"query": "refund", "limit": 1}},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {
                "name": "get_doc",
                "arguments": {"chunk_id": "python/payments.md#payments/refund"},
            },
        },
    ]
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "docsmcp_runtime"]
        + ["--bundle", str(example_bundle)],
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr  # EOF on stdin ends the server cleanly
    replies = {r["id"]: r for r in map(json.loads, proc.stdout.splitlines())}
    assert set(replies) == {1, 2, 3}
    hits = replies[2]["result"]["structuredContent"]["hits"]
    assert [h["chunk_id"] for h in hits] in (
        ["python/payments.md#payments/refund"],
        ["typescript/payments.md#payments/refund"],
    )
    assert replies[3]["result"]["isError"] is False
    assert replies[3]["result"]["content"][0]["text"].startswith(
        "--- Chunk: python/payments.md#payments/refund (Chunk 3 of 3) (Target) ---\n## refund"
    )
    modules = _importtime_modules(proc.stderr)
    stdio = {"docsmcp_runtime.protocol.stdio", "docsmcp_runtime.protocol.dispatcher"}
    assert stdio | {"numpy"} <= modules
    assert "pyarrow" not in modules  # search and get_doc read the display store
    assert _forbidden(modules) == set()


def test_runtime_dependencies_are_numpy_and_pyarrow() -> None:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((REPO / "runtime" / "pyproject.toml").read_text("utf-8"))["project"]
    names = {re.match(r"[A-Za-z0-9_.-]+", dep).group(0).lower() for dep in project["dependencies"]}
    assert names == {"numpy", "pyarrow"}
    # Extras are opt-in transports (HTTP needs an ASGI server, Lambda an event adapter) and the
    # query encoders (ONNX: onnxruntime + tokenizers; GGUF: llama-cpp-python), imported on first
    # use; never builder code.
    extras = project.get("optional-dependencies", {})
    assert set(extras) <= {"http", "lambda", "onnx", "gguf"}
    assert {re.match(r"[A-Za-z0-9_.-]+", d).group(0) for d in extras.get("onnx", [])} <= {
        "onnxruntime",
        "tokenizers",
    }
    assert {re.match(r"[A-Za-z0-9_.-]+", d).group(0) for d in extras.get("gguf", [])} <= {
        "llama-cpp-python"
    }


def test_each_tool_is_the_module_named_for_it() -> None:
    """The registry imports a tool by its name (registry.tool): each module's NAME is its own."""
    for name in ALL_TOOL_NAMES:
        module = tool(name)
        assert name == module.NAME
        assert module.__name__ == f"docsmcp_runtime.tools.{name}"
    with pytest.raises(KeyError):
        tool("hits")  # a module of the folder that is not a tool


@pytest.mark.parametrize("preset", [None, "3"])
def test_the_runtime_runs_numpy_on_one_blas_thread(
    example_bundle: Path, preset: str | None
) -> None:
    """OpenBLAS starts a thread per core as numpy loads (~100 ms of CPU a start) that no search
    uses: the runtime's entry points ask for one before numpy loads; a value the user set wins,
    and importing the package alone (as the builder does) sets nothing."""
    code = (
        "import os, sys\n"
        "import docsmcp_runtime, numpy\n"
        "print('package', os.environ.get('OPENBLAS_NUM_THREADS'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if preset is not None:
        env["OPENBLAS_NUM_THREADS"] = preset
    alone = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT, env=env
    )
    assert alone.stdout.strip() == f"package {preset}", alone.stderr
    cli = (
        "import os, sys\n"
        "from docsmcp_runtime.cli import main\n"
        "assert 'numpy' not in sys.modules or os.environ.get('OPENBLAS_NUM_THREADS')\n"
        "rc = main(['--bundle', sys.argv[1], 'search', 'payments create'])\n"
        f"print({MARKER!r} + str(os.environ.get('OPENBLAS_NUM_THREADS')))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", cli, str(example_bundle)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rpartition(MARKER)[2].strip() == (preset or "1")
