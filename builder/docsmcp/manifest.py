"""Load a docs folder into a Corpus: files, their chunking strategy and metadata, and problems.

Precedence for one file, lowest first: defaults < governing manifest (the nearest
``.docs-mcp.json`` up the tree; never merged with its parents) < its matching overrides, top
to bottom < the first inline ``<!-- mcp_chunking_hint: {...} -->`` outside code fences <
frontmatter. Nothing here raises on bad input: every problem is collected, so an author sees
all of them at once, and a build refuses when there is any.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from docsmcp.discover import discover, find_manifests, glob_match, selected
from docsmcp.frontmatter import Frontmatter, find_inline_hints, split_frontmatter

CHUNK_BY_VALUES = ("h1", "h2", "h3", "file")
METADATA_KEY_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
MAX_METADATA_VALUE = 128
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Strategy:
    chunk_by: str = "h2"  # "h1" | "h2" | "h3" | "file"
    # Characters; None = the build's default: 20000, or less when an embedding provider's
    # context window is smaller (so chunks are not cut when embedded).
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


@dataclass(frozen=True)
class Corpus:
    files: tuple[SourceFile, ...]  # sorted by path
    taxonomy: dict[str, TaxonomyKey]  # keys sorted
    instructions: str | None
    problems: tuple[Problem, ...]


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
    return ", ".join(repr(v) for v in values)


def _error_message(error: jsonschema.ValidationError) -> str:
    # jsonschema's enum/const wording shows Python lists; this names the allowed values.
    if error.validator == "enum":
        return f"{error.instance!r} is not one of {_one_of(error.validator_value)}"
    if error.validator == "const":
        return f"{error.instance!r} is not allowed, expected {error.validator_value!r}"
    return error.message


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
        return f"{what} key {key!r} must be 1-64 characters of A-Z a-z 0-9 _ . -"
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


def load_manifest(docs_dir: Path, path: str) -> tuple[Manifest, list[Problem]]:
    """Read and validate the manifest at ``path`` (relative to docs_dir)."""
    folder = path.rpartition("/")[0]
    empty = Manifest(path=path, folder=folder)
    try:
        raw = (Path(docs_dir) / path).read_bytes()
    except OSError as exc:
        return empty, [Problem(path, None, f"cannot read manifest: {exc.strerror}")]
    try:
        text = raw.removeprefix(_BOM).decode("utf-8")
    except UnicodeDecodeError as exc:
        return empty, [Problem(path, None, f"not valid UTF-8 at byte {exc.start}")]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return empty, [Problem(path, exc.lineno, f"invalid JSON: {exc.msg} (column {exc.colno})")]
    errors = schema_errors(data)
    if errors:
        return empty, [Problem(path, None, f"{where}: {msg}") for where, msg in errors]
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
        extra = sorted(str(k) for k in value if k != "chunk_by")
        if extra:
            return None, f"only chunk_by can be set, unexpected {_one_of(extra)}"
        if "chunk_by" not in value:
            return None, "chunk_by is missing"
        value = value["chunk_by"]
    if value not in CHUNK_BY_VALUES or not isinstance(value, str):
        return None, f"{value!r} is not one of {_one_of(CHUNK_BY_VALUES)}"
    return value, None


def _read_text(docs_dir: Path, path: str) -> tuple[str | None, Problem | None]:
    try:
        raw = (docs_dir / path).read_bytes()
    except OSError as exc:
        return None, Problem(path, None, f"cannot read file: {exc.strerror}")
    # Offsets are reported in the file as stored, BOM included.
    offset = len(_BOM) if raw.startswith(_BOM) else 0
    try:
        text = raw[offset:].decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: offset + exc.start].count(b"\n") + 1
        return None, Problem(path, line, f"not valid UTF-8 at byte {offset + exc.start}")
    return text.replace("\r\n", "\n").replace("\r", "\n"), None


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
        try:
            value = json.loads(payload)
        except json.JSONDecodeError as exc:
            settings.problems.append((line, f"inline mcp_chunking_hint: invalid JSON: {exc.msg}"))
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
    docs_dir: Path, path: str, manifest: Manifest | None
) -> tuple[SourceFile | None, list[Problem]]:
    """Read one markdown file and resolve its strategy and metadata."""
    text, problem = _read_text(docs_dir, path)
    if text is None:
        return None, [problem] if problem else []
    fm = split_frontmatter(text)
    settings = _Settings(
        strategy=manifest.strategy if manifest else Strategy(),
        metadata=dict(manifest.metadata) if manifest else {},
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
    )
    return source, [Problem(path, line, msg) for line, msg in settings.problems]


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
                            f"taxonomy key {key!r}: description {cfg.description!r} conflicts "
                            f"with {description!r} in {described_in[key]}",
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


def _instructions(manifests: Sequence[Manifest]) -> str | None:
    root = next((m for m in manifests if m.folder == ""), None)
    if root is not None and root.instructions is not None:
        return root.instructions
    return next((m.instructions for m in manifests if m.instructions is not None), None)


def load_corpus(docs_dir: Path, include: Sequence[str] = (), exclude: Sequence[str] = ()) -> Corpus:
    """Discover, read and configure every markdown file under ``docs_dir``.

    ``include``/``exclude`` are globs relative to docs_dir. Raises FileNotFoundError only if
    docs_dir is not a directory; everything else ends up in ``Corpus.problems``.
    """
    docs_dir = Path(docs_dir)
    if not docs_dir.is_dir():
        raise FileNotFoundError(f"docs directory not found (or not a directory): {docs_dir}")
    problems: list[Problem] = []
    manifests: dict[str, Manifest] = {}
    for path in find_manifests(docs_dir):
        manifest, found = load_manifest(docs_dir, path)
        manifests[manifest.folder] = manifest
        problems.extend(found)
    files = []
    for path in discover(docs_dir, include, exclude):
        manifest = _governing(manifests, path)
        if manifest is not None and not selected(
            _relative_to(path, manifest.folder), manifest.include, manifest.exclude
        ):
            continue
        source, found = load_file(docs_dir, path, manifest)
        problems.extend(found)
        if source is not None:
            files.append(source)
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
    )
