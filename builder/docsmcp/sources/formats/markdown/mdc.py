"""Nuxt Content's MDC syntax read as its reader sees it, line for line (the numbering stays):

- block components on a line of their own (`::note`, `::code-group`, `:read-more{to="/x"}`) and
  their closing `::`: a callout's kind as its label (`Note`, with its `title`), a read-more its
  link, a wrapper nothing (`block_line`, from mdx.admonitions_to_text);
- a block's props written as YAML between `---` lines right after its opening line (`::u-button`
  then `---`, `label: Install MCP Server`, `---`): read as its props, the lines left blank
  (`settings_blocks`). Markdown read them as a paragraph under a `---` heading underline: Nuxt's
  MCP page was one section titled `to: "cursor://…" label: Install MCP Server color: neutral`;
- inline components (`inline`): `:badge[v4.3]{color="info"}` its text, `:br` nothing, and a
  code span's props (`` `Record<string, any>`{lang="ts"} ``) nothing.
"""

from __future__ import annotations

import re

# Nuxt's docs: 238 notes, 146 tips, 149 read-mores.
_OPEN = re.compile(
    r"^([ \t]*)(?:::([A-Za-z][\w-]*)(\{[^{}\n]*\})?|:([A-Za-z][\w-]*)(\{[^{}\n]*\}))[ \t]*$"
)
_CLOSE = re.compile(r"^[ \t]*::[ \t]*$")
_PROP = re.compile(r"""([\w-]+)=(?:"([^"\n]*)"|'([^'\n]*)')""")
# A line opening with a component and its props: not a markdown attribute list (dialects.py).
PROPS_LINE = re.compile(r"^[ \t]*::?[A-Za-z][\w-]*\{")
_CALLOUTS = frozenset("note tip warning important caution info danger success alert".split())
_SETTING = re.compile(r"""^[ \t]*([\w-]+):[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|(.*?))[ \t]*$""")
_RULE = re.compile(r"^[ \t]*---[ \t]*$")
MAX_SETTINGS = 40  # lines a block's YAML props may span
# Inline: `:badge[text]{props}`, and `:badge[text]`/`:kbd[text]` without props (other names need
# them: morgan's `:date[format]` token is what its page shows), `:br`.
_INLINE_TEXT = re.compile(r"(?<![\w:`]):([A-Za-z][\w-]*)\[([^\[\]\n]*)\](\{[^{}\n]*\})?(?![(\[])")
_INLINE_BARE = frozenset({"badge", "kbd"})
_BREAK = re.compile(r"(?<![\w:`]):br(?![\w-])")


def block_line(line: str, current: str, hard_break: bool) -> str:
    """What an MDC block line reads as: a callout's kind as its label (`Note`, with its
    `title`), a read-more its link (`[Read more](/docs/x)`, which xref follows), another
    component its `title` or `name` (`::collapsible{name="…"}`), else nothing (`::code-group`,
    a closing `::`); any other line stays as it is (`current`)."""
    if _CLOSE.match(line):
        return ""
    m = _OPEN.match(line)
    if m is None:
        return current
    indent, name = m.group(1), (m.group(2) or m.group(4)).lower()
    written = m.group(3) or m.group(5) or ""
    props = {p.group(1): p.group(2) or p.group(3) or "" for p in _PROP.finditer(written)}
    title = (props.get("title") or props.get("name") or "").strip()
    if name == "read-more":
        target = props.get("to", "").strip()
        label = f"[{title or 'Read more'}]({target})" if target else ""
    elif name in _CALLOUTS:
        label = name.capitalize() + (f": {title}" if title else "")
    else:
        label = title  # a wrapper (`::code-group`, a bare `::callout`) says nothing of itself
    if not label:
        return ""
    return f"{indent}{label}\\" if hard_break else f"{indent}{label}"


def _yaml_props(lines: list[str]) -> dict[str, str] | None:
    """`key: value` lines as props; None unless every unindented line is one (an indented
    line is a list item or a nested value, and says no title)."""
    values = {}
    for line in lines:
        m = _SETTING.match(line)
        if m:
            values[m.group(1)] = next((g for g in m.groups()[1:] if g is not None), "")
        elif line.strip() and not line[:1].isspace():
            return None
    return values or None


def settings_blocks(lines: list[str], code: list[bool]) -> list[str]:
    """`lines` with each block component's YAML props read into its opening line (as
    `{title="…"}`, from `title`, `label` or `name`) and their lines left blank."""
    out = list(lines)
    for i, line in enumerate(lines[:-1]):
        if code[i] or not line.lstrip().startswith("::") or not _RULE.match(lines[i + 1]):
            continue
        m = _OPEN.match(line)
        if m is None or not m.group(2):
            continue
        last = min(len(lines), i + 2 + MAX_SETTINGS)
        end = next((j for j in range(i + 2, last) if _RULE.match(lines[j])), None)
        if end is None:
            continue
        values = _yaml_props(lines[i + 2 : end])
        if not values:
            continue
        title = values.get("title") or values.get("label") or values.get("name") or ""
        title = title.replace('"', "'").strip()
        out[i] = f'{m.group(1)}::{m.group(2)}{{title="{title}"}}' if title else line
        for j in range(i + 1, end + 1):
            out[j] = ""
    return out


def inline(line: str) -> str:
    """`line` with its inline components as their text, outside code spans."""

    def text(m: re.Match[str]) -> str:
        if line.count("`", 0, m.start()) % 2:
            return m.group(0)  # in a code span
        if not m.groups():
            return ""  # `:br`
        return m.group(2) if m.group(3) or m.group(1).lower() in _INLINE_BARE else m.group(0)

    if ":br" in line:
        line = _BREAK.sub(text, line)
    if "]" in line:
        line = _INLINE_TEXT.sub(text, line)
    return line
