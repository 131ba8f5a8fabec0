"""An API page is chunked by its entries: each function, type or method its reader registers
(`SourceFile.api`) is a chunk of its own, whatever chunk_by, while the guides keep chunk_by.
Fixtures are written in the shape of Phoenix's `lib/phoenix/test/conn_test.ex` beside its
guides (ExDoc: `## Functions` / `### name/arity`) and of an axum module (rustdoc:
`## Struct Router` / `### Router::nest`)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, run_docsmcp
from docsmcp.chunking.levels import section_starts
from docsmcp.commands.init import propose
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

CONN_TEST_EX = '''defmodule MyWeb.ConnTest do
  @moduledoc """
  Conveniences for testing endpoints and controllers.

  ## Endpoint testing

  Dispatch a connection to the endpoint under test.
  """

  @doc """
  Creates a connection to be used in upcoming requests.
  """
  def build_conn(), do: nil

  @doc """
  Dispatches the connection to the given endpoint and pipeline.
  """
  def dispatch(conn, endpoint, method, path_or_action, params_or_body \\\\ nil), do: conn

  @doc """
  Puts a request cookie.
  """
  def put_req_cookie(conn, key, value), do: conn

  @doc """
  Returns the location header from the given redirect response.
  """
  def redirected_to(conn, status \\\\ 302), do: ""

  @doc """
  Calls the endpoint and the router, skipping the plugs of the router's pipeline: the
  request flows through them as configured.
  """
  def bypass_through(conn, router, pipelines \\\\ []), do: conn
end
'''

GUIDE_MD = """# Request life-cycle

How a request flows through a Phoenix application.

## From endpoint to router

Every request enters the endpoint, which runs its plugs and hands the connection to the
router. The router matches the path and dispatches to a controller.

### Pipelines

The router groups plugs into pipelines.

## From controller to view

The controller renders a template.
"""


def _site(root: Path, manifest: dict | None) -> Path:
    (root / "lib" / "my_web").mkdir(parents=True)
    (root / "lib" / "my_web" / "conn_test.ex").write_text(CONN_TEST_EX)
    (root / "guides").mkdir()
    (root / "guides" / "request_lifecycle.md").write_text(GUIDE_MD)
    if manifest is not None:
        (root / ".docs-mcp.json").write_text(json.dumps(manifest))
    return root


def _ids(out: Path, path: str) -> list[str]:
    t = pq.read_table(out / "chunks.parquet", columns=["id", "path"])
    return [i for i, p in zip(t["id"].to_pylist(), t["path"].to_pylist(), strict=True) if p == path]


def test_each_entry_is_a_chunk_and_the_guides_keep_chunk_by(tmp_path: Path) -> None:
    # What init proposed for Phoenix (h2, 13,000): the `## Functions` section was one chunk.
    manifest = {"version": "1", "strategy": {"chunk_by": "h2", "max_chunk_size": 13000}}
    out = build_bundle(_site(tmp_path / "proj", manifest), tmp_path / "idx")
    module = _ids(out, "lib/my_web/conn_test.ex")
    functions = [i for i in module if "/functions/" in i]
    assert [i.rpartition("/")[2] for i in functions] == [
        "buildconn0",
        "dispatch5",
        "putreqcookie3",
        "redirectedto2",
        "bypassthrough3",
    ]
    # the module's own sections, and the guide, are cut at h2 as chunk_by says
    assert "lib/my_web/conn_test.ex#mywebconntest/endpoint-testing" in module
    assert _ids(out, "guides/request_lifecycle.md") == [
        "guides/request_lifecycle.md#request-life-cycle",
        "guides/request_lifecycle.md#request-life-cycle/from-endpoint-to-router",
        "guides/request_lifecycle.md#request-life-cycle/from-controller-to-view",
    ]
    with McpSession(out) as s:
        entry = s.call("get_api_reference", {"method": "MyWeb.ConnTest.dispatch/5"})
        assert entry.structured_content["entries"][0]["chunk_id"].endswith("/dispatch5")
        hit = s.search(query="put a request cookie", limit=1)["hits"][0]
    # the hit is the entry, not every function of the module in one bag
    assert hit["chunk_id"] == "lib/my_web/conn_test.ex#mywebconntest/functions/putreqcookie3"


def test_a_whole_file_strategy_keeps_the_page_whole(tmp_path: Path) -> None:
    manifest = {"version": "1", "strategy": {"chunk_by": "file", "max_chunk_size": 20000}}
    out = build_bundle(_site(tmp_path / "proj", manifest), tmp_path / "idx")
    assert _ids(out, "lib/my_web/conn_test.ex") == ["lib/my_web/conn_test.ex"]


def test_without_a_manifest_entries_are_chunks_too(tmp_path: Path) -> None:
    out = build_bundle(_site(tmp_path / "proj", None), tmp_path / "idx")
    assert sum("/functions/" in i for i in _ids(out, "lib/my_web/conn_test.ex")) == 5


def test_init_keeps_its_proposal_and_says_how_entries_are_cut(tmp_path: Path) -> None:
    root = _site(tmp_path / "proj", None)
    proposal = propose(root)
    # the guides' proposal is what the rule gives them without the entries being cut
    assert proposal.manifest["strategy"]["chunk_by"] == "h1"
    # the entries counted are those the build registers (init's validation run reads them)
    done = run_docsmcp("init", "--docs-dir", root)
    line = next(x for x in done.stderr.splitlines() if x.startswith("api:"))
    built = pq.read_table(build_bundle(root, tmp_path / "idx") / "api.parquet").num_rows
    assert line.startswith(f"api: {built} entries on 1 pages") and "whatever chunk_by" in line


# Headings of a rustdoc module page (structural levels, entry or not) as rustdoc.py writes
# them: the struct, its methods, then a section of no entry after them.
RUSTDOC = [
    (1, True),  # # Module webkit::routing
    (2, True),  # ## Struct Router
    (3, False),  # ### Examples (in the struct's docs)
    (3, True),  # ### Router::new
    (3, True),  # ### Router::nest
    (4, False),  # #### Panics (in nest's docs)
    (3, False),  # ### Trait Implementations: no entry, not part of the last method
    (2, True),  # ## Trait Handler
]


def test_entries_start_sections_and_end_at_their_level() -> None:
    levels, entries = zip(*RUSTDOC, strict=True)
    assert section_starts(levels, entries, 2) == [True, True, False, True, True, False, True, True]
    assert section_starts(levels, entries, 3) == [True, True, True, True, True, False, True, True]
    assert section_starts(levels, entries, 0) == [False] * len(RUSTDOC)


@FUZZ
@given(
    st.lists(st.tuples(st.integers(1, 6), st.booleans()), max_size=40),
    st.integers(0, 3),
)
def test_section_starts_cut_at_the_level_and_at_every_entry(
    headings: list[tuple[int, bool]], split: int
) -> None:
    levels = [lv for lv, _ in headings]
    entries = [e for _, e in headings]
    starts = section_starts(levels, entries, split)
    assert len(starts) == len(headings)
    for level, entry, start in zip(levels, entries, starts, strict=True):
        if split and (level <= split or entry):
            assert start
    if split == 0:
        assert not any(starts)
    # never more cuts than the split level and the entries with their closing headings make
    assert sum(starts) <= 2 * sum(1 for lv, e in headings if lv <= split or (split and e))
