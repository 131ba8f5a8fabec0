"""Which GraphQL files of a docs tree are schema pages (formats/graphql/sdl_page.py).

A GraphQL API's reference is its schema: the `.graphql`, `.graphqls` or `.gql` files holding
type-system definitions (`type`, `interface`, `enum`, `input`, `union`, `scalar`, `directive`,
`schema`, `extend …`), as GitHub's, Shopify's and Saleor's published schemas, a DGS or Spring
service's `src/main/resources/schema/*.graphqls` and Apollo subgraphs hold them. A file of
executable documents only (a client's queries, mutations and fragments: swapi-graphql's
`doc/example_queries/`, an app's `*.graphql` operations for code generation) is client code,
no page; so is a schema under a tests, fixtures or mocks folder (a server library's test
schemas), and anything under `node_modules/`. The check reads each file's tokens up to its
first definition keyword (sdl_parse.defines_types): a schema costs its first line.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from docsmcp.sources.files import GRAPHQL_SUFFIXES
from docsmcp.sources.formats.graphql.sdl_parse import defines_types
from docsmcp.sources.settings import read_page_text

log = logging.getLogger("docsmcp.sources.packages.graphql_schema")

_NOT_SCHEMA = re.compile(
    r"(?:^|/)(?:node_modules|tests?|__tests__|__mocks__|mocks?|fixtures?|__fixtures__|testdata"
    r"|test[-_]?data|spec|specs)/",
    re.I,
)


def is_schema(docs_dir: Path, roots: Sequence[Path], path: str) -> bool:
    """Whether the GraphQL file `path` is a schema page (see the module's docstring)."""
    if _NOT_SCHEMA.search(path):
        return False
    if not (docs_dir / path).is_file():
        return False
    text, problem = read_page_text(docs_dir, path, roots)
    if text is None:  # (the build reads it as a page and says why it cannot)
        log.debug("%s", problem)
        return True
    return defines_types(text)


def no_pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The GraphQL files of `listed` that are no schema: operations, tests, fixtures."""
    return {
        p
        for p in listed
        if p.lower().endswith(GRAPHQL_SUFFIXES) and not is_schema(docs_dir, roots, p)
    }
