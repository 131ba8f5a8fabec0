"""What a docs folder holds that the builder does not read, for the line that says why a build
found nothing: a new user pointing `--docs-dir` at a LaTeX or plain-text folder was told "no .md,
.mdx, .rst, .html or .pdf files found" and nothing about what to do with the files there."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

# Entries looked at, at most: the walk runs only when nothing was found, but a folder of a
# million files must not make that line slow.
MAX_ENTRIES = 20_000
# What to do with a kind of file the builder does not read, by suffix.
ADVICE = {
    ".tex": "LaTeX is not read: build the PDF and point --docs-dir at it",
    ".txt": "plain text is not read: name reST files .rst and markdown files .md",
    # (php_package.py: a library's classes are pages only where it names its source folders)
    ".php": "PHP is read as a library's API where a composer.json autoload or phpdoc.xml in "
    "--docs-dir names its source folders",
}


def unread_hint(docs_dir: Path) -> str:
    """`; it holds 12 .adoc files (AsciiDoc is not read: …)` for the commonest kind of file
    under `docs_dir` the builder has advice for (else the commonest kind), or ""."""
    counts: Counter[str] = Counter()
    seen = 0
    for _root, dirs, files in os.walk(docs_dir):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "node_modules"]
        for name in files:
            suffix = Path(name).suffix.lower()
            if suffix and not name.startswith("."):
                counts[suffix] += 1
        seen += len(files) + len(dirs)
        if seen >= MAX_ENTRIES:
            break
    if not counts:
        return ""
    advised = [(n, s) for s, n in counts.items() if s in ADVICE]
    count, suffix = max(advised) if advised else max((n, s) for s, n in counts.items())
    files = "file" if count == 1 else "files"
    advice = f" ({ADVICE[suffix]})" if suffix in ADVICE else ", which are not read"
    return f"; it holds {count:,} {suffix} {files}{advice}"
