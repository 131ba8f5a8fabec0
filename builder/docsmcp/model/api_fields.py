"""The pieces of an API entry, read from its section's markdown: inline text cleaned for display,
identifiers in headings, parameter tables and lists (used by enrich/apiref.py, and by the
readers of source code that write entries themselves: rustdoc, godoc, javadoc, tsdoc...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from docsmcp.model.api import Parameter
from docsmcp.model.chunk import Block
from docsmcp.model.text import truncate

MAX_EXAMPLES = 5
MAX_EXAMPLE_CHARS = 4000
MAX_DESCRIPTION_CHARS = 500
MAX_PARAM_DESCRIPTION_CHARS = 300
MAX_RETURNS_CHARS = 300
MAX_SIGNATURE_CHARS = 300
MAX_CLEAN_INPUT = 3000


# -- vocabulary of section roles (generic documentation words, not corpus names) ------------

_PARAMS, _RETURNS, _EXAMPLE = 1, 2, 4

_METHOD_PARAM_WORDS = {
    "parameters", "parameter", "params", "param", "arguments", "argument", "args", "request",
    "request parameters", "request params", "request body", "request fields", "query parameters",
    "path parameters", "body parameters", "header parameters", "input", "inputs",
    "input parameters", "method parameters", "function parameters", "options", "payload",
    "request payload",
}  # fmt: skip
# Sections listing an enum's values or a union's member types: any content is type evidence.
_VARIANT_WORDS = {
    "values",
    "supported types",
    "enum values",
    "variants",
    "members",
    "possible values",
}
_TYPE_PARAM_WORDS = _VARIANT_WORDS | {
    "fields", "properties", "props", "attributes", "members", "values", "supported types",
    "keys", "structure", "schema", "type definition", "enum values", "variants",
}  # fmt: skip
_RETURN_WORDS = {
    "response", "responses", "returns", "return", "return value", "return values",
    "return type", "returns value", "result", "results", "output", "outputs", "response body",
    "response fields", "response parameters", "response payload", "response format",
}  # fmt: skip
_EXAMPLE_WORDS = {
    "example", "examples", "example usage", "usage", "usage example", "usage examples",
    "request example", "example request", "code example", "code examples", "sample",
    "sample code", "snippet", "request", "call", "example call", "code", "standalone function",
}  # fmt: skip
_ROLES: dict[str, int] = {}
for _words, _flag in (
    (_METHOD_PARAM_WORDS, _PARAMS),
    (_TYPE_PARAM_WORDS, _PARAMS),
    (_RETURN_WORDS, _RETURNS),
    (_EXAMPLE_WORDS, _EXAMPLE),
):
    for _w in _words:
        _ROLES[_w] = _ROLES.get(_w, 0) | _flag

# Single-word headings that are section names, never identifiers (unless backticked).
_NOT_IDENTIFIERS = set(_ROLES) | {
    "overview", "introduction", "intro", "description", "summary", "name", "notes", "note",
    "errors", "error", "exceptions", "throws", "syntax", "types", "methods", "functions",
    "contents", "index", "reference", "api", "installation", "install", "setup",
    "configuration", "config", "prerequisites", "requirements", "changelog", "faq", "todo",
    "deprecated", "related", "details", "remarks", "authentication", "authorization",
    "warning", "warnings", "tip", "tips", "info", "danger", "caution",
    "important", "see", "resources", "license", "contributing", "troubleshooting",
    "limitations", "behavior", "behaviour", "semantics", "motivation",
    "background", "conclusion", "glossary", "terminology", "definitions",
    "modifiers", "constants", "variables", "classes", "interfaces", "enums", "structs",
    "implementation", "notation", "grammar", "lexer", "parser", "diagram",
}  # fmt: skip
# Headings that only group entries: the category is taken one heading further up.
_GROUP_HEADINGS = {
    "functions", "methods", "types", "events", "errors", "state variables", "constants",
    "properties", "fields", "overview", "api", "api reference", "reference", "classes",
    "interfaces", "enums", "structs", "modifiers", "operations", "available operations",
    "type definitions", "data types", "models", "variables",
}  # fmt: skip
_TYPE_KIND_WORDS = {
    "type", "types", "interface", "class", "struct", "enum", "union", "record", "trait",
    "object", "model", "schema", "message", "typedef", "alias",
}  # fmt: skip
_METHOD_KIND_WORDS = {
    "method", "function", "func", "fn", "hook", "call", "endpoint", "operation", "rpc",
    "command", "procedure", "constructor",
}  # fmt: skip
_OTHER_KIND_WORDS = {"property", "field", "event", "constant", "component", "module", "macro"}

# Table header words.
_NAME_COLUMNS = {
    "parameter", "parameters", "param", "params", "name", "field", "fields", "argument",
    "arguments", "arg", "args", "property", "properties", "prop", "key", "attribute",
    "member", "option", "parameter name", "field name", "property name", "argument name",
}  # fmt: skip
_FIELD_COLUMNS = {"field", "fields", "property", "properties", "prop", "attribute", "member"}
_METHOD_COLUMNS = {"parameter", "parameters", "param", "params", "argument", "arguments", "arg"}
_TYPE_COLUMNS = {"type", "types", "data type", "datatype", "value type", "kind", "schema"}
_REQUIRED_COLUMNS = {"required", "required?", "req", "req.", "optional", "optional?", "mandatory"}
# mkdocstrings' "Default" column: *required*, or the default value (so the parameter is optional).
_DEFAULT_COLUMNS = {"default", "default value", "defaults"}
_DESCRIPTION_COLUMNS = {"description", "desc", "details", "meaning", "purpose", "notes", "summary"}
_TRUE_MARKS = {"yes", "y", "true", "required", "✔", "✔️", "✓", "✅", "mandatory", "always"}
_FALSE_MARKS = {
    *("no", "n", "false", "optional", "no (optional)"),
    *("-", "—", "–", "➖", "✗", "❌", "✘"),  # (➖: `:heavy_minus_sign:` as emoji.py reads it)
}


# -- regexes -----------------------------------------------------------------------------------

_ATX = re.compile(r"^\s{0,3}#{1,6}(?:[ \t]+|$)")
_ATX_CLOSE = re.compile(r"[ \t]+#+[ \t]*$")
_HEADING_ID = re.compile(r"\s*\{#[^}]*\}\s*$")
_IDENT = r"[A-Za-z_$][\w$]*(?:(?:\.|::|->|#)[A-Za-z_$][\w$]*)*"
_PLAIN_IDENT = re.compile(rf"^(?:new\s+)?({_IDENT})(\([^()]*\))?(?:\s+\([^()]*\))?$")
_WORDLIKE = re.compile(r"[A-Z]?[a-z]*")
_CODE_IDENT = re.compile(rf"^(?:new\s+|func\s+|fn\s+|def\s+|function\s+)?({_IDENT})\s*(\(.*)?$")
# Julia's names may end in `!` and its macros start with `@` (`push!`, `@docs`): such a name is
# an identifier where its heading says what it is (Documenter's "`push!` — Function"), not alone
# (the Rust Reference's "`format_args!`" headings are prose).
_KIND_IDENT = re.compile(rf"^(@?{_IDENT}!?)\s*(\(.*)?$")
_BACKTICKED_HEADING = re.compile(r"^`([^`]+)`\s*(.*)$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)
_TAG = re.compile(r"</?[A-Za-z][\w.:-]*(?:\s[^<>]*)?/?>")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# A badge after a heading's name (dumi: `### Avatar.Group <Badge>4.5.0+</Badge>`): a version or
# a state, no part of the name.
_BADGE = re.compile(r"[ \t]*<Badge\b[^<>]*>[^<>]*</Badge>", re.IGNORECASE)
_LINK_TEXT = r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]"  # one level of nested brackets: [List[str]]
_LINK_TARGET = r"\((?:[^()\s]|\([^()]*\))*(?:\s+\"[^\"]*\")?\)"
_IMAGE = re.compile("!" + _LINK_TEXT + _LINK_TARGET)
_LINK = re.compile(_LINK_TEXT + _LINK_TARGET)
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_EMPHASIS = re.compile(r"(?<![\w*])[*_]{1,3}(?=[^\s*_])|(?<=[^\s*_])[*_]{1,3}(?![\w*])")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_EMOJI = re.compile(r":(heavy_check_mark|heavy_minus_sign|white_check_mark|x|warning):")
_SPACES = re.compile(r"\s+")
_STRUCK = re.compile(r"~~([^~]+)~~")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_LABEL = re.compile(r"^\s*(?:\*\*|__)([^*_]+?)(?:\*\*|__)\s*(:?)\s*(.*)$", re.DOTALL)
_LIST_ITEM = re.compile(
    r"^\s*(?:[-*+]|\d+[.)])\s+"
    r"(?:(?:\*\*|__)`?(?P<bold>[A-Za-z_$][\w$.\[\]-]*\??)`?(?:\*\*|__)|`(?P<code>[A-Za-z_$][\w$.\[\]-]*\??)`)"
    r"\s*(?:\((?P<type>[^)]*)\)|:\s*`(?P<type2>[^`]+)`(?=\s*(?:[-–—:]|$)))?"
    r"\s*(?:[:\-–—]\s*)?(?P<desc>.*)$"
)
# A list item's type written bare after its name, then ` - ` or the end: `string`,
# `Record<string, any> | null`, `string[] (optional)`, Node.js' `{string|Buffer}`.
_TYPE_WORD = r"[A-Za-z_$][\w$.]*(?:<[^<>\n]*>)?(?:\[\])*"
_BARE_TYPE = re.compile(
    rf"^(\{{[^{{}}\n]+\}}(?=\s)|{_TYPE_WORD}(?:\s*\|\s*{_TYPE_WORD})*)(?:\s+\((optional)\))?"
    r"(?:\s+[-–—]\s+|(?<=\})\s+|\s*$)(.*)$"
)
# A paragraph that is one bold, linked or code span: a type (`**[models.Link](link.md)**`).
_TYPE_SPAN = re.compile(r"^\s*(?:\*\*|__|\[|`)[\s\S]*(?:\*\*|__|\)|`)\s*$")
_LINK_ONLY = re.compile(r"^\[[^\]]*\]\([^)]*\)\s*$")
_DECL_KEYWORDS = r"(?:interface|type|struct|class|enum|union|record|trait|message|typedef|object)"
_DECL_PREFIX = re.compile(
    rf"[ \t]*(?:export\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:declare\s+)?{_DECL_KEYWORDS}\s+$"
)
_NESTED_PARAM = re.compile(r"[.\[\s]")  # `options.retries`, `items[].id`: not an argument
_SEPARATORS = re.compile(r"\.|::|->|#")
_RETURNS_IN_SIG = re.compile(r"\breturns\s*\(([^()]*)\)|\)\s*->\s*([^{;]+)")


# -- text cleaning -----------------------------------------------------------------------------


def _unescape_placeholder(m: re.Match[str]) -> str:
    return chr(0xE000 + ord(m.group(1)))


@lru_cache(maxsize=8192)  # table cells repeat a lot (types, required marks, names)
def clean_inline(text: str) -> str:
    """Markdown/MDX inline text as plain text: links, images, HTML/JSX tags, emphasis and
    backticks stripped, `<br/>` and newlines as spaces, escapes resolved, spaces collapsed.
    Code spans are kept verbatim (`Promise<State>` is no tag). Only the first
    `MAX_CLEAN_INPUT` characters are read: every output is capped far below that, and it
    bounds the regexes' cost on pathological input (thousands of unclosed backtick runs)."""
    text = text[:MAX_CLEAN_INPUT].strip()
    if not text:
        return ""
    escaped = "\\" in text
    if escaped:
        text = _ESCAPE.sub(_unescape_placeholder, text)
    if "[" in text:
        text = _IMAGE.sub(r"\1", text)
        text = _LINK.sub(r"\1", text)
        text = _REF_LINK.sub(r"\1", text)
    if "`" in text:
        parts = _CODE_SPAN.split(text)
        out = []
        for k in range(0, len(parts), 3):
            out.append(_clean_prose(parts[k]))
            if k + 2 < len(parts):
                out.append(parts[k + 2])
        text = "".join(out).replace("`", "")
    else:
        text = _clean_prose(text)
    text = " ".join(text.split())
    if escaped:
        text = text.translate(_PLACEHOLDERS)
    return text


def _clean_prose(text: str) -> str:
    if not text:
        return text
    if "<" in text:
        if "-->" in text:  # never scan past the last comment end for an unclosed `<!--`
            end = text.rfind("-->") + 3
            text = _COMMENT.sub(" ", text[:end]) + text[end:]
        text = _BR.sub(" ", text)
        text = _TAG.sub("", text)
    if ":" in text and ("_" in text or ":x:" in text or ":warning:" in text):
        text = _EMOJI.sub(lambda m: _EMOJI_TEXT[m.group(1)], text)
    if "*" in text or (
        "_" in text
        and ("__" in text or "_ " in text or " _" in text or text[0] == "_" or text[-1] == "_")
    ):
        text = _EMPHASIS.sub("", text)
    return text


_PLACEHOLDERS = {0xE000 + k: k for k in range(128)}


_EMOJI_TEXT = {
    "heavy_check_mark": "✔",
    "white_check_mark": "✔",
    "heavy_minus_sign": "—",
    "x": "✗",
    "warning": "",
}


def _norm_word(text: str) -> str:
    """A heading or label as a role lookup key: lowercase, no trailing colon/punctuation."""
    return clean_inline(text).lower().strip(_KEY_STRIP)


_KEY_STRIP = " :.-—–?!"


# -- headings ----------------------------------------------------------------------------------


def _heading_source(lines: list[str], block: Block) -> str:
    """The raw inline markdown of a heading (ATX or setext), with `{#id}` and tags removed."""
    raw = lines[block.start] if block.start < len(lines) else block.title
    if _ATX.match(raw):
        raw = _ATX_CLOSE.sub("", _ATX.sub("", raw, count=1))
    raw = _HEADING_ID.sub("", raw)
    if "<" in raw:
        raw = _TAG.sub("", _COMMENT.sub("", _BADGE.sub("", raw)))
    return raw.strip()


@dataclass
class _Ident:
    name: str
    signature: str  # the heading's own call syntax, "" if it has none
    kind_hint: str  # "method" | "type" | ""
    backticked: bool


def _identifier(source: str, page_title: bool = False) -> _Ident | None:
    """The identifier a heading names, or None for prose. A page title (a top-level h1) may
    be a role word: a model page may be called "Fields" or "Options"."""
    m = _BACKTICKED_HEADING.match(source)
    if m:
        code, rest = m.group(1).strip(), clean_inline(m.group(2)).strip()
        rest_l = rest.lower().strip(" :—–-")  # (Documenter: "`f` — Function")
        hint = ""
        if rest_l in _TYPE_KIND_WORDS:
            hint = "type"
        elif rest_l in _METHOD_KIND_WORDS:
            hint = "method"
        elif (
            rest
            and rest_l not in _OTHER_KIND_WORDS
            and not (rest.startswith("(") and rest.endswith(")"))
        ):
            return None
        cm = _CODE_IDENT.match(code) or (_KIND_IDENT.match(code) if hint else None)
        if cm is None:
            return None
        name, args = cm.group(1), cm.group(2)
        signature = code if args else ""
        if args and not hint:
            hint = "method"
        return _Ident(name, signature, hint, True)
    text = clean_inline(source)
    pm = _PLAIN_IDENT.match(text)
    if pm is None:
        return None
    name, args = pm.group(1), pm.group(2)
    if len(name) < 2:
        return None
    if (
        not args
        and name.lower() in _NOT_IDENTIFIERS
        and not (page_title and name.lower() in _ROLES)
    ):
        return None
    return _Ident(name, name + args if args else "", "method" if args else "", False)


# -- tables and lists --------------------------------------------------------------------------


def _cells(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    cells = _CELL_SPLIT.split(s) if "\\|" in s else s.split("|")
    return [c.strip() for c in cells]


@dataclass
class _Table:
    params: list[Parameter]
    name_column: str  # the header word of the name column


def _required(cell: str) -> bool | None:
    raw = cell.strip().lower()
    if "heavy_check_mark" in raw or "white_check_mark" in raw:
        return True
    if "heavy_minus_sign" in raw:
        return False
    word = clean_inline(cell).lower().strip(" .")
    if word in _TRUE_MARKS:
        return True
    if word in _FALSE_MARKS:
        return False
    if word.startswith(("yes", "required", "true")):
        return True
    if word.startswith(("no", "optional", "false")):
        return False
    return None


def _optional_hint(*texts: str) -> bool | None:
    for t in texts:
        low = t.lower().lstrip("( *_")
        if low.startswith("optional"):
            return False
        if low.startswith("required"):
            return True
    return None


def _parse_table(lines: list[str], block: Block) -> _Table | None:
    """Parameters of a table whose header has a name-like and a Type column."""
    if block.start >= len(lines):
        return None
    header = [_norm_word(c) for c in _cells(lines[block.start])]
    name_col = type_col = req_col = desc_col = default_col = -1
    for k, h in enumerate(header):
        if name_col < 0 and h in _NAME_COLUMNS:
            name_col = k
        elif type_col < 0 and h in _TYPE_COLUMNS:
            type_col = k
        elif req_col < 0 and h in _REQUIRED_COLUMNS:
            req_col = k
        elif desc_col < 0 and h in _DESCRIPTION_COLUMNS:
            desc_col = k
        elif default_col < 0 and h in _DEFAULT_COLUMNS:
            default_col = k
    if name_col < 0 or type_col < 0:
        return None
    negate = req_col >= 0 and header[req_col].startswith("optional")
    params: list[Parameter] = []
    for row in block.parts:
        if row.start >= len(lines):
            continue
        cells = _cells(lines[row.start])

        def cell(k: int, cells: list[str] = cells) -> str:
            return cells[k] if 0 <= k < len(cells) else ""

        name = clean_inline(cell(name_col))
        if not name:
            continue
        desc = clean_inline(cell(desc_col))
        if struck := _STRUCK.fullmatch(name):  # `~~iconPosition~~`: a deprecated one (GFM)
            name, desc = struck.group(1).strip(), f"Deprecated. {desc}".strip()
        type_ = truncate(clean_inline(cell(type_col)), 200)
        desc = truncate(desc, MAX_PARAM_DESCRIPTION_CHARS)
        required = _required(cell(req_col)) if req_col >= 0 else None
        if required is not None and negate:
            required = not required
        if required is None:
            required = _optional_hint(type_, desc)
        if required is None and default_col >= 0 and (default := clean_inline(cell(default_col))):
            required = default.lower().strip(" .") == "required"
        if required is None and name.endswith("?"):
            required = False
        params.append(Parameter(name, type_, required, desc))
    if not params:
        return None
    return _Table(params, header[name_col])


def _parse_values(lines: list[str], block: Block) -> list[Parameter]:
    """An enum's `| Name | Value |` table as parameters (the value as description)."""
    if block.start >= len(lines):
        return []
    header = [_norm_word(c) for c in _cells(lines[block.start])]
    if not header or header[0] not in _NAME_COLUMNS:
        return []
    value_col = header.index("value") if "value" in header else -1
    out: list[Parameter] = []
    for row in block.parts:
        if row.start < len(lines):
            cells = _cells(lines[row.start])
            name = clean_inline(cells[0]) if cells else ""
            value = clean_inline(cells[value_col]) if 0 <= value_col < len(cells) else ""
            if name:
                out.append(Parameter(name, "", None, truncate(value, 200)))
    return out


def _parse_list(lines: list[str], block: Block) -> list[Parameter]:
    params: list[Parameter] = []
    for item in block.parts:
        if item.start >= len(lines):
            continue
        m = _LIST_ITEM.match(lines[item.start])
        if m is None:
            continue
        name = m.group("bold") or m.group("code") or ""
        type_ = clean_inline(m.group("type") or m.group("type2") or "")
        if m.group("bold") and not m.group("type"):
            continue  # "**Purpose**: ..." is a prose label, not a parameter
        rest = " ".join(lines[item.start + 1 : min(item.end, item.start + 4)])
        lead = m.group("desc") or ""
        if not type_ and (t := _BARE_TYPE.match(lead)):
            # "`name` string - what it is" (Electron), "`path` {string|URL} ..." (Node.js)
            type_ = t.group(1).strip("{}") + (" (optional)" if t.group(2) else "")
            lead = t.group(3)
        desc = clean_inline(lead + " " + rest)
        required = _optional_hint(type_, desc)
        if required is None and name.endswith("?"):
            required = False
        if type_ and "optional" in type_.lower():
            required = False
        params.append(
            Parameter(
                name.rstrip("?"),
                truncate(type_, 200),
                required,
                truncate(desc, MAX_PARAM_DESCRIPTION_CHARS),
            )
        )
    return params


def argument_names(signature: str) -> set[str]:
    """The argument names of a call's signature: `fs.readFile(path[, options], callback)` ->
    path, options, callback (spread dots, brackets and defaults left out)."""
    inside = signature[signature.find("(") + 1 : signature.rfind(")")]
    return {m.group(0) for m in re.finditer(r"[A-Za-z_$][\w$]*", re.sub(r"=[^,\]]*", "", inside))}
