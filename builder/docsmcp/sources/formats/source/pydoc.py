"""A public module of a Python distribution (packages/python_package.py) read as the page pdoc
shows of it: `# requests.sessions`, the module's docstring, then a section per public object
(`## Session`, a method `### Session.get` under its class), its signature from the code in a
`python` block (annotations and defaults as written), its docstring rendered.

The objects are those pdoc documents: the module's `__all__` when it lists names, else every
name without a leading `_`; classes and functions defined in the module (and those its
package's `__init__.py` re-exports from a private module, which python_package.py appends
after a marker line), module constants (an UPPER_CASE name, an annotated one or one with a
docstring under it), and a class's public methods and properties. Nothing is imported.

The docstrings are rendered by the homes that render them on Sphinx pages: each object is
written as the description autodoc writes (`autodoc.describe`: numpydoc and Google sections,
the signature), the module as one reST page, and rst.py converts it, registering every object
in the API registry (parameters and returns from the docstring's fields, examples from its
code). This module then puts each object's heading and its `python` block where the
description's signature line was. Docstrings written in markdown keep their fenced code
(read as code blocks). Each entry is named by the path users call it by: the package that
publishes it when an ancestor package's `__init__.py` imports it (`tqdm.tqdm`, not
`tqdm.std.tqdm`; `requests.Session.get`: python_package.py writes them in the header), else its
module's (`requests.sessions.SessionRedirectMixin`); the registry finds `Session.get` by its
tails. An entry spans its section; a method's category is its class.
"""

from __future__ import annotations

import ast
import copy
import inspect
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from docsmcp.model.api import ApiEntry
from docsmcp.model.api_fields import MAX_DESCRIPTION_CHARS, MAX_SIGNATURE_CHARS
from docsmcp.model.source import Converted
from docsmcp.model.text import truncate
from docsmcp.sources.formats.linemap import SOURCE_LINES
from docsmcp.sources.formats.markdown.fences import fence_for
from docsmcp.sources.formats.rst import napoleon
from docsmcp.sources.formats.rst.autodoc import INDENT, describe
from docsmcp.sources.formats.rst.rst import rst_to_markdown
from docsmcp.sources.formats.source import googledoc
from docsmcp.sources.formats.source.apidoc import all_names, decorated, defs

log = logging.getLogger("docsmcp.sources.formats.source.pydoc")

HEADER = "#@docsmcp-python "  # module=a.b (python_package.expand writes it)
REEXPORT = "#@docsmcp-python-from "  # a private module's definitions follow (python_package.py)
_HEADER = re.compile(r"^#@docsmcp-python module=([\w.]+)(?: public=([\w.:,]+))?$")
_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})[ \t]*([\w+-]*)")
MAX_OBJECTS = 3000  # objects shown from one module, at most
# Google-style sections (`Args:`, `Returns:`) read as pdoc and napoleon read them: a repository
# without Sphinx has no conf.py to say otherwise, and a docstring without such a section is
# unchanged (napoleon.py). A class's public `Attributes:` items are members of their own here
# (`_listed_attributes`); what stays (private items, a module's) is a list, as pdoc shows it.
_GOOGLE = napoleon.Settings(attributes="list")
MAX_VALUE_CHARS = 200  # a constant's value as shown
# The registry's kind of each object (rst_objects.kind_of's words).
_KINDS = {
    "class": "type",
    "function": "method",
    "method": "method",
    "data": "attribute",
    "attribute": "attribute",
}


@dataclass(frozen=True)
class _Object:
    qualname: str  # `Session.get`
    node: ast.AST
    kind: str  # class, function, method, data
    level: int  # its heading's level
    code: tuple[str, ...]  # the `python` block
    line: int  # 0-based line of the text
    doc: str = ""  # a constant's or attribute's docstring (the string under it)
    type: str = ""  # an attribute's type from its class's `Attributes:` section


_EMPTY = Converted("", None, (), (0,), (), ())


def python_to_markdown(path: str, text: str) -> Converted:
    """The page of the module file `text` (with python_package.py's header line)."""
    first = text.split("\n", 1)[0]
    m = _HEADER.match(first)
    module = m.group(1) if m else path.rsplit("/", 1)[-1].removesuffix(".py")
    # (name -> the package publishing it: its entry's name, `tqdm.tqdm` for `tqdm.std.tqdm`)
    public = (
        dict(x.split(":", 1) for x in m.group(2).split(",") if ":" in x) if m and m.group(2) else {}
    )
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        line = getattr(exc, "lineno", None)
        line = line - 1 if line and m else line  # (the file's line, without the header)
        where = f" (line {line})" if line else ""
        log.warning("%s: not read as Python%s: %s; no page", path, where, type(exc).__name__)
        return _EMPTY
    objects = _objects(tree)
    doc = ast.get_docstring(tree, clean=True)
    if not objects and not doc:
        return _EMPTY
    rest, rest_map, starts = _rest(tree, module, objects)
    token = SOURCE_LINES.set(tuple(rest_map))
    try:
        done = rst_to_markdown(path, "\n".join(rest))
    finally:
        SOURCE_LINES.reset(token)
    named = {
        o.qualname: f"{public.get(o.qualname.split('.')[0], module)}.{o.qualname}" for o in objects
    }
    return _assemble(path, done, rest_map, starts, objects, named, text.count("\n"))


def _objects(tree: ast.Module) -> list[_Object]:
    """The module's public objects in source order (see the module docstring)."""
    listed = all_names(tree)

    def public(name: str) -> bool:
        return name in listed if listed is not None else not name.startswith("_")

    out: list[_Object] = []
    for node in defs(tree):
        if not public(node.name):
            continue
        if isinstance(node, ast.ClassDef):
            out.append(_Object(node.name, node, "class", 2, _class_code(node), _first(node)))
            for member in defs(node):
                if member.name.startswith("_") or isinstance(member, ast.ClassDef):
                    continue
                name = f"{node.name}.{member.name}"
                code = _def_code(member)
                out.append(_Object(name, member, "method", 3, code, _first(member)))
            values = _values(node.body, f"{node.name}.", "attribute", 3, _public_name)
            values += _instance_values(node, {v.qualname for v in values})
            out += _listed_attributes(node, values)
        else:
            out.append(_Object(node.name, node, "function", 2, _def_code(node), _first(node)))
    out += _values(tree.body, "", "data", 2, public)
    out.sort(key=lambda o: o.line)
    return out[:MAX_OBJECTS]


def _public_name(name: str) -> bool:
    return not name.startswith("_")


def _values(
    body: list[ast.stmt], prefix: str, kind: str, level: int, public: Callable[[str], bool]
) -> list[_Object]:
    """The public names a body assigns that pdoc shows with their value: module constants
    (an UPPER_CASE name, an annotated one, or one with a docstring under it), a class's
    annotated or documented attributes (a dataclass's or pydantic model's fields)."""
    documented = _documented(body)
    out: list[_Object] = []
    for node in body:
        target, value, annotation = _assigned(node)
        if target is None or not public(target):
            continue
        upper = target.isupper() and kind == "data"
        if not (upper or annotation or node in documented):
            continue
        code = f"{target}: {annotation}" if annotation else target
        if value is not None:
            try:
                shown = ast.unparse(value).replace("\n", " ")
            except (ValueError, RecursionError):
                shown = "..."
            code += " = " + truncate(shown, MAX_VALUE_CHARS)
        doc = documented.get(node, "")
        out.append(_Object(prefix + target, node, kind, level, (code,), node.lineno - 1, doc))
    return out


def _instance_values(node: ast.ClassDef, known: set[str]) -> list[_Object]:
    """The instance attributes pdoc shows: those `__init__` assigns to `self` with an
    annotation (`self.total: int = 0`) or a docstring under them, public and not already a
    class attribute."""
    init = next((d for d in defs(node) if d.name == "__init__"), None)
    if not isinstance(init, ast.FunctionDef | ast.AsyncFunctionDef):
        return []
    positional = [*init.args.posonlyargs, *init.args.args]
    if not positional:
        return []
    this = positional[0].arg
    body = list(_flat(init.body))
    documented = _documented(body)
    out: list[_Object] = []
    seen = set(known)
    for stmt in body:
        target = (
            stmt.targets[0]
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            else stmt.target
            if isinstance(stmt, ast.AnnAssign)
            else None
        )
        if not (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == this
        ):
            continue
        qualname = f"{node.name}.{target.attr}"
        annotation = _unparsed(stmt.annotation) if isinstance(stmt, ast.AnnAssign) else ""
        if target.attr.startswith("_") or qualname in seen:
            continue
        if not (annotation or stmt in documented):
            continue
        seen.add(qualname)
        code = f"{target.attr}: {annotation}" if annotation else target.attr
        doc = documented.get(stmt, "")
        out.append(_Object(qualname, stmt, "attribute", 3, (code,), stmt.lineno - 1, doc))
    return out


def _flat(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a function body in order, those under `if`, `try` and `with` too (an
    attribute set on one branch is still the instance's), not inside nested definitions."""
    out: list[ast.stmt] = []
    stack = list(reversed(body))
    while stack and len(out) < MAX_OBJECTS:
        node = stack.pop()
        nested: list[ast.stmt] = []
        if isinstance(node, ast.If | ast.For | ast.While):
            nested = [*node.body, *node.orelse]
        elif isinstance(node, ast.With | ast.AsyncWith):
            nested = list(node.body)
        elif isinstance(node, ast.Try):
            nested = [*node.body, *(x for h in node.handlers for x in h.body)]
            nested += [*node.orelse, *node.finalbody]
        if nested:
            stack.extend(reversed(nested))
        else:
            out.append(node)
    return out


def _attribute_items(node: ast.ClassDef) -> tuple[str | None, list[googledoc.Item]]:
    """The class docstring without the public items of its `Attributes:` sections (pdoc's
    page shows them as the class's members; a private item stays in the text), and those
    items; (None, []) when it has none."""
    text = ast.get_docstring(node, clean=True)
    if not text or "ttributes:" not in text:
        return None, []
    kept, sections = googledoc.split_off(text.split("\n"), googledoc.ATTRIBUTES)
    if not sections:
        return None, []
    items = [i for s in sections for i in s.items]
    defined = {d.name for d in defs(node)}  # (a property documented there keeps its section)
    public = [
        i
        for i in items
        if i.name.isidentifier() and not i.name.startswith("_") and i.name not in defined
    ]
    if not public:
        return None, []
    private = [i for i in items if i not in public]
    if private:
        kept += ["", "Attributes:"]
        for item in private:
            head = f"{item.name} ({item.type})" if item.type else item.name
            first, *more = item.description or ("",)
            kept.append(f"    {head}: {first}".rstrip())
            kept += [f"        {x}" if x else "" for x in more]
    return "\n".join(kept), public


def _listed_attributes(node: ast.ClassDef, values: list[_Object]) -> list[_Object]:
    """`values` with the public items of the class's `Attributes:` section: an item's text
    and type given to the attribute of its name, the others attributes of their own (at the
    docstring's line), as napoleon writes `.. attribute::` objects for them."""
    _, items = _attribute_items(node)
    if not items:
        return values
    by_name = {v.qualname.rpartition(".")[2]: k for k, v in enumerate(values)}
    out = list(values)
    doc_node = node.body[0]
    for item in items:
        text = "\n".join(item.description)
        k = by_name.get(item.name)
        if k is not None:
            found = out[k]
            out[k] = replace(found, doc=found.doc or text, type=found.type or item.type)
            continue
        code = f"{item.name}: {item.type}" if item.type else item.name
        qualname = f"{node.name}.{item.name}"
        out.append(
            _Object(
                qualname, doc_node, "attribute", 3, (code,), doc_node.lineno - 1, text, item.type
            )
        )
        by_name[item.name] = len(out) - 1
    return out


def _unparsed(node: ast.AST) -> str:
    try:
        return ast.unparse(node).replace("\n", " ")
    except (ValueError, RecursionError):
        return ""


def _first(node: ast.AST) -> int:
    lines = [node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]
    return min(lines) - 1


def _assigned(node: ast.stmt) -> tuple[str | None, ast.expr | None, str]:
    """(name, value, annotation) of a module-level assignment to one name, else Nones."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if isinstance(target, ast.Name) and target.id != "__all__":
            return target.id, node.value, ""
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        try:
            annotation = ast.unparse(node.annotation)
        except (ValueError, RecursionError):
            annotation = ""
        return node.target.id, node.value, annotation
    return None, None, ""


def _documented(body: list[ast.stmt]) -> dict[ast.stmt, str]:
    """Assignments followed by a string (the attribute docstring pdoc and Sphinx read)."""
    out: dict[ast.stmt, str] = {}
    for node, after in zip(body, body[1:], strict=False):
        if (
            isinstance(node, ast.Assign | ast.AnnAssign)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            out[node] = after.value.value
    return out


def _def_code(node: ast.AST) -> tuple[str, ...]:
    """A function's definition line as pdoc shows it: decorators that change how it is
    called (`@property`, `@classmethod`, `@staticmethod`), then `def name(...) -> R`."""
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    out = [
        f"@{name}"
        for name in ("property", "classmethod", "staticmethod", "cached_property")
        if decorated(node, name)
    ]
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    try:
        returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
        out.append(f"{prefix} {node.name}({ast.unparse(node.args)}){returns}".replace("\n", " "))
    except (ValueError, RecursionError):
        out.append(f"{prefix} {node.name}(...)")
    return tuple(out)


def _class_code(node: ast.ClassDef) -> tuple[str, ...]:
    """`class Name(Base)`, and its constructor's `def __init__(...)` when it has one."""
    try:
        bases = [ast.unparse(b) for b in node.bases] + [ast.unparse(k) for k in node.keywords]
    except (ValueError, RecursionError):
        bases = []
    out = [f"class {node.name}({', '.join(bases)}):" if bases else f"class {node.name}:"]
    init = next((d for d in defs(node) if d.name == "__init__"), None)
    if init is not None:
        out.append("    " + _def_code(init)[-1])
    return tuple(out)


def _prepared(node: ast.AST) -> ast.AST:
    """`node` with the docstring rst.py is given: a class's followed by its constructor's
    (pdoc shows both; tqdm documents its parameters on `__init__`), a docstring's fenced code
    blocks (markdown, as mkdocs and pdoc projects write them) as reST code blocks."""
    if not hasattr(node, "body"):
        return node
    text = ast.get_docstring(node, clean=True) or ""
    if isinstance(node, ast.ClassDef):
        without, _ = _attribute_items(node)
        text = text if without is None else without
        init = next((d for d in defs(node) if d.name == "__init__"), None)
        more = ast.get_docstring(init, clean=True) if init is not None else None
        text = f"{text}\n\n{more}" if text and more else text or more or ""
    if "```" in text or "~~~" in text:
        text = _fences_as_rest(text)
    if text == (ast.get_docstring(node, clean=True) or ""):
        return node
    copied = copy.copy(node)
    body = list(copied.body)  # type: ignore[attr-defined]
    constant = ast.Expr(ast.Constant(text))
    if ast.get_docstring(node, clean=False) is not None:
        body[0] = constant
    else:
        body.insert(0, constant)
    copied.body = body  # type: ignore[attr-defined]
    return copied


def _fences_as_rest(text: str) -> str:
    out: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence is None and m:
            fence = m.group(2)
            out += ["", f"{m.group(1)}.. code-block:: {m.group(3) or 'text'}", ""]
            continue
        if fence is not None and line.strip().startswith(fence) and not line.strip(fence[0]):
            fence = None
            out.append("")
            continue
        out.append(INDENT + line if fence is not None else line)
    return "\n".join(out)


def _rest(
    tree: ast.Module, module: str, objects: list[_Object]
) -> tuple[list[str], list[int], list[int]]:
    """The module as one reST page (title, docstring, one description per object), the line
    of the module file each line comes from, and each object's description line."""
    title = module
    rest = [title, "=" * len(title), "", f".. py:module:: {module}", ""]
    rest_map = [0] * len(rest)
    doc = ast.get_docstring(_prepared(tree), clean=True)
    if doc:
        from docsmcp.sources.formats.rst import numpydoc

        lines = numpydoc.to_rest(napoleon.to_rest(doc.split("\n"), _GOOGLE), known_only=True)
        start = tree.body[0].lineno - 1 if tree.body else 0
        rest += [*lines, ""]
        rest_map += [start] * (len(lines) + 1)
    starts: list[int] = []
    for obj in objects:
        node = _prepared(obj.node)
        if obj.kind in ("data", "attribute"):
            lines = [f".. py:{obj.kind}:: {obj.qualname}"]
            if obj.type:
                lines.append(f"{INDENT}:type: {obj.type}")
            if obj.doc:
                doc = inspect.cleandoc(obj.doc).split("\n")
                lines += ["", *(INDENT + x if x else x for x in doc)]
        else:
            method = obj.kind == "method"
            lines = describe(node, obj.qualname if method else "", method=method, google=_GOOGLE)
        if not lines:
            lines = [f".. py:data:: {obj.qualname}"]
        starts.append(len(rest))
        rest += [*lines, ""]
        # (the docstring's lines as the lines below the definition, within it)
        last = max(obj.line, (getattr(obj.node, "end_lineno", None) or 1) - 1)
        rest_map += [min(obj.line + k, last) for k in range(len(lines) + 1)]
    return rest, rest_map, starts


def _assemble(
    path: str,
    done,
    rest_map: list[int],
    starts: list[int],
    objects: list[_Object],
    named: dict[str, str],
    last: int,
) -> Converted:
    """The markdown rst.py wrote, each object's signature line replaced by its heading and
    `python` block; anchors, references and entries moved with their lines."""
    lines = done.text.split("\n")
    md_map = list(done.line_map) or [0] * len(lines)
    at_start = {s: k for k, s in enumerate(starts)}
    out: list[str] = []
    out_map: list[int] = []
    moved: list[int] = []  # markdown line -> its line in `out`
    headings: dict[int, int] = {}  # object -> its heading's line in `out`
    for i, line in enumerate(lines):
        rest_line = md_map[min(i, len(md_map) - 1)]
        k = at_start.get(rest_line)
        source = rest_map[min(rest_line, len(rest_map) - 1)]
        if k is not None and k not in headings and line.startswith("`"):
            obj = objects[k]
            while out and not out[-1].strip():  # (one blank line above the heading)
                out.pop()
                out_map.pop()
            if out:
                out.append("")
                out_map.append(source)
            headings[k] = len(out)
            moved.append(len(out))
            fence = fence_for(list(obj.code))
            block = [f"{'#' * obj.level} {obj.qualname}", "", f"{fence}python", *obj.code, fence]
            out += block
            out_map += [obj.line] * len(block)
            continue
        moved.append(len(out))
        out.append(line)
        out_map.append(source)
    for k in range(1, len(out_map)):  # monotone, as every converted page's map
        out_map[k] = min(max(out_map[k], out_map[k - 1]), last)
    while out and not out[-1].strip():
        out.pop()
        out_map.pop()
    top = max(len(out) - 1, 0)
    moved = [min(line, top) for line in moved]
    anchors = [(moved[line], name) for line, name in done.anchors if line < len(moved)]
    anchors += [(at, objects[k].qualname) for k, at in headings.items()]
    refs = tuple((moved[line], name) for line, name in done.refs if line < len(moved))
    api = _entries(done.api, moved, headings, objects, named, len(out), path)
    return Converted(
        "\n".join(out),
        done.title,
        tuple(sorted(anchors)),
        tuple(out_map) or (0,),
        api,
        refs,
    )


def _entries(
    found: tuple[ApiEntry, ...],
    moved: list[int],
    headings: dict[int, int],
    objects: list[_Object],
    named: dict[str, str],
    size: int,
    path: str,
) -> tuple[ApiEntry, ...]:
    """An entry per object with a heading: rst.py's (its parameters, returns, examples),
    named by its module path, spanning its section (to the next heading of its level or
    above)."""
    by_line = {headings[k]: k for k in headings}
    order = sorted(headings.items(), key=lambda kv: kv[1])
    registered: dict[int, ApiEntry] = {}
    for entry in found:
        at = moved[min(entry.line_start - 1, len(moved) - 1)]
        if at in by_line and by_line[at] not in registered:
            registered[by_line[at]] = entry
    out: list[ApiEntry] = []
    for n, (k, at) in enumerate(order):
        obj = objects[k]
        end = size
        for _, later in order[n + 1 :]:
            if objects[by_line[later]].level <= obj.level:
                end = later
                break
        name = named[obj.qualname]
        category = name.rpartition(".")[0]
        code = " ".join(x.strip() for x in obj.code if not x.startswith("@"))
        entry = registered.get(k)
        if entry is None:
            doc = ast.get_docstring(obj.node, clean=True) if hasattr(obj.node, "body") else None
            description = (doc or "").split("\n\n", 1)[0].replace("\n", " ")
            entry = ApiEntry(
                name, category, _KINDS[obj.kind],
                truncate(code, MAX_SIGNATURE_CHARS), truncate(description, MAX_DESCRIPTION_CHARS),
                (), "", (), "", path, 0, 0,
            )  # fmt: skip
        out.append(
            replace(
                entry,
                name=name,
                category=category,
                signature=truncate(code, MAX_SIGNATURE_CHARS),
                chunk_id="",
                line_start=at + 1,
                line_end=max(at + 1, end),
            )
        )
    return tuple(out)
