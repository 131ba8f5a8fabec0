"""NatSpec, the doc comments of Solidity, read as solc reads them (its `userdoc`/`devdoc`), and
their text made markdown as the generators show it (formats/source/soldoc.py writes the page).

- **Tags.** A tag opens a line (`@notice`, `@dev`, `@title`, `@author`, `@param NAME`, `@return`,
  `@inheritdoc Base`, `@custom:NAME`); the lines after it, up to the next tag, are its text. Text
  before any tag is `@notice` (solc: "if no tags are used … as if it were tagged with
  @notice"). A tag written twice adds a paragraph.
- **`@inheritdoc Base`** copies the tags the declaration lacks from the function of the same
  name in `Base` (`inherit`), as solc does.
- **The text.** Markdown as written (forge doc's, Uniswap's, Solady's), and the AsciiDoc that
  OpenZeppelin's comments hold for their Antora site: `URL[text]` links, `xref:page[text]`,
  `NOTE:`/`TIP:`/`IMPORTANT:`/`WARNING:`/`CAUTION:` paragraphs, `[source,solidity]` + `----`
  listings, `====` block delimiters.
- **Cross references** in solidity-docgen's syntax (`{IERC20-transfer}`, `{ERC20}`, `{_mint}`,
  `{xref-ERC20-_approve-address-address-uint256-bool-}[_approve]`) are handed to the page's
  `link(contract, member, label)`, which makes them links or references.

Every pattern is linear: URLs are found by a non-overlapping scan, braces by one pass.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

_TAG = re.compile(r"^[ \t]*@([A-Za-z]+(?::[A-Za-z0-9_-]*)?)[ \t]*")
_XREF = re.compile(r"\{(xref-)?([A-Za-z_$][\w$.\-]*)\}(\[[^\[\]\n]*\])?")
_URL = re.compile(r"(?:https?|mailto):[^\s\[\]<>`]*")
_ADOC_XREF = re.compile(r"\bxref:[^\s\[\]]{0,300}\[([^\[\]]{0,300})\]")
_ADMONITION = re.compile(r"^(NOTE|TIP|IMPORTANT|WARNING|CAUTION):[ \t]*")
_SOURCE_ATTR = re.compile(r"^\[source(?:,[ \t]*([\w+-]+))?[^\]\n]*\][ \t]*$")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")

MAX_LABEL = 300  # characters of a link's text (an unclosed `[` costs no more)
Link = Callable[[str, str, str], str]  # (contract, member, label) -> markdown


@dataclass(frozen=True)
class NatSpec:
    notice: str = ""
    dev: str = ""
    title: str = ""
    author: str = ""
    params: tuple[tuple[str, str], ...] = ()  # (name, text)
    returns: tuple[str, ...] = ()  # each `@return`'s text, in order
    inheritdoc: str = ""
    custom: tuple[tuple[str, str], ...] = ()  # (`custom:NAME`, text), and tags solc knows not

    def param(self, name: str) -> str:
        return next((text for n, text in self.params if n == name), "")

    @property
    def summary(self) -> str:
        """What an entry says of the declaration: its `@notice`, else its `@dev` (OpenZeppelin
        writes its docs as `@dev`), first paragraph."""
        text = self.notice or self.dev
        return text.strip().split("\n\n", 1)[0].strip()


def _dedent(lines: list[str]) -> list[str]:
    indents = [len(x) - len(x.lstrip(" ")) for x in lines if x.strip()]
    cut = min(indents) if indents else 0
    return [x[cut:].rstrip() for x in lines]


def _join(old: str, new: str) -> str:
    return f"{old}\n\n{new}" if old and new else old or new


def read(text: str | None) -> NatSpec:
    """The tags of a NatSpec comment's text (its `///` or `/** */` margins gone)."""
    if not text:
        return NatSpec()
    parts: list[tuple[str, list[str]]] = [("notice", [])]
    for line in text.split("\n"):
        m = _TAG.match(line)
        if m:
            parts.append((m.group(1), [line[m.end() :]]))
        else:
            parts[-1][1].append(line)
    found: dict[str, str] = {}
    params: list[tuple[str, str]] = []
    returns: list[str] = []
    custom: list[tuple[str, str]] = []
    for tag, lines in parts:
        if not lines:
            continue
        body = "\n".join([lines[0].strip(), *_dedent(lines[1:])]).strip()
        if tag == "param":
            name, _, said = body.partition(" ")
            name = name.strip()
            if name:
                params.append((name, said.strip()))
        elif tag == "return":
            returns.append(body)
        elif tag in ("notice", "dev", "title", "author"):
            found[tag] = _join(found.get(tag, ""), body)
        elif tag == "inheritdoc":
            found[tag] = body.split()[0] if body.split() else ""
        elif body:
            custom.append((tag, body))
    return NatSpec(
        found.get("notice", ""),
        found.get("dev", ""),
        found.get("title", ""),
        found.get("author", ""),
        tuple(params),
        tuple(returns),
        found.get("inheritdoc", ""),
        tuple(custom),
    )


def inherit(own: NatSpec, base: NatSpec) -> NatSpec:
    """`own` with the tags it lacks copied from `base` (solc's `@inheritdoc`)."""
    said = {n for n, _ in own.params}
    return replace(
        own,
        notice=own.notice or base.notice,
        dev=own.dev or base.dev,
        params=own.params + tuple(p for p in base.params if p[0] not in said),
        returns=own.returns or base.returns,
        custom=own.custom or base.custom,
        inheritdoc=base.inheritdoc,
    )


def _links(line: str) -> str:
    """A text's AsciiDoc links (`URL[text]`, `xref:page[text]`, the text over lines or not)
    as markdown's."""
    if "[" not in line:
        return line
    line = _ADOC_XREF.sub(lambda m: " ".join(m.group(1).split()), line)
    out: list[str] = []
    last = 0
    for m in _URL.finditer(line):
        if not line.startswith("[", m.end()):
            continue
        close = line.find("]", m.end(), m.end() + MAX_LABEL)
        if close < 0 or "[" in line[m.end() + 1 : close]:
            continue
        label = " ".join(line[m.end() + 1 : close].split()) or m.group()
        out += [line[last : m.start()], f"[{label}]({m.group()})"]
        last = close + 1
    return "".join(out) + line[last:] if out else line


def _refs(line: str, link: Link) -> str:
    def one(m: re.Match[str]) -> str:
        name = m.group(2)
        label = m.group(3)[1:-1] if m.group(3) else ""
        head, _, rest = name.partition("-")
        member = rest.split("-", 1)[0] if rest else ""
        if m.group(1) and not member:
            member, head = head, ""
        if "." in head and not member:  # (`{Contract.member}`, as some projects write it)
            head, _, member = head.rpartition(".")
        return link(head, member, label)

    return _XREF.sub(one, line) if "{" in line else line


def markdown(text: str, link: Link) -> list[str]:
    """The lines of a tag's text as markdown (see the module's docstring); code is left as
    written."""
    out: list[str] = []
    fence = ""  # the open fence's marker, while in code
    listing = False  # in an AsciiDoc `----` listing
    language = ""
    for line in _links(text).split("\n"):
        stripped = line.strip()
        if fence:
            out.append(line)
            if stripped.startswith(fence):
                fence = ""
            continue
        if listing:
            if stripped == "----":
                listing = False
                out.append("```")
            else:
                out.append(line)
            continue
        if m := _FENCE.match(line):
            fence = m.group(1)
            out.append(line)
            continue
        if m := _SOURCE_ATTR.match(stripped):
            language = m.group(1) or ""
            continue
        if stripped == "----":
            listing = True
            out.append(f"```{language}")
            language = ""
            continue
        if stripped in ("====", "****", "--") or stripped.startswith("[.readme-notice"):
            continue
        line = _ADMONITION.sub(lambda m: f"**{m.group(1).capitalize()}:** ", line)
        out.append(_refs(line, link))
    if fence or listing:
        out.append(fence or "```")
    return out
