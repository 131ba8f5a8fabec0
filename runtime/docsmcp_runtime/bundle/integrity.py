"""Checking a bundle's large files in a background thread, before any of their data is served.

`open_bundle` hashes the files up to `lazy_bytes` itself (a small bundle is checked completely
before it opens, as always) and hands the larger ones to a `BackgroundCheck`: their sha256 (unless
`--no-verify`) and the whole-file bound check of the postings run in one streaming read per file
while the server starts and answers `initialize`. Every access to bundle data waits for it first
(`Bundle.ready`): a file that fails is never served; the call that would have used it fails with
one line naming the file, and so does every later one (`/healthz` says so too).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BundleError
from ..format import CHUNKS_FILE
from ..format.problems import scan_problem

if TYPE_CHECKING:
    import pyarrow.parquet as pq

log = logging.getLogger(__name__)

# Files larger than this are checked in the background (bytes). ~0.6 s per GB is spent hashing
# on a small machine: 32 MiB keeps a typical bundle's start-up check under 20 ms, done in full.
DEFAULT_LAZY_BYTES = 32 << 20
LAZY_BYTES_ENV = "DOCSMCP_VERIFY_LAZY_BYTES"


def lazy_bytes() -> int:
    """The size above which a file is checked in the background (DOCSMCP_VERIFY_LAZY_BYTES);
    a value that is not a whole number ≥ 0 falls back to the default with a warning."""
    text = os.environ.get(LAZY_BYTES_ENV, "").strip()
    if not text:
        return DEFAULT_LAZY_BYTES
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        log.warning(
            "%s=%r is not a number of bytes >= 0; using %d",
            LAZY_BYTES_ENV,
            text,
            DEFAULT_LAZY_BYTES,
        )
        return DEFAULT_LAZY_BYTES
    return value


def open_chunk_table(root: Path, n_chunks: int) -> tuple[pq.ParquetFile | None, str | None]:
    """(the chunk table, None) once opened and its layout checked against `n_chunks` rows, else
    (None, what is wrong): off the open path, in the background check of a large table or on
    the first use of a table a display store left unopened."""
    from ..format.table_problems import chunk_table_problem
    from .arrow import arrow

    pa, pq = arrow()
    try:
        # Read, not mapped: every row group a search shows stayed resident in a mapping (43 MB
        # after 120 searches of a million chunks), at no gain in speed.
        parquet = pq.ParquetFile(root / CHUNKS_FILE)
    except (OSError, pa.ArrowException) as exc:
        return None, f"unreadable chunk table ({exc})"
    problem = chunk_table_problem(parquet, n_chunks)
    return (None, problem) if problem is not None else (parquet, None)


class BackgroundCheck:
    """The deferred checks of one bundle: started at once, in a daemon thread."""

    def __init__(
        self,
        root: Path,
        files: Mapping[str, str | None],
        n_chunks: int,
        open_table: bool,
        dtypes: Mapping[str, str | None] | None = None,
    ) -> None:
        """`files`: name → expected sha256 (None: no hash, only the file's scan); `open_table`:
        the chunk table was not opened at open: open it and check its layout here; `dtypes`:
        name → the array's dtype as `files` lists it (postings_docs.bin may be narrow)."""
        self.root = root
        self.files = dict(files)
        self.dtypes = dict(dtypes or {})
        self.open_table = open_table
        self.problem: str | None = None
        self.parquet: pq.ParquetFile | None = None  # the opened chunk table (open_table)
        self._done = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(n_chunks,), name="docsmcp-verify", daemon=True
        )
        self._thread.start()

    def _run(self, n_chunks: int) -> None:
        try:
            for name, sha256 in self.files.items():
                try:
                    message = scan_problem(self.root, name, sha256, n_chunks, self.dtypes.get(name))
                except OSError as exc:
                    message = f"unreadable ({exc.strerror or exc})"
                if message is not None:
                    self._fail(name, message)
                    return
            if self.open_table:
                parquet, message = open_chunk_table(self.root, n_chunks)
                if message is not None:
                    self._fail(CHUNKS_FILE, message)
                    return
                self.parquet = parquet
            log.debug("verified %s in the background: %s", self.root, ", ".join(self.files))
        finally:
            self._done.set()

    def _fail(self, name: str, message: str) -> None:
        self.problem = f"{self.root / name}: {message}"
        log.error("%s", self.problem)

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self) -> None:
        """Return once every deferred file passed; BundleError (one line) if one did not."""
        self._done.wait()
        if self.problem is not None:
            raise BundleError(self.problem)
