"""Line-preserving rewriting of markdown dialects before parsing, and where their tabs are.

Every pass keeps the number of lines, so markdown-it's line maps still point at the source file
and chunks report exact line ranges. What changes is the text of some lines, in the display text
(what `get_doc` shows) and the parse text (what is indexed) alike, so no dialect syntax is left
in either:

- mkdocs-material admonitions `!!! kind "Title"`, `??? kind`, `???+ kind` (found by the
  `admon` plugin of mdit-py-plugins, nested ones included): the marker line becomes the label
  `Kind: Title` (as Docusaurus `:::kind Title` does in `mdx.admonitions_to_text`) at the
  marker's indent (one inside a list item stays in it) and the body, indented four columns,
  is dedented, so it parses as the paragraphs and code it is;
- content tabs: pymdownx `=== "Label"` (body indented four columns, dedented) and Docusaurus
  `<Tabs>`/`<TabItem value=… label=…>` (tags blanked; Nextra's `<Tabs.Tab>` labelled by the
  set's `items={[…]}` in order; a JSX tab's body dedented as one): the marker line becomes the
  label (a pymdownx one at the marker's indent), and each tab is returned as a `Tab` with its
  line range and, when its label, `value` or the set's `groupId` names a programming language
  and the set is a choice of languages (tab_languages.py), that language, so the chunker can
  give it a chunk of its own;
- icon shortcodes of mkdocs-material's emoji extension (`:octicons-file-code-16:`,
  `:material-clock-fast:{ .lg }`) are removed: the page shows a picture, no words; emoji
  shortcodes (`:tada:`) become the emoji (emoji.py);
- a template call written over several lines (ESLint's Nunjucks `{{ npm_tabs({` … `}) }}`)
  leaves nothing, as one on a single line does;
- attribute lists (`{ #anchor .class key=value }`, `{: … }`) at the end of a line or on a line
  of their own are removed; abbreviation definitions `*[HTML]: Hyper Text…` become `HTML: Hyper
  Text…`; reference-style links show their URL (reflinks.py);
- MDN's KumaScript macros (`{{jsxref("Array")}}`) read as the link or word MDN renders, its
  definition lists (`- term` / `  - : definition`) as the term's item (kumascript.py);
- GitHub alerts (`> [!NOTE]`, `> [!WARNING]`, ...) become their label (`> Note:`), as GitHub
  shows a titled callout, and so do ExDoc's (`> #### Title {: .info}`: exdoc_admonitions.py);
  the comment idiom `[//]: # 'text'` leaves nothing.

Lines inside fenced code blocks are never touched, but for NestJS's `@@filename`/`@@switch`
markers (nestjs.py); React Router's mode badges (mode_badges.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from docsmcp.model.chunk import Tab
from docsmcp.sources.formats.markdown import (
    docfx,
    docsify,
    emoji,
    kumascript,
    mdc,
    mode_badges,
    nestjs,
    reflinks,
)
from docsmcp.sources.formats.markdown.content_tabs import (
    dedent_line,
    docusaurus_tabs,
    material_tabs,
    relabel,
    width,
)
from docsmcp.sources.formats.markdown.exdoc_admonitions import admonition_line
from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.formats.markdown.hugo import SHORTCODE, block_end, read_line, shortcode_blocks
from docsmcp.sources.formats.markdown.tab_languages import language_sets

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

# Attribute list: `{ #id .class key=value }` or `{: … }`, every word an attribute (`-`: pandoc's
# `.unnumbered`, bookdown's `# Preface {-}`).
_ATTR_WORD = r"""(?:-|[#.][\w:-]+|[\w-]+=(?:"[^"\n]*"|'[^'\n]*'|[^\s}]+))"""
_ATTR_LIST = re.compile(
    r"[ \t]*\{:?[ \t]*" + _ATTR_WORD + r"(?:[ \t]+" + _ATTR_WORD + r")*[ \t]*\}[ \t]*$"
)
_INLINE_ATTR_LIST = re.compile(
    r"(?<=[)\]`])\{:?[ \t]*" + _ATTR_WORD + r"(?:[ \t]+" + _ATTR_WORD + r")*[ \t]*\}"
)
# The id in a list: `#id`, or kramdown's and Writerside's `id="id"` (`## Install {id="install"}`:
# ktor's 947 ids, which its links name, were lost and the heading's slug taken).
_ATTR_ID = re.compile(r"""(?:^|[\s{:])(?:#([\w:-]+)|id=["']?([\w:.-]+))""")
HEADING = re.compile(r"^[ ]{0,3}#{1,6}[ \t]")
# ... with its level's marks and its text (closing `#`s aside).
ATX = re.compile(r"^[ ]{0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
# An explicit heading id ending the heading: `## Install {#install}` (Docusaurus, mdBook, pandoc,
# and attribute lists once rewritten). The parse text keeps it (the heading's anchor for links,
# and part of its chunk id); the display text drops it.
EXPLICIT_ID = re.compile(r"[ \t]*\{#([^{}\s]+)\}\s*$")
# react.dev's heading ids, written as a JSX comment: `## Rendering lists {/*rendering-lists*/}`
# (read as the `{#id}` form, not as words of the title: `rendering-lists-rendering-lists`).
_COMMENT_ID = re.compile(r"[ \t]*\{/\*\s*([\w:.-]+)\s*\*/\}[ \t]*$")
_ESCAPED_ID = re.compile(r"\\(\{#[^{}\s]+\}[ \t]*)$")
# Fumadocs' and Nextra's heading ids, in brackets: `## Revalidate on Focus [#revalidate-on-focus]`
# (SWR's site; read as `{#id}`, not as words: `revalidate-on-focus-revalidate-on-focus`).
_BRACKET_ID = re.compile(r"[ \t]*\[#([\w:.-]+)\][ \t]*$")
# mkdocs-autorefs anchors: `[](){#some-anchor}` on a line of their own.
_AUTOREF_ANCHOR = re.compile(r"^[ \t]*\[\]\(\)\{#[\w:.-]+\}[ \t]*$")
_ATTR_LINE = re.compile(r"^[ \t]*\{:[^}\n]*\}[ \t]*$")
# A line that is one template expression or tag and nothing else: mkdocs-macros' `{{ table }}`,
# ESLint's Nunjucks `{{ button({ type: "primary" }) }}` (one level of braces inside), Jinja/Liquid
# `{% include "x.md" %}`. What it renders is not in the source, and the syntax is nothing a
# reader sees. (mdBook's `{{#include …}}` is includes.py's, and stays when unresolved.)
_TEMPLATE_LINE = re.compile(
    r"^[ \t]*(?:\{\{(?!#)(?:[^{}\n]|\{[^{}\n]*\})*\}\}|\{%[^\n]*%\})[ \t]*$"
)
# The same over several lines: an opening `{{ name(` or `{%` left open, closed by a line ending
# in `}}` / `%}` within MAX_SHORTCODE_LINES (not mdBook's `{{#`, nor Hugo's `{{<` / `{{%`).
_TEMPLATE_OPEN = re.compile(r"^[ \t]*(\{\{(?![#<%])|\{%)")
# mkdocs-material's icons (`:octicons-file-code-16:`, `:material-clock-fast:{ .lg .middle }`),
# rendered as pictures: their name is no word of the page (and no part of a heading's anchor).
_ICON = re.compile(r":(?:material|octicons|fontawesome|simple)-[a-z0-9-]+:(?:\{[^{}\n]*\})?[ \t]*")
# GitBook's blocks: `{% tab title="Linux" %}`, `{% hint style="warning" %}`, `{% code
# title="pom.xml" %}` say what follows (a tab's platform or language, a warning, a file name):
# their line keeps that word as a label, as pymdownx tabs and admonitions do; the closing tags
# and `{% tabs %}` leave nothing, like any other template line.
_GITBOOK_LABEL = re.compile(
    r"""^([ \t]*)\{%[ \t]*(?:(tab|code)\b[^%]*?\btitle=["']([^"'\n]+)["']"""
    r"""|(hint)\b[^%]*?\bstyle=["']([\w-]+)["'])[^%]*%\}[ \t]*$"""
)
# ... and `{% update date="2025-12-18" %}` a changelog entry's date (138 entries undated),
# `{% embed url="…" %}` a link to what it shows (50 embeds left nothing).
_GITBOOK_VALUE = re.compile(
    r"""^([ \t]*)\{%[ \t]*(update|embed)\b[^%]*?\b(?:date|url)=["']([^"'\n]+)["'][^%]*%\}[ \t]*$"""
)
# A Liquid tag within a line, `{% include x.html %}` or `{%- ... -%}` (not Hugo's `{{% %}}`).
_LIQUID_TAG = re.compile(r"(?<!\{)\{%-?[ \t][^{}\n]*?-?%\}(?!\})")
# A link destination written as Jekyll's URL filter: `]({{ '/docs/x/' | relative_url }})`.
_LIQUID_URL = re.compile(
    r"""\]\(\{\{\s*['"]([^'"{}\s]+)['"]\s*\|\s*(?:relative|absolute)_url\s*\}\}(?=\))"""
)
_ABBREVIATION = re.compile(r"^\*\[([^\]\n]+)\]:[ \t]*(.*)$")
# The markdown comment idiom: a link definition no link uses (`[//]: # 'Android'`), shown by no
# renderer (React Native's docs: 132 lines indexed).
_COMMENT_DEFINITION = re.compile(
    r"^[ ]{0,3}\[(?://|comment|_comment|_|#)\]:[ \t]*(?:#|<>)(?:[ \t].*)?$", re.IGNORECASE
)
# Writerside's title of a markdown topic, the comment idiom on its first line: `[//]: # (title:
# Cookies)`. The site shows it as the page's H1 (ktor: 142 pages were titled by their first
# section or file name).
_WRITERSIDE_TITLE = re.compile(r"^\[//\]:[ \t]*#[ \t]*\(title:[ \t]*(.+?)[ \t]*\)[ \t]*$")
# GitHub's alerts: the marker alone on the first line of a blockquote.
_ALERT = re.compile(
    r"^([ \t]*(?:>[ \t]*)+)\[!(note|tip|important|warning|caution)\][ \t]*(.*?)[ \t]*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Rewritten:
    display: list[str]  # what chunks show
    parse: list[str]  # what markdown-it parses
    tabs: tuple[Tab, ...]  # in file order


def _admonitions(lines: list[str]) -> tuple[dict[int, str], list[int]]:
    """mkdocs-material admonitions, nested ones included: (label lines, columns to dedent)."""
    dedent = [0] * len(lines)
    labels: dict[int, str] = {}
    text = "\n".join(lines)  # one substring test, not one per line
    if "!!!" not in text and "???" not in text:
        return labels, dedent
    covered = 0
    for t in _parser().parse(text):
        if t.type != "admonition_open" or t.map is None or t.map[0] < covered:
            continue
        start = t.map[0]
        # The block's extent as Python-Markdown reads it: the plugin ends it at two blank lines
        # in a row, which a code sample inside it may hold, and the rest of the sample then left
        # a fence open that hid every heading after it (pydantic's concepts/fields.md).
        end = covered = _admonition_end(lines, start)
        kind = str(t.meta.get("tag", "")).strip() or "note"
        title = t.content.strip()
        label = kind.capitalize()
        if title and kind.lower() in title.lower():
            label = title  # `??? api "API Documentation"`: the title says it already
        elif title:
            label += f": {title}"
        labels[start] = label
        # The body, one level in: its own admonitions (skipped above: they start before
        # `covered`) are found in it, dedented.
        inner_labels, inner_dedent = _admonitions(
            [dedent_line(x, 4) for x in lines[start + 1 : end]]
        )
        for offset, label in inner_labels.items():
            labels[start + 1 + offset] = label
        for offset, columns in enumerate(inner_dedent):
            dedent[start + 1 + offset] += 4 + columns
    return labels, dedent


def _admonition_end(lines: list[str], start: int) -> int:
    """One past the last line of the admonition opened at `start`: the lines after it that are
    indented four columns more than its marker, with the blank lines between them."""
    need = width(lines[start]) + 4
    end = start + 1
    for i in range(start + 1, len(lines)):
        if not lines[i].strip():
            continue
        if width(lines[i]) < need:
            break
        end = i + 1
    return end


@cache
def _parser() -> MarkdownIt:
    """Made on first use (see blocks.markdown_parser)."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.admon import admon_plugin

    return MarkdownIt("commonmark").use(admon_plugin)


def _may_clean(line: str, defined: dict[str, str]) -> bool:
    """Whether `_inline_cleanup` could change `line` (each of its rewrites needs one of these)."""
    return (
        (bool(defined) and "]" in line)
        or "{" in line
        or "][" in line
        or line.startswith("*[")
        or "[#" in line
        or line.endswith(" [step]")
        or "{:" in line
        or "[!" in line
        or "]:" in line
        or "[[" in line
        or (":" in line and ("]" in line or ":br" in line))  # MDC inline components
        or docsify.may_hold(line)
        or emoji.may_hold(line)
    )


def _inline_cleanup(line: str, defined: dict[str, str]) -> str:
    """Attribute lists, abbreviation definitions, reference links (`defined`: each defined
    label's URL) and GitHub alerts of one line."""
    if "[!" in line and (m := _ALERT.match(line)):
        title = f" {m.group(3)}" if m.group(3) else ""  # `> [!NOTE] Check your work`
        return f"{m.group(1)}{m.group(2).capitalize()}:{title}"
    if "{:" in line and (label := admonition_line(line)) is not None:
        return label  # ExDoc's `> #### Title {: .info}`
    if "]:" in line and _COMMENT_DEFINITION.match(line):
        return f"# {m.group(1)}" if (m := _WRITERSIDE_TITLE.match(line)) else ""
    if line.strip().lower() == "[[toc]]":
        return ""  # (markdown-it-toc's marker: the table of contents, no words of the page)
    if "[#" in line and HEADING.match(line) and (m := _BRACKET_ID.search(line)):
        return line[: m.start()] + f" {{#{m.group(1)}}}"
    if line.endswith(" [step]") and HEADING.match(line):
        return line[: -len(" [step]")]  # Fumadocs' step heading (20): a number, no words
    if "{:" in line and "`" in line:
        # rehype-pretty-code's inline language, `` `true{:js}` `` (Nextra: 40): the reader sees
        # `true`
        line = _INLINE_CODE_LANGUAGE.sub(r"\1`", line)
    if docsify.may_hold(line):
        line = docsify.read_line(line, HEADING.match(line) is not None)
    if ":" in line:
        line = mdc.inline(line)  # (before attribute lists: its props say it is one)
        line = emoji.shortcodes(line) if emoji.may_hold(line) else line
    if "{" in line and "}" in line:
        if "_url" in line and "](" in line:
            # Jekyll's `[text]({{ '/docs/x/' | relative_url }})`: a link to the path it makes
            # (with its spaces, no link to markdown at all)
            line = _LIQUID_URL.sub(r"](\1", line)
        if ("{{<" in line or "{{%" in line) and SHORTCODE.search(line):
            return read_line(line)
        if "{%" in line and (m := _GITBOOK_LABEL.match(line)):
            indent, label = m.group(1), m.group(3) or m.group(5).capitalize()
            return f"{indent}{label}"
        if "{%" in line and (m := _GITBOOK_VALUE.match(line)):
            value = m.group(3)
            return f"{m.group(1)}{value}" if m.group(2) == "update" else f"{m.group(1)}<{value}>"
        if _ATTR_LINE.match(line) or _AUTOREF_ANCHOR.match(line) or _TEMPLATE_LINE.match(line):
            return ""
        if "{%" in line:
            # a Liquid tag within a line (Jekyll: `### With where filter {% include badge.html
            # version="4.0" %}`): what it renders is not in the source, nor part of the heading's
            # anchor; in a code span it is shown
            line = _LIQUID_TAG.sub(
                lambda m: m.group(0) if line.count("`", 0, m.start()) % 2 else "", line
            ).rstrip()
        if "\\{#" in line and HEADING.match(line):
            # MDX's escaped id, `## MDX fragments \{#fragments}` (Rspress requires it, Docusaurus
            # 3 documents it): the id, no backslash left in the title
            line = _ESCAPED_ID.sub(r"\1", line)
        if "{/*" in line and HEADING.match(line) and (m := _COMMENT_ID.search(line)):
            return line[: m.start()] + f" {{#{m.group(1)}}}"
        # The list ends the line: a search on every line holding braces was ~5 % of a build
        # (long table rows of JSON).
        attrs = (
            _ATTR_LIST.search(line)
            if line.rstrip(" \t").endswith("}")
            and not mdc.PROPS_LINE.match(line)
            and not line.lstrip().startswith(":::")  # a fenced div's own (fenced_divs.div_label)
            else None
        )
        if attrs:
            # A heading keeps its id in the `{#id}` form every dialect shares (xref reads it
            # as the heading's anchor, and today's chunk ids include it).
            anchor = _ATTR_ID.search(attrs.group(0)) if HEADING.match(line) else None
            anchor_id = anchor and (anchor.group(1) or anchor.group(2))
            line = line[: attrs.start()] + (f" {{#{anchor_id}}}" if anchor_id else "")
        if "){" in line or "]{" in line or "`{" in line:
            # after a link, an image or a code span within the line (mkdocs-material's
            # buttons: `[Get started](x.md){ .md-button } or …`, MDC's `` `x`{lang="ts"} ``,
            # `:badge[v4.3]{color="info"}`); not in a code span
            line = _INLINE_ATTR_LIST.sub(
                lambda m: m.group(0) if line.count("`", 0, m.start()) % 2 else "", line
            )
    if line.startswith("*[") and (m := _ABBREVIATION.match(line)):
        return f"{m.group(1)}: {m.group(2)}"
    return reflinks.with_urls(line, defined)


def _template_blocks(lines: list[str], code: list[bool]) -> list[str]:
    """Template calls written over several lines (see _TEMPLATE_OPEN) as blank lines."""
    out = list(lines)
    i = 0
    while i < len(lines):
        m = None if code[i] else _TEMPLATE_OPEN.match(lines[i])
        closer = "}}" if m and m.group(1) == "{{" else "%}"
        if m is None or closer in lines[i]:
            i += 1
            continue
        end = block_end(lines, code, i, closer, code_ends=True)
        if end is not None:
            out[i : end + 1] = [""] * (end + 1 - i)
            i = end
        i += 1
    return out


def _without_icons(lines: list[str], code: list[bool]) -> list[str]:
    """Lines without mkdocs-material's icon shortcodes (see _ICON), code and code spans kept."""

    def drop(m: re.Match[str]) -> str:
        return m.group(0) if m.string.count("`", 0, m.start()) % 2 else ""

    return [
        line if code[i] or ":" not in line else _ICON.sub(drop, line)
        for i, line in enumerate(lines)
    ]


_INLINE_CODE_LANGUAGE = re.compile(r"(`[^`\n]+?)\{:[\w-]+\}`")
_NAMED_ANCHOR = re.compile(
    r"""^[ \t]*<a[ \t]+(?:name|id)=["']([\w.:-]+)["'][ \t]*>[ \t]*</a>[ \t]*$"""
)


def _named_anchors(lines: list[str], code: list[bool]) -> list[str]:
    """An `<a name="x"></a>` line right before a heading is that heading's id, `{#x}` (Laravel
    writes one over each of its 3,090 headings: `#method-str-slug`, the site's, not the
    slug); the anchor's line is left blank."""
    out = list(lines)
    for i, line in enumerate(lines[:-1]):
        if code[i] or "<a " not in line or not (m := _NAMED_ANCHOR.match(line)):
            continue
        j = next((k for k in range(i + 1, min(len(lines), i + 3)) if lines[k].strip()), None)
        if j is None or code[j] or not HEADING.match(lines[j]) or "{#" in lines[j]:
            continue
        heading = lines[j].rstrip()
        attrs = _ATTR_LIST.search(heading) if heading.endswith("}") else None
        if attrs and "#" not in attrs.group(0):  # (`{.collection-method}`: one list, the id in)
            heading = f"{heading[: heading.rindex('}')].rstrip()} #{m.group(1)}}}"
        elif attrs is None:
            heading = f"{heading} {{#{m.group(1)}}}"
        out[i], out[j] = "", heading
    return out


def rewrite(lines: list[str]) -> Rewritten:
    """The display and parse lines of a file with its dialect syntax rewritten, and its tabs."""
    text = "\n".join(lines)
    lines = shortcode_blocks(lines, text)
    code = fenced_lines(lines)
    if nestjs.may_hold(text):  # (before the template blocks: its `{{ '{' }}` are text)
        lines = nestjs.read(lines, code)
        code = fenced_lines(lines)
    if mode_badges.may_hold(text):
        lines = mode_badges.read(lines, code)
    if kumascript.may_hold(text):  # (MDN's macros, before template lines leave nothing)
        lines = kumascript.read(lines, code)
    if "{{" in text or "{%" in text:
        lines = _template_blocks(lines, code)
    if docfx.may_hold(text):  # (before `:::` containers are labelled: `:::row:::` is none)
        lines = docfx.read(lines, code)
        code = fenced_lines(lines)  # (a column's fence, dedented, is one now)
    if "\n::" in text or "\n ::" in text:
        lines = mdc.settings_blocks(lines, code)
    if "<a " in text:
        lines = _named_anchors(lines, code)
    if _ICON.search(text):
        lines = _without_icons(lines, code)
    material, dedent_tabs = material_tabs(lines, code, 0)
    groups = max((t.group for t in material), default=-1) + 1
    docusaurus, blank, tab_labels, tab_texts = docusaurus_tabs(lines, code, groups)
    for tab in docusaurus:
        # A JSX tab's body may be indented as deep as its author likes (MDX reads no indented
        # code: Nextra's `<Tabs.Tab>` bodies hold fences at four columns): dedented as one.
        body = [i for i in range(tab.start + 1, tab.end) if i not in blank and lines[i].strip()]
        columns = min((width(lines[i]) for i in body), default=0)
        for i in body if columns and not any(dedent_tabs[i] for i in body) else ():
            dedent_tabs[i] = columns
    out = list(lines)
    for tab in material:
        # The label keeps the marker's indent (less its own tab's): a tab inside a list item
        # stays in it, with its body (pydantic's validators.md; else the body read as code).
        tab_labels[tab.start] = relabel(lines[tab.start], dedent_tabs[tab.start], tab.label)
    for i in range(len(out)) if blank or tab_labels or tab_texts or any(dedent_tabs) else ():
        if i in blank:
            out[i] = ""
        elif i in tab_labels:
            out[i] = tab_labels[i]
        elif i in tab_texts:
            out[i] = tab_texts[i]
        elif dedent_tabs[i]:
            out[i] = dedent_line(out[i], dedent_tabs[i])
    # Admonitions are found after the tab bodies are dedented, so those inside tabs count too.
    labels, dedent_admon = _admonitions(out)
    if out != lines:  # (most files have no tabs: the same lines, the same fences)
        code = fenced_lines(out)
    defined = reflinks.definitions(out, code)
    parse = list(out)
    if not labels and not tab_labels and not any(dedent_admon):
        # Most files: no label or dedent, only the inline cleanup and explicit ids, on the
        # lines that hold what they look for.
        for i, line in enumerate(out):
            if code[i] or not _may_clean(line, defined):
                continue
            parse[i] = out[i] = line = _inline_cleanup(line, defined)
            if "{#" in line and HEADING.match(line):
                out[i] = EXPLICIT_ID.sub("", line)
        tabs = language_sets(sorted([*material, *docusaurus], key=lambda t: t.start), lines, code)
        return Rewritten(out, parse, tabs)
    for i in range(len(out)):
        if i in labels:  # at the marker's indent, as the tab labels are
            out[i] = relabel(out[i], dedent_admon[i], labels[i])
        elif dedent_admon[i]:
            out[i] = dedent_line(out[i], dedent_admon[i])
        if not code[i] and i not in labels and _may_clean(out[i], defined):
            out[i] = _inline_cleanup(out[i], defined)
        parse[i] = out[i]
        # A label ends its line within the paragraph that follows (no lines may be added).
        if i in labels or i in tab_labels:
            parse[i] = out[i] + "\\"
        elif not code[i] and "{#" in out[i] and HEADING.match(out[i]):
            out[i] = EXPLICIT_ID.sub("", out[i])
    tabs = language_sets(sorted([*material, *docusaurus], key=lambda t: t.start), lines, code)
    return Rewritten(out, parse, tabs)
