"""The build pipeline: discover → parse → chunk → index → write."""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from docsmcp_runtime.analyzer import AnalyzerConfig
from docsmcp_runtime.tools import default_tool_descriptions

from . import __version__
from .chunk import Chunk, chunk_file
from .index import LexicalParams, build_index
from .manifest import Corpus, Problem, load_corpus
from .write import write_bundle


@dataclass(frozen=True)
class BuildOptions:
    docs_dir: Path
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    name: str | None = None
    description: str | None = None
    instructions: str | None = None
    search_description: str | None = None
    get_doc_description: str | None = None
    analyzer: AnalyzerConfig = field(default_factory=AnalyzerConfig)
    lexical: LexicalParams = field(default_factory=LexicalParams)


@dataclass(frozen=True)
class Collected:
    corpus: Corpus
    chunks: list[Chunk]
    problems: list[Problem]


class BuildError(Exception):
    """The docs cannot be built; `problems` lists every reason."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems


def collect(options: BuildOptions) -> Collected:
    """Load and chunk the corpus, gathering every problem a build would reject."""
    corpus = load_corpus(options.docs_dir, options.include, options.exclude)
    problems = list(corpus.problems)
    chunks: list[Chunk] = []
    seen: dict[str, str] = {}
    for sf in corpus.files:
        for c in chunk_file(sf):
            if c.id in seen:
                problems.append(
                    Problem(
                        sf.path, c.line_start, f"duplicate chunk id {c.id!r} (also in {seen[c.id]})"
                    )
                )
                continue
            seen[c.id] = sf.path
            chunks.append(c)
    if not corpus.files and not problems:
        problems.append(
            Problem(".", None, "no .md or .mdx files found (check --include/--exclude)")
        )
    return Collected(corpus, chunks, problems)


def source_commit(docs_dir: Path) -> str | None:
    try:
        res = subprocess.run(
            ["git", "-C", str(docs_dir), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout.strip() if res.returncode == 0 and res.stdout.strip() else None


def taxonomy_json(corpus: Corpus, chunks: list[Chunk]) -> dict:
    values: dict[str, set[str]] = {k: set() for k in corpus.taxonomy}
    for c in chunks:
        for k, v in c.metadata:
            values.setdefault(k, set()).add(v)
    out = {}
    for key in sorted(values):
        cfg = corpus.taxonomy.get(key)
        out[key] = {
            "description": (
                cfg.description if cfg and cfg.description else f"Filter results by {key}."
            ),
            "vector_collapse": bool(cfg and cfg.vector_collapse),
            "values": sorted(values[key]),
        }
    return out


def describe(name: str, corpus: Corpus, taxonomy: dict) -> str:
    facets = "; ".join(f"{k}: {', '.join(v['values'])}" for k, v in taxonomy.items() if v["values"])
    text = f"{name} documentation ({len(corpus.files)} pages"
    return text + (f"; {facets})" if facets else ")")


def build(options: BuildOptions, out: Path) -> dict:
    """Build a bundle at `out`; raise BuildError listing every problem, leaving `out` untouched."""
    started = time.perf_counter()
    collected = collect(options)
    if collected.problems:
        raise BuildError(collected.problems)
    corpus, chunks = collected.corpus, collected.chunks
    index = build_index(chunks, options.analyzer, options.lexical)
    taxonomy = taxonomy_json(corpus, chunks)
    name = options.name or options.docs_dir.resolve().name
    description = options.description or describe(name, corpus, taxonomy)
    tools = default_tool_descriptions(description)
    if options.search_description:
        tools["search_docs"]["description"] = options.search_description
    if options.get_doc_description:
        tools["get_doc"]["description"] = options.get_doc_description
    corpus_bytes = sum(len(sf.text.encode()) for sf in corpus.files)
    metadata = {
        "name": name,
        "description": description,
        "instructions": options.instructions or corpus.instructions,
        "tools": tools,
        "taxonomy": taxonomy,
        "analyzer": options.analyzer.to_json(),
        "lexical": options.lexical.to_json(),
        "embedding": None,
        "source": {"commit": source_commit(options.docs_dir)},
        "build": {"builder": f"docsmcp {__version__}"},
        "stats": {
            "files": len(corpus.files),
            "chunks": len(chunks),
            "corpus_bytes": corpus_bytes,
            "terms": int(len(index.term_offsets) - 1),
            "postings": int(len(index.postings_docs)),
        },
    }
    final = write_bundle(out, chunks, index, metadata)
    final["_seconds"] = time.perf_counter() - started
    return final
