"""Manifests (`.docs-mcp.json`): schema validation and `load_manifest`. A file's settings are
resolved by settings.py and the whole docs folder is loaded by corpus.py, by these rules.

Precedence for one file, lowest first: defaults < governing manifest (the nearest
``.docs-mcp.json`` up the tree; never merged with its parents) < its matching overrides, top
to bottom < the first inline ``<!-- mcp_chunking_hint: {...} -->`` outside code fences <
frontmatter. Nothing here raises on bad input: every problem is collected, so an author sees
all of them at once, and a build refuses when there is any. Files are read only inside the
source roots and within the limits of limits.py (see files.read_file).
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docsmcp.common.limits import (
    MAX_JSON_DEPTH,
    MAX_JSON_INT_DIGITS,
    MAX_MANIFEST_BYTES,
)
from docsmcp.model.source import Manifest, Override, Problem, Strategy, TaxonomyKey
from docsmcp.sources.discover import glob_problem
from docsmcp.sources.files import Refused, not_utf8, read_file, source_roots
from docsmcp.sources.roles import role_problem

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
    return role_problem(key, stripped)


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
        latest = cfg.get("latest")
        if latest is not None and key != "version":
            problems.append(
                f"{_json_path(['taxonomy', key, 'latest'])}: only the key 'version' has "
                "a latest value"
            )
        default = cfg.get("default")
        if default is not None and key in ("version", "role"):
            problems.append(
                f"{_json_path(['taxonomy', key, 'default'])}: the key {key!r} has no default "
                "value" + (" (its `latest` is searched by default)" if key == "version" else "")
            )
        taxonomy[key] = TaxonomyKey(
            cfg.get("description"),
            bool(cfg.get("vector_collapse", False)),
            include,
            latest.strip() if latest is not None and key == "version" else None,
            default.strip() if default is not None and key not in ("version", "role") else None,
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
        line, message = not_utf8(raw, exc.start + (len(_BOM) if raw.startswith(_BOM) else 0))
        return empty, [Problem(path, line, f"{message}; save it as UTF-8")]
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
