"""What a TypeScript API page shows from other files: inherited members and referenced types.

TypeDoc resolves names through the compiler; a page here is converted from its own file's
text (formats/source/tsdoc.py), so what it needs of other files is gathered before, as Go's
packages are (go_source.py): the page's text followed by blocks of other files' declarations,
each after a marker line no TypeScript holds (a NUL):
- `extends`: a class's base class and an interface's base interfaces, wherever they are
  declared (the same file, a relative module imported by name or as a namespace, followed
  through `export … from` re-exports), and their bases in turn (at most MAX_BASES, each once,
  so `class A extends B`/`class B extends A` ends); the page shows their public members under
  the child marked "Inherited from", as TypeDoc does: a base another page shows is marked so
  (`shown`), and the child's methods of it are links to that page's sections (tsdoc.py);
- types a page's exported declarations name that are imported from a module no entry point
  exports (date-fns' `Locale`, openai-node's `RequestOptions`): as TypeDoc's
  `typedoc-plugin-missing-exports` does, the module declaring them becomes a page showing only
  those declarations (`referenced`, typescript_site.py adds it), so the name resolves.
Everything is read as text (ts_decls.py), bounded: MAX_DEPTH re-export hops per name.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass

from docsmcp.model.source import SourceFile
from docsmcp.sources.formats.source.jsdoc_cjs import commonjs_exports, is_javascript
from docsmcp.sources.formats.source.ts_decls import Declaration, every_declaration
from docsmcp.sources.formats.source.ts_scan import blank, closing
from docsmcp.sources.formats.source.tsdoc_inherit import MARK

MAX_BASES = 12  # ancestors of one declaration
MAX_DEPTH = 8  # re-export hops followed for one name
MAX_REFERENCED = 400  # declarations one referenced module's page shows
_IMPORT = re.compile(r"\bimport\s+(type\s+)?([^'\";]*?)\s*from\s*['\"]([^'\"\n]+)['\"]")
_REEXPORT = re.compile(
    r"\bexport\s+(?:type\s+)?(\*(?:\s+as\s+[\w$]+)?|\{[^}]*\})\s*from\s*['\"]([^'\"\n]+)['\"]"
)
_REQUIRE_BOUND = re.compile(
    r"\b(?:const|let|var)\s+(?:(?P<one>[\w$]+)|\{(?P<some>[^}]*)\})\s*=\s*"
    r"require\(\s*['\"](?P<spec>[^'\"\n]*)['\"]\s*\)"
)
_MODULE_EXPORTS = re.compile(r"^module\.exports\s*=\s*([\w$]+)\s*;?\s*$", re.MULTILINE)
_LOCAL_EXPORT = re.compile(r"\bexport\s+(?:type\s+)?\{([^}]*)\}(?!\s*from)")
MAX_NAMESPACES = 4  # namespace paths one module is shown under (`z`, `z.core`, `core`)
_HERITAGE = re.compile(r"\b(class|interface)\s+[\w$]+[^{;]*?\bextends\b")
_WORD = re.compile(r"[A-Za-z_$][\w$]*")


@dataclass(frozen=True)
class Found:
    path: str
    decl: Declaration


@dataclass(frozen=True)
class _Module:
    decls: dict[str, Declaration]  # every top-level declaration (exported or not) by name
    imports: dict[str, tuple[str, str]]  # local name -> (specifier, name there or "*")
    reexports: tuple[tuple[str, str, str], ...]  # (exported name or "*", name there, spec)
    exported: tuple[Declaration, ...]  # what its own `export`s declare, in order (its page's)
    inherits: bool  # it declares a class or interface that extends something
    # `export { z, z as default }` (no `from`): (exported name, local name)
    local_exports: tuple[tuple[str, str], ...] = ()


def heritage(decl: Declaration) -> list[str]:
    """The names a class or interface extends (`Core.APIResource`, not type arguments);
    a class's `implements` and a mixin call (`extends Mixin(Base)`) are no bases."""
    if decl.kind not in ("class", "interface") or not decl.signatures:
        return []
    sig = decl.signatures[0]
    code = blank(sig).code
    m = re.search(r"\b(?:class|interface)\s+[\w$]+\s*", code)
    if m is None:
        return []
    k = m.end()
    if code[k : k + 1] == "<":
        k = closing(code, k, len(code)) + 1
    rest = code[k:]
    found = re.match(r"\s*extends\b", rest)
    if found is None:
        return []
    names: list[str] = []
    k = k + found.end()
    part = ""
    while k < len(code):
        ch = code[k]
        if ch == "<":
            k = closing(code, k, len(code)) + 1
            continue
        if ch in ",{" or code.startswith("implements", k) and not part.strip().endswith("."):
            names.append(part.strip())
            part = ""
            if ch != ",":
                break
        elif ch == "(":
            return [n for n in names if n]  # a mixin: its members are not read
        else:
            part += ch
        k += 1
    else:
        names.append(part.strip())
    return [n for n in names if re.fullmatch(r"[\w$]+(?:\.[\w$]+)*", n)]


class Resolver:
    """Names looked up across the TypeScript files of a tree, each file parsed once."""

    def __init__(
        self, known: set[str], read: Callable[[str], str | None], resolve_spec: Callable
    ) -> None:
        self.known = known
        self.read = read
        self.resolve_spec = resolve_spec  # (spec, importer, known) -> path | None
        self.modules: dict[str, _Module | None] = {}

    def module(self, path: str) -> _Module | None:
        if path not in self.modules:
            self.modules[path] = self._parse(path)
        return self.modules[path]

    def _parse(self, path: str) -> _Module | None:
        text = self.read(path)
        if text is None:
            return None
        decls: dict[str, Declaration] = {}
        exported: list[Declaration] = []
        for d, out in every_declaration(text):
            decls.setdefault(d.name, d)
            if out:
                exported.append(d)
        code = blank(text).code
        imports: dict[str, tuple[str, str]] = {}
        reexports: list[tuple[str, str, str]] = []
        for m in _IMPORT.finditer(text):
            if code[m.start()] == " ":
                continue
            clause, spec = m.group(2), m.group(3)
            if star := re.search(r"\*\s+as\s+([\w$]+)", clause):
                imports[star.group(1)] = (spec, "*")
            if braces := re.search(r"\{([^}]*)\}", clause):
                for part in braces.group(1).split(","):
                    words = part.replace("type ", " ").split()
                    if len(words) == 3 and words[1] == "as":
                        imports[words[2]] = (spec, words[0])
                    elif len(words) == 1:
                        imports[words[0]] = (spec, words[0])
            if default := re.match(r"\s*([\w$]+)\s*(?:,|$)", clause):
                imports[default.group(1)] = (spec, "default")
        for m in _REEXPORT.finditer(text):
            if code[m.start()] == " ":
                continue
            what, spec = m.group(1), m.group(2)
            if what.startswith("*"):
                alias = what.split()[-1] if " as " in what else "*"
                reexports.append((alias, "*", spec))
                continue
            for part in what.strip("{}").split(","):
                words = part.replace("type ", " ").split()
                if len(words) == 3 and words[1] == "as":
                    reexports.append((words[2], words[0], spec))
                elif len(words) == 1:
                    reexports.append((words[0], words[0], spec))
        local: list[tuple[str, str]] = []
        for m in _LOCAL_EXPORT.finditer(code):
            for part in m.group(1).split(","):
                words = part.replace("type ", " ").split()
                if len(words) == 3 and words[1] == "as":
                    local.append((words[2], words[0]))
                elif len(words) == 1:
                    local.append((words[0], words[0]))
        for m in _REQUIRE_BOUND.finditer(code):  # CommonJS: `const Base = require('./base')`
            spec = text[m.start("spec") : m.end("spec")]
            bound: list[tuple[str, str]] = [(m.group("one"), "default")] if m.group("one") else []
            for part in (m.group("some") or "").split(","):
                words = part.replace(":", " as ").split()
                if len(words) == 3 and words[1] == "as":
                    bound.append((words[2], words[0]))
                elif len(words) == 1:
                    bound.append((words[0], words[0]))
            for local, there in bound:
                imports.setdefault(local, (spec, there))
                if local in decls and decls[local].kind == "variable":
                    del decls[local]  # (the binding is the import, not a declaration)
        if (m := _MODULE_EXPORTS.search(code)) and m.group(1) in decls:
            decls.setdefault("default", decls[m.group(1)])  # `module.exports = Base`
        if is_javascript(path):  # (what CommonJS exports by assignment is the page's too)
            names = commonjs_exports(code)
            shown = {d.name for d in exported}
            exported += [d for n, d in decls.items() if n in names and d.name not in shown]
        inherits = _HERITAGE.search(code) is not None
        return _Module(decls, imports, tuple(reexports), tuple(exported), inherits, tuple(local))

    def find(self, path: str, name: str, depth: int = 0) -> Found | None:
        """The declaration `name` (`A` or `NS.A`) means in the file `path`, or None."""
        mod = self.module(path)
        if mod is None or depth > MAX_DEPTH:
            return None
        head, _, tail = name.partition(".")
        if not tail and head in mod.decls:
            return Found(path, mod.decls[head])
        if tail and name in mod.decls:  # `namespace NS { class A }`
            return Found(path, mod.decls[name])
        if head in mod.imports:
            spec, there = mod.imports[head]
            target = self.resolve_spec(spec, path, self.known)
            if target is None:
                return None
            if there == "*":
                return self.exported(target, tail, depth + 1) if tail else None
            return self.exported(target, there + ("." + tail if tail else ""), depth + 1)
        return None

    def exported(self, path: str, name: str, depth: int) -> Found | None:
        """The declaration the module `path` exports as `name`."""
        mod = self.module(path)
        if mod is None or depth > MAX_DEPTH:
            return None
        head, _, tail = name.partition(".")
        if (head in mod.decls or head in mod.imports) and (found := self.find(path, name, depth)):
            return found
        for alias, there, spec in mod.reexports:
            if alias == "*" or alias == head:
                target = self.resolve_spec(spec, path, self.known)
                if target is None:
                    continue
                if alias == "*":
                    found = self.exported(target, name, depth + 1)
                elif there == "*":  # `export * as NS from`
                    found = self.exported(target, tail, depth + 1) if tail else None
                else:
                    found = self.exported(target, there + ("." + tail if tail else ""), depth + 1)
                if found is not None:
                    return found
        return None

    def bases(self, path: str, decl: Declaration) -> list[tuple[str, Found]]:
        """(child name, base) for `decl`'s ancestors, nearest first, each once."""
        out: list[tuple[str, Found]] = []
        seen = {(path, decl.name)}
        queue = [(path, decl)]
        while queue and len(out) < MAX_BASES:
            where, d = queue.pop(0)
            for base in heritage(d):
                found = self.find(where, base)
                if found is None or (found.path, found.decl.name) in seen:
                    continue
                if found.decl.kind not in ("class", "interface", "type"):
                    continue
                seen.add((found.path, found.decl.name))
                out.append((d.name, found))
                queue.append((found.path, found.decl))
        return out


def block(text: str, d: Declaration) -> list[str]:
    """The lines of `d` in `text`: its doc comment (when it has one) to its last line."""
    lines = text.split("\n")
    first = d.line
    if d.doc is not None:
        first = min(first, text.count("\n", 0, d.doc.start))
    return lines[first : d.last_line + 1]


def names_used(decls: list[Declaration]) -> set[str]:
    """The identifiers the exported declarations' signatures and members' types name."""
    words: set[str] = set()
    for d in decls:
        for sig in d.signatures:
            words.update(_WORD.findall(sig))
        for m in d.members:
            if m.name.startswith(("_", "#")):
                continue
            for sig in (*m.signatures, m.type):
                words.update(_WORD.findall(sig))
    return words


@dataclass(frozen=True)
class TsTree:
    """For each API page: the blocks of other files' declarations its text is followed by."""

    extra: dict[str, tuple[str, ...]]  # page path -> marker and declaration lines

    def gathered(self, source: SourceFile) -> SourceFile:
        lines = self.extra.get(source.path)
        if lines is None:
            return source
        own = source.text.split("\n")
        body = "\n".join([*own, *lines])
        line_map = (*range(len(own)), *([0] * len(lines)))
        return dataclasses.replace(source, body=body, line_map=line_map)


def namespaces(api: dict[str, str], resolver: Resolver) -> dict[str, tuple[str, ...]]:
    """The namespaces each API module's declarations are exported under, as users call them:
    zod's `import * as z from "./v4/classic/external.js"; export { z }` makes what
    `external.ts` exports (and the modules it re-exports with `export *`) `z.object`,
    `z.string`; `export * as coerce from` there makes `z.coerce.string`. Followed from the
    modules no other API module re-exports (the entry points), at most MAX_DEPTH namespaces
    deep and MAX_NAMESPACES per module; the default export is no namespace name."""
    edges: dict[str, list[tuple[str, str]]] = {}  # module -> (target, namespace added or "")
    for path in api:
        mod = resolver.module(path)
        if mod is None:
            continue
        found: list[tuple[str, str]] = []
        for alias, there, spec in mod.reexports:
            if there == "*" and (target := resolver.resolve_spec(spec, path, resolver.known)):
                found.append((target, "" if alias == "*" else alias))
        for alias, local in mod.local_exports:
            spec, there = mod.imports.get(local, ("", ""))
            target = resolver.resolve_spec(spec, path, resolver.known) if there == "*" else None
            if target is not None and alias != "default":
                found.append((target, alias))
        edges[path] = found
    reached = {t for found in edges.values() for t, _ in found}
    queue = [(path, "") for path in api if path not in reached]
    seen = set(queue)
    out: dict[str, list[str]] = {}
    while queue and len(seen) < 20 * len(api) + 100:
        path, prefix = queue.pop(0)
        for target, name in edges.get(path, ()):
            inner = f"{prefix}.{name}".strip(".") if name else prefix
            if inner.count(".") >= MAX_DEPTH or (target, inner) in seen:
                continue
            seen.add((target, inner))
            if inner:
                held = out.setdefault(target, [])
                if len(held) >= MAX_NAMESPACES:
                    continue
                held.append(inner)
            queue.append((target, inner))
    return {path: tuple(found) for path, found in out.items() if path in api}


def gather(
    api: dict[str, str],
    referenced: dict[str, tuple[str, ...]],
    resolver: Resolver,
    spaces: dict[str, tuple[str, ...]] | None = None,
) -> TsTree:
    """The blocks each page of `api` (and each referenced module) is read with: its classes'
    and interfaces' bases, for a referenced module the names it shows, and the namespaces its
    declarations are exported under (`namespaces`)."""
    extra: dict[str, tuple[str, ...]] = {}
    for path in [*api, *referenced]:
        mod = resolver.module(path)
        if mod is None or not mod.inherits:
            continue
        lines: list[str] = []
        shown = set(referenced.get(path, ()))
        written: set[tuple[str, int]] = set()  # (zod: 158 schemas share a few bases)
        for d in mod.exported:
            if shown and d.name not in shown:
                continue
            for child, base in resolver.bases(path, d):
                mark = f"{MARK}base {child} {base.decl.name} {base.path}"
                if (mark, base.decl.line) in written:  # (two `Props` of one file: namespaces)
                    continue
                written.add((mark, base.decl.line))
                lines.append(mark)
                lines.extend(block(resolver.read(base.path) or "", base.decl))
                if base.path != path and _shown(base, api, referenced, resolver):
                    lines.append(f"{MARK}shown {base.decl.name} {base.path}")
        # (every page that may inherit is gathered, bases found or not: its text alone does
        # not say what it shows, so it is read on every build, as known_files.py decides)
        extra[path] = tuple(lines)
    for path, names in referenced.items():
        extra[path] = (f"{MARK}only {' '.join(names)}", *extra.get(path, ()))
    for path, found in (spaces or {}).items():
        extra[path] = (f"{MARK}namespace {' '.join(found)}", *extra.get(path, ()))
    return TsTree(extra)


def _shown(
    base: Found, api: dict[str, str], referenced: dict[str, tuple[str, ...]], resolver: Resolver
) -> bool:
    """Whether another page shows `base` (an API module exporting it, or a referenced module
    listing it): its members have sections there, which the child's page links to."""
    if base.decl.name in referenced.get(base.path, ()):
        return True
    mod = resolver.module(base.path) if base.path in api else None
    return mod is not None and any(d.name == base.decl.name for d in mod.exported)


def referenced_modules(api: dict[str, str], resolver: Resolver) -> dict[str, tuple[str, ...]]:
    """Modules no entry point exports that declare types the API's exported declarations name
    (imported by name, or declared beside a type shown): path -> those names, in the module's
    order, and in turn what they name (TypeDoc's missing-exports plugin), at most
    MAX_REFERENCED declarations in all."""
    shown: dict[str, set[str]] = {}
    # (a module, the declarations of it whose names are looked up) still to read
    queue: list[tuple[str, list[Declaration]]] = []
    for path in api:
        if (mod := resolver.module(path)) is not None:
            queue.append((path, list(mod.exported)))
    total = 0
    while queue and total < MAX_REFERENCED:
        path, decls = queue.pop(0)
        mod = resolver.module(path)
        if mod is None:
            continue
        used = names_used(decls)
        found_here: dict[str, list[Declaration]] = {}
        for local in sorted(used):
            if local in mod.imports and mod.imports[local][1] not in ("*", "default"):
                found = resolver.find(path, local)
            elif local in mod.decls and path not in api:  # beside a referenced type
                found = Found(path, mod.decls[local])
            else:
                continue
            if found is None or found.path in api:
                continue
            if found.decl.kind not in ("class", "interface", "type", "enum"):
                continue
            names = shown.setdefault(found.path, set())
            if found.decl.name not in names and total < MAX_REFERENCED:
                names.add(found.decl.name)
                total += 1
                found_here.setdefault(found.path, []).append(found.decl)
        queue.extend(found_here.items())
    out: dict[str, tuple[str, ...]] = {}
    for path, names in sorted(shown.items()):
        mod = resolver.module(path)
        if mod is not None:
            out[path] = tuple(n for n in mod.decls if n in names)
    return out
