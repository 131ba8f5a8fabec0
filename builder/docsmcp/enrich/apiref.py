"""API registry extraction: methods and types documented in a parsed markdown file.

Purely structural, never a list of corpus names: an *entry* is a heading that names an
identifier (backticked, or one code-like token such as `create_channel`, `links.create`,
`GetLinksRequest`, `deposit(chain, amount)`) whose section has API evidence:

- a parameter/field table (a name-like column and a Type column) in the section body or under
  a parameters sub-heading or label ("Parameters", "Request", "Fields", "**Arguments:**", ...);
- a parameter list there (items led by a backticked or bold name);
- a code block that mentions the identifier, either under a usage sub-heading or label
  ("Example Usage", "Usage", "Example", "Request") or as the section's declaration
  (`function lock(address target, uint256 amount)`, `interface AppAllocation {`);
- a paragraph that opens with the declaration as text (`_text_declaration`: TypeDoc's HTML
  signature, `interface CallToolResult {`, a member per line, `}`, as the MCP specification's
  schema page writes its types), whose members are the fields.

A section runs to the next heading of the same or a shallower level. Headings deeper in it
that are not entries themselves (prose sub-headings such as "Channel Structure", role
headings such as "Parameters") belong to the entry; a nested heading that is an entry with its
own evidence is emitted on its own and its blocks are left out of the enclosing entry.

Role sub-headings and labels decide what a block contributes: parameters ("Parameters",
"Arguments", "Request", "Fields", ...), the return value ("Response", "Returns", ...; a type in
bold, a link or backticks, else the field names of its table), usage examples. Every code
block of the section (diagrams aside) is an example, at most `MAX_EXAMPLES`.

Only top-level blocks of the one shared parse are looked at (`ParsedFile.blocks`); cells and
paragraphs are cleaned from the display lines with a few regexes, so extraction costs a small
fraction of parsing.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field, replace

from docsmcp_runtime.search.languages import DIAGRAM_LANGUAGES

from docsmcp.enrich.api_code import (
    _call_at,
    _call_line,
    _declaration,
    _fence_language,
    _mentions,
    _text_declaration,
)
from docsmcp.model.api import ApiEntry, Example, Parameter
from docsmcp.model.api_fields import (
    _EXAMPLE,
    _FIELD_COLUMNS,
    _GROUP_HEADINGS,
    _HEADING_ID,
    _KEY_STRIP,
    _LABEL,
    _LINK_ONLY,
    _METHOD_COLUMNS,
    _METHOD_PARAM_WORDS,
    _NESTED_PARAM,
    _PARAMS,
    _RETURNS,
    _RETURNS_IN_SIG,
    _ROLES,
    _SEPARATORS,
    _SPACES,
    _TYPE_PARAM_WORDS,
    _TYPE_SPAN,
    _VARIANT_WORDS,
    _WORDLIKE,
    MAX_DESCRIPTION_CHARS,
    MAX_EXAMPLE_CHARS,
    MAX_EXAMPLES,
    MAX_RETURNS_CHARS,
    MAX_SIGNATURE_CHARS,
    _heading_source,
    _Ident,
    _identifier,
    _norm_word,
    _parse_list,
    _parse_table,
    _parse_values,
    argument_names,
    clean_inline,
)
from docsmcp.model.chunk import Block, Chunk, ParsedFile
from docsmcp.model.text import truncate

# -- sections ----------------------------------------------------------------------------------


@dataclass
class _Heading:
    index: int  # index in parsed.blocks
    block: Block
    level: int
    source: str  # raw heading inline markdown (only read for identifier candidates)
    title: str  # clean heading text
    end_index: int = 0  # block index one past the section
    parent: int = -1  # index into the heading list of the enclosing heading
    ident: _Ident | None = None
    role: int = 0
    pos: int = 0  # index in the heading list


@dataclass
class _Scan:
    """What one entry's own blocks show."""

    params: list[Parameter] = field(default_factory=list)
    param_names: set[str] = field(default_factory=set)
    returns_type: str = ""  # a type in bold/link/backticks under a returns role
    declared_type: str = ""  # the entry's own type, `**Type:** `(lang: string) => I18nT``
    returns_fields: str = ""  # the field names of a returns table
    returns_text: str = ""  # else the first paragraph there
    examples: list[Example] = field(default_factory=list)
    description: list[str] = field(default_factory=list)
    evidence: bool = False
    method_strong: bool = False
    type_strong: bool = False
    call_signature: str = ""
    constructed: bool = False  # the call is `new Name(...)`
    declaration: str = ""
    variant_names: list[str] = field(default_factory=list)  # a union's member headings

    def add_params(self, params: list[Parameter]) -> None:
        for p in params:
            if p.name not in self.param_names:
                self.param_names.add(p.name)
                self.params.append(p)


def _headings(parsed: ParsedFile) -> list[_Heading]:
    lines = parsed.lines
    out: list[_Heading] = []
    stack: list[int] = []
    blocks = parsed.blocks
    for i, b in enumerate(blocks):
        if b.kind != "heading":
            continue
        title = b.title
        if "{#" in title:
            title = _HEADING_ID.sub("", title)
        if "<Badge" in lines[b.start]:  # dumi's `### Avatar.Group <Badge>4.5.0+</Badge>`
            title = clean_inline(_heading_source(lines, b))
        title = _SINCE.sub("", title)  # (the badge's text, once an MDX page's tags are gone)
        h = _Heading(i, b, b.level, "", " ".join(title.split()), pos=len(out))
        while stack and out[stack[-1]].level >= b.level:
            out[stack.pop()].end_index = i
        h.parent = stack[-1] if stack else -1
        stack.append(len(out))
        out.append(h)
    for k in stack:
        out[k].end_index = len(blocks)
    subject = (parsed.source.title or "").strip()
    for h in out:
        page_title = h.level == 1 and h.parent < 0
        # A heading naming the page's subject is no role word (`### Input` on Input's page).
        own = bool(subject) and h.title == subject
        if not page_title and not own:
            h.role = _ROLES.get(h.title.lower().strip(_KEY_STRIP), 0)
        if not h.role and (m := _PROPS_OF.match(h.title)) and _names_component(m[1], subject):
            h.ident = _Ident(m.group(1), "", "type", False)  # `### Select props`
        elif not h.role and _may_name_identifier(h.title, lines, h.block):
            h.source = _SINCE.sub("", _heading_source(lines, h.block))
            h.ident = _identifier(h.source, page_title or own)
    for h in out:
        if h.ident is None and h.level > 1 and _norm_word(h.title) in _PAGE_API_HEADINGS:
            top = h.parent < 0 or out[h.parent].level == 1 and out[h.parent].parent < 0
            h.ident = _page_identifier(parsed) if top else None
    return out


# The version a heading's name is available since, after it (dumi's badge: `Avatar.Group
# 4.5.0+`, `Statistic.Timer 5.25.0+`): no part of the name.
_SINCE = re.compile(r"[ \t]+v?\d+(?:\.\d+){1,3}\+$")
# A heading of a component's props (Ant Design: `### Select props`, `### Anchor Props`).
_PROPS_OF = re.compile(r"^([A-Z][\w$]*(?:\.[A-Za-z_$][\w$]*)*)[ \t]+(?:[Pp]rops|[Pp]roperties)$")


def _names_component(name: str, subject: str) -> bool:
    """Whether `name` (of `<name> props`) is a component's: the page's subject, or written as
    code (`TreeNode`, `Form.Item`), not a word ("Common props", "Custom properties")."""
    return name == subject or "." in name or any(c.isupper() for c in name[1:])


# The section of a component page that lists the component's own props first (dumi, Ant
# Design: `## API`, then the table of `Button`'s props, then `### Button.Group`'s).
_PAGE_API_HEADINGS = frozenset({"api"})


def _page_identifier(parsed: ParsedFile) -> _Ident | None:
    """The identifier a page's title names (`title: Button`), else None: a table right under
    its top-level `## API` heading is that identifier's (the scan wants the table as evidence,
    so an API section of prose or of sub-headings only names nothing)."""
    title = (parsed.source.title or "").strip()
    if not title or " " in title:
        return None
    return _identifier(title, page_title=True)


def _may_name_identifier(title: str, lines: list[str], block: Block) -> bool:
    """Cheap pre-check: a heading of several words names no identifier unless it has a call's
    parentheses or a code span (`` `ContractAddresses` type ``)."""
    raw = lines[block.start] if block.start < len(lines) else ""
    if not title or not (title[0].isalpha() or title[0] in "_$"):
        return "`" in raw
    return " " not in title or "(" in title or "`" in raw


def _scan(
    parsed: ParsedFile,
    headings: list[_Heading],
    h: _Heading,
    skip: list[tuple[int, int]],
    headings_at: dict[int, int],
    segment: str,
) -> _Scan:
    """Walk the entry's own blocks (its section minus nested entries) once.

    `role` is the role of the nearest sub-heading (-1 in the section body before any), a bold
    label overriding it until the next heading or label. A block is *direct* when it is in the
    body or under a role heading that is a child of the entry heading: for a heading that is a
    plain word ("Create", "list") only direct blocks count as evidence.
    """
    lines = parsed.lines
    blocks = parsed.blocks
    s = _Scan()
    strict = _WORDLIKE.fullmatch(segment) is not None
    name = h.ident.name if h.ident else ""
    role = -1
    direct = True
    variants = False  # under an enum's "Values" or a union's "Supported Types"
    variant_level = 0
    label_role: int | None = None
    description_done = False
    spans = sorted(skip)
    k = 0
    i = h.index + 1
    while i < h.end_index:
        if k < len(spans) and i >= spans[k][0]:
            i = max(i, spans[k][1])
            k += 1
            description_done = description_done or bool(s.description)
            continue
        b = blocks[i]
        i += 1
        if b.kind == "heading":
            pos = headings_at.get(b.start, -1)
            sub = headings[pos] if pos >= 0 else None
            role = sub.role if sub is not None else 0
            direct = sub is not None and sub.parent == h.pos and role > 0
            if variants and b.level > variant_level:
                s.variant_names.append(sub.title if sub is not None else b.title)
            else:
                variants = direct and sub is not None and sub.title.lower() in _VARIANT_WORDS
                variant_level = b.level
            label_role = None
            if direct and sub is not None:
                _role_signals(s, sub.title.lower().strip(_KEY_STRIP), role)
            description_done = description_done or bool(s.description)
            continue
        current = label_role if label_role is not None else role
        counts = direct or not strict
        if b.kind == "paragraph":
            raw = "\n".join(lines[b.start : b.end])
            first = raw.lstrip()
            lm = _LABEL.match(raw) if first.startswith(("**", "__")) else None
            if lm is not None:
                word = _norm_word(lm.group(1))
                rest = lm.group(3).strip()
                if word in _TYPE_LABELS and current == -1 and (typed := _CODE_ONLY.match(rest)):
                    # Starlight's and Astro's reference entries say their type so; an example
                    # below that calls the name shows arguments, not the signature.
                    s.declared_type = s.declared_type or typed.group(2).strip()
                    continue
                if word in _ROLES:
                    label_role = _ROLES[word]
                    _role_signals(s, word, label_role)
                    if rest and label_role & _RETURNS and not s.returns_type:
                        s.returns_type = truncate(clean_inline(rest), MAX_RETURNS_CHARS)
                    description_done = description_done or bool(s.description)
                    continue
                if not rest and (lm.group(2) or lm.group(1).rstrip().endswith(":")):
                    label_role = 0  # "**Scenarios:**": what follows is not a role's
                    description_done = description_done or bool(s.description)
                    continue
            if first.startswith((":::", "<!--", "[!")):
                continue  # admonition label, comment
            if not s.declaration and direct and current <= 0:
                found = _text_declaration(first, segment)
                if found is not None:
                    s.declaration, members, rest = found
                    s.evidence = s.type_strong = True
                    s.add_params(members)
                    if rest and not description_done:
                        s.description.append(truncate(rest, MAX_DESCRIPTION_CHARS))
                        description_done = True
                    continue
            if current > 0 and current & _RETURNS and not current & _PARAMS:
                text = clean_inline(raw)
                if _TYPE_SPAN.match(raw) and len(text) <= MAX_RETURNS_CHARS:
                    s.returns_type = s.returns_type or text
                elif not s.returns_text:
                    s.returns_text = truncate(text, MAX_RETURNS_CHARS)
                continue
            if not description_done and (current <= 0 or current & _EXAMPLE):
                text = clean_inline(raw)
                if text and text not in (name, h.title) and not _LINK_ONLY.match(first):
                    s.description.append(text)
                    if sum(len(d) + 1 for d in s.description) >= MAX_DESCRIPTION_CHARS:
                        description_done = True
                    continue
            description_done = description_done or bool(s.description)
            continue
        description_done = description_done or bool(s.description)
        if variants and b.kind in ("table", "code", "list"):
            s.evidence = s.type_strong = True
            if b.kind == "table":
                s.add_params(_parse_values(lines, b))
            continue
        if b.kind == "table":
            if current == -1 or (current > 0 and current & (_PARAMS | _RETURNS)):
                table = _parse_table(lines, b)
                if table is None:
                    continue
                if current > 0 and current & _RETURNS and not current & _PARAMS:
                    if not s.returns_fields:
                        fields = ", ".join(
                            f"{p.name} ({p.type})" if p.type else p.name for p in table.params
                        )
                        s.returns_fields = truncate("fields: " + fields, MAX_RETURNS_CHARS)
                    continue
                if counts:
                    s.evidence = True
                if table.name_column in _FIELD_COLUMNS:
                    s.type_strong = True
                elif table.name_column in _METHOD_COLUMNS:
                    s.method_strong = True
                s.add_params(table.params)
        elif b.kind == "list":
            if current > 0 and current & _PARAMS:
                found = _parse_list(lines, b)
                if found:
                    s.evidence = s.evidence or counts
                    s.add_params(found)
            elif current == -1 and h.ident is not None and h.ident.signature and not s.params:
                # A call whose body lists its arguments first (Electron's, Node.js' API pages).
                found = _parse_list(lines, b)
                if found and found[0].name in argument_names(h.ident.signature):
                    s.evidence = s.evidence or counts
                    s.add_params(found)
        elif b.kind == "code":
            language = _fence_language(lines, b)
            if language in DIAGRAM_LANGUAGES:
                continue
            code = b.search
            if not code.strip():
                continue
            if len(s.examples) < MAX_EXAMPLES:
                s.examples.append(Example(language, code[:MAX_EXAMPLE_CHARS]))
            if _mentions(code, segment) < 0:
                continue
            if not s.declaration:
                s.declaration = _declaration(code, segment)
                if s.declaration:
                    s.evidence = s.evidence or counts
                    s.type_strong = True
            if not s.call_signature:
                call = _call_line(code, segment)
                if call:
                    s.call_signature, s.constructed = call
                    s.evidence = s.evidence or counts and current <= 0
            if current > 0 and current & _EXAMPLE:
                if strict and not _calls(code, segment):
                    continue
                s.evidence = s.evidence or counts
    return s


# A label naming the entry's own type, and a value that is one code span.
_TYPE_LABELS = frozenset({"type", "signature"})
_CODE_ONLY = re.compile(r"^(`+)([^`]+)\1$")
# A function type's start: its type parameters, then `(` (`<T>(value: T) => T`).
_FUNCTION_TYPE = re.compile(r"^(?:<[^<>]*>\s*)?\(")


def _typed_signature(name: str, declared: str) -> tuple[str, str]:
    """(signature, returns) of a method whose documented type is `declared`: a function type
    gives `name(lang: string) => I18nT` and its return type, a signature naming the method
    (`**Signature:** `connect(url: string)``) itself, any other `name: Type`."""
    segment = _SEPARATORS.split(name)[-1]
    if re.match(rf"(?:[\w$.]+\s+)*{re.escape(segment)}\s*[(<]", declared):
        return truncate(declared, MAX_SIGNATURE_CHARS), ""  # a signature written out whole
    m = _FUNCTION_TYPE.match(declared)
    close = _closing(declared, m.end() - 1) if m else -1
    arrow = declared[close + 1 :].lstrip() if close >= 0 else ""
    if not arrow.startswith("=>"):
        return truncate(f"{name}: {declared}", MAX_SIGNATURE_CHARS), ""
    returns = arrow[2:].strip()  # (the parameters are the first parentheses: `(a) => (b) => c`)
    params = declared[m.end() - 1 : close + 1] if m else "()"
    return truncate(f"{name}{params} => {returns}", MAX_SIGNATURE_CHARS), returns


def _closing(text: str, start: int) -> int:
    """The offset of the parenthesis closing the one at `start`, or -1."""
    depth = 0
    for k in range(start, len(text)):
        depth += (text[k] == "(") - (text[k] == ")")
        if depth == 0:
            return k
    return -1


def _calls(code: str, segment: str) -> bool:
    return _call_at(code, segment)[0] >= 0


def _role_signals(s: _Scan, word: str, role: int) -> None:
    if role & _PARAMS:
        if word in _METHOD_PARAM_WORDS:
            s.method_strong = True
        elif word in _TYPE_PARAM_WORDS:
            s.type_strong = True
    if role & _RETURNS:
        s.method_strong = True


def _category(parsed: ParsedFile, headings: list[_Heading], h: _Heading) -> str:
    p = h.parent
    while p >= 0:
        title = headings[p].title
        if title and not headings[p].role and _norm_word(title) not in _GROUP_HEADINGS:
            return title
        p = headings[p].parent
    title = (parsed.source.title or "").strip()
    if title and h.ident is not None and title != h.ident.name:
        return title
    parts = parsed.source.path.rsplit("/", 2)
    return parts[-2] if len(parts) > 1 else ""


def _chunk_locator(chunks: list[Chunk]):
    spans = sorted((c.line_start, c.line_end, c.id) for c in chunks)
    starts = [s[0] for s in spans]

    def locate(first: int, last: int) -> str:
        k = bisect_right(starts, first) - 1
        if k >= 0 and spans[k][1] >= first:
            return spans[k][2]
        k = max(k + 1, 0)
        if k < len(spans) and spans[k][0] <= last:
            return spans[k][2]
        return ""

    return locate


def extract_api(parsed: ParsedFile, chunks: list[Chunk]) -> list[ApiEntry]:
    """API entries (methods and types) of one parsed file, in document order."""
    described = parsed.source.api  # a reST page's Sphinx objects (rst_objects.py)
    if described:
        locate = _chunk_locator(chunks)
        objects = [replace(e, chunk_id=locate(e.line_start, e.line_end)) for e in described]
        # A heading that titles a described object (an Elixir module page's `# Ecto.UUID`)
        # is that object, not a second entry.
        names = {e.name for e in described}
        starts = {e.line_start for e in described}
        headed = [
            e
            for e in _from_headings(parsed, chunks)
            if e.name not in names and e.line_start not in starts
        ]
        return sorted([*headed, *objects], key=lambda e: e.line_start)
    return _from_headings(parsed, chunks)


def _from_headings(parsed: ParsedFile, chunks: list[Chunk]) -> list[ApiEntry]:
    headings = _headings(parsed)
    candidates = [h for h in headings if h.ident is not None]
    if not candidates:
        return []
    headings_at = {h.block.start: h.pos for h in headings}
    lines = parsed.lines
    blocks = parsed.blocks
    n_lines = len(lines)
    emitted: dict[int, ApiEntry] = {}  # heading block index -> entry
    # Per heading: the (start, end) block ranges of emitted entries nested in its section.
    nested: dict[int, list[tuple[int, int]]] = {}
    locate = _chunk_locator(chunks)
    # Deepest headings first, so a nested entry is settled before the section around it.
    for h in sorted(candidates, key=lambda h: (-h.level, h.index)):
        ident = h.ident
        assert ident is not None
        skip = nested.get(h.pos, [])
        segment = _SEPARATORS.split(ident.name)[-1]
        s = _scan(parsed, headings, h, skip, headings_at, segment)
        if not s.evidence:
            continue
        kind = ident.kind_hint
        if not kind:
            if s.method_strong:
                kind = "method"
            elif s.type_strong:
                kind = "type"
            elif s.call_signature and not s.constructed:
                kind = "method"
            elif s.constructed or ident.name[:1].isupper() and not s.call_signature:
                kind = "type"
            else:
                kind = "method"
        if _WORDLIKE.fullmatch(segment) and not ident.backticked:
            # A capitalised plain word ("Create", "Security", "Guide") must be called as a
            # method or laid out as a type: a parameter table under it alone could be any
            # page's. (A lowercase one, `transfer`, is written as code already.)
            called = ident.signature or s.call_signature
            if kind == "method" and not called and segment[:1].isupper():
                continue
            if kind == "type" and not (s.type_strong or s.constructed):
                continue
        if s.declared_type and kind == "method":
            signature, declared_returns = _typed_signature(ident.name, s.declared_type)
            returns = s.returns_type or declared_returns
        elif kind == "type":
            signature = ident.signature or s.declaration
            if not signature and s.variant_names:
                signature = truncate(" | ".join(s.variant_names), MAX_SIGNATURE_CHARS)
        else:
            signature = ident.signature or s.call_signature
            names = [p.name for p in s.params if not _NESTED_PARAM.search(p.name)]
            if signature.endswith("(…)") and names:
                # A call spread over lines: its receiver, with the documented parameters.
                signature = f"{signature[:-2]}{', '.join(names)})"
            if not signature and names:
                signature = f"{ident.name}({', '.join(names)})"
        if not (s.declared_type and kind == "method"):
            returns = s.returns_type or s.returns_fields or s.returns_text
        if not returns and signature:
            rm = _RETURNS_IN_SIG.search(signature)
            if rm:
                returns = (rm.group(1) or rm.group(2) or "").strip()
        description = truncate(" ".join(s.description), MAX_DESCRIPTION_CHARS)
        last = max(blocks[h.end_index - 1].end, h.block.end)  # blocks are in line order
        line_start = min(h.block.start + 1, max(n_lines, 1))
        line_end = max(line_start, min(last, n_lines))
        emitted[h.index] = ApiEntry(
            name=ident.name,
            category=_category(parsed, headings, h),
            kind=kind,
            signature=_SPACES.sub(" ", signature).strip(),
            description=description,
            parameters=tuple(s.params),
            returns=returns,
            examples=tuple(s.examples),
            chunk_id=locate(line_start, line_end),
            path=parsed.source.path,
            line_start=line_start,
            line_end=line_end,
        )
        p = h.parent
        while p >= 0:  # at most five ancestors
            nested.setdefault(p, []).append((h.index, h.end_index))
            p = headings[p].parent
    return [emitted[k] for k in sorted(emitted)]
