"""What a C# page shows of other files, as docfx shows it: an after-reading pass over every C#
page of the tree (site_passes.after_reading), which csharpdoc.py reads from the one line it
appends (formats/source/csharp_merge.py).

- **`<inheritdoc/>`.** docfx copies the comment of the member (or type) a declaration
  overrides or implements. Here the bases a type's declaration names (`: ResiliencePipeline-
  Provider<TKey>, IDisposable`) are found among the tree's C# pages by name and number of type
  parameters (the file's namespace first, then its `using`s), and their bases in turn, up to
  MAX_DEPTH: the member of the same name, kind and parameter types (`string` is
  `System.String`; a base's type parameter stands for any type) gives its text when it has
  its own (a type's `<inheritdoc/>` takes its base type's); an overload with as many
  parameters of other types is another member, never its text. `<inheritdoc cref="T.M"/>`
  names the member to copy, `cref="T.M(string)"` or `M:T.M(System.String)` the overload.
  A base outside the tree (`System.Exception`) is not read: the page says *Inherited from …*
  as before.
- **`<code source="…" region="…"/>`.** docfx shows the region (`#region NAME` … `#endregion`)
  of the file named. The path is read from the comment's folder, then from each folder above
  it (Newtonsoft's `..\\Src\\Newtonsoft.Json.Tests\\…` is written from its `Doc/` folder),
  inside the docs folder and through `files.read_file_text`, so only inside the source roots.
"""

from __future__ import annotations

import logging
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.common.limits import MAX_FILE_BYTES
from docsmcp.model.source import SourceFile
from docsmcp.sources.files import CSHARP_SUFFIXES, read_file_text
from docsmcp.sources.formats.source import csharp_merge, pass_line, xmldoc
from docsmcp.sources.formats.source.csharp_decls import Decl, Unit, is_type
from docsmcp.sources.formats.source.csharp_parse import parse
from docsmcp.sources.formats.source.xmldoc import cref_name
from docsmcp.sources.packages.dotnet_inherit import inherits

log = logging.getLogger("docsmcp.sources.packages.dotnet_merge")

MAX_DEPTH = 8  # base types followed up for an `<inheritdoc/>`, at most
MAX_REGION_LINES = 200  # lines of one `<code region>` shown, at most
MAX_FILES = 20_000  # C# pages read by the pass, at most (a bigger tree is left as read)
_CODE = re.compile(r"<code\b[^>]*?\bsource\s*=\s*\"([^\"]+)\"[^>]*?\bregion\s*=\s*\"([^\"]+)\"")
_BASE_LIST = re.compile(r"\b(?:class|interface|struct|record)\b[^{;]*?[^:]:[^:]")
_CODE_REVERSED = re.compile(
    r"<code\b[^>]*?\bregion\s*=\s*\"([^\"]+)\"[^>]*?\bsource\s*=\s*\"([^\"]+)\""
)


@dataclass(frozen=True)
class _Type:
    """A type declared on a page: its qualified name without type parameters, its arity."""

    name: str
    arity: int
    decl: Decl
    unit: Unit
    namespace: str


def _bare(name: str) -> str:
    return re.sub(r"<.*>", "", name).strip()


def _arity(name: str) -> int:
    inner = name[name.find("<") + 1 : name.rfind(">")] if "<" in name else ""
    depth, count = 0, 1 if inner.strip() else 0
    for ch in inner:
        depth += {"<": 1, ">": -1}.get(ch, 0)
        count += ch == "," and depth == 0
    return count


def bases(declaration: str) -> list[str]:
    """The types a declaration's base list names, as written (`ResiliencePipelineProvider<TKey>`
    and `IDisposable` of `class R<TKey> : ResiliencePipelineProvider<TKey>, IDisposable where …`;
    a primary constructor's and a base call's arguments left out)."""
    depth, start = 0, -1
    for k, ch in enumerate(declaration):
        if depth == 0 and re.match(r"\swhere\s", declaration[k : k + 7]):
            return []  # (a constraint's `:` is no base list)
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif (
            ch == ":"
            and depth == 0
            and ":" not in (declaration[k - 1 : k], declaration[k + 1 : k + 2])
        ):
            start = k + 1  # (not `global::`)
            break
    if start < 0:
        return []
    out: list[str] = []
    current: list[str] = []
    depth = 0
    rest = declaration[start:]
    for k, ch in enumerate(rest):
        if depth == 0 and re.match(r"\swhere\s", rest[k : k + 7]):
            break
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(current))
            current = []
        else:
            current.append(ch)
    out.append("".join(current))
    return [re.sub(r"\(.*\)", "", x).strip().removeprefix("global::") for x in out if x.strip()]


def _types(units: dict[str, Unit]) -> dict[tuple[str, int], list[_Type]]:
    """Every type of the pages by (simple name, arity)."""
    out: dict[tuple[str, int], list[_Type]] = {}
    for unit in units.values():
        todo = [(t, "") for t in unit.types]
        while todo:
            decl, owner = todo.pop()
            if not is_type(decl):
                continue
            qualified = f"{owner}.{_bare(decl.name)}" if owner else _bare(decl.name)
            namespace = qualified.rpartition(".")[0] if not owner else ""
            simple = qualified.rpartition(".")[2]
            found = _Type(qualified, _arity(decl.name), decl, unit, namespace)
            out.setdefault((simple, found.arity), []).append(found)
            todo += [(m, qualified) for m in decl.members]
    return out


def _resolve(name: str, seen_from: _Type, types: dict[tuple[str, int], list[_Type]]) -> list[_Type]:
    """The declarations (a partial type's several) of the type `name` names from `seen_from`."""
    simple = _bare(name).rpartition(".")[2]
    found = types.get((simple, _arity(name)), [])
    if not found:
        return []
    spaces = [seen_from.name.rpartition(".")[0], *seen_from.unit.namespaces, *seen_from.unit.usings]
    for space in spaces:
        near = [t for t in found if t.name == f"{space}.{simple}"]
        if near:
            return near
    named = {t.name for t in found}
    return found if len(named) == 1 else []


def _own_doc(doc: str) -> bool:
    return bool(doc.strip()) and "<inheritdoc" not in doc


def _type_parameters(name: str) -> frozenset[str]:
    inner = name[name.find("<") + 1 : name.rfind(">")] if "<" in name else ""
    return frozenset(w for w in re.findall(r"\w+", inner) if w not in ("in", "out"))


def _overload(
    members: list[Decl], decl: Decl, base: Decl, types: tuple[str, ...] | None = None
) -> Decl | None:
    """The member of `base` that `decl` overrides or implements (or a cref's parameter
    `types` name): of those of its name, kind and number of parameters, the one whose
    parameter types are `decl`'s, a type parameter of the base or the member standing for
    any (`Execute(TState)` for `Execute(string)`); the only one when none is (a type argument
    the base list gives it), else none: an overload of the same count is another member."""
    wanted = types if types is not None else tuple(xmldoc.type_key(t) for t, _ in decl.params)
    same = [m for m in members if _bare(m.name) == _bare(decl.name)]
    if types is None:
        same = [m for m in same if m.kind == decl.kind]
    same = [m for m in same if len(m.params) == len(wanted)]
    wild = _type_parameters(base.name)
    for m in same:
        own = tuple(xmldoc.type_key(t) for t, _ in m.params)
        if xmldoc.types_match(own, wanted, wild | _type_parameters(m.name)):
            return m
    return same[0] if len(same) == 1 else None


def _inherited(decl: Decl, owner: _Type, types: dict[tuple[str, int], list[_Type]]) -> str | None:
    """The comment `decl` (a member of `owner`, or `owner` itself) inherits from a base."""
    queue = [(owner, 0)]
    seen = {id(owner.decl)}
    while queue:
        current, depth = queue.pop(0)
        if depth >= MAX_DEPTH:
            continue
        for name in bases(current.decl.declaration):
            for base in _resolve(name, current, types):
                if id(base.decl) in seen:
                    continue
                seen.add(id(base.decl))
                if decl is owner.decl:
                    if _own_doc(base.decl.doc):
                        return base.decl.doc
                else:
                    m = _overload(base.decl.members, decl, base.decl)
                    if m is not None and _own_doc(m.doc):
                        return m.doc
                queue.append((base, depth + 1))
    return None


def _by_cref(cref: str, owner: _Type, types: dict[tuple[str, int], list[_Type]]) -> str | None:
    """The comment `<inheritdoc cref="…"/>` names: a type's, or a member's of a type."""
    name = cref_name(cref)
    name = re.sub(r"\(.*\)$", "", name)
    params = xmldoc.cref_params(cref)
    if params is None:
        for t in _resolve(name, owner, types):
            if _own_doc(t.decl.doc):
                return t.decl.doc
    head, _, member = name.rpartition(".")
    for t in _resolve(head, owner, types) if head else [owner]:
        if params is not None:  # (`<inheritdoc cref="Write(string)"/>`: that overload)
            probe = Decl("method", member, 0)
            m = _overload(t.decl.members, probe, t.decl, params)
            if m is not None and _own_doc(m.doc):
                return m.doc
            continue
        for m in t.decl.members:
            if _bare(m.name) == _bare(member) and _own_doc(m.doc):
                return m.doc
    return None


def _region(text: str, region: str) -> str | None:
    """The lines between `#region NAME` and its `#endregion` (nested regions counted)."""
    lines = text.split("\n")
    start = next(
        (
            k
            for k, x in enumerate(lines)
            if re.fullmatch(rf"\s*#region\s+{re.escape(region)}\s*", x)
        ),
        None,
    )
    if start is None:
        return None
    depth, out = 1, []
    for x in lines[start + 1 :]:
        if re.match(r"\s*#region\b", x):
            depth += 1
        elif re.match(r"\s*#endregion\b", x):
            depth -= 1
            if not depth:
                break
        if not re.match(r"\s*#(end)?region\b", x):
            out.append(x)
        if len(out) >= MAX_REGION_LINES:
            break
    return "\n".join(out)


def _regions(
    path: str, text: str, docs_dir: Path, roots: Sequence[Path], cache: dict[str, str | None]
) -> dict[str, str]:
    """The code of the `<code source region>` tags of the page `path`, by "source#region"."""
    wanted = {(s, r) for s, r in _CODE.findall(text)} | {
        (s, r) for r, s in _CODE_REVERSED.findall(text)
    }
    out: dict[str, str] = {}
    for source, region in sorted(wanted):
        relative = source.replace("\\", "/")
        folder = posixpath.dirname(path)
        while True:
            target = posixpath.normpath(posixpath.join(folder, relative))
            if not target.startswith("../") and target != "..":
                if target not in cache:
                    found = Path(docs_dir) / target
                    cache[target] = (
                        read_file_text(Path(docs_dir), target, roots, MAX_FILE_BYTES)
                        if found.is_file()
                        else None
                    )
                if cache[target] is not None:
                    code = _region(cache[target].replace("\r\n", "\n"), region)
                    if code is not None:
                        out[f"{source}#{region}"] = code
                    break
            if not folder:
                break
            folder = posixpath.dirname(folder)
    return out


def resolve(files: list[SourceFile], docs_dir: Path, roots: Sequence[Path]) -> list[SourceFile]:
    """The C# pages with the comments and regions they show of other files (see above)."""
    pages = [f for f in files if f.path.endswith(CSHARP_SUFFIXES)]
    if not pages or len(pages) > MAX_FILES:
        return files
    wants = [f for f in pages if "<inheritdoc" in f.body or "region=" in f.body]
    based = [f for f in pages if _BASE_LIST.search(f.body)]  # (a page that may inherit)
    if not wants and not based:
        return files
    units = {f.path: parse(f.body) for f in pages}
    types = _types(units)
    cache: dict[str, str | None] = {}
    merged: dict[str, csharp_merge.Merge] = {}
    by_unit: dict[int, list[_Type]] = {}
    for ts in types.values():
        for t in ts:
            by_unit.setdefault(id(t.unit), []).append(t)
    path_of = {id(u): p for p, u in units.items()}
    for f in based:  # (what each type inherits: dotnet_inherit.py)
        found = inherits(
            by_unit.get(id(units[f.path]), []),
            lambda name, seen_from: _resolve(name, seen_from, types),
            bases,
            path_of,
            lambda t: (
                [x for x in types.get((t.name.rpartition(".")[2], t.arity), []) if x.name == t.name]
                or [t]
            ),
        )
        if found:
            merged[f.path] = csharp_merge.Merge(inherits=found)
    for f in wants:
        docs: dict[str, str] = {}
        for owner in by_unit.get(id(units[f.path]), []):
            for decl in [owner.decl, *owner.decl.members]:
                if "<inheritdoc" not in decl.doc or (is_type(decl) and decl is not owner.decl):
                    continue
                cref = re.search(r"<inheritdoc\b[^>]*\bcref\s*=\s*\"([^\"]+)\"", decl.doc)
                text = (
                    _by_cref(cref.group(1), owner, types)
                    if cref
                    else _inherited(decl, owner, types)
                )
                if text is not None:
                    docs[csharp_merge.key(decl)] = text
        regions = _regions(f.path, f.body, docs_dir, roots, cache) if "region=" in f.body else {}
        merge = csharp_merge.Merge(docs, regions, merged.get(f.path, csharp_merge.Merge()).inherits)
        if merge:
            merged[f.path] = merge
    if not merged:
        return files
    out: list[SourceFile] = []
    for f in files:
        merge = merged.get(f.path)
        if merge is None:
            out.append(f)
            continue
        out.append(pass_line.appended(f, "\n" + merge.encode()))
    return out
