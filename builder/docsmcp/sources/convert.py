"""Files that are not markdown, turned into markdown the chunker reads: one converter per suffix.

`load_corpus` reads such a file like any page (source roots, limits, manifests); the worker that
parses it converts it first (`convert_source`), so conversion runs on every core and is cached
with the parse (the parse cache keys the file's original text). Chunk ids keep the file's own
path (`guide/intro.html#intro/setup`); links between converted pages resolve in xref like links
between markdown pages. Converters are pure functions of the text: deterministic.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable

from docsmcp.model.source import Converted, SourceFile
from docsmcp.sources.files import (
    ASCIIDOC_SUFFIXES,
    C_HEADER_SUFFIXES,
    CSHARP_SUFFIXES,
    DART_SUFFIXES,
    DOCC_SUFFIXES,
    DOXYGEN_PAGE_SUFFIXES,
    ELIXIR_SUFFIXES,
    GO_SUFFIXES,
    GRAPHQL_SUFFIXES,
    HASKELL_SUFFIXES,
    HTML_SUFFIXES,
    JAVA_SUFFIXES,
    JAVASCRIPT_SUFFIXES,
    KOTLIN_SUFFIXES,
    MAN_SUFFIXES,
    MARKDOWN_SUFFIXES,
    NOTEBOOK_SUFFIXES,
    PERL_MODULE_SUFFIXES,
    PERL_SCRIPT_SUFFIXES,
    PHP_SUFFIXES,
    POD_SUFFIXES,
    PROTO_SUFFIXES,
    PYTHON_SUFFIXES,
    RD_SUFFIXES,
    RDOC_SUFFIXES,
    RST_SUFFIXES,
    RUBY_SUFFIXES,
    RUST_SUFFIXES,
    SCALA_SUFFIXES,
    SOLIDITY_SUFFIXES,
    SWIFT_SUFFIXES,
    TEXINFO_SUFFIXES,
    TYPESCRIPT_SUFFIXES,
    WRITERSIDE_SUFFIXES,
)
from docsmcp.sources.formats.linemap import SOURCE_LINES
from docsmcp.sources.formats.markdown.docc import HEADER as DOCC_HEADER
from docsmcp.sources.formats.markdown.link_titles import LINK_TITLES
from docsmcp.sources.formats.markdown.myst_rst import may_hold
from docsmcp.sources.formats.rst.rst_suffixes import is_rst

log = logging.getLogger("docsmcp.sources.convert")


def _myst(path: str, text: str) -> Converted | None:
    from docsmcp.sources.formats.markdown.myst_rst import myst_to_markdown

    return myst_to_markdown(path, text)


def _html(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.html.htmlpage import html_to_markdown

    return html_to_markdown(text)


def _rst(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.rst.rst import rst_to_markdown

    return rst_to_markdown(path, text)


def _asciidoc(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.asciidoc.asciidoc import asciidoc_to_markdown

    return asciidoc_to_markdown(path, text)


def _notebook(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.notebook import notebook_to_markdown

    done = notebook_to_markdown(path, text)
    return Converted(done.text, None, (), done.line_map)


def _rd(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.r.rd import rd_to_markdown

    done = rd_to_markdown(path, text)
    return Converted(done.text, done.title, (), done.line_map, done.api, (), done.description)


def _elixir(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.exdoc import elixir_to_markdown

    return elixir_to_markdown(path, text)


def _go(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.godoc import go_to_markdown

    return go_to_markdown(path, text)


def _writerside(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.writerside_xml import render_topic

    done = render_topic(text)
    if done.error:
        log.warning("%s: %s; read as its text", path, done.error)
    return Converted("\n".join(done.lines), done.title, (), tuple(done.line_map))


def _texinfo(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.texinfo.texinfo import texinfo_to_markdown

    return texinfo_to_markdown(path, text)


def _rust(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.rustdoc import rust_to_markdown

    return rust_to_markdown(path, text)


def _typescript(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.tsdoc import typescript_to_markdown

    done = typescript_to_markdown(path, text)
    return Converted(done.text, done.title, (), done.line_map, done.api)


def _java(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.javadoc import java_to_markdown

    return java_to_markdown(path, text)


def _kotlin(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.kdoc import kotlin_to_markdown

    return kotlin_to_markdown(path, text)


def _c_header(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.doxygen import header_to_markdown

    done = header_to_markdown(path, text)
    return Converted(done.text, done.title, (), done.line_map, done.api)


def _python(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.pydoc import python_to_markdown

    return python_to_markdown(path, text)


def _csharp(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.csharpdoc import csharp_to_markdown

    return csharp_to_markdown(path, text)


def _swift(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.swiftdoc import swift_to_markdown

    return swift_to_markdown(path, text)


def _php(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.phpdoc import php_to_markdown

    return php_to_markdown(path, text)


def _scala(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.scaladoc import scala_to_markdown

    return scala_to_markdown(path, text)


def _dart(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.dartdoc import dart_to_markdown

    return dart_to_markdown(path, text)


def _haskell(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.haddock import haskell_to_markdown

    return haskell_to_markdown(path, text)


def _proto(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.protodoc import proto_to_markdown

    return proto_to_markdown(path, text)


def _solidity(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.soldoc import sol_to_markdown

    return sol_to_markdown(path, text)


def _docc(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.markdown.docc import docc_to_markdown

    return docc_to_markdown(path, text)


def _pod(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.pod import pod_to_markdown

    return pod_to_markdown(path, text)


def _ruby(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.yard import ruby_to_markdown

    return ruby_to_markdown(path, text)


def _rdoc(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.source.yard import rdoc_to_markdown

    return rdoc_to_markdown(path, text)


def _graphql(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.graphql.sdl_page import graphql_to_markdown

    return graphql_to_markdown(path, text)


def _man(path: str, text: str) -> Converted:
    from docsmcp.sources.formats.roff.manpage import man_to_markdown

    return man_to_markdown(path, text)


CONVERTERS: dict[str, Callable[[str, str], Converted]] = {
    **{suffix: _html for suffix in HTML_SUFFIXES},
    **{suffix: _rst for suffix in RST_SUFFIXES},
    **{suffix: _notebook for suffix in NOTEBOOK_SUFFIXES},
    **{suffix: _asciidoc for suffix in ASCIIDOC_SUFFIXES},
    **{suffix: _rd for suffix in RD_SUFFIXES},
    **{suffix: _elixir for suffix in ELIXIR_SUFFIXES},
    **{suffix: _writerside for suffix in WRITERSIDE_SUFFIXES},
    **{suffix: _texinfo for suffix in TEXINFO_SUFFIXES},
    **{suffix: _rust for suffix in RUST_SUFFIXES},
    **{suffix: _typescript for suffix in TYPESCRIPT_SUFFIXES},
    **{suffix: _typescript for suffix in JAVASCRIPT_SUFFIXES},  # (JSDoc: jsdoc_cjs.py)
    **{suffix: _go for suffix in GO_SUFFIXES},
    **{suffix: _java for suffix in JAVA_SUFFIXES},
    **{suffix: _kotlin for suffix in KOTLIN_SUFFIXES},  # (Dokka's pages: kdoc.py)
    **{suffix: _c_header for suffix in C_HEADER_SUFFIXES},  # (Doxygen's header pages)
    **{suffix: _c_header for suffix in DOXYGEN_PAGE_SUFFIXES},  # (its `.dox` pages)
    **{suffix: _python for suffix in PYTHON_SUFFIXES},
    **{suffix: _csharp for suffix in CSHARP_SUFFIXES},  # (docfx's pages: csharpdoc.py)
    **{suffix: _swift for suffix in SWIFT_SUFFIXES},  # (DocC's symbol pages: swiftdoc.py)
    **{suffix: _docc for suffix in DOCC_SUFFIXES},
    **{suffix: _php for suffix in PHP_SUFFIXES},  # (phpDocumentor's pages: phpdoc.py)
    **{suffix: _ruby for suffix in RUBY_SUFFIXES},  # (YARD's pages: yard.py)
    **{suffix: _rdoc for suffix in RDOC_SUFFIXES},
    **{suffix: _dart for suffix in DART_SUFFIXES},  # (dartdoc's library pages: dartdoc.py)
    **{suffix: _graphql for suffix in GRAPHQL_SUFFIXES},  # (a schema's reference: graphql/)
    **{suffix: _haskell for suffix in HASKELL_SUFFIXES},  # (Haddock's module pages: haddock.py)
    **{suffix: _proto for suffix in PROTO_SUFFIXES},  # (protoc-gen-doc's pages: protodoc.py)
    **{suffix: _pod for suffix in POD_SUFFIXES},  # (perldoc's and metacpan's pages: pod.py)
    **{suffix: _pod for suffix in PERL_MODULE_SUFFIXES},
    **{suffix: _pod for suffix in PERL_SCRIPT_SUFFIXES},
    **{suffix: _scala for suffix in SCALA_SUFFIXES},  # (Scaladoc's pages: scaladoc.py)
    **{suffix: _solidity for suffix in SOLIDITY_SUFFIXES},  # (forge doc's pages: soldoc.py)
    **{suffix: _man for suffix in MAN_SUFFIXES},  # (manual pages: roff/manpage.py)
}


def converter_for(path: str) -> Callable[[str, str], Converted] | None:
    lower = path.lower()
    if is_rst(lower):  # (`.txt`: a page of a Sphinx project whose conf.py says so)
        return _rst
    if ".docc/" in lower and lower.endswith(".md"):  # (a DocC catalog's article: docc.py)
        return _docc
    for suffix, convert in CONVERTERS.items():
        if lower.endswith(suffix):
            return convert
    folder, _, name = lower.rpartition("/")
    if "." not in name and folder.rpartition("/")[2] in ("bin", "script", "scripts"):
        return _pod  # (a Perl distribution's command, admitted by discover: perl_command.py)
    return None


def convert_source(sf: SourceFile) -> SourceFile:
    """`sf` with its body converted to markdown when its suffix has a converter; the title of
    the file (a manifest's or frontmatter's wins) becomes the page title. `text` stays the
    file's own and `line_map` maps the markdown's lines to it, as after includes, so every line
    number the bundle stores for the page is a line of the file."""
    convert = converter_for(sf.path)
    if convert is None and sf.line_map and sf.body.startswith(DOCC_HEADER):
        convert = _docc  # (a page of a `.docc` folder built on its own: swift_package.resolve)
    if convert is None and sf.path.lower().endswith(MARKDOWN_SUFFIXES) and may_hold(sf.body):
        convert = _myst  # (a MyST page's Sphinx API blocks: myst_rst.py; none: unchanged)
    if convert is None:
        return sf
    # A reST page whose includes were resolved (includes.py) is converted as expanded, and its
    # lines mapped back through both maps.
    token = SOURCE_LINES.set(sf.line_map)
    titles = LINK_TITLES.set(dict(sf.link_titles))
    try:
        done = convert(sf.path, sf.body if sf.line_map or convert is _myst else sf.text)
    finally:
        LINK_TITLES.reset(titles)
        SOURCE_LINES.reset(token)
    if done is None:
        return sf
    line_map = done.line_map or (0,) * (done.text.count("\n") + 1)
    if sf.line_map:
        top = len(sf.line_map) - 1
        line_map = tuple(sf.line_map[min(line, top)] for line in line_map)
    frontmatter = sf.frontmatter
    if done.description and '"description"' not in frontmatter:
        data = json.loads(frontmatter)
        data["description"] = done.description
        frontmatter = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return dataclasses.replace(
        sf,
        frontmatter=frontmatter,
        body=done.text,
        line_map=line_map,
        title=sf.title or done.title,
        anchors=done.anchors,
        api=done.api,
        object_refs=done.refs,
    )
