"""The build and validate commands' glue: build options from the command line, a git source checked
out (or skipped when up to date), one build with its summary.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from docsmcp_runtime.format import (
    FusionWeights,
    check_url_template,
)
from docsmcp_runtime.format.rescore import MAX_DEPTH, MAX_DIMENSIONS, parse_weights

from docsmcp.bundle.write import OutputError
from docsmcp.commands.console import _err
from docsmcp.common.cache import cache_root
from docsmcp.common.progress import Progress
from docsmcp.embeddings.embed import EmbeddingOptions, ProviderError
from docsmcp.embeddings.rescore import RescoreOptions
from docsmcp.pipeline.build import build
from docsmcp.pipeline.collect import BuildError, BuildOptions, Built
from docsmcp.sources.gitsource import Checkout, record_build, up_to_date
from docsmcp.sources.pdf.extract import PdfSummary

log = logging.getLogger(__name__)


def _embedding_options(args: argparse.Namespace) -> EmbeddingOptions:
    if not hasattr(args, "embedding_provider"):
        return EmbeddingOptions()
    if args.embedding_threads < 0:
        raise ValueError(
            f"--embedding-threads must be 0 (one per core) or more, got {args.embedding_threads}"
        )
    return EmbeddingOptions(
        provider=args.embedding_provider,
        model=args.embedding_model,
        dimensions=args.embedding_dimensions,
        base_url=args.embedding_base_url,
        api_key_env=args.embedding_api_key_env,
        concurrency=args.embedding_concurrency,
        batch_size=args.embedding_batch_size,
        threads=args.embedding_threads,
        query_prompt=args.embedding_query_prompt,
        document_prompt=args.embedding_document_prompt,
    )


def _rescore_options(args: argparse.Namespace) -> RescoreOptions:
    if args.rescore_model is None:
        return RescoreOptions()
    bounds = (
        ("--rescore-dimensions", args.rescore_dimensions, 1, MAX_DIMENSIONS),
        ("--rescore-depth", args.rescore_depth, 1, MAX_DEPTH),
        ("--rescore-recall", args.rescore_recall, 0, MAX_DEPTH),
    )
    for flag, value, low, high in bounds:
        if value is not None and not low <= value <= high:
            raise ValueError(f"{flag} must be between {low} and {high}, not {value}")
    try:
        weights = parse_weights(args.rescore_weights or "")
    except ValueError as exc:
        raise ValueError(f"--rescore-weights: {exc}") from None
    return RescoreOptions(
        model=args.rescore_model,
        weights=tuple(weights.items()),
        dimensions=args.rescore_dimensions,
        depth=args.rescore_depth,
        recall=args.rescore_recall,
        quantize=not args.rescore_f32,
        query_prompt=args.rescore_query_prompt,
        document_prompt=args.rescore_document_prompt,
        threads=args.embedding_threads,
    )


def _options(args: argparse.Namespace) -> BuildOptions:
    extra = {}
    if hasattr(args, "embedding_provider"):
        extra = {
            "embedding": _embedding_options(args),
            "cache_dir": args.cache_dir,
            "fusion": _fusion(args.fusion_weights),
            "similarity_floor": _cosine("--similarity-floor", args.similarity_floor),
            "collapse_similarity": _cosine("--collapse-similarity", args.collapse_similarity),
            "ivf_threshold": args.ivf_threshold,
            "source_url": _url_template(args.source_url),
            "corpus_version": args.corpus_version,
            "workers": _workers(args.workers),
            "parse_cache": not args.no_cache,
            "rescore": _rescore_options(args),
        }
    return BuildOptions(
        **extra,
        docs_dir=args.docs_dir,
        include=tuple(args.include),
        exclude=tuple(args.exclude),
        source_roots=tuple(args.source_root) + tuple(getattr(args, "api_source", ())),
        api_sources=tuple(getattr(args, "api_source", ())),
        name=getattr(args, "name", None),
        description=getattr(args, "description", None),
        instructions=getattr(args, "instructions", None),
        search_description=getattr(args, "tool_description_search", None),
        get_doc_description=getattr(args, "tool_description_get_doc", None),
    )


def api_source_notes(docs_dir: Path, api_sources: Sequence[Path]) -> list[str]:
    """One line for each `--api-source` outside the docs folder that holds no file of a
    package docsmcp reads: a Go module, a Rust crate, a Java, Kotlin, C#, Swift (with its DocC
    catalogs' articles), Doxygen, Ruby, PHP, Dart, TypeScript, protobuf or Solidity package is
    read as pages (packages/api_sources.py), and Python, Julia, Elixir and R sources serve the
    pages naming their objects (mkdocstrings, autodoc, Documenter). Before session 17 a Swift
    package's DocC articles were named here; they are read now."""
    # (imported here, not at start-up)
    from docsmcp.sources.packages import api_sources as outside

    docs = docs_dir.resolve()
    out = []
    for folder in api_sources:
        real = folder.resolve()
        if real == docs or docs in real.parents or outside.holds_sources(real):
            continue
        out.append(
            f"--api-source {folder}: no package docsmcp reads is in it (no Rust, Go, Java, "
            "Kotlin, C#, Swift, C/C++ header, Ruby, PHP, Dart, TypeScript, JavaScript, .proto, "
            ".sol, Python, Julia, Elixir or R file); nothing of it is read (docs/sources.md)"
        )
    return out


def _workers(value: int) -> int:
    if value < 0:
        raise ValueError(f"--workers must be 0 (one per core) or more, got {value}")
    return value


def _url_template(text: str | None) -> str | None:
    """--source-url, checked (ValueError naming the flag)."""
    try:
        return None if text is None else check_url_template(text)
    except ValueError as exc:
        raise ValueError(f"--source-url: {exc}") from None


def _cosine(flag: str, text: str | None) -> float | None:
    """A --*-similarity value (None when not given); ValueError naming the flag."""
    try:
        if text is None:
            return None
        from docsmcp_runtime.search.options import (
            parse_cosine,  # the runtime's search stack: lazily
        )

        return parse_cosine(text)
    except ValueError as exc:
        raise ValueError(f"{flag}: {exc}") from None


def _fusion(text: str | None) -> FusionWeights:
    try:
        return FusionWeights.parse(text)
    except ValueError as exc:
        raise ValueError(f"--fusion-weights: {exc}") from None


def _untouched(out: Path) -> str:
    """What a failed build did to --out: nothing, said of a bundle that exists."""
    return f"{out} was left untouched" if Path(out).exists() else "nothing was written"


def _inside_docs(out: Path, docs_dir: Path) -> str | None:
    """Why --out cannot be where it is (inside the docs folder), or None."""
    try:
        Path(out).resolve().relative_to(Path(docs_dir).resolve())
    except ValueError:
        return None
    return (
        f"--out {out} is inside --docs-dir {docs_dir}: the bundle would sit among the docs it "
        "indexes (and --watch would rebuild on its own output); write it outside the docs folder"
    )


def _build_once(
    args: argparse.Namespace,
    options: BuildOptions,
    checkout: Checkout | None,
    reporter: Callable[[str, int], Progress],
) -> int:
    """One build with its summary: 0 built, 1 problems (OUT untouched), 2 cannot write."""
    if checkout is None and (reason := _inside_docs(args.out, options.docs_dir)):
        _err(f"error: {reason}")
        return 2
    stamp = gitsource_stamp(options, checkout) if checkout is not None else None
    if checkout is not None and stamp is not None and up_to_date(checkout, args.out, stamp):
        return _skipped(args, checkout)
    try:
        built = build(options, args.out, reporter)
    except ProviderError as exc:
        _err(f"error: {exc}; {_untouched(args.out)}")
        return 1
    except BuildError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        _err(f"{len(exc.problems)} problem(s) found; {_untouched(args.out)}")
        return 1
    except OutputError as exc:
        _err(f"error: {exc}")
        return 2
    except OSError as exc:
        _err(f"error: cannot write {args.out}: {exc.strerror or exc}")
        return 2
    if checkout is not None and stamp is not None:
        record_build(checkout, args.out, stamp, built.metadata.bundle_id)
    stats = built.metadata.stats
    size = sum(f.bytes for f in built.metadata.files.values())
    if args.json:
        found = sum(f for f, _ in built.references.values())
        summary = {
            "out": str(args.out),
            "bundle_id": built.metadata.bundle_id,
            "files": stats.files,
            "chunks": stats.chunks,
            "terms": stats.terms,
            "postings": stats.postings,
            "bytes": size,
            "corpus_bytes": stats.corpus_bytes,
            "seconds": round(built.seconds, 3),
            "phases": built.phases,
            "cached_files": built.cached_files,
            "unread_files": built.unread_files,
            "references": {
                "found": found,
                "resolved": sum(r for _, r in built.references.values()),
                # (the first ones: xref.MAX_UNRESOLVED_SHOWN)
                "unresolved_links": [{"page": p, "link": x} for p, x in built.unresolved_links],
            },
            "api_entries": built.api_entries,
            "code_blocks": built.code_blocks,
            "pdfs": [dataclasses.asdict(p) for p in built.pdfs],
            "name": built.metadata.name,
            "name_from": built.name_from,
            "navigation": built.navigation,
            "translations": built.translations or None,
            "unpublished": built.unpublished or None,
        }
        print(json.dumps(summary, indent=2))
    elif not args.quiet:
        print(
            f"built {args.out}: {stats.files} files, {stats.chunks} chunks, "
            f"{stats.terms} terms, {size / 1e6:.1f} MB "
            f"({size / max(stats.corpus_bytes, 1):.2f}x corpus) in {built.seconds:.1f}s; "
            f"{_references(built.references)}, {built.api_entries} API entries, "
            f"{built.code_blocks} code blocks"
        )
        cached = f"; {built.cached_files} files from the parse cache" if built.cached_files else ""
        print("  " + ", ".join(f"{name} {sec:.1f}s" for name, sec in built.phases.items()) + cached)
        if built.pdfs:
            print("  " + _pdf_summary(built.pdfs))
        if built.name_from != "--name":
            print(
                f"  name {built.metadata.name!r}, from {built.name_from} (--name NAME to choose "
                "another)"
            )
        if built.unresolved_links:
            print("  " + _unresolved(built))
        if built.navigation:
            print(f"  {built.navigation}")
        if built.translations:
            print(f"  {built.translations}")
        if built.unpublished:
            print(f"  {built.unpublished}")
    return 0


def _pdf_summary(pdfs: Sequence[PdfSummary]) -> str:
    """One line on the PDFs of a build: pages, cache, files without an outline or text."""
    pages = sum(p.pages for p in pdfs)
    cached = sum(p.cached for p in pdfs)
    line = f"PDFs: {len(pdfs)} files, {pages:,} pages"
    if cached:
        line += f" ({cached} from the extraction cache)"
    bare = [p.path for p in pdfs if not p.outline]
    if bare:
        line += f"; no outline (headings from typography): {', '.join(bare)}"
    empty = [f"{p.path} ({p.empty_pages})" for p in pdfs if p.empty_pages]
    if empty:
        line += f"; pages without a text layer: {', '.join(empty)}"
    return line


def _git_source(args: argparse.Namespace) -> Checkout | None:
    """Fetch and check out the git repository --docs-dir names (then pointing args.docs_dir at
    the checkout), or None for a plain folder."""
    from docsmcp.sources.gitsource import checkout, wanted

    source = wanted(args.docs_dir, args.ref, args.subdir)
    if source is None:
        args.docs_dir = Path(args.docs_dir)
        return None
    cache = cache_root(getattr(args, "cache_dir", None))
    done = checkout(source, cache)
    args.docs_dir = done.docs_dir
    if getattr(args, "name", None) is None and hasattr(args, "name"):
        args.name = done.name
    return done


def gitsource_stamp(options: BuildOptions, co: Checkout) -> str | None:
    """What a bundle built from `co` with `options` depends on, or None when it depends on
    files outside git's view (an --embedding-model folder) and so is always rebuilt."""
    import dataclasses

    from docsmcp.pipeline.parse_cache import code_fingerprint
    from docsmcp.sources.gitsource import stamp_key

    model = options.embedding.model
    if model and Path(model).exists():
        return None
    roots = [Path(r).resolve() for r in options.source_roots]
    repo = co.repo_dir.resolve()
    if any(repo != r and repo not in r.parents for r in roots):
        return None  # a source root outside the repository: its content is not in the tree
    settings = dataclasses.replace(
        options, docs_dir=Path("."), cache_dir=None, workers=0, parse_cache=True
    )
    return stamp_key(co, repr(settings), code_fingerprint(), whole_tree=bool(roots))


def _skipped(args: argparse.Namespace, co: Checkout) -> int:
    at = co.source.ref or "HEAD"
    if args.json:
        print(json.dumps({"out": str(args.out), "skipped": True, "commit": co.commit}, indent=2))
    elif not args.quiet:
        print(
            f"{args.out} is up to date: the docs tree of {co.source.location} at {at} "
            f"(commit {co.commit[:12]}) is unchanged since it was built; nothing rebuilt"
        )
    return 0


def _unresolved(built: Built) -> str:
    """The summary's line on links to no page (or no heading of one): how many, the first
    three different ones (a template's link repeated on every page says one thing once;
    `--json`: more)."""
    found, resolved = built.references.get("link", (0, 0))
    first: dict[str, str] = {}
    for page, link in built.unresolved_links:
        first.setdefault(link, page)
    shown = ", ".join(f"{link} (in {page})" for link, page in list(first.items())[:3])
    more = f"; --json lists the first {len(built.unresolved_links)}" if found - resolved > 3 else ""
    return f"{found - resolved} links to no page or heading of the bundle: {shown}{more}"


def _references(stats: dict[str, tuple[int, int]]) -> str:
    found = sum(f for f, _ in stats.values())
    resolved = sum(r for _, r in stats.values())
    if not found:
        return "no cross references"
    return f"{resolved} of {found} cross references resolved ({100 * resolved / found:.1f}%)"
