"""The argument parser of both command lines (docsmcp and docsmcp-runtime): usage errors in one
line that names the fix.

argparse reports what it trips over next, with the whole usage above it: `docsmcp build
--doc-dir ./docs --out ./idx` says that --docs-dir is required, and `docsmcp-runtime --bundel
./idx` that './idx' is not a command (16-21 lines). An option nobody defined is the cause in both,
so it is named first, with the closest option there is.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

# A negative number is a value, not an option (argparse's own rule).
_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")
_UNRECOGNIZED = "unrecognized arguments: "


def _columns() -> int:
    """The terminal's width as `shutil.get_terminal_size` finds it: $COLUMNS, else stdout's
    terminal, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Sized:
    """argparse's formatters import shutil for the terminal's width, at every `add_argument`:
    with the bz2 and lzma modules shutil imports, 1.2 % of a cold stdio start's instructions
    (callgrind), for a width only `--help` shows."""

    def __init__(self, prog: str, *args: object, width: int | None = None, **kwargs: object):
        super().__init__(prog, *args, width=_columns() - 2 if width is None else width, **kwargs)  # type: ignore[call-arg]


class HelpFormatter(_Sized, argparse.HelpFormatter):
    """argparse's formatter, sized without shutil."""


class RawDescriptionHelpFormatter(_Sized, argparse.RawDescriptionHelpFormatter):
    """argparse's formatter keeping the description's and epilog's lines, sized without shutil."""


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser (and, through add_subparsers, its commands' parsers) whose usage
    errors are one line: `PROG: error: unknown option --bundel; did you mean --bundle?`, or
    argparse's own message without the usage block (`PROG --help` shows that)."""

    _argv: Sequence[str] = ()

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[no-untyped-def, override]
        self._argv = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def _commands(self) -> dict[str, argparse.ArgumentParser]:
        found: dict[str, argparse.ArgumentParser] = {}
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                found.update(action.choices)
        return found

    def _reached(self) -> argparse.ArgumentParser:
        """The parser the arguments reach: a command's own, once one is named."""
        commands = self._commands()
        return next((commands[t] for t in self._argv if t in commands), self)

    def unknown_option(self, message: str) -> str | None:
        """The first option of the arguments that this parser does not define (an unambiguous
        prefix of one counts as defined, as argparse accepts it), before any command name; or
        the first option argparse left over (`unrecognized arguments`, after a command)."""
        if message.startswith(_UNRECOGNIZED):
            extra = message[len(_UNRECOGNIZED) :].split()
            return next((t.split("=", 1)[0] for t in extra if _is_option(t)), None)
        commands = self._commands()
        known = self._option_string_actions
        for token in self._argv:
            if token == "--" or token in commands:
                return None
            if not _is_option(token):
                continue
            name = token.split("=", 1)[0]
            if name in known:
                continue
            abbreviated = self.allow_abbrev and name.startswith("--")
            if abbreviated and any(option.startswith(name) for option in known):
                continue
            return name
        return None

    def error(self, message: str) -> NoReturn:
        unknown = self.unknown_option(message)
        if unknown is not None:
            import difflib  # (only on this path: the command line starts without it)

            reached = self._reached()
            longs = [o for o in reached._option_string_actions if o.startswith("--")]
            close = difflib.get_close_matches(unknown, longs, n=1, cutoff=0.6)
            message = f"unknown option {unknown}" + (f"; did you mean {close[0]}?" if close else "")
            if not close and any(a.dest == "query" for a in reached._positionals._group_actions):
                # `search --no-deps`: a query that names a flag (pip's, cargo's options)
                message += f"; to search for it, put -- before the query: -- '{unknown}'"
            self.exit(2, f"{reached.prog}: error: {message}\n")
        self.exit(2, f"{self.prog}: error: {message}\n")


def _is_option(token: str) -> bool:
    return token.startswith("-") and token != "-" and not _NUMBER.match(token)
