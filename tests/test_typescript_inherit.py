"""Inherited methods shown once: a TypeScript class or interface whose base a page shows lists
the methods it inherits as a line of links to the base's sections (as Doxygen's and Javadoc's
"inherited from" lists), and each is an API entry named as the child's whose section is the
base's. Fixtures in the shape of zod 4's `classic/schemas.ts` (an interface `ZodType` of methods,
`_ZodString extends _ZodType`, `ZodString extends _ZodString<…>`, a `const` of each name, many
schemas extending one base) and of a base no page shows (copied, as before)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.formats.source.tsdoc import typescript_to_markdown
from docsmcp.sources.packages.typescript_entries import resolve_spec
from docsmcp.sources.packages.typescript_links import Resolver, gather
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

FORMATS = ["Email", "UUID", "URL", "Emoji", "NanoID", "CUID", "ULID", "XID", "KSUID", "JWT"]


def _schemas() -> str:
    head = """import * as core from "../core/index.js";

export interface ZodType<out Output = unknown, out Input = unknown> {
  /** The schema's definition. */
  def: core.$ZodTypeDef;
  /** Parses `data`, throwing a ZodError when it is invalid. */
  parse(data: unknown, params?: core.ParseContext): Output;
  /** Parses `data`, returning a result object instead of throwing. */
  safeParse(data: unknown, params?: core.ParseContext): SafeParseResult<Output>;
  /** Allows `undefined`. */
  optional(): ZodOptional<this>;
  refine(check: (arg: Output) => unknown, params?: string): this;
}

export interface _ZodType<out Internals extends core.$ZodTypeInternals = core.$ZodTypeInternals>
  extends ZodType<any, any> {}

export const ZodType: core.$constructor<ZodType> = core.$constructor("ZodType", (inst) => {});

export interface _ZodString<T extends core.$ZodStringInternals = core.$ZodStringInternals>
  extends _ZodType<T> {
  format: string | null;
  /** At least `minLength` characters. */
  min(minLength: number, params?: string): this;
}

/** A string schema. */
export interface ZodString extends _ZodString<core.$ZodStringInternals<string>> {
  /** A valid email address. */
  email(params?: string): this;
}
export const ZodString: core.$constructor<ZodString> = core.$constructor("ZodString", () => {});

export interface ZodStringFormat<Format extends string = string>
  extends _ZodString<core.$ZodStringFormatInternals<Format>> {}
"""
    schemas = "".join(
        f'\nexport interface Zod{n} extends ZodStringFormat<"{n.lower()}"> {{}}\n'
        f'export const Zod{n}: core.$constructor<Zod{n}> = core.$constructor("Zod{n}");\n'
        for n in FORMATS
    )
    return head + schemas


def _zod(root: Path) -> Path:
    return write_tree(
        root,
        {
            "README.md": "# Zod\n\nTypeScript-first schema validation.\n",
            "package.json": json.dumps(
                {
                    "name": "zod",
                    "version": "4.0.0",
                    "types": "./index.d.cts",
                    "exports": {".": {"@zod/source": "./src/index.ts"}},
                }
            ),
            "src/index.ts": 'export * from "./classic/schemas.js";\n'
            'export * from "./classic/coerce.js";\nexport * from "./classic/hidden.js";\n',
            "src/classic/schemas.ts": _schemas(),
            # a child on another page than its base (zod's `coerce.ts`)
            "src/classic/coerce.ts": 'import * as schemas from "./schemas.js";\n\n'
            "/** A string schema that coerces its input. */\n"
            "export interface ZodCoercedString extends schemas._ZodString {}\n",
            # a base no page shows (not exported): its methods are copied as before
            "src/classic/hidden.ts": "class Plain {\n  /** Runs it. */\n  run(): void {}\n}\n\n"
            "/** Shown. */\nexport class Shown extends Plain {}\n",
            "src/core/index.ts": "export type $ZodTypeDef = { type: string };\n",
        },
    )


def _chunk(out: Path, name: str) -> str:
    api = pq.read_table(out / "api.parquet").to_pylist()
    chunks = pq.read_table(out / "chunks.parquet", columns=["id"]).column("id").to_pylist()
    (row,) = {e["row"] for e in api if e["name"] == name}
    return chunks[row]


def test_inherited_methods_are_links_to_the_bases_section(tmp_path: Path) -> None:
    out = build_bundle(_zod(tmp_path / "zod") / ".", tmp_path / "idx")
    page = page_texts(out)["src/classic/schemas.ts"]
    # one section per method, the base's; the children list them as links to it
    assert page.count("### ZodType.parse") == 1
    assert "### ZodString.parse" not in page and "### ZodEmail.safeParse" not in page
    assert (
        "**Inherited from [ZodType](#zodtype):** [parse](#zodtypeparse), "
        "[safeParse](#zodtypesafeparse), [optional](#zodtypeoptional), [refine](#zodtyperefine)"
    ) in page
    assert "**Inherited from [_ZodString](#zodstring):** [min](#zodstringmin)" in page
    # properties stay rows of the child's list, in its terms
    assert "- `def: core.$ZodTypeDef`: The schema's definition. *(inherited from `ZodType`)*" in (
        page
    )
    # `const ZodString` is a variable: it inherits nothing
    variable = page.split("const ZodString:")[1].split("## ")[0]
    assert "Inherited" not in variable and "Properties" not in variable
    names = pq.read_table(out / "api.parquet").column("name").to_pylist()
    assert {"ZodString.parse", "ZodEmail.safeParse", "ZodJWT.min", "ZodString.def"} <= set(names)
    # each alias is the base's section: ZodString.parse reads ZodType.parse's chunk
    assert _chunk(out, "ZodString.parse") == _chunk(out, "ZodType.parse")
    assert _chunk(out, "ZodEmail.min") == _chunk(out, "_ZodString.min")
    chunks = pq.read_table(out / "chunks.parquet", columns=["id"]).column("id").to_pylist()
    assert not [c for c in chunks if c.endswith(("safeparse", "zodemailparse"))][1:]


def test_the_member_is_found_by_the_childs_name_and_once_by_its_own(tmp_path: Path) -> None:
    out = build_bundle(_zod(tmp_path / "zod") / ".", tmp_path / "idx")
    with McpSession(out) as s:
        found = s.call("get_api_reference", {"method": "ZodString.parse"})
        entry = found.structured_content["entries"][0]
        assert entry["name"] == "ZodString.parse"
        assert entry["chunk_id"].endswith("/zodtypeparse")
        assert entry["description"].startswith("Parses `data`, throwing")
        # in the child's terms (`_ZodType extends ZodType<any, any>`), as TypeDoc writes it
        assert entry["signature"] == "parse(data: unknown, params?: core.ParseContext): any"
        # a bare name: one entry per section, not one per schema
        found = s.call("get_api_reference", {"method": "safeParse"})
        chunks = [e["chunk_id"] for e in found.structured_content["entries"]]
        # (the base's section, and the line of links of the child on another page)
        assert len(chunks) == 2 and len(set(chunks)) == 2
        assert chunks[1].endswith("/zodtypesafeparse")
        assert chunks[0] == "src/classic/coerce.ts#classiccoerce/zodcoercedstring"
        hits = s.search(query="safeParse", limit=10)["hits"]
        assert hits[0]["chunk_id"].endswith("/zodtypesafeparse")
        assert not [h for h in hits if h["chunk_id"].endswith("safeparse")][1:]


def test_a_bare_name_finds_the_definition_not_the_childs_line(tmp_path: Path) -> None:
    # the child's line of links inherits `safeParse`; it is no definition, so the bare name
    # does not name it (it did: the line ranked second, as zod's 150 copies crowded "brand");
    # a base no page shows leaves its copies the only sections of the name, which keep it
    out = build_bundle(_zod(tmp_path / "zod") / ".", tmp_path / "idx")
    with McpSession(out) as s:
        hits = [h["chunk_id"] for h in s.search(query="safeParse", limit=10)["hits"]]
        assert hits[0].endswith("/zodtypesafeparse")
        assert "src/classic/coerce.ts#classiccoerce/zodcoercedstring" not in hits[:5]
        # the child's own name still finds its line
        hits = [h["chunk_id"] for h in s.search(query="ZodCoercedString.safeParse")["hits"]]
        assert hits[0] == "src/classic/coerce.ts#classiccoerce/zodcoercedstring"
        hits = [h["chunk_id"] for h in s.search(query="run", limit=3)["hits"]]
        assert hits[0].startswith("src/classic/hidden.ts#")


def test_a_base_on_another_page_is_linked_there(tmp_path: Path) -> None:
    out = build_bundle(_zod(tmp_path / "zod") / ".", tmp_path / "idx")
    texts = page_texts(out)
    coerce = texts["src/classic/coerce.ts"]
    assert "**Inherited from [ZodType](schemas.ts#zodtype):** [parse](schemas.ts#zodtypeparse)" in (
        coerce
    )
    assert "###" not in coerce
    # its entries are the line of links (the page is converted alone: the other page's
    # sections are not known to it); the entry carries the base's signature and text
    assert _chunk(out, "ZodCoercedString.parse").startswith("src/classic/coerce.ts#")
    # a base no page shows is copied as a section of the child, as TypeDoc shows it
    hidden = texts["src/classic/hidden.ts"]
    assert "### Shown.run" in hidden and "*Inherited from `Plain.run`*" in hidden


def test_a_page_of_one_base_and_many_children_holds_each_method_once(tmp_path: Path) -> None:
    # the figure the design is for: chunks grow with the schemas, not schemas x methods
    out = build_bundle(_zod(tmp_path / "zod") / ".", tmp_path / "idx")
    chunks = pq.read_table(out / "chunks.parquet", columns=["path"]).column("path").to_pylist()
    on_page = chunks.count("src/classic/schemas.ts")
    assert on_page < 2 * (len(FORMATS) + 6) + 8


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            [
                "export interface A extends B { f(): void; }\n",
                "export interface B { g(x: number): string; h(): void; }\n",
                "export class C extends A { f(): void {} }\n",
                "export const A: X = 1;\n",
                "class D { k(): void {} }\nexport class E extends D {}\n",
                'import { B } from "./b";\n',
                "export interface F extends B {}\n",
                "/** doc */\n",
            ]
        ),
        max_size=12,
    )
)
def test_any_tree_of_linked_bases_reads_with_a_line_map(parts: list[str]) -> None:
    # two files extending each other's declarations: every page's line map fits its text, and
    # every entry's lines lie within it
    text = "".join(parts)
    files = {"a.ts": text, "b.ts": 'export * from "./a";\n' + text}
    resolver = Resolver(set(files), files.get, resolve_spec)
    tree = gather(dict.fromkeys(files, ""), {}, resolver)
    for path, body in files.items():
        page = typescript_to_markdown(path, "\n".join([body, *tree.extra.get(path, ())]))
        n = page.text.count("\n") + 1 if page.text else 0
        assert len(page.line_map) == n
        assert all(1 <= e.line_start <= e.line_end <= n for e in page.api)
