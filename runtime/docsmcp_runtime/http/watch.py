"""The served bundle, and `--watch`: serving a new bundle when its path is atomically replaced."""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable

from .. import __version__, logs
from ..bundle.reader import Bundle
from ..errors import BundleError
from ..format import MAX_FILES, METADATA_FILE
from ..libraries.app import LibraryApp
from ..libraries.serving import open_bundles, serving_app
from ..protocol.dispatcher import Dispatcher
from ..records import record
from .settings import HttpSettings


@record
class Served:
    """One opened bundle and what answering from it needs. Replaced whole by --watch."""

    dispatcher: Dispatcher
    bundle_id: str
    health: bytes  # the /healthz body, encoded once
    bundles: tuple[Bundle, ...] = ()

    def health_reply(self) -> tuple[int, bytes]:
        """/healthz: 200 and the body above, or 503 naming a file that failed the background
        check of large files (integrity.py): a bundle that serves tool errors is not healthy."""
        for bundle in self.bundles:
            problem = bundle.integrity
            if problem is not None and problem != "checking":
                doc = {"status": "error", "bundle_id": bundle.bundle_id, "error": problem}
                return 503, json.dumps(doc, ensure_ascii=False).encode()
        return 200, self.health


def load(path: str, settings: HttpSettings) -> Served:
    """Open a bundle (directory, archive or OCI layout) for serving; raises BundleError."""
    if settings.watch and str(path).startswith("oci://"):
        raise BundleError(
            "--watch follows a bundle path; an oci:// reference is resolved once, at start"
        )
    bundles = open_bundles(
        [path, *settings.more_bundles], verify=settings.verify, fetch=settings.fetch
    )
    if settings.watch and len(bundles) > 1:
        raise BundleError("--watch follows one bundle path; serve several bundles without --watch")
    app = serving_app(bundles, settings.search, settings.tools)
    if len(bundles) == 1:
        return Served(
            Dispatcher(app),
            bundles[0].bundle_id,
            _health_body(bundles[0], settings.health_commit),
            tuple(bundles),
        )
    assert isinstance(app, LibraryApp)
    health = _libraries_health(app, settings.health_commit)
    return Served(Dispatcher(app), app.bundle_id, health, tuple(bundles))


def _libraries_health(app: LibraryApp, with_commit: bool) -> bytes:
    """/healthz of a server of several bundles: the sum, and each library's own figures."""
    doc = {
        "status": "ok",
        "bundle_id": app.bundle_id,
        "chunks": sum(a.bundle.n_chunks for a in app.apps),
        "runtime": __version__,
        "libraries": [
            {
                "name": a.bundle.metadata.name,
                "version": a.bundle.metadata.version,
                "bundle_id": a.bundle.bundle_id,
                "format_version": a.bundle.metadata.format_version,
                "source_commit": a.bundle.metadata.source.commit if with_commit else None,
                "chunks": a.bundle.n_chunks,
            }
            for a in app.apps
        ],
    }
    return json.dumps(doc, ensure_ascii=False).encode()


def _health_body(bundle: Bundle, with_commit: bool) -> bytes:
    meta = bundle.metadata
    doc = {
        "status": "ok",
        "bundle_id": bundle.bundle_id,
        "format_version": meta.format_version,
        "name": meta.name,
        "build": {"builder": meta.builder},
        "source_commit": meta.source.commit if with_commit else None,
        "chunks": bundle.n_chunks,
        "runtime": __version__,
    }
    return json.dumps(doc, ensure_ascii=False).encode()


@record
class Signature:
    """What changes when PATH changes: its resolved target, and the identity, size and mtime of
    every file in it (a bundle holds a dozen), so a copy still in progress is looked at again
    when any of its files changes."""

    real: str
    ids: tuple[object, ...]


def signature(path: str) -> Signature | None:
    real = os.path.realpath(path)
    try:
        d = os.stat(real)
        if not os.path.isfile(os.path.join(real, METADATA_FILE)):
            return None  # mid-swap or gone; the next poll decides
        with os.scandir(real) as it:
            entries = sorted(it, key=lambda e: e.name)[: 2 * MAX_FILES]
        files = tuple(
            (e.name, s.st_ino, s.st_mtime_ns, s.st_size)
            for e in entries
            for s in (e.stat(follow_symlinks=False),)
        )
    except OSError:
        return None
    return Signature(real, (d.st_dev, d.st_ino, *files))


class BundleWatcher:
    """Polls the bundle path and installs a new bundle once it has been opened completely.

    Requests in flight keep the `Served` they started with (their mmaps stay valid even if
    the old directory is deleted), so a swap never drops or mixes a request. A bundle that
    fails to open is logged and skipped; the old one keeps serving, and the bundle is tried
    again as soon as any of its files changes (a copy that was still in progress).
    """

    def __init__(
        self,
        settings: HttpSettings,
        seen: Signature | None,
        current: Callable[[], Served],
        install: Callable[[Served], None],
    ) -> None:
        self._settings = settings
        self._seen = seen
        self._current = current
        self._install = install
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

    def start(self) -> None:
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="docsmcp-watch", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self._settings.watch_interval):
            try:
                self.check()
            except Exception as exc:  # the watcher must outlive any surprise
                logs.event(logging.ERROR, "watch_error", error=f"{type(exc).__name__}: {exc}")

    def check(self) -> None:
        sig = signature(self._settings.bundle)
        if sig is None or sig == self._seen:
            return
        self._seen = sig
        old = self._current()
        try:
            new = load(sig.real, self._settings)
            for bundle in new.bundles:  # a swap installs only a completely checked bundle
                bundle.ready()
        except BundleError as exc:
            logs.event(
                logging.ERROR,
                "bundle_reload_failed",
                path=sig.real,
                error=str(exc),
                bundle_id=old.bundle_id,
                message=f"still serving bundle {old.bundle_id}; will try again when a file "
                "of the bundle changes",
            )
            return
        if new.bundle_id == old.bundle_id:
            return  # same content under a new inode (e.g. a rebuild): nothing to do
        self._install(new)
        logs.event(
            logging.INFO,
            "bundle_reloaded",
            path=sig.real,
            old_bundle_id=old.bundle_id,
            bundle_id=new.bundle_id,
        )
