""".NET libraries read as docfx shows them: the C# projects a docfx.json names (or a library
repository's `src/` projects) become a page per file, each public type and member a section
and an API entry, their XML doc comments rendered as docfx renders them. The fixture is a
repository in the shape of App-vNext/Polly (`docs/docfx.json` naming `../src/**.csproj` with
an excluded legacy project, DocFX markdown linking `<xref:uid>`, tests beside the sources)
and one in the shape of serilog/serilog (a solution and `src/`, no docfx.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, page_texts, run_docsmcp, write_tree
from docsmcp.sources.formats.source import xmldoc
from docsmcp.sources.formats.source.csharp_lex import tokens
from docsmcp.sources.formats.source.csharp_parse import parse
from docsmcp.sources.formats.source.csharpdoc import csharp_to_markdown
from docsmcp_runtime.browse.apiref import ApiRegistry
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import given
from hypothesis import strategies as st

DOCFX_JSON = """{
  // docfx reads the projects below `src`, as Polly's does
  "metadata": [
    {
      "src": [
        {
          "src": "../src",
          "files": ["**/**.csproj"],
          "exclude": ["**/bin/**", "Legacy/**"],
        }
      ],
      "dest": "api",
    }
  ],
  "build": { "content": [{ "files": ["**.md", "toc.yml"] }] }
}
"""

POLICY = """// Copyright (c) Acme. Licensed under the MIT license.
using System;
using System.Diagnostics.CodeAnalysis;

namespace Acme.Resilience;

#pragma warning disable CA1000
/// <summary>
/// Builds a <see cref="Policy"/> that retries the calls it wraps.
/// </summary>
/// <remarks>
/// Policies are immutable: every <c>Handle</c> call returns a new one.
/// <para>Thread-safe.</para>
/// </remarks>
/// <example>
/// <code>
/// var policy = Policy.Handle&lt;TimeoutException&gt;()
///     .Retry(3);
/// </code>
/// </example>
public sealed partial class Policy : IDisposable
{
    private readonly int _attempts;
    internal string Secret = "x";

    /// <summary>Creates a policy that handles nothing.</summary>
    public Policy() : this(0) { }

    /// <summary>
    /// Specifies the type of exception this policy handles, when <paramref name="predicate"/>
    /// says so.
    /// </summary>
    /// <typeparam name="TException">The type of the exception to handle.</typeparam>
    /// <param name="predicate">The exception predicate to filter the type of exception.</param>
    /// <returns>The policy, for chaining
    /// <see cref="M:Acme.Resilience.Policy.Retry(System.Int32)"/>.</returns>
    /// <exception cref="T:System.ArgumentNullException">Thrown when <paramref name="predicate"/>
    /// is <see langword="null"/>.</exception>
    public static Policy Handle<[DynamicallyAccessedMembers(Members.All)] TException>(
        Func<TException, bool> predicate)
        where TException : Exception
    {
        var s = $"{predicate}{{}}" + @"C:\\dir\\" + \"\"\"raw { \" \"\"\";
        return new Policy();
    }

    /// <summary>Retries <paramref name="count"/> times; see <see cref="RetryOptions"/>.</summary>
    /// <param name="count">How many retries.</param>
    /// <param name="onRetry">Called before each retry.</param>
    [Obsolete("Use RetryAsync")]
    public Policy Retry(int count = 1, Action<Exception, int>? onRetry = null) => this;

    /// <summary>The number of attempts.</summary>
    /// <value>Three by default.</value>
    public int Attempts { get; private set; } = 3;

    /// <summary>Whether the policy is empty.</summary>
    public bool IsEmpty => _attempts == 0;

    /// <summary>Raised on every retry.</summary>
    public event EventHandler<int>? Retrying;

    /// <summary>Kinds of backoff:
    /// <list type="bullet">
    /// <item><term>Constant</term><description>The same delay.</description></item>
    /// <item><description>Linear or <b>exponential</b>.</description></item>
    /// </list></summary>
    public enum Backoff
    {
        /// <summary>The same delay every time.</summary>
        Constant,
        Linear = 2,
    }

    void IDisposable.Dispose() { }

    private void Helper() { }

    /// <summary>Combines two policies.</summary>
    public static Policy operator +(Policy a, Policy b) => a;
}

internal sealed class Hidden
{
    public void NotShown() { }
}
"""

OPTIONS = """namespace Acme.Resilience
{
    using System;

    /// <summary>The options of <see cref="Policy.Retry"/>.</summary>
    public class RetryOptions
    {
        /// <summary>The most attempts, including the first.</summary>
        public int MaxRetryAttempts { get; set; } = 3;
    }

    /// <summary>What a call gave.</summary>
    public readonly struct Outcome<TResult>
    {
        /// <summary>The result, when there is one.</summary>
        public TResult? Result { get; }
    }

    /// <summary>Something retries can observe.</summary>
    public interface IRetryObserver
    {
        /// <summary>Called on each retry.</summary>
        void OnRetry(int attempt);
    }
}
"""

GUIDE = """---
uid: retry-guide
---
# Retry guide

Build a policy with <xref:Acme.Resilience.Policy> and @Acme.Resilience.RetryOptions.

> [!NOTE]
> Retries are not free.
"""


def _library(root: Path) -> Path:
    return write_tree(
        root,
        {
            "README.md": "# Acme.Resilience\n\nRetries and circuit breakers.\n",
            "docs/docfx.json": DOCFX_JSON,
            "docs/toc.yml": "- name: Retry\n  href: retry.md\n",
            "docs/retry.md": GUIDE,
            "src/Acme.Resilience/Acme.Resilience.csproj": '<Project Sdk="Microsoft.NET.Sdk" />\n',
            "src/Acme.Resilience/Policy.cs": POLICY,
            "src/Acme.Resilience/RetryOptions.cs": OPTIONS,
            "src/Acme.Resilience/Policy.Async.cs": (
                "namespace Acme.Resilience;\npublic sealed partial class Policy\n{\n"
                "    /// <summary>Runs the call.</summary>\n"
                "    public Task ExecuteAsync(Func<Task> call) => call();\n}\n"
            ),
            "src/Acme.Resilience/obj/Debug/Acme.AssemblyInfo.cs": "public class X {}\n",
            "src/Acme.Resilience/Properties/Generated.g.cs": "public class G {}\n",
            "src/Legacy/Legacy.csproj": "<Project />\n",
            "src/Legacy/Old.cs": "/// <summary>Old.</summary>\npublic class Old {}\n",
            "test/Acme.Tests/Acme.Tests.csproj": "<Project />\n",
            "test/Acme.Tests/PolicyTests.cs": "public class PolicyTests {}\n",
        },
    )


def test_docfx_project_reads_as_docfx_shows_it(tmp_path: Path) -> None:
    out = build_bundle(_library(tmp_path / "acme"), tmp_path / "idx")
    pages = page_texts(out)
    src = "src/Acme.Resilience/"
    # The projects docfx.json names, without its excludes, tests, output folders or generated
    # files; the conceptual markdown as before.
    assert set(pages) == {
        "README.md",
        "docs/retry.md",
        src + "Policy.cs",
        src + "Policy.Async.cs",
        src + "RetryOptions.cs",
    }
    text = pages[src + "Policy.cs"]
    assert "# Acme.Resilience.Policy" in text
    assert "```csharp\npublic sealed partial class Policy : IDisposable\n```" in text
    assert "Builds a [`Policy`](#Policy) that retries the calls it wraps." in text
    assert "**Remarks:**" in text and "every `Handle` call returns a new one." in text
    assert "Thread-safe." in text
    assert "```csharp\npublic Policy()\n```" in text  # (its `: this(0)` is no part of it)
    assert "```csharp\nvar policy = Policy.Handle<TimeoutException>()\n    .Retry(3);\n```" in text
    # A generic method as code calls it, its attribute on a type parameter left out.
    assert "## Policy.Handle<TException>(Func<TException, bool>)" in text
    assert (
        "public static Policy Handle<TException>(Func<TException, bool> predicate) where "
        "TException : Exception" in text
    )
    assert "- `TException` - The type of the exception to handle." in text
    assert "- `predicate` `Func<TException, bool>` - The exception predicate" in text
    assert (
        "**Returns:** `Policy` - The policy, for chaining [`Policy.Retry`](#Retry-int-Action-)"
        in text
    )
    assert "- `ArgumentNullException` - Thrown when `predicate` is `null`." in text
    assert "**Obsolete.**" in text
    assert "public int Attempts { get; }" in text  # (a private setter is not shown)
    assert "**Value:** Three by default." in text
    assert "public bool IsEmpty { get; }" in text
    assert "public event EventHandler<int>? Retrying" in text
    assert "- Constant - The same delay.\n- Linear or **exponential**." in text
    assert "### Backoff.Constant" in text and "### Backoff.Linear" in text
    assert "## Policy.operator +(Policy, Policy)" in text
    # docfx's order: constructors, fields, properties, methods, events, operators, types.
    order = [
        text.index(x)
        for x in (
            "## Policy()",
            "## Policy.Attempts",
            "## Policy.Handle",
            "## Policy.Retrying",
            "## Policy.operator",
            "## Policy.Backoff",
        )
    ]
    assert order == sorted(order)
    for hidden in ("_attempts", "Secret", "Helper", "Dispose", "Hidden", "NotShown"):
        assert hidden not in text
    options = pages[src + "RetryOptions.cs"]
    assert (
        "# Acme.Resilience.RetryOptions" in options
        and "## Acme.Resilience.IRetryObserver" in options
    )
    assert "### IRetryObserver.OnRetry(int)" in options  # (an interface's members are public)

    api = ApiRegistry(open_bundle(out))
    names = set(api.names)
    assert {
        "Acme.Resilience.Policy",
        "Acme.Resilience.Policy.Handle<TException>",
        "Acme.Resilience.Policy.Retry",
        "Acme.Resilience.Policy.Attempts",
        "Acme.Resilience.Policy.Backoff.Linear",
        "Acme.Resilience.RetryOptions.MaxRetryAttempts",
        "Acme.Resilience.IRetryObserver.OnRetry",
    } <= names
    assert not {n for n in names if "Old" in n or "Tests" in n or "Hidden" in n}
    # A partial type is one entry (where it is documented); its other file's members are its.
    assert api.names.count("Acme.Resilience.Policy") == 1
    assert "Acme.Resilience.Policy.ExecuteAsync" in names
    # A generic type's members are named with its type parameters, found without them.
    assert [api.names[i] for i in api.lookup("Outcome.Result")] == [
        "Acme.Resilience.Outcome<TResult>.Result"
    ]
    # Found as code calls it, with or without its type parameters.
    found = [api.spec(i) for i in api.lookup("Policy.Handle")]
    assert [e["name"] for e in found] == ["Acme.Resilience.Policy.Handle<TException>"]
    assert api.lookup("Policy.Handle<TException>") == api.lookup("Policy.Handle")
    handle = found[0]
    assert handle["description"].startswith("Specifies the type of exception this policy handles")
    assert [(p["name"], p["type"]) for p in handle["parameters"]] == [
        ("predicate", "Func<TException, bool>")
    ]
    assert handle["returns"].startswith("Policy: The policy, for chaining")
    assert handle["chunk_id"] == src + "Policy.cs#Policy/Handle__1-Func-"
    plus = api.spec(api.lookup("Policy.operator +")[0])
    assert plus["chunk_id"] == src + "Policy.cs#Policy/op_Addition-Policy-Policy-"
    retry = api.spec(api.lookup("Policy.Retry")[0])
    assert [(p["name"], p["required"]) for p in retry["parameters"]] == [
        ("count", False),
        ("onRetry", False),
    ]
    assert retry["description"].startswith("Obsolete. Retries `count` times")

    roles = {
        r["path"]: json.loads(r["metadata"]).get("role")
        for r in pq.read_table(out / "chunks.parquet", columns=["path", "metadata"]).to_pylist()
    }
    assert roles[src + "Policy.cs"] == "generated"
    assert roles["docs/retry.md"] != "generated"
    # crefs to another file's type, and the guide's `<xref:uid>`/`@uid`, reach the type's page.
    built = run_docsmcp(
        "build", "--docs-dir", tmp_path / "acme", "--out", tmp_path / "i2", "--json"
    )
    refs = json.loads(built.stdout)["references"]
    assert refs["resolved"] == refs["found"] == 6, refs
    ids = [
        r["id"]
        for r in pq.read_table(tmp_path / "i2" / "chunks.parquet", columns=["id"]).to_pylist()
    ]
    sections = pq.read_table(
        tmp_path / "i2" / "sections.parquet", columns=["references"]
    ).to_pylist()
    linked = {ids[k]: [ids[x] for x in r["references"] or []] for k, r in enumerate(sections)}
    assert linked["docs/retry.md#retry-guide"] == [
        src + "Policy.cs#Policy",
        src + "RetryOptions.cs#RetryOptions",
    ]
    assert linked[src + "Policy.cs#Policy/Retry-int-Action-"] == [
        src + "RetryOptions.cs#RetryOptions"
    ]


def test_library_repository_without_docfx_json(tmp_path: Path) -> None:
    # serilog's shape: a solution, `src/` projects, tests beside them; no docfx.json.
    root = write_tree(
        tmp_path / "lib",
        {
            "README.md": "# Lib\n",
            "Lib.sln": 'Project("{X}") = "Lib", "src\\\\Lib\\\\Lib.csproj", "{Y}"\nEndProject\n',
            "src/Lib/Lib.csproj": "<Project />\n",
            "src/Lib/Log.cs": "namespace Lib;\n/// <summary>Static entry.</summary>\n"
            "public static class Log\n{\n    /// <summary>Flushes.</summary>\n"
            "    public static void CloseAndFlush() { }\n}\n",
            "src/Lib.Tools/Lib.Tools.csproj": "<Project><IsPackable>false</IsPackable></Project>\n",
            "src/Lib.Tools/Tool.cs": "/// <summary>T.</summary>\npublic class Tool {}\n",
            "test/Lib.Tests/Lib.Tests.csproj": "<Project />\n",
            "test/Lib.Tests/LogTests.cs": "/// <summary>T.</summary>\npublic class LogTests {}\n",
            "samples/Demo/Program.cs": "/// <summary>D.</summary>\npublic class Program {}\n",
        },
    )
    out = build_bundle(root, tmp_path / "idx")
    assert set(page_texts(out)) == {"README.md", "src/Lib/Log.cs"}
    api = ApiRegistry(open_bundle(out))
    assert [api.names[i] for i in api.lookup("Log.CloseAndFlush")] == ["Lib.Log.CloseAndFlush"]


def test_csharp_outside_a_project_is_no_page(tmp_path: Path) -> None:
    docs = write_tree(
        tmp_path / "docs",
        {
            "index.md": "# Home\n",
            "snippets/Example.cs": "/// <summary>E.</summary>\npublic class Example {}\n",
        },
    )
    assert set(page_texts(build_bundle(docs, tmp_path / "idx"))) == {"index.md"}


def test_docs_folder_whose_docfx_json_names_sources_above(tmp_path: Path) -> None:
    root = _library(tmp_path / "acme")
    built = run_docsmcp("build", "--docs-dir", root / "docs", "--out", tmp_path / "idx")
    assert "docfx.json names ../src/**/**.csproj outside the docs folder" in built.stderr
    assert (
        f"(--docs-dir {root.resolve()}, or --api-source {root.resolve()})" in built.stderr
        or f"(--docs-dir {root}, or --api-source {root})" in built.stderr
    )


def test_strings_attributes_and_preprocessor_lines() -> None:
    source = (
        "namespace N {\n"
        "#if NET8_0\n"
        "/// <summary>A.</summary>\n"
        '[Serializable, Description("{ not a brace")]\n'
        "public class A<TKey, TValue> where TKey : notnull {\n"
        '  const string S = @"a""{"; string R = """ } """; string I = $"{(x ? "}" : $"{y}")}";\n'
        "  char C = '{';\n"
        "#endif\n"
        "  /// <summary>M.</summary>\n"
        "  public Dictionary<TKey, List<TValue>> M(int[] a, params object[] rest) { if (a) { } }\n"
        "  /// <summary>Index.</summary>\n"
        "  public TValue this[TKey key] => default!;\n"
        "}\n}\n"
    )
    unit = parse(source)
    assert [t.name for t in unit.types] == ["N.A<TKey, TValue>"]
    members = {m.name: m for m in unit.types[0].members}
    assert set(members) == {"S", "R", "I", "C", "M", "this[]"}
    m = members["M"]
    assert m.declaration == (
        "public Dictionary<TKey, List<TValue>> M(int[] a, params object[] rest)"
    )
    assert m.params == (("int[]", "a"), ("params object[]", "rest")) and m.optional == ("rest",)
    assert members["this[]"].declaration == "public TValue this[TKey key] { get; }"
    kinds = [t.kind for t in tokens(source)]
    assert kinds.count("pp") == 2 and kinds.count("doc") == 3


def test_doc_comment_tags() -> None:
    shown: list[tuple[str, str]] = []

    def link(cref: str, label: str) -> str:
        shown.append((cref, label))
        return f"[{label or xmldoc.cref_name(cref)}]"

    doc = xmldoc.read(
        '<summary>Uses <see cref="T:A.B{T}"/> and <see cref="M:A.B.C(System.Int32)">C</see>,'
        ' <see href="https://x.test">docs</see>, <typeparamref name="T"/>, a & b < c.\n'
        '<list type="number"><item>one</item><item>two</item></list></summary>\n'
        '<param name="x">The <c>x</c>.</param><inheritdoc cref="A.Base"/>\n'
        '<seealso cref="A.D"/>',
        link,
    )
    assert doc.summary[0] == "Uses [A.B<T>] and [C], [docs](https://x.test), `T`, a & b < c."
    assert "1. one" in doc.summary and "2. two" in doc.summary
    assert doc.params == (("x", "The `x`."),)
    assert doc.inheritdoc == "A.Base" and doc.seealso == ("[A.D]",)
    assert xmldoc.uid_object("xref:A.B.Handle``1(System.Func{``0})") == "object:A.B.Handle"


def test_generated_and_typeless_files_are_no_pages() -> None:
    assert csharp_to_markdown("src/A.g.cs", "public class A {}").text == ""
    assert csharp_to_markdown("src/B.cs", "// <auto-generated/>\npublic class B {}").text == ""
    assert csharp_to_markdown("src/C.cs", "internal class C { public void M() {} }").text == ""


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            [
                '"a{"',
                "'}'",
                "/* { */",
                "// {\n",
                '@"x""{"',
                '$"{a}}}{{"',
                '"""\n{\n"""',
                '$"{(b ? "}" : "{")}"',
                "\n#if X {\n",
                "/// <summary>{</summary>\n",
                "{",
                "}",
                "x",
                ";",
                "\n",
                "<",
                ">",
                "[",
                "]",
                "(",
                ")",
            ]
        ),
        max_size=40,
    )
)
def test_literals_and_comments_hide_their_braces(parts: list[str]) -> None:
    # A brace inside a string, character, comment or preprocessor line is no token of its own,
    # and tokens never overlap.
    source = "".join(parts)
    toks = tokens(source)
    assert all(a.end <= b.start for a, b in zip(toks, toks[1:], strict=False))
    expected = sum(p in ("{", "}") for p in parts)
    assert sum(t.kind == "punct" and t.text in "{}" for t in toks) == expected


@FUZZ
@given(
    st.text(
        alphabet="/*\"'{}()<>[]@$#;=,.:\\\n abcpublicstaticvoidclassenumoperatorthis<summary>",
        max_size=400,
    )
)
def test_reader_never_fails_on_any_text(text: str) -> None:
    page = csharp_to_markdown("src/A.cs", "namespace N;\npublic class A {\n" + text)
    assert isinstance(page.text, str)
    assert isinstance(xmldoc.read(text, lambda c, label: label or c).summary, tuple)


def test_hostile_input_ends() -> None:
    deep = (
        "public class A {\n" * 3000
        + "/// <summary>x</summary>\npublic void F() {}\n"
        + "}\n" * 3000
    )
    assert isinstance(csharp_to_markdown("src/A.cs", deep).text, str)
    assert isinstance(csharp_to_markdown("src/A.cs", '$"{' * 20000).text, str)
    assert isinstance(xmldoc.read("<para>" * 20000, lambda c, label: c).summary, tuple)
    tokens("/*" * 20000 + '"""' * 5000 + '@"' * 5000)
