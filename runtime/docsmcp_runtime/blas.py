"""One BLAS thread for the runtime's processes, set before numpy is first imported.

numpy's OpenBLAS starts a thread per core when it loads: ~100 ms of CPU on every start here (a
shell `search` used 0.29 s of CPU for 0.19 s of wall time), for nothing: searches call BLAS
only for one row's dot product at a time (vectors.py: gemv gave a row different bits by its
place in a block, and multi-threaded gemv was ten times slower), and a server's concurrency is
across requests. Imported first by each entry point (cli.py, http/, the Lambda
handler), never by the package itself: the builder imports this package and may want its
threads. A value the user set wins.
"""

from __future__ import annotations

import os

THREAD_ENVS = ("OPENBLAS_NUM_THREADS",)

for _name in THREAD_ENVS:
    os.environ.setdefault(_name, "1")
