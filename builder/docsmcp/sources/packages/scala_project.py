"""A Scala library's layout, as sbt, Mill or scala-cli (and so Scaladoc) read it, for the
Scaladoc reader (formats/source/scaladoc.py): which `.scala` files are pages.

Scala libraries publish their API with Scaladoc, made from the main sources of the modules they
publish. So a `.scala` file is a page only when:

- it lies below a build (`build.sbt`, Mill's `build.mill`/`build.sc`, scala-cli's
  `project.scala`), in a main source folder: sbt's `src/main/scala` and its version folders
  (`scala-2`, `scala-3`, `scala-2.13+`), a cross project's `shared/`, `jvm/`… above it, Mill's
  `<module>/src`, `src-jvm`, `src-3`, or for scala-cli any folder;
- no folder on its way reads as tests, benchmarks, examples, docs or build code (`src/test`,
  `tests/`, `bench/`, `jmh`, `examples/`, `docs/`, sbt's `project/`, `scalafix/`, a `-tests`
  module; `testkit` and `testing` modules are published libraries and stay);
- sbt's build does not keep its module from publishing: a `lazy val m = project…` whose
  settings enable `NoPublishPlugin` or say `publish / skip := true` (`publishArtifact :=
  false`) leaves out its folder (`.in(file("…"))`, else the val's name);
- of the copies of one file that version or platform folders hold (`scala-2.12/…/Compat.scala`
  and `scala-2.13+/…/Compat.scala`, `jvm/` and `js/`), only one is a page: the newest Scala's,
  then the JVM's or the shared one, as the Scaladoc users read (of the latest release) shows.

Every other `.scala` file is code, no page; `.sbt`, `.sc` and `.mill` scripts are never read.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from docsmcp.common.limits import MAX_FILE_BYTES
from docsmcp.sources.files import SCALA_SUFFIXES, read_file_text
from docsmcp.sources.packages.project_files import marked_folder

SCALA_SUFFIX = SCALA_SUFFIXES[0]
BUILDS = ("build.sbt", "build.mill", "build.sc", "project.scala")
_NOT_MAIN = re.compile(
    r"^(?:tests?|it|bench(?:marks?)?|jmh|examples?|samples?|demos?|docs?|site|website|mdoc"
    r"|scalafix|fixtures?|project|target|out|build|generated|bin|scripts?)$|(?<!la)tests?$"
    r"|[-_](?:tests?|it|bench(?:marks?)?|examples?|samples?|demos?|docs)$"
    r"|^(?:tests?|bench(?:marks?)?|examples?|demos?)[-_]",
    re.I,
)
_VERSION = re.compile(r"^(?:scala|src)(?:-(.+))?$")
_PLATFORMS = ("shared", "jvm", "jvm-native", "js-jvm", "jvm-js")
_LAZY_VAL = re.compile(r"^lazy\s+val\s+`?(\w+)`?\s*=", re.M)
_IN_FILE = re.compile(r"""\bin\s*\(?\s*file\(\s*"([^"\n]*)"\s*\)""")
# (a helper's first argument names the module: circe's `circeCrossModule("hygiene")`)
_FIRST_STRING = re.compile(r"""\s*\w+\(\s*"([^"\n]+)\"""")
_NO_PUBLISH = re.compile(
    r"NoPublishPlugin|noPublishSettings|publish\s*/\s*skip\s*:=\s*true|publishArtifact\s*:=\s*false"
)


def _version_rank(name: str) -> tuple[int, ...]:
    """How new the Scala of a version folder is (`scala-3` > `scala-2.13+` > `scala-2.12`;
    `scala`, shared by all, in the middle); platforms (`src-jvm`) as shared."""
    m = _VERSION.match(name)
    tail = (m.group(1) or "") if m else ""
    nums = re.findall(r"\d+", tail)
    if not nums:
        return (2, 13, 1) if tail in ("", "jvm") else (2, 13, 0)
    return tuple(int(n) for n in nums[:2]) + ((1,) if tail.endswith("+") else (0,))


def _no_publish(docs_dir: Path, roots: Sequence[Path], root: str) -> set[str]:
    """The module folders (below `root`) an sbt build keeps from publishing."""
    path = posixpath.join(root, "build.sbt") if root else "build.sbt"
    if not (docs_dir / path).is_file():
        return set()
    text = read_file_text(docs_dir, path, roots, MAX_FILE_BYTES) or ""
    starts = [m for m in _LAZY_VAL.finditer(text)]
    out: set[str] = set()
    for k, m in enumerate(starts):
        chunk = text[m.end() : starts[k + 1].start() if k + 1 < len(starts) else len(text)]
        if not _NO_PUBLISH.search(chunk) or re.match(r"\s*\w*Root", chunk):
            continue  # (a root aggregate publishes nothing, its modules do)
        where = _IN_FILE.search(chunk) or _FIRST_STRING.match(chunk)
        folder = posixpath.normpath(where.group(1)) if where else m.group(1)
        if folder not in (".", ""):
            out.add(folder.strip("/"))
    return out


def _scala_cli(docs_dir: Path, root: str) -> bool:
    """Whether the build at `root` is scala-cli's (its sources lie in any folder)."""
    base = (docs_dir / root) if root else docs_dir
    return not any((base / name).is_file() for name in BUILDS[:3])


def _place(relative: str, cli: bool) -> tuple[str, str, tuple[int, ...], int] | None:
    """For a file below its build: (its module, its path below the source folder, how new its
    Scala is, how much its platform is preferred), or None when it is no main source."""
    parts = relative.split("/")
    folders = parts[:-1]
    k = next((i for i, p in enumerate(folders) if p == "src" or p.startswith("src-")), -1)
    # (the module's folders say tests, benchmarks…; a package below the sources may be `docs`)
    if any(_NOT_MAIN.search(p) for p in (folders[:k] if k >= 0 else folders)):
        return None
    if k < 0:  # (scala-cli: any folder of the project)
        return ("", relative, (2, 13, 1), 0) if cli else None
    module = folders[:k]
    rest = folders[k:]
    if rest[0] == "src" and len(rest) > 2 and rest[1] == "main" and _VERSION.match(rest[2]):
        version, below = rest[2], rest[3:]  # (sbt: src/main/scala-3/…)
    elif rest[0] == "src" and len(rest) > 1 and rest[1] in ("test", "it"):
        return None
    elif rest[0] == "src" and len(rest) > 1 and rest[1] == "main":
        return None  # (src/main/java, src/main/resources)
    else:
        version, below = rest[0], rest[1:]  # (Mill: src/…, src-3/…, src-jvm/…)
    platform = 0
    if module and module[-1] in _PLATFORMS or module and module[-1] in ("js", "native"):
        platform = _PLATFORMS.index(module[-1]) if module[-1] in _PLATFORMS else 9
        module = module[:-1]
    if version.startswith("src-") and version[4:] in ("js", "native"):
        platform = 9
    return "/".join(module), "/".join([*below, parts[-1]]), _version_rank(version), platform


def _within(module: str, named: str) -> bool:
    """Whether `module` is the folder a build names (`modules/hygiene` for `hygiene`, as a
    helper's argument names it) or below it."""
    return (module == named or module.startswith(named + "/") or module.endswith("/" + named)
            or f"/{named}/" in f"/{module}/" and "/" in named)  # fmt: skip


def pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The `.scala` files of `listed` that are Scaladoc's pages (see the module's docstring)."""
    docs_dir = Path(docs_dir)
    builds: dict[str, str | None] = {}
    held: dict[str, set[str]] = {}
    best: dict[tuple[str, str, str], tuple[tuple[int, ...], int, str]] = {}
    for path in sorted(listed):
        if not path.endswith(SCALA_SUFFIX):
            continue
        root = marked_folder(docs_dir, posixpath.dirname(path), BUILDS, builds)
        if root is None:
            continue
        if any(_NOT_MAIN.search(p) for p in root.split("/") if p):
            continue  # (a build of its own for tests, examples, scalafix rules)
        relative = path[len(root) + 1 :] if root else path
        place = _place(relative, _scala_cli(docs_dir, root))
        if place is None:
            continue
        module, below, version, platform = place
        if root not in held:
            held[root] = _no_publish(docs_dir, roots, root)
        if any(_within(module, m) for m in held[root]):
            continue
        key = (root, module, below)
        rank = (tuple(-v for v in version), platform, path)
        if key not in best or rank < best[key]:
            best[key] = rank  # type: ignore[assignment]
    return {r[2] for r in best.values()}


def no_pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The `.scala` files of `listed` that are no Scaladoc page."""
    listed = [p for p in listed if p.endswith(SCALA_SUFFIX)]
    if not listed:
        return set()
    shown = pages(docs_dir, roots, listed)
    return {p for p in listed if p not in shown}
