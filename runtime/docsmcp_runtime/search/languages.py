"""Canonical names for code-fence languages, shared by the builder (which records the language
of every code block and API example) and the runtime (which filters them by language).

`normalise_language` takes a whole fence info string (```` ```tsx title="app.tsx" {1,3} ````)
and returns one canonical lowercase name: a known alias maps through `LANGUAGE_ALIASES`, any
other language is kept as the lowercased first word of the info string, and no info is "".
Standard library only: the runtime imports it.
"""

from __future__ import annotations

import re

# Canonical name -> the aliases that map to it (the canonical name maps to itself as well).
LANGUAGE_ALIASES: dict[str, tuple[str, ...]] = {
    "typescript": ("ts", "tsx", "typescript", "mts", "cts"),
    "javascript": ("js", "jsx", "javascript", "mjs", "cjs", "node", "nodejs"),
    "python": ("py", "python", "python3", "py3"),
    "bash": (
        "sh",
        "bash",
        "shell",
        "zsh",
        "console",
        "shell-session",
        "shellsession",
        "package-install",  # (Fumadocs: `npm i x`, shown for each package manager)
    ),
    "go": ("go", "golang"),
    "ruby": ("rb", "ruby"),
    "rust": ("rs", "rust"),
    "php": ("php",),
    "java": ("java",),
    "kotlin": ("kotlin", "kt", "kts"),
    "csharp": ("csharp", "cs", "c#"),
    "cpp": ("cpp", "c++", "cc", "cxx"),
    # (also folder names of a site's per-language docs: OpenTelemetry's `languages/dotnet/`,
    # `erlang/`, `swift/` were no language of init's proposal)
    "dotnet": ("dotnet",),
    "swift": ("swift",),
    "erlang": ("erlang", "erl"),
    "elixir": ("elixir", "ex", "exs"),
    "dart": ("dart",),
    "scala": ("scala",),
    "lua": ("lua",),
    "perl": ("perl",),  # (not `pl`: a Polish translation folder)
    "haskell": ("haskell", "hs"),
    "julia": ("julia", "jl"),
    "clojure": ("clojure", "clj"),
    "objc": ("objc", "objective-c", "objectivec"),
    "yaml": ("yaml", "yml"),
    "json": ("json", "jsonc", "json5"),
    "html": ("html", "htm"),
    "css": ("css",),
    "sql": ("sql",),
    "toml": ("toml",),
    "text": ("text", "txt", "plaintext", "plain"),
    "markdown": ("markdown", "md", "mdx"),
}

# Canonical names that are data, markup or shells: not a language an SDK or a code tab is in.
NOT_SDK_LANGUAGES = frozenset(
    {"bash", "css", "html", "json", "markdown", "sql", "text", "toml", "yaml"}
)
SDK_LANGUAGES = frozenset(LANGUAGE_ALIASES) - NOT_SDK_LANGUAGES

# Fences that draw rather than run: get_code_examples leaves them out unless asked for by name.
DIAGRAM_LANGUAGES = frozenset({"mermaid", "plantuml", "puml", "dot", "graphviz", "d2", "ditaa"})

_ALIAS_TO_NAME: dict[str, str] = {
    alias: name for name, aliases in LANGUAGE_ALIASES.items() for alias in (name, *aliases)
}
# The part of a fence info string (or class) read for its language.
MAX_INFO_CHARS = 256
# `{...}` attribute groups (line highlights, Pandoc classes) and `key=value` options.
_ATTRIBUTES = re.compile(r"""\{[^}]*\}?|[\w-]+=(?:"[^"]*"|'[^']*'|\S*)""")
_FIRST_WORD = re.compile(r"[^\s,;:{}=]+")


def normalise_language(name: str) -> str:
    """The canonical language of a fence info string (or of a bare language name).

    >>> normalise_language("tsx title='App.tsx' {1,3}")
    'typescript'
    >>> normalise_language("{.python}")
    'python'
    >>> normalise_language("")
    ''
    """
    # (a language and its options are short: a 200 KB `language-xxxx…` class made the
    # attribute pattern below quadratic, 94 s for one page)
    info = name.strip()[:MAX_INFO_CHARS]
    if not info:
        return ""
    word = ""
    if info.startswith("{"):
        # Pandoc style `{.python .numberLines}`: the first class names the language.
        inner = info[1:].split("}", 1)[0]
        for part in inner.split():
            if part.startswith(".") and len(part) > 1:
                word = part[1:]
                break
    if not word:
        m = _FIRST_WORD.search(_ATTRIBUTES.sub(" ", info))
        if m is None:
            return ""
        word = m.group(0)
    word = word.lower().lstrip(".")
    if word.startswith("language-"):  # `class="language-js"` style
        word = word[len("language-") :]
    word = word.strip("\"'`")
    return _ALIAS_TO_NAME.get(word, word)
