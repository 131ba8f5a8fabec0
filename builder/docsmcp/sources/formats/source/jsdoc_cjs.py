"""A plain JavaScript module of a package's API read as jsdoc (or TypeDoc with `allowJs`)
shows it: what it exports, in either module system, with its JSDoc comments.

ES modules export as TypeScript does (ts_decls.py reads them). CommonJS exports by
assignment, and its API is often written as functions assigned to an object's properties:
- `module.exports = WebSocket` (ws), `var app = exports = module.exports = {}` (Express),
  `module.exports = { a, b: c }`, `exports.name = name`: the names a module exports, so the
  class or function declared under that name is exported;
- `app.use = function use(fn) { … }` (Express's `app`, `res`, `req`), `Foo.prototype.bar =
  function (…)`, `exports.parse = (s) => …`: a function named `app.use` (`Foo.bar`,
  `parse`) when the object is one the module exports, read with the JSDoc comment above it.
Only lines at brace depth 0 are read (a function defined inside another is no API).
"""

from __future__ import annotations

import re

from docsmcp.sources.files import JAVASCRIPT_SUFFIXES
from docsmcp.sources.formats.source.ts_decls import (
    Declaration,
    _line_of,
    _Reader,
    _squash,
    every_declaration,
    header_end,
)
from docsmcp.sources.formats.source.ts_scan import closing

# `var proto = require('./application')`: a module exported again, documented where it is
_REQUIRED = re.compile(r"\s*(?:var|let|const)\s+[\w$]+\s*=\s*require\(")
MAX_ASSIGNED = 3000  # functions assigned to properties, per file

_NAME = r"[A-Za-z_$][\w$]*"
# `module.exports = X`, `exports = module.exports = X`, `var app = exports = module.exports = {}`
_MODULE_EXPORTS = re.compile(
    rf"^(?:(?:var|let|const)\s+({_NAME})\s*=\s*)?(?:exports\s*=\s*)?module\.exports\s*=\s*"
    rf"(?:exports\s*=\s*)?({_NAME}\b(?!\s*[.(\[])|\{{)",
    re.MULTILINE,
)
_EXPORTS_PROPERTY = re.compile(
    rf"^(?:module\.)?exports\.({_NAME})\s*=\s*({_NAME})\s*;?\s*$", re.MULTILINE
)
# `app.use = function use(fn) {`, `Foo.prototype.bar = async (a) =>`, `exports.parse = function`
_ASSIGNED = re.compile(
    rf"^(?P<target>(?:module\.)?exports|{_NAME})(?P<proto>\.prototype)?\.(?P<member>{_NAME})"
    rf"\s*=\s*(?P<value>(?:async\s+)?function\b[\s*]*(?:{_NAME})?\s*\(|(?:async\s+)?"
    rf"(?:\([^)\n]*\)|{_NAME})\s*=>)"
)


# `defineGetter(req, 'query', function query() {` (a helper of the module calling
# `Object.defineProperty`: Express) and `Object.defineProperty(req, 'ip', {`: a property
_GETTER = re.compile(
    rf"^(?P<helper>{_NAME}|Object\.defineProperty)\(\s*(?P<target>{_NAME})\s*,\s*"
    rf"(?P<q>['\"])(?P<member>{_NAME})(?P=q)\s*,\s*(?P<value>\{{|(?:async\s+)?function\b|\()"
)
# `methods.forEach(function (method) {` / `['get', 'put'].forEach((verb) => {`
_LOOP = re.compile(
    rf"^(?P<list>{_NAME}(?:\.{_NAME})*|\[[^\]\n]*\])\.forEach\(\s*(?:function\s*(?:{_NAME})?"
    rf"\s*\(\s*(?P<var>{_NAME})\s*\)|\(?\s*(?P<arrow>{_NAME})\s*\)?\s*=>)"
)


def is_javascript(path: str) -> bool:
    """Whether `path` has a JavaScript suffix (every such file is a page or none: a minified
    one too, which typescript_site.py never reads)."""
    return path.lower().endswith(JAVASCRIPT_SUFFIXES)


def commonjs_exports(code: str) -> set[str]:
    """The local names a CommonJS module's `module.exports`/`exports.x` assignments export
    (`code`: blanked, ts_scan.blank)."""
    names: set[str] = set()
    for m in _MODULE_EXPORTS.finditer(code):
        if m.group(1):
            names.add(m.group(1))
        if m.group(2) == "{":
            brace = m.end() - 1
            body = code[brace + 1 : closing(code, brace, len(code))]
            for part in body.split(","):
                value = part.split(":")[-1].strip()
                if re.fullmatch(_NAME, value):
                    names.add(value)
        elif m.group(2) not in ("require", "function", "class", "new"):
            names.add(m.group(2))
    names.update(m.group(2) for m in _EXPORTS_PROPERTY.finditer(code))
    return names


def js_declarations(text: str) -> list[Declaration]:
    """The declarations a JavaScript module exports, in order: ES `export`s, the classes and
    functions CommonJS exports by name, and the functions assigned to an exported object's
    properties (see the module's docstring)."""
    r = _Reader(text)
    exported = commonjs_exports(r.code)
    found = [
        d
        for d, out in every_declaration(text)
        if (out or d.name in exported) and not _REQUIRED.match(r.line_text(d.line), 0)
    ]
    lines = {d.line for d in found}
    code, s = r.code, r.s
    assigned: list[Declaration] = []
    for line in range(len(s.line_starts)):
        if len(assigned) >= MAX_ASSIGNED:
            break
        if s.depth[line] != 0 or line in lines:
            continue
        raw = r.line_text(line)
        m = _ASSIGNED.match(raw)
        if m is None:
            assigned.extend(_defined(r, line, exported))
            continue
        target, member = m.group("target"), m.group("member")
        if target.endswith("exports"):
            name = member
        elif target in exported:
            name = f"{target}.{member}"
        else:
            continue
        start = s.line_starts[line]
        value = start + m.start("value")
        params = code.index("(", value) if "(" in m.group("value") else -1
        if params >= 0:
            end, what = header_end(code, closing(code, params, len(code)) + 1, len(code), True)
            shown = f"{name}{_squash(text[params : closing(code, params, len(code)) + 1])}"
        else:  # `x => …`
            end, what = header_end(code, value, len(code), True)
            shown = f"{name}({m.group('value').split('=>')[0].strip().removeprefix('async ')})"
        last = _line_of(s, closing(code, end, len(code)) if what == "{" else end)
        assigned.append(
            Declaration(name, "function", (shown,), r.doc_for(line, start), (), line, last)
        )
    return sorted([*found, *assigned], key=lambda d: d.line)


def _defines_property(code: str, helper: str) -> bool:
    """Whether the module's function `helper` calls `Object.defineProperty` (Express's
    `defineGetter(obj, name, getter)`)."""
    m = re.search(rf"\bfunction\s+{re.escape(helper)}\s*\(", code)
    if m is None or (brace := code.find("{", m.end())) < 0:
        return False
    return "Object.defineProperty(" in code[brace : closing(code, brace, len(code))]


def _defined(r: _Reader, line: int, exported: set[str]) -> list[Declaration]:
    """What a line at depth 0 defines on an exported object besides assignments: a property
    (`defineGetter(req, 'query', function query() {…})`: `req.query`, as Express documents
    it), or the functions a loop assigns (`methods.forEach(function (method) { app[method] =
    function (path) {…} })`: `app.METHOD`, as Express's reference names it; each name where
    the list is written out, `['get', 'put'].forEach(…)`)."""
    code, s = r.code, r.s
    start = s.line_starts[line]
    raw = r.line_text(line)
    call = raw.find("(")
    if call < 0:
        return []
    end = closing(code, start + call, len(code))
    last = _line_of(s, end)
    doc = r.doc_for(line, start)
    if (m := _GETTER.match(r.text[start : start + len(raw)])) is not None:
        helper, target = m.group("helper"), m.group("target")
        if target not in exported or not (
            helper == "Object.defineProperty" or _defines_property(code, helper)
        ):
            return []
        name = f"{target}.{m.group('member')}"
        return [Declaration(name, "accessor", (name,), doc, (), line, last)]
    if (m := _LOOP.match(raw)) is None:
        return []
    var = m.group("var") or m.group("arrow")
    body = code[start + m.end() : end]
    found = re.search(
        rf"(?:^|[;{{\s])({_NAME})\[{var}\]\s*=\s*(?:async\s+)?(?:function\b[\s*]*(?:{_NAME})?\s*)?\(",
        body,
    )
    if found is None or found.group(1) not in exported:
        return []
    params = start + m.end() + found.end() - 1
    shown = _squash(r.text[params : closing(code, params, len(code)) + 1])
    listed = m.group("list")
    members = (
        re.findall(rf"""['"]({_NAME})['"]""", r.text[start : start + len(listed)])
        if listed.startswith("[")
        else [var.upper()]
    )
    return [
        Declaration(
            f"{found.group(1)}.{member}",
            "function",
            (f"{found.group(1)}.{member}{shown}",),
            doc,
            (),
            line,
            last,
        )
        for member in members[:50]
    ]


_REQUIRE = re.compile(r"""\brequire\(\s*['"]([^'"\n]+)['"]\s*\)""")
_BOUND = re.compile(rf"\b(?:var|let|const)\s+({_NAME})\s*=\s*require\(\s*$")
_PROPERTY_VALUE = re.compile(
    rf"^(?:module\.)?(exports|{_NAME})(?:\.{_NAME})+\s*=\s*({_NAME})\s*;?\s*$", re.MULTILINE
)


def required_exports(text: str) -> list[str]:
    """The module specifiers a CommonJS module exports again: `module.exports =
    require('./x')`, `exports.y = require('./x')`, and a name bound by `const X =
    require('./x')` that it exports (`module.exports = X`, `exports.y = X`, `WebSocket.Server
    = X` on an exported object)."""
    code = _Reader(text).code
    exported = commonjs_exports(code)
    attached = {
        m.group(2)
        for m in _PROPERTY_VALUE.finditer(code)
        if m.group(1) == "exports" or m.group(1) in exported
    }
    specs: list[str] = []
    for m in _REQUIRE.finditer(text):
        if code[m.start()] == " ":  # (inside a comment or string)
            continue
        line_start = code.rfind("\n", 0, m.start()) + 1
        before = code[line_start : m.start()]
        bound = _BOUND.search(before + "require(")
        if bound is not None:
            if bound.group(1) in exported or bound.group(1) in attached:
                specs.append(m.group(1))
        elif re.match(rf"\s*(?:module\.)?exports\b|\s*(?:{_NAME})\.{_NAME}\s*=", before):
            target = before.strip().split(".")[0].split("=")[0].strip()
            if target in ("module", "exports") or target in exported:
                specs.append(m.group(1))
    return list(dict.fromkeys(specs))
