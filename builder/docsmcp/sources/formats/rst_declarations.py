"""Declarations without content (`.. setting:: DOWNLOAD_DELAY`) and the sections they name: a
project declares a setting, a signal or an option right before the section about it, and
docutils leaves the declaration at the end of the section before."""

from __future__ import annotations

from docutils import nodes

from docsmcp.sources.formats.rst_objects import STATE


def attach_declarations(document: nodes.document) -> None:
    """Move each object declaration without content (rst_directives._Described, class `bare`)
    that ends a section to the start of the next section, after its title. Projects declare a
    setting or an option right before the section about it (Scrapy and Django: `.. setting::
    DOWNLOAD_DELAY` then a `DOWNLOAD_DELAY` heading); docutils leaves the declaration at the end
    of the section before, whose text then ended with that name and which the API registry
    gave as the entry's section."""
    for box in list(document.findall(nodes.container)):
        parent = box.parent
        if "bare" not in box["classes"] or not isinstance(parent, nodes.section):
            continue
        if parent.index(box) != len(parent) - 1:
            continue  # text follows it in its own section: it belongs there
        following = next(
            box.findall(nodes.section, include_self=False, siblings=True, ascend=True), None
        )
        if following is None or not following.children:
            continue
        title = following[0]
        # Only onto the section named for it: an autodoc stub (`.. autoclass:: Flask`, no
        # content either) ends the section it documents.
        declared = " ".join(box.astext().split())
        if not isinstance(title, nodes.title) or " ".join(title.astext().split()) != declared:
            continue
        parent.remove(box)
        following.insert(1, box)
        # Its registry entries' category: what encloses the section it declares (Scrapy's
        # "Built-in settings reference"), not the section before it.
        outer = following.parent
        state = STATE.get()
        if state is not None and isinstance(outer, nodes.section) and outer.children:
            category = " ".join(outer[0].astext().split())
            for found in state.found:
                if found.line_start == (box.line or 0) - 1:
                    found.category = category
