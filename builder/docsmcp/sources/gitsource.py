"""Docs read from a git repository: `--docs-dir URL|PATH [--ref REF] [--subdir DIR]`.

The repository is fetched into the cache (`CACHE/git/<name>-<hash of the URL>/repo`, a real
work tree, so `build.source_commit` records its commit as for any checkout) and checked out at
the commit `--ref` names (default: the remote's HEAD). Only that ref is fetched, one commit deep;
a commit id that the remote will not serve directly falls back to fetching every branch and tag.

Every git call runs without a terminal (`GIT_TERMINAL_PROMPT=0`, ssh in batch mode) and under a
timeout, so a remote asking for a password or never answering is an error, never a hang. Each
failure (git missing, remote unreachable, unknown ref, missing subfolder) is one `GitError` line.

A build from a git source whose docs tree is unchanged since the last build into the same OUT,
with the same options and builder, is skipped: `stamp_key` names those inputs, and the stamp
(`built.json` beside the repository) records the key and the `bundle_id` it gave, so a bundle
replaced or altered since is rebuilt. Repositories are evicted least recently used first when
there are more than `MAX_REPOSITORIES`.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from docsmcp_runtime.distribution.swap import replace_file
from docsmcp_runtime.format import METADATA_FILE

log = logging.getLogger(__name__)

# Seconds a fetch may take (a large repository over a slow link), and any other git command.
FETCH_TIMEOUT = 600
COMMAND_TIMEOUT = 60
# Repositories kept in the cache; the least recently used beyond this are removed.
MAX_REPOSITORIES = 16
STAMP_NAME = "built.json"

# `scheme://...` or scp-like `user@host:path`: a remote, not a local folder.
_URL = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*://|[\w.-]+@[\w.-]+:)")
_HEX = re.compile(r"^[0-9a-fA-F]{7,64}$")
# The transports a user means by a docs URL. Never `ext::` (runs a command) or `fd::`; git is
# told the same (GIT_ALLOW_PROTOCOL in _env) for whatever reaches it, submodules and redirects
# included. `file` also covers local paths.
ALLOWED_SCHEMES = ("https", "http", "ssh", "git", "file")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)(://|::)")
# git check-ref-format's rules (a name, not a pattern): no control character, space or
# ~ ^ : ? * [ \, no "..", "@{", "//", no component starting with "." or ending with ".lock",
# not starting or ending with "/", not ending with ".", not "@". And never a leading "-": git
# would read the ref as an option (`--upload-pack=CMD` runs CMD).
_BAD_REF = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|(^|/)\.|\.lock(/|$)|^[-/]|[/.]$|^@$")


class GitError(Exception):
    """Why the docs cannot be read from git, in one line."""


@dataclass(frozen=True)
class GitSource:
    location: str  # URL, or an absolute local path
    ref: str | None  # branch, tag or commit; None: the remote's HEAD
    subdir: str  # POSIX folder inside the repository, "" for its root


@dataclass(frozen=True)
class Checkout:
    source: GitSource
    repo_dir: Path  # the work tree in the cache
    docs_dir: Path  # repo_dir / subdir
    commit: str
    tree: str  # object id of the docs folder's tree at `commit`
    root_tree: str  # object id of the whole commit's tree
    name: str  # the corpus name it suggests (the repository's, or the subfolder's)

    @property
    def stamp_path(self) -> Path:
        return self.repo_dir.parent / STAMP_NAME


def is_remote(location: str) -> bool:
    return bool(_URL.match(location))


def wanted(docs_dir: str, ref: str | None, subdir: str | None) -> GitSource | None:
    """The git source `--docs-dir` names: a URL, or a local path given with --ref or --subdir;
    None for a plain folder. Raises GitError for a subfolder that would leave the repository."""
    scheme = _SCHEME.match(docs_dir)
    if scheme and (scheme.group(2) == "::" or scheme.group(1).lower() not in ALLOWED_SCHEMES):
        raise GitError(
            f"--docs-dir {docs_dir!r}: a git URL must be {', '.join(ALLOWED_SCHEMES[:-1])} or "
            "file://, user@host:path, or a local path"
        )
    if ref is not None and (not ref or _BAD_REF.search(ref)):
        raise GitError(f"--ref {ref!r} is not a branch, tag or commit name")
    if not is_remote(docs_dir) and ref is None and subdir is None:
        return None
    location = docs_dir if is_remote(docs_dir) else os.path.abspath(docs_dir)
    return GitSource(location, ref, _subdir(subdir or ""))


def _subdir(text: str) -> str:
    parts = [p for p in PurePosixPath(text.replace("\\", "/")).parts if p not in ("/", ".")]
    if ".." in parts or text.startswith("/"):
        raise GitError(f"--subdir {text!r} must be a folder inside the repository")
    return "/".join(parts)


def repo_name(location: str) -> str:
    """`https://github.com/org/pydantic.git` → pydantic."""
    tail = re.split(r"[/:]", location.rstrip("/"))[-1]
    return tail[:-4] if tail.endswith(".git") else tail or "docs"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        GIT_TERMINAL_PROMPT="0",  # never ask for a user name or password
        GIT_ASKPASS="",
        SSH_ASKPASS="",
        LC_ALL="C",  # messages we read are git's English ones
        GIT_ALLOW_PROTOCOL=":".join(ALLOWED_SCHEMES),
    )
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes -o ConnectTimeout=30")
    return env


def _git(
    repo: Path, *args: str, timeout: float = COMMAND_TIMEOUT
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", "-C", str(repo), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=_env(),
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise GitError(
            "git is not installed (or not on PATH); it is needed to read docs from a git "
            "repository (--docs-dir URL, --ref, --subdir)"
        ) from None
    except subprocess.TimeoutExpired:
        raise GitError(
            f"git {args[0]} did not finish within {timeout:g} s; nothing was built"
        ) from None


def _ok(res: subprocess.CompletedProcess[str], what: str) -> str:
    if res.returncode != 0:
        raise GitError(f"{what}: {_reason(res.stderr)}")
    return res.stdout.strip()


def _reason(stderr: str) -> str:
    """git's first `fatal:`/`error:`/`ssh:` line (the cause; later ones are generic advice),
    else its last line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("fatal:", "error:", "ssh:")):
            return line.partition(":")[2].strip()
    return lines[-1] if lines else "git failed"


def cache_entry(cache_root: Path, source: GitSource) -> Path:
    digest = hashlib.sha256(source.location.encode()).hexdigest()[:16]
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", repo_name(source.location))[:40]
    return cache_root / "git" / f"{safe}-{digest}"


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One build at a time per repository (two fetches into one work tree would mix)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# Lock files of the checkouts this process reads (kept open, shared, until it exits or checks
# the same repository out again).
_HELD: dict[Path, object] = {}


# What git says when it cannot write a folder (its messages are read in English: LC_ALL=C).
_NO_ROOM = ("No space left on device", "Read-only file system", "Disk quota exceeded")


def checkout(source: GitSource, cache_root: Path) -> Checkout:
    """`checkout_in` the cache; where the cache cannot be written (a file in its way, a full or
    read-only disk: it is optional), in a temporary folder removed when the process exits, with
    one warning."""
    try:
        return checkout_in(source, cache_root)
    except OSError as exc:
        why = exc.strerror or str(exc)
    except GitError as exc:  # git itself could not write there
        why = next((x for x in _NO_ROOM if x in str(exc)), "")
        if not why:
            raise
    where = cache_root / "git"
    temporary = Path(tempfile.mkdtemp(prefix="docsmcp-git-"))
    atexit.register(shutil.rmtree, temporary, ignore_errors=True)
    log.warning(
        "cannot keep git checkouts in the cache %s (%s); fetching into a temporary folder "
        "(--cache-dir DIR to choose a cache)",
        where,
        why,
    )
    try:
        return checkout_in(source, temporary)
    except OSError as exc:
        raise GitError(f"cannot check out into {temporary}: {exc.strerror or exc}") from None


def checkout_in(source: GitSource, cache_root: Path) -> Checkout:
    """Fetch `source` into the cache and check out its commit; GitError on any failure.

    The work tree is locked exclusively while it is fetched and checked out, then shared until
    this process exits: another build of the same repository (another ref, say) waits rather
    than changing files this one is reading."""
    entry = cache_entry(cache_root, source)
    lock = entry.with_name(entry.name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    held = _HELD.pop(lock, None)
    if held is not None:  # this process is done with its earlier checkout (else: deadlock)
        held.close()
    handle = open(lock, "a")  # noqa: SIM115 - held until the process exits
    fcntl.flock(handle, fcntl.LOCK_EX)
    try:
        repo = entry / "repo"
        _init(repo, source.location)
        commit = _fetch(repo, source)
        root_tree = _ok(_git(repo, "rev-parse", f"{commit}^{{tree}}"), "cannot read the commit")
        tree = root_tree
        if source.subdir:
            res = _git(repo, "rev-parse", "--verify", "--quiet", f"{commit}:{source.subdir}")
            kind = _git(repo, "cat-file", "-t", f"{commit}:{source.subdir}").stdout.strip()
            if res.returncode != 0 or kind != "tree":
                raise GitError(
                    f"--subdir {source.subdir!r} is not a folder at commit {commit[:12]} "
                    f"of {source.location}"
                )
            tree = res.stdout.strip()
        _ok(_git(repo, "checkout", "--quiet", "--force", "--detach", commit), "cannot check out")
        _ok(_git(repo, "clean", "-qffdx"), "cannot clean the checkout")
        os.utime(entry)  # most recently used
    except BaseException:
        handle.close()
        raise
    fcntl.flock(handle, fcntl.LOCK_SH)
    _HELD[lock] = handle
    _evict(cache_root / "git", keep=entry)
    folder = PurePosixPath(source.subdir).name if source.subdir else ""
    generic = {"docs", "doc", "documentation", "src", "site", "content", "pages", ""}
    name = repo_name(source.location) if folder.lower() in generic else folder
    return Checkout(
        source, repo, repo / source.subdir if source.subdir else repo, commit, tree, root_tree, name
    )


def _init(repo: Path, location: str) -> None:
    if not (repo / ".git").is_dir():
        if repo.exists():  # a damaged entry (a killed first fetch): start again
            shutil.rmtree(repo)
        repo.mkdir(parents=True)
        _ok(_git(repo, "init", "--quiet"), f"cannot create a repository in {repo}")
        _ok(_git(repo, "remote", "add", "--", "origin", location), "cannot add the remote")
    else:
        _ok(_git(repo, "remote", "set-url", "--", "origin", location), "cannot set the remote")


def _fetch(repo: Path, source: GitSource) -> str:
    """The commit `source.ref` names at the remote, fetched into `repo`."""
    wanted_ref = source.ref or "HEAD"
    res = _git(
        repo,
        "fetch",
        "--quiet",
        "--no-tags",
        "--depth",
        "1",
        "--end-of-options",  # the ref is checked in wanted(); this is the second lock
        "origin",
        wanted_ref,
        timeout=FETCH_TIMEOUT,
    )
    if res.returncode == 0:
        return _ok(_git(repo, "rev-parse", "--verify", "FETCH_HEAD^{commit}"), "bad fetch")
    reason = _reason(res.stderr)
    if "couldn't find remote ref" in res.stderr or "not our ref" in res.stderr:
        if source.ref and _HEX.match(source.ref):
            return _fetch_all(repo, source)
        raise GitError(f"ref {wanted_ref!r} not found in {source.location} ({reason})")
    if source.ref and _HEX.match(source.ref) and _reachable(repo):
        return _fetch_all(repo, source)
    raise GitError(f"cannot fetch {source.location}: {reason}")


def _reachable(repo: Path) -> bool:
    res = _git(repo, "ls-remote", "--quiet", "origin", "HEAD", timeout=FETCH_TIMEOUT)
    return res.returncode == 0


def _fetch_all(repo: Path, source: GitSource) -> str:
    """Every branch and tag, full depth: for a commit the remote does not serve by id."""
    shallow = _git(repo, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"
    args = ["fetch", "--quiet", "--tags", "origin", "+refs/heads/*:refs/remotes/origin/*"]
    if shallow:
        args.insert(2, "--unshallow")
    _ok(_git(repo, *args, timeout=FETCH_TIMEOUT), f"cannot fetch {source.location}")
    res = _git(
        repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{source.ref}^{{commit}}"
    )
    if res.returncode != 0:
        raise GitError(f"ref {source.ref!r} not found in {source.location}")
    return res.stdout.strip()


def _evict(git_root: Path, keep: Path) -> None:
    """Remove the least recently used repositories beyond MAX_REPOSITORIES (never `keep`, never
    one being fetched: its lock is taken without waiting)."""
    try:
        entries = [p for p in git_root.iterdir() if p.is_dir()]
    except OSError:
        return
    if len(entries) <= MAX_REPOSITORIES:
        return
    entries.sort(key=lambda p: p.stat().st_mtime)
    for old in entries[: len(entries) - MAX_REPOSITORIES]:
        if old == keep:
            continue
        lock = old.with_name(old.name + ".lock")
        with open(lock, "a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # in use by another build
            shutil.rmtree(old, ignore_errors=True)
        lock.unlink(missing_ok=True)
        log.info("removed the least recently used git source %s from the cache", old.name)


# --- skipping unchanged rebuilds ---------------------------------------------------------------


def stamp_key(co: Checkout, settings: str, code: str, whole_tree: bool) -> str:
    """Hash of what a bundle built from `co` depends on: the docs tree (the whole commit's
    when files outside the subfolder may be read), the build settings and the builder code."""
    tree = co.root_tree if whole_tree else co.tree
    return hashlib.sha256("\0".join((tree, co.source.subdir, settings, code)).encode()).hexdigest()


def up_to_date(co: Checkout, out: Path, key: str) -> bool:
    """Whether `out` is the bundle the last build made from the same inputs (`key`)."""
    try:
        stamps = json.loads(co.stamp_path.read_text())
        meta = json.loads((out / METADATA_FILE).read_text())
    except (OSError, ValueError):
        return False
    mine = stamps.get(os.path.realpath(out)) if isinstance(stamps, dict) else None
    return (
        isinstance(mine, dict)
        and isinstance(meta, dict)
        and mine.get("key") == key
        and bool(mine.get("bundle_id"))
        and mine.get("bundle_id") == meta.get("bundle_id")
    )


def record_build(co: Checkout, out: Path, key: str, bundle_id: str) -> None:
    """Remember that `out` holds `bundle_id`, built from inputs `key` (best effort)."""
    with _locked(co.stamp_path.with_name(STAMP_NAME + ".lock")):
        try:
            stamps = json.loads(co.stamp_path.read_text())
            if not isinstance(stamps, dict):
                stamps = {}
        except (OSError, ValueError):
            stamps = {}
        stamps[os.path.realpath(out)] = {
            "key": key,
            "bundle_id": bundle_id,
            "commit": co.commit,
            "at": int(time.time()),
        }
        try:
            replace_file(co.stamp_path, json.dumps(stamps, indent=1, sort_keys=True).encode())
        except OSError as exc:
            log.warning("cannot record the build in %s: %s", co.stamp_path, exc.strerror or exc)
