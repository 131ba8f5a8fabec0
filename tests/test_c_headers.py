"""C libraries whose public headers are their API reference, without a Doxyfile
(packages/c_headers.py, the plain mode of formats/source/doxygen_decls.py and c_lex.py):
fixtures written in raylib's, zlib's, sqlite's and stb's shapes."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
from conftest import FUZZ, build_bundle, page_texts, run_docsmcp
from docsmcp.sources.formats.source.c_words import named
from docsmcp.sources.formats.source.doxygen import Settings, header_line, header_to_markdown
from docsmcp.sources.formats.source.doxygen_decls import read_header
from docsmcp.sources.formats.source.doxygen_plain import without_exports
from docsmcp.sources.packages import c_headers
from hypothesis import given
from hypothesis import strategies as st
from mcp_client import McpSession

RAY_H = """/**********************************************************************
*
*   ray v1.0 - A simple library to draw windows and shapes
*
*   FEATURES:
*       - No external dependencies
*       - Windows, shapes and keys
*
*   NOTES:
*       - One default font is loaded on OpenWindow()
*
*   LICENSE: zlib/libpng
*
*   Copyright (c) 2013 Someone
*
**********************************************************************/

#ifndef RAY_H
#define RAY_H

#define RAY_VERSION "1.0"

#ifndef RAYAPI
    #define RAYAPI       // Functions defined as 'extern' by default
#endif

#define LIGHTGRAY  (Color){ 200, 200, 200, 255 }   // Light Gray

//----------------------------------------------------------------------
// Types and Structures Definition
//----------------------------------------------------------------------
// Color, 4 components, R8G8B8A8 (32bit)
typedef struct Color {
    unsigned char r;        // Color red value
    unsigned char a;        // Color alpha value
} Color;

// Keyboard keys
typedef enum {
    KEY_NULL  = 0,          // Key: NULL, used for no key pressed
    KEY_SPACE = 32,         // Key: Space
} KeyboardKey;

#if defined(__cplusplus)
extern "C" {            // Prevents name mangling of functions
#endif

// Window-related functions
RAYAPI void OpenWindow(int w, int h, const char *title); // Initialize window and GL context
RAYAPI void CloseWindow(void);                           // Close window and unload OpenGL context
RAYAPI bool IsKeyPressed(int key);                       // Check if a key has been pressed once
RAYAPI void DrawRectangle(int x, int y, int w, int h, Color c); // Draw a color-filled rectangle

#if defined(__cplusplus)
}
#endif

#endif // RAY_H
"""

ZZ_H = """/* zz.h -- interface of the 'zz' compression library
  version 1.0

  Copyright (C) 1995-2024 Someone

  This software is provided 'as-is', without any express or implied
  warranty.
*/

#ifndef ZZ_H
#define ZZ_H

#define ZZ_VERSION "1.0"

/*
    The 'zz' compression library provides in-memory compression and
  decompression functions, including integrity checks of the uncompressed data.
  This version of the library supports only one compression method.
*/

#define Z_OK            0
#define Z_STREAM_END    1
/* Return codes for the compression/decompression functions. */

                        /* basic functions */

ZEXTERN const char * ZEXPORT zzVersion(void);
/* The application can compare zzVersion and ZZ_VERSION for consistency.
   If the first character differs, the library code actually used is not
   compatible with the zz.h header file used by the application.
 */

/*
ZEXTERN int ZEXPORT zzDeflateInit(zz_streamp strm, int level);

     Initializes the internal stream state for compression.  The fields
   zalloc, zfree and opaque must be initialized before by the caller.
*/

ZEXTERN int ZEXPORT zzDeflate(zz_streamp strm, int flush);
/*
    zzDeflate compresses as much data as possible, and stops when the input
  buffer becomes empty or the output buffer becomes full.
*/

ZEXTERN int ZEXPORTVA zzPrintf(zzFile file, const char *format, ...);
/*
     Converts, formats, and writes the arguments to the compressed file under
   control of the format string, as in fprintf.
*/

#define zzDeflateInit(strm, level) zzDeflateInit_((strm), ZZ_VERSION)

#endif /* ZZ_H */
"""

LITE3_H = """/*
** 2001-09-15
**
** The author disclaims copyright to this source code.
**
*************************************************************************
** This header file defines the interface that the Lite library
** presents to client programs.
*/
#ifndef LITE3_H
#define LITE3_H

/*
** CAPI3REF: Result Codes
** KEYWORDS: {result code definitions}
**
** Many Lite functions return an integer result code from the set shown
** here in order to indicate success or failure.
*/
#define LITE_OK           0   /* Successful result */
#define LITE_ERROR        1   /* Generic error */

/*
** CAPI3REF: Compiling An SQL Statement
** METHOD: lite3
**
** To execute an SQL statement, it must first be compiled into a byte-code
** program using one of these routines.
**
** ^The preferred routine to use is [lite3_prepare_v2()].  The
** [lite3_prepare()] interface is legacy, see [prepared statement | statements].
*/
LITE_API int lite3_prepare(
  lite3 *db,            /* Database handle */
  const char *zSql,     /* SQL statement, UTF-8 encoded */
  lite3_stmt **ppStmt   /* OUT: Statement handle */
);
LITE_API int lite3_prepare_v2(
  lite3 *db,            /* Database handle */
  const char *zSql,     /* SQL statement, UTF-8 encoded */
  lite3_stmt **ppStmt   /* OUT: Statement handle */
);

/*
** CAPI3REF: Closing A Database Connection
**
** ^The lite3_close() routine is the destructor for the lite3 object.
*/
LITE_API int lite3_close(lite3*);

/*
** CAPI3REF: One-Step Query Execution Interface
**
** The lite3_exec() interface runs zero or more SQL statements, calling the
** callback once for each result row.
*/
LITE_API int lite3_exec(
  lite3*,                                  /* An open database */
  const char *sql,                         /* SQL to be evaluated */
  int (*callback)(void*,int,char**,char**),  /* Callback function */
  void *,                                  /* 1st argument to callback */
  char **errmsg                            /* Error msg written here */
);

/*
** CAPI3REF: Callback Type
**
** The type of the callback that lite3_exec() calls for each row.
*/
typedef int (*lite3_callback)(void*,int,char**, char**);

/*
** CAPI3REF: OS Interface File Virtual Methods Object
**
** Every file opened by the OS interface is described by these methods.
*/
typedef struct lite3_io_methods lite3_io_methods;
struct lite3_io_methods {
  int iVersion;
  int (*xClose)(lite3_file*);
  int (*xRead)(lite3_file*, void*, int iAmt, lite3_int64 iOfst);
  void (*(*xDlSym)(lite3_vfs*,void*, const char *zSymbol))(void);
};

/*
** CAPI3REF: Signal Handlers
**
** Installs a handler for a signal and returns the previous one.
*/
LITE_API void (*lite3_signal(int sig, void (*func)(int)))(int);

#endif
"""

STB_H = """/* stb_thing - v1.0 - public domain thing loader

   Do this:
      #define STB_THING_IMPLEMENTATION
   before you include this file in *one* C or C++ file to create the implementation.

   QUICK NOTES:
      Primarily of interest to game developers
      Loads things from files and memory
      No dependencies

   Basic usage:
      int x;
      unsigned char *data = stbt_load(filename, &x);
      stbt_free(data);

   The return value is NULL on an allocation failure.

   LICENSE

     See end of file for license information.

   More notes:
      Loads quickly from memory
*/
#ifdef STB_THING_IMPLEMENTATION
   // #define your own types before including to override these (stb_truetype's shape)
   #include <stdint.h>
#endif

#ifndef STB_THING_H
#define STB_THING_H
extern unsigned char *stbt_load(char const *filename, int *x);
extern void stbt_free(void *data);
#endif

#ifdef STB_THING_IMPLEMENTATION
// internal helper, never a page's
static int stbt__helper(int a) { return a; }
#endif
"""

BARE_H = """#ifndef BARE_H
#define BARE_H
int bare_open(const char *path);
int bare_read(int fd, void *buf, int n);
int bare_close(int fd);
#endif
"""


def _tree(root: Path) -> Path:
    """Four libraries side by side, each with its build file; what no user reads beside them."""
    (root / "ray" / "src" / "external").mkdir(parents=True)
    (root / "ray" / "examples").mkdir()
    (root / "ray" / "CMakeLists.txt").write_text("project(ray)\nadd_subdirectory(src)\n")
    (root / "ray" / "src" / "CMakeLists.txt").write_text(
        "set(ray_public_headers\n    ray.h\n)\n"
        'set_target_properties(ray PROPERTIES PUBLIC_HEADER "${ray_public_headers}")\n'
    )
    (root / "ray" / "src" / "ray.h").write_text(RAY_H)
    (root / "ray" / "src" / "rinternal.h").write_text(RAY_H.replace("RAY_H", "RINT_H"))
    (root / "ray" / "src" / "external" / "stb_thing.h").write_text(STB_H)
    (root / "ray" / "examples" / "ex.h").write_text(RAY_H.replace("RAY_H", "EX_H"))
    (root / "zz").mkdir()
    (root / "zz" / "CMakeLists.txt").write_text(
        "project(zz C)\nset(ZZ_PUBLIC_HDRS\n    ${CMAKE_CURRENT_BINARY_DIR}/zzconf.h\n    zz.h\n)\n"
        "set(ZZ_PRIVATE_HDRS zzutil.h)\n"
        'install(FILES ${ZZ_PUBLIC_HDRS} DESTINATION "${INSTALL_INC_DIR}")\n'
    )
    (root / "zz" / "zz.h").write_text(ZZ_H)
    (root / "zz" / "zzutil.h").write_text(ZZ_H.replace("ZZ_H", "ZZUTIL_H"))
    (root / "lite").mkdir()
    (root / "lite" / "CMakeLists.txt").write_text("project(Lite VERSION 3.1 LANGUAGES C)\n")
    (root / "lite" / "lite3.h").write_text(LITE3_H)
    (root / "bare" / "include").mkdir(parents=True)
    (root / "bare" / "Makefile").write_text("install:\n\tcp include/bare.h $(includedir)\n")
    (root / "bare" / "include" / "bare.h").write_text(BARE_H)
    (root / "stb_thing.h").write_text(STB_H)
    (root / "README.md").write_text("# Libraries\n\nFour small C libraries.\n")
    return root


def test_public_documented_headers_are_pages(tmp_path: Path) -> None:
    root = _tree(tmp_path / "libs")
    listed = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    assert c_headers.pages(root, [root], listed) == {
        "ray/src/ray.h",  # (PUBLIC_HEADER)
        "zz/zz.h",  # (install(FILES ${ZZ_PUBLIC_HDRS}))
        "lite/lite3.h",  # (the project's name)
        "stb_thing.h",  # (a single-header library)
    }
    # never: not installed, an example's, a vendored copy, a header of bare prototypes
    texts = page_texts(build_bundle(root, tmp_path / "idx"))
    assert set(texts) == {"README.md", "ray/src/ray.h", "zz/zz.h", "lite/lite3.h", "stb_thing.h"}
    ray = texts["ray/src/ray.h"]
    assert ray.lstrip().startswith("# ray.h") and "ray v1.0 - A simple library" in ray
    assert "LICENSE" not in ray and "Copyright" not in ray
    # (the export macro left out, as raylib's cheatsheet shows the function)
    assert "void OpenWindow(int w, int h, const char *title);" in ray and "RAYAPI void" not in ray
    # (the line above prototypes that carry their own comments titles their section)
    assert "## Window-related functions" in ray and "### OpenWindow" in ray
    assert "- `r` — Color red value" in ray and "- `KEY_SPACE` — Key: Space" in ray
    assert "Color, 4 components, R8G8B8A8 (32bit)" in ray
    stb = texts["stb_thing.h"]
    assert "Primarily of interest to game developers" in stb and "stbt__helper" not in stb
    # (the license paragraph left out, what follows it kept; the declarations below a first,
    # small implementation block read)
    assert "Loads quickly from memory" in stb and "See end of file" not in stb
    assert "stbt_load(char const *filename, int *x);" in stb and "stdint" not in stb
    lite = texts["lite/lite3.h"]
    assert "## Compiling An SQL Statement" in lite and "METHOD:" not in lite
    # sqlite's markup as sqlite.org shows it
    assert "The preferred routine to use is `lite3_prepare_v2()`." in lite
    assert "see statements." in lite and "^" not in lite
    zz = texts["zz/zz.h"]
    assert "The 'zz' compression library provides in-memory compression" in zz
    assert "This software is provided" not in zz


def test_entries_named_as_users_write_them(tmp_path: Path) -> None:
    out = build_bundle(_tree(tmp_path / "libs"), tmp_path / "idx")
    names = set(pq.read_table(out / "api.parquet").column("name").to_pylist())
    assert {
        "OpenWindow",
        "Color",
        "KeyboardKey",
        "LIGHTGRAY",
        "zzDeflate",
        "zzDeflateInit",
    } <= names
    assert {"lite3_prepare_v2", "lite3_close", "LITE_OK", "stbt_load"} <= names
    assert "bare_open" not in names and "stbt__helper" not in names
    with McpSession(out) as s:
        got = {}
        for name in (
            "OpenWindow",
            "KEY_SPACE",
            "zzDeflate",
            "zzDeflateInit",
            "lite3_prepare_v2",
            "LITE_OK",
        ):
            found = s.call("get_api_reference", {"method": name})
            assert not found.is_error, name
            got[name] = found.structured_content["entries"][0]
        hit = s.search(query="initialize window and GL context", limit=3)["hits"][0]
        sqlite_hit = s.search(query="compiling an SQL statement", limit=3)["hits"][0]
    assert got["OpenWindow"]["description"] == "Initialize window and GL context"
    assert [p["name"] for p in got["OpenWindow"]["parameters"]] == ["w", "h", "title"]
    assert got["KEY_SPACE"]["description"] == "Key: Space"  # (an enumerator, in its enum)
    # zlib: the comment after the prototype; a prototype written in a comment (a macro's)
    assert got["zzDeflate"]["description"].startswith("zzDeflate compresses as much data")
    assert got["zzDeflateInit"]["description"].startswith("Initializes the internal stream")
    assert got["zzDeflateInit"]["signature"].endswith("zzDeflateInit(zz_streamp strm, int level);")
    # sqlite: the CAPI3REF comment is the group's, and describes its declarations
    assert got["lite3_prepare_v2"]["description"].startswith("To execute an SQL statement")
    assert got["LITE_OK"]["description"] == "Successful result"
    assert hit["chunk_id"].startswith("ray/src/ray.h#")
    assert sqlite_hit["chunk_id"].startswith("lite/lite3.h#")


def test_a_header_that_documents_nothing_stays_code(tmp_path: Path) -> None:
    root = tmp_path / "bare"
    (root / "include" / "bare").mkdir(parents=True)
    (root / "CMakeLists.txt").write_text("project(bare)\ninstall(FILES include/bare/bare.h)\n")
    (root / "include" / "bare" / "bare.h").write_text(BARE_H)
    (root / "README.md").write_text("# Bare\n\nA bare library.\n")
    assert c_headers.pages(root, [root], ["CMakeLists.txt", "include/bare/bare.h"]) == set()
    done = run_docsmcp("init", "--docs-dir", root)
    assert done.stderr.splitlines()[0] == "1 files"  # (init never reads it)
    assert set(page_texts(build_bundle(root, tmp_path / "idx"))) == {"README.md"}


def test_a_doxyfile_still_decides(tmp_path: Path) -> None:
    """A tree with a Doxyfile reads the headers its INPUT names, as before: a documented
    public header it leaves out stays code."""
    root = _tree(tmp_path / "libs")
    (root / "Doxyfile").write_text("INPUT = zz\nFILE_PATTERNS = *.h\n")
    (root / "zz" / "zzdoc.h").write_text("/** Opens a stream. */\nint zz_open(void);\n")
    texts = page_texts(build_bundle(root, tmp_path / "idx"))
    # (zz.h's plain comments are no Doxygen comments: Doxygen shows nothing of it)
    assert set(texts) == {"README.md", "zz/zzdoc.h"}
    assert "Opens a stream." in texts["zz/zzdoc.h"]


@FUZZ
@given(
    st.lists(
        st.sampled_from(
            [
                "/*",
                "*/",
                "**",
                "//",
                "// ---",
                "** CAPI3REF: T",
                "KEYWORDS: {x}",
                "[a()]",
                "[a | b]",
                "^",
                "#define A 1 /* a */",
                "#ifdef X_IMPLEMENTATION",
                "#endif",
                "LIBAPI(int)",
                "ZEXTERN int ZEXPORT f(int a);",
                "int f(int a);",
                "typedef struct S {",
                "} S;",
                "enum {",
                "LICENSE",
                "{",
                "}",
                "(",
                ")",
                ";",
                ",",
                "\n",
                "\n\n",
                " ",
            ]
        )
        | st.text(max_size=8),
        max_size=60,
    )
)
def test_any_plain_header_converts_without_error(parts: list[str]) -> None:
    text = " ".join(parts)
    page = header_to_markdown("x.h", header_line(Settings(plain=True)) + "\n" + text)
    assert len(page.line_map) == len(page.text.split("\n")) or not page.text
    c_headers.documents(text)


def test_plain_reading_is_linear_on_long_lines() -> None:
    import time

    for text in ("/*" + "*" * 200_000, "int f(" + "a," * 50_000, "// x\n" * 40_000):
        start = time.process_time()
        header_to_markdown("x.h", header_line(Settings(plain=True)) + "\n" + text)
        assert time.process_time() - start < 5, text[:20]


CJ_H = """/* cj - a tiny JSON parser. */
#ifndef CJ_H
#define CJ_H

#if defined(_WIN32)
#define CJ_PUBLIC(type) __declspec(dllexport) type
#else
#define CJ_PUBLIC(type) __attribute__((visibility("default"))) type
#endif

/* An item of a parsed JSON text. */
typedef struct cj { struct cj *next; int type; } cj;

/* Parse a JSON text into a tree of items. */
CJ_PUBLIC(cj *) cj_Parse(const char *value);
/* Delete an item and its children. */
CJ_PUBLIC(void) cj_Delete(cj *item);

CJ_PUBLIC(cj*) cj_AddStringToObject(cj * const object, const char * const name);
CJ_PUBLIC(cj*) cj_AddNumberToObject(cj * const object, const double number);
CJ_PUBLIC(int) cj_GetArraySize(const cj *array);

#endif
"""

WIN_H = """/* win - window functions, every one returning BOOL. */
#ifndef WIN_H
#define WIN_H
/* Show a window. */
BOOL ShowIt(HWND w);
/* Hide a window. */
BOOL HideIt(HWND w);
/* Move a window. */
BOOL MoveIt(HWND w, int x, int y);
#endif
"""


def test_undocumented_declarations_are_sections_of_their_own(tmp_path: Path) -> None:
    """cJSON's undocumented functions after a documented one: each its own section (its hit
    named after it, not after the documented one above), the export macro left out of every
    signature and its own `#define` no entry; a return type however common stays."""
    root = tmp_path / "cj"
    root.mkdir()
    (root / "CMakeLists.txt").write_text("project(cj C)\ninstall(FILES cj.h DESTINATION include)\n")
    (root / "cj.h").write_text(CJ_H)
    (root / "README.md").write_text("# cj\n\nA tiny JSON parser.\n")
    out = build_bundle(root, tmp_path / "idx")
    page = page_texts(out)["cj.h"]
    assert "CJ_PUBLIC" not in page and "__declspec" not in page
    assert "cj *cj_Parse(const char *value);" in page
    assert "### cj_AddStringToObject" in page and "### cj_GetArraySize" in page
    names = set(pq.read_table(out / "api.parquet").column("name").to_pylist())
    assert {"cj_Parse", "cj_AddNumberToObject", "cj_GetArraySize"} <= names
    assert "CJ_PUBLIC" not in names
    with McpSession(out) as s:
        hit = s.search(query="cj_AddNumberToObject", limit=3)["hits"][0]
        entry = s.call("get_api_reference", {"method": "cj_AddNumberToObject"})
    assert hit["heading"] == "cj_AddNumberToObject"
    assert hit["chunk_id"].endswith("/cj_AddNumberToObject")
    got = entry.structured_content["entries"][0]
    assert got["signature"] == "cj* cj_AddNumberToObject(cj * const object, const double number);"
    assert got["chunk_id"] == hit["chunk_id"]


def test_a_common_return_type_is_no_export_macro() -> None:
    line = header_line(Settings(title="win.h", plain=True))
    page = header_to_markdown("win.h", line + "\n" + WIN_H).text
    assert "BOOL ShowIt(HWND w);" in page and "BOOL MoveIt(HWND w, int x, int y);" in page
    # (sqlite's functions taking a callback: their head runs to the first parenthesis)
    api, wrap = frozenset({"SQLITE_API"}), frozenset({"CJ_PUBLIC"})
    code = "SQLITE_API int sqlite3_exec(sqlite3*, int (*callback)(void*), void*);"
    assert without_exports(code, "sqlite3_exec", api, wrap) == code.removeprefix("SQLITE_API ")
    assert without_exports("SQLITE_API void (*xFn)(int);", "xFn", api, wrap) == "void (*xFn)(int);"
    assert without_exports("CJ_PUBLIC(void) cj_On(void (*cb)(int));", "cj_On", api, wrap) == (
        "void cj_On(void (*cb)(int));"
    )


def test_callbacks_name_nothing_but_their_own_declarator(tmp_path: Path) -> None:
    """A function taking a function pointer is named after itself (sqlite3_exec was an entry
    `callback`), as are a function returning one, a typedef of one and the members of a
    struct of them; zlib's `ZEXPORTVA`, on two functions only, is left out all the same."""
    out = build_bundle(_tree(tmp_path / "libs"), tmp_path / "idx")
    names = set(pq.read_table(out / "api.parquet").column("name").to_pylist())
    assert {"lite3_exec", "lite3_callback", "lite3_signal", "zzPrintf"} <= names
    assert not {"callback", "func", "sig", "zSymbol", "errmsg"} & names
    # (a struct of function pointers: its members named after them, `xDlSym` the outermost)
    struct = next(d for d in read_header(LITE3_H, plain=True).decls if d.kind == "struct")
    assert [m.name.rsplit("::", 1)[-1] for m in struct.members] == [
        "iVersion",
        "xClose",
        "xRead",
        "xDlSym",
    ]
    with McpSession(out) as s:
        got = {}
        for name in ("lite3_exec", "lite3_callback", "lite3_signal", "zzPrintf"):
            found = s.call("get_api_reference", {"method": name})
            assert not found.is_error, name
            got[name] = found.structured_content["entries"][0]
        hit = s.search(query="lite3_exec", limit=3)["hits"][0]
    assert got["lite3_exec"]["description"].startswith("The lite3_exec() interface runs")
    assert "int (*callback)(void*,int,char**,char**)" in got["lite3_exec"]["signature"]
    assert got["lite3_exec"]["signature"].startswith("int lite3_exec(")
    assert got["lite3_signal"]["signature"] == (
        "void (*lite3_signal(int sig, void (*func)(int)))(int);"
    )
    assert got["zzPrintf"]["signature"] == "int zzPrintf(zzFile file, const char *format, ...);"
    assert hit["chunk_id"].startswith("lite/lite3.h#")


_DECL_WORDS = ["int", "void", "f", "g", "T", "API", "(", ")", "*", "&", "^", ",", "[", "]"]


@FUZZ
@given(st.lists(st.sampled_from([*_DECL_WORDS, "typedef", "const", "__attribute__"]), max_size=40))
def test_declarator_names_any_words(words: list[str]) -> None:
    """The declarator parser ends on any words and names one of them or nothing."""
    kind, name, _ = named(words) if words else ("", "", "")
    assert name == "" or name in words or "::" in name or name.startswith("~")
