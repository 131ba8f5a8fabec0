"""A Go source file's top-level declarations and doc comments, read without a Go toolchain.

What `go doc` and pkg.go.dev show of a file: its package clause and package comment, its
imports (for doc links such as `[http.Handler]`), its `//go:build` line, whether it is
generated (`// Code generated ... DO NOT EDIT.`), and each top-level `func`, method, `type`,
`const` and `var` with the comment group ending on the line above it (its doc comment).

The file is lexed once (`_lex`): comments, strings, raw strings and runes are found by one
regular expression whose every branch consumes what it matches, so the scan is linear and no
input can make it backtrack; their text is blanked in a masked copy, in which brackets are then
counted. A declaration starts at a line of bracket depth 0 that begins with a keyword, and runs
to the next line at depth 0 that is blank, a comment or another declaration (so an unbalanced
bracket makes the rest of the file one declaration, never a loop). gofmt lays out every file
this way; a file that does not parse as Go gives what can be read, nothing is raised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Characters of one file read, at most (a generated file of 50 MB is cut, not parsed whole).
MAX_FILE_CHARS = 4_000_000
# Lines of one declaration shown, at most (a var holding a 10,000-line table).
MAX_DECL_LINES = 200

# Comments, interpreted strings, raw strings, runes: each branch consumes what it matches (an
# unterminated one runs to the end of its line, or of the file for block comments and raw
# strings), so finditer never rescans.
_TOKEN = re.compile(
    r"//[^\n]*|/\*(?:[^*]|\*(?!/))*(?:\*/)?|\"(?:[^\"\\\n]|\\.)*\"?|`[^`]*`?|'(?:[^'\\\n]|\\.)*'?"
)
_KEYWORD = re.compile(r"^(func|type|const|var|import|package)\b")
_IDENT = re.compile(r"[^\W\d]\w*")
_GENERATED = re.compile(r"^// Code generated .* DO NOT EDIT\.$", re.M)
_BUILD = re.compile(r"^//go:build (.+)$", re.M)
_OLD_BUILD = re.compile(r"^// \+build (.+)$", re.M)
# `//go:generate`, `//nolint:errcheck`, `//export`: directives, never doc text (Go 1.15).
_DIRECTIVE = re.compile(r"^//(?:line |extern |export |[a-z0-9]+:[a-z0-9])")
_IMPORT_SPEC = re.compile(r'^\s*(?:import\s+)?(?:([\w.]+)\s+)?"([^"\n]*)"')


@dataclass(frozen=True)
class Comment:
    first: int  # 0-based line of `//` or `/*`
    last: int  # 0-based line it ends on
    text: str  # as written, markers included
    column: int  # column of its first character
    block: bool  # a /* */ comment


@dataclass(frozen=True)
class Decl:
    kind: str  # "func" | "method" | "type" | "const" | "var"
    names: tuple[str, ...]  # the names it declares (a const or var group: all of them)
    receiver: str  # a method's receiver type, bare (`Mux` for `(mx *Mux)`); "" otherwise
    code: str  # the declaration as shown: a func without its body, unexported fields dropped
    doc: str  # its doc comment, markers removed ("" without one)
    line: int  # 0-based line of its keyword (or of its spec within a group)
    params: str = ""  # a func's parameter list, without parentheses
    results: str = ""  # a func's results as written (`(*Mux, error)`, `error`)
    type_name: str = ""  # a const/var group's declared type (`ShellCompDirective`), if any
    body: str = ""  # a func's body, braces excluded (Example functions show it)
    body_line: int = 0  # 0-based line where `body` starts


@dataclass(frozen=True)
class GoFile:
    package: str  # the package clause's name, "" when there is none
    doc: str  # the package comment, markers removed
    imports: tuple[tuple[str, str], ...]  # (name or alias, import path)
    decls: tuple[Decl, ...]
    build: str  # the `//go:build` expression, "" when none
    generated: bool
    package_line: int  # 0-based line of the package clause (0 when none)


def exported(name: str) -> bool:
    return bool(name) and name[0].isupper()


def _lex(text: str) -> tuple[str, list[Comment], frozenset[int]]:
    """`text` with the inside of every comment, string and rune blanked (newlines kept), the
    comments, and the lines that start inside a string (a blank line of a raw string neither
    ends a declaration nor starts a member of a group)."""
    out: list[str] = []
    continued: set[int] = set()
    comments: list[Comment] = []
    pos = 0
    line = 0
    line_start = 0
    for m in _TOKEN.finditer(text):
        start, end = m.span()
        chunk = text[pos:start]
        out.append(chunk)
        newlines = chunk.count("\n")
        if newlines:
            line += newlines
            line_start = pos + chunk.rfind("\n") + 1
        token = m.group()
        inner_lines = token.count("\n")
        if token.startswith(("//", "/*")):
            comments.append(
                Comment(line, line + inner_lines, token, start - line_start, token[1] == "*")
            )
        # Blanked: the delimiters of a string stay (`""`), so a string is still a token.
        out.append(re.sub(r"[^\n]", " ", token) if token[0] == "/" else _blank_string(token))
        if inner_lines and token[0] != "/":
            continued.update(range(line + 1, line + inner_lines + 1))
        if inner_lines:
            line += inner_lines
            line_start = start + token.rfind("\n") + 1
        pos = end
    out.append(text[pos:])
    return "".join(out), comments, frozenset(continued)


def _blank_string(token: str) -> str:
    if len(token) < 2:
        return token
    return token[0] + re.sub(r"[^\n]", " ", token[1:-1]) + token[-1]


def comment_text(comments: list[Comment]) -> str:
    """The text of a comment group as go/ast's CommentGroup.Text gives it: markers, the first
    space of a line comment and directives removed, blank lines at either end dropped."""
    lines: list[str] = []
    for c in comments:
        if c.block:
            body = c.text[2:]
            body = body[:-2] if body.endswith("*/") else body
            lines.extend(body.split("\n"))
        else:
            if _DIRECTIVE.match(c.text):
                continue
            body = c.text[2:]
            lines.append(body[1:] if body.startswith(" ") else body)
    lines = [x.rstrip() for x in lines]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def _depths(masked_lines: list[str]) -> list[int]:
    """The bracket depth at the start of each line (never below 0)."""
    depths: list[int] = []
    depth = 0
    for text in masked_lines:
        depths.append(depth)
        depth += sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")
        depth = max(depth, 0)
    return depths


def _groups(comments: list[Comment]) -> dict[int, list[Comment]]:
    """Comment groups keyed by the line they end on: line comments on consecutive lines, each
    alone on its line (a comment after code is no doc comment)."""
    ends: dict[int, list[Comment]] = {}
    current: list[Comment] = []
    for c in comments:
        if current and c.first == current[-1].last + 1 and c.column == current[-1].column:
            current.append(c)
        else:
            if current:
                ends[current[-1].last] = current
            current = [c]
    if current:
        ends[current[-1].last] = current
    return ends


def _matching(masked: str, start: int) -> int:
    """The index just after the bracket closing the one at `start` (len(masked) if none)."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    depth = 0
    for i in range(start, len(masked)):
        ch = masked[i]
        if ch in pairs:
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(masked)


def parse(text: str) -> GoFile:
    """The declarations of one Go file (see the module's docstring)."""
    text = text[:MAX_FILE_CHARS].replace("\r\n", "\n").replace("\0", "")
    masked, comments, continued = _lex(text)
    raw_lines = text.split("\n")
    masked_lines = masked.split("\n")
    depths = _depths(masked_lines)
    groups = _groups([c for c in comments if c.column == 0 or not masked_lines[c.first].strip()])
    head = text[: _package_offset(masked)]
    build = _BUILD.search(head) or _OLD_BUILD.search(head)
    file_package, package_line, package_doc = "", 0, ""
    imports: list[tuple[str, str]] = []
    decls: list[Decl] = []
    starts = [
        i
        for i, t in enumerate(masked_lines)
        if depths[i] == 0 and _KEYWORD.match(t) and not t[:1].isspace()
    ]
    for n, start in enumerate(starts):
        limit = starts[n + 1] if n + 1 < len(starts) else len(masked_lines)
        end = start + 1
        while end < limit:
            t = masked_lines[end]
            if end in continued:
                end += 1
                continue
            if depths[end] == 0 and (not t.strip() or _is_comment_line(raw_lines[end], t)):
                break
            end += 1
        keyword = _KEYWORD.match(masked_lines[start]).group(1)  # type: ignore[union-attr]
        doc = _doc(groups, start)
        span_masked = "\n".join(masked_lines[start:end])
        span_raw = "\n".join(raw_lines[start:end])
        if keyword == "package":
            if not file_package:
                words = masked_lines[start].split()
                file_package = words[1] if len(words) > 1 else ""
                package_line, package_doc = start, doc
        elif keyword == "import":
            imports.extend(_imports(span_raw))
        elif keyword == "func":
            found = _func(span_masked, span_raw, start, doc)
            if found is not None:
                decls.append(found)
        elif keyword == "type":
            decls.extend(_types(span_masked, span_raw, start, doc, groups, continued))
        else:
            found = _value(keyword, span_masked, span_raw, start, doc, continued)
            if found is not None:
                decls.append(found)
    return GoFile(
        package=file_package,
        doc=package_doc,
        imports=tuple(imports),
        decls=tuple(decls),
        build=build.group(1).strip() if build else "",
        generated=bool(_GENERATED.search(head or text[:4000])),
        package_line=package_line,
    )


def _package_offset(masked: str) -> int:
    m = re.search(r"^package\b", masked, re.M)
    return m.start() if m else min(len(masked), 4000)


def _is_comment_line(raw: str, masked: str) -> bool:
    stripped = raw.lstrip()
    return stripped.startswith(("//", "/*")) and not masked.strip()


def _doc(groups: dict[int, list[Comment]], line: int) -> str:
    group = groups.get(line - 1)
    return comment_text(group) if group else ""


def _imports(span: str) -> list[tuple[str, str]]:
    out = []
    for text in span.split("\n"):
        m = _IMPORT_SPEC.match(text.replace("import (", "").replace("import(", ""))
        if m and m.group(2):
            path = m.group(2)
            out.append((m.group(1) or default_name(path), path))
    return out


def default_name(path: str) -> str:
    """The name a package is used by when imported without a name: the last element of its
    path, a major version suffix (`/v5`) and a `go-` prefix or `.go` suffix left off, as the
    packages that do so are named."""
    parts = [p for p in path.split("/") if p]
    if len(parts) > 1 and re.fullmatch(r"v\d+", parts[-1]):
        parts.pop()
    last = parts[-1] if parts else path
    last = last.removeprefix("go-").removesuffix(".go").removesuffix("-go")
    return re.sub(r"[^\w]", "", last) or last


def _func(masked: str, raw: str, line: int, doc: str) -> Decl | None:
    """A `func` declaration: name, receiver, parameters, results, the code without its body."""
    i = 4  # after `func`
    receiver = ""
    n = len(masked)
    while i < n and masked[i] in " \t":
        i += 1
    if i < n and masked[i] == "(":
        close = _matching(masked, i)
        receiver = _receiver_type(masked[i + 1 : close - 1])
        i = close
    m = _IDENT.search(masked, i)
    if m is None or masked[i : m.start()].strip():
        return None
    name = m.group()
    i = m.end()
    if i < n and masked[i] == "[":  # type parameters
        i = _matching(masked, i)
    if i >= n or masked[i] != "(":
        return None
    close = _matching(masked, i)
    params = raw[i + 1 : close - 1]
    # The body: the last `{` at depth 0 after the parameters, when the span ends with its `}`.
    body_open = -1
    depth = 0
    for k in range(close, n):
        ch = masked[k]
        if ch in "([{":
            if ch == "{" and depth == 0:
                body_open = k
            depth += 1
        elif ch in ")]}":
            depth -= 1
    has_body = body_open >= 0 and masked.rstrip().endswith("}")
    signature = raw[:body_open].rstrip() if has_body else raw.rstrip()
    results = raw[close : body_open if has_body else len(raw)].strip()
    body, body_line = "", line
    if has_body:
        body_end = masked.rstrip().rfind("}")
        body = raw[body_open + 1 : body_end]
        body_line = line + raw.count("\n", 0, body_open + 1)
    return Decl(
        kind="method" if receiver else "func",
        names=(name,),
        receiver=receiver,
        code=_cut(signature),
        doc=doc,
        line=line,
        params=" ".join(params.split()),
        results=" ".join(results.split()),
        body=body,
        body_line=body_line,
    )


def _receiver_type(text: str) -> str:
    """`mx *Mux` -> `Mux`; `l *List[T]` -> `List`; `Mux` -> `Mux`."""
    words = text.replace("*", " ").split()
    if not words:
        return ""
    found = _IDENT.match(words[-1]) or _IDENT.match(words[0])
    return found.group() if found else ""


def _cut(code: str) -> str:
    lines = code.split("\n")
    if len(lines) <= MAX_DECL_LINES:
        return code
    return "\n".join([*lines[:MAX_DECL_LINES], "\t// ..."])


def _types(
    masked: str,
    raw: str,
    line: int,
    doc: str,
    groups: dict[int, list[Comment]],
    continued: frozenset[int],
) -> list[Decl]:
    """The type specs of a `type` declaration (a group `type ( ... )` gives one each)."""
    rest = masked[4:].lstrip()
    if not rest.startswith("("):
        found = _type_spec(masked[5:], raw[5:], line, doc, continued)
        return [found] if found else []
    open_at = masked.index("(")
    close = _matching(masked, open_at)
    inner_masked = masked[open_at + 1 : close - 1]
    inner_raw = raw[open_at + 1 : close - 1]
    first_line = line + masked.count("\n", 0, open_at + 1)
    specs = _members(inner_masked, inner_raw, first_line, continued)
    out = []
    for offset, spec_masked, spec_raw in specs:
        spec_doc = _doc(groups, first_line + offset) or (doc if len(specs) == 1 else "")
        found = _type_spec(spec_masked, spec_raw, first_line + offset, spec_doc, continued)
        if found is not None:
            out.append(found)
    return out


def _members(
    masked: str, raw: str, first: int, continued: frozenset[int]
) -> list[tuple[int, str, str]]:
    """The members of a bracketed list (specs of a group, fields of a struct), each with the
    line it starts on (counted from the list's first line) and its text, comments excluded:
    a member starts at a line of depth 0 (within the list) that begins with a name or `*`."""
    m_lines = masked.split("\n")
    r_lines = raw.split("\n")
    depths = _depths(m_lines)
    out: list[tuple[int, list[str], list[str]]] = []
    for k, (m, r) in enumerate(zip(m_lines, r_lines, strict=True)):
        if not m.strip() and first + k not in continued:
            continue  # blank or comment only
        if depths[k] == 0 and first + k not in continued:
            out.append((k, [m], [r]))
        elif out:
            out[-1][1].append(m)
            out[-1][2].append(r)
    return [(k, "\n".join(ms), "\n".join(rs)) for k, ms, rs in out]


def _type_spec(
    masked: str, raw: str, line: int, doc: str, continued: frozenset[int]
) -> Decl | None:
    prefix = "type "
    m = _IDENT.search(masked)
    if m is None or masked[: m.start()].strip():
        return None
    name = m.group()
    code = prefix + raw.strip()
    kind = re.match(r"\s*(?:\[[^\]]*\])?\s*=?\s*(struct|interface)\s*\{", masked[m.end() :])
    if kind:
        brace = masked.index("{", m.end())
        close = _matching(masked, brace)
        at = line + masked.count("\n", 0, brace + 1)
        inner_m, inner_r = masked[brace + 1 : close - 1], raw[brace + 1 : close - 1]
        kept, dropped = _exported_members(inner_m, inner_r, at, continued)
        if dropped:
            word = "fields" if kind.group(1) == "struct" else "methods"
            note = f"\t// contains filtered or unexported {word}"
            kept = [*kept, note]
        body = "\n".join(kept)
        head = raw[: brace + 1].strip()
        tail = raw[close - 1 :].strip()
        code = prefix + (f"{head}\n{body}\n{tail}" if body.strip() else f"{head}{tail}")
    return Decl(kind="type", names=(name,), receiver="", code=_cut(code), doc=doc, line=line)


def _exported_members(
    masked: str, raw: str, first: int, continued: frozenset[int]
) -> tuple[list[str], bool]:
    """The lines of a struct's or interface's body that go/doc shows: members whose first name
    is exported, embedded types, constraints (`~int | ~string`), with the comments above them;
    and whether any member was dropped."""
    m_lines = masked.split("\n")
    r_lines = raw.split("\n")
    depths = _depths(m_lines)
    kept: list[str] = []
    pending: list[str] = []  # comment lines waiting for the member they document
    dropped = False
    keep = True
    for k, (m, r) in enumerate(zip(m_lines, r_lines, strict=True)):
        inside = first + k in continued
        if not m.strip() and not inside:
            if r.strip() or pending or (kept and kept[-1].strip()):
                pending.append(r)  # (a comment, or a blank line after something)
            continue
        if depths[k] == 0 and not inside:
            lead = m.lstrip()
            word = _IDENT.match(lead)
            keep = word is None or exported(word.group()) or _embedded_exported(lead)
            dropped = dropped or not keep
            if keep:
                kept.extend(pending)
            pending = []
        if keep:
            kept.append(r)
    while kept and not kept[-1].strip():
        kept.pop()
    while kept and not kept[0].strip():
        kept.pop(0)
    return kept, dropped


def _embedded_exported(first: str) -> bool:
    """`pkg.Type` embedded (a qualified name alone on its line)."""
    m = re.match(r"[^\W\d]\w*\.([^\W\d]\w*)\s*(?:`|$)", first)
    return bool(m and exported(m.group(1)))


def _value(
    keyword: str, masked: str, raw: str, line: int, doc: str, continued: frozenset[int]
) -> Decl | None:
    """A `const` or `var` declaration, single or grouped: one Decl with every name, its code
    keeping the specs with an exported name."""
    start = len(keyword)
    rest = masked[start:].lstrip()
    if rest.startswith("("):
        open_at = masked.index("(")
        close = _matching(masked, open_at)
        inner_m = masked[open_at + 1 : close - 1]
        inner_r = raw[open_at + 1 : close - 1]
        at = line + masked.count("\n", 0, open_at + 1)
        specs = _members(inner_m, inner_r, at, continued)
        names: list[str] = []
        type_name = ""
        for n, (_, spec_m, _) in enumerate(specs):
            spec_names, spec_type = _spec_names(spec_m)
            names.extend(spec_names)
            if n == 0:
                type_name = spec_type
        kept, _ = _exported_members(inner_m, inner_r, at, continued)
        if not any(exported(x) for x in names):
            return None
        code = f"{keyword} (\n" + "\n".join(kept) + "\n)"
    else:
        names, type_name = _spec_names(masked[start:])
        if not any(exported(x) for x in names):
            return None
        code = raw.strip()
    return Decl(
        kind=keyword,
        names=tuple(x for x in names if exported(x)),
        receiver="",
        code=_cut(code),
        doc=doc,
        line=line,
        type_name=type_name,
    )


def _spec_names(spec: str) -> tuple[list[str], str]:
    """The names a const/var spec declares and its type, if written (`A, B int = 1, 2`)."""
    head = spec.split("=", 1)[0]
    m = re.match(r"\s*((?:[^\W\d]\w*\s*,\s*)*[^\W\d]\w*)\s*(.*)", head, re.S)
    if m is None:
        return [], ""
    names = [x.strip() for x in m.group(1).split(",")]
    typ = m.group(2).strip().lstrip("*")
    t = _IDENT.match(typ)
    return names, (t.group() if t and t.end() == len(typ.split("[")[0]) else "")
