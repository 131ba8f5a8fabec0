"""The indentation of lines inside a JSX component, taken away (readable.py's last step on a
file's lines): MDX does not read indentation as code, markdown-it would, so a run of lines
between a component's tag lines loses what it is indented beyond the outermost open tag.
"""

from __future__ import annotations


def _dedent(line: str, columns: int) -> str:
    """`line` less `columns` columns of its indentation (tabs expanded first)."""
    body = line.lstrip(" \t")
    lead = line[: len(line) - len(body)].expandtabs(4)
    return lead[min(columns, len(lead)) :] + body


def width(line: str) -> int:
    """The columns `line` is indented by (tab stops every 4 columns)."""
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip(" "))


def dedent_components(
    lines: list[str],
    out: list[str],
    code: list[bool],
    depth_at: dict[int, int],
    tag_lines: set[int],
) -> None:
    """Dedent each run of lines inside a component (between its tag lines) by its indentation
    beyond the outermost open tag's: `<Steps>` / `  <Step>` / `    text` reads as `text`."""
    k = 0
    n = len(out)
    while k < n:
        if k not in depth_at or k in tag_lines:
            k += 1
            continue
        base = width(lines[depth_at[k]])
        run = k
        while run < n and run in depth_at and run not in tag_lines:
            run += 1
        widths = [
            width(out[x])
            for x in range(k, run)
            if out[x].strip() and (not code[x] or (x == 0 or not code[x - 1]))
        ]
        cut = min(widths, default=0) - base
        if cut > 0:
            for x in range(k, run):
                out[x] = _dedent(out[x], cut) if out[x].strip() else out[x]
        k = run
