"""The excludes `docsmcp init` proposes (init.py's module docstring, *exclude*, has the rule):
vendored or generated folders, test code, coding agents' instruction files, an mdBook's table
of contents, and what the site's own build leaves out (site_build.unbuilt), each as one glob
with the files it leaves out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from docsmcp.sources.discover import matches_any
from docsmcp.sources.navigation.navfiles import tables_of_contents
from docsmcp.sources.site_build import unbuilt

# Vendored and generated folders, never the site's own pages
# (and Sphinx's `_templates/`: Jinja templates, `.. automodule:: {{ fullname }}`, NumPy's 7)
_VENDOR_FOLDERS = frozenset(
    {"node_modules", "bower_components", "vendor", "site-packages", "__pycache__", "_build"}
    | {"_templates"}
)
# Test code's folders, never documentation: its markdown is a formatter's or parser's fixtures
# (Prettier's `tests/format/markdown/` holds 400 pages, some with frontmatter no build accepts).
_TEST_FOLDERS = frozenset({"__tests__", "__snapshots__", "__fixtures__"})
# ... and, at the top of a code repository only, its test suite (Deno's docs have a `test/`
# folder of pages about testing, deeper down).
_TOP_TEST_FOLDERS = frozenset({"test", "tests", "fixtures", "testdata"})
_REPOSITORY_FILES = (
    "package.json", "pyproject.toml", "setup.py", "Cargo.toml", "go.mod", "pom.xml",
    "build.gradle", "Gemfile", "composer.json",
)  # fmt: skip
# Instructions for the coding agents that work on the repository (Claude Code, Codex, Gemini,
# Copilot), not documentation for its users: Jest's `packages/jest-mock/CLAUDE.md` answered
# "replace a whole module with a fake" above the docs' page on mocking modules.
_AGENT_FILES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md", "copilot-instructions.md")


def glob_escape(text: str) -> str:
    """``text`` matched literally by a glob (globs.py's backslash escapes)."""
    return re.sub(r"([][*?{}\\])", r"\\\1", text)


def excludes(
    paths: Sequence[str], bodies: Mapping[str, str], docs_dir: Path, roots: Sequence[Path]
) -> dict[str, list[str]]:
    """exclude glob -> the files among `paths` (the pages, sorted) it leaves out, for vendored
    folders, test suites, coding agents' instruction files, an mdBook's table of contents and
    what the site's own build leaves out (site_build.unbuilt)."""
    found: dict[str, list[str]] = {}
    # The build reads SUMMARY.md for the pages' titles and order; as a page of its own, its
    # links to every chapter outranked the chapters (mdBook: "preprocessor vs alternative
    # backend").
    for name in tables_of_contents(bodies):
        found[glob_escape(name)] = [name]
    for name in sorted(_VENDOR_FOLDERS | _TEST_FOLDERS):
        hits = [p for p in paths if name in p.split("/")[:-1]]
        if hits:
            found[f"**/{name}/**"] = hits
    if any((docs_dir / name).is_file() for name in _REPOSITORY_FILES):
        for name in sorted(_TOP_TEST_FOLDERS):
            hits = [p for p in paths if p.startswith(name + "/")]
            if hits:
                found[f"{name}/**"] = hits
    for name in _AGENT_FILES:
        hits = [p for p in paths if p.rsplit("/", 1)[-1] == name]
        if hits:
            found[f"**/{name}"] = hits
    taken = {p for paths in found.values() for p in paths}
    for glob in unbuilt(docs_dir, roots, paths)[1]:  # what the site's own build leaves out
        hits = [p for p in paths if matches_any([glob], p) and p not in taken]
        if hits:
            found.setdefault(glob, hits)
    return found
