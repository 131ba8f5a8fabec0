"""The PDF extraction cache: `read_pdf`'s result by the sha256 of the file and the extractor's
version (`CACHE_FOLDER` under the build's cache root, least recently used files evicted beyond
`CACHE_MAX_BYTES`), so a rebuild reads no PDF twice."""

from __future__ import annotations

import hashlib
import logging
import marshal
import os
import zlib
from pathlib import Path

from docsmcp_runtime.distribution.swap import replace_file

from docsmcp.common.cache import evict, max_bytes
from docsmcp.common.progress import Reporter
from docsmcp.sources.pdf.extract import Extracted, extractor_version, read_pdf

log = logging.getLogger(__name__)

CACHE_FOLDER = "pdf"  # a kind of the cache root (cache.py)
CACHE_MAX_BYTES = max_bytes(CACHE_FOLDER)


class PdfCache:
    """Extractions by content hash, one file each; least recently used beyond a size evicted."""

    def __init__(self, directory: Path, max_bytes: int = CACHE_MAX_BYTES) -> None:
        self.dir = directory / CACHE_FOLDER
        self.max_bytes = max_bytes
        self.hits = 0

    def _path(self, digest: str) -> Path:
        return self.dir / f"{digest}-{extractor_version()}.marshal.z"

    def get(self, digest: str) -> Extracted | None:
        path = self._path(digest)
        try:
            stored = marshal.loads(zlib.decompress(path.read_bytes()))
            result = Extracted(*stored)
            os.utime(path)  # recently used
        except FileNotFoundError:
            return None
        except (OSError, ValueError, EOFError, TypeError, zlib.error) as exc:
            log.warning("ignoring the PDF cache entry %s (%s)", path, exc)
            return None
        self.hits += 1
        return result

    def put(self, digest: str, result: Extracted) -> None:
        path = self._path(digest)
        values = tuple(getattr(result, f) for f in Extracted.__dataclass_fields__)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            replace_file(path, zlib.compress(marshal.dumps(values), 1))
            evict(self.dir, self.max_bytes)  # the new entry too, when it alone is too big
        except OSError as exc:
            log.warning("cannot write the PDF cache %s (%s)", path, exc.strerror or exc)


def extract(
    data: bytes,
    workers: int = 1,
    cache: PdfCache | None = None,
    time_limit: float | None = None,
    max_pages: int | None = None,
    progress: Reporter | None = None,
    name: str = "PDF",
    max_text: int | None = None,
) -> Extracted:
    """`read_pdf`, through the cache when one is given."""
    digest = hashlib.sha256(data).hexdigest()
    if cache is not None:
        hit = cache.get(digest)
        if hit is not None:
            return hit
    result = read_pdf(data, workers, time_limit, max_pages, progress, name, max_text)
    if cache is not None:
        cache.put(digest, result)
    return result
