"""Command line of the builder: `docsmcp build`, `docsmcp validate`, `docsmcp eval`."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from . import __version__
from .build import BuildError, BuildOptions, build, collect
from .write import OutputError

PROG = "docsmcp"


def _add_corpus_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--docs-dir", required=True, type=Path, help="folder of .md/.mdx files")
    p.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="only index files matching GLOB (relative to --docs-dir; repeatable)",
    )
    p.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out files matching GLOB, e.g. '**/CHANGELOG.md' (repeatable)",
    )


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
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

    b = sub.add_parser("build", help="build a bundle from a folder of markdown")
    _add_corpus_args(b)
    b.add_argument("--out", required=True, type=Path, help="bundle directory to (re)place")
    b.add_argument("--name", help="corpus name (default: the docs folder's name)")
    b.add_argument("--description", help="corpus description used in the tool descriptions")
    b.add_argument("--instructions", help="MCP server instructions (default: from the manifest)")
    b.add_argument("--tool-description-search", help="replace the search_docs description")
    b.add_argument("--tool-description-get-doc", help="replace the get_doc description")
    b.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")

    v = sub.add_parser("validate", help="report every problem a build would reject")
    _add_corpus_args(v)

    e = sub.add_parser("eval", help="score a bundle against labelled queries")
    e.add_argument(
        "--bundle",
        action="append",
        required=True,
        metavar="[CORPUS=]DIR",
        help="bundle to evaluate; CORPUS defaults to the bundle's name (repeatable)",
    )
    e.add_argument("--cases", required=True, type=Path, help="JSONL file of labelled cases")
    e.add_argument("--json", action="store_true", help="print the full report as JSON")
    e.add_argument("--k", type=int, default=5, help="cut-off rank (default: 5)")
    return p


def _options(args: argparse.Namespace) -> BuildOptions:
    return BuildOptions(
        docs_dir=args.docs_dir,
        include=tuple(args.include),
        exclude=tuple(args.exclude),
        name=getattr(args, "name", None),
        description=getattr(args, "description", None),
        instructions=getattr(args, "instructions", None),
        search_description=getattr(args, "tool_description_search", None),
        get_doc_description=getattr(args, "tool_description_get_doc", None),
    )


def _err(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "eval":
        from .evaluate import run_eval_cli

        return run_eval_cli(args)
    if not args.docs_dir.is_dir():
        _err(f"error: --docs-dir {args.docs_dir} is not a directory")
        return 2
    if args.command == "validate":
        collected = collect(_options(args))
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
        metadata = build(_options(args), args.out)
    except BuildError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        _err(f"{len(exc.problems)} problem(s) found; {args.out} was left untouched")
        return 1
    except OutputError as exc:
        _err(f"error: {exc}")
        return 2
    except OSError as exc:
        _err(f"error: cannot write {args.out}: {exc.strerror or exc}")
        return 2
    if not args.quiet:
        stats = metadata["stats"]
        size = sum(f["bytes"] for f in metadata["files"].values())
        print(
            f"built {args.out}: {stats['files']} files, {stats['chunks']} chunks, "
            f"{stats['terms']} terms, {size / 1e6:.1f} MB "
            f"({size / max(stats['corpus_bytes'], 1):.2f}x corpus) in {metadata['_seconds']:.1f}s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
