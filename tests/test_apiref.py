"""API registry extraction (docsmcp.enrich.apiref): tiny inline fixtures for each structural rule, a
fuzz test, and the real corpora (yellow-docs, the speakeasy SDK docs, rust-reference)."""

from __future__ import annotations

import time
from functools import cache
from pathlib import Path

import pytest
from conftest import CORPORA, FUZZ_EXAMPLES, build_bundle
from docsmcp.chunking.chunk import chunk_parsed, parse_file
from docsmcp.enrich.apiref import extract_api
from docsmcp.model.api import ApiEntry
from docsmcp.model.api_fields import clean_inline
from docsmcp.model.chunk import ParsedFile
from docsmcp.model.source import SourceFile, Strategy
from docsmcp.sources.corpus import load_corpus
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.tools.app import DocsApp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def parse_text(text: str, path: str = "page.md") -> ParsedFile:
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # as the loader normalises
    sf = SourceFile(
        path=path,
        text=text,
        body=text,
        strategy=Strategy(),
        metadata=(),
        title=None,
        manifest=None,
    )
    return parse_file(sf)


def entries_of(text: str, path: str = "page.md") -> list[ApiEntry]:
    parsed = parse_text(text, path)
    return extract_api(parsed, chunk_parsed(parsed))


def by_name(entries: list[ApiEntry]) -> dict[str, ApiEntry]:
    return {e.name: e for e in entries}


# -- inline fixtures: one per rule ------------------------------------------------------------

METHOD_PAGE = """\
# Widget Methods

## create_widget

Creates a widget in the <Tooltip content={defs.workspace}>current workspace</Tooltip>.
See [the guide](./guide.md) for **details**.

### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| `size` | `uint32` | Yes | Size in pixels<br/>between 1 and 10 |
| `color` | [Color](#color) | No | The colour |

### Returns

**[Widget](../models/widget.md)**

### Example

```ts title="create.ts"
const widget = await client.create_widget(3, "red");
```
"""


def test_identifier_heading_with_parameter_table() -> None:
    [e] = entries_of(METHOD_PAGE)
    assert (e.name, e.kind, e.category) == ("create_widget", "method", "Widget Methods")
    assert e.description == "Creates a widget in the current workspace. See the guide for details."
    assert [(p.name, p.type, p.required) for p in e.parameters] == [
        ("size", "uint32", True),
        ("color", "Color", False),
    ]
    assert e.parameters[0].description == "Size in pixels between 1 and 10"
    assert e.returns == "Widget"
    assert e.signature == 'client.create_widget(3, "red")'
    assert [(x.language, x.code) for x in e.examples] == [
        ("typescript", 'const widget = await client.create_widget(3, "red");')
    ]
    assert (e.path, e.line_start, e.line_end) == ("page.md", 3, 23)
    assert e.chunk_id.endswith("create_widget") or "create" in e.chunk_id


def test_a_call_heading_whose_body_lists_its_arguments_is_an_entry() -> None:
    """Electron's and Node.js' API pages: `### app.getPath(name)`, then the arguments as a list
    (`name` string - ...). 86 of Electron's ~900 methods were entries (those with a code
    example); a list led by no argument of the call is no evidence."""
    text = (
        "# app\n\n## Methods\n\n### `app.getPath(name)`\n\n"
        "* `name` string - The path's name:\n  * `home` User's home directory.\n\n"
        "Returns `string` - A path.\n\n"
        "### `fs.readFile(path[, options], callback)`\n\n"
        "* `path` {string|Buffer|URL} filename or file descriptor\n"
        "* `options` Object (optional) - How to read.\n* `callback` Function\n\n"
        "### `app.quit()`\n\n* `home` the home folder\n"
    )
    found = by_name(entries_of(text))
    assert set(found) == {"app.getPath", "fs.readFile"}
    get_path = found["app.getPath"]
    assert get_path.signature == "app.getPath(name)" and get_path.kind == "method"
    assert [(p.name, p.type, p.description) for p in get_path.parameters] == [
        ("name", "string", "The path's name: * home User's home directory.")
    ]
    assert [(p.name, p.type, p.required) for p in found["fs.readFile"].parameters] == [
        ("path", "string|Buffer|URL", None),
        ("options", "Object (optional)", False),
        ("callback", "Function", None),
    ]


def test_signature_from_parameters_when_no_call_is_shown() -> None:
    text = METHOD_PAGE.split("### Example")[0]
    [e] = entries_of(text)
    assert e.signature == "create_widget(size, color)"
    assert e.examples == ()


def test_prose_headings_are_not_entries() -> None:
    text = """\
# Guide

## Creating widgets

| Name | Type | Description |
|------|------|-------------|
| size | int | Size |

## Parameters

| Name | Type | Description |
|------|------|-------------|
| size | int | Size |

## Overview

### Example

```python
overview()
```
"""
    assert entries_of(text) == []


def test_identifier_without_evidence_is_not_an_entry() -> None:
    text = """\
# API

## create_widget

Creates a widget. It takes a size and a colour.

## Closures

### Example

```rust
let add = |a, b| a + b;
```
"""
    # No table, list or code mentioning `create_widget`; "Closures" is a plain word whose
    # example never calls it.
    assert entries_of(text) == []


def test_plain_words() -> None:
    """A capitalised plain word needs a call or a type layout; a lowercase one is code."""
    table = "| Parameter | Type | Description |\n|---|---|---|\n| `amount` | string | How much |\n"
    guide = f"# Guide\n\n## Parameters\n\n{table}"
    assert entries_of(guide) == []
    rpc = f"# Transfers\n\n## transfer\n\nMoves funds.\n\n### Request\n\n{table}"
    assert [(e.name, e.kind) for e in entries_of(rpc)] == [("transfer", "method")]
    go = (
        "# Links\n\n## Create\n\nCreates.\n\n### Example Usage\n\n"
        "```go\nres, err := s.Links.Create(ctx, req)\n```\n\n"
        f"### Parameters\n\n{table}"
    )
    [e] = entries_of(go)
    assert (e.name, e.signature) == ("Create", "s.Links.Create(ctx, req)")


def test_nested_structure_tables_belong_to_the_entry() -> None:
    text = """\
# Channel Methods

## open_channel

Opens a channel.

### Request

| Parameter | Type | Required | Description |
|-----------|------|----------|-------------|
| `chain_id` | uint32 | Yes | Chain |

### Response

| Parameter | Type | Description |
|-----------|------|-------------|
| `channel_id` | string | Identifier |
| `channel` | Channel | Parameters |

#### Channel Structure

| Field | Type | Description |
|-------|------|-------------|
| `participants` | address[] | Both parties |
| `nonce` | uint64 | Unique number |

**Example**:

```json
{"participants": [], "nonce": 1}
```

## close_channel

Closes a channel.

### Request

| Parameter | Type | Required | Description |
|-----------|------|----------|-------------|
| `channel_id` | string | Yes | Channel |
"""
    entries = entries_of(text)
    assert [e.name for e in entries] == ["open_channel", "close_channel"]
    open_channel = entries[0]
    assert open_channel.kind == "method"
    assert [p.name for p in open_channel.parameters] == ["chain_id"]
    assert "channel_id" in open_channel.returns and "Channel" in open_channel.returns
    assert open_channel.examples[0].language == "json"
    assert open_channel.line_end < entries[1].line_start


def test_nested_identifier_with_own_evidence_is_its_own_entry() -> None:
    text = """\
# Sessions

## create_session

Creates a session.

### Request

| Parameter | Type | Required | Description |
|-----------|------|----------|-------------|
| `definition` | SessionDefinition | Yes | What the session is |

#### SessionDefinition

| Field | Type | Required | Description |
|-------|------|----------|-------------|
| `quorum` | number | Yes | Votes needed |
"""
    entries = by_name(entries_of(text))
    assert set(entries) == {"create_session", "SessionDefinition"}
    assert [p.name for p in entries["create_session"].parameters] == ["definition"]
    definition = entries["SessionDefinition"]
    assert definition.kind == "type"
    assert [p.name for p in definition.parameters] == ["quorum"]
    assert definition.category == "create_session"


def test_required_markers() -> None:
    text = """\
# Things

## do_thing

### Parameters

| Parameter | Type | Required | Description |
| --- | --- | --- | --- |
| `a` | *string* | :heavy_check_mark: | A |
| `b` | *number* | :heavy_minus_sign: | B |
| `c` | bool | Yes | C |
| `d` | bool | No | D |
| `e` | bool | | E |
| `f` | bool | Optional | F |

## other_thing

### Arguments

| Argument | Type | Description |
| --- | --- | --- |
| `x` | int | *Optional.* The x |
| `y` | int | The y |
"""
    entries = by_name(entries_of(text))
    required = {p.name: p.required for p in entries["do_thing"].parameters}
    assert required == {"a": True, "b": False, "c": True, "d": False, "e": None, "f": False}
    assert {p.name: p.type for p in entries["do_thing"].parameters}["a"] == "string"
    other = {p.name: p.required for p in entries["other_thing"].parameters}
    assert other == {"x": False, "y": None}


def test_jsx_links_and_escapes_are_stripped() -> None:
    assert (
        clean_inline('<Tooltip content={defs.channel}>channel</Tooltip> of <a href="x">it</a>')
        == "channel of it"
    )
    assert clean_inline("line<br/>break<br>here") == "line break here"
    assert clean_inline("**Promise\\<[operations.GetLinksResponse](../x.md)\\>**") == (
        "Promise<operations.GetLinksResponse>"
    )
    assert clean_inline("[OptionalNullable[models.Type]](../models/type.md)") == (
        "OptionalNullable[models.Type]"
    )
    assert clean_inline("`snake_case_name` and *emphasis* and __bold__") == (
        "snake_case_name and emphasis and bold"
    )
    text = """\
# Things

## `make_thing`

<Tooltip content={t.x}>Makes</Tooltip> a <b>thing</b>.

| Parameter | Type | Description |
|---|---|---|
| `kind` | <Tooltip content={t.k}>Kind</Tooltip> | What kind<br/>of thing |
"""
    [e] = entries_of(text, "page.mdx")
    assert e.description == "Makes a thing."
    assert (e.parameters[0].type, e.parameters[0].description) == ("Kind", "What kind of thing")


def test_usage_example_gives_call_signature_and_language() -> None:
    text = """\
# Links

## Overview

### Available Operations

* [create](#create) - Create a link

## create

Create a link for the authenticated workspace.

### Example Usage

```typescript
const result = await dub.links.create({
  url: "https://example.com",
});
```

### Parameters

| Parameter | Type | Required | Description |
| --- | --- | --- | --- |
| `request` | [operations.CreateLinkRequestBody](../x.md) | :heavy_check_mark: | The request |

### Response

**Promise\\<[components.LinkSchema](../../models/components/linkschema.md)\\>**

### Errors

| Error Type | Status Code | Content Type |
| --- | --- | --- |
| errors.BadRequest | 400 | application/json |
"""
    [e] = entries_of(text)
    assert (e.name, e.category, e.kind) == ("create", "Links", "method")
    assert e.signature == "dub.links.create(request)"
    assert e.returns == "Promise<components.LinkSchema>"
    assert e.examples[0].language == "typescript"
    assert e.parameters[0].type == "operations.CreateLinkRequestBody"


def test_heading_signatures_and_parameter_lists() -> None:
    text = """\
# Client

## State Operations

### `deposit(chainId, amount)`

Prepares a deposit.

**Parameters:**

- `chainId` (bigint) - Target chain
- `amount` (Decimal, optional): Amount to deposit

**Returns:** `Promise<State>`

### balance_update (Notification)

Sent when balances change.

#### Parameters

| Parameter | Type | Description |
|---|---|---|
| `balance_updates` | Balance[] | New balances |
"""
    entries = by_name(entries_of(text))
    deposit = entries["deposit"]
    assert (deposit.signature, deposit.kind) == ("deposit(chainId, amount)", "method")
    assert deposit.category == "State Operations"
    assert [(p.name, p.type, p.required) for p in deposit.parameters] == [
        ("chainId", "bigint", None),
        ("amount", "Decimal, optional", False),
    ]
    assert deposit.returns == "Promise<State>"
    # A spaced parenthetical is an annotation, not an argument list.
    assert entries["balance_update"].signature == "balance_update(balance_updates)"


def test_types_fields_enums_unions_and_declarations() -> None:
    model = """\
# CreateLinkRequestBody

## Example Usage

```typescript
let value: CreateLinkRequestBody = { url: "https://example.com" };
```

## Fields

| Field | Type | Required | Description |
| --- | --- | --- | --- |
| `url` | *string* | :heavy_check_mark: | The destination URL. |
"""
    [e] = entries_of(model, "docs/models/operations/createlinkrequestbody.md")
    assert (e.name, e.kind, e.category) == ("CreateLinkRequestBody", "type", "operations")
    assert [(p.name, p.type, p.required) for p in e.parameters] == [("url", "string", True)]

    enum = """\
# Color

The color of the tag.

## Values

| Name | Value |
| --- | --- |
| `ColorRed` | red |
"""
    [e] = entries_of(enum, "docs/models/color.md")
    assert (e.name, e.kind, e.description) == ("Color", "type", "The color of the tag.")
    assert [(p.name, p.description) for p in e.parameters] == [("ColorRed", "red")]

    union = """\
# Fields

## Supported Types

### `components.Fields1`

```typescript
const value: components.Fields1 = {};
```

### `components.Fields2`

```typescript
const value: components.Fields2 = {};
```
"""
    [e] = entries_of(union, "docs/models/fields.md")
    assert (e.name, e.kind) == ("Fields", "type")
    assert e.signature == "components.Fields1 | components.Fields2"

    declared = """\
## Types

### AppAllocation

```typescript
interface AppAllocation {
  participant: Address;
}
```
"""
    [e] = entries_of(declared)
    assert (e.name, e.kind, e.signature) == ("AppAllocation", "type", "interface AppAllocation")


def test_declaration_code_makes_a_method() -> None:
    text = """\
# Locker

## Functions

### lockStateOf

Returns the current lock state for a user.

```solidity
function lockStateOf(address user) public view returns (LockState);
```
"""
    [e] = entries_of(text)
    assert (e.name, e.kind, e.category) == ("lockStateOf", "method", "Locker")
    assert e.signature == "function lockStateOf(address user) public view returns (LockState)"
    assert e.returns == "LockState"
    assert e.description == "Returns the current lock state for a user."


TYPED_PAGE = """\
# Plugins

#### `useTranslations`

**type:** `(lang: string) => Translate`

Call `useTranslations()` with a language tag.

```ts
const t = useTranslations('zh-CN');
```

#### `addWidget`

**Type:** `(widget: Widget, options?: { order: number }) => void`

Adds a widget.

```ts
if (!loaded) {
  addWidget(makeWidget(), { order: 2 });
}
```

##### Options

###### `makeId()`

**Type:** `({ entry: string }) => string`

A nested option's type is its own, not the entry's.

#### `withState`

**Type:** `(action: Fn<T>) => (state: T, data: FormData) => Fn<T>`

Wraps a form action.

```ts
const run = withState(save);
```

#### `connect`

Connects to the server.

```ts
connect('wss://example.com');
```

#### `client.close`

**Signature:** `close(code?: number): Promise<void>`

Closes the connection.

```ts
await client.close(1000);
```
"""


def test_a_documented_type_is_the_signature_not_an_example_call() -> None:
    """Starlight's reference entries say their type on a `**type:**` line; the example below
    calls the name with arguments (`useTranslations('zh-CN')`), which had been taken as its
    signature. Without a documented type, the call stays the signature."""
    found = by_name(entries_of(TYPED_PAGE))
    use = found["useTranslations"]
    assert (use.kind, use.signature, use.returns) == (
        "method",
        "useTranslations(lang: string) => Translate",
        "Translate",
    )
    assert use.description.startswith("Call useTranslations()")  # the type is no description
    widget = found["addWidget"]
    assert widget.signature == "addWidget(widget: Widget, options?: { order: number }) => void"
    assert widget.returns == "void"
    assert found["connect"].signature == "connect('wss://example.com')"
    curried = found["withState"]  # the parameters are the first parentheses
    assert curried.signature == "withState(action: Fn<T>) => (state: T, data: FormData) => Fn<T>"
    assert curried.returns == "(state: T, data: FormData) => Fn<T>"
    assert found["client.close"].signature == "close(code?: number): Promise<void>"


def test_diagrams_are_not_examples_and_examples_are_bounded() -> None:
    blocks = "\n".join(f"```js\nrun_job({k});\n```\n" for k in range(8))
    text = (
        "## run_job\n\nRuns a job.\n\n```mermaid\ngraph TD; run_job-->done\n```\n\n"
        f"### Example\n\n{blocks}\n```js\n{'x' * 5000}\n```\n"
    )
    [e] = entries_of(text)
    assert len(e.examples) == 5
    assert all(x.language == "javascript" for x in e.examples)
    long = entries_of("## run_job\n\n### Example\n\n```js\nrun_job(" + "x" * 5000 + ")\n```\n")
    assert len(long[0].examples[0].code) == 4000


# -- fuzz --------------------------------------------------------------------------------------

FRAGMENTS = [
    "# Title",
    "## create_thing",
    "### `thing.update(a, b)`",
    "#### Parameters",
    "### Response",
    "## Example Usage",
    "### Fields",
    "## Values",
    "## Supported Types",
    "### `components.Thing`",
    "| Parameter | Type | Required | Description |",
    "| Field | Type |",
    "| --- | --- | --- | --- |",
    "|---|---|",
    "| `a` | *string* | :heavy_check_mark: | <Tooltip content={x}>A</Tooltip><br/> |",
    "| `b` | [T](x.md) | No |",
    "| | | | |",
    "```ts",
    "```",
    "~~~",
    "create_thing(1, 2);",
    "let value: Thing = {",
    "interface Thing {",
    "- `name` (string) - the name",
    "- **bold** (int): x",
    "**Parameters:**",
    "**Returns:** `Promise<T>`",
    ":::info Title",
    ":::",
    "<Tabs>",
    "</Tabs>",
    "import X from 'y';",
    "Some prose with [a link](x) and `code`.",
    "    indented code",
    "> quote",
    "",
    "---",
    "Setext",
    "===",
]


@settings(
    max_examples=FUZZ_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=30), max_size=40),
    st.sampled_from(["page.md", "page.mdx"]),
)
def test_arbitrary_markdown_never_raises(lines: list[str], path: str) -> None:
    text = "\n".join(lines)
    parsed = parse_text(text, path)
    chunks = chunk_parsed(parsed)
    ids = {c.id for c in chunks}
    n = len(parsed.lines)
    for e in extract_api(parsed, chunks):
        assert 1 <= e.line_start <= e.line_end <= n
        assert e.kind in ("method", "type")
        assert e.name and e.path == path
        assert e.chunk_id == "" or e.chunk_id in ids
        assert len(e.description) <= 500
        assert len(e.examples) <= 5
        assert all(len(x.code) <= 4000 for x in e.examples)


# -- real corpora ------------------------------------------------------------------------------

SPEAKEASY_SDKS = {
    "dub-ts": "typescript",
    "dub-python": "python",
    "dub-go": "go",
    "dub-php": "php",
    "dub-ruby": "ruby",
}


def _corpus_dir(name: str) -> Path:
    path = CORPORA / name
    if not path.is_dir():
        pytest.skip(f"shared corpus missing: {path} (set DOCSMCP_SHARED)")
    return path


@cache
def _extract(name: str) -> tuple[list[ApiEntry], float]:
    """Entries of a whole corpus and the seconds spent in extract_api alone."""
    corpus = load_corpus(_corpus_dir(name))
    entries: list[ApiEntry] = []
    spent = 0.0
    for sf in corpus.files:
        parsed = parse_file(sf)
        chunks = chunk_parsed(parsed)
        t0 = time.process_time()
        entries.extend(extract_api(parsed, chunks))
        spent += time.process_time() - t0
    return entries, spent


def _file_entries(corpus: str, path: str) -> list[ApiEntry]:
    root = _corpus_dir(corpus)
    [sf] = [f for f in load_corpus(root, include=(path,)).files if f.path == path]
    parsed = parse_file(sf)
    return extract_api(parsed, chunk_parsed(parsed))


@pytest.mark.corpus
def test_yellow_channel_methods() -> None:
    entries = by_name(
        _file_entries("yellow-docs", "docs/protocol/app-layer/off-chain/channel-methods.mdx")
    )
    assert {"create_channel", "close_channel", "resize_channel"} <= set(entries)
    create = entries["create_channel"]
    assert create.kind == "method"
    assert create.category == "Channel Management Methods"
    assert create.signature == "create_channel(chain_id, token)"
    params = {p.name: p for p in create.parameters}
    assert list(params) == ["chain_id", "token"]  # not the nested Channel/State fields
    assert (params["chain_id"].type, params["chain_id"].required) == ("uint32", True)
    assert params["token"].required is True
    assert create.description.startswith("Initiates the creation of a payment channel")
    assert "<Tooltip" not in create.description and "tooltipDefinitions" not in create.description
    assert create.examples and all(x.language != "mermaid" for x in create.examples)
    assert "channel_id" in create.returns and "State" in create.returns
    assert create.chunk_id
    # The nested "Channel Structure" field table is no entry of its own.
    assert all(e.kind == "method" for e in entries.values())


@pytest.mark.corpus
def test_yellow_sdk_and_contract_references() -> None:
    ts = by_name(_file_entries("yellow-docs", "docs/build/sdk/typescript/api-reference.mdx"))
    assert {"deposit", "withdraw", "transfer", "checkpoint"} <= set(ts)
    assert ts["deposit"].signature == "deposit(blockchainId, asset, amount)"
    assert [p.name for p in ts["deposit"].parameters] == ["blockchainId", "asset", "amount"]
    assert ts["deposit"].category == "State Operations (Off-Chain)"

    sessions = by_name(_file_entries("yellow-docs", "docs/api-reference/app-sessions.md"))
    assert {"create_app_session", "submit_app_state", "close_app_session"} <= set(sessions)
    assert sessions["AppDefinition"].kind == "type"
    assert sessions["create_app_session"].examples[0].language == "json"

    lock = by_name(
        _file_entries("yellow-docs", "docs/build/api/contracts/api-reference/interfaces/ilock.md")
    )
    assert lock["balanceOf"].signature.startswith("function balanceOf(address user)")
    assert lock["balanceOf"].returns == "uint256"
    assert lock["LockState"].kind == "type"


@pytest.mark.corpus
@pytest.mark.parametrize(("sdk", "language"), sorted(SPEAKEASY_SDKS.items()))
def test_speakeasy_links_create(sdk: str, language: str) -> None:
    entries = _file_entries("speakeasy-sdks", f"{sdk}/docs/sdks/links/README.md")
    names = {e.name.lower() for e in entries}
    assert {"list", "create", "get", "delete", "update", "upsert"} <= names
    assert "links" not in names and "overview" not in names
    [create] = [e for e in entries if e.name.lower() == "create"]
    assert (create.category, create.kind) == ("Links", "method")
    assert create.description == "Create a link for the authenticated workspace."
    assert any(p.name.lstrip("$") == "request" for p in create.parameters)
    request = next(p for p in create.parameters if p.name.lstrip("$") == "request")
    assert request.required in (True, None) and "CreateLinkRequestBody" in request.type
    assert any(x.language == language for x in create.examples)
    assert "LinkSchema" in create.returns or "CreateLinkResponse" in create.returns
    assert "create" in create.signature.lower()


@pytest.mark.corpus
@pytest.mark.parametrize("sdk", sorted(SPEAKEASY_SDKS))
def test_speakeasy_models_are_types(sdk: str) -> None:
    root = _corpus_dir("speakeasy-sdks")
    matches = sorted(
        root.glob(f"{sdk}/docs/[mM]odels/[oO]perations/[cC]reate[lL]ink[rR]equest[bB]ody.md")
    )
    if not matches:
        pytest.skip(f"{sdk} has no CreateLinkRequestBody model page")
    path = matches[0].relative_to(root).as_posix()
    [entry] = _file_entries("speakeasy-sdks", path)
    assert (entry.name, entry.kind) == ("CreateLinkRequestBody", "type")
    fields = {p.name.lower().lstrip("$"): p for p in entry.parameters}
    assert "url" in fields and fields["url"].required is True
    assert "domain" in fields and fields["domain"].required is False


@pytest.mark.corpus
def test_corpus_counts_and_speed() -> None:
    """Every SDK's methods come from its sdks/ pages; rust-reference (prose about a language,
    no API pages) yields next to nothing; extraction is a small fraction of parsing."""
    entries, spent = _extract("speakeasy-sdks")
    methods = [e for e in entries if e.kind == "method"]
    assert len(methods) > 500 and len(entries) > 4000
    for e in methods:
        assert "/sdks/" in e.path or e.path.endswith("/option.md"), e
    assert spent < 5.0  # CPU seconds (~0.5 s); the clock is not the code's on a loaded machine
    rust, _ = _extract("rust-reference")
    assert sum(e.kind == "method" for e in rust) == 0
    assert len(rust) <= 3
    yellow, _ = _extract("yellow-docs")
    assert sum(e.kind == "method" for e in yellow) > 50


def _typedoc_section(name: str, said: str) -> str:
    """A type as TypeDoc's HTML theme writes it inside MDX (the MCP specification's schema)."""
    return (
        f"### `{name}`\n\n"
        f'<div class="tsd-signature"><span class="tsd-signature-keyword">interface</span> '
        f'<span class="tsd-kind-interface">{name}</span> <span>&#x7B;</span><br/>'
        '&nbsp;&nbsp;<a class="tsd-kind-property" href="#x-content">content</a>'
        '<span>:</span> <span class="tsd-signature-type">ContentBlock</span><span>&#x5B;]</span>'
        '<span>;</span><br/>&nbsp;&nbsp;<a href="#x-iserror">isError</a><span>?:</span> '
        '<span class="tsd-signature-type">boolean</span><span>;</span><br/><span>}</span></div> '
        f'<div class="tsd-comment tsd-typography"><p>{said}</p> </div> '
        '<section class="tsd-panel tsd-member"> <div class="tsd-anchor-link" id="x-content">'
        "<span>content: ContentBlock&#x5B;]</span></div> "
        '<div class="tsd-comment tsd-typography"><p>What the call returned.</p> </div></section> '
        '<section class="tsd-panel tsd-member"> <div class="tsd-anchor-link" id="x-iserror">'
        '<span>isError?: boolean</span></div> <aside class="tsd-sources"> '
        "<p>Inherited from Result.isError</p></aside></section>\n"
    )


def test_a_typedoc_declaration_in_mdx_is_an_entry_of_the_latest_version(tmp_path: Path) -> None:
    """The MCP schema page writes each type as TypeDoc HTML (a signature `<div>`, then the
    comment, then a section per member): its text reads `interface CallToolResult {`, a member
    per line, `}`, which is the declaration (mcp-docs had no API entry, now 407). Without a
    version filter get_api_reference answers from the latest release, as search does."""
    docs = tmp_path / "docs"
    for version, said in (("2025-06-18", "The old result."), ("2026-07-28", "The result.")):
        page = docs / "spec" / version / "schema.mdx"
        page.parent.mkdir(parents=True)
        page.write_text(
            "# Schema\n\n## `tools/call`\n\n" + _typedoc_section("CallToolResult", said),
            encoding="utf-8",
        )
    app = DocsApp(open_bundle(build_bundle(docs, tmp_path / "idx")))

    def lookup(**args: str) -> dict:
        result = app.call_tool("get_api_reference", {"method": "CallToolResult", **args})
        assert not result.get("isError"), result
        return result["structuredContent"]

    latest = lookup()
    (entry,) = latest["entries"]
    assert entry["chunk_id"].startswith("spec/2026-07-28/schema.mdx#")
    assert entry["kind"] == "type"
    assert entry["signature"] == (
        "interface CallToolResult { content: ContentBlock[]; isError?: boolean; }"
    )
    assert entry["description"] == "The result."
    assert [
        (p["name"], p["type"], p["required"], p["description"]) for p in entry["parameters"]
    ] == [
        ("content", "ContentBlock[]", True, "What the call returned."),
        ("isError", "boolean", False, ""),  # "Inherited from …" says nothing of it
    ]
    assert latest["notes"][0].startswith("Searched version 2026-07-28 (latest release)")
    (old,) = lookup(version="2025-06-18")["entries"]
    assert old["description"] == "The old result."


def test_get_api_reference_notes_only_the_versions_it_restricted(tmp_path: Path) -> None:
    """Docs with versions and frameworks (Ionic's shape): the entries are restricted to the
    latest version, not folded across frameworks, so the notes say the first only."""
    docs = tmp_path / "docs"
    for version in ("v1", "v2"):
        for framework in ("react", "vue"):
            folder = docs / version / "framework" / framework
            folder.mkdir(parents=True)
            for page in ("a", "b"):
                (folder / f"{page}.mdx").write_text(f"# {page}\n\nAbout {page}.\n", "utf-8")
            (folder / "schema.mdx").write_text(
                "# Schema\n\n" + _typedoc_section("CallToolResult", f"In {framework}."), "utf-8"
            )
    app = DocsApp(open_bundle(build_bundle(docs, tmp_path / "idx")))
    found = app.call_tool("get_api_reference", {"method": "CallToolResult"})["structuredContent"]
    assert sorted(e["chunk_id"].split("/schema")[0] for e in found["entries"]) == [
        "v2/framework/react",
        "v2/framework/vue",
    ]
    assert found["notes"] == [
        "Searched version v2 (latest release) and unversioned pages; pass version=… for another."
    ]
