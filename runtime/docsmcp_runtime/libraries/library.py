"""A library: the bundles of one name, their id prefixes (`NAME:` or `NAME@VERSION:`) and
version order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..bundle.reader import Bundle
from ..bundle.versions import order_key
from ..bundle.versions import resolve as resolve_version
from ..errors import BundleError
from ..format import TaxonomyKey
from ..records import record
from ..tools.app import DocsApp

LIBRARY_ARG = "library"


_PREFIX_SEP = ":"


@record
class Library:
    """The bundles of one name, oldest version first (unversioned ones before versioned)."""

    name: str
    description: str
    apps: tuple[DocsApp, ...]
    versions: tuple[str, ...]  # the metadata version of each app ("" when it has none)

    @property
    def named(self) -> tuple[str, ...]:
        """The versions that have a name, oldest first."""
        return tuple(v for v in self.versions if v)

    @property
    def latest(self) -> DocsApp:
        if self.named:
            newest = resolve_version("latest", self.named)
            if newest is not None:
                return self.apps[self.versions.index(newest)]
        return self.apps[-1]

    def pick(self, version: str | None) -> tuple[DocsApp, str | None] | None:
        """The bundle a `version` names among this library's bundles, and a note when the
        request was resolved (a range, `latest`); None when no bundle matches."""
        if version is None:
            return self.latest, None
        resolved = resolve_version(version, self.named) if self.named else None
        if resolved is None:
            return None
        note = None if resolved == version else f"version {json.dumps(version)} resolved to "
        app = self.apps[self.versions.index(resolved)]
        return app, (note + repr(resolved) + f" in {self.name}.") if note else None


def library_keys(bundles: Sequence[Bundle]) -> list[str]:
    """The id prefix (without `:`) of each bundle: its name, or NAME@VERSION when several
    bundles share the name. Raises BundleError for two bundles of one name and version."""
    by_name: dict[str, list[int]] = {}
    for i, b in enumerate(bundles):
        by_name.setdefault(b.metadata.name, []).append(i)
    keys = [""] * len(bundles)
    for name, members in by_name.items():
        if len(members) == 1:
            keys[members[0]] = name
            continue
        seen: dict[str, int] = {}
        for i in members:
            version = bundles[i].metadata.version or ""
            if version in seen:
                other = bundles[seen[version]].path
                what = f"version {version!r}" if version else "no version"
                raise BundleError(
                    f"{bundles[i].path}: two bundles are named {name!r} with {what} (also "
                    f"{other}); rebuild one with another --name or --corpus-version"
                )
            seen[version] = i
            keys[i] = f"{name}@{version}" if version else name
    return keys


def _merged_taxonomy(apps: Sequence[DocsApp]) -> dict[str, TaxonomyKey]:
    """Every library's filter keys, with the values of all of them (first description wins)."""
    merged: dict[str, tuple[str, list[str]]] = {}
    for app in apps:
        for key, info in app.taxonomy.items():
            description, values = merged.setdefault(key, (info.description, []))
            values.extend(v for v in info.values if v not in values)
    return {
        key: TaxonomyKey(description=description, values=tuple(values))
        for key, (description, values) in sorted(merged.items())
    }


def _page_match(app: DocsApp, path: str) -> str | None:
    """How `path` names a page of the app without searching (PageMatch.matched_by), or None."""
    found = app.pages.find(path, lambda _query: [])
    return found.matched_by if found.index is not None else None


def _key_of(app: DocsApp) -> str:
    return app.bundle.id_prefix.removesuffix(_PREFIX_SEP)


def _description(app: DocsApp) -> str:
    meta = app.bundle.metadata
    return (meta.description or f"{meta.name} documentation").strip()


def _version_order(app: DocsApp) -> tuple:
    """Unversioned bundles first, then by `order_key`."""
    version = app.bundle.metadata.version or ""
    return (version != "", *order_key(version))
