"""MyST markdown (Sphinx projects, Jupyter Book) read as its reader sees it: directives, roles
and targets become plain markdown, line for line (the file's numbering stays).

* A directive fence, ```` ```{note} ```` or `:::{note}` to its closing fence (as many backticks
  or colons, or more): an admonition (`note`, `warning`, `seealso`, `versionadded 1.2`,
  `admonition Title`, `dropdown Title`, `tab-item Python`, ...) becomes its label line (`Note`,
  `New in version 1.2`, `Title`) over its body; a code directive (`code-block python`,
  `code-cell ipython3`, `math`, `mermaid`, Sphinx's `doctest` and `testcode`, or a language
  name as Quarto and R Markdown write it) becomes a plain code fence of that language; any
  other (`figure`, `list-table`, `tab-set`, `eval-rst`, ...) leaves its body as text and its
  fence lines blank. Option lines
  (`:class: tip`, a `---` block of them) after the opening leave nothing; `toctree` and
  `image` leave nothing at all (a list of page names, a picture).
* A role, ``{ref}`Title <target>` `` or ``{py:func}`~pkg.func` ``, reads as its text (`Title`,
  `pkg.func`).
* A target line `(label)=` leaves nothing (the heading after it keeps its own slug as its id:
  labels such as `syntax/extensions` make poor ids).
Fenced code (outside directives, and a code directive's body) is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_OPEN = re.compile(r"^([ ]{0,3})(`{3,}|:{3,})\{([\w:.-]+)\}[ \t]*(.*?)[ \t]*$")
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
_OPTION = re.compile(r"^[ \t]*:[\w-]+:(?:[ \t].*)?$")
_TARGET = re.compile(r"^[ ]{0,3}\(([^()]+)\)=[ \t]*$")  # (pip's `(vcs support)=`)
# A role starts a word (after a space, an opening bracket or quote, or the line's start): in
# inline code, `P::{self}` and `https://{domain}/x` are no roles, nor is "`{ref}`" naming one.
_ROLE = re.compile(r"(?<![^\s(\[\"'])\{([a-z][\w:.+-]*)\}`([^`\n]+)`")
# Roles that draw an icon (sphinx-design's `{octicon}`table``, Font Awesome's): no text.
_ICON_ROLE = re.compile(r"octicon|fa|fa[srb]|fa-\w+|material-\w+")
_EMPTY = re.compile(r"\[\]\((?=<?([^()\s<>#:]+)>?\))")
_LINK = re.compile(r"\]\(<?(#?[^()\s<>#:]+)>?\)")
_TITLED = re.compile(r"^(.*?)\s*<[^<>]+>$")

_LABELS = {
    "note", "warning", "tip", "hint", "important", "caution", "attention", "danger", "error",
    "seealso", "todo", "margin", "sidebar", "topic",
}  # fmt: skip
# Directives whose argument is the label itself (a title, a tab's name).
_TITLED_KINDS = {"admonition", "dropdown", "tab-item", "card", "grid-item-card", "table"}
_VERSIONS = {
    "versionadded": "New in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}
# Code directives: their argument is the language (none for `math`, `mermaid`, ...).
_CODE = {"code", "code-block", "sourcecode", "code-cell"}
_CODE_NAMED = {"math", "mermaid", "graphviz", "plantuml", "csv-table"}
# Sphinx's doctest and execution directives: code, in the language they run.
_CODE_RUN = {
    "doctest": "pycon", "testcode": "python", "testoutput": "", "testsetup": "python",
    "testcleanup": "python", "jupyter-execute": "python",
}  # fmt: skip
_LANGUAGES = {
    "python", "ipython", "ipython3", "r", "julia", "bash", "sh", "shell", "console", "js",
    "javascript", "typescript", "ts", "sql", "json", "yaml", "toml", "ojs", "html", "css",
    "c", "cpp", "rust", "go", "java",
}  # fmt: skip
_NOTHING = {"toctree", "image", "include", "literalinclude", "raw", "contents", "bibliography"}


def is_code_kind(kind: str) -> bool:
    """Whether directive `kind` shows code (its body is no markup: an example stays one)."""
    return kind in _CODE or kind in _CODE_NAMED or kind in _LANGUAGES or kind in _CODE_RUN


def is_myst(text: str) -> bool:
    """Whether `text` may hold MyST syntax (a cheap test before reading it line by line)."""
    return "```{" in text or ":::{" in text or "}`" in text or ")=" in text


def _label(kind: str, argument: str) -> str | None:
    """The label line of an admonition-like directive, or None for other kinds."""
    argument = _roles(argument).strip()  # (`{octicon}`table` Grids`: a card's title)
    if kind in _VERSIONS:
        return f"{_VERSIONS[kind]} {argument}".strip()
    if kind in _TITLED_KINDS:
        return argument or kind.replace("-", " ").capitalize()
    if kind in _LABELS:
        name = "See also" if kind == "seealso" else kind.capitalize()
        return f"{name}: {argument}" if argument else name
    return None


def _roles(line: str, titles: Mapping[str, str] | None = None) -> str:
    def text(m: re.Match[str]) -> str:
        if _ICON_ROLE.fullmatch(m.group(1)):
            return ""
        inner = m.group(2)
        titled = _TITLED.match(inner)
        if titled:
            return titled.group(1).lstrip("~!")
        kind = m.group(1).removeprefix("std:")
        if titles and kind in ("ref", "doc"):  # what Sphinx shows (link_titles.py)
            return titles.get(f"{kind}:{inner.strip()}") or inner
        return inner.lstrip("~!")

    if titles and "](" in line:  # a link to a label, an empty link's text (link_titles.py)
        if "[](" in line:
            line = _EMPTY.sub(lambda m: f"[{titles.get('empty:' + m.group(1), '')}](", line)
        line = _LINK.sub(lambda m: "](" + titles.get("link:" + m.group(1), m.group(1)) + ")", line)
    return _ROLE.sub(text, line) if "}`" in line else line


def _session_follows(lines: list[str], i: int) -> bool:
    """Whether the first line of text after the directive opened at line `i` (its options
    passed over) is a shell prompt, `$ command`."""
    for line in lines[i + 1 : i + 20]:
        stripped = line.strip()
        if not stripped or _OPTION.match(line) or stripped == "---":
            continue
        return stripped.startswith("$ ")
    return False


def rewrite_myst(lines: list[str], titles: Mapping[str, str] | None = None) -> list[str]:
    """The lines with MyST's directives, roles and targets as plain markdown (same count);
    `titles`: those of the labels and pages its `{ref}` and `{doc}` roles name
    (SourceFile.link_titles)."""
    if not is_myst("\n".join(lines)) and not titles:
        return lines
    out = list(lines)
    # Open directives: (fence character, length, kind is code, kind leaves nothing).
    stack: list[tuple[str, int, bool, bool]] = []
    fence: tuple[str, int] | None = None  # an ordinary code fence being skipped
    state = ""  # "options": option lines may follow an opening; "yaml": inside a `---` block
    moved: int | None = None  # the line holding a code directive's fence, moved past options
    for i, line in enumerate(lines):
        stripped = line.strip()
        if fence is not None:
            m = _FENCE.match(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= fence[1]:
                fence = None if not line[m.end() :].strip() else fence
            continue
        top = stack[-1] if stack else None
        if top is not None and stripped and set(stripped) == {top[0]} and len(stripped) >= top[1]:
            stack.pop()
            out[i] = "```" if top[2] else ""
            state = ""
            continue
        if state == "yaml" or (state == "options" and (_OPTION.match(line) or stripped == "---")):
            out[i] = ""
            if moved is not None:  # the code starts right after its fence, not after blanks
                out[i], out[moved], moved = out[moved], "", i
            if stripped == "---":  # a YAML block of options runs to its own `---`
                state = "yaml" if state == "options" else ""
            continue
        state, moved = "", None
        if top is not None and (top[2] or top[3]):  # code, or nothing a reader sees
            out[i] = line if top[2] else ""
            continue
        m = _OPEN.match(line)
        if m:
            indent, marker, kind, argument = m.groups()
            kind = kind.lower()
            code = kind in _CODE or kind in _CODE_NAMED or kind in _LANGUAGES or kind in _CODE_RUN
            # A site's own directive whose body is a shell session (pip's `{pip-cli}`: 26
            # blocks of `$ pip install …` read as prose) is code too.
            session = not code and _label(kind, argument) is None and _session_follows(lines, i)
            code = code or session
            stack.append((marker[0], len(marker), code, kind in _NOTHING))
            if code:
                language = (argument.split() or [""])[0] if kind in _CODE else kind
                language = "console" if session else _CODE_RUN.get(kind, language)
                out[i], moved = f"{indent}```{language}", i
            else:
                out[i] = "" if kind in _NOTHING else indent + (_label(kind, argument) or "")
            state = "options"
            continue
        f = _FENCE.match(line)
        if f:
            fence = (f.group(1)[0], len(f.group(1)))
            continue
        if _TARGET.match(line):
            out[i] = ""
            continue
        out[i] = _roles(line, titles)
    return out
