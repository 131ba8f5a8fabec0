"""Helpers of the hostile-input tests (tests/hostile/): real docs trees in tmp_path, the builder
called in-process under a time budget, generators of hostile files, and the settings of the
bounded Hypothesis fuzz tests."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from conftest import FUZZ, FUZZ_EXAMPLES
from docsmcp.common.logs import LOGGER_NAME
from docsmcp.pipeline.collect import BuildOptions, Collected, collect
from hypothesis import settings

T = TypeVar("T")


def fuzz(share: float) -> settings:
    """FUZZ with `share` of the examples, for tests whose examples cost more."""
    return settings(FUZZ, max_examples=max(10, int(FUZZ_EXAMPLES * share)))


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write `files` (relative path -> text or bytes) under `root`; returns `root`."""
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    return root


def within(seconds: float, fn: Callable[[], T]) -> T:
    """fn(), failing the test if it takes longer than `seconds`: a hang or a quadratic path
    fails fast instead of stalling the suite (the worker thread is a daemon, abandoned)."""
    result: list[T] = []
    error: list[BaseException] = []

    def run() -> None:
        try:
            result.append(fn())
        except BaseException as exc:  # re-raised in the test's thread
            error.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise AssertionError(f"still running after {seconds} s (a hang or a quadratic path)")
    if error:
        raise error[0]
    return result[0]


def collect_docs(docs: Path, seconds: float = 30, **options: object) -> Collected:
    """The builder's collect step on `docs`, in-process, within `seconds`."""
    return within(seconds, lambda: collect(BuildOptions(docs_dir=docs, **options)))


class Warnings(logging.Handler):
    """The builder's warnings while in use (`with Warnings() as w:` ... `w.messages`), taken
    from its own logger: the CLI's logs.configure stops propagation to the root logger, so
    pytest's caplog would miss them once any test ran the CLI in-process."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())

    def __enter__(self) -> Warnings:
        logging.getLogger(LOGGER_NAME).addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger(LOGGER_NAME).removeHandler(self)


def problems_of(collected: Collected) -> list[str]:
    """The problems as `docsmcp validate` prints them; each must be one line."""
    lines = [str(p) for p in collected.problems]
    for line in lines:
        assert "\n" not in line and "\r" not in line, line
    return lines


# --- hostile files: each at a size where the quadratic paths the issue found (or like them)
# took from tens of seconds to hours, while a linear builder needs well under a second.


def unclosed_hints(n: int) -> str:
    return "# T\n\n" + '<!-- mcp_chunking_hint: {"chunk_by": "h3"}\n' * n


def flat_headings(n: int) -> str:
    return "## h\n" * n


def nested_headings(n: int) -> str:
    return "".join("#" * (1 + k % 6) + f" h{k}\n" for k in range(n))


def tiny_sections(n: int) -> str:
    return "## h\nx\n" * n


def html_without_gt(n: int) -> str:
    return "<div>\n" + "<" * n + "\n"


def admonition_spaces(n: int) -> str:
    return ":::tip a" + " " * n + "b\n\ntext\n:::\n"


# The start of a script run in a child process that dies (os._exit, as abrupt as SIGKILL: no
# finally, no cleanup) at its `crash_at`-th step (sys.argv[1]); `crash_around(owner, name)`
# makes a step before and after each call of `owner.name`, and `crashing_os` is the os module
# with its renames wrapped so (assign it to a module's `os`).
CRASH_PREAMBLE = """
import os, sys

crash_at, points = int(sys.argv[1]), [0]

def step():
    points[0] += 1
    if points[0] == crash_at:
        os._exit(137)

def crash_around(owner, name):
    real = getattr(owner, name)
    def wrapped(*args, **kwargs):
        step()
        result = real(*args, **kwargs)
        step()
        return result
    setattr(owner, name, wrapped)

class Os:
    def __getattr__(self, name):
        return getattr(os, name)
crashing_os = Os()
for name in ("replace", "rename"):
    setattr(crashing_os, name, getattr(os, name))
    crash_around(crashing_os, name)
"""


def get_json(bundle: Path, what: str) -> dict:
    """What an agent reads of a chunk or page: `docsmcp-runtime get WHAT --json` over `bundle`."""
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp_runtime", "--bundle", bundle, "get", what, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
