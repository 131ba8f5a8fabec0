"""NumPy-style docstrings (numpydoc, Sphinx's napoleon) read as the reST Sphinx renders them.

NumPy, SciPy and pandas write every docstring in sections underlined with dashes::

    Parameters
    ----------
    a : (..., M, N) array_like
        A real or complex array.

Inside an autodoc description docutils takes those for section titles it cannot place and
drops them: `numpy.linalg.svd`'s page ran its parameters, its three return values and its
`LinAlgError` together as bold lines, with nothing saying which was which, and its entry had no
parameter text, no return. numpydoc rewrites them before Sphinx parses them, and this module
does the same, in the shapes rst.py and rst_objects.py already read:

- Parameters, Other Parameters, Keyword Arguments: `:param name:` / `:type name:` fields (the
  registry's parameters, "Parameters:" on the page, as Sphinx shows them);
- Returns: `:returns:` / `:rtype:` for one value, a list for several (`svd`'s `U`, `S`, `Vh`);
- Raises: `:raises Error:` fields;
- See Also: a "See also" box listing the names as code roles (references when the corpus holds
  them) with their remark;
- Yields, Receives, Warns, Attributes, Methods: a rubric and a list of `name (type) – text`;
- Warnings: a warning box; Notes, References, Examples and any other section: a rubric over
  its text (Examples' `>>>` lines are doctest blocks, code).

`split_signature` takes numpydoc's signature line off the top of a docstring (`einsum`'s
`einsum(subscripts, *operands, out=None, ...)`, written because the code's own signature is
`*operands, **kwargs`), as numpydoc shows it instead of the code's.
"""

from __future__ import annotations

import re

# A section's title and its underline (numpydoc: dashes as long as the title, give or take).
_UNDERLINE = re.compile(r"^[ \t]*-{3,}[ \t]*$")
_TITLE = re.compile(r"^[A-Za-z][A-Za-z ]{1,40}$")
_PARAMS = frozenset(
    {"parameters", "other parameters", "keyword arguments", "keyword args", "params", "args"}
)
_RETURNS = frozenset({"returns", "return"})
_RAISES = frozenset({"raises", "raise"})
_LISTS = frozenset({"yields", "yield", "receives", "warns", "attributes", "methods"})
_SEE_ALSO = "see also"
_WARNINGS = frozenset({"warnings", "warning"})
# numpydoc's test for a signature summary (`numpydoc.docscrape.NumpyDocString._parse_summary`).
_SIGNATURE = re.compile(r"^([\w., ]+=)?\s*([\w.]+)\((.*)\)$")
_INDENT = "   "


# numpydoc's own sections (and napoleon's): a module docstring's other titled sections are
# headings of the page (Celery's `celery.states`: "States", "Sets"), left as written.
_KNOWN = _PARAMS | _RETURNS | _RAISES | _LISTS | _WARNINGS | {
    _SEE_ALSO, "notes", "references", "examples", "example",
}  # fmt: skip


def is_numpydoc(lines: list[str], known_only: bool = False) -> bool:
    """Whether the docstring `lines` (dedented) hold a numpydoc section: a title line at the
    left margin over a line of dashes (`known_only`: one of numpydoc's own titles)."""
    return any(is_title(lines, i, known_only) for i in range(len(lines) - 1))


def split_signature(lines: list[str], name: str) -> tuple[str | None, list[str]]:
    """(the `(...)` of a signature line opening the docstring for `name`, the rest) as
    numpydoc reads it: the first paragraph, joined, is `name(...)` (or `a, b = name(...)`)."""
    end = 0
    while end < len(lines) and lines[end].strip():
        end += 1
    if end == 0 or end > 8:
        return None, lines
    joined = " ".join(x.strip() for x in lines[:end])
    m = _SIGNATURE.match(joined)
    if m is None or m.group(2).rpartition(".")[2] != name:
        return None, lines
    rest = lines[end:]
    while rest and not rest[0].strip():
        rest = rest[1:]
    return f"({m.group(3)})", rest


def to_rest(lines: list[str], known_only: bool = False) -> list[str]:
    """The docstring `lines` with its numpydoc sections as the reST Sphinx renders; lines
    outside any section (the summary) as written. A docstring without sections is returned
    as it is. An object's docstring is read inside its description, where docutils drops a
    section title: another titled section there becomes a rubric (Scrapy's scheduler's "Start
    request order"); a module's (`known_only`) stands at the page's top level, where its
    sections are headings, and keeps them."""
    if not is_numpydoc(lines, known_only):
        return lines
    out: list[str] = []
    i = 0
    while i < len(lines):
        if i + 1 < len(lines) and is_title(lines, i, known_only):
            title = lines[i].strip()
            j = i + 2
            while j < len(lines) and not (j + 1 < len(lines) and is_title(lines, j)):
                j += 1
            body = lines[i + 2 : j]
            while body and not body[-1].strip():
                body.pop()
            while body and not body[0].strip():
                body.pop(0)
            if out and out[-1].strip():
                out.append("")
            out += _section(title, body)
            out.append("")
            i = j
            continue
        out.append(lines[i])
        i += 1
    while out and not out[-1].strip():
        out.pop()
    return out


def is_title(lines: list[str], i: int, known_only: bool = False) -> bool:
    return (
        bool(_UNDERLINE.match(lines[i + 1]))
        and bool(_TITLE.match(lines[i]))
        and not lines[i].startswith((" ", "\t"))
        and (i == 0 or not lines[i - 1].strip())
        and (not known_only or " ".join(lines[i].lower().split()) in _KNOWN)
    )


def _section(title: str, body: list[str]) -> list[str]:
    key = " ".join(title.lower().split())
    if key in _PARAMS:
        return param_fields(entries(body))
    if key in _RETURNS:
        return return_fields(entries(body, typed_alone=True))
    if key in _RAISES:
        return raise_fields(entries(body, typed_alone=True))
    if key == _SEE_ALSO:
        return _see_also(body)
    if key in _LISTS:
        typed_alone = key in ("yields", "yield", "receives", "warns")
        return [f".. rubric:: {title}", "", *listed(entries(body, typed_alone))]
    if key in _WARNINGS:
        return [".. warning::", "", *(_INDENT + x if x.strip() else "" for x in _dedent(body))]
    return [f".. rubric:: {title}", "", *_dedent(body)]


def entries(body: list[str], typed_alone: bool = False) -> list[tuple[str, str, list[str]]]:
    """(name, type, description lines) of each `name : type` line at the margin and the
    indented lines under it. `typed_alone`: a line without ` : ` is a type (Returns, Raises),
    else a name."""
    found: list[tuple[str, str, list[str]]] = []
    for line in body:
        if line.strip() and not line[:1].isspace():
            head = line.strip()
            if " : " in head or head.endswith(" :"):
                name, _, type_ = head.partition(" :")
                found.append((name.strip(), type_.strip(), []))
            elif typed_alone:  # (`LinAlgError`; Celery writes `ImproperlyConfigured:`)
                found.append(("", head.rstrip(":").rstrip(), []))
            else:
                found.append((head.rstrip(":").rstrip(), "", []))
        elif found:
            found[-1][2].append(line)
    return [(n, t, _dedent(d)) for n, t, d in found]


def _dedent(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    depth = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return [x[depth:] if x.strip() else "" for x in lines]


def _escape(name: str) -> str:
    """A name as field text: `*args` and `**kwargs` keep their stars (not emphasis)."""
    return name.replace("*", r"\*")


def param_fields(entries: list[tuple[str, str, list[str]]]) -> list[str]:
    out: list[str] = []
    for name, type_, desc in entries:
        field = _escape(name)
        out.append(f":param {field}:")
        out += [_INDENT + x if x else "" for x in desc]
        if type_:
            out.append(f":type {field}: {type_}")
    return out


def return_fields(entries: list[tuple[str, str, list[str]]]) -> list[str]:
    if len(entries) == 1:
        name, type_, desc = entries[0]
        head = f"**{_escape(name)}** – " if name else ""
        lines = desc or ([""] if head else [])
        out = [":returns:"] if lines else []
        if lines:
            out.append(_INDENT + (head + lines[0]).rstrip())
            out += [_INDENT + x if x else "" for x in lines[1:]]
        return out + ([f":rtype: {type_}"] if type_ else [])
    return [":returns:", "", *(_INDENT + x if x else "" for x in listed(entries))]


def raise_fields(entries: list[tuple[str, str, list[str]]]) -> list[str]:
    out: list[str] = []
    for name, type_, desc in entries:
        for error in (name or type_).split(","):
            if error.strip():
                out.append(f":raises {error.strip()}:")
                out += [_INDENT + x if x else "" for x in desc]
    return out


def listed(entries: list[tuple[str, str, list[str]]]) -> list[str]:
    """A bullet list of `**name** (type) – text` items."""
    out: list[str] = []
    for name, type_, desc in entries:
        head = f"**{_escape(name)}**" if name else ""
        if type_:
            head = f"{head} ({type_})" if head else type_
        first = f"{head} – {desc[0]}" if desc and desc[0] else head
        out.append(f"- {first}".rstrip())
        out += ["  " + x if x else "" for x in desc[1:]]
    return out


def _see_also(body: list[str]) -> list[str]:
    """numpydoc's `name : remark` (or `name1, name2`) lines, the names as code roles."""
    items: list[tuple[list[str], list[str]]] = []
    for line in body:
        if not line.strip():
            continue
        if not line[:1].isspace():
            names, _, remark = line.strip().partition(" : ")
            refs = [_ref(n.strip()) for n in names.rstrip(",").split(",") if n.strip()]
            items.append((refs, [remark.strip()] if remark.strip() else []))
        elif items:
            items[-1][1].append(line.strip())
    out = [".. seealso::", ""]
    for refs, remark in items:
        text = ", ".join(refs) + (" – " + " ".join(remark) if remark else "")
        out.append(f"{_INDENT}- {text}")
    return out if items else []


def _ref(name: str) -> str:
    """`name` as a code role, unless written as a role already."""
    if name.startswith(":") or "`" in name:
        return name
    return f":obj:`{name}`"
