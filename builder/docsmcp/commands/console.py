"""What every command prints with: the program name and one-line errors on stderr."""

from __future__ import annotations

import sys

PROG = "docsmcp"


def _err(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)
