"""Translations as sites lay them out, and which pages are the site's default language: the one
home of this rule, used by `docsmcp init` (which proposes excluding the translations) and by
`docsmcp build` without a manifest (which leaves them out and says so).

A docs site translated into seven languages holds every page eight times; an agent asking in
one language got the same section in several of them (SWR's site: `mutation.mdx`,
`mutation.es.mdx`, `mutation.ru.mdx` as the top three of "useSWRMutation trigger"). The bundle
answers in the site's default language; each language can be a bundle of its own (`--include`).

Two layouts, from names only:
* a suffix: `page.ja.mdx` beside `page.mdx` (Fumadocs, mkdocs-static-i18n, Hugo), or
  `page.zh-CN.mdx` beside `page.en-US.mdx` (Nextra: the `en` one is the default);
* a folder: `es/` beside `en/` (FastAPI's `docs/es/docs`), `zh/` whose pages mirror the pages
  beside it (VitePress, Starlight: the default language unprefixed), or anything under
  `i18n/<language>/` (Docusaurus).
A language counts when at least MIN_PAGES pages are in it, so a lone `notes.it.md` or a folder
`id/` stays an ordinary page or folder. Language codes are site_config.LANGUAGE's.

Terraform provider docs translate their pages into programming languages the same way: the
CDK for Terraform's `docs/cdktf/python/resources/string.md` and `docs/cdktf/typescript/...`
beside the HCL page `docs/resources/string.md`, the registry's language switch. Their copies
(Python or TypeScript code, the same argument lists) took the first hits of four of six
queries on terraform-provider-random; an agent writing HCL wants the page itself. A
`cdktf/<language>/` folder whose pages mirror those beside `cdktf/` is left out the same way.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from docsmcp.sources.files import MARKDOWN_SUFFIXES, RST_SUFFIXES
from docsmcp.sources.site_config import LANGUAGE

# Pages a language needs before its files count as translations.
MIN_PAGES = 2
# Share of a language folder's pages that must also be pages of the default language.
MIRROR_SHARE = 0.5
_I18N_FOLDERS = frozenset({"i18n", "locales", "translations"})
# The folder of CDK for Terraform translations in a Terraform provider's docs.
_CDKTF = "cdktf"
# The documents a page can be translated as (files.py's markdown and reST suffixes).
_DOC_SUFFIXES = MARKDOWN_SUFFIXES + RST_SUFFIXES


@dataclass(frozen=True)
class Translations:
    """Pages in another language than the site's default: the exclude globs that leave them out
    and the files each glob matches, by language."""

    globs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # glob -> files
    languages: Mapping[str, int] = field(default_factory=dict)  # language -> pages

    @property
    def files(self) -> frozenset[str]:
        return frozenset(p for paths in self.globs.values() for p in paths)

    def line(self, built: bool = False) -> str:
        """What was assumed, for init's report (the proposal's excludes) or the build summary
        (`built`: no manifest, the files were left out)."""
        if not self.globs:
            return ""
        said = ", ".join(f"{lang} ({n})" for lang, n in sorted(self.languages.items()))
        how = (
            f"a manifest decides instead; --include '{next(iter(self.globs))}' builds that "
            "language on its own"
            if built
            else "drop a language's exclude to keep it"
        )
        return (
            f"translations: {len(self.files)} pages in {len(self.languages)} other languages "
            f"left out: {said}; the bundle answers in the site's default language ({how})"
        )


def _split_suffix(path: str) -> tuple[str, str | None, str] | None:
    """(`dir/page`, language or None, `.ext`) of a document path, or None for other files."""
    stem, dot, ext = path.rpartition(".")
    if not dot or f".{ext.lower()}" not in _DOC_SUFFIXES:
        return None
    base, dot, code = stem.rpartition(".")
    if dot and base and "/" not in code and LANGUAGE.match(code):
        return base, code, f".{ext}"
    return stem, None, f".{ext}"


def _by_suffix(paths: list[str]) -> dict[str, list[str]]:
    """language -> its pages, of the `page.xx.ext` layout."""
    groups: dict[tuple[str, str], dict[str | None, str]] = defaultdict(dict)
    for path in paths:
        split = _split_suffix(path)
        if split is not None:
            base, code, ext = split
            groups[(base, ext.lower())][code] = path
    out: dict[str, list[str]] = defaultdict(list)
    for members in groups.values():
        if len(members) < 2:
            continue
        if None in members:
            default: str | None = None
        else:  # every page suffixed (Nextra): English is the default, else nothing is known
            english = sorted(c for c in members if c and c.lower().startswith("en"))
            if not english:
                continue
            default = english[0]
        for code, path in members.items():
            if code != default and code is not None:
                out[code].append(path)
    return out


def _by_folder(paths: list[str]) -> dict[str, list[str]]:
    """`folder/xx` -> its pages, of the folder layouts."""
    children: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for path in paths:
        parts = path.split("/")
        for depth in range(len(parts) - 1):
            parent = "/".join(parts[:depth])
            children[parent][parts[depth]].append("/".join(parts[depth + 1 :]))
    out: dict[str, list[str]] = {}
    for parent, names in children.items():
        codes = sorted(n for n in names if LANGUAGE.match(n))
        if not codes:
            continue
        prefix = f"{parent}/" if parent else ""
        if parent.rpartition("/")[2].lower() in _I18N_FOLDERS:
            default_pages: set[str] | None = None  # Docusaurus: every language is a translation
        elif any(c.lower().startswith("en") for c in codes):
            default_code = min(c for c in codes if c.lower().startswith("en"))
            codes.remove(default_code)
            default_pages = set(names[default_code])
        else:  # the default language unprefixed beside its translations' folders
            rels = [p[len(prefix) :] for p in paths if p.startswith(prefix)]
            default_pages = {r for r in rels if r.split("/", 1)[0] not in codes}
        for code in codes:
            pages = names[code]
            if default_pages is not None:
                mirrored = sum(p in default_pages for p in pages)
                # (MDN's `web/html/element/th/`: the `<th>` element, its index.md the one
                # page "mirrored", beside td/ and tr/, was left out as Thai)
                if mirrored < MIN_PAGES or mirrored < MIRROR_SHARE * len(pages):
                    continue
            out[f"{prefix}{code}"] = [f"{prefix}{code}/{p}" for p in pages]
    return out


def _by_cdktf(paths: list[str]) -> dict[str, list[str]]:
    """`folder/cdktf/language` -> its pages, where they mirror the pages of `folder` (the
    CDK for Terraform translations of a Terraform provider's docs)."""
    by_folder: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        parts = path.split("/")
        for i in range(len(parts) - 2):
            if parts[i] == _CDKTF:
                by_folder["/".join(parts[: i + 2])].append("/".join(parts[i + 2 :]))
                break
    known = set(paths)
    out: dict[str, list[str]] = {}
    for folder, pages in by_folder.items():
        parent = folder.rsplit("/", 2)[0] + "/" if folder.count("/") >= 2 else ""
        mirrored = sum(f"{parent}{page}" in known for page in pages)
        if mirrored >= MIN_PAGES and mirrored >= MIRROR_SHARE * len(pages):
            out[folder] = [f"{folder}/{p}" for p in pages]
    return out


def detect(paths: Iterable[str]) -> Translations:
    """The translated pages among `paths` (relative, `/`-separated), as exclude globs."""
    paths = sorted(set(paths))
    globs: dict[str, tuple[str, ...]] = {}
    languages: dict[str, int] = defaultdict(int)
    taken: set[str] = set()
    for folder, pages in sorted(_by_cdktf(paths).items()):
        globs[f"{folder}/**"] = tuple(pages)
        taken.update(pages)
        languages[f"CDK for Terraform {folder.rpartition('/')[2]}"] += len(pages)
    paths = [p for p in paths if p not in taken]
    for folder, pages in sorted(_by_folder(paths).items()):
        pages = [p for p in pages if p not in taken]
        if len(pages) >= MIN_PAGES:
            globs[f"{folder}/**"] = tuple(pages)
            taken.update(pages)
            languages[folder.rpartition("/")[2]] += len(pages)
    for code, pages in sorted(_by_suffix(paths).items()):
        pages = [p for p in pages if p not in taken]
        if len(pages) < MIN_PAGES:
            continue
        for ext in sorted({p.rpartition(".")[2] for p in pages}):
            matched = tuple(p for p in pages if p.endswith(f".{code}.{ext}"))
            globs[f"**/*.{code}.{ext}"] = matched
            taken.update(matched)
        languages[code] += len(pages)
    return Translations(dict(sorted(globs.items())), dict(languages))


def page_language(path: str) -> str | None:
    """The language a page's name says (`index.zh-CN.md`: `zh-CN`), else None."""
    split = _split_suffix(path)
    return split[1] if split is not None else None


def preferred_language(languages: Iterable[str], path: str) -> str | None:
    """Which of `languages` (codes a file holds its text in) a page at `path` reads: the one
    its name says, else English (the default of every suffixed layout above), else the first;
    None when one of them is no language code (`{label: ..., href: ...}` is no translation)."""
    codes = list(languages)
    if not codes or not all(isinstance(c, str) and LANGUAGE.match(c) for c in codes):
        return None
    own = (page_language(path) or "").lower()
    lowered = {c.lower(): c for c in codes}
    if own in lowered:
        return lowered[own]
    return next((c for c in codes if c.lower().startswith("en")), codes[0])


def localized(value: Mapping[object, object], path: str) -> str | None:
    """A text written once per language (dumi's demos: `title: {zh-CN: 按钮, en-US: Button}`)
    in the language the page at `path` reads (preferred_language), else None."""
    code = preferred_language([k for k in value if isinstance(k, str)], path)
    if code is None or len(value) != sum(isinstance(k, str) for k in value):
        return None
    text = value[code]
    return text.strip() if isinstance(text, str) else None
