"""The commands of the ```bash blocks of README.md and the docs/ pages, with the marks that say
what a command needs, and the order in which the pages are read.

A command is one logical line of a block (lines ending in `\\` continue it). Its trailing
comment may say `needs: WHAT` (this machine or CI may lack WHAT: the command is not run, WHAT
is the reason; `needs: ../shared` ones run where the shared corpora exist) and/or
`runs until stopped` (a server). A comment line alone before a block's first command marks
every command of the block. The convention is described in docs/development.md, *These docs
are tested*.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SHARED_NEED = "../shared"
README = "README.md"
INDEX = "docs/README.md"  # the guide's table of contents: it orders the pages
_NEEDS = re.compile(r"needs: ([^;]+)")
_SERVES = "runs until stopped"


@dataclass(frozen=True)
class Command:
    text: str  # exactly as written, continuation lines included
    line: int  # 1-based line of its page where it starts
    needs: tuple[str, ...]  # what it needs beyond the checkout (empty: runs anywhere)
    serves: bool  # a server that runs until stopped
    page: str = README  # the page, relative to the repository root


@dataclass(frozen=True)
class Block:
    heading: str  # the nearest heading above the block
    line: int  # 1-based line of the opening fence
    commands: tuple[Command, ...]
    page: str = README  # the page, relative to the repository root


def split_comment(line: str) -> tuple[str, str]:
    """`line` as its code and its trailing comment (`#` outside quotes, at the start or after
    whitespace, as bash reads it); code + comment == line."""
    quote = ""
    escaped = False
    for i, ch in enumerate(line):
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i], line[i:]
    return line, ""


def _marks(comment: str) -> tuple[tuple[str, ...], bool]:
    needs = tuple(m.group(1).strip() for m in _NEEDS.finditer(comment))
    return needs, _SERVES in comment


def bash_blocks(readme: str, page: str = README) -> list[Block]:
    """Every ```bash block of `readme` (the text of `page`), in order."""
    blocks: list[Block] = []
    heading = ""
    lines = readme.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            fence_line = i + 1
            info = line[3:].strip()
            body: list[tuple[int, str]] = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append((i + 1, lines[i]))
                i += 1
            if info == "bash":
                blocks.append(Block(heading, fence_line, _commands(body, page), page))
        elif line.startswith("#"):
            heading = line.lstrip("#").strip()
        i += 1
    return blocks


def _commands(body: list[tuple[int, str]], page: str) -> tuple[Command, ...]:
    commands: list[Command] = []
    block_needs: tuple[str, ...] = ()
    block_serves = False
    pending: list[str] = []
    start = 0
    for number, line in body:
        code, comment = split_comment(line)
        if not pending and not code.strip():
            if comment and not commands:  # a comment line above the first command
                needs, serves = _marks(comment)
                block_needs += needs
                block_serves = block_serves or serves
            continue
        if not pending:
            start = number
        pending.append(line)
        if code.rstrip().endswith("\\"):
            continue
        text = "\n".join(pending)
        needs, serves = _marks("\n".join(split_comment(p)[1] for p in pending))
        commands.append(Command(text, start, block_needs + needs, block_serves or serves, page))
        pending = []
    if pending:
        raise ValueError(f"{page} line {start}: a command ends with a line continuation")
    return tuple(commands)


_PAGE_LINK = re.compile(r"\]\(([\w.-]+\.md)(?:#[^)]*)?\)")


def doc_pages(repo: Path) -> list[str]:
    """The pages whose commands run, in the order a reader meets them: README.md, the guide's
    index (docs/README.md), then the docs/ pages in the order the index first links them, then
    any page it does not link (by name; tests/test_readme.py requires that there are none)."""
    docs = repo / "docs"
    pages = [README]
    if not (repo / INDEX).is_file():
        return pages
    pages.append(INDEX)
    for name in _PAGE_LINK.findall((repo / INDEX).read_text(encoding="utf-8")):
        page = f"docs/{name}"
        if page not in pages and (docs / name).is_file():
            pages.append(page)
    pages += sorted(f"docs/{p.name}" for p in docs.glob("*.md") if f"docs/{p.name}" not in pages)
    return pages
