"""Every command of the ```bash blocks of README.md and of the guide pages in docs/, run exactly
as written (../shared/DECISIONS.md, *The README*), so the docs cannot rot.

The commands run in order, as a reader would type them, in one copy of the checkout: first the
README's Try-it command (a fresh venv, both distributions, a build of examples/acme-sdk into
./idx and a search), then every other block with that venv active: the README's, then each
docs/ page's in the order the guide's index (docs/README.md) lists the pages
(readme_commands.doc_pages), so a page's commands see what earlier pages left. Test ids name
the page and the block's line (`docs/serving.md:line9-serving-a-bundle`). `./docs` is a copy
of examples/acme-sdk, the reader's docs (the checkout's own docs/ guide makes way for it;
without its manifest when `docsmcp init --write` runs) and `./manuals` a small PDF manual; the
shared corpora are `../shared` ($DOCSMCP_SHARED). Commands marked `needs: WHAT` are skipped
with WHAT as the reason (`needs: ../shared` ones run in the corpus tier); `runs until stopped`
servers are started, checked and stopped. The marks are parsed by tests/readme_commands.py.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from checkout import checkout
from conftest import EXAMPLE_DOCS, FUZZ, SHARED
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession
from openai_stub import OpenAIStub
from readme_commands import (
    INDEX,
    README,
    SHARED_NEED,
    Block,
    Command,
    bash_blocks,
    doc_pages,
    split_comment,
)

REPO = Path(__file__).resolve().parents[1]
PAGES = doc_pages(REPO)  # README.md, then docs/ in the index's order
BLOCKS = [b for page in PAGES for b in bash_blocks((REPO / page).read_text("utf-8"), page)]
TRY_IT = "Try it (no API keys)"
RUN_THE_TESTS = "Run the tests"
HTTP_PORT = 20310  # the runtime's default port, which the docs' server commands use
# Programs an unmarked command may start: what the checkout and its venv provide.
RUNNABLE = {".", "python3", "python", "pip", "ruff", "docsmcp", "docsmcp-runtime", "mkdir"}
# What a `needs:` mark names that the test provides itself (port, server), so the command runs.
EMBEDDINGS_SERVER = "an embeddings server on :8080"
EMBEDDINGS_PORT = 8080
STOP_TIMEOUT = 20.0
READY_TIMEOUT = 60.0


@dataclass
class Sandbox:
    root: Path  # the checkout copy, where every command runs
    env: dict[str, str]
    outputs: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)


def _block(heading: str) -> Block:
    (block,) = [b for b in BLOCKS if b.heading == heading]
    assert block.page == README, block
    return block


def _bash(command: Command, sandbox: Sandbox) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["bash", "-c", command.text],
        cwd=sandbox.root,
        env=sandbox.env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, (
        f"{command.page} line {command.line} failed ({done.returncode}): {command.text}\n"
        f"{done.stdout[-1500:]}\n{done.stderr[-2500:]}"
    )
    return done


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Sandbox:
    """A checkout copy after the README's Try-it command, with its venv active from then on."""
    base = tmp_path_factory.mktemp("readme")
    root = checkout(base / "docsmcp")
    # The commands' ./docs is the reader's docs folder (a copy of examples/acme-sdk, made by
    # _prepare), not this checkout's guide pages: those make way for it.
    shutil.rmtree(root / "docs", ignore_errors=True)
    if SHARED.is_dir():
        (base / "shared").symlink_to(SHARED.resolve())  # the README's ../shared
    home = base / "home"
    home.mkdir()
    env = {
        # python3 is this interpreter's, as in the environment the README assumes
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(home),  # the cache root defaults to ~/.cache/docsmcp: a fresh one
        "LANG": "C.UTF-8",
        "TOKEN": "readme-token",  # the playground command's "$TOKEN"
    }
    box = Sandbox(root, env)
    (command,) = _block(TRY_IT).commands
    box.outputs[command.text] = _bash(command, box)
    venv = root / ".venv"  # `. .venv/bin/activate` stays in effect for the reader's shell
    env["PATH"] = f"{venv / 'bin'}:{env['PATH']}"
    env["VIRTUAL_ENV"] = str(venv)
    return box


@pytest.mark.slow
def test_try_it_runs_as_written(sandbox: Sandbox) -> None:
    (command,) = _block(TRY_IT).commands
    assert command.text.startswith("python3 -m venv .venv")
    out = sandbox.outputs[command.text].stdout
    # pip speaks first (on stdout); then the ranked hits, the Python tab's text among them
    hits = out[out.index("\n 1. ") + 1 :]
    assert hits.splitlines()[0].startswith(" 1. guides/errors.mdx#error-handling/retries"), hits
    assert "language=python" in hits and "</TabItem>" not in hits


def test_run_the_tests_is_what_ci_runs() -> None:
    """The Run-the-tests command is not run here (it is the whole suite): `.ci/run` runs the
    same steps in a fresh venv."""
    (command,) = _block(RUN_THE_TESTS).commands
    ci = (REPO / ".ci" / "run").read_text()
    steps = command.text.split(" && ")
    assert steps[0] == "python3 -m venv .venv" and steps[1] == ". .venv/bin/activate"
    assert "python3 -m venv .venv-ci\n. .venv-ci/bin/activate\n" in ci
    assert steps[2] == 'pip install ./runtime ".[test]"'
    assert 'python -m pip install -q ./runtime ".[test]"\n' in ci
    assert [f"{s}\n" in ci for s in steps[3:]] == [True, True], steps[3:]


def test_every_unmarked_command_is_runnable_here() -> None:
    """A new command that needs something beyond the checkout must say so (`needs: WHAT`)."""
    for block in BLOCKS:
        for command in block.commands:
            if command.needs:
                continue
            programs = {part.split()[0] for part in re.split(r"&&|\|", command.text)}
            assert programs <= RUNNABLE, (command.line, command.text, programs - RUNNABLE)


def test_every_guide_page_is_in_the_index() -> None:
    """The index orders the pages whose commands run: a page it does not list would run last,
    after whatever the listed pages left in the sandbox."""
    index = (REPO / INDEX).read_text("utf-8")
    for page in sorted((REPO / "docs").glob("*.md")):
        if page.name != "README.md":
            assert f"]({page.name})" in index, f"{INDEX} does not link {page.name}"
    assert PAGES[:2] == [README, INDEX] and len(PAGES) == len(set(PAGES))
    assert set(PAGES) == {README} | {f"docs/{p.name}" for p in (REPO / "docs").glob("*.md")}


def test_blocks_are_collected_from_every_page_in_order() -> None:
    pages = [b.page for b in BLOCKS]
    assert pages[0] == README and pages == sorted(pages, key=PAGES.index)
    assert {"docs/building.md", "docs/serving.md", "docs/sources.md"} <= set(pages)
    assert all(c.page == b.page for b in BLOCKS for c in b.commands)


def _prepare(block: Block, sandbox: Sandbox) -> None:
    """The reader's own files the block names: `./docs` (examples/acme-sdk) and `./manuals`."""
    text = "\n".join(c.text for c in block.commands)
    docs = sandbox.root / "docs"
    if "./docs" in text and not docs.exists():
        shutil.copytree(EXAMPLE_DOCS, docs)
    if "docsmcp init" in text and "--write" in text:
        (docs / ".docs-mcp.json").unlink(missing_ok=True)  # starting a manifest
    manuals = sandbox.root / "manuals"
    if "./manuals" in text and not manuals.exists():
        import pdf_fixtures

        manuals.mkdir()
        pdf_fixtures.manual(manuals / "manual.pdf")


def _port_free(port: int) -> bool:
    """Whether the server could bind `port` now. With SO_REUSEADDR, as the runtime binds
    (http/app.py `bind`): the connections a previous docs server closed linger in TIME_WAIT
    for a minute, which refuse a plain bind but not the server's (a skip of the next server
    line in two CI runs)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _serve(command: Command, sandbox: Sandbox) -> str:
    """Start a server command, wait for its ready line on stderr, check it, stop it; the line."""
    http = "--transport http" in command.text or " playground" in command.text
    if http and not _port_free(HTTP_PORT):
        return f"skipped: port {HTTP_PORT} is in use"
    proc = subprocess.Popen(
        ["bash", "-c", command.text],
        cwd=sandbox.root,
        env=sandbox.env,
        stdin=subprocess.PIPE,  # kept open: a stdio server serves until its input ends
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, so bash and the server stop together
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    seen: list[str] = []
    ready = None
    deadline = time.monotonic() + READY_TIMEOUT
    try:
        while ready is None and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            seen.append(line)
            if "docsmcp-runtime: serving" in line or '"listening"' in line:
                ready = line
        where = f"{command.page} line {command.line}"
        assert ready is not None, f"{where}: no ready line\n{''.join(seen)}"
        if http:
            url = f"http://127.0.0.1:{HTTP_PORT}/healthz"
            with urllib.request.urlopen(url, timeout=10) as response:
                assert json.loads(response.read())["bundle_id"], url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    if not http:
        _answers(command, sandbox)
    return ready


def _answers(command: Command, sandbox: Sandbox) -> None:
    """A stdio server command, run as written by the official MCP client, answers: its tools,
    and the tool call its comment names."""
    with McpSession([], argv=["bash", "-c", command.text], cwd=sandbox.root, env=sandbox.env) as s:
        tools = {tool.name: tool for tool in s.list_tools()}
        assert "search_docs" in tools, (command.line, sorted(tools))
        call = re.search(r"tools/call (\w+) (\{.*\})", command.text)
        if call:
            result = s.call(call.group(1), json.loads(call.group(2)))
            assert not result.is_error and result.structured_content, (command.line, result)
        if "two libraries" in command.text:
            assert "library" in tools["search_docs"].input_schema["properties"]


# What the docs say a command prints, checked where it is cheap: command prefix -> check.
def _check(command: Command, output: str) -> None:
    text = command.text
    if text.startswith("docsmcp diff ./idx-yellow-0.5 ./idx-yellow-next --limit 3"):
        assert "\n422 added, 1 removed, 7 changed, 28 moved, 520 unchanged\n" in output, output
    elif text.startswith("docsmcp-runtime config --client claude-code"):
        registers = r"claude mcp add \S+ -- docsmcp-runtime --bundle /\S+/idx\n"
        assert re.match(registers, output), output
    elif text.startswith("docsmcp-runtime --bundle ./idx ") and "MCP over stdio" in text:
        assert re.match(
            r"docsmcp-runtime: serving \S+ \(bundle \S+, \d+ chunks\) over stdio; tools: ",
            output,
        ), output
    elif " playground " in text:
        assert json.loads(output)["playground"] == f"http://127.0.0.1:{HTTP_PORT}/playground"


def _block_param(block: Block) -> Any:
    needs_shared = any(SHARED_NEED in c.needs for c in block.commands)
    slug = re.sub(r"[^a-z0-9]+", "-", block.heading.lower()).strip("-")
    return pytest.param(
        block,
        id=f"{block.page}:line{block.line}-{slug}",
        marks=[pytest.mark.corpus] if needs_shared else [],
    )


@pytest.mark.slow  # a fresh venv (~1 min), then every block (~1-2 min; corpus blocks more)
@pytest.mark.parametrize(
    "block",
    [_block_param(b) for b in BLOCKS if b.heading not in (TRY_IT, RUN_THE_TESTS)],
)
def test_readme_block_runs_as_written(block: Block, sandbox: Sandbox) -> None:
    _prepare(block, sandbox)
    ran, skipped = 0, []
    for command in block.commands:
        where = f"{command.page} line {command.line}"
        other_needs = [n for n in command.needs if n not in (SHARED_NEED, EMBEDDINGS_SERVER)]
        if other_needs:
            skipped.append(f"{where} needs {', '.join(other_needs)}")
            continue
        if EMBEDDINGS_SERVER in command.needs:
            if not _port_free(EMBEDDINGS_PORT):
                skipped.append(f"{where}: port {EMBEDDINGS_PORT} is in use")
                continue
            with OpenAIStub(port=EMBEDDINGS_PORT, dimensions=768) as stub:  # my-model's size
                sandbox.outputs[command.text] = _bash(command, sandbox)
            assert stub.requests, f"{where} never asked {stub.base_url}"
            ran += 1
            continue
        if SHARED_NEED in command.needs and not SHARED.is_dir():
            pytest.fail(  # the corpus tier fails, never skips, without its corpora
                f"{where} needs the shared corpora: {SHARED} is missing (set "
                'DOCSMCP_SHARED, or deselect these tests with -m "not corpus")'
            )
        if command.serves:
            output = _serve(command, sandbox)
            if output.startswith("skipped: "):
                skipped.append(f"{where}: {output.removeprefix('skipped: ')}")
                continue
        else:
            done = _bash(command, sandbox)
            sandbox.outputs[command.text] = done
            output = done.stdout
        _check(command, output)
        ran += 1
    if not ran:
        pytest.skip("; ".join(skipped))


@FUZZ
@given(st.text(alphabet=" \t#'\"\\abc;:", max_size=60), st.booleans())
def test_split_comment_fuzz(text: str, marked: bool) -> None:
    line = text.replace("\n", " ") + ("  # needs: network" if marked else "")
    code, comment = split_comment(line)
    assert code + comment == line
    assert comment == "" or comment.startswith("#")
    if marked and comment and code.strip() and not code.rstrip().endswith("\\"):
        blocks = bash_blocks(f"# H\n```bash\n{line}\n```\n")
        assert blocks[0].commands[-1].text == line


def test_marks_are_parsed() -> None:
    readme = (
        "## A\n```bash\n# needs: docker\nrun a \\\n  --flag  # start; runs until stopped\n"
        "run 'b#c' \"#\"  # needs: network; needs: ../shared\n```\n"
        "```json\n{}\n```\n### B\n```bash\nplain x # a comment\n```\n"
    )
    a, b = bash_blocks(readme)
    assert (a.heading, a.line, b.heading) == ("A", 2, "B")
    first, second = a.commands
    assert first == Command("run a \\\n  --flag  # start; runs until stopped", 4, ("docker",), True)
    assert second.needs == ("docker", "network", "../shared") and not second.serves
    assert b.commands == (Command("plain x # a comment", 13, (), False),)
