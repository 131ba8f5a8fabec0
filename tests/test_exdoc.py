"""ExDoc projects (hexdocs.pm): `.ex` modules read as the API pages ExDoc publishes from their
`@moduledoc`/`@doc` heredocs, `.cheatmd` cheat sheets read as pages. Fixtures are written in
the shape of Ecto's `lib/ecto/repo.ex` and Phoenix's `guides/cheatsheets/router.cheatmd`."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, run_docsmcp
from docsmcp.enrich import exdoc_links
from docsmcp.sources.formats.markdown.exdoc_admonitions import admonition_line
from docsmcp.sources.formats.source.exdoc import elixir_to_markdown
from docsmcp.sources.site_config import CorpusName, corpus_name
from docsmcp.sources.sites import exdoc_site
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

REPO_EX = '''defmodule MyLib.Repo do
  @moduledoc """
  Defines a repository.

  > #### `use MyLib.Repo` {: .info}
  >
  > When you `use MyLib.Repo`, the repository gets its functions.

  ## Shared options

    * `:timeout` - the time in milliseconds,

      or `:infinity`
  """

  @type t :: module

  @doc """
  Inserts a struct or a changeset, as `c:update/2` updates one (`t:MyLib.Schema.t/0`).
  See [the options](`c:insert/2#options`).

  ## Options

    * `:returning` - selects which fields to return

  ## Example

      case MyRepo.insert(%Post{title: "Ecto is great"}) do
        {:ok, struct} -> struct
      end
  """
  @doc group: "Schema API"
  @callback insert(
              struct_or_changeset :: MyLib.Schema.t(),
              opts :: Keyword.t()
            ) :: {:ok, MyLib.Schema.t()} | {:error, term}

  defmacro __using__(opts) do
    quote do
      @doc false
      def insert(struct, opts \\\\ []) do
        MyLib.Repo.Schema.insert(__MODULE__, struct, opts)
      end
    end
  end

  @doc """
  Returns the path matching `\\\\d+`.
  """
  @spec escape(String.t(), keyword) :: String.t()
  def escape(string, opts \\\\ []) when is_binary(string) do
    do_escape(string, opts)
  end

  def escape(other, _opts), do: other

  @doc false
  def internal(x), do: x

  defp do_escape(string, _opts), do: string

  defmodule Id do
    @moduledoc """
    A type for binary ids.

    ## Autogeneration

    Use it for the primary key of a schema:

        use MyLib.Schema
        @primary_key {:id, MyLib.Repo.Id, autogenerate: true}
    """

    @doc "Casts a binary UUID."
    def cast(<<a1, a2, a3, a4>>), do: {:ok, <<a1, a2, a3, a4>>}
    def cast(_other), do: :error

    @doc "Compares two ids (an operator, as Ecto.Query.API's)."
    def left == right, do: left === right

    @doc "Negates, its argument written without parentheses."
    def not value, do: !value

    def unquote(:generated)(x), do: x
  end

  defmodule Hidden do
    @moduledoc false

    @doc "Never shown."
    def secret, do: :ok
  end
end
'''

CHEATMD = """# Routing cheatsheet

## Routing declaration
{: .col-2}

### Single route

```elixir
get "/users", UserController, :index
```

### Resources

```elixir
resources "/users", UserController
```
"""


def _site(root: Path) -> Path:
    (root / "lib" / "my_lib").mkdir(parents=True)
    (root / "lib" / "my_lib" / "repo.ex").write_text(REPO_EX)
    (root / "lib" / "my_lib" / "private.ex").write_text(
        "defmodule MyLib.Private do\n  @moduledoc false\n  def x, do: 1\nend\n"
    )
    (root / "guides" / "cheatsheets").mkdir(parents=True)
    (root / "guides" / "cheatsheets" / "router.cheatmd").write_text(CHEATMD)
    return root


def test_a_module_reads_as_its_exdoc_page() -> None:
    page = elixir_to_markdown("lib/my_lib/repo.ex", REPO_EX)
    assert page.title == "MyLib.Repo"
    text = page.text
    assert text.startswith("# MyLib.Repo\n\nDefines a repository.")
    assert "## Callbacks" in text and "### insert/2" in text
    assert "## Functions" in text and "### escape/2" in text
    # its doc's own headings sit under the entry; `\\d` is one backslash in the page
    # indented code reads as the Elixir ExDoc highlights; a list item's text stays text
    assert "```elixir\ncase MyRepo.insert(%Post{" in text
    assert "\n    or `:infinity`" in text
    # an auto-link's kind prefix is not shown, as ExDoc shows it; a link target keeps it
    assert "as `update/2` updates one (`MyLib.Schema.t/0`)" in text
    assert "[the options](`c:insert/2#options`)" in text
    assert "#### Options" in text and "Returns the path matching `\\d+`." in text
    # what ExDoc hides: `@doc false`, defp, a `quote`'s defs, a `@moduledoc false` module
    for hidden in ("internal", "do_escape", "Never shown", "MyLib.Repo.Hidden", "__using__"):
        assert hidden not in text, hidden
    assert "# MyLib.Repo.Id" in text
    names = [e.name for e in page.api]
    assert names == [
        "MyLib.Repo",
        "MyLib.Repo.t/0",
        "MyLib.Repo.insert/2",
        "MyLib.Repo.escape/2",
        "MyLib.Repo.Id",
        "MyLib.Repo.Id.cast/1",
        "MyLib.Repo.Id.==/2",
        "MyLib.Repo.Id.not/1",
    ]
    assert page.api[-2].signature == "left == right" and "unquote" not in text
    insert = page.api[2]
    assert insert.signature.startswith("@callback insert(struct_or_changeset :: MyLib.Schema.t(),")
    assert insert.returns == "{:ok, MyLib.Schema.t()} | {:error, term}"
    assert [(p.name, p.type) for p in insert.parameters] == [
        ("struct_or_changeset", "MyLib.Schema.t()"),
        ("opts", "Keyword.t()"),
    ]
    assert insert.examples and insert.examples[0].code.startswith("case MyRepo.insert(")
    escape = page.api[3]
    assert escape.signature == "escape(string, opts \\\\ [])"
    assert escape.returns == "String.t()"
    assert [p.required for p in escape.parameters] == [True, False]
    # ExDoc's ids: a moduledoc heading's, each entry's, a heading of an entry's doc
    ids = [name for _, name in page.anchors]
    assert ids[:4] == ["module-Shared options", "t:t/0", "c:insert/2", "c:insert/2-Options"]
    # every markdown line maps to a line of the file, in order
    assert len(page.line_map) == text.count("\n") + 1
    assert list(page.line_map) == sorted(page.line_map)


def test_a_file_without_a_documented_module_is_no_page() -> None:
    assert elixir_to_markdown("x.ex", "defmodule X do\n  @moduledoc false\nend\n").text == ""
    assert elixir_to_markdown("x.ex", "defmodule X do\n  def x, do: 1\nend\n").text == ""


def test_the_api_reference_answers_from_the_heredocs(tmp_path: Path) -> None:
    out = build_bundle(_site(tmp_path / "proj"), tmp_path / "idx")
    b = open_bundle(out)
    paths = {b.paths[r].as_py() for r in range(b.n_chunks)}
    assert paths == {"lib/my_lib/repo.ex", "guides/cheatsheets/router.cheatmd"}
    cheat = "\n".join(
        b.text(r) for r in range(b.n_chunks) if b.paths[r].as_py().endswith(".cheatmd")
    )
    assert 'get "/users", UserController, :index' in cheat and "{: .col-2}" not in cheat
    with McpSession(out) as s:
        for asked in ("MyLib.Repo.insert/2", "MyLib.Repo.insert", "c:MyLib.Repo.insert/2"):
            found = s.call("get_api_reference", {"method": asked})
            assert not found.is_error, asked
            entry = found.structured_content["entries"][0]
            assert entry["name"] == "MyLib.Repo.insert/2", asked
        assert entry["chunk_id"].startswith("lib/my_lib/repo.ex#")
        hits = s.search(query="insert a struct or a changeset", limit=3)["hits"]
    assert hits[0]["chunk_id"].startswith("lib/my_lib/repo.ex#")
    # a module page's `# MyLib.Repo` heading is the module's entry, not a second one
    names = pq.read_table(out / "api.parquet").column("name").to_pylist()
    assert sorted(names) == sorted(set(names)) and "MyLib.Repo" in names


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            [
                "defmodule A.B do",
                "defprotocol P do",
                '  @moduledoc """',
                '  @doc """',
                '  @doc ~S"""',
                '  """',
                "  @doc false",
                '  @moduledoc "x"',
                "  def f(a, b \\\\ [",
                "  def g(x), do: x",
                "  @callback c(",
                "  @type t :: %{",
                "  @spec f(a) :: b",
                "  ## Options",
                "    iex> f(1)",
                "  ```",
                "end",
                "  end",
                "x)",
                "",
            ]
        )
        | st.text(max_size=30),
        max_size=60,
    )
)
def test_any_elixir_text_converts_without_error(lines: list[str]) -> None:
    text = "\n".join(lines)
    page = elixir_to_markdown("x.ex", text)
    n = page.text.count("\n") + 1 if page.text else 0
    assert len(page.line_map) == n
    assert all(0 <= line < text.count("\n") + 1 for line in page.line_map)
    assert all(e.line_start <= e.line_end <= n for e in page.api)


MIX_EXS = """defmodule MyLib.MixProject do
  use Mix.Project

  def project do
    [
      app: :my_lib,
      name: "MyLib",
      docs: docs()
    ]
  end

  defp docs do
    [
      main: "overview",
      extras: extras(),
      groups_for_extras: [
        Introduction: ~r/guides\\/introduction\\/.?/,
        "Data and Auth": ["guides/data/contexts.md", "guides/auth/gen_auth.md"],
        Cheatsheets: ~r/cheatsheets\\/.?/
      ]
    ]
  end

  defp extras do
    [
      "guides/introduction/overview.md",
      "guides/data/contexts.md": [title: "Contexts in depth"],
      "guides/auth/gen_auth.md",
      "guides/cheatsheets/router.cheatmd",
      "JS Documentation": [url: "js/index.html"]
    ]
  end
end
"""


def _project(root: Path) -> Path:
    _site(root)
    (root / "mix.exs").write_text(MIX_EXS)
    pages = {
        "guides/introduction/overview.md": "# Overview\n\nStart with [contexts](contexts.html).\n",
        "guides/data/contexts.md": "# Contexts\n\nGroup your schemas.\n",
        "guides/auth/gen_auth.md": (
            "# mix my_lib.gen.auth\n\nSee [contexts](contexts.md), the repository's"
            " [insert](`MyLib.Repo.insert/2`), [its options](`c:MyLib.Repo.insert/2#options`)"
            " and [the module](MyLib.Repo.html#module-shared-options), [its options]"
            "(`m:MyLib.Repo#module-shared-options`).\n"
        ),
        "CONTRIBUTING.md": "# Contributing\n\nOpen an issue first.\n",
        "installer/README.md": "# Installer\n\nThe installer's own package.\n",
    }
    for path, text in pages.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_mix_exs_extras_are_the_published_pages_in_order() -> None:
    assert exdoc_site.extras(MIX_EXS) == [
        ("guides/introduction/overview.md", ""),
        ("guides/data/contexts.md", "Contexts in depth"),
        ("guides/auth/gen_auth.md", ""),
        ("guides/cheatsheets/router.cheatmd", ""),
    ]
    inline = 'def project, do: [docs: [extras: ["README.md", {"CHANGELOG.md", [title: "Log"]}]]]'
    assert exdoc_site.extras(inline) == [("README.md", ""), ("CHANGELOG.md", "Log")]
    assert exdoc_site.extras("defmodule X do\nend\n") == []
    # each extra's nav title: its `title:`, else its group's label (page-level evidence)
    titles = [t for _, t in exdoc_site.nav_entries(Path("/p/mix.exs"), MIX_EXS)]
    assert titles == ["Introduction", "Contexts in depth", "Data and Auth", "Cheatsheets"]
    # what is left out: a top file anchored (a `README.md` glob would take every folder's),
    # a top folder of no published page as one glob
    paths = ["README.md", "guides/README.md", "guides/data/contexts.md", "lib/my_lib.ex"]
    paths += ["installer/README.md", "installer/lib/phx_new.ex", "guides/notes.md"]
    mix = MIX_EXS.replace('"guides/auth/gen_auth.md",', '"guides/README.md",')
    assert exdoc_site.unpublished(mix, paths) == ("/README.md", "installer/**", "guides/notes.md")


def test_an_exdoc_project_publishes_its_extras_and_modules(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    out = tmp_path / "idx"
    built = run_docsmcp("build", "--docs-dir", root, "--out", out, "--json")
    summary = json.loads(built.stdout)
    b = open_bundle(out)
    paths = {b.paths[r].as_py() for r in range(b.n_chunks)}
    # CONTRIBUTING.md and the installer's package are no pages of the site
    assert "CONTRIBUTING.md" not in paths and "installer/README.md" not in paths
    assert {"lib/my_lib/repo.ex", "guides/data/contexts.md"} <= paths
    assert "CONTRIBUTING.md" in summary["unpublished"]
    # the extras title and order the guides (as a mkdocs nav: the title is the page's nav
    # title, its first heading stays its title)
    assert "mix.exs (titles and order of 4 pages)" in summary["navigation"]
    # a build of its `guides/` folder is named by the project, not "guides"
    assert corpus_name(root / "guides") == CorpusName("mylib", "MyLib", "mix.exs name")
    # ExDoc's flat links: `contexts.html` and `contexts.md` from other folders, an auto-link
    # to a callback and to a heading of its doc, a module page's moduledoc heading
    refs = summary["references"]
    assert refs["found"] == 7 and refs["resolved"] == 7, refs  # (one in the module's doc)


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            [
                "extras:",
                " extras()",
                "defp extras do",
                "[",
                "]",
                '"a.md"',
                ",",
                "{",
                "}",
                "title:",
                '"T"',
                "url:",
                '"x\\"',
                ":",
                "\n",
                "end",
            ]
        )
        | st.text(max_size=12),
        max_size=50,
    ),
    st.text(max_size=40),
)
def test_any_mix_file_and_link_read_without_error(parts: list[str], href: str) -> None:
    found = exdoc_site.extras("".join(parts))
    assert all(isinstance(p, str) and isinstance(t, str) for p, t in found)
    for h in (href, f"`{href}`"):
        auto = exdoc_links.autolink(h)
        assert auto is None or all(isinstance(x, str) for x in auto)
        assert isinstance(exdoc_links.flat_name(h), str)
        label = admonition_line(f"> #### {h} {{: .info}}")
        assert label is None or label.startswith("> Info: ")


def test_an_admonition_reads_as_its_label(tmp_path: Path) -> None:
    """hexdocs draws `> #### Title {: .info}` as a box titled by it: `> Info: Title`."""
    docs = tmp_path / "guides"
    docs.mkdir()
    (docs / "routing.md").write_text(
        "# Routing\n\n> ### Requirement {: .tip}\n>\n> Read the request life-cycle guide.\n\n"
        "Routers match requests.\n\n> #### Why the macros? {: .info}\n>\n> They compile.\n\n"
        "> #### Mind the order {: .warning}\n>\n> First match wins.\n"
    )
    b = open_bundle(build_bundle(docs, tmp_path / "idx"))
    text = "\n".join(b.text(r) for r in range(b.n_chunks))
    assert "> Tip: Requirement" in text and "> Info: Why the macros?" in text
    assert "> Warning: Mind the order" in text
    assert "{:" not in text and "####" not in text


def test_a_guides_build_names_the_project_to_build(tmp_path: Path) -> None:
    """Built alone, an ExDoc project's guides/ lack the module pages: the summary says where
    they are and what to build (adding --source-root would read mix.exs, not lib/)."""
    root = _project(tmp_path / "proj")
    built = run_docsmcp("build", "--docs-dir", root / "guides", "--out", tmp_path / "idx")
    assert f"lib/ holds the API reference hexdocs shows: build the project, --docs-dir {root}" in (
        built.stdout + built.stderr
    )


def test_a_mix_task_page_is_titled_by_its_command() -> None:
    """hexdocs titles `Mix.Tasks.Phx.Gen.Auth` `mix phx.gen.auth`, the command users type;
    the registry keeps the module's name (what links and auto-links name)."""
    task = (
        "defmodule Mix.Tasks.MyLib.Gen.Repo do\n"
        '  @shortdoc "Generates a new repository"\n\n'
        '  @moduledoc """\n  Generates a new repository.\n\n      $ mix my_lib.gen.repo -r Repo\n'
        '  """\n  use Mix.Task\n\n  @impl true\n  def run(args), do: args\nend\n'
    )
    page = elixir_to_markdown("lib/mix/tasks/my_lib.gen.repo.ex", task)
    assert page.text.startswith("# mix my_lib.gen.repo\n\nGenerates a new repository.")
    assert [e.name for e in page.api] == [
        "Mix.Tasks.MyLib.Gen.Repo",
        "Mix.Tasks.MyLib.Gen.Repo.run/1",
    ]


UID_EX = '''defmodule MyLib.UID do
  @moduledoc """
  A type for unique id strings.

  ## Autogeneration

  Use it for the key of a schema:

      @primary_key {:id, MyLib.UID, autogenerate: [version: 7]}
  """

  @type t :: <<_::288>>

  @doc """
  Casts a string or a binary to a unique id.

  See `MyLib.UID.load/1` for raw ids.

  ## Examples

      iex> MyLib.UID.cast("601d74e4-a8d3-4b6e-8365-eddb4c893327")
      {:ok, "601d74e4-a8d3-4b6e-8365-eddb4c893327"}
  """
  def cast(value), do: {:ok, value}

  @doc "Loads a raw id."
  def load(raw), do: {:ok, raw}
end
'''


def test_a_module_heading_is_its_entry_not_a_second_one(tmp_path: Path) -> None:
    """The page's `# MyLib.UID`, with examples calling `MyLib.UID.cast(...)` below it, is what
    the heading reader takes for an API entry; it is the module's own entry (Ecto.UUID and
    Ecto.ParameterizedType were registered twice)."""
    (tmp_path / "proj" / "lib").mkdir(parents=True)
    (tmp_path / "proj" / "lib" / "uid.ex").write_text(UID_EX)
    out = build_bundle(tmp_path / "proj", tmp_path / "idx")
    names = pq.read_table(out / "api.parquet").column("name").to_pylist()
    assert names == ["MyLib.UID", "MyLib.UID.t/0", "MyLib.UID.cast/1", "MyLib.UID.load/1"]


def test_an_auto_link_names_its_registry_entry() -> None:
    """`c:GenServer.init/1`, `t:...`, `m:...` as written in docs find their entry: a module of
    one segment left no tail to try (`c:genserver` and `init`)."""
    from docsmcp_runtime.browse.apiref import method_key

    assert method_key("c:GenServer.init/1") == method_key("GenServer.init") == "genserver.init"
    assert method_key("m:Ecto.Query") == "ecto.query"
    assert method_key("t:Ecto.Changeset.t/0") == "ecto.changeset.t"
    assert method_key("toctree:maxdepth") == "toctree:maxdepth"  # (a Sphinx option stays)


def test_a_local_auto_link_may_name_kernel(tmp_path: Path) -> None:
    """Elixir's own pages link `` [`is_nil/1`](`is_nil/1`) `` from any module: not found in
    the page's module, it is Kernel's (imported everywhere), as ExDoc resolves it."""
    lib = tmp_path / "proj" / "lib"
    lib.mkdir(parents=True)
    (lib / "kernel.ex").write_text(
        'defmodule Kernel do\n  @moduledoc "The default imports."\n\n'
        '  @doc "Whether `term` is nil."\n  def is_nil(term), do: term == nil\nend\n'
    )
    (lib / "my_lib.ex").write_text(
        'defmodule MyLib do\n  @moduledoc """\n  Checks with [`is_nil/1`](`is_nil/1`) first,\n'
        '  then [`check/1`](`check/1`).\n  """\n\n  @doc "Checks."\n  def check(x), do: x\nend\n'
    )
    out = tmp_path / "idx"
    built = run_docsmcp("build", "--docs-dir", tmp_path / "proj", "--out", out, "--json")
    refs = json.loads(built.stdout)["references"]
    assert refs["found"] == 2 and refs["resolved"] == 2, refs
