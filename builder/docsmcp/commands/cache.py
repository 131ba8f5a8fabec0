"""`docsmcp cache`: the cache root's kinds listed or cleaned."""

from __future__ import annotations

import argparse
import json

from docsmcp.commands.console import _err
from docsmcp.common.cache import GIB, KIND_NAMES, cache_root


def _cache(args: argparse.Namespace) -> int:
    from docsmcp.common.cache import clean, info

    root = cache_root(args.cache_dir)
    if args.action == "clean":
        kinds = tuple(args.kind or KIND_NAMES)
        freed = clean(root, kinds)
        if args.json:
            print(json.dumps({"root": str(root), "cleaned": list(kinds), "freed_bytes": freed}))
        else:
            print(f"{root}: removed {', '.join(kinds)} ({freed / 1e6:,.1f} MB freed)")
        return 0
    if args.kind:
        _err("error: --kind applies to clean")
        return 2
    rows = info(root)
    if args.json:
        out = {
            "root": str(root),
            "kinds": {
                r.kind.name: {
                    "path": str(r.path),
                    "entries": r.entries,
                    "bytes": r.bytes,
                    "max_bytes": r.kind.max_bytes,
                    "stale": r.stale,
                    "stale_bytes": r.stale_bytes,
                }
                for r in rows
            },
        }
        print(json.dumps(out, indent=2))
        return 0
    print(f"cache root: {root}")
    for r in rows:
        bound = f" of {r.kind.max_bytes / GIB:g} GiB" if r.kind.max_bytes else ""
        print(
            f"  {r.kind.name:<11} {r.entries:>5} entries {r.bytes / 1e6:>10,.1f} MB{bound}"
            f"  {r.kind.what}"
        )
        if r.stale:
            print(
                f"  {'':<11} {r.stale:>5} left by killed writers, {r.stale_bytes / 1e6:,.1f} MB "
                f"(the next writer removes them; so does `docsmcp cache clean --kind "
                f"{r.kind.name}`)"
            )
    return 0
