"""Declarations without content (`.. setting:: DOWNLOAD_DELAY`) and the sections they name: a
project declares a setting, a signal or an option right before the section about it, and
docutils leaves the declaration at the end of the section before.

A declaration moved onto the section named for it describes that section: its registry entry
takes the section's text as description and ends where the section's own text ends. A
directive no one knows (a project's own cross-reference type: Celery's `signal`, `state`,
`control`, Django's `templatetag`, `fieldlookup`) used that way declares an object of its own
kind, as Sphinx's `add_crossref_type` makes it, and is no unknown directive.
"""

from __future__ import annotations

from docutils import nodes

from docsmcp.model.api_fields import MAX_DESCRIPTION_CHARS
from docsmcp.model.text import truncate
from docsmcp.sources.formats.rst.rst_directives import warn_unknown
from docsmcp.sources.formats.rst.rst_objects import MAX_OBJECTS, STATE, Found, Mark, anchor_marks

# Paragraphs that are no text of the section's own: labels, signatures, version notes.
_NOT_TEXT = frozenset(("label", "signature", "version"))


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
        if "bare" not in box["classes"]:
            continue
        following = _named_section(box)
        if following is None and box.get("declares"):
            _declare_in_place(box)
            continue
        if following is None:
            if box.get("unknown"):
                warn_unknown(box["unknown"], box.line or 0)
            continue
        box.parent.remove(box)
        title = following[0]
        declared = _declared(box)
        # Its anchors go onto the heading's line; its text, the name again, goes.
        title.extend(list(box.findall(Mark)))
        state = STATE.get()
        if state is None:
            continue
        line = (box.line or 0) - 1
        if box.get("unknown") and len(state.found) < MAX_OBJECTS:
            title += Mark(anchor_marks(declared))
            signature = box.get("signature") or declared  # (Django's usage line)
            kind = box["unknown"].lower()
            state.found.append(Found(declared, kind, signature, "", "", (), "", (), line, line))
        # Its registry entries' category: what encloses the section it declares (Scrapy's
        # "Built-in settings reference"), not the section before it; its description: the
        # section's text (Celery's 205 settings had none).
        outer = following.parent
        category = ""
        if isinstance(outer, nodes.section) and outer.children:
            category = " ".join(outer[0].astext().split())
        description, end = _own_text(following)
        for found in state.found:
            if found.line_start == line:
                found.category = category or found.category
                found.description = found.description or description
                found.line_end = max(found.line_end, end)


def _named_section(box: nodes.Element) -> nodes.section | None:
    """The section `box` declares: its own, when that is named for it (Celery declares
    `task_internal_error` within the section of that name); else the next one, when `box` ends
    the text of its own section and the next section is named for it."""
    parent = box.parent
    if not isinstance(parent, nodes.section):
        return None
    declared = _declared(box)
    if _names(parent, declared):
        return parent
    # Text after it in its own section makes it that section's; subsections do not (the first
    # setting of a group sits under the group's heading, before its subsections).
    if any(not isinstance(n, nodes.section) for n in parent[parent.index(box) + 1 :]):
        return None
    following = next(
        box.findall(nodes.section, include_self=False, siblings=True, ascend=True), None
    )
    # Only onto the section named for it: an autodoc stub (`.. autoclass:: Flask`, no content
    # either) ends the section it documents.
    return following if following is not None and _names(following, declared) else None


def _declared(box: nodes.Element) -> str:
    """The name `box` declares: its text, or what its directive said (Django's `django-admin`
    declares the first word of its usage line)."""
    return box.get("declares") or " ".join(box.astext().split())


def _declare_in_place(box: nodes.Element) -> None:
    """A declaration of a known kind in a section not named for it: Django's `.. django-admin::
    help` under "Getting runtime help" (its text the paragraphs after it, its anchors on its
    usage line), `.. templatetag:: get_flatpages` ending a section and `.. templatefilter::
    language_name` stacked over "Template filters" (the next section's, anchors on its title),
    as Sphinx makes each a target where it stands."""
    parent, declared = box.parent, _declared(box)
    at = parent.index(box)
    parent.remove(box)
    state = STATE.get()
    if state is None or len(state.found) >= MAX_OBJECTS:
        return
    line = (box.line or 0) - 1
    found = Found(declared, box["unknown"].lower(), box.get("signature") or declared, "",
                  "", (), "", (), line, line)  # fmt: skip
    after = parent.children[at:]
    first = next((n for n in after if not isinstance(n, nodes.container)), None)
    holder = parent
    if first is None or isinstance(first, nodes.section):
        following = first or next(
            parent.findall(nodes.section, include_self=False, siblings=True, ascend=True), None
        )
        if following is not None and following.children:
            following[0] += Mark(anchor_marks(declared))  # (its title)
            found.description, end = _own_text(following)
            found.line_end = max(line, end)
            holder = following.parent
    else:
        if isinstance(after[0], nodes.paragraph):
            after[0] += Mark(anchor_marks(declared))
        _text_after(after, found)
    if isinstance(holder, nodes.section) and holder.children:
        found.category = " ".join(holder[0].astext().split())
    state.found.append(found)


def _text_after(siblings: list[nodes.Node], found: Found) -> None:
    """`found`'s description: the paragraphs of `siblings` up to the next declaration or
    section (and where they end)."""
    parts: list[str] = []
    for node in siblings:
        if isinstance(node, nodes.section | nodes.container | nodes.title):
            break
        if isinstance(node, nodes.paragraph) and not _NOT_TEXT & set(node["classes"]):
            parts.append(" ".join(node.astext().split()))
            found.line_end = max(found.line_end, (node.line or 0) - 1)
        if sum(len(p) + 1 for p in parts) >= MAX_DESCRIPTION_CHARS:
            break
    found.description = truncate(" ".join(parts), MAX_DESCRIPTION_CHARS)


def describe_bare_options(document: nodes.document) -> None:
    """An option declared without content (Django's `.. django-admin-option:: --empty`, then
    unindented paragraphs) takes the paragraphs after it, up to the next declaration or
    section, as its entry's description: Sphinx shows them under it."""
    state = STATE.get()
    if state is None or not state.found:
        return
    by_line: dict[int, list[Found]] = {}
    for f in state.found:
        if f.kind == "option" and not f.description:
            by_line.setdefault(f.line_start, []).append(f)  # (`--noinput, --no-input`: two)
    if not by_line:
        return
    for box in list(document.findall(nodes.container)):
        if not {"described", "bare"} <= set(box["classes"]) or box.parent is None:
            continue
        siblings = box.parent.children[box.parent.index(box) + 1 :]
        for found in by_line.get((box.line or 0) - 1, []):
            _text_after(siblings, found)


def _names(section: nodes.section, declared: str) -> bool:
    """Whether `section`'s title is `declared`, or opens with it as code (Celery's
    ``revoke``: Revoking tasks)."""
    if not section.children or not isinstance(section[0], nodes.title):
        return False
    title = section[0]
    if " ".join(title.astext().split()) == declared:
        return True
    return (
        bool(title.children)
        and isinstance(title[0], nodes.literal)
        and (title[0].astext().strip() == declared)
    )


def _own_text(section: nodes.section) -> tuple[str, int]:
    """The text of the paragraphs `section` holds outside its subsections (at most a
    description's length), and the 0-based page line its own text ends on."""
    parts: list[str] = []
    end = 0
    for child in section.children[1:]:
        if isinstance(child, nodes.section):
            break
        for node in child.findall(include_self=True):
            if isinstance(node, nodes.Element) and node.line:
                end = max(end, node.line - 1)
        own = isinstance(child, nodes.paragraph) and not _NOT_TEXT & set(child["classes"])
        if own and sum(len(p) + 1 for p in parts) < MAX_DESCRIPTION_CHARS:
            parts.append(" ".join(child.astext().split()))
    return truncate(" ".join(p for p in parts if p), MAX_DESCRIPTION_CHARS), end
