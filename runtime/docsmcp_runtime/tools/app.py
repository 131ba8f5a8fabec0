"""What the protocol layer serves for one bundle (the App of protocol/dispatcher.py): the server's
identity and instructions, the tools of the registry under the names the selection gives them,
and the resources, prompts and completions of features/ (imported on their first call)."""

from __future__ import annotations

import logging
from functools import cached_property
from typing import TYPE_CHECKING

from .. import __version__
from ..bundle.reader import Bundle
from ..errors import INVALID_PARAMS, BundleError, ProtocolError
from ..search.options import SearchOptions
from .arguments import MAX_LIMIT, ToolInputError, filter_args, query_arg
from .context import DocsContext
from .instructions import default_instructions
from .registry import TOOL_NAMES, ToolSelection, answer, definitions
from .results import text_result

if TYPE_CHECKING:
    from ..features.resources import DocsResources

__all__ = ["DocsApp"]

log = logging.getLogger(__name__)


class DocsApp(DocsContext):
    """One bundle served: server identity, instructions and the tools."""

    server_name = "docsmcp"
    server_version = __version__

    def __init__(
        self,
        bundle: Bundle,
        options: SearchOptions | None = None,
        selection: ToolSelection | None = None,
    ) -> None:
        super().__init__(bundle, options)
        self.selection = selection or ToolSelection()
        prefix = self.selection.prefix
        names = [name for name in self.selection.names if name in TOOL_NAMES]
        self._by_exposed = {prefix + name: name for name in names}
        # The bundle's own instructions, else what the docs are and which tool does what.
        self.own_instructions = bundle.metadata.instructions
        self.instructions = self.own_instructions or default_instructions(
            bundle.metadata.description, self.taxonomy, [(n, prefix + n) for n in names]
        )

    def list_tools(self) -> list[dict]:
        return self._tools

    @cached_property
    def _tools(self) -> list[dict]:
        # On first use: building the definitions imports every tool's module (registry.py).
        all_tools = definitions(self.bundle.metadata.tools.descriptions, self.taxonomy)
        return [{**all_tools[name], "name": exposed} for exposed, name in self._by_exposed.items()]

    def has_chunk(self, chunk_id: str) -> bool:
        return self.bundle.row_of(chunk_id) is not None

    def call_tool(self, name: str, arguments: dict) -> dict:
        tool = self._by_exposed.get(name)
        if tool is None:
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool '{name}'.")
        try:
            self.bundle.ready()  # a large file still being checked, or failed (integrity.py)
            return answer(self, tool, arguments)
        except ToolInputError as exc:
            return text_result(str(exc), is_error=True)
        except BundleError as exc:  # a browse table failed its checks on first use
            log.error("%s", exc)
            return text_result(f"The bundle is damaged: {exc}", is_error=True)

    # -- the playground's "why this rank" (explain.py; not an MCP tool) -------------------------

    def explain(self, args: dict) -> dict:
        """{chunk_id: the parts of its score} for a search_docs query and filters; ToolInputError
        for bad arguments."""
        from ..search.explain import explain

        filters = filter_args(self.taxonomy, args, ("query", "chunk_ids"), [])
        query = query_arg(args, [])
        ids = args.get("chunk_ids")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise ToolInputError("chunk_ids must be an array of chunk ids")
        rows = {cid: self.bundle.row_of(cid) for cid in ids[:MAX_LIMIT]}
        known = [(cid, row) for cid, row in rows.items() if row is not None]
        parts = explain(self.searcher, query, filters, [row for _, row in known])
        return {cid: part for (cid, _), part in zip(known, parts, strict=True)}

    def about(self) -> dict:
        """Who these docs are, for the playground's header: the bundle's name, description,
        the docs' version (or the `version` taxonomy's values), commit and size; one entry in
        `libraries`, as a server of several libraries answers (libraries/app.py)."""
        meta = self.bundle.metadata
        versions = meta.taxonomy.get("version")
        library = {
            "name": meta.name,
            "description": meta.description,
            "version": meta.version,
            "versions": list(versions.values) if versions else [],
            "commit": meta.source.commit,
            "commit_date": meta.source.commit_date,
            "pages": len(self.pages.paths),
            "chunks": meta.stats.chunks,
            "builder": meta.builder,
        }
        return {"libraries": [library]}

    # -- resources, prompts and completions (features/; imported on first use) -----------------

    @cached_property
    def docs_resources(self) -> DocsResources:
        from ..features.resources import DocsResources

        return DocsResources(self.bundle, lambda: self.pages)

    def list_resources(self, cursor: str | None) -> dict:
        return self.docs_resources.list_resources(cursor)

    def list_resource_templates(self) -> dict:
        return self.docs_resources.list_resource_templates()

    def read_resource(self, uri: str) -> dict:
        return self.docs_resources.read_resource(uri)

    def list_prompts(self) -> dict:
        from ..features.prompts import list_prompts

        return list_prompts(self.docs_resources)

    def get_prompt(self, name: str, arguments: dict[str, str]) -> dict:
        from ..features.prompts import get_prompt

        return get_prompt(self.docs_resources, name, arguments)

    def complete(self, ref: dict, argument: dict, context: dict[str, str]) -> dict:
        from ..features.completions import complete

        return complete(self.docs_resources, ref, argument, context)
