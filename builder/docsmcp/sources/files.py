"""What a docs file is before it is read: the suffixes of each format, the names the builder
gives special meaning (manifests, llms-full.txt, a generator's own pages), which paths can be
chunk ids, and reading one file safely inside the source roots (`read_file`).

Every stage that opens a file or asks what kind of file a path is imports this module;
discover.py walks the docs tree with it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

MANIFEST_NAME = ".docs-mcp.json"

# .markdown: Jekyll's; .qmd: Quarto's; .mdoc: Markdoc's; .rmd, .rmarkdown: R Markdown's
# (formats/r/rmarkdown.py); .cheatmd: ExDoc's cheat sheets (markdown, `{: .col-2}`)
MARKDOWN_SUFFIXES = (".md", ".mdx", ".markdown", ".qmd", ".mdoc", ".rmd", ".rmarkdown", ".cheatmd")

# PDF manuals are sources too (pdf/ turns them into markdown-like text); listed with markdown.
PDF_SUFFIXES = (".pdf",)

# Pages converted to markdown before parsing (convert.py). HTML pages are read only from a folder
# without markdown or reStructuredText sources (a saved site), since a source folder's .html
# files are templates and partials (mkdocs `overrides/`, Sphinx `_templates/`).
HTML_SUFFIXES = (".html", ".htm")

RST_SUFFIXES = (".rst",)

NOTEBOOK_SUFFIXES = (".ipynb",)  # Jupyter notebooks, read as the page a site shows

# AsciiDoc (Asciidoctor, Antora); `.asc` is not one: it is as often a PGP signature.
ASCIIDOC_SUFFIXES = (".adoc", ".asciidoc")

RD_SUFFIXES = (".rd",)  # R documentation (`man/*.Rd`): an R package's reference (formats/r/rd.py)

# Elixir modules: their @moduledoc/@doc heredocs are the API pages ExDoc publishes (exdoc.py)
ELIXIR_SUFFIXES = (".ex",)

WRITERSIDE_SUFFIXES = (".topic",)  # JetBrains Writerside's XML topics (formats/writerside_xml.py)

TEXINFO_SUFFIXES = (".texi", ".texinfo", ".txi")  # GNU manuals (formats/texinfo/texinfo.py)

# Source code read as the API reference its ecosystem publishes, only where a package says so:
# Rust: a library crate's modules (`src/**/*.rs` beside `src/lib.rs`) are the pages docs.rs
# shows (formats/source/rustdoc.py); every other `.rs` file is code, no page (rust_crate.no_pages).
RUST_SUFFIXES = (".rs",)

# TypeScript modules: the TSDoc of a package's API, the pages TypeDoc publishes (tsdoc.py); only
# the files a package's entry points export are pages (typescript_site.py), never a site's code.
TYPESCRIPT_SUFFIXES = (".ts", ".tsx", ".mts", ".cts")

# Plain JavaScript with JSDoc: read as TypeScript is, only the modules a published package
# without types exports (typescript_site.py, formats/source/jsdoc_cjs.py): never a site's code.
JAVASCRIPT_SUFFIXES = (".js", ".mjs", ".cjs")

# Go: a package's files read as the page pkg.go.dev shows, inside a module only (go_source.py,
# formats/source/godoc.py).
GO_SUFFIXES = (".go",)

# Python: a distribution's public modules read as the pages pdoc shows, only when the docs
# folder is the distribution (python_package.py, formats/source/pydoc.py); other `.py` is code.
PYTHON_SUFFIXES = (".py",)

# Java: a Maven/Gradle project's main sources read as the pages Javadoc publishes, a class's
# or (package-info.java) a package's (java_project.py, formats/source/javadoc.py).
JAVA_SUFFIXES = (".java",)

# Kotlin: a Gradle/Maven project's main sources read as the pages Dokka publishes
# (kotlin_project.py, formats/source/kdoc.py); tests, samples and build scripts are no pages.
KOTLIN_SUFFIXES = (".kt",)

# C and C++ headers: the pages Doxygen makes of them, only in a tree holding a Doxyfile that
# names them (packages/doxygen_project.py, formats/source/doxygen.py); else code, no page.
C_HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++")
# Doxygen's pages written as C comments (`/*! @mainpage … */`: JsonCpp's `doc/jsoncpp.dox`),
# pages only where a Doxyfile names them, as headers.
DOXYGEN_PAGE_SUFFIXES = (".dox",)

# C#: a .NET library's source files read as the pages docfx publishes from their XML doc
# comments, only those a docfx.json or the repository's `src/` projects name (dotnet_project.py,
# formats/source/csharpdoc.py); other `.cs` is code, no page.
CSHARP_SUFFIXES = (".cs",)

# Swift: a package's library targets read as the symbol pages DocC publishes, only under a
# `Package.swift`'s `Sources/` (swift_package.py, formats/source/swiftdoc.py); a DocC catalog's
# tutorials (`.tutorial`), read with its articles (formats/markdown/docc.py).
SWIFT_SUFFIXES = (".swift",)
DOCC_SUFFIXES = (".tutorial",)

# PHP: a library's classes read as the pages phpDocumentor publishes from their PHPDoc, only
# the source folders its phpdoc.xml or composer.json's autoload names (php_package.py,
# formats/source/phpdoc.py); tests, vendor/ and every other `.php` are code, no page.
PHP_SUFFIXES = (".php",)
# Ruby: a gem's library files (a `*.gemspec` folder's `lib/`, or what its `.yardopts` names)
# read as the pages YARD publishes on rubydoc.info (packages/ruby_gem.py,
# formats/source/yard.py); other `.rb` is code. RDoc pages (`README.rdoc`, Rack's `SPEC.rdoc`)
# are read as RDoc renders them (yard_tags.py's markup).
RUBY_SUFFIXES = (".rb",)
RDOC_SUFFIXES = (".rdoc",)
# Dart: a package's public libraries (`lib/*.dart`, with what they export from `lib/src/`) read
# as the pages dartdoc publishes (dart_package.py, formats/source/dartdoc.py); other `.dart` is
# code, no page.
DART_SUFFIXES = (".dart",)
# GraphQL: a schema file (type-system definitions) read as the reference a GraphQL docs explorer
# shows (formats/graphql/); a file of queries and fragments only is client code, no page
# (packages/graphql_schema.py).
GRAPHQL_SUFFIXES = (".graphql", ".graphqls", ".gql")
# Haskell: a cabal (or hpack) library's exposed modules read as the pages Haddock publishes on
# Hackage (haskell_package.py, formats/source/haddock.py); literate `.lhs` through `unlit`;
# other-modules, tests, benchmarks, executables and `Setup.hs` are code, no page.
HASKELL_SUFFIXES = (".hs", ".lhs")
# Protocol Buffers: a gRPC or protobuf API's `.proto` files read as the pages protoc-gen-doc or
# the Buf Schema Registry publishes (proto_project.py says which: a buf module's, or the docs
# folder's, less third_party/, vendor/, tests, examples and copied well-known types;
# formats/source/protodoc.py).
PROTO_SUFFIXES = (".proto",)
# Perl: POD (`.pod` files, and the POD of a distribution's `lib/` modules and `bin/` scripts)
# read as perldoc and metacpan render it (packages/perl_dist.py, formats/source/pod.py); other
# `.pm`/`.pl` is code, and a module without POD no page.
POD_SUFFIXES = (".pod",)
PERL_MODULE_SUFFIXES = (".pm",)
PERL_SCRIPT_SUFFIXES = (".pl",)
# Scala: an sbt, Mill or scala-cli project's published main sources read as the pages Scaladoc
# publishes (scala_project.py, formats/source/scaladoc.py); tests, benchmarks, examples and
# build code are no pages.
SCALA_SUFFIXES = (".scala",)
# Solidity: a Foundry, Hardhat or Truffle project's contracts read as the pages forge doc and
# solidity-docgen publish from their NatSpec (solidity_project.py says which: the configured
# source folder's, less tests, scripts, `lib/` dependencies and mocks; formats/source/soldoc.py).
SOLIDITY_SUFFIXES = (".sol",)
# Unix manual pages in roff, man(7) or mdoc(7) (formats/roff/): `NAME.SECTION` (`tmux.1`,
# `ssh_config.5`, `SSL_read.3ssl`), `.man`, a configure template (`htop.1.in`) and jq's
# `jq.1.prebuilt`. A suffix says little (`v1.5`, `test.1` are often no page):
# packages/man_pages.py keeps only files whose first requests are a page's.
MAN_SUFFIXES = (
    *(f".{n}{x}" for n in "123456789" for x in ("", "p", "x", "ssl", "pm", ".in", ".prebuilt")),
    ".man",
)

# Pages converted to markdown by a reader (convert.py's CONVERTERS).
CONVERTED_SUFFIXES = (
    HTML_SUFFIXES + RST_SUFFIXES + NOTEBOOK_SUFFIXES + ASCIIDOC_SUFFIXES
    + RD_SUFFIXES + ELIXIR_SUFFIXES + WRITERSIDE_SUFFIXES + TEXINFO_SUFFIXES
    + RUST_SUFFIXES + TYPESCRIPT_SUFFIXES + GO_SUFFIXES + JAVA_SUFFIXES
    + C_HEADER_SUFFIXES + DOXYGEN_PAGE_SUFFIXES + JAVASCRIPT_SUFFIXES + PYTHON_SUFFIXES
    + CSHARP_SUFFIXES + SWIFT_SUFFIXES + DOCC_SUFFIXES + KOTLIN_SUFFIXES
    + PHP_SUFFIXES
    + RUBY_SUFFIXES + RDOC_SUFFIXES + DART_SUFFIXES
    + GRAPHQL_SUFFIXES + HASKELL_SUFFIXES + PROTO_SUFFIXES + MAN_SUFFIXES
    + POD_SUFFIXES + PERL_MODULE_SUFFIXES + PERL_SCRIPT_SUFFIXES
    + SCALA_SUFFIXES + SOLIDITY_SUFFIXES
)  # fmt: skip

# Code a reader may make a page of (a crate's module, a header a Doxyfile names, a project's
# class, a distribution's module): a link to such a file is a link to its page where the bundle
# has one (enrich/xref_resolve.py).
CODE_PAGE_SUFFIXES = (
    C_HEADER_SUFFIXES
    + DOXYGEN_PAGE_SUFFIXES
    + RUST_SUFFIXES
    + TYPESCRIPT_SUFFIXES
    + JAVASCRIPT_SUFFIXES
    + GO_SUFFIXES
    + PYTHON_SUFFIXES
    + JAVA_SUFFIXES
    + KOTLIN_SUFFIXES
    + CSHARP_SUFFIXES
    + SWIFT_SUFFIXES
    + ELIXIR_SUFFIXES
    + PHP_SUFFIXES
    + RUBY_SUFFIXES
    + DART_SUFFIXES
    + GRAPHQL_SUFFIXES
    + HASKELL_SUFFIXES
    + PROTO_SUFFIXES
    + POD_SUFFIXES
    + PERL_MODULE_SUFFIXES
    + PERL_SCRIPT_SUFFIXES
    + SCALA_SUFFIXES
    + SOLIDITY_SUFFIXES
)

# Code that may sit beside a saved HTML site without being its source.
CODE_BESIDE_SITES = (
    TYPESCRIPT_SUFFIXES
    + JAVASCRIPT_SUFFIXES
    + JAVA_SUFFIXES
    + PYTHON_SUFFIXES
    + C_HEADER_SUFFIXES
    + CSHARP_SUFFIXES
    + SWIFT_SUFFIXES
    + KOTLIN_SUFFIXES
    + PHP_SUFFIXES  # (a PHP site's templates)
    + RUBY_SUFFIXES
    + DART_SUFFIXES
    + HASKELL_SUFFIXES
    + PERL_MODULE_SUFFIXES
    + PERL_SCRIPT_SUFFIXES
    + SCALA_SUFFIXES
)

# Every file the builder reads as a page.
SOURCE_SUFFIXES = MARKDOWN_SUFFIXES + PDF_SUFFIXES + CONVERTED_SUFFIXES

# A concatenation of pages (`llms-full.txt`, `NAME.llms-full.txt`): read as markdown, then split
# into pages by formats/llms_full.py.
LLMS_FULL_NAME = "llms-full.txt"


class Refused(Exception):
    """A file the builder must not read; the message says why, in one line."""


def source_roots(docs_dir: Path, extra: Sequence[Path] = ()) -> tuple[Path, ...]:
    """Real paths of the roots the builder may read: the docs dir, then `extra`."""
    return tuple(dict.fromkeys(Path(os.path.realpath(r)) for r in (docs_dir, *extra)))


def inside_roots(real: str, roots: Sequence[Path]) -> bool:
    """Whether the real path ``real`` is one of ``roots`` or under one (compared as text: this
    runs for every file read)."""
    for root in roots:
        prefix = str(root)
        if real == prefix or real.startswith(prefix if prefix.endswith("/") else prefix + "/"):
            return True
    return False


def shown(path: str) -> str:
    """``path`` as one printable line: bytes that are not UTF-8 as ``\\xNN``, control
    characters escaped (``\\n``, ``\\t``)."""
    out = []
    for ch in path:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's stand-in for an undecodable byte
            out.append(f"\\x{code - 0xDC00:02x}")
        elif _unusable(ch):
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    return "".join(out)


def _unusable(ch: str) -> bool:
    """Control characters (C0, DEL, C1), line/paragraph separators and lone surrogates: no chunk
    id may contain them, since an id is one line of text that get_doc must accept back."""
    code = ord(ch)
    return (
        code < 0x20
        or 0x7F <= code <= 0x9F
        or code in (0x2028, 0x2029)
        or (0xD800 <= code <= 0xDFFF)
    )


def path_problem(path: str) -> str | None:
    """Why a file at ``path`` cannot be indexed under that name, or None. Chunk ids begin with
    the path, so it must be UTF-8 text that get_doc accepts back: no control characters, and
    no whitespace to trim at its start."""
    if path.isprintable():  # the usual case, answered in C: no control character, no surrogate
        return None if path == path.lstrip() else _LEADING_SPACE
    if any(0xDC80 <= ord(ch) <= 0xDCFF for ch in path):
        return "file name is not valid UTF-8; rename it (chunk ids are UTF-8 text)"
    bad = next((ch for ch in path if _unusable(ch)), None)
    if bad is not None:
        return (
            f"file name contains the control character U+{ord(bad):04X}; rename it "
            "(a chunk id begins with the path and must be one line of text)"
        )
    return None if path == path.lstrip() else _LEADING_SPACE


_LEADING_SPACE = "file name starts with whitespace; rename it (chunk ids are trimmed)"


def special_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def outside_roots(target: str) -> str:
    return (
        f"symlink to {shown(target)}, outside the source roots "
        "(--docs-dir and every --source-root); refused"
    )


# Pages a site generator writes that hold no documentation (Sphinx's indexes, search pages).
SITE_GENERATED = frozenset({"404.html", "search.html", "genindex.html", "py-modindex.html"})


def is_html(path: str) -> bool:
    return path.lower().endswith(HTML_SUFFIXES)


def is_generated_page(path: str) -> bool:
    """A site generator's own page (404, search, index of names, Sphinx's `genindex-A.html`
    and `genindex-all.html`): not indexed."""
    lower = path.lower()
    return lower in SITE_GENERATED or lower.startswith(("search/", "genindex"))


def is_llms_full(path: str) -> bool:
    """Whether the file at ``path`` is an llms-full.txt, which the builder splits into pages."""
    name = path.rpartition("/")[2].lower()
    return name == LLMS_FULL_NAME or name.endswith("." + LLMS_FULL_NAME)


def leave_out(path: str) -> str:
    """The end of a message about one file a build cannot use: how to build without it."""
    import shlex

    return f"leave it out with --exclude {shlex.quote(path)}"


def not_utf8(raw: bytes, start: int) -> tuple[int, str]:
    """(line, message) for the first byte of `raw` (a file as stored) that is not UTF-8, at
    offset `start`: the line and column an editor shows, and the byte itself."""
    line = raw.count(b"\n", 0, start) + 1
    column = start - (raw.rfind(b"\n", 0, start) + 1) + 1
    return line, f"not valid UTF-8 at column {column} (byte 0x{raw[start]:02x})"


def read_file(docs_dir: Path, path: str, roots: Sequence[Path], limit: int) -> bytes:
    """The bytes of the regular file at ``path`` (relative to docs_dir), at most ``limit``.

    The scan already refused what leads outside the roots and skipped what is not a regular
    file, without opening anything; this is the guard for a file changed since: it checks the
    file it actually opened (without blocking, so a FIFO cannot hang the build). Raises
    Refused for a file outside the roots, not regular or too large; OSError if unreadable."""
    full = os.path.join(docs_dir, path)
    fd = os.open(full, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        real = _real_path(fd, full)
        if not inside_roots(real, roots):
            raise Refused(outside_roots(real))
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"{special_kind(info.st_mode)}; refused")
        too_big = f"at most {limit:,} bytes are allowed per file; split it or leave it out"
        if info.st_size > limit:
            raise Refused(f"is {info.st_size:,} bytes; {too_big}")
        # One byte more than fstat said shows whether the file grew since.
        data = _read(fd, info.st_size + 1)
        if len(data) > info.st_size:
            data += _read(fd, limit + 1 - len(data))
        if len(data) > limit:
            raise Refused(f"is over {limit:,} bytes; {too_big}")
        return data
    finally:
        os.close(fd)


def read_file_text(docs_dir: Path, path: str, roots: Sequence[Path], limit: int) -> str | None:
    """The text of the file at ``path`` (UTF-8, undecodable bytes replaced), or None where
    `read_file` refuses it or cannot read it: what a reader that looks into other files (a
    crate's `Cargo.toml`, a package's modules) takes as "not there"."""
    try:
        data = read_file(docs_dir, path, roots, limit)
    except (OSError, Refused, ValueError):
        return None
    return data.decode("utf-8", "replace")


def _real_path(fd: int, path: str) -> str:
    """The real path of the open file ``fd``: one readlink on Linux, else resolved again."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return os.path.realpath(path)


def _read(fd: int, size: int) -> bytes:
    """Up to ``size`` bytes from ``fd`` (fewer only at the end of the file)."""
    parts = []
    while size > 0 and (part := os.read(fd, size)):
        parts.append(part)
        size -= len(part)
    return b"".join(parts)
