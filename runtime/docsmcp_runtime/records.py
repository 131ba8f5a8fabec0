"""`record`: the runtime's value types, dataclasses whose methods are not compiled at import.

On Python 3.11 `@dataclass(frozen=True)` writes six methods per class as source text and
compiles each (`__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__`, `__delattr__`): 240
compilations on a cold start, and the 29 classes a start imports spent about a third of the
runtime's own import CPU in the parser and compiler (issue 30). `record` registers the fields
with `dataclasses` (no method generated), so `fields`, `replace`, `asdict` and `is_dataclass`
work as before, and gives every class the same methods built once here: the same behaviour as
`@dataclass(frozen=True)` (positional and keyword arguments, defaults,
`field(default_factory=...)`, `compare`/`repr` of a field, equal and hashable by value,
`FrozenInstanceError` on assignment; tests/test_records.py checks them against a dataclass).
A cold start to the first answer took 11.8 % fewer instructions (callgrind, speakeasy-sdks); a
construction costs ~1.2–1.4 times a dataclass's, equality and hashing under a microsecond.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T", bound=type)

_MISSING = dataclasses.MISSING


def _init(cls: type) -> Callable[..., None]:
    fields = dataclasses.fields(cls)
    names = tuple(f.name for f in fields)
    count = len(names)
    # Dict operations in C, not a loop per field: plain defaults first, then what is given.
    defaults = {f.name: f.default for f in fields if f.default is not _MISSING}
    factories = tuple(
        (f.name, f.default_factory) for f in fields if f.default_factory is not _MISSING
    )
    name = cls.__qualname__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) == count and not kwargs:  # (every field given in order)
            self.__dict__.update(zip(names, args, strict=False))
            return
        values = dict(defaults)
        values.update(zip(names, args, strict=False))
        if kwargs:
            if args and not kwargs.keys().isdisjoint(names[: len(args)]):
                taken = sorted(kwargs.keys() & set(names[: len(args)]))
                raise TypeError(f"{name}() got multiple values for argument {taken[0]!r}")
            values.update(kwargs)
        for field, factory in factories:
            if field not in values:
                values[field] = factory()
        if len(values) != count or len(args) > count:
            _bad_arguments(name, names, args, values)
        self.__dict__.update(values)

    return __init__


def _bad_arguments(name: str, names: tuple[str, ...], args: tuple, values: dict) -> None:
    if len(args) > len(names):
        raise TypeError(f"{name}() takes {len(names)} arguments but {len(args)} were given")
    for key in values:
        if key not in names:
            raise TypeError(f"{name}() got an unexpected keyword argument {key!r}")
    missing = [n for n in names if n not in values]
    raise TypeError(f"{name}() missing required argument: {missing[0]!r}")


def _repr(self: Any) -> str:
    shown = ", ".join(
        f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self) if f.repr
    )
    return f"{type(self).__qualname__}({shown})"


def _comparisons(cls: type) -> tuple[Callable[[Any, object], bool], Callable[[Any], int]]:
    """`__eq__` and `__hash__` over the fields compared, read by one C getter (a tuple)."""
    compared = [f.name for f in dataclasses.fields(cls) if f.compare]
    getter = attrgetter(*compared) if compared else (lambda _: ())
    if len(compared) == 1:  # (attrgetter of one name gives the value, not a tuple)
        one = getter
        getter = lambda obj: (one(obj),)  # noqa: E731

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return getter(self) == getter(other)

    def __hash__(self: Any) -> int:
        return hash(getter(self))

    return __eq__, __hash__


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _build(cls: T, eq: bool, frozen: bool) -> T:
    # A class without a docstring gets "Name(signature)" from dataclasses by
    # `inspect.signature`, whose first use tokenizes a builtin's text signature (a regex
    # compiled, ~4 % of the runtime's import CPU): the field names are enough here.
    undocumented = not cls.__doc__
    if undocumented:
        cls.__doc__ = cls.__name__
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False)  # fields only
    if undocumented:
        cls.__doc__ = f"{cls.__name__}({', '.join(f.name for f in dataclasses.fields(cls))})"
    cls.__init__ = _init(cls)  # type: ignore[misc]
    cls.__repr__ = _repr  # type: ignore[assignment]
    if eq:
        eq_method, hash_method = _comparisons(cls)
        cls.__eq__ = eq_method  # type: ignore[assignment]
        # (as a dataclass: hashable by value when frozen, unhashable when mutable)
        cls.__hash__ = hash_method if frozen else None  # type: ignore[assignment]
    if frozen:
        cls.__setattr__ = _frozen_setattr  # type: ignore[assignment]
        cls.__delattr__ = _frozen_delattr  # type: ignore[assignment]
    return cls


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def record(cls: T | None = None, /, *, eq: bool = True, frozen: bool = True) -> Any:
    """`@record`, `@record(eq=False)`, `@record(frozen=False)`: a dataclass with those
    options (see the module docstring)."""
    if cls is None:
        return lambda c: _build(c, eq, frozen)
    return _build(cls, eq, frozen)
