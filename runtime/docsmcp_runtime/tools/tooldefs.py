"""What `tools/list` shows: each tool's name, default description, input and output schemas and
annotations. The handlers live in app.py; the limits here are the ones they enforce."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..bundle.versions import VERSION_KEY
from ..format import TaxonomyKey
from ..search.budget import MAX_TOKENS, MIN_TOKENS
from ..search.passage import PASSAGE_CHARS

SEARCH_DOCS = "search_docs"
GET_DOC = "get_doc"
LIST_SECTIONS = "list_sections"
GET_PAGE = "get_page"
GET_API_REFERENCE = "get_api_reference"
GET_CODE_EXAMPLES = "get_code_examples"
TOOL_NAMES = (SEARCH_DOCS, GET_DOC, LIST_SECTIONS, GET_PAGE, GET_API_REFERENCE, GET_CODE_EXAMPLES)
COMPARE_VERSIONS = "compare_versions"
# Tools a server lists only when it serves several versions of one library (libraries/).
VERSION_TOOLS = (COMPARE_VERSIONS,)
ALL_TOOL_NAMES = TOOL_NAMES + VERSION_TOOLS
TOOLS_ENV = "DOCSMCP_TOOLS"
TOOL_PREFIX_ENV = "DOCSMCP_TOOL_PREFIX"
# Tools that take the bundle's taxonomy keys as filter arguments.
FILTERED = (SEARCH_DOCS, LIST_SECTIONS, GET_API_REFERENCE, GET_CODE_EXAMPLES)

MAX_LIMIT = 50
DEFAULT_LIMIT = 10
# Chunk ids one search_docs call may exclude (a long conversation's worth of reads).
MAX_EXCLUDE = 500
MAX_CONTEXT = 5
# list_sections and get_api_reference listings: entries per page.
MAX_LIST = 500
DEFAULT_LIST = 100
MAX_DEPTH = 10
DEFAULT_DEPTH = 2
# get_page returns whole chunks up to this many characters per call, then a cursor.
MAX_PAGE_CHARS = 100_000
# Tool names: what MCP allows (SEP-986): 1-64 of [A-Za-z0-9_.-]; a prefix leaves room for ours.
MAX_PREFIX_CHARS = 40

ANNOTATIONS = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}

DEFAULT_DESCRIPTIONS = {
    LIST_SECTIONS: (
        "Browse the documentation tree: pages with titles, descriptions and paths under a "
        "folder (path prefix) or category (a folder name or a filter value), folded below "
        "`depth` levels into folders with page counts. Start here to see what the docs cover."
    ),
    GET_PAGE: (
        "Read a whole documentation page by its path (with or without extension), or by its "
        "title; a near miss is matched by search and the runners-up are listed. Long pages "
        "continue with next_cursor."
    ),
    GET_API_REFERENCE: (
        "Look up an API method or type extracted from the docs: signature, parameters (name, "
        "type, required, description), return type, description and examples. Without "
        "`method`, lists every entry grouped by category."
    ),
    GET_CODE_EXAMPLES: (
        "Find code examples for a task: code blocks of the best-matching sections with the "
        "prose around them, optionally in one language (ts/typescript, py/python, sh/bash...)."
    ),
}


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


def _filters(taxonomy: dict[str, TaxonomyKey], skip: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, info in taxonomy.items():
        if key in skip:
            continue
        if key == VERSION_KEY:  # also `latest` and ranges: no enum, the values in the text
            out[key] = {
                "type": "string",
                "description": f"{info.description} One of: {', '.join(info.values)}; or "
                "latest, or a range such as 1.x, >=1.2, ^1.2 (the newest match answers).",
                "examples": list(info.values),
            }
        else:
            out[key] = {
                "type": "string",
                "description": info.description,
                "enum": list(info.values),
            }
    return out


_LIMIT = {
    "type": "integer",
    "minimum": 1,
    "maximum": MAX_LIMIT,
    "default": DEFAULT_LIMIT,
    "description": f"Maximum number of results to return. Default is {DEFAULT_LIMIT}.",
}
_CURSOR = {
    "type": "string",
    "description": "Opaque continuation token (next_cursor of the previous call with the same "
    "arguments). Omit for the first page.",
}
_MAX_TOKENS = {
    "type": "integer",
    "minimum": MIN_TOKENS,
    "maximum": MAX_TOKENS,
    "description": "Response budget in tokens (estimated as characters / 4). What does not fit "
    "is left out and the result says so; continue with the cursor. Default: the server's "
    "(--max-tokens), else unbounded.",
}
_SOURCE = {
    "type": "object",
    "description": "Where the text comes from: the file and its line range (for a PDF also "
    "its page range); when the bundle knows them, the git commit, its date, the docs version "
    "and a link to cite.",
    "properties": {
        "file": {"type": "string"},
        "lines": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
        "pages": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
        "commit": {"type": "string"},
        "commit_date": {"type": "string"},
        "version": {"type": "string"},
        "url": {"type": "string"},
    },
    "required": ["file"],
}
_REFERENCE = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "title": {"type": "string"},
        "summary": {"type": "string"},
    },
    "required": ["id", "title"],
}
_NOTES = {
    "type": "array",
    "items": {"type": "string"},
    "description": "Present when an argument was adjusted: a clamped number, a cut query.",
}
_STRING_MAP = {"type": "object", "additionalProperties": {"type": "string"}}

HIT_SCHEMA = {
    "type": "object",
    "properties": {
        "chunk_id": {"type": "string"},
        "library": {
            "type": "string",
            "description": "The library of the hit, when the server serves several.",
        },
        "score": {"type": "number"},
        "heading": {"type": "string"},
        "breadcrumb": {"type": "string"},
        "snippet": {"type": "string"},
        "filepath": {"type": "string"},
        "metadata": _STRING_MAP,
        "also_in": {
            "type": "object",
            "description": "Other taxonomy values under which the same section also exists.",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
        "source": _SOURCE,
        "section_id": {"type": "string", "description": "The section's number, e.g. 2.4.1."},
        "rule_ids": {"type": "array", "items": {"type": "string"}},
        "references": {
            "type": "array",
            "items": _REFERENCE,
            "description": "Up to 5 sections this one refers to (links, 'see section X'), "
            "in order of appearance.",
        },
        "truncated": {
            "type": "boolean",
            "description": "Present when the hit was shortened to fit max_tokens.",
        },
        "reached_by_reference": {
            "type": "string",
            "description": "Present when the hit joined because this hit refers to it.",
        },
    },
    "required": [
        "chunk_id",
        "score",
        "heading",
        "breadcrumb",
        "snippet",
        "filepath",
        "metadata",
        "source",
    ],
}

SEARCH_OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "hits": {"type": "array", "items": HIT_SCHEMA},
        "next_cursor": {"type": ["string", "null"]},
        "hint": {
            "type": ["object", "null"],
            "properties": {
                "message": {"type": "string"},
                "suggested_filters": {
                    "type": "object",
                    "additionalProperties": {"type": "array", "items": {"type": "string"}},
                },
            },
            "required": ["message", "suggested_filters"],
        },
        "degraded": {
            "type": "string",
            "description": "Present when semantic search failed and results are full-text only.",
        },
        "notes": _NOTES,
    },
    "required": ["hits", "next_cursor", "hint"],
}

_PAGE_ENTRY = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "folder": {"type": "string"},
        "pages": {"type": "integer"},
        "depth": {"type": "integer"},
        # A server of several bundles lists its libraries first (libraries/).
        "library": {"type": "string"},
        "chunks": {"type": "integer"},
        "versions": {"type": "array", "items": {"type": "string"}},
    },
}

LIST_SECTIONS_OUTPUT = {
    "type": "object",
    "properties": {
        "root": {"type": "string"},
        "matched_by": {"type": "string"},
        "entries": {"type": "array", "items": _PAGE_ENTRY},
        "total": {"type": "integer"},
        "next_cursor": {"type": ["string", "null"]},
        "categories": {
            "type": "object",
            "description": "Pages per filter value, or per top folder (key `folder`) when the "
            "docs have no filters; on the first page of the whole tree only.",
            "additionalProperties": {"type": "object", "additionalProperties": {"type": "integer"}},
        },
        "notes": _NOTES,
    },
    "required": ["root", "entries", "total", "next_cursor"],
}

GET_PAGE_OUTPUT = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "matched_by": {"type": "string"},
        "runners_up": {"type": "array", "items": _PAGE_ENTRY},
        "frontmatter": {"type": "object"},
        "metadata": _STRING_MAP,
        "chunk_ids": {"type": "array", "items": {"type": "string"}},
        "text": {"type": "string"},
        "source": _SOURCE,
        "next_cursor": {"type": ["string", "null"]},
        "notes": _NOTES,
    },
    "required": ["path", "title", "matched_by", "text", "next_cursor"],
}

_PARAMETER = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "type": {"type": "string"},
        "required": {"type": ["boolean", "null"]},
        "description": {"type": "string"},
    },
    "required": ["name"],
}
_EXAMPLE = {
    "type": "object",
    "properties": {"language": {"type": "string"}, "code": {"type": "string"}},
    "required": ["code"],
}
API_ENTRY_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "category": {"type": "string"},
        "kind": {"type": "string"},
        "signature": {"type": "string"},
        "description": {"type": "string"},
        "parameters": {"type": "array", "items": _PARAMETER},
        "returns": {"type": "string"},
        "examples": {"type": "array", "items": _EXAMPLE},
        "chunk_id": {"type": "string"},
        "filepath": {"type": "string"},
        "metadata": _STRING_MAP,
        "source": _SOURCE,
    },
    "required": ["name", "kind", "chunk_id"],
}
API_OUTPUT = {
    "type": "object",
    "properties": {
        "method": {"type": "string"},
        "entries": {"type": "array", "items": API_ENTRY_SCHEMA},
        "categories": {
            "type": "object",
            "description": "Without `method`: entry summaries grouped by category.",
            "additionalProperties": {"type": "array", "items": API_ENTRY_SCHEMA},
        },
        "total": {"type": "integer"},
        "next_cursor": {"type": ["string", "null"]},
        "notes": _NOTES,
    },
    "required": ["total", "next_cursor"],
}
CODE_OUTPUT = {
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
                    "metadata": _STRING_MAP,
                    "source": _SOURCE,
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
        "notes": _NOTES,
    },
    "required": ["examples"],
}


def definitions(
    descriptions: Mapping[str, str], taxonomy: dict[str, TaxonomyKey]
) -> dict[str, dict]:
    """Every tool's definition by its (unprefixed) name. A tool's taxonomy filters are the
    bundle's keys except those spelled like one of the tool's own arguments."""

    def tool(name: str, title: str, own: dict, required: list[str], output: dict | None):
        properties = {**own, **_filters(taxonomy, tuple(own))} if name in FILTERED else own
        out: dict[str, Any] = {
            "name": name,
            "title": title,
            "description": descriptions.get(name) or DEFAULT_DESCRIPTIONS[name],
            "inputSchema": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        }
        if output is not None:
            out["outputSchema"] = output
        out["annotations"] = {"title": title, **ANNOTATIONS}
        return out

    return {
        SEARCH_DOCS: tool(
            SEARCH_DOCS,
            "Search documentation",
            {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "description": (
                        "The search query: method names, class names, error types, or a short "
                        "description of the task (e.g. 'links.create', 'RateLimitError', "
                        "'how to paginate')."
                    ),
                },
                "limit": _LIMIT,
                "cursor": {
                    "type": "string",
                    "description": (
                        "Opaque pagination token (next_cursor of a previous search with the same "
                        "query and filters). Omit for the first page."
                    ),
                },
                "expand_references": {
                    "type": "boolean",
                    "description": "Also return the sections the best hits refer to (one hop), "
                    "marked reached_by_reference.",
                },
                "max_tokens": _MAX_TOKENS,
                "exclude": {
                    "type": "array",
                    "items": {"type": "string"},
                    "maxItems": MAX_EXCLUDE,
                    "description": "chunk_ids already seen: they are never returned, so a "
                    "follow-up search brings new material.",
                },
            },
            ["query"],
            SEARCH_OUTPUT_SCHEMA,
        ),
        GET_DOC: tool(
            GET_DOC,
            "Read a documentation section",
            {
                "chunk_id": {
                    "type": "string",
                    "minLength": 1,
                    "description": (
                        "The exact chunk_id returned by search_docs "
                        "(e.g. 'guides/retries.md#backoff-strategy')."
                    ),
                },
                "section": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Instead of chunk_id: a section number (e.g. '2.4.1') or a "
                    "rule id (e.g. 'items.fn.generics') as shown in section_id / rule_ids.",
                },
                "document": {
                    "type": "string",
                    "minLength": 1,
                    "description": "With section: the page (path, file name or title) whose "
                    "numbering is meant, when several documents share numbers.",
                },
                "context": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": MAX_CONTEXT,
                    "default": 0,
                    "description": (
                        "Number of adjacent sections of the same page to include before "
                        "and after the target. Default 0 (recommended)."
                    ),
                },
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The search query the hit came from: a section longer than "
                    f"{PASSAGE_CHARS:,} characters then returns only its passage where the "
                    "query's words are densest (a note says which part; omit query for all).",
                },
                "max_tokens": _MAX_TOKENS,
                "cursor": _CURSOR,
            },
            [],
            None,
        ),
        LIST_SECTIONS: tool(
            LIST_SECTIONS,
            "Browse the documentation tree",
            {
                "category": {
                    "type": "string",
                    "description": "A folder name (e.g. 'protocol') or a filter value (e.g. "
                    "'python') to list; omit for the whole tree.",
                },
                "path": {
                    "type": "string",
                    "description": "A folder path prefix to list, e.g. 'docs/guides/'.",
                },
                "depth": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_DEPTH,
                    "default": DEFAULT_DEPTH,
                    "description": "Folder levels to expand; deeper pages are counted per folder.",
                },
                "limit": {**_LIMIT, "maximum": MAX_LIST, "default": DEFAULT_LIST},
                "cursor": _CURSOR,
            },
            [],
            LIST_SECTIONS_OUTPUT,
        ),
        GET_PAGE: tool(
            GET_PAGE,
            "Read a documentation page",
            {
                "path": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The page's path (extension optional), file name or title.",
                },
                "cursor": _CURSOR,
                "max_tokens": _MAX_TOKENS,
            },
            ["path"],
            GET_PAGE_OUTPUT,
        ),
        GET_API_REFERENCE: tool(
            GET_API_REFERENCE,
            "Look up an API method",
            {
                "method": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The method or type, e.g. 'create_channel', 'links.create'.",
                },
                "limit": {**_LIMIT, "maximum": MAX_LIST},
                "cursor": _CURSOR,
            },
            [],
            API_OUTPUT,
        ),
        GET_CODE_EXAMPLES: tool(
            GET_CODE_EXAMPLES,
            "Find code examples",
            {
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
                "limit": _LIMIT,
            },
            [],
            CODE_OUTPUT,
        ),
    }


COMPARE_LIMIT = 20  # entries listed per kind by default
MAX_COMPARE_LIMIT = 500

COMPARE_OUTPUT = {
    "type": "object",
    "properties": {
        "library": {"type": "string"},
        "old_version": {"type": "string"},
        "new_version": {"type": "string"},
        "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
        "page_counts": {"type": "object", "additionalProperties": {"type": "integer"}},
        "pages": {
            "type": "object",
            "description": "Pages added, removed and moved (at most `limit` of each).",
        },
        "entries": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "enum": ["added", "removed", "changed", "moved"]},
                    "old_id": {"type": ["string", "null"]},
                    "new_id": {"type": ["string", "null"]},
                    "heading": {"type": "string"},
                    "excerpt": {"type": ["string", "null"]},
                },
                "required": ["kind"],
            },
        },
        "omitted": {"type": "object", "additionalProperties": {"type": "integer"}},
        "notes": _NOTES,
    },
    "required": ["library", "old_version", "new_version", "counts", "entries"],
}


def compare_definition(versions: Mapping[str, tuple[str, ...]]) -> dict:
    """compare_versions for the libraries that have several versions (name → versions)."""
    listed = "; ".join(f"{name}: {', '.join(v)}" for name, v in versions.items())
    title = "Compare two versions of the docs"
    return {
        "name": COMPARE_VERSIONS,
        "title": title,
        "description": (
            "What changed between two versions of a library's documentation: sections added, "
            "removed, changed (with a short diff excerpt) or moved, and pages added, removed "
            f"or moved. Versions served: {listed}."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "library": {
                    "type": "string",
                    "enum": list(versions),
                    "description": "The library (needed when several have versions).",
                },
                "old_version": {
                    "type": "string",
                    "description": "The older version (default: the one before new_version).",
                },
                "new_version": {
                    "type": "string",
                    "description": "The newer version (default: latest). Ranges such as 1.x "
                    "resolve to their newest match.",
                },
                "path": {
                    "type": "string",
                    "description": "Only pages under this path prefix (e.g. guides/).",
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_COMPARE_LIMIT,
                    "default": COMPARE_LIMIT,
                    "description": "Entries listed per kind (the counts cover all of them).",
                },
            },
            "required": [],
            "additionalProperties": False,
        },
        "outputSchema": COMPARE_OUTPUT,
        "annotations": {"title": title, **ANNOTATIONS},
    }
