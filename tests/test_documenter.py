"""Documenter.jl sites (Julia) read as the built site shows them (sources/sites/documenter.py,
julia_source.py): `@docs` blocks show the docstrings of the package's source, `@ref` links
resolve, Documenter's other blocks show their code or nothing. The fixtures are written in the
shape of Documenter's own docs and of DataFrames.jl's (`docs/src/*.md`, `docs/make.jl`, the
package's `src/*.jl` beside them)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, run_docsmcp
from docsmcp.enrich.xref import _norm
from docsmcp.sources.navigation import documenter_make
from docsmcp.sources.navigation.navfiles import read_nav
from docsmcp.sources.sites import documenter, julia_source
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

PACKAGE = '''"""
Main module of `Acme.jl`, which talks to stations.
"""
module Acme

export connect, Station

include("stations.jl")
include("Wire.jl")

"""
    connect(host::String; retries = 3)

Open a connection to `host`, trying `retries` times. See [`Station`](@ref) and
[Usage](@ref).

# Examples

```jldoctest
julia> connect("example.org")
Connection("example.org")
```
"""
function connect(host::String; retries = 3)
    for i in 1:retries
        x = [1, 2][end]
        if i > x
            return nothing
        end
    end
end

"Close every connection." closeall() = nothing

end # module
'''

STATIONS = '''"""
    Station(name)

A station a connection reaches.

    s = Station("north")

!!! note
    A station's name never changes.
"""
struct Station
    name::String
end

"""
$(SIGNATURES)

Push `x` onto the station's queue.
"""
Base.push!(s::Station, x::Int) = s
'''

WIRE = '''module Wire

@doc raw"""
Encode `x` as the wire's $\\alpha$ frames.
"""
encode(x) = x

"""
    decode(bytes)

The frames of `bytes`.
"""
decode(bytes) = bytes

end
'''

INDEX = """```@meta
CurrentModule = Acme
```

# Acme.jl

Acme talks to stations. Start with [`connect`](@ref), then read [Usage](@ref).

## [Usage](@id usage-guide)

```@setup demo
using Acme
```

```@example demo
using Random # hide
c = connect("example.org")
```

!!! note "Retries"
    A connection is retried three times.

Write a reference as `[`connect`](@ref)`:

````markdown
```@docs
connect
```
````
"""

API = """# API

## Connections

```@docs
connect
Station
push!(::Station, ::Int)
```

## Wire

```@autodocs
Modules = [
    Acme.Wire,
]
Filter = t -> t ∉ (Acme.Wire.decode,)
```

```@index
```
"""

MAKE = """using Documenter, Acme

makedocs(
    sitename = "Acme.jl",
    modules = [Acme],
    pages = [
        "Home" => "index.md",
        "Reference" => Any[
            "The API" => "api.md",
        ],
    ],
)
"""


def _site(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "Project.toml").write_text('name = "Acme"\n')
    (root / "src" / "Acme.jl").write_text(PACKAGE)
    (root / "src" / "stations.jl").write_text(STATIONS)
    (root / "src" / "Wire.jl").write_text(WIRE)
    docs = root / "docs" / "src"
    docs.mkdir(parents=True)
    (root / "docs" / "make.jl").write_text(MAKE)
    (docs / "index.md").write_text(INDEX)
    (docs / "api.md").write_text(API)
    return docs


def _texts(bundle: Path) -> dict[str, str]:
    b = open_bundle(bundle)
    return {b.id(r): b.text(r) for r in range(b.n_chunks)}


def test_docs_blocks_show_the_docstrings_of_the_julia_source(tmp_path: Path) -> None:
    docs = _site(tmp_path / "Acme.jl")
    proc = run_docsmcp(
        "build", "--docs-dir", docs, "--out", tmp_path / "idx", "--api-source", docs.parent.parent
    )
    assert "warning" not in proc.stderr, proc.stderr
    texts = _texts(tmp_path / "idx")
    api = "\n".join(v for k, v in texts.items() if k.startswith("api.md"))
    assert "```@docs" not in api and "```@autodocs" not in api and "@index" not in api
    # each symbol under the block's heading, its docstring, its own headings one level further
    assert "### `Acme.connect` — Function" in api
    assert "Open a connection to `host`, trying `retries` times." in api
    assert "#### Examples" in api and "# Examples" not in api.replace("#### Examples", "")
    # the docstring's indented signature is Julia code; a doctest is Julia code
    assert "```julia\nconnect(host::String; retries = 3)\n```" in api
    assert '```julia\njulia> connect("example.org")' in api
    # a type, a method of Base by its signature (DocStringExtensions' $(SIGNATURES))
    assert "### `Acme.Station` — Type" in api and 's = Station("north")' in api
    # an admonition's indented body is text, not code
    assert "A station's name never changes." in api and "!!!" not in api
    assert "```julia\nA station's name" not in api
    assert "### `Base.push!` — Function" in api
    # (its id spells `!` out: links compare letters and digits, `Base.push` would be the same)
    assert _norm(documenter.anchor("Base.push!")) != _norm(documenter.anchor("Base.push"))
    assert "```julia\nBase.push!(s::Station, x::Int)\n```" in api
    # @autodocs: the docstrings of the module, in Documenter's order, `raw` text as written
    assert "### `Acme.Wire.encode` — Function" in api
    assert "Acme.Wire.decode" not in api  # (what its `Filter` leaves out)
    assert "$\\alpha$ frames" in api
    with McpSession(tmp_path / "idx") as s:
        entry = s.call("get_api_reference", {"method": "connect"})
        push = s.call("get_api_reference", {"method": "push!"})
        hits = s.search(query="open a connection to a host", limit=3)["hits"]
    assert not entry.is_error and "connect(host::String; retries = 3)" in entry.content[0].text
    assert not push.is_error and "Push x onto the station's queue" in push.content[0].text
    assert hits[0]["chunk_id"].startswith("api.md#")


def test_references_resolve_to_headings_and_docstrings(tmp_path: Path) -> None:
    docs = _site(tmp_path / "Acme.jl")
    proc = run_docsmcp(
        "build",
        *("--docs-dir", docs, "--out", tmp_path / "idx", "--json"),
        *("--api-source", docs.parent.parent),
    )
    refs = json.loads(proc.stdout)["references"]
    # [`connect`](@ref) and [Usage](@ref) on the page, [`Station`](@ref) and [Usage](@ref) in
    # a docstring (the one written in code is no link)
    assert refs["found"] == refs["resolved"] == 4, refs
    texts = _texts(tmp_path / "idx")
    index = "\n".join(v for k, v in texts.items() if k.startswith("index.md"))
    # the `@id` heading reads as its title and is reached by its id
    assert "## Usage\n" in index and "@id" not in index
    assert any(k.endswith("/usage-guide") for k in texts), list(texts)
    # a reference shown in code stays as written, and so does a block shown in a fence
    assert "`[`connect`](@ref)`" in index
    assert "````markdown\n```@docs\nconnect\n```\n````" in index


def test_documenters_other_blocks_show_code_or_nothing(tmp_path: Path) -> None:
    docs = _site(tmp_path / "Acme.jl")
    out = build_bundle(docs, tmp_path / "idx", "--api-source", docs.parent.parent)
    index = "\n".join(v for k, v in _texts(out).items() if k.startswith("index.md"))
    assert "CurrentModule" not in index and "@meta" not in index and "@setup" not in index
    assert "using Acme" not in index.split("```julia")[0]  # (the setup block is hidden)
    assert '```julia\nc = connect("example.org")\n```' in index  # `# hide` lines hidden
    assert "Random" not in index
    assert "Note: Retries" in index and "!!!" not in index
    # a fence of another `@` word (a package name) is another site's code, kept as written
    lines = ["```@babel/core", "npm i @babel/core", "```"]
    assert documenter.expand(lines, lambda: None, [])[0] == lines
    code = pq.read_table(out / "code.parquet").to_pylist()
    assert {c["language"] for c in code} == {"julia", "markdown"}  # (no `@example`, `jldoctest`)


def test_without_the_source_a_block_names_its_symbols_and_the_build_says_where(
    tmp_path: Path,
) -> None:
    docs = _site(tmp_path / "Acme.jl")
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx")
    warnings = [x for x in proc.stderr.splitlines() if "warning" in x]
    assert warnings == [
        "docsmcp: warning: 1 page of Documenter blocks (@docs, @autodocs) name 4 Julia symbols "
        "whose docstrings were not found in the source roots (first: @docs connect, from "
        "api.md); they show one line naming them: give --api-source "
        f"{(tmp_path / 'Acme.jl').resolve()} (another package's symbols: its folder)"
    ], proc.stderr
    api = "\n".join(v for k, v in _texts(tmp_path / "idx").items() if k.startswith("api.md"))
    assert "API reference of `connect`, `Station`, `push!(::Station, ::Int)`" in api
    assert "```@docs" not in api


def test_julia_modules_are_counted_by_blocks_not_columns(tmp_path: Path) -> None:
    """Julia code is not indented inside a module: a function's `end` at column 0 closes the
    function, `x[end]` nothing, and the module's own `end` the module."""
    root = tmp_path / "Pkg"
    (root / "src").mkdir(parents=True)
    (root / "src" / "Pkg.jl").write_text(
        'module Pkg\nfunction f()\n    x = [1][end]\nend\nmodule Inner\n"Doc of g." g() = 1\n'
        'end\n"""\n    h(a::Int, b)\n\nDoc of h.\n"""\nh(a::Int, b) = a\nend\n"Top." top = 1\n'
    )
    (root / "docs").mkdir()
    lib = julia_source.load(root / "docs", [root / "docs", root])
    assert [(d.binding, d.kind) for d in lib.docstrings] == [
        ("Pkg.Inner.g", "Function"),
        ("Pkg.h", "Function"),
        ("top", "Constant"),
    ]
    assert lib.lookup("Inner.g")[0].text == "Doc of g."
    assert lib.lookup("h(::Int, ::Any)")[0].definition == "h(a::Int, b)"


def test_make_jl_pages_title_and_order_the_pages(tmp_path: Path) -> None:
    """`pages = [...]` of docs/make.jl, as Documenter's and DataFrames' write it: titled pages,
    bare pages, groups, `hide(...)`, a computed list (passed over)."""
    docs = _site(tmp_path / "Acme.jl")
    (docs / "guide.md").write_text("# Guide\n\nHow to.\n")
    (docs / "hidden.md").write_text("# Hidden\n\nNot in the menu.\n")
    (docs / "extra.md").write_text("# Extra\n\nNamed by no list.\n")
    (docs.parent / "make.jl").write_text(
        MAKE.replace(
            '"Home" => "index.md",',
            '"Home" => "index.md",\n        "guide.md",\n        hide("Secret" => "hidden.md"),\n'
            '        "Computed" => map(s -> "lib/$(s)", readdir("lib")),',
        )
    )
    pages = ["api.md", "extra.md", "guide.md", "hidden.md", "index.md"]
    nav = read_nav(docs, [docs, docs.parent], pages)
    assert nav.order == {"index.md": 0, "guide.md": 1, "hidden.md": 2, "api.md": 3}
    assert nav.titles == {"index.md": "Home", "hidden.md": "Secret", "api.md": "The API"}
    # make.jl beside the docs folder is read when a source root holds it, as mkdocs.yml is
    proc = run_docsmcp(
        "build", "--docs-dir", docs, "--out", tmp_path / "idx", "--source-root", docs.parent
    )
    assert "make.jl (titles and order of 4 pages)" in proc.stdout + proc.stderr
    with McpSession(tmp_path / "idx") as s:
        listed = s.call("list_sections", {"depth": 5}).structured_content["entries"]
    assert [e["path"] for e in listed] == [
        "index.md", "guide.md", "hidden.md", "api.md", "extra.md"
    ]  # fmt: skip


def test_docstrings_interpolate_string_constants_and_links_run_over_lines(
    tmp_path: Path,
) -> None:
    """DataFrames' docstrings end in `$TABLEMETA_EXAMPLE`, a `const` string holding the
    examples (its fence closes in it: unread, the rest of the page read as code); its pages
    write a link's text over two lines."""
    docs = _site(tmp_path / "Acme.jl")
    (docs.parent.parent / "src" / "meta.jl").write_text(
        'const META_EXAMPLE =\n    """\n    # Examples\n\n    ```jldoctest\n'
        '    julia> meta(1)\n    1\n    ```\n    """\n\n'
        'const COL_STR = "`Symbol` or " *\n    "integer"\n'
        '"""\n    meta(x)\n\nThe metadata of column `x` ($COL_STR).\n\n$META_EXAMPLE\n"""\n'
        "meta(x) = x\n"
    )
    src = docs.parent.parent / "src" / "Acme.jl"
    src.write_text(
        src.read_text().replace('include("Wire.jl")', 'include("Wire.jl")\ninclude("meta.jl")')
    )
    (docs / "api.md").write_text(
        "# API\n\nSee the [API\nof connections](@ref Connections).\n\n## Connections\n\n"
        "```@docs\nmeta\n```\n\n## After\n\nProse after the block.\n"
    )
    proc = run_docsmcp(
        "build",
        *("--docs-dir", docs, "--out", tmp_path / "idx", "--json"),
        *("--api-source", docs.parent.parent),
    )
    refs = json.loads(proc.stdout)["references"]
    texts = _texts(tmp_path / "idx")
    api = "\n".join(v for k, v in texts.items() if k.startswith("api.md"))
    assert "#### Examples\n\n```julia\njulia> meta(1)\n1\n```" in api and "$META" not in api
    assert "The metadata of column `x` (`Symbol` or integer)." in api
    assert any(k.endswith("/after") for k in texts) and "Prose after the block." in api
    # (index.md's [`connect`](@ref) names a docstring no page shows now)
    assert refs["unresolved_links"] == [{"page": "index.md", "link": "@ref#Acme.connect"}], refs


PIECES = st.sampled_from(
    [
        "```@docs\n",
        "```@autodocs\nModules = [A",
        "```@meta\nCurrentModule = A\n",
        "```@example x; continued = true\n",
        "x # hide\n",
        "```jldoctest\n",
        "```@babel/core\n",
        "````markdown\n",
        "```\n",
        "## [T](@id t)\n",
        "[`f`](@ref)",
        "[T](@ref t x)",
        "[#1](@ref)",
        "`[`f`](@ref)`",
        "    indented\n",
        "# H\n",
        "\n",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=10)), max_size=30).map("".join)
JULIA = st.lists(
    st.one_of(
        st.sampled_from(
            ['"""\n', '@doc raw"""', "module M\n", "end\n", "function f(x)\n", "x[end]\n", '"d" ']
        ),
        st.text(max_size=10),
    ),
    max_size=30,
).map("".join)


@FUZZ
@given(TEXT, JULIA)
def test_documenter_readers_never_fail_and_map_every_line(text: str, source: str) -> None:
    lines = text.split("\n")
    lib = julia_source.Library(
        tuple(julia_source._docstrings(source.split("\n"), "A", "a.jl", {})), ()
    )
    missing: list[str] = []
    out, line_map = documenter.expand(lines, lambda: lib, missing)
    assert len(out) == len(line_map)
    assert all(0 <= k < len(lines) for k in line_map)
    assert line_map == sorted(line_map)


MAKE_PIECES = st.sampled_from(
    ["pages = [", '"T" => ', '"a.md"', "Any[", "hide(", "map(", "]", ")", ",", "$(s)", "\n"]
)


@FUZZ
@given(st.lists(st.one_of(MAKE_PIECES, st.text(max_size=6)), max_size=40).map("".join))
def test_make_jl_reader_never_fails(text: str) -> None:
    for page, title in documenter_make.listed(text, Path("docs")):
        assert page.name.endswith(".md") and isinstance(title, str)


def test_a_rebuild_shows_a_docstring_edited_in_the_source(tmp_path: Path) -> None:
    """The API page's text comes from the Julia files: a rebuild after editing only them (the
    page unchanged, its parse cache warm) shows the new docstring."""
    docs = _site(tmp_path / "Acme.jl")
    args = ("--docs-dir", docs, "--out", tmp_path / "idx", "--api-source", docs.parent.parent)
    args += ("--cache-dir", tmp_path / "cache")
    run_docsmcp("build", *args)
    src = docs.parent.parent / "src" / "Acme.jl"
    src.write_text(src.read_text().replace("Open a connection", "Dial a connection"))
    run_docsmcp("build", *args)
    api = "\n".join(v for k, v in _texts(tmp_path / "idx").items() if k.startswith("api.md"))
    assert "Dial a connection to `host`" in api and "Open a connection" not in api
