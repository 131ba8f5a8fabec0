"""Per-file cache of parsing and chunking, so a rebuild parses only the files that changed.

One file per output bundle and builder code fingerprint in the cache root's `parsed/` folder
(cache.py): `<output key>-<code>.marshal`, one record per file key holding its chunks, table
records and analysed fields (format at `MAGIC`), LZ4-compressed. The key hashes everything the
result depends on: the file's path, text, strategy, metadata, title and frontmatter, and the
build's default chunk size; the code fingerprint hashes the builder's and runtime's sources, so
any change of the code starts a new cache. A build rewrites the file with exactly the entries it
used (deleted files are pruned).

Each record is `marshal` of plain tuples, not pickle: loading a damaged or planted cache file
can fail, but never runs code. A cache that cannot be read is ignored with a warning: the
bundle never depends on it (a rebuild from the cache is byte-identical to a clean one, tested).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import marshal
import operator
import os
import struct
import tempfile
import zlib
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import BinaryIO

import docsmcp_runtime
import pyarrow as pa
from docsmcp_runtime.distribution.swap import pid_alive

import docsmcp
from docsmcp.common.cache import evict, max_bytes, touch
from docsmcp.embeddings.embed import warn
from docsmcp.enrich.xref import FileRefs
from docsmcp.indexing.tables import FileRecords
from docsmcp.model.api import ApiEntry, Example, Parameter
from docsmcp.model.chunk import Chunk
from docsmcp.model.source import SourceFile

Entry = tuple[list[Chunk], FileRecords, list]  # chunks, records, analysed fields per chunk
PARSED_MAX_BYTES = max_bytes("parsed")
# Bump when the stored tuples change shape.
CACHE_FORMAT = 11
# LZ4 (frame), not zlib: speakeasy-sdks' 53 MB of records decompress in 0.02 s instead of 0.17 s
# (a rebuild reads them all) and compress in 0.06 s instead of 0.33 s, for 10.6 MB instead of
# 8.3 MB on disk. pyarrow is a dependency of the builder already.
_CODEC = "lz4"


@cache
def _codec() -> pa.Codec:
    return pa.Codec(_CODEC)


@cache
def code_fingerprint() -> str:
    """sha256 of every source file of the builder and the runtime (what a result depends on)."""
    digest = hashlib.sha256(f"format {CACHE_FORMAT}\0".encode())
    for package in (Path(docsmcp.__file__).parent, Path(docsmcp_runtime.__file__).parent):
        for path in sorted(package.rglob("*.py")):
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def file_key(sf: SourceFile, default_max: int, analyzer: object) -> str:
    """sha256 of everything a file's entry depends on. The text and body are hashed as UTF-8
    bytes, with their lengths in the small part: `repr` of a 20 MB corpus escaped every string
    first (0.14 s of a speakeasy-sdks rebuild)."""
    body = sf.body if sf.line_map else ""  # what includes added
    small = (
        repr(analyzer),
        sf.path,
        _values(sf.strategy),
        sf.metadata,
        sf.title,
        sf.nav_title,
        sf.link_titles,
        sf.frontmatter,
        sf.page_starts,
        sf.section_numbers,
        default_max,
        len(sf.text),
        len(body),
    )
    digest = hashlib.sha256(repr(small).encode("utf-8", "surrogatepass"))
    digest.update(b"\0")
    digest.update(sf.text.encode("utf-8", "surrogatepass"))
    digest.update(b"\0")
    digest.update(body.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


@cache
def _getter(cls: type) -> Callable[[object], tuple]:
    names = [f.name for f in dataclasses.fields(cls)]
    if len(names) == 1:  # attrgetter of one name gives the value, not a 1-tuple
        return lambda obj: (getattr(obj, names[0]),)
    return operator.attrgetter(*names)


def _values(obj: object) -> tuple:
    """A dataclass's field values, in order, not copied (`astuple` deep-copies every leaf), in
    one C call (a generator over dataclasses.fields was 2.9 s of a profiled full build)."""
    return _getter(type(obj))(obj)


def _api_values(e: ApiEntry) -> tuple:
    """An ApiEntry's values with its parameters and examples left out (stored apart)."""
    values = list(_values(e))
    values[_PARAMETERS] = values[_EXAMPLES] = ()
    return tuple(values)


def _dump(entry: Entry) -> tuple:
    chunks, rec, analysed = entry
    api = tuple(
        (
            _api_values(e),
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


# Where ApiEntry keeps its parameters and examples (stored apart, as tuples of their own).
_API_FIELDS = tuple(f.name for f in dataclasses.fields(ApiEntry))
_PARAMETERS, _EXAMPLES = _API_FIELDS.index("parameters"), _API_FIELDS.index("examples")


def _load(stored: tuple, lean: bool = False) -> Entry:
    chunks, (rows, refs, page, api, code), analysed = stored
    made = [Chunk(*c) for c in chunks]
    if lean:  # the text only analysing needs, dropped before anyone holds the chunk
        for chunk in made:
            chunk.__dict__["search_text"] = ""  # (frozen: no setattr; a new tuple cost more)
    entries = []
    for fields, params, examples, row in api:
        # Made in one call: dataclasses.replace of 5,409 entries cost 0.1 s of a rebuild.
        values = list(fields)
        values[_PARAMETERS] = tuple(Parameter(*p) for p in params)
        values[_EXAMPLES] = tuple(Example(*x) for x in examples)
        entries.append((ApiEntry(*values), row))
    return (
        made,
        FileRecords(rows, FileRefs(*refs), page, tuple(entries), code),
        list(analysed),
    )


# An entry as it is stored and sent by a worker process: lz4(marshal(entry)), the length of the
# marshal, the CRC-32 of the compressed bytes. Workers send this, not a pickle of the entry:
# win32's entries are 1.5 GB of pickle through the pipes, 0.3 GB packed, and the main process
# unpickled them in ~12 s of CPU (decompress + marshal + `_load`: ~7 s) beside compressing them
# again for the cache (~7 s, now none).
Packed = tuple[bytes, int, int]


def _packed(raw: bytes) -> Packed:
    payload = _codec().compress(raw, asbytes=True)
    return payload, len(raw), zlib.crc32(payload)


def pack(entry: Entry) -> Packed:
    """`entry` as the cache stores it."""
    return _packed(marshal.dumps(_dump(entry)))


def unpack(packed: Packed, lean: bool = False) -> Entry:
    """The entry `pack` was given (`lean`: as `ParseCache.get` gives it)."""
    payload, raw, _crc = packed
    return _load(marshal.loads(_codec().decompress(payload, raw, asbytes=True)), lean)


# The file: MAGIC, then one record per entry: the key's 32 sha256 bytes, the payload's length,
# the length of its marshal and the payload's CRC-32 (uint32, little-endian), then the payload,
# lz4(marshal(entry)). The CRC finds a damaged record (zlib's own checksum did before). Records
# are read one at a time (an index of offsets is all that is kept in memory), so a build never
# holds the whole cache or a marshal of it: win32's cache is larger than the memory a build may
# use.
MAGIC = b"docsmcp-parsed\0" + bytes([CACHE_FORMAT])
_HEAD = struct.Struct("<32sIII")
# LZ4 expands at most ~255 times: a record claiming more is damaged (never allocated).
_MAX_RATIO = 256


class ParseCache:
    """The parse cache of one output bundle: `DIR/<output key>-<code fingerprint>.marshal`."""

    def __init__(self, directory: Path, key: str) -> None:
        self.key = key
        self.path = directory / f"{key}-{code_fingerprint()}.marshal"
        self._file: BinaryIO | None = None
        self._new: BinaryIO | None = None
        # key -> (offset, length, marshal length, crc)
        self.stored: dict[str, tuple[int, int, int, int]] = self._read()
        if self.stored:
            touch(self.path)  # used: the last to be evicted
        # key -> (file, offset, length, marshal length, crc) of its record's payload, in use
        # order; new entries go to a side file until `save`.
        self.used: dict[str, tuple[BinaryIO, int, int, int, int]] = {}
        self.hits = 0
        self._dirty = False  # a record was replaced (put_extra): the file must be rewritten
        self._no_room = False  # the side file could not be written: new entries are not kept

    def _read(self) -> dict[str, tuple[int, int, int, int]]:
        if not self.path.exists():
            return {}
        index: dict[str, tuple[int, int, int, int]] = {}
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
                digest, length, raw, crc = _HEAD.unpack(head)
                at += _HEAD.size
                if at + length > size:
                    raise ValueError("truncated")
                if raw > _MAX_RATIO * length + 64:
                    raise ValueError("damaged")
                index[digest.hex()] = (at, length, raw, crc)
                at += length
                f.seek(at)
            return index
        except (OSError, ValueError) as exc:
            self.close()
            warn(f"ignoring the parse cache {self.path} ({exc}); parsing every file")
            return {}

    def has(self, key: str) -> bool:
        """Whether `get` will find an entry under `key`: it is stored and its record reads back
        whole (CRC-32), checked without loading it, so a build can load each entry only when
        its turn comes (loading them all first held every chunk of a win32 rebuild at once:
        ~2 GB). A damaged record is forgotten."""
        where = self.stored.get(key)
        if where is None or self._file is None:
            return False
        try:
            self._file.seek(where[0])
            whole = zlib.crc32(self._file.read(where[1])) == where[3]
        except OSError:
            whole = False
        if not whole:
            del self.stored[key]
        return whole

    def get(self, key: str, lean: bool = False) -> Entry | None:
        """The entry stored under `key`, else None (a damaged entry is then forgotten);
        `lean`: its chunks without search text (a build without embeddings needs only their
        analysed fields)."""
        where = self.stored.get(key)
        raw = self._record(where)
        if raw is None:
            self.stored.pop(key, None)
            return None
        try:
            entry = _load(marshal.loads(raw), lean)
        except (TypeError, ValueError, EOFError):
            self.stored.pop(key, None)
            return None  # a damaged entry: parse the file again
        self.used[key] = (self._file, *where)
        self.hits += 1
        return entry

    def _record(self, where: tuple[int, int, int, int] | None) -> bytes | None:
        """The decompressed record at `where` (offset, size, raw size, CRC-32) of the cache
        file, else None: absent, unreadable or damaged."""
        if where is None or self._file is None:
            return None
        try:
            self._file.seek(where[0])
            payload = self._file.read(where[1])
            if zlib.crc32(payload) != where[3]:
                return None
            return _codec().decompress(payload, where[2], asbytes=True)
        except (OSError, ValueError, pa.ArrowException):
            return None

    def get_extra(self, key: str) -> object:
        """A record of plain data stored with `put_extra` (known_files.py), else None; kept by
        `save` unless replaced."""
        where = self.stored.get(key)
        raw = self._record(where)
        if raw is None:
            return None
        try:
            value = marshal.loads(raw)
        except (TypeError, ValueError, EOFError):
            return None
        self.used[key] = (self._file, *where)
        return value

    def put_extra(self, key: str, value: object) -> None:
        """Store plain data (marshal-able) under `key`, replacing what was there."""
        self.put(key, _packed(marshal.dumps(value)))
        self._dirty = True

    def put(self, key: str, packed: Packed) -> None:
        """Store an entry as `pack` made it (a worker process packs what it parses)."""
        payload, raw, crc = packed
        if self._no_room:
            return
        try:
            if self._new is None:
                # closed by `save`/`close`: it lives across `put` calls
                self._new = tempfile.TemporaryFile(dir=self._tmp_dir())  # noqa: SIM115
            offset = self._new.seek(0, os.SEEK_END)
            self._new.write(payload)
        except OSError as exc:
            self._drop_new(exc)
            return
        self.used[key] = (self._new, offset, len(payload), raw, crc)

    def _drop_new(self, exc: OSError) -> None:
        """No room for new entries (a full disk): what went to the side file may be lost in
        its buffer, so none of it is kept; files parsed now are parsed again next time. The
        cache is optional: one warning, and the build goes on."""
        warn(f"cannot write the parse cache {self.path} ({exc.strerror or exc})")
        self._no_room = True
        new, self._new = self._new, None
        if new is not None:
            self.used = {k: v for k, v in self.used.items() if v[0] is not new}
            with contextlib.suppress(OSError):
                new.close()

    def _tmp_dir(self) -> str | None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return str(self.path.parent)
        except OSError:
            return None

    def close(self) -> None:
        for f in (self._file, self._new):
            if f is not None:
                with contextlib.suppress(OSError):  # a side file that cannot flush: not kept
                    f.close()
        self._file = self._new = None

    def save(self) -> None:
        """Write the entries this build used, if they differ from what was read."""
        try:
            if self._new is not None:
                try:  # what is still buffered must reach the side file before it is copied
                    self._new.flush()
                except OSError as exc:
                    self._drop_new(exc)
            if self._dirty or self.used.keys() != self.stored.keys():
                self._write()
        finally:
            self.close()

    def _write(self) -> None:
        tmp = self.path.with_name(f".{self.path.name}.tmp-{os.getpid()}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with tmp.open("wb") as out:
                out.write(MAGIC)
                for key, (source, offset, length, raw, crc) in self.used.items():
                    source.seek(offset)
                    out.write(_HEAD.pack(bytes.fromhex(key), length, raw, crc))
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
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)  # (a full disk: do not leave it fuller)
            if not self._no_room:  # (said already)
                warn(f"cannot write the parse cache {self.path} ({exc.strerror or exc})")
