"""A Rust doc comment's markdown as docs.rs shows it (rustdoc.py reads the comments):

- the lines lose their common indent (rustdoc's unindent);
- a code block is Rust unless its info string names another language (no info, `rust`,
  `ignore`, `no_run`, `should_panic`, `compile_fail`, `edition2021`…), and a Rust block's
  hidden lines (`# use axum::Router;`, a lone `#`) are not shown; `##` shows as `#`;
- headings go `shift` levels down (`# Examples` in a method's doc sits under the method's
  heading);
- intra-doc links (`` [`Router::nest`] ``, `[text](crate::routing::Router)`, `[text][Router]`,
  `[label]: crate::serve()` definitions) read as their text, and each names the item it links
  to (`Link.target`), for the build to resolve to the item's section (xref: the `object:`
  anchors rustdoc.py gives every item). So do the links docs.rs' pages had before intra-doc
  links, relative to the module's page (`struct.Router.html`, `fn.spawn.html#examples`,
  `../runtime/struct.Builder.html#method.build`, `../x/index.html`). A link to a URL or page
  stays a link; one to an item's page on docs.rs (`https://docs.rs/axum/0.8/axum/extract/
  struct.State.html`) also names the item, which resolves when its crate is in the tree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docsmcp.sources.formats.markdown.dialects import ATX
from docsmcp.sources.formats.markdown.fences import fenced_lines

_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$")
# Info-string words rustdoc reads as a Rust block's attributes, not a language.
_RUST_ATTRS = re.compile(
    r"^(?:rust|ignore(?:-\S*)?|should_panic|no_run|compile_fail|test_harness|standalone_crate"
    r"|allow_fail|edition\d{4}|E\d{4})$"
)
# A path an intra-doc link names: `Router::nest`, `crate::serve()`, `struct@Foo`, `vec!`.
_DISAMBIGUATOR = (
    r"(?:struct|enum|trait|union|fn|function|method|mod|module|type|const|constant|static"
    r"|macro|value|field|variant|tymethod|derive|attr|prim|primitive|tyalias|associatedtype"
    r"|associatedconstant|externcrate|keyword)@"
)
_PATH = re.compile(
    rf"^(?:{_DISAMBIGUATOR})?((?:(?:crate|self|super|Self)::)*[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)"
    r"(?:\(\)|!(?:\(\)|\[\]|\{\})?)?$"
)
_INLINE = re.compile(r"\[((?:[^\[\]\n]|\[[^\[\]\n]*\])+)\]\(\s*<?([^()\s<>]+)>?\s*\)")
_REFERENCE = re.compile(r"\[((?:[^\[\]\n]|\[[^\[\]\n]*\])+)\]\[([^\[\]\n]*)\]")
_SHORTCUT = re.compile(r"(?<![\]\\])\[([^\[\]\n]+)\](?![\[(:])")
_DEFINITION = re.compile(r"^[ ]{0,3}\[([^\[\]\n]+)\]:[ \t]*<?(\S+?)>?(?:[ \t]+.*)?$")
_FRAGMENT = re.compile(r"^(crate|self)#([\w.-]+)$")  # a heading of the crate's page, this one's
# An item's page as docs.rs names it: relative to the module's page (`../`, folders), or on
# docs.rs (`https://docs.rs/NAME/VERSION/CRATE/…`); a member's anchor names the member.
_HTML = re.compile(
    r"^(?:https://docs\.rs/[\w-]+/[^/\s]+/(?P<crate>\w+)/|(?:\./)?(?P<up>(?:\.\./){0,16}))"
    r"(?P<dirs>(?:\w+/){0,16})"
    r"(?:(?:struct|enum|trait|fn|type|constant|static|union|macro|derive|attr|primitive)"
    r"\.(?P<name>\w+)\.html|index\.html)"
    r"(?:#(?:(?:method|tymethod|variant|structfield|associatedtype|associatedconstant)"
    r"\.(?P<member>\w+)|(?P<heading>[\w.-]*)))?$"
)
_MAX_LINKS = 2000  # per doc comment, at most (a hostile file of brackets stays linear)


@dataclass(frozen=True)
class Link:
    line: int  # index into the lines returned
    target: str  # the item as written, without disambiguator, `()` or `!`


def rust_path(target: str) -> str | None:
    """The item an intra-doc link target names (`crate::serve` of `fn@crate::serve()`), or None
    when it is a URL, a page or anything else."""
    target = target.strip().strip("`").strip()
    if len(target) > 300:
        return None
    m = _PATH.match(target)
    return m.group(1) if m else None


def html_path(target: str, module: str) -> tuple[str, bool] | None:
    """The item a docs.rs page link names, from the module page `module` (`axum::routing`)
    it is written on, and whether the link is absolute (docs.rs' own URL); None when it names
    no item (a heading of a page, `index.html#x`, or anything else)."""
    m = _HTML.match(target.strip()) if len(target) < 300 else None
    if m is None or (m["heading"] is not None and m["name"] is None):
        return None
    if m["crate"]:
        parts = [m["crate"]]
    else:
        parts = module.split("::") if module else []
        parts = parts[: max(0, len(parts) - m["up"].count("../"))]
    parts += [d for d in m["dirs"].split("/") if d]
    parts += [x for x in (m["name"], m["member"]) if x]
    return ("::".join(parts), bool(m["crate"])) if parts else None


def _code_path(label: str) -> str | None:
    """The path a shortcut link's label names when rustdoc would resolve it: a code span
    (`` `Router` ``), or a bare path with `::` (`[Router::nest]`); other bracketed words
    (`[default: 3]`, `[1]`) are text."""
    label = label.strip()
    if label.startswith("`") and label.endswith("`") and len(label) > 2:
        return rust_path(label[1:-1])
    return rust_path(label) if "::" in label or "@" in label else None


def unindent(lines: list[str]) -> list[str]:
    """`lines` without the indent they share (blank lines do not count)."""
    indents = [len(x) - len(x.lstrip()) for x in lines if x.strip()]
    cut = min(indents) if indents else 0
    return [x[cut:] if x.strip() else "" for x in lines]


def doc_markdown(
    lines: list[str], shift: int, crate_page: str = "", module: str = ""
) -> tuple[list[str], list[Link]]:
    """The markdown docs.rs shows of a doc comment's `lines` (already without their `///`),
    its headings `shift` levels down, and the intra-doc links in it. `crate_page`: the link
    from this page to the crate's root page, which `crate#heading` links go to (`self#x` goes
    to this page's heading); `module`: the module whose docs.rs page relative `.html` links
    start from."""
    out: list[str] = []
    rust: bool | None = None  # inside a code block: whether it is Rust; None outside
    fence = ""
    lines = unindent(lines)
    code = fenced_lines(lines)
    definitions: dict[str, str] = {}
    urls: dict[str, str] = {}  # a label defined as an item's docs.rs URL -> the item
    for k, line in enumerate(lines):
        if code[k] or not (m := _DEFINITION.match(line)):
            continue
        if rust_path(m.group(2)):
            definitions[m.group(1).strip().lower()] = m.group(2)
        elif (html := html_path(m.group(2), module)) and html[1]:
            urls[m.group(1).strip().lower()] = html[0]
        elif html:
            definitions[m.group(1).strip().lower()] = html[0]
    links: list[Link] = []
    for line in lines:
        m = _FENCE.match(line)
        if rust is None and m:
            fence = m.group(2)
            info = m.group(3).strip()
            words = [w for w in re.split(r"[\s,]+", info.strip("{}").strip()) if w]
            rust = all(_RUST_ATTRS.match(w) for w in words)
            out.append(f"{m.group(1)}{fence}rust" if rust else line)
            continue
        if rust is not None:
            if m and m.group(2)[0] == fence[0] and len(m.group(2)) >= len(fence):
                if not m.group(3).strip():
                    rust = None
                out.append(line)
                continue
            if rust:
                stripped = line.lstrip()
                if stripped == "#" or stripped.startswith("# "):
                    continue  # a hidden line
                if stripped.startswith("##"):
                    line = line.replace("##", "#", 1)
            out.append(line)
            continue
        if (d := _DEFINITION.match(line)) and d.group(1).strip().lower() in definitions:
            continue  # (a definition the links read: no text of the page)
        if d and (f := _FRAGMENT.match(d.group(2))):
            line = line.replace(d.group(2), _page_link(f, crate_page), 1)
        if (h := ATX.match(line)) and shift:
            line = "#" * min(6, len(h.group(1)) + shift) + " " + h.group(2)
        line, found = _links(line, definitions, len(links), crate_page, module, urls)
        links += [Link(len(out), t) for t in found]
        out.append(line)
    return out, links


def _page_link(m: re.Match[str], crate_page: str) -> str:
    return (crate_page if m.group(1) == "crate" else "") + "#" + m.group(2)


def _links(
    line: str,
    definitions: dict[str, str],
    count: int,
    crate_page: str = "",
    module: str = "",
    urls: dict[str, str] | None = None,
) -> tuple[str, list[str]]:
    """`line` with its intra-doc links as their text, and the paths they name (a link to a
    heading of the crate's page or this one, `crate#x`, stays a link, to that page; one to
    docs.rs stays a link and names its item too)."""
    if "[" not in line or count >= _MAX_LINKS:
        return line, []
    found: list[str] = []
    urls = urls or {}

    def inline(m: re.Match[str]) -> str:
        if fragment := _FRAGMENT.match(m.group(2)):
            return f"[{m.group(1)}]({_page_link(fragment, crate_page)})"
        path = rust_path(m.group(2))
        if path is None:
            html = html_path(m.group(2), module) if ".html" in m.group(2) else None
            if html is None:
                return m.group()
            found.append(html[0])
            return m.group() if html[1] else m.group(1)
        found.append(path)
        return m.group(1)

    def reference(m: re.Match[str]) -> str:
        label = (m.group(2) or m.group(1)).strip()
        if label.lower() in urls:
            found.append(urls[label.lower()])
            return m.group()
        target = definitions.get(label.lower())
        path = rust_path(target) if target else _code_path(label)
        if path is None:
            return m.group()
        found.append(path)
        return m.group(1)

    def shortcut(m: re.Match[str]) -> str:
        label = m.group(1)
        if label.strip().lower() in urls:
            found.append(urls[label.strip().lower()])
            return m.group()
        target = definitions.get(label.strip().lower())
        path = rust_path(target) if target else _code_path(label)
        if path is None:
            return m.group()
        found.append(path)
        return label

    line = _INLINE.sub(inline, line)
    line = _REFERENCE.sub(reference, line)
    line = _SHORTCUT.sub(shortcut, line)
    return line, found


def first_paragraph(lines: list[str]) -> str:
    """The doc's first paragraph on one line (the summary docs.rs lists an item by)."""
    words: list[str] = []
    for text in lines:
        if not text.strip() or ATX.match(text) or _FENCE.match(text):
            if words:
                break
            continue
        words.append(text.strip())
    return " ".join(" ".join(words).split())


def examples(lines: list[str]) -> list[tuple[str, str]]:
    """(language, code) of each fenced block of converted doc lines."""
    out: list[tuple[str, str]] = []
    block: list[str] = []
    info: str | None = None
    fence = ""
    for text in lines:
        m = _FENCE.match(text)
        if info is None:
            if m:
                fence, info = m.group(2), m.group(3).strip().split(",")[0]
        elif m and m.group(2)[0] == fence[0] and not m.group(3).strip():
            out.append((info, "\n".join(block)))
            block, info = [], None
        else:
            block.append(text)
    return [(lang, c) for lang, c in out if c.strip()]
