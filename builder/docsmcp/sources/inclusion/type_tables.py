"""Fumadocs' `<auto-type-table path="./props.ts" name="CardProps" />`: at site build time a
TypeScript type's members become a props table (name, type, default, description). Before, the
tag left nothing, or its markup, where the reader sees the table. includes.py calls this for the
tag (on one line or several) and reads the files, only inside the source roots.

What is read, without a TypeScript parser (bounded: MAX_HOPS files per table):
- the type: `name` in the file at `path` (beside the page, or with `cwd` from the site's project
  folder, as include_tags.py finds it); a `type` prop holding the declaration itself
  (`type='export interface X { … }'`); or `type="import('pkg/sub').Name"`;
- in that file, a top-level `interface Name { … }` or `type Name = { … }`: each member's name,
  `?`, type (a method's as `(args) => result`), and its `/** … */` comment (the text, and
  `@defaultValue` / `@default` as the default);
- on the way there, one name for another: `type Name = Mod.Other` with `import type * as Mod
  from 'spec'`, `type Name = Other` or `export type { Name }` with `import type { Other } from
  'spec'`, `export { Name } from 'spec'` and `export * from 'spec'`. A `spec` is a file
  relative to the current one (`.ts`, `.tsx`, `.d.ts`, `index.ts`), or a package of the source
  roots' workspace by its package.json `name` (`fumadocs-core/toc` -> its `src/toc.tsx`, by
  convention: a package's `exports` map, which points at built files, is not read).

Not covered, said in the build summary with the reason (`not_read`): derived types (`Omit<…>`,
`ComponentProps<typeof X>`, intersections, `Pick`, mapped and conditional types), members an
interface inherits (`extends`), generics' arguments, packages outside the source roots.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from docsmcp.common.brackets import closing
from docsmcp.sources.inclusion import include_tags
from docsmcp.sources.inclusion.include_files import read_first_file
from docsmcp.sources.inclusion.include_report import OUTSIDE
from docsmcp.sources.inclusion.mdx_partials import tag_end

TAG_START = "<auto-type-table"
MAX_TAG_LINES = 60  # lines a tag may span (a `type` prop holding a declaration)
MAX_HOPS = 16  # files read for one table (imports and re-exports followed)
MAX_MEMBERS = 200
NO_MODULE = "is in no source root (a workspace package? give its repository with --source-root)"
_PACKAGE_DEPTH = 2  # folders below a source root searched for workspace packages

_PROP = re.compile(r"""\b(path|name|type)=(?:"([^"]*)"|'([^']*)'|\{["'`]([^"'`]*)["'`]\})""")
_IMPORT_TYPE = re.compile(r"""^import\(\s*["']([^"']+)["']\s*\)\.([A-Za-z_$][\w$]*)$""")
_IDENT = re.compile(r"^[A-Za-z_$][\w$]*$")
_SOURCE_SUFFIXES = (".ts", ".tsx", ".d.ts", ".mts", "/index.ts", "/index.tsx", "/index.d.ts")


@dataclass(frozen=True)
class Files:
    """Where a page's tables read files (only inside the source roots, `read_first`), and the
    workspace packages once found."""

    docs_dir: Path
    roots: tuple[Path, ...]
    packages: dict[str, str] = field(default_factory=dict)  # filled on first use


def read_first(files: Files, candidates: list[str]) -> tuple[str, str] | str:
    """(the path read, its text) of the first candidate (docs_dir-relative) that is a file,
    else why none was read (said in the build summary with the table, not as an include)."""
    got = read_first_file(files.docs_dir, files.roots, candidates)
    if got.rel is not None:
        return got.rel, got.text
    if got.reason is not None:
        return got.reason
    return f"{got.outside} {OUTSIDE}" if got.outside is not None else "not found"


@dataclass(frozen=True)
class Tag:
    """An `<auto-type-table>` tag: its last line, indent and props (`cwd` a flag)."""

    end: int
    indent: str
    path: str
    name: str
    type: str
    cwd: bool


@dataclass(frozen=True)
class Member:
    name: str
    optional: bool
    type: str
    default: str
    description: str


def tags(lines: list[str], code: list[bool]) -> dict[int, Tag]:
    """The `<auto-type-table … />` tags of `lines` outside code, by their first line."""
    found: dict[int, Tag] = {}
    i = 0
    while i < len(lines):
        stripped = lines[i].lstrip()
        if code[i] or not stripped.startswith(TAG_START):
            i += 1
            continue
        # (its `/>` outside quoted values: a `type` prop may hold a declaration and comments)
        text = "\n".join(lines[i : i + MAX_TAG_LINES]).lstrip()
        close = tag_end(text)
        if close is None or text[close:].split("\n", 1)[0].strip():
            i += 1
            continue
        end = i + text.count("\n", 0, close)
        attrs = text[len(TAG_START) : close - 2]
        props = {
            m.group(1): next(g for g in m.groups()[1:] if g is not None)
            for m in _PROP.finditer(attrs)
        }
        bare = _PROP.sub(" ", attrs).split()
        indent = lines[i][: len(lines[i]) - len(stripped)]
        found[i] = Tag(
            end, indent, props.get("path", ""), props.get("name", ""), props.get("type", ""),
            "cwd" in bare,
        )  # fmt: skip
        i = end + 1
    return found


def render(page: str, tag: Tag, files: Files) -> tuple[list[str], str]:
    """(the lines a reader sees at the tag, why no table was read or ""): the table of the
    type's members, else one line naming the type, as the page would show it without it."""
    label = tag.name or tag.type.strip().split("\n", 1)[0][:80]
    members, why = _members(page, tag, files)
    if members is None:
        return [
            f"{tag.indent}Type table of `{label}` (generated by Fumadocs' auto-type-table)."
        ], why
    return table(members, tag.indent), ""


def table(members: list[Member], indent: str = "") -> list[str]:
    """Members as the pipe table Fumadocs' TypeTable shows (Prop, Type, Default, Description)."""
    rows = [
        f"{indent}| Prop | Type | Default | Description |",
        f"{indent}| --- | --- | --- | --- |",
    ]
    for m in members:
        cells = [
            _code(m.name + ("?" if m.optional else "")),
            _code(m.type),
            _code(m.default) if m.default else "",
            " ".join(m.description.split()).replace("|", "\\|"),
        ]
        rows.append(f"{indent}| " + " | ".join(cells) + " |")
    return rows


def _code(text: str) -> str:
    """`text` as a code span in a table cell (its pipes escaped, as GFM cells need)."""
    text = " ".join(text.split()).replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}" if fence == "`" else f"{fence} {text} {fence}"


# -- finding the declaration ----------------------------------------------------------------


def _members(page: str, tag: Tag, files: Files) -> tuple[list[Member] | None, str]:
    inline = tag.type.strip()
    if inline and ("{" in inline) and re.match(r"(?:export\s+)?(?:interface|type)\s", inline):
        name = tag.name or re.split(r"[\s<={]+", re.sub(r"^(?:export\s+)?\w+\s+", "", inline))[0]
        found = _declared(inline, name)
        return (found, "") if found is not None else (None, f"`{name}`: no members read")
    name, spec, here = tag.name, "", page
    if inline:
        m = _IMPORT_TYPE.match(inline)
        if m is not None:
            spec, name = m.group(1), m.group(2)
        elif _IDENT.match(inline):
            name = inline
        else:
            return None, f"`{inline[:60]}`: a derived type"
    if not name:
        return None, "no `name`"
    if spec:
        candidates = _module(here, spec, files)
    elif tag.path:
        path = include_tags.Tag("", "cwd" if tag.cwd else "", tag.path)
        candidates = include_tags.candidates(page, path, files.docs_dir)
    else:
        return None, f"`{name}`: no `path`"
    # Files to read, in order: a re-export of every name (`export * from`) adds one per module.
    queue: list[tuple[list[str], str]] = [(candidates, name)]
    first_why = ""
    for _hop in range(MAX_HOPS):
        if not queue:
            break
        candidates, name = queue.pop(0)
        got = read_first(files, candidates)
        if isinstance(got, str):
            first_why = first_why or f"`{name}`: {got}"
            continue
        here, text = got
        found = _declared(text, name)
        if found is not None:
            return found, ""
        steps = _alias(text, name)
        if not steps:
            first_why = first_why or f"`{name}` in {here}: {_why(text, name)}"
        for spec, other in steps:
            module = _module(here, spec, files)
            if module:
                queue.append((module, other))
            else:
                first_why = first_why or f"`{other}`: module `{spec}` {NO_MODULE}"
    return None, first_why or f"`{name}`: over {MAX_HOPS} files of re-exports"


def _why(text: str, name: str) -> str:
    m = re.search(
        rf"^\s*(?:export\s+)?(?:declare\s+)?type\s+{re.escape(name)}\b[^=]*=\s*(\S[^\n]*)",
        text,
        re.M,
    )
    if m:
        return f"a derived type (`{m.group(1)[:60].strip()}`)"
    return "no `interface` or `type … = {` of that name"


def _declared(text: str, name: str) -> list[Member] | None:
    """The members of a top-level `interface name {…}` or `type name = {…}` in `text`."""
    head = re.compile(
        rf"^[ \t]*(?:export\s+)?(?:declare\s+)?(?:interface\s+{re.escape(name)}\b(?:<[^{{]*?>)?"
        rf"(?:\s+extends\s+[^{{]+?)?|type\s+{re.escape(name)}\b(?:<[^=]*?>)?\s*=)\s*\{{",
        re.M,
    )
    m = head.search(text)
    if m is None:
        return None
    body = _braced(text, m.end() - 1)
    return _parse_members(body) if body is not None else None


def _alias(text: str, name: str) -> list[tuple[str, str]]:
    """The (module, name there) that `name` may come from in `text`: the one it is imported
    or re-exported from, else every module `export * from` re-exports."""
    n = re.escape(name)
    imports: dict[str, tuple[str, str]] = {}  # local name -> (module, exported name)
    for m in re.finditer(
        r"""^\s*import\s+(?:type\s+)?\*\s+as\s+(\w+)\s+from\s+["']([^"']+)["']""", text, re.M
    ):
        imports[m.group(1)] = (m.group(2), "*")
    for m in re.finditer(
        r"""^\s*(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s+["']([^"']+)["']""", text, re.M
    ):
        for part in m.group(1).split(","):
            bits = part.replace("type ", " ").split()
            if len(bits) == 1:
                imports[bits[0]] = (m.group(2), bits[0])
            elif len(bits) == 3 and bits[1] == "as":
                imports[bits[2]] = (m.group(2), bits[0])
    alias = re.search(
        rf"^\s*(?:export\s+)?type\s+{n}\s*=\s*([\w$]+)(?:\.([\w$]+))?\s*;?\s*$", text, re.M
    )
    if alias is not None:
        local, member = alias.group(1), alias.group(2)
        if member and imports.get(local, ("", ""))[1] == "*":
            return [(imports[local][0], member)]
        if not member and local in imports and imports[local][1] != "*":
            return [imports[local]]
        return []
    if name in imports and imports[name][1] != "*":
        return [imports[name]]
    stars = re.finditer(r"""^\s*export\s+\*\s+from\s+["']([^"']+)["']""", text, re.M)
    return [(m.group(1), name) for m in stars]


def _braced(text: str, start: int) -> str | None:
    """The text inside the braces opening at `start` (strings and comments skipped)."""
    depth = 0
    pos = start
    while pos < len(text):
        if text.startswith("/*", pos):
            end = text.find("*/", pos + 2)
            pos = len(text) if end < 0 else end + 2
            continue
        if text.startswith("//", pos):
            end = text.find("\n", pos)
            pos = len(text) if end < 0 else end
            continue
        c = text[pos]
        if c in "\"'`":
            end = pos + 1
            while end < len(text) and text[end] != c:
                end += 2 if text[end] == "\\" else 1
            pos = end + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1 : pos]
        pos += 1
    return None


def _parse_members(body: str) -> list[Member]:
    """Members of a type literal's body, each with the `/** … */` comment before it."""
    out: list[Member] = []
    doc = ""
    pos = 0
    while pos < len(body) and len(out) < MAX_MEMBERS:
        rest = body[pos:]
        skipped = len(rest) - len(rest.lstrip(" \t\n;,"))
        if skipped:
            pos += skipped
            continue
        if rest.startswith("/*"):
            end = body.find("*/", pos + 2)
            end = len(body) if end < 0 else end
            if rest.startswith("/**"):
                doc = body[pos + 3 : end]
            pos = end + 2
            continue
        if rest.startswith("//"):
            end = body.find("\n", pos)
            pos = len(body) if end < 0 else end
            continue
        end = _member_end(body, pos)
        out.extend(_member(body[pos:end].strip(), doc))
        doc = ""
        pos = end + 1
    return out


def _member_end(body: str, pos: int) -> int:
    """Where the member starting at `pos` ends: `;`, `,` or a new line at depth 0."""
    depth = 0
    while pos < len(body):
        c = body[pos]
        if c in "\"'`":
            end = pos + 1
            while end < len(body) and body[end] != c:
                end += 2 if body[end] == "\\" else 1
            pos = end + 1
            continue
        if body.startswith("=>", pos):
            pos += 2
            continue
        if c in "{([<":
            depth += 1
        elif c in "})]>":
            depth -= 1
        elif depth <= 0 and (c in ";," or (c == "\n" and not _continues(body, pos))):
            return pos
        pos += 1
    return pos


def _continues(body: str, pos: int) -> bool:
    """Whether the type goes on after the new line at `pos` (`| 'b'`, `& X`, `=> Y`)."""
    before = body[:pos].rstrip()
    after = body[pos:].lstrip()
    return before.endswith(("|", "&", "=>", ":", "?")) or after.startswith(("|", "&", "=>"))


_MEMBER = re.compile(
    r"^(?:readonly\s+)?([A-Za-z_$][\w$]*|'[^']*'|\"[^\"]*\")(\?)?\s*(\(.*|:[\s\S]*)$", re.S
)


def _member(text: str, doc: str) -> list[Member]:
    m = _MEMBER.match(text)
    if m is None:
        return []  # an index signature `[key: string]: T`, a call signature
    name, optional, rest = m.group(1).strip("'\""), bool(m.group(2)), m.group(3).strip()
    if rest.startswith("("):  # a method: `name(args): result`
        close = closing(rest, 0)
        close = len(rest) - 1 if close < 0 else close
        result = rest[close + 1 :].lstrip().removeprefix(":").strip()
        kind = f"{rest[: close + 1]} => {result or 'void'}"
    else:
        kind = rest[1:].strip()
    description, default = _jsdoc(doc)
    return [Member(name, optional, " ".join(kind.split()), default, description)]


def _jsdoc(doc: str) -> tuple[str, str]:
    """(description, default) of a `/** … */` comment's text."""
    lines = [re.sub(r"^\s*\*? ?", "", x) for x in doc.strip().strip("*").split("\n")]
    text, default, tag = [], "", ""
    for line in lines:
        m = re.match(r"^@(\w+)\s*(.*)$", line.strip())
        if m:
            tag = m.group(1)
            if tag in ("default", "defaultValue"):
                default = m.group(2).strip()
            elif tag == "deprecated":
                text.insert(0, "Deprecated." + (f" {m.group(2)}" if m.group(2) else ""))
            continue
        if not tag:
            text.append(line)
        elif tag in ("default", "defaultValue") and line.strip() and not default:
            default = line.strip()
    return " ".join(" ".join(text).split()), default.strip("`")


# -- modules --------------------------------------------------------------------------------


def _module(here: str, spec: str, files: Files) -> list[str]:
    """Where module `spec`, imported by the file at `here` (docs_dir-relative), may be."""
    if spec.startswith("."):
        base = posixpath.normpath(posixpath.join(posixpath.dirname(here), spec))
        base = re.sub(r"\.(?:m?js|jsx)$", "", base)
        return [base + s for s in _SOURCE_SUFFIXES]
    parts = spec.split("/")
    package = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
    sub = spec[len(package) :].lstrip("/")
    if not files.packages:
        files.packages.update(_packages(files))
    folder = files.packages.get(package)
    if folder is None:
        return []
    stems = [f"src/{sub}", sub, f"dist/{sub}"] if sub else ["src/index", "index"]
    return [
        posixpath.normpath(posixpath.join(folder, s)) + x for s in stems for x in _SOURCE_SUFFIXES
    ]


def _packages(files: Files) -> dict[str, str]:
    """Workspace packages by their package.json `name` -> their folder (docs_dir-relative):
    each source root's folders down to _PACKAGE_DEPTH levels (node_modules and dot folders
    aside), read through `read_first`; {"": ""} when there are none (looked for once)."""
    docs_dir = files.docs_dir
    found: dict[str, str] = {"": ""}
    for root in files.roots:
        level = [str(root)]
        for _depth in range(_PACKAGE_DEPTH + 1):
            below: list[str] = []
            for folder in level:
                manifest = os.path.join(folder, "package.json")
                if os.path.isfile(manifest):
                    got = read_first(files, [os.path.relpath(manifest, docs_dir)])
                    if not isinstance(got, str):
                        try:
                            name = json.loads(got[1]).get("name")
                        except (ValueError, AttributeError):
                            name = None
                        if isinstance(name, str):
                            found.setdefault(name, os.path.relpath(folder, docs_dir))
                try:
                    with os.scandir(folder) as entries:
                        below += sorted(
                            e.path for e in entries
                            if e.is_dir(follow_symlinks=False)
                            and not e.name.startswith(".") and e.name != "node_modules"
                        )  # fmt: skip
                except OSError:
                    continue
            level = below
    return found
