"""`metadata.json` as frozen dataclasses, one per section, each with `from_json`/`to_json`
(bundle-spec.md, *`metadata.json`*). Every default of the format lives here, in ranking.py (the
sections that say how the bundle ranks) and in files.py (the `files` section).

Reading is strict for the keys this version knows (types, finite numbers, sorted lists, the
bundle id formula) and ignores keys it does not know, so a newer builder may add keys that older
readers skip. A feature a reader must understand to serve correct results is named in
`requires`; a reader refuses a bundle requiring a feature it does not know.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, field, fields
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit, urlunsplit

from ..records import record
from . import jsonread as j
from .features import (
    AUTO_INCLUDE,
    DISPLAY_DICTIONARY,
    IMPACT_CODES,
    INCLUDE_UNSET,
    KNOWN_FEATURES,
    NARROW_INDEX,
)
from .files import FileEntry, coded_files, narrow_files, parse_files
from .jsonread import MetadataError
from .layout import (
    DICTIONARY_ARRAYS,
    FORMAT,
    FORMAT_VERSION,
    IMPACT_ARRAYS,
    MAX_TAXONOMY_VALUES,
    bundle_id,
)
from .ranking import AnalyzerConfig, Embedding, LexicalParams

if TYPE_CHECKING:
    from .rescore import Rescore


def _announced(
    files: Mapping[str, FileEntry],
    stored: list[str],
    feature: str,
    requires: tuple[str, ...],
    kind: str = "",
) -> None:
    """MetadataError unless `requires` names `feature` when files are `stored` in the form
    only it describes: an older reader must refuse such a bundle by the feature's name, not
    misread it."""
    if stored and feature not in requires:
        raise MetadataError(
            "requires",
            f"{stored[0]} is stored as {files[stored[0]].dtype}{kind}, which needs "
            f"{feature!r} in requires",
        )


def known_requires(data: Mapping[str, Any]) -> tuple[str, ...]:
    """`requires` of a decoded metadata.json whose format and version were checked: the
    features, or MetadataError naming those this reader does not know. Checked before anything
    else (bundle-spec.md, *`metadata.json`*): a newer layout must be refused by its feature's
    name, not by the first file entry this reader would misjudge."""
    requires = j.optional(data, "requires", "", j.strings, ())
    unknown = [f for f in requires if f not in KNOWN_FEATURES]
    if unknown:
        raise MetadataError(
            "requires",
            f"the bundle requires feature(s) this reader does not know: {', '.join(unknown)} "
            "(upgrade docsmcp-runtime)",
        )
    return requires


# Taxonomy keys and values (as in manifests): keys are filters, so they stay identifier-like.
TAXONOMY_KEY = re.compile(r"[A-Za-z0-9_.-]{1,64}")
MAX_VALUE_CHARS = 128
# A taxonomy entry's `folders` (bundle-spec.md, *Versions and variants*): the folders holding
# each value, at most this many per value (a version's docs and its API folder: Express's
# `api/4x/` and `docs/en/4x/`), each a relative POSIX path of at most MAX_FOLDER_CHARS.
MAX_VALUE_FOLDERS = 64
MAX_FOLDER_CHARS = 1024
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


# -- sections -------------------------------------------------------------------------------------


@record
class ToolTexts:
    """`tools`: the description of each tool, by tool name."""

    descriptions: Mapping[str, str]

    REQUIRED = ("search_docs", "get_doc")

    @classmethod
    def defaults(cls, corpus_description: str) -> ToolTexts:
        """What the builder writes unless told otherwise (`--tool-description-*`)."""
        return cls(
            {
                "search_docs": (
                    f"Search {corpus_description}: the authoritative reference for this "
                    "documentation set, with API docs, code examples and guides. Use exact "
                    "identifiers (method, class, error names) or describe the task in a few "
                    "words; apply the filters to narrow results. Returns ranked sections; read "
                    "one in full with get_doc."
                ),
                "get_doc": (
                    "Retrieve the full markdown of a documentation section by its chunk_id (as "
                    "returned by search_docs). Sections are self-contained: leave context at 0 "
                    "on the first read; use context 1-3 only when the section refers to "
                    "adjacent ones."
                ),
            }
        )

    def to_json(self) -> dict:
        return {name: {"description": text} for name, text in self.descriptions.items()}

    @classmethod
    def from_json(cls, value: object, path: str = "tools") -> ToolTexts:
        data = j.obj(value, path)
        out = {}
        for name, entry in data.items():
            where = j.join(path, name)
            out[name] = j.field(j.obj(entry, where), "description", where, j.nonempty)
        for name in cls.REQUIRED:
            if name not in out:
                raise MetadataError(path, f"missing key {name!r}")
        return cls(out)


@record
class TaxonomyKey:
    """One filterable metadata key.

    `auto_include` maps other keys to values that stay visible when this key is filtered and
    the other key is not (e.g. filtering `language` keeps `scope = global-guide` pages).
    `include_unset`: a filter on this key also keeps the rows without a value for it (a corpus
    whose only `language` values are its code tabs: the other pages apply to every language).
    """

    description: str
    vector_collapse: bool = False
    values: tuple[str, ...] = ()
    auto_include: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    include_unset: bool = False
    # The latest released value (key `version`): search's default version (search/versions.py).
    latest: str | None = None
    # Another key's value searched by default, other values folded into `also_in` (a
    # framework's or platform's variant folders: search/versions.py).
    default: str | None = None
    # value -> the folders holding it (Jest's `next`: `docs`; 30.4:
    # `website/versioned_docs/version-30.4`), so search finds one section's copies across
    # values whose folders are not named as the value (search/versions.py).
    folders: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def code(self, value: str) -> int:
        """The facet code of `value` (1-based; 0 means no value); ValueError if unknown."""
        return self.values.index(value) + 1

    def to_json(self) -> dict:
        out: dict[str, Any] = {
            "description": self.description,
            "vector_collapse": self.vector_collapse,
            "values": list(self.values),
        }
        if self.auto_include:  # written only when used, so other bundles keep their bytes
            out["auto_include"] = {k: list(v) for k, v in self.auto_include.items()}
        if self.include_unset:
            out["include_unset"] = True
        if self.latest is not None:
            out["latest"] = self.latest
        if self.default is not None:
            out["default"] = self.default
        if self.folders:
            ordered = sorted(self.folders, key=str.encode)
            out["folders"] = {v: list(self.folders[v]) for v in ordered}
        return out

    @classmethod
    def from_json(cls, value: object, path: str) -> TaxonomyKey:
        data = j.obj(value, path)
        values = j.sorted_unique(j.field(data, "values", path, j.strings), j.join(path, "values"))
        if len(values) > MAX_TAXONOMY_VALUES:
            raise MetadataError(
                j.join(path, "values"), f"more than {MAX_TAXONOMY_VALUES} values (facet codes)"
            )
        for i, v in enumerate(values):
            if not v or len(v) > MAX_VALUE_CHARS:
                raise MetadataError(
                    j.join(j.join(path, "values"), i), f"must be 1 to {MAX_VALUE_CHARS} characters"
                )
        include = j.obj(data.get("auto_include", {}), j.join(path, "auto_include"))
        auto = {
            key: j.sorted_unique(
                j.strings(vals, j.join(j.join(path, "auto_include"), key)),
                j.join(j.join(path, "auto_include"), key),
            )
            for key, vals in include.items()
        }
        latest = j.optional(data, "latest", path, j.nonempty, None)
        if latest is not None and latest not in values:
            raise MetadataError(j.join(path, "latest"), "must be one of the key's values")
        default = j.optional(data, "default", path, j.nonempty, None)
        if default is not None and default not in values:
            raise MetadataError(j.join(path, "default"), "must be one of the key's values")
        return cls(
            description=j.field(data, "description", path, j.string),
            vector_collapse=j.field(data, "vector_collapse", path, j.boolean),
            values=values,
            auto_include=auto,
            include_unset=j.boolean(
                data.get("include_unset", False), j.join(path, "include_unset")
            ),
            latest=latest,
            default=default,
            folders=_folders(data.get("folders", {}), j.join(path, "folders"), values),
        )


def is_value_folder(folder: str) -> bool:
    """Whether `folder` may be recorded as a value's folder: a relative POSIX path of 1 to
    MAX_FOLDER_CHARS characters, no empty, `.` or `..` part, no backslash or control character."""
    return not (
        len(folder) > MAX_FOLDER_CHARS
        or "\\" in folder
        or _CONTROL.search(folder)
        or any(p in ("", ".", "..") for p in folder.split("/"))
    )


def _folders(value: object, path: str, values: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """A taxonomy entry's `folders`: value -> its folders, each value one of `values`, each
    folder a relative POSIX path (no empty, `.` or `..` part, no backslash or control
    character) listed under one value only; MetadataError naming the first fault."""
    data = j.obj(value, path)
    out: dict[str, tuple[str, ...]] = {}
    owner: dict[str, str] = {}
    for name, given in data.items():
        where = j.join(path, name)
        if name not in values:
            raise MetadataError(where, "must be one of the key's values")
        folders = j.sorted_unique(j.strings(given, where), where)
        if not folders or len(folders) > MAX_VALUE_FOLDERS:
            raise MetadataError(where, f"must list 1 to {MAX_VALUE_FOLDERS} folders")
        for i, folder in enumerate(folders):
            if not is_value_folder(folder):
                raise MetadataError(
                    j.join(where, i),
                    f"must be a relative folder path of 1 to {MAX_FOLDER_CHARS} characters "
                    "(no empty, '.' or '..' part, backslash or control character)",
                )
            if folder in owner:
                raise MetadataError(j.join(where, i), f"is also a folder of {owner[folder]!r}")
            owner[folder] = name
        out[name] = folders
    return out


@record
class Stats:
    files: int = 0
    chunks: int = 0
    corpus_bytes: int = 0
    terms: int = 0
    postings: int = 0

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, value: object, path: str = "stats") -> Stats:
        data = j.obj(value, path)
        return cls(**{f.name: j.field(data, f.name, path, j.integer) for f in fields(cls)})


# -- provenance ---------------------------------------------------------------------------------

# The placeholders a source URL template may use (bundle-spec.md, *`metadata.json`*).
URL_PLACEHOLDERS = ("commit", "path", "path_noext", "line_start", "line_end", "anchor")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def check_url_template(template: str) -> str:
    """`template` if it names only known placeholders; ValueError naming the first unknown."""
    for name in _PLACEHOLDER.findall(template):
        if name not in URL_PLACEHOLDERS:
            known = ", ".join("{" + p + "}" for p in URL_PLACEHOLDERS)
            raise ValueError(f"unknown placeholder {{{name}}}; use {known}")
    if "{" in _PLACEHOLDER.sub("", template) or "}" in _PLACEHOLDER.sub("", template):
        raise ValueError("unbalanced { or }")
    return template


@record
class Source:
    """`source`: where the docs came from. `commit` and `commit_date` come from git at build
    time (never the clock); `url` is a template a hit's link is made from. `paths`: for pages
    the build read outside the docs folder (a package `--api-source` names), their folder in
    the bundle (`lib/`) -> its path from the docs folder (`../../core/lib/`), or None where
    the package is in another repository (no link); `{path}` of such a page is the path from
    the docs folder, the link's dot segments removed (`…/site/guide/../../core/lib/x.rs` is
    `…/core/lib/x.rs`)."""

    commit: str | None = None
    commit_date: str | None = None  # ISO 8601 committer date of `commit`
    url: str | None = None
    paths: tuple[tuple[str, str | None], ...] = ()

    def to_json(self) -> dict:
        out = {"commit": self.commit, "commit_date": self.commit_date, "url": self.url}
        return {**out, "paths": dict(self.paths)} if self.paths else out

    @classmethod
    def from_json(cls, value: object, path: str = "source") -> Source:
        data = j.obj(value, path)
        url = j.optional(data, "url", path, j.string_or_null, None)
        if url is not None:
            try:
                check_url_template(url)
            except ValueError as exc:
                raise MetadataError(j.join(path, "url"), str(exc)) from None
        paths = j.optional(data, "paths", path, j.obj, {})
        for key, to in paths.items():
            where = j.join(j.join(path, "paths"), key)
            if not key.endswith("/") or "/" in key[:-1] or key.startswith("."):
                raise MetadataError(where, "must be one folder name followed by /")
            if to is not None and (not isinstance(to, str) or not to.endswith("/")):
                raise MetadataError(where, "must be a path ending in / or null")
        return cls(
            commit=j.field(data, "commit", path, j.string_or_null),
            commit_date=j.optional(data, "commit_date", path, j.string_or_null, None),
            url=url,
            paths=tuple(sorted(paths.items())),
        )

    def link(self, file: str, line_start: int, line_end: int, anchor: str) -> str | None:
        """The URL of one place in the docs, or None without a template (or without the commit
        a template asks for, or for a page of a package in another repository)."""
        if self.url is None or ("{commit}" in self.url and self.commit is None):
            return None
        prefix = next((p for p, _ in self.paths if file.startswith(p)), None)
        if prefix is not None:
            to = dict(self.paths)[prefix]
            if to is None:
                return None
            file = to + file[len(prefix) :]
        stem = file.rsplit(".", 1)[0] if "." in file.rsplit("/", 1)[-1] else file
        values = {
            "commit": self.commit or "",
            "path": quote(file, safe="/"),
            "path_noext": quote(stem, safe="/"),
            "line_start": str(line_start),
            "line_end": str(line_end),
            "anchor": quote(anchor, safe=""),
        }
        url = _PLACEHOLDER.sub(lambda m: values[m.group(1)], self.url)
        return url if prefix is None else without_dot_segments(url)


def without_dot_segments(url: str) -> str:
    """`url` with the `.` and `..` segments of its path removed (RFC 3986, 5.2.4); a `..` above
    the top is dropped."""
    parts = urlsplit(url)
    out: list[str] = []
    segments = parts.path.split("/")
    for k, segment in enumerate(segments):
        last = k == len(segments) - 1
        if segment == "..":
            if len(out) > 1:
                out.pop()
            if last:
                out.append("")
        elif segment == ".":
            if last:
                out.append("")
        else:
            out.append(segment)
    return urlunsplit(parts._replace(path="/".join(out)))


# -- the whole file -----------------------------------------------------------------------------


@record
class Metadata:
    """The parsed `metadata.json`. The builder fills `bundle_id` and `files` last (write.py)."""

    name: str
    description: str
    instructions: str | None
    tools: ToolTexts
    taxonomy: Mapping[str, TaxonomyKey]  # keys in byte order
    analyzer: AnalyzerConfig
    lexical: LexicalParams
    embedding: Embedding | None
    stats: Stats
    source: Source = Source()
    version: str | None = None  # the corpus version (`--corpus-version`)
    builder: str = ""
    bundle_id: str = ""
    files: Mapping[str, FileEntry] = field(default_factory=dict)
    requires: tuple[str, ...] = ()
    format_version: int = FORMAT_VERSION
    rescore: Rescore | None = None  # a second model that reorders the best hits (rescore.py)

    def required_features(self) -> tuple[str, ...]:
        """The `requires` list this content calls for (the builder writes it)."""
        features = set()
        if any(key.auto_include for key in self.taxonomy.values()):
            features.add(AUTO_INCLUDE)
        if any(key.include_unset for key in self.taxonomy.values()):
            features.add(INCLUDE_UNSET)
        if narrow_files(self.files):
            features.add(NARROW_INDEX)
        if coded_files(self.files):
            features.add(IMPACT_CODES)
        if DICTIONARY_ARRAYS["display_dictionary"].file in self.files:
            features.add(DISPLAY_DICTIONARY)
        if self.rescore is not None:
            features.update(self.rescore.required_features)
        return tuple(sorted(features))

    def file_digests(self) -> dict[str, str]:
        return {name: entry.sha256 for name, entry in self.files.items()}

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "format_version": self.format_version,
            "requires": list(self.requires),
            "bundle_id": self.bundle_id,
            "name": self.name,
            "description": self.description,
            "instructions": self.instructions,
            "tools": self.tools.to_json(),
            "taxonomy": {k: v.to_json() for k, v in self.taxonomy.items()},
            "analyzer": self.analyzer.to_json(),
            "lexical": self.lexical.to_json(),
            "embedding": self.embedding.to_json() if self.embedding else None,
            **({"rescore": self.rescore.to_json()} if self.rescore else {}),
            "version": self.version,
            "source": self.source.to_json(),
            "build": {"builder": self.builder},
            "stats": self.stats.to_json(),
            "files": {name: self.files[name].to_json() for name in sorted(self.files)},
        }

    @classmethod
    def from_json(cls, value: object) -> Metadata:
        """Parse and check a decoded metadata.json; raises MetadataError naming the key."""
        data = j.obj(value, "")
        marker = data.get("format")
        if marker != FORMAT:
            raise MetadataError("format", f"not a docsmcp bundle (format is not {FORMAT!r})")
        version = data.get("format_version")
        if version != FORMAT_VERSION or isinstance(version, bool) or not isinstance(version, int):
            raise MetadataError(
                "format_version",
                f"unsupported bundle format version {version!r}; this reader reads version "
                f"{FORMAT_VERSION} (upgrade docsmcp-runtime or rebuild the bundle)",
            )
        requires = known_requires(data)
        taxonomy = _taxonomy(j.field(data, "taxonomy", "", j.obj))
        embedding = j.field(data, "embedding", "", _embedding_or_null)
        files = parse_files(j.field(data, "files", "", j.obj))
        _announced(files, narrow_files(files), NARROW_INDEX, requires)
        coded = coded_files(files)
        _announced(files, coded, IMPACT_CODES, requires, " codes")
        levels = IMPACT_ARRAYS["impact_levels"].file
        if coded and levels not in files:
            raise MetadataError("files", f"{coded[0]} holds codes, but {levels} is missing")
        dictionary = DICTIONARY_ARRAYS["display_dictionary"].file
        if dictionary in files and DISPLAY_DICTIONARY not in requires:
            raise MetadataError(
                "requires", f"lists {dictionary}, which needs {DISPLAY_DICTIONARY!r} in requires"
            )
        build = j.field(data, "build", "", j.obj)
        meta = cls(
            requires=requires,
            bundle_id=j.field(data, "bundle_id", "", j.string),
            name=j.field(data, "name", "", j.nonempty),
            description=j.field(data, "description", "", j.string),
            instructions=j.field(data, "instructions", "", j.string_or_null),
            tools=j.field(data, "tools", "", ToolTexts.from_json),
            taxonomy=taxonomy,
            analyzer=j.field(data, "analyzer", "", AnalyzerConfig.from_json),
            lexical=j.field(data, "lexical", "", LexicalParams.from_json),
            embedding=embedding,
            rescore=j.optional(data, "rescore", "", _rescore_or_null, None),
            source=j.field(data, "source", "", Source.from_json),
            version=j.optional(data, "version", "", j.string_or_null, None),
            builder=j.field(build, "builder", "build", j.string),
            stats=j.field(data, "stats", "", Stats.from_json),
            files=files,
        )
        expected = bundle_id(meta.file_digests())
        if meta.bundle_id != expected:
            raise MetadataError(
                "bundle_id",
                f"{meta.bundle_id!r} is not the hash of the files' sha256 ({expected}); "
                "metadata.json was altered",
            )
        return meta


# -- helpers --------------------------------------------------------------------------------------


def _taxonomy(data: Mapping[str, Any]) -> dict[str, TaxonomyKey]:
    keys = list(data)
    j.sorted_unique(tuple(keys), "taxonomy")
    out = {}
    for key in keys:
        if not TAXONOMY_KEY.fullmatch(key):
            raise MetadataError(j.join("taxonomy", key), "invalid key name")
        out[key] = TaxonomyKey.from_json(data[key], j.join("taxonomy", key))
    for key, entry in out.items():
        for other, values in entry.auto_include.items():
            where = f"taxonomy/{key}/auto_include/{other}"
            if other == key or other not in out:
                raise MetadataError(where, "must name another taxonomy key")
            missing = [v for v in values if v not in out[other].values]
            if missing:
                raise MetadataError(where, f"values not in taxonomy/{other}: {missing}")
    return out


def _rescore_or_null(value: object, path: str) -> Rescore | None:
    # Imported by the bundles that have a rescoring model only (issue 30: start-up time).
    from .rescore import rescore_or_null

    return rescore_or_null(value, path)


def _embedding_or_null(value: object, path: str) -> Embedding | None:
    return None if value is None else Embedding.from_json(value, path)
