"""Resolving cross references: every link found by xref.py matched to the chunk it points at (by
path, anchor, heading or section number), and the references section texts.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Iterator, Sequence
from urllib.parse import unquote

from docsmcp.enrich.exdoc_links import autolink, flat_name
from docsmcp.enrich.section_ids import GRAMMAR_ANCHOR_PREFIX, RULE_ANCHOR_PREFIXES
from docsmcp.enrich.xref import (
    _DOC_EXTS,
    _FILE_EXT,
    _HTML_EXTS,
    _INDEX_NAMES,
    _MAX_HREF,
    _MAX_PARTS,
    _SCHEME,
    IGNORED,
    KINDS,
    MAX_UNRESOLVED_SHOWN,
    CrossRefs,
    FileRefs,
    _external,
    _norm,
    extract_refs,
)
from docsmcp.model.chunk import Chunk, ParsedFile
from docsmcp.sources.files import CODE_PAGE_SUFFIXES, MAN_SUFFIXES
from docsmcp.sources.formats.r.rmarkdown import RMARKDOWN_SUFFIXES as _RMARKDOWN
from docsmcp.sources.formats.rst.rst_suffixes import is_rst
from docsmcp.sources.formats.source.xmldoc import uid_object
from docsmcp.sources.layout.translations import page_language
from docsmcp.sources.roles import ORDER_PREFIX
from docsmcp.sources.site_config import LANGUAGE

# Pages whose `object:` anchors name the API objects they define (rustdoc.py's … yard.py's,
# a GraphQL schema's types: another schema file's types are named in signatures; protodoc.py's;
# a manual page's `name(N)`, which `.Xr` names: roff/manpage.py).
_OBJECT_PAGES = (".rs", ".java", ".kt", ".cs", ".swift", ".php", ".rb", ".dart", ".scala",
                 ".graphql", ".graphqls", ".gql", ".proto", ".sol", *MAN_SUFFIXES)  # fmt: skip
_OBJECT_PAGES += (".pm", ".pod", ".pl")  # (Perl's POD: pod.py)


def _unordered(path: str) -> str:
    """`path` without the ordering prefix of each of its segments (roles.ORDER_PREFIX), and
    without its route groups (Next.js and Fumadocs: `(root)/cli.mdx` is served at `/docs/cli`;
    shadcn's 15 links to it from other folders were unresolved)."""
    return "/".join(
        ORDER_PREFIX.sub("", part)
        for part in path.split("/")
        if not (part.startswith("(") and part.endswith(")"))
    )


def _locale_root(path: str) -> str:
    """The folder of `path` (within its first three) that names a language (`docs/en`), or ""."""
    parts = path.split("/")[:-1]
    for i, part in enumerate(parts[:3]):
        if LANGUAGE.match(part):
            return "/".join(parts[: i + 1])
    return ""


# Link paths whose file the resolver remembers at a time (bounded: ~150 bytes each).
MAX_REMEMBERED_PATHS = 1 << 17


class _Resolver:
    def __init__(self, files: Sequence[FileRefs], n_rows: int) -> None:
        self.files = files
        self.rows = n_rows
        self.by_path: dict[str, int] = {}
        self.by_lower_path: dict[str, int] = {}
        self.folders: set[str] = set()
        self.rules: dict[str, int] = {}  # rule id -> row, over the corpus
        self.productions: dict[str, int] = {}  # grammar production -> row, over the corpus
        self.sections_global: dict[str, list[int]] = {}  # section id -> rows
        self.sections_by_dir: dict[tuple[str, str], int] = {}
        self.sections_by_doc: dict[tuple[str, str], int] = {}
        # Anchors of every reST page: Sphinx's `:ref:` labels are global (rst.py writes a
        # label of another page as `#label`).
        self.rst_anchors: dict[str, int] = {}
        # Anchors of every R Markdown page: a bookdown book's ids are the book's (pandoc writes
        # `#id` of another chapter as `chapter.html#id`).
        self.rmd_anchors: dict[str, int] = {}
        self.md_anchors: dict[str, int] | None = None  # Documenter's, made on first use
        # (link path, source folder) -> file: pages of a folder link to the same pages, and
        # each path tries up to ~10 candidate files (win32: 768k link paths, 8 M lookups).
        self._paths: dict[tuple[str, str], int | None] = {}
        self._source, self._base, self._top = "", "", ""  # the last page, its folders
        self._locale = ""  # ... and its language's folder (_locale_root)
        self.routes: dict[str, int] = {}  # a frontmatter route (FileRefs.routes) -> file
        # a path without its segments' ordering prefixes (Nuxt's `1.getting-started/
        # 02.installation.md` is the route `getting-started/installation`) -> file
        self.by_route: dict[str, int] = {}
        # ExDoc's flat names (exdoc_links.py): a page's file name, a module's name -> file;
        # None where two pages share one. Filled only where an Elixir module page is built.
        self.flat: dict[str, int | None] = {}
        if any(f.modules for f in files):
            for k, f in enumerate(files):
                for key in (flat_name(f.path), *(flat_name(m) for m in f.modules)):
                    self.flat[key] = None if key in self.flat and self.flat[key] != k else k
        for k, f in enumerate(files):
            for route in f.routes:
                self.routes.setdefault(route, k)
            # (the code readers' `object:` anchors: _OBJECT_PAGES)
            if is_rst(f.path) or f.path.lower().endswith(_OBJECT_PAGES):
                for key, row in f.anchors.items():
                    self.rst_anchors.setdefault(key, row)
            elif f.path.lower().endswith(_RMARKDOWN):
                for key, row in f.anchors.items():
                    self.rmd_anchors.setdefault(key, row)
            self.by_path.setdefault(f.path, k)
            self.by_lower_path.setdefault(f.path.lower(), k)
            unordered = _unordered(f.path.lower())
            if unordered != f.path.lower():
                self.by_route.setdefault(unordered, k)
            if (code := page_language(f.path)) is not None:
                # A page named for its language (dumi's `common-props.en-US.md`, Nextra's) is
                # served without it (`/docs/react/common-props`): Ant Design's 435 links.
                stem, ext = posixpath.splitext(unordered)
                self.by_route.setdefault(stem[: -len(code) - 1] + ext, k)
            folder = posixpath.dirname(f.path)
            while folder and folder not in self.folders:
                self.folders.add(folder)
                folder = posixpath.dirname(folder)
            for rule, row in f.rules.items():
                self.rules.setdefault(rule, row)
            for name, row in f.productions.items():
                self.productions.setdefault(name, row)
            folder = posixpath.dirname(f.path)
            for sid, row in f.sections.items():
                self.sections_global.setdefault(sid, []).append(row)
                self.sections_by_dir.setdefault((folder, sid), row)
                for doc in f.doc_keys:
                    self.sections_by_doc.setdefault((doc, sid), row)

        self.lower_folders = {folder.lower() for folder in self.folders}
        self.lower_folders |= {_unordered(folder) for folder in self.lower_folders} - {""}

    # -- links ----------------------------------------------------------------------------------

    def _file(self, path: str) -> int | None:
        """The file at `path`, else the first whose path is `path` but for case, else for case
        and its segments' ordering prefixes (`by_route`)."""
        k = self.by_lower_path.get(path.lower())
        if k is None:  # (most candidates name no file: one lookup decides)
            return self.by_route.get(path.lower()) if self.by_route else None
        exact = self.by_path.get(path)
        return k if exact is None else exact

    def _candidates(self, path: str) -> Iterator[str]:
        """File paths a link path may mean, most literal first."""
        folder = path.endswith("/")
        trimmed = path.rstrip("/")
        if not trimmed:
            yield from _INDEX_NAMES
            return
        lower = trimmed.lower()
        if (lower.endswith(_DOC_EXTS) or is_rst(lower)) and not folder:
            yield trimmed  # (`.txt`: a Sphinx page, sphinx_suffix.py; else no page, ignored)
            if lower.endswith(".rst"):  # Sphinx's `:doc:` of a MyST page (rst.py writes `.rst`)
                yield trimmed[:-4] + ".md"
                yield trimmed[:-4] + ".txt"  # (of a page conf.py's source_suffix makes `.txt`)
            return
        if lower.endswith(CODE_PAGE_SUFFIXES) and not folder:
            # A code file's page (Doxygen's `@ref glfwCreateWindow` from a guide, a crate's
            # `src/router.rs`): a link to it was ignored as one to a source file (GLFW: 957 of its
            # guides' links).
            yield trimmed
            return
        if lower.endswith(_HTML_EXTS) and not folder:  # mdBook: `x.html` is `x.md`
            yield trimmed  # a page of a saved HTML site (convert.py)
            stem = trimmed[: trimmed.rfind(".")]
            yield stem + ".md"
            yield stem + ".mdx"
            if posixpath.basename(stem).lower() == "index":
                yield posixpath.join(posixpath.dirname(stem), "README.md")
            return
        if not folder:  # a route: `./authentication` is `authentication.md(x)`
            yield trimmed + ".md"
            yield trimmed + ".mdx"
        if lower in self.lower_folders:  # (no index page of a folder that holds no page)
            for name in _INDEX_NAMES:
                yield f"{trimmed}/{name}"
        if folder:  # a pretty URL: Deno's (Lume), Hugo's, 11ty's `/runtime/fundamentals/node/`
            yield trimmed + ".md"  # is the page `runtime/fundamentals/node.md`
            yield trimmed + ".mdx"

    def _find(self, path: str) -> int | None:
        for cand in self._candidates(path):
            k = self._file(cand)
            if k is not None:
                return k
        return None

    def resolve_link(self, href: str, source: FileRefs) -> int | None:
        """Row a link points to; None when unresolved; IGNORED when it is not a reference we
        count (an external URL, an empty link)."""
        href = href.strip()
        if not href:
            return IGNORED
        if len(href) > _MAX_HREF:
            return None
        if href.startswith("//") or _SCHEME.match(href):
            return IGNORED
        if href.startswith("{{"):
            return IGNORED  # a template value (`{{ site.repository }}/issues/7`), no page
        if href.startswith("@/"):
            href = href[1:]  # Zola's internal link: a path from the content folder
        # `Ecto.Repo.insert/2` (the markdown reader writes its backticks as %60)
        if self.flat and (auto := autolink(unquote(href) if "%60" in href else href)):
            return self._autolink(*auto, source)
        path, _, anchor = href.partition("#")
        path = path.partition("?")[0]
        # (unquote only where there is something to unquote: two calls a link were ~10 % here)
        path = (unquote(path) if "%" in path else path).replace("\\", "/")
        anchor = (unquote(anchor) if "%" in anchor else anchor).strip()
        if path.count("/") > _MAX_PARTS or "\x00" in path:
            return None
        if path == "@ref" and anchor:  # Documenter's cross reference (sources/sites/documenter.py)
            return self._documenter(source, anchor)
        if not path:
            if not anchor:
                return IGNORED
            row = self._anchor(source, anchor)
            if row is None and is_rst(source.path):
                row = self.rst_anchors.get(_norm(anchor))
            elif row is None and source.path.lower().endswith(_RMARKDOWN):
                row = self.rmd_anchors.get(_norm(anchor))
            return row
        target = self._resolve_path(path, source)
        if target is None and self.flat and "/" not in path:  # ExDoc's `installation.html`
            target = self.flat.get(flat_name(path))
        if target is None:
            if "/" not in path and not anchor:
                # mdBook-spec: a bare rule id or grammar production as link destination
                row = self.rules.get(path)
                if row is None:
                    row = self.productions.get(path)
                if row is not None:
                    return row
            ext = posixpath.splitext(posixpath.basename(path.rstrip("/")))[1].lower()
            if _FILE_EXT.fullmatch(ext) and ext not in _DOC_EXTS + _HTML_EXTS:
                return IGNORED  # a source file, image or PDF: not a page of the bundle
            return None
        return self._anchor(self.files[target], anchor)

    def _documenter(self, source: FileRefs, anchor: str) -> int | None:
        """The heading or docstring a Documenter `@ref` names: its anchors are global, the
        page's own first."""
        row = self._anchor(source, anchor)
        if row is not None:
            return row
        if self.md_anchors is None:
            self.md_anchors = {}
            for f in self.files:
                if not is_rst(f.path):
                    for key, found in f.anchors.items():
                        self.md_anchors.setdefault(key, found)
        return self.md_anchors.get(_norm(anchor))

    def _autolink(self, module: str, anchor: str, source: FileRefs) -> int | None:
        """The row an ExDoc auto-link names: `module`'s page (a flat name) at `anchor`; without
        a module the linking page's own entry, else Kernel's or Kernel.SpecialForms' (imported
        everywhere: Elixir's pages write `in/2`, `<<>>/1`), as ExDoc resolves them."""
        if module:
            k = self.flat.get(module)
            return None if k is None else self._anchor(self.files[k], anchor)
        row = self._anchor(source, anchor)
        for imported in ("kernel", "kernel.specialforms"):
            if row is None and anchor and (k := self.flat.get(imported)) is not None:
                row = self._anchor(self.files[k], anchor)
        return row

    def _resolve_path(self, path: str, source: FileRefs) -> int | None:
        if source.path != self._source:  # links come file by file
            self._source, self._base = source.path, posixpath.dirname(source.path)
            self._top = source.path.partition("/")[0] if "/" in source.path else ""
            self._locale = _locale_root(source.path)
        # What the path resolves to depends on the source's folder, or for an absolute path
        # only on its top folder (and locale folder): pages all over a corpus share those
        # (win32: 780k links, most absolute, from 48k pages in ~5k folders).
        key = (path, f"{self._top}\0{self._locale}" if path.startswith("/") else self._base)
        found = self._paths.get(key, IGNORED)
        if found == IGNORED:
            if len(self._paths) >= MAX_REMEMBERED_PATHS:
                self._paths.clear()  # (files come folder by folder: recent paths repeat)
            found = self._paths[key] = self._resolve_path_from(path, self._base, source.path)
        if found is None and not path.startswith("/"):
            found = self._from_page_url(path, source.path)
        return found

    def _from_page_url(self, path: str, page: str) -> int | None:
        """A relative link written against the page's URL where the site serves `dir/foo.md`
        as `dir/foo/` (mkdocs' directory URLs): raw HTML links are not rewritten as markdown
        links are (Textual's `<a href="../../css_types/color">` in its 38 style pages). Only for
        links found no other way, and not cached: it depends on the page, not only its folder."""
        stem = posixpath.splitext(page)[0]
        if posixpath.basename(stem).lower() in ("index", "readme"):
            return None  # served at its folder's own URL: the folder's links were tried
        joined = posixpath.normpath(posixpath.join(stem, path))
        if joined in (".", "..") or joined.startswith("../"):
            return None
        return self._find(joined + ("/" if path.endswith("/") else ""))

    def _resolve_path_from(self, path: str, base: str, source_path: str) -> int | None:
        """`_resolve_path` of a link in a page of folder `base` (its path: `source_path`)."""
        slash = "/" if path.endswith("/") else ""
        if path.startswith("/"):
            return self._resolve_absolute(path, source_path, slash)
        joined = posixpath.normpath(posixpath.join(base, path))
        if joined == ".." or joined.startswith("../"):
            return None  # escapes the docs: not in the bundle
        k = self._find("" if joined == "." else joined + slash)
        if k is not None or not base:
            return k
        # Docusaurus serves `dir/foo.md` as the route `/dir/foo`: a relative link from it may
        # be written against the page's route rather than its folder.
        alt = posixpath.normpath(posixpath.join(base, "..", path))
        if alt == ".." or alt.startswith("../"):
            return None
        return self._find("" if alt == "." else alt + slash)

    def _resolve_absolute(self, path: str, source_path: str, slash: str) -> int | None:
        """`/docs/x`: against the docs root, under the source's top folder, and without a
        leading route segment or two that are no folder of the docs (`/docs/` when the docs
        root is the `docs` folder itself, `/docs/4.x/` on Nuxt's); first, a page's own route."""
        rel = posixpath.normpath("/" + path.lstrip("/")).lstrip("/")
        if self.routes:  # a page's own `permalink` or `slug` (Jekyll: `/docs/installation/`)
            route = rel.rstrip("/").lower()
            for key in (route, route.partition("/")[2]):
                if key in self.routes:
                    return self.routes[key]
        tries = [rel]
        top = source_path.partition("/")[0] if "/" in source_path else ""
        if top:
            tries.append(f"{top}/{rel}" if rel else top)
        rest = rel
        for _ in range(2):  # `/docs/4.x/guide/x` (Nuxt): up to two route segments
            head, _, tail = rest.partition("/")
            if not tail or head in self.folders or head.lower() in self.lower_folders:
                break
            tries.append(tail)
            if top:
                tries.append(f"{top}/{tail}")
            rest = tail
        # A docs-only Docusaurus site serves its docs at the root (`routeBasePath: '/'`):
        # `/concepts/agents` is `docs/concepts/agents`; a version's `path` (`/1.0/x`) names
        # `versioned_docs/version-1.0/x` (Agenta: 400 of 820 links resolved without them).
        head, _, tail = rel.partition("/")
        if rel and "docs" in self.folders:
            tries.append(f"docs/{rel}")
        if tail and f"versioned_docs/version-{head}" in self.folders:
            tries.append(f"versioned_docs/version-{head}/{tail}")
        # A site whose languages are folders serves its default one at the root (Rspress:
        # `/guide/x` of `docs/en/api/y.mdx` is `docs/en/guide/x.mdx`; 255 of 354 links failed
        # when the docs folder was the site's, above `docs/`).
        locale = _locale_root(source_path)
        if rel and locale and locale != top:
            tries.append(f"{locale}/{rel}")
        for t in tries:
            k = self._find(t + slash if t else "")
            if k is None and t:
                k = self.routes.get(t.rstrip("/").lower())
            if k is not None:
                return k
        return None

    def _anchor(self, f: FileRefs, anchor: str) -> int | None:
        if not f.count:
            return None
        if not anchor:
            return f.first_row
        row = f.anchors.get(_norm(anchor))
        if row is not None:
            return row
        for prefix in RULE_ANCHOR_PREFIXES:
            if anchor.startswith(prefix):
                rule = anchor[len(prefix) :]
                row = f.rules.get(rule)
                if row is None:
                    row = self.rules.get(rule)
                if row is not None:
                    return row
        if anchor in f.rules:
            return f.rules[anchor]
        if anchor.startswith(GRAMMAR_ANCHOR_PREFIX):
            return self.productions.get(anchor[len(GRAMMAR_ANCHOR_PREFIX) :])
        return None

    # -- text references ------------------------------------------------------------------------

    def resolve_section(self, sid: str, source: FileRefs) -> int | None:
        row = source.sections.get(sid)
        if row is not None:
            return row
        row = self.sections_by_dir.get((posixpath.dirname(source.path), sid))
        if row is not None:
            return row
        rows = self.sections_global.get(sid)
        if rows is not None and len(rows) == 1:
            return rows[0]
        return None

    def resolve_doc_section(self, doc: str, sid: str) -> int | None:
        key = doc.strip().lower()
        row = self.sections_by_doc.get((key, sid))
        if row is None and key.endswith((".md", ".mdx")):
            row = self.sections_by_doc.get((key.rsplit(".", 1)[0], sid))
        return row


def resolve_refs(
    files: Iterable[FileRefs], n_rows: int, targets: list[FileRefs] | None = None
) -> CrossRefs:
    """Section ids, rule ids, resolved references and target summaries of every chunk row, from
    the records of every file of the bundle in row order (`n_rows`: the rows of all of them).
    `targets`: the same records with only what a link is resolved against (path, rows,
    anchors, rules, productions, sections, document keys), when `files` is only iterable
    (tables.RefSpill reads records back from disk; `files` is iterated twice)."""
    res = _Resolver(list(files) if targets is None else targets, n_rows)
    refs: dict[int, dict[int, None]] = {}  # source row -> targets (an ordered set)
    found = dict.fromkeys(KINDS, 0)
    resolved = dict.fromkeys(KINDS, 0)
    anchors: dict[int, dict[str, None]] = {}  # target row -> link texts (an ordered set)
    unresolved: list[tuple[str, str]] = []
    for f in files:
        texts = f.texts if len(f.texts) == len(f.refs) else ("",) * len(f.refs)
        for (kind, source, payload), text in zip(f.refs, texts, strict=True):
            if isinstance(payload, tuple):  # document-section: (doc, sid)
                target = res.resolve_doc_section(*payload)
            elif kind == "link":
                target = res.resolve_link(payload, f)
                if target == IGNORED:
                    continue
            elif kind == "object":
                target = res._anchor(f, payload)
                if target is None:
                    target = res.rst_anchors.get(_norm(payload))
                if target is None and (k := res.routes.get(payload)) is not None:
                    target = res.files[k].first_row  # (docfx's `xref:uid`: xref.XREF)
                if target is None and payload.startswith("xref:"):  # (a C# API's uid)
                    target = res.rst_anchors.get(_norm(uid_object(payload)))
                if target is None:
                    continue  # a builtin, another project's object (intersphinx)
            else:
                target = res.resolve_section(payload, f)
            found[kind] += 1
            if target is None or not 0 <= target < n_rows:
                if kind == "link" and len(unresolved) < MAX_UNRESOLVED_SHOWN:
                    unresolved.append((f.path, str(payload)))
                continue
            resolved[kind] += 1
            if target != source:
                refs.setdefault(source, {}).setdefault(target, None)
                if anchor_text(text):
                    anchors.setdefault(target, {}).setdefault(text, None)

    references = [tuple(refs[k]) if k in refs else () for k in range(n_rows)]
    targeted = {t for r in references for t in r}
    summaries: list[str | None] = [None] * n_rows
    section_ids: list[str | None] = [None] * n_rows
    rule_ids: list[tuple[str, ...]] = [()] * n_rows
    for f in files:
        for row, text in f.summaries.items():
            if row in targeted:
                summaries[row] = text
        section_ids[f.first_row : f.first_row + f.count] = f.section_ids
        rule_ids[f.first_row : f.first_row + f.count] = f.rule_ids
    return CrossRefs(
        section_ids=section_ids,
        rule_ids=rule_ids,
        references=references,
        summaries=summaries,
        stats={k: (found[k], resolved[k]) for k in KINDS},
        anchors=[tuple(anchors[k])[:MAX_ANCHORS] if k in anchors else () for k in range(n_rows)],
        unresolved=tuple(unresolved),
    )


# Link texts that say nothing about their target ("see here"); compared casefolded.
GENERIC_ANCHORS = frozenset(
    {
        "here",
        "click here",
        "this",
        "this page",
        "link",
        "this link",
        "more",
        "read more",
        "learn more",
        "see",
        "see here",
        "docs",
        "documentation",
        "details",
        "see more",
        "source",
    }
)
# Distinct anchor texts kept per target row (in order of first appearance).
MAX_ANCHORS = 64


def anchor_text(text: str) -> bool:
    """Whether a link's text says something about its target: not empty, generic or a URL."""
    low = text.strip().casefold()
    return bool(low) and low not in GENERIC_ANCHORS and not _external(low) and "://" not in low


def cross_references(files: list[ParsedFile], chunks_per_file: list[list[Chunk]]) -> CrossRefs:
    """Section ids, rule ids, resolved references and target summaries of every chunk row (rows
    are the chunks of `chunks_per_file` concatenated in order): `extract_refs` of each file,
    then `resolve_refs`."""
    out: list[FileRefs] = []
    row = 0
    for parsed, chunks in zip(files, chunks_per_file, strict=False):
        out.append(extract_refs(parsed, chunks, row))
        row += len(chunks)
    return resolve_refs(out, row)
