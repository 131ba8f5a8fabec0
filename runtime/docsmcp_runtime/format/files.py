"""The `files` section of `metadata.json`: one entry per bundle file (size, sha256, and dtype and
shape for arrays), read strictly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..records import record
from . import jsonread as j
from .jsonread import MetadataError
from .layout import ARRAY_BY_FILE, MAX_FILES, REQUIRED_FILES, ArraySpec, is_plain_name


@record
class FileEntry:
    """One entry of `files`: size and sha256, plus dtype and shape for raw arrays."""

    bytes: int
    sha256: str
    dtype: str | None = None
    shape: tuple[int, ...] | None = None

    def to_json(self) -> dict:
        out: dict[str, Any] = {}
        if self.dtype is not None:
            out["dtype"] = self.dtype
            out["shape"] = list(self.shape or ())
        out["bytes"] = self.bytes
        out["sha256"] = self.sha256
        return out

    @classmethod
    def from_json(cls, value: object, path: str, array: bool) -> FileEntry:
        data = j.obj(value, path)
        digest = j.field(data, "sha256", path, j.sha256_hex)
        size = j.field(data, "bytes", path, j.integer)
        if not array:
            return cls(size, digest)
        dtype = j.field(data, "dtype", path, j.string)
        shape = j.field(data, "shape", path, _shape)
        return cls(size, digest, dtype, shape)


def _shape(value: object, path: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not 1 <= len(value) <= 2:
        raise MetadataError(path, "expected a list of 1 or 2 integers")
    return tuple(j.integer(v, j.join(path, i)) for i, v in enumerate(value))


def file_entry(name: str, value: object) -> FileEntry:
    """One entry of `files`, with an array's dtype, shape and size checked against each other;
    raises MetadataError."""
    where = j.join("files", name)
    if not is_plain_name(name):
        raise MetadataError("files", f"invalid file name {name!r}")
    spec = ARRAY_BY_FILE.get(name)
    entry = FileEntry.from_json(value, where, array=spec is not None)
    if spec is None:
        return entry
    if entry.dtype not in spec.dtypes():
        allowed = " or ".join(repr(d) for d in spec.dtypes())
        raise MetadataError(where, f"{name} dtype is {entry.dtype!r}, not {allowed}")
    shape = list(entry.shape or ())
    if len(shape) != spec.ndim:
        raise MetadataError(where, f"{name} shape {shape} is not {spec.ndim}-dimensional")
    # Python integers: a hostile shape (2**64) must be refused, not overflow numpy's int64.
    need = math.prod(shape) * np.dtype(entry.dtype).itemsize
    if need != entry.bytes:
        raise MetadataError(
            where,
            f"{name} shape {shape} of {entry.dtype} takes {need} bytes, files says {entry.bytes}",
        )
    return entry


def check_file_count(data: Mapping[str, Any]) -> None:
    if len(data) > MAX_FILES:
        raise MetadataError("files", f"lists {len(data)} files; a bundle has at most {MAX_FILES}")


def narrow_files(files: Mapping[str, FileEntry]) -> list[str]:
    """The array files stored with their narrow dtype (layout.ArraySpec.narrow), sorted."""
    return _stored_as(files, lambda spec: spec.narrow)


def coded_files(files: Mapping[str, FileEntry]) -> list[str]:
    """The array files stored as codes into a table of levels (layout.ArraySpec.codes)."""
    return _stored_as(files, lambda spec: spec.codes)


def _stored_as(
    files: Mapping[str, FileEntry], form: Callable[[ArraySpec], str | None]
) -> list[str]:
    """The array files whose dtype is the one `form` gives their spec (when it gives one)."""
    return sorted(
        name
        for name, entry in files.items()
        if (spec := ARRAY_BY_FILE.get(name)) is not None
        and (dtype := form(spec)) is not None
        and entry.dtype == dtype
    )


def parse_files(data: Mapping[str, Any]) -> dict[str, FileEntry]:
    check_file_count(data)
    out = {name: file_entry(name, entry) for name, entry in data.items()}
    for name in REQUIRED_FILES:
        if name not in out:
            raise MetadataError("files", f"missing {name}")
    return out
