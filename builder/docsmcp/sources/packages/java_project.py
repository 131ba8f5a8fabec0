"""A Java library's layout, as Maven and Gradle (and so javadoc) read it, for the Javadoc
reader (formats/source/javadoc.py): which `.java` files are pages.

Most Java libraries publish only Javadoc, made from the main sources of their build. So a
`.java` file is a page only when it is a main source of a Maven or Gradle project: under
`src/main/java/` of a folder holding `pom.xml`, `build.gradle(.kts)` or `settings.gradle(.kts)`
(that folder or one above it, inside the docs folder). Every other `.java` file is code, no
page: tests (`src/test/java`), other source sets (`src/main/java11`, `src/jmh`), generated
sources (`target/`, `build/`), a docs site's snippets without a build around them.

Within a project, what javadoc would not document is left out too:
- a module whose folder reads as tests, examples, samples, benchmarks or demos (`test-jpms`,
  `samples/guide`, `maven-tests`: counted from the docs folder), or whose `pom.xml` skips
  javadoc or deployment (`maven.javadoc.skip`, `maven.deploy.skip`): no one reads its API;
- packages `module-info.java` does not export (javadoc of a named module documents only its
  exported packages), and the packages the pom's maven-javadoc-plugin excludes
  (`<excludePackageNames>com.google.gson.internal:…</excludePackageNames>`, `*` as javadoc
  reads it);
- `module-info.java` itself (no page: its exports are read here).

Each page converts on its own (a class page or, `package-info.java`, the package's page):
the reader needs nothing from the other files, so nothing is gathered.
"""

from __future__ import annotations

import logging
import posixpath
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from docsmcp.sources.settings import _read_text

log = logging.getLogger("docsmcp.sources.packages.java_project")

JAVA_SUFFIX = ".java"
MAIN = "src/main/java"
BUILD_FILES = (
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
)
_NOT_LIBRARY = re.compile(
    r"(?:^|[-_.])(?:tests?|examples?|samples?|benchmarks?|jmh|demos?|integration-tests?)"
    r"(?:$|[-_.])",
    re.I,
)
_SKIPPED = re.compile(r"<maven\.(?:javadoc|deploy)\.skip>\s*true\s*</", re.I)
_EXCLUDED = re.compile(r"<excludePackageNames>([^<]*)</excludePackageNames>", re.I)
_EXPORTS = re.compile(r"^\s*exports\s+([\w.]+)\s*;", re.M)
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_OUTPUT = ("target", "build", "out", "bin", "generated", "generated-sources")


def _main_root(path: str) -> tuple[str, str] | None:
    """(project folder, package folder) of a file under `…/src/main/java/`, or None."""
    at = ("/" + path).find("/" + MAIN + "/")
    if at < 0:
        return None
    folder = path[: max(0, at - 1)] if at else ""
    rest = path[at + len(MAIN) + 1 :]
    return folder, posixpath.dirname(rest)


class _Project:
    """What one project folder's build says about its main sources."""

    def __init__(self, docs_dir: Path, roots: Sequence[Path], folder: str) -> None:
        self.folder = folder
        self.shown = True
        self.excluded: list[re.Pattern[str]] = []
        self.exported: frozenset[str] | None = None
        parts = folder.split("/") if folder else []
        if any(_NOT_LIBRARY.search(p) for p in parts) or any(p in _OUTPUT for p in parts):
            self.shown = False
            return
        pom = _text(docs_dir, roots, posixpath.join(folder, "pom.xml"))
        if pom and _SKIPPED.search(pom):
            self.shown = False
            return
        poms = [pom or ""]
        if folder:  # (a parent pom one folder up configures its modules' javadoc too)
            parent = posixpath.dirname(folder)
            poms.append(_text(docs_dir, roots, posixpath.join(parent, "pom.xml")) or "")
        for text in poms:
            for m in _EXCLUDED.finditer(
                _COMMENTS.sub("", text.replace("<!--", "/*").replace("-->", "*/"))
            ):
                for name in re.split(r"[:;,\s]+", m.group(1)):
                    if name.strip():
                        self.excluded.append(_package_glob(name.strip()))
        info = _text(docs_dir, roots, posixpath.join(folder, MAIN, "module-info.java"))
        if info:
            self.exported = frozenset(_EXPORTS.findall(_COMMENTS.sub("", info)))

    def documents(self, package: str) -> bool:
        if not self.shown:
            return False
        if self.exported is not None and package not in self.exported:
            return False
        return not any(p.fullmatch(package) for p in self.excluded)


def _package_glob(name: str) -> re.Pattern[str]:
    """javadoc's `excludePackageNames` entry: `com.x.internal`, `com.x.*` (the package and
    those below it), `*.internal`."""
    if name.endswith(".*"):
        base = re.escape(name[:-2]).replace(r"\*", r"[\w.]*")
        return re.compile(rf"{base}(?:\.[\w.]*)?")
    return re.compile(re.escape(name).replace(r"\*", r"[\w.]*"))


def _text(docs_dir: Path, roots: Sequence[Path], path: str) -> str | None:
    if not (docs_dir / path).is_file():
        return None
    text, problem = _read_text(docs_dir, path, roots)
    if problem is not None:
        log.warning("%s", problem)
    return text


def _has_build(docs_dir: Path, folder: str) -> bool:
    """Whether `folder` or one above it (inside the docs folder) holds a build file."""
    while True:
        if any((docs_dir / folder / name).is_file() for name in BUILD_FILES):
            return True
        if not folder:
            return False
        folder = posixpath.dirname(folder)


def pages(docs_dir: Path, roots: Sequence[Path], paths: Iterable[str]) -> set[str]:
    """The `.java` files of `paths` that are Javadoc's pages (see the module's docstring)."""
    projects: dict[str, _Project | None] = {}
    out: set[str] = set()
    for path in paths:
        if not path.endswith(JAVA_SUFFIX) or posixpath.basename(path) == "module-info.java":
            continue
        found = _main_root(path)
        if found is None:
            continue
        folder, package_folder = found
        if folder not in projects:
            build = _has_build(docs_dir, folder)
            projects[folder] = _Project(docs_dir, roots, folder) if build else None
        project = projects[folder]
        if project is not None and project.documents(package_folder.replace("/", ".")):
            out.add(path)
    return out


def project_above(docs_dir: Path) -> Path | None:
    """The Maven or Gradle project one or two folders above `docs_dir` that has main sources
    (`docs/` of a library), or None (only looked for: nothing outside the roots is read)."""
    here = Path(docs_dir).resolve()
    for folder in (here.parent, here.parent.parent):
        if (folder / MAIN).is_dir() and any((folder / n).is_file() for n in BUILD_FILES):
            return folder
    return None


def no_pages(
    docs_dir: Path, roots: Sequence[Path], paths: Iterable[str], warn: bool = True
) -> set[str]:
    """The `.java` files of `paths` that are no pages: all but a project's documented main
    sources. With `warn`, one warning when there are none and the docs folder is a Java
    project's `docs/` (its Javadoc is read when the project's folder is built)."""
    java = [p for p in paths if p.endswith(JAVA_SUFFIX)]
    if not java:
        if warn and (above := project_above(docs_dir)) is not None:
            log.warning(
                "%s is a Java project's docs (%s): its Javadoc is read when the project's "
                "folder is built: --docs-dir %s",
                docs_dir,
                above,
                above,
            )
        return set()
    shown = pages(Path(docs_dir), roots, java)
    return {p for p in java if p not in shown}
