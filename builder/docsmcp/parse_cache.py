"""Per-file cache of parsing and chunking, so a rebuild parses only the files that changed.

One file per output bundle and builder code fingerprint in the cache root's `parsed/` folder
(cache.py): `<output key>-<code>.marshal`, a dict from a file's key to
its chunks and table records. The key hashes everything the result depends on: the file's path,
text, strategy, metadata, title and frontmatter, and the build's default chunk size; the code
fingerprint hashes the builder's and runtime's sources, so any change of the code starts a new
cache. A build rewrites the file with exactly the entries it used (deleted files are pruned).

The format is `marshal` of plain tuples, not pickle: loading a damaged or planted cache file
can fail, but never runs code. A cache that cannot be read is ignored with a warning: the
bundle never depends on it (a rebuild from the cache is byte-identical to a clean one, tested).
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
import os
import zlib
from functools import cache
from pathlib import Path

import docsmcp_runtime
from docsmcp_runtime.swap import pid_alive

from .apiref import ApiEntry, Example, Parameter
from .cache import evict, max_bytes, touch
from .chunk import Chunk
from .embed import warn
from .manifest import SourceFile
from .tables import FileRecords
from .xref import FileRefs

Entry = tuple[list[Chunk], FileRecords, list]  # chunks, records, analysed fields per chunk
PARSED_MAX_BYTES = max_bytes("parsed")
# Bump when the stored tuples change shape.
CACHE_FORMAT = 5


@cache
def code_fingerprint() -> str:
    """sha256 of every source file of the builder and the runtime (what a result depends on)."""
    digest = hashlib.sha256(f"format {CACHE_FORMAT}\0".encode())
    for package in (Path(__file__).parent, Path(docsmcp_runtime.__file__).parent):
        for path in sorted(package.rglob("*.py")):
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def file_key(sf: SourceFile, default_max: int, analyzer: object) -> str:
    parts = (
        repr(analyzer),
        sf.path,
        sf.text,
        sf.body if sf.line_map else "",  # what includes added
        _values(sf.strategy),
        sf.metadata,
        sf.title,
        sf.frontmatter,
        sf.page_starts,
        sf.section_numbers,
        default_max,
    )
    # repr, not marshal: marshal's bytes depend on object identity (its back-references).
    return hashlib.sha256(repr(parts).encode("utf-8", "surrogatepass")).hexdigest()


def _values(obj: object) -> tuple:
    """A dataclass's field values, in order, not copied (`astuple` deep-copies every leaf)."""
    return tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))  # type: ignore[arg-type]


def _dump(entry: Entry) -> tuple:
    chunks, rec, analysed = entry
    api = tuple(
        (
            _values(dataclasses.replace(e, parameters=(), examples=())),
            tuple(_values(p) for p in e.parameters),
            tuple(_values(x) for x in e.examples),
            row,
        )
        for e, row in rec.api
    )
    return (
        tuple(_values(c) for c in chunks),
        (rec.rows, _values(rec.refs), rec.page, api, rec.code),
        tuple(analysed),
    )


def _load(stored: tuple) -> Entry:
    chunks, (rows, refs, page, api, code), analysed = stored
    entries = []
    for fields, params, examples, row in api:
        entry = ApiEntry(*fields)
        entry = dataclasses.replace(
            entry,
            parameters=tuple(Parameter(*p) for p in params),
            examples=tuple(Example(*x) for x in examples),
        )
        entries.append((entry, row))
    return (
        [Chunk(*c) for c in chunks],
        FileRecords(rows, FileRefs(*refs), page, tuple(entries), code),
        list(analysed),
    )


class ParseCache:
    """The parse cache of one output bundle: `DIR/<output key>-<code fingerprint>.marshal`."""

    def __init__(self, directory: Path, key: str) -> None:
        self.key = key
        self.path = directory / f"{key}-{code_fingerprint()}.marshal"
        self.stored: dict[str, tuple] = self._read()
        if self.stored:
            touch(self.path)  # used: the last to be evicted
        self.used: dict[str, tuple] = {}
        self.hits = 0

    def _read(self) -> dict[str, tuple]:
        if not self.path.exists():
            return {}
        try:
            data = marshal.loads(zlib.decompress(self.path.read_bytes()))
            if not isinstance(data, dict):
                raise ValueError("not a dict")
            return data
        except (OSError, ValueError, EOFError, TypeError, zlib.error) as exc:
            warn(f"ignoring the parse cache {self.path} ({exc}); parsing every file")
            return {}

    def get(self, key: str) -> Entry | None:
        stored = self.stored.get(key)
        if stored is None:
            return None
        try:
            entry = _load(stored)
        except (TypeError, ValueError):  # a damaged entry: parse the file again
            return None
        self.used[key] = stored
        self.hits += 1
        return entry

    def put(self, key: str, entry: Entry) -> None:
        self.used[key] = _dump(entry)

    def save(self) -> None:
        """Write the entries this build used, if they differ from what was read."""
        if self.used.keys() == self.stored.keys():
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f".{self.path.name}.tmp-{os.getpid()}")
            # zlib level 1: a third of the size for ~0.2 s on speakeasy-sdks
            tmp.write_bytes(zlib.compress(marshal.dumps(self.used), 1))
            os.replace(tmp, self.path)
            for old in self.path.parent.glob(f"{self.key}-*.marshal"):
                if old != self.path:  # this bundle's cache of other code: never read again
                    old.unlink(missing_ok=True)
            for temp in self.path.parent.glob(".*.marshal.tmp-*"):
                pid = temp.name.rpartition("-")[2]
                if pid.isdigit() and not pid_alive(int(pid)):  # left by a killed build
                    temp.unlink(missing_ok=True)
            evict(self.path.parent, PARSED_MAX_BYTES, keep=(self.path,))
        except OSError as exc:
            warn(f"cannot write the parse cache {self.path} ({exc.strerror or exc})")
