"""What an Rspress site never routes: the files its `rspress.config.*` leaves out with
`route.exclude` and `route.excludeConvention` (by default `**/_[^_]*`, files starting with one
`_`), globs relative to its docs root (`docs/` beside the config, else the config's folder).

    export default defineConfig({ route: { exclude: ['**/fragments/**', 'components/**'] } });

Rspress' own docs keep MDX fragments in `docs/en/fragments/`, imported by two or three pages
each: they were pages of their own, which the site never serves (site_build.unbuilt leaves
them out, corpus._with_partials shows their text where they are imported).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from docsmcp.sources.site_config import config_above, read_text

# An Rspress site's config file names (file_fences.py finds its `root` through them too).
CONFIGS = tuple(f"rspress.config.{x}" for x in ("ts", "js", "mjs", "mts", "cjs"))
CONVENTION = ("**/_[!_]*",)  # Rspress' default `excludeConvention`, `**/_[^_]*`
_ROUTE = re.compile(r"\broute\s*:\s*\{")
_LIST = re.compile(r"\b(exclude|excludeConvention)\s*:\s*\[([^\]]{0,4000})\]")
_STRING = re.compile(r"""'([^'\n]{1,500})'|"([^"\n]{1,500})"|`([^`\n$]{1,500})`""")
MAX_ROUTE_CHARS = 20_000  # of the `route` object read for its lists


def unrouted(docs_dir: Path, roots: Sequence[Path]) -> tuple[str, ...]:
    """Globs, relative to docs_dir, of the files the Rspress site above docs_dir never routes;
    () when docs_dir is no Rspress site's."""
    config = config_above(docs_dir, roots, CONFIGS)
    if config is None:
        return ()
    lists = _route_lists(read_text(config))
    globs = [*lists.get("exclude", ()), *lists.get("excludeConvention", CONVENTION)]
    root = config.parent / "docs" if (config.parent / "docs").is_dir() else config.parent
    prefix = os.path.relpath(root, docs_dir).replace(os.sep, "/")
    out: list[str] = []
    for glob in globs:
        glob = glob.removeprefix("./").replace("[^", "[!")  # (our globs negate with `!`)
        if prefix == ".":
            out.append(glob)
        elif not prefix.startswith(".."):
            out.append(f"{prefix}/{glob}")
        elif glob.startswith("**/"):  # (docs_dir inside the root: only globs at any depth)
            out.append(glob)
    return tuple(out)


def _route_lists(text: str) -> dict[str, tuple[str, ...]]:
    """The string lists `exclude` and `excludeConvention` of the config's `route` object."""
    m = _ROUTE.search(text)
    if m is None:
        return {}
    body = text[m.end() : m.end() + MAX_ROUTE_CHARS]
    depth, end = 1, len(body)
    for i, char in enumerate(body):  # (the object's end: its braces balanced)
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0:
            end = i
            break
    return {
        name: tuple(next(g for g in s.groups() if g) for s in _STRING.finditer(items))
        for name, items in _LIST.findall(body[:end])
    }
