"""A GitBook space kept in git (Git Sync): its `.gitbook.yaml` names the space's `root` folder
(`./docs/` in Feast's repository), and in `structure` the space's home page (`readme`,
default `README.md`) and table of contents (`summary`, default `SUMMARY.md`), both relative to
the root. GitBook publishes the pages under the root that the summary lists; the summary itself
is the sidebar, no page.

What the build takes from it (site_build.unbuilt, navfiles.read_nav): the summary is read for
the pages' titles and order and is no page (a build without a manifest indexed it: its links to
every page outranked the pages, as mdBook's did before init excluded it), a summary under
another name (`structure.summary: toc.md`) too, and with `--docs-dir` at the repository, what
lies outside the root is not the space's (Feast: the repository's README beside `docs/`).
The file is found in the docs folder or above it within the source roots (site_config's
`config_above`); GitBook's blocks in the pages are formats/markdown/gitbook.py's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.sources.site_config import config_above, read_yaml

CONFIG = ".gitbook.yaml"
_DEFAULT_SUMMARY = "SUMMARY.md"
_DEFAULT_README = "README.md"


@dataclass(frozen=True)
class Space:
    """A `.gitbook.yaml` as read: the space's root folder, its summary and home page files
    (resolved paths; the files may be missing)."""

    config: Path
    root: Path
    summary: Path
    readme: Path


def _relative(value: object, default: str) -> str:
    """A path setting of `.gitbook.yaml` as a relative path ("" for its folder itself)."""
    text = value.strip() if isinstance(value, str) and value.strip() else default
    parts = [p for p in text.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def find(docs_dir: Path, roots: Sequence[Path]) -> Space | None:
    """The GitBook space the docs folder is in: the nearest `.gitbook.yaml` at or above it
    within the source roots, or None (no such file, or one that is no mapping)."""
    config = config_above(docs_dir, roots, (CONFIG,))
    if config is None:
        return None
    data = read_yaml(config)
    if data is None:
        data = {}  # (an empty file: every setting its default)
    if not isinstance(data, dict):
        return None
    structure = data.get("structure")
    structure = structure if isinstance(structure, dict) else {}
    root = (config.parent / _relative(data.get("root"), ".")).resolve()
    top = config.parent.resolve()
    if root != top and top not in root.parents:
        root = top  # (a root outside the repository is none GitBook reads)
    summary = root / _relative(structure.get("summary"), _DEFAULT_SUMMARY)
    readme = root / _relative(structure.get("readme"), _DEFAULT_README)
    return Space(config, root, summary, readme)


def _glob_escape(text: str) -> str:
    """`text` matched literally, from the docs folder (a glob without `/` is at any depth)."""
    escaped = re.sub(r"([][*?{}\\])", r"\\\1", text)
    return escaped if "/" in escaped else "/" + escaped


def unbuilt(space: Space, docs_dir: Path, paths: Sequence[str]) -> tuple[str, ...]:
    """Globs (relative to docs_dir) of what the space does not publish as pages: its summary,
    and the files of `paths` outside its root."""
    here = docs_dir.resolve()
    globs: list[str] = []
    if here == space.summary.parent or here in space.summary.parents:
        # (a summary outside the docs folder is no page of it anyway)
        globs.append(_glob_escape(space.summary.relative_to(here).as_posix()))
    if space.root == here or here not in space.root.parents:
        return tuple(globs)
    inside = space.root.relative_to(here).parts
    for path in paths:
        parts = path.split("/")
        k = next((k for k, (a, b) in enumerate(zip(parts, inside, strict=False)) if a != b), None)
        if k is None and len(parts) > len(inside):
            continue  # under the root
        k = min(len(parts), len(inside)) - 1 if k is None else k
        glob = _glob_escape("/".join(parts[: k + 1]))
        globs.append(glob + "/**" if k + 1 < len(parts) else glob)
    return tuple(dict.fromkeys(globs))


def summary_file(space: Space) -> Path | None:
    """The space's summary when `.gitbook.yaml` names one other than a `SUMMARY.md` (which
    navfiles finds in any folder already), else None."""
    return space.summary if space.summary.name != _DEFAULT_SUMMARY else None
