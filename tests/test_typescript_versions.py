"""A TypeScript package shipping older majors beside the current one, in zod's shape: its
`package.json` names the built files (`./index.d.cts`, not in the repository) and, under a
condition of its own, the sources (`"@zed/source": "./src/index.ts"`); its `exports` name
`./v3` and `./v4` (each a folder's index) and `./v4-mini` (a flavour of v4, no version). The
repository is a workspace whose docs site is one package and the library another."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, run_docsmcp, write_tree
from docsmcp.sources.layout import versions
from docsmcp.sources.layout.versions import value_of_name
from docsmcp.sources.packages import typescript_site
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

V4_SCHEMAS = """/** The base of every schema. */
export interface ZodType {
  /** Parses `data`, throwing on failure. */
  parse(data: unknown): unknown;
}

/** An object schema. */
export interface ZodObject extends ZodType {
  /** The object's keys. */
  shape: Record<string, ZodType>;
}

/** An object schema of `shape`. */
export function object(shape: Record<string, ZodType>): ZodObject {
  return null as never;
}
"""

V3_TYPES = """/** The base of every Zod 3 schema. */
export abstract class ZodType {
  /** Parses `data` (Zod 3). */
  parse(data: unknown): unknown {
    return data;
  }
}
"""


def _exports(path: str) -> dict[str, str]:
    stem = path.removeprefix("./src/").removesuffix(".ts")
    return {"@zed/source": path, "types": f"./{stem}.d.cts", "import": f"./{stem}.js"}


def _zed(repo: Path) -> Path:
    """A workspace holding a docs site and the library `packages/zed` (zod's layout)."""
    (repo / "packages/docs/content").mkdir(parents=True)
    (repo / "packages/docs/content/api.mdx").write_text("# Defining schemas\n\nUse objects.\n")
    (repo / "packages/docs-v3").mkdir()  # the Zod 3 docs, beside the current site
    (repo / "packages/docs-v3/home.md").write_text("# Zod 3\n\nDefining schemas in Zod 3.\n")
    (repo / "package.json").write_text(json.dumps({"private": True, "workspaces": ["packages/*"]}))
    lib = repo / "packages/zed"
    files = {
        "src/index.ts": 'import * as z from "./v4/classic/external.js";\n'
        'export * from "./v4/classic/external.js";\nexport { z, z as default };\n',
        "src/v4/index.ts": 'export * from "./classic/external.js";\n',
        "src/v4/classic/external.ts": 'export * from "./schemas.js";\n'
        'export * as coerce from "./coerce.js";\n',
        "src/v4/classic/coerce.ts": "/** Coerces. */\nexport function string() {}\n",
        "src/v4/classic/schemas.ts": V4_SCHEMAS,
        "src/v4-mini/index.ts": 'export * from "../v4/mini/external.js";\n',
        "src/v4/mini/external.ts": "/** A mini object. */\nexport function object() {}\n",
        "src/v3/index.ts": 'export * from "./types.js";\n',
        "src/v3/types.ts": V3_TYPES,
    }
    for name, text in files.items():
        (lib / name).parent.mkdir(parents=True, exist_ok=True)
        (lib / name).write_text(text)
    exports = {
        ".": _exports("./src/index.ts"),
        "./v3": _exports("./src/v3/index.ts"),
        "./v4": _exports("./src/v4/index.ts"),
        "./v4-mini": _exports("./src/v4-mini/index.ts"),
        "./package.json": "./package.json",
    }
    package = {"name": "zed", "version": "4.2.0", "types": "./index.d.cts", "exports": exports}
    (lib / "package.json").write_text(json.dumps(package))
    return repo


def _versions(bundle: Path) -> dict:
    return json.loads((bundle / "metadata.json").read_text())["taxonomy"]["version"]


def test_the_source_condition_names_the_api_and_the_version_subpaths_its_versions(
    tmp_path: Path,
) -> None:
    repo = _zed(tmp_path / "zed")
    out = build_bundle(repo, tmp_path / "idx", "--api-source", repo / "packages/zed")
    texts = page_texts(out)
    assert {"packages/zed/src/v4/classic/schemas.ts", "packages/zed/src/v3/types.ts"} <= set(texts)
    versions = _versions(out)
    assert versions["latest"] == "v4" and set(versions["values"]) == {"v3", "v4"}
    with McpSession(out) as s:
        # the current major answers; Zod 3's class of the same name only when asked for
        found = s.call("get_api_reference", {"method": "ZodType"}).structured_content
        assert [e["chunk_id"].split("#")[0] for e in found["entries"]] == [
            "packages/zed/src/v4/classic/schemas.ts"
        ]
        # what a namespace export (`export { z }` of `import * as z`) holds is found by the
        # name users call it by, and `export * as coerce` inside it nests
        found = s.call("get_api_reference", {"method": "z.object"}).structured_content
        assert found["entries"][0]["chunk_id"].startswith("packages/zed/src/v4/classic/schemas.ts#")
        found = s.call("get_api_reference", {"method": "z.coerce.string"}).structured_content
        assert found["entries"][0]["chunk_id"].startswith("packages/zed/src/v4/classic/coerce.ts#")
        hits = s.search(query="parse data", limit=10)["hits"]
        assert hits and not any("/v3/" in h["chunk_id"] for h in hits)
        hits = s.search(query="defining schemas", limit=10)["hits"]
        assert hits[0]["chunk_id"].startswith("packages/docs/content/api.mdx")
        assert not any("docs-v3" in h["chunk_id"] for h in hits)
    # init proposes the same, and its check reads the package through --api-source
    proc = run_docsmcp("init", "--docs-dir", repo, "--api-source", repo / "packages/zed")
    assert "version: 2 values: v3 (3), v4 (5)" in proc.stderr
    assert "validate: ok: 11 files" in proc.stderr


def test_the_package_folder_built_alone_has_the_same_versions(tmp_path: Path) -> None:
    lib = _zed(tmp_path / "zed") / "packages/zed"
    out = build_bundle(lib, tmp_path / "idx")
    assert _versions(out)["latest"] == "v4"
    assert "src/v4/mini/external.ts" in page_texts(out)


def test_a_folder_named_for_a_version_the_tree_has_is_that_version() -> None:
    layout = versions.detect(None, ["v3/a.md", "v4/b.md", "docs-v3/c.md", "v4/x-v3/d.md"])
    assert dict(layout.folders) == {"v3": "v3", "v4": "v4", "docs-v3": "v3"}
    # a tree without versions has none (Android's resource folders)
    assert not versions.detect(None, ["res/drawable-v24/a.md", "res/drawable/b.md"]).folders
    assert "docs-v5" not in versions.detect(None, ["v3/a.md", "v4/b.md", "docs-v5/c.md"]).folders


def test_a_word_after_the_number_is_a_version_only_as_a_pre_release_mark() -> None:
    assert value_of_name("v4-mini") is None and value_of_name("2.x-legacy") is None
    assert value_of_name("v4") == "v4" and value_of_name("0.5.1-beta") == "0.5.1-beta"
    assert value_of_name("v1alpha1") == "v1alpha1" and value_of_name("1.0-SNAPSHOT")
    assert value_of_name("version-0.5.x") == "0.5.x" and value_of_name("4x") == "4x"


def test_tsconfig_paths_of_the_packages_own_name_are_its_sources(tmp_path: Path) -> None:
    # zustand's shape: package.json names built files at its root (`./index.d.ts`, not in the
    # repository, no `src/` mapping), and tsconfig maps the package's name to its sources
    root = write_tree(
        tmp_path / "store",
        {
            "docs/index.md": "# Store\n",
            "package.json": json.dumps(
                {
                    "name": "store",
                    "private": True,
                    "version": "5.0.1",
                    "main": "./index.js",
                    "types": "./index.d.ts",
                    "exports": {".": {"types": "./index.d.ts"}, "./*": {"types": "./*.d.ts"}},
                }
            ),
            "tsconfig.json": '{"compilerOptions": {"paths": {\n'
            '  "store": ["./src/index.ts"], // the entry\n'
            '  "store/*": ["./src/*.ts"]}}}\n',
            "src/index.ts": 'export * from "./vanilla.ts";\n',
            "src/vanilla.ts": "/** Creates a store. */\nexport function createStore() {}\n",
            "src/middleware.ts": 'export * from "./middleware/persist.ts";\n',
            "src/middleware/persist.ts": "/** Persists a store. */\nexport function persist() {}\n",
            "tests/basic.test.ts": "export function notApi() {}\n",
            "examples/app/src/main.ts": "export function notApiEither() {}\n",
        },
    )
    texts = page_texts(build_bundle(root, tmp_path / "idx"))
    assert set(texts) == {"docs/index.md", "src/vanilla.ts", "src/middleware/persist.ts"}
    proc = run_docsmcp("init", "--docs-dir", root)
    assert "site: TypeScript package (tsconfig.json names the entry points)" in proc.stderr


_JSON = st.recursive(
    st.none() | st.booleans() | st.sampled_from(["./src/v3/index.ts", "./src/*.ts", "./x.d.cts"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from([".", "./v3", "./v4", "./*", "types", "@s", "store"]), inner
        )
    ),
    max_leaves=12,
)


@FUZZ
@given(exports=_JSON, paths=_JSON, name=st.sampled_from(["store", "", "x/y"]))
def test_any_package_and_tsconfig_give_files_of_the_tree(exports, paths, name) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        package = {"name": name, "version": "1.0.0", "types": "./x.d.ts", "exports": exports}
        (root / "package.json").write_text(json.dumps(package))
        (root / "tsconfig.json").write_text(json.dumps({"compilerOptions": {"paths": paths}}))
        known = ["src/index.ts", "src/v3/index.ts", "src/v4/index.ts", "src/a/b.ts"]
        for rel in known:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text("export const a = 1;\n")
        assert set(typescript_site.api_files(root, (), known)) <= set(known)
        folders = typescript_site.version_folders(root, (), known)
        assert set(folders) <= {"src/v3", "src/v4"}
