"""Parsed arguments -> the options the server is built with: search options, the bundles with
their pins and download bounds, the tool selection (ValueError with one line).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from typing import TYPE_CHECKING

from ..distribution.specs import ENV_SHA256, ENV_UNVERIFIED, is_remote
from ..search.options import EXPAND_ENV, SearchOptions, parse_flag
from ..tools.registry import ToolSelection

if TYPE_CHECKING:
    from ..distribution.remote import FetchOptions


def _search_options(args: argparse.Namespace) -> SearchOptions:
    """The search options (search.CLI_NAMES): parsed here, so a mistake is one line (argparse's
    own errors print the usage too)."""
    expand = "1" if args.expand_references else os.environ.get(EXPAND_ENV)
    options = SearchOptions.parse(
        args.fusion_weights,
        args.similarity_floor,
        args.search_timeout,
        expand,
        args.max_tokens,
        args.ivf_probe,
    )
    if getattr(args, "no_rescore", False):
        options = dataclasses.replace(options, rescore=False)
    if not getattr(args, "rerank_url", None):
        return options
    from ..search.rerank import MAX_DEPTH as MAX_RERANK_DEPTH
    from ..search.rerank import RerankOptions

    if not 1 <= args.rerank_depth <= MAX_RERANK_DEPTH:
        raise ValueError(f"--rerank-depth: must be between 1 and {MAX_RERANK_DEPTH}")
    if not args.rerank_timeout > 0:
        raise ValueError("--rerank-timeout: must be > 0")
    rerank = RerankOptions(
        args.rerank_url,
        args.rerank_model,
        args.rerank_api_key_env,
        args.rerank_depth,
        args.rerank_timeout,
    )
    return dataclasses.replace(options, rerank=rerank)


def _remote_bundles(args: argparse.Namespace) -> tuple[list[str], FetchOptions | None]:
    """--bundle values with their --bundle-sha256 pins, and the download bounds; ValueError.
    Bundle folders and archives with no download option given need none of it (None), and a
    start then never imports the download code (remote.py)."""
    given = (
        args.bundle_sha256,
        args.bundle_max_bytes,
        args.bundle_timeout,
        args.bundle_unverified,
        os.environ.get(ENV_SHA256, "").strip(),
        os.environ.get(ENV_UNVERIFIED, "").strip(),
    )
    if not any(given) and not any(is_remote(b) for b in args.bundle):
        return list(args.bundle), None
    from ..distribution import remote

    pins = args.bundle_sha256 or []
    env_pin = os.environ.get(ENV_SHA256, "").strip()
    if not pins and env_pin and any(is_remote(b) for b in args.bundle):
        pins = [env_pin]
    unverified = args.bundle_unverified or parse_flag(os.environ.get(ENV_UNVERIFIED, ""))
    fetch = remote.FetchOptions.parse(args.bundle_max_bytes, args.bundle_timeout, unverified)
    return remote.pin_specs(args.bundle, pins), fetch


def _tool_selection(args: argparse.Namespace) -> ToolSelection:
    """--tools and --tool-prefix; ValueError naming the bad one."""
    return ToolSelection.parse(args.tools, args.tool_prefix)
