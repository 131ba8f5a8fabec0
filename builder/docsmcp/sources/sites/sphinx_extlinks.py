"""What a Sphinx project's `conf.py` makes of a few inline forms: `sphinx.ext.extlinks` roles
and the `|version|` / `|release|` substitutions.

Django writes `(:ticket:`35020`)` 1,042 times and `:cve:`2024-27351`` 127 times; its conf.py's
`extlinks` turn them into "#35020" and "CVE-2024-27351", links to the tracker and the NVD. Read
without it they showed the bare number ("(35020)", "2024-27351": a CVE query met no "CVE"), as
any role the builder does not know shows its text. `|version|` read "version" ("This tutorial is
written for Django version"). `resolve` gives each reST page that uses them the caption and URL
of its extlink roles, and the values of the substitutions, through the page's link titles
(formats/markdown/link_titles.py), which the role and the writer consult
(rst_directives._generic_role, rst.py). Values are conf.py's literals; a computed one (NumPy's
`version = re.sub(...)`) is not known and shows as before."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from docsmcp.model.source import SourceFile
from docsmcp.sources.formats.rst.rst_suffixes import is_rst
from docsmcp.sources.sites.sphinx_suffix import conf_values

# The key of an extlink role's (caption, URL) in a page's link titles, and the separator.
EXTLINK = "extlink"
SUBSTITUTION = "subst"
SEPARATOR = "\x1f"
_SUBSTITUTIONS = ("version", "release")
_ROLE = re.compile(r"(?<![\w`]):([A-Za-z][\w-]*):`([^`]+)`")
_EXPLICIT = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.DOTALL)
# Roles of one page given a link, at most (a hostile page of 100,000 roles).
MAX_ROLES = 5000


@dataclass(frozen=True)
class Project:
    """conf.py's extlinks (role -> (URL pattern, caption pattern or None)) and substitutions."""

    extlinks: dict[str, tuple[str, str | None]]
    substitutions: dict[str, str]


def read(docs_dir: Path) -> Project:
    values = conf_values(docs_dir, ("extlinks", *_SUBSTITUTIONS))
    extlinks: dict[str, tuple[str, str | None]] = {}
    raw = values.get("extlinks")
    for name, value in raw.items() if isinstance(raw, dict) else ():
        if not isinstance(name, str) or not isinstance(value, list | tuple) or len(value) != 2:
            continue
        url, caption = value
        if isinstance(url, str) and (caption is None or isinstance(caption, str)):
            extlinks[name] = (url, caption)
    subs = {k: v for k in _SUBSTITUTIONS if isinstance(v := values.get(k), str) and v}
    return Project(extlinks, subs)


def expand(project: Project, role: str, text: str) -> tuple[str, str] | None:
    """(caption, URL) Sphinx's extlinks gives `:role:`text`` (`title <target>` keeps its title;
    a caption without `%s`, Sphinx's old form, is a prefix; none: the URL)."""
    found = project.extlinks.get(role)
    if found is None:
        return None
    url, caption = found
    m = _EXPLICIT.match(text.strip())
    title, target = (m.group(1).strip(), m.group(2).strip()) if m else ("", text.strip())
    full = url.replace("%s", target) if "%s" in url else url + target
    if title:
        return title, full
    if caption is None:
        return full, full
    return (caption.replace("%s", target) if "%s" in caption else caption + target), full


def resolve(files: Sequence[SourceFile], docs_dir: Path) -> list[SourceFile]:
    """`files` with the extlink roles and substitutions of their reST pages in their link
    titles; as they were when conf.py names none."""
    if not any(is_rst(f.path) for f in files):
        return list(files)
    project = read(docs_dir)
    if not project.extlinks and not project.substitutions:
        return list(files)
    out: list[SourceFile] = []
    for sf in files:
        titles: dict[str, str] = {}
        if is_rst(sf.path) and sf.body:
            if project.extlinks and ":`" in sf.body:
                for m in _ROLE.finditer(sf.body):
                    if len(titles) >= MAX_ROLES:
                        break
                    done = expand(project, m.group(1), m.group(2))
                    if done is not None:
                        titles[f"{EXTLINK}:{m.group(1)}:{m.group(2)}"] = SEPARATOR.join(done)
            for name, value in project.substitutions.items():
                if f"|{name}|" in sf.body and f"|{name}| replace::" not in sf.body:
                    titles[f"{SUBSTITUTION}:{name}"] = value
        if titles:
            merged = dict(sf.link_titles) | titles
            sf = dataclasses.replace(sf, link_titles=tuple(merged.items()))
        out.append(sf)
    return out
