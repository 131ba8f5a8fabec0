"""ExDoc projects (hexdocs.pm): `.ex` modules read as the API pages ExDoc publishes from their
`@moduledoc`/`@doc` heredocs, `.cheatmd` cheat sheets read as pages. Fixtures are written in
the shape of Ecto's `lib/ecto/repo.ex` and Phoenix's `guides/cheatsheets/router.cheatmd`."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle
from docsmcp.sources.formats.exdoc import elixir_to_markdown
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

    * `:timeout` - the time in milliseconds
  """

  @type t :: module

  @doc """
  Inserts a struct or a changeset.

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
    ]
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
    assert (page.anchors[0][1], page.anchors[1][1]) == ("t:t/0", "c:insert/2")
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
