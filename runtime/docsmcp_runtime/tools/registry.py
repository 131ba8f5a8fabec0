"""The tools a server offers, in the order `tools/list` shows them, and which of them it
exposes under which names (`--tools`, `--tool-prefix`).

A tool is the module of this folder named for it, with its `NAME`, `DESCRIPTION` (its default
text; None where the bundle's metadata gives it), `definition(description, taxonomy)` (what
`tools/list` shows), `parse(context, args)` (the arguments, checked, as one request object)
and `run(context, request)` (the result). Adding one is a new module and a line in TOOL_NAMES.
A tool's module is imported on its first use: a shell `search` never pays for the other six
(issue 30: their modules and request classes were ~15 ms of every start).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import TYPE_CHECKING

from ..records import record

if TYPE_CHECKING:
    from ..format import TaxonomyKey
    from .context import DocsContext

# The tools of every server, one line each; each name is its module's name.
TOOL_NAMES = (
    "search_docs",
    "get_doc",
    "list_sections",
    "get_page",
    "get_api_reference",
    "get_code_examples",
)
# Tools a server lists only when it serves several versions of one library (libraries/).
VERSION_TOOLS = ("compare_versions",)
ALL_TOOL_NAMES = TOOL_NAMES + VERSION_TOOLS
TOOLS_ENV = "DOCSMCP_TOOLS"
TOOL_PREFIX_ENV = "DOCSMCP_TOOL_PREFIX"
# Tool names: what MCP allows (SEP-986): 1-64 of [A-Za-z0-9_.-]; a prefix leaves room for ours.
MAX_PREFIX_CHARS = 40


def tool(name: str) -> ModuleType:
    """The module of the tool `name` (one of ALL_TOOL_NAMES), imported on first use."""
    if name not in ALL_TOOL_NAMES:
        raise KeyError(name)
    return importlib.import_module(f"{__package__}.{name}")


def definitions(
    descriptions: Mapping[str, str], taxonomy: Mapping[str, TaxonomyKey]
) -> dict[str, dict]:
    """Every tool's definition by its (unprefixed) name: its description from `descriptions`
    (the bundle's metadata), else its own."""
    out = {}
    for name in TOOL_NAMES:
        module = tool(name)
        out[name] = module.definition(descriptions.get(name) or module.DESCRIPTION, taxonomy)
    return out


def answer(context: DocsContext, name: str, args: dict) -> dict:
    """The result of the tool `name` over one bundle; ToolInputError for bad arguments."""
    module = tool(name)
    request = module.parse(context, args)
    return module.run(context, request)


@record
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
