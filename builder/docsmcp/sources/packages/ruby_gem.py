"""Which Ruby files of a docs tree are pages: the library files of a gem, the ones YARD reads
for rubydoc.info (formats/source/yard.py makes the pages).

A gem is a folder holding a `*.gemspec`. Its pages are the `.rb` files its `.yardopts` names
(the source globs before a lone `-`, `lib/**/*.rb` in Faraday's), less those its `--exclude`
patterns match (YARD's are regular expressions); without a `.yardopts`, the files under the
gemspec's `require_paths` (`lib` unless it says otherwise), which is what YARD reads by
default (`lib/**/*.rb`). Every other `.rb` file (specs, examples, a Rakefile's helpers, a
script beside no gemspec, a gem under `examples/` or `spec/`) is code, no page. The
`.yardopts` extra files (after `-`, or `--files`) are pages already when they are markdown,
RDoc or text of the docs tree.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.sources.files import RUBY_SUFFIXES
from docsmcp.sources.globs import glob_match
from docsmcp.sources.packages.project_files import folders_above, nearest_folder, read_project_file

YARDOPTS = ".yardopts"
# `.yardopts` options that take an argument (the argument is no source glob)
_WITH_ARGUMENT = frozenset(
    """--exclude -e --load --readme -r --markup -m --markup-provider -M --output-dir -o --title
    -t --template -p --template-path --tag --type-tag --type-name-tag --name-tag --hide-tag
    --transitive-tag --non-transitive-tag --plugin --query --main --files --asset --locale
    --po-dir --db -b --charset --format -f --default-return --api --hide-api""".split()
)
_REQUIRE_PATHS = re.compile(r"require_paths\s*=\s*(?:\[([^\]]*)\]|%w[\[(]([^\])]*)[\])])")
# A gemspec in one of these folders is an example's or a test's fixture, no published gem
# (Sidekiq's `examples/webui-ext/`).
_NOT_GEMS = frozenset(
    """example examples sample samples spec specs test tests fixtures benchmark benchmarks
    vendor""".split()
)
MAX_GEMS = 200  # gemspec folders looked at in one tree (a monorepo of gems has tens)


@dataclass(frozen=True)
class Gem:
    folder: str  # relative to the docs dir, "" for the docs dir itself
    sources: tuple[str, ...]  # globs of the files YARD reads, relative to the folder
    excludes: tuple[str, ...]  # `--exclude` regular expressions


def _gemspec(docs_dir: Path, folder: str) -> Path | None:
    base = docs_dir / folder if folder else docs_dir
    try:
        return next(iter(sorted(base.glob("*.gemspec"))), None)
    except OSError:
        return None


def yardopts(text: str) -> tuple[list[str], list[str], list[str]]:
    """(source globs, `--exclude` patterns, extra files) of a `.yardopts` text."""
    try:
        words = shlex.split(text, comments=False)
    except ValueError:
        words = text.split()
    sources: list[str] = []
    excludes: list[str] = []
    extra: list[str] = []
    k = 0
    while k < len(words):
        word = words[k]
        if word == "-":
            extra += words[k + 1 :]
            break
        if word in _WITH_ARGUMENT:
            if k + 1 < len(words):
                if word == "--exclude":
                    excludes.append(words[k + 1])
                elif word == "--files":
                    extra += [w for w in words[k + 1].split(",") if w]
            k += 2
            continue
        if not word.startswith("-"):
            sources.append(word)
        k += 1
    return sources, excludes, extra


def _gem(docs_dir: Path, roots: Sequence[Path], folder: str, spec: Path) -> Gem:
    prefix = folder + "/" if folder else ""
    opts = read_project_file(docs_dir, roots, prefix + YARDOPTS)
    sources: list[str] = []
    excludes: list[str] = []
    if opts is not None:
        sources, excludes, _ = yardopts(opts)
        sources = [s for s in sources if s.endswith(".rb") or s.endswith("*")]
    if not sources:
        spec_text = read_project_file(docs_dir, roots, prefix + spec.name) or ""
        m = _REQUIRE_PATHS.search(spec_text)
        paths = re.findall(r"[\w./-]+", (m.group(1) or m.group(2) or "")) if m else []
        paths = [p.strip("./") for p in paths if p not in ("'", '"')] or ["lib"]
        sources = [f"{p}/**/*.rb" for p in paths if p]
    return Gem(folder, tuple(sources), tuple(excludes))


def gems(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> dict[str, Gem]:
    """The gems of the tree that hold `.rb` files of `listed`, by folder."""
    docs_dir = Path(docs_dir)
    out: dict[str, Gem] = {}
    for folder in folders_above(p for p in listed if p.endswith(RUBY_SUFFIXES)):
        if len(out) >= MAX_GEMS:
            break
        if _NOT_GEMS & set(folder.lower().split("/")):
            continue
        spec = _gemspec(docs_dir, folder)
        if spec is not None:
            out[folder] = _gem(docs_dir, roots, folder, spec)
    return out


def is_page(path: str, gem: Gem) -> bool:
    inner = path[len(gem.folder) + 1 :] if gem.folder else path
    if not any(glob_match(s.removeprefix("./"), inner) for s in gem.sources):
        return False
    for pattern in gem.excludes:
        try:
            if re.search(pattern, inner):
                return False
        except re.error:
            continue
    return True


def pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The `.rb` files of `listed` that are YARD's pages."""
    listed = list(listed)
    found = gems(docs_dir, roots, listed)
    out: set[str] = set()
    for p in listed:
        if p.endswith(RUBY_SUFFIXES):
            at = nearest_folder(p, found)
            if at is not None and is_page(p, found[at]):
                out.add(p)
    return out


def no_pages(docs_dir: Path, roots: Sequence[Path], listed: Iterable[str]) -> set[str]:
    """The `.rb` files of `listed` that are no page: all but a gem's library files."""
    listed = list(listed)
    ruby = {p for p in listed if p.endswith(RUBY_SUFFIXES)}
    if not ruby:
        return set()
    return ruby - pages(docs_dir, roots, listed)
