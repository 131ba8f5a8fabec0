"""A GraphQL type extended in other schema files than its own, shown whole on its own page, as
GraphiQL's docs pane shows one type with all its fields: an after-reading pass
(site_passes.after_reading), which alone sees every page.

A schema split per feature (a DGS or Apollo service's `schema.graphqls` holding `type Query`,
each feature's file `extend type Query { … }`) would otherwise show Query's fields in as many
places as files, and `Query.reviews` on the feature's page as if Query were defined there. The
type's home is the first page (in path order) defining it without `extend`; each other page's
extension of it is appended to the home's text as one marker line (formats/graphql/sdl_page.py
merges it into the type's section and says which files extend it), and the extending page gets
a marker naming the home, where its section becomes a line saying what it adds and where. An
extension of a type no page defines (a federated subgraph's `extend type Query` of the gateway's)
stays a section of its own page.

A schema of one file per type (`Mutation.graphql`, `CreateUserInput.graphql`) names in its
operations input and payload types other pages define: the marker of the page showing the
operations carries those types' field names, so an operation lists its *Input fields* and
*Return fields* as it does when one file holds all. A tree without such an extension or type
is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from docsmcp.model.source import SourceFile
from docsmcp.sources.files import GRAPHQL_SUFFIXES
from docsmcp.sources.formats.graphql.sdl_extend import Fields, encode
from docsmcp.sources.formats.graphql.sdl_parse import Definition, parse
from docsmcp.sources.formats.source import pass_line

MAX_FILES = 20_000  # GraphQL pages read by the pass, at most (a bigger tree is left as read)


def resolve(files: list[SourceFile], docs_dir: Path, roots: Sequence[Path]) -> list[SourceFile]:
    """The GraphQL pages with their types' extensions in other files moved to the types' own
    pages (see the module's docstring)."""
    pages = sorted(
        (f for f in files if f.path.lower().endswith(GRAPHQL_SUFFIXES)), key=lambda f: f.path
    )
    if len(pages) < 2 or len(pages) > MAX_FILES:
        return files
    parsed = {f.path: parse(f.body.replace("\r\n", "\n")) for f in pages}
    home: dict[str, str] = {}  # type name -> the first page defining it
    defined: dict[str, Definition] = {}  # type name -> its definition there
    for path, defs in parsed.items():
        for d in defs:
            if d.name and d.kind != "schema" and not d.extension and d.name not in home:
                home[d.name], defined[d.name] = path, d
    moved: dict[str, list[list[object]]] = {}  # home page -> [extending page, its SDL]
    homes: dict[str, dict[str, str]] = {}  # extending page -> {type name: its home page}
    for f in pages:
        defs = parsed[f.path]
        own = {d.name for d in defs if not d.extension}
        lines = f.body.replace("\r\n", "\n").split("\n")
        for k, d in enumerate(defs):
            where = home.get(d.name)
            if not d.extension or where is None or where == f.path or d.name in own:
                continue
            end = defs[k + 1].line if k + 1 < len(defs) else len(lines)
            moved.setdefault(where, []).append([f.path, "\n".join(lines[d.line : end])])
            homes.setdefault(f.path, {})[d.name] = where
    fields = _named_types(parsed, moved, home, defined)
    if not moved and not fields:
        return files
    out: list[SourceFile] = []
    for f in files:
        if f.path not in moved and f.path not in homes and f.path not in fields:
            out.append(f)
            continue
        line = encode(moved.get(f.path, []), homes.get(f.path, {}), fields.get(f.path))
        out.append(pass_line.appended(f, line))
    return out


def _named_types(
    parsed: dict[str, list[Definition]],
    moved: dict[str, list[list[object]]],
    home: dict[str, str],
    defined: dict[str, Definition],
) -> dict[str, Fields]:
    """Per page showing operations: the input and object types they name (argument or
    result) that another page defines, with their field names (see the module's docstring)."""
    roots = {"Query", "Mutation", "Subscription"}
    for defs in parsed.values():
        for d in defs:
            if d.kind == "schema":
                roots |= set(d.operations.values())
    out: dict[str, Fields] = {}
    for path, defs in parsed.items():
        shown = [d for d in defs if d.name in roots and home.get(d.name, path) == path]
        for _, sdl in moved.get(path, []):
            shown += [d for d in parse(str(sdl)) if d.name in roots]
        own = {d.name for d in defs if not d.extension}
        found: Fields = {}
        for d in shown:
            for f in d.fields:
                for name in (f.type_name, *(a.type_name for a in f.arguments)):
                    t = defined.get(name)
                    if name in own or name in found or t is None or t.kind not in ("input", "type"):
                        continue
                    names = (
                        [v.name for v in t.inputs]
                        if t.kind == "input"
                        else [x.name for x in t.fields]
                    )
                    found[name] = (t.kind, names)
        if found:
            out[path] = found
    return out
