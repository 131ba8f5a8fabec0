"""What an ExDoc project (a `mix.exs` with `docs: [extras: ...]`) publishes on hexdocs.pm, read
from its `mix.exs` as text (it is Elixir code: never run).

ExDoc publishes the files its `extras` list names, in that order (a `title:` option renames
one; an entry with a `url:` is a link, no file), and a page per module compiled from `lib/`.
So, in a docs folder that is the mix project:
- `extras(text)`: the extras' paths and titles, in order (navfiles.py titles and orders the
  pages by them, as mkdocs' nav); the list may be written in `docs:` or in a function it calls
  (`extras: extras()`, Phoenix and Ecto).
- `unpublished(...)`: every other page of the project (CONTRIBUTING.md, the installer's own
  package, `usage-rules/`, `test/support`), left out as other sites' unbuilt files are
  (site_build.py). Only where the extras list was read and names at least one page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

MIX_FILE = "mix.exs"
# A page ExDoc reads as an extra (`.livemd`, `.txt` extras are no pages here).
_PAGE = re.compile(r"\.(?:md|cheatmd|markdown)$", re.IGNORECASE)
_KEY = re.compile(r"\bextras:\s*")
# `defp extras do` / `def extras() do`
_DEF = r"\bdefp?\s+{name}\s*(?:\(\s*\))?\s*do\b"
_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_TITLE = re.compile(r'\btitle:\s*"((?:[^"\\\n]|\\.)*)"')
_URL = re.compile(r"\burl:")
# Characters that would make a path a glob pattern (discover.glob_to_regex): such a file is kept.
_GLOB = re.compile(r"[*?\[\]{}]")
MAX_EXTRAS = 5000


def _list_at(text: str, start: int) -> str | None:
    """The bracketed list opening at text[start] (`[`), or None when it is not closed."""
    depth = 0
    quoted = False
    k = start
    while k < len(text):
        ch = text[k]
        if quoted:
            if ch == "\\":
                k += 1
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                return text[start : k + 1]
        k += 1
    return None


def _extras_list(text: str) -> str | None:
    """The text of the `extras` list, from `docs:` or from the function it names."""
    m = _KEY.search(text)
    if m is None:
        return None
    rest = text[m.end() :]
    if rest.startswith("["):
        return _list_at(text, m.end())
    call = re.match(r"([a-z_]\w*)", rest)
    if call is None:
        return None
    body = re.search(_DEF.format(name=re.escape(call.group(1))), text)
    if body is None:
        return None
    opening = text.find("[", body.end())
    return _list_at(text, opening) if opening >= 0 else None


def _entries(listed: str) -> Iterator[tuple[str, str]]:
    """(path, title or "") of each entry of the list, at its top level."""
    inner = listed[1:-1]
    depth, quoted, cur = 0, False, ""
    items: list[str] = []
    for k, ch in enumerate(inner):
        if quoted:
            quoted = not (ch == '"' and inner[k - 1] != "\\")
        elif ch == '"':
            quoted = True
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    for item in items[:MAX_EXTRAS]:
        m = _STRING.search(item)
        if m is None or _URL.search(item):
            continue
        title = _TITLE.search(item)
        yield m.group(1), title.group(1) if title else ""


def extras(text: str) -> list[tuple[str, str]]:
    """(path relative to the project, title or "") of each page `extras` names, in order."""
    listed = _extras_list(text)
    if listed is None:
        return []
    return [(path, title) for path, title in _entries(listed) if _PAGE.search(path)]


def project(docs_dir: Path) -> Path | None:
    """The mix project whose docs `docs_dir` holds: its own `mix.exs`, or its parent's (a
    `guides/` folder)."""
    for folder in (docs_dir, docs_dir.parent):
        if (folder / MIX_FILE).is_file():
            return folder
    return None


def nav_entries(mix_file: Path, text: str) -> Iterator[tuple[Path, str]]:
    """(page file, title) of each extra, for navfiles.read_nav."""
    for path, title in extras(text):
        yield mix_file.parent / path, title


def unpublished(text: str, paths: Sequence[str]) -> tuple[str, ...]:
    """Globs of the pages of a docs folder that is the mix project which ExDoc does not
    publish: not an extra and not under `lib/` (a module page); () when no extra is read. A
    top folder holding no published page is one glob (`installer/**`); a file at the top is
    anchored (`/README.md`: a glob without `/` matches at any depth)."""
    named = {path.removeprefix("./") for path, _ in extras(text)}
    if not named or not named & set(paths):
        return ()
    left = [p for p in paths if p not in named and not p.startswith("lib/")]
    published_tops = {p.partition("/")[0] for p in paths if p not in left and "/" in p}
    out: list[str] = []
    for p in left:
        top, slash, _ = p.partition("/")
        if not slash:
            glob = f"/{p}"
        elif top not in published_tops:
            glob = f"{top}/**"
        else:
            glob = p
        if not _GLOB.search(glob.removesuffix("/**")) and glob not in out:
            out.append(glob)
    return tuple(out)
