"""Per-file cache of parsing and chunking, so a rebuild parses only the files that changed.

One file per output bundle and builder code fingerprint in the cache root's `parsed/` folder
(cache.py): `<output key>-<code>.marshal`, one record per file key holding its chunks, table
records and analysed fields (format at `MAGIC`). The key hashes everything the result depends
on: the file's path, text, strategy, metadata, title and frontmatter, and the build's default
chunk size; the code fingerprint hashes the builder's and runtime's sources, so any change of
the code starts a new cache. A build rewrites the file with exactly the entries it used
(deleted files are pruned).

Each record is `marshal` of plain tuples, not pickle: loading a damaged or planted cache file
can fail, but never runs code. A cache that cannot be read is ignored with a warning: the
bundle never depends on it (a rebuild from the cache is byte-identical to a clean one, tested).
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
import os
import struct
import tempfile
import zlib
from functools import cache
from pathlib import Path
from typing import BinaryIO

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
CACHE_FORMAT = 7


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


# The file: MAGIC, then one record per entry: the key's 32 sha256 bytes, the payload's length
# (uint32, little-endian) and the payload, zlib(marshal(entry)). Records are read one at a time
# (an index of offsets is all that is kept in memory), so a build never holds the whole cache
# or a marshal of it: win32's cache is larger than the memory a build may use.
MAGIC = b"docsmcp-parsed\0" + bytes([CACHE_FORMAT])
_HEAD = struct.Struct("<32sI")


class ParseCache:
    """The parse cache of one output bundle: `DIR/<output key>-<code fingerprint>.marshal`."""

    def __init__(self, directory: Path, key: str) -> None:
        self.key = key
        self.path = directory / f"{key}-{code_fingerprint()}.marshal"
        self._file: BinaryIO | None = None
        self._new: BinaryIO | None = None
        self.stored: dict[str, tuple[int, int]] = self._read()  # key -> (offset, length)
        if self.stored:
            touch(self.path)  # used: the last to be evicted
        # key -> (file, offset, length) of its record's payload, in use order; new entries
        # go to a side file until `save`.
        self.used: dict[str, tuple[BinaryIO, int, int]] = {}
        self.hits = 0

    def _read(self) -> dict[str, tuple[int, int]]:
        if not self.path.exists():
            return {}
        index: dict[str, tuple[int, int]] = {}
        try:
            f = self.path.open("rb")
            self._file = f
            size = os.fstat(f.fileno()).st_size
            if f.read(len(MAGIC)) != MAGIC:
                raise ValueError("not a parse cache of this builder")
            at = len(MAGIC)
            while at < size:
                head = f.read(_HEAD.size)
                if len(head) != _HEAD.size:
                    raise ValueError("truncated")
                digest, length = _HEAD.unpack(head)
                at += _HEAD.size
                if at + length > size:
                    raise ValueError("truncated")
                index[digest.hex()] = (at, length)
                at += length
                f.seek(at)
            return index
        except (OSError, ValueError) as exc:
            self.close()
            warn(f"ignoring the parse cache {self.path} ({exc}); parsing every file")
            return {}

    def get(self, key: str) -> Entry | None:
        where = self.stored.get(key)
        if where is None or self._file is None:
            return None
        try:
            self._file.seek(where[0])
            stored = marshal.loads(zlib.decompress(self._file.read(where[1])))
            entry = _load(stored)
        except (OSError, TypeError, ValueError, EOFError, zlib.error):
            return None  # a damaged entry: parse the file again
        self.used[key] = (self._file, *where)
        self.hits += 1
        return entry

    def put(self, key: str, entry: Entry) -> None:
        # zlib level 1: a third of the size for ~0.2 s on speakeasy-sdks
        payload = zlib.compress(marshal.dumps(_dump(entry)), 1)
        try:
            if self._new is None:
                # closed by `save`/`close`: it lives across `put` calls
                self._new = tempfile.TemporaryFile(dir=self._tmp_dir())  # noqa: SIM115
            offset = self._new.seek(0, os.SEEK_END)
            self._new.write(payload)
        except OSError:
            return  # no room for it: the next build parses the file again
        self.used[key] = (self._new, offset, len(payload))

    def _tmp_dir(self) -> str | None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return str(self.path.parent)
        except OSError:
            return None

    def close(self) -> None:
        for f in (self._file, self._new):
            if f is not None:
                f.close()
        self._file = self._new = None

    def save(self) -> None:
        """Write the entries this build used, if they differ from what was read."""
        try:
            if self.used.keys() != self.stored.keys():
                self._write()
        finally:
            self.close()

    def _write(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f".{self.path.name}.tmp-{os.getpid()}")
            with tmp.open("wb") as out:
                out.write(MAGIC)
                for key, (source, offset, length) in self.used.items():
                    source.seek(offset)
                    out.write(_HEAD.pack(bytes.fromhex(key), length))
                    out.write(source.read(length))
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
