"""Several bundles in one server: each bundle is a *library* (its metadata `name`), several bundles
of one name are its versions (their metadata `version`).

Rules (`../shared/DECISIONS.md`, *Identifiers* and *Tool arguments*; DECISIONS.md, *Several
bundles*):

- every tool takes `library` (an enum of the names); chunk ids carry the prefix `LIBRARY:`
  (`NAME@VERSION:` when a name has several versions) and are accepted with or without it;
- `version` picks among a library's bundles (`latest` by default, semver ranges, exact strings);
  for a library of one bundle it is that bundle's taxonomy filter, or must match its version;
- `search_docs` and `get_code_examples` without `library` search every library and fuse the
  ranked lists by rank, so that corpora of different sizes and vocabularies compare fairly;
  the other tools need the library, named by `library` or by the prefix of an id or path, or
  found unambiguously (a chunk id or a page path that exists in one library only).

Nothing is opened lazily here: each bundle opens as it would alone (memory-mapped, its small
columns read), so cold start and memory grow with the bundles' own sizes only.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from .. import __version__
from ..bundle.reader import Bundle
from ..bundle.versions import VERSION_KEY
from ..errors import INVALID_PARAMS, BundleError, ProtocolError
from ..format import ToolTexts
from ..protocol.cursor import cursor_secret, encode_cursor
from ..search.options import SearchOptions
from ..search.snippets import snippet_pattern
from ..tools import (
    compare_versions,
    get_api_reference,
    get_code_examples,
    get_doc,
    get_page,
    list_sections,
    search_docs,
)
from ..tools.app import DocsApp
from ..tools.arguments import (
    MAX_QUERY_CHARS,
    ToolInputError,
    exclude_ids,
    filter_args,
    limit_arg,
    max_tokens_arg,
    search_call,
    search_offset,
)
from ..tools.context import Memo
from ..tools.hits import fit_hits, hit, hits_json
from ..tools.registry import TOOL_NAMES, VERSION_TOOLS, ToolSelection, answer, definitions
from ..tools.results import json_result, text_result
from ..tools.search_docs import degraded_message, search_hint
from .compare import REPORT_CACHE, CompareVersions
from .fusion import fuse_search
from .library import (
    _PREFIX_SEP,
    LIBRARY_ARG,
    Library,
    _description,
    _key_of,
    _merged_taxonomy,
    _page_match,
    _version_order,
    library_keys,
)
from .resources import LibraryResources
from .routing import LibraryRouter

__all__ = ["LIBRARY_ARG", "MAX_QUERY_CHARS", "LibraryApp", "library_keys"]

log = logging.getLogger(__name__)


class LibraryApp(LibraryRouter, CompareVersions, LibraryResources):
    """The App protocol (protocol/dispatcher.py) over several bundles; see the module docstring."""

    server_name = "docsmcp"
    server_version = __version__

    def __init__(
        self,
        bundles: Sequence[Bundle],
        options: SearchOptions | None = None,
        selection: ToolSelection | None = None,
    ) -> None:
        keys = library_keys(bundles)
        self.selection = selection or ToolSelection()
        self.apps: list[DocsApp] = []
        self.keys: dict[str, DocsApp] = {}
        grouped: dict[str, list[DocsApp]] = {}
        for bundle, key in zip(bundles, keys, strict=True):
            bundle.id_prefix = key + _PREFIX_SEP
            app = DocsApp(bundle, options, selection)
            self.apps.append(app)
            self.keys[key] = app
            grouped.setdefault(bundle.metadata.name, []).append(app)
        self.libraries: dict[str, Library] = {}
        for name in sorted(grouped, key=str.casefold):
            members = sorted(grouped[name], key=_version_order)
            self.libraries[name] = Library(
                name=name,
                description=_description(members[-1]),
                apps=tuple(members),
                versions=tuple(a.bundle.metadata.version or "" for a in members),
            )
        self.taxonomy = _merged_taxonomy(self.apps)
        # Longest first, so `a@1.2:` is tried before `a:`.
        self._prefixes = sorted(self.keys, key=len, reverse=True)
        joined = "\0".join(f"{k}={a.bundle.bundle_id}" for k, a in sorted(self.keys.items()))
        self.bundle_id = hashlib.sha256(joined.encode()).hexdigest()[:32]
        self._secret = cursor_secret(self.bundle_id)
        self.instructions = self._instructions()
        # A tool of the registry that is not routed here answers for one library (`library`, or
        # the only one); the others choose their libraries below.
        self._handlers: dict[str, Callable[[dict], dict]] = {
            name: functools.partial(self._in_one_library, name) for name in TOOL_NAMES
        }
        self._handlers |= {
            search_docs.NAME: self.search_docs,
            get_doc.NAME: self.get_doc,
            list_sections.NAME: self.list_sections,
            get_page.NAME: self.get_page,
            get_api_reference.NAME: self.get_api_reference,
            get_code_examples.NAME: self.get_code_examples,
        }
        self.versioned = {lib.name: lib for lib in self.libraries.values() if len(lib.named) > 1}
        if self.versioned:
            self._handlers[compare_versions.NAME] = self.compare_versions
        self._tools = self._tool_definitions()
        prefix = self.selection.prefix
        self._by_exposed = {
            prefix + name: name for name in self.selection.names if name in self._handlers
        }
        self._reports = Memo(REPORT_CACHE)  # compare_versions, recent pairs (compare.py)

    # -- what the server says about itself ------------------------------------------------------

    def _instructions(self) -> str:
        lines = [
            f"This server serves the documentation of {len(self.libraries)} libraries. Every "
            f"tool takes `{LIBRARY_ARG}` to choose one; search_docs and get_code_examples "
            "without it search them all. Chunk ids start with their library (LIBRARY:path#…).",
            "",
        ]
        for lib in self.libraries.values():
            line = f"- {lib.name}: {lib.description}"
            if len(lib.apps) > 1 and lib.named:
                line += f" (versions {', '.join(lib.named)}; `version` picks one, default latest)"
            lines.append(line)
            own = lib.latest.own_instructions  # (a default would repeat what is said here)
            if own:
                lines.append("  " + own.strip().replace("\n", "\n  "))
        return "\n".join(lines)

    def _library_schema(self) -> dict:
        listed = "; ".join(f"{lib.name}: {lib.description}" for lib in self.libraries.values())
        return {
            "type": "string",
            "enum": list(self.libraries),
            "description": f"The library whose docs to use. {listed}",
        }

    def _tool_definitions(self) -> list[dict]:
        names = ", ".join(self.libraries)
        texts = ToolTexts.defaults(f"the documentation of {names}").descriptions
        tools = definitions(texts, self.taxonomy)
        library = self._library_schema()
        several = [lib for lib in self.libraries.values() if len(lib.apps) > 1]
        version = None
        if several:
            version = {
                "type": "string",
                "description": "Version of the library's docs: "
                + "; ".join(f"{lib.name}: {', '.join(lib.named)}" for lib in several)
                + ". Also latest (the default) or a range such as 1.x, >=1.2, ^1.2.",
            }
        if self.versioned:
            tools[compare_versions.NAME] = compare_versions.definition(
                {name: lib.named for name, lib in self.versioned.items()}
            )
        out = []
        prefix = self.selection.prefix
        for name in self.selection.names:
            if name not in tools:
                continue
            if name in VERSION_TOOLS:
                out.append({**tools[name], "name": prefix + name})
                continue
            tool = json.loads(json.dumps(tools[name]))  # a copy: the definitions are shared
            props = tool["inputSchema"]["properties"]
            props[LIBRARY_ARG] = library
            if version is not None and VERSION_KEY not in props:
                props[VERSION_KEY] = version
            out.append({**tool, "name": prefix + name})
        return out

    def list_tools(self) -> list[dict]:
        return self._tools

    def has_chunk(self, chunk_id: str) -> bool:
        owner, _ = self.split_id(chunk_id)
        apps = [owner] if owner is not None else self.apps
        return any(app.has_chunk(chunk_id) for app in apps)

    def call_tool(self, name: str, arguments: dict) -> dict:
        tool = self._by_exposed.get(name)
        if tool is None:
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool '{name}'.")
        try:
            for app in self.apps:  # large files still being checked, or failed (integrity.py)
                app.bundle.ready()
            return self._handlers[tool](dict(arguments))
        except ToolInputError as exc:
            return text_result(str(exc), is_error=True)
        except BundleError as exc:  # a browse table failed its checks on first use
            log.error("%s", exc)
            return text_result(f"The bundle is damaged: {exc}", is_error=True)

    # choosing the library: routing.py

    def _in_one_library(self, tool: str, args: dict) -> dict:
        """A tool without routing of its own: the library `library` names, or the only one."""
        notes: list[str] = []
        app = self._routed(tool, args, notes, None)
        return self._tagged(app, answer(app, tool, args), notes)

    # -- search_docs ------------------------------------------------------------------------------

    def search_docs(self, args: dict) -> dict:
        notes: list[str] = []
        lib = self._library_arg(args)
        if lib is not None:
            app = self._one(lib, args, notes)
            return self._tagged_hits(app, answer(app, search_docs.NAME, args), notes)
        return self._fused_search(args, notes)

    def _tagged_hits(self, app: DocsApp, result: dict, notes: list[str]) -> dict:
        content = result.get("structuredContent")
        if content is not None and not result.get("isError"):
            for hit in content["hits"]:
                hit[LIBRARY_ARG] = app.bundle.metadata.name
        return self._tagged(app, result, notes)

    def _participants(
        self, tool: str, args: dict, notes: list[str], own: tuple[str, ...]
    ) -> list[tuple[DocsApp, dict[str, str]]]:
        """Each library's app and its resolved filters; a library without one of the filters
        (or its value) is left out, and when every one is, the first one's error stands."""
        out = []
        first_error: ToolInputError | None = None
        for app, own_args in self._each(args, notes):
            try:
                filters = filter_args(app.taxonomy, own_args, own, notes)
            except ToolInputError as exc:
                first_error = first_error or exc
                continue
            out.append((app, filters))
        if not out:
            assert first_error is not None
            raise first_error
        return out

    def _exclude_rows(self, args: dict, notes: list[str]) -> tuple[dict[str, np.ndarray], str]:
        """Per app (by its library key): rows of the ids in `exclude`; what cursors bind to."""
        value = exclude_ids(args)
        if value is None:
            return {}, ""
        found: dict[str, set[int]] = {}
        unknown = 0
        for chunk_id in set(value):
            owner, _ = self.split_id(chunk_id)
            apps = [owner] if owner is not None else self.apps
            hits = 0
            for app in apps:
                row = app.bundle.row_of(chunk_id)
                if row is not None:
                    found.setdefault(_key_of(app), set()).add(row)
                    hits += 1
            unknown += hits == 0
        if unknown:
            notes.append(f"{unknown} chunk id(s) in exclude do not exist and were ignored.")
        rows = {i: np.asarray(sorted(r), dtype=np.int64) for i, r in sorted(found.items())}
        key = "".join(f"\0exclude{i}:" + ",".join(map(str, r)) for i, r in rows.items())
        return rows, key

    def _fused_search(self, args: dict, notes: list[str]) -> dict:
        own = (*search_docs.OWN, VERSION_KEY)
        parts = self._participants(search_docs.NAME, args, notes, search_docs.OWN)
        first = parts[0][0]
        call = search_call(args, notes, first.expand_references)
        budget = max_tokens_arg(args, first.max_tokens, notes)
        excluded, excluded_key = self._exclude_rows(args, notes)
        filters = {k: str(args[k]) for k in sorted(args) if k not in own and args[k] is not None}
        keys = ",".join(_key_of(app) for app, _ in parts)
        bound = call.bound + excluded_key + "\0libraries:" + keys
        total_rows = sum(app.bundle.n_chunks for app, _ in parts)
        offset = 0
        if call.cursor is not None:
            offset = search_offset(
                self._secret, self.bundle_id, bound, filters, call.cursor, total_rows
            )
        fused = fuse_search(parts, call, offset, excluded)
        notes.extend(fused.notes)
        pattern = snippet_pattern(call.query)

        def made() -> Iterator[dict]:  # lazily: no snippet for a hit the budget leaves out
            for app, page, i, score in fused.shown:
                one = hit(app, page.rows[i], score, pattern, page, i)
                one[LIBRARY_ARG] = app.bundle.metadata.name
                yield one

        hits, texts = fit_hits(made(), len(fused.shown), budget, notes)
        next_offset = offset + len(hits)
        next_cursor = None
        if hits and next_offset < fused.total:
            next_cursor = encode_cursor(self._secret, self.bundle_id, bound, filters, next_offset)
        hint = None
        if not hits:
            hint = search_hint(call.query, filters, fused.suggested, fused.corpus_matches, offset)
        result: dict[str, Any] = {"hits": hits, "next_cursor": next_cursor, "hint": hint}
        if fused.degraded:
            result["degraded"] = degraded_message(fused.degraded)
        return json_result(result, notes, {"hits": hits_json(texts)})

    # -- the tools that address one library -------------------------------------------------------

    def get_doc(self, args: dict) -> dict:
        notes: list[str] = []
        if LIBRARY_ARG not in args and isinstance(args.get("chunk_id"), str):
            owner, _ = self.split_id(args["chunk_id"])
            if owner is None:  # an id without prefix: the library that has it, if only one
                having = [a for a in self.apps if a.bundle.row_of(args["chunk_id"]) is not None]
                if len(having) > 1:
                    raise ToolInputError(
                        f"Chunk ID '{args['chunk_id']}' exists in "
                        f"{', '.join(_key_of(a) for a in having)}; prefix it with one "
                        "(LIBRARY:id) or give library."
                    )
                if having:
                    return answer(having[0], get_doc.NAME, args)
        if LIBRARY_ARG not in args and "section" in args and "chunk_id" not in args:
            return self._section_anywhere(args, notes)
        app = self._routed(get_doc.NAME, args, notes, "chunk_id")
        result = answer(app, get_doc.NAME, args)
        if notes and not result.get("isError"):
            result["content"].append({"type": "text", "text": "Note: " + " ".join(notes)})
        return result

    def _section_anywhere(self, args: dict, notes: list[str]) -> dict:
        """get_doc by section without a library: the one library where it resolves."""
        answers = []
        for app, own in self._each(args, notes):
            result = answer(app, get_doc.NAME, dict(own))
            if not result.get("isError"):
                answers.append((app, result))
        if len(answers) == 1:
            return answers[0][1]
        if not answers:
            raise ToolInputError(
                f"Section '{args.get('section')}' was not found in any library "
                f"({', '.join(self.libraries)}); give library, or search_docs for it."
            )
        raise ToolInputError(
            f"Section '{args.get('section')}' exists in "
            f"{', '.join(_key_of(a) for a, _ in answers)}; give library (and document)."
        )

    def list_sections(self, args: dict) -> dict:
        notes: list[str] = []
        path = args.get("path")
        prefixed = isinstance(path, str) and self.split_id(path)[0] is not None
        if LIBRARY_ARG not in args and not prefixed and len(self.libraries) > 1:
            return self._library_listing(args, notes)
        app = self._routed(list_sections.NAME, args, notes, "path")
        return self._tagged(app, answer(app, list_sections.NAME, args), notes)

    def _library_listing(self, args: dict, notes: list[str]) -> dict:
        """list_sections without a library: the libraries, each with its description and size."""
        # depth/limit/cursor shape a library's tree; this listing is one short page.
        ignored = (VERSION_KEY, "depth", "limit", "cursor")
        unexpected = [k for k in args if k not in ignored and args[k] is not None]
        if unexpected:
            raise ToolInputError(
                f"list_sections needs `{LIBRARY_ARG}` with {', '.join(sorted(unexpected))}: "
                f"one of {', '.join(self.libraries)}."
            )
        entries = []
        for lib in self.libraries.values():
            app = lib.latest
            entry: dict[str, Any] = {
                "library": lib.name,
                "description": lib.description,
                "pages": len(app.pages.paths),
                "chunks": app.bundle.n_chunks,
            }
            if lib.named:
                entry["versions"] = list(lib.named)
            entries.append(entry)
        notes.append(f"Call list_sections with {LIBRARY_ARG} to browse one library.")
        listing = {"root": "", "matched_by": "libraries", "entries": entries}
        return json_result({**listing, "total": len(entries), "next_cursor": None}, notes)

    def get_page(self, args: dict) -> dict:
        notes: list[str] = []
        path = args.get("path")
        if LIBRARY_ARG not in args and isinstance(path, str) and self.split_id(path)[0] is None:
            # The libraries where the path names a page exactly, else by its end or title
            # (no search: that would find something everywhere).
            for how in (("path",), ("path-suffix", "title")):
                having = [a for a in self._each_latest() if _page_match(a, path) in how]
                if len(having) == 1:
                    return self._tagged(having[0], answer(having[0], get_page.NAME, args), notes)
                if len(having) > 1:
                    raise ToolInputError(
                        f"Page '{path}' exists in {', '.join(_key_of(a) for a in having)}; give "
                        f"{LIBRARY_ARG} or prefix the path (LIBRARY:path)."
                    )
        app = self._routed(get_page.NAME, args, notes, "path")
        return self._tagged(app, answer(app, get_page.NAME, args), notes)

    def get_api_reference(self, args: dict) -> dict:
        notes: list[str] = []
        if LIBRARY_ARG in args or len(self.libraries) == 1:
            app = self._routed(get_api_reference.NAME, args, notes, None)
            return self._tagged(app, answer(app, get_api_reference.NAME, args), notes)
        method = args.get("method")
        if method is None or args.get("cursor") is not None:
            raise ToolInputError(
                f"get_api_reference lists one library at a time: give {LIBRARY_ARG} "
                f"({', '.join(self.libraries)}), or a method to look it up in all of them."
            )
        entries: list[dict] = []
        errors = []
        for app, own in self._each(args, notes):
            result = answer(app, get_api_reference.NAME, own)
            if result.get("isError"):
                errors.append(result["content"][0]["text"])
                continue
            for entry in result["structuredContent"].get("entries", []):
                entries.append({LIBRARY_ARG: app.bundle.metadata.name, **entry})
        if not entries:
            raise ToolInputError(errors[0] if errors else f"Method '{method}' not found.")
        return json_result({"method": method, "entries": entries, "total": len(entries)}, notes)

    def get_code_examples(self, args: dict) -> dict:
        notes: list[str] = []
        if LIBRARY_ARG in args or len(self.libraries) == 1:
            app = self._routed(get_code_examples.NAME, args, notes, None)
            return self._tagged(app, answer(app, get_code_examples.NAME, args), notes)
        own = get_code_examples.OWN
        parts = self._participants(get_code_examples.NAME, args, notes, own)
        per_app = []
        for app, filters in parts:
            mine = {**{k: args[k] for k in own if k in args}, **filters}
            result = answer(app, get_code_examples.NAME, mine)
            if result.get("isError"):
                raise ToolInputError(result["content"][0]["text"])
            per_app.append((app, result["structuredContent"]))
        # Interleave by rank: the n-th example of each library before any library's (n+1)-th.
        limit = max(len(c["examples"]) for _, c in per_app)
        examples = []
        for n in range(limit):
            for app, content in per_app:
                if n < len(content["examples"]):
                    examples.append(
                        {LIBRARY_ARG: app.bundle.metadata.name, **content["examples"][n]}
                    )
        # The same limit each library applied (its clamping notes are in its own results).
        cap = limit_arg(args, [])
        result: dict[str, Any] = {"examples": examples[:cap]}
        if not examples:
            notes.append("No code examples matched in any library; try other words.")
        return json_result(result, notes)

    def explain(self, args: dict) -> dict:
        """DocsApp.explain over the libraries the chunk ids name (their filters only)."""
        ids = args.get("chunk_ids")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise ToolInputError("chunk_ids must be an array of chunk ids")
        out: dict[str, Any] = {}
        for app in self.apps:
            mine = [i for i in ids if self.split_id(i)[0] is app]
            if not mine:
                continue
            own = {k: v for k, v in args.items() if k in app.taxonomy}
            out.update(app.explain({**own, "query": args.get("query"), "chunk_ids": mine}))
        return out

    def about(self) -> dict:
        """DocsApp.about of each library, in serving order."""
        return {"libraries": [app.about()["libraries"][0] for app in self.apps]}

    # compare_versions: compare.py; resources, prompts and completions: resources.py.
