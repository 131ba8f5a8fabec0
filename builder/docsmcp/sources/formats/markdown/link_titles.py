"""The titles Sphinx shows for references written without one: `:ref:`label`` shows the heading
the label marks, `:doc:`path`` the other page's title (MyST: `{ref}`label``, `{doc}`path``).

A page is converted alone (convert.py, on any core), so the titles of other pages come from a
scan of every page before conversion: `defined` reads the labels and the first title of a reST
or MyST page from its text (no docutils: a label line, then the title it stands before);
`resolve` (corpus.py, once every page is read) gives each page the titles of what it names,
`SourceFile.link_titles`, part of its parse-cache key; the converter looks them up by the
role's own text (`LINK_TITLES`). Without this, SQLAlchemy's 1,827 such references read as their
labels (`orm_declarative_mapping`), pytest's and Flask's too. A label or page that is not found
keeps the text it had (the label, its hyphens read as spaces).
"""

from __future__ import annotations

import contextvars
import dataclasses
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence

from docsmcp.model.source import SourceFile
from docsmcp.sources.formats.asciidoc import resource_ids
from docsmcp.sources.formats.markdown import gitbook
from docsmcp.sources.formats.markdown.dialects import ATX
from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.formats.rst.rst_suffixes import is_rst

# The titles of what the page being converted names: `kind:target` (the role's text) -> title.
LINK_TITLES: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar(
    "link_titles", default=None
)

_RST_LABEL = re.compile(r"^\.\.[ \t]+_(`[^`]+`|[^\s:`][^:]*):[ \t]*$")  # not `.. _x: url`
_MYST_LABEL = re.compile(r"^[ ]{0,3}\(([^()]+)\)=[ \t]*$")
_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+[ \t]*$")
# A reference without an explicit title (`Title <target>` shows its title already).
_RST_REF = re.compile(r":(?:std:)?(ref|doc):`([^`<>]+)`")
_EMPTY_LINK = re.compile(r"\[\]\(<?([^()\s<>#:]+\.(?:md|rst|ipynb))>?\)")
_MYST_LINK = re.compile(r"\]\(<?(#?[^()\s<>#:]+)>?\)")  # (no URL, no path with an anchor)
_MYST_REF = re.compile(r"\{(?:std:)?(ref|doc)\}`([^`<>]+)`")
# Inline markup of a title, shown as its text.
_ROLE = re.compile(r"(?::[\w:+.-]+:|\{[\w:+.-]+\})`([^`]*)`")
_LITERAL = re.compile(r"``?([^`]+)``?")
_EMPHASIS = re.compile(r"\*{1,2}([^*]+)\*{1,2}")
_EXPLICIT = re.compile(r"^(.*?)\s*<[^<>]+>$")
_SUFFIXES = (".rst", ".md", ".markdown", ".txt", ".adoc", ".asciidoc")
_ASCIIDOC = (".adoc", ".asciidoc")
# AsciiDoc: the document title, and an `xref:page.adoc[]` without text (Asciidoctor and Antora
# show the page's title).
_ADOC_TITLE = re.compile(r"^=[ \t]+(\S.*?)[ \t]*$")
_ADOC_XREF = re.compile(r"\bxref:([^\s\[\]#]+\.(?:adoc|asciidoc))\[\]")
_MAX_TITLE = 200


def _norm_label(label: str) -> str:
    """A label as Sphinx compares them: case and runs of spaces aside."""
    return " ".join(label.strip("`").split()).lower()


def _plain(title: str) -> str:
    """A title's text as shown: roles, literals and emphasis as their text."""

    def role(m: re.Match[str]) -> str:
        inner = m.group(1)
        explicit = _EXPLICIT.match(inner)
        if explicit:
            return explicit.group(1)
        inner = inner.lstrip("!")
        return inner[1:].rpartition(".")[2] if inner.startswith("~") else inner

    text = _EMPHASIS.sub(r"\1", _LITERAL.sub(r"\1", _ROLE.sub(role, title)))
    return " ".join(text.replace("\\", "").split())[:_MAX_TITLE]


def _rst_title(lines: Sequence[str], i: int) -> tuple[str, int] | None:
    """The section title starting at line `i` and the lines it takes, or None."""
    line = lines[i]
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    over = _ADORNMENT.match(line)
    if over and i + 2 < len(lines):  # overline, title, underline
        under = _ADORNMENT.match(lines[i + 2])
        if under and under.group(1) == over.group(1) and lines[i + 1].strip():
            return lines[i + 1].strip(), 3
    if over or line[:1].isspace():
        return None
    under = _ADORNMENT.match(nxt)
    text = line.strip()
    if under and len(nxt.rstrip()) >= min(len(text), 4):
        return text, 2
    return None


def _rst(lines: Sequence[str]) -> Iterable[tuple[str, str]]:
    pending: list[str] = []
    first = True
    i = 0
    while i < len(lines):
        line = lines[i]
        label = _RST_LABEL.match(line)
        if label:
            pending.append(_norm_label(label.group(1)))
            i += 1
            continue
        if not line.strip():
            i += 1
            continue
        found = _rst_title(lines, i)
        if found is None:
            pending = []  # a label of something else than a section shows no title
            i += 1
            continue
        title, step = _plain(found[0]), found[1]
        if first:
            yield "doc", title
            first = False
        yield from (("label:" + p, title) for p in pending)
        pending = []
        i += step


def _myst(lines: Sequence[str], title: str | None) -> Iterable[tuple[str, str]]:
    pending: list[str] = []
    first = not title
    if title:
        yield "doc", _plain(title)
    code = fenced_lines(list(lines))
    for i, line in enumerate(lines):
        if code[i]:
            continue
        label = _MYST_LABEL.match(line)
        if label:
            pending.append(_norm_label(label.group(1)))
            continue
        heading = ATX.match(line)
        if heading:
            text = _plain(heading.group(2))
            if first and len(heading.group(1)) == 1:
                yield "doc", text
                first = False
            yield from (("label:" + p, text) for p in pending)
        if line.strip():
            pending = []


def myst_anchors(sf: SourceFile) -> tuple[tuple[int, str], ...]:
    """(0-based line, label) of each MyST target, `(label)=`, at the heading it stands before
    (or its own line): the page's anchors (SourceFile.anchors), so `#label` reaches it."""
    if not sf.path.lower().endswith((".md", ".markdown")) or ")=" not in sf.body:
        return ()
    lines = sf.body.split("\n")
    code = fenced_lines(lines)
    found: list[tuple[int, str]] = []
    pending: list[str] = []
    for i, line in enumerate(lines):
        if code[i]:
            continue  # (a target shown in a code block is an example)
        label = _MYST_LABEL.match(line)
        if label:
            pending.append(label.group(1).strip())
        elif line.strip():
            found.extend((i if ATX.match(line) else i - 1, p) for p in pending)
            pending = []
    return tuple(found)


def takes_part(sf: SourceFile) -> bool:
    """Whether `sf` may define or name labels: a reST page, or markdown with MyST targets or
    roles."""
    low = sf.path.lower()
    if is_rst(low) or low.endswith(_ASCIIDOC):
        return True
    return low.endswith((".md", ".markdown")) and (")=" in sf.body or "}`" in sf.body)


def defined(sf: SourceFile) -> tuple[tuple[str, str], ...]:
    """What other pages may name of `sf`: (`label:NAME`, title) for each label before a section,
    and (`doc`, its title); empty for a page that takes no part."""
    if not takes_part(sf):
        return ()
    lines = sf.body.split("\n")
    if sf.path.lower().endswith(_ASCIIDOC):
        title = next((m.group(1) for x in lines[:200] if (m := _ADOC_TITLE.match(x))), None)
        return (("doc", title[:_MAX_TITLE]),) if title else ()
    found = _rst(lines) if is_rst(sf.path) else _myst(lines, sf.title)
    return tuple(dict.fromkeys(found))


def _named(sf: SourceFile) -> list[tuple[str, str]]:
    """(kind, target) of each reference of `sf` without a title, in order, once."""
    if sf.path.lower().endswith(_ASCIIDOC):
        return list(dict.fromkeys(("doc", m) for m in _ADOC_XREF.findall(sf.body)))
    pattern = _RST_REF if is_rst(sf.path) else _MYST_REF
    return list(dict.fromkeys((m[1], m[2].strip()) for m in pattern.finditer(sf.body)))


def names_others(sf: SourceFile) -> bool:
    """Whether `sf` names a label or page without a title: what it shows depends on other
    pages (a rebuild reads it again: known_files.py)."""
    return (takes_part(sf) and bool(_named(sf))) or bool(_gitbook_named(sf))


def _gitbook_named(sf: SourceFile) -> list[tuple[str, str]]:
    """(target, page) of each GitBook content-ref and page-ref card of a markdown page."""
    if not sf.path.lower().endswith((".md", ".markdown")) or "-ref" not in sf.body:
        return []
    return gitbook.named_pages(sf.path, sf.body)


def _gitbook_titles(files: Sequence[SourceFile]) -> dict[str, dict[str, str]]:
    """page -> (`gitbook:TARGET` -> the title of the page it names) for each page holding
    GitBook cards (gitbook.py: a card shows the page's title, where GitBook wrote its file
    name); the titles of only the pages named are read."""
    named = {sf.path: found for sf in files if (found := _gitbook_named(sf))}
    if not named:
        return {}
    wanted = {page for found in named.values() for _, page in found}
    shown = {sf.path: gitbook.page_title(sf.title, sf.body) for sf in files if sf.path in wanted}
    return {
        path: {f"gitbook:{target}": shown[page] for target, page in found if shown.get(page)}
        for path, found in named.items()
    }


def _doc_keys(page: str, target: str) -> Iterable[str]:
    """Pages `target` of a `:doc:` role in `page` may be, without suffix: relative to the page's
    folder, or for `/x` to the Sphinx source folder, which may be any folder above the page."""
    target = target.strip()
    if target.startswith("/"):
        rel = target.lstrip("/")
        yield rel
        folder = posixpath.dirname(page)
        parts = folder.split("/") if folder else []
        for k in range(1, len(parts) + 1):
            yield "/".join(parts[:k]) + "/" + rel
    else:
        yield posixpath.normpath(posixpath.join(posixpath.dirname(page), target))


def _stem(path: str) -> str:
    low = path.lower()
    for suffix in _SUFFIXES:
        if low.endswith(suffix):
            return path[: -len(suffix)]
    return path


def resolve(files: Sequence[SourceFile]) -> list[SourceFile]:
    """`files` (in path order) with `link_titles` set on each page that names labels or pages
    of the corpus without a title. A label two pages define is the first's (path order)."""
    labels: dict[str, str] = {}
    docs: dict[str, str] = {}
    pages: dict[str, str] = {}  # label -> the page defining it (MyST's links name labels)
    for sf in files:
        for key, title in sf.labels:
            if key == "doc":
                docs.setdefault(_stem(sf.path), title)
            else:
                labels.setdefault(key, title)
                pages.setdefault(key, sf.path)
    cards = _gitbook_titles(files)
    if not labels and not docs and not cards:
        return list(files)
    out = []
    for sf in files:
        titles: dict[str, str] = dict(cards.get(sf.path, {}))
        if (
            sf.body
            and (takes_part(sf) or ((pages or docs) and "](" in sf.body))
            and (labels or docs)
        ):
            for kind, target in _named(sf) if takes_part(sf) else ():
                if kind == "ref":
                    title = labels.get("label:" + _norm_label(target))
                elif sf.path.lower().endswith(_ASCIIDOC):
                    page = resource_ids.resource(sf.path, target, "pages")
                    title = docs.get(_stem(page)) if page else None
                else:
                    title = next((docs[k] for k in _doc_keys(sf.path, target) if k in docs), None)
                if title:
                    titles[f"{kind}:{target}"] = title
            if not (is_rst(sf.path) or sf.path.lower().endswith(_ASCIIDOC)) and "](" in sf.body:
                # `[text](labels/line-length)`, `[text](#label)`: MyST's links to labels, as a
                # path to the page and the label as its anchor (Black's 25 links to no page)
                for target in dict.fromkeys(_MYST_LINK.findall(sf.body)):
                    key = "label:" + _norm_label(target.lstrip("#"))
                    if key in pages:
                        titles[f"link:{target}"] = f"/{pages[key]}#{target.lstrip('#')}"
                # `[](file-types.md)`: MyST shows the page's title (Jupyter Book: 19 links)
                for target in (
                    dict.fromkeys(_EMPTY_LINK.findall(sf.body)) if "[](" in sf.body else ()
                ):
                    path = posixpath.normpath(posixpath.join(posixpath.dirname(sf.path), target))
                    if title := docs.get(_stem(path)):
                        titles[f"empty:{target}"] = title
        out.append(dataclasses.replace(sf, link_titles=tuple(titles.items())) if titles else sf)
    return out


def title_of(kind: str, target: str) -> str | None:
    """The title of the label or page a role names in the page being converted, if known."""
    titles = LINK_TITLES.get()
    return titles.get(f"{kind}:{target}") if titles else None
