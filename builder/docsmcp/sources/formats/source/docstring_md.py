"""A docstring on a mkdocstrings page, as mkdocstrings' Python handler renders it.

mkdocstrings parses each docstring in the site's `docstring_style` (mkdocs.yml, `plugins:
- mkdocstrings: handlers: python: options: docstring_style:`; `google` when unset, `numpy`,
`sphinx`, `auto`, or none for plain text) and shows its sections as tables, with the types
and defaults the signature gives where the docstring gives none::

    **Parameters:**

    | Name | Type | Description | Default |
    | --- | --- | --- | --- |
    | `strict` | `bool | None` | Whether to enforce types strictly. | `None` |

(`docstring_section_style: list`: a `- **`name`** (`type`) – text` list). Returns, Yields and
Receives list type and text (a Name column when one is named), Raises and Warns the type,
Attributes name, type and text. Examples show their text, `>>>` runs as Python code;
`Note:`, `Warning:` and other titled blocks are admonitions (`!!! note`), as mkdocs-material
shows them. The markdown reader then finds the tables under their labels, so the page's API
entries hold the parameters (enrich/apiref.py). Pydantic: 305 entries, none with a parameter,
`Args:` shown as one run-on paragraph.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from docsmcp.sources.formats.rst import numpydoc
from docsmcp.sources.formats.source import googledoc
from docsmcp.sources.site_config import mkdocs_configs, read_yaml

STYLES = frozenset(("google", "numpy", "sphinx", "auto"))
_SPHINX_FIELD = re.compile(
    r"^:(param|parameter|arg|argument|key|keyword|type|returns?|rtype|raises?|except|"
    r"exception|yields?|ytype|var|ivar|cvar|vartype)(?:[ \t]+([^:]*?))?[ \t]*:(?:[ \t]+(.*))?$"
)
_DOCTEST = re.compile(r"\s*#\s*doctest:.+$")  # (a doctest flag, left out as griffe does)
_TITLES = {
    googledoc.PARAMS: "Parameters:",
    googledoc.OTHER_PARAMS: "Other Parameters:",
    googledoc.RETURNS: "Returns:",
    googledoc.YIELDS: "Yields:",
    googledoc.RECEIVES: "Receives:",
    googledoc.RAISES: "Raises:",
    googledoc.WARNS: "Warns:",
    googledoc.ATTRIBUTES: "Attributes:",
    googledoc.METHODS: "Methods:",
    googledoc.EXAMPLES: "Examples:",
}


@dataclass(frozen=True)
class Options:
    """The site's docstring options: `style` (google, numpy, sphinx, auto; "" for none) and
    `section_style` (table or list)."""

    style: str = "google"
    section_style: str = "table"
    merge_init: bool = False  # merge_init_into_class: `__init__`'s docstring in its class's
    ignore_init_summary: bool = False  # docstring_options: without `__init__`'s first line


def site_options(docs_dir: Path) -> Options:
    """The Python handler's options in the site's mkdocs.yml (defaults without one)."""
    return options_from(site_mapping(docs_dir))


def site_mapping(docs_dir: Path) -> dict:
    """The Python handler's options in the site's mkdocs.yml as written ({} without one): a
    directive's own options go over them (mkdocstrings_options.py)."""
    for config in mkdocs_configs(docs_dir):
        data = read_yaml(config)
        plugins = data.get("plugins") if isinstance(data, dict) else None
        for plugin in plugins if isinstance(plugins, list) else []:
            found = plugin.get("mkdocstrings") if isinstance(plugin, dict) else None
            handlers = found.get("handlers") if isinstance(found, dict) else None
            python = handlers.get("python") if isinstance(handlers, dict) else None
            options = python.get("options") if isinstance(python, dict) else None
            if isinstance(options, dict):
                return options
    return {}


def options_from(options: dict) -> Options:
    """Options from a mapping of mkdocstrings' option names (a site's or a directive's)."""
    style = options.get("docstring_style", "google")
    section = options.get("docstring_section_style", "table")
    parsing = options.get("docstring_options")
    return Options(
        # (null: no parsing, the text as written; a value of another type is no style)
        style=style if isinstance(style, str) and style in STYLES else "",
        section_style="list" if section == "list" else "table",
        merge_init=options.get("merge_init_into_class") is True,
        ignore_init_summary=isinstance(parsing, dict)
        and parsing.get("ignore_init_summary") is True,
    )


def render(node: ast.AST, options: Options) -> list[str]:
    """The docstring of `node` as mkdocstrings shows it, as lines (and a blank line); []."""
    if not isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        return []
    text = ast.get_docstring(node, clean=True) or ""
    init = init_of(node) if options.merge_init else None
    if init is not None and (more := ast.get_docstring(init, clean=True)):
        if options.ignore_init_summary:  # (griffe: the summary line and the blank after it)
            more = "\n".join(more.split("\n")[2:])
        text = f"{text}\n\n{more}".strip("\n")
    if not text:
        return []
    lines = text.split("\n")
    sections = _sections(lines, options.style)
    if sections is None:
        return [*lines, ""]
    out: list[str] = []
    for section in sections:
        if section.kind == googledoc.TEXT:
            out += section.body
        else:
            out += _section(section, node, options.section_style)
        out.append("")
    return out


def _sections(lines: list[str], style: str) -> list[googledoc.Section] | None:
    if style == "auto":  # (griffe's auto: the style whose sections the docstring holds)
        style = (
            "google" if googledoc.has_sections(lines, blank_above=True)
            else "numpy" if numpydoc.is_numpydoc(lines)
            else "sphinx" if any(_SPHINX_FIELD.match(x) for x in lines)
            else ""
        )  # fmt: skip
    if style == "google":
        return googledoc.parse(lines, blank_above=True, any_admonition=True)
    if style == "numpy" and numpydoc.is_numpydoc(lines):
        return _numpy(lines)
    if style == "sphinx" and any(_SPHINX_FIELD.match(x) for x in lines):
        return _sphinx(lines)
    return None


def _numpy(lines: list[str]) -> list[googledoc.Section]:
    """numpydoc's sections (numpydoc.py reads their entries) in googledoc's shape."""
    out: list[googledoc.Section] = []
    text: list[str] = []
    i = 0
    while i < len(lines):
        if not (i + 1 < len(lines) and numpydoc.is_title(lines, i)):
            text.append(lines[i])
            i += 1
            continue
        if any(x.strip() for x in text):
            out.append(googledoc.Section(googledoc.TEXT, "", body=tuple(text)))
        text = []
        title = lines[i].strip()
        j = i + 2
        while j < len(lines) and not (j + 1 < len(lines) and numpydoc.is_title(lines, j)):
            j += 1
        body = lines[i + 2 : j]
        kind = googledoc.kind_of(title, any_admonition=True) or googledoc.ADMONITION
        if kind in _TITLES and kind != googledoc.EXAMPLES:
            typed = kind in (googledoc.RETURNS, googledoc.YIELDS, googledoc.RECEIVES,
                             googledoc.RAISES, googledoc.WARNS)  # fmt: skip
            items = tuple(
                googledoc.Item(n, t, tuple(d)) for n, t, d in numpydoc.entries(body, typed)
            )
            out.append(googledoc.Section(kind, title, items=items))
        else:
            dedented = [x.strip() and x for x in body]
            while dedented and not dedented[-1]:
                dedented.pop()
            out.append(googledoc.Section(kind, title, body=tuple(dedented)))
        i = j
    if any(x.strip() for x in text):
        out.append(googledoc.Section(googledoc.TEXT, "", body=tuple(text)))
    return out


def _sphinx(lines: list[str]) -> list[googledoc.Section]:
    """Sphinx's info fields (`:param x:`, `:type x:`, `:returns:`, `:rtype:`, `:raises E:`,
    `:ivar x:`) as the sections mkdocstrings' sphinx style makes of them."""
    text: list[str] = []
    fields: dict[str, dict[str, list[str]]] = {"param": {}, "var": {}, "raise": {}}
    types: dict[str, str] = {}
    returns: list[str] = []
    rtype = ""
    current: list[str] | None = None
    for line in lines:
        m = _SPHINX_FIELD.match(line)
        if m is None:
            if current is not None and (line[:1].isspace() or not line.strip()):
                current.append(line.strip())
            else:
                current = None
                text.append(line)
            continue
        field, arg, value = m.group(1), (m.group(2) or "").strip(), (m.group(3) or "").strip()
        current = [value] if value else []
        if field in ("type", "vartype"):
            types[arg], current = value, None
        elif field == "rtype":
            rtype, current = value, None
        elif field in ("returns", "return", "yield", "yields"):
            returns = current
        elif field in ("raises", "raise", "except", "exception"):
            fields["raise"][arg] = current
        elif arg:
            *type_words, name = arg.split()
            if type_words:  # `:param int x:`
                types.setdefault(name, " ".join(type_words))
            fields["var" if field in ("var", "ivar", "cvar") else "param"][name] = current
    out = [googledoc.Section(googledoc.TEXT, "", body=tuple(text))] if text else []
    for kind, key in ((googledoc.PARAMS, "param"), (googledoc.ATTRIBUTES, "var")):
        if fields[key]:
            items = tuple(
                googledoc.Item(n, types.get(n, ""), tuple(d)) for n, d in fields[key].items()
            )
            out.append(googledoc.Section(kind, _TITLES[kind].rstrip(":"), items=items))
    if returns or rtype:
        item = googledoc.Item("", rtype, tuple(returns))
        out.append(googledoc.Section(googledoc.RETURNS, "Returns", items=(item,)))
    if fields["raise"]:
        items = tuple(googledoc.Item("", e, tuple(d)) for e, d in fields["raise"].items())
        out.append(googledoc.Section(googledoc.RAISES, "Raises", items=items))
    return out


def _section(section: googledoc.Section, node: ast.AST, style: str) -> list[str]:
    kind = section.kind
    title = f"**{_TITLES.get(kind, section.title + ':')}**"
    if kind == googledoc.ADMONITION:
        return _admonition(section)
    if kind == googledoc.EXAMPLES:
        return [title, "", *_examples(list(section.body))]
    items = section.items
    if kind in (googledoc.PARAMS, googledoc.OTHER_PARAMS):
        args = _arguments(node)
        rows = []
        for item in items:
            annotation, default = args.get(item.name.lstrip("*"), ("", None))
            type_ = _strip_optional(item.type) or annotation
            rows.append((item.name, type_, item.description, default))
        if style == "list":
            return [title, "", *_list([(n, t, d) for n, t, d, _ in rows])]
        head = ["Name", "Type", "Description", "Default"]
        body = [
            [_code(n), _code(t), _cell(d), "*required*" if v is None else _code(v)]
            for n, t, d, v in rows
        ]
        return [title, "", *_table(head, body)]
    if kind in (googledoc.RETURNS, googledoc.YIELDS, googledoc.RECEIVES):
        annotation = _returned(node, kind) if len(items) == 1 else ""
        rows3 = [(i.name, i.type or annotation, i.description) for i in items]
        if style == "list":
            return [title, "", *_list(rows3)]
        named = any(n for n, _, _ in rows3)
        head = ["Name", "Type", "Description"] if named else ["Type", "Description"]
        body = [[_code(n), _code(t), _cell(d)][0 if named else 1 :] for n, t, d in rows3]
        return [title, "", *_table(head, body)]
    if kind in (googledoc.RAISES, googledoc.WARNS):
        rows3 = [("", i.type or i.name, i.description) for i in items]
        if style == "list":
            return [title, "", *_list(rows3)]
        return [title, "", *_table(["Type", "Description"],
                                   [[_code(t), _cell(d)] for _, t, d in rows3])]  # fmt: skip
    annotated = _annotations(node) if kind == googledoc.ATTRIBUTES else {}
    rows3 = [(i.name, i.type or annotated.get(i.name, ""), i.description) for i in items]
    if style == "list":
        return [title, "", *_list(rows3)]
    return [title, "", *_table(["Name", "Type", "Description"],
                               [[_code(n), _code(t), _cell(d)] for n, t, d in rows3])]  # fmt: skip


def _admonition(section: googledoc.Section) -> list[str]:
    kind = "-".join(section.title.lower().split())
    title = section.heading or section.title
    head = f"!!! {kind}" if title.lower() == kind else f'!!! {kind} "{title}"'
    return [head, *("    " + x if x else "" for x in section.body)]


def _examples(body: list[str]) -> list[str]:
    """An Examples section: its text as written, each run of `>>>` lines (to a blank line) a
    Python code block, doctest flags left out, as griffe reads them."""
    out: list[str] = []
    in_example = False
    fence = False
    for line in body:
        if line.lstrip().startswith("```"):
            fence = not fence
        if not fence and not in_example and line.startswith(">>>"):
            out += ["```python"]
            in_example = True
        if in_example and not line.strip():
            out += ["```", ""]
            in_example = False
            continue
        out.append(_DOCTEST.sub("", line) if in_example else line)
    return out + (["```"] if in_example else [])


def init_of(node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """A class's own `__init__` (its implementation, not a `@overload` stub: TypeAdapter's
    stubs default every argument to `...`), else None."""
    if not isinstance(node, ast.ClassDef):
        return None
    inits = [
        d
        for d in node.body
        if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef) and d.name == "__init__"
    ]
    real = [d for d in inits if not any(_unparse(x).endswith("overload") for x in d.decorator_list)]
    return (real or inits or [None])[-1]


def _arguments(node: ast.AST) -> dict[str, tuple[str, str | None]]:
    """name -> (annotation, default or None) of a function's parameters, or of a class's
    `__init__` (what mkdocstrings fills a parameter's type and default from)."""
    if isinstance(node, ast.ClassDef):
        node = init_of(node)
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return {}
    a = node.args
    positional = [*a.posonlyargs, *a.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(
        a.defaults
    )
    pairs = [*zip(positional, defaults, strict=True)]
    pairs += zip(a.kwonlyargs, a.kw_defaults, strict=True)
    pairs += [(x, None) for x in (a.vararg, a.kwarg) if x is not None]
    out: dict[str, tuple[str, str | None]] = {}
    for arg, default in pairs:
        out[arg.arg] = (_unparse(arg.annotation), _unparse(default) if default else None)
    for star in (a.vararg, a.kwarg):
        if star is not None:
            out[star.arg] = (out[star.arg][0], "()" if star is a.vararg else "{}")
    return out


def _annotations(node: ast.AST) -> dict[str, str]:
    """name -> annotation of the `name: T` lines of a class's or module's body (an attribute's
    type, where its docstring gives none)."""
    out: dict[str, str] = {}
    for child in getattr(node, "body", []):
        if isinstance(child, ast.AnnAssign) and isinstance(child.target, ast.Name):
            out[child.target.id] = _unparse(child.annotation)
    return out


def _returned(node: ast.AST, kind: str) -> str:
    """The return annotation (a generator's yielded or sent type for Yields and Receives)."""
    returns = getattr(node, "returns", None)
    if returns is None:
        return ""
    if kind != googledoc.RETURNS and isinstance(returns, ast.Subscript):
        base = _unparse(returns.value).rpartition(".")[2]
        args = returns.slice.elts if isinstance(returns.slice, ast.Tuple) else [returns.slice]
        if base in ("Iterator", "Iterable", "AsyncIterator", "AsyncIterable"):
            return _unparse(args[0]) if kind == googledoc.YIELDS else ""
        if base in ("Generator", "AsyncGenerator"):
            index = 0 if kind == googledoc.YIELDS else 1
            return _unparse(args[index]) if index < len(args) else ""
        return ""
    return _unparse(returns) if kind == googledoc.RETURNS else ""


def _unparse(node: ast.AST | None) -> str:
    if node is None:
        return ""
    try:
        return " ".join(ast.unparse(node).split())
    except (ValueError, RecursionError):
        return ""


def _strip_optional(type_: str) -> str:
    return type_.removesuffix(", optional").strip()


def _code(text: str) -> str:
    """`text` in a code span of a table cell ("" stays empty)."""
    if not text:
        return ""
    ticks = "``" if "`" in text else "`"
    return f"{ticks}{text}{ticks}".replace("|", r"\|")


def _cell(lines: tuple[str, ...]) -> str:
    """Description lines as one table cell: joined, pipes escaped."""
    return " ".join(x.strip() for x in lines if x.strip()).replace("|", r"\|")


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(head) + " |",
        "| " + " | ".join("---" for _ in head) + " |",
        *("| " + " | ".join(r) + " |" for r in rows),
    ]


def _list(rows: list[tuple[str, str, tuple[str, ...]]]) -> list[str]:
    """mkdocstrings' `list` section style: `- **`name`** (`type`) – text`."""
    out: list[str] = []
    for name, type_, desc in rows:
        head = f"**`{name}`**" if name else ""
        if type_:
            head = f"{head} (`{type_}`)" if head else f"`{type_}`"
        first = f"{head} – {desc[0]}" if desc and desc[0] else head
        out.append(f"- {first}".rstrip())
        out += ["  " + x if x else "" for x in desc[1:]]
    return out
