"""A Solidity source file read as the API pages solidity-docgen (OpenZeppelin's docs) and forge
doc (Foundry's) publish from its NatSpec comments (packages/solidity_project.py decides which
files are pages).

**The page is the file** (the unit of ids, line maps and the parse cache, as for every reader of
code; forge doc pages a contract, docgen a folder, and most files hold one contract). A file of
one contract is titled by it (`# ERC20`); otherwise by its name (`# BalanceDelta.sol`), each
contract and file-level declaration a section of its own. A contract's section holds its
declaration as written (`abstract contract ERC20 is Context, IERC20, …`), its `@title`,
`@author`, `@notice` (the text) and `@dev` (a note), its `@custom:` tags, its bases (links or
references) and a line per base of what it inherits (sol_inherit.py); then groups as forge doc
makes them: State variables, Functions, Modifiers, Events, Errors, Structs, Enums, Types. Each
member is a section named as users name it (`### ERC20.transfer`), anchored as docgen anchors
it (`ERC20-transfer-address-uint256-`), over its signature as written, its text, parameters
(`@param`), returns (`@return`) and, for a public variable, the getter solc makes of it.
`@inheritdoc Base` copies the base function's tags, as solc does. `{IERC20-transfer}` references
are links to a section of the page, else references the build resolves (`object:` anchors).

What the generators hide is hidden: `private` members (docgen shows internal functions and
variables: a library's API is its internal functions). Every contract and member shown is an
API entry (`ERC20`, `ERC20.transfer`, `IERC20.Transfer`, `Ownable.OwnableUnauthorizedAccount`,
a file-level `toBalanceDelta`), kinded in Solidity's words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from docsmcp.model.api import OBJECT_ANCHOR, Parameter
from docsmcp.model.source import Converted
from docsmcp.sources.formats.linemap import monotone
from docsmcp.sources.formats.markdown.fences import code_block, code_span
from docsmcp.sources.formats.source import natspec, sol_inherit
from docsmcp.sources.formats.source.doc_entries import source_entry
from docsmcp.sources.formats.source.page_text import PageText, unique_anchor
from docsmcp.sources.formats.source.solidity_parse import Contract, Member, Unit, parse

MAX_ENTRIES = 20_000
MAX_VALUE_CHARS = 160
MAX_INHERITDOC = 4  # `@inheritdoc` followed through bases, at most
EMPTY = Converted("", None, (), (), (), ())
# forge doc's groups, in its order: (title, member kinds)
GROUPS = (
    ("State variables", ("variable",)),
    ("Functions", ("constructor", "function", "fallback", "receive")),
    ("Modifiers", ("modifier",)),
    ("Events", ("event",)),
    ("Errors", ("error",)),
    ("Structs", ("struct",)),
    ("Enums", ("enum",)),
    ("Types", ("type",)),
)
_CALLABLE = ("constructor", "function", "fallback", "receive", "modifier", "event", "error")
_ELEMENTARY = {"uint": "uint256", "int": "int256", "byte": "bytes1", "ufixed": "ufixed128x18"}
_ELEMENTARY_WORD = re.compile(r"\b(uint|int|byte|ufixed)\b")
_MAPPING_NAME = re.compile(r"(\w|\])[ \t]+(?!payable\b)[A-Za-z_$][\w$]*[ \t]*(=>|\))")
_LINK_TEXT = re.compile(r"\[([^\[\]\n]*)\]\([^()\s]*\)")


def type_string(written: str) -> str:
    """A type as solc's typeString writes it for docgen's anchors, as far as the source says
    it: `uint` is `uint256`, a mapping's key and value names are out."""
    text = _ELEMENTARY_WORD.sub(lambda m: _ELEMENTARY[m.group(1)], written)
    return _MAPPING_NAME.sub(lambda m: m.group(1) + (" =>" if m.group(2) == "=>" else ")"), text)


def _slug(text: str) -> str:
    return re.sub(r"\W", "-", text)


def docgen_anchor(contract: str, m: Member) -> str:
    """The anchor solidity-docgen gives a member (OpenZeppelin's templates' `anchor`):
    `ERC20-transfer-address-uint256-`, `AccessControl-DEFAULT_ADMIN_ROLE-bytes32`."""
    out = f"{contract}-" if contract else ""
    out += m.name
    if m.kind in _CALLABLE:
        out += _slug("(" + ",".join(type_string(p.type) for p in m.params) + ")")
    elif m.kind == "variable":
        out += "-" + _slug(type_string(m.type))
    return out


def _shown(m: Member) -> bool:
    return m.visibility != "private"


def _value(text: str) -> str:
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def _field_text(doc: str | None) -> str:
    """What a struct field's own comment says (its `@notice`/`@dev`, or its text)."""
    said = natspec.read(doc)
    return _join_text(said.notice, said.dev)


def _join_text(a: str, b: str) -> str:
    return f"{a}\n\n{b}" if a and b else a or b


def _returns(m: Member, doc: natspec.NatSpec) -> list[tuple[str, str]]:
    """Each return variable as written, with its `@return` text (solc: a named one's text
    starts with its name, which is not shown twice)."""
    rows = []
    for k, p in enumerate(m.returns):
        text = doc.returns[k] if k < len(doc.returns) else ""
        if p.name and text.split(" ", 1)[0] == p.name:
            text = text[len(p.name) :].strip()
        rows.append((p.written(), text))
    return rows


def getter(m: Member) -> str:
    """The function solc makes of a public state variable: a mapping's keys and an array's
    indexes are its parameters."""
    params: list[str] = []
    t = type_string(m.type)
    for _ in range(16):
        if t.startswith("mapping(") and t.endswith(")"):
            inner = t[len("mapping(") : -1]
            depth, cut = 0, -1
            for k, c in enumerate(inner):
                if c in "([":
                    depth += 1
                elif c in ")]":
                    depth -= 1
                elif depth == 0 and inner.startswith("=>", k):
                    cut = k
                    break
            if cut < 0:
                break
            params.append(inner[:cut].strip())
            t = inner[cut + 2 :].strip()
        elif t.endswith("]") and "[" in t:
            params.append("uint256")
            t = t[: t.rindex("[")].rstrip()
        else:
            break
    return f"function {m.name}({', '.join(params)}) external view returns ({t})"


@dataclass
class _Page(PageText):
    unit: Unit
    inherits: dict[str, list[Any]] = field(default_factory=dict)
    docs: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    local: dict[str, str] = field(default_factory=dict)  # qualified name -> anchor
    used: set[str] = field(default_factory=set)
    pending: list[str] = field(default_factory=list)
    owner: Contract | None = None  # the contract being written
    inherited: dict[str, str] = field(default_factory=dict)  # its inherited members -> base
    aliases: list[tuple[str, str, dict, int]] = field(default_factory=list)  # (sol_inherit)
    sections: list[int] = field(default_factory=list)  # where each heading's lines start
    member_anchor: dict[int, str] = field(default_factory=dict)  # id(member) -> its anchor
    suffixes: dict[str, int] = field(default_factory=dict)  # anchor -> the next `-k` to try

    def add(self, line: int, text: str) -> None:
        """A line of the page; a text of several (two `@author` tags) is as many."""
        for x in text.split("\n"):
            self.out.append((line, x))

    # -- references ----------------------------------------------------------------------------

    def target(self, contract: str, member: str) -> str:
        """The qualified name a docgen reference means: `{C-m}` C.m; `{X}` a member of the
        contract being written (or one it inherits), else a declaration named X."""
        if contract and member:
            return f"{contract}.{member}"
        name = contract or member
        owner = self.owner.name if self.owner else ""
        if owner and f"{owner}.{name}" in self.local:
            return f"{owner}.{name}"
        if name in self.local:
            return name
        if name in self.inherited:
            return f"{self.inherited[name]}.{name}"
        return name

    def link(self, contract: str, member: str, label: str) -> str:
        full = self.target(contract, member)
        shown = label or code_span(full)
        anchor = self.local.get(full)
        if anchor is not None:
            return f"[{shown}](#{anchor})"
        self.pending.append(full)
        return shown

    def text(self, said: str) -> list[str]:
        return natspec.markdown(said, self.link) if said else []

    # -- structure -----------------------------------------------------------------------------

    def heading(self, level: int, line: int, title: str, anchor: str, names: list[str]) -> int:
        self.blank(line)
        at = len(self.out)
        self.sections.append(at)
        self.add(line, f"{'#' * level} {title} {{#{anchor}}}")
        self.anchors += [(at, OBJECT_ANCHOR + n) for n in dict.fromkeys(names) if n]
        return at

    def new_anchor(self, text: str) -> str:
        """`text` as an anchor, `-2`, `-3`… after it where the page has it (overloads), the
        next suffix remembered: 30,000 overloads cost linear time."""
        base = re.sub(r"[^\w.\-]", "", text) or "section"
        k = self.suffixes.get(base, 1)
        anchor = base if k == 1 else f"{base}-{k}"
        while anchor in self.used:
            k += 1
            anchor = f"{base}-{k}"
        self.suffixes[base] = k + 1
        return unique_anchor(anchor, self.used)

    def plan(self, contracts: list[Contract], free: list[Member]) -> None:
        """Every section's anchor, before any is written (a reference may point ahead)."""
        for m in free:
            anchor = self.new_anchor(docgen_anchor("", m))
            self.local.setdefault(m.name, anchor)
            self.member_anchor[id(m)] = anchor
        for c in contracts:
            self.local.setdefault(c.name, self.new_anchor(c.name))
            for m in c.members:
                if _shown(m):
                    anchor = self.new_anchor(docgen_anchor(c.name, m))
                    self.local.setdefault(f"{c.name}.{m.name}", anchor)
                    self.member_anchor[id(m)] = anchor

    # -- a contract ----------------------------------------------------------------------------

    def write_contract(self, c: Contract, level: int) -> None:
        self.owner = c
        self.inherited = sol_inherit.member_names(self.inherits.get(c.name, []))
        self.pending = []
        doc = natspec.read(c.doc)
        line = c.doc_line if c.doc_line >= 0 else c.line
        at = self.heading(level, line, c.name, self.local[c.name], [c.name])
        self.declaration(c.line, c.signature)
        self.prose(line, doc)
        if c.bases:
            shown = ", ".join(self.link(b.rpartition(".")[2], "", "") for b in c.bases)
            self.lines(c.line, [f"**Inherits:** {shown}"])
        self.refs += [(at, t) for t in dict.fromkeys(self.pending)]
        kind = f"abstract {c.kind}" if c.abstract else c.kind
        self.entry(c.name, kind, c.signature, doc.summary, at, (), "")
        if c.name in self.inherits:
            sol_inherit.write(self, c.name, c.line, self.inherits[c.name])
        for title, kinds in GROUPS:
            members = [m for m in c.members if m.kind in kinds and _shown(m)]
            if members:
                self.heading(level + 1, members[0].line, title, self.new_anchor(title.lower()), [])
                for m in members:
                    self.write_member(m, c, level + 2)
        self.owner = None
        self.inherited = {}

    def inheritdoc(self, base: str, m: Member, depth: int = 0) -> natspec.NatSpec | None:
        """The tags of the function `m` overrides in `base` (page or pass), its own
        `@inheritdoc` followed."""
        types = [type_string(p.type) for p in m.params]
        found: list[tuple[list[str], str]] = []
        for c in self.unit.contracts:
            if c.name == base:
                found += [
                    ([type_string(p.type) for p in x.params], x.doc or "")
                    for x in c.members
                    if x.name == m.name
                ]
        if not found:
            for x in self.docs.get(base, {}).get(m.name, ()):
                if isinstance(x, dict):
                    found.append(([str(t) for t in x.get("types", ())], str(x.get("doc", ""))))
        if not found:
            return None
        doc = natspec.read(next((d for t, d in found if t == types), found[0][1]))
        if doc.inheritdoc and doc.inheritdoc != base and depth < MAX_INHERITDOC:
            further = self.inheritdoc(doc.inheritdoc, m, depth + 1)
            if further is not None:
                doc = natspec.inherit(doc, further)
        return doc

    def write_member(self, m: Member, c: Contract | None, level: int) -> None:
        self.pending = []
        owner = c.name if c else ""
        full = f"{owner}.{m.name}" if owner else m.name
        anchor = self.member_anchor.get(id(m)) or self.local.get(full) or ""
        line = m.doc_line if m.doc_line >= 0 else m.line
        at = self.heading(level, line, full, anchor, [full, m.name] if owner else [full])
        doc = natspec.read(m.doc)
        self.declaration(m.line, m.signature)
        if doc.inheritdoc:
            base = self.inheritdoc(doc.inheritdoc, m)
            said = self.link(doc.inheritdoc, m.name, "")
            if base is not None:
                doc = natspec.inherit(doc, base)
            self.lines(line, [f"*Documentation from {said} (`@inheritdoc`).*"])
        self.prose(line, doc)
        self.parts(line, m, doc)
        self.refs += [(at, t) for t in dict.fromkeys(self.pending)]
        params = tuple(
            Parameter(p.name, p.written().removesuffix(f" {p.name}"), True, doc.param(p.name))
            for p in (m.params if m.kind in _CALLABLE else ())
        )
        signature = m.signature
        rows = _returns(m, doc)
        returns = ", ".join(w for w, _ in rows)
        said = " ".join(t for _, t in rows if t)
        if m.kind == "variable":
            returns = type_string(m.type)
            said = " ".join(doc.returns)
            if m.visibility == "public":
                signature = f"{m.signature}; {getter(m)}"
        if said and returns:
            returns = f"{returns}: {said}"
        kind = "constant" if "constant" in m.flags else m.kind
        self.entry(full, kind, signature, doc.summary, at, params, returns)
        for p, said in m.fields:  # (a struct's fields, looked up as `PoolKey.fee`: its rows)
            if p.name:
                text = doc.param(p.name) or _field_text(said)
                self.entry(f"{full}.{p.name}", "field", p.written(), text, at, (), p.type)

    # -- parts ---------------------------------------------------------------------------------

    def declaration(self, line: int, text: str) -> None:
        self.blank(line)
        for x in code_block("", "solidity", [text]):
            self.add(line, x)

    def prose(self, line: int, doc: natspec.NatSpec) -> None:
        for label, said in (("Title", doc.title), ("Author", doc.author)):
            text = self.text(said)
            if text:
                self.lines(line, [f"**{label}:** {text[0]}", *text[1:]])
        self.lines(line, self.text(doc.notice))
        dev = self.text(doc.dev)
        if dev:
            self.lines(line, [f"**Note:** {dev[0]}", *dev[1:]])
        for tag, said in doc.custom:
            text = self.text(said)
            self.lines(line, [f"**{tag}:** {text[0] if text else ''}", *text[1:]])

    def parts(self, line: int, m: Member, doc: natspec.NatSpec) -> None:
        if m.kind == "variable" and m.visibility == "public":
            self.lines(line, [f"**Getter:** {code_span(getter(m))}"])
        if m.kind == "variable" and m.value and "constant" in m.flags:
            self.lines(line, [f"**Value:** {code_span(_value(m.value))}"])
        if m.kind in _CALLABLE and m.params:
            self.bullets(line, "Parameters", [(p.written(), doc.param(p.name)) for p in m.params])
        if m.returns:
            self.bullets(line, "Returns", _returns(m, doc))
        elif doc.returns and m.kind == "variable":
            self.lines(line, ["**Returns:** " + " ".join(doc.returns)])
        if m.fields:
            rows = [(p.written(), doc.param(p.name) or _field_text(f)) for p, f in m.fields]
            self.bullets(line, "Fields", rows)
        if m.values:
            self.bullets(line, "Values", [(v, doc.param(v) or (d or "")) for v, d in m.values])

    def bullets(self, line: int, title: str, rows: list[tuple[str, str]]) -> None:
        self.lines(line, [f"**{title}:**", ""])
        for written, said in rows:
            text = self.text(said)
            head = f"- {code_span(written)}" + (f" — {text[0]}" if text else "")
            self.add(line, head)
            for x in text[1:]:
                self.add(line, f"  {x}" if x else "")

    def entry(
        self,
        name: str,
        kind: str,
        signature: str,
        summary: str,
        at: int,
        params: tuple[Parameter, ...],
        returns: str,
    ) -> None:
        if len(self.api) >= MAX_ENTRIES:
            return
        end = self.last_text(at)
        text = " ".join(
            natspec.markdown(summary, lambda c, m, label: label or ".".join(x for x in (c, m) if x))
        )
        self.api.append(
            source_entry(
                name=name,
                category=name.rsplit(".", 1)[0],
                kind=kind,
                signature=signature,
                description=_LINK_TEXT.sub(r"\1", text).strip(),
                parameters=params,
                returns=returns,
                path=self.path,
                line_start=at + 1,
                line_end=max(at, end) + 1,
            )
        )


def sol_to_markdown(path: str, text: str) -> Converted:
    """The API page of the Solidity file `text` (see the module's docstring)."""
    text, inherits, docs = sol_inherit.split(text)  # (the tree-wide pass's line, last)
    unit = parse(text)
    contracts = unit.contracts
    free = [m for m in unit.free if m.kind != "variable" or "constant" in m.flags]
    if not contracts and not free:
        return EMPTY
    page = _Page(path, unit, inherits, docs)
    page.plan(contracts, free)
    if len(contracts) == 1 and not free:
        page.write_contract(contracts[0], 1)
        title = contracts[0].name
    elif len(free) == 1 and not contracts:  # (v4-core's `PoolKey.sol`: one struct)
        page.write_member(free[0], None, 1)
        title = free[0].name
    else:
        title = path.rsplit("/", 1)[-1]
        first = min([c.line for c in contracts] + [m.line for m in free])
        page.heading(1, first, title, page.new_anchor(title.rsplit(".", 1)[0] + "-sol"), [])
        for m in sorted(free, key=lambda m: m.line):
            page.write_member(m, None, 2)
        for c in contracts:
            page.write_contract(c, 2)
    sol_inherit.entries(page)
    # Each section's lines follow its declaration; sections are in forge doc's order, not the
    # file's, so the map is monotone per section (a chunk's range is its declaration's).
    numbers = [n for n, _ in page.out]
    cuts = [*page.sections[1:], len(numbers)]
    line_map: list[int] = list(numbers[: page.sections[0]] if page.sections else numbers)
    for a, b in zip(page.sections, cuts, strict=False):
        line_map += monotone(numbers[a:b])
    return Converted(
        "\n".join(t for _, t in page.out),
        title,
        tuple(page.anchors),
        tuple(line_map),
        tuple(page.api),
        tuple(page.refs),
    )
