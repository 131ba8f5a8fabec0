"""A GraphQL schema file as the reference a docs explorer shows (GraphiQL's docs pane,
graphql-markdown, SpectaQL, GitHub's and Shopify's GraphQL reference).

One page per file, `# NAME GraphQL schema`, the schema's description, then a `##` group per
kind in the explorers' order: Queries, Mutations and Subscriptions (the root operation types'
fields, each a `###` section: its signature, description, arguments, and for an operation
taking one input object or returning an object, their field names, as GitHub's reference
lists a mutation's input and return fields), then Objects, Interfaces, Unions, Enums, Input
objects, Scalars and Directives, each definition a `###` section: its SDL header (`type
Repository implements Node & …`, directives applied), description, what implements an
interface, and its fields, arguments, enum values or input fields as a list, each with its type,
default, description and deprecation (`@deprecated(reason:)`). `extend type X` in the file is
merged into `X`; an extension of a type defined in another page is merged into its section
there (packages/graphql_extend.py's line), which names the files extending it, and the extending
page says what it adds and where in its Extensions; an extension of a type no page defines is a
section of its own, titled by the type and said to extend it.

Every section heads a chunk, so a hit is the type or operation that answers. Entries, named as
users name them: `Repository` (kind `object`), `Repository.issues` (`field`), `Query.repository`
(`query`), `Mutation.createIssue` (`mutation`), `IssueState.OPEN` (`enum value`),
`CreateIssueInput.title` (`input field`), `@deprecated` (`directive`); each with an `object:`
anchor and each type named in a signature is a reference to its section (any file's).
Descriptions are markdown (the spec's); the legacy `#` comments above a definition describe it
where it has no description.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from docsmcp.model.api import OBJECT_ANCHOR, Parameter
from docsmcp.model.source import Converted
from docsmcp.sources.formats.graphql.sdl_extend import Fields, split
from docsmcp.sources.formats.graphql.sdl_parse import (
    BUILTIN_SCALARS,
    Definition,
    Field,
    InputValue,
    deprecation,
    parse,
)
from docsmcp.sources.formats.linemap import monotone
from docsmcp.sources.formats.markdown.fences import code_block
from docsmcp.sources.formats.source.doc_entries import source_entry, summary_lines
from docsmcp.sources.formats.source.page_text import PageText

MAX_ENTRIES = 50_000
_ROOTS = (("query", "Queries", "Query"), ("mutation", "Mutations", "Mutation"),
          ("subscription", "Subscriptions", "Subscription"))  # fmt: skip
_GROUPS = (("type", "Objects", "object"), ("interface", "Interfaces", "interface"),
           ("union", "Unions", "union"), ("enum", "Enums", "enum"),
           ("input", "Input objects", "input"), ("scalar", "Scalars", "scalar"),
           ("directive", "Directives", "directive"))  # fmt: skip
# Folder and file names that say nothing of which schema a file is.
_GENERIC = frozenset(
    {"schema", "schemas", "graphql", "gql", "resources", "main", "src", "api", "lib", "app",
     "server", "generated", "__generated__", "sdl", "types"}
)  # fmt: skip
_HEADING = re.compile(r"^(#{1,6})(?=\s)")


def title_for(path: str) -> str:
    """`NAME GraphQL schema`, NAME the file's stem or its nearest folder that names it
    (`reviews-dgs/src/main/resources/schema/schema.graphqls`: reviews-dgs)."""
    parts = path.split("/")
    stem = posixpath.splitext(parts[-1])[0]
    for name in [stem, *reversed(parts[:-1])]:
        if name and name.lower() not in _GENERIC and not name.startswith("."):
            return f"{name} GraphQL schema"
    return "GraphQL schema"


def merged(defs: list[Definition]) -> tuple[Definition | None, list[Definition]]:
    """The schema definition and the named definitions, each name once: `extend` definitions
    joined to their type's (their fields, values, members, interfaces and directives after
    its own); a name only extended here is its first extension. Linear in the definitions
    and their members, however many extensions a type has."""
    schema: Definition | None = None
    by_name: dict[str, int] = {}  # name -> its place in `order`
    order: list[Definition] = []
    seen: list[set[str]] = []  # the member names each of `order` holds
    for d in defs:
        if d.kind == "schema":
            if schema is None:
                schema = d
            else:
                schema.operations.update(d.operations)
                schema.description = schema.description or d.description
            continue
        k = by_name.get(d.name)
        if k is None:
            by_name[d.name] = len(order)
            order.append(d)
            seen.append(_members(d))
            continue
        base = order[k]
        if base.extension and not d.extension:  # (the definition after its extension)
            order[k], d = d, base
            seen[k] = _members(order[k])
        _join(order[k], d, seen[k])
    return schema, order


def _members(d: Definition) -> set[str]:
    # (interfaces with a `&` before, as no member name can start)
    names = {f.name for f in d.fields} | {f.name for f in d.inputs} | set(d.members)
    return names | {"&" + i for i in d.interfaces}


def _join(base: Definition, ext: Definition, seen: set[str]) -> None:
    for f in ext.fields:
        if f.name not in seen:
            seen.add(f.name)
            base.fields.append(f)
    for v in ext.inputs:
        if v.name not in seen:
            seen.add(v.name)
            base.inputs.append(v)
    for m in ext.members:
        if m not in seen:
            seen.add(m)
            base.members.append(m)
    for i in ext.interfaces:
        if "&" + i not in seen:
            seen.add("&" + i)
            base.interfaces.append(i)
    base.directives += ext.directives
    base.description = base.description or ext.description


def _placed(d: Definition, line: int) -> Definition:
    """Another page's extension `d`, its lines its type's here (the line map is this file's)."""

    def at(v: InputValue) -> InputValue:
        return dataclasses.replace(v, line=line)

    d.line = line
    d.fields = [dataclasses.replace(f, line=line, arguments=tuple(at(a) for a in f.arguments))
                for f in d.fields]  # fmt: skip
    d.inputs = [at(v) for v in d.inputs]
    return d


@dataclass
class _Page(PageText):
    cuts: list[int] = field(default_factory=list)  # where each section starts (its heading)

    def heading(self, level: int, line: int, title: str, anchor: str = "") -> int:
        self.blank(line)
        at = len(self.out)
        self.cuts.append(at)
        self.add(line, f"{'#' * level} {_escape(title)}")
        if anchor:
            self.anchors.append((at, OBJECT_ANCHOR + anchor))
        return at

    def ref(self, at: int, names: Iterable[str]) -> None:
        for name in dict.fromkeys(names):
            if name and name not in BUILTIN_SCALARS:
                self.refs.append((at, name))

    def description(self, line: int, text: str | None, level: int) -> list[str]:
        """`text` as its own block, its headings below the section's; the lines written."""
        if not text:
            return []
        lines = [_demote(x, level) for x in text.split("\n")]
        self.lines(line, lines)
        return lines

    def entry(self, name: str, kind: str, category: str, signature: str, doc: str | None,
              at: int, params: tuple[Parameter, ...] = (), returns: str = "") -> None:  # fmt: skip
        if len(self.api) >= MAX_ENTRIES:
            return
        summary = " ".join(summary_lines((doc or "").split("\n")))
        self.api.append(
            source_entry(
                name=name,
                category=category,
                kind=kind,
                signature=signature,
                description=summary,
                parameters=params,
                returns=returns,
                path=self.path,
                line_start=at + 1,
                line_end=len(self.out),
            )  # fmt: skip
        )


def _escape(title: str) -> str:
    return re.sub(r"([_*\\`<>\[\]])", r"\\\1", title)


def _demote(line: str, level: int) -> str:
    m = _HEADING.match(line)
    if m is None:
        return line
    return "#" * min(6, len(m.group(1)) + level) + line[len(m.group(1)) :]


def _flat(line: str) -> str:
    """A description's line inside a list item: a heading is its text in bold."""
    m = _HEADING.match(line)
    return f"**{line[len(m.group(1)) :].strip()}**" if m and line[m.end() :].strip() else line


def _arg(v: InputValue) -> str:
    return f"{v.name}: {v.type}" + (f" = {v.default}" if v.default is not None else "")


def signature(f: Field) -> str:
    """`name(arg: T = d, …): Type`, one line (the registry's and a section's)."""
    args = f"({', '.join(_arg(a) for a in f.arguments)})" if f.arguments else ""
    return f"{f.name}{args}: {f.type}"


def _block_signature(f: Field) -> list[str]:
    """The signature as an operation's section shows it: one line, or an argument a line when
    that is long (as GraphiQL and GitHub's reference wrap it)."""
    one = signature(f)
    if len(one) <= 80 or not f.arguments:
        return [one]
    return [f"{f.name}(", *(f"  {_arg(a)}" for a in f.arguments), f"): {f.type}"]


def header(d: Definition) -> str:
    """A definition's SDL header line (`type Repository implements Node & Starrable @key(…)`)."""
    words = ["extend"] if d.extension else []
    if d.kind == "directive":
        args = f"({', '.join(_arg(a) for a in d.inputs)})" if d.inputs else ""
        words.append(f"directive @{d.name}{args}")
        if d.repeatable:
            words.append("repeatable")
        if d.locations:
            words.append("on " + " | ".join(d.locations))
        return " ".join(words)
    words += [d.kind, d.name]
    if d.interfaces:
        words.append("implements " + " & ".join(d.interfaces))
    words += [x.text for x in d.directives if x.name != "deprecated"]
    if d.kind == "union" and d.members:
        words.append("= " + " | ".join(d.members))
    return " ".join(words)


def _params(args: tuple[InputValue, ...] | list[InputValue]) -> tuple[Parameter, ...]:
    return tuple(
        Parameter(
            a.name,
            a.type,
            a.type.endswith("!") and a.default is None,
            " ".join(summary_lines((a.description or "").split("\n"))),
        )  # fmt: skip
        for a in args
    )


class _Writer:
    def __init__(self, path: str, defs: list[Definition], schema: Definition | None,
                 extended_in: dict[str, list[str]], foreign: Fields) -> None:  # fmt: skip
        self.page = _Page(path)
        self.defs = {d.name: d for d in defs}
        self.foreign = foreign  # other pages' types the operations name: (kind, field names)
        self.extended_in = extended_in  # type name -> the other pages extending it
        self.implementers: dict[str, list[str]] = {}
        for d in defs:
            for i in dict.fromkeys(d.interfaces):
                self.implementers.setdefault(i, []).append(d.name)

    def item(self, line: int, code: str, doc: str | None, reason: str | None, indent: str,
             names: Iterable[str]) -> int:  # fmt: skip
        """A list item `- `code` description`, its further lines indented; its line."""
        page = self.page
        lines = [_flat(x) for x in (doc or "").split("\n")] if doc else []
        head = f"{indent}- `{code}`"
        if reason is not None:
            head += f" *Deprecated: {' '.join(reason.split())}*"
        if lines and lines[0].strip():
            head += " — " + lines.pop(0).strip()
        at = len(page.out)
        page.add(line, head)
        page.ref(at, names)
        for x in lines:
            page.add(line, f"{indent}  {x}" if x.strip() else "")
        return at

    def fields(self, d: Definition, kind: str, label: str) -> None:
        page = self.page
        if not d.fields:
            return
        page.blank(d.line)
        page.add(d.line, f"{label}:")
        page.blank(d.line)
        for f in d.fields:
            # (arguments in the field's code, or a line each where one has a description)
            listed = [a for a in f.arguments if a.description or deprecation(a.directives)]
            code = f"{f.name}: {f.type}" if listed else signature(f) if f.type else f.name
            names = [f.type_name] + ([] if listed else [a.type_name for a in f.arguments])
            at = self.item(f.line, code, f.description, deprecation(f.directives), "", names)
            for a in f.arguments if listed else ():
                self.item(a.line, _arg(a), a.description, deprecation(a.directives), "  ",
                          [a.type_name])  # fmt: skip
            page.anchors.append((at, f"{OBJECT_ANCHOR}{d.name}.{f.name}"))
            if f.type:
                page.entry(f"{d.name}.{f.name}", kind, d.name, signature(f), f.description, at,
                           _params(f.arguments), f.type)  # fmt: skip
            else:
                page.entry(f"{d.name}.{f.name}", kind, d.name, f.name, f.description, at)

    def inputs(self, d: Definition, label: str) -> None:
        page = self.page
        if not d.inputs:
            return
        page.blank(d.line)
        page.add(d.line, f"{label}:")
        page.blank(d.line)
        for v in d.inputs:
            at = self.item(v.line, _arg(v), v.description, deprecation(v.directives), "",
                           [v.type_name])  # fmt: skip
            if d.kind == "input":
                page.anchors.append((at, f"{OBJECT_ANCHOR}{d.name}.{v.name}"))
                page.entry(f"{d.name}.{v.name}", "input field", d.name, _arg(v), v.description,
                           at, (), v.type)  # fmt: skip

    def definition(self, d: Definition, group: str, kind: str) -> None:
        page = self.page
        name = f"@{d.name}" if d.kind == "directive" else d.name
        at = page.heading(3, d.line, name, "" if d.kind == "directive" else d.name)
        page.blank(d.line)
        for text in code_block("", "graphql", [header(d)]):
            page.add(d.line, text)
        page.ref(at + 2, [*d.interfaces, *d.members, *(v.type_name for v in d.inputs
                                                        if d.kind == "directive")])  # fmt: skip
        if d.extension:
            page.blank(d.line)
            page.add(d.line, f"Extends `{d.name}`, defined in another file.")
            page.ref(len(page.out) - 1, [d.name])
        self.also(d)
        reason = deprecation(d.directives)
        if reason is not None:
            page.lines(d.line, [f"> Deprecated: {' '.join(reason.split())}"])
        page.description(d.line, d.description, 3)
        if d.kind == "interface" and self.implementers.get(d.name):
            page.blank(d.line)
            page.add(d.line, "Implemented by: " + ", ".join(
                f"`{x}`" for x in self.implementers[d.name]) + ".")  # fmt: skip
            page.ref(len(page.out) - 1, self.implementers[d.name])
        if d.kind in ("type", "interface"):
            self.fields(d, "field", "Fields")
        elif d.kind == "enum":
            self.fields(d, "enum value", "Values")
        elif d.kind == "input":
            self.inputs(d, "Input fields")
        elif d.kind == "directive":
            self.inputs(d, "Arguments")
        page.entry(name, kind, group, header(d), d.description, at)

    def operation(self, root: Definition, f: Field, group: str, kind: str) -> None:
        """A root type's field as its own section; a mutation's input object's and payload's
        fields named (GitHub's reference: "Input fields for createIssue", "Return fields")."""
        page = self.page
        at = page.heading(3, f.line, f.name, f"{root.name}.{f.name}")
        page.blank(f.line)
        for text in code_block("", "graphql", _block_signature(f)):
            page.add(f.line, text)
        page.ref(at + 2, [f.type_name, *(a.type_name for a in f.arguments)])
        reason = deprecation(f.directives)
        if reason is not None:
            page.lines(f.line, [f"> Deprecated: {' '.join(reason.split())}"])
        page.description(f.line, f.description, 3)
        # (the signature shows the arguments; the list when one says more: its description)
        if any(a.description or deprecation(a.directives) for a in f.arguments):
            page.blank(f.line)
            page.add(f.line, "Arguments:")
            page.blank(f.line)
            for a in f.arguments:
                self.item(a.line, _arg(a), a.description, deprecation(a.directives), "",
                          [a.type_name])  # fmt: skip
        named = [a.type_name for a in f.arguments if self.members(a.type_name) is not None]
        given = self.members(named[0]) if len(named) == 1 else None
        if given is not None and given[0] == "input" and given[1]:
            self.listing(f.line, "Input fields", named[0], given[1])
        ret = self.members(f.type_name)
        if kind == "mutation" and ret is not None and ret[0] == "type" and ret[1]:
            self.listing(f.line, "Return fields", f.type_name, ret[1])
        page.entry(f"{root.name}.{f.name}", kind, group, signature(f), f.description, at,
                   _params(f.arguments), f.type)  # fmt: skip

    def members(self, name: str) -> tuple[str, list[str]] | None:
        """(kind, field names) of the type `name`: this page's, else another page's (the pass's
        line: a schema of one file per type), else None."""
        d = self.defs.get(name)
        if d is not None:
            names = [v.name for v in d.inputs] if d.kind == "input" else [x.name for x in d.fields]
            return d.kind, names
        return self.foreign.get(name)

    def also(self, d: Definition) -> None:
        """The line naming the other pages whose `extend` added to `d` (merged here)."""
        paths = self.extended_in.get(d.name)
        if paths:
            self.page.blank(d.line)
            self.page.add(d.line, "Extended in " + ", ".join(f"`{p}`" for p in paths) + ".")

    def away(self, defs: list[Definition], homes: dict[str, str]) -> None:
        """This page's extensions of types defined on other pages (shown there): a line each
        saying what it adds and where, so a search for the feature still finds its file."""
        if not defs:
            return
        page = self.page
        page.heading(2, defs[0].line, "Extensions")
        for d in defs:
            names = [f.name for f in d.fields] + [v.name for v in d.inputs] + d.members
            adds = ", ".join(f"`{n}`" for n in names) or "directives"
            page.blank(d.line)
            page.add(d.line, f"`extend {d.kind} {d.name}` adds {adds} to `{d.name}`, shown "
                             f"with its other fields in `{homes[d.name]}`.")  # fmt: skip
            page.ref(len(page.out) - 1, [d.name])

    def listing(self, line: int, label: str, type_name: str, names: list[str]) -> None:
        page = self.page
        page.blank(line)
        page.add(line, f"{label} (`{type_name}`): " + ", ".join(f"`{n}`" for n in names) + ".")
        page.ref(len(page.out) - 1, [type_name])


def graphql_to_markdown(path: str, text: str) -> Converted:
    """The reference page of the schema file `text` (see the module's docstring)."""
    text, ext, homes, foreign = split(text.replace("\r\n", "\n"))
    parsed = parse(text)
    away = [d for d in parsed if d.extension and d.name in homes]
    parsed = [d for d in parsed if not (d.extension and d.name in homes)]
    line_of = {d.name: d.line for d in parsed if d.name and not d.extension}
    extended_in: dict[str, list[str]] = {}
    for where, sdl in ext:  # (other pages' extensions of this page's types)
        for d in parse(sdl):
            if d.extension and d.name in line_of:
                parsed.append(_placed(d, line_of[d.name]))
                if where not in extended_in.setdefault(d.name, []):
                    extended_in[d.name].append(where)
    schema, defs = merged(parsed)
    if not defs and not away and (schema is None or not schema.description):
        return Converted("", None, (), (), (), ())
    w = _Writer(path, defs, schema, extended_in, foreign)
    page = w.page
    title = title_for(path)
    page.add(0, f"# {title}")
    if schema is not None:
        page.description(schema.line, schema.description, 1)
    operations = schema.operations if schema is not None and schema.operations else {}
    roots: set[str] = set()
    for op, group, default in _ROOTS:
        name = operations.get(op) or ("" if operations else default)
        root = w.defs.get(name) if name else None
        if root is None or root.kind != "type":
            continue
        roots.add(name)
        at = page.heading(2, root.line, group, name)
        page.description(root.line, root.description, 2)
        w.also(root)
        page.entry(name, "object", group, header(root), root.description, at)
        for f in root.fields:
            w.operation(root, f, group, op)
    for kind, group, entry_kind in _GROUPS:
        shown = [d for d in defs if d.kind == kind and d.name not in roots]
        if not shown:
            continue
        page.heading(2, shown[0].line, group)
        for d in shown:
            w.definition(d, group, entry_kind)
    w.away(away, homes)
    lines = [t for _, t in page.out]
    # Sections are in the explorer's order, not the file's (Queries first), so each section's
    # lines are made monotone on their own: a chunk's and an entry's range is its definition's.
    numbers = [n for n, _ in page.out]
    line_map: list[int] = []
    for a, b in zip([0, *page.cuts], [*page.cuts, len(numbers)], strict=True):
        line_map += monotone(numbers[a:b])
    api = tuple(sorted(page.api, key=lambda e: e.line_start))
    return Converted(
        "\n".join(lines), title, tuple(page.anchors), tuple(line_map), api, tuple(page.refs)
    )
