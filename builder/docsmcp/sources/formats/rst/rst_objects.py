"""Sphinx object descriptions (`.. py:function::`, `.. c:macro::`, `.. rst:directive::`, ...) as
API registry entries, read from the docutils tree while rst.py converts a page.

Each described object gets its full name as Sphinx gives it: a Python or JavaScript name
qualified by the current `module`/`currentmodule` and the classes it is nested in
(`pathlib.Path.read_text`), a C or C++ name by its enclosing struct or class, an `rst:role` as
written without its colons, a directive option by its directive (`toctree:maxdepth`). The
signature is the directive's argument as written (overloads one per line), the parameters come
from the field list (`:param x:`, `:type x:`, `:returns:`, `:rtype:`, `:raises X:`) or else
from the signature's own parameter list, the description is the object's first prose and its
code blocks are its examples. Everything is bounded by the registry's limits (api_fields.py).
The page's state (current module, classes being described, objects found) lives in a context
variable set per page by rst.py, so converting pages in parallel threads or workers never mixes
them.
"""

from __future__ import annotations

import contextvars
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from docsmcp_runtime.search.languages import normalise_language
from docutils import nodes

from docsmcp.common.brackets import closing
from docsmcp.model.api import OBJECT_ANCHOR, ApiEntry, Example, Parameter
from docsmcp.model.api_fields import (
    MAX_DESCRIPTION_CHARS,
    MAX_EXAMPLE_CHARS,
    MAX_EXAMPLES,
    MAX_PARAM_DESCRIPTION_CHARS,
    MAX_RETURNS_CHARS,
    MAX_SIGNATURE_CHARS,
)
from docsmcp.model.text import split_top, truncate

# Parameters read from one signature or field list, at most (a hostile signature of 100,000
# commas makes 64, not 100,000).
MAX_PARAMETERS = 64
# Signature lines of one directive, at most (overloads).
MAX_SIGNATURES = 16
# An option of a description giving its entry's category (autosummary_pages.py writes it on a
# generated page: the section of the table listing the object); no Sphinx option.
CATEGORY_OPTION = "docsmcp-category"
# Objects registered from one page, at most.
MAX_OBJECTS = 5000
# A mark in the markdown (rst.py's `take_marks`): `\x00name\x00` an anchor, and with this
# prefix a reference made by a role (`:func:`x``), resolved by xref against object anchors.
REF_PREFIX = "\x02"

# (autodoc's `auto*` directives are left out: their text is in the code, not the page.)
_METHODS = frozenset(
    "function method classmethod staticmethod decorator decoratormethod macro".split()
)
_TYPES = frozenset("class exception struct union enum enum-struct enum-class type concept".split())
_ATTRIBUTES = frozenset("attribute data property member var enumerator".split())
_OPTIONS = frozenset("option cmdoption confval envvar setting directive:option".split())
_OWN_KINDS = frozenset(("directive", "role", "event"))
# Object types whose content describes members (qualified by their name).
MEMBER_HOLDERS = frozenset("class exception struct union enum enum-struct enum-class".split())
PARAM_FIELDS = frozenset("param parameter arg argument key keyword kwarg kwparam type".split())
RETURN_FIELDS = frozenset(("returns", "return", "rtype", "returntype", "retval"))
RAISE_FIELDS = frozenset(("raises", "raise", "except", "exception", "throws", "throw"))


@dataclass
class Found:
    """One object description, in page order; lines are 0-based lines of the page."""

    name: str
    kind: str
    signature: str
    category: str
    description: str
    parameters: tuple[Parameter, ...]
    returns: str
    examples: tuple[Example, ...]
    line_start: int
    line_end: int


@dataclass
class PageState:
    modules: dict[str, str] = field(default_factory=dict)  # domain (py, js) -> current module
    classes: list[str] = field(default_factory=list)
    directive: str = ""  # the rst:directive being described (its options are its members)
    program: str = ""  # the `program` whose command-line options follow (`python -m`)
    # c/cpp: the `namespace` set and the scopes `namespace-push`ed onto it since
    scopes: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    found: list[Found] = field(default_factory=list)


STATE: contextvars.ContextVar[PageState | None] = contextvars.ContextVar(
    "rst_objects", default=None
)


def domain_and_type(name: str) -> tuple[str, str]:
    """(`py`, `method`) of `py:method`; a name without domain is Python's, or the standard
    domain's (`option`, `envvar`, ...)."""
    name = name.lower()
    if name.startswith("rst:"):
        return "rst", name[4:]
    domain, _, objtype = name.partition(":")
    if not objtype:
        return ("std" if name in _OPTIONS or name in ("program", "event") else "py"), name
    return domain, objtype


def kind_of(objtype: str) -> str:
    """The registry's kind of a Sphinx object type ("" when it is none the registry keeps)."""
    if objtype in _METHODS:
        return "method"
    if objtype in _TYPES:
        return "type"
    if objtype in _ATTRIBUTES:
        return "attribute"
    if objtype in _OPTIONS:
        return "option"
    if objtype in _OWN_KINDS:
        return objtype
    return ""


def signature_lines(block_text: str, name: str) -> list[str]:
    """The signature lines of a directive (its argument; a line per overload; a trailing `\\`
    joins the next line), from the directive's own text."""
    start = block_text.find("::", block_text.find(name) + len(name))
    if start < 0:
        return []
    lines = block_text[start + 2 :].split("\n")
    out: list[str] = []
    for i, line in enumerate(lines[: MAX_SIGNATURES * 4]):
        text = line.strip()
        if not text or (i and text.startswith(":")):
            break  # a blank line or an option (`:noindex:`) ends the arguments
        if out and out[-1].endswith("\\"):
            out[-1] = out[-1][:-1].rstrip() + " " + text
        else:
            out.append(text)
    return [s for s in out if s][:MAX_SIGNATURES]


# -- names --------------------------------------------------------------------------------------

_PY_PREFIX = re.compile(
    r"^(?:(?:async|abstract|abstractmethod|class|static|final|classmethod|"
    r"staticmethod|property|await|exception|type)\s+)+"
)
_PY_NAME = re.compile(r"^@?([\w.$]+)")
_C_PREFIX = re.compile(r"^\s*template\s*<.*?>\s*")
_C_NAME = re.compile(r"(@?~?[A-Za-z_]\w*(?:(?:::|\.)@?~?[A-Za-z_]\w*)*(?:::operator\S+)?)\s*$")
_OPTION_NAME = re.compile(r"^([-+/]{0,2}[\w$@.:-]+)")


def _paren(text: str) -> tuple[int, int]:
    """(offset of the first top-level `(`, offset of its matching `)`, or the text's length
    when unclosed), or (-1, -1)."""
    open_at = text.find("(")
    if open_at < 0:
        return -1, -1
    close_at = closing(text, open_at)
    return open_at, len(text) if close_at < 0 else close_at


def object_name(domain: str, objtype: str, signature: str) -> str:
    """The name a signature declares, as written (before qualification)."""
    sig = signature.strip()
    if domain == "rst":
        if objtype == "role":
            return sig.strip(":").split(":")[-1].strip() if sig.startswith(":") else sig.split()[0]
        sig = sig.removeprefix("..").strip()  # `.. js:function:: name(signature)`
        if objtype == "directive:option":  # `maxdepth: integer`
            return sig.split(":")[0].strip().split(" ")[0] if sig else ""
        return sig.split("::")[0].strip().split(" ")[0] if sig else ""
    if domain in ("c", "cpp"):
        sig = _C_PREFIX.sub("", sig)
        open_at, _ = _paren(sig)
        head = sig[:open_at] if open_at >= 0 else sig.split("=")[0]
        head = re.sub(r"\[.*$", "", head).rstrip()
        m = _C_NAME.search(head)
        return m.group(1) if m else ""
    if domain == "std" or objtype in _OPTIONS:
        m = _OPTION_NAME.match(sig)
        return m.group(1).rstrip(":,=") if m else ""
    sig = _PY_PREFIX.sub("", sig)
    m = _PY_NAME.match(sig)
    return m.group(1).rstrip(".") if m else ""


def qualify(domain: str, objtype: str, name: str, state: PageState) -> str:
    """`name` qualified as Sphinx does: by the classes it is nested in, then the module (for C
    and C++ the namespace); a command-line option by its program (`python -m`, the name
    Sphinx's inventory gives it)."""
    if domain == "rst":
        if objtype == "directive:option" and state.directive:
            return f"{state.directive}:{name}"
        return name
    if domain == "std":
        in_program = objtype in ("option", "cmdoption") and state.program
        return f"{state.program} {name}" if in_program else name
    sep = "::" if domain == "cpp" else "."
    if state.classes:  # the innermost class, qualified by those around it already
        prefix = state.classes[-1]
        if not name.startswith(prefix + sep) and name != prefix:
            name = f"{prefix}{sep}{name}"
    module = state.modules.get(domain, "")
    if module and not name.startswith(module + sep):
        name = f"{module}{sep}{name}"
    return name


def set_scope(domain: str, directive: str, argument: str, state: PageState) -> None:
    """What `module`/`currentmodule` (py, js; None clears it), `c:namespace`/`cpp:namespace`
    (NULL or 0: the global scope), `namespace-push` and `namespace-pop` do to the scope that
    qualifies the objects after them (Sphinx's rules: a pop without a push returns to the
    global scope); `program` (None: none) to the program of the options after it."""
    name = argument.strip()
    if directive == "program":
        state.program = "" if name == "None" else name
        return
    if directive in ("module", "currentmodule"):
        state.modules[domain] = "" if name == "None" else name
        state.classes.clear()
        return
    base, pushed = state.scopes.get(domain, ("", []))
    if directive == "namespace":
        base, pushed = ("" if name in ("NULL", "0") else name), []
    elif directive == "namespace-push" and name:
        pushed = [*pushed, name]
    elif directive == "namespace-pop":
        base, pushed = (base, pushed[:-1]) if pushed else ("", [])
    state.scopes[domain] = (base, pushed)
    sep = "::" if domain == "cpp" else "."
    state.modules[domain] = sep.join(x for x in (base, *pushed) if x)
    state.classes.clear()


# -- parameters ---------------------------------------------------------------------------------


def _optional_marks(inner: str) -> set[int]:
    """The places of the brackets that mark optional parameters (`a[, b[, c]]`, `[a]`), not
    the subscripts of a type (`file: t.IO[t.Any]`, `list[int]`) nor a default (`x=[]`): an
    opening bracket at the start, after a comma or another bracket, or before a comma, and its
    closing one. (All brackets were dropped: `t.IO[t.Any]` read `t.IOt.Any`.)"""
    marks: set[int] = set()
    opened: list[tuple[int, bool]] = []
    for i, c in enumerate(inner):
        if c == "[":
            before, after = inner[:i].rstrip(), inner[i + 1 :].lstrip()
            opened.append((i, not before or before[-1] in ",([" or after.startswith(",")))
        elif c == "]" and opened:
            at, optional = opened.pop()
            if optional:
                marks.update((at, i))
    return marks


def signature_parameters(domain: str, signature: str) -> list[Parameter]:
    """The parameters a signature lists: `name: type = default` (Python, JavaScript; `[, b]`
    optional), or `type name` (C, C++)."""
    open_at, close_at = _paren(signature)
    if open_at < 0:
        return []
    inner = signature[open_at + 1 : close_at]
    optional_from = -1
    if domain not in ("c", "cpp"):
        marks = _optional_marks(inner)
        optional_from = min(marks, default=-1)
        inner = "".join(c for i, c in enumerate(inner) if i not in marks)
    out: list[Parameter] = []
    offset = 0
    for raw in split_top(inner, brackets=("([{<", ")]}>"), most=MAX_PARAMETERS):
        part = raw.strip()
        optional = 0 <= optional_from <= offset and domain not in ("c", "cpp")
        offset += len(raw) + 1
        if not part or part in ("/", "*", "...", "void"):
            continue
        if domain in ("c", "cpp"):
            text = part.split("=")[0].strip()
            m = re.search(r"([A-Za-z_]\w*)\s*(\[.*\])?$", text)
            if not m or m.start() == 0:
                continue  # a type without a parameter name
            name, ptype = m.group(1), text[: m.start()].strip()
            out.append(Parameter(name, ptype, None if "=" not in part else False, ""))
            continue
        default = ""
        if "=" in part:
            part, _, default = part.partition("=")
            part = part.strip()
        name, _, ptype = part.partition(":")
        name = name.strip()
        if not re.fullmatch(r"\*{0,2}[\w$]+", name):
            continue
        required = not (default or optional or name.startswith("*"))
        out.append(Parameter(name, ptype.strip(), required, ""))
    return out


def field_parts(field_name: str) -> tuple[str, str, str]:
    """(field kind, type, argument) of a field name: `param int x` → (param, int, x)."""
    words = field_name.split()
    if not words:
        return "", "", ""
    kind = words[0].lower()
    if len(words) == 1:
        return kind, "", ""
    return kind, " ".join(words[1:-1]), words[-1]


@dataclass
class _Fields:
    params: dict[str, Parameter] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)
    returns: str = ""
    rtype: str = ""
    raises: list[str] = field(default_factory=list)


def _text(node: nodes.Node, limit: int) -> str:
    return truncate(" ".join(node.astext().split()), limit)


def read_fields(field_list: nodes.field_list, out: _Fields) -> None:
    for f in field_list.children[: MAX_PARAMETERS * 2]:
        if not isinstance(f, nodes.field) or len(f.children) < 2:
            continue
        kind, ftype, arg = field_parts(f.children[0].astext())
        body = _text(f.children[1], MAX_PARAM_DESCRIPTION_CHARS)
        if kind == "type" and arg:
            out.types[arg] = body
        elif kind in PARAM_FIELDS and arg:
            if len(out.params) < MAX_PARAMETERS:
                out.params[arg] = Parameter(arg, ftype, None, body)
        elif kind in ("rtype", "returntype"):
            out.rtype = truncate(body, MAX_RETURNS_CHARS)
        elif kind in RETURN_FIELDS:
            out.returns = truncate(body, MAX_RETURNS_CHARS)
        elif kind in RAISE_FIELDS:
            names = arg or ftype or body.split(" ")[0]
            out.raises.append(names.strip(",") if arg or ftype else names)


# -- the object ---------------------------------------------------------------------------------


def _own_blocks(box: nodes.Element) -> list[nodes.Node]:
    """The blocks of an object's content that are its own: nested object descriptions and
    their content left out."""
    out: list[nodes.Node] = []
    stack = list(reversed(box.children))
    while stack:
        node = stack.pop()
        if isinstance(node, nodes.container) and "described" in node.get("classes", []):
            continue
        if isinstance(node, nodes.container) and "generic" in node.get("classes", []):
            stack.extend(reversed(node.children))  # a tab, a grid: look inside
            continue
        out.append(node)
    return out


def describe(
    domain: str,
    objtype: str,
    names: list[tuple[str, str]],
    box: nodes.Element,
    lines: tuple[int, int],
) -> None:
    """Register the object(s) a directive described: `names` is (full name, signature) per
    signature line, `box` the directive's converted content."""
    state = STATE.get()
    kind = kind_of(objtype)
    if state is None or not kind or not names or len(state.found) >= MAX_OBJECTS:
        return
    fields = _Fields()
    description: list[str] = []
    examples: list[Example] = []
    for node in _own_blocks(box):
        if isinstance(node, nodes.field_list):
            read_fields(node, fields)
        elif isinstance(node, (nodes.literal_block, nodes.doctest_block)):
            if len(examples) < MAX_EXAMPLES:
                language = "pycon" if isinstance(node, nodes.doctest_block) else ""
                language = normalise_language(node.get("language", "") or language)
                examples.append(Example(language, node.astext()[:MAX_EXAMPLE_CHARS]))
        elif (
            isinstance(node, nodes.paragraph)
            # not the signature line, an admonition's or a version note's label
            and not {"label", "signature"} & set(node.get("classes", []))
            and sum(len(d) + 1 for d in description) < MAX_DESCRIPTION_CHARS
        ):
            text = " ".join(node.astext().split())
            if text:
                description.append(text)
    signatures = list(dict.fromkeys(s for _, s in names))  # `-v, --verbose`: one line
    params = signature_parameters(domain, signatures[0]) if kind in ("method", "type") else []
    if fields.params or fields.types:
        # The signature's order and defaults, the field list's types and descriptions; fields
        # naming no parameter of the signature after them.
        documented = dict(fields.params)
        merged: list[Parameter] = []
        for p in params:
            doc = documented.pop(p.name.lstrip("*"), None)
            ptype = (doc.type if doc else "") or fields.types.get(p.name.lstrip("*"), p.type)
            merged.append(Parameter(p.name, ptype, p.required, doc.description if doc else ""))
        for p in documented.values():
            merged.append(
                Parameter(p.name, p.type or fields.types.get(p.name, ""), None, p.description)
            )
        params = merged[:MAX_PARAMETERS]
    returns = fields.rtype or fields.returns
    if fields.rtype and fields.returns:
        returns = truncate(f"{fields.rtype}: {fields.returns}", MAX_RETURNS_CHARS)
    if not returns:
        m = re.search(r"\)\s*->\s*(.+)$", signatures[0])
        returns = m.group(1).strip() if m else ""
    text = " ".join(description)
    if fields.raises:
        text = f"{text} Raises: {', '.join(dict.fromkeys(fields.raises))}.".strip()
    signature = truncate("\n".join(signatures), MAX_SIGNATURE_CHARS)
    seen: set[str] = set()
    for full, _ in names:
        if full in seen:
            continue
        seen.add(full)
        state.found.append(
            Found(
                name=full,
                kind=kind,
                signature=signature,
                category="",
                description=truncate(text, MAX_DESCRIPTION_CHARS),
                parameters=tuple(params),
                returns=truncate(returns, MAX_RETURNS_CHARS),
                examples=tuple(examples),
                line_start=lines[0],
                line_end=lines[1],
            )
        )


class Mark(nodes.Inline, nodes.Element):
    """Marks (`\x00...\x00`) the writer puts into the markdown as they are; no text of the
    page (`astext()` is empty), so titles, slugs and descriptions never hold them."""

    def __init__(self, marks: str) -> None:
        super().__init__("", marks=marks)


def anchor_marks(full: str) -> str:
    """The marks that make `full` an anchor of the signature's line: as written (for links
    `page.rst#pathlib.Path.read_text`, Sphinx's HTML ids) and, for roles, each of its dotted
    tails (`Path.read_text`, `read_text`) in the object namespace."""
    marks = [full]
    tails = [full]
    for m in re.finditer(r"::|[.:]", full):
        tail = full[m.end() :]
        if tail:
            tails.append(tail)
    marks += [OBJECT_ANCHOR + t for t in tails]
    return "".join(f"\x00{m}\x00" for m in marks)


def role_target(target: str) -> str:
    """The object a code role names, for the reference mark: Sphinx's `~` and `.` prefixes and
    a call's parentheses dropped (`~pathlib.Path.read_text()` → `pathlib.Path.read_text`)."""
    target = target.strip().lstrip("~").lstrip(".")
    if target.endswith("()"):
        target = target[:-2]
    return target if 0 < len(target) <= 200 and "\x00" not in target else ""


def api_entries(
    path: str,
    found: list[Found],
    anchors: tuple[tuple[int, str], ...],
    line_map: tuple[int, ...],
    sections: list[tuple[int | None, str]],
    page_title: str,
) -> tuple[ApiEntry, ...]:
    """The registry entries of the objects `found` on the page at `path`, with lines of its
    markdown (1-based: the signature's line to the content's last), in page order. `anchors`
    are the markdown's (0-based line, anchor) marks, `line_map` its lines' page lines,
    `sections` the page lines and titles of its sections (the category: the enclosing one)."""
    if not found or not line_map:
        return ()
    first: dict[str, int] = {}
    for line, name in anchors:
        first.setdefault(name, line)
    starts = sorted((line, title) for line, title in sections if line is not None)
    section_lines = [line for line, _ in starts]
    top = len(line_map) - 1
    out: list[ApiEntry] = []
    for f in found:
        start = first.get(f.name)
        if start is None:
            start = min(bisect_left(line_map, f.line_start), top)
        end = min(max(start, bisect_right(line_map, f.line_end) - 1), top)
        k = bisect_right(section_lines, f.line_start) - 1
        out.append(
            ApiEntry(
                name=f.name,
                category=f.category or (starts[k][1] if k >= 0 else page_title),
                kind=f.kind,
                signature=f.signature,
                description=f.description,
                parameters=f.parameters,
                returns=f.returns,
                examples=f.examples,
                chunk_id="",
                path=path,
                line_start=start + 1,
                line_end=end + 1,
            )
        )
    out.sort(key=lambda e: e.line_start)  # a class after its members (described first)
    return tuple(out)
