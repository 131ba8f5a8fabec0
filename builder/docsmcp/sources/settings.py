"""One file's settings: its text read within the limits (HTML and table checks included), then its
strategy and metadata resolved from the governing manifest, overrides, inline hints and frontmatter
(`load_file`, `configure_file`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docsmcp.common.limits import (
    MAX_FILE_BYTES,
    MAX_FILE_LINES,
    MAX_HTML_BYTES,
    MAX_TABLE_CELLS,
)
from docsmcp.model.source import Manifest, Problem, SourceFile, Strategy
from docsmcp.sources.discover import glob_match
from docsmcp.sources.files import Refused, is_html, leave_out, not_utf8, read_file, source_roots
from docsmcp.sources.frontmatter import Frontmatter, find_inline_hints, split_frontmatter
from docsmcp.sources.layout.translations import localized
from docsmcp.sources.manifest import (
    _BOM,
    CHUNK_BY_VALUES,
    _clip,
    _metadata_entry_problem,
    _one_of,
    _quote,
    _relative_to,
    _size_problem,
    _strategy_from,
    load_json,
    schema_errors,
)
from docsmcp.sources.roles import ROLE_KEY, ROLES, classify


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


# Embedded `data:` URIs (base64 images pasted into a page, notebooks saved as markdown): no
# reader sees their characters, and a page of them went over the size limit or made a chunk
# of 600,000 characters (LangChain's integration pages). Dropped at read time (the URL becomes
# empty: `![Diagram]()`); a file over the limit is read when it is under it without them, up to
# EMBEDDED_FACTOR times the limit.
_DATA_URI = re.compile(r"data:[\w.+-]+/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,[A-Za-z0-9+/=]{64,}")
EMBEDDED_FACTOR = 8


def read_page_text(
    docs_dir: Path, path: str, roots: Sequence[Path]
) -> tuple[str | None, Problem | None]:
    """A page's text as the build reads it (UTF-8 without its BOM, or an HTML page's declared
    encoding; newlines as `\n`; data URIs and invisible characters out), or the Problem that
    says why it cannot be read (the package readers read their own files' text so too)."""
    limit = MAX_HTML_BYTES if is_html(path) else MAX_FILE_BYTES
    try:
        raw = read_file(docs_dir, path, roots, limit)
    except Refused as exc:
        raw = _under_limit_without_data(docs_dir, path, roots, limit)
        if raw is None:
            return None, Problem(path, None, f"file {exc}")
    except OSError as exc:
        return None, Problem(path, None, f"cannot read file: {exc.strerror}; {leave_out(path)}")
    # Offsets are reported in the file as stored, BOM included.
    offset = len(_BOM) if raw.startswith(_BOM) else 0
    try:
        text = raw[offset:].decode("utf-8")
    except UnicodeDecodeError as exc:
        text = _declared_html(raw) if is_html(path) else None
        if text is None:
            line, message = not_utf8(raw, offset + exc.start)
            return None, Problem(path, line, f"{message}; save it as UTF-8 or {leave_out(path)}")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "base64," in text:
        text = _DATA_URI.sub("", text)
    if _INVISIBLE.search(text):
        text = _INVISIBLE.sub("", text)
    if not is_html(path) and (message := _structure_problem(text)):
        return None, Problem(path, None, f"{message}; split it or leave it out")
    return text, None


def _under_limit_without_data(
    docs_dir: Path, path: str, roots: Sequence[Path], limit: int
) -> bytes | None:
    """The file over `limit` bytes whose text is within it once its `data:` URIs go (read up to
    EMBEDDED_FACTOR times the limit), else None."""
    try:
        raw = read_file(docs_dir, path, roots, limit * EMBEDDED_FACTOR)
    except (Refused, OSError):
        return None
    if b"base64," not in raw:
        return None
    return raw if len(_DATA_URI.sub("", raw.decode("utf-8", "replace"))) <= limit else None


# Characters no reader of the rendered page sees, dropped from every text source (bundle-spec.md,
# *`chunks.parquet`*): Unicode tag characters (U+E0000-E007F, text smuggled past a human
# reader), bidi embeddings, overrides and isolates (they only reorder what is shown, and can make
# it differ from what is there), zero-width space, word joiner and a BOM inside the text (they
# split words an agent searches for). Zero-width joiners and non-joiners stay: scripts and
# emoji need them to render.
_INVISIBLE = re.compile("[\u200b\u2060\ufeff\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")


# An Agent Skill (agentskills.io): its frontmatter `metadata` is the skill's own. A skill is a
# SKILL.md, or a page whose frontmatter has the format's two required fields, `description` and
# a `name` as the format spells it (1-64 lower-case letters, digits and single hyphens): GitBook
# publishes its six skills as pages named for them (`configure-site.md`).
SKILL_FILE = "skill.md"
_SKILL_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")

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


# Frontmatter keys a site shows as the page's title when it has no `title` (Radix: `metaTitle`;
# its 56 component pages were titled by their first heading, "API Reference").
_OTHER_TITLES = ("metaTitle", "meta_title")


def _apply_frontmatter(fm: Frontmatter, settings: _Settings, path: str = "") -> None:
    data = fm.data
    if data.get("title") is None:
        other = next((k for k in _OTHER_TITLES if isinstance(data.get(k), str)), None)
        if other is not None and data[other].strip():
            settings.title = data[other].strip()
    if "title" in data and data["title"] is not None:
        title = data["title"]
        # Docusaurus accepts `title: 2024`; a number is still clearly meant as a title.
        if isinstance(title, (int, float)) and not isinstance(title, bool):
            title = str(title)
        if isinstance(title, dict) and (text := localized(title, path)) is not None:
            title = text  # one per language (dumi's demos): the page's language's
        elif isinstance(title, (dict, list)) and (written := fm.written("title")) is not None:
            title = written  # `title: {let/const ...}` (Svelte): text to the site, not a mapping
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
    # mcp_metadata is applied last so that it wins over plain metadata. An Agent Skill's
    # `metadata` (SKILL.md: `author`, `version` of the skill) describes the skill, not the docs:
    # as filters, Mintlify's three skills made a `version` key of one value, "1.0".
    skill = path.rpartition("/")[2].lower() == SKILL_FILE or _is_skill(data)
    for name in ("mcp_metadata",) if skill else ("metadata", "mcp_metadata"):
        if name in data:
            _frontmatter_metadata(fm, name, settings)


def _is_skill(data: Mapping[str, Any]) -> bool:
    """Whether frontmatter `data` is an Agent Skill's (SKILL_FILE)."""
    name, description = data.get("name"), data.get("description")
    return (
        isinstance(name, str)
        and len(name) <= 64
        and _SKILL_NAME.fullmatch(name) is not None
        and isinstance(description, str)
    )


def load_file(
    docs_dir: Path, path: str, manifest: Manifest | None, roots: Sequence[Path] | None = None
) -> tuple[SourceFile | None, list[Problem]]:
    """Read one markdown file (only inside ``roots``, default the docs dir) and resolve its
    strategy and metadata."""
    roots = source_roots(docs_dir) if roots is None else roots
    text, problem = read_page_text(docs_dir, path, roots)
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
    _apply_frontmatter(fm, settings, path)
    # Every page has a role (bundle-spec.md, *Page roles*): the one a manifest or the
    # frontmatter gives (checked against the vocabulary where it was written), else its own.
    role = settings.metadata.get(ROLE_KEY, "").lower()
    if role not in ROLES:
        data = fm.data if isinstance(fm.data, Mapping) else {}
        role = classify(path, settings.title, data, fm.body)
    settings.metadata[ROLE_KEY] = role
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
