"""TypeScript packages: the TSDoc/JSDoc of a package's API read as the pages TypeDoc publishes,
and only the files its entry points export. Fixtures are written in the shape of date-fns'
`src/addDays/index.ts` (typedoc.json entry points, JSDoc tags) and a Stainless SDK such as
openai-node (`package.json` `types: dist/index.d.ts`, resource classes re-exported through a
`namespace`, overloads, `@example` fences)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, page_texts, run_docsmcp
from docsmcp.sources.formats.source.ts_decls import declarations
from docsmcp.sources.formats.source.ts_scan import blank
from docsmcp.sources.formats.source.tsdoc import module_name, typescript_to_markdown
from docsmcp.sources.packages import typescript_entries, typescript_site
from docsmcp.sources.packages.typescript_links import (
    Resolver,
    gather,
    heritage,
    namespaces,
    referenced_modules,
)
from docsmcp.sources.roles import classify
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

ADD_DAYS = """import { toDate } from "../toDate/index.ts";
import type { ContextOptions, DateArg } from "../types.ts";

/**
 * The {@link addDays} function options.
 */
export interface AddDaysOptions<DateType extends Date = Date>
  extends ContextOptions<DateType> {}

/**
 * @name addDays
 * @category Day Helpers
 * @summary Add the specified number of days to the given date.
 *
 * @description
 * Add the specified number of days to the given date.
 *
 * @typeParam DateType - The `Date` type, the function operates on.
 *
 * @param date - The date to be changed
 * @param amount - The amount of days to be added.
 * @param options - An object with options
 *
 * @returns The new date with the days added
 *
 * @example
 * // Add 10 days to 1 September 2014:
 * const result = addDays(new Date(2014, 8, 1), 10)
 * //=> Thu Sep 11 2014 00:00:00
 */
export function addDays<
  DateType extends Date,
  ResultDate extends Date = DateType,
>(
  date: DateArg<DateType>,
  amount: number,
  options?: AddDaysOptions<ResultDate> | undefined,
): ResultDate {
  const _date = toDate(date, options?.in);
  if (isNaN(amount)) return { "}": "{" } as never;
  const re = /[{}]/g; // a regex of braces is no block
  return _date;
}

function notExported() {}
"""

COMPLETIONS = """import { APIResource } from '../../../core/resource';
import * as MessagesAPI from './messages';

/**
 * Given a list of messages comprising a conversation, the model will return a response.
 */
export class Completions extends APIResource {
  messages: MessagesAPI.Messages = new MessagesAPI.Messages(this._client);

  /**
   * Creates a model response for the given chat conversation.
   *
   * @example
   * ```ts
   * const chatCompletion = await client.chat.completions.create({
   *   messages: [{ content: 'string', role: 'developer' }],
   *   model: 'gpt-5.4',
   * });
   * ```
   */
  create(body: ParamsNonStreaming, options?: RequestOptions): APIPromise<ChatCompletion>;
  create(
    body: ParamsStreaming,
    options?: RequestOptions,
  ): APIPromise<Stream<ChatCompletionChunk>>;
  create(body: Params, options?: RequestOptions): APIPromise<ChatCompletion> {
    return this._client.post('/chat/completions', { body, ...options, stream: false });
  }

  /**
   * @deprecated Use {@link Completions.create} instead.
   */
  legacy(body: string): void {}

  /** @internal */
  _internal(): void {}

  private secret(): string {
    return `${'}'}`;
  }
}

export interface ChatCompletionCreateParamsBase {
  /**
   * ID of the model to use.
   */
  model: string;

  /**
   * Whether to stream back partial progress.
   */
  stream?: boolean | null;

  /**
   * @deprecated This feature is in Beta. If specified, our system will make a best
   * effort to sample deterministically.
   */
  seed?: number | null;
}

export declare namespace Completions {
  export { type ChatCompletionCreateParamsBase as ChatCompletionCreateParamsBase };
}
"""


def test_a_module_reads_as_its_typedoc_page() -> None:
    page = typescript_to_markdown("src/addDays/index.ts", ADD_DAYS)
    assert page.title == "addDays"
    lines = page.text.split("\n")
    assert lines[0] == "# addDays"
    assert "## addDays" in lines and "## AddDaysOptions" in lines
    assert "## notExported" not in lines  # not exported: TypeDoc does not document it
    assert "Add the specified number of days to the given date." in page.text
    assert "- `amount` (`number`): The amount of days to be added." in lines
    assert "**Returns** `ResultDate`: The new date with the days added" in lines
    assert "@category" not in page.text and "@name" not in page.text
    entry = {e.name: e for e in page.api}["addDays"]
    assert entry.kind == "method"
    assert entry.signature.startswith("function addDays<DateType extends Date, ResultDate")
    assert [(p.name, p.type, p.required) for p in entry.parameters] == [
        ("date", "DateArg<DateType>", True),
        ("amount", "number", True),
        ("options", "AddDaysOptions<ResultDate> | undefined", False),
    ]
    assert entry.returns == "ResultDate: The new date with the days added"
    assert entry.examples[0].code.startswith("// Add 10 days")
    assert entry.description == "Add the specified number of days to the given date."
    # every markdown line maps to a line of the file, in order
    assert len(page.line_map) == page.text.count("\n") + 1
    assert list(page.line_map) == sorted(page.line_map)


def test_a_class_shows_its_public_members_and_overloads() -> None:
    page = typescript_to_markdown("src/resources/chat/completions/completions.ts", COMPLETIONS)
    assert page.title == "resources/chat/completions/completions"
    names = [e.name for e in page.api]
    # (a property is an entry of its row: test_typescript_members.py)
    assert names == [
        "Completions",
        "Completions.messages",
        "Completions.create",
        "Completions.legacy",
        "ChatCompletionCreateParamsBase",
        "ChatCompletionCreateParamsBase.model",
        "ChatCompletionCreateParamsBase.stream",
        "ChatCompletionCreateParamsBase.seed",
    ]
    create = page.api[2]
    assert create.returns == "APIPromise<ChatCompletion>"
    assert create.examples[0].code.startswith("const chatCompletion = await client.chat")
    # the overloads are shown, not the implementation's signature (as TypeDoc)
    assert "create(body: ParamsNonStreaming, options?: RequestOptions)" in page.text
    assert "create(body: ParamsStreaming, options?: RequestOptions)" in page.text
    assert "create(body: Params," not in page.text
    assert "**Deprecated.** Use `Completions.create` instead." in page.text
    assert page.api[3].description.startswith("Deprecated.")
    assert "secret" not in page.text and "_internal" not in page.text
    params = page.api[4].parameters
    assert [(p.name, p.type, p.required) for p in params] == [
        ("model", "string", True),
        ("stream", "boolean | null", False),
        ("seed", "number | null", False),
    ]
    assert params[0].description == "ID of the model to use."
    assert "- `messages: MessagesAPI.Messages`" in page.text.split("\n")
    # each entry starts at its heading (a member's text of several lines is one list line)
    lines = page.text.split("\n")
    assert all(lines[e.line_start - 1].startswith(("#", "- `")) for e in page.api)
    assert len(page.line_map) == len(lines)


def test_a_module_page_is_generated_whatever_its_name() -> None:
    # TypeDoc's listing of the API, as a Sphinx autodoc page: guides answer questions in words
    # first, an identifier query leaves it at full weight (the runtime's prior)
    assert classify("src/migration.ts", None, {}, "# migration\n") == "generated"
    assert classify("src/client.ts", "client", {}, "") == "generated"


def test_a_file_without_exports_is_no_page() -> None:
    assert typescript_to_markdown("x.ts", "function f() {}\nconst x = 1;\n").text == ""
    assert typescript_to_markdown("x.ts", "/** @internal */\nexport function f() {}\n").text == ""
    assert module_name("src/addDays/index.ts") == "addDays"
    assert module_name("lib/index.d.ts") == "index"


def _sdk(root: Path) -> Path:
    """A Stainless-shaped SDK: package.json names the built types, tsconfig maps dist to src."""
    (root / "src/resources/chat").mkdir(parents=True)
    (root / "src/internal").mkdir(parents=True)
    (root / "docs/components").mkdir(parents=True)
    (root / "package.json").write_text(
        json.dumps({"name": "acme", "types": "dist/index.d.ts", "main": "dist/index.js"})
    )
    (root / "tsconfig.json").write_text(
        '{\n  // built by tsc\n  "compilerOptions": {"outDir": "dist", "rootDir": "src",},\n}\n'
    )
    (root / "README.md").write_text("# Acme\n\nThe Acme SDK.\n")
    (root / "src/index.ts").write_text(
        "export { Acme as default } from './client';\nexport { Acme } from './client';\n"
    )
    (root / "src/client.ts").write_text(
        "import { Completions } from './resources/chat/completions';\n"
        "import { helper } from './internal/helper';\n"
        "/** The Acme client. */\nexport class Acme {\n"
        "  /** @param opts - the options */\n  constructor(opts: { apiKey?: string } = {}) {}\n"
        "}\nexport declare namespace Acme {\n  export { Completions as Completions };\n}\n"
    )
    (root / "src/resources/chat/completions.ts").write_text(COMPLETIONS)
    (root / "src/internal/helper.ts").write_text("/** Not API. */\nexport function helper() {}\n")
    (root / "src/client.test.ts").write_text("export function testHelper() {}\n")
    (root / "docs/components/Button.tsx").write_text("export function Button() {}\n")
    (root / "docs/guide.md").write_text("# Guide\n\nCall `client.chat.completions.create`.\n")
    return root


def test_only_what_the_entry_points_export_is_read(tmp_path: Path) -> None:
    out = build_bundle(_sdk(tmp_path / "acme"), tmp_path / "idx")
    texts = page_texts(out)
    assert set(texts) == {
        "README.md",
        "docs/guide.md",
        "src/client.ts",
        "src/resources/chat/completions.ts",
    }
    with McpSession(out) as s:
        found = s.call("get_api_reference", {"method": "Completions.create"})
        assert not found.is_error
        entry = found.structured_content["entries"][0]
        assert entry["chunk_id"].startswith("src/resources/chat/completions.ts#")
        assert [p["name"] for p in entry["parameters"]] == ["body", "options"]
        acme = s.call("get_api_reference", {"method": "Acme"}).structured_content["entries"][0]
        assert [p["name"] for p in acme["parameters"]] == ["opts"]
        hits = s.search(query="Creates a model response for the given chat conversation")["hits"]
    assert hits[0]["chunk_id"].startswith("src/resources/chat/completions.ts#")
    names = pq.read_table(out / "api.parquet").column("name").to_pylist()
    assert "helper" not in names and "Button" not in names and "testHelper" not in names


def test_typedoc_entry_points_decide(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    for name in ("addDays", "subDays"):
        (root / "src" / name).mkdir(parents=True)
        (root / "src" / name / "index.ts").write_text(ADD_DAYS.replace("addDays", name))
    (root / "src/_lib").mkdir()
    (root / "src/_lib/util.ts").write_text("export function util() {}\n")
    (root / "typedoc.json").write_text(
        '// generated\n{\n  "name": "lib",\n  "entryPoints": ["./src/*/index.ts"],\n}\n'
    )
    out = build_bundle(root, tmp_path / "idx")
    assert set(page_texts(out)) == {"src/addDays/index.ts", "src/subDays/index.ts"}


def test_init_and_build_say_where_the_api_is(tmp_path: Path) -> None:
    root = _sdk(tmp_path / "acme")
    (root / "typedoc.json").write_text('{"entryPoints": ["src/index.ts"]}')
    proc = run_docsmcp("init", "--docs-dir", root)
    assert "site: TypeScript package (typedoc.json names the entry points): 3 files" in (
        proc.stderr
    )
    # the docs folder of the package: its API is read when the package's folder is built
    proc = run_docsmcp("init", "--docs-dir", root / "docs")
    assert f"(--docs-dir {root.resolve()})" in proc.stderr
    assert "warning" not in proc.stderr
    proc = run_docsmcp("build", "--docs-dir", root / "docs", "--out", tmp_path / "idx")
    assert proc.stderr.count("is a TypeScript package's docs") == 1


SLUGIFY_D_TS = """/**
 * Make a slug.
 * @param input - the text
 */
declare function slugify(input: string, options?: slugify.Options): string;
declare namespace slugify {
  /** Options of {@link slugify}. */
  interface Options {
    /** The separator. */
    separator?: string;
  }
}
export = slugify;
"""


def test_a_hand_written_declaration_file_is_read(tmp_path: Path) -> None:
    # a JavaScript package whose types are one `index.d.ts` in the CommonJS shape
    page = typescript_to_markdown("index.d.ts", SLUGIFY_D_TS)
    assert [e.name for e in page.api] == ["slugify", "slugify.Options", "slugify.Options.separator"]
    assert (
        page.api[0].signature
        == "function slugify(input: string, options?: slugify.Options): string"
    )
    assert page.api[1].parameters[0].name == "separator"
    root = tmp_path / "slugify"
    root.mkdir()
    (root / "package.json").write_text(json.dumps({"main": "index.js", "types": "index.d.ts"}))
    (root / "index.d.ts").write_text(SLUGIFY_D_TS)
    (root / "README.md").write_text("# slugify\n\nSlugs.\n")
    assert set(page_texts(build_bundle(root, tmp_path / "idx"))) == {"README.md", "index.d.ts"}


def test_a_monorepo_reads_each_packages_entry_points(tmp_path: Path) -> None:
    # TypeDoc's `packages` strategy: each package folder's own package.json or typedoc.json
    root = tmp_path / "repo"
    (root / "packages/core/src").mkdir(parents=True)
    (root / "packages/react/src/hooks").mkdir(parents=True)
    (root / "examples/app/src").mkdir(parents=True)
    (root / "typedoc.json").write_text(
        '{"entryPointStrategy": "packages", "entryPoints": ["packages/*"]}'
    )
    (root / "packages/core/package.json").write_text(json.dumps({"types": "dist/index.d.ts"}))
    (root / "packages/core/src/index.ts").write_text(ADD_DAYS)
    (root / "packages/react/typedoc.json").write_text(
        '{"entryPointStrategy": "expand", "entryPoints": ["src/hooks"]}'
    )
    (root / "packages/react/package.json").write_text("{}")
    (root / "packages/react/src/hooks/useDays.ts").write_text(
        "/** A hook. */\nexport function useDays() {}\n"
    )
    (root / "packages/react/src/internal.ts").write_text("export function internal() {}\n")
    (root / "examples/app/package.json").write_text(json.dumps({"types": "src/main.ts"}))
    (root / "examples/app/src/main.ts").write_text("export function main() {}\n")
    out = build_bundle(root, tmp_path / "idx")
    assert set(page_texts(out)) == {
        "packages/core/src/index.ts",
        "packages/react/src/hooks/useDays.ts",
    }


def test_api_source_names_the_package_inside_the_docs(tmp_path: Path) -> None:
    # a repository whose SDK is one folder down: --api-source names it
    repo = tmp_path / "repo"
    _sdk(repo / "packages/sdk")
    (repo / "package.json").write_text(json.dumps({"private": True, "workspaces": ["packages/*"]}))
    (repo / "package.json").write_text(json.dumps({"private": True}))
    plain = set(page_texts(build_bundle(repo, tmp_path / "idx")))
    assert not any(p.endswith(".ts") for p in plain)
    named = build_bundle(repo, tmp_path / "idx2", "--api-source", repo / "packages/sdk")
    api = {"packages/sdk/src/client.ts", "packages/sdk/src/resources/chat/completions.ts"}
    assert set(page_texts(named)) - plain == api
    # a workspace root names no API by itself (a monorepo's docs site is its reference: Jest's
    # repository read 158 module pages of its packages' internals); TypeDoc's `packages`
    # strategy in a typedoc.json reads each workspace package's entry points
    (repo / "examples/app/src").mkdir(parents=True)
    (repo / "examples/app/package.json").write_text(
        json.dumps({"private": True, "main": "src/main.ts"})
    )
    (repo / "examples/app/src/main.ts").write_text("export function main() {}\n")
    (repo / "package.json").write_text(
        json.dumps({"private": True, "workspaces": ["packages/*", "examples/*"]})
    )
    assert set(page_texts(build_bundle(repo, tmp_path / "idx3"))) == plain
    (repo / "typedoc.json").write_text(
        '{"entryPointStrategy": "packages", "entryPoints": ["packages/*", "examples/*"]}'
    )
    assert set(page_texts(build_bundle(repo, tmp_path / "idx4"))) - plain == api


def test_a_site_without_a_package_reads_no_typescript(tmp_path: Path) -> None:
    root = tmp_path / "site"
    (root / "src/components").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "package.json").write_text(json.dumps({"name": "site", "private": True}))
    (root / "docusaurus.config.ts").write_text("export default { title: 'Site' };\n")
    (root / "src/components/Card.tsx").write_text("/** A card. */\nexport function Card() {}\n")
    (root / "docs/intro.md").write_text("# Intro\n\nHello.\n")
    out = build_bundle(root, tmp_path / "idx")
    assert set(page_texts(out)) == {"docs/intro.md"}


def test_exports_followed_are_relative_and_in_code() -> None:
    text = (
        "// export * from './commented'\n"
        "export * from './a.js';\n"
        'export * as ns from "./b";\n'
        "import { C, type D as E } from './c';\n"
        "import F from './f';\n"
        "import { G } from 'external';\n"
        "const s = \"export * from './in-string'\";\n"
        "export { C, E, G };\nexport default F;\n"
    )
    assert typescript_site.exported_modules(text) == ["./a.js", "./b", "./c", "external", "./f"]
    jsonc = '{"a": "//x", /* c */ "b": [1,],}'
    assert typescript_entries.strip_jsonc(jsonc) == '{"a": "//x",  "b": [1]}'


HOSTILE = [
    "{" * 5000,
    "}" * 5000 + "export function f() {}",
    "/**" + " * @param x\n" * 2000,
    "`${" * 3000,
    "export class A {\n" + "  m(" * 2000,
    "export type T = " + "<" * 5000,
    "export const x = " + "(" * 5000 + "=>",
    "/" * 5000,
    "export interface I {\n" + "  a: {\n" * 3000,
]


def test_hostile_text_reads_quickly() -> None:
    for text in HOSTILE:
        start = time.process_time()
        typescript_to_markdown("x.ts", text)
        typescript_site.exported_modules(text)
        assert time.process_time() - start < 5, text[:40]


_PARTS = [
    "export ",
    "export default ",
    "declare ",
    "function f",
    "class C",
    "interface I",
    "type T = ",
    "enum E",
    "const c = ",
    "namespace N",
    "(a: string, b?: number)",
    "<T extends {}>",
    ": Promise<{ a: 1 }>",
    " {",
    "}",
    ";",
    "\n",
    "  m(x): void;\n",
    "  p?: string;\n",
    "/** doc {@link X} @param a - text @returns r @example x */\n",
    "/**\n * @deprecated\n * ```ts\n * code\n */\n",
    "/**\n * @deprecated two\n * lines\n * @returns two\n * lines\n */\n",
    "'str{'",
    '"str}"',
    "`t${a}`",
    "/re{/g",
    "// c {\n",
    "=>",
    "import { A } from './a';\n",
    "export { A };\n",
    "export * from './b';\n",
]


@FUZZ
@given(st.lists(st.sampled_from(_PARTS), max_size=40))
def test_any_typescript_reads_without_error(parts: list[str]) -> None:
    text = "".join(parts)
    for path in ("x.ts", "x.d.ts"):
        page = typescript_to_markdown(path, text)
        assert len(page.line_map) == (page.text.count("\n") + 1 if page.text else 0)
        lines = page.text.split("\n")
        for entry in page.api:
            assert 1 <= entry.line_start <= entry.line_end <= len(page.line_map)
            assert lines[entry.line_start - 1].startswith("#")
    scanned = blank(text)
    assert len(scanned.code) == len(text)
    assert scanned.code.count("\n") == text.count("\n")
    typescript_site.exported_modules(text)


@FUZZ
@given(st.text(max_size=300))
def test_any_text_reads_without_error(text: str) -> None:
    typescript_to_markdown("x.ts", text)
    typescript_entries.strip_jsonc(text)


# --- what a page shows from other files: bases, referenced types (typescript_links.py) -------

ERRORS = """import { OpenAIError } from './base';

export class APIError<TStatus extends number = number> extends OpenAIError {
  /** HTTP status for the response that caused the error */
  readonly status: TStatus;

  /** Make the error its status names. */
  static generate(status: number): APIError {
    return new APIError();
  }
}

export class RateLimitError extends APIError<429> {}

/** A loop a user wrote by mistake ends. */
export class Loop extends Again {}
class Again extends Loop {}
"""

PAGINATION = """import type { PageOptions } from './internal/options';

export abstract class AbstractPage<Item> implements AsyncIterable<Item> {
  protected options: PageOptions;

  /** Whether there is a next page. */
  hasNextPage(): boolean {
    return true;
  }

  /**
   * The next page.
   * @returns the page after this one
   */
  async getNextPage(): Promise<this> {
    return this;
  }
}

export class CursorPage<Item extends { id: string }>
  extends AbstractPage<Item>
  implements AsyncIterable<Item>
{
  override hasNextPage(): boolean {
    return false;
  }

  list(options?: PageOptions): Item[] {
    return [];
  }
}
"""


def _inheriting_sdk(root: Path) -> Path:
    """openai-node's shape: errors extend a base of a module no entry point exports, a page
    class extends an abstract page, and a method names an options type kept internal."""
    (root / "src/internal").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "acme", "types": "dist/index.d.ts"}))
    (root / "src/index.ts").write_text(
        "export * from './errors';\nexport { CursorPage, AbstractPage } from './pagination';\n"
    )
    (root / "src/errors.ts").write_text(ERRORS)
    (root / "src/base.ts").write_text(
        "/** The base of the SDK's errors. */\nexport class OpenAIError extends Error {\n"
        "  /** Why it failed, in words. */\n  explain(): string {\n    return '';\n  }\n}\n"
    )
    (root / "src/pagination.ts").write_text(PAGINATION)
    (root / "src/internal/options.ts").write_text(
        "import type { Headers } from './headers';\n\n/** How a page is requested. */\n"
        "export interface PageOptions {\n  /** The page's size. */\n  limit?: number;\n"
        "  headers?: Headers;\n}\n\n/** Not named by the API. */\nexport interface Unused {}\n"
    )
    (root / "src/internal/headers.ts").write_text(
        "/** HTTP headers. */\nexport type Headers = Record<string, string>;\n"
    )
    return root


def test_inherited_members_show_under_the_child(tmp_path: Path) -> None:
    out = build_bundle(_inheriting_sdk(tmp_path / "acme"), tmp_path / "idx")
    texts = page_texts(out)
    errors = texts["src/errors.ts"]
    assert "*(inherited from `APIError`)*" in errors  # status, listed under RateLimitError
    # a method inherited is a link to the base's section, on this page or another
    # (test_typescript_inherit.py), not a copy
    assert "### RateLimitError.generate" not in errors
    assert "**Inherited from [APIError](#apierror):** [generate](#apierrorgenerate)" in errors
    # the base's base, another file
    assert "**Inherited from [OpenAIError](base.ts#openaierror):** [explain](" in errors
    pages = texts["src/pagination.ts"]
    assert "### CursorPage.getNextPage" not in pages
    assert "[getNextPage](#abstractpagegetnextpage)" in pages
    names = pq.read_table(out / "api.parquet").column("name").to_pylist()
    # an override is the child's own; an inherited method is an entry of the child
    assert names.count("CursorPage.hasNextPage") == 1
    # an override without a comment of its own shows the base's, marked (TypeDoc)
    assert "*Overrides `AbstractPage.hasNextPage`*" in pages
    assert pages.count("Whether there is a next page.") == 2
    assert {"CursorPage.getNextPage", "RateLimitError.explain", "APIError.explain"} <= set(names)
    with McpSession(out) as s:
        found = s.call("get_api_reference", {"method": "CursorPage.getNextPage"})
        entry = found.structured_content["entries"][0]
        assert (
            entry["chunk_id"] == "src/pagination.ts#pagination/abstractpage/abstractpagegetnextpage"
        )
        assert entry["description"] == "The next page."
        assert entry["returns"].endswith("the page after this one")


def test_types_the_api_names_but_no_entry_exports_are_shown(tmp_path: Path) -> None:
    # TypeDoc with typedoc-plugin-missing-exports (date-fns' `Locale`): the module declaring
    # a type a signature names is a page showing it and what it names in turn, nothing else
    out = build_bundle(_inheriting_sdk(tmp_path / "acme"), tmp_path / "idx")
    texts = page_texts(out)
    assert "## PageOptions" in texts["src/internal/options.ts"]
    assert "Unused" not in texts["src/internal/options.ts"]
    assert "## Headers" in texts["src/internal/headers.ts"]
    assert "## OpenAIError" in texts["src/base.ts"]  # a base named by `extends`
    names = pq.read_table(out / "api.parquet").column("name").to_pylist()
    assert {"PageOptions", "Headers", "OpenAIError"} <= set(names)


def test_a_page_without_bases_in_the_tree_reads_as_before(tmp_path: Path) -> None:
    root = _sdk(tmp_path / "acme")  # `extends APIResource` of a module not in the tree
    texts = page_texts(build_bundle(root, tmp_path / "idx"))
    assert "Inherited" not in texts["src/resources/chat/completions.ts"]


def test_heritage_names_the_bases_only() -> None:
    decls = {d.name: d for d in declarations(ERRORS + PAGINATION, ambient=True)}
    assert heritage(decls["RateLimitError"]) == ["APIError"]
    assert heritage(decls["CursorPage"]) == ["AbstractPage"]  # not `implements`
    assert heritage(decls["AbstractPage"]) == []
    (d,) = declarations("export interface A<T extends B> extends C.D<T>, E {}\n")
    assert heritage(d) == ["C.D", "E"]
    (d,) = declarations("export class M extends Mixin(Base) {}\n")
    assert heritage(d) == []


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            _PARTS
            + ["class A extends B ", "extends ", "implements ", "extends B<", "<T = ", ">"]
            + ["import * as z from './b';\n", "export { z };\n", "export * as n from './a';\n"]
        ),
        max_size=40,
    )
)
def test_any_tree_of_bases_resolves_without_error(parts: list[str]) -> None:
    # two files of arbitrary text that import, extend and export each other (as namespaces
    # too): every lookup ends
    text = "".join(parts)
    files = {"a.ts": text + "\nimport { B } from './b';\n", "b.ts": "export * from './a';\n" + text}
    resolver = Resolver(set(files), files.get, typescript_entries.resolve_spec)
    spaces = namespaces(dict.fromkeys(files, ""), resolver)
    assert all(0 < len(found) <= 4 for found in spaces.values())
    for path, body in files.items():
        for d in declarations(body):
            for name in heritage(d):
                assert name and " " not in name
            resolver.bases(path, d)
    referenced = referenced_modules({"a.ts": ""}, resolver)
    tree = gather({"a.ts": ""}, referenced, resolver, spaces)
    for path, extra in tree.extra.items():
        page = typescript_to_markdown(path, "\n".join([files[path], *extra]))
        assert len(page.line_map) == (page.text.count("\n") + 1 if page.text else 0)


AMBIENT = """/** The types of a package published without its own (a DefinitelyTyped shape). */
declare module "my-lib" {
  /** Parse a string. */
  export function parse(s: string): number;

  /** Kept to the module. */
  function hidden(): void;
}

declare module 'my-lib/other' {
  /** The other entry's value. */
  const value: number;
  export default value;
}
"""


def test_declare_module_blocks_read_as_the_modules_they_declare() -> None:
    page = typescript_to_markdown("types/index.d.ts", AMBIENT)
    # what the module exports, named as its importers name it; `export`-less ones left out
    assert [e.name for e in page.api] == ["parse", "value"]
    assert "Parse a string." in page.text and "hidden" not in page.text


def _described(out: Path, name: str) -> str:
    api = pq.read_table(out / "api.parquet").to_pylist()
    return next(e["description"] for e in api if e["name"] == name)


def test_a_rebuild_shows_a_bases_edit_under_the_child(tmp_path: Path) -> None:
    # the child's page depends on another file: it is read again (known_files.py), and its
    # parse-cache key holds the base's text (the child's entry of the inherited method, whose
    # section is the base's page, reads the base's comment)
    root = _inheriting_sdk(tmp_path / "acme")
    out = build_bundle(root, tmp_path / "idx")
    assert _described(out, "RateLimitError.explain") == "Why it failed, in words."
    base = root / "src/base.ts"
    base.write_text(base.read_text().replace("Why it failed, in words.", "Why, said anew."))
    out = build_bundle(root, tmp_path / "idx")
    assert _described(out, "RateLimitError.explain") == "Why, said anew."
