"""dumi's page tabs: `page-tab.$tab-example.md` is the tab `example` of `page-tab.md`, shown on
that page's route (Ant Design: `components/alert/index.$tab-design.en-US.md`, the Design tab of
Alert's page). Such a page without a title of its own was titled by its first heading, so five
of Ant Design's were all "Component Definition"; it is titled by its page and tab instead
("Alert: Design"), as the site shows it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from docsmcp.model.source import SourceFile

# `name.$tab-key` in a file name, before its language and suffix.
_TAB = re.compile(r"\.\$tab-([\w-]+)(?=\.)")


def resolve(files: Sequence[SourceFile]) -> list[SourceFile]:
    """`files` with each untitled tab page titled by its page's title and its key."""
    if not any("$tab-" in f.path for f in files):
        return list(files)
    titles = {f.path: f.title for f in files if f.title}
    out = []
    for f in files:
        m = _TAB.search(f.path) if f.title is None else None
        page = titles.get(f.path[: m.start()] + f.path[m.end() :]) if m else None
        if m and page:
            f = replace(f, title=f"{page}: {m.group(1).replace('-', ' ').capitalize()}")
        out.append(f)
    return out
