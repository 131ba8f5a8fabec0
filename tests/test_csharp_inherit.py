"""C# types list what they inherit from base classes of the tree, by the rule Java's, Kotlin's,
TypeScript's and Doxygen's pages follow (docfx's *Inherited Members*): a line per base of links
to the base's sections, and an API entry per member named as the child's; never a copy
(formats/source/csharp_inherit.py, packages/dotnet_inherit.py). Fixtures in Polly's shape
(`RetryStrategyOptions<TResult> : ResilienceStrategyOptions`, an options class per strategy)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, page_texts, run_docsmcp, write_tree
from docsmcp.sources.formats.source.csharp_merge import Merge, split
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

BASE_OPTIONS = """namespace Acme;

/// <summary>
/// The options associated with the resilience strategy.
/// </summary>
public abstract class StrategyOptions
{
    /// <summary>
    /// Gets or sets the name of the strategy.
    /// </summary>
    public string? Name { get; set; }

    /// <summary>
    /// Gets the strategy type.
    /// </summary>
    public abstract string StrategyType { get; }

    internal bool Hidden { get; set; }
}
"""

RETRY = """using Acme;

namespace Acme.Retry;

/// <summary>
/// Represents the options used to configure a retry strategy.
/// </summary>
/// <typeparam name="TResult">The type of result the retry strategy handles.</typeparam>
public class RetryOptions<TResult> : StrategyOptions, IDisposable
{
    /// <summary>
    /// Gets the strategy type.
    /// </summary>
    public override string StrategyType => "Retry";

    /// <summary>
    /// Gets or sets the maximum number of retries.
    /// </summary>
    public int MaxRetryAttempts { get; set; } = 3;

    /// <inheritdoc/>
    public void Dispose() { }
}

/// <summary>
/// The options of a retry strategy handling any result.
/// </summary>
public class RetryOptions : RetryOptions<object>
{
}
"""


def _tree(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "acme",
        {
            "Acme.sln": (
                'Project("{X}") = "Acme", "src\\\\Acme\\\\Acme.csproj", "{Y}"\nEndProject\n'
            ),
            "src/Acme/Acme.csproj": '<Project Sdk="Microsoft.NET.Sdk" />\n',
            "src/Acme/StrategyOptions.cs": BASE_OPTIONS,
            "src/Acme/Retry/RetryOptions.cs": RETRY,
        },
    )


def test_a_class_lists_what_it_inherits_as_links(tmp_path: Path) -> None:
    out = build_bundle(_tree(tmp_path), tmp_path / "idx")
    pages = page_texts(out)
    retry = pages["src/Acme/Retry/RetryOptions.cs"]
    # A base on another page: a line of its members the class does not declare, no copy.
    assert "**Inherited from `StrategyOptions`:** `Name`" in retry
    assert "Gets or sets the name of the strategy." not in retry
    assert "Hidden" not in retry  # (internal: docfx shows it nowhere)
    assert "IDisposable" not in retry.split("```")[-1]  # (outside the tree: nothing)
    # A base on the same page: links to its sections, nearest first.
    line = "**Inherited from `RetryOptions`:** [`StrategyType`](#StrategyType), "
    assert line + "[`MaxRetryAttempts`](#MaxRetryAttempts), [`Dispose`](#Dispose-)" in retry
    assert retry.count("Gets or sets the maximum number of retries.") == 1
    api = ApiRegistry(open_bundle(out))
    # (both RetryOptions<TResult> and RetryOptions inherit it)
    names = [api.spec(i) for i in api.lookup("Acme.Retry.RetryOptions.Name")]
    assert names and all(n["signature"] == "public string? Name { get; set; }" for n in names)
    assert names[0]["description"] == "Gets or sets the name of the strategy."
    # The class's own override stays its own.
    found = [api.spec(i) for i in api.lookup("RetryOptions.StrategyType")]
    assert found and found[0]["signature"].startswith("public override string StrategyType")
    # Same page: the child's entry is the base's own section (no chunk more).
    (attempts,) = [api.spec(i) for i in api.lookup("Acme.Retry.RetryOptions.MaxRetryAttempts")]
    assert attempts["description"] == "Gets or sets the maximum number of retries."
    assert attempts["chunk_id"].endswith("#RetryOptions/MaxRetryAttempts")
    rows = pq.read_table(out / "api.parquet").to_pylist()
    alias = [r for r in rows if r["name"] == "Acme.Retry.RetryOptions.MaxRetryAttempts"]
    own = [r for r in rows if r["name"] == "Acme.Retry.RetryOptions<TResult>.MaxRetryAttempts"]
    same = ("row", "line_start", "line_end")
    assert len(alias) == 1 and [alias[0][k] for k in same] == [own[0][k] for k in same]
    assert "Inherited" not in pages["src/Acme/StrategyOptions.cs"]


def test_the_line_refers_to_the_bases_sections(tmp_path: Path) -> None:
    built = run_docsmcp("build", "--docs-dir", _tree(tmp_path), "--out", tmp_path / "i", "--json")
    refs = json.loads(built.stdout)["references"]
    assert refs["resolved"] >= 1 and refs["resolved"] == refs["found"], refs


@given(st.text(max_size=200))
@FUZZ
def test_merge_line_with_bases_round_trips(text: str) -> None:
    merge = Merge(inherits={text: [{"key": text, "members": [{"name": text}]}]})
    body, read = split("class A\n" + merge.encode())
    assert body == "class A" and read == merge
