"""Version folders as users lay them out, and which version is the latest release: the one home
of this rule, used by `docsmcp init` (which proposes it in the manifest) and by `docsmcp build`
(which applies it when no manifest says anything about `version`).

Folders (at the shallowest depth of 1 to 3 where sibling folders give at least two values, and
deeper down, outside those, where one folder's children give two values on their own: Express
has `api/3x/`, `api/4x/`, `api/5x/` and, under a language folder, `docs/en/4x/`, `docs/en/5x/`):
* numbered: `v2`, `2.x`, `4x`, `1.4`, `0.5.1-beta`, `version-0.5.x` (`version-` is dropped from
  the value); a plain number or a year is not a version (`01/`, `2024/` are chapters and
  archives);
* dated: `2025-11-25` (a protocol's revisions);
* neither under a folder of posts or of notes per release (`blog`, `news`, `posts`,
  `changelog`, `releases`, `prerelease`, `whatsnew`, ...: Quarto's `prerelease/1.3/`);
* channels beside at least one of those: `next`, `draft`, `unreleased`, `current`, `latest`,
  `stable`, `main`, `master`, `dev`, `canary`, `nightly` (alone they are ordinary folder names);
* Docusaurus: every `versioned_X/version-NAME/` is version NAME (`version-stable` too), and
  `X/` is `current` beside `versioned_X/version-*/`, or the folder the site's
  `docusaurus.config.*` gives as its docs `path` (Jest: `website/versioned_docs/` and
  `path: '../docs'`) when it holds pages of the versioned ones; the site may be any folder of
  the tree (`website/`). The current docs are the version the site names them when it does
  (`_current_value`: tRPC's `current: {label: '11.x'}`, pnpm's `lastVersion` 11.x with no
  `version-11.x/` folder), else `current` when they are its `lastVersion`, else `next`, the
  unreleased docs Docusaurus labels "Next" (Jest's `docs/`). mkdocs-mike folders are numbered
  or channel folders (`0.2/`, `latest/`).

The latest release (`latest_of`): the version the site's own configuration shows by default,
when it names one of the values (Mintlify `docs.json`/`mint.json`: the `versions` entry with
`default: true` or "latest" in its label; mike's `versions.json`: the version with the `latest`
alias; Docusaurus: `lastVersion` in `docusaurus.config.*`, else the first of `versions.json`,
read in the tree's root and in each Docusaurus site folder);
otherwise the highest released number or date (`docsmcp_runtime.bundle.versions.is_release`:
no draft, next, current or -rc/-beta/-alpha), else `stable` or `latest` when such a folder exists.
"""

from __future__ import annotations

import logging
import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from docsmcp_runtime.bundle.versions import is_release, order_key, parse

from docsmcp.sources.site_config import DOCUSAURUS_CONFIGS, read_json, read_text

log = logging.getLogger(__name__)

KEY = "version"
DESCRIPTION = "Docs version the page belongs to (from versioned folder names)."
MAX_DEPTH = 3
# A word after the numbers is a pre-release mark (`0.5.1-beta`, `v1alpha1`, `1.0-SNAPSHOT`):
# any other word names a flavour of the version, not another one (zod's `src/v4-mini/` beside
# `src/v4/`, read as a version, was the "latest" and held no page).
_MARK = r"(?:[-.]?(?:rc|beta|alpha|a|b|dev|pre|preview|snapshot|canary|nightly|next|lts)\d*)?"
_NUMBERED = re.compile(
    r"(?:version[-_]?|v)\d+(?:\.(?:\d+|x|\*))*" + _MARK + "|"  # v2, version-0.5.x
    r"\d+(?:\.(?:\d+|x|\*))+" + _MARK + "|"  # 1.x, 2.0, 0.5.1-beta
    r"\d+x",  # Express: `4x/`, `5x/` (a major version's line, read as `4.x`)
    re.IGNORECASE,
)
_DATED = re.compile(r"\d{4}-\d{2}-\d{2}")
CHANNELS = frozenset(
    {"current", "next", "latest", "stable", "draft", "unreleased", "main", "master", "dev"}
    | {"canary", "nightly"}
)
# Folders whose dated children are posts, not versions.
_POSTS = frozenset(
    {"blog", "blogs", "news", "posts", "changelog", "changelogs", "releases", "release-notes"}
    # one folder of notes per release (Quarto's `prerelease/1.3/`: what 1.3 brings, no docs)
    | {"prerelease", "prereleases", "whatsnew", "whats-new"}
)
# `lastVersion: '1.0'`, or a name the configuration defines (`lastVersion: lastDocsVersion`).
_LAST_VERSION = re.compile(r"""lastVersion\s*:\s*['"]?([\w.-]+)""")
# The label of the current docs (`versions: {current: {label: '11.x', …}}`).
_CURRENT_LABEL = re.compile(r"""\bcurrent['"]?\s*:\s*\{[^{}]*?\blabel\s*:\s*['"]([^'"\n]+)['"]""")
# A plugin option `path: '../docs'` (the docs folder, relative to the site folder).
_CONFIG_PATH = re.compile(r"""\bpath\s*:\s*['"]([^'"\n]+)['"]""")
_VERSIONED = re.compile(r"versioned[-_](.+)")
# A Docusaurus site's unreleased current docs (its label "Next", its path `next/`).
NEXT = "next"


@dataclass(frozen=True)
class Layout:
    """Version folders (folder path -> value) and the latest release among the values."""

    folders: Mapping[str, str] = field(default_factory=dict)
    latest: str | None = None
    why: str = ""  # how `latest` was chosen, for init's report

    def value_of(self, path: str) -> str | None:
        """The version of the file at `path`: its deepest version folder's value."""
        return folder_value(self.folders, path)


def folder_value(folders: Mapping[str, str], path: str) -> str | None:
    """The value of the deepest of `folders` (folder path -> value) holding the file at
    `path`, else None (variants.py's folders too)."""
    folder = holding_folder(folders, path)
    return None if folder is None else folders[folder]


def holding_folder(folders: Mapping[str, object], path: str) -> str | None:
    """The deepest of `folders` holding the file at `path`, else None: a dictionary look-up
    per folder level, deepest first."""
    folder = path.rpartition("/")[0]
    while folder:
        if folder in folders:
            return folder
        folder = folder.rpartition("/")[0]
    return None


def value_of_name(name: str) -> str | None:
    """The version a folder name gives on its own (numbered or dated), else None."""
    if _DATED.fullmatch(name):
        return name
    if _NUMBERED.fullmatch(name):
        return re.sub(r"^version[-_]?", "", name, flags=re.IGNORECASE)
    return None


def _folders(paths: Iterable[str], depth: int) -> dict[str, set[str]]:
    """parent folder -> names of its child folders at `depth` (1: top folders)."""
    out: dict[str, set[str]] = defaultdict(set)
    for path in paths:
        parts = path.split("/")[:-1]
        if len(parts) >= depth:
            out["/".join(parts[: depth - 1])].add(parts[depth - 1])
    return out


def folders(paths: Iterable[str], docs_dir: Path | None = None) -> dict[str, str]:
    """folder path -> version value, at the shallowest depth giving two values or more (the
    Docusaurus configuration read from `docs_dir`, when given)."""
    paths = sorted(paths)
    out: dict[str, str] = {}
    settled = False  # a shallower depth gave the versions: deeper ones need two per folder
    for depth in range(1, MAX_DEPTH + 1):
        for parent, names in sorted(_folders(paths, depth).items()):
            if parent.rpartition("/")[2].lower() in _POSTS:
                continue
            if settled and folder_value(out, parent + "/x") is not None:
                continue  # inside a version folder: `v2/api/v1/` is not another version
            found = {n: v for n in sorted(names) if (v := value_of_name(n))}
            if settled and len(set(found.values())) < 2:
                continue  # a lone `v2/` deep down is an API's name, not the docs' version
            if _VERSIONED.fullmatch(parent.rpartition("/")[2]):
                # Docusaurus names its versions freely: `version-stable` (Prettier) is one.
                for n in sorted(names):
                    if n.lower().startswith("version-") and n[8:]:
                        found.setdefault(n, n[8:])
            if not found:
                continue
            found.update({n: n.lower() for n in names if n.lower() in CHANNELS})
            for name, value in sorted(found.items()):
                out[f"{parent}/{name}" if parent else name] = value
            # Docusaurus: versioned_X/version-V and the current docs.
            current = _docusaurus_current(parent, paths, docs_dir)
            if current is not None and current not in out:
                taken = {v for f, v in out.items() if f.startswith(parent + "/")}
                out[current] = _current_value(parent.rpartition("/")[0], docs_dir, taken)
        settled = settled or len(set(out.values())) >= 2
    return out if settled else {}


def _docusaurus_current(versioned: str, paths: list[str], docs_dir: Path | None) -> str | None:
    """The folder of the current docs of a Docusaurus site whose versions are in `versioned`
    (`[site/]versioned_X`): `[site/]X` when it exists, else the docs `path` of the site's
    configuration (`../docs`, relative to the site folder) when most of that folder's pages are
    pages of the versioned ones (a blog's `path` holds none, a second docs plugin's few); None
    for any other folder."""
    site, _, name = versioned.rpartition("/")
    m = _VERSIONED.fullmatch(name)
    if m is None:
        return None
    sibling = f"{site}/{m.group(1)}" if site else m.group(1)
    if any(p.startswith(sibling + "/") for p in paths):
        return sibling
    if docs_dir is None:
        return None
    # Pages of the versions, relative to their version folder (`version-1.0/a.md` -> `a.md`).
    pages = {
        p[len(versioned) + 1 :].partition("/")[2] for p in paths if p.startswith(versioned + "/")
    }
    for config in DOCUSAURUS_CONFIGS:
        for given in _CONFIG_PATH.findall(read_text(docs_dir / site / config)):
            folder = posixpath.normpath(posixpath.join(site, given))
            if folder.startswith(("../", "/")) or folder in (".", versioned):
                continue  # outside the tree, or its root
            own = [p[len(folder) + 1 :] for p in paths if p.startswith(folder + "/")]
            # Most of its pages are pages of the versions: pnpm's `pnpr-docs/` (a second docs
            # plugin, another product) shares one page of ten with them, Jest's `docs/` 38 of 38.
            if own and 2 * sum(p in pages for p in own) >= len(own):
                return folder
    return None


def _current_value(site: str, docs_dir: Path | None, taken: set[str]) -> str:
    """The version of a Docusaurus site's current docs, as the site names them: the
    version-like label its configuration gives `current` (tRPC: `current: {label: '11.x'}`),
    else the version its `lastVersion` or `versions.json` names first when no `version-X`
    folder holds it (pnpm: 11.x, built from `docs/`); else `current` when `lastVersion:
    'current'` makes them the released docs the site shows first, and otherwise `next`: the
    unreleased docs, which Docusaurus labels "Next" and serves under `next/` (Jest: `docs/`
    beside `versioned_docs/version-30.4/`; named `current` they read as the current release)."""
    if docs_dir is None:
        return NEXT
    folder = docs_dir / site
    configs = [read_text(folder / name) for name in DOCUSAURUS_CONFIGS]
    named = [m.group(1) for text in configs if (m := _CURRENT_LABEL.search(text))]
    last = [_constant(text, m.group(1)) for text in configs for m in _LAST_VERSION.finditer(text)]
    listed = read_json(folder / "versions.json")
    firsts = (
        [listed[0]] if isinstance(listed, list) and listed and isinstance(listed[0], str) else []
    )
    for value in [*named, *last, *firsts]:
        if (
            value
            and value.lower() not in CHANNELS
            and value not in taken
            and _NUMBERED.fullmatch(value)
        ):
            return value
    if "current" in last:
        return "current"
    return NEXT


def _constant(text: str, value: str) -> str:
    """`value`, or the string a `const NAME = '…'` of the same configuration gives it when
    `value` is that NAME (pnpm: `lastVersion: lastDocsVersion`)."""
    m = re.search(rf"""\b(?:const|let|var)\s+{re.escape(value)}\s*=\s*['"]([^'"\n]+)['"]""", text)
    return m.group(1) if m else value


def sites(found: Mapping[str, str]) -> list[str]:
    """The Docusaurus site folders among the version folders `found` (`""` for the root)."""
    out = set()
    for folder in found:
        parent = folder.rpartition("/")[0]
        if _VERSIONED.fullmatch(parent.rpartition("/")[2]):
            out.add(parent.rpartition("/")[0])
    return sorted(out)


def _mintlify_entries(data: object) -> Iterable[dict]:
    """Every `versions` entry (an object with a `version` label) of a Mintlify config."""
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "versions" and isinstance(value, list):
                yield from (v for v in value if isinstance(v, dict) and "version" in v)
            else:
                yield from _mintlify_entries(value)
    elif isinstance(data, list):
        for item in data:
            yield from _mintlify_entries(item)


def _named_in(label: str, values: Iterable[str]) -> str | None:
    """The longest value `label` names as a word ("Version 2026-07-28 (latest)")."""
    hits = [v for v in values if re.search(rf"(?<![\w.-]){re.escape(v)}(?![\w-])", label)]
    return max(hits, key=len) if hits else None


def configured_latest(
    docs_dir: Path, values: Iterable[str], site_folders: Iterable[str] = ()
) -> tuple[str | None, str]:
    """The latest version the site's configuration names among `values`, and where it says so:
    in `docs_dir`, then in each Docusaurus site folder (`website`) under it."""
    values = sorted(set(values))
    for site in [s for s in site_folders if s]:
        chosen, why = configured_latest(docs_dir / site, values)
        if chosen is not None:
            return chosen, f"{site}/{why}"
    for name in ("docs.json", "mint.json"):
        entries = list(_mintlify_entries(read_json(docs_dir / name)))
        chosen = [e for e in entries if e.get("default") is True]
        chosen += [e for e in entries if "latest" in str(e.get("version", "")).lower()]
        for entry in chosen:
            if value := _named_in(str(entry["version"]), values):
                return value, f"{name} shows it by default"
    data = read_json(docs_dir / "versions.json")
    if isinstance(data, list) and data:
        for entry in data:  # mike: [{"version", "title", "aliases"}]
            aliases = entry.get("aliases") if isinstance(entry, dict) else None
            value = str(entry.get("version")) if isinstance(entry, dict) else ""
            if isinstance(aliases, list) and "latest" in aliases and value in values:
                return value, "versions.json gives it the alias latest"
        if isinstance(data[0], str):  # Docusaurus: released versions, newest first
            for config in DOCUSAURUS_CONFIGS:
                text = read_text(docs_dir / config)
                if not (m := _LAST_VERSION.search(text)):
                    continue
                chosen = _constant(text, m.group(1))
                label = _CURRENT_LABEL.search(text)
                if chosen == "current" and label and label.group(1) in values:
                    chosen = label.group(1)  # the current docs, named by their label
                if chosen in values:
                    return chosen, f"{config} sets lastVersion"
            if data[0] in values:
                return data[0], "versions.json lists it first"
    return None, ""


def latest_of(
    values: Iterable[str], docs_dir: Path | None = None, site_folders: Iterable[str] = ()
) -> tuple[str | None, str]:
    """The latest released value among `values` and why (see the module docstring)."""
    values = sorted(set(values))
    if docs_dir is not None:
        chosen, why = configured_latest(docs_dir, values, site_folders)
        if chosen is not None:
            return chosen, why
    released = [v for v in values if is_release(v) and parse(v) is not None]
    if released:
        best = max(released, key=order_key)
        unreleased = sorted(v for v in values if not is_release(v))
        said = f"; {', '.join(unreleased)} not released" if unreleased else ""
        return best, f"the highest released version{said}"
    for name in ("stable", "latest"):
        if name in values:
            return name, f"the folder named {name}"
    return None, "no released version"


def antora(docs_dir: Path, paths: Iterable[str]) -> Layout:
    """The versions of the Antora components holding `paths`: each component folder's
    `antora.yml` `version`, where a component (`name`) is there in two versions or more (a
    component of one version is no choice: no filter of one value). The latest is, as Antora
    takes it, the highest version that is no prerelease (`prerelease:`), among the values of
    one such component; of several, none is declared (one value would hide the others)."""
    from docsmcp.sources.sites.antora import read_components

    by_name: dict[str, list] = defaultdict(list)
    for descriptor in read_components(docs_dir, paths).values():
        if descriptor.version:
            by_name[descriptor.name].append(descriptor)
    versioned = {
        name: found for name, found in by_name.items() if len({d.version for d in found}) >= 2
    }
    out = {d.folder: d.version for found in versioned.values() for d in found}
    if not out or "" in out:  # (a component at the docs folder itself: no folder to name)
        return Layout()
    if len(versioned) > 1:
        return Layout(dict(sorted(out.items())), None, "")
    (found,) = versioned.values()
    released = [d.version for d in found if not d.prerelease] or [d.version for d in found]
    latest = max(released, key=order_key)
    ahead = sorted({d.version for d in found if d.prerelease})
    said = f"; {', '.join(ahead)} a prerelease" if ahead else ""
    return Layout(dict(sorted(out.items())), latest, f"antora.yml: the highest version{said}")


_SUFFIXED = re.compile(r"[\w.-]+?[-_](v\d+(?:\.(?:\d+|x))*|\d+\.(?:\d+|x)(?:\.(?:\d+|x))*)")


def _suffixed(paths: list[str], found: Mapping[str, str]) -> dict[str, str]:
    """Folders named for one of the versions `found` after a name (zod's `packages/docs-v3/`,
    the Zod 3 docs beside the `v3` its package exports), outside every version folder: that
    version. Only a value the tree already has (Android's `drawable-v24` is no version)."""
    values = set(found.values())
    out: dict[str, str] = {}
    for path in paths:
        parts = path.split("/")[:-1]
        for k, name in enumerate(parts[:MAX_DEPTH]):
            m = _SUFFIXED.fullmatch(name)
            if m is None or m.group(1) not in values:
                continue
            folder = "/".join(parts[: k + 1])
            if folder not in out and folder_value(found, folder + "/x") is None:
                out[folder] = m.group(1)
            break
    return out


def detect(
    docs_dir: Path | None, paths: Iterable[str], declared: Mapping[str, str] | None = None
) -> Layout:
    """The version layout of the files at `paths` (relative to `docs_dir`, whose site
    configuration may name the latest release). An Antora component's own versions
    (antora.yml) are what its site publishes and names: they win over folder names.
    `declared` (folder -> version) are the version folders a package names itself, deeper
    than folder names are looked for (a TypeScript package's `exports`: zod's `./v3` and
    `./v4` in `packages/zod/src/`): they count where no folder name gives versions."""
    paths = list(paths)
    if docs_dir is not None and (components := antora(docs_dir, paths)).folders:
        log.debug("antora versions %s; latest %s", dict(components.folders), components.latest)
        return components
    found = folders(paths, docs_dir)
    if not found and declared:
        held = {v for f, v in declared.items() if any(p.startswith(f + "/") for p in paths)}
        if len(held) >= 2:  # (a single version is no choice)
            found = dict(sorted(declared.items()))
    if not found:
        return Layout()
    found.update(_suffixed(paths, found))
    latest, why = latest_of(found.values(), docs_dir, sites(found))
    log.debug("version folders %s; latest %s (%s)", sorted(found), latest, why)
    return Layout(dict(sorted(found.items())), latest, why)
