"""MCP resources, resource templates, prompts and completions over an opened bundle.

Every page of the docs is a resource, named by a `docs://` URI:

    docs://{bundle name}/{page path}             the whole page (its sections, in order)
    docs://{bundle name}/{page path}#{anchor}    one section: the chunk `{page path}#{anchor}`

The bundle name is the authority, percent-encoded (every character but ALPHA, DIGIT, `-._~`) and
matched case-insensitively; the page path is percent-encoded per RFC 3986 segment rules (a `pchar`
stays, anything else is %XX of its UTF-8 bytes; `/` separates segments), the anchor per fragment
rules. So a chunk id `docs/my guide/C# tips.md#setup` is the resource
`docs://acme/docs/my%20guide/C%23%20tips.md#setup`. Reading decodes leniently: a URI whose path
is not encoded (or encoded differently) names the same page.

One resource template, `docs://{bundle name}/{+path}` (RFC 6570 reserved expansion, so `path` may
hold `/` and `#anchor`), names the same resources; `completion/complete` completes its `path`.

Two prompts: `search-and-cite` (a question, plus optional taxonomy filters) and `explain-page`
(a page path; the page is embedded in the prompt).

Nothing is computed at start-up: the page list (O(pages) from the bundle's small columns, no
chunk text) is built on the first call that needs it, and every call is O(pages) at most.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

import numpy as np

from ..browse.pages import PageIndex
from ..bundle.reader import Bundle
from ..errors import INVALID_PARAMS, ProtocolError
from ..protocol.dispatcher import RESOURCE_NOT_FOUND
from .cursor import CursorError, cursor_secret, decode_cursor, encode_cursor

SCHEME = "docs"
MIME_TYPE = "text/markdown"
PAGE_SIZE = 100  # resources per resources/list page
MAX_COMPLETIONS = 100  # the spec's cap on completion values
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

SEARCH_PROMPT = "search-and-cite"
EXPLAIN_PROMPT = "explain-page"
_QUESTION = "question"
_PATH = "path"


def _invalid(message: str, data: object | None = None) -> ProtocolError:
    return ProtocolError(INVALID_PARAMS, f"Invalid params: {message}", data)


def _completion(values: list[str]) -> dict:
    return {
        "completion": {
            "values": values[:MAX_COMPLETIONS],
            "total": len(values),
            "hasMore": len(values) > MAX_COMPLETIONS,
        }
    }


def _matches(candidates: list[str], folded: list[str], value: str) -> list[str]:
    """Candidates starting with `value` (ignoring case), then those containing it elsewhere;
    each group in the candidates' own order."""
    needle = value.casefold()
    if not needle:
        return list(candidates)
    prefix: list[str] = []
    inner: list[str] = []
    for candidate, fold in zip(candidates, folded, strict=True):
        if fold.startswith(needle):
            prefix.append(candidate)
        elif needle in fold:
            inner.append(candidate)
    return prefix + inner


@dataclass(frozen=True)
class _Pages:
    """The pages of a bundle, in bundle order (sorted by path)."""

    paths: list[str]
    folded: list[str]  # casefolded paths, for completion
    titles: list[str]
    starts: np.ndarray  # first row of each page
    counts: np.ndarray  # its number of rows (chunks)
    index: dict[str, int]  # path -> page number


class DocsResources:
    """Resources, templates, prompts and completions of one bundle (see the module docstring)."""

    def __init__(self, bundle: Bundle, page_index: Callable[[], PageIndex]) -> None:
        self.bundle = bundle
        self._page_index = page_index  # the browse tools' page list (pages.py), shared
        self.name = bundle.metadata.name
        self._authority = quote(self.name, safe="")
        self.template = f"{SCHEME}://{self._authority}/{{+{_PATH}}}"
        self._lock = threading.Lock()
        self._built: _Pages | None = None
        self._secret: bytes | None = None

    # -- the page list, built on first use --------------------------------------------------

    def _pages(self) -> _Pages:
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

    def _rows(self, page: int) -> range:
        pages = self._pages()
        first = int(pages.starts[page])
        return range(first, first + int(pages.counts[page]))

    # -- URIs -------------------------------------------------------------------------------

    def uri(self, path: str, anchor: str | None = None) -> str:
        """The resource URI of a page, or of one of its sections."""
        uri = f"{SCHEME}://{self._authority}/{quote(path, safe=_PATH_SAFE)}"
        if anchor:
            uri += "#" + quote(anchor, safe=_FRAGMENT_SAFE)
        return uri

    def _parse(self, uri: str) -> tuple[str, str | None] | None:
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

    def _guess_path(self, uri: str) -> str:
        """What a URI that names no page most likely meant as a path, for suggestions."""
        parsed = self._parse(uri)
        if parsed is not None:
            return parsed[0]
        _, sep, rest = uri.partition("://")
        rest = rest.partition("/")[2] if sep else uri
        rest = rest.partition("#")[0].partition("?")[0]
        try:
            return unquote(rest, errors="strict")
        except UnicodeDecodeError:
            return rest

    def closest_paths(self, path: str, n: int = MAX_SUGGESTIONS) -> list[str]:
        """The page paths most like `path` (best first; ties in path order)."""
        import difflib  # only on the error path

        pages = self._pages()
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

    def _not_found(self, uri: str, suggestions: list[str]) -> ProtocolError:
        return ProtocolError(
            RESOURCE_NOT_FOUND,
            "Resource not found",
            {"uri": uri, "closest": suggestions},
        )

    # -- resources --------------------------------------------------------------------------

    def _cursor_secret(self) -> bytes:
        if self._secret is None:
            self._secret = cursor_secret(self.bundle.bundle_id)
        return self._secret

    def list_resources(self, cursor: str | None) -> dict:
        pages = self._pages()
        total = len(pages.paths)
        offset = 0
        if cursor is not None:
            try:
                offset = decode_cursor(
                    self._cursor_secret(),
                    self.bundle.bundle_id,
                    "resources/list",
                    {},
                    cursor,
                    max_offset=total,
                )
            except CursorError:
                raise _invalid(
                    "invalid cursor (altered, expired, or from another server or bundle); "
                    "list resources again without a cursor"
                ) from None
        end = min(offset + PAGE_SIZE, total)
        result: dict[str, Any] = {"resources": [self._resource(i) for i in range(offset, end)]}
        if end < total:
            result["nextCursor"] = encode_cursor(
                self._cursor_secret(), self.bundle.bundle_id, "resources/list", {}, end
            )
        return result

    def _resource(self, page: int) -> dict:
        pages = self._pages()
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
        parsed = self._parse(uri)
        if parsed is None:
            raise self._not_found(
                uri, [self.uri(p) for p in self.closest_paths(self._guess_path(uri))]
            )
        path, anchor = parsed
        pages = self._pages()
        page = pages.index.get(path)
        if page is None:
            raise self._not_found(uri, [self.uri(p) for p in self.closest_paths(path)])
        rows = self._rows(page)
        bundle = self.bundle
        if anchor is None:
            text = "\n\n".join(bundle.text(r) for r in rows)
        else:
            row = bundle.row_of(f"{path}#{anchor}")
            if row is None or row not in rows:
                raise self._not_found(uri, self._section_uris(page, anchor))
            text = bundle.text(row)
        return {"contents": [{"uri": self.uri(path, anchor), "mimeType": MIME_TYPE, "text": text}]}

    def _section_ids(self, page: int) -> list[str]:
        rows = self._rows(page)
        ids = self.bundle.ids[rows.start : rows.stop].to_pylist()
        return [cid for cid in ids if "#" in cid]

    def _section_uris(self, page: int, anchor: str) -> list[str]:
        """The page itself, then its sections whose anchors are most like `anchor`."""
        import difflib

        path = self._pages().paths[page]
        anchors = [cid.partition("#")[2] for cid in self._section_ids(page)]
        close = difflib.get_close_matches(
            anchor[:MAX_MATCH_CHARS], anchors, n=MAX_SUGGESTIONS - 1, cutoff=MIN_SIMILARITY
        )
        if not close:
            close = anchors[: MAX_SUGGESTIONS - 1]
        return [self.uri(path)] + [self.uri(path, a) for a in close]

    # -- prompts ----------------------------------------------------------------------------

    def _filter_keys(self) -> list[str]:
        return [key for key in self.bundle.metadata.taxonomy if key != _QUESTION]

    def list_prompts(self) -> dict:
        taxonomy = self.bundle.metadata.taxonomy
        filters = [
            {
                "name": key,
                "description": (
                    f"{taxonomy[key].description} Optional search filter, one of: "
                    f"{', '.join(taxonomy[key].values)}."
                ).strip(),
                "required": False,
            }
            for key in self._filter_keys()
        ]
        return {
            "prompts": [
                {
                    "name": SEARCH_PROMPT,
                    "title": "Search the docs and cite",
                    "description": (
                        f"Answer a question from the {self.name} documentation: search with "
                        "search_docs, read the best sections with get_doc, and cite the chunk "
                        "ids the answer rests on."
                    ),
                    "arguments": [
                        {
                            "name": _QUESTION,
                            "description": "The question to answer from the documentation.",
                            "required": True,
                        },
                        *filters,
                    ],
                },
                {
                    "name": EXPLAIN_PROMPT,
                    "title": "Explain a docs page",
                    "description": (
                        "Explain one page of the documentation (embedded in the prompt), citing "
                        "its sections."
                    ),
                    "arguments": [
                        {
                            "name": _PATH,
                            "description": (
                                "Path of the page, as in search_docs hits' filepath "
                                "(e.g. guides/errors.md)."
                            ),
                            "required": True,
                        }
                    ],
                },
            ]
        }

    def get_prompt(self, name: str, arguments: dict[str, str]) -> dict:
        if name == SEARCH_PROMPT:
            return self._search_prompt(arguments)
        if name == EXPLAIN_PROMPT:
            return self._explain_prompt(arguments)
        raise _invalid(f"unknown prompt '{name}'", {"prompts": [SEARCH_PROMPT, EXPLAIN_PROMPT]})

    @staticmethod
    def _check_arguments(name: str, arguments: dict[str, str], allowed: list[str]) -> None:
        for key in arguments:
            if key not in allowed:
                raise _invalid(
                    f"unexpected argument '{key}' for prompt '{name}'; "
                    f"allowed: {', '.join(allowed)}"
                )

    @staticmethod
    def _required(name: str, arguments: dict[str, str], key: str) -> str:
        value = arguments.get(key, "").strip()
        if not value:
            raise _invalid(f"missing required argument '{key}' for prompt '{name}'")
        return value

    def _search_prompt(self, arguments: dict[str, str]) -> dict:
        keys = self._filter_keys()
        self._check_arguments(SEARCH_PROMPT, arguments, [_QUESTION, *keys])
        question = self._required(SEARCH_PROMPT, arguments, _QUESTION)
        taxonomy = self.bundle.metadata.taxonomy
        filters: dict[str, str] = {}
        for key in keys:
            value = arguments.get(key, "").strip()
            if not value:
                continue  # an empty optional argument is an absent one
            if value not in taxonomy[key].values:
                raise _invalid(
                    f"invalid value {json.dumps(value)} for '{key}'; "
                    f"allowed: {', '.join(taxonomy[key].values)}"
                )
            filters[key] = value
        if filters:
            shown = ", ".join(f"{k}={json.dumps(v)}" for k, v in filters.items())
            search = (
                "1. Call the search_docs tool with a short query made of the question's key "
                f"terms (identifiers, API names, error names) and the filters {shown}. If the "
                "hits do not answer the question, search again with other words."
            )
        else:
            search = (
                "1. Call the search_docs tool with a short query made of the question's key "
                "terms (identifiers, API names, error names). If the hits do not answer the "
                "question, search again with other words."
            )
        text = "\n".join(
            [
                f"Answer this question from the {self.name} documentation, using this "
                "server's tools:",
                "",
                question,
                "",
                search,
                "2. Read the most relevant hits in full with the get_doc tool, passing each "
                "hit's chunk_id (context: 1 adds the neighbouring sections).",
                "3. Answer only from what you read. Cite the sources of every claim by chunk_id "
                "(e.g. [guides/errors.md#retries]) or page path. If the documentation does not "
                "answer the question, say so rather than guess.",
            ]
        )
        return {
            "description": f"Answer a question from the {self.name} documentation, with citations",
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        }

    def _explain_prompt(self, arguments: dict[str, str]) -> dict:
        self._check_arguments(EXPLAIN_PROMPT, arguments, [_PATH])
        path = self._required(EXPLAIN_PROMPT, arguments, _PATH)
        pages = self._pages()
        page_path, _, anchor = path.partition("#")
        page = pages.index.get(page_path)
        if page is None:
            raise _invalid(
                f"unknown page path '{path}'", {"closest": self.closest_paths(page_path)}
            )
        if anchor:  # one section of the page: it must exist (a chunk id)
            row = self.bundle.row_of(path)
            if row is None or row not in self._rows(page):
                raise _invalid(
                    f"unknown section '{path}'", {"sections": self._section_ids(page)[:20]}
                )
        resource = self.read_resource(self.uri(page_path, anchor or None))["contents"][0]
        title = pages.titles[page]
        text = (
            f'Explain the documentation page {path} ("{title}"), given below: what it is '
            "for, its key concepts, the APIs and steps it describes, and anything to watch out "
            "for. Cite its sections by chunk_id. For pages it refers to, use the search_docs "
            "and get_doc tools rather than guessing."
        )
        return {
            "description": f"Explain the docs page {path}",
            "messages": [
                {"role": "user", "content": {"type": "text", "text": text}},
                {"role": "user", "content": {"type": "resource", "resource": resource}},
            ],
        }

    # -- completions ------------------------------------------------------------------------

    def complete(self, ref: dict, argument: dict, context: dict[str, str]) -> dict:
        """`ref` is {"type": "ref/prompt", "name"} or {"type": "ref/resource", "uri"};
        `argument` is {"name", "value"}; `context` the arguments already resolved."""
        name, value = argument["name"], argument["value"]
        if ref["type"] == "ref/resource":
            uri = ref["uri"]
            if uri != self.template:
                if self._parse(uri) is not None:
                    return _completion([])  # a concrete resource has nothing to complete
                raise _invalid(
                    f"unknown resource template '{uri}'", {"uriTemplates": [self.template]}
                )
            return self._complete_path(value) if name == _PATH else _completion([])
        prompt = ref["name"]
        if prompt == EXPLAIN_PROMPT:
            return self._complete_path(value) if name == _PATH else _completion([])
        if prompt == SEARCH_PROMPT:
            taxonomy = self.bundle.metadata.taxonomy
            if name in self._filter_keys():
                values = list(taxonomy[name].values)
                return _completion(_matches(values, [v.casefold() for v in values], value))
            return _completion([])
        raise _invalid(f"unknown prompt '{prompt}'", {"prompts": [SEARCH_PROMPT, EXPLAIN_PROMPT]})

    def _complete_path(self, value: str) -> dict:
        pages = self._pages()
        page_path, hash_, _ = value.partition("#")
        if hash_ and page_path in pages.index:
            # A page path and the start of an anchor: complete the page's section ids.
            ids = self._section_ids(pages.index[page_path])
            return _completion(_matches(ids, [i.casefold() for i in ids], value))
        return _completion(_matches(pages.paths, pages.folded, value))
