"""Strict reading of untrusted JSON: every value checked for its type as it is taken out.

`metadata.json` comes from disk and may be damaged or crafted, so nothing is trusted: numbers
must be finite and not booleans, strings are strings, lists hold what they should. Unknown keys
are ignored (bundle-spec.md, *Compatibility*); known keys are checked strictly. Errors name the
JSON path, e.g. `taxonomy/language/values/2: expected a string`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

T = TypeVar("T")
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


class MetadataError(ValueError):
    """A known key of metadata.json is missing or malformed; str() is `path: message`."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path or '(root)'}: {message}")
        self.path = path
        self.message = message


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


def _depth(value: object, limit: int) -> int:
    """Nesting depth of a parsed JSON value, without recursion (crafted files nest deeply)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return depth
        deepest = max(deepest, depth)
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def loads(text: str, max_depth: int) -> Any:
    """json.loads without NaN/Infinity, huge integers or nesting deeper than `max_depth`;
    raises MetadataError."""
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:  # the C decoder guards its recursion and raises this
        raise MetadataError("", "nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, NaN, or an integer of thousands of digits
        raise MetadataError("", f"not valid JSON ({exc})") from None
    if _depth(value, max_depth) > max_depth:
        raise MetadataError("", f"nested deeper than {max_depth} levels")
    return value


def join(path: str, key: str | int) -> str:
    return f"{path}/{key}" if path else str(key)


def obj(value: object, path: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise MetadataError(path, f"expected an object, got {_kind(value)}")
    return value


def field(data: Mapping[str, Any], key: str, path: str, read: Callable[[object, str], T]) -> T:
    """The required key `key` of `data`, read with `read`."""
    if key not in data:
        raise MetadataError(path, f"missing key {key!r}")
    return read(data[key], join(path, key))


def optional(
    data: Mapping[str, Any], key: str, path: str, read: Callable[[object, str], T], default: T
) -> T:
    """Like `field`, but an absent key gives `default` (keys added after the first release)."""
    if key not in data:
        return default
    return read(data[key], join(path, key))


def string(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise MetadataError(path, f"expected a string, got {_kind(value)}")
    return value


def nonempty(value: object, path: str) -> str:
    text = string(value, path)
    if not text:
        raise MetadataError(path, "must not be empty")
    return text


def sha256_hex(value: object, path: str) -> str:
    """A sha256 as metadata writes it: 64 lower-case hex digits."""
    text = string(value, path)
    if not _SHA256_HEX.fullmatch(text):
        raise MetadataError(path, "expected 64 lower-case hex digits")
    return text


def string_or_null(value: object, path: str) -> str | None:
    return None if value is None else string(value, path)


def boolean(value: object, path: str) -> bool:
    if not isinstance(value, bool):
        raise MetadataError(path, f"expected true or false, got {_kind(value)}")
    return value


def integer(value: object, path: str, low: int = 0, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MetadataError(path, f"expected an integer, got {_kind(value)}")
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f">= {low}"
        raise MetadataError(path, f"must be {bound}, got {value}")
    return value


def number(value: object, path: str, low: float | None = None, high: float | None = None) -> float:
    """A finite JSON number (int or float, never a boolean) within [low, high]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MetadataError(path, f"expected a number, got {_kind(value)}")
    if not math.isfinite(value):
        raise MetadataError(path, "must be a finite number")
    if (low is not None and value < low) or (high is not None and value > high):
        bound = f"between {low:g} and {high:g}" if high is not None else f">= {low:g}"
        raise MetadataError(path, f"must be {bound}, got {value}")
    return value


def strings(value: object, path: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise MetadataError(path, f"expected a list of strings, got {_kind(value)}")
    return tuple(string(v, join(path, i)) for i, v in enumerate(value))


def sorted_unique(items: tuple[str, ...], path: str) -> tuple[str, ...]:
    encoded = [v.encode("utf-8", "surrogatepass") for v in items]
    if any(a >= b for a, b in zip(encoded, encoded[1:], strict=False)):
        raise MetadataError(path, "must be sorted in byte order without duplicates")
    return items


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)
