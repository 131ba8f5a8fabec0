"""Which tabs of a page stand for a programming language (dialects.py finds the tabs): a tab
whose label or `value` names an SDK language gets a chunk of its own, with a `language` the
language filter sees; npm/yarn, macOS/Linux and JSON/YAML tabs stay in their section, labelled.
"""

from __future__ import annotations

import re

from docsmcp_runtime.search.languages import SDK_LANGUAGES, normalise_language

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
