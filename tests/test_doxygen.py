"""C and C++ headers read as the pages Doxygen makes (formats/source/doxygen*.py, c_lex.py,
packages/doxygen_project.py): fixtures written in GLFW's and tinyxml2's shape."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, page_texts, run_docsmcp
from docsmcp.sources.formats.source.c_lex import scan
from docsmcp.sources.formats.source.doxygen import Settings, header_line, header_to_markdown
from docsmcp.sources.formats.source.doxygen_text import parse
from docsmcp.sources.roles import classify
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

DOXYFILE_IN = """# Doxyfile 1.9.8
PROJECT_NAME           = "Lib"
INPUT                  = @LIB_DOXYGEN_INPUT@
FILE_PATTERNS          = *.h *.dox
EXTRACT_ALL            = YES
EXCLUDE_SYMBOLS        = APIENTRY LIBAPI
ALIASES                = "errors=@par Errors^^" \\
                         "thread_safety=@par Thread safety^^"
PREDEFINED             = LIBAPI= \\
                         LIB_EXPOSE_NATIVE=1
"""

LIB_H = """/*************************************************************************
 * Lib - banner, no doc comment
 *************************************************************************/
#ifndef LIB_H
#define LIB_H

#ifdef __cplusplus
extern "C" {
#endif

/*! @file lib.h
 *  @brief The header of the Lib API.
 */

/*! @mainpage Lib
 *
 *  @section lib_intro Introduction
 *
 *  Lib opens windows; start with @ref libCreateWindow.
 */

/*! @defgroup window Window reference
 *  @brief Functions and types related to windows.
 *
 *  This is the reference documentation for window related functions.
 */

/*! @defgroup keys Keyboard key tokens
 *  @brief Keyboard key tokens.
 *  @{ */
#define LIB_KEY_A 65
#define LIB_KEY_B 66
/*! @} */

/*! @brief Opaque window object.
 *
 *  Opaque window object.
 *
 *  @ingroup window
 */
typedef struct LIBwindow LIBwindow;

/*! @brief The function pointer type for error callbacks.
 *  @param[in] code An error code.
 *  @ingroup window
 */
typedef void (* LIBerrorfun)(int code, const char* description);

/*! @brief Video mode type.
 *  @ingroup window
 */
typedef struct LIBvidmode
{
    /*! The width, in screen coordinates. */
    int width;
    int height; /**< The height, in screen coordinates. */
} LIBvidmode;

/*! @brief Creates a window and its associated context.
 *
 *  This function creates a window.
 *      Indented, as layout.  For the `share` parameter, see
 *  @ref context_sharing.  The size is set by @ref
 *  libSetWindowSize.
 *
 *  @param[in] width The desired width, in screen coordinates.
 *  @param[in] share The window whose context to share resources with, or `NULL`
 *  to not share resources.
 *  @return The handle of the created window, or `NULL` if an
 *  error occurred.
 *
 *  @errors Possible errors include @ref LIB_KEY_A and \\c NULL.
 *
 *  @code
 *  LIBwindow* w = libCreateWindow(640, NULL);
 *  @endcode
 *
 *  @sa @ref libSetWindowSize
 *  @since Added in version 3.0.
 *  @ingroup window
 */
LIBAPI LIBwindow* libCreateWindow(int width, LIBwindow* share);

/// @brief Sets the size of the window.
/// @param[in] window The window.
/// @sa libCreateWindow
/// @ingroup window
LIBAPI void libSetWindowSize(LIBwindow* window, int width);

/*! @brief Not for users.
 *  @internal
 */
LIBAPI void libInternalThing(void);

LIBAPI int libUndocumented(int x);

#ifdef __cplusplus
}
#endif
#endif /* LIB_H */
"""

GUIDE_MD = """# Context guide {#context_guide}

[TOC]

Contexts are made with @ref libCreateWindow; see the @ref window.
Sizes are set with @ref
libSetWindowSize.  Read the [keys](@ref keys).

## Context object sharing {#context_sharing}

@note Sharing is optional.

@anchor LIB_SHARE_hint
__LIB_SHARE__ specifies whether to share; see [the hint](@ref LIB_SHARE_hint).

@code{.c}
LIBwindow* second = libCreateWindow(640, first);
@endcode

Example: `"\\n"` stays as written.
"""

DOX = """# Doxyfile 1.8.13
INPUT                  = tinyxml.h \\
                         readme.md
EXTRACT_ALL            = NO
"""

TINY_H = """#ifndef TINY_INCLUDED
#define TINY_INCLUDED

namespace tiny
{
class XMLElement;

/** An attribute is a name-value pair. */
class XMLAttribute
{
public:
    /// The name of the attribute.
    const char* Name() const;
private:
    /// Hidden: private.
    void Grow();
};

/** The element is a container class.

    @verbatim
        <foo/>
    @endverbatim
*/
class TINY_LIB XMLElement : public XMLNode
{
    friend class XMLDocument;
public:
    /** Given an attribute name, Attribute() returns the value
        for the attribute of that name, or null if none exists.

        @code
        const char* value = ele->Attribute( "foo" );
        @endcode
    */
    const char* Attribute( const char* name, const char* value=0 ) const;

    /** Given an attribute name, QueryIntAttribute() returns
        XML_SUCCESS or XML_WRONG_ATTRIBUTE_TYPE.
        @param name The attribute.
        @param value Where the value goes.
    */
    XMLError QueryIntAttribute( const char* name, int* value ) const {
        const XMLAttribute* a = FindAttribute( name );
        if ( !a ) {
            return XML_NO_ATTRIBUTE;
        }
        return a->QueryIntValue( value );
    }

    int Undocumented() const;

    //! Sets the text (a "quoted { brace" stays in its string).
    void SetText( const char* inText );
};

enum XMLError {
    XML_SUCCESS = 0,
    XML_NO_ATTRIBUTE
};

}

#endif
"""


def _glfw_like(root: Path) -> Path:
    files = {
        "docs/Doxyfile.in": DOXYFILE_IN,
        "docs/context.md": GUIDE_MD,
        "include/lib/lib.h": LIB_H,
        "src/internal.h": "/** @brief Internal. */\nint internal_thing(void);\n",
        "README.md": "# Lib\n\nA library.\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _tiny_like(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "dox").write_text(DOX)
    (root / "tinyxml.h").write_text(TINY_H)
    (root / "readme.md").write_text("# Tiny\n\nA small XML parser.\n")
    (root / "contrib").mkdir()
    (root / "contrib" / "other.h").write_text("/** Other. */\nint other(void);\n")
    return root


def test_headers_a_doxyfile_names_are_pages_by_group(tmp_path: Path) -> None:
    out = build_bundle(_glfw_like(tmp_path / "lib"), tmp_path / "idx")
    texts = page_texts(out)
    # INPUT is a CMake variable: the headers under include/; src/internal.h is code
    assert set(texts) == {"README.md", "docs/context.md", "include/lib/lib.h"}
    page = texts["include/lib/lib.h"]
    assert "# lib/lib.h" in page and "The header of the Lib API." in page
    window = page[page.index("## Window reference") :]
    assert "### libCreateWindow" in window and "### LIBvidmode" in window
    assert "LIBwindow* libCreateWindow(int width, LIBwindow* share);" in window
    assert "LIBAPI" not in page  # (EXCLUDE_SYMBOLS, PREDEFINED empty)
    assert "- `share` [in] — The window whose context to share resources with" in window
    assert "**Returns:** The handle of the created window, or `NULL` if an error occurred." in page
    assert "**Errors:**" in page and "`NULL`" in page  # (ALIASES; \\c)
    assert "[LIB_KEY_A](#LIB_KEY_A)" in page
    assert "The size is set by [libSetWindowSize](#libSetWindowSize)." in page
    assert "[Context object sharing](../../docs/context.md#context_sharing)" in page
    assert "```c\nLIBwindow* w = libCreateWindow(640, NULL);\n```" in page
    assert "**Since:** Added in version 3.0." in page
    assert "\nIndented, as layout." in page
    assert "**See also:** [libCreateWindow](#libCreateWindow)" in page  # (a bare name links)
    # a `@mainpage` comment is a section of the header's page, its `@section`s below it
    assert "## Lib\n" in page and "### Introduction" in page
    assert "start with [libCreateWindow](#libCreateWindow)." in page
    assert "- `height` — The height, in screen coordinates." in page
    # EXTRACT_ALL: undocumented declarations listed; @internal never
    assert "#define LIB_KEY_B 66" in page and "int libUndocumented(int x);" in page
    assert "libInternalThing" not in page and "banner" not in page
    guide = texts["docs/context.md"]
    assert "[libCreateWindow](../include/lib/lib.h#libCreateWindow)" in guide
    assert "[Window reference](../include/lib/lib.h#window)" in guide
    assert "[libSetWindowSize](../include/lib/lib.h#libSetWindowSize)" in guide
    assert "[keys](../include/lib/lib.h#keys)" in guide
    assert "[TOC]" not in guide and "**Note:** Sharing is optional." in guide
    assert "```c\nLIBwindow* second" in guide and '`"\\n"` stays' in guide
    # an `@anchor` marks a paragraph: links to it reach its section
    assert "[the hint](#context_sharing)" in guide and "@anchor" not in guide


def test_every_documented_symbol_is_an_api_entry(tmp_path: Path) -> None:
    out = build_bundle(_glfw_like(tmp_path / "lib"), tmp_path / "idx")
    names = set(pq.read_table(out / "api.parquet").column("name").to_pylist())
    for name in ("libCreateWindow", "LIBwindow", "LIBerrorfun", "LIBvidmode", "LIB_KEY_A"):
        assert name in names, name
    assert "libInternalThing" not in names and "internal_thing" not in names
    with McpSession(out) as s:
        found = s.call("get_api_reference", {"method": "libCreateWindow"})
        assert not found.is_error
        entry = found.structured_content["entries"][0]
    assert entry["signature"] == "LIBwindow* libCreateWindow(int width, LIBwindow* share);"
    assert [(p["name"], p["type"]) for p in entry["parameters"]] == [
        ("width", "int"),
        ("share", "LIBwindow*"),
    ]
    assert entry["description"] == "Creates a window and its associated context."
    assert entry["returns"].startswith("The handle of the created window")


def test_cpp_classes_members_and_namespaces(tmp_path: Path) -> None:
    out = build_bundle(_tiny_like(tmp_path / "tiny"), tmp_path / "idx")
    texts = page_texts(out)
    assert set(texts) == {"readme.md", "tinyxml.h"}  # (contrib/other.h: not in INPUT)
    page = texts["tinyxml.h"]
    assert "## tiny::XMLElement" in page and "### XMLElement::Attribute" in page
    assert "```cpp\nconst char* Attribute(const char* name, const char* value=0) const;" in page
    assert 'const char* value = ele->Attribute( "foo" );' in page
    assert "<foo/>" in page  # (@verbatim)
    assert "### XMLElement::SetText" in page and "### XMLAttribute::Name" in page
    # EXTRACT_ALL = NO: undocumented members and types left out; private members always
    assert "Undocumented" not in page and "XMLError {" not in page and "Grow" not in page
    names = set(pq.read_table(out / "api.parquet").column("name").to_pylist())
    with McpSession(out) as s:
        found = s.call("get_api_reference", {"method": "XMLElement::QueryIntAttribute"})
        entry = found.structured_content["entries"][0]
    assert entry["name"] == "tiny::XMLElement::QueryIntAttribute"
    assert [p["name"] for p in entry["parameters"]] == ["name", "value"]
    assert {"tiny::XMLElement::Attribute", "tiny::XMLElement::QueryIntAttribute"} <= names
    assert "tiny::XMLElement" in names and "tiny::XMLAttribute::Grow" not in names


def test_init_checks_its_proposal_with_the_header_pages(tmp_path: Path) -> None:
    """`docsmcp init` validates its proposal on a folder of links to the docs folder's entries:
    the Doxyfile behind a link was skipped, so GLFW's check said "19 files, 226 chunks" where
    the build reads 21 files and 532 chunks."""
    root = _glfw_like(tmp_path / "lib")
    done = run_docsmcp("init", "--docs-dir", root)
    lines = done.stderr.splitlines()
    assert lines[0] == "3 files"
    assert any(line.startswith("validate: ok: 3 files") for line in lines), lines
    # the API count is the build's: EXTRACT_ALL's undocumented symbols are entries too (GLFW:
    # init said 287 where the build registers 525, reading headers without the Doxyfile)
    built = pq.read_table(build_bundle(root, tmp_path / "idx") / "api.parquet").num_rows
    assert f"api: {built} entries on 1 pages" in "\n".join(lines), lines


def test_no_header_is_a_page_without_a_doxyfile(tmp_path: Path) -> None:
    root = _tiny_like(tmp_path / "tiny")
    (root / "dox").unlink()
    done = run_docsmcp("init", "--docs-dir", root)
    assert done.stderr.splitlines()[0] == "1 files"
    texts = page_texts(build_bundle(root, tmp_path / "idx"))
    assert set(texts) == {"readme.md"}


def test_header_pages_have_the_generated_role() -> None:
    assert classify("include/GLFW/glfw3.h", None, {}, "# GLFW/glfw3.h\n") == "generated"
    assert classify("tinyxml2.hpp", "tinyxml2.hpp", {}, "") == "generated"


def test_comment_forms_and_commands() -> None:
    s = scan("/** a */ /*! b */ /// c\n/// d\n//! e\n/*** banner */ //// rule\nint x = '\"';\n")
    docs = [c.text for c in s.comments if c.doc]
    assert docs == ["a", "b", "c\nd", "e"]
    d = parse("\\brief Short.\n\\param p The \\p value, \\a x.\n\\return \\b bold", {})
    assert d.brief == "Short." and d.params[0].text == "The `value`, *x*."
    assert d.returns == "**bold**"


def test_a_section_maps_to_its_doc_comment() -> None:
    text = header_line(Settings()) + "\n" + LIB_H
    page = header_to_markdown("lib.h", text)
    create = next(e for e in page.api if e.name == "libCreateWindow")
    source = text.split("\n")
    assert "@brief Creates a window" in source[page.line_map[create.line_start - 1]]


def test_parameters_come_from_the_declaration_without_param_commands() -> None:
    page = header_to_markdown("tinyxml.h", header_line(Settings()) + "\n" + TINY_H)
    entry = next(e for e in page.api if e.name == "tiny::XMLElement::Attribute")
    assert [(p.name, p.type) for p in entry.parameters] == [
        ("name", "const char*"),
        ("value", "const char*"),
    ]
    assert entry.kind == "method" and entry.description.startswith("Given an attribute name")


def test_hostile_input_ends_quickly() -> None:
    import time

    for text in (
        "namespace a { " * 5000,
        "class A { public: " * 3000 + "/** d */ void f(); " + "};" * 3000,
        "/** x */ int f(" * 20000,
        "/*" + "*" * 100_000,
        "#define A \\\n" * 20_000,
        '"' * 50_000 + "'" * 50_000,
        "/// a\n" * 50_000 + "int x;",
        "{" * 50_000 + "}" * 50_000,
    ):
        start = time.process_time()
        page = header_to_markdown("x.hpp", header_line(Settings(extract_all=True)) + "\n" + text)
        assert len(page.line_map) == (page.text.count("\n") + 1 if page.text else 0)
        assert time.process_time() - start < 5, text[:40]


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            [
                "/**",
                "*/",
                "/*!",
                "///",
                "//!",
                "//",
                "/**<",
                "@brief x",
                "\\param a b",
                "@{",
                "@}",
                "@defgroup g G",
                "@code",
                "@endcode",
                "@ref",
                '"',
                "'",
                'R"(',
                ')"',
                "#define A(x) x",
                "#if 0",
                "\\",
                "{",
                "}",
                "(",
                ")",
                ";",
                "class C",
                "struct S",
                "namespace n",
                "enum E",
                "typedef",
                "int f(int a)",
                "public:",
                "private:",
                "template <class T>",
                'extern "C" {',
                ",",
                "=",
                "\n",
                " ",
            ]
        )
        | st.text(max_size=8),
        max_size=60,
    )
)
def test_any_header_text_converts_without_error(parts: list[str]) -> None:
    text = " ".join(parts)
    s = scan(text)
    assert len(s.code) == len(text) and s.code.count("\n") == text.count("\n")
    page = header_to_markdown("x.hpp", header_line(Settings(extract_all=True)) + "\n" + text)
    n = page.text.count("\n") + 1 if page.text else 0
    assert len(page.line_map) == n
    assert all(0 <= line <= text.count("\n") + 1 for line in page.line_map)
    assert all(1 <= e.line_start <= e.line_end <= n for e in page.api)
