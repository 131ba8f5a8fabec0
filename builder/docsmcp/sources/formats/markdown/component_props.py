"""What a component's or an element's props show a reader (readable.py reduces the tag to it):
prose props (a card's `title`, an image's `alt`), a field component's name, type and flags
(`<ResponseField name="id" type="string" required>` -> `id (string, required)`), and a command
per package manager (`<CommandTabs npm=… yarn=… />`)."""

from __future__ import annotations

import re

# HTML's element names (the known ones only: `<your-token>` in a `.md` is a placeholder).
HTML_ELEMENTS = frozenset(
    """a abbr acronym address article aside audio b big blockquote body br button caption center
    cite code col colgroup data dd del details dfn dialog div dl dt em embed fieldset figcaption
    figure font footer form h1 h2 h3 h4 h5 h6 head header hr html i iframe img input ins kbd label
    legend li main mark meta nav nobr noscript object ol optgroup option output p picture pre q
    rp rt ruby s samp script section select small source span strike strong style sub summary
    sup svg table tbody td template textarea tfoot th thead time tr track tt u ul var video
    wbr""".split()
)
# Props whose string value is prose a reader sees (a card's title, an image's alt text).
_PROSE_PROPS = (
    "title", "label", "caption", "alt", "description", "summary", "hint", "subtitle", "text"
)  # fmt: skip
# A callout component's `type` is its label, as the site draws it.
_CALLOUTS = frozenset({"Callout", "Aside", "Admonition", "Alert", "Note"})
_CALLOUT_KINDS = {
    "info": "Info", "note": "Note", "tip": "Tip", "warn": "Warning", "warning": "Warning",
    "caution": "Caution", "danger": "Danger", "error": "Error", "success": "Success",
    "idea": "Tip", "important": "Important",
}  # fmt: skip
# Props naming package managers hold a command each (Tauri's `<CommandTabs npm="npm run tauri
# add" yarn=… pnpm=… cargo=… />`, 121 uses: every install command was lost).
_PACKAGE_MANAGERS = ("npm", "yarn", "pnpm", "bun", "deno", "cargo")
# A component documenting one field: `<ResponseField name type required>`, Mintlify's
# `<ParamField query="limit" type="integer">`: its name, type and flags are its text.
_FIELD_TAG = re.compile(r"(?:Field|Param|Parameter|Property|Prop|Attribute|Option)$")
_FIELD_NAMES = ("name", "path", "query", "body", "header", "param", "field", "id")
# Icon components that say yes or no, mostly in table cells (Next.js' `<Check size={18} />` and
# `<Cross size={18} />`: its "Server or Client Component?" table and next/font's options table
# were all empty cells): the mark a reader sees.
_MARKS = {
    "Check": "✓", "CheckIcon": "✓", "Checkmark": "✓", "CheckMark": "✓", "Tick": "✓",
    "Cross": "✗", "CrossIcon": "✗", "XIcon": "✗", "XMark": "✗", "Xmark": "✗",
}  # fmt: skip


def props_text(name: str, props: dict[str, str | None]) -> str:
    """The text a component's props show a reader, else ""."""
    if name in _MARKS:
        return _MARKS[name]
    if not props:
        return ""
    words: list[str] = []
    if _FIELD_TAG.search(name):
        field = next((props[k] for k in _FIELD_NAMES if props.get(k)), None)
        if field:
            extra = [props["type"] or ""] if props.get("type") else []
            # Flags as written: Mintlify's `required`, Express' `<Param … optional>`.
            extra += [
                f for f in ("required", "optional") if f in props and props[f] in (None, "true", "")
            ]
            if props.get("default"):
                extra.append(f"default: {props['default']}")
            words.append(field + (f" ({', '.join(extra)})" if extra else ""))
    elif name in HTML_ELEMENTS:  # (`<Figure caption>` is a component, `<figure>` an element)
        # An HTML element's title is a tooltip; only an image's alt text is in the page's text.
        return " ".join((props.get("alt") or "").split()) if name == "img" else ""
    kind = (props.get("type") or "").strip().lower() if name in _CALLOUTS else ""
    for key in _PROSE_PROPS:
        value = props.get(key)
        if value and value.strip():
            words.append(" ".join(value.split()))
    commands = [props[k] for k in _PACKAGE_MANAGERS if (props.get(k) or "").strip()]
    if len(commands) >= 2:  # one command per package manager, a tab each
        words.extend(" ".join(c.split()) for c in commands)
    said = " — ".join(words)
    if kind in _CALLOUT_KINDS:  # (Fumadocs' `<Callout type="warn">`: ~30 showed no kind)
        return f"{_CALLOUT_KINDS[kind]}: {said}" if said else f"{_CALLOUT_KINDS[kind]}:"
    return said
