"""A class's and an interface's properties are API entries, as TypeDoc gives each its anchor
(`ChatCompletionCreateParams.html#temperature`): fixtures in the shape of openai-node's request
params (an interface of documented properties, a streaming variant extending it) and errors (a
class property inherited from the base class)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import build_bundle, write_tree
from docsmcp.sources.formats.source.tsdoc import typescript_to_markdown
from docsmcp.sources.packages.typescript_entries import resolve_spec
from docsmcp.sources.packages.typescript_links import Resolver, gather
from mcp_client import McpSession

COMPLETIONS = """export interface ChatCompletionCreateParamsBase {
  /**
   * What sampling temperature to use, between 0 and 2.
   */
  temperature?: number | null;

  /** ID of the model to use. */
  model: string;
}

export interface ChatCompletionCreateParamsStreaming extends ChatCompletionCreateParamsBase {
  /** If set, partial message deltas will be sent. */
  stream: true;
}

/** Red, green or blue. */
export enum Color {
  Red = "red",
}

export type Options = { timeout?: number };
"""

ERRORS = """export class APIError<TStatus extends number | undefined = number> extends Error {
  /** HTTP status for the response that caused the error */
  readonly status: TStatus;
  private secret: string;
}

export class RateLimitError extends APIError<429> {}
"""


def test_properties_are_entries_of_their_rows(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "sdk",
        {
            "README.md": "# SDK\n",
            "package.json": json.dumps(
                {"name": "sdk", "version": "1.0.0", "types": "src/index.ts"}
            ),
            "src/index.ts": 'export * from "./completions";\nexport * from "./error";\n',
            "src/completions.ts": COMPLETIONS,
            "src/error.ts": ERRORS,
        },
    )
    out = build_bundle(root, tmp_path / "idx")
    names = set(pq.read_table(out / "api.parquet").column("name").to_pylist())
    assert {
        "ChatCompletionCreateParamsBase.temperature",
        "ChatCompletionCreateParamsStreaming.temperature",  # inherited, as TypeDoc lists it
        "ChatCompletionCreateParamsStreaming.stream",
        "APIError.status",
        "RateLimitError.status",
    } <= names
    # private members, enum members and an object type's members are no entries of their own
    assert not {"APIError.secret", "Color.Red", "Options.timeout"} & names
    api = pq.read_table(out / "api.parquet").to_pylist()
    signatures = {e["name"]: e["signature"] for e in api}
    # the base's type parameters read as the child's `extends` gives them (TypeDoc: `429`)
    assert signatures["RateLimitError.status"] == "status: 429"
    assert signatures["APIError.status"] == "status: TStatus"
    with McpSession(out) as s:
        found = s.call(
            "get_api_reference", {"method": "ChatCompletionCreateParamsBase.temperature"}
        )
        entry = found.structured_content["entries"][0]
        assert entry["chunk_id"].startswith("src/completions.ts#")
        assert entry["signature"] == "temperature?: number | null"
        assert entry["description"] == "What sampling temperature to use, between 0 and 2."


def test_properties_without_semicolons_are_one_each() -> None:
    # zustand's `StoreApi`: no `;`, a line ending in a generic's `>`
    text = (
        "export interface StoreApi<T> {\n  setState: SetStateInternal<T>\n"
        "  getState: () => T\n  subscribe: (listener: (state: T) => void) => () => void\n}\n"
    )
    page = typescript_to_markdown("src/vanilla.ts", text)
    assert [(e.name, e.signature) for e in page.api][1:] == [
        ("StoreApi.setState", "setState: SetStateInternal<T>"),
        ("StoreApi.getState", "getState: () => T"),
        ("StoreApi.subscribe", "subscribe: (listener: (state: T) => void) => () => void"),
    ]


CHAIN = """export class Page<Item, Raw = Item[]> {
  /** The items. */
  items: Item[];
  raw: Raw;
  /** The next page. */
  next(after: Item): Promise<Page<Item>> { return null as never; }
}

export class CursorPage<T extends { id: string }> extends Page<T> {}

/** Pages of models. */
export class ModelsPage extends CursorPage<Model> {}
"""


def test_type_arguments_read_through_a_chain_of_bases() -> None:
    files = {"src/pagination.ts": CHAIN}
    resolver = Resolver(set(files), files.get, resolve_spec)
    extra = gather(dict.fromkeys(files, ""), {}, resolver).extra["src/pagination.ts"]
    page = typescript_to_markdown("src/pagination.ts", "\n".join([CHAIN, *extra]))
    text = page.text
    models = text[text.index("## ModelsPage") :]
    # `Item` is `T` under CursorPage and `Model` under ModelsPage; `Raw` its default
    assert "- `items: Model[]`: The items. *(inherited from `Page`)*" in models
    assert "- `raw: Model[]`" in models
    # a method is a link to Page's section; its entry has the child's signature
    assert "**Inherited from [Page](#page):** [next](#pagenext)" in models
    entry = next(e for e in page.api if e.name == "ModelsPage.next")
    assert entry.signature == "next(after: Model): Promise<Page<Model>>"
    cursor = text[text.index("## CursorPage") : text.index("## ModelsPage")]
    assert "- `items: T[]`" in cursor


def test_a_property_entry_is_its_row_of_the_page() -> None:
    page = typescript_to_markdown("src/completions.ts", COMPLETIONS)
    lines = page.text.split("\n")
    entry = next(e for e in page.api if e.name == "ChatCompletionCreateParamsBase.model")
    assert entry.line_start == entry.line_end
    assert lines[entry.line_start - 1].startswith("- `model: string`")


def test_bases_of_one_name_in_namespaces_are_both_read() -> None:
    # zod's `StandardSchemaWithJSONProps extends StandardSchemaV1.Props, StandardJSONSchemaV1.Props`
    text = (
        "export namespace A {\n  export interface Props {\n    a: string;\n  }\n}\n"
        "export namespace B {\n  export interface Props {\n    b: number;\n  }\n}\n"
        "export interface Both extends A.Props, B.Props {}\n"
        "export interface Other extends A.Props {}\n"
    )
    files = {"src/schema.ts": text}
    resolver = Resolver(set(files), files.get, resolve_spec)
    extra = gather(dict.fromkeys(files, ""), {}, resolver).extra["src/schema.ts"]
    names = [e.name for e in typescript_to_markdown("src/schema.ts", "\n".join([text, *extra])).api]
    assert {"Both.a", "Both.b", "Other.a"} <= set(names) and "Other.b" not in names
