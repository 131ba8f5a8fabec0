"""MCP resources over one bundle: every page, and every section, is a resource named by a
`docs://` URI.

    docs://{bundle name}/{page path}             the whole page (its sections, in order)
    docs://{bundle name}/{page path}#{anchor}    one section: the chunk `{page path}#{anchor}`

The bundle name is the authority, percent-encoded (every character but ALPHA, DIGIT, `-._~`) and
matched case-insensitively; the page path is percent-encoded per RFC 3986 segment rules (a `pchar`
stays, anything else is %XX of its UTF-8 bytes; `/` separates segments), the anchor per fragment
rules. So a chunk id `docs/my guide/C# tips.md#setup` is the resource
`docs://acme/docs/my%20guide/C%23%20tips.md#setup`. Reading decodes leniently: a URI whose path
is not encoded (or encoded differently) names the same page.

One resource template, `docs://{bundle name}/{+path}` (RFC 6570 reserved expansion, so `path` may
hold `/` and `#anchor`), names the same resources. The prompts embed them and the completions
offer their paths (prompts.py, completions.py).

Nothing is computed at start-up: the page list (O(pages) from the bundle's small columns, no
chunk text) is built on the first call that needs it, and every call is O(pages) at most.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, unquote

import numpy as np

from ..browse.pages import PageIndex
from ..bundle.reader import Bundle
from ..bundle.shown import shown
from ..errors import INVALID_PARAMS, ProtocolError
from ..protocol.cursor import CursorError, cursor_secret, decode_cursor, encode_cursor
from ..protocol.dispatcher import RESOURCE_NOT_FOUND
from ..records import record

SCHEME = "docs"
MIME_TYPE = "text/markdown"
PAGE_SIZE = 100  # resources per resources/list page
PATH = "path"  # the template's variable
MAX_SUGGESTIONS = 5  # closest paths named by a not-found error
# A requested path longer than this is cut before it is compared with the page paths: the
# comparison is quadratic in the lengths, and no real path is that long.
MAX_MATCH_CHARS = 256
# How alike (difflib ratio, 0..1) a path must be to the requested one to be suggested.
MIN_SIMILARITY = 0.5
_RANKED_CANDIDATES = 64

# RFC 3986: pchar = unreserved / pct-encoded / sub-delims / ":" / "@"; fragment adds "/" "?".
# (quote() always keeps ALPHA, DIGIT and "-._~", the unreserved set.)
_SUB_DELIMS = "!$&'()*+,;="
_PATH_SAFE = _SUB_DELIMS + ":@/"
_FRAGMENT_SAFE = _PATH_SAFE + "?"


def invalid(message: str, data: object | None = None) -> ProtocolError:
    return ProtocolError(INVALID_PARAMS, f"Invalid params: {message}", data)


@record
class _Pages:
    """The pages of a bundle, in bundle order (sorted by path)."""

    paths: list[str]
    folded: list[str]  # casefolded paths, for completion
    titles: list[str]
    starts: np.ndarray  # first row of each page
    counts: np.ndarray  # its number of rows (chunks)
    index: dict[str, int]  # path -> page number


class DocsResources:
    """The resources of one bundle (see the module docstring)."""

    def __init__(self, bundle: Bundle, page_index: Callable[[], PageIndex]) -> None:
        self.bundle = bundle
        self._page_index = page_index  # the browse tools' page list (pages.py), shared
        self.name = bundle.metadata.name
        self._authority = quote(self.name, safe="")
        self.template = f"{SCHEME}://{self._authority}/{{+{PATH}}}"
        self._lock = threading.Lock()
        self._built: _Pages | None = None
        self._secret: bytes | None = None

    # -- the page list, built on first use --------------------------------------------------

    def pages(self) -> _Pages:
        with self._lock:
            if self._built is None:
                self._built = self._build()
            return self._built

    def _build(self) -> _Pages:
        pages = self._page_index()
        paths = pages.paths
        return _Pages(
            paths=paths,
            folded=[p.casefold() for p in paths],
            titles=pages.titles,
            starts=pages.first_rows,
            counts=pages.counts,
            index={p: i for i, p in enumerate(paths)},
        )

    def rows(self, page: int) -> range:
        pages = self.pages()
        first = int(pages.starts[page])
        return range(first, first + int(pages.counts[page]))

    def section_ids(self, page: int) -> list[str]:
        rows = self.rows(page)
        ids = self.bundle.chunk_ids(rows)
        return [cid for cid in ids if "#" in cid]

    def cursor_secret(self) -> bytes:
        if self._secret is None:
            self._secret = cursor_secret(self.bundle.bundle_id)
        return self._secret

    # -- URIs -------------------------------------------------------------------------------

    def uri(self, path: str, anchor: str | None = None) -> str:
        """The resource URI of a page, or of one of its sections."""
        uri = f"{SCHEME}://{self._authority}/{quote(path, safe=_PATH_SAFE)}"
        if anchor:
            uri += "#" + quote(anchor, safe=_FRAGMENT_SAFE)
        return uri

    def parse(self, uri: str) -> tuple[str, str | None] | None:
        """(page path, anchor or None) named by a `docs://` URI of this bundle, else None."""
        prefix = f"{SCHEME}://"
        if uri[: len(prefix)].lower() != prefix:
            return None
        authority, slash, rest = uri[len(prefix) :].partition("/")
        if not slash:
            return None
        raw_path, _, raw_anchor = rest.partition("#")
        if "?" in raw_path:
            return None  # these URIs take no query
        try:
            name = unquote(authority, errors="strict")
            path = unquote(raw_path, errors="strict")
            anchor = unquote(raw_anchor, errors="strict")
        except UnicodeDecodeError:
            return None
        if name.casefold() != self.name.casefold() or not path:
            return None
        return path, anchor or None

    # -- what a URI that names nothing most likely meant ------------------------------------

    def not_found(self, uri: str) -> ProtocolError:
        """The error for a URI that names no page: with the URIs of the closest pages."""
        parsed = self.parse(uri)
        if parsed is not None:
            path = parsed[0]
        else:
            _, sep, rest = uri.partition("://")
            rest = rest.partition("/")[2] if sep else uri
            rest = rest.partition("#")[0].partition("?")[0]
            try:
                path = unquote(rest, errors="strict")
            except UnicodeDecodeError:
                path = rest
        return self.missing(uri, [self.uri(p) for p in self.closest_paths(path)])

    def missing(self, uri: str, suggestions: list[str]) -> ProtocolError:
        return ProtocolError(
            RESOURCE_NOT_FOUND,
            "Resource not found",
            {"uri": uri, "closest": suggestions},
        )

    def closest_paths(self, path: str, n: int = MAX_SUGGESTIONS) -> list[str]:
        """The page paths most like `path` (best first; ties in path order)."""
        import difflib  # only on the error path

        pages = self.pages()
        wanted = path[:MAX_MATCH_CHARS].casefold()
        if not wanted:
            return pages.paths[:n]
        # The same file name in another folder ranks first: the usual mistake is the folder.
        # quick_ratio() (a cheap upper bound of ratio()) picks the candidates; the costly
        # ratio() only ranks those, so a not-found stays fast on thousands of similar paths.
        base = wanted.rsplit("/", 1)[-1]
        matcher = difflib.SequenceMatcher(autojunk=False)
        matcher.set_seq2(wanted)
        candidates: list[tuple[float, int]] = []
        for i, fold in enumerate(pages.folded):
            fold = fold[:MAX_MATCH_CHARS]
            same = fold.rsplit("/", 1)[-1] == base
            matcher.set_seq1(fold)
            bound = matcher.quick_ratio()
            if same or bound >= MIN_SIMILARITY:
                candidates.append((-(bound + same), i))
        candidates.sort()
        scored: list[tuple[float, int]] = []
        for _, i in candidates[:_RANKED_CANDIDATES]:
            fold = pages.folded[i][:MAX_MATCH_CHARS]
            same = fold.rsplit("/", 1)[-1] == base
            matcher.set_seq1(fold)
            ratio = matcher.ratio()
            if same or ratio >= MIN_SIMILARITY:
                scored.append((-(ratio + same), i))
        scored.sort()
        return [pages.paths[i] for _, i in scored[:n]]

    def section_uris(self, page: int, anchor: str) -> list[str]:
        """The page itself, then its sections whose anchors are most like `anchor`."""
        import difflib

        path = self.pages().paths[page]
        anchors = [cid.partition("#")[2] for cid in self.section_ids(page)]
        close = difflib.get_close_matches(
            anchor[:MAX_MATCH_CHARS], anchors, n=MAX_SUGGESTIONS - 1, cutoff=MIN_SIMILARITY
        )
        if not close:
            close = anchors[: MAX_SUGGESTIONS - 1]
        return [self.uri(path)] + [self.uri(path, a) for a in close]

    # -- resources/list, resources/templates/list, resources/read ----------------------------

    def list_resources(self, cursor: str | None) -> dict:
        pages = self.pages()
        total = len(pages.paths)
        bundle_id = self.bundle.bundle_id
        offset = 0
        if cursor is not None:
            try:
                offset = decode_cursor(
                    self.cursor_secret(), bundle_id, "resources/list", {}, cursor, max_offset=total
                )
            except CursorError:
                raise invalid(
                    "invalid cursor (altered, expired, or from another server or bundle); "
                    "list resources again without a cursor"
                ) from None
        end = min(offset + PAGE_SIZE, total)
        result: dict[str, Any] = {"resources": [self._resource(i) for i in range(offset, end)]}
        if end < total:
            result["nextCursor"] = encode_cursor(
                self.cursor_secret(), bundle_id, "resources/list", {}, end
            )
        return result

    def _resource(self, page: int) -> dict:
        pages = self.pages()
        path = pages.paths[page]
        count = int(pages.counts[page])
        meta = self.bundle.chunk_meta(int(pages.starts[page]))
        description = f"{count} section{'s' if count != 1 else ''}"
        if meta:
            description += " (" + ", ".join(f"{k}: {v}" for k, v in sorted(meta.items())) + ")"
        return {
            "uri": self.uri(path),
            "name": path,
            "title": pages.titles[page],
            "description": f"Documentation page, {description}.",
            "mimeType": MIME_TYPE,
        }

    def list_resource_templates(self) -> dict:
        return {
            "resourceTemplates": [
                {
                    "uriTemplate": self.template,
                    "name": "docs-page",
                    "title": f"{self.name} documentation page or section",
                    "description": (
                        "A page of the documentation by its path (as in search_docs hits' "
                        "filepath), or one section by its chunk_id (path#anchor). Reading a page "
                        "returns its whole markdown; a section returns that section only."
                    ),
                    "mimeType": MIME_TYPE,
                }
            ]
        }

    def read_resource(self, uri: str) -> dict:
        parsed = self.parse(uri)
        if parsed is None:
            raise self.not_found(uri)
        path, anchor = parsed
        page = self.pages().index.get(path)
        if page is None:
            raise self.not_found(uri)
        rows = self.rows(page)
        bundle = self.bundle
        if anchor is None:
            text = "\n\n".join(shown(bundle.text(r)) for r in rows)
        else:
            row = bundle.row_of(f"{path}#{anchor}")
            if row is None:  # the site's own anchor of a nested section
                row = bundle.row_of_anchor(f"{path}#{anchor}")
            if row is None or row not in rows:
                raise self.missing(uri, self.section_uris(page, anchor))
            text = shown(bundle.text(row))
        return {"contents": [{"uri": self.uri(path, anchor), "mimeType": MIME_TYPE, "text": text}]}
