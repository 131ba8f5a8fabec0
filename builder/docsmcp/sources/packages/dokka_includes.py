"""Dokka's `includes`: the markdown files that give a Kotlin module's page and its packages'
pages their text, read as Dokka shows them (an after-reading pass: site_passes.after_reading).

Dokka reads such a file (`Module.md`, `packages.md`) as sections: `# Module okhttp` holds the
module page's text, `# Package okhttp3` a package page's. Read as plain markdown, the page was
titled "Module okhttp", and its packages were sections named "Package okhttp3" of equal rank.
Here the page is titled by the module's name, and each package is a section named by the
package, one level below the module (its own headings one level down with it), so a search
for the module or the package finds the text Dokka shows on its page.

A file is such an include when a build script's Dokka configuration names it
(`includes.from("Module.md")`, `includes.from(files("docs/packages.md"))`, Dokka 1's
`includes = listOf(…)`), relative to that script's folder, or when it is the conventional
`Module.md`/`Packages.md` (any case) beside a build file; in both cases only when its first
heading is a `# Module` or `# Package` line, as Dokka requires. Lines are rewritten one for one,
so the page keeps its source lines; a page that is no include, and a tree without a Kotlin
page, are unchanged.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Sequence
from pathlib import Path

from docsmcp.common.limits import MAX_FILE_BYTES
from docsmcp.model.source import SourceFile
from docsmcp.sources.files import KOTLIN_SUFFIXES, read_file_text
from docsmcp.sources.formats.markdown.fences import fenced_lines
from docsmcp.sources.packages import java_project
from docsmcp.sources.packages.project_files import folders_above

_CONVENTIONAL = frozenset({"module.md", "packages.md"})
_SCRIPTS = ("build.gradle.kts", "build.gradle")
_INCLUDES = re.compile(r"\bincludes\s*(?:\.from\s*\(|\.setFrom\s*\(|=|\+=)")
_QUOTED = re.compile(r'"([^"\n$]{1,300})"')
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_SECTION = re.compile(r"#[ \t]+(Module|Package)[ \t]+(\S.*?)[ \t]*#*[ \t]*$")
_HEADING = re.compile(r"(#{1,6})([ \t].*|)$")
MAX_SCRIPTS = 2_000  # build scripts read for their `includes`, at most


def named(script: str) -> list[str]:
    """The files a build script's Dokka `includes` name (as written: relative to it)."""
    text = _COMMENTS.sub("", script)
    out: list[str] = []
    for m in _INCLUDES.finditer(text):
        k, depth = m.end(), 1 if text[m.end() - 1] == "(" else 0
        end = k
        while end < len(text) and end - k < 2000:  # (the call or the rest of the line)
            c = text[end]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth <= 0:
                    break
            elif c == "\n" and depth <= 0:
                break
            end += 1
        out += [q for q in _QUOTED.findall(text[k:end]) if q.lower().endswith(".md")]
    return out


def _includes(files: list[SourceFile], docs_dir: Path, roots: Sequence[Path]) -> set[str]:
    """The markdown pages of `files` that are Dokka includes (see the module's docstring)."""
    pages = {f.path for f in files if f.path.lower().endswith(".md")}
    out: set[str] = set()
    for path in pages:
        folder = posixpath.dirname(path)
        if posixpath.basename(path).lower() in _CONVENTIONAL and any(
            (docs_dir / folder / n).is_file() for n in java_project.BUILD_FILES
        ):
            out.add(path)
    # (a script names files below its folder)
    for folder in sorted(folders_above(pages))[:MAX_SCRIPTS]:
        for name in _SCRIPTS:
            script = posixpath.join(folder, name)
            if not (docs_dir / script).is_file():
                continue
            text = read_file_text(docs_dir, script, roots, MAX_FILE_BYTES) or ""
            for named_path in named(text) if "includes" in text else ():
                target = posixpath.normpath(posixpath.join(folder, named_path))
                if target in pages:
                    out.add(target)
            break
    return out


def _first_heading(body: str) -> str:
    for line in body.split("\n", 200)[:200]:
        if line.strip():
            return line.strip()
    return ""


def shown(body: str) -> str | None:
    """The include `body` as Dokka shows it, line for line; None when it is none (its first
    line is no `# Module` or `# Package` heading)."""
    if not _SECTION.match(_first_heading(body)):
        return None
    lines = body.split("\n")
    code = fenced_lines(lines)
    module = False
    below = False  # (inside a package section under the module: headings one level down)
    for k, line in enumerate(lines):
        if code[k]:
            continue
        m = _SECTION.match(line)
        if m is not None:
            if m.group(1) == "Module":
                module, below = True, False
                lines[k] = f"# {m.group(2)}"
            else:
                below = module
                lines[k] = f"{'##' if module else '#'} {m.group(2)}"
            continue
        h = _HEADING.match(line) if below else None
        if h is not None:
            lines[k] = "#" * min(6, len(h.group(1)) + 1) + h.group(2)
    return "\n".join(lines)


def resolve(files: list[SourceFile], docs_dir: Path, roots: Sequence[Path]) -> list[SourceFile]:
    """`files` with their Dokka includes read as Dokka shows them."""
    if not any(f.path.endswith(KOTLIN_SUFFIXES) for f in files):
        return files  # (Dokka documents Kotlin: a tree without a Kotlin page has none)
    found = _includes(files, Path(docs_dir), roots)
    if not found:
        return files
    out: list[SourceFile] = []
    for f in files:
        body = shown(f.body) if f.path in found else None
        out.append(f if body is None or body == f.body else dataclasses.replace(f, body=body))
    return out
