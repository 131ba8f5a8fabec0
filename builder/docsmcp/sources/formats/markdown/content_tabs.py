"""Content tabs of two dialects, found before a page is parsed (dialects.rewrite labels them):

- pymdownx `=== "Label"` (mkdocs-material): the body is indented four columns under the
  marker; consecutive tabs at one indent are one set, `===!` starts a new one;
- Docusaurus `<Tabs>`/`<TabItem value=… label=…>` and sites' own `<XTabs>` wrappers,
  Supabase's `<TabPanel>`, Mintlify's `<Tab title>`, Nextra's `<Tabs.Tab>` labelled by the
  set's `items={[…]}` in order.

Each tab is a `Tab` with its line range and, when its label, `value` or the set's `groupId`
names a programming language, that language (tab_languages.py decides which sets are choices
of languages). Moved out of dialects.py, which neared 600 lines.
"""

from __future__ import annotations

import re

from docsmcp.model.chunk import Tab
from docsmcp.sources.formats.markdown.tab_languages import tab_language
from docsmcp.sources.jsliteral import exported_literal

# `=== "Label"`, `===+ "Label"` (selected), `===! "Label"` (starts a new tab set).
_MATERIAL_TAB = re.compile(r'^([ \t]*)===([+!]?)[ \t]+"([^"\n]*)"[ \t]*$')
# `<Tabs>` or a site's own wrapper around it (`<CodeTabs>`, `<LanguageTabs>`, `<SDKTabs>`).
_TABS_OPEN = re.compile(r"^[ \t]*<((?:[A-Z]\w*)?Tabs)(?=[\s/>]|$)")
_TABS_CLOSE = re.compile(r"^[ \t]*</((?:[A-Z]\w*)?Tabs)>[ \t]*$")
# `values={[{label: 'Python', value: 'py'}, ...]}` of older Docusaurus tab sets.
_VALUES_ENTRY = re.compile(
    r"""\{\s*label:\s*(["'])(.*?)\1\s*,\s*value:\s*(["'])(.*?)\3\s*,?\s*\}"""
    r"""|\{\s*value:\s*(["'])(.*?)\5\s*,\s*label:\s*(["'])(.*?)\7\s*,?\s*\}"""
)
# A tab of a set: Docusaurus `<TabItem value label>`, and the `<TabPanel id label>` /
# `<Tab title>` of sites' own components (Supabase, Mintlify), Nextra's `<Tabs.Tab>`. Alone on
# its line, or followed by the tab's text (`<TabItem …>pip install x`).
_TAB_TAG = r"(?:TabItem|TabPanel|Tabs\.Tab|Tab)"
# Nextra's and Fumadocs' labels, in the set's tag: `<Tabs items={['npm', 'yarn']}>`, by position.
_ITEMS = re.compile(r"\bitems=\{\s*(\[.*?\])\s*\}", re.DOTALL)
_TABITEM_OPEN = re.compile(r"^[ \t]*<" + _TAB_TAG + r"\b([^>]*)>[ \t]*(.*?)[ \t]*$")
_TABITEM_CLOSE = re.compile(r"^[ \t]*</" + _TAB_TAG + r">[ \t]*$")
# The closing tag ending a line of the tab's text (`…text</TabItem>`).
_TABITEM_CLOSE_END = re.compile(r"[ \t]*</" + _TAB_TAG + r">[ \t]*$")
# JSX string props: `name="v"`, `name='v'`, `name={"v"}`, `name={'v'}`.
_PROP = re.compile(r"""([A-Za-z_][\w-]*)=(?:"([^"]*)"|'([^']*)'|\{["']([^"'{}]*)["']\})""")


def width(line: str) -> int:
    """Columns of leading whitespace (a tab counts to the next multiple of four)."""
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip(" "))


def dedent_line(line: str, columns: int) -> str:
    """`line` without up to `columns` columns of leading whitespace (tabs in it expanded)."""
    if not line.strip():
        return ""
    body = line.lstrip(" \t")
    lead = line[: len(line) - len(body)].expandtabs(4)
    return lead[min(columns, len(lead)) :] + body


def relabel(marker: str, columns: int, label: str) -> str:
    """`label` in place of a marker line, at the marker's indent once dedented by `columns`
    (`dedent_line` leaves spaces only, so the width is the slice)."""
    line = dedent_line(marker, columns)
    return line[: width(line)] + label


def material_tabs(
    lines: list[str], code: list[bool], first_group: int
) -> tuple[list[Tab], list[int]]:
    """pymdownx tabs: (tabs, columns to dedent each line by)."""
    dedent = [0] * len(lines)
    tabs: list[Tab] = []
    group = first_group - 1
    last: tuple[int, int] | None = None  # (indent, end) of the previous tab
    for i, line in enumerate(lines):
        m = _MATERIAL_TAB.match(line) if not code[i] and "===" in line else None
        if m is None:
            continue
        indent = width(line)
        j = i + 1
        end = i + 1
        while j < len(lines) and (not lines[j].strip() or width(lines[j]) >= indent + 4):
            if lines[j].strip():
                end = j + 1
            j += 1
        for k in range(i + 1, end):
            dedent[k] += 4
        joined = (
            last is not None
            and last[0] == indent
            and m.group(2) != "!"
            and not any(s.strip() for s in lines[last[1] : i])
        )
        if not joined:
            group += 1
        label = m.group(3).strip()
        tabs.append(Tab(group, i, end, label, tab_language(label)))
        last = (indent, end)
    return tabs, dedent


def _props(text: str) -> dict[str, str]:
    return {
        m.group(1): next(g for g in m.groups()[1:] if g is not None) for m in _PROP.finditer(text)
    }


def _items(tag: str) -> list[str]:
    """The labels a tab set's `items={[...]}` gives its tabs by position (JSX as its text)."""
    m = _ITEMS.search(tag)
    found = exported_literal(f"export default {m.group(1)}", loose=True) if m else None
    return [i if isinstance(i, str) else "" for i in found] if isinstance(found, list) else []


def docusaurus_tabs(
    lines: list[str], code: list[bool], first_group: int
) -> tuple[list[Tab], set[int], dict[int, str], dict[int, str]]:
    """Docusaurus tabs: (tabs, lines to blank, label lines, tab text lines without tags)."""
    tabs: list[Tab] = []
    blank: set[int] = set()
    labels: dict[int, str] = {}
    texts: dict[int, str] = {}
    group = first_group - 1
    group_id = ""
    set_labels: dict[str, str] = {}
    items: list[str] = []  # the set's `items`, and how many of its tabs opened so far
    opened = 0
    open_item: tuple[int, str, str] | None = None  # (line, label, language)
    depth = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        if code[i] or "Tab" not in line:
            i += 1
            continue
        if _TABS_OPEN.match(line):
            # The opening tag may span lines (`<Tabs\n  groupId="x"\n  values={[...]}>`).
            j = i
            while j + 1 < len(lines) and not lines[j].rstrip().endswith(">") and j - i < 50:
                j += 1
            tag = " ".join(lines[i : j + 1])
            if tag.rstrip().endswith("/>"):
                # self-closing: no set of tabs but a component of its own (Tauri's
                # `<CommandTabs npm=… />`, left to readable.py)
                i = j + 1
                continue
            if depth == 0:
                group += 1
                group_id = _props(tag).get("groupId", "") or _TABS_OPEN.match(line).group(1)
                set_labels = {
                    (m.group(4) or m.group(6)): (m.group(2) or m.group(8))
                    for m in _VALUES_ENTRY.finditer(tag)
                }
                items = _items(tag)
                opened = 0
            depth += 1
            blank.update(range(i, j + 1))
            i = j + 1
            continue
        if depth and _TABS_CLOSE.match(line):
            depth -= 1
            blank.add(i)
        elif depth == 1 and (m := _TABITEM_OPEN.match(line)):
            props = _props(m.group(1))
            value = props.get("value", "")
            label = (
                props.get("label", "")
                or props.get("title", "")
                or set_labels.get(value, "")
                or value
                or (items[opened] if opened < len(items) else "")
            )
            opened += 1
            open_item = (i, label, tab_language(label, value, group_id))
            text = m.group(2)
            closed = _TABITEM_CLOSE_END.search(text)
            if closed:
                text = text[: closed.start()]
            if text:  # text on the tag's own line follows the label there (no line is added)
                texts[i] = f"{label}: {text}" if label else text
            else:
                labels[i] = label
            if closed:
                tabs.append(Tab(group, i, i + 1, label, open_item[2]))
                open_item = None
        elif depth == 1 and _TABITEM_CLOSE.match(line):
            blank.add(i)
            if open_item is not None:
                start, label, language = open_item
                tabs.append(Tab(group, start, i + 1, label, language))
                open_item = None
        elif depth == 1 and open_item is not None and (closed := _TABITEM_CLOSE_END.search(line)):
            texts[i] = line[: closed.start()]
            start, label, language = open_item
            tabs.append(Tab(group, start, i + 1, label, language))
            open_item = None
        i += 1
    return tabs, blank, labels, texts
