"""GitBook's blocks as GitBook renders them (Git Sync: pages in markdown with `{% … %}` blocks).

The generic template rules of dialects.py leave nothing of a line that is only a `{% … %}` tag,
and label `{% tab title %}`, `{% hint style %}` and `{% code title %}` lines (`_GITBOOK_LABEL`);
what they lost or misread on real GitBook sites is read here first, on a page's lines (no line
is added or removed: the page keeps its numbering):

- a heading inside a tab that names the tab's language (`{% tab title="Android" %}` then
  `## Java`, as Adobe's mobile SDK docs write 958 times) is a label of the tab's code, no
  section: each was a section `Java`, `Swift`, `C-3`, `Javascript-2`, and `## Debug logging`
  lost its code to them; `setLogLevel`'s code for every platform is now one section of it.
  Another heading in a tab (a class of an API reference tab: `### TargetOrder`) stays a
  section, within the section holding the tabs (one level below it when written at its level);
  a heading in a hint is its title, a line of the callout;
- `{% content-ref url="x.md" %}[x.md](x.md){% endcontent-ref %}` is a card showing the page's
  title, `{% page-ref page="x.md" %}` (the older form, which left nothing) too: the link shows
  the title (link_titles.py finds it; Feast's docs: 122 cards read "overview.md");
- the API blocks `{% swagger method path summary %}` with `{% swagger-parameter in name type
  required %}` and `{% swagger-response status description %}` show their operation, each
  parameter and each response as GitBook's API block does (only their descriptions were left);
- `{% file src="…" %}` shows the file's name.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence

from docsmcp.sources.formats.markdown.dialects import ATX
from docsmcp.sources.formats.markdown.tab_languages import tab_language

# A line that is one GitBook tag: `{% name attrs %}` (attributes quoted with " or ').
_TAG = re.compile(r"""^[ \t]*\{%[ \t]*([a-z][\w-]*)\b((?:[^%]|%(?!\}))*)%\}[ \t]*$""")
_ATTR = re.compile(r"""([\w-]+)=(?:"([^"\n]*)"|'([^'\n]*)')""")
# The blocks whose headings are read as lines of the block or below the section holding it.
_HEADING_BLOCKS = {"tab": "endtab", "hint": "endhint"}
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")  # (GitBook escapes `C\#`, `\(Swift\)`)
# A content-ref's link, as GitBook writes it: `[x.md](x.md)` (the text is the target's name).
_LINK = re.compile(r"^([ \t]*)\[([^\]\n]*)\]\(<?([^()\s<>]+)>?\)[ \t]*$")
_NAMED = re.compile(r"""\{%[ \t]*(?:content-ref[ \t]+url|page-ref[ \t]+page)=["']([^"'\n]+)["']""")
_METHODS = frozenset({"get", "post", "put", "patch", "delete", "head", "options", "trace"})
_MAX_TITLE = 200

# Words that say a page holds GitBook's blocks (a substring test before any line is read).
MARKERS = ("{% tab", "{% hint", "{% content-ref", "{% page-ref", "{% swagger", "{% file")


def may_hold(text: str) -> bool:
    """Whether `text` may hold a GitBook block this module reads."""
    return "{%" in text and any(m in text for m in MARKERS)


def _attrs(text: str) -> dict[str, str]:
    return {
        m.group(1): m.group(2) if m.group(2) is not None else m.group(3)
        for m in _ATTR.finditer(text)
    }


def named_pages(page: str, body: str) -> list[tuple[str, str]]:
    """(target as written, page path it names from the docs folder) of each content-ref and
    page-ref of the page at `page` (not URLs), once each."""
    found: dict[str, str] = {}
    if "-ref" not in body:
        return []
    for target in _NAMED.findall(body):
        path = target.split("#")[0]
        if "://" in target or not path:
            continue
        found.setdefault(target, posixpath.normpath(posixpath.join(posixpath.dirname(page), path)))
    return list(found.items())


def page_title(title: str | None, body: str) -> str:
    """The title GitBook shows for a page: its front matter's, else its first `# ` heading."""
    if title and title.strip():
        return " ".join(title.split())[:_MAX_TITLE]
    fenced = False
    for line in body.split("\n", 400)[:400]:
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and (m := ATX.match(line)) and len(m.group(1)) == 1:
            return " ".join(m.group(2).split())[:_MAX_TITLE]
    return ""


def _shown_title(titles: Mapping[str, str], target: str, text: str) -> str:
    """The page's title for a card naming `target`, else the text it had (a file name)."""
    return titles.get(f"gitbook:{target}") or text or posixpath.basename(target.split("#")[0])


def _swagger(name: str, attrs: dict[str, str], indent: str) -> str | None:
    """The line GitBook's API block shows for one of its tags, None for a tag it is not."""
    if name == "swagger":
        method = attrs.get("method", "").lower()
        path = attrs.get("path", "")
        head = " ".join(x for x in (method.upper() if method in _METHODS else "", path) if x)
        summary = attrs.get("summary", "")
        return indent + (f"{head}: {summary}" if head and summary else head or summary)
    if name == "swagger-parameter":
        where = attrs.get("in", "")
        kind = attrs.get("type", "")
        required = "required" if attrs.get("required", "").lower() == "true" else ""
        notes = ", ".join(x for x in (kind, f"in {where}" if where else "", required) if x)
        label = f"`{attrs['name']}`" if attrs.get("name") else "Parameter"
        return f"{indent}{label} ({notes})" if notes else indent + label
    if name == "swagger-response":
        status = attrs.get("status", "")
        text = attrs.get("description", "")
        head = f"Response {status}" if status else "Response"
        return f"{indent}{head}: {text}" if text else indent + head
    return None


def _in_block(line: str, level: int, block: str, title: str) -> str:
    """A heading's line inside a tab or hint (see the module docstring); `level`: that of the
    section holding the block (0 when none), `block` its name, `title` the tab's title."""
    m = ATX.match(line)
    if m is None:
        return line
    text = m.group(2) + ("#" if line.rstrip().endswith("\\#") else "")  # (`## C\#`: C#)
    plain = _ESCAPE.sub(r"\1", text)
    if block == "hint" or tab_language(plain) or plain == title:
        return plain  # a label of the block's text, no section
    if len(m.group(1)) > level or level >= 6:
        return line
    return f"{'#' * (level + 1)} {text}"  # within the section holding the tabs


def read(lines: Sequence[str], code: Sequence[bool], titles: Mapping[str, str]) -> list[str]:
    """`lines` with GitBook's blocks read as the module docstring says; `code` marks the lines
    inside fences, `titles` the titles of the pages this page names (link_titles.py's
    `gitbook:TARGET` keys)."""
    out = list(lines)
    inside: list[tuple[str, str]] = []  # (end tag, tab title) of the tabs and hints open here
    ref: str | None = None  # the target of the content-ref open here
    level = 0  # the level of the last heading outside the blocks
    for i, line in enumerate(lines):
        if code[i]:
            continue
        if "{%" in line and (m := _TAG.match(line)):
            name, attrs = m.group(1), _attrs(m.group(2))
            indent = line[: len(line) - len(line.lstrip())]
            if name in _HEADING_BLOCKS:
                title = _ESCAPE.sub(r"\1", attrs.get("title", ""))
                inside.append((_HEADING_BLOCKS[name], title))
                if title and "\\" in attrs.get("title", ""):
                    out[i] = indent + title  # (its label, as dialects.py's, unescaped)
            elif inside and name == inside[-1][0]:
                inside.pop()
            elif name == "content-ref" and attrs.get("url"):
                ref = attrs["url"]
                out[i] = ""
            elif name == "endcontent-ref":
                ref = None
                out[i] = ""
            elif name == "page-ref" and attrs.get("page"):
                target = attrs["page"]
                out[i] = f"{indent}[{_shown_title(titles, target, '')}]({target})"
            elif name == "file" and attrs.get("src"):
                out[i] = indent + posixpath.basename(attrs["src"])
            elif name.startswith("swagger") and (shown := _swagger(name, attrs, indent)):
                out[i] = shown
            continue
        if ref is not None and "](" in line and (m := _LINK.match(line)):
            text = m.group(2)
            if text == posixpath.basename(m.group(3)) or text == m.group(3):
                text = _shown_title(titles, ref, text)  # (GitBook writes the file's name)
            out[i] = f"{m.group(1)}[{text}]({m.group(3)})"
        elif "#" in line and (m := ATX.match(line)):
            if inside:
                block = "hint" if any(end == "endhint" for end, _ in inside) else "tab"
                out[i] = _in_block(line, level, block, inside[-1][1])
            else:
                level = len(m.group(1))
    return out
