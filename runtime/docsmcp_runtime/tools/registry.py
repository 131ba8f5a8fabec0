"""The tools a server offers, in the order `tools/list` shows them, and which of them it
exposes under which names (`--tools`, `--tool-prefix`).

A tool is a module of this folder with its `NAME`, `DESCRIPTION` (its default text;
None where the bundle's metadata gives it), `definition(description, taxonomy)` (what
`tools/list` shows), `parse(context, args)` (the arguments, checked, as one request object)
and `run(context, request)` (the result). Adding one is a new module and a line in TOOLS.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import (
    compare_versions,
    get_api_reference,
    get_code_examples,
    get_doc,
    get_page,
    list_sections,
    search_docs,
)
from .context import DocsContext

if TYPE_CHECKING:
    from ..format import TaxonomyKey

# The tools of every server, one line each.
TOOLS = (
    search_docs,
    get_doc,
    list_sections,
    get_page,
    get_api_reference,
    get_code_examples,
)
BY_NAME = {tool.NAME: tool for tool in TOOLS}
TOOL_NAMES = tuple(BY_NAME)
# Tools a server lists only when it serves several versions of one library (libraries/).
VERSION_TOOLS = (compare_versions.NAME,)
ALL_TOOL_NAMES = TOOL_NAMES + VERSION_TOOLS
TOOLS_ENV = "DOCSMCP_TOOLS"
TOOL_PREFIX_ENV = "DOCSMCP_TOOL_PREFIX"
# Tool names: what MCP allows (SEP-986): 1-64 of [A-Za-z0-9_.-]; a prefix leaves room for ours.
MAX_PREFIX_CHARS = 40


def definitions(
    descriptions: Mapping[str, str], taxonomy: Mapping[str, TaxonomyKey]
) -> dict[str, dict]:
    """Every tool's definition by its (unprefixed) name: its description from `descriptions`
    (the bundle's metadata), else its own."""
    return {
        tool.NAME: tool.definition(descriptions.get(tool.NAME) or tool.DESCRIPTION, taxonomy)
        for tool in TOOLS
    }


def answer(context: DocsContext, name: str, args: dict) -> dict:
    """The result of the tool `name` over one bundle; ToolInputError for bad arguments."""
    tool = BY_NAME[name]
    request = tool.parse(context, args)
    return tool.run(context, request)


@dataclass(frozen=True)
class ToolSelection:
    """Which tools a server exposes (`--tools`) and under which prefix (`--tool-prefix`), so two
    docs servers can sit side by side in one client."""

    names: tuple[str, ...] = ALL_TOOL_NAMES
    prefix: str = ""

    @classmethod
    def parse(cls, tools: str | None, prefix: str | None) -> ToolSelection:
        """From `--tools a,b` and `--tool-prefix P` text; ValueError naming the bad part."""
        names = ALL_TOOL_NAMES
        if tools is not None and tools.strip():
            wanted = [t.strip() for t in tools.split(",") if t.strip()]
            unknown = [t for t in wanted if t not in ALL_TOOL_NAMES]
            if unknown:
                raise ValueError(
                    f"--tools: unknown tool(s) {', '.join(unknown)}; "
                    f"choose from {', '.join(ALL_TOOL_NAMES)}"
                )
            names = tuple(t for t in ALL_TOOL_NAMES if t in wanted)
        prefix = (prefix or "").strip()
        if prefix and (
            len(prefix) > MAX_PREFIX_CHARS
            or not all(c.isascii() and (c.isalnum() or c in "_-.") for c in prefix)
        ):
            raise ValueError(
                f"--tool-prefix: {prefix!r} must be at most {MAX_PREFIX_CHARS} of A-Z a-z 0-9 _ - ."
            )
        return cls(names, prefix)
