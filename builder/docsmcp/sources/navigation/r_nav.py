"""The order R sites give their pages (navfiles.py reads these like any nav file):

- pkgdown's `_pkgdown.yml` (or `_pkgdown.yaml`, `pkgdown/_pkgdown.yml`) at the package root:
  the home page (`index.md`, else `README.md`), then `articles` (each `contents` name a
  vignette, `vignettes/NAME.Rmd` or `vignettes/articles/NAME.Rmd`), then `reference` (each
  `contents` name a topic: an Rd file's `\\name` or one of its `\\alias`es). Selectors
  (`starts_with("x")`, `-topic`) are pkgdown's code, not names: left to the path order.
- bookdown's `_bookdown.yml`: `rmd_files` (a list, or one per output format: `html` first), else
  bookdown's default, `index.Rmd` then every `.Rmd` of the folder by name but those whose name
  starts with `_`.

Titles stay the pages' own (an Rd `\\title`, a vignette's `title:`): the nav gives their order,
and a reference page the words of its entry in pkgdown's index (the objects it documents).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from docsmcp.sources.site_config import read_text, read_yaml

PKGDOWN_CONFIGS = ("_pkgdown.yml", "_pkgdown.yaml", "pkgdown/_pkgdown.yml")
BOOKDOWN_CONFIG = "_bookdown.yml"
_TOPIC = re.compile(r"^\\(?:name|alias)\{([^{}\n]+)\}", re.MULTILINE)
_NAME = re.compile(r"^[\w.-]+$")
_OBJECT = re.compile(r"^[A-Za-z.][\w.]*$")  # an R name (no topic page's `mutate-joins`)
_MAX_RD_FILES = 10_000


def pkgdown_config(docs_dir: Path) -> Path | None:
    return next((docs_dir / n for n in PKGDOWN_CONFIGS if (docs_dir / n).is_file()), None)


def _contents(sections: object) -> Iterator[str]:
    """The plain names of a pkgdown `reference`/`articles` list's `contents`, in order."""
    for section in sections if isinstance(sections, list) else []:
        names = section.get("contents") if isinstance(section, dict) else None
        for name in names if isinstance(names, list) else []:
            if isinstance(name, str) and _NAME.match(name.strip()):
                yield name.strip()


def _topics(root: Path, paths: Sequence[str]) -> tuple[dict[str, Path], dict[Path, str]]:
    """Each topic name of the package's Rd files (`\\name`, `\\alias`) -> its file, and each
    file's entry in pkgdown's reference index: the objects it documents (`inner_join()
    left_join()`), words a reader searches with that the page's title ("Mutating joins") lacks."""
    found: dict[str, Path] = {}
    entries: dict[Path, str] = {}
    for path in [p for p in paths if p.startswith("man/") and p.lower().endswith(".rd")][
        :_MAX_RD_FILES
    ]:
        text = read_text(root / path)
        names = [name.strip() for name in _TOPIC.findall(text)]
        for name in names:
            found.setdefault(name, root / path)
        objects = [n for n in dict.fromkeys(names[1:] or names) if _OBJECT.match(n)]
        # (an S3 method's alias, `left_join.data.frame`, is its generic's entry)
        objects = [n for n in objects if not any(n.startswith(o + ".") for o in objects)]
        call = "()" if "\\usage{" in text and "\\docType{data}" not in text else ""
        entries[root / path] = " ".join(n + call for n in objects)
    return found, entries


def pkgdown(config: Path, docs_dir: Path, paths: Sequence[str]) -> Iterator[tuple[Path, str]]:
    """(page file, "") in the order a pkgdown site shows its pages."""
    data = read_yaml(config)
    if not isinstance(data, dict):
        return
    known = set(paths)
    for home in ("index.md", "README.md"):
        if home in known:
            yield docs_dir / home, ""
            break
    for name in _contents(data.get("articles")):
        for folder in ("vignettes", "vignettes/articles"):
            for suffix in (".Rmd", ".qmd", ".md"):
                if f"{folder}/{name}{suffix}" in known:
                    yield docs_dir / folder / f"{name}{suffix}", ""
    topics, entries = _topics(docs_dir, paths)
    for name in _contents(data.get("reference")):
        if name in topics:
            yield topics[name], entries.get(topics[name], "")


def bookdown(config: Path, paths: Sequence[str]) -> Iterator[tuple[Path, str]]:
    """(chapter file, "") in the book's order."""
    data = read_yaml(config)
    files = data.get("rmd_files") if isinstance(data, dict) else None
    if isinstance(files, dict):  # one list per output format: the HTML book's
        files = files.get("html", next(iter(files.values()), None))
    if isinstance(files, list):
        for name in files:
            if isinstance(name, str):
                yield config.parent / name, ""
        return
    folder = config.parent
    names = sorted(
        p.name
        for p in folder.iterdir()
        if p.suffix.lower() == ".rmd" and not p.name.startswith("_") and p.is_file()
    )
    for name in sorted(names, key=lambda n: (n.lower() != "index.rmd", n)):
        yield folder / name, ""


def describe(docs_dir: Path, paths: Sequence[str]) -> str:
    """init's line about an R site among `paths` (the pages kept), "" for any other site."""
    reference = sum(p.lower().endswith(".rd") for p in paths)
    rmd = sum(p.lower().endswith((".rmd", ".rmarkdown")) for p in paths)
    if not reference and not rmd:
        return ""
    chunks = "code chunks shown as code, never run; echo=FALSE and include=FALSE ones hidden"
    parts = []
    if reference:
        parts.append(f"{reference} reference pages (.Rd; each function a usage calls an API entry)")
    if rmd:
        parts.append(f"{rmd} R Markdown pages ({chunks})")
    config = pkgdown_config(docs_dir)
    if config is not None:
        kind = f"R package, pkgdown site ({config.relative_to(docs_dir).as_posix()})"
    elif (docs_dir / BOOKDOWN_CONFIG).is_file():
        kind = f"bookdown book ({BOOKDOWN_CONFIG})"
    else:
        kind = "R package" if reference else "R Markdown"
    knitted = [
        f"{n}.Rmd is the source of {n}.md, no page"
        for n in ("README", "index")
        if (docs_dir / f"{n}.Rmd").is_file() and f"{n}.Rmd" not in paths and f"{n}.md" in paths
    ]
    return f"{kind}: " + ", ".join(parts) + "".join(f"; {k}" for k in knitted)
