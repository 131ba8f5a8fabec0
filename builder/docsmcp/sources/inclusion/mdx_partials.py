"""MDX partials: a markdown file a page imports as a component and renders where the component
stands, inlined there before parsing (includes.py calls this for every markdown page).

    import SetupEnv from '@mdx/get-started/SetupEnv.mdx';   <- an import of a .md/.mdx file
    ...
    <SetupEnv env_variable='DATABASE_URL' />                <- a line holding only its tag

Docusaurus (`import Partial from './_partial.mdx'`, `@site/...`), Mintlify snippets
(`import X from '/snippets/x.mdx'`) and Astro or Next.js sites (aliases of their `tsconfig.json`
`compilerOptions.paths`, `@mdx/*` -> `src/mdx/*`) render them so; before, the page showed nothing
there (Drizzle's get-started pages are made of them, 99 pages) and the partial was a page of its
own that the site never serves.

- Where the file is: relative to the page (`./`, `../`); `/x` in the docs folder, then in each
  source root; `@site/x` in the folder holding `docusaurus.config.*` (the docs folder or a
  folder above it); `@alias/x` by the nearest `tsconfig.json`/`jsconfig.json` above the docs
  folder that maps it, else `src/alias/x` or `alias/x` beside that file. Every read is the
  include reader's (only inside the source roots, within the size limits).
- What is inlined: the file's text without its frontmatter and `import`/`export` statements,
  its own partials resolved (up to includes.MAX_DEPTH levels), `{props.NAME}` replaced by the
  string the tag gives NAME, each line at the tag's indent.
- A tag that is not alone on its line (inline text), or whose file cannot be found, is left as
  written (a missing file is counted in the build's include summary, as other includes are).
- A partial one page inlines is part of that page: when its name or a folder of its path starts
  with `_` (Docusaurus' rule), or it lies in a `snippets` or `partials` folder (Mintlify's), it
  is no page of its own (`is_partial_page`). One that several pages inline is template text
  (Drizzle's "apply changes" steps on 50 get-started pages took the first five hits for
  "generate and apply migrations" from the migrations guide): it is left as written in them and
  stays a page of its own, found once (corpus._with_partials). But a fragment among the docs
  that is no page (a `_` file, what the site never serves: Rspress' `route.exclude`) shows its
  text in every page that imports it, as the site does (its text is in no other page).
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from docsmcp_runtime.search.languages import normalise_language

from docsmcp.sources.formats.markdown.fences import code_block, fenced_lines
from docsmcp.sources.formats.markdown.mdx import drop_esm
from docsmcp.sources.frontmatter import split_frontmatter
from docsmcp.sources.jsliteral import named_leaves
from docsmcp.sources.site_config import DOCUSAURUS_CONFIGS, config_above, read_text

# `import Name from "path.mdx";` on a line of its own, or Astro's `import { Content as Name }
# from "path.mdx";` (the rendered page is its `Content` export: Tauri's `_sections/` partials).
_IMPORT = re.compile(
    r"""^import[ \t]+(?:\{[ \t]*Content[ \t]+as[ \t]+([A-Za-z_$][\w$]*)[ \t]*\}"""
    r"""|([A-Za-z_$][\w$]*))[ \t]+from[ \t]+(["'])([^"'\n]+\.mdx?)\3[ \t]*;?[ \t]*$""",
    re.MULTILINE,
)
# A line holding only a self-closing tag: its indent, name and props.
_USE = re.compile(r"^([ \t]*)<([A-Za-z_$][\w$]*)((?:[ \t][^<>]*?)?)[ \t]*/>[ \t]*$")
_STRING_PROP = re.compile(
    r"""([A-Za-z_$][\w$-]*)=(?:"([^"\n]*)"|'([^'\n]*)'|\{["']([^"'\n]*)["']\})"""
)
# A code import: Vite's `import Code from './x.py?raw'`, webpack's `import Code from
# '!!raw-loader!./x.py'`: the file's text as a string, which a code prop shows (below).
_RAW_IMPORT = re.compile(
    r"""^import[ \t]+([A-Za-z_$][\w$]*)[ \t]+from[ \t]+(["'])"""
    r"""((?:!!raw-loader!)?[^"'\n?]+(?:\?raw)?)\2[ \t]*;?[ \t]*$""",
    re.MULTILINE,
)
_PROPS_USE = re.compile(r"\{[ \t]*props\.([A-Za-z_$][\w$]*)[ \t]*\}")
# A component opening a line (its name: a capital first), and its `code` prop holding an object.
_TAG_OPEN = re.compile(r"^([ \t]*)<[A-Z][\w.]*(?=[\s/>]|$)")
_CODE_PROP = re.compile(r"\bcode=\{[ \t\n]*(?=\{)")
# Astro's and Starlight's `<Code code={imported} lang="json" title="tsconfig.json" />`: one
# code import, its language and title as props.
_CODE_NAME = re.compile(r"\bcode=\{[ \t]*([A-Za-z_$][\w$]*)[ \t]*\}")
_LANG_PROP = re.compile(r"""\b(?:lang|language)=(?:"([\w+#.-]+)"|'([\w+#.-]+)')""")
MAX_TAG_LINES = 80  # lines a component with a `code` prop may span
_TS_CONFIGS = ("tsconfig.json", "jsconfig.json")
MAX_CONFIG_LEVELS = 4  # folders above the docs looked at for aliases outside the roots
_PARTIAL_FOLDERS = frozenset({"snippets", "partials"})
# A JSON string (kept) or a comment (dropped): tsconfig files hold both, and `"@mdx/*"` holds
# what looks like a comment's start.
_STRING_OR_COMMENT = re.compile(r'("(?:[^"\\\n]|\\.)*")|//[^\n]*|/\*.*?\*/', re.DOTALL)


def may_import(body: str) -> bool:
    """Whether `body` imports a partial or a file's code (substring tests first: most pages
    have no import)."""
    if "import " not in body:
        return False
    if ".md" in body and _IMPORT.search(body) is not None:
        return True
    return ("?raw" in body or "raw-loader!" in body) and _RAW_IMPORT.search(body) is not None


def imports(lines: list[str], code: list[bool]) -> dict[str, str]:
    """Each name the page imports from a .md/.mdx file -> the path as written, and each it
    imports as a file's code (`?raw`, `!!raw-loader!`) -> the path as written (`is_raw`)."""
    found: dict[str, str] = {}
    for i, line in enumerate(lines):
        if code[i] or not line.startswith("import"):
            continue
        if m := _IMPORT.match(line):
            # (a JavaScript string: `'./\_setup.md'`, as Prettier escapes markdown, is
            # `./_setup.md`)
            found[m.group(1) or m.group(2)] = re.sub(r"\\(.)", r"\1", m.group(4))
        elif ("?raw" in line or "raw-loader!" in line) and (m := _RAW_IMPORT.match(line)):
            found.update({m.group(1): m.group(3)} if is_raw(m.group(3)) else {})
    return found


def is_raw(spec: str) -> bool:
    """Whether an import's path as written asks for the file's text (a code import)."""
    return spec.endswith("?raw") or spec.startswith("!!raw-loader!")


def raw_path(spec: str) -> str:
    """The file a code import names."""
    return spec.removeprefix("!!raw-loader!").removesuffix("?raw")


def use(line: str, names: dict[str, str]) -> tuple[str, str, dict[str, str]] | None:
    """(indent, imported path, string props) when `line` holds only the tag of an imported
    partial, else None."""
    if "/>" not in line:
        return None
    m = _USE.match(line)
    if m is None or m.group(2) not in names or is_raw(names[m.group(2)]):
        return None
    props = {
        p.group(1): next(g for g in p.groups()[1:] if g is not None)
        for p in _STRING_PROP.finditer(m.group(3))
    }
    return m.group(1), names[m.group(2)], props


def candidates(page: str, spec: str, docs_dir: Path, roots: list[Path]) -> list[str]:
    """Where the file `spec` imported by `page` may be, relative to docs_dir (first found wins)."""
    if spec.startswith(("./", "../")):
        return [posixpath.normpath(posixpath.join(posixpath.dirname(page), spec))]
    if spec.startswith("/"):
        rest = spec.lstrip("/")
        out = [rest]
        out += [os.path.relpath(os.path.join(root, rest), docs_dir) for root in roots]
        return list(dict.fromkeys(posixpath.normpath(c) for c in out))
    if spec.startswith("@site/"):
        site = config_above(docs_dir, roots, DOCUSAURUS_CONFIGS)
        return [os.path.relpath(os.path.join(site.parent, spec[6:]), docs_dir)] if site else []
    if spec.startswith("@") or "/" in spec:
        return _aliased(spec, docs_dir, roots)
    return [posixpath.normpath(posixpath.join(posixpath.dirname(page), spec))]


def inline(
    page: str,
    indent: str,
    props: dict[str, str],
    text: str,
    nested: Callable[[str, list[str]], list[str]],
) -> list[str]:
    """The lines a partial's `text` stands for at a tag of `indent` with `props`; `nested`
    resolves the partial's own includes and partials (as a page at its path)."""
    body = split_frontmatter(text).body if text.startswith("---") else text
    lines = body.split("\n")
    if "{" in body and "props." in body:
        lines = [_PROPS_USE.sub(lambda m: props.get(m.group(1), m.group(0)), x) for x in lines]
    # Its imports are its own build-time code: dropped once its own partials are in (the tag's
    # indent would hide them from the page's MDX pass).
    lines = drop_esm(nested(page, lines))
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return [indent + x if x.strip() else "" for x in lines]


@dataclass(frozen=True)
class CodeTag:
    """A self-closing component whose `code` prop names imported files, a tab each (Ionic's
    `<Playground code={{ javascript, react, angular: { files: { 'src/app/x.html': x_html } } }}
    />`, 1,569 examples): its last line, indent and (label, imported name) per tab. The label is
    the keys leading to the name (`angular: src/app/x.html`; a `files` key says nothing). Astro's
    `<Code code={imported} lang="json" title="tsconfig.json" />` of a code import is one
    example, labelled by its title."""

    end: int
    indent: str
    examples: tuple[tuple[str, str], ...]
    language: str = ""  # a `lang` prop (`<Code>`), else each file's suffix says


def code_tags(lines: list[str], code: list[bool], names: dict[str, str]) -> dict[int, CodeTag]:
    """The components of `lines` (outside code) whose `code` prop is an object of names the page
    imports, by their first line; a tag also naming anything else is left as written."""
    found: dict[int, CodeTag] = {}
    i = 0
    while i < len(lines):
        m = None if code[i] or "<" not in lines[i] else _TAG_OPEN.match(lines[i])
        tag = _code_tag(lines, i, m.group(1), names) if m else None
        if tag is not None:
            found[i] = tag
            i = tag.end
        i += 1
    return found


def examples(
    tag: CodeTag,
    names: dict[str, str],
    read: Callable[[str], tuple[str, str] | None],
    nested: Callable[[str, list[str]], list[str]] | None,
) -> list[str]:
    """The lines a CodeTag stands for: each imported file under its label, a code import
    (`?raw`, `!!raw-loader!`) as a block of its language, a markdown file (Ionic's `.md` files
    holding one fenced block) as its markdown, its own imports resolved by `nested` (None: past
    the include depth; such files are left out). `read` gives (the path read, its text) of an
    import's path. These files are read as imports only (a Docusaurus `static/` holds no
    pages), so they are no partials of the page."""
    out: list[str] = []
    for label, name in tag.examples:
        spec = names[name]
        path = raw_path(spec)
        found = read(path)
        if found is None:
            continue
        if is_raw(spec):
            suffix = posixpath.splitext(path)[1].lstrip(".")
            language = tag.language or normalise_language(suffix) or ""
            body = [tag.indent + x if x else x for x in found[1].rstrip("\n").split("\n")]
            lines = code_block(tag.indent, language, body)
        elif nested is not None:
            lines = inline(found[0], tag.indent, {}, found[1], nested)
        else:
            continue
        out += [tag.indent + label, "", *lines, ""] if label else [*lines, ""]
    return out


def only_examples(text: str) -> bool:
    """Whether a partial's text is imports and code tags only (Ionic's usage `index.md`: one
    `<Playground>`). Such a partial is the example of every page that imports it, never template
    text found once (41 of Ionic's examples are on two pages or more: `corpus._with_partials`
    would have left them as tags, shown nowhere), so it is not counted as a partial."""
    if "code=" not in text:
        return False
    lines = drop_esm(text.split("\n"))
    code = fenced_lines(lines)
    tags = code_tags(lines, code, imports(text.split("\n"), code))
    if not tags:
        return False
    inside = {k for start, tag in tags.items() for k in range(start, tag.end + 1)}
    return all(k in inside or not line.strip() for k, line in enumerate(lines))


def _code_tag(lines: list[str], i: int, indent: str, names: dict[str, str]) -> CodeTag | None:
    """The CodeTag opening at line `i`, else None."""
    text = "\n".join(lines[i : i + MAX_TAG_LINES])
    end = tag_end(text)
    if end is None or text[end:].split("\n", 1)[0].strip() or "code=" not in text[:end]:
        return None
    one = _CODE_NAME.search(text, 0, end)
    if one is not None and is_raw(names.get(one.group(1), "")):
        titles = [p for p in _STRING_PROP.finditer(text, 0, end) if p.group(1) == "title"]
        label = next(g for g in titles[0].groups()[1:] if g is not None) if titles else ""
        lang = _LANG_PROP.search(text, 0, end)
        language = (lang.group(1) or lang.group(2)) if lang else ""
        return CodeTag(i + text.count("\n", 0, end), indent, ((label, one.group(1)),), language)
    prop = _CODE_PROP.search(text, 0, end)
    read = named_leaves(text, prop.end()) if prop else None
    if read is None or not text[read[1] :].lstrip().startswith("}"):
        return None
    leaves, _ = read
    if not leaves or any(name not in names for _, name in leaves):
        return None
    examples = tuple((": ".join(k for k in keys if k != "files"), name) for keys, name in leaves)
    return CodeTag(i + text.count("\n", 0, end), indent, examples)


def tag_end(text: str) -> int | None:
    """Where the self-closing tag opening `text` ends (past its `/>`), braces and quoted
    values skipped; None if it ends otherwise (`>`: a tag with children) or not at all."""
    depth = 0
    quote = ""
    pos = 1
    while pos < len(text):
        c = text[pos]
        if quote:
            if c == "\\":
                pos += 1
            elif c == quote:
                quote = ""
        elif c in "\"'`":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth == 0 and c == ">":
            return pos + 1 if text[pos - 1] == "/" else None
        pos += 1
    return None


def page_imports(lines: list[str]) -> dict[str, str]:
    """`imports` of a page's lines (an import shown in a code block is none)."""
    return imports(lines, fenced_lines(lines))


def is_partial_page(path: str) -> bool:
    """Whether an inlined partial at `path` is no page of its own (see the module docstring)."""
    parts = path.split("/")
    return any(p.startswith("_") for p in parts) or any(p in _PARTIAL_FOLDERS for p in parts[:-1])


# -- aliases ------------------------------------------------------------------------------------


def _aliased(spec: str, docs_dir: Path, roots: list[Path]) -> list[str]:
    head, _, rest = spec.partition("/")
    out: list[str] = []
    config = config_above(docs_dir, roots, _TS_CONFIGS)
    if config is not None:
        for base, targets in _ts_paths(config, config.stat().st_mtime_ns):
            if base == head + "/*":
                out += [os.path.join(t[: -len("*")], rest) for t in targets if t.endswith("*")]
        bare, folder = head.lstrip("@"), config.parent
        out += [str(folder / "src" / bare / rest), str(folder / bare / rest)]
    elif (outside := _config_outside(docs_dir)) is not None:
        # The aliases are defined outside the source roots (Tauri's tsconfig.json at the
        # repository root, the docs in src/content/docs): the file, which is not read, stands
        # for the import, so the build says "outside the source roots" and names that folder,
        # not "do not exist".
        out.append(str(outside))
    return list(dict.fromkeys(posixpath.normpath(os.path.relpath(c, docs_dir)) for c in out))


def _config_outside(docs_dir: Path) -> Path | None:
    """A tsconfig/jsconfig above docs_dir (up to MAX_CONFIG_LEVELS), found without reading."""
    for folder in list(docs_dir.resolve().parents)[:MAX_CONFIG_LEVELS]:
        for name in _TS_CONFIGS:
            if (folder / name).is_file():
                return folder / name
    return None


@lru_cache(maxsize=16)
def _ts_paths(config: Path, mtime_ns: int) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`compilerOptions.paths` of a tsconfig/jsconfig, targets made absolute from `baseUrl`
    (comments and trailing commas allowed, as TypeScript reads them); () if none. Kept per
    file and modification time: every aliased partial of every page asks (Drizzle: 370)."""
    try:
        bare = _STRING_OR_COMMENT.sub(lambda m: m.group(1) or "", read_text(config))
        data = json.loads(re.sub(r",(\s*[}\]])", r"\1", bare) or "null")
    except (ValueError, RecursionError):
        return ()
    options = data.get("compilerOptions") if isinstance(data, dict) else None
    paths = options.get("paths") if isinstance(options, dict) else None
    if not isinstance(paths, dict):
        return ()
    base = os.path.join(config.parent, str(options.get("baseUrl") or "."))
    return tuple(
        (str(k), tuple(os.path.join(base, str(t)) for t in v if isinstance(t, str)))
        for k, v in paths.items()
        if isinstance(v, list)
    )
