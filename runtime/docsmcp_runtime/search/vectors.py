"""Vector search over the bundle's float16 matrix: exact, or IVF when the bundle has lists."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import BundleError
from ..format import Q8_ARRAYS, VECTOR_ARRAYS, Embedding
from ..format.quantise import error_bound
from .half import widen
from .selection import topk
from .workspace import RELEASE_BYTES, WorkspacePool

if TYPE_CHECKING:
    from ..bundle.reader import Bundle

# float32 bytes converted at once from the stored float16 (or int8) matrix: small enough that a
# search holds no full-size copy (a million 256-d vectors are 1 GB as float32) and that the block
# the cast writes is still in the core's L2 cache when the product reads it, large enough that
# the per-block overhead is noise. Measured on this machine (4 MiB L2 per core), CPU of 50 MB of
# vectors at 64/384/1536 dims: 512 KiB blocks take 0.6-0.65x the time of 4 MiB ones (float16)
# and 0.7-0.9x (int8); 256 KiB is within 10 % of it. A row's similarity does not depend on the
# block it falls in (each is its own dot product), so results are bit-identical.
BLOCK_BYTES = 512 << 10
# An exact (non-IVF) matrix whose float32 form is at most this size keeps that copy, made on
# first use: widening every row on every query cost speakeasy-sdks (11k x 256) 6 ms of its
# 8 ms static-hybrid search, and the copy is 11 MB. Larger matrices are searched in blocks.
DENSE_MAX_BYTES = 16 << 20
# An IVF search with int8 vectors (format/quantise.py) rescores this many times `top` of its
# best int8 candidates from the float16 matrix first, more only when the int8 error bound says
# a row outside them could still rank: results are exactly the float16 search's.
RESCORE_FACTOR = 2


def _einsum_matvec(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    return np.einsum("ij,j->i", matrix, query)


def _vecdot_matvec(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    return np.vecdot(matrix, query)  # type: ignore[attr-defined]


# One dot product per row, never gemv: BLAS gemv sums a row differently by where it falls in
# the block (its result for a row changed with the rows around it, so an IVF list and the
# whole matrix would disagree), and multi-threaded gemv measured ten times slower under load.
# numpy >= 2's vecdot calls BLAS's dot once per contiguous row, which gives a row the same
# bits wherever it is (checked on gathered rows, slices and single rows), at 0.66x einsum's
# CPU (11k x 256 float32: 0.154 against 0.232 ms); older numpy keeps einsum's own loop.
_matvec = _vecdot_matvec if hasattr(np, "vecdot") else _einsum_matvec


def block_rows(dimensions: int) -> int:
    """Rows of a float32 block of BLOCK_BYTES (at least one)."""
    return max(1, BLOCK_BYTES // (4 * max(1, dimensions)))


def similarities(
    matrix: np.ndarray, query: np.ndarray, index: np.ndarray | None = None, step: int = 0
) -> np.ndarray:
    """float32 dot products of `query` with the float16 rows of `matrix` (all rows, or the
    rows `index` names, in that order), converting `step` rows (default: block_rows) at a time."""
    n = len(matrix) if index is None else len(index)
    out = np.empty(n, dtype=np.float32)
    step = step or block_rows(matrix.shape[1])
    shape = (min(step, n), matrix.shape[1])
    buffer, scratch = np.empty(shape, dtype=np.float32), np.empty(shape, dtype=np.uint32)
    for start in range(0, n, step):
        stop = min(n, start + step)
        rows = matrix[start:stop] if index is None else matrix[index[start:stop]]
        block = widen(rows, buffer[: stop - start], scratch[: stop - start])
        out[start:stop] = _matvec(block, query)
    return out


def widened(matrix: np.ndarray) -> np.ndarray:
    """`matrix` (float16 rows) as float32, widened block by block like `similarities`."""
    out = np.empty(matrix.shape, dtype=np.float32)
    step = block_rows(matrix.shape[1])
    scratch = np.empty((min(step, len(matrix)), matrix.shape[1]), dtype=np.uint32)
    for start in range(0, len(matrix), step):
        stop = min(len(matrix), start + step)
        widen(matrix[start:stop], out[start:stop], scratch[: stop - start])
    return out


def _read_exactly(fd: int, buffer: memoryview, offset: int) -> None:
    while len(buffer):
        got = os.preadv(fd, [buffer], offset)
        if got <= 0:
            raise OSError(f"vectors file ends before byte {offset}")
        buffer, offset = buffer[got:], offset + got


def run_similarities(
    path: Path,
    dims: int,
    runs: list[tuple[int, int]],
    query: np.ndarray,
    step: int = 0,
) -> np.ndarray:
    """`similarities` of the float16 rows in `runs` ([start, end) row ranges, in order) of the
    raw matrix file at `path`, read with pread a block at a time rather than through the memory
    map: a query's probed lists then pass through the page cache without becoming part of the
    process (a million vectors are 512 MB; mapped, every list ever probed stays resident)."""
    n = sum(b - a for a, b in runs)
    out = np.empty(n, dtype=np.float32)
    step = step or block_rows(dims)
    shape = (min(step, n), dims)
    half = np.empty(shape, dtype=np.float16)
    buffer, scratch = np.empty(shape, dtype=np.float32), np.empty(shape, dtype=np.uint32)
    raw = memoryview(half).cast("B")
    row_bytes = dims * 2
    filled = done = 0
    with open(path, "rb", buffering=0) as fh:
        for a, b in runs:
            while a < b:
                take = min(b - a, len(half) - filled)
                view = raw[filled * row_bytes : (filled + take) * row_bytes]
                _read_exactly(fh.fileno(), view, a * row_bytes)
                filled, a = filled + take, a + take
                if filled == len(half) or done + filled == n:
                    block = widen(half[:filled], buffer[:filled], scratch[:filled])
                    out[done : done + filled] = _matvec(block, query)
                    done, filled = done + filled, 0
    return out


def _runs(stored: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) ranges of consecutive values of an ascending array of row numbers."""
    breaks = np.flatnonzero(np.diff(stored) != 1) + 1
    firsts = stored[np.concatenate([[0], breaks])]
    lasts = stored[np.concatenate([breaks - 1, [len(stored) - 1]])] + 1
    return list(zip(firsts.tolist(), lasts.tolist(), strict=True))


def read_runs(path: Path, runs: list[tuple[int, int]], row_bytes: int, out: np.ndarray) -> None:
    """Rows `runs` ([start, end) ranges) of the raw matrix file at `path` into `out` (a
    contiguous array of their bytes), one pread per run."""
    raw = memoryview(out.reshape(-1).view(np.uint8))
    done = 0
    with open(path, "rb", buffering=0) as fh:
        fd = fh.fileno()
        for a, b in runs:
            size = (b - a) * row_bytes
            view = raw[done : done + size]
            # One call per run (a search reads hundreds); a short read is finished by the loop.
            if os.preadv(fd, [view], a * row_bytes) != size:
                _read_exactly(fd, view, a * row_bytes)
            done += size


def _ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The concatenated ranges [starts[i], ends[i]) without a Python loop (251 lists a query)."""
    lengths = ends - starts
    first = np.cumsum(lengths) - lengths  # where each range begins in the result
    return np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(starts - first, lengths)


def q8_similarities(
    q8: np.ndarray, scaled: np.ndarray, index: np.ndarray | None = None
) -> np.ndarray:
    """float32 dot products of `scaled` (query * steps) with the int8 rows of `q8` (all, or
    those `index` names), cast a block at a time (a cast is a quarter of widen's CPU time;
    slices instead of gathers when every row is wanted save another quarter)."""
    n = len(q8) if index is None else len(index)
    out = np.empty(n, dtype=np.float32)
    step = block_rows(q8.shape[1])
    buffer = np.empty((min(step, n), q8.shape[1]), dtype=np.float32)
    for start in range(0, n, step):
        stop = min(n, start + step)
        block = buffer[: stop - start]
        rows = q8[start:stop] if index is None else q8[index[start:stop]]
        np.copyto(block, rows, casting="unsafe")
        out[start:stop] = _matvec(block, scaled)
    return out


class VectorIndex:
    def __init__(
        self,
        arrays: dict[str, np.ndarray],
        spec: Embedding,
        source: Path | None = None,
        dense_max_bytes: int = DENSE_MAX_BYTES,
        probe: int | None = None,
    ) -> None:
        """`source`: the vectors file itself; IVF searches then read their lists with pread
        (run_similarities) instead of through the mapped `arrays["vectors"]`.
        `dense_max_bytes`: an exact matrix up to this size as float32 is kept as such.
        `probe`: lists an IVF search reads instead of the bundle's `index.probe` (at most all)."""
        self.vectors = arrays["vectors"]
        self.dense_max_bytes = dense_max_bytes
        self.source = source
        self.ivf = spec.index.ivf
        self.probe = spec.index.probe if probe is None else min(probe, spec.index.lists)
        self.rows = arrays.get("vector_rows")  # chunk row of each vector row (IVF order)
        self.centroids = arrays.get("ivf_centroids")
        self.offsets = arrays.get("ivf_offsets")
        self.q8_scale = arrays.get("vectors_q8_scale")
        self.rescore_factor = RESCORE_FACTOR
        self._work = WorkspacePool(0)  # buffers of the int8 rows read per search
        q8_file = VECTOR_ARRAYS["vectors_q8"].file
        # The int8 path needs the file to pread and both arrays (checked as a pair at open).
        self.q8_source = (
            source.with_name(q8_file)
            if source is not None and all(k in arrays for k in Q8_ARRAYS)
            else None
        )
        self._inverse: np.ndarray | None = None
        self._dense: np.ndarray | None = None
        self._lock = threading.Lock()

    def search(
        self, query: np.ndarray, mask: np.ndarray, floor: float, top: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """(rows, sims): chunk rows in `mask` with similarity ≥ floor, best first, ties by row."""
        if self.ivf and self.q8_source is not None:
            rows, sims = self._ivf_q8(query, mask, floor, top)
        elif self.ivf:
            rows, sims = self._ivf(query)
            keep = (sims >= floor) & mask[rows]
            rows, sims = rows[keep], sims[keep]
        else:
            dense = self._dense_copy()
            all_sims = similarities(self.vectors, query) if dense is None else _matvec(dense, query)
            rows = np.flatnonzero((all_sims >= floor) & mask)
            sims = all_sims[rows]
        return topk(rows, sims, top)

    def _dense_copy(self) -> np.ndarray | None:
        """The float32 copy of a small exact matrix (`dense_max_bytes`), else None."""
        if self._dense is None and 4 * self.vectors.size <= self.dense_max_bytes:
            with self._lock:
                if self._dense is None:
                    self._dense = widened(self.vectors)
        return self._dense

    def _probed(self, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """[start, end) stored rows of the `probe` lists whose centres are nearest, in order."""
        assert self.centroids is not None and self.offsets is not None
        lists = np.sort(np.argsort(-_matvec(self.centroids, query), kind="stable")[: self.probe])
        return self.offsets[lists].astype(np.int64), self.offsets[lists + 1].astype(np.int64)

    def _ivf_q8(
        self, query: np.ndarray, mask: np.ndarray, floor: float, top: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """The probed rows in `mask` with similarity ≥ floor, with their float16 similarity:
        every row that can be among the `top` best, chosen by int8 scores (bundle-spec.md,
        *Quantised vectors*). A row left out scores at most its int8 score + the error bound,
        which is below the `top`-th best rescored similarity (or the floor)."""
        assert self.rows is not None and self.q8_scale is not None and self.q8_source
        starts, ends = self._probed(query)
        runs = [(a, b) for a, b in zip(starts.tolist(), ends.tolist(), strict=True) if b > a]
        if not runs:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        index = _ranges(starts, ends)
        rows = np.asarray(self.rows[index], dtype=np.int64)
        scale = np.asarray(self.q8_scale, dtype=np.float32)
        dims = self.vectors.shape[1]
        # Only the rows the filters keep are scored.
        where = np.flatnonzero(mask[rows])
        with self._work.lease() as work:
            q8 = work.buffer("q8", len(index) * dims, np.int8)
            try:
                read_runs(self.q8_source, runs, dims, q8)
            except OSError as exc:
                raise BundleError(f"{self.q8_source}: unreadable ({exc})") from None
            every = len(where) == len(index)  # no filter removed a probed row
            approx = q8_similarities(
                q8.reshape(len(index), dims), query * scale, None if every else where
            )
        bound = error_bound(query, scale)
        take = max(1, self.rescore_factor * top)
        while True:
            if take >= len(where):
                chosen = np.arange(len(where))
                rest = -np.inf
            else:
                part = np.argpartition(approx, len(approx) - take)
                chosen, rest = part[len(approx) - take :], float(np.max(approx[part[:-take]]))
            positions = np.sort(where[chosen])
            sims = self._exact(index[positions], query)
            above = sims[sims >= floor]
            cut = float(floor)
            if len(above) >= top:
                cut = max(cut, float(np.partition(above, len(above) - top)[len(above) - top]))
            if rest + bound < cut or take >= len(where):
                break
            take *= 4
        keep = sims >= floor
        return rows[positions[keep]], sims[keep]

    def _exact(self, stored: np.ndarray, query: np.ndarray) -> np.ndarray:
        """float16 similarities of these stored rows (ascending), read by pread in runs."""
        return similarities(self._read(stored), query)

    def _read(self, stored: np.ndarray) -> np.ndarray:
        """The float16 rows at these stored positions (ascending), read with pread: through
        the mapping, each row read made its neighbourhood resident (the page cache's large
        folios: ~250 MB for one million-chunk search)."""
        dims = self.vectors.shape[1]
        out = np.empty((len(stored), dims), dtype=np.float16)
        if not len(stored):
            return out
        assert self.source is not None
        try:
            read_runs(self.source, _runs(stored), dims * 2, out)
        except OSError as exc:
            raise BundleError(f"{self.source}: unreadable ({exc})") from None
        return out

    def _ivf(self, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        assert self.centroids is not None and self.offsets is not None and self.rows is not None
        starts, ends = self._probed(query)
        if not int((ends - starts).sum()):
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        # The probed lists' rows gathered and converted a block at a time, instead of a Python
        # loop over lists or one float32 copy of every probed vector.
        index = np.concatenate([np.arange(a, b) for a, b in zip(starts, ends, strict=True)])
        if self.source is not None:
            runs = [(a, b) for a, b in zip(starts.tolist(), ends.tolist(), strict=True) if b > a]
            try:
                sims = run_similarities(self.source, self.vectors.shape[1], runs, query)
            except OSError as exc:
                raise BundleError(f"{self.source}: unreadable ({exc})") from None
        else:
            sims = similarities(self.vectors, query, index)
        return np.asarray(self.rows[index], dtype=np.int64), sims

    def vectors_of(self, rows: np.ndarray) -> np.ndarray:
        """float32 stored vectors of these chunk rows (for collapsing near-identical variants)."""
        where = rows if self.rows is None else self._row_index()[rows]
        if self._dense is not None:  # the float32 copy holds the same values, widened once
            return self._dense[where]
        if self.source is None or not len(where) or self.vectors.nbytes < RELEASE_BYTES:
            return np.asarray(self.vectors[where], dtype=np.float32)
        # A large matrix with pread, like the lists (see _read).
        unique, inverse = np.unique(np.asarray(where, dtype=np.int64), return_inverse=True)
        return np.asarray(self._read(unique)[inverse.reshape(-1)], dtype=np.float32)

    def _row_index(self) -> np.ndarray:
        assert self.rows is not None
        with self._lock:
            if self._inverse is None:
                inverse = np.empty(len(self.rows), dtype=np.int64)
                inverse[np.asarray(self.rows, dtype=np.int64)] = np.arange(len(self.rows))
                self._inverse = inverse
        return self._inverse


def vectors_file(bundle: Bundle) -> Path | None:
    """The bundle's vectors file, for reading IVF lists with pread (None when it has none)."""
    name = VECTOR_ARRAYS["vectors"].file
    return bundle.path / name if name in bundle.metadata.files else None
