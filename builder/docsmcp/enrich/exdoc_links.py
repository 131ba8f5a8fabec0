"""Links as ExDoc writes and resolves them (hexdocs.pm).

ExDoc's output is flat: every extra is `<its file name, slugified>.html` and every module
`<Module>.html`, whatever folder its source is in, so guides link `installation.html`,
`contexts.md` (from another folder) and `Mix.Tasks.Phx.Gen.Auth.html#module-mixing-...`; and
a link or code span naming a function is an auto-link: `` [text](`Ecto.Repo.insert/2`) ``,
`` `c:Ecto.Repo.insert/2` ``, `` `t:Ecto.Changeset.t/0` ``, `` `m:Ecto.Query` ``. The resolver
(xref_resolve.py) tries these where a link names no file: `flat_name` is the key of a page or
module, `autolink` the (key, anchor) an auto-link means.
"""

from __future__ import annotations

import posixpath
import re

# `Ecto.Repo.insert/2`, `c:Ecto.Repo.insert/2`, `t:Ecto.Changeset.t/0`, `m:Ecto.Query`,
# `Ecto.Query` (a module), `Kernel.!/1`
_AUTOLINK = re.compile(
    r"^(?:(?P<kind>[mtc]):)?(?:(?P<module>[A-Z][\w]*(?:\.[A-Z][\w]*)*)\.?)?"
    r"(?:(?P<name>[a-z_][\w]*[?!]?|[^\w\s/.]+)/(?P<arity>[0-9]{1,3}))?"
    r"(?:#(?P<fragment>[\w-]+))?$"
)
_SLUG = re.compile(r"[^a-z0-9]+")
# What an ExDoc page's file name ends with in a link.
_PAGE_EXTS = (".html", ".md", ".cheatmd", ".livemd")


def flat_name(name: str) -> str:
    """The key of ExDoc's flat file name `name` (a link's last segment, or a page's file
    name): lower case, without its extension, punctuation as one `-` (`Getting Started.md` is
    ExDoc's `getting-started.html`; `Ecto.Repo.html` keeps its dots)."""
    base = posixpath.basename(name)
    stem, ext = posixpath.splitext(base)
    if ext.lower() in _PAGE_EXTS:
        base = stem
    return ".".join(_SLUG.sub("-", part.lower()).strip("-") for part in base.split("."))


def autolink(href: str) -> tuple[str, str] | None:
    """(the module's flat name, anchor) of an ExDoc auto-link written as a link target in
    backticks (`` `Ecto.Repo.insert/2` ``, `` `c:insert/2#upserts` ``), else None; the name
    is "" for a function of the linking page's own module (`dynamic/2`)."""
    if not (len(href) > 2 and href[0] == "`" and href[-1] == "`"):
        return None
    m = _AUTOLINK.match(href[1:-1].strip())
    if m is None or not (m.group("module") or m.group("name")):
        return None
    module, name, kind = m.group("module") or "", m.group("name"), m.group("kind")
    if name is None:  # a module, or a heading of its page (`m:GenServer#module-name-registration`)
        if kind not in (None, "m") or not module:
            return None
        return flat_name(module), m.group("fragment") or ""
    prefix = f"{kind}:" if kind in ("t", "c") else ""
    anchor = f"{prefix}{name}/{m.group('arity')}"
    if m.group("fragment"):  # a heading of the function's doc: ExDoc's `insert/2-upserts`
        anchor += "-" + m.group("fragment")
    return (flat_name(module) if module else ""), anchor
