"""Declarations without content (`.. setting:: DOWNLOAD_DELAY`) and the sections they name: a
project declares a setting, a signal or an option right before the section about it, and
docutils leaves the declaration at the end of the section before."""

from __future__ import annotations

from docutils import nodes

from docsmcp.sources.formats.rst_objects import STATE, Mark


def attach_declarations(document: nodes.document) -> None:
    """Move each object declaration without content (rst_directives._Described, class `bare`)
    that ends a section to the start of the next section, after its title. Projects declare a
    setting or an option right before the section about it (Scrapy and Django: `.. setting::
    DOWNLOAD_DELAY` then a `DOWNLOAD_DELAY` heading); docutils leaves the declaration at the end
    of the section before, whose text then ended with that name and which the API registry
    gave as the entry's section. Once there it shows nothing but its anchors, on the heading's
    line: Sphinx renders a cross-reference type (`setting`, Django's `templatetag`, Celery's
    `signal`) as a link target only, and the heading names it (the name showed twice in 187
    places of Celery's docs, and the first of each group stayed a stray line under the
    group's heading)."""
    for box in list(document.findall(nodes.container)):
        parent = box.parent
        if "bare" not in box["classes"] or not isinstance(parent, nodes.section):
            continue
        # Text after it in its own section makes it that section's; subsections do not (the
        # first setting of a group sits under the group's heading, before its subsections).
        if any(not isinstance(n, nodes.section) for n in parent[parent.index(box) + 1 :]):
            continue
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
        # Its anchors go onto the heading's line; its text, the name again, goes.
        title.extend(list(box.findall(Mark)))
        # Its registry entries' category: what encloses the section it declares (Scrapy's
        # "Built-in settings reference"), not the section before it.
        outer = following.parent
        state = STATE.get()
        if state is not None and isinstance(outer, nodes.section) and outer.children:
            category = " ".join(outer[0].astext().split())
            for found in state.found:
                if found.line_start == (box.line or 0) - 1:
                    found.category = category
