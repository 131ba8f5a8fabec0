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

import fnmatch
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

MIX_FILE = "mix.exs"
# A page ExDoc reads as an extra (`.livemd`, `.txt` extras are no pages here).
_PAGE = re.compile(r"\.(?:md|cheatmd|markdown)$", re.IGNORECASE)
_KEY = re.compile(r"\bextras:\s*")
_GROUPS_KEY = re.compile(r"\bgroups_for_extras:\s*")
MAX_PATTERN = 1000  # characters of a group's regex compiled
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


def _extras_list(text: str, key: re.Pattern[str] = _KEY) -> str | None:
    """The text of the `extras` list (or another `key:`'s), from `docs:` or from the function
    it names."""
    m = key.search(text)
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


def _items(listed: str) -> list[str]:
    """The top-level items of a bracketed list's text."""
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
    return items


def _entries(listed: str) -> Iterator[tuple[str, str]]:
    """(path, title or "") of each entry of the list, at its top level."""
    for item in _items(listed)[:MAX_EXTRAS]:
        m = _STRING.search(item)
        if m is None or _URL.search(item):
            continue
        title = _TITLE.search(item)
        yield m.group(1), title.group(1) if title else ""


def _group_matcher(value: str) -> Callable[[str], bool] | None:
    """What an entry of `groups_for_extras` matches: `~r/regex/` (searched anywhere in the
    path, as Elixir's Regex.match? does: Ecto's cheat sheets group), a list of paths, or
    `Path.wildcard("glob")`."""
    value = value.strip()
    if m := re.match(r"~r(?:/((?:[^/\\\n]|\\.)*)/|\{([^}\n]*)\}|\(([^)\n]*)\))", value):
        source = next(g for g in m.groups() if g is not None).replace("\\/", "/")
        try:
            rx = re.compile(source[:MAX_PATTERN])
        except re.error:
            return None
        return lambda path: rx.search(path) is not None
    if value.startswith("["):
        paths = {m.group(1) for m in _STRING.finditer(value)}
        return lambda path: path in paths
    if m := re.match(r'Path\.wildcard\(\s*"([^"\n]+)"\s*\)', value):
        glob = m.group(1)
        return lambda path: fnmatch.fnmatchcase(path, glob)
    return None


def groups(text: str) -> list[tuple[str, Callable[[str], bool]]]:
    """(label, matcher) of each `groups_for_extras` entry, in order (ExDoc files a page under
    the first that matches)."""
    listed = _extras_list(text, _GROUPS_KEY)
    if listed is None:
        return []
    out = []
    for item in _items(listed)[:MAX_EXTRAS]:
        m = re.match(r'\s*(?:"((?:[^"\\\n]|\\.)*)"|([A-Za-z_][\w?!]*)):\s*(.*)$', item, re.S)
        if m is None:
            continue
        matcher = _group_matcher(m.group(3))
        if matcher is not None:
            out.append((m.group(1) or m.group(2), matcher))
    return out


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
    """(page file, title) of each extra, for navfiles.read_nav: its `title:`, else the label
    of its `groups_for_extras` group (page-level evidence, as Fumadocs' and Mintlify's groups;
    Phoenix's "Deployment", "Testing", "How-to's")."""
    labelled = groups(text)
    for path, title in extras(text):
        group = next((label for label, matches in labelled if matches(path)), "")
        yield mix_file.parent / path, title or group


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
