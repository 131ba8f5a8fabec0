"""Variant folders (issue 27, the shape TanStack's docs have): one docs tree written once per
framework or platform (`framework/react/guides/…`, `framework/vue/guides/…`) becomes a taxonomy
key with a `default` value (`docsmcp init` proposes it, `docsmcp build` applies it when no
manifest names the key); search answers from the default unless a query names another variant
or a filter picks one, and the same page of the other variants is listed in `also_in` instead
of taking a place of its own (the same section five times in a top five, before)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import build_bundle, run_docsmcp, write_tree
from docsmcp.commands.init import propose
from docsmcp.sources.layout.variants import detect
from docsmcp_runtime.bundle.reader import open_bundle
from docsmcp_runtime.format import TaxonomyKey
from docsmcp_runtime.format.jsonread import MetadataError
from docsmcp_runtime.search.engine import Searcher
from docsmcp_runtime.search.explain import explain
from docsmcp_runtime.search.versions import without_name
from docsmcp_runtime.tools.app import DocsApp
from mcp_client import McpSession

GUIDES = ("retries", "invalidation", "prefetching")
COMPONENTS = tuple(f"component-{k}" for k in range(12))


def _page(framework: str, guide: str, more: str = "") -> str:
    return (
        f"# {guide.capitalize()}\n\nRetry failed queries with {framework}: set retry on "
        f"useQuery ({guide}).\n{more}\n## Options\n\nOptions of {guide} in {framework}.\n"
    )


# react is written in full; vue adapts it (shorter pages); solid has more pages, but less text.
SITE = {
    **{f"framework/react/guides/{g}.md": _page("react", g, "Long text. " * 200) for g in GUIDES},
    **{f"framework/vue/guides/{g}.md": _page("vue", g) for g in GUIDES},
    **{f"framework/solid/guides/{g}.md": _page("solid", g) for g in GUIDES},
    **{f"framework/solid/reference/type-{i}.md": f"# Type {i}\n\nA type.\n" for i in range(5)},
    "framework/vue/guides/nuxt.md": "# Nuxt\n\nUse the query plugin with Nuxt.\n",
    "reference/QueryClient.md": "# QueryClient\n\nThe client every framework shares.\n",
}


def _sizes(files: dict[str, str]):  # noqa: ANN202
    return lambda path: len(files[path])


def test_mirrored_framework_folders_are_variants_and_the_fullest_is_the_default() -> None:
    found = detect(list(SITE), _sizes(SITE))
    assert found.key == "framework"
    assert dict(found.folders) == {f"framework/{f}": f for f in ("react", "solid", "vue")}
    assert found.default == "react"  # the most text, not the most pages (solid)
    assert found.value_of("framework/vue/guides/nuxt.md") == "vue"
    assert found.value_of("reference/QueryClient.md") is None


@pytest.mark.parametrize(
    ("files", "key"),
    [
        ({f"platforms/{p}/{g}.md": "x" for p in ("ios", "android") for g in GUIDES}, "platform"),
        (
            {f"docs/frameworks/{p}/{g}.md": "x" for p in ("qwik", "lit") for g in GUIDES},
            "framework",
        ),
        # folders named for frameworks, anywhere (Ionic: docs/angular, docs/react, docs/vue)
        (
            {f"docs/{p}/{g}.md": "x" for p in ("angular", "react", "vue") for g in GUIDES},
            "framework",
        ),
        ({f"{p}/{g}.md": "x" for p in ("ios", "android") for g in GUIDES}, "platform"),
        # an ORM's pages once per database (Drizzle: pg/, mysql/, sqlite/ beside get-started/)
        (
            {
                **{f"{d}/{g}.mdx": "x" for d in ("pg", "mysql", "sqlite") for g in GUIDES},
                "get-started/index.mdx": "x",
            },
            "database",
        ),
        ({f"dialects/{d}/{g}.md": "x" for d in ("oracle", "db2") for g in GUIDES}, "dialect"),
        # one named folder beside an ordinary one mirroring it: no variants
        ({f"{p}/{g}.md": "x" for p in ("react", "guides") for g in GUIDES}, None),
        # integrations share file names as any two do: no axis of variants
        ({f"integrations/{p}/{g}.md": "x" for p in ("stripe", "slack") for g in GUIDES}, None),
        (
            {
                **{f"framework/react/{g}.md": "x" for g in GUIDES},
                **{f"framework/tooling/{g}.md": "x" for g in GUIDES},
                **{f"framework/tooling/own-{i}.md": "x" for i in range(27)},
            },
            None,  # tooling (no framework's name) shares 3 of its 30 pages: one variant is none
        ),
        # a framework's folder under `framework/` shares a few of its pages (TanStack Table's
        # react/, its generated reference one folder deeper): its name and its parent's say it
        (
            {
                **{f"framework/react/{g}.md": "x" for g in GUIDES},
                **{f"framework/vue/{g}.md": "x" for g in GUIDES},
                **{f"framework/vue/own-{i}.md": "x" for i in range(27)},
            },
            "framework",
        ),
        # too few pages in common: two different products, not variants of one
        (
            {"framework/react/a.md": "x", "framework/react/b.md": "x", "framework/vue/a.md": "x"},
            None,
        ),
        # a folder name that names no axis: chapters that happen to share file names
        ({f"guides/{p}/{g}.md": "x" for p in ("basics", "advanced") for g in GUIDES}, None),
        # folders of any names mirroring each other page for page (shadcn/ui's components
        # once per primitives library): the key `variant`
        (
            {f"components/{p}/{c}.mdx": "x" for p in ("radix", "base") for c in COMPONENTS},
            "variant",
        ),
        # ... but not when a fifth of a folder's pages are its own
        (
            {
                **{f"components/{p}/{c}.mdx": "x" for p in ("radix", "base") for c in COMPONENTS},
                **{f"components/base/own-{i}.mdx": "x" for i in range(4)},
            },
            None,
        ),
        # interfaces whose methods share names, among many others (MDN's `web/api/`: FormData,
        # Headers and URLSearchParams each have append/, get/, has/ ...): no copies
        (
            {
                **{
                    f"web/api/{i}/{m}": "x"
                    for i in ("formdata", "headers", "urlsearchparams")
                    for m in ("index.md", *(f"{c}/index.md" for c in COMPONENTS))
                },
                **{f"web/api/{i}/index.md": "x" for i in ("blob", "request", "response", "url")},
            },
            None,
        ),
    ],
    ids=[
        "platforms",
        "nested",
        "named-frameworks",
        "named-platforms",
        "named-databases",
        "dialects",
        "one-named",
        "integrations",
        "mostly-own",
        "named-framework-mostly-own",
        "too-few-shared",
        "not-an-axis",
        "mirrors",
        "mirrors-with-own-pages",
        "interfaces-among-many",
    ],
)
def test_what_is_a_variant_folder(files: dict[str, str], key: str | None) -> None:
    assert detect(list(files), _sizes(files)).key == key


def test_a_key_or_folder_taken_is_left_alone() -> None:
    assert detect(list(SITE), _sizes(SITE), taken=["framework"]).key is None
    taken = ["framework/solid"]  # (a version folder, say)
    assert set(detect(list(SITE), _sizes(SITE), taken=taken).folders.values()) == {"react", "vue"}


def test_mirrors_are_no_variants_under_a_manifest_or_inside_a_taken_folder() -> None:
    """A manifest's keys, or a product's folder, say what mirroring folders are (speakeasy's
    Mistral SDK holds its Azure and GCP packages, mirroring each other)."""
    files = {f"sdk/packages/{p}/{c}.md": "x" for p in ("azure", "gcp") for c in COMPONENTS}
    assert detect(list(files), _sizes(files)).key == "variant"
    assert detect(list(files), _sizes(files), mirrors=False).key is None
    assert detect(list(files), _sizes(files), taken=["sdk"]).key is None


def test_init_proposes_the_key_and_its_default(tmp_path: Path) -> None:
    proposal = propose(write_tree(tmp_path / "docs", SITE))
    entry = proposal.manifest["taxonomy"]["framework"]
    assert entry["default"] == "react"
    assert entry["description"] == "Framework the page documents (from folder names)."
    assert set(proposal.values["framework"]) == {"react", "solid", "vue"}
    assert any(
        line.startswith("framework: default react (the most text") for line in proposal.report()
    )


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpSession]:
    docs = write_tree(tmp_path_factory.mktemp("tanstack") / "docs", SITE)
    bundle = build_bundle(docs, docs.parent / "idx")  # no manifest: the build detects them
    entry = json.loads((bundle / "metadata.json").read_text())["taxonomy"]["framework"]
    assert entry["default"] == "react"
    with McpSession(bundle) as s:
        yield s


def test_each_section_is_shown_once_as_the_default_copy(session: McpSession) -> None:
    """vue's short copy of the retries guide outranks react's long one on length: the place is
    kept, the react copy shown, the other frameworks listed."""
    result = session.search(query="retry failed queries retries")
    assert result["notes"] == [
        "Each section is shown once, as its react copy where there is one, the other "
        "frameworks in also_in; pass framework=… for one."
    ]
    top = result["hits"][0]
    assert top["filepath"] == "framework/react/guides/retries.md"
    assert top["also_in"] == {"framework": ["solid", "vue"]}
    # no section twice: the ids less the framework folder are distinct
    ids = [
        h["chunk_id"].replace(f"/{h['metadata'].get('framework')}/", "/") for h in result["hits"]
    ]
    assert len(ids) == len(set(ids))
    shared = session.search(query="QueryClient every framework shares")
    assert shared["hits"][0]["filepath"] == "reference/QueryClient.md"  # no variant: searched
    # A section only another framework has still ranks (Ionic's isPlatform: react and vue).
    only = session.search(query="Nuxt plugin")
    assert only["hits"][0]["filepath"] == "framework/vue/guides/nuxt.md"


def test_a_named_variant_or_a_filter_reaches_it(session: McpSession) -> None:
    named = session.search(query="retries in Vue")
    assert named["hits"][0]["filepath"] == "framework/vue/guides/retries.md"
    assert named["notes"][0].startswith("Searched framework vue (named in the query)")
    filtered = session.search(query="Nuxt query plugin", framework="vue")
    assert filtered["hits"][0]["filepath"] == "framework/vue/guides/nuxt.md"
    assert "notes" not in filtered
    hidden = session.search(query="Nuxt plugin", framework="react")  # only vue has it
    assert hidden["hits"] == []
    assert hidden["hint"]["suggested_filters"] == {"framework": ["vue"]}


def test_a_variant_named_by_another_name_is_reached(tmp_path: Path) -> None:
    """ "postgres" names Drizzle's `pg/` (search/versions.VARIANT_NAMES)."""
    files = {
        **{
            f"{d}/insert.md": f"# Insert\n\nInsert rows into {d} with returning.\n"
            for d in ("pg", "mysql", "sqlite")
        },  # fmt: skip
        **{
            f"{d}/{g}.md": f"# {g}\n\n{g} on {d}.\n"
            for d in ("pg", "mysql", "sqlite")
            for g in GUIDES
        },  # fmt: skip
    }
    out = build_bundle(write_tree(tmp_path / "docs", files), tmp_path / "idx")
    with McpSession(out) as session:
        named = session.search(query="insert returning with sqlserver or postgres")
        assert named["notes"][0].startswith("Searched database pg (named in the query)")
        assert named["hits"][0]["filepath"] == "pg/insert.md"
        # Unnamed: the page once, the other databases' copies in also_in.
        folded = session.search(query="insert returning")
        inserts = [h for h in folded["hits"] if h["filepath"].endswith("/insert.md")]
        assert len(inserts) == 1
        shown = inserts[0]["filepath"].split("/")[0]
        others = sorted({"pg", "mysql", "sqlite"} - {shown})
        assert inserts[0]["also_in"] == {"database": others}


def test_copies_whose_titles_name_their_framework_fold(tmp_path: Path) -> None:
    """TanStack Table titles each framework's guide by it ("Sorting (React) Guide"): the
    section ids differ by that word alone, and the copies are one section."""
    files = {
        f"framework/{f}/guide/{g}.md": f"# {g.title()} ({f.title()}) Guide\n\n## {g} state\n\n"
        f"The {g} state of a table in {f}.\n\n## {f.title()} tips\n\nOnly {f} has {g} tips.\n"
        for f in ("react", "vue", "solid")
        for g in ("sorting", *GUIDES)
    }
    out = build_bundle(write_tree(tmp_path / "docs", files), tmp_path / "idx")
    with McpSession(out) as session:
        hits = session.search(query="sorting state of a table")["hits"]
        states = [h for h in hits if h["chunk_id"].endswith("/sorting-state")]
        assert len(states) == 1, [h["chunk_id"] for h in hits]
        shown = states[0]["filepath"].split("/")[1]
        assert states[0]["also_in"] == {"framework": sorted({"react", "vue", "solid"} - {shown})}


def test_a_copy_id_less_the_variants_name() -> None:
    assert without_name("guide/sorting.md#sorting-react-guide/x", "react") == (
        "guide/sorting.md#sorting-guide/x"
    )
    assert without_name("a.md#use-vue-table", "vue") == "a.md#use-table"
    assert without_name("a.md#reactivity", "react") == "a.md#reactivity"  # a word, not a part
    assert without_name("pg-core.md#pg", "pg") == "core.md#pg"


def test_explain_says_a_variant_was_not_searched(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", SITE)
    bundle = open_bundle(build_bundle(docs, tmp_path / "idx"))
    searcher = Searcher(bundle)
    ids = bundle.chunk_ids()
    vue = next(
        r for r in range(bundle.n_chunks) if ids[r].startswith("framework/vue/guides/retries")
    )
    (part,) = explain(searcher, "retries in react", {}, [vue])
    assert part["searched"] is False
    assert part["scope"][0].startswith("Searched framework react (named in the query)")
    (folded,) = explain(searcher, "retries", {}, [vue])
    assert "searched" not in folded  # every framework is searched, each section shown once
    (named,) = explain(searcher, "retries in vue", {}, [vue])
    assert "searched" not in named and "boost" not in named  # searched, not boosted


def test_the_argument_names_the_default(session: McpSession) -> None:
    described = session.argument("search_docs", "framework")["description"]
    assert described.endswith(
        "Without it, every framework is searched and each section shown once, as its react "
        "copy where there is one (the default), unless the query names a framework."
    )


def test_a_manifest_decides(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", SITE)
    manifest = {"version": "1", "taxonomy": {"framework": {"description": "Framework."}}}
    (docs / ".docs-mcp.json").write_text(json.dumps(manifest), encoding="utf-8")
    bundle = build_bundle(docs, tmp_path / "idx")
    entry = json.loads((bundle / "metadata.json").read_text())["taxonomy"]["framework"]
    assert entry["values"] == [] and "default" not in entry  # no folder was read as a value


def test_a_manifest_default_must_be_usable(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", {"a/x.md": "# X\n", "b/x.md": "# X\n"})
    manifest = {
        "version": "1",
        "taxonomy": {"area": {"default": "c"}, "version": {"default": "1"}},
        "overrides": [{"pattern": f"{a}/**", "metadata": {"area": a}} for a in ("a", "b")],
    }
    (docs / ".docs-mcp.json").write_text(json.dumps(manifest), encoding="utf-8")
    out = run_docsmcp("validate", "--docs-dir", docs, check=False)
    assert out.returncode != 0
    assert "$.taxonomy.version.default: the key 'version' has no default value" in out.stderr
    assert "taxonomy 'area': default 'c' occurs in no file" in out.stderr


def test_metadata_default_must_be_a_value() -> None:
    entry = {"description": "d", "vector_collapse": False, "values": ["a", "b"]}
    assert TaxonomyKey.from_json({**entry, "default": "b"}, "$.taxonomy.k").default == "b"
    with pytest.raises(MetadataError, match=r"default.*must be one of the key's values"):
        TaxonomyKey.from_json({**entry, "default": "c"}, "$.taxonomy.k")


def test_manifests_that_give_two_defaults_are_refused(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", SITE)
    for folder, default in (("", "react"), ("framework/", "vue")):
        manifest = {"version": "1", "taxonomy": {"framework": {"default": default}}}
        (docs / f"{folder}.docs-mcp.json").write_text(json.dumps(manifest), encoding="utf-8")
    out = run_docsmcp("validate", "--docs-dir", docs, check=False)
    assert out.returncode != 0
    assert "taxonomy key 'framework': default 'vue' conflicts with 'react'" in out.stderr


def test_hybrid_search_folds_variants_too(tmp_path: Path) -> None:
    """The fused ranking (static vectors) folds the same way as full text."""
    docs = write_tree(tmp_path / "docs", SITE)
    bundle = build_bundle(docs, tmp_path / "idx", "--embedding-provider", "static")
    app = DocsApp(open_bundle(bundle))
    result = app.call_tool("search_docs", {"query": "retry failed queries retries"})
    hits = result["structuredContent"]["hits"]
    assert hits[0]["filepath"] == "framework/react/guides/retries.md"
    assert hits[0]["also_in"]["framework"] == ["solid", "vue"]
    ids = [h["chunk_id"].replace(f"/{h['metadata'].get('framework')}/", "/") for h in hits]
    assert len(ids) == len(set(ids))


def test_the_default_copy_stands_in_only_where_the_filters_allow_it(tmp_path: Path) -> None:
    docs = write_tree(tmp_path / "docs", SITE)
    manifest = {
        "version": "1",
        "metadata": {"level": "basic"},
        "overrides": [
            {"pattern": "framework/react/guides/retries.md", "metadata": {"level": "advanced"}}
        ],
    }
    (docs / ".docs-mcp.json").write_text(json.dumps(manifest), encoding="utf-8")
    app = DocsApp(open_bundle(build_bundle(docs, tmp_path / "idx")))
    result = app.call_tool(
        "search_docs", {"query": "retry failed queries retries", "level": "basic"}
    )
    top = result["structuredContent"]["hits"][0]
    assert top["filepath"] in (
        "framework/vue/guides/retries.md",
        "framework/solid/guides/retries.md",
    )
    assert top["metadata"]["level"] == "basic"
