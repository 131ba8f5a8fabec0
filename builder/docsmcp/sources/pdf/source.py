"""A PDF in the docs folder as a SourceFile: read inside the source roots, extracted (extract.py),
configured by its manifest like a markdown file, with the document metadata as its title,
description and frontmatter."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from pathlib import Path

from docsmcp.common import limits
from docsmcp.common.limits import MAX_PDF_BYTES, MAX_PDF_PAGES
from docsmcp.model.source import Manifest, Problem, SourceFile
from docsmcp.sources.files import Refused, read_file, shown
from docsmcp.sources.pdf.cached import PdfCache, extract
from docsmcp.sources.pdf.extract import SPLIT_HINT, PdfError, PdfOptions, PdfSummary, frontmatter
from docsmcp.sources.settings import configure_file

log = logging.getLogger(__name__)

# A PDF chunk is at most this many characters unless a manifest sets max_chunk_size: reference
# manuals must not come back as ten-page chunks (the mean hit stays under 2,000 characters).
PDF_MAX_CHUNK_SIZE = 2500


def load_pdf(
    docs_dir: Path,
    path: str,
    manifest: Manifest | None,
    roots: Sequence[Path],
    options: PdfOptions | None,
) -> tuple[SourceFile | None, list[Problem], PdfSummary | None]:
    """The PDF at ``path`` as a SourceFile, its problems, and what the build summary says of it
    (None when it could not be read)."""
    options = options or PdfOptions()
    try:
        data = read_file(docs_dir, path, roots, MAX_PDF_BYTES)
    except Refused as exc:
        return None, [Problem(path, None, f"file {exc}")], None
    except OSError as exc:
        return None, [Problem(path, None, f"cannot read file: {exc.strerror}")], None
    cache = PdfCache(options.cache_dir) if options.cache_dir is not None else None
    hits = cache.hits if cache is not None else 0
    try:
        result = extract(
            data,
            options.workers,
            cache,
            None,
            MAX_PDF_PAGES,
            options.progress,
            shown(path),
            limits.MAX_PDF_TEXT_BYTES,
        )
    except PdfError as exc:
        return None, [Problem(path, None, str(exc))], None
    cached = cache is not None and cache.hits > hits
    summary = PdfSummary(path, result.pages, result.empty_pages, result.outline, cached)
    if not result.text.strip():
        return (
            None,
            [Problem(path, None, "PDF has no text layer (a scan?); OCR it first or leave it out")],
            None,
        )
    size = len(result.text.encode())
    if size > limits.MAX_PDF_TEXT_BYTES:
        message = (
            f"PDF text is {size:,} bytes; at most {limits.MAX_PDF_TEXT_BYTES:,} are allowed per "
            f"PDF; {SPLIT_HINT}"
        )
        return None, [Problem(path, None, message)], None
    where = shown(path)
    if not result.outline:
        log.warning("%s: no outline (bookmarks); headings guessed from the typography", where)
    if result.bad_outline:
        log.warning(
            "%s: %d outline entries ignored (destination missing or out of range)",
            where,
            result.bad_outline,
        )
    if result.empty_pages:
        log.warning(
            "%s: %d of %d pages have no text layer (scanned or blank); their text is not indexed",
            where,
            result.empty_pages,
            result.pages,
        )
    source, problems = configure_file(
        path, result.text, manifest, frontmatter=False, title=result.title
    )
    strategy = source.strategy
    if strategy.max_chunk_size is None:
        strategy = dataclasses.replace(strategy, max_chunk_size=PDF_MAX_CHUNK_SIZE)
    source = dataclasses.replace(
        source,
        strategy=strategy,
        frontmatter=frontmatter(result),
        page_starts=result.page_starts,
        section_numbers=result.section_numbers,
    )
    return source, problems, summary
