"""Elixir source files (`.ex`) read as the module pages ExDoc publishes on hexdocs.pm.

ExDoc renders a page per module from the `@moduledoc` heredoc and, under *Types*, *Callbacks*
and *Functions*, every public type, callback, function and macro with its `@typedoc`/`@doc`.
Those heredocs are the project's API reference (Ecto's `Ecto.Repo.insert/2` is documented
nowhere else), so a `.ex` file is converted to that page as markdown, without compiling or
running anything: a module is `# Ecto.Repo`, an entry `### insert/2` (the name/arity an Elixir
developer writes and ExDoc's summary lists) over its signature in an `elixir` block and its
doc, whose own headings go two levels down so they stay inside the entry. Each entry is an API
registry entry named as ExDoc auto-links name it (`Ecto.Repo.insert/2`; the runtime looks up
`Ecto.Repo.insert` too) and gets ExDoc's anchor (`insert/2`, `c:insert/2`, `t:t/0`).

The file is read line by line, as `mix format` lays it out: a module's definitions are at its
body's indent (two spaces in), so the `def`s inside a `quote` (Ecto.Repo's `__using__`) or a
nested block are not the module's. What ExDoc hides is left out: `@moduledoc false` (the module
and its members), `@doc false`, `defp`/`defmacrop`/`@typep`, names starting with `_`. A file
without a documented module converts to no text (no page). Heredocs keep their escapes' meaning
(`\\\\` is one backslash outside `~S`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from docsmcp.model.api import ApiEntry, Example, Parameter
from docsmcp.model.api_fields import (
    MAX_DESCRIPTION_CHARS,
    MAX_EXAMPLE_CHARS,
    MAX_EXAMPLES,
    MAX_RETURNS_CHARS,
    MAX_SIGNATURE_CHARS,
)
from docsmcp.model.source import Converted
from docsmcp.model.text import truncate
from docsmcp.sources.formats.markdown.fences import fence_for

DEFAULT_ARG = "\\\\"  # Elixir's default-argument operator (`opts \\ []`), two backslashes
# Lines a signature may span (a `def` whose arguments run over lines), at most.
MAX_SIGNATURE_LINES = 24
# Entries registered from one file, at most (a generated file of 100,000 defs makes this many).
MAX_ENTRIES = 2000

_MODULE = re.compile(r"^(\s*)(?:defmodule|defprotocol)\s+([A-Z][\w.]*)\s+do\b")
_END = re.compile(r"^(\s*)end\b")
# `@moduledoc """`, `@doc ~S"""`, `@doc "one line"`, `@doc false`
_ATTR = re.compile(r"^(\s*)@(moduledoc|doc|typedoc)\s+(.*)$")
_HEREDOC_OPEN = re.compile(r'^(~[sS])?("""|\'\'\')\s*$')
_STRING = re.compile(r'^(~[sS])?"((?:[^"\\]|\\.)*)"\s*$')
_DEF = re.compile(r"^(\s*)(def|defmacro|defguard|defdelegate)\s+([a-z_][\w]*[?!]?)(.*)$")
# `def left == right` (Ecto.Query.API's operators): ExDoc's `==/2`, shown as written
_OPERATOR = re.compile(r"^\s+([a-z_]\w*)\s+([^\w\s(),\[\]{}\"']+|in|and|or)\s+([a-z_]\w*)\b")
_PRIVATE_DEF = re.compile(r"^\s*(defp|defmacrop|defguardp)\b")
_SPEC = re.compile(r"^(\s*)@(callback|macrocallback|type|opaque|spec)\s+([a-z_][\w]*[?!]?)(.*)$")
_PRIVATE_TYPE = re.compile(r"^\s*@typep\b")
_HEADING = re.compile(r"^(#{1,6})(\s)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[*+-]|[0-9]+[.)])\s")
_FENCE_INFO = re.compile(r"^\s*(?:```|~~~)\s*([\w+-]*)")

_GROUPS = {"callback": "callback", "macrocallback": "callback", "type": "type", "opaque": "type"}
# An auto-link's kind prefix in a code span (`` `c:Ecto.Repo.insert/2` ``, `` `t:t/0` ``,
# `` `m:Ecto.Query` ``): ExDoc shows the span without it; a link target keeps it (xref reads it).
_PREFIXED = re.compile(r"(?<!\]\()`[mtc]:([A-Za-z_][^`\s]*)`")
_SECTIONS = (("type", "Types"), ("callback", "Callbacks"), ("function", "Functions"))
_PREFIX = {"type": "t:", "callback": "c:", "function": ""}


@dataclass
class _Entry:
    group: str  # "type" | "callback" | "function"
    name: str
    arity: int
    signature: str  # as written, one line
    call: str  # the argument list, `(a, b \\\\ [])`; "" without one
    line: int  # 0-based line of the definition
    doc: list[tuple[int, str]]  # (0-based source line, text) lines; empty: no @doc

    @property
    def key(self) -> str:
        return f"{self.name}/{self.arity}"


@dataclass
class _Module:
    name: str
    indent: int
    line: int
    doc: list[tuple[int, str]] | None = None
    hidden: bool = False
    entries: list[_Entry] = field(default_factory=list)
    seen: set[tuple[str, str, int]] = field(default_factory=set)
    specs: dict[str, str] = field(default_factory=dict)  # name/arity -> the @spec's result


def _heredoc(
    lines: list[str], start: int, raw: bool, quote: str
) -> tuple[list[tuple[int, str]], int]:
    """The heredoc opened on line `start`: its (line, text) lines, dedented by the closing
    delimiter's indent as Elixir does, and the line after it."""
    body: list[tuple[int, str]] = []
    i = start + 1
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped == quote or stripped.startswith(quote) and not stripped[3:].strip(" )"):
            indent = len(lines[i]) - len(lines[i].lstrip())
            out = []
            for n, text in body:
                cut = min(indent, len(text) - len(text.lstrip()))
                text = text[cut:]
                out.append((n, text if raw else _unescape(text)))
            return out, i + 1
        body.append((i, lines[i]))
        i += 1
    return [(n, t.strip()) for n, t in body], i  # never closed: what was read


def _unescape(text: str) -> str:
    # Outside `~S`, `\\` is one backslash, `\"` a quote and `\#{` a literal interpolation.
    return re.sub(r'\\([\\"#])', r"\1", text)


def _doc_value(lines: list[str], i: int, value: str) -> tuple[list[tuple[int, str]] | None, int]:
    """(doc lines or None for `false`, next line) of an attribute whose value starts `value`
    on line `i`; ([], i + 1) for metadata such as `@doc since: "3.0"`."""
    value = value.strip()
    m = _HEREDOC_OPEN.match(value)
    if m:
        return _heredoc(lines, i, raw=m.group(1) == "~S", quote=m.group(2))
    if value == "false":
        return None, i + 1
    m = _STRING.match(value)
    if m:
        text = m.group(2) if m.group(1) == "~S" else _unescape(m.group(2))
        return [(i, text)], i + 1
    return [], i + 1


def _call(lines: list[str], i: int, rest: str) -> tuple[str, int, str]:
    """The argument list (with parentheses) starting `rest` on line `i`, joined over lines
    (bounded), the line it ends on and what follows it there; ("", i, rest) when the name has
    no parentheses."""
    if not rest.startswith("("):
        return "", i, rest
    parts: list[str] = []
    depth, j, chunk = 0, i, rest
    while True:
        for k, ch in enumerate(chunk):
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth == 0:
                    call = " ".join([*parts, chunk[: k + 1]])
                    call = re.sub(r"\(\s+", "(", re.sub(r",?\s+\)$", ")", " ".join(call.split())))
                    return call, j, chunk[k + 1 :]
        parts.append(chunk)
        j += 1
        if j >= len(lines) or j - i > MAX_SIGNATURE_LINES:
            return "", i, rest
        chunk = lines[j].strip()


def _type_tail(lines: list[str], end: int, tail: str, indent: int) -> tuple[str, int]:
    """A type's or callback's `:: result` after its name, with the lines that continue it
    (deeper than the attribute, bounded), and its last line."""
    parts = [tail.strip()]
    j = end
    while j + 1 < len(lines) and j - end < MAX_SIGNATURE_LINES:
        nxt = lines[j + 1]
        if not nxt.strip() or len(nxt) - len(nxt.lstrip()) <= indent:
            break
        parts.append(nxt.strip())
        j += 1
    return " ".join(" ".join(parts).split()), j


def _arguments(call: str) -> list[str]:
    """The top-level arguments of `(a, b \\\\ [])`; a binary pattern `<<a, b>>` is one."""
    out: list[str] = []
    depth, cur, k, inner = 0, "", 0, call[1:-1]
    while k < len(inner):
        pair = inner[k : k + 2]
        if pair in ("<<", ">>"):
            depth += 1 if pair == "<<" else -1
            cur += pair
            k += 2
            continue
        ch = inner[k]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
        k += 1
    if cur.strip():
        out.append(cur.strip())
    return out


def _shift(doc: list[tuple[int, str]], by: int) -> list[tuple[int, str]]:
    """Doc lines with their ATX headings `by` levels deeper (outside fenced code)."""
    out, fenced = [], False
    for n, text in doc:
        if _FENCE.match(text):
            fenced = not fenced
        elif not fenced:
            text = _HEADING.sub(lambda m: "#" * min(6, len(m.group(1)) + by) + m.group(2), text)
        out.append((n, text))
    return out


def _parse(text: str) -> list[_Module]:
    """The documented modules of a file, with their public entries, in file order."""
    lines = text.split("\n")
    modules: list[_Module] = []
    stack: list[_Module] = []
    # The last @doc/@typedoc not yet used: its lines, or None for `@doc false`.
    pending: list[tuple[int, str]] | None = []
    has_pending = False
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _MODULE.match(line)
        if m:
            parent = stack[-1] if stack else None
            name = f"{parent.name}.{m.group(2)}" if parent else m.group(2)
            mod = _Module(name, len(m.group(1)), i, hidden=bool(parent and parent.hidden))
            stack.append(mod)
            modules.append(mod)
            has_pending = False
            i += 1
            continue
        if not stack:
            i += 1
            continue
        mod = stack[-1]
        m = _END.match(line)
        if m and len(m.group(1)) == mod.indent:
            stack.pop()
            i += 1
            continue
        if len(line) - len(line.lstrip()) != mod.indent + 2:
            i += 1  # inside a function, a quote or a block: not the module's own definitions
            continue
        m = _ATTR.match(line)
        if m:
            doc, i = _doc_value(lines, i, m.group(3))
            if m.group(2) == "moduledoc":
                if doc is None:
                    mod.hidden = True
                elif doc or mod.doc is None:
                    mod.doc = doc
            elif doc is None or doc:
                pending, has_pending = doc, True
            continue
        if _PRIVATE_DEF.match(line) or _PRIVATE_TYPE.match(line):
            has_pending = False
            i += 1
            continue
        m = _DEF.match(line) or _SPEC.match(line)
        if m is None:
            i += 1
            continue
        kind, name, rest = m.group(2), m.group(3), m.group(4)
        first = i
        call, end, tail = _call(lines, i, rest)
        if name == "unquote":  # a name computed at compile time: no page entry to show
            i = end + 1
            has_pending = False
            continue
        operator = _OPERATOR.match(f" {name}{rest}") if kind in ("def", "defmacro") else None
        if operator is not None and not call:
            name = operator.group(2)
            call = f"({operator.group(1)}, {operator.group(3)})"
        elif not call and kind in ("def", "defmacro", "defguard") and rest[:1] in (" ", "\t"):
            # arguments without parentheses, `def not value, do: ...`
            args = re.split(r",\s*do:|\s+do\s*$|\s+when\s", rest.strip(), maxsplit=1)[0]
            call = f"({args.strip()})" if args.strip() and args.strip() != "do" else ""
        if kind not in ("def", "defmacro", "defguard", "defdelegate"):
            tail, end = _type_tail(lines, end, tail, mod.indent + 2)
        arity = len(_arguments(call)) if call else 0
        i = end + 1
        if kind == "spec":
            result = tail.partition("::")[2].strip()
            mod.specs.setdefault(f"{name}/{arity}", result.partition(" when ")[0])
            continue
        if kind in ("callback", "macrocallback"):  # its result, as a spec's
            result = tail.partition("::")[2].strip()
            mod.specs.setdefault(f"{name}/{arity}", result.partition(" when ")[0])
        doc, used = (pending if has_pending else []), has_pending
        has_pending = False
        group = _GROUPS.get(kind, "function")
        key = (group, name, arity)
        if key in mod.seen:
            continue  # another clause of a function already listed (or hidden)
        mod.seen.add(key)
        if (used and doc is None) or name.startswith("_") or len(mod.entries) >= MAX_ENTRIES:
            continue
        if operator is not None and group == "function":
            signature = " ".join(operator.groups())
        elif group == "function":
            signature = f"{name}{call}"
        else:
            signature = f"@{kind} {name}{call}{' ' + tail.strip() if tail.strip() else ''}"
        mod.entries.append(_Entry(group, name, arity, signature, call, first, doc))
    return [mod for mod in modules if not mod.hidden and mod.doc is not None]


def _title(module: str) -> str:
    """A module page's title as ExDoc gives it: the module, or a Mix task's command
    (`Mix.Tasks.Phx.Gen.Auth` is `mix phx.gen.auth`, the name users type)."""
    if not module.startswith("Mix.Tasks.") or module == "Mix.Tasks.":
        return module
    parts = module.removeprefix("Mix.Tasks.").split(".")
    return "mix " + ".".join(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", p).lower() for p in parts)


def _unprefixed(line: str) -> str:
    return _PREFIXED.sub(r"`\1`", line) if ":" in line else line


def _description(doc: list[tuple[int, str]]) -> str:
    """The doc's first paragraph, on one line."""
    words: list[str] = []
    for _, text in doc:
        if not text.strip():
            if words:
                break
            continue
        if _HEADING.match(text) or _FENCE.match(text) or text.startswith("    "):
            if words:
                break
            continue
        words.append(text.strip().lstrip(">").strip())
    return truncate(_unprefixed(" ".join(" ".join(words).split())), MAX_DESCRIPTION_CHARS)


def _fenced(doc: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Doc lines with each indented code block (after a blank line, outside a list) as a
    fenced `elixir` block: ExDoc highlights indented code as Elixir, and a fence gives the
    bundle's code its language (`get_code_examples(language="elixir")`)."""
    out: list[tuple[int, str]] = []
    block: list[tuple[int, str]] = []
    previous, in_list, fenced = "", False, False

    def close() -> None:
        trailing: list[tuple[int, str]] = []
        while block and not block[-1][1].strip():
            trailing.insert(0, block.pop())
        lines = [text[4:] for _, text in block]
        fence = fence_for(lines)
        out.append((block[0][0], f"{fence}elixir"))
        out.extend((n, text) for (n, _), text in zip(block, lines, strict=True))
        out.append((block[-1][0], fence))
        out.extend(trailing)
        block.clear()

    for n, text in doc:
        if block:
            if text.startswith("    ") or not text.strip():
                block.append((n, text))
                continue
            close()
            previous = ""
        if _FENCE.match(text):
            fenced = not fenced
        elif not fenced and text.startswith("    ") and not previous.strip() and not in_list:
            block.append((n, text))
            continue
        if _LIST_ITEM.match(text):
            in_list = True
        elif text.strip() and not text.startswith(" "):
            in_list = False
        out.append((n, text))
        previous = text
    if block:
        close()
    return out


def _examples(doc: list[tuple[int, str]]) -> tuple[Example, ...]:
    """The doc's code blocks (its indented ones fenced first: `_fenced`)."""
    out: list[Example] = []
    block: list[str] = []
    fenced: str | None = None
    for _, text in _fenced(doc):
        if fenced is None:
            if m := _FENCE_INFO.match(text):
                fenced = m.group(1)
        elif _FENCE.match(text):
            out.append(Example(fenced or "elixir", "\n".join(block)))
            block, fenced = [], None
        else:
            block.append(text)
    return tuple(
        Example(e.language, truncate(e.code, MAX_EXAMPLE_CHARS)) for e in out if e.code.strip()
    )[:MAX_EXAMPLES]


def elixir_to_markdown(path: str, text: str) -> Converted:
    """The module pages ExDoc would publish from the `.ex` file `text`, as one markdown page."""
    out: list[tuple[int, str]] = []  # (source line, markdown line)
    anchors: list[tuple[int, str]] = []
    found: list[tuple[_Module, _Entry | None, int, int]] = []  # what, first and last out line
    for mod in _parse(text):
        if out:
            out.append((mod.line, ""))
        start = len(out)
        out.append((mod.line, f"# {_title(mod.name)}"))
        out.append((mod.line, ""))
        fenced = False
        for n, line in _fenced(mod.doc or []):
            fenced = fenced != bool(_FENCE.match(line))
            heading = None if fenced else _HEADING.match(line)
            if heading is not None:  # ExDoc's id of a moduledoc heading: `module-<its slug>`
                anchors.append((len(out), "module-" + line[heading.end() :].strip()))
            out.append((n, line if fenced else _unprefixed(line)))
        found.append((mod, None, start, len(out) - 1))
        for group, title in _SECTIONS:
            entries = [e for e in mod.entries if e.group == group]
            if not entries:
                continue
            out += [(entries[0].line, ""), (entries[0].line, f"## {title}")]
            for e in entries:
                first = len(out) + 1
                anchors.append((first, _PREFIX[group] + e.key))
                signature = e.signature
                code = [signature]
                fence = fence_for(code)
                out += [(e.line, ""), (e.line, f"### {e.key}"), (e.line, "")]
                out += [(e.line, f"{fence}elixir"), (e.line, signature), (e.line, fence)]
                if e.doc:
                    out.append((e.line, ""))
                    fenced = False
                    for n, line in _shift(_fenced(e.doc), 2):
                        fenced = fenced != bool(_FENCE.match(line))
                        heading = None if fenced else _HEADING.match(line)
                        if heading is not None:  # ExDoc's id: `c:insert/2-upserts`
                            title = line[heading.end() :].strip()
                            anchors.append((len(out), f"{_PREFIX[group]}{e.key}-{title}"))
                        out.append((n, line if fenced else _unprefixed(line)))
                found.append((mod, e, first, len(out) - 1))
    if not out:
        return Converted("", None, (), (), ())
    lines = [t for _, t in out]
    line_map = [n for n, _ in out]
    for k in range(1, len(line_map)):  # monotone, as every converted page's map
        line_map[k] = max(line_map[k], line_map[k - 1])
    return Converted(
        "\n".join(lines),
        found[0][0].name,
        tuple(anchors),
        tuple(line_map),
        tuple(_entry(path, mod, e, a, b) for mod, e, a, b in found),
    )


def _parameter(argument: str) -> Parameter:
    """`opts \\ []` (optional), `name :: type` (a callback's), or a pattern as written."""
    value, default, _ = argument.partition(DEFAULT_ARG)
    name, _, typ = value.partition("::")
    return Parameter(name.strip(), typ.strip(), not default, "")


def _entry(path: str, mod: _Module, e: _Entry | None, first: int, last: int) -> ApiEntry:
    """The registry entry of a module (`e` None) or one of its entries; lines are 1-based
    lines of the markdown, the heading's to the entry's last."""
    if e is None:
        return ApiEntry(
            name=mod.name,
            category=mod.name,
            kind="type",
            signature=f"defmodule {mod.name}",
            description=_description(mod.doc or []),
            parameters=(),
            returns="",
            examples=_examples(mod.doc or []),
            chunk_id="",
            path=path,
            line_start=first + 1,
            line_end=last + 1,
        )
    params = tuple(_parameter(a) for a in (_arguments(e.call) if e.call else []))
    return ApiEntry(
        name=f"{mod.name}.{e.key}",
        category=mod.name,
        kind="type" if e.group == "type" else "method",
        signature=truncate(e.signature, MAX_SIGNATURE_CHARS),
        description=_description(e.doc),
        parameters=params,
        returns=truncate(mod.specs.get(e.key, ""), MAX_RETURNS_CHARS),
        examples=_examples(e.doc),
        chunk_id="",
        path=path,
        line_start=first + 1,
        line_end=last + 1,
    )
