"""A Hugo site around a docs folder: where its content root is, and which pages its own
configuration and sections make headless.

- The site is the nearest folder at or above the docs folder (within the source roots) holding a
  Hugo configuration (`hugo.yaml`, `hugo.toml`, `config/_default/hugo.yaml`, ...).
- Its content root is `content/` there, or `content/<language>/` when the docs folder lies in
  such a folder (OpenTelemetry's `content/en/docs`): what a path starting with `/` in an include
  shortcode names, and the top of the folders an include is looked up in (hugo_includes.py).
- Pages Hugo makes headless, never rendered and never listed (`build: {render: never, list:
  never}`; `_build` and `false` before Hugo 0.123), exist only to be included in others: by a
  `cascade` entry of the configuration with a `target.path` glob (OpenTelemetry's
  `{,/**}/_includes{,/**}`, the fragments its include shortcode inserts), or of a section's
  `_index.md` front matter, for the pages below it (Hugo's docs: `_common/`). `never_rendered`
  gives them as globs of the docs folder (site_build.unbuilt: a build without a manifest
  leaves them out and says so; init proposes the same excludes). Pages that are not rendered
  but listed (Hugo's glossary terms, shown on the glossary's page) stay pages.
- A page's own front matter may say the same (`_build: {render: never, list: never}`:
  Kubernetes' 338 feature-gate pages, shown only in the feature-gates page's tables, and its
  `included/` fragments), and a leaf bundle's `index.md` with `headless: true` makes the bundle
  (the page and every file below its folder) headless. `unrendered` names these pages once they
  are read (the shortcodes that show them need them first: hugo_gates.py); the build leaves
  them out and says so.
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

from docsmcp.model.source import SourceFile
from docsmcp.sources.frontmatter import split_frontmatter
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
# A section's own page, whose front matter `cascade` reaches the pages below it.
_SECTION_PAGES = ("_index.md", "_index.markdown")


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


_NOTHING = object()  # (a cascade entry that targets no path: the section's own pages)


def _headless(entry: object) -> object:
    """What a cascade entry that makes pages headless (never rendered, never listed) targets:
    its `target.path` glob, _NOTHING when it has no target; None for any other entry."""
    if not isinstance(entry, Mapping):
        return None
    build = entry.get("build", entry.get("_build"))
    if not isinstance(build, Mapping):
        return None
    if build.get("render") not in ("never", False) or build.get("list") not in ("never", False):
        return None  # (listed pages show in their section's page: the glossary's terms)
    target = entry.get("target", entry.get("_target"))
    if target is None:
        return _NOTHING
    path = target.get("path") if isinstance(target, Mapping) else None
    return path if isinstance(path, str) and path.strip() else None


def unrendered(files: Sequence[SourceFile]) -> frozenset[str]:
    """The paths of `files` Hugo never renders by their own front matter: `build`/`_build`
    with `render` and `list` never (or false), and the headless bundles' pages (see the module
    docstring)."""
    out = []
    bundles = []
    for sf in files:
        front = sf.frontmatter_with("build", "_build", "headless")
        if not front:
            continue
        if _headless({k: v for k, v in front.items() if k in ("build", "_build")}) is _NOTHING:
            out.append(sf.path)
        elif front.get("headless") is True and posixpath.basename(sf.path) == "index.md":
            bundles.append(posixpath.dirname(sf.path))
    for sf in files if bundles else ():
        if any(b == "" or sf.path.startswith(b + "/") for b in bundles):
            out.append(sf.path)
    return frozenset(out)


def _entries(cascade: object) -> list[object]:
    return cascade if isinstance(cascade, list) else [cascade]


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


def never_rendered(
    docs_dir: Path, roots: Sequence[Path], paths: Sequence[str] = ()
) -> tuple[str, ...]:
    """Globs of the docs folder for the pages a Hugo site makes headless (see the module
    docstring): by its configuration's cascade, and by the cascade of a section's `_index.md`
    among `paths` (Hugo's docs: `_common/_index.md`); () when none."""
    site = find(docs_dir, roots)
    content = site.content if site is not None else docs_dir
    try:
        prefix = docs_dir.resolve().relative_to(content.resolve()).as_posix()
    except ValueError:
        prefix = "."
    prefix = "" if prefix == "." else prefix
    globs: list[str] = []
    if site is not None:
        data = _load(site.config)
        for entry in _entries(data.get("cascade") if isinstance(data, Mapping) else None):
            if isinstance(glob := _headless(entry), str):
                globs += _relative(glob, prefix)
    for path in paths:
        folder, _, name = path.rpartition("/")
        if name not in _SECTION_PAGES or not folder:
            continue
        text = read_text(docs_dir / path)
        if "cascade" not in text or "never" not in text and "false" not in text:
            continue  # (most sections cascade nothing: their front matter is not parsed)
        data = split_frontmatter(text).data
        for entry in _entries(data.get("cascade")):
            glob = _headless(entry)
            if glob is _NOTHING:
                globs.append(f"{folder}/**")  # the section's pages
            elif isinstance(glob, str):
                globs += _relative(glob, prefix)
    # (a glob matches what its folder holds too: `x/**` beside `x` says nothing more)
    return tuple(g for g in dict.fromkeys(globs) if not (g.endswith("/**") and g[:-3] in globs))


def _relative(glob: str, prefix: str) -> list[str]:
    """A cascade's target path glob (from the content root) as globs of the docs folder, which
    is `prefix` below the content root ("" when it is the content root)."""
    out = []
    for alt in expand_braces(glob):
        alt = posixpath.normpath("/" + alt.strip()).lstrip("/")
        if alt.startswith("**"):
            out.append(alt)  # anywhere, the docs folder's pages too
        elif prefix and (alt == prefix or alt.startswith(prefix + "/")):
            out.append(alt[len(prefix) :].lstrip("/") or "**")
        elif not prefix and alt:
            # Anchored at the top (a glob without `/` would match at any depth).
            out.append(alt if "/" in alt else alt + "/**")
    return out


def outside_config(docs_dir: Path, roots: Sequence[Path]) -> Path | None:
    """A Hugo configuration above the docs folder but outside the source roots whose `cascade`
    makes some of the docs' pages headless (see the module docstring), else None."""
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
