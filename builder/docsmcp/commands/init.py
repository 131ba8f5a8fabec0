"""`docsmcp init`: propose a starting `.docs-mcp.json` for a docs folder from its structure.

The proposal is made from names and structure only, never from a list of known projects:

* **Files**: the builder's own discovery (`discover.scan`) and reader (`manifest.load_file`,
  within the same limits), so the same files count as in `docsmcp build`.
* **exclude**: vendored or generated folders (`node_modules`, `bower_components`, `vendor`,
  `site-packages`, `__pycache__`, `_build`, Sphinx's `_templates`), test code (`__tests__`,
  `__snapshots__`, `__fixtures__`; `test/`, `tests/`, `fixtures/`, `testdata/` at the top of
  a code repository: Prettier's root holds 400 markdown fixtures) and coding agents'
  instruction files (`AGENTS.md`, `CLAUDE.md`, `GEMINI.md`, `copilot-instructions.md`), and an
  mdBook's table of contents (`SUMMARY.md`, read for the pages' titles and order), each only
  when such files exist (init_excludes.py).
  Files the build cannot read (over the size limit, not UTF-8, too many lines or table cells)
  are excluded one by one, each with the reason in the report, so the proposal builds; the
  user mends such a file and drops its exclude.
  Changelogs and release notes stay in (for a protocol spec the changelog *is*
  documentation): the build gives them the page role `changelog` (sources/roles.py), which
  ranks them below other pages unless a query asks about changes; the report counts them.
  Translations (`page.ja.mdx` beside `page.mdx`, `es/` beside `en/`, `i18n/fr/`) are excluded,
  each language by one glob, so the bundle answers in the site's default language:
  `docsmcp.sources.layout.translations` (the rule `docsmcp build` applies too when the docs have no
  manifest).
* **language**: among sibling folders at depth 1 (else depth 2), those whose name, or one
  `-`/`_`-separated part of it, is a programming language known to
  `docsmcp_runtime.search.languages` (`python`, `ts`, `dub-python`, `sdk-go`, ...), when they
  name at least two languages. Values are the canonical names (`ts` -> `typescript`); the key
  collapses variants (`vector_collapse`). When other pages exist too, `scope` tells them apart as
  `global-guide` (every language) and `sdk-specific`, the docs-mcp convention the runtime
  applies by default for `language`.
* **product**: top folders that are each a docs tree of their own (a language-suffixed name
  whose rest names the product, `dub-go` -> `dub`; else a folder holding its own manifest or a
  `docs/` folder), when they name at least two products.
* **version**: version folders as users lay them out (`v2`, `1.x`, `version-0.5.x`,
  `2025-11-25`, with `next`/`draft`/`current`/`latest` beside them; Docusaurus' `X/` as
  `current` beside `versioned_X/version-*/`; mike folders), and the latest release as the
  key's `latest`: `docsmcp.sources.layout.versions` (the rule `docsmcp build` applies too when no
  manifest names `version`).
* **strategy**: for h1, h2 and h3, every file is cut where the builder would cut it (a heading
  of that level or shallower, outside code fences; reST and saved HTML as the builder converts
  them, a sample of them past CONVERT_SAMPLE_BYTES). A level's typical size is the
  character-weighted median: half of the text lies in sections of at most that many characters.
  Starting at h1, the next deeper level is taken while the current one's typical size is over
  TARGET_SECTION_CHARS (4,000 characters, ~1,000 tokens) or the deeper one is closer to it on a
  log scale, and the deeper one shrinks the typical size by at least a quarter (DEEPER_GAIN)
  without going under MIN_SECTION_CHARS (1,000): FastAPI's pages (h1 8,953, h2 1,655) are cut
  at h2, not indexed whole. `max_chunk_size` is the weighted 90th percentile of that level, rounded
  up to 1,000, within 4,000..20,000 (no text: h2 and 20,000). Pages of one template (half the
  h2 headings or more carry a title that recurs on a quarter of the pages and ten at least: a
  Terraform provider's Example Usage, Argument Reference, Import), a tenth of whose text lies
  in pages over 8,000 characters, start from h2 and take 8,000 as the ceiling: whole, the
  github provider's pages were hits of up to 15,020 characters and its queries ranked 0.811
  MRR@5, 0.850 cut at h2. The API entries readers register (ExDoc functions, rustdoc methods)
  are chunks of their own whatever the level (chunking/levels.py): the report counts them, and
  the proposal is measured as before, so the guides keep their chunks.

The proposal is then validated by the builder exactly as `docsmcp validate` does (through a
temporary folder of symlinks holding the proposal as its root manifest).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from docsmcp_runtime.distribution.swap import replace_file
from docsmcp_runtime.search.languages import SDK_LANGUAGES as _SDK_LANGUAGES
from docsmcp_runtime.search.languages import normalise_language

from docsmcp.commands.init_excludes import excludes, glob_escape
from docsmcp.commands.init_strategy import (
    DEEPER_GAIN,
    LEVELS,
    MAX_CHUNK_CEILING,
    MAX_CHUNK_FLOOR,
    MIN_SECTION_CHARS,
    TARGET_SECTION_CHARS,
    TEMPLATE_MAX_CHUNK,
    as_markdown,
    strategy,
)
from docsmcp.sources import site_passes
from docsmcp.sources.discover import matches_any, scan
from docsmcp.sources.files import MANIFEST_NAME, source_roots
from docsmcp.sources.layout.translations import detect as detect_translations
from docsmcp.sources.layout.variants import detect as detect_variants
from docsmcp.sources.layout.versions import DESCRIPTION as VERSION_DESCRIPTION
from docsmcp.sources.layout.versions import detect as detect_versions
from docsmcp.sources.manifest import MAX_METADATA_VALUE
from docsmcp.sources.navigation import documenter_make, r_nav
from docsmcp.sources.navigation.navfiles import read_nav, summary_line
from docsmcp.sources.packages import (
    doxygen_project,
    typescript_site,
)
from docsmcp.sources.pdf.extract import is_pdf
from docsmcp.sources.pdf.source import load_pdf
from docsmcp.sources.roles import CHANGELOG, classify
from docsmcp.sources.settings import load_file
from docsmcp.sources.site_build import unbuilt

# Parts of a folder name that say "an SDK" rather than name a product.
_GENERIC = frozenset({"sdk", "sdks", "client", "clients", "lib", "libs", "library", "api", "docs"})
# A folder of change entries, whose subfolders sort them (by language, by kind).
_CHANGES = re.compile(r"changelog|changes|release", re.IGNORECASE)
DESCRIPTIONS = {
    "language": "Programming language of the SDK the page documents (from folder names).",
    "product": "Product or library the page documents (from the top folder's name).",
    "scope": "global-guide pages apply to every language; sdk-specific pages to one.",
    "version": VERSION_DESCRIPTION,
}


@dataclass
class Proposal:
    manifest: dict
    files: int
    values: dict[str, Counter]  # key -> value -> files
    excluded: dict[str, int]  # exclude glob -> files it leaves out
    changelogs: int  # files kept with the page role `changelog` (indexed, ranked lower)
    level: str
    medians: dict[str, int]  # level -> typical section size (characters: init_strategy.py)
    max_chunk_size: int
    template: float = 0.0  # the share of h2 headings of one template (init_strategy.py)
    # API entries the build registers, and on how many pages: set from init's validation run
    # (`validate_proposal`), which reads every file as the build does (a Doxygen project's
    # settings, a crate's re-exports are after-reading passes no sample of pages sees).
    api: tuple[int, int] = (0, 0)
    nested: list[str] = field(default_factory=list)  # manifests below the root
    latest: str = ""  # the latest version and why, for the report ("" without versions)
    default: tuple[str, str] = ("", "")  # a variant key and its default with why (variants.py)
    translations: str = ""  # the translations left out, for the report (layout/translations.py)
    unreadable: dict[str, str] = field(default_factory=dict)  # exclude glob -> why
    demos: int = 0  # dumi's demo descriptions, read with their demos (no pages)
    r_site: str = ""  # what kind of R site the docs are (navigation/r_nav.py), "" for others
    site_rule: str = ""  # the site's own rule of what it builds, when it leaves pages out

    def text(self) -> str:
        """The manifest as written: sorted keys, two-space indent, final newline."""
        return json.dumps(self.manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    def report(self) -> list[str]:
        lines = [f"{self.files} files"]
        if self.r_site:
            lines.append(self.r_site)
        if self.site_rule:  # (why the excludes below that are the site's own: site_build.unbuilt)
            lines.append(f"site: excludes {self.site_rule}")
        for glob, count in sorted(self.excluded.items()):
            why = self.unreadable.get(glob)
            lines.append(
                f"exclude {glob}: the build cannot read it: {why}"
                if why
                else f"exclude {glob}: {count} files"
            )
        if self.translations:
            lines.append(self.translations)
        if self.demos:
            lines.append(
                f"demos: {self.demos} demo descriptions (demo/x.md beside demo/x.tsx: dumi) are "
                "read into the pages that show their demos, with the demo's code, not as pages"
            )
        if self.changelogs:
            lines.append(
                f"changelogs: {self.changelogs} files kept (role changelog: they rank below "
                "other pages unless a query asks about changes; filter role=changelog for them)"
            )
        for key in sorted(self.values):
            counts = self.values[key]
            shown = ", ".join(f"{v} ({n})" for v, n in sorted(counts.items()))
            lines.append(f"{key}: {len(counts)} values: {shown}")
            if key == "version" and self.latest:
                lines.append(f"version: latest {self.latest}")
            if key == self.default[0]:
                lines.append(
                    f"{key}: default {self.default[1]}; search shows each section once, as its "
                    f"copy of it where there is one, unless a query names a {key} or filters"
                )
        if not self.values:
            lines.append("taxonomy: no language, product, version or variant folders found")
        medians = ", ".join(f"{lv} {self.medians[lv]:,}" for lv in LEVELS)
        if not any(self.medians.values()):
            lines.append(f"chunk_by {self.level} (the default): no text to measure")
            return lines + self._nested()
        start = (
            f"from h2, as the pages follow one template ({self.template:.0%} of their h2 "
            "headings recur across them)"
            if self.template
            else "from h1"
        )
        ceiling = TEMPLATE_MAX_CHUNK if self.template else MAX_CHUNK_CEILING
        lines.append(
            f"chunk_by {self.level}: half the text is in sections of at most {medians} "
            f"characters; {self.level}: {start}, deeper levels are taken while sections are "
            f"over {TARGET_SECTION_CHARS:,} or get closer to it (a deeper one must cut them by "
            f"{1 - DEEPER_GAIN:.0%} and leave {MIN_SECTION_CHARS:,}); max_chunk_size "
            f"{self.max_chunk_size:,}: 90% of the text "
            f"is in sections this small (rounded up, within {MAX_CHUNK_FLOOR:,}.."
            f"{ceiling:,})"
        )
        if self.api[0]:
            lines.append(
                f"api: {self.api[0]:,} entries on {self.api[1]:,} pages (functions, types, "
                "methods their readers register) are each a chunk of their own, whatever "
                "chunk_by; chunk_by cuts their other sections and the guides"
            )
        return lines + self._nested()

    def _nested(self) -> list[str]:
        lines = []
        if self.nested:
            lines.append(
                f"note: {len(self.nested)} manifest(s) below the root govern their own folders "
                f"and take precedence there: {', '.join(self.nested[:5])}"
                + (", ..." if len(self.nested) > 5 else "")
            )
        return lines


# --- names ---------------------------------------------------------------------------------


def _language_of(name: str) -> tuple[str, str] | None:
    """(language, the rest of the name) when the folder name is a language or has exactly one
    `-`/`_`-separated part that is one; the rest drops generic parts (`sdk`, `client`)."""
    parts = [p for p in re.split(r"[-_]", name.lower()) if p]
    found = [(i, normalise_language(p)) for i, p in enumerate(parts)]
    hits = [(i, lang) for i, lang in found if lang in _SDK_LANGUAGES]
    if len(hits) != 1:
        return None
    index, language = hits[0]
    rest = [p for i, p in enumerate(parts) if i != index and p not in _GENERIC]
    return language, "-".join(rest)


def _usable_value(value: str) -> bool:
    """Whether ``value`` is a metadata value the builder accepts (manifest.py's rule)."""
    return 0 < len(value.strip()) <= MAX_METADATA_VALUE


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder + "/")


# --- the proposal ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tree:
    paths: tuple[str, ...]  # markdown files, sorted
    manifests: tuple[str, ...]

    def folders(self, depth: int) -> dict[str, set[str]]:
        """parent -> names of its child folders at ``depth`` (1: top folders)."""
        out: dict[str, set[str]] = defaultdict(set)
        for path in self.paths:
            parts = path.split("/")[:-1]
            if len(parts) >= depth:
                out["/".join(parts[: depth - 1])].add(parts[depth - 1])
        return out


def _language_folders(tree: _Tree) -> dict[str, tuple[str, str]]:
    """folder path -> (language, rest of its name), at the shallowest depth where sibling
    folders name at least two languages."""
    for depth in (1, 2):
        out: dict[str, tuple[str, str]] = {}
        for parent, names in sorted(tree.folders(depth).items()):
            if _CHANGES.search(parent.rpartition("/")[2]):
                continue  # Prettier's `changelog_unreleased/typescript/`: entries, not an SDK
            hits = {n: lang for n in sorted(names) if (lang := _language_of(n))}
            if len({lang for lang, _ in hits.values()}) >= 2:
                for name, lang in hits.items():
                    out[f"{parent}/{name}" if parent else name] = lang
        if out:
            return out
    return {}


def _products(tree: _Tree, languages: Mapping[str, tuple[str, str]]) -> dict[str, str]:
    """top folder -> product, when at least two top folders are docs trees of their own."""
    out: dict[str, str] = {}
    manifest_folders = {m.rpartition("/")[0] for m in tree.manifests}
    for top in sorted(tree.folders(1).get("", ())):
        if top in languages and languages[top][1]:
            out[top] = languages[top][1]
        elif top in manifest_folders or any(p.startswith(f"{top}/docs/") for p in tree.paths):
            out[top] = _language_of(top)[1] if _language_of(top) else top.lower()
    out = {k: v for k, v in out.items() if v}
    return out if len(set(out.values())) >= 2 else {}


def _read_tree(
    docs_dir: Path, extra: Sequence[Path] = ()
) -> tuple[_Tree, dict[str, str], dict[str, str]]:
    """The pages, their text, and the files the build cannot read with the first reason."""
    listing = scan(docs_dir)
    roots = source_roots(docs_dir, extra)
    # Code that is no page (TypeScript no package exports, a crate's tests, a distribution's
    # private modules: site_passes.code_files) is never read, here as in the build.
    listed = [e.path for e in listing.markdown]
    code = site_passes.typescript_code(docs_dir, roots, listed, warn=False)
    code |= site_passes.code_files(docs_dir, roots, listed, warn=False)
    bodies: dict[str, str] = {}
    unreadable: dict[str, str] = {}
    for entry in listing.markdown:
        # (HTML as the build reads it: Sequelize's `static/v1..v5/` beside its markdown made
        # five version values of nothing)
        if entry.refusal or entry.skip or listing.unread(entry.path) or entry.path in code:
            continue
        if is_pdf(entry.path):  # read as the build reads it (its text layer), not as UTF-8
            source, problems, _ = load_pdf(docs_dir, entry.path, None, roots, None)
        else:
            source, problems = load_file(docs_dir, entry.path, None, roots)
        if source is not None:
            bodies[entry.path] = source.body
        elif problems:
            unreadable[entry.path] = problems[0].message
    manifests = tuple(e.path for e in listing.manifests if e.refusal is None and e.skip is None)
    return _Tree(tuple(sorted(bodies)), manifests), bodies, unreadable


def propose(docs_dir: Path, roots: Sequence[Path] = ()) -> Proposal:
    """The proposed manifest of ``docs_dir`` with what it is based on; `roots`: the source
    roots beside it (--source-root, --api-source), where site configuration is read too."""
    docs_dir = Path(docs_dir)
    tree, bodies, unreadable = _read_tree(docs_dir, roots)
    excluded = excludes(tree.paths, bodies, docs_dir, (docs_dir, *roots))
    # Each file the build cannot read, by itself, unless a glob above leaves it out already or
    # the build reads it as no page (a header no Doxyfile names: SFML's 4 MB miniaudio.h).
    code = doxygen_project.no_pages(docs_dir, source_roots(docs_dir, roots), list(unreadable))
    unreadable = {
        p: m for p, m in unreadable.items() if not matches_any(excluded, p) and p not in code
    }
    excluded.update({glob_escape(p): [p] for p in unreadable})
    left_out = {p for paths in excluded.values() for p in paths}
    translations = detect_translations(p for p in tree.paths if p not in left_out)
    excluded.update({glob: list(paths) for glob, paths in translations.globs.items()})
    left_out |= translations.files
    # What the build reads into other pages, never as pages (site_passes.included: the same
    # rules): an Antora module's partials, a manual's chapters. (Code that is no page was never
    # read: _read_tree.)
    real_roots = source_roots(docs_dir, roots)
    left_out |= site_passes.included(docs_dir, real_roots, tree.paths)
    demos = site_passes.demo_descriptions(docs_dir, [p for p in tree.paths if p not in left_out])
    left_out |= demos
    # A Go package's files other than its page: read into its page (go_source.py).
    left_out |= site_passes.go_packages(docs_dir, real_roots, tree.paths).not_pages
    kept = _Tree(tuple(p for p in tree.paths if p not in left_out), tree.manifests)

    languages = _language_folders(kept)
    products = _products(kept, languages)
    declared = site_passes.guarded(
        {}, typescript_site.version_folders, docs_dir, real_roots, kept.paths
    )
    layout = detect_versions(docs_dir, kept.paths, declared)  # (zod's `exports` `./v3`, `./v4`)
    versions = dict(layout.folders)
    variants = detect_variants(
        kept.paths, lambda p: len(bodies[p]), [*versions, *languages, *products, *DESCRIPTIONS]
    )
    # folder -> metadata, one override per folder (metadata of overlapping folders merges).
    by_folder: dict[str, dict[str, str]] = defaultdict(dict)
    for key, found in (
        ("language", {f: lang for f, (lang, _) in languages.items()}),
        ("product", products),
        ("version", versions),
        *([(variants.key, dict(variants.folders))] if variants.key else []),
    ):
        for folder, value in found.items():
            if _usable_value(value):
                by_folder[folder][key] = value.strip()
    manifest: dict = {"version": "1"}
    keys = sorted({k for metadata in by_folder.values() for k in metadata})
    taxonomy: dict[str, dict] = {
        key: {"description": DESCRIPTIONS.get(key) or variants.description()} for key in keys
    }
    if variants.key in taxonomy:
        taxonomy[variants.key]["default"] = variants.default
    if "language" in taxonomy:
        taxonomy["language"]["vector_collapse"] = True
        covered = [p for p in kept.paths if any(_inside(p, f) for f in languages)]
        if len(covered) < len(kept.paths):  # pages for every language exist too
            manifest["metadata"] = {"scope": "global-guide"}
            taxonomy["scope"] = {"description": DESCRIPTIONS["scope"]}
            for folder in languages:
                by_folder[folder]["scope"] = "sdk-specific"
    if "version" in taxonomy and layout.latest is not None:
        taxonomy["version"]["latest"] = layout.latest
    # Shallower folders first, so a deeper folder's value wins wherever both set a key.
    ordered = sorted(by_folder.items(), key=lambda item: (item[0].count("/"), item[0]))
    values: dict[str, Counter] = defaultdict(Counter)
    for path in kept.paths:
        metadata = dict(manifest.get("metadata", {}))
        for folder, assigned in ordered:
            if _inside(path, folder):
                metadata.update(assigned)
        for key, value in metadata.items():
            values[key][value] += 1
    choice = strategy(as_markdown({p: bodies[p] for p in kept.paths}))
    manifest["strategy"] = {"chunk_by": choice.level, "max_chunk_size": choice.max_size}
    if excluded:
        manifest["exclude"] = sorted(excluded)
    if taxonomy:
        manifest["taxonomy"] = taxonomy
    if ordered:
        manifest["overrides"] = [
            {"pattern": f"{glob_escape(folder)}/**", "metadata": dict(sorted(metadata.items()))}
            for folder, metadata in ordered
        ]
    nested = [m for m in tree.manifests if m != MANIFEST_NAME]
    return Proposal(
        manifest=manifest,
        files=len(kept.paths),
        values=dict(values),
        excluded={g: len(p) for g, p in excluded.items()},
        changelogs=sum(classify(p, None, {}, bodies[p]) == CHANGELOG for p in kept.paths),
        level=choice.level,
        medians=choice.typical,
        max_chunk_size=choice.max_size,
        template=choice.template,
        nested=nested,
        latest=f"{layout.latest} ({layout.why})" if "version" in taxonomy and layout.latest else "",
        default=(variants.key, f"{variants.default} ({variants.why})")
        if variants.key in taxonomy
        else ("", ""),
        translations=translations.line(),
        site_rule=unbuilt(docs_dir, (docs_dir, *roots), tree.paths)[0] if excluded else "",
        unreadable={glob_escape(p): m for p, m in unreadable.items()},
        demos=len(demos),
        r_site=r_nav.describe(docs_dir, kept.paths),
    )


# --- validation -----------------------------------------------------------------------------


def _inside(folder: Path, docs_dir: Path) -> bool:
    """Whether `folder` is the docs folder or inside it (real paths)."""
    real, docs = Path(os.path.realpath(folder)), Path(os.path.realpath(docs_dir))
    return real == docs or docs in real.parents


def validate_proposal(  # noqa: ANN201
    docs_dir: Path,
    proposal: Proposal,
    workers: int = 0,
    roots: Sequence[Path] = (),
    api_sources: Sequence[Path] = (),
):
    """`docsmcp validate`'s Collected for ``docs_dir`` with the proposal as its root manifest,
    reading files under `roots` too (--source-root, --api-source); `api_sources` (among them):
    the packages --api-source names, read as the build reads them (outside the docs folder
    too: packages/api_sources.py).

    The builder reads manifests from disk and the docs may be read-only, so the check runs on a
    temporary folder holding the proposal and a symlink to every entry of ``docs_dir`` (which
    is given as a source root, so the links are followed)."""
    from docsmcp.pipeline.collect import BuildOptions, collect, nothing_found

    docs_dir = Path(docs_dir)
    with tempfile.TemporaryDirectory(prefix="docsmcp-init-") as tmp:
        # The overlay's folder stands where the docs folder does: includes are also looked up
        # in the folder holding it (mkdocs.yml's, pymdownx's base: Textual's 731 snippets
        # `docs/blog/images/x.svg`), so that folder's entries are linked beside it.
        overlay = Path(tmp) / (docs_dir.resolve().name or "docs")
        overlay.mkdir()
        parent = docs_dir.resolve().parent
        if parent != docs_dir.resolve():
            for name in sorted(os.listdir(parent)):
                if name != overlay.name and not name.startswith("."):
                    os.symlink(parent / name, Path(tmp) / name)
        (overlay / MANIFEST_NAME).write_text(proposal.text(), encoding="utf-8")
        for name in sorted(os.listdir(docs_dir)):
            if name in (MANIFEST_NAME, ".git"):
                continue
            # (hidden entries too: no page, but configuration the build reads, as a gem's
            # `.yardopts` naming its pages or VitePress' `.vitepress/config`)
            os.symlink(os.path.abspath(docs_dir / name), overlay / name)
        options = BuildOptions(
            docs_dir=overlay,
            source_roots=(docs_dir, *roots),
            # (a package inside the docs folder is read through the overlay's links, as the
            # build reads it; named as a mount it would be read twice: zod's packages/zod)
            api_sources=tuple(a for a in api_sources if not _inside(a, docs_dir)),
            workers=workers,
        )
        collected = collect(options)
        if collected.corpus.files:
            return collected
        # Nothing to read: said of the user's folder (what it holds, its name), not the overlay.
        empty = nothing_found(overlay, False)
        problems = [nothing_found(docs_dir, False) if p == empty else p for p in collected.problems]
        return replace(collected, problems=problems)


def describe(values: Mapping[str, Sequence[str]]) -> str:
    return ", ".join(f"{k} ({len(v)})" for k, v in sorted(values.items())) or "none"


def run_init_cli(args) -> int:  # noqa: ANN001 - an argparse.Namespace
    """`docsmcp init`: the proposal on stdout (report on stderr) or written with --write."""
    import sys

    def err(message: str) -> None:
        print(f"docsmcp: {message}", file=sys.stderr)

    docs_dir: Path = args.docs_dir
    if not docs_dir.is_dir():
        err(f"error: --docs-dir {docs_dir} is not a directory")
        return 2
    target = docs_dir / MANIFEST_NAME
    if args.write and not args.force and (target.exists() or target.is_symlink()):
        err(f"error: {target} exists; pass --force to replace it (or --stdout to see the proposal)")
        return 2
    roots = (*getattr(args, "source_root", ()), *getattr(args, "api_source", ()))
    proposal = propose(docs_dir, roots)
    api_sources = tuple(getattr(args, "api_source", ()))
    collected = validate_proposal(docs_dir, proposal, roots=roots, api_sources=api_sources)
    proposal = replace(proposal, api=collected.tables.api_counts())
    if args.write and not collected.problems:
        # Written before anything is printed: a reader that goes away (`| head`) loses only
        # the report, never the file.
        replace_file(target, proposal.text().encode("utf-8"))
    report = sys.stdout if args.write else sys.stderr
    for line in proposal.report():
        print(line, file=report)
    for problem in collected.problems:
        print(problem, file=sys.stderr)
    if collected.problems:
        err(f"{len(collected.problems)} problem(s) found by validate with this manifest")
    else:
        keys = ", ".join(sorted(collected.corpus.taxonomy)) or "none"
        print(
            f"validate: ok: {len(collected.corpus.files)} files, {len(collected.chunks)} chunks, "
            f"taxonomy keys: {keys}",
            file=report,
        )
        # Read from the docs folder itself: the check above ran on an overlay of it, whose
        # parent holds no mkdocs.yml or sidebars.
        paths = [f.path for f in collected.corpus.files]
        nav = summary_line(read_nav(docs_dir, [docs_dir, *roots], paths), docs_dir)
        if nav:
            print(nav, file=report)
        every = [e.path for e in scan(docs_dir).markdown]
        for site in (
            documenter_make.describe(docs_dir, roots),
            site_passes.guarded(
                None, typescript_site.describe, docs_dir, source_roots(docs_dir, roots), every
            ),
        ):
            if site:
                print(site, file=report)
    if not args.write:
        sys.stdout.write(proposal.text())
        return 1 if collected.problems else 0
    if collected.problems:
        err(f"nothing written to {target}; see the proposal with --stdout")
        return 1
    print(f"wrote {target}", file=report)
    return 0
