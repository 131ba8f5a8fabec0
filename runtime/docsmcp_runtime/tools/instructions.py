"""The server instructions of a bundle built without any (`--instructions`, or a manifest's
`mcpServerInstructions`): what the docs are, their filters, and which tool does what, under the
names this server exposes (`--tools`, `--tool-prefix`). A client shows them to its model at the
start of a session; an empty string told the model nothing about when to call us."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..format import TaxonomyKey
from ..search.budget import DEFAULT_MAX_TOKENS

# Values of a filter listed before "…".
MAX_VALUES = 6
# What each tool is for, in one clause (tools the server does not expose are left out).
_USES = (
    ("search_docs", "{} finds sections (a few words, an exact name or an error message)"),
    ("get_doc", "{} reads a hit's section by its chunk_id"),
    ("get_page", "{} reads a whole page by its path or title"),
    ("list_sections", "{} shows the page tree"),
    ("get_code_examples", "{} finds code examples for a task"),
    ("get_api_reference", "{} looks up an API entry by name"),
    ("compare_versions", "{} says what changed between two versions"),
)


def _values(key: str, entry: TaxonomyKey) -> str:
    shown = list(entry.values[:MAX_VALUES]) + (["…"] if len(entry.values) > MAX_VALUES else [])
    text = f"{key} ({', '.join(shown)})"
    latest = entry.latest  # the version key's latest release, when recorded
    return text + (f", {latest} when none is given" if latest else "")


def default_instructions(
    description: str, taxonomy: Mapping[str, TaxonomyKey], exposed: Sequence[tuple[str, str]]
) -> str:
    """`exposed`: (tool, the name this server gives it) of every tool it serves."""
    names = dict(exposed)
    lines = [description.rstrip(".") + "."]
    uses = [use.format(names[tool]) for tool, use in _USES if tool in names]
    if uses:
        lines.append("Use these tools for questions about it: " + "; ".join(uses) + ".")
    if taxonomy:
        filters = "; ".join(_values(key, entry) for key, entry in taxonomy.items())
        lines.append(f"Filters (tool arguments): {filters}.")
    lines.append(
        f"Answers stay within max_tokens (default {DEFAULT_MAX_TOKENS:,}); continue with "
        "next_cursor."
    )
    return "\n".join(lines)
