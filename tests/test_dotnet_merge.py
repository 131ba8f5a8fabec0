"""A C# page shows what docfx copies from other files: `<inheritdoc/>` the base member's (or
base type's) comment when the base is in the tree, and `<code source="…" region="…"/>` the
region of the file it names. The fixtures are written in the shape of App-vNext/Polly
(`ResiliencePipelineRegistry<TKey> : ResiliencePipelineProvider<TKey>` overriding
`TryGetPipeline` with `<inheritdoc/>`, `RetryStrategyOptions : RetryStrategyOptions<object>`
with a type-level `<inheritdoc/>`, an exception's `GetObjectData` inheriting from
`System.Exception`) and of JamesNK/Newtonsoft.Json (`Src/Newtonsoft.Json` with examples in
`Src/Newtonsoft.Json.Tests/Documentation/*.cs` regions, named from the repository's `Doc/`
folder as `..\\Src\\…`)."""

from __future__ import annotations

from pathlib import Path

from conftest import FUZZ, build_bundle, page_texts, write_tree
from docsmcp.sources.formats.source.csharp_merge import Merge, split
from docsmcp.sources.packages.dotnet_merge import bases
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

PROVIDER = """namespace Acme.Registry;

/// <summary>
/// Represents a provider for pipelines that are accessible by <typeparamref name="TKey"/>.
/// </summary>
/// <typeparam name="TKey">The type of the key.</typeparam>
public abstract class PipelineProvider<TKey>
    where TKey : notnull
{
    /// <summary>
    /// Tries to get a resilience pipeline from the provider using the specified key.
    /// </summary>
    /// <param name="key">The key used to identify the resilience pipeline.</param>
    /// <param name="pipeline">The pipeline if found, <see langword="null"/> otherwise.</param>
    /// <returns><see langword="true"/> if the pipeline was found.</returns>
    public abstract bool TryGetPipeline(TKey key, out Pipeline? pipeline);

    /// <summary>
    /// Tries to get a generic resilience pipeline from the provider using the specified key.
    /// </summary>
    public abstract bool TryGetPipeline<TResult>(TKey key, out Pipeline<TResult>? pipeline);

    /// <summary>Writes a number.</summary>
    public virtual void Write(int value) { }

    /// <summary>Writes a text.</summary>
    public virtual void Write(string value) { }

    /// <summary>
    /// Logs as <see cref="M:Acme.Registry.PipelineProvider`1.Write(System.String)"/>.
    /// </summary>
    public void Log(string value) { }
}
"""

REGISTRY = """using System.Diagnostics.CodeAnalysis;

namespace Acme.Registry;

/// <summary>
/// Represents a registry of resilience pipelines.
/// </summary>
public sealed partial class PipelineRegistry<TKey> : PipelineProvider<TKey>, IDisposable
    where TKey : notnull
{
    /// <inheritdoc/>
    public override bool TryGetPipeline(TKey key, [NotNullWhen(true)] out Pipeline? pipeline)
    {
        pipeline = null;
        return false;
    }

    /// <inheritdoc/>
    public override bool TryGetPipeline<TResult>(TKey key, out Pipeline<TResult>? pipeline)
    {
        pipeline = null;
        return false;
    }

    /// <inheritdoc/>
    public override void Write(string value) { }

    /// <inheritdoc cref="PipelineProvider{TKey}.Write(int)"/>
    public void WriteNumber(int value) { }

    /// <inheritdoc/>
    public void Dispose() { }
}
"""

OPTIONS = """namespace Acme.Retry;

/// <summary>
/// Represents the options used to configure a retry strategy.
/// </summary>
/// <typeparam name="TResult">The type of result the retry strategy handles.</typeparam>
public class RetryOptions<TResult>
{
    /// <summary>Gets or sets the maximum number of retries.</summary>
    public int MaxRetryAttempts { get; set; } = 3;
}
"""

NON_GENERIC = """namespace Acme.Retry;

/// <inheritdoc/>
public class RetryOptions : RetryOptions<object>
{
}
"""

REJECTED = """namespace Acme;

/// <summary>Exception thrown when a pipeline rejects an execution.</summary>
public class RejectedException : Exception
{
    /// <inheritdoc/>
    public override void GetObjectData(SerializationInfo info, StreamingContext context)
    {
    }
}
"""

JOBJECT = """namespace Acme.Json.Linq
{
    /// <summary>
    /// Represents a JSON object.
    /// </summary>
    /// <example>
    ///   <code lang="cs" source="..\\Src\\Acme.Json.Tests\\Documentation\\LinqTests.cs"
    ///     region="LinqCreateParse" title="Parsing a JSON Object from Text" />
    /// </example>
    public class JObject
    {
        /// <summary>Load a JObject from a string.</summary>
        /// <example>
        ///   <code lang="cs" source="..\\Src\\Acme.Json.Tests\\Documentation\\LinqTests.cs"
        ///     region="Missing" title="Not there" />
        /// </example>
        public static JObject Parse(string json) => new JObject();
    }
}
"""

LINQ_TESTS = """namespace Acme.Json.Tests.Documentation
{
    public class LinqTests
    {
        public void LinqCreateParse()
        {
            #region LinqCreateParse
            string json = @"{ CPU: 'Intel' }";

            JObject o = JObject.Parse(json);
            #endregion
        }
    }
}
"""


def test_inheritdoc_copies_the_base_members_text(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "acme",
        {
            "Acme.sln": (
                'Project("{X}") = "Acme", "src\\\\Acme\\\\Acme.csproj", "{Y}"\nEndProject\n'
            ),
            "src/Acme/Acme.csproj": '<Project Sdk="Microsoft.NET.Sdk" />\n',
            "src/Acme/Registry/PipelineProvider.cs": PROVIDER,
            "src/Acme/Registry/PipelineRegistry.cs": REGISTRY,
            "src/Acme/Retry/RetryOptions.TResult.cs": OPTIONS,
            "src/Acme/Retry/RetryOptions.cs": NON_GENERIC,
            "src/Acme/RejectedException.cs": REJECTED,
        },
    )
    out = build_bundle(root, tmp_path / "idx")
    pages = page_texts(out)
    registry = pages["src/Acme/Registry/PipelineRegistry.cs"]
    start = registry.index("## PipelineRegistry.TryGetPipeline")
    section = registry[start:]
    assert "Tries to get a resilience pipeline from the provider" in section
    assert "- `key` `TKey` - The key used to identify the resilience pipeline." in section
    assert "**Returns:** `bool` - `true` if the pipeline was found" in section
    assert "Inherited from" not in section.split("## ")[1]
    # A base outside the tree (System's): said, not copied.
    assert "IDisposable" in registry and "*Inherited from" in registry.split("Dispose")[-1]
    rejected = pages["src/Acme/RejectedException.cs"]
    assert "*Inherited from" in rejected
    # A type's `<inheritdoc/>` takes its base type's comment, without its type parameters.
    options = pages["src/Acme/Retry/RetryOptions.cs"]
    assert "Represents the options used to configure a retry strategy." in options
    assert "TResult" not in options.replace("RetryOptions<object>", "")
    api = ApiRegistry(open_bundle(out))
    entry, generic = [api.spec(i) for i in api.lookup("PipelineRegistry.TryGetPipeline")]
    assert entry["description"].startswith("Tries to get a resilience pipeline")
    # An overload of as many parameters of other types is another member: the generic
    # override takes the generic overload's text (Polly's took the first overload's).
    assert generic["description"].startswith("Tries to get a generic resilience pipeline")
    (write,) = [api.spec(i) for i in api.lookup("PipelineRegistry.Write")]
    assert write["description"] == "Writes a text."  # (`string`, not the first: `int`)
    (number,) = [api.spec(i) for i in api.lookup("PipelineRegistry.WriteNumber")]
    assert number["description"] == "Writes a number."  # (the cref's `(int)` overload)
    # A cref naming an overload's types (`M:…Write(System.String)`) links to that overload.
    provider = pages["src/Acme/Registry/PipelineProvider.cs"]
    assert "[`PipelineProvider.Write`](#Write-string-)" in provider


def test_code_source_region_shows_the_files_region(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "json",
        {
            "README.md": "# Acme.Json\n\nA JSON library.\n",
            "Src/Acme.Json/Acme.Json.csproj": '<Project Sdk="Microsoft.NET.Sdk" />\n',
            "Src/Acme.Json/Linq/JObject.cs": JOBJECT,
            "Src/Acme.Json.Tests/Acme.Json.Tests.csproj": "<Project />\n",
            "Src/Acme.Json.Tests/Documentation/LinqTests.cs": LINQ_TESTS,
        },
    )
    out = build_bundle(root, tmp_path / "idx")
    pages = page_texts(out)
    assert set(pages) == {"README.md", "Src/Acme.Json/Linq/JObject.cs"}
    page = pages["Src/Acme.Json/Linq/JObject.cs"]
    assert (
        "*Parsing a JSON Object from Text*\n\n```csharp\n"
        "string json = @\"{ CPU: 'Intel' }\";\n\nJObject o = JObject.Parse(json);\n```" in page
    )
    assert "#region" not in page
    assert "*Not there*" in page  # (a region not found: its title, as before)


def test_bases_of_declarations() -> None:
    assert bases(
        "public sealed partial class R<TKey> : P<TKey>, IDisposable where TKey : notnull"
    ) == ["P<TKey>", "IDisposable"]
    assert bases("public class A(int x) : B(x), global::System.IComparable<A>") == [
        "B",
        "System.IComparable<A>",
    ]
    assert bases("public class Plain") == []
    assert bases("public record struct P<T>(T X) where T : struct") == []


@given(st.text(max_size=200), st.text(max_size=200))
@FUZZ
def test_merge_line_round_trips_and_bases_never_fail(a: str, b: str) -> None:
    merge = Merge({a: b}, {b: a})
    body, read = split("class A {}\n" + merge.encode())
    assert body == "class A {}" and read == merge
    bases(a)
    split(a)


def test_hostile_trees_end(tmp_path: Path) -> None:
    """Base types naming each other in a ring, each member `<inheritdoc/>`, and a region
    that never ends: the pass ends."""
    ring = "\n".join(
        f"/// <inheritdoc/>\npublic class C{k} : C{(k + 1) % 50}, C{(k + 7) % 50}\n{{\n"
        "    /// <inheritdoc/>\n    public void Run() { }\n}"
        for k in range(50)
    )
    root = write_tree(
        tmp_path / "ring",
        {
            "src/Ring/Ring.csproj": "<Project />\n",
            "src/Ring/Ring.cs": "namespace Ring;\n\n" + ring + "\n",
            "src/Ring/Open.cs": (
                "namespace Ring;\n\n/// <summary>S.</summary>\n"
                '/// <example><code source="Region.txt" region="R"/></example>\n'
                "public class Open { }\n"
            ),
            "src/Ring/Region.txt": "#region R\n" + "x\n" * 5000,
        },
    )
    out = build_bundle(root, tmp_path / "idx")
    page = page_texts(out)["src/Ring/Open.cs"]
    assert page.count("\nx") == 200  # (MAX_REGION_LINES)
