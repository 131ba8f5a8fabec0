"""MCP completions over one bundle (`completion/complete`): the resource template's `path` and
explain-page's `path` complete to page paths (or, after `#`, to the page's section ids),
search-and-cite's filters to their values."""

from __future__ import annotations

from .prompts import EXPLAIN_PROMPT, PROMPTS, SEARCH_PROMPT, filter_keys
from .resources import PATH, DocsResources, invalid

MAX_COMPLETIONS = 100  # the spec's cap on completion values


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


def complete(resources: DocsResources, ref: dict, argument: dict, context: dict[str, str]) -> dict:
    """`ref` is {"type": "ref/prompt", "name"} or {"type": "ref/resource", "uri"};
    `argument` is {"name", "value"}; `context` the arguments already resolved."""
    name, value = argument["name"], argument["value"]
    if ref["type"] == "ref/resource":
        uri = ref["uri"]
        if uri != resources.template:
            if resources.parse(uri) is not None:
                return _completion([])  # a concrete resource has nothing to complete
            raise invalid(
                f"unknown resource template '{uri}'", {"uriTemplates": [resources.template]}
            )
        return _complete_path(resources, value) if name == PATH else _completion([])
    prompt = ref["name"]
    if prompt == EXPLAIN_PROMPT:
        return _complete_path(resources, value) if name == PATH else _completion([])
    if prompt == SEARCH_PROMPT:
        taxonomy = resources.bundle.metadata.taxonomy
        if name in filter_keys(resources):
            values = list(taxonomy[name].values)
            return _completion(_matches(values, [v.casefold() for v in values], value))
        return _completion([])
    raise invalid(f"unknown prompt '{prompt}'", {"prompts": list(PROMPTS)})


def _complete_path(resources: DocsResources, value: str) -> dict:
    pages = resources.pages()
    page_path, hash_, _ = value.partition("#")
    if hash_ and page_path in pages.index:
        # A page path and the start of an anchor: complete the page's section ids.
        ids = resources.section_ids(pages.index[page_path])
        return _completion(_matches(ids, [i.casefold() for i in ids], value))
    return _completion(_matches(pages.paths, pages.folded, value))
