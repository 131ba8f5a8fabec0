"""A `.proto` file read as the page protoc-gen-doc or the Buf Schema Registry publishes for it
(proto_project.py says which files are pages): the package, then a section per service, with a
section per RPC (request and response types, streaming marked, its options such as
`google.api.http`), per message (its fields: declaration as written, with label, `map<>`,
`oneof`, number and options, then the field's comment) and per enum (values and comments),
nested messages and enums as sections below their message, and `extend` blocks.

Comments are the ones protoc attaches (proto_lex.py): leading and trailing, `//` and `/* */`.
What a generator hides stays hidden: a comment starting `@exclude` (protoc-gen-doc) or holding
`[#not-implemented-hide:]` (Envoy's protodoc) hides its declaration, and the whole page where it
sits with the file's `[#protodoc-title: …]`, which titles the page; protodoc's other `[#…:]`
annotations are not shown; a frozen package version (`package_version_status = FROZEN`, Envoy's
v2 beside v3) is no page, as Envoy's docs publish v3 only. `deprecated = true`
shows as **Deprecated.**

API entries are named as users write them: fully qualified messages, enums and services
(`opentelemetry.proto.trace.v1.Span`), RPCs as `Service.Rpc`, fields and enum values below their
type (`….Span.trace_id`, `….Span.SpanKind.SPAN_KIND_SERVER`); the registry finds each by its
tails (`Span`, `TraceService.Export`). A field's message or enum type is an object reference,
resolved by protobuf's scoping against the `object:` anchors of every proto page's sections.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docsmcp.model.api import OBJECT_ANCHOR, Parameter
from docsmcp.model.api_fields import MAX_PARAM_DESCRIPTION_CHARS
from docsmcp.model.source import Converted
from docsmcp.model.text import truncate
from docsmcp.sources.formats.markdown.fences import code_block, code_span
from docsmcp.sources.formats.source.doc_entries import dotted_category, source_entry
from docsmcp.sources.formats.source.page_text import (
    Anchors,
    PageText,
    object_anchors,
    unique_anchor,
)
from docsmcp.sources.formats.source.proto_parse import (
    SCALARS,
    Decl,
    Field,
    ProtoFile,
    Rpc,
    Value,
    parse,
)

MAX_ENTRIES = 5000  # API entries of one file, at most
MAX_PARAMETERS = 100  # a message's fields listed in its entry, at most
MAX_OPTION_CHARS = 200  # a field's `[…]` options shown, at most
MAX_OPTION_LINES = 30  # an RPC's option lines shown, at most
# Envoy's protodoc annotations (`[#next-free-field: 5]`, `[#extension: envoy.x]`): not shown.
_ANNOTATION = re.compile(r"\[#([\w-]+):([^\]\n]*)\]")
_TITLE = re.compile(r"^[ \t]*//[ \t]*\[#protodoc-title:[ \t]*([^\]\n]*)\]", re.MULTILINE)
_HIDDEN = "not-implemented-hide"
# Envoy's RST cross references (`:ref:`Thresholds <envoy_v3_api_msg_config.cluster.v3.X>``):
# shown as their text, and an API object's (`envoy_v3_api_{msg,enum,field,enum_value}_NAME`)
# a reference to `envoy.NAME`.
_RST_REF = re.compile(r":ref:`([^`<]*)(?:<([^`<>]*)>)?`")
_ENVOY_API = re.compile(r"envoy_v3_api_(?:msg|enum|field|enum_value)_([\w.]+)$")
# googleapis' cross references (`[Topic][google.pubsub.v1.Topic]`): shown as `Topic`, a
# reference to the object; and its documentation domain (`{$universe…}`) as cloud.google.com.
_GOOGLE_REF = re.compile(r"\[([^\[\]\n]+)\]\[([A-Za-z_][\w.]*)\]")
_UNIVERSE = re.compile(r"(?:https://)?\{\$universe\.dns_names\.final_documentation_domain\}")
# A comment line that markdown would read as a heading, a rule or a setext underline.
_MARKDOWN_LINE = re.compile(r"^(#{1,6}(?:\s|$)|=+\s*$|-{3,}\s*$)")


def _shown(doc: str) -> str:
    """A comment's text as shown: protodoc's annotations out, `@exclude` handled by the
    caller, lines markdown would read as structure escaped."""
    out = []
    doc = _RST_REF.sub(lambda m: (m.group(1) or m.group(2) or "").strip(), doc)
    doc = _GOOGLE_REF.sub(r"\1", _UNIVERSE.sub("https://cloud.google.com", doc))
    for line in _ANNOTATION.sub(_annotation, doc).split("\n"):
        out.append("\\" + line if _MARKDOWN_LINE.match(line) else line.rstrip())
    return "\n".join(out).strip("\n")


def _annotation(m: re.Match[str]) -> str:
    """protodoc's `[#extension: envoy.filters.http.router]` is shown as the extension's name;
    every other annotation is dropped."""
    name, value = m.group(1), m.group(2).strip()
    return f"Extension: `{value}`" if name == "extension" and value else ""


def _cited(doc: str) -> list[str]:
    """The API objects a comment's cross references name (Envoy's `:ref:`, googleapis'
    `[text][name]`)."""
    out = [m.group(2) for m in _GOOGLE_REF.finditer(doc)]
    for m in _RST_REF.finditer(doc):
        if m.group(2) and (api := _ENVOY_API.match(m.group(2).strip())):
            out.append("envoy." + api.group(1))
    return out


def _hidden(doc: str) -> bool:
    return doc.lstrip().startswith("@exclude") or f"[#{_HIDDEN}:" in doc


def _summary(doc: str) -> str:
    """The first paragraph of a comment, one line."""
    para = []
    for line in _shown(doc).split("\n"):
        if not line.strip():
            if para:
                break
            continue
        para.append(line.strip())
    return " ".join(para)


def _text(doc: str, trailing: str) -> str:
    parts = [_shown(d) for d in (doc, trailing) if d and not _hidden(d)]
    return "\n\n".join(p for p in parts if p)


@dataclass
class _Page(PageText):
    source: str
    package: str
    names: set[str]  # the full names of the file's messages and enums
    ids: Anchors = field(default_factory=Anchors)

    def full(self, name: str) -> str:
        return f"{self.package}.{name}" if self.package else name

    def heading(self, level: int, line: int, local: str) -> int:
        """A section's heading for the declaration named `local` in the package (`Span.Event`);
        its output line."""
        self.blank(line)
        anchor = unique_anchor(re.sub(r"[^\w.-]+", "-", local).strip("-") or "decl", self.ids)
        at = len(self.out)
        shown = re.sub(r"([_*\\`\[\]<>])", r"\\\1", local)
        self.add(line, f"{'#' * min(level, 6)} {shown} {{#{anchor}}}")
        full = self.full(local)
        self.anchors += object_anchors(at, full.split("."))
        if self.package:
            self.anchors.append((at, full))  # (protoc-gen-doc's anchor: `pkg.Message`)
        self.blank(line)
        return at

    def paragraphs(self, line: int, text: str) -> None:
        for x in text.split("\n"):
            self.add(line, x)

    def refer(self, at: int, scope: str, written: str) -> None:
        """An object reference from output line `at` to the type `written` in `scope` (the
        full name of the declaration it is written in), by protobuf's scoping: the innermost
        scope first; types of other files by every scope they may be in (only those the
        bundle holds resolve)."""
        if not written or written in SCALARS:
            return
        if written.startswith("."):
            self.refs.append((at, written[1:]))
            return
        first = written.split(".", 1)[0]
        parts = scope.split(".") if scope else []
        for k in range(len(parts), -1, -1):
            prefix = ".".join(parts[:k])
            if (f"{prefix}.{first}" if prefix else first) in self.names:
                self.refs.append((at, f"{prefix}.{written}" if prefix else written))
                return
        package = self.package.split(".") if self.package else []
        for k in range(len(package), 0, -1):
            self.refs.append((at, ".".join(package[:k]) + "." + written))
        if "." in written:
            self.refs.append((at, written))

    def cite(self, at: int, *docs: str) -> None:
        """The objects comments name, as references from output line `at`."""
        for doc in docs:
            if doc and not _hidden(doc):
                self.refs += [(at, name) for name in _cited(doc)]

    def entry(self, **kw: object) -> None:
        if len(self.api) < MAX_ENTRIES:
            self.api.append(source_entry(path=self.path, **kw))  # type: ignore[arg-type]

    # -- sections ----------------------------------------------------------------------

    def decl(self, d: Decl, level: int, outer: str) -> None:
        if _hidden(d.doc):
            return
        if d.kind == "extend":
            self.extend(d, level, outer)
            return
        local = f"{outer}.{d.name}" if outer else d.name
        at = self.heading(level, d.line, local)
        signature = f"{d.kind} {d.name}"
        for text in code_block("", "proto", [signature]):
            self.add(d.line, text)
        if d.deprecated:
            self.blank(d.line)
            self.add(d.line, "**Deprecated.**")
        text = _text(d.doc, d.trailing)
        if text:
            self.blank(d.line)
            self.cite(len(self.out), d.doc, d.trailing)
            self.paragraphs(d.line, text)
        full = self.full(local)
        params: list[Parameter] = []
        if d.kind == "message":
            params = self.fields(d.fields, d.oneofs, full, "Fields")
        elif d.kind == "enum":
            self.values(d.values, full)
        end = len(self.out)
        self.entry(
            name=full,
            category=dotted_category(full),
            kind="type",
            signature=signature,
            description=_summary(text),
            parameters=tuple(params[:MAX_PARAMETERS]),
            returns="",
            line_start=at + 1,
            line_end=end,
        )
        if d.kind == "service":
            for rpc in d.rpcs:
                self.rpc(rpc, level + 1, local)
        for n in d.nested:
            self.decl(n, level + 1, local)

    def extend(self, d: Decl, level: int, outer: str) -> None:
        shown = [f for f in d.fields if not _hidden(f.doc)]
        if not shown:
            return
        self.blank(d.line)
        title = f"extend {d.name}"
        anchor = unique_anchor(re.sub(r"[^\w.-]+", "-", title).strip("-"), self.ids)
        shown_title = title.replace("_", "\\_")
        self.add(d.line, f"{'#' * min(level, 6)} {shown_title} {{#{anchor}}}")
        text = _text(d.doc, d.trailing)
        if text:
            self.blank(d.line)
            self.paragraphs(d.line, text)
        scope = self.full(outer) if outer else self.package
        self.fields(shown, [], scope, "Extensions", extends=d.name)

    def fields(
        self, fields: list[Field], oneofs: list, scope: str, label: str, extends: str = ""
    ) -> list[Parameter]:
        """The field list of a message (or an `extend` block's extensions), each an entry."""
        shown = [f for f in fields if not _hidden(f.doc)]
        if not shown:
            return []
        self.blank(shown[0].line)
        self.add(shown[0].line, f"**{label}:**")
        self.blank(shown[0].line)
        docs = {o.name: o for o in oneofs}
        told: set[str] = set()
        params = []
        for f in shown:
            if f.oneof and f.oneof not in told:
                told.add(f.oneof)
                one = docs.get(f.oneof)
                text = _text(one.doc, "") if one else ""
                self.item(one.line if one else f.line, f"oneof {f.oneof}", text)
            decl = " ".join(x for x in (f.label, f.type, f.name) if x) + f" = {f.number}"
            if f.options:
                decl += f" [{truncate(f.options, MAX_OPTION_CHARS)}]"
            head = code_span(decl)
            if f.oneof:
                head += f" (in `oneof {f.oneof}`)"
            if f.deprecated:
                head += " **Deprecated.**"
            text = _text(f.doc, f.trailing)
            at = self.item(f.line, head, text, code=False)
            self.cite(at, f.doc, f.trailing)
            # (Envoy's `envoy_v3_api_field_…` and googleapis' `[x][pkg.Message.field]`)
            self.anchors.append((at, OBJECT_ANCHOR + f"{scope}.{f.name}"))
            for t in f.types:
                self.refer(at, scope, t)
            name = f"{scope}.{f.name}"
            required = True if f.label == "required" or "REQUIRED" in f.options else None
            type_ = f"{f.label} {f.type}".strip()
            description = truncate(_summary(text), MAX_PARAM_DESCRIPTION_CHARS)
            params.append(Parameter(f.name, type_, required, description))
            self.entry(
                name=name,
                category=scope,
                kind="attribute",
                signature=decl + (f" (extends {extends})" if extends else ""),
                description=_summary(text),
                parameters=(),
                returns=type_,
                line_start=at + 1,
                line_end=len(self.out),
            )
        return params

    def item(self, line: int, head: str, text: str, code: bool = True) -> int:
        """A list item: `head` (as code when `code`), then `text` below it; its output line."""
        at = len(self.out)
        first, _, rest = text.partition("\n")
        shown = code_span(head) if code else head
        self.add(line, f"- {shown}" + (f" — {first}" if first else ""))
        for x in rest.split("\n") if rest else ():
            self.add(line, f"  {x}" if x else "")
        return at

    def values(self, values: list[Value], scope: str) -> None:
        shown = [v for v in values if not _hidden(v.doc)]
        if not shown:
            return
        self.blank(shown[0].line)
        self.add(shown[0].line, "**Values:**")
        self.blank(shown[0].line)
        for v in shown:
            decl = f"{v.name} = {v.number}" + (
                f" [{truncate(v.options, MAX_OPTION_CHARS)}]" if v.options else ""
            )
            head = code_span(decl) + (" **Deprecated.**" if v.deprecated else "")
            text = _text(v.doc, v.trailing)
            at = self.item(v.line, head, text, code=False)
            self.cite(at, v.doc, v.trailing)
            self.anchors.append((at, OBJECT_ANCHOR + f"{scope}.{v.name}"))
            self.entry(
                name=f"{scope}.{v.name}",
                category=scope,
                kind="attribute",
                signature=decl,
                description=_summary(text),
                parameters=(),
                returns="",
                line_start=at + 1,
                line_end=len(self.out),
            )

    def rpc(self, r: Rpc, level: int, service: str) -> None:
        if _hidden(r.doc):
            return
        local = f"{service}.{r.name}"
        at = self.heading(level, r.line, local)
        req = ("stream " if r.client_streaming else "") + r.request
        resp = ("stream " if r.server_streaming else "") + r.response
        signature = f"rpc {r.name}({req}) returns ({resp})"
        lines = [signature + (" {" if r.options else ";")]
        for start, end in r.options:
            lines += _option_lines(self.source[start:end])
        if r.options:
            lines = [*lines[: MAX_OPTION_LINES + 1], "}"]
        for text in code_block("", "proto", lines):
            self.add(r.line, text)
        for t in (r.request, r.response):
            self.refer(at, self.full(service).rsplit(".", 1)[0], t)
        streaming = {
            (True, True): "Bidirectional streaming: the client and the server each send a stream.",
            (True, False): "Client streaming: the client sends a stream of requests.",
            (False, True): "Server streaming: the server sends a stream of responses.",
        }.get((r.client_streaming, r.server_streaming))
        if streaming:
            self.blank(r.line)
            self.add(r.line, streaming)
        if r.deprecated:
            self.blank(r.line)
            self.add(r.line, "**Deprecated.**")
        text = _text(r.doc, r.trailing)
        if text:
            self.blank(r.line)
            self.cite(len(self.out), r.doc, r.trailing)
            self.paragraphs(r.line, text)
        full = self.full(local)
        self.entry(
            name=full,
            category=self.full(service),
            kind="method",
            signature=signature,
            description=_summary(text),
            parameters=(Parameter("request", req, True, ""),),
            returns=resp,
            line_start=at + 1,
            line_end=len(self.out),
        )


def _option_lines(source: str) -> list[str]:
    """An RPC's `option …;` statement as written, dedented under the RPC, two spaces in."""
    lines = [x.rstrip() for x in source.split("\n")]
    indents = [len(x) - len(x.lstrip()) for x in lines[1:] if x.strip()]
    cut = max(min(indents) - 2, 0) if indents else 0
    return ["  " + lines[0].strip(), *(x[cut:] for x in lines[1:])]


def _names(decls: list[Decl], outer: str, out: set[str]) -> set[str]:
    for d in decls:
        if d.kind in ("message", "enum"):
            local = f"{outer}.{d.name}" if outer else d.name
            out.add(local)
            _names(d.nested, local, out)
    return out


def _file_hidden(text: str, proto: ProtoFile) -> bool:
    """Whether Envoy's protodoc publishes no page of the file: a frozen package version (v2
    beside v3), or `[#not-implemented-hide:]` in the comment that holds the file's
    `[#protodoc-title: …]`."""
    if proto.frozen:
        return True
    m = _TITLE.search(text)
    if m is None:
        return False
    block = []
    for line in text[m.start() :].split("\n", 40)[:40]:
        if not line.lstrip().startswith("//"):
            break
        block.append(line)
    return f"[#{_HIDDEN}:" in "\n".join(block)


def _title(path: str, text: str, proto: ProtoFile) -> str:
    m = _TITLE.search(text)
    if m and m.group(1).strip():
        return m.group(1).strip().rstrip(".")
    name = path.rsplit("/", 1)[-1]
    return f"{proto.package} ({name})" if proto.package else name


def proto_to_markdown(path: str, text: str) -> Converted:
    """The page of a `.proto` file (see the module docstring)."""
    text = text.removeprefix("\ufeff")
    proto = parse(text)
    if _file_hidden(text, proto):
        return Converted("", None)
    package = proto.package
    local_names = _names(proto.decls, "", set())
    full_names = {f"{package}.{n}" if package else n for n in local_names}
    page = _Page(path, text, package, full_names)
    title = _title(path, text, proto)
    top = re.sub(r"[^\w.-]+", "-", package or path.rsplit("/", 1)[-1]).strip("-") or "proto"
    page.ids.add(top)
    page.add(0, "# " + re.sub(r"([_*`<>])", r"\\\1", title) + f" {{#{top}}}")
    header = [f'syntax = "{proto.syntax}";'] if proto.syntax.startswith("proto") else []
    if proto.syntax.startswith("edition"):
        header.append(f'edition = "{proto.syntax.split()[-1]}";')
    if package:
        header.append(f"package {package};")
    if header:
        page.blank(0)
        for line in code_block("", "proto", header):
            page.add(0, line)
    if proto.deprecated:
        page.blank(0)
        page.add(0, "**Deprecated.**")
    doc = _text(proto.doc, "")
    if doc:
        page.blank(0)
        page.cite(len(page.out), proto.doc)
        page.paragraphs(0, doc)
    for d in proto.decls:
        page.decl(d, 2, "")
    return page.converted(title)
