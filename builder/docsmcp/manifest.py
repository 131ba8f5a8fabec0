"""Load a docs folder into a Corpus: files, their chunking strategy and metadata, and problems.

Precedence for one file, lowest first: defaults < governing manifest (the nearest
``.docs-mcp.json`` up the tree; never merged with its parents) < its matching overrides, top
to bottom < the first inline ``<!-- mcp_chunking_hint: {...} -->`` outside code fences <
frontmatter. Nothing here raises on bad input: every problem is collected, so an author sees
all of them at once, and a build refuses when there is any. Files are read only inside the
source roots and within the limits of limits.py (see discover.py).
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docsmcp import includes
from docsmcp.discover import (
    Entry,
    Refused,
    glob_match,
    glob_problem,
    is_generated_page,
    is_html,
    is_llms_full,
    matches_any,
    read_file,
    scan,
    selected,
    shown,
    source_roots,
)
from docsmcp.frontmatter import Frontmatter, find_inline_hints, split_frontmatter
from docsmcp.limits import (
    MAX_FILE_BYTES,
    MAX_FILE_LINES,
    MAX_HTML_BYTES,
    MAX_JSON_DEPTH,
    MAX_JSON_INT_DIGITS,
    MAX_MANIFEST_BYTES,
    MAX_TABLE_CELLS,
)
from docsmcp.llms import split_llms_full
from docsmcp.pdf import PdfOptions, PdfSummary, is_pdf

if TYPE_CHECKING:
    import jsonschema

log = logging.getLogger(__name__)

CHUNK_BY_VALUES = ("h1", "h2", "h3", "file")
METADATA_KEY_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
MAX_METADATA_VALUE = 128
_BOM = b"\xef\xbb\xbf"
# Values from the docs quoted in a message are cut to this many characters: a message is one
# line, whatever the input.
_QUOTE_CHARS = 80


@dataclass(frozen=True)
class Strategy:
    chunk_by: str = "h2"  # "h1" | "h2" | "h3" | "file"
    # Characters; None = the build's default: 2,500 (chunk.DEFAULT_MAX_CHUNK_SIZE), or less
    # when an embedding provider's context window is smaller (so chunks are not cut when
    # embedded).
    max_chunk_size: int | None = None
    min_chunk_size: int = 0  # 0 = no merging of tiny chunks


# Today's behaviour of the docs-mcp contract, as data: filtering `language` keeps the pages that
# apply to every language visible. Applies when no manifest declares `auto_include` for the key.
DEFAULT_AUTO_INCLUDE: dict[str, dict[str, tuple[str, ...]]] = {
    "language": {"scope": ("global-guide",)}
}


@dataclass(frozen=True)
class TaxonomyKey:
    description: str | None = None
    vector_collapse: bool = False
    # Other key -> values kept visible when this key is filtered; None = not declared.
    auto_include: Mapping[str, tuple[str, ...]] | None = None


@dataclass(frozen=True)
class Problem:
    path: str  # POSIX path relative to the docs dir (a file or a manifest)
    line: int | None  # 1-based, when known
    message: str

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(frozen=True)
class SourceFile:
    path: str  # POSIX relative path from the docs dir
    text: str  # full text, UTF-8, newlines normalised to \n, no BOM
    body: str  # text with the frontmatter blanked (same line count)
    strategy: Strategy
    metadata: tuple[tuple[str, str], ...]  # sorted (key, value) pairs
    title: str | None  # frontmatter title
    manifest: str | None  # relative path of the governing manifest
    # The frontmatter as canonical JSON (sorted keys; dates and other YAML scalars as strings),
    # shown by get_page: kept as text so the dataclass stays hashable and the bundle exact.
    frontmatter: str = "{}"
    # Where includes (includes.py) made `body` longer: for each line of `body`, the line of
    # `text` it comes from (0-based). Empty: `body` has the lines of `text`.
    line_map: tuple[int, ...] = ()
    # A PDF's text (pdf.py): the first line (0-based) of each page, so chunks get page ranges,
    # and the section numbers taken off its headings, (heading line, number). Empty for markdown.
    page_starts: tuple[int, ...] = ()
    section_numbers: tuple[tuple[int, str], ...] = ()
    # Anchors of a converted page (convert.py) that are no heading of its markdown, e.g. the
    # ids of a saved HTML page's API entries: (0-based line, id), for links to resolve.
    anchors: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class Corpus:
    files: tuple[SourceFile, ...]  # sorted by path
    taxonomy: dict[str, TaxonomyKey]  # keys sorted
    instructions: str | None
    problems: tuple[Problem, ...]
    pdfs: tuple[PdfSummary, ...] = ()  # the PDFs read, for the build summary


@dataclass(frozen=True)
class Override:
    pattern: str
    strategy: Strategy | None
    metadata: dict[str, str]


@dataclass(frozen=True)
class Manifest:
    """One parsed manifest; an invalid one governs its files with an empty configuration."""

    path: str
    folder: str  # "" for the docs-dir root
    strategy: Strategy = Strategy()
    metadata: dict[str, str] = field(default_factory=dict)
    overrides: tuple[Override, ...] = ()
    taxonomy: dict[str, TaxonomyKey] = field(default_factory=dict)
    instructions: str | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


# --- schema validation -------------------------------------------------------------------


@functools.cache
def manifest_schema() -> dict[str, Any]:
    """The manifest JSON Schema (schemas/docs-mcp.schema.json)."""
    source = resources.files("docsmcp").joinpath("schemas/docs-mcp.schema.json")
    return json.loads(source.read_text(encoding="utf-8"))


@functools.cache
def _validator(definition: str | None) -> jsonschema.protocols.Validator:
    schema = manifest_schema()
    if definition is not None:
        # A wrapper that keeps $defs so the definition's own $refs still resolve.
        schema = {"$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    # Imported here: jsonschema (with attrs, referencing, rpds) was a tenth of the builder's
    # start-up, and only a corpus with a manifest or an mcp_strategy needs it.
    import jsonschema

    return jsonschema.Draft202012Validator(schema)


def _json_path(parts: Iterable[str | int]) -> str:
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", part):
            out += f".{part}"
        else:
            out += f"[{json.dumps(part)}]"
    return out


def _one_of(values: Iterable[Any]) -> str:
    return ", ".join(_quote(v) for v in values)


def _clip(text: str, limit: int = _QUOTE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _quote(value: Any) -> str:
    """repr(value), cut to a readable length (and made printable: no raw newlines)."""
    return _clip(repr(value))


def _error_message(error: jsonschema.ValidationError) -> str:
    # jsonschema's enum/const wording shows Python lists; this names the allowed values.
    if error.validator == "enum":
        return f"{_quote(error.instance)} is not one of {_one_of(error.validator_value)}"
    if error.validator == "const":
        return f"{_quote(error.instance)} is not allowed, expected {error.validator_value!r}"
    return _clip(error.message.replace("\n", " "), 4 * _QUOTE_CHARS)


def _sort_key(error: jsonschema.ValidationError) -> tuple[Any, ...]:
    return tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in error.absolute_path)


def schema_errors(instance: Any, definition: str | None = None) -> list[tuple[str, str]]:
    """All (JSON path, message) errors of ``instance`` against the manifest schema (or one
    of its $defs), sorted by path."""
    errors = sorted(_validator(definition).iter_errors(instance), key=_sort_key)
    return [(_json_path(e.absolute_path), _error_message(e)) for e in errors]


def _strategy_from(raw: Mapping[str, Any]) -> Strategy:
    """A Strategy from a schema-valid mapping; missing size fields take their defaults."""
    default = Strategy()
    return Strategy(
        chunk_by=raw["chunk_by"],
        max_chunk_size=raw.get("max_chunk_size", default.max_chunk_size),
        min_chunk_size=int(raw.get("min_chunk_size", default.min_chunk_size)),
    )


def _size_problem(strategy: Strategy) -> str | None:
    if strategy.max_chunk_size is not None and strategy.max_chunk_size < strategy.min_chunk_size:
        return (
            f"max_chunk_size ({strategy.max_chunk_size}) must be >= "
            f"min_chunk_size ({strategy.min_chunk_size})"
        )
    return None


def _metadata_entry_problem(key: Any, value: Any, what: str = "metadata") -> str | None:
    """Why a metadata entry is unacceptable, or None. Values are judged after stripping."""
    if not isinstance(key, str) or not METADATA_KEY_RE.match(key):
        return f"{what} key {_quote(key)} must be 1-64 characters of A-Z a-z 0-9 _ . -"
    if not isinstance(value, str):
        return f"{what} value for {key!r} must be a string, got {type(value).__name__}"
    stripped = value.strip()
    if not stripped:
        return f"{what} value for {key!r} must not be empty"
    if len(stripped) > MAX_METADATA_VALUE:
        return (
            f"{what} value for {key!r} is {len(stripped)} characters long; "
            f"at most {MAX_METADATA_VALUE} are allowed"
        )
    return None


# --- JSON ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JsonProblem:
    line: int | None  # 1-based, in the parsed text
    column: int | None
    message: str


class _LongInt(ValueError):
    pass


def _parse_int(digits: str) -> int:
    # Python refuses ints of over 4,300 digits with a ValueError of its own; this names the
    # problem, and where it is, before that.
    if len(digits.lstrip("-")) > MAX_JSON_INT_DIGITS:
        raise _LongInt(digits)
    return int(digits)


def load_json(text: str) -> tuple[Any, JsonProblem | None]:
    """(value, None), or (None, why not) for invalid JSON, an over-long integer or nesting
    deeper than MAX_JSON_DEPTH: what nests that deep would exhaust the stack of the parser or
    of schema validation."""
    too_deep = f"nested deeper than {MAX_JSON_DEPTH} levels of arrays and objects"
    try:
        value = json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        return None, JsonProblem(exc.lineno, exc.colno, f"invalid JSON: {exc.msg}")
    except _LongInt as exc:
        line = text.count("\n", 0, max(text.find(exc.args[0]), 0)) + 1
        return None, JsonProblem(
            line, None, f"an integer of more than {MAX_JSON_INT_DIGITS} digits"
        )
    except RecursionError:
        return None, JsonProblem(_line_too_deep(text), None, too_deep)
    if _json_depth(value) > MAX_JSON_DEPTH:
        return None, JsonProblem(_line_too_deep(text), None, too_deep)
    return value, None


def _json_depth(value: Any) -> int:
    """Nesting depth of parsed JSON (a scalar is 0, `[]` is 1), without recursion; it stops
    counting past MAX_JSON_DEPTH."""
    deepest = 0
    stack = [(value, 1)]
    while stack and deepest <= MAX_JSON_DEPTH:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = list(node.values())
        if isinstance(node, list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in node)
    return deepest


def _line_too_deep(text: str) -> int | None:
    """The line where JSON text first nests deeper than MAX_JSON_DEPTH (strings skipped)."""
    depth, line, in_string, escaped = 0, 1, False, False
    for ch in text:
        if ch == "\n":
            line += 1
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return line
        elif ch in "]}":
            depth -= 1
    return None


# --- manifests -----------------------------------------------------------------------------


def _parse_manifest(data: dict[str, Any], path: str, folder: str) -> tuple[Manifest, list[str]]:
    """Build a Manifest from schema-valid data; returns the semantic problems too."""
    problems = []
    strategy = _strategy_from(data["strategy"]) if "strategy" in data else Strategy()
    if msg := _size_problem(strategy):
        problems.append(f"$.strategy: {msg}")
    for key, value in data.get("metadata", {}).items():
        if msg := _metadata_entry_problem(key, value):
            problems.append(f"{_json_path(['metadata', key])}: {msg}")
    overrides = []
    for i, raw in enumerate(data.get("overrides", [])):
        ov_strategy = _strategy_from(raw["strategy"]) if "strategy" in raw else None
        if ov_strategy and (msg := _size_problem(ov_strategy)):
            problems.append(f"{_json_path(['overrides', i, 'strategy'])}: {msg}")
        for key, value in raw.get("metadata", {}).items():
            if msg := _metadata_entry_problem(key, value):
                problems.append(f"{_json_path(['overrides', i, 'metadata', key])}: {msg}")
        ov_metadata = {k: v.strip() for k, v in raw.get("metadata", {}).items()}
        overrides.append(Override(raw["pattern"], ov_strategy, ov_metadata))
    taxonomy = {}
    for key, cfg in data.get("taxonomy", {}).items():
        include = cfg.get("auto_include")
        if include is not None:
            include = {k: tuple(dict.fromkeys(v)) for k, v in include.items()}
            if key in include:
                problems.append(
                    f"{_json_path(['taxonomy', key, 'auto_include', key])}: a key cannot "
                    "auto-include its own values"
                )
        taxonomy[key] = TaxonomyKey(
            cfg.get("description"), bool(cfg.get("vector_collapse", False)), include
        )
    manifest = Manifest(
        path=path,
        folder=folder,
        strategy=strategy,
        metadata={k: v.strip() for k, v in data.get("metadata", {}).items()},
        overrides=tuple(overrides),
        taxonomy=taxonomy,
        instructions=data.get("mcpServerInstructions"),
        include=tuple(data.get("include", ())),
        exclude=tuple(data.get("exclude", ())),
    )
    return manifest, problems


def _glob_problems(data: dict[str, Any]) -> list[str]:
    """Messages for the globs of schema-valid manifest data that cannot be used."""
    found = [(["include", i], p) for i, p in enumerate(data.get("include", ()))]
    found += [(["exclude", i], p) for i, p in enumerate(data.get("exclude", ()))]
    found += [
        (["overrides", i, "pattern"], o["pattern"]) for i, o in enumerate(data.get("overrides", ()))
    ]
    return [
        f"{_json_path(where)}: glob {_quote(pattern)} {msg}"
        for where, pattern in found
        if (msg := glob_problem(pattern))
    ]


def load_manifest(
    docs_dir: Path, path: str, roots: Sequence[Path] | None = None
) -> tuple[Manifest, list[Problem]]:
    """Read and validate the manifest at ``path`` (relative to docs_dir), reading only inside
    ``roots`` (default: the docs dir)."""
    folder = path.rpartition("/")[0]
    empty = Manifest(path=path, folder=folder)
    roots = source_roots(docs_dir) if roots is None else roots
    try:
        raw = read_file(docs_dir, path, roots, MAX_MANIFEST_BYTES)
    except Refused as exc:
        return empty, [Problem(path, None, f"manifest {exc}")]
    except OSError as exc:
        return empty, [Problem(path, None, f"cannot read manifest: {exc.strerror}")]
    try:
        text = raw.removeprefix(_BOM).decode("utf-8")
    except UnicodeDecodeError as exc:
        return empty, [Problem(path, None, f"not valid UTF-8 at byte {exc.start}")]
    data, problem = load_json(text)
    if problem is not None:
        column = f" (column {problem.column})" if problem.column else ""
        return empty, [Problem(path, problem.line, f"{problem.message}{column}")]
    errors = schema_errors(data)
    if errors:
        return empty, [Problem(path, None, f"{where}: {msg}") for where, msg in errors]
    if bad_globs := _glob_problems(data):
        return empty, [Problem(path, None, m) for m in bad_globs]
    manifest, messages = _parse_manifest(data, path, folder)
    return manifest, [Problem(path, None, m) for m in sorted(messages)]


def _governing(manifests: Mapping[str, Manifest], path: str) -> Manifest | None:
    """The nearest manifest from the file's folder up to the docs-dir root."""
    folder = path.rpartition("/")[0]
    while True:
        if folder in manifests:
            return manifests[folder]
        if not folder:
            return None
        folder = folder.rpartition("/")[0]


def _relative_to(path: str, folder: str) -> str:
    return path[len(folder) + 1 :] if folder else path


# --- files -----------------------------------------------------------------------------------


def _chunk_by_from_hint(value: Any) -> tuple[str | None, str | None]:
    """Read a chunking hint (``"h3"`` or ``{"chunk_by": "h3"}``): (chunk_by, problem)."""
    if isinstance(value, Mapping):
        extra = sorted(_clip(str(k)) for k in value if k != "chunk_by")
        if extra:
            return None, f"only chunk_by can be set, unexpected {_one_of(extra)}"
        if "chunk_by" not in value:
            return None, "chunk_by is missing"
        value = value["chunk_by"]
    if not isinstance(value, str) or value not in CHUNK_BY_VALUES:
        return None, f"{_quote(value)} is not one of {_one_of(CHUNK_BY_VALUES)}"
    return value, None


def _read_text(
    docs_dir: Path, path: str, roots: Sequence[Path]
) -> tuple[str | None, Problem | None]:
    try:
        raw = read_file(docs_dir, path, roots, MAX_HTML_BYTES if is_html(path) else MAX_FILE_BYTES)
    except Refused as exc:
        return None, Problem(path, None, f"file {exc}")
    except OSError as exc:
        return None, Problem(path, None, f"cannot read file: {exc.strerror}")
    # Offsets are reported in the file as stored, BOM included.
    offset = len(_BOM) if raw.startswith(_BOM) else 0
    try:
        text = raw[offset:].decode("utf-8")
    except UnicodeDecodeError as exc:
        text = _declared_html(raw) if is_html(path) else None
        if text is None:
            line = raw[: offset + exc.start].count(b"\n") + 1
            return None, Problem(path, line, f"not valid UTF-8 at byte {offset + exc.start}")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not is_html(path) and (message := _structure_problem(text)):
        return None, Problem(path, None, f"{message}; split it or leave it out")
    return text, None


# `<meta charset="...">` or `content="text/html; charset=..."` near the start of a saved page.
_HTML_CHARSET = re.compile(rb"""charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.IGNORECASE)


def _declared_html(raw: bytes) -> str | None:
    """A saved HTML page that is not UTF-8, decoded with the charset it declares (older sites
    are often windows-1252); None when it declares none or the bytes do not fit it."""
    m = _HTML_CHARSET.search(raw[:4096])
    if m is None:
        return None
    try:
        return raw.decode(m.group(1).decode("ascii"))
    except (LookupError, UnicodeDecodeError):
        return None


def _structure_problem(text: str) -> str | None:
    """Why a file is too large to parse within the limits of limits.py, measured before parsing."""
    lines = text.count("\n") + 1
    if lines > MAX_FILE_LINES:
        return f"file has {lines:,} lines; at most {MAX_FILE_LINES:,} are allowed per file"
    cells = 0
    # A header needs a `|`; each column of a delimiter row holds a `-` and spans at most every
    # line, so cells <= lines x dashes: most files are below the limit without the line walk.
    if "|" in text and lines * text.count("-") > MAX_TABLE_CELLS:
        cells = _table_cells(text.split("\n"))
    if cells > MAX_TABLE_CELLS:
        return (
            f"file has tables of {cells:,} cells (rows times header columns); "
            f"at most {MAX_TABLE_CELLS:,} are allowed per file"
        )
    return None


# A table's delimiter row (`|---|:-:|`), also inside blockquotes and list items.
_DELIMITER_ROW = re.compile(r"[ \t>]*[-:|][-:| \t]*")


def _table_cells(lines: list[str]) -> int:
    """At least as many as the table cells markdown-it makes of ``lines``: for every delimiter
    row after a line with a `|`, its columns times the rows from its header to the next blank
    line. markdown-it fills every body row up to the header's width (rules_block/table.py), so
    rows of one character can each cost a thousand cells. Fenced code counts too: a fence line
    can be a table's header for markdown-it, whose table rule runs first."""
    cells = 0
    rows = 0  # non-blank lines from the one after the current line to the next blank one
    for i in range(len(lines) - 1, 0, -1):
        line = lines[i]
        if not line.strip():
            rows = 0
            continue
        if "|" in lines[i - 1] and "-" in line and _DELIMITER_ROW.fullmatch(line):
            columns = sum("-" in part for part in line.split("|"))  # each is `:?-+:?`
            cells += columns * (1 + rows)
        rows += 1
    return cells


@dataclass
class _Settings:
    """Mutable accumulator for one file while the precedence layers are applied."""

    strategy: Strategy
    metadata: dict[str, str]
    title: str | None = None
    problems: list[tuple[int | None, str]] = field(default_factory=list)


def _apply_inline_hint(body: str, settings: _Settings) -> None:
    chosen = None
    for line, payload in find_inline_hints(body):
        value, problem = load_json(payload)
        if problem is not None:
            where = line + (problem.line or 1) - 1  # the payload starts on the hint's line
            settings.problems.append((where, f"inline mcp_chunking_hint: {problem.message}"))
            continue
        chunk_by, msg = _chunk_by_from_hint(value)
        if msg:
            settings.problems.append((line, f"inline mcp_chunking_hint: {msg}"))
        elif chosen is None:  # the first hint wins; later ones are still checked
            chosen = chunk_by
    if chosen is not None:
        settings.strategy = Strategy(
            chosen, settings.strategy.max_chunk_size, settings.strategy.min_chunk_size
        )


def _frontmatter_metadata(fm: Frontmatter, name: str, settings: _Settings) -> None:
    raw = fm.data[name]
    if not isinstance(raw, Mapping):
        settings.problems.append(
            (fm.line_of(name), f"frontmatter {name} must be a mapping, got {type(raw).__name__}")
        )
        return
    for key, value in raw.items():
        if msg := _metadata_entry_problem(key, value, what=name):
            settings.problems.append((fm.line_of(name, str(key)), msg))
        else:
            settings.metadata[key] = value.strip()


def _apply_frontmatter(fm: Frontmatter, settings: _Settings) -> None:
    data = fm.data
    if "title" in data and data["title"] is not None:
        title = data["title"]
        # Docusaurus accepts `title: 2024`; a number is still clearly meant as a title.
        if isinstance(title, (int, float)) and not isinstance(title, bool):
            title = str(title)
        if isinstance(title, str):
            settings.title = title.strip() or None
        else:
            msg = f"frontmatter title must be a string, got {type(title).__name__}"
            settings.problems.append((fm.line_of("title"), msg))
    if "mcp_strategy" in data:
        errors = schema_errors(data["mcp_strategy"], "strategy")
        for where, msg in errors:
            line = fm.line_of("mcp_strategy", *where[2:].split(".")[:1])
            settings.problems.append((line, f"frontmatter mcp_strategy{where[1:]}: {msg}"))
        if not errors:
            strategy = _strategy_from(data["mcp_strategy"])
            if msg := _size_problem(strategy):
                settings.problems.append((fm.line_of("mcp_strategy"), f"frontmatter {msg}"))
            settings.strategy = strategy
    if "mcp_chunking_hint" in data:
        chunk_by, msg = _chunk_by_from_hint(data["mcp_chunking_hint"])
        if msg:
            line = fm.line_of("mcp_chunking_hint")
            settings.problems.append((line, f"frontmatter mcp_chunking_hint: {msg}"))
        else:
            s = settings.strategy
            settings.strategy = Strategy(chunk_by, s.max_chunk_size, s.min_chunk_size)
    # mcp_metadata is applied last so that it wins over plain metadata.
    for name in ("metadata", "mcp_metadata"):
        if name in data:
            _frontmatter_metadata(fm, name, settings)


def load_file(
    docs_dir: Path, path: str, manifest: Manifest | None, roots: Sequence[Path] | None = None
) -> tuple[SourceFile | None, list[Problem]]:
    """Read one markdown file (only inside ``roots``, default the docs dir) and resolve its
    strategy and metadata."""
    roots = source_roots(docs_dir) if roots is None else roots
    text, problem = _read_text(docs_dir, path, roots)
    if text is None:
        return None, [problem] if problem else []
    return configure_file(path, text, manifest)


def configure_file(
    path: str,
    text: str,
    manifest: Manifest | None,
    *,
    frontmatter: bool = True,
    title: str | None = None,
) -> tuple[SourceFile, list[Problem]]:
    """Resolve the strategy and metadata of a file's text. A page of an llms-full.txt has no
    frontmatter (``frontmatter=False``) and may have a ``title`` of its own."""
    fm = split_frontmatter(text) if frontmatter else Frontmatter({}, text)
    settings = _Settings(
        strategy=manifest.strategy if manifest else Strategy(),
        metadata=dict(manifest.metadata) if manifest else {},
        title=title,
        problems=list(fm.problems),
    )
    if manifest:
        relative = _relative_to(path, manifest.folder)
        for override in manifest.overrides:
            if glob_match(override.pattern, relative):
                if override.strategy is not None:  # a strategy replaces, metadata merges
                    settings.strategy = override.strategy
                settings.metadata.update(override.metadata)
    _apply_inline_hint(fm.body, settings)
    _apply_frontmatter(fm, settings)
    source = SourceFile(
        path=path,
        text=text,
        body=fm.body,
        strategy=settings.strategy,
        metadata=tuple(sorted(settings.metadata.items())),
        title=settings.title,
        manifest=manifest.path if manifest else None,
        frontmatter=frontmatter_json(fm.data),
    )
    return source, [Problem(path, line, msg) for line, msg in settings.problems]


def frontmatter_json(data: object) -> str:
    """Frontmatter as canonical JSON; values JSON lacks (dates, sets) become their str()."""
    if not isinstance(data, dict) or not data:
        return "{}"
    return json.dumps(_plain(data), sort_keys=True, ensure_ascii=False, allow_nan=False)


def _plain(value: object) -> object:
    # YAML allows non-string keys (`1: x`), NaN and dates; JSON objects need string keys.
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return str(value)


# --- corpus ----------------------------------------------------------------------------------


def _taxonomy(
    manifests: Sequence[Manifest], files: Sequence[SourceFile]
) -> tuple[dict[str, TaxonomyKey], list[Problem]]:
    merged: dict[str, TaxonomyKey] = {}
    described_in: dict[str, str] = {}  # key -> manifest that gave its description
    problems = []
    for manifest in manifests:
        for key, cfg in manifest.taxonomy.items():
            prev = merged.get(key, TaxonomyKey())
            description = prev.description
            if cfg.description is not None:
                if description is None:
                    description = cfg.description
                    described_in[key] = manifest.path
                elif cfg.description != description:
                    problems.append(
                        Problem(
                            manifest.path,
                            None,
                            f"taxonomy key {key!r}: description {_quote(cfg.description)} "
                            f"conflicts with {_quote(description)} in {described_in[key]}",
                        )
                    )
            include = prev.auto_include
            if cfg.auto_include is not None:  # declarations merge, value lists included
                include = dict(include or {})
                for other, values in cfg.auto_include.items():
                    include[other] = tuple(dict.fromkeys((*include.get(other, ()), *values)))
            merged[key] = TaxonomyKey(
                description, prev.vector_collapse or cfg.vector_collapse, include
            )
    for source in files:
        for key, _ in source.metadata:
            merged.setdefault(key, TaxonomyKey())
    return dict(sorted(merged.items())), problems


def _refuse(entry: Entry, problems: list[Problem]) -> None:
    """A Problem for a refused entry; a warning for one skipped (a FIFO, socket or device is
    not documentation, but never worth failing a build)."""
    if entry.skip:
        log.warning("%s: skipped, it is %s", shown(entry.path), entry.skip)
    elif entry.refusal:
        problems.append(Problem(shown(entry.path), None, entry.refusal))


def _instructions(manifests: Sequence[Manifest]) -> str | None:
    root = next((m for m in manifests if m.folder == ""), None)
    if root is not None and root.instructions is not None:
        return root.instructions
    return next((m.instructions for m in manifests if m.instructions is not None), None)


def _flag_problems(include: Sequence[str], exclude: Sequence[str]) -> list[Problem]:
    return [
        Problem(".", None, f"{flag} {_quote(pattern)} {msg}")
        for flag, patterns in (("--include", include), ("--exclude", exclude))
        for pattern in patterns
        if (msg := glob_problem(pattern))
    ]


def _left_out(
    path: str, manifests: Mapping[str, Manifest], include: Sequence[str], exclude: Sequence[str]
) -> bool:
    """Whether the globs (the flags', then the governing manifest's) leave a file out."""
    if not selected(path, include, exclude):
        return True
    manifest = _governing(manifests, path)
    relative = _relative_to(path, manifest.folder) if manifest else path
    return manifest is not None and not selected(relative, manifest.include, manifest.exclude)


# A name no file can have: an exclude glob that matches `folder/<it>` (`folder/**`,
# `folder/*`) matches whatever the folder holds.
_ANY_CHILD = "\x00"


def _folder_left_out(path: str, manifests: Mapping[str, Manifest], exclude: Sequence[str]) -> bool:
    """Whether exclude globs (the flags', the governing manifest's) leave out all of a folder."""
    manifest = _governing(manifests, path)
    relative = _relative_to(path, manifest.folder) if manifest else path
    globs = [(exclude, path)]
    if manifest is not None:
        globs.append((manifest.exclude, relative))
    return any(
        matches_any(patterns, folder) or matches_any(patterns, f"{folder}/{_ANY_CHILD}")
        for patterns, folder in globs
    )


def _load_llms_full(
    docs_dir: Path,
    path: str,
    roots: Sequence[Path],
    manifests: Mapping[str, Manifest],
    include: Sequence[str],
    exclude: Sequence[str],
) -> tuple[list[SourceFile], list[Problem]]:
    """The pages of an llms-full.txt (read under the limits of any markdown file), each at
    ``path/NAME`` (llms.py), configured like a file there and selected by the globs."""
    text, problem = _read_text(docs_dir, path, roots)
    if text is None:
        return [], [problem] if problem else []
    files, problems = [], []
    for page in split_llms_full(text):
        page_path = f"{path}/{page.name}"
        if _left_out(page_path, manifests, include, exclude):
            continue
        source, found = configure_file(
            page_path,
            page.text,
            _governing(manifests, page_path),
            frontmatter=False,
            title=page.title,
        )
        files.append(source)
        problems.extend(found)
    return files, problems


def load_corpus(
    docs_dir: Path,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    extra_roots: Sequence[Path] = (),
    pdf: PdfOptions | None = None,
    reuse: Callable[[str, Manifest | None], SourceFile | None] | None = None,
) -> Corpus:
    """Discover, read and configure every markdown file under ``docs_dir``.

    ``reuse(path, governing manifest)`` may give a file as an earlier build read it (without
    its text: known_files.py), which is then not read.

    ``include``/``exclude`` are globs relative to docs_dir. Files are read only inside the
    source roots: docs_dir and ``extra_roots``. Raises FileNotFoundError only if docs_dir is
    not a directory; everything else ends up in ``Corpus.problems``.
    """
    docs_dir = Path(docs_dir)
    if not docs_dir.is_dir():
        raise FileNotFoundError(f"docs directory not found (or not a directory): {docs_dir}")
    problems = _flag_problems(include, exclude)
    if problems:
        return Corpus((), {}, None, tuple(problems))
    roots = source_roots(docs_dir, extra_roots)
    listing = scan(docs_dir, extra_roots)
    manifests: dict[str, Manifest] = {}
    for entry in listing.manifests:
        if entry.skip or entry.refusal:
            _refuse(entry, problems)
            continue
        manifest, found = load_manifest(docs_dir, entry.path, roots)
        manifests[manifest.folder] = manifest
        problems.extend(found)
    for entry in listing.folders:
        if not _folder_left_out(entry.path, manifests, exclude):
            _refuse(entry, problems)
    files = []
    pdfs: list[PdfSummary] = []
    # A saved HTML site is read only when the folder has no markdown or reST sources.
    sources = any(not is_html(e.path) for e in listing.markdown)
    for entry in listing.markdown:
        if is_html(entry.path) and (sources or is_generated_page(entry.path)):
            continue
        if _left_out(entry.path, manifests, include, exclude):
            continue
        if entry.skip or entry.refusal:
            _refuse(entry, problems)
            continue
        if is_pdf(entry.path):
            from docsmcp.pdf_source import load_pdf  # imports this module

            source, found, summary = load_pdf(
                docs_dir, entry.path, _governing(manifests, entry.path), roots, pdf
            )
            problems.extend(found)
            if summary is not None:
                pdfs.append(summary)
            if source is not None:
                files.append(source)
            continue
        if is_llms_full(entry.path):
            pages, found = _load_llms_full(docs_dir, entry.path, roots, manifests, include, exclude)
            problems.extend(found)
            files.extend(pages)
            continue
        governing = _governing(manifests, entry.path)
        if reuse is not None and (known := reuse(entry.path, governing)) is not None:
            files.append(known)
            continue
        source, found = load_file(docs_dir, entry.path, governing, roots)
        problems.extend(found)
        if source is not None:
            files.append(includes.resolve(docs_dir, source, roots))
    ordered = sorted(manifests.values(), key=lambda m: m.path)
    taxonomy, found = _taxonomy(ordered, files)
    problems.extend(found)
    # Stable sort: a file's problems stay in the order they were found within one line.
    problems.sort(key=lambda p: (p.path, p.line or 0))
    return Corpus(
        files=tuple(sorted(files, key=lambda f: f.path)),
        taxonomy=taxonomy,
        instructions=_instructions(ordered),
        problems=tuple(problems),
        pdfs=tuple(pdfs),
    )
