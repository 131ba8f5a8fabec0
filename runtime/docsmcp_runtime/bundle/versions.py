"""Version requests (`version`, `../shared/DECISIONS.md` *Tool arguments*): a taxonomy key named
`version` is a filter whose argument may also be `latest` or a range (`5.x`, `>=2.1`, `^0.5`,
`~1.2`, `0.5`), resolved against the bundle's values; plain strings match exactly.

Values are compared as dotted numbers (a leading `v` dropped, `x`/`*` parts as wildcards, `4x`
read as `4.x`, anything after `-`/`+` ignored for ordering) or as dates (`2025-11-25`: year,
month, day); a value that is not a version at all (`current`, `next`) only matches itself.
`latest` is the bundle's recorded latest release when it has one (the taxonomy entry's
`latest`, bundle-spec.md), else `latest`, `current` or `stable` when the docs name one, else
the highest number.

`is_release` is the one rule of what counts as released (the builder picks the recorded latest
with it): a number or date without a pre-release mark, or `latest`/`stable`."""

from __future__ import annotations

import re

VERSION_KEY = "version"
# Values that stand for the newest docs, in order of preference.
LATEST_NAMES = ("latest", "current", "stable")
_NUMBERS = re.compile(r"^v?(\d+|[x*])(?:\.(\d+|[x*]))*(?:[-+].*)?$", re.IGNORECASE)
# A major version and its whole line written without the dot: Express' `4x/` and `5x/` folders.
_MAJOR_X = re.compile(r"^v?(\d+)x$", re.IGNORECASE)
_RANGE = re.compile(r"^(>=|<=|>|<|=|\^|~)?\s*(.+)$")
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
# A pre-release mark after the numbers: 2.0.0-rc1, 1.0-beta, 3.1a2, 0.9.dev1, 1.0-SNAPSHOT.
_PRERELEASE = re.compile(
    r"(?:^|[-+._\d])(?:rc|beta|alpha|a|b|dev|pre|preview|snapshot|canary|nightly|next)\d*(?:$|[-+.])",
    re.IGNORECASE,
)
# Channel names that stand for a released version (mike's and Read the Docs' aliases).
RELEASED_NAMES = ("latest", "stable")

Parts = tuple[int | None, ...]  # None: a wildcard part


def parse(value: str) -> Parts | None:
    """`0.5.x` → (0, 5, None); `v2.4.0-beta` → (2, 4, 0); `4x` → (4, None); `current` →
    None."""
    text = value.strip()
    if date := _DATE.match(text):
        return tuple(int(p) for p in date.groups())
    if major := _MAJOR_X.match(text):
        return (int(major.group(1)), None)
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


def is_release(value: str) -> bool:
    """Whether `value` names a released version: a number or date with no pre-release mark
    (`2.0.0-rc1`, `1.0b2`, `0.9.dev1` are not), or `latest`/`stable`."""
    text = value.strip()
    if text.lower() in RELEASED_NAMES:
        return True
    if parse(text) is None:
        return False  # draft, next, current, main, unreleased, ...
    return _DATE.match(text) is not None or not _PRERELEASE.search(text.lstrip("vV"))


def resolve(request: str, values: tuple[str, ...], latest: str | None = None) -> str | None:
    """The value a request names: itself, the newest for `latest` (`latest`: the bundle's
    recorded latest release, when it has one), or the newest matching a range; None when
    nothing matches."""
    if request in values:
        return request
    wanted = request.strip()
    versions = [(v, parse(v)) for v in values]
    numbered = [(v, p) for v, p in versions if p is not None]
    if wanted.lower() == "latest" and latest in values:
        return latest
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
