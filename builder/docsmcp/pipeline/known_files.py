"""Files known unchanged since the last build, so a rebuild neither reads nor hashes them.

A rebuild of speakeasy-sdks after editing one page spent ~0.4 s of CPU reading, decoding,
checking and configuring 4,920 files (frontmatter, manifests, includes) only to compute their
parse-cache keys and find them in the cache. Here each file's stat signature (device, inode,
size, mtime and ctime in nanoseconds) is recorded with its parse-cache key and what the corpus
needs of it (its `SourceFile` without text, its UTF-8 size). On the next build a file whose
signature and governing manifest are unchanged, and whose cache entry is there, is taken as
it was without being opened. The content hash stays the key of the parse cache: the stat only
says which key a file still has.

Safe because:
- the stat is taken before the file is read: a write after it changes the signature (ctime
  changes on every write and cannot be set back, unlike mtime, so a file edited and given its
  old mtime and size is still seen; tested);
- a file changed within the timestamps' granularity of being read ("racy", as git calls it:
  mtime or ctime less than `RACY_NS` before the stat) is not recorded, so it is read again;
- only plain files qualify: no include directive (their text depends on other files), no
  problem reported (problems are reported on every build), no PDF or llms-full.txt page;
- the docs folder and source roots are part of the record; the manifests through the governing
  manifest's digest; the code through the parse cache's code fingerprint.
On Windows `st_ctime` is the creation time: there a file rewritten with its old size and mtime
would be missed (`--no-cache` reads everything).

The record lives in the parse cache file of the bundle (one more record under a reserved key),
so it is bounded, evicted and cleaned with it (`docsmcp cache info|clean`, kind `parsed`).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.model.source import Manifest, SourceFile, Strategy
from docsmcp.pipeline.parse_cache import ParseCache
from docsmcp.sources.formats.markdown import link_titles
from docsmcp.sources.inclusion.includes import has_directive
from docsmcp.sources.sites import ref_pages, router_pages

# A file whose mtime or ctime is this close to the moment it was seen may change again without
# its signature changing (coarse timestamps: 2 s on FAT): it is read on the next build too.
RACY_NS = 2_000_000_000
# The reserved record of the parse cache holding this module's data.
RECORD = hashlib.sha256(b"docsmcp known files 2").hexdigest()

Signature = tuple[int, int, int, int, int]


def signature(st: os.stat_result) -> Signature:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@dataclass(frozen=True)
class Known:
    key: str  # the file's parse-cache key (parse_cache.file_key)
    nbytes: int  # UTF-8 bytes of its text (the bundle's corpus_bytes)


class KnownFiles:
    """What the last build recorded, and what this one sees (`seen`) and takes (`taken`)."""

    def __init__(self, cache: ParseCache, docs_dir: Path, roots: Sequence[Path]) -> None:
        self.cache = cache
        self.docs_dir = docs_dir
        self.where = (os.path.realpath(docs_dir), tuple(str(r) for r in roots))
        self.recorded: dict[str, tuple] = {}
        stored = cache.get_extra(RECORD)
        if isinstance(stored, tuple) and len(stored) == 2 and stored[0] == self.where:
            self.recorded = stored[1] if isinstance(stored[1], dict) else {}
        self.seen: dict[str, tuple[Signature, int, str]] = {}  # path -> (sig, seen at, manifest)
        self.taken: dict[str, Known] = {}
        self._digests: dict[int, str] = {}

    def _manifest_digest(self, manifest: Manifest | None) -> str:
        if manifest is None:
            return ""
        digest = self._digests.get(id(manifest))
        if digest is None:
            digest = hashlib.sha256(repr(manifest).encode()).hexdigest()
            self._digests[id(manifest)] = digest
        return digest

    def reuse(self, path: str, manifest: Manifest | None) -> SourceFile | None:
        """The file at `path` (relative to the docs folder) as the last build read it, without
        its text, if it is unchanged; else None (and it is read). Called before reading it."""
        try:
            st = os.stat(os.path.join(self.docs_dir, path))
        except OSError:
            return None  # reading it reports why
        sig, digest = signature(st), self._manifest_digest(manifest)
        self.seen[path] = (sig, time.time_ns(), digest)
        record = self.recorded.get(path)
        if record is None:
            return None
        try:
            old_sig, old_digest, key, nbytes, values = record
            if tuple(old_sig) != sig or old_digest != digest or key not in self.cache.stored:
                return None
            (strategy, metadata, title, manifest_path, frontmatter, labels) = values
            source = SourceFile(
                path=path,
                text="",
                body="",
                strategy=Strategy(*strategy),
                metadata=tuple(tuple(kv) for kv in metadata),
                title=title,
                manifest=manifest_path,
                frontmatter=frontmatter,
                labels=tuple(tuple(kv) for kv in labels),
            )
        except (TypeError, ValueError):
            return None  # a damaged record: read the file
        self.taken[path] = Known(key, nbytes)
        return source

    def forget(self) -> None:
        """Drop the record (an entry it names could not be loaded): the next build reads all."""
        self.recorded = {}
        self.cache.put_extra(RECORD, None)

    def record(
        self, files: Sequence[SourceFile], keys: Sequence[str], nbytes: Sequence[int], bad: set
    ) -> None:
        """Store what this build read or took, for the next (in the parse cache, saved with
        it). `files` still hold their text where they were read; `bad`: paths with problems."""
        out: dict[str, tuple] = {}
        # (another page's text: read on every build)
        shown = router_pages.shown(files) | ref_pages.shown(files)
        for sf, key, size in zip(files, keys, nbytes, strict=True):
            seen = self.seen.get(sf.path)
            if seen is None or sf.path in bad:
                continue
            sig, at, digest = seen
            if sf.path in shown:
                continue
            if sf.path in self.taken:
                out[sf.path] = self.recorded[sf.path]  # as it was (same signature and key)
                continue
            if max(sig[3], sig[4]) >= at - RACY_NS:
                continue  # racy
            if sf.line_map or sf.page_starts or sf.section_numbers or sf.anchors:
                continue
            if sf.link_titles or link_titles.names_others(sf):  # it shows other pages' titles
                continue
            if has_directive(sf.body):  # last: it reads the whole text
                continue
            strategy = (sf.strategy.chunk_by, sf.strategy.max_chunk_size)
            values = (
                (*strategy, sf.strategy.min_chunk_size),
                sf.metadata,
                sf.title,
                sf.manifest,
                sf.frontmatter,
                sf.labels,
            )
            out[sf.path] = (sig, digest, key, size, values)
        if out != self.recorded:
            self.cache.put_extra(RECORD, (self.where, out))
