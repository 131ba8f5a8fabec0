"""The text go_source.py gathers for a package page, read back: a header (the package's import
path, the module's other package pages) and each file after a marker line, parsed; and the
`Example*` functions of its test files, by what their names say they document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docsmcp.sources.formats.source.godoc_parse import GoFile, parse

MARK = "\0go-"  # a header or file marker line (Go source holds no NUL: the compiler refuses it)
_GOOS = re.compile(r"_(windows|darwin|freebsd|netbsd|openbsd|plan9|solaris|js|wasip1|aix)(_\w+)?$")


@dataclass(frozen=True)
class GoSource:
    name: str  # file name
    file: GoFile
    offset: int  # line of the gathered text where the file's first line is
    test: bool


@dataclass(frozen=True)
class GoExample:
    suffix: str
    doc: str
    code: str
    output: str
    line: int  # of the gathered text
    source: GoSource  # the test file
    decl_line: int  # of the test file


def split(text: str) -> tuple[str, dict[str, str], list[GoSource]]:
    """The gathered text's import path, the module's packages (import path -> page path) and
    its files."""
    import_path = ""
    local: dict[str, str] = {}
    sources: list[GoSource] = []
    lines = text.split("\n")
    marks = [k for k, x in enumerate(lines) if x.startswith(MARK)]
    for n, k in enumerate(marks):
        kind, _, rest = lines[k][len(MARK) :].partition(" ")
        if kind == "package":
            import_path = rest.strip()
        elif kind == "local":
            path, _, page = rest.strip().partition(" ")
            local[path] = page
        elif kind in ("file", "test"):
            end = marks[n + 1] if n + 1 < len(marks) else len(lines)
            body = "\n".join(lines[k + 1 : end])
            sources.append(GoSource(rest.strip(), parse(body), k + 1, kind == "test"))
    return import_path, local, sources


def rank(source: GoSource) -> tuple[int, str]:
    """Which of several files declaring one name is shown: no build constraint, then one for
    Linux (or not for Windows), then the rest; by name within each."""
    stem = source.name.removesuffix(".go")
    build = source.file.build
    if not build and not _GOOS.search(stem):
        return (0, source.name)
    if "linux" in build or "unix" in build or "!windows" in build.replace(" ", ""):
        return (1, source.name)
    return (2, source.name)


def examples(sources: list[GoSource], package: str) -> dict[str, list[GoExample]]:
    """`Example*` functions of the test files, by what they document (`` the package,
    `F`, `T`, `T.M`)."""
    out: dict[str, list[GoExample]] = {}
    for s in sources:
        if not s.test or s.file.package not in (package, package + "_test"):
            continue
        for d in s.file.decls:
            name = d.names[0]
            if d.kind != "func" or not name.startswith("Example") or d.params or d.results:
                continue
            target, suffix = _example_target(name[len("Example") :])
            if target is None:
                continue
            code, output = _example_code(d.body)
            out.setdefault(target, []).append(
                GoExample(suffix, d.doc, code, output, s.offset + d.line, s, d.line)
            )
    return out


def _example_target(rest: str) -> tuple[str | None, str]:
    """`Mux_Route_sub` -> (`Mux.Route`, `sub`); `` -> (``, ``); `_foo` -> (``, `foo`)."""
    if not rest:
        return "", ""
    if rest.startswith("_"):
        return "", rest[1:]
    parts = rest.split("_")
    suffix = ""
    if len(parts) > 1 and parts[-1][:1].islower():
        suffix = parts.pop()
    if not parts[0][:1].isupper() or len(parts) > 2:
        return None, ""
    return ".".join(parts), suffix


def _example_code(body: str) -> tuple[str, str]:
    """An example's code (its body, unindented) and its `// Output:` comment's text."""
    lines = body.strip("\n").split("\n")
    lines = [x[1:] if x.startswith("\t") else x for x in lines]
    output: list[str] = []
    for k, line in enumerate(lines):
        m = re.match(r"^\s*// ?(?:Unordered output|Output):\s*(.*)$", line)
        if m and all(x.strip().startswith("//") for x in lines[k + 1 :] if x.strip()):
            output = [m.group(1)] if m.group(1).strip() else []
            output += [re.sub(r"^\s*// ?", "", x) for x in lines[k + 1 :] if x.strip()]
            lines = lines[:k]
            break
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines), "\n".join(output)
