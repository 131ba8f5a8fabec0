"""`compare_versions` over the libraries of several versions: the tool itself is
tools/compare_versions.py; this is what it reads of the server, the comparison of two bundles
(bundle/changes.py), remembered per pair.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import BundleError
from ..tools import compare_versions
from ..tools.context import DocsContext, Memo
from .library import Library, _key_of

if TYPE_CHECKING:
    from ..bundle.changes import Report

# compare_versions reports remembered per server (a report holds both bundles' texts).
REPORT_CACHE = 4


class CompareVersions:
    """LibraryApp's `compare_versions` tool (a mixin: it reads the app's libraries)."""

    versioned: dict[str, Library]  # the libraries of several named versions
    _reports: Memo  # recent pairs (at most REPORT_CACHE)

    def compare_versions(self, args: dict) -> dict:
        return compare_versions.run(self, compare_versions.parse(self, args))

    def report(self, old: DocsContext, new: DocsContext) -> Report:
        """The comparison of two bundles, remembered (bundles never change under a server)."""

        def compare() -> Report:
            # Imported on the first comparison: changes.py (with difflib) was ~10 ms of every
            # server's cold start.
            from ..bundle.changes import DiffError, side_of
            from ..bundle.changes_match import match
            from ..bundle.changes_report import classify

            try:
                a = side_of(old.bundle, _key_of(old))
                b = side_of(new.bundle, _key_of(new))
            except DiffError as exc:
                raise BundleError(str(exc)) from None
            return classify(a, b, match(a, b))

        key = (old.bundle.bundle_id + _key_of(old), new.bundle.bundle_id + _key_of(new))
        return self._reports.get(key, compare)
