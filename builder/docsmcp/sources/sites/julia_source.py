"""Docstrings of a Julia package, read from its source for Documenter's ```` ```@docs ```` and
```` ```@autodocs ```` blocks (documenter.py), never run.

A Documenter site's API pages name symbols; their text is the docstrings in the package's `.jl`
files, a string literal right before a definition (`\"\"\"…\"\"\" function f`, `"…" struct T`)
or given with `@doc "…" name`. The files are those under the source roots' `src/` and `ext/`
(a Julia package's layout), the `.jl` files beside the docs folder (Documenter's own
`docs/DocumenterShowcase.jl`), or, for a root that holds no `src/`, the root's own. Each file's
module is the `module X` around its lines (a column's `end` closes it) under the module of the
file that `include`s it, so `Documenter.DocMeta.getdocmeta` and `getdocmeta` both reach the same
docstring. The string is dedented and unescaped as Julia reads it (`\\$` is `$`); `raw"…"` keeps
its text.

Reading is bounded: at most MAX_FILES files, each at most limits.MAX_FILE_BYTES, through
`files.read_file`, so only inside the source roots.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.common.brackets import closing
from docsmcp.common.limits import MAX_FILE_BYTES
from docsmcp.sources.files import Refused, read_file

log = logging.getLogger("docsmcp.sources.sites.julia_source")

MAX_FILES = 2000
_SKIP = frozenset({"test", "tests", "benchmark", "benchmarks", ".git", "node_modules", "build"})

# What _modules_at counts: block keywords (and `abstract`/`primitive` before `type`), brackets,
# and what hides them: strings, character literals, comments (a `.end` or `:end` is no keyword).
_TOKEN = re.compile(
    r"(?<![\w.:@])(?:function|macro|struct|mutable|module|baremodule|begin|let|if|for|while"
    r"|try|quote|do|end|abstract|primitive|type)\b(?!!)"
    r"|[\[\](){}]|#.*$|\"(?:[^\"\\]|\\.)*\"|'(?:\\.|[^'\\])'"
)
_MODULE_NAME = re.compile(r"[ \t]+([A-Za-z_]\w*)")
_INCLUDE = re.compile(r"""^[ \t]*include\(\s*"([^"$]+\.jl)"\s*\)""")
_EXPORT = re.compile(r"^[ \t]*(?:export|public)[ \t]+(.+)$")
# A docstring's opening: `"""`, `@doc """`, `@doc raw"""`, alone or with text after it.
_OPEN = re.compile(r'^([ \t]*)(@doc[ \t]+)?(raw)?"""(.*)$')
# A one-line docstring: `"text"` before a definition, or `@doc "text" name`.
_ONE_LINE = re.compile(r'^[ \t]*(@doc[ \t]+)?(raw)?"((?:[^"\\]|\\.)*)"[ \t]*(.*)$')
_CONSTANT = re.compile(r"^[ \t]*(?:const[ \t]+)?([A-Za-z_]\w*)[ \t]*=[ \t]*(?!=)")
_STRING = re.compile(r'"((?:[^"\\$]|\\.)*)"')  # (one that interpolates is no constant)
MAX_JOINED = 20
_ESCAPE = re.compile(r"\\([$\"\\])")
_NAME = r"((?:[A-Za-z_][\w!]*\.)*(?:[A-Za-z_][\w!]*|:\(?[^\s(]+?\)?))"
_DEFINITIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(?:(?:Base\.)?@kwdef[ \t]+)?(?:mutable[ \t]+)?struct[ \t]+" + _NAME), "Type"),
    (re.compile(r"^(?:abstract|primitive)[ \t]+type[ \t]+" + _NAME), "Type"),
    (re.compile(r"^function[ \t]+" + _NAME), "Function"),
    (re.compile(r"^macro[ \t]+([A-Za-z_]\w*)"), "Macro"),
    (re.compile(r"^(?:bare)?module[ \t]+([A-Za-z_]\w*)"), "Module"),
    (re.compile(r"^const[ \t]+([A-Za-z_]\w*)"), "Constant"),
    (re.compile(r"^" + _NAME + r"(?:\{[^}]*\})?\("), "Function"),  # `f(x) = …`
    (re.compile(r"^@enum[ \t]+([A-Za-z_]\w*)"), "Type"),
    (re.compile(r"^([A-Za-z_]\w*)[ \t]*=[^=]"), "Constant"),
    (re.compile(r"^" + _NAME + r"[ \t]*(?:#.*)?$"), ""),  # an existing binding, documented
)
_MACRO_PREFIX = re.compile(r"^@(?!enum\b|kwdef\b|doc\b)[\w.]+[ \t]+(?=\S)")


@dataclass(frozen=True)
class Docstring:
    """One docstring: the module it is in (`Documenter.DocMeta`), the name it documents as
    written (`getdocmeta`, `Base.show`, `@docerror`), its kind as Documenter labels it
    (`Function`, `Type`, `Macro`, `Module`, `Constant`, "" unknown), its text, the types of the
    definition's positional arguments (for `f(::T)` in a block) and its file."""

    module: str
    name: str
    kind: str
    text: str
    types: tuple[str, ...]
    path: str
    definition: str = ""  # its declaration: `anchor_add!(m::AnchorMap, id, file)`, `struct T`

    @property
    def binding(self) -> str:
        """The name Documenter shows: `Documenter.DocMeta.getdocmeta`; one written qualified
        (`Base.show`) as written."""
        if "." in self.name.lstrip(":") or not self.module:
            return self.name
        return f"{self.module}.{self.name}"


@dataclass(frozen=True)
class Library:
    """The docstrings of the packages found, in file and line order, and each module's exported
    (or `public`) names."""

    docstrings: tuple[Docstring, ...]
    exports: tuple[tuple[str, frozenset[str]], ...]
    strings: tuple[tuple[str, str], ...] = ()  # string constants docstrings interpolate

    def lookup(self, written: str, current: str = "") -> list[Docstring]:
        """The docstrings a `@docs` line names: `name` or `A.B.name`, optionally with a
        signature (`push!(::DataFrame, ::Any)`: the methods whose argument types it lists, else
        all of them), relative to `current` (the page's `CurrentModule`) first."""
        name, _, rest = written.strip().partition("(")
        name = name.strip().removeprefix("Main.")
        types = _types(rest.rpartition(")")[0]) if rest else None
        found = [d for d in self.docstrings if _names(d, name)]
        if not found and "." in name:  # `Documenter.HTML`: re-exported from a submodule
            package, _, short = name.rpartition(".")
            found = [
                d
                for d in self.docstrings
                if d.name == short and (d.module + ".").startswith(package + ".")
            ]
        if not found:
            return []

        # One binding: the one in the page's module, else the least nested (Documenter reads
        # a bare name in `CurrentModule`, else Main, where the package's exports are).
        def rank(d: Docstring) -> tuple[int, int]:
            return (0 if current and d.module == current else 1, d.module.count("."))

        best = min(found, key=rank)
        found = [d for d in found if d.binding == best.binding]
        if types is not None:
            exact = [d for d in found if d.types == types]
            same = [d for d in found if len(d.types) == len(types)]
            found = exact or same[:1] or found[:1]
        return found

    def in_modules(
        self, modules: Sequence[str], pages: Sequence[str], public: bool, private: bool
    ) -> list[Docstring]:
        """The docstrings of `@autodocs`: those of `modules` (and their module docstrings), of
        files ending in one of `pages` when given, exported ones if `public`, others if
        `private`."""
        exports = dict(self.exports)
        out = []
        for d in self.docstrings:
            module = d.binding if d.kind == "Module" else d.module
            if not any(module == m or module.endswith("." + m) for m in modules):
                continue
            if pages and not any(d.path == p or d.path.endswith("/" + p) for p in pages):
                continue
            exported = d.name in exports.get(d.module, frozenset())
            if (exported and public) or (not exported and private):
                out.append(d)
        return out


def _names(d: Docstring, written: str) -> bool:
    binding = d.binding
    return binding == written or binding.endswith("." + written) or d.name == written


def _types(args: str) -> tuple[str, ...]:
    """The types of a signature's positional arguments (`x::Int, ::T, y` -> Int, T, Any)."""
    positional = args.split(";", 1)[0]
    out = []
    depth = 0
    current = ""
    for ch in positional + ",":
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == "," and depth == 0:
            arg = current.split("=", 1)[0].strip()
            if arg:
                out.append(arg.partition("::")[2].strip() if "::" in arg else "Any")
            current = ""
        else:
            current += ch
    return tuple(" ".join(t.split()).rstrip(".") for t in out)


def _julia_files(docs_dir: Path, roots: Sequence[Path]) -> list[Path]:
    """The `.jl` files to read, in a stable order."""
    bases: list[tuple[Path, bool]] = []  # (folder, recursive)
    for root in roots:
        if (root / "src").is_dir() and any((root / "src").glob("*.jl")):
            bases += [(root / "src", True), (root / "ext", True)]
        elif root.resolve() != docs_dir.resolve():
            bases.append((root, True))
    bases.append((docs_dir.parent, False))  # (docs/make.jl's includes: Documenter's showcase)
    found: dict[str, Path] = {}
    for base, recursive in bases:
        if not base.is_dir():
            continue
        if recursive:
            for folder, dirs, files in os.walk(base):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP and not d.startswith("."))
                for f in sorted(files):
                    if f.endswith(".jl") and len(found) < MAX_FILES:
                        path = Path(folder) / f
                        found.setdefault(str(path.resolve()), path)
        else:
            for path in sorted(base.glob("*.jl")):
                if path.name != "make.jl" and len(found) < MAX_FILES:
                    found.setdefault(str(path.resolve()), path)
    return list(found.values())


def load(docs_dir: Path, roots: Sequence[Path]) -> Library:
    """The docstrings of the Julia files of the source roots (an empty Library if none). Every
    API page of a site reads the same files: they are read once while none of them changes
    (their sizes and times are the key of a small cache)."""
    files = _julia_files(docs_dir, roots)
    stamp = []
    for path in files:
        try:
            st = path.stat()
        except OSError:
            continue
        stamp.append((path.as_posix(), st.st_mtime_ns, st.st_size))
    return _load(docs_dir, tuple(roots), tuple(stamp))


@functools.lru_cache(maxsize=4)
def _load(
    docs_dir: Path, roots: tuple[Path, ...], stamp: tuple[tuple[str, int, int], ...]
) -> Library:
    texts: dict[str, list[str]] = {}
    for path in (Path(p) for p, _, _ in stamp):
        rel = os.path.relpath(path, docs_dir)
        try:
            raw = read_file(docs_dir, rel, roots, MAX_FILE_BYTES)
        except (Refused, OSError, ValueError):
            continue
        texts[path.resolve().as_posix()] = raw.decode("utf-8", errors="replace").split("\n")
    prefixes = _file_modules(texts)
    docstrings: list[Docstring] = []
    exports: dict[str, set[str]] = {}
    strings: dict[str, str] = {}
    for key, lines in texts.items():
        shown = _shown_path(key, roots)
        for d in _docstrings(lines, prefixes.get(key, ""), shown, exports, strings):
            docstrings.append(d)
    log.debug("julia: %d docstrings in %d files", len(docstrings), len(texts))
    modules = tuple(sorted((m, frozenset(n)) for m, n in exports.items()))
    return Library(tuple(docstrings), modules, tuple(sorted(strings.items())))


def _shown_path(key: str, roots: Sequence[Path]) -> str:
    """A file's path from the package's `src/` (what `@autodocs`' `Pages` names)."""
    for root in roots:
        for base in (root / "src", root):
            try:
                rel = os.path.relpath(key, base.resolve())
            except ValueError:
                continue
            if not rel.startswith(".."):
                return rel.replace(os.sep, "/")
    return os.path.basename(key)


def _modules_at(lines: list[str]) -> list[str]:
    """The module path (within the file) of each line, by counting Julia's blocks: a keyword
    that opens one (`function`, `struct`, `if`, `do`, ...) outside brackets, strings and
    comments, and each `end` outside brackets (`x[end]` is an index) closes the last. Julia
    code is not indented inside a module, so a column says nothing."""
    stack: list[str | None] = []  # a module's name, None for another block
    depth = 0  # brackets open across lines
    in_string = False
    out = []
    for line in lines:
        out.append(".".join(n for n in stack if n))
        if line.count('"""') % 2:
            in_string = not in_string
            continue
        if in_string or '"""' in line:
            continue
        previous = ""
        for m in _TOKEN.finditer(line):
            token = m.group(0)
            if token[0] in "([{":
                depth += 1
            elif token[0] in ")]}":
                depth = max(0, depth - 1)
            elif token[0] in "\"'#" or depth:
                if token[0] == "#":
                    break
            elif token == "end":
                if stack:
                    stack.pop()
            elif token == "type":
                if previous in ("abstract", "primitive"):
                    stack.append(None)
            elif token in ("module", "baremodule"):
                name = _MODULE_NAME.match(line, m.end())
                stack.append(name.group(1) if name else None)
            elif token not in ("abstract", "primitive", "mutable"):
                stack.append(None)
            previous = token
    return out


def _file_modules(texts: dict[str, list[str]]) -> dict[str, str]:
    """The module each file's top lines are in: the module its `include("x.jl")` stands in, in
    the including file (a file nobody includes: "")."""
    parent: dict[str, tuple[str, str]] = {}  # file -> (includer, module within it)
    for key, lines in texts.items():
        modules = None
        for i, line in enumerate(lines):
            if "include(" in line and (m := _INCLUDE.match(line)):
                modules = modules or _modules_at(lines)
                target = os.path.normpath(os.path.join(os.path.dirname(key), m.group(1)))
                if target in texts and target != key:
                    parent.setdefault(target, (key, modules[i]))
    out: dict[str, str] = {}
    for key in texts:
        chain: list[str] = []
        seen = {key}
        node = key
        while node in parent and len(chain) < 32:
            includer, module = parent[node]
            chain.append(module)
            if includer in seen:
                break
            seen.add(includer)
            node = includer
        out[key] = ".".join(m for m in reversed(chain) if m)
    return out


def _docstrings(
    lines: list[str],
    prefix: str,
    path: str,
    exports: dict[str, set[str]],
    strings: dict[str, str] | None = None,
) -> list[Docstring]:
    """The docstrings of a file's `lines` (its top in module `prefix`); each module's exports
    go to `exports`, string constants (`const X = \"\"\"…\"\"\"`, which docstrings interpolate
    as `$X`) to `strings`."""
    modules = _modules_at(lines)

    def module_of(i: int) -> str:
        return ".".join(m for m in (prefix, modules[i]) if m)

    out: list[Docstring] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if m := _EXPORT.match(line):
            names = re.findall(r"@?[A-Za-z_][\w!]*", m.group(1).split("#", 1)[0])
            exports.setdefault(module_of(i), set()).update(names)
        # (a module's global: `const`, or at the margin, where Julia writes module code)
        constant = _CONSTANT.match(line) if "=" in line else None
        if constant and line[:1].isspace() and not line.lstrip().startswith("const"):
            constant = None
        opening = _OPEN.match(line)
        if constant:  # `const X = """…"""`, its string maybe on the next line
            rest = line[constant.end() :]
            if not rest.strip() and i + 1 < len(lines) and _OPEN.match(lines[i + 1]):
                i += 1
                rest = lines[i]
            opening = _OPEN.match(rest)
            if opening is None and strings is not None and rest.lstrip().startswith('"'):
                # `const X = "a " *` then `"b"`: one-line strings joined (DataFrames' 42
                # `$COLUMNINDEX_STR`)
                text, i = _joined(lines, i, rest)
                if text is not None:
                    strings.setdefault(constant.group(1), text)
                i += 1
                continue
            constant = constant if opening else None
        if opening:
            found = _triple(lines, i, opening)
            if found is None:
                i += 1
                continue
            text, end, after = found
            if constant and strings is not None:
                strings.setdefault(constant.group(1), text)
                i = end + 1
                continue
            target = after.strip() if opening.group(2) and after.strip() else None
            d = _attach(lines, end, target, text, module_of(i), path)
            if d is not None:
                out.append(d)
            i = end + 1
            continue
        if '"""' in line and line.count('"""') % 2:  # a string of code: to its end
            i += 1
            while i < len(lines) and '"""' not in lines[i]:
                i += 1
            i += 1
            continue
        one = _ONE_LINE.match(line) if line.lstrip().startswith(('"', "@doc")) else None
        if one:
            text = one.group(3) if one.group(2) else _ESCAPE.sub(r"\1", one.group(3))
            target = one.group(4).strip() or None
            # (`"doc" f(x) = …` on one line is a docstring too; `"a" * b` is no definition)
            if one.group(1) or target is None or target[:1].isalpha():
                d = _attach(lines, i, target, text, module_of(i), path)
                if d is not None:
                    out.append(d)
        i += 1
    return out


def _joined(lines: list[str], i: int, rest: str) -> tuple[str | None, int]:
    """The text of one-line string literals joined by `*` from `rest` (line `i`) on, at most
    MAX_JOINED lines, and the last line they take; None when it is no such expression."""
    parts: list[str] = []
    for j in range(i, min(len(lines), i + MAX_JOINED)):
        text = (rest if j == i else lines[j]).strip()
        pieces = _STRING.findall(text)
        if not pieces or _STRING.sub("", text).replace("*", "").strip():
            return None, j
        parts += [_ESCAPE.sub(r"\1", p) for p in pieces]
        if not text.endswith("*"):
            return "".join(parts), j
    return None, i


def _triple(lines: list[str], i: int, opening: re.Match[str]) -> tuple[str, int, str] | None:
    """(text, closing line, what follows the closing quotes) of the docstring opened at `i`."""
    raw = bool(opening.group(3))
    first = opening.group(4)
    body: list[str] = []
    if '"""' in first:
        text, _, after = first.partition('"""')
        return (text if raw else _ESCAPE.sub(r"\1", text)).strip(), i, after
    if first.strip():
        body.append(first)
    for j in range(i + 1, min(len(lines), i + 5000)):
        line = lines[j]
        if '"""' in line and not line.split('"""', 1)[0].endswith("\\"):
            head, _, after = line.partition('"""')
            if head.strip():
                body.append(head)
            lead = [] if not first.strip() else [body.pop(0)] if body else []
            text = "\n".join(lead + textwrap.dedent("\n".join(body[len(lead) :])).split("\n"))
            text = text.strip("\n")
            return (text if raw else _ESCAPE.sub(r"\1", text)), j, after
        body.append(line)
    return None


def _attach(
    lines: list[str], end: int, target: str | None, text: str, module: str, path: str
) -> Docstring | None:
    """The Docstring of `text` for the definition after line `end` (or `target`, the name an
    `@doc` line gives), None when what follows is no definition."""
    if target is None:
        j = end + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j >= len(lines) or j - end > 2:
            return None
        target = lines[j].strip()
    definition = _MACRO_PREFIX.sub("", target)
    for pattern, kind in _DEFINITIONS:
        m = pattern.match(definition)
        if m is None:
            continue
        name = m.group(1)
        if kind == "Macro":
            name = "@" + name
        if name in ("end", "return", "if", "for", "while", "begin", "let", "try", "do", "else"):
            return None
        types = ()
        if kind == "Function" and "(" in definition:
            args = definition[definition.index("(", m.start(1)) + 1 :]
            types = _types(_balanced(args))
        if kind == "Module":
            return Docstring(module, name, kind, text, (), path, f"module {name}")
        shown = _declared(definition, kind)
        return Docstring(module, name, kind or "Binding", text, types, path, shown)
    return None


def _declared(definition: str, kind: str) -> str:
    """A definition's line as its declaration: a function's call form without `function` and
    body, a constant without its value, a type's head."""
    text = definition.split("#", 1)[0].strip() if '"' not in definition else definition.strip()
    if kind == "Function":
        text = re.sub(r"^function[ \t]+", "", text)
        if "(" in text:
            head = text[: text.index("(") + 1]
            args = _balanced(text[len(head) :])
            closed = len(head) + len(args) < len(text)
            text = head + args + (")" if closed else "…)")
    elif kind == "Macro":
        text = "@" + re.sub(r"^macro[ \t]+", "", text)
    elif kind == "Constant":
        text = text.split("=", 1)[0].strip()
    return text[:300]


def _balanced(text: str) -> str:
    """`text` up to the parenthesis closing the one opened before it."""
    k = closing("(" + text, 0)
    return text if k < 0 else text[: k - 1]
