"""Doxygen's pages written as C comments (formats/source/doxygen.py, doxygen_decls.py,
packages/doxygen_project.py): `.dox` files (JsonCpp's `doc/jsoncpp.dox`), headers that hold
pages and groups only (mbedtls' `doxygen/input/doc_*.h`, SFML's `doc/mainpage.hpp`). Fixtures
written in those projects' shapes."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, page_texts, run_docsmcp
from docsmcp.sources.formats.source.c_lex import scan
from docsmcp.sources.formats.source.doxygen import Settings, header_line, header_to_markdown
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

# JsonCpp's shape: the Doxyfile in doc/, INPUT naming the headers and the doc folder itself.
DOXYFILE = """# Doxyfile 1.8.5
PROJECT_NAME           = "JsonLib"
INPUT                  = ../include \\
                         .
FILE_PATTERNS          = *.h \\
                         *.dox
RECURSIVE              = YES
EXTRACT_ALL            = YES
"""

MAIN_DOX = """/**
\\mainpage
\\section _intro Introduction

JsonLib reads and writes JSON, see \\ref roadmap.

\\verbatim
{
    "indent" : { /*embedded comment*/ "length" : 3 }
}
\\endverbatim

\\section _example Code example
\\code
Json::Value root;
reader.parse(text, root);
\\endcode
*/
"""

ROADMAP_DOX = """/*! \\page roadmap JsonLib roadmap
  Moved to the wiki.
*/
"""

VALUE_H = """#ifndef JSONLIB_VALUE_H
#define JSONLIB_VALUE_H
namespace Json {
/** \\brief Represents a JSON value. See the \\ref _intro. */
class Value {
public:
  /// Returns the member named key.
  Value get(const char* key) const;
};
}
#endif
"""


def _jsonlib(root: Path) -> Path:
    files = {
        "doc/doxyfile.in": DOXYFILE,
        "doc/jsonlib.dox": MAIN_DOX,
        "doc/roadmap.dox": ROADMAP_DOX,
        "include/json/value.h": VALUE_H,
        "README.md": "# JsonLib\n\nA JSON library.\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


# mbedtls' shape: pages and a group's text in headers of their own under doxygen/input.
MAINPAGE_H = """/**
 * \\file doc_mainpage.h
 *
 * \\brief Main page documentation file.
 */
/*
 *  Copyright The Lib Contributors
 */

/**
 * @mainpage Lib v1.0 API Documentation
 *
 * This documentation describes the API of Lib.
 *
 * ## Main entry points
 *
 * Start with the SSL module.
 */
"""

GROUP_H = """/**
 * \\file doc_ssl.h
 *
 * \\brief SSL module documentation file.
 */

/**
 * @addtogroup ssl_module SSL module
 *
 * The SSL module provides the means to create an SSL channel.
 */
"""

SSL_H = """/**
 * \\file ssl.h
 * \\brief SSL functions.
 */
#ifndef LIB_SSL_H
#define LIB_SSL_H

/**
 * \\brief Initialise an SSL context.
 * \\param ctx The context.
 */
void lib_ssl_init(int *ctx);

#endif

/// \\page ssl_notes SSL notes
/// A page after the last declaration.
"""


def _mbed_like(root: Path) -> Path:
    files = {
        "doxygen/lib.doxyfile": (
            "PROJECT_NAME = Lib\nINPUT = ../include input\nFILE_PATTERNS = *.h\nRECURSIVE = YES\n"
        ),
        "doxygen/input/doc_mainpage.h": MAINPAGE_H,
        "doxygen/input/doc_ssl.h": GROUP_H,
        "include/lib/ssl.h": SSL_H,
        "README.md": "# Lib\n\nA TLS library.\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_dox_files_the_doxyfile_names_are_pages(tmp_path: Path) -> None:
    out = build_bundle(_jsonlib(tmp_path / "jsonlib"), tmp_path / "idx")
    texts = page_texts(out)
    assert {"doc/jsonlib.dox", "doc/roadmap.dox", "include/json/value.h"} <= set(texts)
    main = texts["doc/jsonlib.dox"]
    # `\mainpage` without a title: Doxygen's "PROJECT_NAME Documentation"
    assert "# JsonLib Documentation" in main and "## Introduction" in main
    assert "## Code example" in main and "```\nJson::Value root;" in main
    # a comment nests in a `.dox` file, as Doxygen reads it: the example stays whole
    assert '{ /*embedded comment*/ "length" : 3 }' in main and "```\n{" in main
    assert "[JsonLib roadmap](roadmap.dox#roadmap)" in main
    assert "# JsonLib roadmap" in texts["doc/roadmap.dox"]
    pages = {r["path"]: r["title"] for r in pq.read_table(out / "pages.parquet").to_pylist()}
    assert pages["doc/jsonlib.dox"] == "JsonLib Documentation"
    assert pages["doc/roadmap.dox"] == "JsonLib roadmap"
    # a `.dox` file declares nothing: the code of its examples is no API entry
    names = set(pq.read_table(out / "api.parquet").column("name").to_pylist())
    assert names == {"Json::Value", "Json::Value::get"}
    assert "[Introduction](../../doc/jsonlib.dox#_intro)" in texts["include/json/value.h"]


def test_headers_of_pages_and_groups_only(tmp_path: Path) -> None:
    out = build_bundle(_mbed_like(tmp_path / "lib"), tmp_path / "idx")
    texts = page_texts(out)
    main = texts["doxygen/input/doc_mainpage.h"]
    assert "# Lib v1.0 API Documentation" in main and "## Main entry points" in main
    assert "Main page documentation file." not in main  # (the file's brief: its file page)
    group = texts["doxygen/input/doc_ssl.h"]
    assert "## SSL module" in group and "create an SSL channel" in group
    # a page after the header's last declaration is read too
    assert (
        "## SSL notes" in texts["include/lib/ssl.h"]
        and "after the last" in texts["include/lib/ssl.h"]
    )
    pages = {r["path"]: r["title"] for r in pq.read_table(out / "pages.parquet").to_pylist()}
    assert pages["doxygen/input/doc_mainpage.h"] == "Lib v1.0 API Documentation"


def test_no_dox_file_is_a_page_without_a_doxyfile(tmp_path: Path) -> None:
    root = _jsonlib(tmp_path / "jsonlib")
    (root / "doc" / "doxyfile.in").unlink()
    done = run_docsmcp("init", "--docs-dir", root)
    assert done.stderr.splitlines()[0] == "1 files"
    assert set(page_texts(build_bundle(root, tmp_path / "idx"))) == {"README.md"}


def test_init_counts_the_dox_pages(tmp_path: Path) -> None:
    done = run_docsmcp("init", "--docs-dir", _jsonlib(tmp_path / "jsonlib"))
    lines = done.stderr.splitlines()
    assert lines[0] == "4 files"
    assert any(line.startswith("validate: ok: 4 files") for line in lines), lines


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            ["/**", "/*", "*/", "/*!", "\\mainpage", "\\page p P", "\\section s S", "\\verbatim"]
            + ["\\endverbatim", "\\code", "\\endcode", "@{", "@}", "\\defgroup g G", "\n", " "]
        )
        | st.text(max_size=8),
        max_size=60,
    )
)
def test_any_dox_text_converts_without_error(parts: list[str]) -> None:
    text = " ".join(parts)
    s = scan(text, nested=True)
    assert len(s.code) == len(text) and s.code.count("\n") == text.count("\n")
    ends = [(c.start, c.end) for c in s.comments]
    assert all(a < b <= c for (a, b), (c, _) in zip(ends, ends[1:], strict=False))
    page = header_to_markdown("doc/x.dox", header_line(Settings(project="P")) + "\n" + text)
    n = page.text.count("\n") + 1 if page.text else 0
    assert len(page.line_map) == n and not page.api
    assert all(0 <= line <= text.count("\n") + 1 for line in page.line_map)


# SFML's shape: a class in one header, the class deriving from it in another, which declares
# the base ahead (`class Window;`) as SFML's headers do.
BASE_H = """namespace lib
{
class GlResource;

/// \\brief Window that serves as a target for OpenGL rendering.
class LIB_API Window : public WindowBase, GlResource
{
public:
    /// \\brief Default constructor
    Window();
    /// \\brief Destructor
    virtual ~Window();
    /// \\brief Close the window
    void close();
    /// \\brief Tell whether the window is open
    bool isOpen() const;
    int undocumented();
};

/// \\brief The base of every window.
class LIB_API WindowBase
{
public:
    /// \\brief Change the title of the window
    void setTitle(const char* title);
};
}
"""

RENDER_H = """namespace lib
{
class Window;

/// \\brief Window that can serve as a target for 2D drawing
class LIB_API RenderWindow : public Window, private Detail
{
public:
    /// \\brief Draw something (hides nothing)
    void draw();
    /// \\brief Close, as the window does
    void close();
};
}
"""


def test_a_class_lists_what_it_inherits(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    files = {
        "doc/Doxyfile": "INPUT = ../include\nRECURSIVE = YES\n",
        "include/lib/Window.hpp": BASE_H,
        "include/lib/RenderWindow.hpp": RENDER_H,
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    out = build_bundle(root, tmp_path / "idx")
    page = page_texts(out)["include/lib/RenderWindow.hpp"]
    # (the base's own page; its members' sections; the class's own `close` and the base's
    # constructor, destructor and undocumented member left out)
    assert (
        "**Inherited from [lib::Window](Window.hpp#lib::Window):** "
        "[isOpen](Window.hpp#lib::Window::isOpen)\n" in page
    )
    # a base's base, found from the base's own scope
    assert (
        "**Inherited from [lib::WindowBase](Window.hpp#lib::WindowBase):** "
        "[setTitle](Window.hpp#lib::WindowBase::setTitle)" in page
    )
    assert "Detail" not in page.split("```")[-1]  # (a private base: nothing inherited)
    # the list stands in the class's own section, before its members
    assert page.index("Inherited from") < page.index("### RenderWindow::draw")
    # a forward declaration is no declaration: no `class Window;` among the variables
    assert "## Variables" not in page and "class Window;" not in page
    # each inherited member is an entry named as the class's, with the base's declaration and
    # brief, whose section is the class's line (`RenderWindow::isOpen` found, not another
    # class's `isOpen` by its last part)
    with McpSession(out) as s:
        found = s.call("get_api_reference", {"method": "lib::RenderWindow::isOpen"})
        entry = found.structured_content["entries"][0]
        assert entry["name"] == "lib::RenderWindow::isOpen"
        assert entry["signature"] == "bool isOpen() const;"
        assert entry["description"] == "Tell whether the window is open"
        assert (
            entry["chunk_id"] == "include/lib/RenderWindow.hpp#librenderwindowhpp/lib::RenderWindow"
        )
        found = s.call("get_api_reference", {"method": "RenderWindow::setTitle"})
        assert found.structured_content["entries"][0]["name"] == "lib::RenderWindow::setTitle"
        # its own `close` is its own entry, once
        found = s.call("get_api_reference", {"method": "RenderWindow::close"})
        assert [e["name"] for e in found.structured_content["entries"]] == [
            "lib::RenderWindow::close"
        ]
    names = pq.read_table(out / "api.parquet").column("name").to_pylist()
    assert names.count("lib::Window") == 1 and "lib::GlResource" not in names
    # a destructor is named as C++ names it (it was `lib::Window::~`)
    assert "lib::Window::~Window" in names and "lib::Window::~" not in names


def test_links_to_header_and_dox_pages_are_references(tmp_path: Path) -> None:
    """A link to a header's page (`@ref` of a symbol from a guide, GLFW's 449) was ignored as
    one to a source file: neither counted nor a reference of the page it names."""
    root = _jsonlib(tmp_path / "jsonlib")
    (root / "doc" / "guide.md").write_text("# Guide\n\nRead a value with @ref Json::Value::get.\n")
    done = run_docsmcp("build", "--docs-dir", root, "--out", tmp_path / "idx")
    assert "3 of 3 cross references resolved" in done.stdout + done.stderr
    chunks = pq.read_table(tmp_path / "idx" / "chunks.parquet", columns=["id"]).column("id")
    sections = pq.read_table(tmp_path / "idx" / "sections.parquet").column("references")
    by_id = dict(zip(chunks.to_pylist(), sections.to_pylist(), strict=True))
    ids = chunks.to_pylist()
    guide = next(i for i in ids if i.startswith("doc/guide.md"))
    target = ids[by_id[guide][0]]
    assert target.startswith("include/json/value.h") and target.endswith("Json::Value::get")


def test_init_leaves_a_big_header_that_is_no_page_alone(tmp_path: Path) -> None:
    """A header past the build's size limit that no Doxyfile names (SFML's 4 MB vendored
    `extlibs/headers/miniaudio/miniaudio.h`) is code the build never reads: init proposed an
    exclude for it, "the build cannot read it", and the build read the tree without one."""
    root = _jsonlib(tmp_path / "jsonlib")
    big = root / "extlibs" / "headers" / "big.h"
    big.parent.mkdir(parents=True)
    big.write_text("/* vendored */\n" + "int x;\n" * 330_000)  # (2.3 MB)
    done = run_docsmcp("init", "--docs-dir", root)
    assert "exclude" not in done.stderr and "big.h" not in done.stdout, done.stderr
    assert "validate: ok: 4 files" in done.stderr


@FUZZ
@given(
    st.lists(
        st.tuples(
            st.sampled_from("ABCD"),
            st.lists(st.sampled_from(["A", "B", "C", "D", "n::A", "X"]), max_size=3),
            st.sampled_from(["public", "private", ""]),
        ),
        max_size=8,
    )
)
def test_inheritance_of_any_class_graph_ends(classes: list) -> None:
    """Cycles (`A : B`, `B : A`), a class its own base, bases named nowhere: each class lists a
    base once at most and never itself."""
    from docsmcp.sources.formats.source.doxygen_decls import read_header
    from docsmcp.sources.packages.doxygen_inherit import inherited

    text = (
        "namespace n {\n"
        + "".join(
            f"/// {name}.\nclass {name}"
            + (" : " + ", ".join(f"{access} {b}".strip() for b in bases) if bases else "")
            + f" {{ public:\n/// m{name}.\nvoid m{name}();\n}};\n"
            for name, bases, access in classes
        )
        + "}\n"
    )
    found = inherited({"a.h": read_header(text)}, extract_all=True)
    for name, bases in found.items():
        listed = [b for b, _ in bases]
        assert name not in listed and len(listed) == len(set(listed))


def test_hostile_dox_input_ends_quickly() -> None:
    import time

    for text in ("/*" * 100_000, "/** @page p P\n */" * 20_000, "/*!" + "/* x */" * 50_000):
        start = time.process_time()
        page = header_to_markdown("doc/x.dox", header_line(Settings()) + "\n" + text)
        assert len(page.line_map) == (page.text.count("\n") + 1 if page.text else 0)
        assert time.process_time() - start < 5, text[:40]
