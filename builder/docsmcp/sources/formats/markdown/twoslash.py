"""Twoslash code blocks as a reader sees them (issue 27, *Index what a reader sees*).

A fence whose info string holds the word `twoslash` (```` ```ts twoslash ````: VitePress,
Docusaurus, Astro and Shiki sites; tRPC writes 380 of them) is type-checked when the site is
built, and what the page shows is less than its source: the setup above `// ---cut---` (imports,
a router declared for the example to compile), whatever follows `// ---cut-after---`, what lies
between `// ---cut-start---` and `// ---cut-end---`, compiler flags (`// @errors: 2322`,
`// @noErrors`, `// @filename: server.ts`, `// @include: router`) and the query markers under a
line (`//    ^?`, `// ^|`, `// ^^^`). A ```` ```twoslash include NAME ```` block defines a
snippet for others to include and shows nothing at all. Left in, that setup is most of the
words of some sections, and snippets show `// ---cut---`.

The hidden lines become blank lines outside the block: those before its first line shown above
the opening fence, which moves down to that line, the others below the closing fence. The file
keeps its number of lines (markdown-it's line maps, `source.lines`), the first line shown keeps
its own, and the code block holds what is shown, without blank lines where markers were. A block
that shows nothing becomes blank lines. (`// @include: NAME` is a flag: the snippet it names is
not inserted.) The markers are matched as the twoslash package matches them (a line of its own,
`//` and an optional space); `// @ts-expect-error` and other `@word-with-dashes` comments are
TypeScript's, shown, and stay.

A fence's options that style the block are not shown either: its opening line keeps the
language and the words a reader sees (a title: `title="app.ts"`, Mintlify's `macOS/Linux`,
VitePress' `[settings.vue]`), while line numbers and highlights (`showLineNumbers`, `{1,7}`,
`hl_lines="3"`, `highlight={3}`, `ins={1}`, `linenums="1"`, `theme={null}`, `copy`,
Expressive Code's `frame="none"`) go, and an
attribute list `{ .python .annotate }` reads as its language (shadcn: 995 such fences, Biome 846).

Any code block loses, the same way as twoslash lines, the magic comments Docusaurus reads and
never shows: a
line that is only `// highlight-next-line`, `highlight-start`, `highlight-end` or
`this-line-is-an-error` in a comment of any language (`#`, `/* */`, `{/* */}`, `<!-- -->`,
`--`; Sequelize: 274 lines); and Shiki's notations at a line's end (`// [!code ++]`,
`// [!code highlight]`, `# [!code focus]`) leave the line's code alone.
"""

from __future__ import annotations

import re

from docsmcp.sources.formats.markdown.fences import fenced_lines

_OPEN = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
_TWOSLASH = re.compile(r"(?<![\w-])twoslash(?![\w-])")
_INCLUDE = re.compile(r"^\s*twoslash\s+include\b")
_CUT_BEFORE = re.compile(r"^\s*// ?---cut(?:-before)?---\s*$")
_CUT_AFTER = re.compile(r"^\s*// ?---cut-after---\s*$")
_CUT_START = re.compile(r"^\s*// ?---cut-start---\s*$")
_CUT_END = re.compile(r"^\s*// ?---cut-end---\s*$")
# Compiler flags and twoslash options (`// @noErrors`, `// @errors: 2345`); `\w+` leaves
# `// @ts-expect-error` (shown) alone.
_FLAG = re.compile(r"^\s*// ?@\w+(?::.*)?\s*$")
_MARKER = re.compile(r"^\s*//\s*\^(?:\?|\||\^+)(?: .*)?\s*$")
_MAGIC = re.compile(
    r"^\s*(?://|#|--|;|%|/\*|\{/\*|<!--)\s*"
    r"(?:highlight-next-line|highlight-start|highlight-end|this-line-is-an-error)"
    r"\s*(?:\*/\}?|-->)?\s*$"
)
_NOTATION = re.compile(
    r"[ \t]*(?://|#|--|<!--|/\*)[ \t]*\[!code [^\]\n]+\][ \t]*(?:-->|\*/)?[ \t]*$"
    # ... or after the comment's own words (`// disable SSR [!code highlight]`: Fumadocs, 48)
    r"|[ \t]*\[!code [^\]\n]+\](?=[ \t]*(?:-->|\*/)?[ \t]*$)"
)
# An info string's options: `key="v"`, `key={…}`, `{…}`, or a word.
_OPTION = re.compile(r"""[\w-]+=(?:"[^"]*"|'[^']*'|\{[^{}]*\}|\S+)|\{[^{}]*\}|\S+""")
_STYLE_WORDS = frozenset(
    {"showlinenumbers", "linenumbers", "copy", "live", "noinline", "wrap", "collapsible"}
    | {"npm2yarn"}  # (Docusaurus' and Nextra's: the same command for each package manager)
)
_STYLE_KEYS = frozenset(
    {"hl_lines", "highlight", "linenums", "ins", "del", "mark", "theme", "showlinenumbers"}
    | {"startline", "linenostart", "live", "collapse", "focus", "add", "remove"}
    # Expressive Code (Starlight): `frame="none"` (Tauri: 48 fences), line-wrap settings
    | {"frame", "preserveindent", "hangingindent", "startlinenumber", "wrap", "copy"}
)
_MYST = re.compile(r"^\{[\w:-]+\}")
_STYLED = re.compile(
    r"showLineNumbers|lineNumbers|hl_lines|linenums|=\{|\{|\bcopy\b|\blive\b|\bframe=|Indent="
    r"""|\s["'/]|npm2yarn"""  # (a marker: `js "slug:"`, `ts /icon: (x)/`)
)
_MAGIC_WORDS = ("twoslash", "highlight-", "this-line-is-an-error", "[!code ")


def _wanted(text: str) -> bool:
    """Whether a page holds any of this: twoslash, a magic comment or notation, a styled
    fence (substring tests first: most pages hold none, and this runs on every page)."""
    if any(w in text for w in _MAGIC_WORDS):
        return True
    for mark in ("```", "~~~"):
        at = text.find(mark)
        while at != -1:
            end = text.find("\n", at)
            end = len(text) if end == -1 else end
            info = text[at:end].lstrip("`~")
            if info and _STYLED.search(info):
                return True
            at = text.find(mark, end)
    return False


def shown_info(info: str) -> str:
    """A fence's info string as a reader sees it (see the module docstring)."""
    text = info.strip()
    if _MYST.match(text):
        return text  # a MyST directive (```` ```{note} ````, ```` ```{code-block} python ````)
    if text.startswith("{") and text.endswith("}"):  # an attribute list: its first class
        first = re.search(r"(?<![\w-])\.([\w+#-]+)", text)
        return first.group(1) if first else ""
    parts = _OPTION.findall(text)
    kept = [re.sub(r"\{[^{}]*\}$", "", parts[0])] if parts else []  # VitePress' `vue{3-5}`
    in_regex = False
    for part in parts[1:]:
        key, eq, _ = part.partition("=")
        # Expressive Code's text and regex markers: `"slug:"`, `'icon="star"'`, `/icon: (x)/`
        if in_regex or (part[0] == "/" and len(part) > 1):
            in_regex = not part.endswith("/")  # (the part ending in `/` closes the marker)
            continue
        if part[0] in "\"'" or part.startswith("{") or part.lower() in _STYLE_WORDS:
            continue
        if eq and key.lower() in _STYLE_KEYS:
            continue
        kept.append(part)
    return " ".join(kept)


def hide_twoslash(lines: list[str]) -> list[str]:
    """`lines` with each twoslash block's hidden lines, and any block's magic comments, moved,
    blank, above its opening fence, and Shiki's notations gone (see the module docstring); the
    same list when there is none."""
    if not _wanted("\n".join(lines)):
        return lines
    code = fenced_lines(lines)
    out = list(lines)
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i]) if code[i] else None
        if m is None:
            i += 1
            continue
        end = i + 1  # the closing fence, or the end of the text for an unclosed block
        while end < len(lines) and code[end] and not _closes(lines[end], m.group(1)):
            end += 1
        body = [_NOTATION.sub("", x) if "[!code " in x else x for x in lines[i + 1 : end]]
        info = m.group(2)
        twoslash = _TWOSLASH.search(info) is not None
        opening = lines[i]
        if info.strip() and (twoslash or _STYLED.search(info)):
            # `twoslash` itself is an option no reader sees (```` ```ts twoslash ````).
            shown_as = shown_info(_TWOSLASH.sub(" ", info) if twoslash else info)
            if shown_as != info.strip():
                fence_at = opening.index(m.group(1)) + len(m.group(1))
                opening = out[i] = opening[:fence_at] + shown_as
        if twoslash or any(_MAGIC.match(x) for x in body):
            closed = end < len(lines) and code[end]
            if twoslash:  # (Docusaurus reads its magic comments in twoslash blocks too)
                shown = _shown(body, include=bool(_INCLUDE.match(info)))
                shown = [k for k in shown if not _MAGIC.match(body[k])]
            else:
                shown = [k for k, x in enumerate(body) if not _MAGIC.match(x)]
            last = end if closed else end - 1  # the block's last line
            if shown:
                # Blank above the fence up to the first line shown, below the block after it.
                lead = shown[0]
                block = [opening, *(body[k] for k in shown), *([lines[end]] if closed else [])]
                out[i : last + 1] = [""] * lead + block + [""] * (len(body) - lead - len(shown))
            else:
                out[i : last + 1] = [""] * (last + 1 - i)
        elif body != lines[i + 1 : end]:
            out[i + 1 : end] = body
        i = end + 1
    return out


def _closes(line: str, fence: str) -> bool:
    m = _OPEN.match(line)
    return (
        m is not None
        and m.group(1)[0] == fence[0]
        and len(m.group(1)) >= len(fence)
        and not m.group(2).strip()
    )


def _shown(body: list[str], include: bool) -> list[int]:
    """The indices of the lines of a twoslash block's body that its page shows."""
    if include:
        return []
    cut = max((k for k, line in enumerate(body) if _CUT_BEFORE.match(line)), default=-1)
    shown: list[int] = []
    hiding = False
    for k in range(cut + 1, len(body)):
        line = body[k]
        if _CUT_AFTER.match(line):
            break
        if _CUT_START.match(line):
            hiding = True
        elif _CUT_END.match(line):
            hiding = False
        elif not hiding and not _FLAG.match(line) and not _MARKER.match(line):
            shown.append(k)
    while shown and not body[shown[0]].strip():
        shown.pop(0)
    while shown and not body[shown[-1]].strip():
        shown.pop()
    return shown
