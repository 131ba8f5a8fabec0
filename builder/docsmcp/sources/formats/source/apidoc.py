"""mkdocstrings pages (`::: package.module.Object`) rendered from the Python source with `ast`.

A mkdocstrings directive is replaced by what the site would show, as markdown: a heading per
object (the directive's object at level 2, its members at level 3), its signature in a fenced
`python` block and its docstring. The source is parsed, never imported or run: the module is
looked for in every source root (`--docs-dir`, `--source-root`, `--api-source`), as
`a/b.py` or `a/b/__init__.py`, also under `src/` and `lib/`, and read through
`files.read_file`. An
object a package re-exports with `from .module import Name` is followed (a few levels), and
so is one it imports lazily through a table such as pydantic's `_dynamic_imports`.

Members: a module's public classes and functions (its `__all__` when it lists them), a class's
public methods plus `__init__` (a module's classes' too, one level deeper: Textual's
`::: textual.app` pages lacked 868 methods); names starting with `_` are left out, as
mkdocstrings' default filters do.
"""

from __future__ import annotations

import ast
import copy
import inspect
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from docsmcp.common.limits import MAX_FILE_BYTES
from docsmcp.sources.files import Refused, read_file
from docsmcp.sources.formats.source import docstring_md, mkdocstrings_options
from docsmcp.sources.formats.source.mkdocstrings_options import Directive, Selection

# `::: pydantic.networks`; a bare word may also be a Docusaurus admonition (`::: note`).
DIRECTIVE = re.compile(r"^:::[ \t]+([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)[ \t]*$")
_ADMONITION_KINDS = frozenset(
    "note tip info warning danger caution important success secondary".split()
)
MAX_FOLLOW = 4  # re-exports followed per object

_Def = ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef


def directive(line: str) -> str | None:
    """The object a mkdocstrings directive line names, else None."""
    m = DIRECTIVE.match(line)
    if m is None or ("." not in m.group(1) and m.group(1).lower() in _ADMONITION_KINDS):
        return None
    return m.group(1)


def directives(lines: list[str], code: list[bool]) -> dict[int, Directive]:
    """The mkdocstrings directives of a page's `lines` (outside code: `code`) followed by an
    indented options block, by line (mkdocstrings_options.py reads the block)."""
    out: dict[int, Directive] = {}
    for i, line in enumerate(lines):
        if not line.startswith(":::") or code[i] or (identifier := directive(line)) is None:
            continue
        found = mkdocstrings_options.block(lines, i)
        if found is not None:
            end, options = found
            out[i] = Directive(identifier, options, end, tuple(lines[i : end + 1]))
    return out


class Sources:
    """Finds and parses modules inside the source roots (each module read once)."""

    def __init__(self, docs_dir: Path, roots: Sequence[Path]) -> None:
        self.docs_dir = docs_dir
        self.roots = roots
        self._modules: dict[str, tuple[ast.Module, str] | None] = {}
        self.default_members: bool | None = None  # autodoc.default_members, read once
        self.special_members: tuple[frozenset[str] | None] | None = None  # autodoc's, once
        self.napoleon: Any = None  # conf.py's napoleon settings (autodoc), read once
        self.mkdocstrings: Any = None  # mkdocs.yml's docstring options (docstring_md), once

    def module(self, dotted: str) -> tuple[ast.Module, str] | None:
        """(tree, file path) of module `dotted`, or None."""
        if dotted not in self._modules:
            self._modules[dotted] = self._load(dotted)
        return self._modules[dotted]

    def _load(self, dotted: str) -> tuple[ast.Module, str] | None:
        parts = dotted.split(".")
        for root in self.roots:
            for base in (root, root / "src", root / "lib"):
                for candidate in (
                    base.joinpath(*parts[:-1], parts[-1] + ".py"),
                    base.joinpath(*parts, "__init__.py"),
                ):
                    if not candidate.is_file():
                        continue
                    rel = os.path.relpath(candidate, self.docs_dir)
                    try:
                        raw = read_file(self.docs_dir, rel, self.roots, MAX_FILE_BYTES)
                        tree = ast.parse(raw.decode("utf-8", errors="replace"))
                    except (Refused, OSError, SyntaxError, ValueError, RecursionError):
                        continue
                    return tree, candidate.as_posix()
        return None

    def find(self, identifier: str) -> tuple[str, ast.AST] | None:
        """(module name, node) of `identifier`: a module, or an object inside one."""
        parts = identifier.split(".")
        for n in range(len(parts), 0, -1):
            found = self.module(".".join(parts[:n]))
            if found is None:
                continue
            node: ast.AST | None = found[0]
            module = ".".join(parts[:n])
            for name in parts[n:]:
                node, module = self._member(module, node, name, MAX_FOLLOW)
                if node is None:
                    break
            if node is not None:
                return module, node
        return None

    def _member(
        self, module: str, node: ast.AST | None, name: str, follow: int
    ) -> tuple[ast.AST | None, str]:
        body = getattr(node, "body", [])
        for child in defs(node):
            if child.name == name:
                return child, module
        if not isinstance(node, ast.Module) or follow <= 0:
            return None, module
        for child in body:  # `s = attributes = attrs` (attrs' `attr.s`): the object it names
            if (
                isinstance(child, ast.Assign)
                and isinstance(child.value, ast.Name)
                and any(isinstance(t, ast.Name) and t.id == name for t in child.targets)
            ):
                return self._member(module, node, child.value.id, follow - 1)
        for child in _imports(node):  # `from .main import BaseModel` in a package's __init__
            # `from attr.validators import *` (attrs' `attrs.validators`): tried for any name
            star = any(a.name == "*" for a in child.names)
            if star or any((a.asname or a.name) == name for a in child.names):
                original = (
                    name
                    if star
                    else next(a.name for a in child.names if (a.asname or a.name) == name)
                )
                package = module.split(".")
                is_package = self._is_package(module)
                base = package if is_package else package[:-1]
                if child.level:
                    base = base[: len(base) - (child.level - 1)] if child.level > 1 else base
                    target = ".".join([*base, *(child.module.split(".") if child.module else [])])
                else:
                    target = child.module or ""
                found = self.module(target) if target else None
                if found is not None:
                    member = self._member(target, found[0], original, follow - 1)
                    if member[0] is not None or not star:
                        return member
        lazy = _lazy_target(node, name)
        if lazy is not None:  # a package importing on first use (PEP 562 `__getattr__`)
            base = module if self._is_package(module) else module.rpartition(".")[0]
            target = base + lazy if lazy.startswith(".") else lazy
            found = self.module(target)
            if found is not None:
                return self._member(target, found[0], name, follow - 1)
        return None, module

    def _is_package(self, module: str) -> bool:
        found = self.module(module)
        return found is not None and found[1].endswith("/__init__.py")


def _imports(node: ast.Module) -> list[ast.ImportFrom]:
    """A module's `from … import …` statements, also under `if`/`try`: Textual's widgets are
    imported for type checkers only (`if typing.TYPE_CHECKING:`) and lazily at run time."""
    return [child for child in _statements(node) if isinstance(child, ast.ImportFrom)]


def _lazy_target(node: ast.Module, name: str) -> str | None:
    """The module a lazy-import table at module level names for `name`: a dict literal such as
    pydantic's `_dynamic_imports = {'BaseModel': (__spec__.parent, '.main')}` (the last string
    of the value), the convention of packages that import on first attribute access."""
    for child in node.body:
        value = child.value if isinstance(child, ast.Assign | ast.AnnAssign) else None
        if not isinstance(value, ast.Dict):
            continue
        for key, item in zip(value.keys, value.values, strict=True):
            if not (isinstance(key, ast.Constant) and key.value == name):
                continue
            parts = item.elts if isinstance(item, ast.Tuple) else [item]
            last = parts[-1] if parts else None
            if isinstance(last, ast.Constant) and isinstance(last.value, str):
                module = last.value
                if module.startswith(".") or module.replace(".", "").isidentifier():
                    return module
    return None


def render(
    identifier: str, sources: Sources, directive: Mapping[str, object] | None = None
) -> list[str] | None:
    """Markdown lines for `::: identifier` (with the `directive`'s own options over the
    site's, mkdocstrings_options.py), or None when its source is not found."""
    found = sources.find(identifier)
    if found is None:
        return None
    _, node = found
    if sources.mkdocstrings is None:  # (the site's handler options, read once)
        sources.mkdocstrings = docstring_md.site_mapping(sources.docs_dir)
    merged = {**sources.mkdocstrings, **(directive or {})}
    options = docstring_md.options_from(merged)
    chosen = mkdocstrings_options.selection(merged)
    level = chosen.heading_level
    out: list[str] = []
    if isinstance(node, ast.Module):
        out += [f"{'#' * level} `{identifier}`", ""]
        out += docstring_md.render(node, options)
        for member in _chosen(node, chosen, module=True):
            out += _object(member, level + 1, identifier, options, node)
            if isinstance(member, ast.ClassDef):  # its members too, as mkdocstrings shows
                # (`members` is the root's alone; `filters` hold at every level)
                below = replace(chosen, members=None)
                for method in _chosen(member, below, module=False, merged=options.merge_init):
                    out += _object(method, level + 2, f"{identifier}.{member.name}", options)
    else:
        out += _object(node, level, identifier.rsplit(".", 1)[0], options)
        if isinstance(node, ast.ClassDef):
            for member in _chosen(node, chosen, module=False, merged=options.merge_init):
                out += _object(member, level + 1, identifier, options, node)
    return out


def _chosen(
    node: ast.ClassDef | ast.Module, chosen: Selection, module: bool, merged: bool = False
) -> list[ast.AST]:
    """The root object's members a directive shows: its `members` list (in that order, any
    name, attributes too), else its `filters`, else the default (`_public`)."""
    if chosen.members is not None:
        by_name: dict[str, ast.AST] = {d.name: d for d in defs(node)}
        for name, statement in _attributes(node).items():
            by_name.setdefault(name, statement)
        return [by_name[n] for n in chosen.members if n in by_name]
    if chosen.filters is None or chosen.public_only:
        return list(_public(node, module, merged))
    found = defs(node)
    if module and (listed := all_names(node)) is not None:
        found = [d for d in found if d.name in listed]
    return [
        d
        for d in found
        if mkdocstrings_options.keep(d.name, chosen.filters)
        and not (merged and d.name == "__init__")
        # (`show_if_no_docstring: false`, the handler's default: a filtered member without
        # a docstring is not shown; pydantic's `__eq__` passes its `!^from_field$` filters)
        and (chosen.undocumented or ast.get_docstring(d) is not None)
    ]


def _attributes(node: ast.AST) -> dict[str, ast.stmt]:
    """name -> the statement assigning it, of a class's or module's body (`x: int = 0`)."""
    out: dict[str, ast.stmt] = {}
    for child in getattr(node, "body", []):
        target = (
            child.targets[0]
            if isinstance(child, ast.Assign) and len(child.targets) == 1
            else child.target
            if isinstance(child, ast.AnnAssign)
            else None
        )
        if isinstance(target, ast.Name):
            out.setdefault(target.id, child)
    return out


def _object(
    node: ast.AST,
    level: int,
    parent: str,
    options: docstring_md.Options,
    holder: ast.AST | None = None,
) -> list[str]:
    level = min(level, 6)
    if isinstance(node, ast.Assign | ast.AnnAssign) and holder is not None:
        return _attribute(node, level, parent, holder)
    if not isinstance(node, _Def):
        return []
    out = [f"{'#' * level} `{parent}.{node.name}`", "", "```python", _signature(node), "```", ""]
    return out + docstring_md.render(node, options)


def _attribute(
    node: ast.Assign | ast.AnnAssign, level: int, parent: str, holder: ast.AST
) -> list[str]:
    """An attribute a directive's `members` names: its heading, `name: T = value` and the
    docstring under it, as mkdocstrings shows one."""
    target = node.targets[0] if isinstance(node, ast.Assign) else node.target
    name = target.id if isinstance(target, ast.Name) else ""
    try:
        code = name + (
            f": {ast.unparse(node.annotation)}" if isinstance(node, ast.AnnAssign) else ""
        )
        if node.value is not None:
            code += " = " + ast.unparse(node.value).replace("\n", " ")
    except (ValueError, RecursionError):
        code = name
    if len(code) > 300:
        code = code[:297] + "..."
    out = [f"{'#' * level} `{parent}.{name}`", "", "```python", code, "```", ""]
    body = getattr(holder, "body", [])
    at = next((k for k, x in enumerate(body) if x is node), -1)
    after = body[at + 1] if 0 <= at < len(body) - 1 else None
    doc = (
        after.value.value
        if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
        else None
    )
    if isinstance(doc, str):
        out += [*inspect.cleandoc(doc).split("\n"), ""]
    return out


def docstring_lines(node: ast.AST) -> list[str]:
    """The docstring of a module, class or function, as lines (and a blank line), else []."""
    if not isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        return []
    text = ast.get_docstring(node, clean=True)
    return [*text.split("\n"), ""] if text else []


def _signature(node: _Def) -> str:
    try:
        if isinstance(node, ast.ClassDef):
            bases = [ast.unparse(b) for b in node.bases] + [ast.unparse(k) for k in node.keywords]
            return f"class {node.name}({', '.join(bases)})" if bases else f"class {node.name}"
        prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
        returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
        return f"{prefix} {node.name}({ast.unparse(node.args)}){returns}"
    except (ValueError, RecursionError):
        return f"{type(node).__name__} {node.name}"


def package_folder(docs_dir: Path, identifiers: Sequence[str]) -> Path | None:
    """The folder beside the docs that holds the package of one of `identifiers` (dotted
    names), for the warning that asks for --api-source: the repository (the docs folder's
    parent) or its `src/` or `lib/` (SQLAlchemy's), as Python projects lay them out."""
    repo = Path(docs_dir).resolve().parent
    for identifier in identifiers:
        top = identifier.split(".", 1)[0]
        if not top.isidentifier():
            continue
        for base in (repo / "src", repo / "lib", repo):
            for found in (base / top / "__init__.py", base / f"{top}.py"):
                if found.is_file():  # (init's overlay links the repository's entries)
                    return (
                        found.resolve().parent.parent
                        if found.name == "__init__.py"
                        else (found.resolve().parent)
                    )
    return None


def signature(node: ast.AST, drop_self: bool = False) -> str:
    """The parameter list of a function, or of a class's `__init__` (`(a, b=1) -> int`, "" for
    a class without one), as a reST description's signature writes it; `drop_self`: without a
    method's first parameter (`self`, `cls`), as Sphinx shows it."""
    if isinstance(node, ast.ClassDef):
        init = next((d for d in defs(node) if d.name == "__init__"), None)
        # (the constructor's parameters: what calling the class takes, not `-> None`)
        return signature(init, drop_self=True).partition(" -> ")[0] if init is not None else ""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return ""
    args = node.args
    if drop_self:
        positional = [*args.posonlyargs, *args.args]
        if positional and positional[0].arg in ("self", "cls", "mcs", "metacls"):
            args = copy.copy(args)  # (the tree's own node stays whole)
            if args.posonlyargs:
                args.posonlyargs = args.posonlyargs[1:]
            else:
                args.args = args.args[1:]
    try:
        returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
        return f"({ast.unparse(args)}){returns}".replace("\n", " ")
    except (ValueError, RecursionError):
        return "()"


def defs(node: ast.AST | None) -> list[_Def]:
    """The classes and functions defined in `node`'s body, also under `if`/`try` (a module's
    `if TYPE_CHECKING: ... else: class EmailStr:`), first definition of each name kept; a
    `@typing.overload` stub gives way to the implementation after it, which holds the
    docstring (Werkzeug's `Request.get_data`, `MultiDict.getlist`: 18 methods were dropped)."""
    found: dict[str, _Def] = {}
    stubs: set[str] = set()
    for child in _statements(node):
        if isinstance(child, _Def) and (child.name not in found or child.name in stubs):
            found[child.name] = child
            stubs.discard(child.name)
            if decorated(child, "overload"):
                stubs.add(child.name)
    return list(found.values())


def _statements(node: ast.AST | None) -> Iterator[ast.stmt]:
    """The statements of `node`'s body in order, those under `if`/`try` too (not inside
    classes or functions)."""
    stack = list(reversed(getattr(node, "body", [])))
    while stack:
        child = stack.pop()
        if isinstance(child, (ast.If, ast.Try)):
            nested = [*child.body, *child.orelse]
            if isinstance(child, ast.Try):
                nested += [*child.finalbody, *(x for h in child.handlers for x in h.body)]
            stack.extend(reversed(nested))
        else:
            yield child


def decorated(node: ast.AST, *names: str) -> bool:
    """Whether `node` has a decorator of one of `names`, bare or qualified (`@overload`,
    `@t.overload`, `@functools.cached_property`)."""
    for d in getattr(node, "decorator_list", ()):
        name = d.id if isinstance(d, ast.Name) else d.attr if isinstance(d, ast.Attribute) else ""
        if name in names:
            return True
    return False


def _public(node: ast.ClassDef | ast.Module, module: bool, merged: bool = False) -> list[_Def]:
    """The members mkdocstrings shows by default; a class's `__init__` unless `merged` into
    the class (`merge_init_into_class`)."""
    found = defs(node)
    if module:
        listed = all_names(node)
        if listed is not None:
            return [d for d in found if d.name in listed]
        return [d for d in found if not d.name.startswith("_")]
    return [d for d in found if not d.name.startswith("_") or (d.name == "__init__" and not merged)]


def all_names(
    node: ast.AST, resolve: Callable[[str], set[str] | None] | None = None
) -> set[str] | None:
    """A module's `__all__`, read as far as it is static: literal lists and tuples of names,
    joined with `+`, grown by `__all__ += [...]`, `.extend([...])`, `.append("x")`, a module
    level name bound to such a list, and `other.__all__` (the names `resolve(other)` gives,
    none without it: another module's names are no definition of this one). None when there is
    no `__all__` or a part of it is computed (`[x for x in dir()]`): the no-`_` rule then."""
    names: list[str] | None = None
    lists: dict[str, list[str]] = {}  # module-level names bound to a static list of names
    for child in getattr(node, "body", []):
        if isinstance(child, ast.Assign) and len(child.targets) == 1:
            target = child.targets[0]
            if not isinstance(target, ast.Name):
                continue
            value = _static_names(child.value, names, lists, resolve)
            if target.id == "__all__":
                if value is None:
                    return None
                names = value
            elif value is not None and isinstance(child.value, ast.List | ast.Tuple | ast.BinOp):
                lists[target.id] = value
        elif (
            isinstance(child, ast.AugAssign)
            and isinstance(child.target, ast.Name)
            and child.target.id == "__all__"
            and names is not None
        ):
            more = _static_names(child.value, names, lists, resolve)
            if more is None or not isinstance(child.op, ast.Add):
                return None
            names = names + more
        elif (
            names is not None
            and isinstance(child, ast.Expr)
            and isinstance(call := child.value, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "__all__"
            and len(call.args) == 1
        ):
            arg = call.args[0]
            if call.func.attr == "append" and isinstance(arg, ast.Constant):
                if not isinstance(arg.value, str):
                    return None
                names = [*names, arg.value]
            elif call.func.attr == "extend":
                more = _static_names(arg, names, lists, resolve)
                if more is None:
                    return None
                names = names + more
    return set(names) if names is not None else None


def _static_names(
    node: ast.expr,
    current: list[str] | None,
    lists: dict[str, list[str]],
    resolve: Callable[[str], set[str] | None] | None,
    depth: int = 0,
) -> list[str] | None:
    """The names a static `__all__` expression holds (all_names), None when it is computed."""
    if depth > 50:
        return None
    if isinstance(node, ast.List | ast.Tuple):
        out: list[str] = []
        for elt in node.elts:
            if not (isinstance(elt, ast.Constant) and isinstance(elt.value, str)):
                return None
            out.append(elt.value)
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _static_names(node.left, current, lists, resolve, depth + 1)
        right = _static_names(node.right, current, lists, resolve, depth + 1)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.Name):
        if node.id == "__all__":
            return current
        return lists.get(node.id)
    if (
        isinstance(node, ast.Attribute)
        and node.attr == "__all__"
        and isinstance(node.value, ast.Name | ast.Attribute)
    ):
        try:
            other = ast.unparse(node.value)
        except (ValueError, RecursionError):
            return None
        found = resolve(other) if resolve is not None else None
        return sorted(found) if found else []
    return None
