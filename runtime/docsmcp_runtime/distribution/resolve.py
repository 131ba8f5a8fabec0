"""What the user passed to `--bundle`, as a bundle directory to memory-map: a plain directory is
returned as is; an archive or OCI layout is checked and unpacked into the cache (archive.py); an
`https://` URL (remote.py) or an `oci://` reference (registry_pull.py) is downloaded first.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .archive import locate_archive, unpack_to_cache
from .specs import OCI_SCHEME, default_cache_dir, is_remote
from .swap import recover

if TYPE_CHECKING:
    from .remote import FetchOptions


def resolve_bundle(
    spec: str | Path, cache_dir: Path | None = None, fetch: FetchOptions | None = None
) -> Path:
    """The bundle directory to memory-map for `spec`.

    - a bundle directory: returned unchanged (the caller opens and checks it);
    - an `oci://` reference (registry_pull.py) or an `https://` URL (remote.py): pulled, then as
      below;
    - a `.tar.gz` archive, an OCI layout directory, or `LAYOUT:TAG`: the archive (or layer) is
      hashed and checked against its digest, then unpacked once into
      `CACHE/bundles/<sha256 of the archive>/` and verified with `open_bundle(verify=True)`.
      Later calls with the same archive return that directory without unpacking again.

    `cache_dir` defaults to `default_cache_dir()`. Unpacking goes to a temporary directory in
    the cache that is renamed into place, so a crash never leaves a half-written bundle and
    concurrent starters are safe: whoever renames second discards its copy and uses the first.
    An `https://` URL is downloaded first (remote.py; `fetch` bounds it, default from the
    environment). Raises BundleError with a one-line reason.
    """
    # The default root only when it is needed: a plain directory must serve even where no home
    # directory can be found (containers run under an arbitrary uid without HOME). Only
    # references and URLs pay for importing the HTTP clients (remote_fetch.py, registry_pull.py).
    if isinstance(spec, str) and spec.startswith(OCI_SCHEME):
        from .registry_pull import pull_bundle

        return pull_bundle(spec, cache_dir if cache_dir is not None else default_cache_dir())
    if is_remote(spec):
        from .remote_fetch import resolve_remote

        root = cache_dir if cache_dir is not None else default_cache_dir()
        return resolve_remote(str(spec), root, fetch)
    path = Path(spec)
    if not path.exists() and not path.is_symlink():
        # A build replacing PATH may have died between its two renames: use (and restore) the
        # previous bundle it parked beside PATH (swap.py).
        recovered = recover(path, remove=False)
        if recovered is not None:
            return recovered
    source = locate_archive(spec)
    if source is None:
        return path
    return unpack_to_cache(source, cache_dir if cache_dir is not None else default_cache_dir())
