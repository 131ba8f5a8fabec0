"""What a `--bundle` value names, told from its text alone: a URL (remote.py downloads it), an
`oci://` reference (registry_pull.py), or a path (a bundle folder, an archive, an OCI layout:
archive.py); and the names and defaults of the options that bound a download. Kept apart from
archive.py and remote.py so that a start serving a bundle folder imports none of the archive,
download and swap code (~6 ms of a terminal search's ~165).
"""

from __future__ import annotations

import os
from pathlib import Path

OCI_SCHEME = "oci://"  # `--bundle oci://REGISTRY/REPO:TAG` (registry.py)

# Schemes of release assets (remote.py): https, and http only to this machine (tests).
REMOTE_SCHEMES = ("https://", "http://")


def is_remote(spec: str | Path) -> bool:
    """Whether a `--bundle` value is a URL (downloaded by remote.py) rather than a path."""
    return isinstance(spec, str) and spec.lower().startswith(REMOTE_SCHEMES)


OCI_LAYOUT_FILE = "oci-layout"

# The most bundles one server opens from `--bundle` values (each is memory-mapped and holds a
# few open files): far above the 20 of the multi-bundle benchmark, far below any fd limit.
MAX_BUNDLES = 200

ENV_SHA256 = "DOCSMCP_BUNDLE_SHA256"
ENV_MAX_BYTES = "DOCSMCP_BUNDLE_MAX_BYTES"
ENV_TIMEOUT = "DOCSMCP_BUNDLE_TIMEOUT"
ENV_UNVERIFIED = "DOCSMCP_BUNDLE_UNVERIFIED"

# A bundle with vectors of a large corpus is a few hundred MB; far beyond that is a mistake or
# an attack, so it is refused before or while downloading (--bundle-max-bytes raises it).
DEFAULT_MAX_BYTES = 1 << 30
# Seconds a connect or a read may wait without progress; the whole download (all resumes)
# must end within DEADLINE_FACTOR times this, so a server trickling bytes cannot hold a start.
DEFAULT_TIMEOUT = 30.0
DEADLINE_FACTOR = 30


def default_cache_dir() -> Path:
    """`$DOCSMCP_CACHE_DIR`, else `$XDG_CACHE_HOME/docsmcp`, else `~/.cache/docsmcp`: where
    archives unpack and downloads land (archive.py, remote_fetch.py), and the cursor key
    (protocol/cursor.py), which every start reads."""
    explicit = os.environ.get("DOCSMCP_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg) / "docsmcp"
    return Path.home() / ".cache" / "docsmcp"
