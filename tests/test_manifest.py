"""Discovery, manifests, overrides, hints and frontmatter, on real files and real corpora."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
from conftest import CORPORA
from docsmcp.model.source import Problem, SourceFile, Strategy, TaxonomyKey
from docsmcp.sources.corpus import Corpus, load_corpus
from docsmcp.sources.discover import discover, glob_match, glob_to_regex
from docsmcp.sources.manifest import load_manifest, manifest_schema


def write(root: Path, rel: str, content: str | bytes | dict) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, dict):
        content = json.dumps(content, indent=2)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def by_path(corpus: Corpus) -> dict[str, SourceFile]:
    return {f.path: f for f in corpus.files}


# --- globs -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("**/learn/**", "learn/a.md", True),
        ("**/learn/**", "versioned_docs/version-0.5.x/learn/core/a.mdx", True),
        ("**/learn/**", "learning/a.md", False),
        ("blog/**", "blog/2021/index.md", True),
        ("blog/**", "docs/blog/a.md", False),
        ("*.md", "a.md", True),
        ("*.md", "deep/er/a.md", True),  # no slash: any depth, as in .gitignore
        ("*.md", "a.mdx", False),
        ("docs/*.md", "docs/a.md", True),
        ("docs/*.md", "docs/sub/a.md", False),  # * does not cross /
        ("/docs/*.md", "docs/a.md", True),
        ("docs/?.md", "docs/a.md", True),
        ("docs/?.md", "docs/ab.md", False),
        ("[ab].md", "b.md", True),
        ("[!ab].md", "b.md", False),
        ("[!ab].md", "c.md", True),
        ("x[]]y.md", "x]y.md", True),
        ("a[.md", "a[.md", True),  # unclosed class is literal
        ("{docs,blog}/**", "blog/x.md", True),
        ("{docs,blog}/**", "src/x.md", False),
        ("docs/{a,b/{c,d}}.md", "docs/b/d.md", True),
        ("docs/{a}.md", "docs/{a}.md", True),  # no comma: literal braces
        ("a/**/b.md", "a/b.md", True),
        ("a/**/b.md", "a/x/y/b.md", True),
        ("a/**/b.md", "ab/b.md", False),
        ("drafts", "drafts/x.md", True),  # a folder matches everything under it
        ("drafts/", "docs/drafts/x.md", True),
        ("**", "any/thing.md", True),
        ("docs/**/*.mdx", "docs/a/b/c.mdx", True),
        ("docs/**/*.mdx", "docs/c.mdx", True),
        ("a.b", "axb", False),  # regex metacharacters are literal
    ],
)
def test_glob_match(pattern: str, path: str, expected: bool) -> None:
    assert glob_match(pattern, path) is expected, glob_to_regex(pattern)


# --- discovery and defaults ------------------------------------------------------------------


def test_defaults_without_manifest_and_hidden_skipped(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "# A\n")
    write(tmp_path, "sub/b.mdx", "# B\n")
    write(tmp_path, "sub/notes.txt", "not markdown\n")
    write(tmp_path, ".hidden/c.md", "# C\n")
    write(tmp_path, "sub/.draft.md", "# D\n")
    write(tmp_path, "sub/.git/e.md", "# E\n")
    corpus = load_corpus(tmp_path)
    assert [f.path for f in corpus.files] == ["a.md", "sub/b.mdx"]
    assert corpus.problems == ()
    a = corpus.files[0]
    assert a.strategy == Strategy("h2", None, 0)
    # Every page gets its built-in page role (sources/roles.py), even without a manifest.
    assert (a.metadata, a.title, a.manifest) == ((("role", "reference"),), None, None)
    assert corpus.taxonomy == {"role": TaxonomyKey()} and corpus.instructions is None


def test_missing_docs_dir_raises(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="docs directory not found"):
        load_corpus(tmp_path / "nope")


def test_bom_and_crlf_normalised_and_body_keeps_lines(tmp_path: Path) -> None:
    write(tmp_path, "a.md", b"\xef\xbb\xbf---\r\ntitle: T\r\n---\r\n# A\r\ntext\r\n")
    (f,) = load_corpus(tmp_path).files
    assert f.text == "---\ntitle: T\n---\n# A\ntext\n"
    assert f.body == "\n\n\n# A\ntext\n"
    assert f.body.count("\n") == f.text.count("\n")
    assert f.title == "T"


def test_include_exclude_cli_and_manifest(tmp_path: Path) -> None:
    for rel in ["a.md", "drafts/x.md", "api/v1/a.md", "api/v1/internal/b.md", "api/v1/c.mdx"]:
        write(tmp_path, rel, "# x\n")
    write(
        tmp_path,
        "api/.docs-mcp.json",
        {"version": "1", "include": ["v1/**"], "exclude": ["internal", "*.mdx"]},
    )
    assert [f.path for f in load_corpus(tmp_path).files] == ["a.md", "api/v1/a.md", "drafts/x.md"]
    # CLI globs are relative to the docs dir; exclude wins over include.
    corpus = load_corpus(tmp_path, include=["**/*.md"], exclude=["drafts/**"])
    assert [f.path for f in corpus.files] == ["a.md", "api/v1/a.md"]
    assert discover(tmp_path, include=["api/**"], exclude=["**/internal/**"]) == [
        "api/v1/a.md",
        "api/v1/c.mdx",
    ]


# --- manifests and precedence ----------------------------------------------------------------


def test_nearest_manifest_governs_without_merging(tmp_path: Path) -> None:
    write(
        tmp_path,
        ".docs-mcp.json",
        {
            "version": "1",
            "strategy": {"chunk_by": "h3", "max_chunk_size": 500},
            "metadata": {"a": "root"},
        },
    )
    write(tmp_path, "sub/.docs-mcp.json", {"version": "1", "metadata": {"b": "sub"}})
    write(tmp_path, "top.md", "# t\n")
    write(tmp_path, "sub/deeper/x.md", "# x\n")
    files = by_path(load_corpus(tmp_path))
    assert files["top.md"].strategy == Strategy("h3", 500, 0)
    assert files["top.md"].metadata == (("a", "root"), ("role", "reference"))
    assert files["top.md"].manifest == ".docs-mcp.json"
    # sub's manifest has no strategy: defaults, not the parent's h3/500.
    assert files["sub/deeper/x.md"].strategy == Strategy()
    assert files["sub/deeper/x.md"].metadata == (("b", "sub"), ("role", "reference"))
    assert files["sub/deeper/x.md"].manifest == "sub/.docs-mcp.json"


def test_overrides_order_merge_and_replace(tmp_path: Path) -> None:
    write(
        tmp_path,
        "docs/.docs-mcp.json",
        {
            "version": "1",
            "strategy": {"chunk_by": "h2", "max_chunk_size": 8000, "min_chunk_size": 100},
            "metadata": {"product": "p", "section": "none"},
            "overrides": [
                {"pattern": "guides/**", "metadata": {"section": "guides", "level": "1"}},
                {"pattern": "**/deep/*.md", "metadata": {"section": "deep"}},
                {"pattern": "guides/deep/x.md", "strategy": {"chunk_by": "h1"}},
                {"pattern": "*.md", "metadata": {"level": "2"}},
            ],
        },
    )
    write(tmp_path, "docs/guides/deep/x.md", "# x\n")
    write(tmp_path, "docs/guides/y.md", "# y\n")
    write(tmp_path, "docs/other.md", "# o\n")
    files = by_path(load_corpus(tmp_path))
    x = files["docs/guides/deep/x.md"]
    # Metadata merges key-wise, last match wins; the strategy is replaced whole, so the
    # manifest's 8000/100 sizes go back to the defaults.
    assert dict(x.metadata) == {"product": "p", "section": "deep", "level": "2", "role": "guide"}
    assert x.strategy == Strategy("h1", None, 0)
    y = files["docs/guides/y.md"]
    assert dict(y.metadata) == {"product": "p", "section": "guides", "level": "2", "role": "guide"}
    assert y.strategy == Strategy("h2", 8000, 100)
    assert dict(files["docs/other.md"].metadata) == {
        "product": "p",
        "section": "none",
        "level": "2",
        "role": "reference",
    }


INLINE = """# Title

```markdown
<!-- mcp_chunking_hint: {"chunk_by": "h1"} -->
```

~~~~
```
<!-- mcp_chunking_hint: {"chunk_by": "h1"} -->
~~~~

<!-- mcp_chunking_hint: {"chunk_by": "h3"} -->
<!-- mcp_chunking_hint: {"chunk_by": "file"} -->
"""


def test_inline_hint_outside_code_only_first_wins(tmp_path: Path) -> None:
    write(
        tmp_path,
        ".docs-mcp.json",
        {"version": "1", "strategy": {"chunk_by": "h2", "max_chunk_size": 900}},
    )
    write(tmp_path, "a.md", INLINE)
    write(tmp_path, "fenced.md", '```\n<!-- mcp_chunking_hint: {"chunk_by": "file"} -->\n```\n')
    corpus = load_corpus(tmp_path)
    assert corpus.problems == ()
    files = by_path(corpus)
    assert files["a.md"].strategy == Strategy("h3", 900, 0)  # only chunk_by changes
    assert files["fenced.md"].strategy == Strategy("h2", 900, 0)


def test_frontmatter_beats_hint_and_overrides(tmp_path: Path) -> None:
    write(
        tmp_path,
        ".docs-mcp.json",
        {
            "version": "1",
            "strategy": {"chunk_by": "h2", "max_chunk_size": 700},
            "metadata": {"product": "p", "lang": "go"},
            "overrides": [
                {
                    "pattern": "**",
                    "metadata": {"lang": "ts"},
                    "strategy": {"chunk_by": "h1", "max_chunk_size": 600},
                }
            ],
        },
    )
    hint = '<!-- mcp_chunking_hint: {"chunk_by": "h3"} -->\n'
    write(
        tmp_path,
        "string.md",
        "---\ntitle: String hint\nsidebar_position: 2\nmcp_chunking_hint: file\n---\n" + hint,
    )
    write(tmp_path, "mapping.md", "---\nmcp_chunking_hint: {chunk_by: h1}\n---\n" + hint)
    write(
        tmp_path,
        "meta.md",
        "---\ntitle: '  Meta  '\ndescription: ignored\nmetadata: {lang: rust, extra: ' x '}\n"
        "mcp_metadata:\n  lang: zig\n---\n" + hint,
    )
    write(tmp_path, "strategy.md", "---\nmcp_strategy: {chunk_by: h3, min_chunk_size: 5}\n---\n")
    corpus = load_corpus(tmp_path)
    assert corpus.problems == ()
    files = by_path(corpus)
    assert files["string.md"].strategy == Strategy("file", 600, 0)
    assert files["string.md"].title == "String hint"
    assert files["mapping.md"].strategy == Strategy("h1", 600, 0)
    assert files["mapping.md"].title is None
    meta = files["meta.md"]
    assert meta.title == "Meta"
    assert dict(meta.metadata) == {"product": "p", "lang": "zig", "extra": "x", "role": "reference"}
    assert meta.strategy == Strategy("h3", 600, 0)  # inline hint over the override
    assert files["strategy.md"].strategy == Strategy("h3", None, 5)  # replaces entirely
    assert set(corpus.taxonomy) == {"extra", "lang", "product", "role"}


def test_an_agent_skills_metadata_is_no_search_filter(tmp_path: Path) -> None:
    """A SKILL.md's `metadata` (the Agent Skills format: the skill's author and version) says
    nothing about the docs: Mintlify's docs hold three skills, whose `version: "1.0"` became a
    `version` filter of one value. `mcp_metadata` still applies there, `metadata` elsewhere."""
    skill = "---\nname: docs\ndescription: Write.\nmetadata:\n  author: acme\n  version: '1.0'\n"
    write(tmp_path, "skill.md", skill + "---\n# Writing docs\n")
    write(tmp_path, "skills/api/SKILL.md", skill + "mcp_metadata: {area: api}\n---\n# API\n")
    write(tmp_path, "guide.md", "---\nmetadata: {area: guides}\n---\n# Guide\n")
    corpus = load_corpus(tmp_path)
    files = by_path(corpus)
    assert "author" not in dict(files["skill.md"].metadata)
    assert dict(files["skills/api/SKILL.md"].metadata)["area"] == "api"
    assert dict(files["guide.md"].metadata)["area"] == "guides"
    assert set(corpus.taxonomy) == {"area", "role"}


def test_a_page_with_a_skills_frontmatter_is_a_skill_whatever_its_name(tmp_path: Path) -> None:
    """GitBook publishes its Agent Skills as pages named for them (`configure-site.md`, with the
    format's `name` and `description`): their `metadata: {version: '1.0'}` made a `version`
    filter of one value on six pages. A title-case `name` (a person, a product) is no skill's,
    nor is a page without `description`: their `metadata` stays the docs'."""
    skill = "---\nname: configure-site\ndescription: Create sites.\nmetadata:\n  version: '1.0'\n"
    write(tmp_path, "skill/configure-site.md", skill + "---\n# Configure a site\n")
    write(
        tmp_path, "team.md", "---\nname: Ada Lovelace\ndescription: x\nmetadata: {area: a}\n---\n"
    )
    write(tmp_path, "nodesc.md", "---\nname: nodesc\nmetadata: {area: b}\n---\n# N\n")
    files = by_path(corpus := load_corpus(tmp_path))
    assert "version" not in dict(files["skill/configure-site.md"].metadata)
    assert dict(files["team.md"].metadata)["area"] == "a"
    assert dict(files["nodesc.md"].metadata)["area"] == "b"
    assert "version" not in corpus.taxonomy


# --- problems --------------------------------------------------------------------------------


def test_every_problem_reported_together(tmp_path: Path) -> None:
    write(tmp_path, "broken/.docs-mcp.json", '{\n  "version": "1",\n  "strategy": {,}\n}\n')
    write(
        tmp_path,
        "bad/.docs-mcp.json",
        {
            "version": "2",
            "strategy": {"chunk_by": "h4", "max_chunk_size": 0},
            "metadata": {"ok": "x", "bad key": "y", "n": 3},
            "overrides": [{"metadata": {"a": ""}}, {"pattern": "x", "strategy": {}}],
            "colour": "red",
        },
    )
    write(
        tmp_path,
        "sizes/.docs-mcp.json",
        {
            "version": "1",
            "strategy": {"chunk_by": "h2", "max_chunk_size": 10, "min_chunk_size": 20},
            "metadata": {"long": "v" * 129, "blank": "   "},
        },
    )
    write(tmp_path, "broken/a.md", "# still loaded with defaults\n")
    write(tmp_path, "yaml.md", "---\ntitle: ok\nkey: [unclosed\n---\n")
    write(tmp_path, "list.md", "---\n- a\n- b\n---\n")
    write(
        tmp_path,
        "types.md",
        "---\ntitle: t\nmetadata:\n  version: 2\n  tags: [a, b]\n  'bad key': v\n---\n",
    )
    write(tmp_path, "chunk.md", "---\nmcp_chunking_hint: h4\nmcp_strategy: {chunk_by: h5}\n---\n")
    write(tmp_path, "open.md", "---\ntitle: never closed\n# body\n")
    write(
        tmp_path,
        "hints.md",
        "# x\n<!-- mcp_chunking_hint: {chunk_by: h3} -->\n\n"
        '<!-- mcp_chunking_hint: {"chunk_by": "h9"} -->\n',
    )
    write(tmp_path, "latin1.md", "# ok\ncaf\xe9\n".encode("latin-1"))
    corpus = load_corpus(tmp_path)
    expected = [
        "bad/.docs-mcp.json: $: Additional properties are not allowed ('colour' was unexpected)",
        "bad/.docs-mcp.json: $.metadata: 'bad key' does not match '^[A-Za-z0-9_.-]{1,64}$'",
        "bad/.docs-mcp.json: $.metadata.n: 3 is not of type 'string'",
        "bad/.docs-mcp.json: $.overrides[0]: 'pattern' is a required property",
        "bad/.docs-mcp.json: $.overrides[0].metadata.a: '' should be non-empty",
        "bad/.docs-mcp.json: $.overrides[1].strategy: 'chunk_by' is a required property",
        "bad/.docs-mcp.json: $.strategy.chunk_by: 'h4' is not one of 'h1', 'h2', 'h3', 'file'",
        "bad/.docs-mcp.json: $.strategy.max_chunk_size: 0 is less than the minimum of 1",
        "bad/.docs-mcp.json: $.version: '2' is not allowed, expected '1'",
        "broken/.docs-mcp.json:3: invalid JSON: Expecting property name enclosed in double quotes"
        " (column 16)",
        "chunk.md:2: frontmatter mcp_chunking_hint: 'h4' is not one of 'h1', 'h2', 'h3', 'file'",
        "chunk.md:3: frontmatter mcp_strategy.chunk_by: 'h5' is not one of"
        " 'h1', 'h2', 'h3', 'file'",
        "hints.md:2: inline mcp_chunking_hint: invalid JSON: Expecting property name enclosed in"
        " double quotes",
        "hints.md:4: inline mcp_chunking_hint: 'h9' is not one of 'h1', 'h2', 'h3', 'file'",
        "latin1.md:2: not valid UTF-8 at column 4 (byte 0xe9); save it as UTF-8 or leave it out"
        " with --exclude latin1.md",
        "list.md:1: frontmatter must be a mapping, got list",
        "open.md:1: unterminated frontmatter: no closing '---' line",
        "sizes/.docs-mcp.json: $.metadata.blank: metadata value for 'blank' must not be empty",
        "sizes/.docs-mcp.json: $.metadata.long: metadata value for 'long' is 129 characters long;"
        " at most 128 are allowed",
        "sizes/.docs-mcp.json: $.strategy: max_chunk_size (10) must be >= min_chunk_size (20)",
        "types.md:4: metadata value for 'version' must be a string, got int",
        "types.md:5: metadata value for 'tags' must be a string, got list",
        "types.md:6: metadata key 'bad key' must be 1-64 characters of A-Z a-z 0-9 _ . -",
        # The rest of the message depends on whether PyYAML uses libyaml.
        "yaml.md:3: invalid YAML frontmatter: ",
    ]
    got = [str(p) for p in corpus.problems]
    assert got[:-1] == expected[:-1]
    assert got[-1].startswith(expected[-1])
    # Usable files are still returned; the non-UTF-8 one is not.
    paths = [f.path for f in corpus.files]
    assert "latin1.md" not in paths
    assert {"broken/a.md", "types.md", "open.md", "yaml.md"} <= set(paths)
    assert by_path(corpus)["broken/a.md"].manifest == "broken/.docs-mcp.json"
    assert by_path(corpus)["broken/a.md"].strategy == Strategy()
    assert by_path(corpus)["open.md"].body.startswith("---\ntitle: never closed")
    assert Problem("p", None, "m").__str__() == "p: m"


def test_frontmatter_of_key_value_lines_that_is_not_yaml_is_read_as_written(
    tmp_path: Path,
) -> None:
    """Svelte's docs write `title: {#if ...}` and `title: bind:`, which YAML refuses (or reads
    as a mapping) and the site's own tool reads line by line: 19 such pages failed the whole
    build. A block of `key: value` lines is read as written; anything else YAML refuses stays
    one problem."""
    write(tmp_path, "if.md", "---\ntitle: {#if ...}\ntags: template-if\n---\n# x\n")
    write(tmp_path, "bind.md", "\ufeff---\ntitle: bind:\n# a comment\n\n---\n# x\n")
    write(tmp_path, "render.md", "---\ntitle: {@render ...}\n---\n# x\n")
    write(tmp_path, "let.md", "---\ntitle: {let/const ...}\n---\n# x\n")  # YAML: a mapping
    write(tmp_path, "quoted.md", "---\ntitle: 'on:'\ndescription: \"a: b\" c\n---\n# x\n")
    write(tmp_path, "nested.md", "---\ntitle: {#if\n  - x\n---\n# x\n")
    write(tmp_path, "flow.md", "---\ntitle: x\nkey: [unclosed\n---\n# x\n")  # YAML's, a typo
    write(tmp_path, "list.md", "---\ntitle:\n  - a\n  - b\n---\n# x\n")
    corpus = load_corpus(tmp_path)
    files = by_path(corpus)
    titles = {p: files[p].title for p in ("if.md", "bind.md", "render.md", "let.md", "quoted.md")}
    assert titles == {
        "if.md": "{#if ...}", "bind.md": "bind:", "render.md": "{@render ...}",
        "let.md": "{let/const ...}", "quoted.md": "on:",
    }  # fmt: skip
    problems = sorted(str(p) for p in corpus.problems)
    assert len(problems) == 3, problems
    assert problems[0].startswith("flow.md:3: invalid YAML frontmatter")
    assert problems[1] == "list.md:2: frontmatter title must be a string, got list"
    assert problems[2].startswith("nested.md:") and "invalid YAML frontmatter" in problems[2]


def test_taxonomy_union_and_description_conflict(tmp_path: Path) -> None:
    write(
        tmp_path,
        "a/.docs-mcp.json",
        {
            "version": "1",
            "metadata": {"lang": "go"},
            "taxonomy": {"lang": {"description": "Language"}, "unused": {"vector_collapse": False}},
        },
    )
    write(
        tmp_path,
        "b/.docs-mcp.json",
        {
            "version": "1",
            "metadata": {"lang": "ts"},
            "taxonomy": {
                "lang": {"vector_collapse": True, "properties": {"ts": {"mcp_resource": True}}}
            },
        },
    )
    write(
        tmp_path,
        "c/.docs-mcp.json",
        {"version": "1", "taxonomy": {"lang": {"description": "Programming language"}}},
    )
    for folder in "abc":
        write(tmp_path, f"{folder}/x.md", "---\nmetadata: {audience: dev}\n---\n")
    corpus = load_corpus(tmp_path)
    assert corpus.taxonomy == {
        "audience": TaxonomyKey(),
        "lang": TaxonomyKey("Language", True),
        "role": TaxonomyKey(),
        "unused": TaxonomyKey(),
    }
    assert list(corpus.taxonomy) == ["audience", "lang", "role", "unused"]
    assert [str(p) for p in corpus.problems] == [
        "c/.docs-mcp.json: taxonomy key 'lang': description 'Programming language' conflicts"
        " with 'Language' in a/.docs-mcp.json"
    ]


def test_instructions_root_first_else_first_in_path_order(tmp_path: Path) -> None:
    write(tmp_path, "b/.docs-mcp.json", {"version": "1", "mcpServerInstructions": "from b"})
    write(tmp_path, "c/.docs-mcp.json", {"version": "1", "mcpServerInstructions": "from c"})
    write(tmp_path, ".docs-mcp.json", {"version": "1"})
    assert load_corpus(tmp_path).instructions == "from b"
    write(tmp_path, ".docs-mcp.json", {"version": "1", "mcpServerInstructions": "root"})
    assert load_corpus(tmp_path).instructions == "root"


@pytest.mark.corpus
def test_schema_is_valid_and_documented() -> None:
    schema = manifest_schema()
    jsonschema.Draft202012Validator.check_schema(schema)

    def walk(node: dict, where: str) -> None:
        """Visit every subschema, checking that each declared property is described."""
        for name, sub in node.get("properties", {}).items():
            assert "description" in sub, f"{where}.properties.{name} has no description"
            walk(sub, f"{where}.properties.{name}")
        for keyword in ("items", "additionalProperties", "propertyNames"):
            if isinstance(node.get(keyword), dict):
                walk(node[keyword], f"{where}.{keyword}")
        for name, sub in node.get("$defs", {}).items():
            walk(sub, f"{where}.$defs.{name}")

    walk(schema, "$")
    # The test corpora's manifests are all valid.
    for manifest in CORPORA.glob("**/.docs-mcp.json"):
        jsonschema.validate(json.loads(manifest.read_text()), schema)


# --- real corpora ------------------------------------------------------------------------------


@pytest.mark.corpus
def test_yellow_docs_corpus() -> None:
    corpus = load_corpus(CORPORA / "yellow-docs")
    assert corpus.problems == ()
    assert len(corpus.files) == 144
    files = by_path(corpus)
    keys = files["versioned_docs/version-0.5.x/learn/core-concepts/session-keys.mdx"]
    assert dict(keys.metadata) == {"version": "0.5.x", "section": "learn", "role": "concept"}
    assert keys.title == "Session Keys"
    assert keys.strategy == Strategy("h2", 8000, 0)
    assert keys.body.startswith("\n" * 6 + "\nimport Tooltip")
    current = files["docs/learn/core-concepts/session-keys.mdx"]
    assert dict(current.metadata) == {"version": "current", "section": "learn", "role": "concept"}
    blog = files["blog/2021-08-26-welcome/index.md"]
    assert blog.strategy.chunk_by == "file"
    assert dict(blog.metadata)["section"] == "blog"
    # Overlapping overrides: the later **/build/** beats **/protocol/**.
    assert (
        dict(files["docs/build/api/contracts/protocol/staking.md"].metadata)["section"] == "build"
    )
    assert corpus.taxonomy == {
        "role": TaxonomyKey(),
        "section": TaxonomyKey(),
        "version": TaxonomyKey(None, True),
    }
    assert corpus.instructions is not None and corpus.instructions.startswith("Documentation of")


@pytest.mark.corpus
def test_speakeasy_sdks_corpus() -> None:
    corpus = load_corpus(CORPORA / "speakeasy-sdks")
    assert corpus.problems == ()
    # Counted with `find speakeasy-sdks/X -name '*.md' -not -path '*/.*'`; mistral-ts also
    # has .devcontainer/README.md, which is in a hidden folder.
    counts = Counter(f.path.split("/")[0] for f in corpus.files)
    assert counts == {
        "dub-ts": 456,
        "dub-python": 476,
        "dub-go": 476,
        "dub-php": 524,
        "dub-ruby": 438,
        "mistral-python": 1295,
        "mistral-ts": 1255,
    }
    assert not any("/." in f.path for f in corpus.files)
    assert corpus.taxonomy == {
        "language": TaxonomyKey(vector_collapse=True),
        "product": TaxonomyKey(),
        "role": TaxonomyKey(),
    }
    readme = by_path(corpus)["dub-ts/docs/sdks/links/README.md"]
    assert dict(readme.metadata) == {
        "language": "typescript",
        "product": "dub",
        "role": "reference",
    }
    assert readme.strategy == Strategy("h2", 12000, 0)
    assert readme.manifest == "dub-ts/.docs-mcp.json"
    assert corpus.instructions is None


def test_a_manifest_that_is_not_utf8_names_line_and_column(tmp_path: Path) -> None:
    raw = b'\xef\xbb\xbf{"version": "1",\n "description": "caf\xe9"}'  # a BOM, then Latin-1
    (tmp_path / ".docs-mcp.json").write_bytes(raw)
    _, problems = load_manifest(tmp_path, ".docs-mcp.json")
    assert [str(p) for p in problems] == [
        ".docs-mcp.json:2: not valid UTF-8 at column 21 (byte 0xe9); save it as UTF-8"
    ]


def test_generated_provider_frontmatter_that_yaml_refuses_is_read_as_written(
    tmp_path: Path,
) -> None:
    """Terraform provider docs: cdktf's pages carry an HTML comment inside the block, and some
    legacy pages write a `description: |-` whose text is not indented. YAML refuses both, and
    each failed the whole build (terraform-provider-random: 14 pages, no bundle at all)."""
    write(
        tmp_path,
        "cdktf.md",
        "---\n\n<!-- Please do not edit this file, it is generated. -->\n"
        "# generated by https://github.com/hashicorp/terraform-plugin-docs\n"
        'page_title: "random_id Resource - terraform-provider-random"\nsubcategory: ""\n'
        "description: |-\n  The resource random_id generates random numbers.\n"
        "  This resource does use a cryptographic random number generator.\n---\n\n"
        "# random_id (Resource)\n",
    )
    write(
        tmp_path,
        "legacy.html.markdown",
        '---\nlayout: "github"\npage_title: "GitHub: github_team"\ndescription: |-\n'
        "Creates and manages a team\nin an organization\n---\n\n# github_team\n",
    )
    corpus = load_corpus(tmp_path)
    assert not corpus.problems
    front = {path: json.loads(f.frontmatter) for path, f in by_path(corpus).items()}
    assert front["cdktf.md"]["description"] == (
        "The resource random_id generates random numbers.\n"
        "This resource does use a cryptographic random number generator."
    )
    assert front["cdktf.md"]["subcategory"] == ""
    assert front["legacy.html.markdown"]["description"] == (
        "Creates and manages a team\nin an organization"
    )
