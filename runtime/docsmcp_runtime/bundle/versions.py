"""Version requests (`version`, `../shared/DECISIONS.md` *Tool arguments*): a taxonomy key named
`version` is a filter whose argument may also be `latest` or a range (`5.x`, `>=2.1`, `^0.5`,
`~1.2`, `0.5`), resolved against the bundle's values; plain strings match exactly.

Values are compared as dotted numbers (a leading `v` dropped, `x`/`*` parts as wildcards,
anything after `-`/`+` ignored for ordering); a value that is not a version at all (`current`,
`next`) only matches itself, except that `latest` prefers `latest`, `current` or `stable` when
the docs name one (Docusaurus calls its newest docs `current`)."""

from __future__ import annotations

import re

VERSION_KEY = "version"
# Values that stand for the newest docs, in order of preference.
LATEST_NAMES = ("latest", "current", "stable")
_NUMBERS = re.compile(r"^v?(\d+|[x*])(?:\.(\d+|[x*]))*(?:[-+].*)?$", re.IGNORECASE)
_RANGE = re.compile(r"^(>=|<=|>|<|=|\^|~)?\s*(.+)$")

Parts = tuple[int | None, ...]  # None: a wildcard part


def parse(value: str) -> Parts | None:
    """`0.5.x` → (0, 5, None); `v2.4.0-beta` → (2, 4, 0); `current` → None."""
    text = value.strip()
    if not _NUMBERS.match(text):
        return None
    core = re.split(r"[-+]", text.lstrip("vV"), maxsplit=1)[0]
    return tuple(None if p in ("x", "X", "*") else int(p) for p in core.split("."))


def _key(parts: Parts) -> tuple[int, ...]:
    return tuple(-1 if p is None else p for p in parts) + (0,) * (4 - len(parts))


def _matches(op: str, wanted: Parts, value: Parts) -> bool:
    if op in ("", "="):  # every part given must agree; wildcards on either side agree
        return all(w is None or v is None or w == v for w, v in zip(wanted, value, strict=False))
    concrete = tuple(0 if v is None else v for v in value)
    target = tuple(0 if w is None else w for w in wanted)
    width = max(len(concrete), len(target))
    a = concrete + (0,) * (width - len(concrete))
    b = target + (0,) * (width - len(target))
    if op == ">=":
        return a >= b
    if op == ">":
        return a > b
    if op == "<=":
        return a <= b
    if op == "<":
        return a < b
    if op in ("^", "~"):  # same major (^) or same major.minor (~), and not older
        fixed = 1 if op == "^" else 2
        if wanted and wanted[0] == 0 and op == "^":
            fixed = 2  # ^0.5 means 0.5.*, as npm reads it
        return a[:fixed] == b[:fixed] and a >= b
    return False


def resolve(request: str, values: tuple[str, ...]) -> str | None:
    """The value a request names: itself, the newest for `latest`, or the newest matching a
    range; None when nothing matches."""
    if request in values:
        return request
    wanted = request.strip()
    versions = [(v, parse(v)) for v in values]
    numbered = [(v, p) for v, p in versions if p is not None]
    if wanted.lower() == "latest":
        for name in LATEST_NAMES:
            for v in values:
                if v.lower() == name:
                    return v
        return max(numbered, key=lambda vp: _key(vp[1]))[0] if numbered else None
    match = _RANGE.match(wanted)
    if not match:
        return None
    op, rest = match.group(1) or "", match.group(2)
    target = parse(rest)
    if target is None:
        return None
    fitting = [(v, p) for v, p in numbered if _matches(op, target, p)]
    return max(fitting, key=lambda vp: _key(vp[1]))[0] if fitting else None


def order_key(version: str) -> tuple:
    """Sorts versions oldest first: those that are no version (`current`) before numbered
    ones, then by their numbers, then by their text."""
    parts = parse(version)
    return (parts is not None, _key(parts) if parts else (), version)
