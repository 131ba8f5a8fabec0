"""docsify's own markdown, line by line, as its reader sees it (dialects.py calls `read_line`):

- a heading's `:id=name` sets its id (`## themeColor :id=themecolor`: the heading reads
  "themeColor", its anchor is `themecolor`, written `{#themecolor}` as every dialect's explicit
  id is); `{docsify-ignore}` and `{docsify-ignore-all}` (kept out of the sidebar) leave nothing;
- `?> text` and `!> text` (docsify's tip and warning paragraphs) read as `Tip: text` and
  `Important: text`; HashiCorp's Terraform provider docs write the same kind of paragraph as
  `-> text` (a note) and `~> text` (a warning), and the registry shows each in a coloured box
  without its marker (185 such paragraphs in four providers' docs). Where the text opens with
  its own bold label (`~> **Note:** ...`, most of them) only the marker goes. An arrow before
  a lower-case word is a sentence's line that wraps there, no note.
"""

from __future__ import annotations

import re

_ID = re.compile(r"[ \t]+:id=([\w-]+)[ \t]*$")
_IGNORE = re.compile(r"[ \t]*\{docsify-ignore(?:-all)?\}[ \t]*")
_CALLOUT = re.compile(r"^([ \t]*)([?!~-])>[ \t]+")
_LABELS = {"?": "Tip: ", "!": "Important: ", "-": "Note: ", "~": "Warning: "}


def may_hold(line: str) -> bool:
    """Whether `read_line` could change `line` (substring tests: most lines hold none)."""
    return ":id=" in line or "docsify-ignore" in line or line.lstrip()[1:3] == "> "


def read_line(line: str, heading: bool) -> str:
    """`line` as docsify shows it; `heading`: whether it is an ATX heading."""
    if "docsify-ignore" in line:
        line = _IGNORE.sub("", line)
    if heading and ":id=" in line and (m := _ID.search(line)):
        return f"{line[: m.start()]} {{#{m.group(1)}}}"
    if not heading and (m := _CALLOUT.match(line)):
        text = line[m.end() :]
        if m.group(2) in "-~" and not (text.startswith("**") or text[:1].isupper()):
            return line  # (an arrow that wraps into a sentence's next line: `-> objeto ...`)
        return m.group(1) + ("" if text.startswith("**") else _LABELS[m.group(2)]) + text
    return line
