"""File includes (includes.py): mdBook `{{#include}}`, FastAPI `{* … *}` and pymdownx snippets
`--8<--`, resolved inside the source roots only, on real extracts (the Rust book, FastAPI)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import FUZZ, build_bundle, run_docsmcp, write_tree
from docsmcp.sources.inclusion.file_fences import fences
from docsmcp.sources.inclusion.includes import expand
from docsmcp_runtime.bundle.reader import open_bundle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_client import McpSession

FIXTURES = Path(__file__).parent / "fixtures"
BOOK = FIXTURES / "mdbook-includes"
FASTAPI = FIXTURES / "fastapi-docs"
CHAPTER = "ch03-01-variables-and-mutability.md"


def _texts(bundle: Path) -> dict[str, str]:
    b = open_bundle(bundle)
    return {b.id(r): b.text(r) for r in range(b.n_chunks)}


def test_mdbook_includes_resolve_from_a_source_root(tmp_path: Path) -> None:
    out = build_bundle(BOOK / "src", tmp_path / "idx", "--source-root", BOOK)
    text = "\n".join(_texts(out).values())
    assert "{{#" not in text
    # `{{#rustdoc_include …/main.rs:here}}`: the anchored lines only, without the markers
    assert '    let spaces = "   ";\n    let spaces = spaces.len();' in text
    assert "ANCHOR" not in text and "fn main() {\n    let spaces" not in text
    # a whole file, and a program's output
    assert "let mut x = 5;" in text and "cannot assign twice to immutable variable" in text
    # hits still name lines of the chapter itself
    lines = (BOOK / "src" / CHAPTER).read_text().count("\n") + 1
    with McpSession(out) as s:
        hits = s.search(query="shadowing spaces len", limit=5)["hits"]
    assert hits and all(
        1 <= h["source"]["lines"][0] <= h["source"]["lines"][1] <= lines for h in hits
    )


def test_an_include_outside_the_roots_is_refused_in_one_line(tmp_path: Path) -> None:
    proc = run_docsmcp("build", "--docs-dir", BOOK / "src", "--out", tmp_path / "idx", "--quiet")
    warnings = [x for x in proc.stderr.splitlines() if "include" in x]
    assert warnings == [
        "docsmcp: warning: 9 includes in 1 page read files outside the source roots (first: "
        "../listings/ch03-common-programming-concepts/no-listing-01-variables-are-immutable/src/"
        f"main.rs, from {CHAPTER}); add --source-root "
        f"{(BOOK / 'listings' / 'ch03-common-programming-concepts').resolve()} to include them"
    ], proc.stderr
    text = "\n".join(_texts(tmp_path / "idx").values())
    assert "{{#rustdoc_include ../listings/" in text  # left as written, nothing read
    assert "let mut x = 5;" not in text


def test_fastapi_code_includes_become_code_blocks(tmp_path: Path) -> None:
    docs = FASTAPI / "docs" / "en" / "docs"
    out = build_bundle(docs, tmp_path / "idx", "--source-root", FASTAPI)
    text = "\n".join(_texts(out).values())
    assert "{*" not in text
    assert "```python\nfrom fastapi import FastAPI\n\napp = FastAPI()\n" in text
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["stats"]["files"] == 1
    with McpSession(out) as s:
        examples = s.call("get_code_examples", {"query": "FastAPI app root", "language": "python"})
    assert not examples.is_error and "from fastapi import FastAPI" in examples.content[0].text


def test_includes_of_many_pages_are_summed_up_in_one_line(tmp_path: Path) -> None:
    """FastAPI's docs folder built alone: one line for the build, naming the --source-root
    that would resolve every include (it was one warning per page, 113 on FastAPI, and no
    hint), and one line when the included files do not exist at all."""
    shutil.copytree(FASTAPI, tmp_path / "fastapi")
    docs = tmp_path / "fastapi" / "docs" / "en" / "docs"
    page = docs / "tutorial" / "first-steps.md"
    shutil.copy(page, docs / "tutorial" / "again.md")
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", "--quiet")
    src = (tmp_path / "fastapi" / "docs_src" / "first_steps").resolve()
    assert proc.stderr.splitlines() == [
        "docsmcp: warning: 14 includes in 2 pages read files outside the source roots (first: "
        "../../docs_src/first_steps/tutorial001_py310.py, from tutorial/again.md); add "
        f"--source-root {src} to include them"
    ]
    shutil.rmtree(tmp_path / "fastapi" / "docs_src")
    proc = run_docsmcp("build", "--docs-dir", docs, "--out", tmp_path / "idx", "--quiet")
    assert proc.stderr.splitlines() == [
        "docsmcp: warning: 14 includes in 2 pages name files that do not exist (first: "
        "../../docs_src/first_steps/tutorial001_py310.py, from tutorial/again.md); they are left "
        "as written (a folder beside the docs? copy it along, or name it with --source-root)"
    ]


def test_snippets_sections_lines_and_blocks(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "includes").mkdir(parents=True)
    (docs / "includes" / "abbr.md").write_text("*[API]: Application Programming Interface\n")
    (docs / "includes" / "code.py").write_text(
        "import os\n# --8<-- [start:main]\ndef main():\n    return os.getcwd()\n"
        "# --8<-- [end:main]\nprint(main())\n"
    )
    (tmp_path / "outside.md").write_text("SECRET\n")
    page = (
        '# Page\n\n## Use\n\n```python\n--8<-- "includes/code.py:main"\n```\n\n'
        '```python\n--8<-- "includes/code.py:1:1"\n```\n\n'
        "--8<--\nincludes/abbr.md\n--8<--\n\n"
        '--8<-- "../outside.md"\n\nThe API is small.\n'
    )
    (docs / "page.md").write_text(page)
    expanded = expand(docs, "page.md", page, [docs.resolve()])
    body = expanded.body.split("\n")
    assert "def main():\n    return os.getcwd()\n```" in expanded.body
    assert "# --8<--" not in expanded.body
    assert "```python\nimport os\n```" in expanded.body
    assert "*[API]: Application Programming Interface" in body
    assert "SECRET" not in expanded.body and '--8<-- "../outside.md"' in body
    # outside the source roots: left to the build's one summary line (Unresolved)
    assert expanded.warning is None
    assert expanded.outside == (("../outside.md", str((tmp_path / "outside.md").resolve())),)
    assert len(expanded.line_map) == len(body)
    assert expanded.line_map == tuple(sorted(expanded.line_map))
    # the last line maps to the page's own last line
    assert expanded.line_map[-1] == page.count("\n")


def test_an_included_svg_is_a_picture(tmp_path: Path) -> None:
    """Textual includes 83 drawings and screenshots as `--8<-- "x.svg"`: half of its indexed
    text was their XML (up to 183 KB a chunk). A reader sees an image."""
    docs = tmp_path / "docs"
    (docs / "images").mkdir(parents=True)
    (docs / "images" / "stack.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg"><g><text x="1">app.push_screen(s)</text></g>\n'
        "<!-- payload: eyJ2ZXJzaW9uIjoiMSIs -->\n</svg>\n"
    )
    page = '# Screens\n\nThe stack:\n\n--8<-- "docs/images/stack.svg"\n\nThen pop.\n'
    (docs / "screens.md").write_text(page)
    expanded = expand(docs, "screens.md", page, [docs.resolve(), tmp_path.resolve()])
    assert expanded.body == "# Screens\n\nThe stack:\n\n\n\nThen pop.\n"
    assert expanded.warning is None and not expanded.missing


def test_rest_literal_includes_become_code_blocks_of_the_lines_asked(tmp_path: Path) -> None:
    """pytest's `.. include:: customdirectory/conftest.py` + `:literal:`, Sphinx's
    `literalinclude` with `:language:`, `:lines:`, `:start-after:`/`:end-before:`, `:dedent:`:
    a `code-block` of those lines, indexed as code, and every chunk still names the page's
    own lines; a path outside the docs folder is not read."""
    docs = tmp_path / "docs"
    (docs / "ex").mkdir(parents=True)
    (docs / "ex" / "conftest.py").write_text(
        "import pytest\n\n\ndef pytest_collect_file():\n    pass\n"
    )
    (docs / "ex" / "app.cfg").write_text("[a]\nx = 1\n# start\n    keep = 2\n# end\ny = 3\n")
    (tmp_path / "secret.txt").write_text("TOP SECRET")
    page = (
        "Examples\n========\n\nA conftest:\n\n.. include:: ex/conftest.py\n    :literal:\n\n"
        "Some settings\n-------------\n\n.. literalinclude:: ex/app.cfg\n   :language: ini\n"
        "   :start-after: # start\n   :end-before: # end\n   :dedent: 4\n\n"
        ".. literalinclude:: ex/app.cfg\n   :lines: 1-2\n\n"
        ".. literalinclude:: ../secret.txt\n\nThe end.\n"
    )
    (docs / "index.rst").write_text(page)
    out = expand(docs, "index.rst", page, [docs.resolve()])
    assert out.outside and "TOP SECRET" not in out.body
    assert (
        ".. code-block:: python\n\n   import pytest\n\n\n   def pytest_collect_file():" in out.body
    )
    assert ".. code-block:: ini\n\n   keep = 2\n\n" in out.body
    assert ".. code-block:: cfg\n\n   [a]\n   x = 1\n\n" in out.body  # the suffix
    idx = build_bundle(docs, tmp_path / "idx")
    texts = _texts(idx)
    assert (
        "```python\nimport pytest\n\n\ndef pytest_collect_file():\n    pass\n```"
        in (texts["index.rst#examples"])
    )
    assert "```ini\nkeep = 2\n```" in texts["index.rst#examples/some-settings"]
    with McpSession(idx) as s:
        hits = s.search(query="pytest_collect_file", limit=1)["hits"]
        code = s.call("get_code_examples", {"query": "pytest_collect_file"})
    assert hits[0]["source"]["lines"] == [1, 6]  # the page's lines: its title to the directive
    assert "def pytest_collect_file" in code.content[0].text


_PIECES = st.sampled_from(
    [
        '--8<-- "a.md"',
        '--8<-- "a.md:1:2"',
        '--8<-- "a.md:sec"',
        '--8<-- "missing.md"',
        '--8<-- "../../etc/passwd"',
        "--8<--",
        "a.md",
        "--8<-- [start:sec]",
        "{{#include a.md}}",
        "{{#include a.md:2}}",
        "{{#include a.md:x}} and {{#include b.rs:1:1}}",
        "{* b.rs ln[1:2] hl[1] *}",
        "{* ../../nope.py *}",
        ".. include:: a.md",
        ".. literalinclude:: b.rs",
        "   :lines: 1-2",
        "   :start-after: ANCHOR",
        "// ANCHOR: x",
        "text",
        "",
    ]
)


@pytest.mark.slow  # fuzz, ~1-2 s
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(_PIECES, max_size=30))
def test_expand_never_fails_and_maps_every_line(tmp_path: Path, pieces: list[str]) -> None:
    docs = tmp_path / "fuzz"
    docs.mkdir(exist_ok=True)
    # a.md includes itself: depth is bounded
    (docs / "a.md").write_text('one\n--8<-- "a.md"\n{{#include a.md}}\n--8<-- [start:sec]\ntwo\n')
    (docs / "b.rs").write_text("// ANCHOR: x\nfn b() {}\n// ANCHOR_END: x\n")
    body = "\n".join(pieces)
    for page in ("p.md", "p.rst"):
        out = expand(docs, page, body, [docs.resolve()])
        lines = out.body.split("\n")
        if out.line_map:
            assert len(out.line_map) == len(lines)
            assert list(out.line_map) == sorted(out.line_map)
            assert all(0 <= n < len(pieces) for n in out.line_map)
        else:
            assert out.body == body
        assert "root:" not in out.body


@pytest.mark.parametrize("name", ["a.md", "b.md"])
def test_includes_do_not_loop(tmp_path: Path, name: str) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text('A\n--8<-- "b.md"\n')
    (docs / "b.md").write_text('B\n--8<-- "a.md"\n')
    out = expand(docs, name, (docs / name).read_text(), [docs.resolve()])
    assert out.body.count("A") + out.body.count("B") <= 12


def test_snippets_are_found_in_the_base_path_of_a_mkdocs_yml_further_up(tmp_path: Path) -> None:
    """Polars: mkdocs.yml at the repository's root names `docs_dir: docs/source` and
    pymdownx.snippets' `base_path: [".", "docs/source/src/"]`; its 331 snippets were reported
    missing (and `--source-root` of the root did not help), and its nav was not read."""
    root = tmp_path / "repo"
    files = {
        "mkdocs.yml": "site_name: Acme guide\ndocs_dir: docs/source\nnav:\n"
        "  - Reading CSV: user-guide/csv.md\n"
        "markdown_extensions:\n  - admonition\n  - pymdownx.snippets:\n"
        '      base_path: [".", "docs/source/src/"]\n'
        "  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n",
        "docs/source/user-guide/csv.md": "Read a file:\n\n```python\n"
        '--8<-- "python/csv.py:read"\n```\n',
        "docs/source/src/python/csv.py": "# --8<-- [start:read]\ndf = read_csv('a.csv')\n"
        "# --8<-- [end:read]\n",
    }
    write_tree(root, files)
    docs = root / "docs" / "source"
    out = build_bundle(docs, tmp_path / "idx", "--source-root", root)
    text = "\n".join(_texts(out).values())
    assert "df = read_csv('a.csv')" in text and "--8<--" not in text
    titles = json.loads((out / "metadata.json").read_text())
    assert titles["name"] == "acme-guide"
    with McpSession(out) as s:
        assert s.call("get_page", {"path": "user-guide/csv.md"}).structured_content["title"] == (
            "Reading CSV"
        )


def test_markdown_include_and_fastapi_ranges_read_as_the_site_shows_them(tmp_path: Path) -> None:
    """SQLModel: `{!./docs_src/x.py!}` (markdown-include, 33 in 7 pages) was shown as written;
    `{* x.py ln[1:2,5:6] *}` joined its ranges with no "omitted" line, so a variable defined in
    the lines left out read as never defined."""
    root = tmp_path / "repo"
    files = {
        "docs/update.md": "# Update\n\n```python\n{!./docs_src/update.py!}\n```\n\n"
        "{* ./docs_src/update.py ln[1:2,5:6] *}\n",
        "docs_src/update.py": "from x import y\n\nsession = y()\nhero = 1\n"
        "session.add(hero)\nsession.commit()\n",
    }
    write_tree(root, files)
    out = build_bundle(root / "docs", tmp_path / "idx", "--source-root", root)
    text = "\n".join(_texts(out).values())
    assert "{!" not in text and text.count("session.commit()") == 2
    assert "from x import y\n\n# Code here omitted 👈\nsession.add(hero)" in text


def test_myst_include_directives(tmp_path: Path) -> None:
    """Black's `change_log.md` is ```` ```{include} ../CHANGES.md ````: the 95 KB change log
    left nothing, silently; Jupyter Book's `{literalinclude}` of its plugin code too."""
    site = tmp_path / "repo"
    (site / "docs" / "src").mkdir(parents=True)
    (site / "CHANGES.md").write_text(
        "# Changes\n\n## 24.1.0\n\n- Preview style\n\n<!-- end -->\n\n## Old\n"
    )
    (site / "docs" / "src" / "a.mjs").write_text("export const x = 1;\n")
    page = (
        "# Change Log\n\n```{include} ../CHANGES.md\n:start-line: 2\n:end-before: '<!-- end'\n"
        "```\n\n## Code\n\n"
        "```{literalinclude} src/a.mjs\n:language: javascript\n```\n\n"
        "~~~\n```{include} example.md\n```\n~~~\n\n:::{include} missing.md\n:::\n"
    )
    (site / "docs" / "change_log.md").write_text(page)
    docs = site / "docs"
    expanded = expand(docs, "change_log.md", page, [docs.resolve(), site.resolve()])
    assert "## 24.1.0\n\n- Preview style\n" in expanded.body and "# Changes" not in expanded.body
    assert "## Old" not in expanded.body  # (attrs' `:end-before: '<!-- teaser-end'`: quoted)
    assert "```javascript\nexport const x = 1;\n```" in expanded.body
    assert "~~~\n```{include} example.md\n```\n~~~" in expanded.body  # an example: as written
    assert expanded.missing == ("missing.md",)
    assert len(expanded.line_map) == expanded.body.count("\n") + 1
    alone = expand(docs, "change_log.md", page, [docs.resolve()])  # CHANGES.md: outside
    assert alone.outside == (("../CHANGES.md", str((site / "CHANGES.md").resolve())),)


def test_fumadocs_include_tags(tmp_path: Path) -> None:
    """Fumadocs' `<include>`: 77 tags on 30 pages were indexed as markup, their partials lost."""
    site = tmp_path / "apps" / "docs"
    docs = site / "content" / "docs"
    (docs / "guide").mkdir(parents=True)
    (site / "package.json").write_text("{}\n")
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "route.ts").write_text("export const GET = 1;\n")
    (docs / ".shared.mdx").write_text("Shared setup.\n")
    (docs / "other.mdx").write_text(
        "# Other\n\nIntro.\n\n## Setup Section\n\nStep one.\n\n## Next\n\nNo.\n"
    )
    page = (
        "# Search\n\n<include>../.shared.mdx</include>\n\n"
        "<include cwd meta='title=\"app/route.ts\"'>\n  ../../examples/route.ts\n</include>\n\n"
        "<include>../other.mdx#setup-section</include>\n\n```mdx\n<include>./x.mdx</include>\n```\n"
    )
    (docs / "guide" / "search.mdx").write_text(page)
    roots = [docs.resolve(), tmp_path.resolve()]
    expanded = expand(docs, "guide/search.mdx", page, roots)
    assert "Shared setup." in expanded.body
    assert '```typescript title="app/route.ts"\nexport const GET = 1;\n```' in expanded.body
    assert "## Setup Section\n\nStep one.\n" in expanded.body and "No." not in expanded.body
    assert "```mdx\n<include>./x.mdx</include>\n```" in expanded.body  # an example: as written
    assert not expanded.missing and len(expanded.line_map) == expanded.body.count("\n") + 1


def test_docsify_embeds(tmp_path: Path) -> None:
    """docsify's `[filename](_media/example.md ':include')`: the link text was indexed where a
    reader sees the embedded file (8 local embeds on its own docs)."""
    docs = tmp_path / "docs"
    (docs / "_media").mkdir(parents=True)
    (docs / "_media" / "example.md").write_text("> This is from the `example.md`\n")
    (docs / "_media" / "example.js").write_text("let x = 1;\n")
    page = (
        "# Embed\n\n[filename](_media/example.md ':include')\n\n"
        "[filename](_media/example.js ':include :type=code')\n\n"
        "[filename](_media/example.md ':include :type=code')\n\n"
        "See [example.md](_media/example.md ':ignore').\n"
    )
    expanded = expand(docs, "embed.md", page, [docs.resolve()])
    assert "\n> This is from the `example.md`\n" in expanded.body
    assert "```javascript\nlet x = 1;\n```" in expanded.body
    assert "```markdown\n> This is from the `example.md`\n```" in expanded.body
    assert "See [example.md](_media/example.md ':ignore')." in expanded.body


def test_pages_that_include_themselves_stop(tmp_path: Path) -> None:
    """A MyST page that includes itself recursed until Python's stack ran out (a traceback,
    the build lost); every dialect stops at includes.MAX_DEPTH levels."""
    from docsmcp.sources.inclusion.includes import MAX_DEPTH

    docs = tmp_path / "docs"
    docs.mkdir()
    pages = {
        "a.md": "# A\n\n```{include} a.md\n```\n",
        "q.qmd": "# Q\n\n{{< include q.qmd >}}\n",
        "f.mdx": "# F\n\n<include>./f.mdx</include>\n",
        "d.md": "# D\n\n[d](d.md ':include')\n",
    }
    for name, page in pages.items():
        (docs / name).write_text(page)
        expanded = expand(docs, name, page, [docs.resolve()])
        title = page.split("\n")[0]
        assert 1 < expanded.body.count(title) <= MAX_DEPTH + 1, name  # (the page, its levels)


def test_rspress_code_blocks_of_a_file(tmp_path: Path) -> None:
    """Rspress' empty ```` ```tsx file="…" ```` block is the file's text: `./` beside the page,
    `/` in the docs folder (`docs/` beside `rspress.config.ts`), `<root>/` in the project. One
    shown inside a longer fence is an example, one with text of its own stays, one naming no
    file stays as written (and the build says which)."""
    site = write_tree(
        tmp_path / "website",
        {
            "rspress.config.ts": "export default { root: 'docs' };\n",
            "src/Button.tsx": "export const Button = () => <button />;\n",
            "docs/components/Card.tsx": "export const Card = 1;\n",
            "docs/guide/_demo.tsx": "export default () => <p>demo</p>;\n",
            "docs/guide/a.mdx": (
                "# Blocks\n\n"
                '```tsx title="demo" file="./_demo.tsx"\n\n```\n\n'
                '```tsx file="/components/Card.tsx"\n```\n\n'
                '```ts file="<root>/src/Button.tsx"\n\n```\n\n'
                '````mdx\n```tsx file="./_demo.tsx"\n\n```\n````\n\n'
                '```ts file="./_demo.tsx"\nown text\n```\n\n'
                '```ts file="./missing.ts"\n\n```\n'
            ),
        },
    )
    out = build_bundle(site, tmp_path / "idx")
    (text,) = [t for k, t in _texts(out).items() if k.startswith("docs/guide/a.mdx")]
    assert '```tsx title="demo"\nexport default () => <p>demo</p>;\n```' in text
    assert "```tsx\nexport const Card = 1;\n```" in text
    assert "```ts\nexport const Button = () => <button />;\n```" in text
    assert '````mdx\n```tsx file="./_demo.tsx"\n\n```\n````' in text
    assert '```ts file="./_demo.tsx"\nown text\n```' in text
    assert '```ts file="./missing.ts"\n\n```' in text


@FUZZ
@given(
    st.lists(
        st.sampled_from(["```ts file='./a.ts'", "```", "````mdx", "````", "", "  ", "x", "~~~"]),
        max_size=30,
    )
)
def test_file_fences_are_read_from_any_lines(lines: list[str]) -> None:
    for start, fence in fences(lines).items():
        assert start < fence.end < len(lines)
        assert fence.lines == tuple(lines[start : fence.end + 1])
        assert not any(x.strip() for x in lines[start + 1 : fence.end])


def test_self_closing_include_element_is_no_fumadocs_tag(tmp_path: Path) -> None:
    """Writerside's `<include from="lib.topic" element-id="x"/>` was read as an opening
    Fumadocs tag waiting for its path and `</include>`: the rest of the page went (28 of ktor's
    142 markdown pages had no chunk). An opening tag whose next two lines are no path and
    closing tag is text too."""
    docs = tmp_path / "topics"
    docs.mkdir()
    page = (
        "[//]: # (title: Cookies)\n\n<tldr>\n"
        '<include from="lib.topic" element-id="download_example"/>\n</tldr>\n\n'
        "The client keeps cookies.\n\n## Add dependencies\n\nNo artifact needed.\n"
    )
    expanded = expand(docs, "client-cookies.md", page, [docs.resolve()])
    assert "The client keeps cookies." in expanded.body and "No artifact needed." in expanded.body
    unclosed = "# Page\n\n<include>\nnot a path\nstill prose\n\nMore.\n"
    expanded = expand(docs, "unclosed.md", unclosed, [docs.resolve()])
    assert "still prose" in expanded.body and "More." in expanded.body
    assert len(expanded.line_map) == expanded.body.count("\n") + 1
