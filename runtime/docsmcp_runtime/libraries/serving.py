"""What the `--bundle` values open, and what serves them: one bundle as itself, several as
libraries (app.py's LibraryApp, imported only then: a one-bundle start never pays for it).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..bundle.reader import Bundle, open_bundle
from ..distribution.specs import MAX_BUNDLES, OCI_LAYOUT_FILE
from ..format import METADATA_FILE
from ..search.options import SearchOptions
from ..tools.app import DocsApp
from ..tools.registry import ToolSelection

if TYPE_CHECKING:
    from ..distribution.remote import FetchOptions
    from .app import LibraryApp


def open_bundles(
    specs: Sequence[str], verify: bool = True, fetch: FetchOptions | None = None
) -> list[Bundle]:
    """Open every bundle `--bundle` values name (archive.expand_bundles; URLs downloaded within
    `fetch`'s bounds); BundleError naming the first that fails, or two that would share one id
    prefix."""
    if len(specs) <= MAX_BUNDLES and all(
        (Path(s) / METADATA_FILE).is_file() and not (Path(s) / OCI_LAYOUT_FILE).exists()
        for s in specs
    ):
        # Bundle folders (the usual start) are opened as they are: what resolve_bundle does
        # for one, without importing the archive and download code.
        bundles = [open_bundle(Path(s), verify=verify) for s in specs]
    else:
        from ..distribution.archive import expand_bundles
        from ..distribution.resolve import resolve_bundle

        bundles = [
            open_bundle(resolve_bundle(s, fetch=fetch), verify=verify)
            for s in expand_bundles(list(specs))
        ]
    if len(bundles) > 1:
        from .library import library_keys

        library_keys(bundles)  # refuse duplicates before anything serves
    return bundles


def serving_app(
    bundles: Sequence[Bundle],
    options: SearchOptions | None = None,
    selection: ToolSelection | None = None,
) -> DocsApp | LibraryApp:
    """What a server serves: one bundle as itself (ids unprefixed), several as libraries."""
    if len(bundles) == 1:
        return DocsApp(bundles[0], options, selection)
    from .app import LibraryApp

    return LibraryApp(bundles, options, selection)
