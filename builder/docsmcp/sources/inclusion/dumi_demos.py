"""dumi's demos (Ant Design's generator, umijs/dumi): a line holding only a `<code>` tag that
names a demo file renders, on the site, the demo's title, its description and its source code.

    ## Examples

    <code src="./demo/basic.tsx">Syntactic sugar</code>           <- title as the tag's text
    <code src="./demo/loading.tsx" version="5.21.0">Loading</code>
    <code src="./demo/debug-block.tsx" debug>Debug Block</code>  <- shown in development only

Before, the page showed the titles alone, the code was nowhere, and Ant Design's 1,067
description files (`demo/basic.md`, one `## zh-CN` and one `## en-US` section) were pages of
their own: two thirds of the bundle's pages, a third of its chunks in Chinese, the first hit of
"Button htmlType" a demo's two-line description.

What a tag stands for (includes.py calls `tags` and `render`; every file is read by the include
reader, so only inside the source roots):
- its title: the tag's text, else its `title` attribute, else the description file's
  frontmatter `title` (a string, or one per language: translations.localized), else the
  `title:` of the demo's leading `/** ... */` comment (dumi's demo frontmatter);
- its description: the `description` attribute, else the description file's section in the
  page's language (`## en-US` for `index.en-US.md`, English for a page of no language; the
  whole body when it has no such sections), read as included markdown, else the comment's
  `description:`;
- its code: the demo file (`src` as written, else with a code suffix: `./demo/basic` is
  `./demo/basic.tsx`), without that comment, as a block of its language; a demo longer than
  MAX_DEMO_LINES keeps its first lines and says how many more there are.
A run of demos ending its section (the Examples list) gives each a heading one level under the
section's, as the site's table of contents lists them, with the site's anchor (`demo_id`, which
its pages link to); a demo between paragraphs has its title
as a bold line, so the text after it stays its section's. A `debug` demo (dumi shows it in
development only) and a `simplify` one (Ant Design's previews without code: the semantic DOM
diagrams) stand for nothing. A tag whose file is missing stays as written (the build's include
summary counts it).

A demo's description file is no page (`is_description`): a `.md` file in a `demo`/`demos`
folder (`_demo`: Ant Design's guides) beside a code file of the same name.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from docsmcp_runtime.search.languages import normalise_language

from docsmcp.sources.formats.markdown.dialects import ATX
from docsmcp.sources.formats.markdown.fences import code_block
from docsmcp.sources.frontmatter import split_frontmatter
from docsmcp.sources.layout.translations import localized, preferred_language

TAG_START = "<code"
MAX_DEMO_LINES = 150  # lines of a demo's code shown (Ant Design's: median 44, 90% under 103)
_DEMO_FOLDERS = frozenset({"demo", "demos"})
# What a demo file may be named without its suffix (`src="./demo/debug-color-variant"`).
CODE_SUFFIXES = (".tsx", ".jsx", ".ts", ".js", ".vue")
# A line holding only a `<code ...>Title</code>` or `<code ... />` tag.
_TAG = re.compile(r"^([ \t]*)<code(\s[^<>]*?)\s*(?:/>|>([^<>]*)</code>)[ \t]*$")
_ATTRIBUTE = re.compile(r"""([A-Za-z][\w-]*)(?:=(?:"([^"]*)"|'([^']*)'|\{([^{}]*)\}|(\S+)))?""")
# The leading `/** ... */` comment of a demo file (dumi reads its `title:`/`description:`).
_DOC_COMMENT = re.compile(r"^\s*/\*\*(.*?)\*/[ \t]*\n?", re.DOTALL)
_COMMENT_LINE = re.compile(r"^[ \t]*\*?[ \t]?")
_HTML_COMMENT = re.compile(r"^[ \t]*<!--.*-->[ \t]*$")
# `## en-US`: a description file's section in one language.
_LANGUAGE_HEADING = re.compile(r"^##[ \t]+([A-Za-z]{2}(?:[-_][A-Za-z]{2,4})?)[ \t]*$")


@dataclass(frozen=True)
class Demo:
    """One demo tag: its line (`end`, the span's last line: its own), indent, `src`, the
    attributes that say what it shows, and the heading level its title takes (0: a bold
    line)."""

    end: int
    line: str  # as written (what a missing file leaves)
    indent: str
    src: str
    title: str = ""
    description: str = ""
    hidden: bool = False  # `debug` or `simplify`: nothing on the site's pages
    level: int = 0


def may_hold(body: str) -> bool:
    """Whether `body` may hold a demo tag (a substring test first: most pages hold none)."""
    return TAG_START in body and "src=" in body


def tags(lines: list[str], code: list[bool]) -> dict[int, Demo]:
    """The demo tags of `lines` (outside code), by line."""
    found: dict[int, Demo] = {}
    level = 1  # the level of the section a line is in (1: the page's own)
    for i, line in enumerate(lines):
        if code[i]:
            continue
        if heading := ATX.match(line):
            level = len(heading.group(1))
            continue
        if TAG_START not in line or (m := _TAG.match(line)) is None:
            continue
        attributes = _attributes(m.group(2))
        src = attributes.get("src", "")
        if not src or "://" in src:
            continue
        title = " ".join((m.group(3) or attributes.get("title", "")).split())
        hidden = (
            "debug" in attributes
            or "inline" in attributes
            or attributes.get("simplify", "false") != "false"
        )
        about = attributes.get("description", "")
        found[i] = Demo(i, line, m.group(1), src, title, about, hidden, level + 1)
    for i, demo in found.items():
        if not _ends_run(lines, code, found, i) or demo.level > 6:
            found[i] = replace(demo, level=0)
    return found


def _attributes(text: str) -> dict[str, str]:
    """A tag's attributes by name (a bare one, `debug`, is "true")."""
    out: dict[str, str] = {}
    for m in _ATTRIBUTE.finditer(text):
        value = next((g for g in m.groups()[1:] if g is not None), None)
        out[m.group(1)] = "true" if value is None else value
    return out


def _ends_run(lines: list[str], code: list[bool], demos: dict[int, Demo], i: int) -> bool:
    """Whether what follows demo line `i` (past blank lines and comments) is another demo, a
    heading or the end of the page."""
    for k in range(i + 1, len(lines)):
        line = lines[k]
        if not line.strip() or (not code[k] and _HTML_COMMENT.match(line)):
            continue
        return k in demos or (not code[k] and ATX.match(line) is not None)
    return True


def candidates(page: str, src: str) -> list[str]:
    """Where a demo's file may be, relative to the docs folder: `src` beside the page (or from
    the docs folder for `/x`), then with each code suffix when it has none."""
    base = src.lstrip("/") if src.startswith("/") else posixpath.join(posixpath.dirname(page), src)
    path = posixpath.normpath(base)
    if posixpath.splitext(path)[1].lower() in CODE_SUFFIXES:
        return [path]
    return [path, *(path + suffix for suffix in CODE_SUFFIXES)]


def description_path(demo_path: str) -> str:
    """The description file beside a demo file (`demo/basic.tsx` -> `demo/basic.md`)."""
    return posixpath.splitext(demo_path)[0] + ".md"


def render(
    page: str,
    demo: Demo,
    source: tuple[str, str],
    description: tuple[str, str] | None,
    inline: Callable[[str, list[str]], list[str]],
) -> list[str]:
    """The lines a demo tag stands for: `source` is (the path read, the text) of its file,
    `description` that of its description file if there is one; `inline` reads included
    markdown (a description's own includes) as the file at a path."""
    if demo.hidden:
        return []
    path, text = source
    comment = _DOC_COMMENT.match(text)
    meta = _comment_fields(comment.group(1)) if comment else {}
    title, about = demo.title, [demo.description] if demo.description else []
    if description is not None:
        fm = split_frontmatter(description[1])
        if not title:
            named = fm.data.get("title")
            title = named if isinstance(named, str) else ""
            if isinstance(named, dict):
                title = localized(named, page) or ""
        if not about:
            about = inline(description[0], _in_language(fm.body.split("\n"), page))
    title = " ".join((title or meta.get("title", "")).split())
    about = about or ([meta["description"]] if meta.get("description") else [])
    code_lines = text[comment.end() :] if comment else text
    body = code_lines.rstrip("\n").lstrip("\n").split("\n")
    more = len(body) - MAX_DEMO_LINES
    body = body[:MAX_DEMO_LINES] if more > 0 else body
    suffix = posixpath.splitext(path)[1].lstrip(".")
    language = normalise_language(suffix) or suffix
    indent = demo.indent
    out: list[str] = []
    if title:
        # The site's anchor of a demo (`#form-demo-basic`), which its pages link to.
        anchor = f" {{#{demo_id(page, path)}}}" if demo.level else ""
        heading = f"{'#' * demo.level} {title}{anchor}" if demo.level else f"**{title}**"
        out += [indent + heading, ""]
    about = _trimmed(about)
    if about:
        out += [indent + x if x.strip() else "" for x in about] + [""]
    out += code_block(indent, language, [indent + x if x.strip() else "" for x in body])
    if more > 0:
        out += ["", f"{indent}({more} more lines of this demo in {path}.)"]
    return [*out, ""]


def demo_id(page: str, demo_path: str) -> str:
    """dumi's id of a demo, its anchor on the page: the page's route name (an index page's
    folder), `-demo-`, the demo file's name (`components/form/index.en-US.md` and
    `demo/basic.tsx`: `form-demo-basic`)."""
    stem = posixpath.basename(page).split(".")[0]
    route = posixpath.basename(posixpath.dirname(page)) if stem == "index" else stem
    name = posixpath.splitext(posixpath.basename(demo_path))[0]
    return re.sub(r"[^a-z0-9]+", "-", f"{route}-demo-{name}".lower()).strip("-")


def _comment_fields(comment: str) -> dict[str, str]:
    """The string fields of a demo's `/** title: ... */` comment (YAML once its `*` go)."""
    lines = [_COMMENT_LINE.sub("", x, count=1) for x in comment.split("\n")]
    data = split_frontmatter("---\n" + "\n".join(lines).strip("\n") + "\n---\n").data
    out: dict[str, str] = {}
    for key in ("title", "description"):
        value = data.get(key)
        if isinstance(value, dict):
            value = localized(value, "")
        if isinstance(value, str) and value.strip():
            out[key] = value.strip()
    return out


def _in_language(lines: list[str], page: str) -> list[str]:
    """A description's lines in the page's language: its `## <language>` section, or all of
    it when it has no such sections."""
    sections: dict[str, tuple[int, int]] = {}
    start, name = -1, ""
    for i, line in enumerate(lines):
        if line.startswith("#") and (m := _LANGUAGE_HEADING.match(line)):
            if name:
                sections[name] = (start, i)
            start, name = i + 1, m.group(1)
    if name:
        sections[name] = (start, len(lines))
    chosen = preferred_language(sections, page) if sections else None
    if chosen is None:
        return lines
    first, last = sections[chosen]
    return lines[first:last]


def _trimmed(lines: list[str]) -> list[str]:
    """`lines` without blank lines around them."""
    kept = [i for i, x in enumerate(lines) if x.strip()]
    return lines[kept[0] : kept[-1] + 1] if kept else []


def is_description(docs_dir: Path, path: str) -> bool:
    """Whether the markdown file at `path` is a demo's description (no page): it lies in a
    `demo`/`demos` folder beside a code file of its name."""
    folder, _, name = path.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    if not dot or ext.lower() != "md" or folder.rpartition("/")[2].lstrip("_") not in _DEMO_FOLDERS:
        return False
    return any(os.path.isfile(docs_dir / folder / (stem + s)) for s in CODE_SUFFIXES)


def descriptions(docs_dir: Path, paths: Iterable[str]) -> set[str]:
    """The demo descriptions among `paths` (is_description)."""
    return {p for p in paths if is_description(docs_dir, p)}
