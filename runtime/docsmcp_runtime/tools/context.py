"""What every tool of one bundle reads: the bundle, its searcher, the browse tables (loaded on
their first call), the provenance its hits cite and the key its cursors are signed with."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..browse.pages import PageIndex
from ..browse.sections import SectionIndex
from ..bundle.reader import Bundle
from ..errors import BundleError
from ..protocol.cursor import cursor_secret
from ..search.embedding import EmbeddingError, query_embedder
from ..search.engine import Searcher
from ..search.options import SearchOptions
from .arguments import Pager

if TYPE_CHECKING:
    from ..browse.apiref import ApiRegistry
    from ..browse.examples import CodeIndex
    from ..search.rerank import ChatReranker

log = logging.getLogger(__name__)

# Results the tools of one server remember (list_sections' listings; each is at most a few
# thousand entries), the oldest dropped first.
REMEMBERED = 64


_UNSET = object()  # (a remembered result may be None)


class Memo:
    """Results remembered by key, at most `most` of them (the oldest dropped first): a bundle
    never changes under a server. HTTP serves calls from several threads."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._items: dict[Hashable, Any] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        value = self._items.get(key, _UNSET)
        if value is _UNSET:
            value = compute()
            with self._lock:
                if len(self._items) >= self.most:
                    self._items.pop(next(iter(self._items)))
                self._items[key] = value
        return value


class DocsContext:
    """One opened bundle as its tools see it."""

    def __init__(self, bundle: Bundle, options: SearchOptions | None = None) -> None:
        self.bundle = bundle
        spec = bundle.metadata.embedding
        embedder = None
        self._degraded_warned = False
        if spec:
            try:
                embedder = query_embedder(spec, bundle.path)
            except EmbeddingError as exc:
                self.warn_degraded(str(exc))
        self.searcher = Searcher(bundle, embedder, options or SearchOptions())
        rerank = (options or SearchOptions()).rerank
        self.reranker: ChatReranker | None = None
        if rerank:  # (--rerank-url: the chat reranker's module is imported then only)
            from ..search.rerank import ChatReranker

            self.reranker = ChatReranker(rerank)
        self.taxonomy = bundle.metadata.taxonomy
        self.expand_references = self.searcher.expand_references  # search_docs' default
        self.max_tokens = self.searcher.max_tokens  # the default of max_tokens (--max-tokens)
        self.secret = cursor_secret(bundle.bundle_id)
        source = bundle.metadata.source
        provenance = {
            "commit": source.commit,
            "commit_date": source.commit_date,
            "version": bundle.metadata.version,
        }
        self.provenance = {k: v for k, v in provenance.items() if v is not None}
        self.memo = Memo(REMEMBERED)

    def warn_degraded(self, reason: str) -> None:
        if not self._degraded_warned:
            self._degraded_warned = True
            log.warning("vector search unavailable (%s); searching full-text only", reason)

    def pager(self, tool: str, binding: dict) -> Pager:
        return Pager(self.secret, self.bundle.bundle_id, tool, binding)

    # -- tables, loaded on first use -----------------------------------------------------------

    def warm(self) -> None:
        """Load now what searches load on first use (before `--workers` fork, so every worker
        shares it): the chunk text cache, the section table, and the rescoring model, whose
        loading thread must not be running at the fork (a worker would inherit its lock but
        not the thread, and wait for it forever); a worker then shares the loaded session."""
        self.bundle.warm()
        _ = self.sections_or_none
        if self.searcher.rescorer is not None:
            self.searcher.rescorer.warm()

    @cached_property
    def pages(self) -> PageIndex:
        return PageIndex(self.bundle)

    @cached_property
    def sections(self) -> SectionIndex:
        return SectionIndex(self.bundle)

    # The API registry and code index serve their own tools only: imported on first use.
    @cached_property
    def api(self) -> ApiRegistry:
        from ..browse.apiref import ApiRegistry

        return ApiRegistry(self.bundle)

    @cached_property
    def code(self) -> CodeIndex:
        from ..browse.examples import CodeIndex

        return CodeIndex(self.bundle)

    @cached_property
    def sections_or_none(self) -> SectionIndex | None:
        try:
            sections = self.sections
            sections.load()
            return sections
        except BundleError as exc:  # search goes on without section ids and references
            log.error("%s", exc)
            return None
