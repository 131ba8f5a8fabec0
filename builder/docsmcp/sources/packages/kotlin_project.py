"""A Kotlin library's layout, as Gradle (or Maven) and so Dokka read it, for the KDoc reader
(formats/source/kdoc.py): which `.kt` files are pages.

Kotlin libraries publish their API with Dokka, made from the main source sets of their
modules. So a `.kt` file is a page only when it is a main source of a module: below a folder
holding `build.gradle(.kts)` or `pom.xml` (or, for a single-module build, `settings.gradle`:
java_project.BUILD_FILES), in a source set that is no test:

- `src/main/kotlin`, a multiplatform build's `src/commonMain/kotlin`, `src/jvmMain/kotlin`,
  okhttp's `src/commonJvmAndroid/kotlin`, Kotlin files kept in `src/main/java`, and the
  kotlinx layout (`common/src`, `jvm/src`): any source set whose name does not read as tests,
  samples, benchmarks or fixtures (`jvmTest`, `commonTest`, `androidHostTest`, `jmh`,
  `testFixtures`, a `test/` folder); build output (`build/`, `generated`) and build logic
  (`buildSrc`, `build-logic`) never;
- the module itself must publish an API as Java's rules say (java_project.module_shown: not a
  test, example, sample, benchmark or demo module), nor be a docs site's code snippet (ktor's
  Writerside docs hold 175 Gradle projects under `codeSnippets/snippets/`); and where some
  modules of the tree apply publishing or Dokka in their build script (a `publish` or `dokka`
  in it) and others do not, only those that do: okhttp's test support and its IDNA table
  generator are modules of its build, not of its docs;
- a package Dokka's configuration suppresses is left out: `perPackageOption {
  matchingRegex.set(".*[.]internal([.].*)?"); suppress.set(true) }` (Dokka 1 and 2, `=` or
  `.set()`) in the module's build script, one above it, or a convention plugin of `buildSrc` or
  `build-logic`, matched against the file's `package` line.

Every other `.kt` file is code, no page; `.kts` scripts are never read.

Each page converts on its own but for one thing: Dokka shows a `@sample a.b.Samples.name`
tag as that function's body (kotlinx-datetime's 400 samples live in `common/test/samples/`).
So `expand` appends to a page naming samples, after a marker line each (kdoc.SAMPLE), the
files of its module named like the samples' classes (`YearMonthSamples.kt`), at most
MAX_SAMPLE_FILES, read through `files.read_file_text`, so only inside the source roots; kdoc.py
reads them for those functions' bodies only.
"""

from __future__ import annotations

import logging
import posixpath
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from docsmcp.common.limits import MAX_FILE_BYTES
from docsmcp.sources.files import KOTLIN_SUFFIXES, read_file_text
from docsmcp.sources.formats.source.kdoc import SAMPLE
from docsmcp.sources.packages import java_project
from docsmcp.sources.packages.project_files import marked_folder

log = logging.getLogger("docsmcp.sources.packages.kotlin_project")

KOTLIN_SUFFIX = KOTLIN_SUFFIXES[0]
SCRIPTS = ("build.gradle.kts", "build.gradle", "pom.xml")
MAX_CONVENTION_SCRIPTS = 200  # build-logic scripts read for Dokka's options, at most
MAX_SAMPLE_FILES = 8  # files of samples appended to one page, at most
MAX_SCANNED = 20_000  # files of a module looked at for samples, at most
_SAMPLE_TAG = re.compile(r"@sample\s+\[?([\w.]+)")
_NOT_MAIN = re.compile(r"test|sample|benchmark|jmh|example|demo|fixture", re.I)
_SNIPPETS = re.compile(r"snippet", re.I)  # (ktor's docs: `codeSnippets/snippets/<one>/`)
_NOT_SOURCE = frozenset({"build", "out", "generated", "buildSrc", "build-logic", "bin"})
_BUILD_LOGIC = ("buildSrc", "build-logic", "build-conventions", "gradle/plugins")
_PUBLISHES = re.compile(r"publish|dokka", re.I)
_OPTION = re.compile(r"perPackageOption\s*\{", re.I)
_MATCHING = re.compile(
    r"""matchingRegex(?:\.set\(|\s*=\s*)\s*(?:"{3}(.*?)"{3}|"((?:[^"\\]|\\.)*)")""", re.S
)
_SUPPRESS = re.compile(r"suppress(?:\.set\(\s*|\s*=\s*)true\b")
_PACKAGE = re.compile(r"^[ \t]*package[ \t]+([\w.`]+)", re.M)
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def module_of(docs_dir: Path, folder: str, seen: dict[str, str | None] | None = None) -> str | None:
    """The module (folder of the nearest build file) of the files in `folder`, None if none."""
    return marked_folder(docs_dir, folder, java_project.BUILD_FILES, seen)


def _main_source(relative: str) -> bool:
    """Whether the file at `relative` (below its module) is in a main source set."""
    parts = relative.split("/")[:-1]
    root = len(parts)
    if len(parts) > 2 and parts[0] == "src" and parts[2] in ("kotlin", "java"):
        root = 2  # (`src/<set>/kotlin/…`)
    elif "kotlin" in parts:
        root = parts.index("kotlin")
    elif "src" in parts:
        root = parts.index("src")  # (kotlinx' `<platform>/src/…`)
    before = parts[:root]
    return not any(_NOT_MAIN.search(p) or p in _NOT_SOURCE for p in before)


def _script(docs_dir: Path, roots: Sequence[Path], folder: str) -> str:
    for name in SCRIPTS:
        path = posixpath.join(folder, name)
        if (docs_dir / path).is_file():
            return read_file_text(docs_dir, path, roots, MAX_FILE_BYTES) or ""
    return ""


def suppressed_packages(text: str) -> list[re.Pattern[str]]:
    """The package patterns Dokka's `perPackageOption { … suppress … }` blocks of a build script
    leave out."""
    out: list[re.Pattern[str]] = []
    text = _COMMENTS.sub("", text)
    for m in _OPTION.finditer(text):
        depth, k = 1, m.end()
        while k < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            k += 1
        block = text[m.end() : k]
        found = _MATCHING.search(block)
        if found is None or not _SUPPRESS.search(block):
            continue
        pattern = found.group(1) if found.group(1) is not None else found.group(2)
        if found.group(2) is not None:
            pattern = pattern.replace("\\\\", "\\")  # (a Kotlin string's escapes)
        try:
            out.append(re.compile(pattern))
        except re.error:
            log.warning("Dokka's matchingRegex %r is no regular expression here", pattern)
    return out


_SKIP_DEPRECATED = re.compile(r"\bskipDeprecated(?:\.set\(\s*|\s*=\s*)true\b")
_NO_INHERITED = re.compile(r"\bsuppressInheritedMembers(?:\.set\(\s*|\s*=\s*)true\b")
_VISIBLE = re.compile(r"\bdocumentedVisibilities\s*(?:\.set\s*\(|=|\()")
_VISIBILITY = re.compile(r"\b(?:Visibility|VisibilityModifier)\.(\w+)")


def dokka_options(text: str) -> dict[str, object]:
    """The options of Dokka's source-set configuration in the build scripts `text` that differ
    from its defaults: `visibilities` (documentedVisibilities: `Public`, `Protected`…, Dokka 1's
    `PUBLIC`…), `skip_deprecated` (skipDeprecated) and `no_inherited`
    (suppressInheritedMembers)."""
    text = _COMMENTS.sub("", text)
    out: dict[str, object] = {}
    m = _VISIBLE.search(text)
    if m is not None:
        depth, k = 1, m.end()
        while k < len(text) and depth and k - m.end() < 2000:
            depth += {"(": 1, ")": -1}.get(text[k], 0)
            k += 1
        named = {v.lower() for v in _VISIBILITY.findall(text[m.end() : k])}
        shown = sorted(named & {"public", "protected", "internal", "private"})
        if shown and shown != ["public"]:
            out["visibilities"] = shown
    if _SKIP_DEPRECATED.search(text):
        out["skip_deprecated"] = True
    if _NO_INHERITED.search(text):
        out["no_inherited"] = True
    return out


def module_options(
    docs_dir: Path, roots: Sequence[Path], module: str, conventions: str
) -> dict[str, object]:
    """Dokka's options for the module at `module`: its script's, those above it, then the
    convention plugins' (`conventions`: _conventions' text)."""
    texts = [conventions]
    folder = module
    while True:
        texts.append(_script(docs_dir, roots, folder))
        if not folder:
            break
        folder = posixpath.dirname(folder)
    return dokka_options("\n".join(texts))


def conventions(docs_dir: Path, roots: Sequence[Path]) -> str:
    """The text of the build-logic scripts (convention plugins) of the tree."""
    return _conventions(docs_dir, roots)


def _conventions(docs_dir: Path, roots: Sequence[Path]) -> str:
    """The text of the build-logic scripts (convention plugins) of the tree."""
    texts: list[str] = []
    for folder in _BUILD_LOGIC:
        base = docs_dir / folder
        if not base.is_dir():
            continue
        for found in sorted(base.rglob("*.gradle.kts"))[:MAX_CONVENTION_SCRIPTS]:
            path = found.relative_to(docs_dir).as_posix()
            texts.append(read_file_text(docs_dir, path, roots, MAX_FILE_BYTES) or "")
    return "\n".join(texts)


def pages(docs_dir: Path, roots: Sequence[Path], paths: Iterable[str]) -> set[str]:
    """The `.kt` files of `paths` that are Dokka's pages (see the module's docstring)."""
    docs_dir = Path(docs_dir)
    modules: dict[str, str | None] = {}
    candidates: list[tuple[str, str]] = []  # (path, module)
    for path in paths:
        if not path.endswith(KOTLIN_SUFFIX):
            continue
        module = module_of(docs_dir, posixpath.dirname(path), modules)
        if module is None:
            continue
        relative = path[len(module) + 1 :] if module else path
        if _main_source(relative):
            candidates.append((path, module))
    if not candidates:
        return set()
    shown: dict[str, bool] = {}
    scripts: dict[str, str] = {}
    for module in {m for _, m in candidates}:
        scripts[module] = _script(docs_dir, roots, module)
        parts = module.split("/") if module else []
        shown[module] = not any(
            p in _NOT_SOURCE or _SNIPPETS.search(p) for p in parts
        ) and java_project.module_shown(docs_dir, roots, module)
    if any(_PUBLISHES.search(s) for m, s in scripts.items() if shown[m]):
        for m in shown:
            shown[m] = shown[m] and _PUBLISHES.search(scripts[m]) is not None
    conventions = suppressed_packages(_conventions(docs_dir, roots))
    suppress: dict[str, list[re.Pattern[str]]] = {}
    out: set[str] = set()
    for path, module in candidates:
        if not shown[module]:
            continue
        if module not in suppress:
            found = list(conventions)
            folder = module
            while True:  # (the module's script and those above it)
                found += suppressed_packages(
                    scripts[folder] if folder in scripts else _script(docs_dir, roots, folder)
                )
                if not folder:
                    break
                folder = posixpath.dirname(folder)
            suppress[module] = found
        if suppress[module]:
            text = read_file_text(docs_dir, path, roots, MAX_FILE_BYTES) or ""
            m = _PACKAGE.search(_COMMENTS.sub("", text[:20000]))
            package = m.group(1).replace("`", "") if m else ""
            if any(p.fullmatch(package) for p in suppress[module]):
                continue
        out.add(path)
    return out


def no_pages(docs_dir: Path, roots: Sequence[Path], paths: Iterable[str]) -> set[str]:
    """The `.kt` files of `paths` that are no pages: all but the documented main sources."""
    kotlin = [p for p in paths if p.endswith(KOTLIN_SUFFIX)]
    if not kotlin:
        return set()
    shown = pages(Path(docs_dir), roots, kotlin)
    return {p for p in kotlin if p not in shown}


def expand(
    docs_dir: Path, path: str, body: str, roots: Sequence[Path]
) -> tuple[str, tuple[int, ...], str | None]:
    """`body` of the page `path` with the files of its `@sample`s after it (see the module's
    docstring), the original line of each line (() when unchanged) and no warning."""
    names = _SAMPLE_TAG.findall(body) if "@sample" in body else []
    classes = {n.split(".")[-2] for n in names if n.count(".") and n.split(".")[-2][:1].isupper()}
    module = module_of(Path(docs_dir), posixpath.dirname(path)) if classes else None
    if module is None:
        return body, (), None
    base = Path(docs_dir) / module if module else Path(docs_dir)
    found: list[str] = []
    for k, file in enumerate(base.rglob("*" + KOTLIN_SUFFIX)):
        if k >= MAX_SCANNED or len(found) >= MAX_SAMPLE_FILES:
            break
        if file.stem in classes:
            relative = file.relative_to(docs_dir).as_posix()
            if relative != path and not any(p in _NOT_SOURCE for p in relative.split("/")):
                found.append(relative)
    out = [body]
    for target in sorted(found):
        text = read_file_text(Path(docs_dir), target, roots, MAX_FILE_BYTES)
        if text is not None:
            out.append(f"{SAMPLE}{target}\n{text.replace(chr(13) + chr(10), chr(10))}")
    if len(out) == 1:
        return body, (), None
    text = "\n".join(out)
    own = body.count("\n") + 1
    # (the samples' lines are never shown as theirs: a sample is shown at its tag's section)
    return text, tuple(range(own)) + (own - 1,) * (text.count("\n") + 1 - own), None
