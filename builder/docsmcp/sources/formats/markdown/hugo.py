"""Hugo shortcodes as the text a reader sees (dialects.py's `rewrite` calls it).

`{{< name args >}}` and `{{% name args %}}` (not the escaped `{{</* */>}}` that shows one): a
line of one opening shortcode keeps its title (`{{% alert title="Warning" %}}`, `{{< tab
header="Python" >}}`) or an admonition's name as a label; one within a line reads as its text
(`{{< glossary_tooltip text="Pod" ... >}}` -> Pod, `{{< ref "page.md" >}}` -> page.md), else as
its name and arguments (`{{< new-in 0.153.0 />}}` -> new in 0.153.0); closing ones leave
nothing; one written over several lines reads as one. (The reader sees what a template renders;
this is its gist.)
"""

from __future__ import annotations

import re

from docsmcp.sources.formats.markdown.fences import fenced_lines

# A shortcode, opening, closing or self-closing (see the module docstring).
SHORTCODE = re.compile(
    r"(?<!`)\{\{([<%])[ \t]*(/?)[ \t]*([A-Za-z][\w.-]*)((?:[ \t]+[^{}\n]*?)?)[ \t]*/?[ \t]*[>%]\}\}"
)
# Lines a shortcode written over several lines may take (Hugo's docs: `{{< img` with 5 args);
# dialects.py's template calls over several lines too (block_end).
MAX_SHORTCODE_LINES = 20
_HUGO_ARG = re.compile(r"""([\w-]+)=(?:"([^"]*)"|'([^']*)'|(\S+))|"([^"]*)"|'([^']*)'|(\S+)""")
_HUGO_TEXT_ARGS = ("text", "title", "header", "label", "alt", "caption", "name")
_FLAGS = frozenset({"true", "false"})
# Shortcodes whose first argument is their label (Docsy: `{{% tab DockerHub %}}` showed "tab
# DockerHub", 307 times), and ones that only hold others (`{{< tabpane >}}`): no name shown.
_LABELLED_BY_ARGUMENT = frozenset({"tab", "kbd", "video"})  # (Quarto's `{{< kbd Ctrl-C >}}`)
_CONTAINERS = frozenset({"tabpane", "tabs", "cardpane", "blocks/section"})
_HUGO_ADMONITIONS = frozenset(
    {"note", "warning", "caution", "tip", "info", "important", "danger", "alert", "callout",
     "hint", "admonition", "notice"}
)  # fmt: skip


def read_line(line: str) -> str:
    """A line with Hugo shortcodes as its reader's text (see SHORTCODE)."""
    whole = SHORTCODE.fullmatch(line.strip())
    if whole is not None:
        opening, name, args = not whole.group(2), whole.group(3).lower(), _hugo_args(whole)
        titled = _hugo_title(args) or (args.get("0", "") if name in _LABELLED_BY_ARGUMENT else "")
        # (a set of tabs shows its tabs' labels, not its own name: Kubernetes' `{{< tabs
        # name="kubectl_autocompletion" >}}`, 109 lines of ids)
        if not opening or name in _CONTAINERS or not (titled or name in _HUGO_ADMONITIONS):
            return ""
        return line[: len(line) - len(line.lstrip())] + (titled or name.capitalize())

    def text(m: re.Match[str]) -> str:
        if m.group(2):
            return ""
        name, args = m.group(3), _hugo_args(m)
        positional = [v for k, v in args.items() if k.isdigit()]
        if name.lower() in ("ref", "relref"):
            return positional[0] if positional else ""
        if name.lower() in _LABELLED_BY_ARGUMENT:
            return _hugo_title(args) or (positional[0] if positional else "")
        if name.lower() in _CONTAINERS:
            return _hugo_title(args)
        return _hugo_title(args) or " ".join([re.sub(r"[-_]", " ", name), *positional])

    out = SHORTCODE.sub(text, line)
    # `{{< tabpane >}} {{% tab DockerHub %}}`: what the first left is no indent of the second's
    return out.lstrip(" \t") if line.startswith("{{") else out


def _hugo_title(args: dict[str, str]) -> str:
    """The first non-empty text argument of a shortcode (`text`, `title`, `alt`, …), or ""; a
    flag is no text (Docsy's `{{< tabpane text=true >}}`: 147 lines of "true")."""
    return next(
        (args[k] for k in _HUGO_TEXT_ARGS if args.get(k) and args[k].lower() not in _FLAGS), ""
    )


def _hugo_args(m: re.Match[str]) -> dict[str, str]:
    """A shortcode's arguments: named ones by name, positional ones by their place ("0", ...)."""
    out: dict[str, str] = {}
    for a in _HUGO_ARG.finditer(m.group(4)):
        if a.group(1):
            out[a.group(1).lower()] = a.group(2) or a.group(3) or a.group(4) or ""
        else:
            out[str(len(out))] = a.group(5) or a.group(6) or a.group(7) or ""
    return out


def shortcode_blocks(lines: list[str], text: str) -> list[str]:
    """Hugo shortcodes written over several lines (`{{< img` / `  alt="…"` / `>}}`) as one: the
    first line reads as the whole would (read_line), the others leave nothing (same line count);
    `text`: the lines joined."""
    if "{{<" not in text and "{{%" not in text:
        return lines
    code = fenced_lines(lines)
    out = list(lines)
    i = 0
    while i < len(lines):
        line = lines[i]
        start = line.lstrip()
        if code[i] or not start.startswith(("{{<", "{{%")) or ">}}" in line or "%}}" in line:
            i += 1
            continue
        closer = ">}}" if start.startswith("{{<") else "%}}"
        end = block_end(lines, code, i, closer, code_ends=False, text_after=True)
        if end is None:
            i += 1
            continue
        # Text may follow on the closing line (OpenTelemetry's `{{% config_option` / `  name=
        # "…" %}} Suppress…`): it stays there.
        cut = lines[end].index(closer) + len(closer)
        joined = " ".join(x.strip() for x in [*lines[i:end], lines[end][:cut]])
        out[i] = (
            read_line(line[: len(line) - len(start)] + joined)
            if SHORTCODE.fullmatch(joined)
            else line
        )
        if out[i] is not line:
            out[i + 1 : end + 1] = [""] * (end - i)
            out[end] = lines[end][cut:].lstrip()
        i = end + 1
    return out


def block_end(
    lines: list[str],
    code: list[bool],
    i: int,
    closer: str,
    code_ends: bool,
    text_after: bool = False,
) -> int | None:
    """The line closing a block opened on line `i` (a shortcode or template call over several
    lines): the first line after it, within MAX_SHORTCODE_LINES, holding `closer` outside code,
    when it ends with `closer` (or, with `text_after`, holds it anywhere); else None. Code lines
    are passed over, or with `code_ends` end the search (no block)."""
    for k in range(i + 1, min(len(lines), i + MAX_SHORTCODE_LINES)):
        if code[k]:
            if code_ends:
                return None
            continue
        if closer in lines[k]:
            return k if text_after or lines[k].rstrip().endswith(closer) else None
    return None
