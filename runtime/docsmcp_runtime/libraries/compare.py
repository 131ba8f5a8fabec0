"""`compare_versions`: what changed between two versions of one library (bundle/changes.py),
remembered per pair.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

from ..bundle.versions import resolve as resolve_version
from ..errors import BundleError
from ..tools.app import DocsApp
from ..tools.toolargs import ToolInputError, check_fields, int_arg, json_result, str_arg
from ..tools.tooldefs import COMPARE_LIMIT, MAX_COMPARE_LIMIT
from .library import LIBRARY_ARG, Library, _key_of, _version_key

if TYPE_CHECKING:
    from ..bundle.changes import Report

# compare_versions reports remembered per server (a report holds both bundles' texts).
REPORT_CACHE = 4


def compare_result(
    report: Report, old_prefix: str, new_prefix: str, path: str | None, limit: int
) -> dict[str, Any]:
    """compare_versions' answer from a report: counts and pages (under `path` when given), and
    at most `limit` entries (and pages) of each kind, ids with the versions' prefixes."""
    if path:
        report = report.under(path.removeprefix("./").lstrip("/"))
    data = report.to_json(limit)
    for entry in data["entries"]:
        for side, prefix in (("old_id", old_prefix), ("new_id", new_prefix)):
            if entry[side] is not None:
                entry[side] = prefix + entry[side]
    pages = data["pages"]
    return {
        "counts": data["counts"],
        "page_counts": {kind: len(items) for kind, items in pages.items()},
        "pages": {kind: items[:limit] for kind, items in pages.items()},
        "entries": data["entries"],
        "omitted": data["omitted"],
    }


class CompareVersions:
    """LibraryApp's `compare_versions` tool (a mixin: it reads the app's libraries)."""

    _versioned: dict[str, Library]  # the libraries of several named versions
    _reports: dict[tuple[str, str], Report]  # recent pairs (at most REPORT_CACHE)
    _reports_lock: threading.Lock

    def compare_versions(self, args: dict) -> dict:
        check_fields(args, ("library", "old_version", "new_version", "path", "limit"))
        notes: list[str] = []
        name = str_arg(args, LIBRARY_ARG)
        if name is None:
            if len(self._versioned) > 1:
                raise ToolInputError(
                    f"compare_versions needs `{LIBRARY_ARG}`: one of {', '.join(self._versioned)}."
                )
            name = next(iter(self._versioned))
        lib = self._versioned.get(name)
        if lib is None:
            raise ToolInputError(
                f"'{name}' has no two versions to compare; libraries with versions: "
                f"{', '.join(self._versioned)}."
            )
        versions = lib.named
        new_version = self._version_arg(lib, args, "new_version", "latest", notes)
        before = [v for v in versions if _version_key(v) < _version_key(new_version)]
        default_old = before[-1] if before else None
        old_arg = str_arg(args, "old_version")
        if old_arg is None and default_old is None:
            raise ToolInputError(
                f"{new_version} is the oldest version of {name}; give old_version "
                f"({', '.join(versions)})."
            )
        old_version = self._version_arg(lib, args, "old_version", default_old, notes)
        path = str_arg(args, "path")
        limit = int_arg(args, "limit", COMPARE_LIMIT, 1, MAX_COMPARE_LIMIT, notes)
        old_app = lib.apps[lib.versions.index(old_version)]
        new_app = lib.apps[lib.versions.index(new_version)]
        report = self._report(old_app, new_app)
        result = {
            LIBRARY_ARG: name,
            "old_version": old_version,
            "new_version": new_version,
            **compare_result(
                report, old_app.bundle.id_prefix, new_app.bundle.id_prefix, path, limit
            ),
        }
        if old_version == new_version:
            notes.append("old_version and new_version are the same version: nothing changed.")
        return json_result(result, notes)

    @staticmethod
    def _version_arg(
        lib: Library, args: dict, key: str, default: str | None, notes: list[str]
    ) -> str:
        wanted = str_arg(args, key) or default
        assert wanted is not None
        versions = lib.named
        resolved = resolve_version(wanted, versions)
        if resolved is None:
            raise ToolInputError(
                f"No version of {lib.name} matches {json.dumps(wanted)} ({key}). Available "
                f"versions: {', '.join(versions)}."
            )
        if resolved != wanted and str_arg(args, key) is not None:
            notes.append(f"{key} {json.dumps(wanted)} resolved to {resolved!r}.")
        return resolved

    def _report(self, old: DocsApp, new: DocsApp) -> Report:
        """The comparison of two bundles, remembered (bundles never change under a server)."""
        key = (old.bundle.bundle_id + _key_of(old), new.bundle.bundle_id + _key_of(new))
        report = self._reports.get(key)
        if report is None:
            # Imported on the first comparison: the changes modules (with difflib) were ~10 ms of
            # every server's cold start.
            from ..bundle.changes import DiffError, side_of
            from ..bundle.changes_match import match
            from ..bundle.changes_report import classify

            try:
                a = side_of(old.bundle, _key_of(old))
                b = side_of(new.bundle, _key_of(new))
            except DiffError as exc:
                raise BundleError(str(exc)) from None
            report = classify(a, b, match(a, b))
            with self._reports_lock:
                if len(self._reports) >= REPORT_CACHE:
                    self._reports.pop(next(iter(self._reports)))
                self._reports[key] = report
        return report
