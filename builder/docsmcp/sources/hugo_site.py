"""A Hugo site around a docs folder: where its content root is, and which pages its own
configuration says are never rendered.

- The site is the nearest folder at or above the docs folder (within the source roots) holding a
  Hugo configuration (`hugo.yaml`, `hugo.toml`, `config/_default/hugo.yaml`, ...).
- Its content root is `content/` there, or `content/<language>/` when the docs folder lies in
  such a folder (OpenTelemetry's `content/en/docs`): what a path starting with `/` in an include
  shortcode names, and the top of the folders an include is looked up in (hugo_includes.py).
- `cascade` entries of the configuration with `build: {render: never}` (`_build`, `render:
  false` in Hugo before 0.123) and a `target.path` glob name pages Hugo never renders:
  OpenTelemetry's `{,/**}/_includes{,/**}`, the fragments its include shortcode inserts in other
  pages. `never_rendered` gives them as globs of the docs folder (site_config.unbuilt: a build
  without a manifest leaves them out and says so; init proposes the same excludes).
- A configuration is read only inside the source roots (it decides what is built); one with
  such a rule found above them (`outside_config`, up to site_config.MAX_LEVELS folders) gets the
  build summary's hint of the `--source-root` that reads it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.sources.site_config import (
    LANGUAGE,
    MAX_LEVELS,
    config_above,
    read_json,
    read_text,
    read_yaml,
)

# Hugo's configuration files, in the order Hugo looks for them (a `config/_default/` folder is
# the split form).
CONFIGS = tuple(
    f"{folder}{name}.{suffix}"
    for folder in ("", "config/_default/")
    for name in ("hugo", "config")
    for suffix in ("toml", "yaml", "yml", "json")
)
# Brace alternatives of a glob (`{,/**}`), innermost first.
_BRACES = re.compile(r"\{([^{}]*)\}")
# Alternatives one glob may expand to (a hostile config cannot make millions).
MAX_ALTERNATIVES = 64


@dataclass(frozen=True)
class Site:
    root: Path  # the folder of the configuration
    config: Path
    content: Path  # the content root (see the module docstring)


def find(docs_dir: Path, roots: Sequence[Path]) -> Site | None:
    """The Hugo site holding `docs_dir`, or None (no configuration within the source roots)."""
    config = config_above(docs_dir, roots, CONFIGS)
    if config is None:
        return None
    root = config.parent.parent.parent if "/_default/" in config.as_posix() else config.parent
    if config.name.startswith("config.") and not (root / "content").is_dir():
        return None  # (a `config.toml` without `content/`: some other tool's, Zola's has one)
    content = root / "content"
    here = docs_dir.resolve()
    top = content.resolve()
    for folder in (here, *here.parents):
        if folder == top:
            return Site(root, config, content)
        if folder.parent == top and LANGUAGE.match(folder.name):
            return Site(root, config, content / folder.name)
    return Site(root, config, docs_dir)  # the docs lie elsewhere: their own folder is the top


def _load(config: Path) -> object:
    if config.suffix == ".toml":
        try:
            import tomllib
        except ImportError:  # pragma: no cover (Python 3.10)
            import tomli as tomllib  # type: ignore[no-redef]
        try:
            return tomllib.loads(read_text(config))
        except (tomllib.TOMLDecodeError, RecursionError):
            return None
    return read_json(config) if config.suffix == ".json" else read_yaml(config)


def _never_rendered(entry: object) -> str | None:
    """The target path glob of a cascade entry that stops rendering, else None."""
    if not isinstance(entry, Mapping):
        return None
    build = entry.get("build", entry.get("_build"))
    target = entry.get("target", entry.get("_target"))
    if not isinstance(build, Mapping) or not isinstance(target, Mapping):
        return None
    if build.get("render") not in ("never", False):
        return None
    path = target.get("path")
    return path if isinstance(path, str) and path.strip() else None


def expand_braces(glob: str) -> list[str]:
    """`glob` with its `{a,b}` alternatives written out (at most MAX_ALTERNATIVES)."""
    out = [glob]
    while any("{" in g for g in out) and len(out) <= MAX_ALTERNATIVES:
        grown = []
        for g in out:
            m = _BRACES.search(g)
            if m is None:
                grown.append(g)
                continue
            grown += [g[: m.start()] + alt + g[m.end() :] for alt in m.group(1).split(",")]
        if grown == out:
            break
        out = grown
    return list(dict.fromkeys(out[:MAX_ALTERNATIVES]))


def never_rendered(docs_dir: Path, roots: Sequence[Path]) -> tuple[str, ...]:
    """Globs of the docs folder for the pages the Hugo site's configuration never renders (see
    the module docstring); () when there is no such site or rule."""
    site = find(docs_dir, roots)
    if site is None:
        return ()
    data = _load(site.config)
    cascade = data.get("cascade") if isinstance(data, Mapping) else None
    entries = cascade if isinstance(cascade, list) else [cascade]
    try:
        prefix = docs_dir.resolve().relative_to(site.content.resolve()).as_posix()
    except ValueError:
        prefix = "."
    prefix = "" if prefix == "." else prefix
    globs: list[str] = []
    for entry in entries:
        if (glob := _never_rendered(entry)) is None:
            continue
        for alt in expand_braces(glob):
            alt = posixpath.normpath("/" + alt.strip()).lstrip("/")  # a content root's path
            if alt.startswith("**"):
                globs.append(alt)  # anywhere, the docs folder's pages too
            elif prefix and (alt == prefix or alt.startswith(prefix + "/")):
                rest = alt[len(prefix) :].lstrip("/")
                globs.append(rest or "**")
            elif not prefix and alt:
                # Anchored at the top (a glob without `/` would match at any depth).
                globs.append(alt if "/" in alt else alt + "/**")
    # (a glob matches what its folder holds too: `x/**` beside `x` says nothing more)
    return tuple(g for g in dict.fromkeys(globs) if not (g.endswith("/**") and g[:-3] in globs))


def outside_config(docs_dir: Path, roots: Sequence[Path]) -> Path | None:
    """A Hugo configuration above the docs folder but outside the source roots whose `cascade`
    never renders some of the docs' pages (see the module docstring), else None."""
    if find(docs_dir, roots) is not None:
        return None
    here = docs_dir.resolve()
    for folder in list(here.parents)[:MAX_LEVELS]:
        if any((folder / name).is_file() for name in CONFIGS):
            site = find(docs_dir, (docs_dir, folder))
            if site is not None and never_rendered(docs_dir, (docs_dir, folder)):
                return site.config
            return None
    return None
