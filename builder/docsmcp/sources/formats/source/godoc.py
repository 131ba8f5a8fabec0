"""A Go package read as the page pkg.go.dev shows for it, as markdown with API entries.

go_source.py gathers a package's files into the text of its page file (a header naming the
package's import path and the module's other packages, then each file after a marker line);
this converter parses each file (godoc_parse.py) and writes, in pkg.go.dev's order:
- `# IMPORT/PATH` and the package comment (its headings `##`), package examples;
- `## Index`: a line per exported identifier, linking to its section;
- `## Constants`, `## Variables`: the groups not of one of the package's types;
- `## Functions`: `### func Name {#Name}`, declaration, doc, examples;
- `## Types`: `### type T {#T}`, then the constants and variables of type T, the functions
  returning a T (`NewRouter`), and T's methods `#### Mux.Route {#Mux.Route}`: a method's
  heading is its name as Go code calls it, pkg.go.dev's anchor (the declaration follows it),
  so a search for `Mux.Route` meets it whole: headed `func (mx *Mux) Route`, `Mux.Routes`
  ranked above it (the words of both headings are the same once stemmed).
Each heading carries pkg.go.dev's anchor as its id, so `#Mux.Route` links resolve and chunk ids
end in it. Functions, types and methods are sorted by name, constants and variables kept in
file order, as go/doc does. Every exported func, method, type, const and var is an API entry
named `pkg.Name` / `pkg.Type.Method` (the runtime finds `Type.Method` too).

Examples are `Example*` functions of the package's `_test.go` files, shown under what their
name documents (`ExampleMux_Route_sub`: Mux.Route, suffix `sub`), code then `// Output:`.

A struct's exported fields are entries too (`cobra.Command.Use`, godoc_fields.py): its lines
of the declaration, as pkg.go.dev's `#Command.Use` anchor points into it.

What is left out, as go/doc leaves it: unexported names (struct fields and interface methods
too, with pkg.go.dev's `// contains filtered or unexported fields`), methods of unexported
types, declarations of generated files (`// Code generated ... DO NOT EDIT.`) without a doc
comment; a name declared in several files under build constraints (`command_win.go`,
`command_notwin.go`) is shown once, from the file without a constraint, else one for Linux,
else the first by name.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from docsmcp.model.api import ApiEntry, Example, Parameter
from docsmcp.model.api_fields import (
    MAX_DESCRIPTION_CHARS,
    MAX_EXAMPLE_CHARS,
    MAX_EXAMPLES,
    MAX_RETURNS_CHARS,
    MAX_SIGNATURE_CHARS,
)
from docsmcp.model.source import Converted
from docsmcp.model.text import truncate
from docsmcp.sources.formats.markdown.fences import code_block
from docsmcp.sources.formats.source import godoc_comment
from docsmcp.sources.formats.source.godoc_fields import struct_fields
from docsmcp.sources.formats.source.godoc_files import GoExample, GoSource, rank, split
from docsmcp.sources.formats.source.godoc_files import examples as find_examples
from docsmcp.sources.formats.source.godoc_parse import Decl, default_name, exported

MAX_ENTRIES = 50_000  # API entries of one package, at most (stripe-go's root package: 21,789)
# Standard packages a doc link may name without the file importing them (`[io.Reader]`).
STD = (
    "bufio bytes context errors flag fmt io log math os path reflect regexp sort strconv "
    "strings sync syscall testing time unicode net/http net/url encoding/json encoding/xml "
    "io/fs os/exec path/filepath text/template html/template net crypto/tls database/sql "
    "log/slog sync/atomic unicode/utf8 encoding/base64 mime/multipart net/http/httptest"
).split()
_STD = {p.rsplit("/", 1)[-1]: p for p in STD}


@dataclass
class _Item:
    decl: Decl
    source: GoSource
    examples: list[GoExample] = field(default_factory=list)

    @property
    def line(self) -> int:
        return self.source.offset + self.decl.line

    @property
    def name(self) -> str:
        return self.decl.names[0]

    @property
    def first(self) -> int:
        """The line of the gathered text where its doc comment starts (else its own)."""
        return self.line - (self.decl.doc.count("\n") + 1 if self.decl.doc else 0)


@dataclass
class _Type:
    item: _Item
    values: list[_Item] = field(default_factory=list)
    funcs: list[_Item] = field(default_factory=list)
    methods: list[_Item] = field(default_factory=list)


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.sources: list[int] = []
        self.anchors: list[tuple[int, str]] = []

    def add(self, line: int, text: str) -> None:
        self.lines.append(text)
        self.sources.append(line)

    def blank(self) -> None:
        if self.lines and self.lines[-1]:
            self.add(self.sources[-1], "")

    def block(self, rendered: list[tuple[int, str]]) -> None:
        for n, text in rendered:
            self.add(n, text)


def go_to_markdown(path: str, text: str) -> Converted:
    """The pkg.go.dev page of the package gathered in `text` (see the module's docstring)."""
    import_path, local, sources = split(text)
    files = [s for s in sources if not s.test]
    if not files:
        return Converted("", None, (), (), ())
    package = files[0].file.package
    main = next((s for s in files if s.file.doc), files[0])
    doc_source = main
    seen: set[tuple[str, str, str]] = set()
    items: list[_Item] = []
    for s in sorted(files, key=rank):
        for d in s.file.decls:
            key = (d.kind, d.receiver, ",".join(d.names))
            if key in seen:
                continue
            seen.add(key)
            if not exported(d.names[0]) or (d.receiver and not exported(d.receiver)):
                continue
            if s.file.generated and not d.doc:
                continue
            items.append(_Item(d, s))
    examples = find_examples(sources, package)
    types = {i.name: _Type(i) for i in items if i.decl.kind == "type"}
    consts: list[_Item] = []
    funcs: list[_Item] = []
    for i in sorted(items, key=lambda i: (i.source.name, i.decl.line)):
        d = i.decl
        if d.kind in ("const", "var"):
            if d.type_name in types:
                types[d.type_name].values.append(i)
            else:
                consts.append(i)
        elif d.kind == "method":
            if d.receiver in types:
                types[d.receiver].methods.append(i)
        elif d.kind == "func":
            owner = _constructs(d, types)
            (types[owner].funcs if owner else funcs).append(i)
    for i in items:
        key = f"{i.decl.receiver}.{i.name}" if i.decl.receiver else i.name
        if i.decl.kind != "const" and i.decl.kind != "var":
            i.examples = examples.get(key, [])
    if package == "main":  # a command: pkg.go.dev shows its documentation alone
        types, consts, funcs = {}, [], []
    page = _Page(path, import_path, package, local, doc_source, types, consts, funcs)
    page.write(examples.get("", []))
    if not page.has_text:
        return Converted("", None, (), (), ())
    w = page.w
    return Converted(
        "\n".join(w.lines),
        import_path or package,
        tuple(w.anchors),
        tuple(w.sources),
        tuple(page.api),
    )


def _constructs(d: Decl, types: dict[str, _Type]) -> str:
    """The type a function returns, which go/doc lists it under (`func NewRouter() *Mux`)."""
    results = d.results.strip()
    if results.startswith("("):
        results = results[1:-1]
    found = []
    for part in results.split(","):
        words = part.replace("*", " ").replace("[]", " [] ").split()
        if words and words[-1] in types and "[]" not in words:
            found.append(words[-1])
    return found[0] if len(set(found)) == 1 else ""


class _Page:
    def __init__(
        self,
        path: str,
        import_path: str,
        package: str,
        local: dict[str, str],
        doc_source: GoSource,
        types: dict[str, _Type],
        consts: list[_Item],
        funcs: list[_Item],
    ) -> None:
        self.path = path
        self.import_path = import_path
        self.package = package
        self.local = local
        self.doc_source = doc_source
        self.types = dict(sorted(types.items()))
        self.values = [i for i in consts if i.decl.kind == "const"]
        self.vars = [i for i in consts if i.decl.kind == "var"]
        self.funcs = sorted(funcs, key=lambda i: i.name)
        for t in self.types.values():
            t.funcs.sort(key=lambda i: i.name)
            t.methods.sort(key=lambda i: i.name)
        self.w = _Writer()
        self.api: list[ApiEntry] = []
        self.has_text = False
        self.names = self._names()

    def _names(self) -> set[str]:
        names: set[str] = set()
        for t in self.types.values():
            names.add(t.item.name)
            for i in t.values + t.funcs:
                names.update(i.decl.names)
            names.update(f"{t.item.name}.{m.name}" for m in t.methods)
        for i in self.values + self.vars + self.funcs:
            names.update(i.decl.names)
        return names

    # --- links ---------------------------------------------------------------------------
    def resolver(self, source: GoSource) -> godoc_comment.Resolver:
        imports = dict(source.file.imports)

        def resolve(name: str) -> str | None:
            name = name.lstrip("*")
            if name in self.names:
                return f"#{name}"
            head, _, tail = name.partition(".")
            if head in self.types and tail and "." not in tail:
                return f"#{head}"  # a field of T: T's section
            if head == self.package and tail in self.names:
                return f"#{tail}"  # (`[chi.URLParam]` in chi's own doc)
            # `[encoding/json.Decoder.Decode]`: the path ends at the last slash's first dot.
            folder, slash, last = name.rpartition("/")
            element, _, ident = last.partition(".")
            pkg = f"{folder}{slash}{element}"
            target = imports.get(pkg) or (pkg if "/" in pkg else None)
            if target is None:
                target = self._local_by_name(pkg) or _STD.get(pkg)
            if target is None:
                return None
            anchor = f"#{ident}" if ident else ""
            page = self.local.get(target)
            if page is not None:
                here = posixpath.dirname(self.path)
                return posixpath.relpath(page, here or ".") + anchor
            return f"https://pkg.go.dev/{target}{anchor}"

        return resolve

    def _local_by_name(self, name: str) -> str | None:
        for path in self.local:
            if default_name(path) == name:
                return path
        return None

    # --- writing -------------------------------------------------------------------------
    def doc(
        self, text: str, source: GoSource, line: int, level: int | None, at: int | None = None
    ) -> None:
        """The doc comment above `line` of `source`, each line given its own line, or `at`."""
        if not text:
            return
        self.w.blank()
        first = source.offset + line - text.count("\n") - 1
        rendered = godoc_comment.render(text, first, self.resolver(source), level)
        self.w.block([(n if at is None else at, x) for n, x in rendered])
        self.w.blank()

    def heading(self, level: int, line: int, title: str, anchor: str) -> int:
        """Writes a heading with pkg.go.dev's anchor as its id; gives its line."""
        self.w.blank()
        self.w.add(line, f"{'#' * level} {title} {{#{anchor}}}")
        self.w.blank()
        return len(self.w.lines) - 2

    def write(self, package_examples: list[GoExample]) -> None:
        w = self.w
        main = self.doc_source
        title = self.import_path or self.package
        # (the package's name as the heading's id: chunk ids read `doc.go#cobra/pkg-types/...`)
        # Line map: a section's heading is the first line of its doc comment, the rest of it
        # the declaration's line, so its range runs from the comment to the declaration (an
        # example, from a test file, is shown at the line of what it documents).
        clause = main.offset + main.file.package_line
        doc = main.file.doc
        w.add(clause - (doc.count("\n") + 1 if doc else 0), f"# {title} {{#{self.package}}}")
        w.anchors.append((0, "pkg-overview"))
        self.doc(doc, main, main.file.package_line, 2)
        self.has_text = bool(doc)
        self.examples(package_examples, 2, "", clause)
        entries = self.types or self.values or self.vars or self.funcs
        if not entries:
            return
        self.has_text = True
        self.index()
        for kind, items in (("Constants", self.values), ("Variables", self.vars)):
            if items:
                self.heading(2, items[0].first, kind, f"pkg-{kind.lower()}")
                for i in items:
                    self.value(i, 3)
        if self.funcs:
            self.heading(2, self.funcs[0].first, "Functions", "pkg-functions")
            for i in self.funcs:
                self.func(i, 3)
        if self.types:
            first = next(iter(self.types.values()))
            self.heading(2, first.item.first, "Types", "pkg-types")
            for t in self.types.values():
                self.type(t)

    def index(self) -> None:
        w = self.w
        main = self.doc_source
        line = main.offset + main.file.package_line  # (the Index is the package's)
        self.heading(2, line, "Index", "pkg-index")
        for i in self.values + self.vars:
            w.add(line, f"- [{i.decl.kind} {', '.join(i.decl.names[:4])}](#{i.decl.names[0]})")
        for i in self.funcs:
            w.add(line, f"- [{_short(i.decl)}](#{i.name})")
        for t in self.types.values():
            w.add(line, f"- [type {t.item.name}](#{t.item.name})")
            for i in t.funcs:
                w.add(line, f"  - [{_short(i.decl)}](#{i.name})")
            for i in t.methods:
                w.add(line, f"  - [{_short(i.decl)}](#{t.item.name}.{i.name})")

    def code(self, line: int, code: str) -> int:
        """Writes `code` as a block; gives the index of its first line."""
        self.w.blank()
        first = len(self.w.lines) + 1
        for text in code_block("", "go", code.split("\n")):
            self.w.add(line, text)
        self.w.blank()
        return first

    def value(self, i: _Item, level: int) -> None:
        d = i.decl
        names = ", ".join(d.names[:3]) + (", …" if len(d.names) > 3 else "")
        start = self.heading(level, i.first, f"{d.kind} {names}", d.names[0])
        for extra in d.names[1:]:
            self.w.anchors.append((start, extra))
        self.code(i.line, d.code)
        self.doc(d.doc, i.source, d.line, None, i.line)
        self.entries(i, start, [(n, n) for n in d.names])

    def func(self, i: _Item, level: int, receiver: str = "") -> None:
        d = i.decl
        anchor = f"{receiver}.{i.name}" if receiver else i.name
        start = self.heading(level, i.first, anchor if receiver else _short(d, full=False), anchor)
        self.code(i.line, d.code)
        self.doc(d.doc, i.source, d.line, None, i.line)
        self.examples(i.examples, level + 1, anchor, i.line)
        self.entries(i, start, [(anchor, anchor)])

    def type(self, t: _Type) -> None:
        i = t.item
        start = self.heading(3, i.first, f"type {i.name}", i.name)
        at = self.code(i.line, i.decl.code)
        self.doc(i.decl.doc, i.source, i.decl.line, None, i.line)
        self.examples(i.examples, 4, i.name, i.line)
        self.entries(i, start, [(i.name, i.name)], own_end=len(self.w.lines))
        self.fields(i, at)
        for v in t.values:
            self.value(v, 4)
        for f in t.funcs:
            self.func(f, 4)
        for m in t.methods:
            self.func(m, 4, receiver=i.name)

    def examples(self, found: list[GoExample], level: int, anchor: str, at: int) -> None:
        for e in found:
            title = f"Example ({e.suffix})" if e.suffix else "Example"
            label = "-".join(x for x in ("example", anchor, e.suffix) if x)
            self.heading(level, at, title, label)
            self.doc(e.doc, e.source, e.decl_line, None, at)
            self.code(at, e.code)
            if e.output:
                self.w.add(at, "Output:")
                self.w.blank()
                for text in code_block("", "text", e.output.split("\n")):
                    self.w.add(at, text)
                self.w.blank()

    def fields(self, i: _Item, at: int) -> None:
        """A struct's exported fields as entries (`cobra.Command.Use`), each its lines of the
        declaration (its comment and its own line, at `at` on), found by `Command.Use` as
        pkg.go.dev's `#Command.Use` anchor names it."""
        for f in struct_fields(i.decl.code):
            if len(self.api) >= MAX_ENTRIES:
                return
            self.api.append(
                ApiEntry(
                    name=f"{self.package}.{i.name}.{f.name}",
                    category=self.import_path or self.package,
                    kind="type",
                    signature=truncate(" ".join(f.code.split()), MAX_SIGNATURE_CHARS),
                    description=truncate(" ".join(f.doc.split()), MAX_DESCRIPTION_CHARS),
                    parameters=(),
                    returns="",
                    examples=(),
                    chunk_id="",
                    path=self.path,
                    line_start=at + f.first + 1,
                    line_end=at + f.line + 1,
                )
            )

    def entries(
        self, i: _Item, start: int, names: list[tuple[str, str]], own_end: int | None = None
    ) -> None:
        if len(self.api) >= MAX_ENTRIES:
            return
        d = i.decl
        first = start
        last = (own_end if own_end is not None else len(self.w.lines)) - 1
        while last > first and not self.w.lines[last]:
            last -= 1
        params = tuple(_parameters(d.params)) if d.kind in ("func", "method") else ()
        signature = (
            " ".join(d.code.split("\n")[0].split())
            if d.kind in ("type", "const", "var")
            else " ".join(d.code.split())
        )
        examples = tuple(
            Example("go", truncate(e.code, MAX_EXAMPLE_CHARS)) for e in i.examples if e.code
        )[:MAX_EXAMPLES]
        specs = _specs(d) if d.code.startswith(("const (", "var (")) else {}
        for name, _ in names:
            own, said = specs.get(name, ("", ""))
            self.api.append(
                ApiEntry(
                    name=f"{self.package}.{name}",
                    category=self.import_path or self.package,
                    kind="method" if d.kind in ("func", "method") else "type",
                    signature=truncate(own or signature, MAX_SIGNATURE_CHARS),
                    description=truncate(said or _description(d.doc), MAX_DESCRIPTION_CHARS),
                    parameters=params,
                    returns=truncate(d.results, MAX_RETURNS_CHARS),
                    examples=examples,
                    chunk_id="",
                    path=self.path,
                    line_start=first + 1,
                    line_end=last + 1,
                )
            )


def _specs(d: Decl) -> dict[str, tuple[str, str]]:
    """Each name's own line in a const/var group (`const ShellCompDirectiveNoSpace`, with its
    type and value when written there) and the comment above it, as go/doc shows them."""
    found: dict[str, tuple[str, str]] = {}
    above: list[str] = []
    for line in d.code.split("\n")[1:]:
        stripped = line.strip()
        if stripped.startswith("//"):
            above.append(stripped[2:].strip())
            continue
        name = re.split(r"[\s,=]+", stripped, maxsplit=1)[0]
        if name and name not in found:
            found[name] = (f"{d.kind} {' '.join(line.split())}", " ".join(above))
        above = []
    return found


def _short(d: Decl, full: bool = True) -> str:
    """A func's heading as pkg.go.dev writes it, without parameters: `func (c *Command)
    Execute`; in the index with them (`full`)."""
    code = " ".join(d.code.split())
    if d.kind == "type":
        return f"type {d.names[0]}"
    if full:
        return code
    m = re.match(r"func\s*(\([^)]*\))?\s*", code)
    receiver = f"{m.group(1)} " if m and m.group(1) else ""
    return f"func {receiver}{d.names[0]}"


def _description(doc: str) -> str:
    """The doc's first paragraph, after its `Deprecated:` paragraph when it has one (what
    pkg.go.dev flags first: an agent choosing an API should see it before the 500 characters
    are cut)."""
    paragraphs = [
        " ".join(x.strip() for x in p.split("\n") if not x.startswith(("\t", "  ")))
        for p in doc.strip().split("\n\n")
    ]
    deprecated = next((p for p in paragraphs if p.startswith("Deprecated:")), "")
    first = paragraphs[0] if paragraphs else ""
    return f"{deprecated} {first}".strip() if deprecated and deprecated != first else first


def _parameters(params: str) -> list[Parameter]:
    """`a, b int, opts ...Option` -> a int, b int, opts ...Option (Go's grouped names)."""
    parts = _split_top(params)
    out: list[Parameter] = []
    pending: list[str] = []
    for part in parts:
        words = part.split(None, 1)
        if len(words) == 2 and re.fullmatch(r"[^\W\d]\w*", words[0]):
            for name in pending:
                out.append(Parameter(name, words[1], not words[1].startswith("..."), ""))
            pending = []
            out.append(Parameter(words[0], words[1], not words[1].startswith("..."), ""))
        elif len(words) == 1 and re.fullmatch(r"[^\W\d]\w*", words[0]):
            pending.append(words[0])
        elif part:
            out.append(Parameter("", part, not part.startswith("..."), ""))
    # Names alone to the end were types (`func(int, string)`).
    out.extend(Parameter("", t, True, "") for t in pending)
    return out


def _split_top(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts
