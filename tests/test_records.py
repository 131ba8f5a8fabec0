"""`records.record`: the runtime's value types behave as `@dataclass(frozen=True)` does."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from docsmcp_runtime.records import record


@record
class Point:
    """A value with defaults of both kinds."""

    x: int
    y: str
    z: float = 0.5
    tags: list[str] = dataclasses.field(default_factory=list)
    note: str = dataclasses.field(default="", compare=False, repr=False)


@record(eq=False)
class Handle:
    value: int


@record(frozen=False)
class Counter:
    count: int = 0


@dataclasses.dataclass(frozen=True)
class Reference:
    """The same fields as Point, made by dataclasses: what record must match."""

    x: int
    y: str
    z: float = 0.5
    tags: list[str] = dataclasses.field(default_factory=list)
    note: str = dataclasses.field(default="", compare=False, repr=False)


CALLS = [
    ((1, "a"), {}),
    ((1, "a", 2.0, ["t"], "n"), {}),
    ((1,), {"y": "b", "note": "kept"}),
    ((), {"x": 3, "y": "c", "tags": ["u"]}),
]


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_construction_fields_and_repr_match_a_frozen_dataclass(args: tuple, kwargs: dict) -> None:
    mine, theirs = Point(*args, **kwargs), Reference(*args, **kwargs)
    assert dataclasses.asdict(mine) == dataclasses.asdict(theirs)
    assert repr(mine).replace("Point", "Reference") == repr(theirs)
    assert [f.name for f in dataclasses.fields(mine)] == ["x", "y", "z", "tags", "note"]
    assert dataclasses.is_dataclass(mine)


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {}, "missing required argument: 'x'"),
        ((1,), {}, "missing required argument: 'y'"),
        ((1, "a"), {"w": 1}, "unexpected keyword argument 'w'"),
        ((1, "a"), {"x": 2}, "multiple values for argument 'x'"),
        ((1, "a", 1.0, [], "", 6), {}, "takes 5 arguments but 6 were given"),
    ],
)
def test_wrong_arguments_are_a_type_error(args: tuple, kwargs: dict, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        Point(*args, **kwargs)
    with pytest.raises(TypeError):
        Reference(*args, **kwargs)


def test_each_instance_gets_its_own_default_factory_value() -> None:
    first, second = Point(1, "a"), Point(1, "a")
    first.tags.append("t")
    assert second.tags == []


def test_equal_and_hashable_by_the_compared_fields() -> None:
    assert Point(1, "a", note="one") == Point(1, "a", note="two")
    assert hash(Point(1, "a", tags=())) == hash(Point(1, "a", tags=(), note="x"))  # type: ignore[arg-type]
    assert Point(1, "a") != Point(2, "a")
    assert Point(1, "a") != Reference(1, "a")  # another class is never equal
    assert len({Point(1, "a", tags=()), Point(1, "a", tags=())}) == 1  # type: ignore[arg-type]
    handle = Handle(1)
    assert handle == handle and Handle(1) != Handle(1)


def test_frozen_refuses_assignment_mutable_allows_it() -> None:
    point = Point(1, "a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del point.x  # type: ignore[misc]
    counter = Counter()
    counter.count += 1
    assert counter == Counter(1)
    with pytest.raises(TypeError):
        hash(counter)  # mutable and compared by value: unhashable, as a dataclass


def test_replace_and_pickle_keep_working() -> None:
    point = Point(1, "a", tags=["t"])
    moved = dataclasses.replace(point, x=5)
    assert (moved.x, moved.y, moved.tags) == (5, "a", ["t"])
    assert pickle.loads(pickle.dumps(point)) == point


def test_a_class_without_a_docstring_is_described_by_its_fields() -> None:
    @record
    class Plain:
        a: int
        b: str = "x"

    assert Plain.__doc__ == "Plain(a, b)"  # (dataclasses would ask inspect.signature: slow)
    assert Point.__doc__ == "A value with defaults of both kinds."
