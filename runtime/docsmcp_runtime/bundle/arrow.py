"""pyarrow, imported on first need: a search answers from the memory-mapped arrays and the
display store (display.py), so a server that only searches never pays pyarrow's import (~40 ms
and ~35 MB on the machine that measured it, issue 30). Tools that read a Parquet table (get_doc,
browse tables, whole columns) call `arrow()`."""

from __future__ import annotations

import functools
import os
from types import ModuleType


@functools.cache
def arrow() -> tuple[ModuleType, ModuleType]:
    """(pyarrow, pyarrow.parquet), with Arrow's memory pool chosen on the first call.

    Arrow's default pool (jemalloc or mimalloc) keeps what it freed: decompressing row groups
    for every search grew a speakeasy-sdks server by ~50 MB that the C allocator gives back. A
    user's ARROW_DEFAULT_MEMORY_POOL wins."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if "ARROW_DEFAULT_MEMORY_POOL" not in os.environ:
        pa.set_memory_pool(pa.system_memory_pool())
    return pa, pq
