"""AsciiDoc's `include::target[attributes]` directive, resolved as includes.py resolves every
dialect's (through its reader: inside the source roots, one depth bound, one size bound).

A target is a path relative to the including file, or an Antora resource id
(`partial$success.adoc`, `example$app.rb`, `install:partial$x.adoc`: resource_ids.py); `{name}`
references in it take the document's attributes (its entries above the directive and its
component's `antora.yml`). Its attributes select what is included: `tag=name`, `tags=a;b`
(`!name` leaves a region out, `*`/`**` as Asciidoctor reads them) keep the lines between
`tag::name[]` and `end::name[]` comments, `lines=1..5;10;12..-1` those lines; tag lines never
show. `leveloffset=+1` shifts the included sections. An included AsciiDoc file's own includes
are resolved in turn; any other file is inserted as written (in a listing block, it is the
code). A URL target, or one not found, leaves the line as written (asciidoc.py drops it).
The component's `antora.yml` attributes are written as entries at the top of a page of that
component (mapped to its first line), so `{url-repo}` reads as the site shows it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from docsmcp.common.limits import MAX_FILE_BYTES
from docsmcp.sources.files import Refused, read_file
from docsmcp.sources.formats.asciidoc.asciidoc_inline import substitute
from docsmcp.sources.formats.asciidoc.resource_ids import place, resource
from docsmcp.sources.sites.antora import component, is_asciidoc, non_pages

DIRECTIVE = re.compile(r"^(\\)?include::([^\[\s][^\[]*)\[(.*)\][ \t]*$")
_TAG = re.compile(r"\b(tag|end)::([\w.*-]+)\[\][ \t]*$")
_ENTRY = re.compile(r"^:(\w[\w-]*):[ \t]+(.*?)[ \t]*$")

# (candidates, spec) -> the text of the first candidate found, or None; then the path it was.
Read = Callable[[list[str], str], str | None]


def component_entries(docs_dir: Path, page: str) -> list[str]:
    """The attribute entries of the `antora.yml` of the component holding `page`, after the
    page attributes Antora sets (`page-component-version`, `page-module`, ...)."""
    where = place(page)
    descriptor = component(docs_dir, where.root) if where is not None else None
    if where is None or descriptor is None:
        return []
    given = [
        ("page-component-name", descriptor.name),
        ("page-component-title", descriptor.title),
        ("page-component-version", descriptor.version),
        ("page-component-display-version", descriptor.version),
        ("page-version", descriptor.version),
        ("page-module", where.module),
        ("page-relative-src-path", where.relative),
    ]
    entries = [(k, v) for k, v in given if v] + list(descriptor.attributes)
    return [f":{name}: {value}" for name, value in entries if "\n" not in value]


def expand(
    page: str,
    lines: list[str],
    depth: int,
    max_depth: int,
    read: Read,
    found: Callable[[], str],
    attributes: dict[str, str] | None = None,
) -> tuple[list[str], list[int]]:
    """`lines` of the AsciiDoc file `page` with their include directives resolved, and each
    line's line of `lines` (an included line: its directive's)."""
    attributes = {} if attributes is None else attributes
    out: list[str] = []
    line_map: list[int] = []
    for number, line in enumerate(lines):
        if line.startswith(":") and (e := _ENTRY.match(line)):
            attributes[e.group(1).lower()] = substitute(e.group(2), attributes)
        m = DIRECTIVE.match(line) if line.startswith("include::") else None
        if m is None:
            out.append(line)
            line_map.append(number)
            continue
        pieces = _include(page, m, depth, max_depth, read, found, attributes)
        kept = [line] if pieces is None else pieces
        out.extend(kept)
        line_map.extend([number] * len(kept))
    return out, line_map


def _include(
    page: str,
    m: re.Match[str],
    depth: int,
    max_depth: int,
    read: Read,
    found: Callable[[], str],
    attributes: dict[str, str],
) -> list[str] | None:
    target = substitute(m.group(2).strip(), attributes)
    if "://" in target or "{" in target:
        return None
    if target.startswith("/"):
        path: str | None = target.lstrip("/")
    elif "$" in target or (":" in target and place(page) is not None):
        path = resource(page, target, "")
    else:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(page), target))
    if path is None or path.startswith("../"):
        return None
    text = read([path], target)
    if text is None:
        return None
    included = found()
    options = _options(m.group(3))
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    if "lines" in options:
        lines = _select_lines(lines, options["lines"])
    elif "tag" in options or "tags" in options:
        lines = _select_tags(lines, options.get("tags") or options.get("tag", ""))
    lines = [x for x in lines if not _TAG.search(x)]
    if is_asciidoc(included) and depth + 1 < max_depth:
        lines = expand(included, lines, depth + 1, max_depth, read, found, attributes)[0]
    offset = options.get("leveloffset", "")
    if re.fullmatch(r"[+-]?\d{1,2}", offset) and is_asciidoc(included):
        undo = str(-int(offset)) if offset[0] in "+-" else "0"
        undo = undo if undo.startswith("-") or undo == "0" else "+" + undo
        lines = [f":leveloffset: {offset}", "", *lines, "", f":leveloffset: {undo}"]
    return lines


def _options(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in re.findall(r"([\w-]+)\s*=\s*(\"[^\"]*\"|'[^']*'|[^,]*)", text):
        out[name.lower()] = value.strip().strip("\"'")
    return out


def _select_lines(lines: list[str], spec: str) -> list[str]:
    """`lines=1..5;10;12..-1` (1-based, inclusive; -1: the last)."""
    keep: list[int] = []
    for part in re.split(r"[;,]", spec):
        a, sep, b = part.strip().partition("..")
        if not a.strip().lstrip("-").isdigit():
            continue
        first = int(a)
        last = (int(b) if b.strip().lstrip("-").isdigit() else -1) if sep else first
        last = len(lines) if last < 0 else min(last, len(lines))
        keep.extend(range(max(first, 1), last + 1))
    return [lines[k - 1] for k in dict.fromkeys(keep)] if keep else lines


def _select_tags(lines: list[str], spec: str) -> list[str]:
    """The lines of the tagged regions `spec` names (`a;b`, `!c` left out, `*`, `**`)."""
    names = [x.strip() for x in re.split(r"[;,]", spec) if x.strip()]
    wanted = {x for x in names if not x.startswith("!") and x not in ("*", "**")}
    unwanted = {x[1:] for x in names if x.startswith("!") and x not in ("!*", "!**")}
    everything = "**" in names or (not wanted and bool(unwanted))
    tagged = "*" in names
    out: list[str] = []
    open_tags: list[str] = []
    for line in lines:
        t = _TAG.search(line)
        if t:
            if t.group(1) == "tag":
                open_tags.append(t.group(2))
            elif t.group(2) in open_tags:
                open_tags.remove(t.group(2))
            continue
        if any(x in unwanted for x in open_tags):
            continue
        if everything or (tagged and open_tags) or any(x in wanted for x in open_tags):
            out.append(line)
    return out


_INCLUDE_LINE = re.compile(r"^include::([^\[\s{][^\[{]*)\[", re.MULTILINE)
_HEADER_SKIP = re.compile(r"^(?://.*|:[\w-]+!?:.*|\[.*\]|\s*)$")


def no_pages(docs_dir: Path, roots: Sequence[Path], paths: Iterable[str]) -> set[str]:
    """The AsciiDoc files among `paths` that are no pages: an Antora module's partials,
    examples and nav files (antora.non_pages), and outside Antora a file another page includes
    that has no document title (a book's `chapters/setup.adoc` starts at `==`): it reads in the
    page that includes it, not a second time alone."""
    adoc = [p for p in paths if is_asciidoc(p)]
    out = non_pages(docs_dir, adoc)
    plain = {p for p in adoc if place(p) is None}
    if not plain:
        return out
    texts: dict[str, str] = {}

    def text(path: str) -> str:
        if path not in texts:
            try:
                raw = read_file(docs_dir, path, roots, MAX_FILE_BYTES)
            except (Refused, OSError):
                raw = b""
            texts[path] = raw.decode("utf-8", errors="replace")
        return texts[path]

    included: set[str] = set()
    for page in sorted(plain):
        body = text(page)
        if "include::" not in body:
            continue
        for target in _INCLUDE_LINE.findall(body):
            found = posixpath.normpath(posixpath.join(posixpath.dirname(page), target.strip()))
            if found in plain and found != page:
                included.add(found)
    return out | {p for p in included if not _titled(text(p))}


def _titled(text: str) -> bool:
    """Whether an AsciiDoc file opens with a document title (`= Title`), after comments,
    attribute entries and block attribute lines."""
    comment = False
    for line in text.split("\n")[:200]:
        if line.startswith("////") and not line.strip("/"):
            comment = not comment
        elif not comment and not _HEADER_SKIP.match(line):
            return bool(re.match(r"^[=#][ \t]+\S", line))
    return False
