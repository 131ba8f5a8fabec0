"""A Rust crate's layout, as cargo and rustdoc read it, for the rustdoc reader
(formats/source/rustdoc.py): which `.rs` files are pages, what module each one is, and its docs'
`include_str!` files inlined.

A `.rs` file is a page when it is a module of a library crate: under a folder `src/` that holds
a `lib.rs` (cargo's default library root), its module path being its path below `src/`
(`src/routing/mod.rs` and `src/routing.rs` are `routing`), not a binary (`src/main.rs`,
`src/bin/`), and declared by its parent module (`mod routing;`, also inside a macro such as
`cfg_net! { pub mod net; }`) without `#[cfg(test)]` or `#[doc(hidden)]`. Every other `.rs` file
(`examples/`, `tests/`, `benches/`, `build.rs`, code a docs folder includes, a module no `mod`
declares) is code, no page. A workspace is many crates: each `src/lib.rs` is one, named by its
`Cargo.toml` (`[lib] name`, else `[package] name`, `-` read as `_`), else by its folder; but
for the crate that is the docs folder itself, a crate is read only when docs.rs could show it
(`published`: a description, not `publish = false`), so a workspace's examples, a book's
listings (the Rust book's 300 `listings/*/src/lib.rs`) and an application's internal crates
(Zola's `components/`) stay code.

A module declared `mod x;` (not `pub`) has no page on docs.rs: the items it defines are shown
where its parent re-exports them, so they are named under the nearest public module
(`axum::Json`, defined in the private `json.rs`). `expand` writes that context as a header line
(rustdoc.HEADER) over the file's text, and replaces `#[doc = include_str!("path")]` (also
`#![doc = …]`, `#![cfg_attr(docsrs, doc = include_str!(…))]` and the
`concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")` form) by the file's lines as doc comments,
read through `files.read_file`, so only inside the source roots. A file so included is read
where it is included, not as a page of its own (`no_pages`): axum's `src/docs/*.md`, clap's
`examples/*.md`, a README that is the crate's front page.
"""

from __future__ import annotations

import functools
import logging
import os
import posixpath
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.common.limits import MAX_FILE_BYTES
from docsmcp.sources.files import RUST_SUFFIXES, read_file_text
from docsmcp.sources.formats.source.rust_lex import tokens
from docsmcp.sources.formats.source.rustdoc import attribute, header

CARGO_TOML = "Cargo.toml"  # a crate's manifest: its name, whether it is published
log = logging.getLogger("docsmcp.sources.packages.rust_crate")

RUST_SUFFIX = RUST_SUFFIXES[0]
_INCLUDE = re.compile(
    r'^(\s*)#(!?)\[\s*(?:cfg_attr\(\s*[\w\s(),="]*?,\s*)?doc\s*=\s*include_str!\(\s*'
    r'(?:"([^"\n]+)"|concat!\(\s*env!\(\s*"CARGO_MANIFEST_DIR"\s*\)\s*,\s*"([^"\n]+)"\s*\))'
    r"\s*\)\s*\)?\s*\]\s*$"
)
_NAME = re.compile(r'^\s*name\s*=\s*"([^"\n]+)"', re.MULTILINE)
_DESCRIPTION = re.compile(r"^\s*description\s*[=.]", re.MULTILINE)
_UNPUBLISHED = re.compile(r"^\s*publish\s*=\s*false\b", re.MULTILINE)
_SECTION = re.compile(r"^\s*\[([^\]\n]+)\]\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Module:
    root: str  # the crate's folder, relative to the docs dir ("" for the docs dir itself)
    segments: tuple[str, ...]  # the module path inside the crate (() for lib.rs)
    public: tuple[str, ...]  # where its items are published (its path to the first private one)
    shown: bool  # False: under cfg(test) or doc(hidden), or declared by no parent


def _crate_of(path: str, exists: Callable[[str], bool]) -> tuple[str, tuple[str, ...]] | None:
    """(crate folder, module segments) of the `.rs` file `path`, or None when it is no
    library module (see the module docstring)."""
    parts = path.split("/")
    for k in range(len(parts) - 2, -1, -1):
        if parts[k] != "src":
            continue
        root = "/".join(parts[:k])
        if not exists(posixpath.join(root, "src/lib.rs")):
            continue
        rest = parts[k + 1 :]
        if rest[0] == "bin" or rest == ["main.rs"]:
            return None
        segments = [*rest[:-1], rest[-1].removesuffix(RUST_SUFFIX)]
        if segments == ["lib"]:
            segments = []
        elif segments[-1] == "mod":
            segments.pop()
        if not all(re.fullmatch(r"[A-Za-z_]\w*", s) for s in segments):
            return None
        return root, tuple(segments)
    return None


# (each pass, and each page's expand, asks for its ancestors' declarations: tokio's 300 module
# files have 68 parents, which 64 entries kept lexing again, 178 times)
@functools.lru_cache(maxsize=1024)
def _declared(text: str) -> dict[str, str]:
    """The modules a file declares as files: name -> "pub", "private" or "hidden" (under
    `#[cfg(test)]` or `#[doc(hidden)]`)."""
    toks = tokens(text)
    out: dict[str, str] = {}
    hidden = False
    k = 0
    while k < len(toks):
        t = toks[k]
        if t.text == "#" and k + 1 < len(toks) and toks[k + 1].text == "[":
            depth, j = 0, k + 1
            while j < len(toks):  # (the attribute's tokens: its bracket group)
                depth += toks[j].kind == "open"
                depth -= toks[j].kind == "close"
                j += 1
                if depth <= 0:
                    break
            hidden |= attribute(toks[k + 2 : j - 1])[0] in ("hidden", "test")
            k = j
            continue
        if t.text == "pub" and t.kind == "ident":
            restricted = k + 1 < len(toks) and toks[k + 1].text == "("
            j = k + 1
            if restricted:
                while j < len(toks) and toks[j].text != ")":
                    j += 1
                j += 1
            if j + 2 < len(toks) and toks[j].text == "mod" and toks[j + 2].text == ";":
                status = "hidden" if hidden else "private" if restricted else "pub"
                out.setdefault(toks[j + 1].text, status)
                k, hidden = j + 3, False
                continue
        if t.text == "mod" and k + 2 < len(toks) and toks[k + 2].text == ";":
            out.setdefault(toks[k + 1].text, "hidden" if hidden else "private")
        hidden = False if t.kind not in ("doc", "inner") else hidden
        k += 1
    return out


class _Reader:
    """Reads a crate's files inside the source roots (None: missing, outside or unreadable)."""

    def __init__(self, docs_dir: Path, roots: Sequence[Path]) -> None:
        self.docs_dir = docs_dir
        self.roots = roots

    def text(self, path: str) -> str | None:
        text = read_file_text(self.docs_dir, path, self.roots, MAX_FILE_BYTES)
        return text.replace("\r\n", "\n") if text is not None else None


def module_of(path: str, reader: _Reader, exists: Callable[[str], bool]) -> Module | None:
    """The module the `.rs` file `path` is, or None when it is no library module."""
    found = _crate_of(path, exists)
    if found is None:
        return None
    root, segments = found
    if root and not published(reader.text(posixpath.join(root, CARGO_TOML)) or ""):
        return None
    public: list[str] = []
    private = False
    parent = posixpath.join(root, "src/lib.rs")
    for depth, name in enumerate(segments):
        text = reader.text(parent)
        status = _declared(text).get(name) if text is not None else None
        if status is None or status == "hidden":
            return Module(root, segments, tuple(public), False)
        private |= status == "private"
        if not private:
            public.append(name)
        folder = posixpath.join(root, "src", *segments[: depth + 1])
        parent = folder + RUST_SUFFIX if exists(folder + RUST_SUFFIX) else folder + "/mod.rs"
    return Module(root, segments, tuple(public), True)


def _sections(text: str) -> dict[str, str]:
    """The sections of a Cargo.toml (`package`, `lib`) -> their text (the first of each)."""
    out: dict[str, str] = {}
    bounds = [(m.group(1).strip(), m.start(), m.end()) for m in _SECTION.finditer(text)]
    for k, (section, _, start) in enumerate(bounds):
        stop = bounds[k + 1][1] if k + 1 < len(bounds) else len(text)
        out.setdefault(section, text[start:stop])
    return out


def published(cargo_toml: str) -> bool:
    """Whether a crate (not the docs folder itself) is one docs.rs could show: its `[package]`
    has the `description` crates.io requires (or inherits it) and no `publish = false`. A
    workspace's examples, benchmarks and test crates (`publish = false`), a book's listings
    and an application's internal crates (no description) are code, no docs."""
    package = _sections(cargo_toml).get("package", "")
    return bool(_DESCRIPTION.search(package)) and not _UNPUBLISHED.search(package)


def crate_name(root: str, reader: _Reader, docs_dir: Path) -> str:
    """The crate's name as code writes it: `[lib] name`, else `[package] name`, `-` as `_`;
    without a Cargo.toml, its folder's name."""
    sections = _sections(reader.text(posixpath.join(root, CARGO_TOML)) or "")
    names = {k: m.group(1) for k, v in sections.items() if (m := _NAME.search(v))}
    name = names.get("lib") or names.get("package")
    if not name:
        name = posixpath.basename(root) if root else Path(os.path.realpath(docs_dir)).name
    return re.sub(r"\W", "_", name.replace("-", "_")) or "crate"


def _target(path: str, m: re.Match[str], root: str) -> str:
    """The docs-relative path an include_str! names (relative to the file, or with
    CARGO_MANIFEST_DIR to the crate's folder)."""
    if m.group(3) is not None:
        return posixpath.normpath(posixpath.join(posixpath.dirname(path), m.group(3)))
    return posixpath.normpath(posixpath.join(root, m.group(4).lstrip("/")))


def expand(
    docs_dir: Path, path: str, body: str, roots: Sequence[Path]
) -> tuple[str, tuple[int, ...], str | None]:
    """The module file `body` with its context header and its included docs (see the module
    docstring), the original line of each of its lines (() when unchanged) and a warning about
    what could not be included; a file that is no module of a crate stays as it is. (The include
    pass, inclusion/includes.py, makes its `Expanded` of them: packages/ sit below it.)"""
    reader = _Reader(docs_dir, roots)

    def exists(p: str) -> bool:
        return os.path.isfile(os.path.join(docs_dir, p))

    module = module_of(path, reader, exists)
    if module is None:
        return body, (), None
    crate = crate_name(module.root, reader, docs_dir)
    out = [header(crate, list(module.segments), list(module.public))]
    line_map = [0]
    size = len(body)
    missing: list[str] = []
    for k, line in enumerate(body.split("\n")):
        m = _INCLUDE.match(line) if "include_str!" in line else None
        included = reader.text(_target(path, m, module.root)) if m else None
        if m is not None and included is None:
            missing.append(m.group(3) or m.group(4))
        if m is None or included is None or size + len(included) > MAX_FILE_BYTES:
            out.append(line)
            line_map.append(k)
            continue
        size += len(included)
        # `/// ` and a space: rustdoc takes a doc comment's space off, never an included
        # file's indent (its fragments are unindented so)
        prefix = m.group(1) + ("//! " if m.group(2) else "/// ")
        for text in included.split("\n"):
            out.append(prefix + text)
            line_map.append(k)
    warning = None
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        warning = f"{path}: include_str! not read: {missing[0]}{more}"
    return "\n".join(out), tuple(line_map), warning


def no_pages(docs_dir: Path, roots: Sequence[Path], paths: Iterable[str]) -> set[str]:
    """The files of `paths` that are no pages of their own: `.rs` files that are no shown
    library module, and the files those modules include in their docs."""
    listed = set(paths)
    rust = sorted(p for p in listed if p.endswith(RUST_SUFFIX))
    if not rust:
        return set()
    reader = _Reader(docs_dir, roots)
    out: set[str] = set()
    for path in rust:
        module = module_of(path, reader, listed.__contains__)
        if module is None or not module.shown:
            out.add(path)
            continue
        text = reader.text(path) or ""
        if "include_str!" not in text:
            continue
        for line in text.split("\n"):
            if "include_str!" in line and (m := _INCLUDE.match(line)):
                target = _target(path, m, module.root)
                if target in listed and not target.endswith(RUST_SUFFIX):
                    out.add(target)
    return out
