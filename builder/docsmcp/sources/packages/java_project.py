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

Each page converts on its own (a class page or, `package-info.java`, the package's page),
but for two things: a method overriding another without a comment of its own (or with
`{@inheritDoc}`) shows the overridden method's, as javadoc copies it, and a class lists the
methods it inherits ("Methods inherited from class …", javadoc_inherit.py). So `expand`
appends to a page whose types extend or implement anything, after a marker line each
(`SUPER`), the files of its supertypes found in the same project (`extends`/`implements`
names, through the file's imports or its package, up to MAX_SUPERTYPES files), read through
`files.read_file`, so only inside the source roots; javadoc.py reads them for their comments
and their methods' declarations, never as text of the page.
"""

from __future__ import annotations

import logging
import posixpath
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from docsmcp.common.limits import MAX_FILE_BYTES
from docsmcp.sources.files import JAVA_SUFFIXES, read_file_text
from docsmcp.sources.formats.source.java_parse import Unit, parse
from docsmcp.sources.formats.source.javadoc import SUPER
from docsmcp.sources.formats.source.javadoc_inherit import written
from docsmcp.sources.packages.project_files import marked_folder, read_project_file

log = logging.getLogger("docsmcp.sources.packages.java_project")

JAVA_SUFFIX = JAVA_SUFFIXES[0]
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
MAX_SUPERTYPES = 8  # supertype files appended to one page, at most
_INHERITS = re.compile(r"\b(?:extends|implements)\b")
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
        pom = read_project_file(docs_dir, roots, posixpath.join(folder, "pom.xml"))
        if pom and _SKIPPED.search(pom):
            self.shown = False
            return
        poms = [pom or ""]
        if folder:  # (a parent pom one folder up configures its modules' javadoc too)
            parent = posixpath.dirname(folder)
            poms.append(read_project_file(docs_dir, roots, posixpath.join(parent, "pom.xml")) or "")
        for text in poms:
            for m in _EXCLUDED.finditer(
                _COMMENTS.sub("", text.replace("<!--", "/*").replace("-->", "*/"))
            ):
                for name in re.split(r"[:;,\s]+", m.group(1)):
                    if name.strip():
                        self.excluded.append(_package_glob(name.strip()))
        info = read_project_file(docs_dir, roots, posixpath.join(folder, MAIN, "module-info.java"))
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


def module_shown(docs_dir: Path, roots: Sequence[Path], folder: str) -> bool:
    """Whether the module at `folder` publishes an API by the rules above (not a test, sample
    or output folder, no pom skipping javadoc): kotlin_project.py asks it too."""
    return _Project(docs_dir, roots, folder).shown


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
            build = marked_folder(docs_dir, folder, BUILD_FILES) is not None
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
                "folder is built or named: --docs-dir %s, or --api-source %s",
                docs_dir,
                above,
                above,
                above,
            )
        return set()
    shown = pages(Path(docs_dir), roots, java)
    return {p for p in java if p not in shown}


def _supertypes(unit: Unit) -> list[str]:
    """The supertypes (as written: `Node`, `org.x.Y`) of the unit's types."""
    return [name for t in unit.types for name in written(t)]


def _source_of(name: str, unit: Unit, source_root: str) -> str:
    """The path of the file defining the type `name` as `unit` names it (its imports, else
    its own package), under `source_root` (`…/src/main/java`)."""
    head = name.split(".")[0]
    qualified = unit.imports.get(head) or (name if name[:1].islower() else "")
    if not qualified:
        qualified = f"{unit.package}.{head}" if unit.package else head
    return posixpath.join(source_root, qualified.replace(".", "/") + JAVA_SUFFIX)


def expand(
    docs_dir: Path, path: str, body: str, roots: Sequence[Path]
) -> tuple[str, tuple[int, ...], str | None]:
    """`body` of the page `path` with its supertypes' files after it (see the module's
    docstring), the original line of each line (() when unchanged) and no warning; unchanged
    when it has no supertype in the project. (inclusion/includes.py makes the `Expanded`.)"""
    found = _main_root(path) if _INHERITS.search(body) else None
    unit = parse(body) if found is not None else None
    names = _supertypes(unit) if unit is not None else []
    if found is None or unit is None or not names:
        return body, (), None
    source_root = posixpath.join(found[0], MAIN) if found[0] else MAIN
    seen = {path}
    queue = [(n, unit) for n in names]
    out = [body]
    while queue and len(seen) <= MAX_SUPERTYPES:
        name, named_in = queue.pop(0)
        target = _source_of(name, named_in, source_root)
        if target in seen or not (docs_dir / target).is_file():
            continue
        seen.add(target)
        text = read_file_text(docs_dir, target, roots, MAX_FILE_BYTES)
        if text is None:
            continue
        text = text.replace("\r\n", "\n")
        out.append(f"{SUPER}{target}\n{text}")
        read = parse(text)
        queue += [(n, read) for n in _supertypes(read)]
    if len(out) == 1:
        return body, (), None
    text = "\n".join(out)
    own = body.count("\n") + 1
    # (the supertypes' lines are never shown as theirs: a copied comment is shown at the line
    # of the method that inherits it)
    line_map = tuple(range(own)) + (own - 1,) * (text.count("\n") + 1 - own)
    return text, line_map, None
