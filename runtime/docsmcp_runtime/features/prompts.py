"""MCP prompts over one bundle: `search-and-cite` (a question, plus optional taxonomy filters)
and `explain-page` (a page path, or a section's chunk id; the page is embedded in the prompt)."""

from __future__ import annotations

import json

from .resources import PATH, DocsResources, invalid

SEARCH_PROMPT = "search-and-cite"
EXPLAIN_PROMPT = "explain-page"
PROMPTS = (SEARCH_PROMPT, EXPLAIN_PROMPT)
QUESTION = "question"


def filter_keys(resources: DocsResources) -> list[str]:
    """The taxonomy keys search-and-cite takes as arguments."""
    return [key for key in resources.bundle.metadata.taxonomy if key != QUESTION]


def list_prompts(resources: DocsResources) -> dict:
    taxonomy = resources.bundle.metadata.taxonomy
    filters = [
        {
            "name": key,
            "description": (
                f"{taxonomy[key].description} Optional search filter, one of: "
                f"{', '.join(taxonomy[key].values)}."
            ).strip(),
            "required": False,
        }
        for key in filter_keys(resources)
    ]
    return {
        "prompts": [
            {
                "name": SEARCH_PROMPT,
                "title": "Search the docs and cite",
                "description": (
                    f"Answer a question from the {resources.name} documentation: search with "
                    "search_docs, read the best sections with get_doc, and cite the chunk "
                    "ids the answer rests on."
                ),
                "arguments": [
                    {
                        "name": QUESTION,
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
                        "name": PATH,
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


def get_prompt(resources: DocsResources, name: str, arguments: dict[str, str]) -> dict:
    if name == SEARCH_PROMPT:
        return _search_prompt(resources, arguments)
    if name == EXPLAIN_PROMPT:
        return _explain_prompt(resources, arguments)
    raise invalid(f"unknown prompt '{name}'", {"prompts": list(PROMPTS)})


def _check_arguments(name: str, arguments: dict[str, str], allowed: list[str]) -> None:
    for key in arguments:
        if key not in allowed:
            raise invalid(
                f"unexpected argument '{key}' for prompt '{name}'; allowed: {', '.join(allowed)}"
            )


def _required(name: str, arguments: dict[str, str], key: str) -> str:
    value = arguments.get(key, "").strip()
    if not value:
        raise invalid(f"missing required argument '{key}' for prompt '{name}'")
    return value


def _search_prompt(resources: DocsResources, arguments: dict[str, str]) -> dict:
    keys = filter_keys(resources)
    _check_arguments(SEARCH_PROMPT, arguments, [QUESTION, *keys])
    question = _required(SEARCH_PROMPT, arguments, QUESTION)
    taxonomy = resources.bundle.metadata.taxonomy
    filters: dict[str, str] = {}
    for key in keys:
        value = arguments.get(key, "").strip()
        if not value:
            continue  # an empty optional argument is an absent one
        if value not in taxonomy[key].values:
            raise invalid(
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
            f"Answer this question from the {resources.name} documentation, using this "
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
        "description": f"Answer a question from the {resources.name} documentation, with citations",
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
    }


def _explain_prompt(resources: DocsResources, arguments: dict[str, str]) -> dict:
    _check_arguments(EXPLAIN_PROMPT, arguments, [PATH])
    path = _required(EXPLAIN_PROMPT, arguments, PATH)
    pages = resources.pages()
    page_path, _, anchor = path.partition("#")
    page = pages.index.get(page_path)
    if page is None:
        raise invalid(
            f"unknown page path '{path}'", {"closest": resources.closest_paths(page_path)}
        )
    if anchor:  # one section of the page: it must exist (a chunk id)
        row = resources.bundle.row_of(path)
        if row is None or row not in resources.rows(page):
            raise invalid(
                f"unknown section '{path}'", {"sections": resources.section_ids(page)[:20]}
            )
    resource = resources.read_resource(resources.uri(page_path, anchor or None))["contents"][0]
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
