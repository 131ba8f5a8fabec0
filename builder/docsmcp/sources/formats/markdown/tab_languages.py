"""Which tabs of a page stand for a programming language (dialects.py finds the tabs): a tab
whose label or `value` names an SDK language gets a chunk of its own, with a `language` the
language filter sees; npm/yarn, macOS/Linux and JSON/YAML tabs stay in their section, labelled.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from docsmcp_runtime.search.languages import SDK_LANGUAGES, normalise_language

from docsmcp.model.chunk import Tab

# Words of a tab label that say "an SDK" rather than name a language (`TypeScript SDK`).
_GENERIC_LABEL_WORDS = frozenset({"sdk", "client", "library", "api"})


def _language_word(text: str) -> str:
    """The SDK language `text` names as a whole (`py`, `TypeScript SDK`, `Node.js`), else ""."""
    words = [w for w in re.split(r"[\s()]+", text.lower()) if w and w not in _GENERIC_LABEL_WORDS]
    if len(words) != 1:
        return ""  # `Python 3.10 and above` is a version of the page, not a language choice
    word = words[0].removesuffix(".js") if words[0] != ".js" else words[0]
    lang = normalise_language(word)
    return lang if lang in SDK_LANGUAGES else ""


def tab_language(label: str, value: str = "", group_id: str = "") -> str:
    """The programming language a tab stands for, or "": its `value` or label must name an SDK
    language as a whole (`py`, `TypeScript`, `golang`), or be any one word when the set's
    `groupId` says the tabs are languages (`groupId="language"`). npm/yarn, macOS/Linux,
    JSON/YAML and `Python 3.10 and above` are not language tabs."""
    for text in (value, label):
        lang = _language_word(text)
        if lang:
            return lang
    if "lang" in group_id.lower() and value.strip():
        lang = normalise_language(value)
        if lang and re.fullmatch(r"[a-z][a-z0-9+#._-]{0,30}", lang):
            return lang
    return ""


def language_sets(
    tabs: Sequence[Tab], lines: Sequence[str], code: Sequence[bool]
) -> tuple[Tab, ...]:
    """`tabs` (in file order), their languages kept only in the sets that offer a choice of
    language: half its tabs or more name one, and the set is no live demo of markup the page
    shows (every tab's tag line, `lines[tab.start]`, also written in a code block: `code` marks
    the lines inside fences). A tab set can show other things whose names are languages:
    Fumadocs' page on its `<Tabs>` renders each sample it shows (`items={['Javascript',
    'Rust']}`, each tab a sentence, "Rust is fast"), and its colour themes page has a tab per
    theme, one called `ruby`; they were language chunks, and the language facet offered
    `javascript`, `rust`, `cpp` and `ruby`."""
    if not any(t.language for t in tabs):
        return tuple(tabs)  # (most files: no tab, or none names a language)
    members: dict[int, list[Tab]] = {}
    for tab in tabs:
        members.setdefault(tab.group, []).append(tab)
    shown = {line.strip() for line, inside in zip(lines, code, strict=False) if inside}
    choices = {
        group
        for group, found in members.items()
        if 2 * sum(bool(t.language) for t in found) >= len(found)
        and not all(lines[t.start].strip() in shown for t in found)
    }
    return tuple(t if t.group in choices else replace(t, language="") for t in tabs)
