"""`get_code_examples`: the code blocks of the sections that best match a task, with the prose
around them, optionally in one language (aliases such as ts, py, sh accepted)."""

from __future__ import annotations

from typing import Any

from ..errors import SearchTimeout
from ..records import record
from ..search.budget import fit_entries
from ..search.languages import DIAGRAM_LANGUAGES, normalise_language
from .arguments import ToolInputError, filter_args, limit_arg, max_tokens_arg, query_arg, str_arg
from .context import DocsContext
from .hits import timed_out
from .results import json_result
from .schemas import LIMIT, MAX_TOKENS_ARG, NOTES, SOURCE, STRING_MAP, tool_definition

NAME = "get_code_examples"
TITLE = "Find code examples"
DESCRIPTION = (
    "Find code examples for a task: code blocks of the best-matching sections with the "
    "prose around them, optionally in one language (ts/typescript, py/python, sh/bash...)."
)
# Chunks searched for code examples before their blocks are gathered.
CODE_SEARCH_DEPTH = 50
# Blocks one section gives before every other ranked section has given its own: a tutorial
# walkthrough of a dozen blocks filled all ten places of "connect to clearnode" (yellow-docs,
# TypeScript) once a word's other forms counted, pushing out the SDK page's example that
# connects. Its other blocks still follow when the sections below give too few.
PER_SECTION = 3

ARGUMENTS = {
    "query": {
        "type": "string",
        "minLength": 1,
        "description": "The task or topic, e.g. 'connect to clearnode'.",
    },
    "topic": {"type": "string", "minLength": 1, "description": "Same as query."},
    "language": {
        "type": "string",
        "description": "Only code in this language (aliases accepted: ts, py, sh...).",
    },
    "limit": LIMIT,
    "max_tokens": MAX_TOKENS_ARG,
}
OWN = tuple(ARGUMENTS)

OUTPUT = {
    "type": "object",
    "properties": {
        "examples": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "language": {"type": "string"},
                    "code": {"type": "string"},
                    "context": {"type": "string"},
                    "chunk_id": {"type": "string"},
                    "filepath": {"type": "string"},
                    "heading": {"type": "string"},
                    "breadcrumb": {"type": "string"},
                    "metadata": STRING_MAP,
                    "source": SOURCE,
                    "truncated": {"type": "string"},
                },
                "required": ["language", "code", "chunk_id", "filepath"],
            },
        },
        "languages": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Languages with examples in the docs (when none matched).",
        },
        "notes": NOTES,
    },
    "required": ["examples"],
}


def definition(description: str, taxonomy: dict) -> dict:
    return tool_definition(NAME, TITLE, description, ARGUMENTS, [], OUTPUT, taxonomy)


@record
class CodeRequest:
    """One get_code_examples call."""

    query: str
    language: str | None  # normalised (py -> python)
    filters: dict[str, str]
    limit: int
    max_tokens: int
    notes: tuple[str, ...]


def parse(context: DocsContext, args: dict) -> CodeRequest:
    notes: list[str] = []
    filters = filter_args(context.taxonomy, args, OWN, notes)
    if "query" in args and "topic" in args:
        raise ToolInputError("give query or topic, not both")
    query = query_arg(args, notes, "topic" if "topic" in args else "query")
    limit = limit_arg(args, notes)
    language = str_arg(args, "language")
    max_tokens = max_tokens_arg(args, context.max_tokens, notes)
    language = normalise_language(language) if language else None
    return CodeRequest(query, language, filters, limit, max_tokens, tuple(notes))


def _wanted(language: str, wanted: str | None) -> bool:
    """A block in the language asked for, or with none asked, any that is not a diagram."""
    return language == wanted if wanted else language not in DIAGRAM_LANGUAGES


def run(context: DocsContext, request: CodeRequest) -> dict:
    notes = list(request.notes)
    code = context.code
    if not code.available:
        raise ToolInputError(
            "This bundle has no code table (built before docsmcp 0.2); rebuild it to use "
            "get_code_examples, or use search_docs."
        )
    wanted, filters, limit = request.language, request.filters, request.limit
    # A corpus documented per language (a taxonomy key `language`) is filtered too.
    facet = context.taxonomy.get("language")
    if wanted and facet is not None:
        value = next((v for v in facet.values if normalise_language(v) == wanted), None)
        if value is not None and "language" not in filters:
            filters = {**filters, "language": value}
    try:
        page = context.searcher.search(request.query, filters, 0, CODE_SEARCH_DEPTH)
    except SearchTimeout:
        raise timed_out(context.searcher) from None
    notes.extend(page.notes)
    blocks = [
        [i for i in code.of_row(row) if _wanted(code.languages[i], wanted)] for row in page.rows
    ]
    # Each section's first PER_SECTION blocks in rank order, then the rest in rank order.
    chosen = [i for found in blocks for i in found[:PER_SECTION]]
    chosen += [i for found in blocks for i in found[PER_SECTION:]]
    examples = [code.example(i) for i in chosen[:limit]]
    fit, used = fit_entries(examples, request.max_tokens)
    if fit < len(examples):
        notes.append(
            f"max_tokens {request.max_tokens}: {fit} of {len(examples)} examples fit "
            f"(~{used} tokens); raise max_tokens for more."
        )
        examples = examples[:fit]
    result: dict[str, Any] = {"examples": examples}
    if not examples:
        result["languages"] = code.language_set()
        notes.append(
            "No code examples matched"
            + (f" in {wanted}" if wanted else "")
            + "; try other words"
            + (" or another language" if wanted else "")
            + "."
        )
    return json_result(result, notes)
