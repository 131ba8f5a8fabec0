"""Line-preserving preprocessing of MDX / Docusaurus markdown before parsing.

Every function keeps the number of lines unchanged, so markdown-it's line maps still point at the
original source and chunks can report exact source line ranges and keep the original text.
"""

from __future__ import annotations

import json
import re

from docsmcp.sources.formats.markdown import fenced_divs, mdc
from docsmcp.sources.formats.markdown.dialects import ATX
from docsmcp.sources.formats.markdown.fences import fenced_lines

_ESM = re.compile(r"^(import|export)\b")
# `:::kind`, then optionally `[title]` or whitespace and a title (see _admonition). The rest of
# the line is cut with str methods: a lazy `\s+(.*?)\s*$` is quadratic in runs of whitespace.
# Nested containers take more colons (`:::: details` around a `::: tip`, VitePress and
# Docusaurus alike).
_ADMONITION_KIND = re.compile(r"^\s{0,3}:{3,}\s*([A-Za-z][\w-]*)")
# VitePress containers that only group what they hold (`::: code-group`: tabs of code blocks,
# labelled by their fences): no label, as a `:::` closer.
_GROUPING_KINDS = frozenset({"code-group", "tabs", "code-tabs"})  # (VuePress' `code-tabs#shell`)
# vitepress-plugin-tabs: `::: tabs` holds tabs opened by `== label` lines (vitest's docs).
# VuePress' `::: code-tabs` / `::: tabs` open theirs with `@tab pnpm` (`@tab:active`).
_TAB_LINE = re.compile(r"^\s{0,3}(?:==|@tab(?::active)?)[ \t]+(\S.*?)[ \t]*$")
_ADMONITION_CLOSE = re.compile(r"^\s{0,3}:{3,}\s*$")
# The title among a container's directive attributes (`{title="Custom title"}`, `{title=Tip}`).
# Unquoted, it runs to the next attribute or the brace (Ant Design: `{title=Deprecated Notice}`).
_TITLE_ATTRIBUTE = re.compile(
    r"""\btitle=(?:"([^"]*)"|'([^']*)'|([^"'{}]+?)(?=\s+[\w-]+=|\s*\}))"""
)
_MAX_STATEMENT = 200  # lines an import/export statement may span across blank lines


# A JSX (or VitePress Vue) component opening a line: `<Intro>`, `<Sandpack>`, `<Diagram
# name="x" alt="..." />`, `<VPTeamMembers :members="core" />`. A capital first and a lower-case
# letter in the name: `<API_KEY>` and `<T>` are placeholders and types, not tags.
_COMPONENT_LINE = re.compile(r"^[ \t]*<([A-Z][A-Z0-9]*[a-z][A-Za-z0-9]*)(?=[\s/>]|$)", re.MULTILINE)
# An ESM import statement opening a line: `import Tabs from '@theme/Tabs';` (React Native's
# `.md` pages import what they use, several on one line).
_IMPORT_LINE = re.compile(
    r"""^import[ \t]+(?:[\w$]+|\{[^}\n]*\}|\*[ \t]+as[ \t]+[\w$]+)"""
    r"""(?:[ \t]*,[ \t]*\{[^}\n]*\})?[ \t]+from[ \t]+["'][^"'\n]+["'];?""",
    re.MULTILINE,
)
# A line that is one MDX comment and nothing else.
_COMMENT_LINE = re.compile(r"^[ \t]*\{/\*(?:(?!\*/).)*\*/\}[ \t]*$", re.MULTILINE)


def written_as_mdx(lines: list[str]) -> bool:
    """Whether a `.md` file is MDX in fact, as react.dev's are and as Docusaurus 3 reads every
    `.md`: a JSX component opens a line outside code and is closed (`</Name>`, or `/>` on its
    line), a line outside code is an MDX comment (`{/* See HomeContent.js */}`, react.dev's
    index.md) or an `import ... from '...'` statement. Such a file is reduced as MDX
    (readable.py): its components' tags and comments go, their text stays, and its
    `import`/`export` lines go."""
    body = "\n".join(lines)
    # (most markdown: one regex pass each, no fences)
    if (
        _COMPONENT_LINE.search(body) is None
        and _COMMENT_LINE.search(body) is None
        and ("import" not in body or _IMPORT_LINE.search(body) is None)
    ):
        return False
    code = fenced_lines(lines)
    for i, line in enumerate(lines):
        if code[i]:
            continue
        if _COMMENT_LINE.match(line) or (line.startswith("import") and _IMPORT_LINE.match(line)):
            return True
        m = _COMPONENT_LINE.match(line)
        if m is not None and ("/>" in line or f"</{m.group(1)}>" in body):
            return True
    return False


def drop_esm(lines: list[str]) -> list[str]:
    """Blank MDX `import`/`export` statements (they are build-time code, not documentation).
    A statement's own lines are JavaScript, whatever they look like: Nextra's
    `export async function MDXPathPage()` builds a fenced block in a template literal, whose
    `~~~jsx` line read as a fence left the rest of the page "code" (its components unreduced).
    So the fences are found again after each statement is blanked."""
    out = list(lines)
    code = fenced_lines(out)
    i = 0
    while i < len(out):
        if not code[i] and _ESM.match(out[i]):
            # A statement may span lines (`import {\n a,\n} from 'x';`): blank until it closes.
            j = _statement_end(out, i)
            fenced = any(code[i : j + 1])
            for k in range(i, j + 1):
                out[k] = ""
            if fenced:  # a fence-like line was the statement's: the lines after it were misread
                code = fenced_lines(out)
            i = j + 1
            continue
        i += 1
    return out


def _statement_end(lines: list[str], i: int) -> int:
    """The last line of the statement starting at line `i`: where its brackets close. A blank
    line ends an unclosed statement, unless its brackets close within `_MAX_STATEMENT` lines
    (a component defined in the page, `export const Check = () => (` with blank lines in its
    JSX: issue 27, its `);` was the page's description)."""
    depth = 0
    j = i
    first_blank = -1
    while j < len(lines) and j - i < _MAX_STATEMENT:
        line = lines[j]
        depth += line.count("{") + line.count("(") + line.count("[")
        depth -= line.count("}") + line.count(")") + line.count("]")
        if depth <= 0:
            return j
        if first_blank < 0 and j + 1 < len(lines) and not lines[j + 1].strip():
            first_blank = j
        j += 1
    return first_blank if first_blank >= 0 else min(j, len(lines)) - 1


# `title: "x"` / `description: 'x'` inside `export const metadata = {...}`, or
# `export const title = "x"` on its own; template literals without `${` count as strings.
_EXPORT_FIELD = re.compile(
    r"""(?:\bexport\s+const\s+|[{,]\s*)(title|description)\s*[:=]\s*"""
    r"""(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`([^`$]*)`)"""
)


def esm_metadata(lines: list[str]) -> dict[str, str]:
    """`title` and `description` a Next.js-style MDX page exports (`export const title = …`,
    `export const metadata = {title: …, description: …}`): what frontmatter says elsewhere."""
    found: dict[str, str] = {}
    code = fenced_lines(lines)
    statement: list[str] = []
    depth = 0
    for i, line in enumerate(lines):
        if code[i]:
            continue
        if not statement and not line.startswith("export "):
            continue
        statement.append(line)
        depth += line.count("{") - line.count("}")
        if depth > 0 and i + 1 < len(lines) and lines[i + 1].strip() and len(statement) < 200:
            continue
        for m in _EXPORT_FIELD.finditer(" ".join(statement)):
            value = next(g for g in m.groups()[1:] if g is not None)
            value = re.sub(r"\\(.)", r"\1", value).strip()
            if value:
                found.setdefault(m.group(1), value)
        statement, depth = [], 0
    return found


_TAB_SET = re.compile(r"^\s{0,3}:{3,}\s*(code-tabs|tabs)#[\w-]+\s*$")


def _tab_set(line: str) -> tuple[str, str] | None:
    """VuePress' `::: code-tabs#shell` (a tab set and the id its choice is kept under)."""
    m = _TAB_SET.match(line)
    return (m.group(1), "") if m else None


def _admonition(line: str) -> tuple[str, str] | None:
    """(kind, title) of a `:::kind Title`, `:::kind[Title]` or `:::kind{title="Title"}` line,
    else None."""
    m = _ADMONITION_KIND.match(line)
    if m is None:
        return None
    rest = line[m.end() :]
    tail = rest.rstrip()
    if not tail:
        return m.group(1), ""
    if len(tail) >= 2 and tail[0] == "[" and tail[-1] == "]":
        return m.group(1), tail[1:-1].strip()
    if len(tail) >= 2 and tail[0] == "{" and tail[-1] == "}":  # dumi: `:::info{title=Tip}`
        title = _TITLE_ATTRIBUTE.search(tail)
        return m.group(1), next((g for g in title.groups() if g), "").strip() if title else ""
    if rest[0].isspace():
        return m.group(1), tail.strip()
    return None  # e.g. `:::tip!`: not an admonition


def _first_heading(lines: list[str], code: list[bool], i: int) -> int | None:
    """The line of a heading that is the first text after line `i` (blank lines between)."""
    for j in range(i + 1, min(len(lines), i + 3)):
        if lines[j].strip():
            return j if not code[j] and ATX.match(lines[j]) else None
    return None


_MDX_CODE_BLOCK = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*mdx-code-block[ \t]*$")


def mdx_code_blocks(lines: list[str]) -> list[str]:
    """`lines` with Docusaurus' ```` ````mdx-code-block ```` fences unwrapped: their content is
    MDX the page renders (Ionic's framework `<Tabs>`, 70 chunks shown as code), not code. The
    closing fence is the first of the same character and length after it."""
    if not any("mdx-code-block" in line for line in lines):
        return lines
    out = list(lines)
    i = 0
    while i < len(lines):
        m = _MDX_CODE_BLOCK.match(lines[i])
        if m is None:
            i += 1
            continue
        closer = m.group(1)
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == closer), None)
        if end is None:
            i += 1
            continue
        out[i] = out[end] = ""
        i = end + 1
    return out


def admonitions_to_text(lines: list[str], hard_break: bool = True) -> list[str]:
    """Turn Docusaurus `:::tip Title` fences into a label line, so the label stays searchable
    (and the display text reads without `:::`); `hard_break` ends the label's line in the
    paragraph that follows (parse text)."""
    out = list(lines)
    code = fenced_lines(lines)
    tabs = False  # inside `::: tabs`, whose `== label` lines open its tabs
    for i, line in enumerate(lines):
        if tabs and not code[i] and (m := _TAB_LINE.match(line)):
            out[i] = f"{m.group(1)}\\" if hard_break else m.group(1)
            continue
        if code[i] or ":" not in line:
            continue
        if ":::" not in line:
            if line.lstrip().startswith(":"):
                out[i] = mdc.block_line(line, out[i], hard_break)
            continue
        div = fenced_divs.div_label(line)
        if div is not None:  # Pandoc's fenced div (Quarto: `::: {.callout-note}`)
            heading = _first_heading(lines, code, i) if div and ":" not in div else None
            if heading is not None:  # a callout's first heading is its title, no section
                div += ": " + ATX.match(lines[heading]).group(2)  # type: ignore[union-attr]
                out[heading] = ""
            out[i] = f"{div}\\" if div and hard_break else div
            continue
        found = _admonition(line) or _tab_set(line)
        if found and found[0].lower() in _GROUPING_KINDS:
            tabs = found[0].lower() in ("tabs", "code-tabs")
            out[i] = ""
        elif found:
            kind, title = found
            label = kind.capitalize() + (f": {title}" if title else "")
            # A blank line after keeps the label its own paragraph, but we may not add lines;
            # a trailing hard break ("\\") ends the label's line in the same paragraph instead.
            out[i] = f"{label}\\" if hard_break else label
        elif _ADMONITION_CLOSE.match(line):
            out[i] = ""
            tabs = False
    return out


# Docusaurus' `<CodeBlock language="bash" title="shell">` with a template literal (or plain text)
# as its child: a code block of that language on the page (React Native's guides: 66 commands,
# each shown as nothing but its title).
_CODEBLOCK_OPEN = re.compile(r"^([ \t]*)<CodeBlock\b([^<>]*)>[ \t]*$")
_CODEBLOCK_CLOSE = re.compile(r"^[ \t]*</CodeBlock>[ \t]*$")
_LANGUAGE_PROP = re.compile(
    r"""\blanguage=(?:"([\w+#.-]*)"|'([\w+#.-]*)'|\{["']([\w+#.-]*)["']\})"""
)
_MAX_CODEBLOCK = 400  # lines a `<CodeBlock>` may span


def code_block_components(lines: list[str]) -> list[str]:
    """`<CodeBlock>` components written as a fenced block of their language, line for line: the
    tags become the fences, a template literal child its text (`${expr}` kept as written). One
    with other children (JSX, an expression that is no literal) is left to readable.py."""
    if not any("<CodeBlock" in line for line in lines):
        return lines
    out = list(lines)
    code = fenced_lines(lines)
    i = 0
    while i < len(out):
        m = None if code[i] else _CODEBLOCK_OPEN.match(out[i])
        end = i + 1
        limit = min(len(out), i + _MAX_CODEBLOCK)
        while m and end < limit and not _CODEBLOCK_CLOSE.match(out[end]):
            end += 1
        if m is None or end >= limit or any(code[i:end]):
            i += 1
            continue
        body = _code_block_body(lines[i + 1 : end])
        if body is not None:
            indent = m.group(1)
            found = _LANGUAGE_PROP.search(m.group(2))
            lang = next((g for g in found.groups() if g), "") if found else ""
            fence = "~~~" if any("```" in x for x in body) else "```"
            out[i], out[end] = f"{indent}{fence}{lang}", f"{indent}{fence}"
            out[i + 1 : end] = body
        i = end + 1
    return out


def _code_block_body(lines: list[str]) -> list[str] | None:
    """The code a `<CodeBlock>`'s child lines show (same count), else None."""
    text = "\n".join(lines).strip()
    if text.startswith("{`") and text.endswith("`}"):
        first = next(k for k, x in enumerate(lines) if x.strip())
        last = max(k for k, x in enumerate(lines) if x.strip())
        body = list(lines)
        body[first] = body[first].split("{`", 1)[1]
        body[last] = body[last].rsplit("`}", 1)[0]
        inner = "\n".join(body[first : last + 1])
        if "`" in inner.replace("\\`", ""):
            return None  # (not one literal)
        return [x.replace("\\`", "`").replace("\\$", "$") for x in body]
    if "{" in text or "<" in text:
        return None
    return list(lines)


# Astro's `<Fragment set:html={"<pre>…</pre>"} />`: the string is HTML the page shows (Biome's
# lint rule pages put each diagnostic so, 1,674 of them, which left nothing).
_SET_HTML = re.compile(
    r"""^([ \t]*)<[A-Za-z][\w.]*[ \t]+set:html=\{[ \t]*("(?:[^"\\\n]|\\.)*")[ \t]*\}"""
    r"[ \t]*/>[ \t]*$"
)


def set_html_components(lines: list[str]) -> list[str]:
    """A line holding one `<Fragment set:html={"…"} />` (any tag) becomes the HTML its string
    holds (reduced to its text later, readable.py); other lines as they are."""
    if not any("set:html=" in line for line in lines):
        return lines
    out = list(lines)
    code = fenced_lines(lines)
    for i, line in enumerate(lines):
        if code[i] or "set:html=" not in line or not (m := _SET_HTML.match(line)):
            continue
        try:
            html = json.loads(m.group(2))
        except ValueError:
            continue
        out[i] = m.group(1) + html.replace("\n", "<br>")
    return out
