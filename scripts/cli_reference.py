"""Generate the CLI option tables of README.md from the argparse parsers.

The tables live between marker comments; everything else in README.md is left alone:

    <!-- cli-reference: docsmcp build; docsmcp validate -->
    ...generated, do not edit...
    <!-- /cli-reference -->

The opening marker lists one or more tables, separated by ";". A table is a command (the
program, then subcommand names: `docsmcp build`, `docsmcp-runtime search`) and optionally an
argument group title in brackets (`docsmcp build [embeddings (hybrid search)]`). Without a
group, the table holds the command's own arguments (argparse's default "positional arguments"
and "options" groups); named groups get their own tables. --help and --version are left out.

    python scripts/cli_reference.py            # rewrite README.md
    python scripts/cli_reference.py --check    # exit 1 if README.md is out of date

Help texts are read from the parsers' actions, not from format_help(), so the output does not
depend on the terminal width.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

BEGIN = re.compile(r"^<!-- cli-reference: (?P<spec>.+?) -->$")
END = "<!-- /cli-reference -->"
# A table: `COMMAND WORDS` or `COMMAND WORDS [group title]`.
TABLE_SPEC = re.compile(r"^(?P<command>[\w.-]+(?: [\w.-]+)*)(?: \[(?P<group>[^\]]+)\])?$")
DEFAULT_GROUP = None  # the table of a command's own arguments
SKIPPED_ACTIONS = (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)


class SpecError(Exception):
    """A marker names a command or group the parsers do not have, or markers are unbalanced."""


@dataclass(frozen=True)
class Command:
    name: str  # "docsmcp build"
    parser: argparse.ArgumentParser
    summary: str  # the description, else the help of the subcommand


def _parsers() -> list[argparse.ArgumentParser]:
    from docsmcp.cli import _parser as builder_parser
    from docsmcp_runtime.commands.parser import _parser as runtime_parser

    return [builder_parser(), runtime_parser()]


def walk(
    parser: argparse.ArgumentParser, name: str | None = None, summary: str = ""
) -> Iterator[Command]:
    """The parser and its subcommands, depth first, in the parser's order."""
    name = name or parser.prog
    yield Command(name, parser, parser.description or summary)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            seen: set[int] = set()
            for sub_name, sub in action.choices.items():
                if id(sub) in seen:  # an alias
                    continue
                seen.add(id(sub))
                yield from walk(sub, f"{name} {sub_name}", helps.get(sub_name, ""))


def commands() -> dict[str, Command]:
    return {c.name: c for p in _parsers() for c in walk(p)}


def _groups(parser: argparse.ArgumentParser) -> dict[str | None, list[argparse.Action]]:
    """Documented actions of each table: DEFAULT_GROUP for the default groups, else by title."""
    defaults = {id(parser._positionals), id(parser._optionals)}
    tables: dict[str | None, list[argparse.Action]] = {DEFAULT_GROUP: []}
    owner = {}
    for group in parser._action_groups:
        key = DEFAULT_GROUP if id(group) in defaults else group.title
        tables.setdefault(key, [])
        for action in group._group_actions:
            owner[id(action)] = key
    for action in parser._actions:  # the parser's order, positionals and options interleaved
        if isinstance(action, SKIPPED_ACTIONS) or action.help == argparse.SUPPRESS:
            continue
        tables[owner.get(id(action), DEFAULT_GROUP)].append(action)
    return tables


def _group_caption(parser: argparse.ArgumentParser, title: str) -> str:
    for group in parser._action_groups:
        if group.title == title:
            return group.description or title
    return title


# --- rendering ---------------------------------------------------------------------------------

# Words of help texts shown as code: --flags, -f, $VARIABLES and 'quoted literals'.
_CODE_WORDS = re.compile(
    r"(?<![\w`$-])(--?[A-Za-z][A-Za-z0-9-]*|\$[A-Z][A-Z0-9_]*|'[^'\s]+')(?![\w-])"
)


def _markdown(text: str) -> str:
    """Plain help text as a table cell: code words in code spans, markdown syntax escaped."""
    out = []
    for n, part in enumerate(_CODE_WORDS.split(text)):
        if n % 2:
            out.append(f"`{part}`")
        else:
            out.append(re.sub(r"([\\`*]|<(?=[A-Za-z/!?]))", r"\\\1", part))
    return "".join(out).replace("|", "\\|")


def _code(text: str) -> str:
    return "`" + text.replace("|", "\\|") + "`"


def _metavar(action: argparse.Action) -> str:
    """The argument part of an option, as --help shows it (`GLOB`, `{stdio,http}`, `[X ...]`)."""
    if action.metavar is not None:
        metavar = action.metavar
    elif action.choices is not None:
        metavar = "{" + ",".join(str(c) for c in action.choices) + "}"
    elif action.option_strings:
        metavar = action.dest.upper()
    else:
        metavar = action.dest
    if isinstance(metavar, tuple):  # one name per value
        return " ".join(metavar)
    nargs = action.nargs
    if nargs is None:
        return metavar
    if nargs == argparse.OPTIONAL:
        return f"[{metavar}]"
    if nargs == argparse.ZERO_OR_MORE:
        return f"[{metavar} ...]"
    if nargs == argparse.ONE_OR_MORE:
        return f"{metavar} [{metavar} ...]"
    if isinstance(nargs, int):
        return " ".join([metavar] * nargs)
    return metavar  # argparse.REMAINDER and the like


def _invocation(action: argparse.Action) -> str:
    if not action.option_strings:
        return _code(_metavar(action))
    names = list(action.option_strings)
    if action.nargs != 0:
        names[-1] = f"{names[-1]} {_metavar(action)}"
    text = ", ".join(_code(n) for n in names)
    return f"{text} (required)" if action.required else text


def _expand_help(action: argparse.Action, prog: str) -> str:
    """argparse's own %-expansion of help strings (`%(default)s`, `%(prog)s`, ...)."""
    text = action.help or ""
    if "%" not in text:
        return text
    params = dict(vars(action), prog=prog)
    params = {k: v for k, v in params.items() if v is not argparse.SUPPRESS}
    for key, value in list(params.items()):
        if hasattr(value, "__name__"):
            params[key] = value.__name__
    if params.get("choices") is not None:
        params["choices"] = ", ".join(str(c) for c in params["choices"])
    return text % params


def _shows_default(action: argparse.Action) -> bool:
    default = action.default
    if default is None or default is argparse.SUPPRESS or action.nargs == 0:
        return False  # flags: the default is "not given"
    return not (isinstance(default, list | tuple) and not default)


def _meaning(action: argparse.Action, prog: str) -> str:
    raw = action.help or ""
    text = _expand_help(action, prog).strip()
    notes = []
    if isinstance(action, argparse._AppendAction) and "repeatable" not in text:
        notes.append("repeatable")
    if _shows_default(action) and "default" not in raw.lower():
        default = action.default
        if isinstance(default, list | tuple):
            default = ",".join(str(v) for v in default)
        notes.append(f"default: {default}")
    if notes:
        text = f"{text} ({'; '.join(notes)})" if text else "; ".join(notes)
    return _markdown(text)


def render_table(command: Command, group: str | None) -> str:
    actions = _groups(command.parser)[group]
    caption = command.summary if group is DEFAULT_GROUP else _group_caption(command.parser, group)
    title = _code(command.name)
    if caption.strip():
        title += f" — {_markdown(caption.strip())}"
    lines = [title, "", "| option | meaning |", "|---|---|"]
    for action in actions:
        lines.append(f"| {_invocation(action)} | {_meaning(action, command.parser.prog)} |")
    if not actions:
        lines.append("| | (no options) |")
    return "\n".join(lines)


def parse_spec(spec: str) -> list[tuple[str, str | None]]:
    tables = []
    for part in spec.split(";"):
        match = TABLE_SPEC.match(part.strip())
        if not match:
            raise SpecError(f"cannot read table {part.strip()!r} in marker {spec!r}")
        tables.append((match["command"], match["group"]))
    return tables


def render_region(spec: str, known: dict[str, Command]) -> str:
    parts = []
    for name, group in parse_spec(spec):
        if name not in known:
            raise SpecError(f"marker {spec!r}: no command {name!r} (known: {', '.join(known)})")
        command = known[name]
        groups = _groups(command.parser)
        if group not in groups:
            titles = ", ".join(f"[{g}]" for g in groups if g is not DEFAULT_GROUP) or "none"
            raise SpecError(f"marker {spec!r}: {name} has no group [{group}] (groups: {titles})")
        parts.append(render_table(command, group))
    return "\n\n".join(parts)


# --- README regions ----------------------------------------------------------------------------


def regenerate(text: str, known: dict[str, Command]) -> tuple[str, list[str], set]:
    """The README with every region rewritten, the specs of the regions that changed, and the
    (command, group) tables the README renders."""
    lines = text.split("\n")
    out: list[str] = []
    stale: list[str] = []
    rendered: set[tuple[str, str | None]] = set()
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        match = BEGIN.match(line.strip())
        if not match:
            if line.strip() == END:
                raise SpecError(f"line {i}: {END} without an opening cli-reference marker")
            continue
        spec = match["spec"]
        start = i
        while i < len(lines) and lines[i].strip() != END:
            if BEGIN.match(lines[i].strip()):
                raise SpecError(f"line {i + 1}: cli-reference marker inside {spec!r}")
            i += 1
        if i == len(lines):
            raise SpecError(f"line {start}: {spec!r} has no closing {END}")
        old = "\n".join(lines[start:i])
        new = "\n" + render_region(spec, known) + "\n"
        if old != new:
            stale.append(spec)
        out.extend([new, lines[i]])
        i += 1
        rendered.update(parse_spec(spec))
    return "\n".join(out), stale, rendered


def missing_tables(known: dict[str, Command], rendered: set) -> list[str]:
    """Tables with options that no region of the README shows."""
    missing = []
    for name, command in known.items():
        for group, actions in _groups(command.parser).items():
            if actions and (name, group) not in rendered:
                missing.append(name if group is DEFAULT_GROUP else f"{name} [{group}]")
    return missing


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if README.md is out of date")
    ap.add_argument("--readme", type=Path, default=README, metavar="PATH", help="README to use")
    args = ap.parse_args(argv)
    known = commands()
    text = args.readme.read_text(encoding="utf-8")
    try:
        new_text, stale, rendered = regenerate(text, known)
    except SpecError as exc:
        print(f"{args.readme}: {exc}", file=sys.stderr)
        return 2
    missing = missing_tables(known, rendered)
    status = 0
    if missing:
        print(f"{args.readme}: no cli-reference region for: {'; '.join(missing)}", file=sys.stderr)
        status = 1
    if args.check:
        if stale:
            print(
                f"{args.readme}: CLI reference out of date: {'; '.join(stale)} "
                f"(run python scripts/cli_reference.py)",
                file=sys.stderr,
            )
            status = 1
        return status
    if stale:
        args.readme.write_text(new_text, encoding="utf-8")
        print(f"{args.readme}: rewrote {'; '.join(stale)}")
    return status


if __name__ == "__main__":
    sys.exit(main())
