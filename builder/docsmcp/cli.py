"""Command line of the builder: `docsmcp build`, `validate`, `eval`, `pack`, `verify`."""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from pathlib import Path

from docsmcp_runtime.commands.argparsing import OneLineParser
from docsmcp_runtime.format import (
    URL_PLACEHOLDERS,
)

from docsmcp import __version__
from docsmcp.commands.build import _build_once, _git_source, _options, api_source_notes
from docsmcp.commands.console import PROG, _err
from docsmcp.commands.model_args import add_model_arguments
from docsmcp.common import logs
from docsmcp.common.cache import KIND_NAMES
from docsmcp.common.progress import Progress
from docsmcp.pipeline.collect import collect
from docsmcp.sources.gitsource import GitError


def _add_corpus_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--docs-dir",
        required=True,
        metavar="DIR|URL",
        help="folder of .md/.mdx/.rst files or of a saved HTML site, or a git repository (URL, "
        "or a local repository with --ref/--subdir)",
    )
    p.add_argument(
        "--ref",
        metavar="REF",
        help="git branch, tag or commit to read --docs-dir at (default: the remote's HEAD); "
        "the repository is fetched into the cache and a rebuild of an unchanged tree is skipped",
    )
    p.add_argument(
        "--subdir",
        metavar="DIR",
        help="the docs folder inside the git repository --docs-dir names (default: its root)",
    )
    p.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="only index files matching GLOB (relative to --docs-dir; ** crosses folders; "
        "repeatable)",
    )
    p.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out files matching GLOB, e.g. '**/CHANGELOG.md' (repeatable)",
    )
    _add_root_args(p)


def _add_root_args(p: argparse.ArgumentParser) -> None:
    """The folders besides --docs-dir a corpus may read (build, validate, init)."""
    p.add_argument(
        "--source-root",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="also read files under DIR, e.g. the repository root, through symlinks in "
        "--docs-dir (repeatable); a file or symlink leading outside --docs-dir and every "
        "--source-root is refused",
    )
    p.add_argument(
        "--api-source",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="folder holding the Python package that mkdocstrings pages (`::: pkg.module`) "
        "document: their docstrings and signatures are read with ast, never imported; a Go "
        "module, Rust crate, Java, Kotlin, C#, Swift or Doxygen project outside the docs folder is "
        "read as its API pages, in a folder named as the package's (repeatable; a source "
        "root too)",
    )


def _parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog=PROG,
        description="Build, check and evaluate docsmcp documentation bundles.",
        epilog=textwrap.dedent(
            """\
            examples:
              docsmcp validate --docs-dir ./docs
              docsmcp build --docs-dir ./docs --out ./idx
              docsmcp-runtime --bundle ./idx search "how to paginate"
            """
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    b = sub.add_parser(
        "build",
        help="build a bundle from a folder of docs (markdown, reST, AsciiDoc, HTML, PDF manuals)",
        description="Build a bundle from a folder of docs (or a git repository): discover the "
        ".md/.mdx and .rst files (a saved site's .html pages; .pdf manuals with the pdf extra), "
        "apply .docs-mcp.json manifests and frontmatter, chunk, index, and write OUT "
        "atomically (an existing bundle is replaced only when the build succeeds). Example: "
        "docsmcp build --docs-dir examples/acme-sdk --out ./idx",
    )
    _add_corpus_args(b)
    b.add_argument(
        "--out", required=True, type=Path, metavar="DIR", help="bundle directory to (re)place"
    )
    b.add_argument(
        "--name",
        metavar="TEXT",
        help="corpus name (default: the docs folder's name; for a generic one such as docs/ "
        "or en/, the site's title from docs.json, mkdocs.yml, docusaurus.config, book.toml or "
        "conf.py, else the git repository's name)",
    )
    b.add_argument(
        "--description", metavar="TEXT", help="corpus description used in the tool descriptions"
    )
    b.add_argument(
        "--instructions",
        metavar="TEXT",
        help="MCP server instructions (default: mcpServerInstructions of the root manifest)",
    )
    b.add_argument(
        "--tool-description-search", metavar="TEXT", help="replace the search_docs description"
    )
    b.add_argument(
        "--tool-description-get-doc", metavar="TEXT", help="replace the get_doc description"
    )
    b.add_argument(
        "--source-url",
        metavar="TEMPLATE",
        help="link template of hits, e.g. https://github.com/ORG/REPO/blob/{commit}/docs/{path}"
        "#L{line_start}-L{line_end} or https://docs.example.com/{path_noext}#{anchor} "
        "(placeholders: " + ", ".join("{" + n + "}" for n in URL_PLACEHOLDERS) + ")",
    )
    b.add_argument(
        "--corpus-version", metavar="TEXT", help="the docs' own version, shown on every hit"
    )
    b.add_argument(
        "--workers",
        type=int,
        default=0,
        metavar="N",
        help="processes that parse and chunk (default: one per core); the bundle is the same "
        "whatever N",
    )
    b.add_argument(
        "--no-cache",
        action="store_true",
        help="parse every file, neither reading nor writing the parse cache",
    )
    b.add_argument(
        "-q", "--quiet", action="store_true", help="print nothing on success (no progress either)"
    )
    b.add_argument(
        "--watch",
        action="store_true",
        help="after the build, rebuild whenever a file under --docs-dir (or a source root) "
        "changes, until Ctrl-C; each rebuild is incremental and swapped in atomically, so "
        "`docsmcp-runtime --watch` serves it; a failed rebuild keeps the last bundle",
    )
    b.add_argument("--watch-rounds", type=int, help=argparse.SUPPRESS)  # tests: stop after N
    b.add_argument(
        "--json",
        action="store_true",
        help="print the summary as JSON (files, chunks, sizes, seconds per phase, references)",
    )
    add_model_arguments(b)

    v = sub.add_parser(
        "validate",
        help="report every problem a build would reject",
        description="Read the docs and manifests as a build would and list every problem "
        "(file:line and what is wrong), writing nothing. Exit 0 when a build would succeed. "
        "Example: docsmcp validate --docs-dir examples/acme-sdk",
    )
    _add_corpus_args(v)

    from docsmcp.embeddings.adapt import add_adapt_parser

    add_adapt_parser(sub)
    from docsmcp.embeddings.finetune import add_finetune_parser

    add_finetune_parser(sub)

    e = sub.add_parser(
        "eval",
        help="score a bundle against labelled queries",
        description="Score bundles against labelled queries: MRR@k, nDCG@k and hit@k per "
        'category and corpus, with the misses listed. Cases are JSON lines like {"id": '
        '"dev-001", "corpus": "acme-sdk", "category": "exact-name", "query": '
        '"create payment", "filters": {"language": "python"}, "relevant": [{"file": '
        '"python/payments.md", "heading": "create"}]}; a hit is relevant when its file '
        "matches and the heading is null, or appears in the hit's heading or breadcrumb, or is a "
        "heading line of its text (../shared/eval/README.md, *Judging a hit*). "
        "Example: docsmcp eval --bundle ./idx --cases cases.jsonl",
    )
    e.add_argument(
        "--bundle",
        action="append",
        required=True,
        metavar="[CORPUS=]DIR",
        help="bundle to evaluate; CORPUS defaults to the bundle's name (repeatable)",
    )
    e.add_argument(
        "--cases", required=True, type=Path, metavar="FILE", help="JSONL file of labelled cases"
    )
    e.add_argument("--json", action="store_true", help="print the full report as JSON")
    e.add_argument("--k", type=int, default=5, help="cut-off rank (default: 5)")
    e.add_argument(
        "--pages",
        action="store_true",
        help="also rank distinct pages (the first k distinct files, following next_cursor) "
        "and score them with the cases' graded judgments (`grade` 1-3): a second table",
    )
    e.add_argument(
        "--no-rescore",
        action="store_true",
        help="leave out the bundle's rescoring model (as `docsmcp-runtime --no-rescore`): the "
        "first stage alone, for a before/after table from one bundle",
    )
    e.add_argument(
        "--expand-references",
        action="store_true",
        help="search as `docsmcp-runtime --expand-references` does (referenced sections join)",
    )
    e.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help="search with this response budget, as `docsmcp-runtime --max-tokens N` does",
    )

    k = sub.add_parser(
        "pack",
        help="pack a bundle as a reproducible .tar.gz and/or an OCI image layout",
        description="Pack a bundle directory. The same bundle always gives the same bytes "
        "(entry mtime: $SOURCE_DATE_EPOCH or 0). -o also writes ARCHIVE.sha256.",
    )
    k.add_argument("bundle", type=Path, metavar="DIR", help="bundle directory")
    k.add_argument("-o", "--output", type=Path, metavar="ARCHIVE", help="write a .tar.gz here")
    k.add_argument("--oci", type=Path, metavar="DIR", help="write an OCI image layout here")
    k.add_argument("--tag", default="latest", help="tag of the OCI manifest (default: latest)")

    u = sub.add_parser(
        "push",
        help="publish a bundle to an OCI registry (the artifact pack --oci writes)",
        description="Publish a bundle as an OCI artifact, exactly the one pack --oci writes "
        "(same digests), and print REGISTRY/REPO:TAG@sha256:... (its manifest digest). Blobs "
        "the registry already has are not sent again; pushing the same bundle twice changes "
        "nothing. Credentials come from "
        "$DOCSMCP_REGISTRY_USERNAME / $DOCSMCP_REGISTRY_PASSWORD or docker's config file "
        "($DOCKER_CONFIG/config.json, ~/.docker/config.json), never from the command line. "
        "localhost and 127.* registries are reached over http, others over https "
        "($DOCSMCP_REGISTRY_PLAIN_HTTP=HOST[:PORT],... for more plain-http hosts).",
        epilog="examples:\n  docsmcp push ./idx localhost:5000/docs/acme:v1"
        "\n  docsmcp push idx.tar.gz ghcr.io/acme/docs-bundle:latest --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    u.add_argument(
        "bundle", type=Path, metavar="BUNDLE", help="bundle directory, .tar.gz or OCI layout"
    )
    u.add_argument("reference", metavar="REGISTRY/REPO:TAG", help="where to push (tag: latest)")
    u.add_argument("--json", action="store_true", help="print the result as JSON")

    y = sub.add_parser(
        "verify",
        help="check a bundle, archive or OCI layout against the bundle spec",
        description="Check every checksum and invariant of bundle-spec.md; report every "
        "problem found.",
    )
    y.add_argument(
        "target",
        type=Path,
        metavar="DIR|ARCHIVE|OCI_DIR",
        help="bundle directory, .tar.gz archive or OCI layout (LAYOUT:TAG for one tag)",
    )

    d = sub.add_parser(
        "diff",
        help="list the sections added, removed, changed and moved between two bundles",
        description="List the sections added, removed, changed and moved between two bundles "
        "of the same docs: sections are paired by chunk id, then heading trail, then text "
        "similarity. Exit 0 whatever the differences, 2 when a bundle cannot be read.",
    )
    d.add_argument("old", type=Path, metavar="OLD_BUNDLE", help="bundle of the older docs")
    d.add_argument("new", type=Path, metavar="NEW_BUNDLE", help="bundle of the newer docs")
    d.add_argument("--json", action="store_true", help="print the report as JSON")
    d.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="list at most N entries of each kind (the counts cover every section; default: all)",
    )
    d.add_argument(
        "--min-similarity",
        type=float,
        default=0.5,
        metavar="RATIO",
        help="word similarity (0-1) two sections need to pair by text alone",
    )

    c = sub.add_parser(
        "cache",
        help="show or empty the cache (parsed, embeddings, PDF text, git, bundles, OCI pulls)",
        description="Show what the cache root holds, per kind, or empty some kinds. Every kind "
        "is bounded (least recently used entries go first) and bundles never depend on it: "
        "cleaning only costs time on the next build.",
        epilog="examples:\n  docsmcp cache info\n  docsmcp cache clean --kind pdf --kind git"
        "\n  docsmcp cache clean --cache-dir /tmp/docsmcp-cache",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("action", choices=["info", "clean"], help="info: sizes; clean: remove entries")
    c.add_argument(
        "--kind",
        action="append",
        choices=KIND_NAMES,
        help="with clean: only this kind (repeatable; default: every kind)",
    )
    c.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help="the cache root (default: $DOCSMCP_CACHE_DIR, else $XDG_CACHE_HOME/docsmcp, else "
        "~/.cache/docsmcp)",
    )
    c.add_argument("--json", action="store_true", help="print the figures as JSON")

    x = sub.add_parser(
        "export",
        help="write a bundle's pages as llms.txt and llms-full.txt",
        description="Write llms.txt (title, summary, one section per top folder, a link line "
        "per page) and llms-full.txt (every page's full text, each framed by a '# title' line "
        "and a source comment, which docsmcp build splits back into pages) from a bundle. "
        "The same bundle always gives the same bytes.",
    )
    x.add_argument(
        "--llms-txt",
        required=True,
        type=Path,
        metavar="DIR",
        help="folder to write llms.txt and llms-full.txt into (created if missing; replaces "
        "only an earlier export)",
    )
    x.add_argument("--bundle", required=True, type=Path, metavar="DIR", help="bundle directory")
    x.add_argument(
        "--base-url",
        metavar="URL",
        help="link pages as URL/PATH without the .md/.mdx extension (default: the page path, "
        "relative)",
    )
    x.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")

    n = sub.add_parser(
        "init",
        help="propose a starting .docs-mcp.json from a docs folder's structure",
        description="Propose a .docs-mcp.json from the folder structure (language, product and "
        "version folders become taxonomy keys with overrides), heading statistics (chunk_by, "
        "max_chunk_size) and the files found (vendored folder excludes; changelogs are kept "
        "and counted); "
        "validate it as docsmcp validate does and report why. The same folder always gives "
        "the same proposal.",
        epilog="examples:\n  docsmcp init --docs-dir ./docs > proposal.json\n"
        "  docsmcp init --docs-dir ./docs --write",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    n.add_argument(
        "--docs-dir", required=True, type=Path, metavar="DIR", help="folder of .md/.mdx files"
    )
    where = n.add_mutually_exclusive_group()
    where.add_argument(
        "--write",
        action="store_true",
        help="write DIR/.docs-mcp.json (the report goes to stdout)",
    )
    where.add_argument(
        "--stdout",
        action="store_true",
        help="print the proposal on stdout and the report on stderr (the default)",
    )
    n.add_argument(
        "--force", action="store_true", help="with --write, replace an existing .docs-mcp.json"
    )
    _add_root_args(n)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logs.configure(quiet=bool(getattr(args, "quiet", False)))
    try:
        return _run(args)
    except BrokenPipeError:
        # The reader went away (`docsmcp ... | head`): no traceback, whatever the command. As
        # the Python docs advise, stdout goes to devnull so the flush at exit cannot raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _run(args: argparse.Namespace) -> int:
    if args.command == "eval":
        from docsmcp.commands.evaluate import run_eval_cli

        return run_eval_cli(args)
    if args.command == "adapt":
        from docsmcp.embeddings.adapt import run_adapt_cli

        return run_adapt_cli(args)
    if args.command == "finetune":
        from docsmcp.embeddings.finetune import run_finetune_cli

        return run_finetune_cli(args)
    if args.command == "pack":
        from docsmcp.commands.pack import _pack

        return _pack(args)
    if args.command == "verify":
        from docsmcp.commands.verify import _verify

        return _verify(args)
    if args.command == "push":
        from docsmcp.commands.push import _push

        return _push(args)
    if args.command == "export":
        from docsmcp.commands.export import _export

        return _export(args)
    if args.command == "init":
        from docsmcp.commands.init import run_init_cli

        return run_init_cli(args)
    if args.command == "diff":
        from docsmcp.commands.diff import run_diff_cli

        return run_diff_cli(args)
    if args.command == "cache":
        from docsmcp.commands.cache import _cache

        return _cache(args)
    try:
        checkout = _git_source(args)
    except GitError as exc:
        _err(f"error: {exc}")
        return 2
    for flag, folder in (
        [("--docs-dir", args.docs_dir)]
        + [("--source-root", root) for root in args.source_root]
        + [("--api-source", root) for root in getattr(args, "api_source", ())]
    ):
        if not folder.is_dir():
            _err(f"error: {flag} {folder} is not a directory")
            return 2
    for note in api_source_notes(args.docs_dir, getattr(args, "api_source", ())):
        logs.warn_once(note, "%s", note)
    if args.command == "validate":
        collected = collect(_options(args))  # validate has no flags that can be malformed
        for problem in collected.problems:
            print(problem, file=sys.stderr)
        if collected.problems:
            _err(f"{len(collected.problems)} problem(s) found; nothing was built")
            return 1
        print(
            f"ok: {len(collected.corpus.files)} files, {len(collected.chunks)} chunks, "
            f"taxonomy keys: {', '.join(sorted(collected.corpus.taxonomy)) or 'none'}"
        )
        return 0
    try:
        options = _options(args)
    except ValueError as exc:  # a malformed --fusion-weights or similarity
        _err(f"error: {exc}")
        return 2

    def reporter(label: str, total: int) -> Progress:
        return Progress(PROG, label, total, enabled=not args.quiet)

    if getattr(args, "watch", False):
        if checkout is not None:
            _err("error: --watch follows a local folder; a git source is built once")
            return 2
        from docsmcp.commands.watch import watch

        # A first build with problems does not stop the watch: the author is fixing them.
        _build_once(args, options, checkout, reporter)
        roots = [args.docs_dir, *args.source_root, *getattr(args, "api_source", ())]
        return watch(
            roots,
            lambda: _build_once(args, options, checkout, reporter),
            lambda line: None if args.quiet else print(f"{PROG}: {line}", file=sys.stderr),
            skip=args.out,
            rounds=args.watch_rounds,
        )
    return _build_once(args, options, checkout, reporter)


if __name__ == "__main__":
    sys.exit(main())
