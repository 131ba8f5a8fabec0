"""A PHP source file of a library read as the pages phpDocumentor publishes from its PHPDoc
comments (packages/php_package.py decides which files are pages).

phpDocumentor makes a page per class, interface, trait and enum; a file holds one as a rule
(PSR-4), so the file is the page: `# Monolog\\Logger`, its declaration in a `php` block, the
summary and description, `@template`s, what it extends, implements and uses, `@deprecated` and
`@see`; then a section per constant (an enum's cases first), property and method, each as PHP
names it (`## Logger::pushHandler()`, `## Logger::DEBUG`, `## Logger::$name`) over its
declaration, summary, description, parameters (types from the signature, else `@param`;
defaults as written), return type, `@throws`, `@deprecated` and `@see`. The magic members a
class's `@property`/`@method` tags declare are listed with the real ones, as phpDocumentor
lists them. A file of functions (Guzzle's `functions.php`) is a page of its functions.

`{@see X}`, `@see X` and the types a signature names are resolved as PHP resolves them (the
file's namespace and `use` imports; `self`/`static` the class): a member of the page is a link
to its section, anything else a name for the build to resolve (xref: the `object:` anchors
each section carries: `Monolog\\Logger::pushHandler` and `Logger::pushHandler`, a type's
qualified and short name). Every type and member shown is an API entry named as PHP calls it
(`GuzzleHttp\\Client::request`, `Monolog\\Logger::$name`, `GuzzleHttp\\describe_type`).

Left out as phpDocumentor leaves them out by default: private members, and whatever is
`@internal`. A file without a type or function to show converts to no text: no page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docsmcp.model.api import OBJECT_ANCHOR, Parameter
from docsmcp.model.source import Converted
from docsmcp.sources.formats.markdown.fences import code_block, code_span
from docsmcp.sources.formats.source import php_inherit, phpdoc_tags
from docsmcp.sources.formats.source.doc_entries import source_entry
from docsmcp.sources.formats.source.page_text import Anchors, PageText, unique_anchor
from docsmcp.sources.formats.source.php_parse import TYPE_KINDS, Decl, Param, Unit, parse

MAX_ENTRIES = 20_000
MAX_VALUE_CHARS = 160
EMPTY = Converted("", None, (), (), (), ())
# Names a type position may hold that are no class (PHP's own and PHPDoc's pseudo-types).
BUILTIN = frozenset(
    "int integer float double string bool boolean array object mixed void null never callable "
    "iterable resource false true self static parent $this scalar numeric list non-empty-list "
    "non-empty-array non-empty-string class-string positive-int negative-int array-key "
    "callable-string numeric-string literal-string key-of value-of int-mask closed-resource "
    "non-negative-int non-positive-int".split()
)
_TYPE_NAME = re.compile(r"\\?[A-Za-z_][\w\\-]*")
_LINK = re.compile(r"\[([^\[\]\n]*)\]\([^()\s]*\)")
_ORDER = {"case": 0, "const": 1, "property": 2, "method": 3}
_KIND_ID = {"case": "enumcase", "const": "constant", "property": "property", "method": "method"}


def _visible(decl: Decl) -> bool:
    return "private" not in decl.modifiers


@dataclass
class _Page(PageText):
    unit: Unit
    namespace: str = ""
    local: dict[str, str] = field(default_factory=dict)  # qualified name -> anchor
    used: Anchors = field(default_factory=Anchors)
    pending: list[str] = field(default_factory=list)
    owner: str = ""  # the qualified name of the type being written
    parents: tuple[str, ...] = ()  # what it extends and implements, as written
    inherits: dict[str, list] = field(default_factory=dict)  # (php_inherit: the pass's line)
    docs: dict[str, dict] = field(default_factory=dict)  # (php_inherit: inherited docblocks)
    aliases: list[tuple[str, str, dict, int]] = field(default_factory=list)  # (php_inherit)

    def resolve(self, name: str) -> str:
        """A class name as PHP resolves it in this file: `\\A\\B` as written, `self`/`static`
        the class, an imported alias its import, else the file's namespace before it."""
        name = name.strip().removesuffix("()")
        if name.startswith("\\"):
            return name[1:]
        if name.lower() in ("self", "static", "$this") and self.owner:
            return self.owner
        head, sep, tail = name.partition("\\")
        if head in self.unit.uses:
            return self.unit.uses[head] + (f"\\{tail}" if sep else "")
        return f"{self.namespace}\\{name}" if self.namespace else name

    def target(self, ref: str) -> str:
        """`Client::request()`, `\\A\\B`, `self::X`, `::m()`, `m()`: a qualified name."""
        ref = ref.strip().rstrip(".,;").removesuffix("()")
        cls, sep, member = ref.partition("::")
        if sep:
            owner = self.resolve(cls) if cls else self.owner
            return f"{owner}::{member}"
        if ref.startswith("$") and self.owner:
            return f"{self.owner}::{ref}"
        if self.owner and f"{self.owner}::{ref}" in self.local:
            return f"{self.owner}::{ref}"
        return self.resolve(ref)

    def link(self, ref: str, label: str) -> str:
        """A `{@see}` as phpDocumentor shows it: a link to this page's section, else the name,
        recorded for the build to resolve."""
        shown = label or ref.strip().lstrip("\\")
        if not ref.strip() or not re.match(r"^[\\$:\w]", ref.strip()):
            return shown
        full = self.target(ref)
        anchor = self.local.get(full)
        if anchor is not None:
            return f"[{shown if label else code_span(shown)}](#{anchor})"
        self.pending.append(full)
        return shown if label else code_span(shown)

    def type_refs(self, text: str) -> None:
        """The classes a type names (`?ResponseInterface`, `array<int, HandlerInterface>`)."""
        for m in _TYPE_NAME.finditer(text):
            word = m.group()
            if word.lower().lstrip("\\") in BUILTIN or "-" in word or word.startswith("$"):
                continue
            if word[:1].isupper() or word.startswith("\\"):
                self.pending.append(self.resolve(word))

    def new_anchor(self, text: str) -> str:
        text = re.sub(r"[^\w.:\-]", "", text) or "member"
        return unique_anchor(text, self.used)

    def heading(self, level: int, line: int, title: str, anchor: str, names: list[str]) -> int:
        self.blank(line)
        at = len(self.out)
        self.add(line, f"{'#' * level} {title} {{#{anchor}}}")
        self.anchors += [(at, OBJECT_ANCHOR + n) for n in dict.fromkeys(names)]
        return at

    # -- a type --------------------------------------------------------------------------------

    def write_type(self, decl: Decl, first: bool) -> None:
        self.owner = decl.name
        self.parents = decl.extends + decl.implements
        short = decl.name.rsplit("\\", 1)[-1]
        doc = phpdoc_tags.read(decl.doc, self.link)
        members = self.plan(decl, doc, "" if first else f"{short}-")
        anchor = self.new_anchor(short)
        self.pending = []
        at = self.heading(1 if first else 2, decl.doc_line, decl.name, anchor, [decl.name, short])
        self.declaration(decl.line, _type_declaration(decl, short))
        self.prose(decl, doc)
        if decl.extends:
            self.relation(decl.line, "Extends", decl.extends)
        if decl.implements:
            self.relation(decl.line, "Implements", decl.implements)
        if decl.traits:
            self.relation(decl.line, "Uses", decl.traits)
        self.see(decl.doc_line, doc)
        self.refs += [(at, t) for t in dict.fromkeys(self.pending)]
        self.entry(decl.name, "type", _type_declaration(decl, short), doc, at, (), "")
        if decl.name in self.inherits:  # (a line per parent of the tree: php_inherit.py)
            php_inherit.write(self, decl, self.inherits[decl.name])
        level = 2 if first else 3
        for m, mdoc, m_anchor in members:
            self.write_member(m, mdoc, m_anchor, short, level)

    def relation(self, line: int, word: str, names: tuple[str, ...]) -> None:
        shown = ", ".join(self.link(n, "") for n in names)
        self.lines(line, [f"**{word}:** {shown}"])

    def plan(
        self, decl: Decl, doc: phpdoc_tags.DocBlock, prefix: str
    ) -> list[tuple[Decl, phpdoc_tags.DocBlock, str]]:
        """The members the page shows, in phpDocumentor's order, each with its comment and
        anchor (links may point ahead)."""
        shown: list[tuple[Decl, phpdoc_tags.DocBlock]] = []
        for m in decl.members:
            if not _visible(m) and not (m.kind == "method" and _promotes(m)):
                continue
            mdoc = phpdoc_tags.read(m.doc, lambda t, label: label or t)
            if mdoc.internal:
                continue
            if _visible(m):
                shown.append((m, mdoc))
            if m.kind == "method" and m.name.lower() == "__construct":
                shown += [(p, phpdoc_tags.DocBlock()) for p in _promoted(m)]
        real = {m.name for m, _ in shown}
        for kind, tag in doc.properties:
            name = tag.name if tag.name.startswith("$") else f"${tag.name}"
            if tag.name and name not in real:
                magic = "-".join(["magic", *kind.split("-")[1:]])
                d = Decl("property", name, decl.line, modifiers=(magic,), type=tag.type)
                shown.append((d, phpdoc_tags.DocBlock(summary=tag.text)))
        for tag in doc.methods:
            if tag.name not in real:
                mods = ("magic", "static") if tag.static else ("magic",)
                params = tuple(_magic_param(p) for p in tag.params.split(",") if p.strip())
                d = Decl("method", tag.name, decl.line, modifiers=mods, returns=tag.returns)
                shown.append((d if not params else _with_params(d, params), _said(tag.text)))
        shown.sort(key=lambda x: _ORDER.get(x[0].kind, 9))
        out = []
        for m, mdoc in shown:
            bare = m.name.lstrip("$")
            anchor = self.new_anchor(f"{prefix}{_KIND_ID.get(m.kind, m.kind)}_{bare}")
            self.local.setdefault(f"{decl.name}::{m.name}", anchor)
            out.append((m, mdoc, anchor))
        self.local.setdefault(decl.name, decl.name.rsplit("\\", 1)[-1])
        return out

    def write_member(
        self, m: Decl, plain: phpdoc_tags.DocBlock, anchor: str, short: str, level: int
    ) -> None:
        self.pending = []
        doc = phpdoc_tags.read(m.doc, self.link) if m.doc else plain
        source = ""
        said = self.docs.get(self.owner, {}).get(m.name)
        if isinstance(said, dict) and not any(x.startswith("magic") for x in m.modifiers):
            doc, source = php_inherit.inherited(m.doc, said, self.link)
        call = "()" if m.kind == "method" else ""
        title = f"{short}::{m.name}{call}"
        full = f"{self.owner}::{m.name}"
        at = self.heading(level, m.doc_line, title, anchor, [full, f"{short}::{m.name}"])
        signature = member_declaration(m, doc)
        self.declaration(m.line, signature)
        if any(x.startswith("magic") for x in m.modifiers):
            self.lines(m.line, [_magic_note(m)])
        if source:  # (phpDocumentor's inherited docblock: where it comes from)
            shown = source.rsplit("\\", 1)[-1] + ("()" if m.kind == "method" else "")
            origin = self.link("\\" + source, code_span(shown))
            self.lines(m.doc_line, [f"*Documentation from {origin}.*"])
        self.prose(m, doc)
        self.signature_parts(m, doc)
        self.see(m.doc_line, doc)
        self.refs += [(at, t) for t in dict.fromkeys(self.pending)]
        kind = "method" if m.kind == "method" else "type"
        returns = m.returns or (doc.returns[0] if doc.returns else "")
        if m.kind in ("property", "const") and not returns:
            returns = m.type or (doc.var.type if doc.var else "")
        self.entry(full, kind, signature, doc, at, m.params, returns)

    # -- a file of functions -------------------------------------------------------------------

    def write_functions(self, functions: list[Decl], first: bool) -> None:
        self.owner, self.parents = "", ()
        title = f"Functions in {self.namespace}" if self.namespace else "Functions"
        if first:
            self.heading(1, functions[0].doc_line, title, self.new_anchor("functions"), [])
        plans = []
        for f in functions:
            anchor = self.new_anchor(f"function_{f.name.rsplit(chr(92), 1)[-1]}")
            self.local.setdefault(f.name, anchor)
            plans.append(anchor)
        for f, anchor in zip(functions, plans, strict=True):
            self.pending = []
            doc = phpdoc_tags.read(f.doc, self.link)
            short = f.name.rsplit("\\", 1)[-1]
            at = self.heading(2, f.doc_line, f"{short}()", anchor, [f.name])
            signature = member_declaration(f, doc)
            self.declaration(f.line, signature)
            self.prose(f, doc)
            self.signature_parts(f, doc)
            self.see(f.doc_line, doc)
            self.refs += [(at, t) for t in dict.fromkeys(self.pending)]
            returns = f.returns or (doc.returns[0] if doc.returns else "")
            self.entry(f.name, "method", signature, doc, at, f.params, returns)

    # -- parts ---------------------------------------------------------------------------------

    def declaration(self, line: int, text: str) -> None:
        self.blank(line)
        for x in code_block("", "php", [text]):
            self.add(line, x)

    def prose(self, decl: Decl, doc: phpdoc_tags.DocBlock) -> None:
        line = decl.doc_line
        summary = doc.summary or (doc.var.text if doc.var else "")
        if doc.inherit and not summary:
            parents = ", ".join(self.link(n, "") for n in self.parents)
            said = f": {parents}" if parents and decl.kind != "class" else ""
            self.lines(line, [f"*Inherits its documentation (`{{@inheritDoc}}`){said}.*"])
        self.lines(line, [summary])
        self.lines(line, list(doc.description))
        if doc.deprecated is not None:
            said = f" {doc.deprecated}" if doc.deprecated else ""
            self.lines(line, [f"**Deprecated.**{said}"])
        if doc.templates:
            self.lines(line, ["**Templates:**", ""])
            for name, bound in doc.templates:
                self.add(line, f"- {code_span(name)} {bound}".rstrip())
        if doc.since:
            self.lines(line, [f"**Since:** {doc.since}"])

    def signature_parts(self, decl: Decl, doc: phpdoc_tags.DocBlock) -> None:
        line = decl.doc_line
        said = {p.name: p for p in doc.params}
        if decl.params:
            self.lines(line, ["**Parameters:**", ""])
            for p in decl.params:
                tag = said.get(p.name)
                # (the comment's type where it says one: `list<HandlerInterface>` over `array`)
                t = (tag.type if tag else "") or p.type
                self.type_refs(f"{p.type} {t}")
                bits = [code_span(("..." if p.variadic else "") + p.name)]
                if t:
                    bits.append(code_span(t))
                if p.default:
                    bits.append(f"= {code_span(p.default)}")
                text = f" - {tag.text}" if tag and tag.text else ""
                self.add(line, f"- {' '.join(bits)}{text}")
        returns = decl.returns
        if doc.returns or (returns and decl.kind in ("method", "function")):
            t, text = doc.returns or (returns, "")
            shown = t if t and t != returns and returns in ("", "array", "mixed") else returns or t
            self.type_refs(f"{returns} {t}")
            tail = f" - {text}" if text else ""
            if shown and shown.lower() != "void" or text:
                self.lines(
                    line, [f"**Returns:** {code_span(shown)}{tail}".replace(":**  -", ":** -")]
                )
        elif decl.kind in ("property", "const"):
            said_type = doc.var.type if doc.var else ""
            self.type_refs(f"{decl.type} {said_type}")
            if said_type and decl.type and said_type != decl.type:  # (`@var list<T>` over `array`)
                self.lines(line, [f"**Type:** {code_span(said_type)}"])
        if doc.throws:
            self.lines(line, ["**Throws:**", ""])
            for t, text in doc.throws:
                self.type_refs(t)
                self.add(line, f"- {code_span(t)}" + (f" - {text}" if text else ""))

    def see(self, line: int, doc: phpdoc_tags.DocBlock) -> None:
        if doc.see:
            self.lines(line, ["**See also:**", "", *(f"- {s}" for s in doc.see)])

    def entry(
        self,
        name: str,
        kind: str,
        signature: str,
        doc: phpdoc_tags.DocBlock,
        at: int,
        params: tuple[Param, ...],
        returns: str,
    ) -> None:
        if len(self.api) >= MAX_ENTRIES:
            return
        end = self.last_text(at)
        said = {p.name: p for p in doc.params}
        parameters = tuple(
            Parameter(
                p.name,
                p.type or (said[p.name].type if p.name in said else ""),
                not (p.default or p.variadic),
                said[p.name].text if p.name in said else "",
            )
            for p in params
        )
        if doc.returns and doc.returns[1]:
            returns = f"{returns}: {doc.returns[1]}" if returns else doc.returns[1]
        description = _LINK.sub(r"\1", doc.summary or (doc.var.text if doc.var else ""))
        if doc.deprecated is not None:
            description = f"Deprecated. {description}".strip()
        self.api.append(
            source_entry(
                name=name,
                category=name.rsplit("::", 1)[0] if "::" in name else name.rsplit("\\", 1)[0],
                kind=kind,
                signature=signature,
                description=description,
                parameters=parameters,
                returns=returns,
                path=self.path,
                line_start=at + 1,
                line_end=max(at, end) + 1,
            )
        )


def _said(text: str) -> phpdoc_tags.DocBlock:
    return phpdoc_tags.DocBlock(summary=text)


def _with_params(d: Decl, params: tuple[Param, ...]) -> Decl:
    return Decl(d.kind, d.name, d.line, modifiers=d.modifiers, returns=d.returns, params=params)


def _magic_param(text: str) -> Param:
    """One parameter of a `@method` tag: `[Type] [...]$name [= default]`."""
    head, _, default = text.partition("=")
    words = head.split()
    name = words[-1] if words else "$"
    variadic = name.startswith("...")
    name = name.removeprefix("...").lstrip("&")
    name = name if name.startswith("$") else f"${name}"
    return Param(name, " ".join(words[:-1]), default.strip(), variadic)


def _promotes(m: Decl) -> bool:
    return m.name.lower() == "__construct" and any(p.promoted for p in m.params)


def _promoted(m: Decl) -> list[Decl]:
    """A constructor's promoted parameters that are public or protected: properties."""
    out = []
    for p in m.params:
        if p.promoted and "private" not in p.promoted:
            out.append(Decl("property", p.name, m.line, "", m.line, p.promoted, type=p.type))
    return out


def _magic_note(m: Decl) -> str:
    if m.kind == "method":
        return "*Magic method (`@method`): the class answers it, without declaring it.*"
    access = {"magic-read": " (read-only)", "magic-write": " (write-only)"}
    said = next((access[x] for x in m.modifiers if x in access), "")
    return f"*Magic property (`@property`){said}: the class answers it, without declaring it.*"


def _value(text: str) -> str:
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def _type_declaration(decl: Decl, short: str) -> str:
    words = [*decl.modifiers, decl.kind, short]
    if decl.type:
        words[-1] += f": {decl.type}"
    if decl.extends:
        words += ["extends", ", ".join(decl.extends)]
    if decl.implements:
        words += ["implements", ", ".join(decl.implements)]
    return " ".join(words)


def _param(p: Param) -> str:
    words = [*p.promoted, p.type] if p.type else [*p.promoted]
    name = ("&" if p.by_ref else "") + ("..." if p.variadic else "") + p.name
    text = " ".join([*words, name])
    return f"{text} = {_value(p.default)}" if p.default else text


def member_declaration(m: Decl, doc: phpdoc_tags.DocBlock) -> str:
    mods = [x for x in m.modifiers if not x.startswith("magic") and x != "var"]
    if any(x.startswith("magic") for x in m.modifiers):
        mods = ["public", *(["static"] if "static" in m.modifiers else [])]
    elif m.kind != "function" and not any(x in mods for x in ("public", "protected")):
        mods = ["public", *mods]
    if m.kind == "case":
        return f"case {m.name}" + (f" = {_value(m.value)}" if m.value else "")
    if m.kind == "const":
        t = f" {m.type}" if m.type else ""
        return " ".join(mods) + f" const{t} {m.name} = {_value(m.value)}"
    if m.kind == "property":
        t = m.type or (doc.var.type if doc.var else "")
        head = " ".join([*mods, t] if t else mods)
        return f"{head} {m.name}" + (f" = {_value(m.value)}" if m.value else "")
    params = ", ".join(_param(p) for p in m.params)
    returns = f": {m.returns}" if m.returns else ""
    magic = any(x.startswith("magic") for x in m.modifiers)
    if magic and m.returns:
        returns = f": {m.returns}"
    amp = "&" if m.by_ref else ""
    name = m.name.rsplit("\\", 1)[-1]
    head = " ".join([*mods, "function"])
    return f"{head} {amp}{name}({params}){returns}"


def php_to_markdown(path: str, text: str) -> Converted:
    """The phpDocumentor pages of the PHP file `text` (see the module's docstring)."""
    text, inherits, docs = php_inherit.split(text)  # (the tree-wide pass's line, last)
    unit = parse(text)
    shown: list[Decl] = []
    functions: list[Decl] = []
    for d in unit.decls:
        if phpdoc_tags.read(d.doc, lambda t, label: label or t).internal:
            continue
        (shown if d.kind in TYPE_KINDS else functions).append(d)
    if not shown and not functions:
        return EMPTY
    page = _Page(path, unit, inherits=inherits, docs=docs)
    first = True
    for t in shown:
        page.namespace = t.name.rsplit("\\", 1)[0] if "\\" in t.name else ""
        page.write_type(t, first)
        first = False
    if functions:
        page.namespace = functions[0].name.rsplit("\\", 1)[0] if "\\" in functions[0].name else ""
        page.write_functions(functions, first)
    php_inherit.entries(page)
    title = shown[0].name if shown else page.out[0][1].lstrip("# ").split(" {#")[0]
    return page.converted(title)
