"""DocFX-flavored markdown (docfx's own docs, Microsoft Learn's Win32 docs): layout markers,
images, `no-loc`, includes, code snippets, the table of contents."""

from __future__ import annotations

from pathlib import Path

from docsmcp.chunking.chunk import chunk_file
from docsmcp.sources.corpus import load_corpus
from docsmcp.sources.navigation.navfiles import read_nav


def _chunks(docs: Path, path: str) -> list:
    corpus = load_corpus(docs)
    assert not corpus.problems, corpus.problems
    (sf,) = [f for f in corpus.files if f.path == path]
    return chunk_file(sf)


def test_rows_columns_images_and_no_loc_read_as_shown(tmp_path: Path) -> None:
    """The Win32 docs' `:::row:::`/`:::column:::` (52 rows) left their markers and read the
    columns' indented text as code; `:::image … alt-text=…:::` read "Image: type=…";
    `:::no-loc text="open":::` (126) kept its markup."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "odl.md").write_text(
        "# ODL attributes\n\n:::row:::\n    :::column:::\n        [**appobject**](appobject.md)\n"
        "    :::column-end:::\n    :::column:::\n        [**bindable**](bindable.md)\n"
        "    :::column-end:::\n:::row-end:::\n\n"
        ':::image type="content" source="images/keys.png" alt-text="Diagram of a keyboard.":::\n\n'
        'Verbs such as :::no-loc text="open"::: are shown.\n\n'
        "| Value | Meaning |\n|---|---|\n"
        '| IDC_ARROW | :::image type="icon" source="./images/IDC_ARROW.png"::: Normal select |\n\n'
        '> [!div class="nextstepaction"]\n> [Next step](next.md)\n'
    )
    (chunk,) = _chunks(docs, "odl.md")
    assert ":::" not in chunk.text and "[!div" not in chunk.text
    assert "[**appobject**](appobject.md)\n\n\n[**bindable**](bindable.md)" in chunk.text
    assert "Diagram of a keyboard." in chunk.text and "Verbs such as open are shown." in chunk.text
    assert "| IDC_ARROW | Normal select |" in chunk.text
    assert "```" not in chunk.text  # (no column read as indented code)


def test_includes_and_code_snippets_from_files(tmp_path: Path) -> None:
    """`[!INCLUDE [t](path)]` (the Win32 docs' 7, docfx's own pages) read as markup, the
    included text lost; `[!code-csharp[](file.cs#region)]` and `:::code source=…:::` showed no
    code."""
    docs = tmp_path / "docs"
    (docs / "includes").mkdir(parents=True)
    (docs / "guide").mkdir()
    (docs / "docfx.json").write_text('{"build": {}}\n')
    (docs / "includes" / "os-reqs.md").write_text(
        "---\nms.topic: include\n---\n**Applies to:** Windows 11 or later\n"
    )
    (docs / "guide" / "Program.cs").write_text(
        "using System;\n\nclass Program\n{\n    #region Main\n    static void Main()\n"
        '    {\n        Console.WriteLine("Hi");\n    }\n    #endregion\n\n'
        "    // <helper>\n    static int Helper() => 1;\n    // </helper>\n}\n"
    )
    (docs / "guide" / "enclaves.md").write_text(
        "# VBS enclaves\n\n[!INCLUDE [os-reqs](../includes/os-reqs.md)]\n\n"
        "Also see [!INCLUDE [reqs](~/includes/os-reqs.md)] here.\n\n"
        "[!code-csharp[](Program.cs#Main)]\n\n"
        ':::code language="csharp" source="Program.cs" id="helper":::\n\n'
        "[!code-csharp[](Program.cs?range=1-1)]\n\n[!INCLUDE [gone](../includes/none.md)]\n"
    )
    (chunk,) = _chunks(docs, "guide/enclaves.md")
    text = chunk.text
    assert "# VBS enclaves\n\n**Applies to:** Windows 11 or later\n" in text
    assert "Also see **Applies to:** Windows 11 or later here." in text
    main = 'static void Main()\n{\n    Console.WriteLine("Hi");\n}'
    assert f"```csharp\n{main}\n```" in text
    assert "```csharp\nstatic int Helper() => 1;\n```" in text
    assert "```csharp\nusing System;\n```" in text
    assert "ms.topic" not in text and "[!code" not in text and ":::" not in text
    assert "[!INCLUDE [gone](../includes/none.md)]" in text  # (not found: as written)


def test_toc_yml_titles_and_orders_the_pages(tmp_path: Path) -> None:
    """docfx's `toc.yml` beside `docfx.json` (and the ones it names, by file or folder) was
    not read: docfx's own 34 pages came in path order."""
    docs = tmp_path / "docs"
    (docs / "docs").mkdir(parents=True)
    (docs / "reference" / "cli").mkdir(parents=True)
    (docs / "docfx.json").write_text('{"build": {}}\n')
    (docs / "toc.yml").write_text(
        "\ufeff- name: Docs\n  href: docs/\n- name: Home\n  href: index.md\n"
        "- name: Site\n  href: https://example.com\n"
    )
    (docs / "docs" / "toc.yml").write_text(
        "- name: Get started\n- href: basic-concepts.md\n- href: ../index.md\n"
        "- name: Commandline Reference\n  href: ../reference/cli/toc.yml\n"
        "- name: Archive\n  items:\n  - name: Templates\n    href: ../reference/templates.md\n"
    )
    (docs / "reference" / "cli" / "toc.yml").write_text(
        "- name: docfx build\n  href: docfx-build.md\n- href: ../../docs/toc.yml\n"
    )
    for page in ("index.md", "docs/basic-concepts.md", "reference/templates.md"):
        (docs / page).write_text(f"# {page}\n\nText.\n")
    (docs / "reference" / "cli" / "docfx-build.md").write_text("# docfx build\n\nBuild.\n")
    paths = [f.path for f in load_corpus(docs).files]
    nav = read_nav(docs, [docs], paths)
    assert nav.order == {
        "docs/basic-concepts.md": 0,
        "index.md": 1,
        "reference/cli/docfx-build.md": 2,
        "reference/templates.md": 3,
    }
    assert nav.titles == {
        "index.md": "Home",  # (untitled where first named: the first title given)
        "reference/cli/docfx-build.md": "docfx build",
        "reference/templates.md": "Templates",
    }


def test_tab_groups_are_labels_not_headings(tmp_path: Path) -> None:
    """docfx's tab groups, `# [Modern Template](#tab/modern)` … `---`: read as H1s they cut
    docfx's template.md into pages of their own and put the next section under the last tab."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "template.md").write_text(
        "# Template\n\n## Metadata\n\nPredefined metadata:\n\n# [Modern](#tab/modern)\n\n"
        "`_appTitle` is appended.\n\n# [Default](#tab/default)\n\n`_appName` is shown.\n\n"
        "---\n\n## Custom Template\n\nWrite your own.\n"
    )
    chunks = {c.id: c for c in _chunks(docs, "template.md")}
    assert set(chunks) == {"template.md#template/metadata", "template.md#template/custom-template"}
    text = chunks["template.md#template/metadata"].text
    assert "Modern:\n\n`_appTitle` is appended.\n\nDefault:\n\n`_appName` is shown." in text
    assert "#tab/" not in text and "---" not in text


def test_xref_tags_read_as_links(tmp_path: Path) -> None:
    """docfx's cross reference tags, `<xref href="uid?alt=Name"/>` and `<a href="xref:uid"/>`,
    show the text docfx gives them (its `text`, else `alt`, else the uid) as a link to that
    uid; before, the first showed as markup and the second as nothing. A code span keeps them."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "links.md").write_text(
        "# Links\n\n"
        'Tag ``<xref href="A.B?alt=Bee"/>`` reads as <xref href="A.B`1?alt=Bee"/>.\n'
        'Also <xref href="C.D" displayProperty="name"/> and <a href="xref:E.F?text=eff"/>.\n'
    )
    (chunk,) = _chunks(docs, "links.md")
    assert '``<xref href="A.B?alt=Bee"/>`` reads as [Bee](xref:A.B`1?alt=Bee).' in chunk.text
    assert "Also [C.D](xref:C.D) and [eff](xref:E.F?text=eff)." in chunk.text
