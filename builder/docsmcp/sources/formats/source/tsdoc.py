"""A TypeScript file of a package's API read as the pages TypeDoc publishes from it.

TypeDoc documents each exported function, class, interface, type alias, enum and variable of
a package's entry points from its TSDoc/JSDoc comment: a page per module with a section per
declaration (its signature, its comment, *Parameters*, *Returns*, examples) and, for a class,
a section per public member. A file is converted to that page as markdown, read as text
(never compiled or run; ts_decls.py finds the declarations): `# addDays` (the module: its
`@module` name, else its path without `src/`, extension and `/index`, as TypeDoc names the
modules of several entry points), `## addDays` per declaration, `### Completions.create` per
member. Each declaration and member is an API registry entry named as TypeDoc names it
(`addDays`, `Completions.create`: the class, then the member), its parameters from the
signature with the `@param` text, its returns from the signature's type with `@returns`'
text, its examples from `@example`. What TypeDoc leaves out by default is left out: private
and protected members, `#private` names, `@internal`/`@hidden`/`@ignore`; a file with no
exported declaration converts to no text (no page). Which files are read at all is
typescript_site.py's decision.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from dataclasses import dataclass

from docsmcp_runtime.format.slugs import slugify

from docsmcp.model.api import ApiEntry, Example, Parameter
from docsmcp.model.api_fields import (
    MAX_DESCRIPTION_CHARS,
    MAX_EXAMPLE_CHARS,
    MAX_EXAMPLES,
    MAX_PARAM_DESCRIPTION_CHARS,
    MAX_RETURNS_CHARS,
    MAX_SIGNATURE_CHARS,
)
from docsmcp.model.text import truncate
from docsmcp.sources.formats.linemap import monotone
from docsmcp.sources.formats.markdown.fences import fence_for
from docsmcp.sources.formats.source.jsdoc_cjs import is_javascript, js_declarations
from docsmcp.sources.formats.source.ts_decls import Declaration, Member, declarations
from docsmcp.sources.formats.source.ts_scan import Doc, blank, closing
from docsmcp.sources.formats.source.tsdoc_inherit import (
    Context,
    base_path,
    inherited,
    overridden,
    split,
)
from docsmcp.sources.formats.source.tsdoc_tags import DocComment, parse_comment

MAX_OVERLOADS = 8  # signatures shown per function or method
# Suffixes of the files read (`.d.ts` and friends end in `.ts`).
_KIND_LABEL = {
    "function": "Function",
    "class": "Class",
    "interface": "Interface",
    "type": "Type alias",
    "enum": "Enumeration",
    "variable": "Variable",
    "accessor": "Property",  # (a JavaScript getter defined on an exported object)
}
_FENCE = re.compile(r"^\s*(```|~~~)\s*(\w*)")
_DECLARATION_FILE = re.compile(r"\.d\.[mc]?ts$", re.IGNORECASE)
_EXPORT = re.compile(r"^\s*export\b", re.MULTILINE)


@dataclass(frozen=True)
class TsPage:
    text: str  # markdown ("" when the file exports nothing: no page)
    title: str | None
    line_map: tuple[int, ...]
    api: tuple[ApiEntry, ...]


def module_name(path: str) -> str:
    """TypeDoc's name of the module of several entry points: the path from the source folder,
    without extension or a final `index` (`src/addDays/index.ts` -> `addDays`)."""
    stem = re.sub(r"(\.d)?\.[mc]?tsx?$|\.[mc]?js$", "", path, flags=re.IGNORECASE)
    parts = stem.split("/")
    for top in ("src", "lib", "source", "types", "dist"):
        if top in parts[:-1]:
            parts = parts[parts.index(top) + 1 :]
            break
    if len(parts) > 1 and parts[-1] == "index":
        parts = parts[:-1]
    return "/".join(parts)


def _split_top(text: str, sep: str = ",") -> list[str]:
    """`text` split at `sep` outside brackets."""
    out, k, start = [], 0, 0
    while k < len(text):
        ch = text[k]
        if ch in "([{<" and not (ch == "<" and text[k + 1 : k + 2] == "="):
            k = closing(text, k, len(text)) + 1
            continue
        if ch == sep:
            out.append(text[start:k])
            start = k + 1
        k += 1
    out.append(text[start:])
    return [p.strip() for p in out if p.strip()]


def _param_list(signature: str) -> tuple[str, str]:
    """(the parameters' text, the return type) of a signature as written."""
    code = blank(signature).code  # (a `(` in a string or default is no bracket)
    k = 0
    while k < len(code):
        if code[k] == "<":
            k = closing(code, k, len(code)) + 1
            continue
        if code[k] == "(":
            end = closing(code, k, len(code))
            rest = signature[end + 1 :].strip()
            returns = rest[1:].strip() if rest.startswith(":") else ""
            returns = returns.removesuffix("=>").strip().rstrip(";{").strip()
            return signature[k + 1 : end], returns
        if code[k] in "={":
            break
        k += 1
    return "", ""


def _parameters(signature: str, comment: DocComment | None) -> tuple[Parameter, ...]:
    params_text, _ = _param_list(signature)
    texts = {name: text for name, _, text in comment.params} if comment else {}
    types = {name: typ for name, typ, _ in comment.params} if comment else {}
    out = []
    for part in _split_top(params_text):
        head = _split_top(part, "=")
        default = len(head) > 1
        name_type = _split_top(head[0], ":") if head else [part]
        name = name_type[0].strip()
        typ = ":".join(name_type[1:]).strip() if len(name_type) > 1 else ""
        optional = name.endswith("?") or default
        name = name.rstrip("?").removeprefix("...").strip()
        if name == "this":
            continue
        out.append(
            Parameter(
                name,
                typ or types.get(name, ""),
                not optional,
                truncate(" ".join(texts.get(name, "").split()), MAX_PARAM_DESCRIPTION_CHARS),
            )
        )
    for name, typ, text in comment.params if comment else ():  # `options.in`: nested
        if "." in name and not any(p.name == name for p in out):
            out.append(Parameter(name, typ, False, truncate(" ".join(text.split()), 300)))
    return tuple(out)


def _first_paragraph(text: str) -> str:
    words: list[str] = []
    for line in text.split("\n"):
        if not line.strip() or _FENCE.match(line) or line.lstrip().startswith("#"):
            if words:
                break
            continue
        words.append(line.strip())
    return truncate(" ".join(" ".join(words).split()), MAX_DESCRIPTION_CHARS)


def _examples(comment: DocComment | None) -> tuple[Example, ...]:
    out = []
    for shown in comment.examples if comment else ():
        code: list[str] | None = None
        language = ""
        for line in shown.split("\n"):
            m = _FENCE.match(line)
            if m and code is None:
                code, language = [], m.group(2) or "ts"
            elif m and code is not None:
                out.append(Example(language, truncate("\n".join(code), MAX_EXAMPLE_CHARS)))
                code = None
            elif code is not None:
                code.append(line)
    return tuple(e for e in out if e.code.strip())[:MAX_EXAMPLES]


class _Page:
    """The markdown lines with the source line each comes from, and the registry entries."""

    def __init__(self, path: str, language: str = "ts") -> None:
        self.path = path
        self.language = language  # of the code blocks of signatures
        self.lines: list[str] = []
        self.map: list[int] = []
        self.api: list[ApiEntry] = []
        # an inherited method's entry (by id) -> the entry of the base's section on this page
        self.aliases: dict[int, str] = {}

    def add(self, source_line: int, *lines: str) -> None:
        for text in lines:
            for line in text.split("\n"):  # (one markdown line each: entries count them)
                self.lines.append(line)
                self.map.append(source_line)

    def text_block(self, source_line: int, text: str, indent: str = "") -> None:
        for line in text.split("\n"):
            self.add(source_line, (indent + line) if line.strip() else "")

    def code(self, source_line: int, lines: list[str]) -> None:
        fence = fence_for(lines)
        self.add(source_line, "", f"{fence}{self.language}", *lines, fence)

    def comment(self, line: int, comment: DocComment | None, signature: str, returns_type: str):
        """The comment's text, deprecation, parameters, returns, blocks and examples."""
        if comment is None:
            return
        if comment.deprecated is not None:
            note = f"**Deprecated.** {comment.deprecated}".strip()
            self.add(line, "")
            self.text_block(line, note)
        texts = [comment.text]
        if comment.summary not in comment.text:  # (date-fns repeats its `@summary`)
            texts.insert(0, comment.summary)
        for text in texts:
            if text:
                self.add(line, "")
                self.text_block(line, text)
        params = [p for p in _parameters(signature, comment) if p.description] if signature else []
        if params:
            self.add(line, "", "**Parameters**", "")
            for p in params:
                typ = f" (`{p.type}`)" if p.type and len(p.type) <= 80 else ""
                self.add(line, f"- `{p.name}`{typ}: {p.description}")
        if comment.returns:
            typ = f" `{returns_type}`" if returns_type and len(returns_type) <= 80 else ""
            self.add(line, "", f"**Returns**{typ}: {' '.join(comment.returns.split())}")
        for label, text in comment.blocks:
            self.add(line, "")
            self.text_block(line, f"**{label}**: {text}")
        for k, example in enumerate(comment.examples):
            label = "**Example**" if len(comment.examples) == 1 else f"**Example {k + 1}**"
            self.add(line, "", label, "")
            self.text_block(line, example)


def _comment(doc: Doc | None) -> DocComment | None:
    return parse_comment(doc.text) if doc is not None else None


def _hidden(comment: DocComment | None) -> bool:
    return comment is not None and comment.hidden


def _member_lines(
    page: _Page, owner: Declaration, members: list[Member], origin: dict[str, str]
) -> None:
    """Properties as a list (TypeDoc's member rows), each with its comment's text and the
    base it is inherited from (`origin`: member name -> base). A class's or interface's
    property is an entry of its row (`ChatCompletionCreateParams.temperature`), as TypeDoc's
    `#temperature` anchor points into the declaration's page."""
    page.add(members[0].line, "", "**Properties**", "")
    for m in members:
        comment = _comment(m.doc)
        typ = f": {m.type}" if m.type and len(m.type) <= 120 else ""
        opt = "?" if m.optional else ""
        static = "static " if m.static else ""
        head = f"- `{static}{m.name}{opt}{typ}`"
        if m.kind == "member":  # an enum's: `Red = "red"`
            head = f"- `{m.signatures[0]}`" if m.signatures else f"- `{m.name}`"
        text = " ".join(comment.text.split("\n\n")[0].split()) if comment and comment.text else ""
        if comment and comment.deprecated is not None:
            text = " ".join(f"**Deprecated.** {comment.deprecated} {text}".split())
        if m.name in origin:
            text = f"{text} *(inherited from `{origin[m.name]}`)*".strip()
        page.add(m.line, f"{head}{': ' + text if text else ''}")
        if m.kind == "property" and owner.kind in ("class", "interface"):
            signature = f"{static}{m.name}{opt}: {m.type}" if m.type else f"{m.name}{opt}"
            row = len(page.lines) - 1
            _entry(
                page, f"{owner.name}.{m.name}", owner.name, "type", signature, comment, (), "", row
            )


def _entry(
    page: _Page,
    name: str,
    category: str,
    kind: str,
    signature: str,
    comment: DocComment | None,
    params: tuple[Parameter, ...],
    returns: str,
    first: int,
    inherited: bool = False,
) -> None:
    described = ""
    if comment is not None:
        described = _first_paragraph(comment.summary or comment.text)
        if comment.deprecated is not None:
            described = truncate(f"Deprecated. {described}".strip(), MAX_DESCRIPTION_CHARS)
    if comment is not None and comment.returns:
        returns = f"{returns}: {comment.returns}" if returns else comment.returns
    page.api.append(
        ApiEntry(
            name=name,
            category=category,
            kind=kind,
            signature=truncate(signature, MAX_SIGNATURE_CHARS),
            description=described,
            parameters=params,
            returns=truncate(" ".join(returns.split()), MAX_RETURNS_CHARS),
            examples=_examples(comment),
            chunk_id="",
            path=page.path,
            line_start=first + 1,
            line_end=len(page.lines),
            inherited=inherited,
        )
    )


def _base_link(page: _Page, base: str, context: Context, here: frozenset[str]) -> str | None:
    """Where the section of the base `base` is: `#zodtype` on this page, `../x.ts#abstractpage`
    on another page showing it, None where no page does (its members are then copied)."""
    where = base_path(context, base)
    if where == page.path and base in here:
        return ""
    if where and (where, base) in context.elsewhere:
        return posixpath.relpath(where, posixpath.dirname(page.path) or ".")
    return None


def _linked(page: _Page, owner: Declaration, linked: list[tuple[Member, str, str]]) -> None:
    """The methods `owner` inherits from bases whose sections a page shows: a line per base,
    each method a link to the base's section (as Doxygen's and Javadoc's lists of inherited
    members), and each an entry named as the child's (`ZodString.parse`) with the signature in
    the child's terms; on this page that entry is the base's section (`_resolve_aliases`),
    else this line. The 158 schemas of zod inheriting ZodType's 47 methods are no copies."""
    groups: dict[tuple[str, str], list[Member]] = {}
    for m, base, where in linked:
        groups.setdefault((base, where), []).append(m)
    for (base, where), members in groups.items():
        names = ", ".join(f"[{m.name}]({where}#{slugify(f'{base}.{m.name}')})" for m in members)
        page.add(
            owner.last_line, "", f"**Inherited from [{base}]({where}#{slugify(base)}):** {names}"
        )
        row = len(page.lines) - 1
        for m in members:
            comment = _comment(m.doc)
            signature = m.signatures[0] if m.signatures else m.name
            _, returns = _param_list(signature)
            returns = (comment.returns_type if comment else "") or returns
            params = _parameters(signature, comment)
            name = f"{owner.name}.{m.name}"
            _entry(page, name, owner.name, "method", signature, comment, params, returns, row, True)
            if not where:
                page.aliases[id(page.api[-1])] = f"{base}.{m.name}"


def _resolve_aliases(page: _Page) -> None:
    """Each inherited method's entry of a base on this page takes the lines of the base's own
    section (`ZodString.parse` is `ZodType.parse`'s section): one section, found by each name."""
    if not page.aliases:
        return
    sections: dict[str, ApiEntry] = {}
    for e in page.api:
        sections.setdefault(e.name, e)
    for k, e in enumerate(page.api):
        target = sections.get(page.aliases.get(id(e), ""))
        if target is not None:
            page.api[k] = dataclasses.replace(
                e, line_start=target.line_start, line_end=target.line_end
            )


def _declaration(
    page: _Page, title: str, d: Declaration, context: Context, here: frozenset[str] = frozenset()
) -> None:
    comment = _comment(d.doc)
    if _hidden(comment):
        return
    # TypeDoc lists a class's or interface's inherited members with its own, marked "Inherited
    # from": placed at the declaration's last line (the base's lines are another file's). A
    # property is a row of the list; a method whose base a page shows is a link to its section
    # (`_linked`), else (the base shown nowhere) a section of the child's
    origin: dict[str, str] = {}
    extra: list[Member] = []
    linked: list[tuple[Member, str, str]] = []
    for m, base in inherited(d, context):
        if m.kind in ("method", "accessor"):
            where = _base_link(page, base, context, here)
            if where is not None:
                if not _hidden(_comment(m.doc)):
                    linked.append((m, base, where))
                continue
        origin[m.name] = base
        extra.append(dataclasses.replace(m, line=d.last_line))
    overrides = overridden(d, context)
    if overrides:  # an override without a comment shows the base's, as TypeDoc does
        own = tuple(
            dataclasses.replace(m, doc=overrides[m.name][0].doc)
            if m.name in overrides and m.doc is None
            else m
            for m in d.members
        )
        d = dataclasses.replace(d, members=own)
    if extra:
        d = dataclasses.replace(d, members=d.members + tuple(extra))
    over = {name: base for name, (_, base) in overrides.items()}
    first = len(page.lines) + 1
    page.add(d.doc and _doc_line(d) or d.line, "", f"## {d.name}", "")
    page.add(d.line, f"*{_KIND_LABEL[d.kind]}*")
    signatures = list(d.signatures[:MAX_OVERLOADS])
    page.code(d.line, signatures)
    signature = signatures[0] if signatures else ""
    _, returns = _param_list(signature) if d.kind == "function" else ("", "")
    returns = (comment.returns_type if comment else "") or returns
    page.comment(d.line, comment, signature if d.kind == "function" else "", returns)
    members = [m for m in d.members if not _hidden(_comment(m.doc))]
    listed = [m for m in members if m.kind in ("property", "member")]
    own_entry = len(page.api)  # (the declaration's entry comes before its properties')
    if listed:
        _member_lines(page, d, listed, origin)
    if linked:
        _linked(page, d, linked)
    params: tuple[Parameter, ...] = ()
    if d.kind == "function":
        params = _parameters(signature, comment)
    elif listed and d.kind in ("interface", "type", "enum"):
        params = tuple(
            Parameter(m.name, m.type, not m.optional, _first_paragraph(c.text) if c else "")
            for m in listed
            for c in [_comment(m.doc)]
        )
    ctor = next((m for m in members if m.kind == "constructor"), None)
    if ctor is not None:
        params = _parameters(ctor.signatures[-1], _comment(ctor.doc))
    kind = "method" if d.kind == "function" else "type"
    _entry(page, d.name, title, kind, signature, comment, params, returns, first)
    page.api.insert(own_entry, page.api.pop())
    for m in members:
        if m.kind in ("method", "accessor", "constructor"):
            _method(page, d, m, origin.get(m.name, ""), over.get(m.name, ""))


def _doc_line(d: Declaration) -> int:
    return d.line


def _method(
    page: _Page, owner: Declaration, m: Member, base: str = "", overrides: str = ""
) -> None:
    comment = _comment(m.doc)
    name = f"{owner.name}.{m.name}"
    first = len(page.lines) + 1
    page.add(m.line, "", f"### {name}", "")
    signatures = list(m.signatures[:MAX_OVERLOADS])
    page.code(m.line, signatures)
    if base:
        page.add(m.line, "", f"*Inherited from `{base}.{m.name}`*")
    elif overrides:
        page.add(m.line, "", f"*Overrides `{overrides}.{m.name}`*")
    signature = signatures[0]
    _, returns = _param_list(signature)
    returns = (comment.returns_type if comment else "") or returns
    page.comment(m.line, comment, signature, returns)
    params = _parameters(signature, comment)
    _entry(page, name, owner.name, "method", signature, comment, params, returns, first, bool(base))


def _module_doc(text: str) -> tuple[str | None, DocComment | None, int]:
    """The file's `@module`/`@packageDocumentation` comment: (its name, it, its line)."""
    for doc in blank(text[:200_000]).docs[:4]:
        comment = parse_comment(doc.text)
        if comment.module is not None:
            return comment.module or None, comment, text.count("\n", 0, doc.start)
    return None, None, 0


def typescript_to_markdown(path: str, text: str) -> TsPage:
    """The page TypeDoc would publish for the module in `text` (its exported declarations);
    a gathered page's text is followed by other files' declarations (tsdoc_inherit.py)."""
    text, context = split(text)
    ambient = bool(_DECLARATION_FILE.search(path)) and not _EXPORT.search(text)
    script = is_javascript(path)  # JSDoc of a plain JavaScript package (jsdoc_cjs.py)
    found = js_declarations(text) if script else declarations(text, ambient=ambient)
    name, module_comment, module_line = _module_doc(text)
    shown = [d for d in found if not _hidden(_comment(d.doc))]
    if context.only is not None:  # a module of types the API names, no entry point exports
        shown = [d for d in shown if d.name in context.only]
    if not shown:
        return TsPage("", None, (), ())
    title = name or module_name(path)
    page = _Page(path, "js" if script else "ts")
    page.add(module_line, f"# {title}")
    if module_comment is not None and module_comment.text:
        page.add(module_line, "")
        page.text_block(module_line, module_comment.text)
    here = frozenset(d.name for d in shown)
    for d in shown:
        _declaration(page, title, d, context, here)
    _resolve_aliases(page)
    # A declaration exported in a namespace is also an entry of the name users call it by
    # (`z.object`, `z.coerce.string`): the same section, found by the runtime as one.
    top = {d.name for d in shown}
    page.api.extend(
        dataclasses.replace(e, name=f"{space}.{e.name}")
        for space in context.namespaces
        for e in list(page.api)
        if e.name in top
    )
    return TsPage("\n".join(page.lines), title, monotone(list(page.map)), tuple(page.api))
